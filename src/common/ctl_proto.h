/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_proto.h - the control socket's wire format, version 1.
 *
 * One request per connection, one line:
 *
 *	revoke-bpf/1 VERB path=PCT [release=auto|yes|no] [timeout_ms=N]
 *		[spare=yes]\n
 *	revoke-bpf/1 VERB [ino=N] [dev=MAJ:MIN] [release=auto|yes|no]
 *		[timeout_ms=N] [spare=yes]\n
 *	revoke-bpf/1 VERB rdev=MAJ:MIN type=char|block [removed=yes]
 *		[cause=WORD] [release=...] [timeout_ms=N] [spare=yes]\n
 *
 * add and del name a file, an inode or a device.  A file: the request
 * carries a descriptor of it (SCM_RIGHTS; revoke-bpf sends an O_PATH one)
 * and path, the name the client gave it, percent-encoded
 * (revoke_pct_encode()), which list shows; the daemon names the file by
 * what the kernel says of that descriptor, never by path.  An inode: ino,
 * and optionally dev, the filesystem.  A device (rdev and type: every node of that device
 * number).  removed=yes says that the device instance is gone, so that
 * a new device with the same number works (see struct revoke_rdev_val);
 * cause is one word shown by list (admin if not given).
 *
 *	revoke-bpf/1 VERB fd=PID:FD [release=...] [timeout_ms=N] [spare=yes]\n
 *
 * fd (add only) names one open file description: descriptor FD of
 * process PID, which the daemon takes with pidfd_getfd(); root may name
 * any process's, a member of the daemon's --group only its own uid's.
 *
 * add fs=yes and umount take force=yes: a filesystem the system cannot
 * do without (devtmpfs, devpts, cgroup, the daemon's socket's) is
 * refused without it.
 *
 * release, timeout_ms and spare are for add only: whether to replace the
 * holders' descriptors by a dead file (auto: for device files), how
 * long to wait for threads to leave calls on the file (1 to 60000), and
 * whether a holder whose access cannot be taken away is left alive
 * (spare=yes) rather than killed (the default, unless the policy says
 * "holders spare").
 *
 * persist=yes (add) asks that the request's line, as revoked.d(5) writes
 * it, be added to the declared folder's local.conf once the add is done.
 *
 * progress=yes (add, umount) asks for lines "progress step=WORD [done=N
 * total=N]" before the answer's first line, one as each step begins
 * (and as holders are handled); a client that does not read them gets
 * fewer, never a stalled daemon.
 *
 *	revoke-bpf/1 uevent action=WORD rdev=MAJ:MIN type=char|block
 *		[p.KEY=VALUE]...\n
 *
 * uevent hands a device event (from the udev rule, revoke-bpf uevent)
 * to the daemon, which applies its policy (policy.h); VALUEs are
 * percent-encoded (revoke_pct_encode()).  reload rereads the policy.
 *
 * VERB is add, del, list, status, events, unload, uevent or reload
 * (ctl_verbs.c).  The daemon answers with a first line
 *
 *	ok WORD\n		(WORD: added, already, deleted, absent, list,
 *				 status, events, unloaded, ignored, reloaded:
 *				 REVOKE_OK_* in ctl_fields.h)
 *	err ERRNAME MESSAGE\n	(ERRNAME: EINVAL, EPERM, ENOSPC, ...)
 *
 * followed, for ok, by zero or more data lines of space-separated
 * key=value fields, and closes the connection.  Values never contain
 * spaces; MESSAGE is free text to the end of the line.
 *
 * add answers, after the dev/ino line (or rdev= or fs= line; each ends
 * with attach_us=N, the time spent attaching the programs first, 0 if
 * they were attached), one line of counts (see struct
 * revoke_report) "holders=N fds=N mappings=N waiters=N woken=N
 * unmapped=N released=N failed=N discover_us=N total_us=N killed=N
 * passes=N", one line per failure "failure pid=N tid=N step=WORD
 * reason=WORD [uid=N comm=PCT] [keeps_access=yes]" (keeps_access: what
 * was found could not be taken away), one per holder the policy killed
 * "killed pid=N uid=N comm=PCT step=WORD reason=WORD gone=yes|no" and
 * one per io_uring instance the file was taken away from "io_uring
 * pid=N fd=N files=N buffers=N" and one per holder among the slowest,
 * the slowest first, "slow pid=N comm=PCT us=N" (pipeline_report.c).
 *
 * events keeps the connection open and sends one line per denial,
 * "ts_ns=... pid=... tgid=... uid=... comm=... dev=MAJ:MIN ino=...
 * hook=... op=... arg=0x...", until the client closes it.
 *
 * add, del, events, unload, uevent and reload are for root (or the
 * daemon's --group) only; anyone may list and status (ctl_verbs.c).
 */
#ifndef REVOKE_CTL_PROTO_H
#define REVOKE_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_text.h"
#include "ctl_verbs.h"
#include "revoke_bpf.h"

#define REVOKE_PROTO_MAGIC "revoke-bpf/1"
#define REVOKE_REQ_MAX 4096

#define REVOKE_MAX_PROPS 48
/* a seat's name, so that "uaccess@" and it fit REVOKE_SUBSYSTEM_LEN */
#define REVOKE_SEAT_LEN 24
#define REVOKE_TAG_UACCESS "uaccess"	/* the one tag pause --tag takes */
#define REVOKE_PROP_NAME_MAX 64	/* longer names are not udev properties */

enum revoke_release {
	REVOKE_RELEASE_AUTO,
	REVOKE_RELEASE_YES,
	REVOKE_RELEASE_NO,
};

/* How a request names a filesystem (struct revoke_req.fs). */
enum revoke_fs_by {
	REVOKE_FS_NONE,
	REVOKE_FS_PATH,
	REVOKE_FS_DEV,
};

/**
 * struct revoke_req - a parsed request
 * @verb: what to do
 * @has_path: @path is given (add, del): the request came with a
 *	descriptor (SCM_RIGHTS) of the file the client named as @path
 * @path: the client's name for that file, for list; never opened
 * @has_ino: @ino is given (add, del)
 * @has_dev: @major and @minor are given (optional for add, del)
 * @has_release: @release is given (add)
 * @timeout_ms: drain timeout; 0 if not given (add)
 * @spare: holders that cannot be handled are left alive (add)
 * @progress: progress lines before the answer (add, umount)
 * @persist: once added, the request's line is written to the declared
 *	folder's local.conf (add; revoked.d(5))
 * @force: revoke (add fs=yes) or unmount a filesystem the system cannot
 *	do without (devtmpfs, devpts, cgroup, revoke-bpfd's socket's...)
 * @has_rdev: @rdev_major, @rdev_minor and @rdev_type name a device
 * @removed: the device instance went away (add with rdev)
 * @fs: the request is about a whole filesystem (add, del, umount,
 *	holders): REVOKE_FS_PATH, the one @path is on ("fs=yes"), or
 *	REVOKE_FS_DEV, the one whose super_block's s_dev is @fs_major:@fs_minor
 *	("fs=MAJ:MIN", as /proc/self/mountinfo shows it)
 * @fs_major: see @fs
 * @fs_minor: see @fs
 * @cause: who asks, one word; empty if not given (add with rdev)
 * @tag: a udev tag whose devices on @seat are paused or resumed
 *	("uaccess", the only one taken), or "" (pause, resume)
 * @seat: a logind seat, with @tag ("" : seat0)
 * @action: the uevent's ACTION (uevent)
 * @prop_keys: the uevent's properties, "p.KEY=VALUE" fields (uevent)
 * @prop_vals: their values, percent-decoded
 * @nprops: their number
 * @propbuf: where @prop_keys and @prop_vals point
 * @propused: bytes of @propbuf in use
 */
struct revoke_req {
	enum revoke_verb verb;
	bool has_path;
	char path[REVOKE_NAME_MAX];
	bool has_ino;
	bool has_dev;
	uint64_t ino;
	unsigned int major;
	unsigned int minor;
	bool has_release;
	enum revoke_release release;
	unsigned int timeout_ms;
	bool spare;
	bool progress;
	bool persist;
	bool force;
	bool has_fd;
	unsigned int fd_pid;
	unsigned int fd_num;
	bool has_rdev;
	unsigned int rdev_major;
	unsigned int rdev_minor;
	uint32_t rdev_type;
	bool removed;
	enum revoke_fs_by fs;
	unsigned int fs_major;
	unsigned int fs_minor;
	char cause[32];
	bool has_uid;
	uint32_t uid;
	uint32_t pause_errno;
	char subsystem[32];
	char tag[16];
	char seat[REVOKE_SEAT_LEN];
	char action[16];
	const char *prop_keys[REVOKE_MAX_PROPS];
	const char *prop_vals[REVOKE_MAX_PROPS];
	size_t nprops;
	char propbuf[REVOKE_REQ_MAX];
	size_t propused;
};

#define REVOKE_TIMEOUT_MAX_MS 60000

int revoke_parse_release(const char *s, enum revoke_release *out);
int revoke_parse_timeout_ms(const char *s, unsigned int *out);
int revoke_parse_rdev_type(const char *s, uint32_t *out);
const char *revoke_rdev_type_name(uint32_t type);
int revoke_parse_cause(const char *s, char *out, size_t len);
int revoke_parse_pause_errno(const char *s, uint32_t *out);
const char *revoke_pause_errno_name(uint32_t err);
int revoke_parse_subsystem(const char *s, char *out, size_t len);
int revoke_parse_tag(const char *s, char *out, size_t len);
int revoke_parse_seat(const char *s, char *out, size_t len);
int revoke_tag_class(const char *tag, const char *seat, char *out,
		     size_t len);
bool revoke_is_tag_class(const char *name, size_t len);
bool revoke_tag_class_split(const char *name, char *tag, size_t tlen,
			    char *seat, size_t slen);
bool revoke_prop_name_ok(const char *key, size_t len);
int revoke_req_add_prop(struct revoke_req *req, const char *key, size_t klen,
			const char *val);
int revoke_req_uevent(struct revoke_req *req, const char *action,
		      const char *subsystem, const char *major,
		      const char *minor);
int revoke_req_format(const struct revoke_req *req, char *buf, size_t len);
bool revoke_action_ok(const char *s, size_t size);
int revoke_req_format_props(const struct revoke_req *req, char *buf,
			    size_t len);
int revoke_req_parse_prop(const char *key, const char *val,
			  struct revoke_req *req, const char **why);
int revoke_req_parse_pause(const char *key, const char *val,
			   struct revoke_req *req, const char **why);
int revoke_req_check_pause(const struct revoke_req *req, const char **why);
int revoke_req_parse(const char *buf, size_t len, struct revoke_req *req,
		     const char **why);

#endif /* REVOKE_CTL_PROTO_H */
