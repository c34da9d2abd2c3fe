/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_fields.h - the words of the daemon's answers, spelled once for the
 * daemon that writes them and the CLI that reads them: the ok words, the
 * prefixes of add's report lines, and the keys of the key=value fields.
 *
 * They are string literals, so that a format can be pasted together:
 *
 *	rbuf_printf(resp, REVOKE_FIELD_DEV "=%u:%u\n", maj, min);
 */
#ifndef REVOKE_CTL_FIELDS_H
#define REVOKE_CTL_FIELDS_H

/* "ok WORD", the first line of every answer that is not an error */
#define REVOKE_OK_ADDED		"added"
#define REVOKE_OK_ALREADY	"already"
#define REVOKE_OK_DELETED	"deleted"
#define REVOKE_OK_ABSENT	"absent"
#define REVOKE_OK_LIST		"list"
#define REVOKE_OK_STATUS	"status"
#define REVOKE_OK_EVENTS	"events"
#define REVOKE_OK_UNLOADED	"unloaded"
#define REVOKE_OK_IGNORED	"ignored"	/* uevent the policy leaves alone */
#define REVOKE_OK_RELOADED	"reloaded"
#define REVOKE_OK_UMOUNTED	"umounted"
#define REVOKE_OK_HOLDERS	"holders"
#define REVOKE_OK_PAUSED	"paused"	/* pause: N devices, each a line */
#define REVOKE_OK_RESUMED	"resumed"	/* resume: likewise */

extern const char *const revoke_ok_words[];	/* NULL-terminated */

/* The first word of add's report lines after the counts. */
#define REVOKE_LINE_FAILURE	"failure"
#define REVOKE_LINE_KILLED	"killed"
#define REVOKE_LINE_IO_URING	"io_uring"
#define REVOKE_LINE_SLOW	"slow"
#define REVOKE_LINE_LOOP	"loop"
#define REVOKE_LINE_TTY		"tty"
#define REVOKE_LINE_SYNC	"sync"		/* umount's syncfs */
#define REVOKE_LINE_GONE	"filesystem"	/* umount: gone=yes|no */
#define REVOKE_LINE_UMOUNT	"umount"	/* umount: time per step */
/* before the answer, with progress=yes: step=WORD [done=N total=N] */
#define REVOKE_LINE_PROGRESS	"progress"
#define REVOKE_LINE_PIN		"pin"	/* what pins a filesystem (fs_pins.c) */
#define REVOKE_LINE_UNPIN	"unpin"	/* what was done to it (fs_release.c) */
#define REVOKE_LINE_HOLDER	"holder"	/* holders: one process */
#define REVOKE_LINE_MOUNTED	"mounted"	/* add: a fs on a revoked image */
#define REVOKE_LINE_DEVICE	"device"	/* pause, resume: one device */
#define REVOKE_LINE_CLASS	"class"		/* pause, resume: a class */

/* What add and del name (the line after "ok WORD"), and list's lines. */
#define REVOKE_FIELD_DEV		"dev"
#define REVOKE_FIELD_INO		"ino"
#define REVOKE_FIELD_ALSO		"also"	/* an overlayfs file's other file */
#define REVOKE_FIELD_PATH		"path"
#define REVOKE_FIELD_RDEV		"rdev"
#define REVOKE_FIELD_TYPE		"type"
#define REVOKE_FIELD_KERNEL_REVOKED	"kernel_revoked"
#define REVOKE_FIELD_KIND		"kind"
#define REVOKE_FIELD_REVOKED_AT		"revoked_at"
#define REVOKE_FIELD_REMOVED_AT		"removed_at"
#define REVOKE_FIELD_DENIALS		"denials"
#define REVOKE_FIELD_CAUSE		"cause"
#define REVOKE_FIELD_FS			"fs"	/* a filesystem's s_dev */
#define REVOKE_FIELD_FSTYPE		"fstype"
#define REVOKE_FIELD_ERRNO		"errno"		/* a pause's */
#define REVOKE_FIELD_CHANGE		"change"	/* added, already, ... */
#define REVOKE_FIELD_SUBSYSTEM		"subsystem"
#define REVOKE_FIELD_TAG		"tag"		/* pause --tag */
#define REVOKE_FIELD_SEAT		"seat"		/* its seat */
#define REVOKE_FIELD_PAUSED_AT		"paused_at"
#define REVOKE_FIELD_DRAINED		"drained"	/* resume: bytes dropped */
#define REVOKE_FIELD_RESULT		"result"
#define REVOKE_FIELD_SYNC_US		"sync_us"
#define REVOKE_FIELD_PIPELINE_US	"pipeline_us"
#define REVOKE_FIELD_RELEASE_US		"release_us"
#define REVOKE_FIELD_GONE_US		"gone_us"

/* add's line of counts (struct revoke_report), also in list */
#define REVOKE_FIELD_HOLDERS		"holders"
#define REVOKE_FIELD_FDS		"fds"
#define REVOKE_FIELD_MAPPINGS		"mappings"
#define REVOKE_FIELD_WAITERS		"waiters"
#define REVOKE_FIELD_WOKEN		"woken"
#define REVOKE_FIELD_UNMAPPED		"unmapped"
#define REVOKE_FIELD_RELEASED		"released"
#define REVOKE_FIELD_FAILED		"failed"
#define REVOKE_FIELD_DISCOVER_US	"discover_us"
#define REVOKE_FIELD_TOTAL_US		"total_us"
#define REVOKE_FIELD_KILLED		"killed"
#define REVOKE_FIELD_PASSES		"passes"

/* failure, killed and io_uring lines; pid, uid and comm also in events */
#define REVOKE_FIELD_PID		"pid"
#define REVOKE_FIELD_TID		"tid"
#define REVOKE_FIELD_UID		"uid"
#define REVOKE_FIELD_USER		"user"	/* uid's name (NSS), when it has one */
#define REVOKE_FIELD_COMM		"comm"	/* percent-encoded, but in events */
#define REVOKE_FIELD_STEP		"step"
#define REVOKE_FIELD_REASON		"reason"
#define REVOKE_FIELD_KEEPS_ACCESS	"keeps_access"
#define REVOKE_FIELD_GONE		"gone"
#define REVOKE_FIELD_REVOKED		"revoked"	/* mounted: yes|no */
#define REVOKE_FIELD_FD			"fd"
#define REVOKE_FIELD_FILES		"files"
#define REVOKE_FIELD_BUFFERS		"buffers"
#define REVOKE_FIELD_US			"us"

/* loop and tty lines (rdev, released and reason as above) */
#define REVOKE_FIELD_DENIED		"denied"
#define REVOKE_FIELD_DETACHED		"detached"
#define REVOKE_FIELD_SCAN		"scan"
#define REVOKE_FIELD_HUNGUP		"hungup"

/* pin and unpin lines (kind, step, path, pid, dev, rdev, reason as above) */
#define REVOKE_FIELD_NS			"ns"	/* mount namespace inode */
#define REVOKE_FIELD_SUBMOUNT		"submount"
#define REVOKE_FIELD_BACKING		"backing"
#define REVOKE_FIELD_MATCH		"match"
#define REVOKE_FIELD_MOUNTED		"mounted"
/*
 * holders: "holder pid=N uid=N [user=PCT] comm=PCT fd=LIST|- mappings=N io_uring=N
 * cwd=yes|no root=yes|no exe=yes|no" (pid, uid, comm and mappings as above)
 */
#define REVOKE_FIELD_CWD		"cwd"
#define REVOKE_FIELD_ROOT		"root"
#define REVOKE_FIELD_EXE		"exe"
#define REVOKE_FIELD_IO_URING		"io_uring"

/* status (one field per line) */
#define REVOKE_FIELD_DAEMON_PID		"daemon_pid"
#define REVOKE_FIELD_VERSION		"version"
#define REVOKE_FIELD_UPTIME_S		"uptime_s"
#define REVOKE_FIELD_KERNEL		"kernel"
#define REVOKE_FIELD_LSM		"lsm"
#define REVOKE_FIELD_BPF_LSM		"bpf_lsm"
#define REVOKE_FIELD_ENFORCEMENT	"enforcement"	/* attached|idle|missing */
/* add's first line: how long attaching the programs took (0: attached) */
#define REVOKE_FIELD_ATTACH_US		"attach_us"
#define REVOKE_FIELD_ATTACHES		"attaches"
#define REVOKE_FIELD_DETACHES		"detaches"
#define REVOKE_FIELD_LAST_ATTACH_US	"last_attach_us"
#define REVOKE_FIELD_DETACH_AFTER_S	"detach_after_s"
#define REVOKE_FIELD_PROGRAMS_ATTACHED	"programs_attached"
#define REVOKE_FIELD_PROGRAMS_SKIPPED	"programs_skipped"
#define REVOKE_FIELD_PROGRAM_PREFIX	"program."	/* program.NAME=STATE */
#define REVOKE_FIELD_PIN_DIR		"pin_dir"
#define REVOKE_FIELD_ADOPTED		"adopted"
#define REVOKE_FIELD_REPLACED_PROGRAMS	"replaced_programs"
/* the start took this build's pinned programs instead of loading them */
#define REVOKE_FIELD_PROGRAMS_ADOPTED	"programs_adopted"
/* how long the start's load of the object (and verifier) took */
#define REVOKE_FIELD_LOAD_US		"load_us"
#define REVOKE_FIELD_ENTRIES		"entries"
#define REVOKE_FIELD_CAPACITY		"capacity"
#define REVOKE_FIELD_DEVICES		"devices"
#define REVOKE_FIELD_FILESYSTEMS	"filesystems"
#define REVOKE_FIELD_PAUSES		"pauses"
#define REVOKE_FIELD_OPEN_FILES		"open_files"
#define REVOKE_FIELD_OPEN_FD		"open_fd"	/* add --fd's PID:FD */
#define REVOKE_FIELD_PAUSED_CLASSES	"paused_classes"
#define REVOKE_FIELD_SEATS		"seats"		/* seat0,seat1 or - */
#define REVOKE_FIELD_FREED_INODES	"freed_inodes"
#define REVOKE_FIELD_EVENTS_LOST	"events_lost"
#define REVOKE_FIELD_SUBSCRIBERS	"subscribers"
#define REVOKE_FIELD_SOCKET		"socket"
#define REVOKE_FIELD_ADMIN_GROUP	"admin_group"
/* status: the control loop's counts (ctl_loop.c) */
#define REVOKE_FIELD_CONNECTIONS	"connections"
#define REVOKE_FIELD_CONNECTIONS_CLOSING "connections_closing"
#define REVOKE_FIELD_CONNECTIONS_REFUSED "connections_refused"
#define REVOKE_FIELD_CONNECTIONS_EVICTED "connections_evicted"
#define REVOKE_FIELD_REQUESTS_LATE	"requests_late"
#define REVOKE_FIELD_CLIENTS_NOT_READING "clients_not_reading"
#define REVOKE_FIELD_DESCRIPTORS_REFUSED "descriptors_refused"
#define REVOKE_FIELD_DESCRIPTOR_REFUSAL	"descriptor_refusal"
#define REVOKE_FIELD_CLOSER_KICKS	"closer_kicks"

/* reload */
#define REVOKE_FIELD_POLICY		"policy"
#define REVOKE_FIELD_RULES		"rules"
#define REVOKE_FIELD_SOURCE		"source"

/*
 * The declared files (revoked.d(5)): status's and reload's counts, list's
 * mark of an entry a line added (from=FILE:LINE, percent-encoded),
 * reload's "declared_error source=FILE:LINE reason=PCT pending=yes|no"
 * lines, and add persist=yes's "persisted file=PCT line=N" (or
 * "persisted reason=PCT": not written)
 */
#define REVOKE_FIELD_DECLARED		"declared"
#define REVOKE_FIELD_DECLARED_APPLIED	"declared_applied"
#define REVOKE_FIELD_DECLARED_FAILED	"declared_failed"
#define REVOKE_FIELD_DECLARED_PENDING	"declared_pending"
#define REVOKE_FIELD_DECLARED_HASH	"declared_hash"
#define REVOKE_FIELD_DECLARED_DIR	"declared_dir"
#define REVOKE_FIELD_FROM		"from"
#define REVOKE_FIELD_FILE		"file"
#define REVOKE_FIELD_LINE		"line"
#define REVOKE_FIELD_PENDING		"pending"
#define REVOKE_LINE_DECLARED		"declared"
#define REVOKE_LINE_DECLARED_ERROR	"declared_error"
#define REVOKE_LINE_PERSISTED		"persisted"

/* events: one line per denial (dev, ino, pid, uid and comm as above) */
#define REVOKE_FIELD_TS_NS		"ts_ns"		/* CLOCK_MONOTONIC */
#define REVOKE_FIELD_TIME_NS		"time_ns"	/* the same, as epoch ns */
#define REVOKE_FIELD_TGID		"tgid"
#define REVOKE_FIELD_HOOK		"hook"
#define REVOKE_FIELD_OP			"op"
#define REVOKE_FIELD_ARG		"arg"

/*
 * How revoke-bpf --json types a field's value (ctl_fields.c): whatever the
 * type, "-" stands for none (null, or [] for a list).
 */
enum revoke_field_type {
	REVOKE_FT_STRING,	/* as it is */
	REVOKE_FT_NAME,		/* percent-encoded: decoded */
	REVOKE_FT_INT,		/* a decimal integer */
	REVOKE_FT_BOOL,		/* yes|no */
	REVOKE_FT_INTS,		/* integers separated by commas */
};

enum revoke_field_type revoke_field_type(const char *line, const char *key);

#endif /* REVOKE_CTL_FIELDS_H */
