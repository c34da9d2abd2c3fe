// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/common/ctl_proto.c: the control socket's wire format. */
#include <errno.h>
#include <string.h>

#include "common/common.h"
#include "revoke_bpf.h"
#include "tap.h"

static int parse(const char *s, struct revoke_req *req, const char **why)
{
	return revoke_req_parse(s, strlen(s), req, why);
}

static void test_roundtrip(void)
{
	struct revoke_req in = {
		.verb = REVOKE_VERB_ADD, .has_ino = true, .ino = 12,
		.has_dev = true, .major = 7, .minor = 0,
	};
	struct revoke_req out;
	const char *why = NULL;
	char buf[128];
	int n;

	n = revoke_req_format(&in, buf, sizeof(buf));
	CHECK("format writes the documented line",
	      n > 0 && !strcmp(buf, "revoke-bpf/1 add ino=12 dev=7:0\n"));
	CHECK("format then parse gives the request back",
	      revoke_req_parse(buf, (size_t)n, &out, &why) == 0 &&
	      out.verb == REVOKE_VERB_ADD && out.has_ino && out.ino == 12 &&
	      out.has_dev && out.major == 7 && out.minor == 0);
	CHECK("format refuses a buffer too small",
	      revoke_req_format(&in, buf, 10) == -ENOSPC);
}

static void test_rdev_roundtrip(void)
{
	struct revoke_req in = {
		.verb = REVOKE_VERB_ADD, .has_rdev = true, .rdev_major = 188,
		.rdev_minor = 0, .rdev_type = REVOKE_RDEV_CHAR, .removed = true,
		.cause = "udev",
	};
	struct revoke_req out;
	const char *why = NULL;
	char buf[160];
	int n;

	n = revoke_req_format(&in, buf, sizeof(buf));
	CHECK("format writes a device request",
	      n > 0 && !strcmp(buf, "revoke-bpf/1 add rdev=188:0 type=char "
			       "removed=yes cause=udev\n"));
	CHECK("format then parse gives the device request back",
	      revoke_req_parse(buf, (size_t)n, &out, &why) == 0 &&
	      out.has_rdev && !out.has_ino && out.rdev_major == 188 &&
	      out.rdev_minor == 0 && out.rdev_type == REVOKE_RDEV_CHAR &&
	      out.removed && !strcmp(out.cause, "udev"));
	CHECK("del of a block device parses",
	      revoke_req_parse("revoke-bpf/1 del rdev=7:5 type=block\n", 37,
			       &out, &why) == 0 &&
	      out.rdev_type == REVOKE_RDEV_BLOCK && out.rdev_minor == 5);
}

static void test_path_roundtrip(void)
{
	struct revoke_req in = { .verb = REVOKE_VERB_DEL, .has_path = true,
				 .path = "/m/a file\twith%" };
	struct revoke_req out;
	const char *why = NULL;
	char buf[160];
	int n;

	n = revoke_req_format(&in, buf, sizeof(buf));
	CHECK("format percent-encodes a path",
	      n > 0 && !strcmp(buf, "revoke-bpf/1 del path=/m/a%20file%09with%25\n"));
	CHECK("format then parse gives the path back",
	      revoke_req_parse(buf, (size_t)n, &out, &why) == 0 &&
	      out.verb == REVOKE_VERB_DEL && out.has_path && !out.has_ino &&
	      !strcmp(out.path, in.path));
}

/* Every byte Linux allows in a name, and a name longer than list keeps. */
static void test_path_any_bytes(void)
{
	static const char evil[] = "/w/evil\nok revoked\x1b[2J\x1b]0;PWN\x07 %\xff";
	struct revoke_req in = { .verb = REVOKE_VERB_ADD, .has_path = true };
	struct revoke_req out;
	const char *why = NULL;
	char buf[REVOKE_REQ_MAX], line[REVOKE_REQ_MAX], want[REVOKE_NAME_MAX];
	int n;

	strcpy(in.path, evil);
	n = revoke_req_format(&in, buf, sizeof(buf));
	CHECK("a name with a newline, ESC and BEL is one line on the wire",
	      n > 0 && !strcmp(buf, "revoke-bpf/1 add path=/w/evil%0Aok%20"
			       "revoked%1B%5B2J%1B%5D0%3BPWN%07%20%25%FF\n"));
	CHECK("and parses back to the same bytes",
	      revoke_req_parse(buf, (size_t)n, &out, &why) == 0 &&
	      out.has_path && !strcmp(out.path, evil));

	/* a path of 300 bytes: list keeps "…" and its last 252 */
	memset(line, 0, sizeof(line));
	n = snprintf(line, sizeof(line), "revoke-bpf/1 add path=/");
	memset(line + n, 'a', 200);
	memset(line + n + 200, 'b', 99);
	strcat(line, "\n");
	memcpy(want, REVOKE_ELLIPSIS, REVOKE_ELLIPSIS_LEN);
	memset(want + 3, 'a', 252 - 99);
	memset(want + 3 + 252 - 99, 'b', 99);
	want[255] = '\0';
	CHECK("a path of 300 bytes is taken, kept as \"\u2026\" and its last 252 bytes",
	      parse(line, &out, &why) == 0 && out.has_path &&
	      strlen(out.path) == 255 && !strcmp(out.path, want));
	CHECK("a name that fits is not shortened",
	      !revoke_name_shorten("/a/b", want, 8) && !strcmp(want, "/a/b"));
	CHECK("one byte too long is shortened to the size given",
	      revoke_name_shorten("/abcdefgh", want, 9) &&
	      !strcmp(want, REVOKE_ELLIPSIS "defgh"));
}

static void test_force(void)
{
	struct revoke_req r;
	const char *why = NULL;
	char buf[128];

	CHECK("add fs=yes force=yes parses, and formats back",
	      parse("revoke-bpf/1 add path=/dev fs=yes force=yes\n", &r, &why) == 0 &&
	      r.force && revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 add path=/dev fs=yes force=yes\n"));
	CHECK("umount fs=yes force=yes parses",
	      parse("revoke-bpf/1 umount path=/run fs=yes force=yes\n", &r, &why) == 0 &&
	      r.force && r.verb == REVOKE_VERB_UMOUNT);
	CHECK("no force=yes unless asked",
	      parse("revoke-bpf/1 add path=/dev fs=yes\n", &r, &why) == 0 && !r.force);
}

static void test_accepts(void)
{
	struct revoke_req r;
	char buf[128];
	const char *why;

	CHECK("list with no fields",
	      parse("revoke-bpf/1 list\n", &r, &why) == 0 && r.verb == REVOKE_VERB_LIST);
	CHECK("status with no fields",
	      parse("revoke-bpf/1 status\n", &r, &why) == 0 && r.verb == REVOKE_VERB_STATUS);
	CHECK("events with no fields",
	      parse("revoke-bpf/1 events\n", &r, &why) == 0 && r.verb == REVOKE_VERB_EVENTS);
	CHECK("unload with no fields",
	      parse("revoke-bpf/1 unload\n", &r, &why) == 0 && r.verb == REVOKE_VERB_UNLOAD);
	CHECK("unload and events are privileged, list and status are not",
	      revoke_verb_privileged(REVOKE_VERB_UNLOAD) &&
	      revoke_verb_privileged(REVOKE_VERB_EVENTS) &&
	      !revoke_verb_privileged(REVOKE_VERB_LIST) &&
	      !revoke_verb_privileged(REVOKE_VERB_STATUS));
	CHECK("del with ino only",
	      parse("revoke-bpf/1 del ino=5\n", &r, &why) == 0 && !r.has_dev);
	CHECK("add persist=yes parses, and formats back",
	      parse("revoke-bpf/1 add ino=5 persist=yes\n", &r, &why) == 0 &&
	      r.persist && revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 add ino=5 persist=yes\n"));
	CHECK("persist is add's only",
	      parse("revoke-bpf/1 del ino=5 persist=yes\n", &r, &why) != 0 &&
	      !strcmp(why, "persist is a field of add only"));
	CHECK("add spare=yes parses, and formats back",
	      parse("revoke-bpf/1 add ino=5 spare=yes\n", &r, &why) == 0 &&
	      r.spare && revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 add ino=5 spare=yes\n"));
	CHECK("add fs=yes with path parses, and formats back",
	      parse("revoke-bpf/1 add path=/m fs=yes cause=usb\n", &r, &why) == 0 &&
	      r.fs == REVOKE_FS_PATH && !strcmp(r.cause, "usb") &&
	      revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 add path=/m fs=yes cause=usb\n"));
	CHECK("del fs=MAJ:MIN parses, and formats back",
	      parse("revoke-bpf/1 del fs=8:1\n", &r, &why) == 0 &&
	      r.fs == REVOKE_FS_DEV && r.fs_major == 8 && r.fs_minor == 1 &&
	      revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 del fs=8:1\n"));
	CHECK("umount progress=yes parses, and formats back last",
	      parse("revoke-bpf/1 umount path=/m fs=yes progress=yes\n", &r,
		    &why) == 0 && r.progress &&
	      revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 umount path=/m fs=yes progress=yes\n"));
	CHECK("a request without progress=yes asks for none",
	      parse("revoke-bpf/1 add ino=5\n", &r, &why) == 0 && !r.progress);
	CHECK("umount fs=yes with path, timeout_ms and spare parses",
	      parse("revoke-bpf/1 umount path=/m fs=yes timeout_ms=500 spare=yes\n",
		    &r, &why) == 0 && r.verb == REVOKE_VERB_UMOUNT &&
	      r.timeout_ms == 500 && r.spare);
	CHECK("add fd=PID:FD release=no parses, and formats back",
	      parse("revoke-bpf/1 add fd=4194304:2147483647 release=no\n", &r,
		    &why) == 0 && r.has_fd && r.fd_pid == 4194304 &&
	      r.fd_num == 2147483647 &&
	      revoke_req_format(&r, buf, sizeof(buf)) > 0 &&
	      !strcmp(buf, "revoke-bpf/1 add fd=4194304:2147483647 release=no\n"));
	CHECK("fields in any order",
	      parse("revoke-bpf/1 add dev=0:22 ino=5\n", &r, &why) == 0 &&
	      r.minor == 22 && r.ino == 5);
}

static void test_rejects(void)
{
	static const struct {
		const char *req;
		const char *why;
	} bad[] = {
		{ "", "empty request" },
		{ "revoke-bpf/1 list", "request is not exactly one line" },
		{ "revoke-bpf/1 list\nrevoke-bpf/1 list\n", "request is not exactly one line" },
		{ "revoke-bpf/2 list\n", "unknown protocol version (expected revoke-bpf/1)" },
		{ "hello\n", "unknown protocol version (expected revoke-bpf/1)" },
		{ "revoke-bpf/1\n", "unknown verb (expected add, del, list, status, events, unload, uevent, reload, umount, holders, pause or resume)" },
		{ "revoke-bpf/1 frob\n", "unknown verb (expected add, del, list, status, events, unload, uevent, reload, umount, holders, pause or resume)" },
		{ "revoke-bpf/1 add\n", "missing field path, ino, rdev, fs or fd" },
		{ "revoke-bpf/1 add fd=12\n", "fd is not PID:FD (pid 1 to 4194304, fd 0 to 2147483647)" },
		{ "revoke-bpf/1 add fd=0:3\n", "fd is not PID:FD (pid 1 to 4194304, fd 0 to 2147483647)" },
		{ "revoke-bpf/1 add fd=12:-1\n", "fd is not PID:FD (pid 1 to 4194304, fd 0 to 2147483647)" },
		{ "revoke-bpf/1 add fd=12:3 fd=12:3\n", "field fd given twice" },
		{ "revoke-bpf/1 del fd=12:3\n", "fd names one open file in add only; it goes with no path, ino, dev, rdev or fs" },
		{ "revoke-bpf/1 add fd=12:3 path=/m\n", "fd names one open file in add only; it goes with no path, ino, dev, rdev or fs" },
		{ "revoke-bpf/1 add fd=12:3 rdev=7:0 type=char\n", "fd names one open file in add only; it goes with no path, ino, dev, rdev or fs" },
		{ "revoke-bpf/1 add fs=8:1\n", "add fs= needs the filesystem sent with the request (fs=yes and path)" },
		{ "revoke-bpf/1 add fs=yes\n", "fs=yes names the filesystem of path: path is missing" },
		{ "revoke-bpf/1 add fs=no path=/m\n", "fs is not yes or MAJ:MIN (major < 4096, minor < 1048576)" },
		{ "revoke-bpf/1 add fs=yes fs=yes path=/m\n", "field fs given twice" },
		{ "revoke-bpf/1 del fs=8:1 path=/m\n", "fs=MAJ:MIN names a filesystem; it does not go with path" },
		{ "revoke-bpf/1 add fs=yes path=/m ino=3\n", "fs names a filesystem; it does not go with ino, dev, rdev or removed" },
		{ "revoke-bpf/1 del fs=8:1 ino=3\n", "fs names a filesystem; it does not go with ino, dev, rdev or removed" },
		{ "revoke-bpf/1 list fs=8:1\n", "fs is a field of add, del, umount and holders only" },
		{ "revoke-bpf/1 umount path=/m\n", "umount needs field fs" },
		{ "revoke-bpf/1 umount fs=yes path=/m release=yes\n", "umount releases every descriptor: it takes no field release" },
		{ "revoke-bpf/1 add rdev=7:0\n", "a device needs both rdev and type" },
		{ "revoke-bpf/1 add rdev=7:0 type=fifo\n", "type is not char or block" },
		{ "revoke-bpf/1 add rdev=7 type=char\n", "rdev is not MAJ:MIN (major < 4096, minor < 1048576)" },
		{ "revoke-bpf/1 add rdev=7:0 rdev=7:0 type=char\n", "field rdev given twice" },
		{ "revoke-bpf/1 add rdev=7:0 type=char type=char\n", "field type given twice" },
		{ "revoke-bpf/1 add rdev=7:0 type=char ino=3\n", "rdev names a device; it does not go with ino or dev" },
		{ "revoke-bpf/1 add ino=3 type=char\n", "a device needs both rdev and type" },
		{ "revoke-bpf/1 add rdev=7:0 type=char removed=no\n", "removed is not yes, or given twice" },
		{ "revoke-bpf/1 add rdev=7:0 type=char cause=\n", "cause is not one word of 1 to 31 of [A-Za-z0-9_.:-], or given twice" },
		{ "revoke-bpf/1 add rdev=7:0 type=char cause=a/b\n", "cause is not one word of 1 to 31 of [A-Za-z0-9_.:-], or given twice" },
		{ "revoke-bpf/1 add rdev=7:0 type=char cause=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "cause is not one word of 1 to 31 of [A-Za-z0-9_.:-], or given twice" },
		{ "revoke-bpf/1 uevent action=remove rdev=8:0 type=block p.ID_MODEL=a\x0fb\n", "a property value is not percent-encoded text of one line" },
		{ "revoke-bpf/1 uevent action=remove rdev=8:0 type=block p.ID_MODEL=a%0Ab\n", "a property value is not percent-encoded text of one line" },
		{ "revoke-bpf/1 del rdev=7:0 type=char removed=yes\n", "removed and cause are fields of add only" },
		{ "revoke-bpf/1 list rdev=7:0 type=char\n", "this verb takes no fields" },
		{ "revoke-bpf/1 add ino=0\n", "ino is not an inode number (1 to 18446744073709551615)" },
		{ "revoke-bpf/1 add ino=-1\n", "ino is not an inode number (1 to 18446744073709551615)" },
		{ "revoke-bpf/1 add ino=18446744073709551616\n", "ino is not an inode number (1 to 18446744073709551615)" },
		{ "revoke-bpf/1 add ino=\n", "ino is not an inode number (1 to 18446744073709551615)" },
		{ "revoke-bpf/1 add ino=1 ino=2\n", "field ino given twice" },
		{ "revoke-bpf/1 add ino=1 dev=8\n", "dev is not MAJ:MIN (major < 4096, minor < 1048576)" },
		{ "revoke-bpf/1 add ino=1 dev=4096:0\n", "dev is not MAJ:MIN (major < 4096, minor < 1048576)" },
		{ "revoke-bpf/1 add ino=1 dev=1:1 dev=1:1\n", "field dev given twice" },
		{ "revoke-bpf/1 add ino=1 owner=0\n", "unknown field" },
		{ "revoke-bpf/1 add ino=1  dev=1:1\n", "malformed field (expected key=value)" },
		{ "revoke-bpf/1 add ino=1 \n", "malformed field (expected key=value)" },
		{ "revoke-bpf/1 add =1\n", "malformed field (expected key=value)" },
		{ "revoke-bpf/1 add \xff\xfe\n", "malformed field (expected key=value)" },
		{ "revoke-bpf/1 list ino=3\n", "this verb takes no fields" },
		{ "revoke-bpf/1 add path=\n", "path is not a percent-encoded name of 1 byte or more, without NUL" },
		{ "revoke-bpf/1 add path=a%00b\n", "path is not a percent-encoded name of 1 byte or more, without NUL" },
		{ "revoke-bpf/1 add path=a%0\n", "path is not a percent-encoded name of 1 byte or more, without NUL" },
		{ "revoke-bpf/1 add path=a\x1b" "b\n", "path is not a percent-encoded name of 1 byte or more, without NUL" },
		{ "revoke-bpf/1 add path=/m fs=yes force=no\n", "force is given once, as force=yes" },
		{ "revoke-bpf/1 add path=/m fs=yes force=yes force=yes\n", "force is given once, as force=yes" },
		{ "revoke-bpf/1 add path=/f force=yes\n", "force goes with fs=yes, in add and umount only" },
		{ "revoke-bpf/1 del path=/m fs=yes force=yes\n", "force goes with fs=yes, in add and umount only" },
		{ "revoke-bpf/1 holders path=/m fs=yes force=yes\n", "force goes with fs=yes, in add and umount only" },
		{ "revoke-bpf/1 del fs=8:1 force=yes\n", "force goes with fs=yes, in add and umount only" },
		{ "revoke-bpf/1 add path=a b\n", "malformed field (expected key=value)" },
		{ "revoke-bpf/1 add path=a%20b path=c\n", "field path given twice" },
		{ "revoke-bpf/1 add path=/f ino=3\n", "path names the file sent with the request; it does not go with ino, dev or rdev" },
		{ "revoke-bpf/1 del path=/f rdev=7:0 type=char\n", "path names the file sent with the request; it does not go with ino, dev or rdev" },
		{ "revoke-bpf/1 list path=/f\n", "this verb takes no fields" },
		{ "revoke-bpf/1 unload dev=1:1\n", "this verb takes no fields" },
		{ "revoke-bpf/1 add ino=1 spare=no\n", "spare is given once, as spare=yes" },
		{ "revoke-bpf/1 add ino=1 spare=yes spare=yes\n", "spare is given once, as spare=yes" },
		{ "revoke-bpf/1 del ino=1 spare=yes\n", "release, timeout_ms and spare are fields of add only" },
		{ "revoke-bpf/1 add ino=1 progress=no\n", "progress is given once, as progress=yes" },
		{ "revoke-bpf/1 add ino=1 progress=yes progress=yes\n", "progress is given once, as progress=yes" },
		{ "revoke-bpf/1 status progress=yes\n", "progress is a field of add and umount only" },
		{ "revoke-bpf/1 uevent action=remove rdev=8:0 type=block progress=yes\n", "uevent takes action, rdev, type and p.KEY fields only" },
	};
	struct revoke_req r;
	const char *why;
	char name[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		snprintf(name, sizeof(name), "rejects '%.40s' as: %s", bad[i].req,
			 bad[i].why);
		for (char *p = name; *p; p++)
			if (*p == '\n')
				*p = '|';
		CHECK(name, parse(bad[i].req, &r, &why) == -EINVAL && why &&
		      !strcmp(why, bad[i].why));
	}
	CHECK("rejects a NUL byte",
	      revoke_req_parse("revoke-bpf/1 li\0t\n", 18, &r, &why) == -EINVAL &&
	      !strcmp(why, "request contains a NUL byte"));
	char big[REVOKE_REQ_MAX + 2];

	memset(big, 'a', sizeof(big));
	CHECK("rejects a request past the size limit",
	      revoke_req_parse(big, sizeof(big), &r, &why) == -EINVAL &&
	      !strcmp(why, "request too long"));
}

static void test_pause(void)
{
	struct revoke_req in = {
		.verb = REVOKE_VERB_PAUSE, .has_uid = true, .uid = 1001,
		.has_rdev = true, .rdev_major = 13, .rdev_minor = 67,
		.rdev_type = REVOKE_RDEV_CHAR, .pause_errno = EIO,
		.cause = "seat",
	};
	static const struct {
		const char *req;
		const char *why;
	} bad[] = {
		{ "revoke-bpf/1 pause rdev=13:67 type=char\n", "pause and resume need field uid" },
		{ "revoke-bpf/1 pause uid=1001\n", "pause needs rdev and type, subsystem, or tag" },
		{ "revoke-bpf/1 pause uid=1001 tag=seat\n", "tag is not uaccess (the one tag taken), or given twice" },
		{ "revoke-bpf/1 pause uid=1001 tag=uaccess tag=uaccess\n", "tag is not uaccess (the one tag taken), or given twice" },
		{ "revoke-bpf/1 pause uid=1001 tag=uaccess seat=0\n", "seat is not a seat's name (seat, then 1 to 19 of [A-Za-z0-9_-]), or given twice" },
		{ "revoke-bpf/1 pause uid=1001 tag=uaccess seat=seat12345678901234567890\n", "seat is not a seat's name (seat, then 1 to 19 of [A-Za-z0-9_-]), or given twice" },
		{ "revoke-bpf/1 pause uid=1001 subsystem=sound seat=seat0\n", "seat goes with tag: the seat whose tagged devices" },
		{ "revoke-bpf/1 pause uid=1001 subsystem=sound tag=uaccess\n", "tag names the devices of a seat: give rdev, subsystem or tag" },
		{ "revoke-bpf/1 add rdev=1:3 type=char tag=uaccess\n", "uid, errno, subsystem, tag and seat are fields of pause and resume only" },
		{ "revoke-bpf/1 pause uid=1001 rdev=13:67\n", "a device needs both rdev and type" },
		{ "revoke-bpf/1 pause uid=1001 rdev=13:67 type=char subsystem=sound\n", "rdev names one device, subsystem a class: give one of them" },
		{ "revoke-bpf/1 pause uid=1001 subsystem=sound errno=ENOENT\n", "errno is not ENODEV or EIO, or given twice" },
		{ "revoke-bpf/1 pause uid=1001 subsystem=Sound\n", "subsystem is not a word of 1 to 31 of [a-z0-9_-], or given twice" },
		{ "revoke-bpf/1 pause uid=4294967295 subsystem=sound\n", "uid is not a user id (0 to 4294967294), or given twice" },
		{ "revoke-bpf/1 pause uid=1 uid=2 subsystem=sound\n", "uid is not a user id (0 to 4294967294), or given twice" },
		{ "revoke-bpf/1 pause uid=1 subsystem=sound ino=3\n", "pause and resume take uid, rdev, type, subsystem, tag, seat, errno, cause and release=yes only" },
		{ "revoke-bpf/1 pause uid=1 subsystem=sound release=no\n", "release=yes (pause --revoke) is a field of pause, and only yes" },
		{ "revoke-bpf/1 resume uid=1 release=yes\n", "release=yes (pause --revoke) is a field of pause, and only yes" },
		{ "revoke-bpf/1 resume uid=1 errno=EIO\n", "errno and cause are fields of pause, not resume" },
		{ "revoke-bpf/1 add rdev=1:3 type=char uid=1\n", "uid, errno, subsystem, tag and seat are fields of pause and resume only" },
		{ "revoke-bpf/1 uevent action=add rdev=1:3 type=char uid=1\n", "uevent takes action, rdev, type and p.KEY fields only" },
	};
	struct revoke_req out;
	const char *why = NULL;
	char buf[160], name[200];
	size_t i;
	int n;

	n = revoke_req_format(&in, buf, sizeof(buf));
	CHECK("format writes a pause",
	      n > 0 && !strcmp(buf, "revoke-bpf/1 pause rdev=13:67 type=char "
			       "uid=1001 errno=EIO cause=seat\n"));
	CHECK("format then parse gives the pause back",
	      revoke_req_parse(buf, (size_t)n, &out, &why) == 0 &&
	      out.verb == REVOKE_VERB_PAUSE && out.has_uid && out.uid == 1001 &&
	      out.rdev_major == 13 && out.rdev_minor == 67 &&
	      out.pause_errno == EIO && !strcmp(out.cause, "seat"));
	CHECK("a pause of a class parses",
	      parse("revoke-bpf/1 pause uid=1001 subsystem=video4linux\n", &out,
		    &why) == 0 && !strcmp(out.subsystem, "video4linux") &&
	      !out.has_rdev && !out.pause_errno);
	CHECK("a pause of a tag on a seat parses",
	      parse("revoke-bpf/1 pause uid=1001 tag=uaccess seat=seat-usb_1\n",
		    &out, &why) == 0 && !strcmp(out.tag, "uaccess") &&
	      !strcmp(out.seat, "seat-usb_1") && !out.subsystem[0]);
	in.has_rdev = false;
	strcpy(in.tag, "uaccess");
	strcpy(in.seat, "seat1");
	n = revoke_req_format(&in, buf, sizeof(buf));
	CHECK("format writes a pause of a tag, then parse gives it back",
	      n > 0 && !strcmp(buf, "revoke-bpf/1 pause uid=1001 tag=uaccess "
			       "seat=seat1 errno=EIO cause=seat\n") &&
	      revoke_req_parse(buf, (size_t)n, &out, &why) == 0 &&
	      !strcmp(out.tag, "uaccess") && !strcmp(out.seat, "seat1"));
	CHECK("a tag's class name is TAG@SEAT, seat0 by default, and splits back",
	      !revoke_tag_class("uaccess", "", name, 32) &&
	      !strcmp(name, "uaccess@seat0") &&
	      revoke_tag_class_split("uaccess@seat-1", buf, 16, buf + 16, 24) &&
	      !strcmp(buf, "uaccess") && !strcmp(buf + 16, "seat-1") &&
	      !revoke_tag_class_split("sound", buf, 16, buf + 16, 24));
	CHECK("a tag's class is told from a subsystem, within its field only",
	      revoke_is_tag_class("uaccess@seat0", 14) &&
	      !revoke_is_tag_class("sound", 6) &&
	      !revoke_is_tag_class("sound@x", 5));
	CHECK("a pause --revoke parses: release=yes",
	      parse("revoke-bpf/1 pause uid=1001 rdev=13:67 type=char "
		    "release=yes\n", &out, &why) == 0 && out.has_release &&
	      out.release == REVOKE_RELEASE_YES);
	CHECK("a resume of everything of a user parses",
	      parse("revoke-bpf/1 resume uid=1001\n", &out, &why) == 0 &&
	      out.verb == REVOKE_VERB_RESUME && out.uid == 1001);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		snprintf(name, sizeof(name), "rejects '%.50s' as: %s",
			 bad[i].req, bad[i].why);
		for (char *p = name; *p; p++)
			if (*p == '\n')
				*p = '|';
		CHECK(name, parse(bad[i].req, &out, &why) == -EINVAL && why &&
		      !strcmp(why, bad[i].why));
	}
}

static void test_kv(void)
{
	char line[] = "dev=0:22 ino=3 denials=7";
	char *cursor = line, *key, *val;
	char buf[16];
	int n = 0;

	while ((val = revoke_kv_next(&cursor, &key)))
		n++;
	CHECK("kv_next walks three fields", n == 3 && cursor == NULL);
	CHECK("kv_get finds a middle field",
	      revoke_kv_get("dev=0:22 ino=3 denials=7", "ino", buf, sizeof(buf)) &&
	      !strcmp(buf, "3"));
	CHECK("kv_get does not match a key's prefix",
	      !revoke_kv_get("inode=3", "ino", buf, sizeof(buf)));
}

static void test_rbuf(void)
{
	struct rbuf b = {};
	int i;

	for (i = 0; i < 10000; i++)
		rbuf_printf(&b, "line %d\n", i);
	CHECK("rbuf grows past its first allocation",
	      !b.failed && b.len > 4096 && !strncmp(b.data + b.len - 10, "line 9999\n", 10));
	rbuf_free(&b);
}

static void test_props(void)
{
	struct revoke_req req = { .verb = REVOKE_VERB_UEVENT };

	CHECK("a udev property name is 1 to 63 of [A-Za-z0-9_]",
	      revoke_prop_name_ok("ID_MODEL", 8) && revoke_prop_name_ok("net_x1", 6) &&
	      !revoke_prop_name_ok("", 0) && !revoke_prop_name_ok("SEQ.NUM", 7) &&
	      !revoke_prop_name_ok("A\0B", 3) &&
	      revoke_prop_name_ok("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 63) &&
	      !revoke_prop_name_ok("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 64));
	CHECK("a property value with a newline is refused, as no request could carry it",
	      revoke_req_add_prop(&req, "ID_MODEL", 8, "a\nb") == -EINVAL &&
	      req.nprops == 0 && revoke_req_add_prop(&req, "ID_MODEL", 8, "a\tb") == 0 &&
	      req.nprops == 1);
	CHECK("a property with a bad name is refused",
	      revoke_req_add_prop(&req, "PATH.X", 6, "x") == -EINVAL && req.nprops == 1);
	CHECK("a uevent's ACTION must be a lower-case word",
	      revoke_req_uevent(&req, "remove", "block", "8", "0") == 0 &&
	      revoke_req_uevent(&req, "Remove", "block", "8", "0") == -EINVAL &&
	      revoke_req_uevent(&req, "", "block", "8", "0") == -EINVAL &&
	      revoke_req_uevent(&req, "re move", "block", "8", "0") == -EINVAL);
}

/* The one verb list: names parse back, privileges, ok words. */
static void test_verbs(void)
{
	static const char *const privileged[] = {
		"add", "del", "events", "unload", "uevent", "reload", "umount",
		"holders", "pause", "resume",
	};
	const char *why = NULL;
	enum revoke_verb v;
	size_t i, n = 0;
	bool all = true;

	for (i = 0; i < REVOKE_VERB_COUNT; i++)
		all &= revoke_verbs[i].name &&
		       !revoke_verb_parse(revoke_verbs[i].name, &v) && v == i;
	CHECK("every verb has a name, and its name parses back", all);
	CHECK("uevent and unload are root's alone, add and umount the group's too, list anyone's",
	      revoke_verb_access(REVOKE_VERB_UEVENT) == REVOKE_ACCESS_ROOT &&
	      revoke_verb_access(REVOKE_VERB_UNLOAD) == REVOKE_ACCESS_ROOT &&
	      revoke_verb_access(REVOKE_VERB_ADD) == REVOKE_ACCESS_GROUP &&
	      revoke_verb_access(REVOKE_VERB_UMOUNT) == REVOKE_ACCESS_GROUP &&
	      revoke_verb_access(REVOKE_VERB_LIST) == REVOKE_ACCESS_ANYONE);
	for (i = 0; i < REVOKE_VERB_COUNT; i++)
		n += revoke_verb_privileged((enum revoke_verb)i);
	for (i = 0, all = true; i < sizeof(privileged) / sizeof(*privileged); i++)
		all &= !revoke_verb_parse(privileged[i], &v) &&
		       revoke_verb_privileged(v);
	CHECK("add, del, events, unload, uevent, reload, umount, holders, pause and resume, no other, are privileged",
	      all && n == sizeof(privileged) / sizeof(*privileged));
	CHECK("an unknown verb is refused", revoke_verb_parse("frob", &v) == -EINVAL);
	parse("revoke-bpf/1 frob\n", &(struct revoke_req){}, &why);
	for (i = 0, all = true; i < REVOKE_VERB_COUNT; i++)
		all &= why && strstr(why, revoke_verbs[i].name) != NULL;
	CHECK("the unknown-verb message names every verb", all);
	for (i = 0, n = 0; revoke_ok_words[i]; i++)
		n += !strcmp(revoke_ok_words[i], "ignored") ||
		     !strcmp(revoke_ok_words[i], "reloaded") ||
		     !strcmp(revoke_ok_words[i], "holders") ||
		     !strcmp(revoke_ok_words[i], "umounted") ||
		     !strcmp(revoke_ok_words[i], "paused") ||
		     !strcmp(revoke_ok_words[i], "resumed");
	CHECK("the ok words hold ignored, reloaded, holders, umounted, paused and resumed, which the daemon sends",
	      i == 14 && n == 6);
}

int main(void)
{
	test_roundtrip();
	test_path_roundtrip();
	test_path_any_bytes();
	test_force();
	test_rdev_roundtrip();
	test_accepts();
	test_rejects();
	test_pause();
	test_kv();
	test_rbuf();
	test_props();
	test_verbs();
	return tap_done();
}
