// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/daemon/policy.c: the device removal policy file, its
 * line-numbered errors, and which rule a removed device matches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/policy.h"
#include "tap.h"

static const char *const keys[] = { "SUBSYSTEM", "DEVNAME", "ID_VENDOR_ID" };
static const char *const tty_vals[] = { "tty", "/dev/ttyUSB0", "0403" };
static const char *const disk_vals[] = { "block", "/dev/sda", "1d6b" };
static const struct uevent_props tty = { keys, tty_vals, 3 };
static const struct uevent_props disk = { keys, disk_vals, 3 };
static const char *const usb_keys[] = { "SUBSYSTEM", "DEVNAME", "ID_BUS",
					"DEVTYPE" };
static const char *const usb_vals[] = { "block", "/dev/sdb1", "usb",
					"partition" };
static const struct uevent_props usb_disk = { usb_keys, usb_vals, 4 };

static void test_valid(void)
{
	struct policy p = {};
	char err[256] = "";
	const struct policy_rule *r;

	CHECK("an empty policy parses and matches nothing",
	      policy_parse("", &p, err, sizeof(err)) == 0 && p.nrules == 0 &&
	      !policy_match(&p, &tty));
	CHECK("comments, blank lines and three rules parse",
	      policy_parse("# devices\n\nrevoke subsystem=tty ID_VENDOR_ID=0403\n"
			   "  revoke subsystem=block DEVNAME=/dev/sd* mode=deny # disks\n"
			   "revoke mode=revoke\n", &p, err, sizeof(err)) == 0 &&
	      p.nrules == 3);
	r = policy_match(&p, &tty);
	CHECK("a tty with the vendor matches the first rule, mode release",
	      r && r->line == 3 && r->mode == POLICY_RELEASE);
	r = policy_match(&p, &disk);
	CHECK("a disk matches the glob of the second rule, mode deny",
	      r && r->line == 4 && r->mode == POLICY_DENY);
	policy_free(&p);
	CHECK("the source is udev unless the policy says netlink",
	      policy_parse("revoke\n", &p, err, sizeof(err)) == 0 &&
	      p.source == POLICY_SOURCE_UDEV &&
	      policy_parse("source netlink\nrevoke\n", &p, err, sizeof(err)) == 0 &&
	      p.source == POLICY_SOURCE_NETLINK && p.nrules == 1);
	CHECK("holders are killed unless the policy says holders spare",
	      policy_parse("revoke\n", &p, err, sizeof(err)) == 0 &&
	      !p.spare_holders &&
	      policy_parse("holders spare\nrevoke\n", &p, err, sizeof(err)) == 0 &&
	      p.spare_holders &&
	      policy_parse("holders kill\n", &p, err, sizeof(err)) == 0 &&
	      !p.spare_holders);
	CHECK("signal=hup marks the rule",
	      policy_parse("revoke subsystem=tty signal=hup mode=revoke\n", &p,
			   err, sizeof(err)) == 0 && p.rules[0].hangup &&
	      p.rules[0].mode == POLICY_REVOKE);
	CHECK("mode=umount parses, with signal=hup too, and is named umount",
	      policy_parse("revoke subsystem=block ID_BUS=usb mode=umount\n"
			   "revoke subsystem=block mode=umount signal=hup\n",
			   &p, err, sizeof(err)) == 0 && p.nrules == 2 &&
	      p.rules[0].mode == POLICY_UMOUNT && !p.rules[0].hangup &&
	      p.rules[1].mode == POLICY_UMOUNT && p.rules[1].hangup &&
	      !strcmp(policy_mode_name(POLICY_UMOUNT), "umount"));
	CHECK("a removed usb disk matches the mode=umount rule of line 1",
	      (r = policy_match(&p, &usb_disk)) && r->line == 1 &&
	      r->mode == POLICY_UMOUNT);
	CHECK("a disk on another bus matches the second, by subsystem only",
	      (r = policy_match(&p, &disk)) && r->line == 2 &&
	      r->mode == POLICY_UMOUNT);
	CHECK("a tty matches no mode=umount rule of subsystem=block",
	      !policy_match(&p, &tty));
	CHECK("the example policy's umount rule for usb disks parses",
	      policy_parse("revoke subsystem=block ID_BUS=usb mode=umount\n",
			   &p, err, sizeof(err)) == 0 &&
	      policy_match(&p, &usb_disk) && !policy_match(&p, &disk));
	CHECK("a rule's missing property does not match",
	      policy_parse("revoke ID_SERIAL=x\n", &p, err, sizeof(err)) == 0 &&
	      !policy_match(&p, &tty));
	CHECK("no seat is followed unless a line says so",
	      p.nseats == 0);
	CHECK("two seat lines follow two seats, ENODEV unless errno=EIO",
	      policy_parse("seat seat0\n  seat seat-usb_1 errno=EIO # hub\n"
			   "revoke\n", &p, err, sizeof(err)) == 0 &&
	      p.nseats == 2 && p.nrules == 1 &&
	      !strcmp(p.seats[0].name, "seat0") && p.seats[0].err == ENODEV &&
	      p.seats[0].line == 1 && !strcmp(p.seats[1].name, "seat-usb_1") &&
	      p.seats[1].err == EIO && p.seats[1].line == 2);
	CHECK("errno=ENODEV may be said",
	      policy_parse("seat seat0 errno=ENODEV\n", &p, err,
			   sizeof(err)) == 0 && p.nseats == 1 &&
	      p.seats[0].err == ENODEV);
	policy_free(&p);
}

static void test_invalid(void)
{
	static const struct {
		const char *text;
		const char *err;
	} bad[] = {
		{ "holders\n", "line 1: holders must be kill or spare" },
		{ "holders spare kill\n", "line 1: holders must be kill or spare" },
		{ "holders maim\n", "line 1: holders must be kill or spare" },
		{ "frob subsystem=tty\n", "line 1: unknown statement 'frob' (expected source, holders, revoke or seat)" },
		{ "# ok\nrevoke subsystem=tty\nrevokes\n", "line 3: unknown statement 'revokes' (expected source, holders, revoke or seat)" },
		{ "revoke subsystem\n", "line 1: 'subsystem' is not KEY=VALUE" },
		{ "revoke =tty\n", "line 1: '=tty' is not KEY=VALUE" },
		{ "revoke mode=kill\n", "line 1: mode must be given once, as deny, revoke, release or umount" },
		{ "revoke mode=deny mode=deny\n", "line 1: mode must be given once, as deny, revoke, release or umount" },
		{ "revoke ID-VENDOR=1\n", "line 1: 'ID-VENDOR' is not a udev property name" },
		{ "revoke a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1\n", "line 1: at most 8 conditions of at most 127 characters" },
		{ "revoke subsystem=tty\r\n", "line 1: control character" },
		{ "source\n", "line 1: source must be udev or netlink" },
		{ "revoke signal=term\n", "line 1: signal must be given once, as hup" },
		{ "revoke mode=deny signal=hup\n", "line 1: signal=hup needs mode revoke, release or umount (deny only does not look for holders)" },
		{ "source kernel\n", "line 1: source must be udev or netlink" },
		{ "source udev netlink\n", "line 1: source must be udev or netlink" },
		{ "revoke mode=umount mode=release\n", "line 1: mode must be given once, as deny, revoke, release or umount" },
		{ "revoke subsystem=block\nrevoke ID_BUS=usb mode=unmount\n", "line 2: mode must be given once, as deny, revoke, release or umount" },
		{ "revoke ID_BUS=usb mode=umount\nrevoke mode=umount signal=hup\nrevoke mode=UMOUNT\n", "line 3: mode must be given once, as deny, revoke, release or umount" },
		{ "seat\n", "line 1: seat takes a seat's name (seat0, seat-1, ...), then errno=ENODEV or errno=EIO" },
		{ "seat tty1\n", "line 1: seat takes a seat's name (seat0, seat-1, ...), then errno=ENODEV or errno=EIO" },
		{ "seat seat0/x\n", "line 1: seat takes a seat's name (seat0, seat-1, ...), then errno=ENODEV or errno=EIO" },
		{ "seat seat0 errno=EIO now\n", "line 1: seat takes a seat's name (seat0, seat-1, ...), then errno=ENODEV or errno=EIO" },
		{ "seat seat0 errno=EPERM\n", "line 1: 'errno=EPERM': a seat's errno is errno=ENODEV or errno=EIO" },
		{ "seat seat0\n\nseat seat0 errno=EIO\n", "line 3: seat seat0 is followed already, by line 1" },
		{ "seat s1\nseat s2\nseat s3\nseat s4\nseat s5\nseat s6\nseat s7\nseat s8\nseat s9\n", "line 1: seat takes a seat's name (seat0, seat-1, ...), then errno=ENODEV or errno=EIO" },
		{ "seat seat1\nseat seat2\nseat seat3\nseat seat4\nseat seat5\nseat seat6\nseat seat7\nseat seat8\nseat seat9\n", "line 9: more than 8 seats" },
	};
	struct policy p = {};
	char err[256], name[200];
	size_t i;

	policy_parse("revoke subsystem=tty\n", &p, err, sizeof(err));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		snprintf(name, sizeof(name), "refuses with \"%s\"", bad[i].err);
		CHECK(name, policy_parse(bad[i].text, &p, err, sizeof(err)) == -EINVAL &&
		      !strcmp(err, bad[i].err));
	}
	CHECK("after every refusal the policy in force is unchanged",
	      p.nrules == 1 && p.nseats == 0 && policy_match(&p, &tty) && !policy_match(&p, &disk));
	policy_free(&p);
}

static void test_load(void)
{
	char path[] = "/tmp/test_policy.XXXXXX", err[512];
	struct policy p = {};
	FILE *f;
	int fd;

	CHECK("a policy file that does not exist is an empty policy",
	      policy_load("/nonexistent/policy.conf", &p, err, sizeof(err)) == 0 &&
	      p.nrules == 0);
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs("revoke subsystem=tty\nrevoke\tbad\n", f);
	fclose(f);
	snprintf(err, sizeof(err), "x");
	CHECK("a bad file's error names the file and the line",
	      policy_load(path, &p, err, sizeof(err)) == -EINVAL &&
	      !strncmp(err, path, strlen(path)) &&
	      !strcmp(err + strlen(path), ": line 2: 'bad' is not KEY=VALUE"));
	unlink(path);
	CHECK("a directory is refused with a reason",
	      policy_load("/tmp", &p, err, sizeof(err)) < 0 && strstr(err, "/tmp: "));
	policy_free(&p);
}

int main(void)
{
	test_valid();
	test_invalid();
	test_load();
	return tap_done();
}
