/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon.h - revoke-bpfd's state and what its parts offer one another:
 *
 *	daemon.c	main: options, start, signals, the event loop
 *	verbs.c		the router and one handler per request verb
 *	verbs_query.c	list and status, the verbs that only read
 *	answer.c	what several handlers write: errors, counts
 *	request_keys.c	the inodes an add or del names
 *	devices.c	revoked devices: add, del, removals (uevents), policy
 *	verbs_holders.c	holders: who holds a file or a filesystem
 *	notify.c	what systemd is told: READY=1, STATUS=, RELOADING=1
 *	busy.c		a long request's progress lines, and the loop's
 *			turns within it for the others
 *	pauses.c	pause and resume: a device denied to one user
 *	seat.c		logind's seats followed: their inactive users
 *			paused on their uaccess devices
 *	pause_tags.c	pause --tag uaccess: a seat's uaccess devices
 *	udev_uaccess.c	the devices udev tagged uaccess on a seat
 *
 * Calls go one way: daemon.c -> verbs*.c -> devices.c, request_keys.c
 * -> answer.c; daemon.c and devices.c -> notify.c.
 *
 * The server (ctl_*), the denial events (events.c), the LSM check and the
 * policy file keep their own headers.
 */
#ifndef REVOKE_DAEMON_H
#define REVOKE_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "common/common.h"
#include "ctl_loop.h"
#include "declared.h"
#include "events.h"
#include "named.h"
#include "pipeline/pipeline.h"
#include "policy.h"
#include "store/store.h"

/**
 * enum daemon_exit - revoke-bpfd's exit statuses, LSB's numbers, which
 *	systemd names (systemctl status shows "status=3/NOTIMPLEMENTED")
 * @DAEMON_EXIT_OK: stopped by SIGTERM, SIGINT or an unload
 * @DAEMON_EXIT_FAILURE: anything else; a restart may cure it
 * @DAEMON_EXIT_USAGE: a bad option or argument
 * @DAEMON_EXIT_NO_BPF_LSM: BPF LSM is not active, or the list of active
 *	LSMs cannot be read: nothing but a reboot helps
 * @DAEMON_EXIT_NOT_ROOT: not run as root
 * @DAEMON_EXIT_CONFIG: the --policy file is bad, or --group names no group
 *
 * From DAEMON_EXIT_USAGE on a restart cannot help: the unit's
 * RestartPreventExitStatus= lists each.  daemon_exits[] (daemon.c) is
 * what --help and revoke-bpfd(8) say of each.
 */
enum daemon_exit {
	DAEMON_EXIT_OK = 0,
	DAEMON_EXIT_FAILURE = 1,
	DAEMON_EXIT_USAGE = 2,
	DAEMON_EXIT_NO_BPF_LSM = 3,
	DAEMON_EXIT_NOT_ROOT = 4,
	DAEMON_EXIT_CONFIG = 6,
};

/*
 * --detach-after: how long the programs stay attached once nothing is
 * revoked, so that a del followed by an add does not detach and attach
 */
#define DETACH_AFTER_DEFAULT_S 10
#define DETACH_AFTER_MAX_S 86400

#define DEVICES_PARTS_MAX 64
#define DEVICES_DEVPATH_LEN 256

/**
 * struct devices_parts - the partitions whose removal was seen last, so
 *	that their disk's removal, which comes after them, finds them (their
 *	sysfs entries are gone by then)
 * @devpath: each one's DEVPATH ("" for a free slot)
 * @rdev: its number (kernel encoding)
 * @next: the slot the next one takes (the oldest is forgotten)
 */
struct devices_parts {
	char devpath[DEVICES_PARTS_MAX][DEVICES_DEVPATH_LEN];
	uint32_t rdev[DEVICES_PARTS_MAX];
	size_t next;
};

/* the longest STATUS= text, "STATUS=" aside */
#define NOTIFY_STATUS_LEN 128

/**
 * struct daemon_notify - what systemd was told, and when to count again
 * @listening: $NOTIFY_SOCKET is set
 * @stale: a privileged request or a uevent was handled since the last
 *	count (verbs_handle(), devices_read_uevents())
 * @attaches: the store's attaches at the last count
 * @detaches: its detaches, likewise
 * @looked_ms: when the programs' own drops were last looked for
 *	(CLOCK_MONOTONIC)
 * @freed: the inodes they dropped, then
 * @supers: the filesystems revoked, then
 * @status: the STATUS= text last sent
 */
struct daemon_notify {
	bool listening;
	bool stale;
	unsigned int attaches;
	unsigned int detaches;
	uint64_t looked_ms;
	uint64_t freed;
	uint64_t supers;
	char status[NOTIFY_STATUS_LEN];
};

/**
 * struct daemon_busy - the long request under way (busy.c)
 * @fd: its client's connection, for progress lines, or -1
 * @step: the step it is at, or NULL
 * @counted: @step counts holders: @done of @total
 * @done: holders handled
 * @total: holders found
 * @sent_ms: when a line was last sent (CLOCK_MONOTONIC)
 */
struct daemon_busy {
	int fd;
	const char *step;
	bool counted;
	size_t done;
	size_t total;
	uint64_t sent_ms;
};

/**
 * struct daemon_seats - the seats followed (seat.c): one inotify
 *	descriptor, and its watches (-1: not watched)
 * @fd: the descriptor while the policy names a seat, or -1
 * @wd_seats: /run/systemd/seats, logind's files of the seats
 * @wd_run: /run/systemd, for seats/ to appear
 * @wd_tags: /run/udev/tags/uaccess, the devices tagged uaccess
 * @wd_udev: /run/udev/tags, for uaccess/ to appear
 * @wd_data: /run/udev/data, udev's database, written after the tags
 */
struct daemon_seats {
	int fd;
	int wd_seats;
	int wd_run;
	int wd_tags;
	int wd_udev;
	int wd_data;
};

/**
 * struct daemon - everything revoke-bpfd holds while it runs
 * @rb: the pinned maps and programs
 * @events: the denial ring buffer and its subscribers
 * @pipeline: what ends the existing accesses after a deny
 * @started: when it started, for status
 * @lsm: the kernel's active LSMs
 * @socket_path: the control socket
 * @proc: the procfs searched for holders
 * @group_name: --group, or NULL
 * @group: its gid
 * @policy_path: the policy file
 * @policy: the policy in force
 * @uevent_fd: the kernel uevent socket (source netlink), or -1
 * @uevent_req: the kernel uevent being handled
 * @pause_uevent_fd: the kernel uevent socket while a class is paused
 *	(pauses.c), or -1
 * @seats: the seats followed (seat.c)
 * @parts: partitions removed before their disk
 * @signal_fd: SIGTERM, SIGINT and SIGHUP
 * @loop: the event loop
 * @notify: what systemd was told
 * @busy: the long request under way
 * @decl: the declared files (declared.c)
 * @serving: @loop is up
 * @quit: end @loop
 */
struct daemon {
	struct store rb;
	struct revoke_events events;
	struct pipeline pipeline;
	time_t started;
	char lsm[256];
	const char *socket_path;
	const char *proc;
	const char *group_name;
	gid_t group;
	const char *policy_path;
	struct policy policy;
	int uevent_fd;
	struct revoke_req uevent_req;
	int pause_uevent_fd;
	struct daemon_seats seats;
	struct devices_parts parts;
	int signal_fd;
	struct ctl_loop loop;
	uint32_t detach_after_ms;
	unsigned int logged_attaches;
	unsigned int logged_detaches;
	struct daemon_notify notify;
	struct daemon_busy busy;
	struct declared decl;
	bool serving;
	bool quit;
};

/* busy.c */
void busy_init(struct daemon *d);
void busy_step(struct daemon *d, const char *step);
void busy_yield(struct daemon *d);
bool busy_may_nest(const struct ctl_peer *peer, bool priv, const char *buf,
		   size_t len, void *ctx);
bool busy_handle(const struct ctl_peer *peer, const char *buf, size_t len,
		 struct rbuf *resp, void *ctx);

/* notify.c */
void notify_init(struct daemon *d);
void notify_ready(struct daemon *d);
void notify_reloading(struct daemon *d);
void notify_stopping(void);
void notify_status(struct daemon *d, uint64_t now_ms);
void notify_status_text(struct daemon *d, char *buf, size_t len);

/* verbs.c, verbs_query.c */
bool verbs_handle(const struct ctl_peer *peer, const char *buf, size_t len,
		  struct rbuf *resp, void *ctx);
bool verbs_may_send_fd(const struct ctl_peer *peer, void *ctx);
int verbs_list(struct daemon *d, const struct ctl_peer *peer,
	       const struct revoke_req *req, struct rbuf *resp);
int verbs_status(struct daemon *d, const struct ctl_peer *peer,
		 const struct revoke_req *req, struct rbuf *resp);

struct pipeline_opts verbs_pipeline_opts(const struct daemon *d,
					 const struct revoke_req *req);
void verbs_sum_results(struct pipeline_result *sum,
		       const struct pipeline_result *res);

/* fds.c */
int fds_add(struct daemon *d, const struct ctl_peer *peer,
	    const struct revoke_req *req, struct rbuf *resp);
int fds_list(struct daemon *d, struct rbuf *body);

/* answer.c */
void answer_err(struct rbuf *resp, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void answer_pipeline(struct rbuf *resp, int err, struct pipeline_result *res);
const char *answer_change_name(enum revoke_change change);
void answer_report(struct rbuf *resp, const struct revoke_report *r);
void answer_attach(struct rbuf *resp, struct store *rb);
int answer_set_err(struct rbuf *resp, const struct store *rb, int err,
		   const char *set);

/* filesystems.c */

/**
 * struct fs_target - a filesystem a request names
 * @s_dev: its super_block's s_dev (kernel encoding)
 * @sb: its super_block's address, or 0 if it was named by number
 * @fstype: its type's name, or "" if it was named by number
 * @mnt_root: the file sent is the root of its mount (a mount point)
 */
struct fs_target {
	uint32_t s_dev;
	uint64_t sb;
	bool mnt_root;
	char fstype[REVOKE_FSTYPE_LEN];
};

int filesystems_named(struct daemon *d, const struct ctl_peer *peer,
		      const struct revoke_req *req, struct fs_target *t,
		      char *why, size_t len);
int filesystems_target(struct daemon *d, const struct ctl_peer *peer,
		       const struct revoke_req *req, struct fs_target *t,
		       char *why, size_t len);
void filesystems_answer_target(struct rbuf *resp, const struct fs_target *t);
int filesystems_deny(struct daemon *d, const struct fs_target *t,
		     const char *cause, enum revoke_change *change,
		     struct rbuf *resp);
int filesystems_add(struct daemon *d, const struct ctl_peer *peer,
		    const struct revoke_req *req, struct rbuf *resp);
int filesystems_del(struct daemon *d, const struct ctl_peer *peer,
		    const struct revoke_req *req, struct rbuf *resp);
int filesystems_list(struct daemon *d, struct rbuf *body);

int filesystems_mounted_from(struct daemon *d, const uint32_t *rdevs,
			     size_t nr, struct fs_target *out, size_t max);
void filesystems_revoke_loops(struct daemon *d, const struct loopdev_set *loops,
			      const struct revoke_req *req, pid_t skip,
			      struct rbuf *resp);

/* umount.c */

/* umount's steps, whose time struct umount_result keeps */
enum umount_step { UMOUNT_SYNC, UMOUNT_PIPELINE, UMOUNT_RELEASE, UMOUNT_GONE,
		   UMOUNT_STEPS };

/**
 * struct umount_result - what umount_super() did
 * @sum: the pipeline's report, summed over every filesystem unmounted
 * @lines: what was done besides (sync, pins, unpins, gone), in order
 * @gone: every filesystem went
 * @us: microseconds spent in each step (enum umount_step), summed over
 *	every filesystem: sync, the holders, finding and releasing what
 *	pins it, waiting for its super_block to go
 */
struct umount_result {
	struct pipeline_result sum;
	struct rbuf lines;
	bool gone;
	uint64_t us[UMOUNT_STEPS];
};

bool umount_super(struct daemon *d, uint32_t s_dev, uint64_t sb,
		  const char *cause, const struct pipeline_opts *opts,
		  struct umount_result *r);
void umount_result_free(struct umount_result *r);
void umount_answer(struct rbuf *resp, struct umount_result *r);
int umount_fs(struct daemon *d, const struct ctl_peer *peer,
	      const struct revoke_req *req, struct rbuf *resp);

/* pauses.c; the cause of the pauses seat.c makes and lifts */
#define PAUSE_CAUSE_SEAT "seat"
int pauses_follow(struct daemon *d);
int pauses_start(struct daemon *d);
int pauses_watch(struct daemon *d);
int pauses_device(struct daemon *d, const struct revoke_pause_key *key,
		  uint32_t err, const char *cause);
int pauses_lift(struct daemon *d, const struct revoke_pause_key *key);
void pauses_changed(struct daemon *d);
int verbs_pause(struct daemon *d, const struct ctl_peer *peer,
		const struct revoke_req *req, struct rbuf *resp);
int verbs_resume(struct daemon *d, const struct ctl_peer *peer,
		 const struct revoke_req *req, struct rbuf *resp);

/* pause_tags.c: pause --tag uaccess, the seat's devices udev tagged */
bool pause_tags_any(struct daemon *d);
void pause_tags_sync(struct daemon *d);
void pause_class_field(struct rbuf *b, const char *name);

/* seat.c */
int seats_inotify(struct daemon *d);
int seats_follow(struct daemon *d);
int seats_watch(struct daemon *d);
void seats_sync(struct daemon *d);
void seats_status(const struct daemon *d, struct rbuf *resp);

/* verbs_holders.c */
int verbs_holders(struct daemon *d, const struct ctl_peer *peer,
		  const struct revoke_req *req, struct rbuf *resp);

/* request_keys.c */
int request_keys_find(struct daemon *d, const struct ctl_peer *peer,
		      const struct revoke_req *req, struct named_file *nf,
		      char *why, size_t whylen);

/* devices.c */

/**
 * struct rdev_add - a device to revoke: by an add, or because it went away
 * @key: its number and type
 * @cause: who revoked it: "admin", "udev", "netlink" or the add's cause=
 * @removed: it went away (its revocation is scoped to that instance)
 * @opts: what the pipeline does with its holders
 * @uid: who asked, for the log
 * @pid: likewise (the kernel: 0 and 0)
 */
struct rdev_add {
	struct revoke_rdev_key key;
	const char *cause;
	bool removed;
	struct pipeline_opts opts;
	uid_t uid;
	pid_t pid;
};

/**
 * struct rdev_actions - what devices_add() does after the deny
 * @pipeline: end the holders' accesses (not a policy's mode=deny)
 * @hangup: send SIGHUP to the holders (a policy's signal=hup)
 */
struct rdev_actions {
	bool pipeline;
	bool hangup;
};

/**
 * struct device_removal - a device that went away, as a uevent told it
 * @key: its number and type
 * @major: its major number, as the uevent gave it
 * @minor: its minor number, likewise
 * @action: the uevent's action; only "remove" is acted on
 * @props: its properties, for the policy
 * @from_kernel: told by the kernel's netlink uevents, not the udev rule
 * @uid: who told it, for the log (the kernel: 0 and 0)
 * @pid: likewise
 */
struct device_removal {
	struct revoke_rdev_key key;
	unsigned int major;
	unsigned int minor;
	const char *action;
	struct uevent_props props;
	bool from_kernel;
	uid_t uid;
	pid_t pid;
};

struct revoke_rdev_key devices_key_of(const struct revoke_req *req);
int devices_add(struct daemon *d, const struct rdev_add *add,
		struct rdev_actions act, struct rbuf *resp);
int devices_del(struct daemon *d, const struct revoke_rdev_key *key,
		uid_t uid, pid_t pid, enum revoke_change *change);
void devices_removal_of(struct device_removal *rm, const struct revoke_req *req,
			bool from_kernel, uid_t uid, pid_t pid);
int devices_removed(struct daemon *d, const struct device_removal *rm,
		    struct rbuf *resp);
int devices_follow_source(struct daemon *d, char *err, size_t errlen);
int devices_reload_policy(struct daemon *d, char *err, size_t errlen);
void devices_read_uevents(void *arg);

#endif /* REVOKE_DAEMON_H */
