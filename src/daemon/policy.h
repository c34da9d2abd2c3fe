/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - which removed devices revoke-bpfd revokes, and how: the
 * policy file (/etc/revoke-bpf/policy.conf by default).
 *
 * One statement per line; '#' starts a comment:
 *
 *	source udev|netlink
 *	holders kill|spare
 *	revoke [subsystem=GLOB] [PROPERTY=GLOB]...
 *		[mode=deny|revoke|release|umount] [signal=hup]
 *	seat NAME [errno=ENODEV|EIO]
 *
 * source says where removals come from: the udev rule (revoke-bpf uevent,
 * the default; rules may then match any udev property) or the kernel's
 * uevents read by the daemon itself from netlink (no udev needed; only
 * the kernel's own properties: SUBSYSTEM, DEVNAME as /dev/NAME, DEVTYPE,
 * DEVPATH, MAJOR, MINOR, and the driver's).
 *
 * holders says what every add (by hand or by a rule) does with a holder
 * whose access cannot be taken away (traced by another process, never
 * stopping, ...): kill it (the default) or leave it alive and report it
 * as a failure, as "revoke-bpf add --spare" does for one add.
 *
 * A removed device matches a rule when every condition matches its udev
 * properties (fnmatch(3) globs; a rule with none matches every device).
 * The first matching rule says what is done:
 *
 *	deny	only the BPF deny of the device number
 *	revoke	deny, wake the waiters, replace the mappings
 *	release	that, and replace the descriptors by a dead file (default)
 *	umount	that, and every filesystem mounted from the device or from
 *		one of its partitions is revoked and unmounted, as
 *		"revoke-bpf umount" does, its holders released
 *
 * signal=hup then sends SIGHUP to every process that held the device, as
 * a tty hangup does to its session (not with mode=deny).
 *
 * seat follows logind's seat NAME (seat.c): the users with a session on
 * it but not the active one are paused on its uaccess devices, with
 * errno (ENODEV by default); one line per seat, none by default.
 */
#ifndef REVOKE_POLICY_H
#define REVOKE_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define POLICY_PATH_DEFAULT "/etc/revoke-bpf/policy.conf"
#define POLICY_MAX_RULES 256
#define POLICY_MAX_CONDS 8
#define POLICY_MAX_SEATS 8
#define POLICY_SEAT_LEN 64

enum policy_mode {
	POLICY_DENY,
	POLICY_REVOKE,
	POLICY_RELEASE,
	POLICY_UMOUNT,
};

struct policy_cond {
	char key[64];
	char glob[128];
};

/**
 * struct policy_rule - one "revoke" line
 * @conds: conditions, all of which must match
 * @nconds: their number
 * @mode: what to do with a device that matches
 * @hangup: send SIGHUP to the holders afterwards
 * @line: where it is in the file
 */
struct policy_rule {
	struct policy_cond conds[POLICY_MAX_CONDS];
	size_t nconds;
	enum policy_mode mode;
	bool hangup;
	unsigned int line;
};

/**
 * struct policy_seat - one "seat" line
 * @name: the seat's name, as logind's: "seat" and [A-Za-z0-9_-]
 * @err: the errno its pauses fail with (ENODEV or EIO)
 * @line: where it is in the file
 */
struct policy_seat {
	char name[POLICY_SEAT_LEN];
	unsigned int err;
	unsigned int line;
};

enum policy_source {
	POLICY_SOURCE_UDEV,
	POLICY_SOURCE_NETLINK,
};

/**
 * struct policy - a parsed policy file
 * @rules: the revoke lines
 * @nrules: their number
 * @source: where removals come from
 * @spare_holders: "holders spare": never kill a holder (see above)
 * @seats: the seats followed
 * @nseats: their number
 */
struct policy {
	struct policy_rule *rules;
	size_t nrules;
	enum policy_source source;
	bool spare_holders;
	struct policy_seat seats[POLICY_MAX_SEATS];
	size_t nseats;
};

/* A device's udev properties: @n KEY and VALUE pairs. */
struct uevent_props {
	const char *const *keys;
	const char *const *vals;
	size_t n;
};

int policy_parse(const char *text, struct policy *out, char *err,
		 size_t errlen);
int policy_load(const char *path, struct policy *out, char *err,
		size_t errlen);
void policy_free(struct policy *p);
const struct policy_rule *policy_match(const struct policy *p,
				       const struct uevent_props *props);
const char *policy_mode_name(enum policy_mode mode);
const char *uevent_prop(const struct uevent_props *props, const char *key);

#endif /* REVOKE_POLICY_H */
