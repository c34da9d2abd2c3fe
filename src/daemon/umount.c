// SPDX-License-Identifier: GPL-2.0
/*
 * umount.c - forced unmount: the filesystem goes, whoever holds it.
 *
 *	sync	 syncfs() in a child, bounded by the timeout: what was written
 *		 before the command reaches the device (a device already gone
 *		 is reported, and the rest goes on)
 *	deny	 the filesystem goes into the revoked filesystem set: every
 *		 operation on every inode of it fails with EIO from now on
 *	inner	 a filesystem mounted from a loop device backed by a file on
 *		 it is unmounted first, the same way
 *	pipeline every holder of any of its inodes, and every thread standing
 *		 on it (pipeline_fs.c), descriptors released
 *	release	 swap files on it off, loop devices backed by it detached,
 *		 the mounts below it and then its own unmounted, in every
 *		 mount namespace, never lazily (src/pipeline/fs_pins.h)
 *	gone	 wait until the super_block is really gone; only then is the
 *		 filesystem's entry taken out of the set (it names nothing any
 *		 more).  A filesystem that could not go stays revoked.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "pipeline/fs_pins.h"
#include "pipeline/pipeline.h"
#include "store/store.h"

/* How many loop-device levels deep filesystems on filesystems are followed */
#define UMOUNT_DEPTH_MAX 4

/**
 * struct umount_run - one umount request
 * @d: the daemon
 * @opts: the pipeline's options: every descriptor is released
 * @cause: who asked, one word
 * @sum: the pipeline's report, summed over every filesystem unmounted
 * @lines: what was done besides (sync, pins, unpins, gone), in order
 * @gone: every filesystem went
 */
struct umount_run {
	struct daemon *d;
	struct pipeline_opts opts;
	const char *cause;
	struct pipeline_result sum;
	struct rbuf lines;
	bool gone;
};

/*
 * syncfs() the filesystem of @fd, an O_PATH descriptor, in a child, and
 * wait for it at most @timeout_ms.  Return "ok", an errno name, or
 * "timeout" (the child is left to finish, and reaped by the next umount).
 */
static const char *umount_sync(int fd, unsigned int timeout_ms)
{
	struct pollfd pfd = { .events = POLLIN };
	char path[64];
	int status, sfd;
	pid_t pid;

	/* an earlier umount's syncfs that outlived its timeout */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	pid = fork();
	if (pid < 0)
		return strerrorname_np(errno) ?: "EIO";
	if (!pid) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (sfd < 0)
			_exit(errno);
		_exit(syncfs(sfd) ? errno : 0);
	}
	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd.fd >= 0 && poll(&pfd, 1, (int)timeout_ms) <= 0) {
		close(pfd.fd);
		return "timeout";
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return "EIO";
	if (!WEXITSTATUS(status))
		return "ok";
	return strerrorname_np(WEXITSTATUS(status)) ?: "EIO";
}

/* Make @fd, a descriptor the loop closes later, hold nothing of the fs. */
static void umount_let_go(int fd)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0)
		return;
	dup3(null, fd, O_CLOEXEC);
	close(null);
}

static void umount_gone_line(struct umount_run *u, uint32_t s_dev, bool gone,
			     const char *why)
{
	rbuf_printf(&u->lines, REVOKE_LINE_GONE " " REVOKE_FIELD_FS "=%u:%u "
		    REVOKE_FIELD_GONE "=%s", revoke_kdev_major(s_dev),
		    revoke_kdev_minor(s_dev), gone ? "yes" : "no");
	if (!gone)
		rbuf_printf(&u->lines, " " REVOKE_FIELD_REASON "=%s", why);
	rbuf_printf(&u->lines, "\n");
}

static void umount_one(struct umount_run *u, const struct fs_target *t,
		       int depth);

/* The filesystems mounted from loop devices backed by files of @p's. */
static void umount_inner(struct umount_run *u, const struct fs_pins *p,
			 int depth)
{
	struct fs_target inner;
	size_t i;

	for (i = 0; i < p->nr_loop; i++) {
		if (!p->loop[i].mounted)
			continue;
		memset(&inner, 0, sizeof(inner));
		revoke_kdev(major(p->loop[i].mounted_dev),
			    minor(p->loop[i].mounted_dev), &inner.s_dev);
		if (depth + 1 >= UMOUNT_DEPTH_MAX) {
			umount_gone_line(u, inner.s_dev, false,
					 "loop_devices_nested_too_deep");
			u->gone = false;
			continue;
		}
		umount_one(u, &inner, depth + 1);
	}
}

/* Deny, release and unmount one filesystem, and whatever sits on it. */
static void umount_one(struct umount_run *u, const struct fs_target *t,
		       int depth)
{
	dev_t dev = makedev(revoke_kdev_major(t->s_dev),
			    revoke_kdev_minor(t->s_dev));
	struct pipeline_result res;
	struct fs_pins_report rep = {};
	enum revoke_change change;
	struct fs_pins pins = {};
	struct rbuf fail = {};
	char why[256];
	int err;

	if (filesystems_deny(u->d, t, u->cause, &change, &fail)) {
		umount_gone_line(u, t->s_dev, false, "deny_failed");
		rbuf_free(&fail);
		u->gone = false;
		return;
	}
	rbuf_free(&fail);
	err = fs_pins_find(dev, &pins, why, sizeof(why));
	if (!err)
		umount_inner(u, &pins, depth);
	if (!pipeline_run_fs(&u->d->pipeline, t->s_dev, &u->opts, &res)) {
		pipeline_report_log_run("umount", &res);
		pipeline_report_log(&res);
		verbs_sum_results(&u->sum, &res);
	}
	pipeline_result_free(&res);
	if (err) {
		umount_gone_line(u, t->s_dev, false, "pins_not_found");
		log_err("umount fs=%u:%u: %s\n", revoke_kdev_major(t->s_dev),
			revoke_kdev_minor(t->s_dev), why);
		u->gone = false;
		return;
	}
	fs_pins_print(&u->lines, &pins);
	fs_release(&pins, &rep);
	fs_release_print(&u->lines, &pins, &rep);
	if (fs_gone_wait(dev, pins.source, (int)u->opts.timeout_ms, why,
			 sizeof(why))) {
		super_set_del(&u->d->rb, t->s_dev, &change);
		umount_gone_line(u, t->s_dev, true, NULL);
	} else {
		umount_gone_line(u, t->s_dev, false, why);
		u->gone = false;
	}
	fs_release_report_free(&rep);
	fs_pins_free(&pins);
}

/**
 * umount_super() - force one filesystem off the machine: deny it, unmount
 *	the filesystems on loop devices backed by it, release every holder,
 *	unmount every mount of it and wait until it is gone
 * @d: the daemon
 * @s_dev: its super_block's s_dev (kernel encoding)
 * @sb: its super_block's address, or 0 if it is known by number only
 * @cause: who asked, one word (in the revoked filesystem set)
 * @opts: the pipeline's options (every descriptor is released whatever
 *	@opts->release says)
 * @r: the result; @r->lines may already hold lines of the caller's (its
 *	sync), which come first; umount_result_free() it
 *
 * Return: true if every filesystem went (@r->gone).
 */
bool umount_super(struct daemon *d, uint32_t s_dev, uint64_t sb,
		  const char *cause, const struct pipeline_opts *opts,
		  struct umount_result *r)
{
	struct umount_run u = { .d = d, .opts = *opts, .cause = cause,
				.lines = r->lines, .gone = true };
	struct fs_target t = { .s_dev = s_dev, .sb = sb };

	u.opts.release = REVOKE_RELEASE_YES;
	umount_one(&u, &t, 0);
	r->sum = u.sum;
	r->lines = u.lines;
	r->gone = u.gone;
	return u.gone;
}

/**
 * umount_result_free() - free what umount_super() gave
 * @r: its result
 */
void umount_result_free(struct umount_result *r)
{
	rbuf_free(&r->lines);
	pipeline_result_free(&r->sum);
}

/**
 * umount_answer() - an answer's lines for umount_super()'s result: the
 *	pipeline's report summed over every filesystem unmounted, then one
 *	line per sync, pin, release step and filesystem gone (or not)
 * @resp: the answer
 * @r: the result
 */
void umount_answer(struct rbuf *resp, struct umount_result *r)
{
	answer_pipeline(resp, 0, &r->sum);
	pipeline_report_lines(resp, &r->sum);
	rbuf_printf(resp, "%.*s", (int)r->lines.len, r->lines.data);
	resp->failed |= r->lines.failed;
}

/**
 * umount_fs() - umount: force a filesystem off the machine
 * @d: the daemon
 * @peer: who asks, with a descriptor of a file on the filesystem
 * @req: the request (fs=yes, path, and add's timeout_ms, spare, cause)
 * @resp: the answer: the filesystem, then umount_answer()'s lines
 *
 * Return: 0, or -1 once an error is answered.
 */
int umount_fs(struct daemon *d, const struct ctl_peer *peer,
	      const struct revoke_req *req, struct rbuf *resp)
{
	struct umount_result r = {};
	struct pipeline_opts opts;
	struct fs_target t;
	const char *synced;
	char why[512];
	int err;

	err = filesystems_target(d, peer, req, &t, why, sizeof(why));
	if (!err && !t.sb) {
		snprintf(why, sizeof(why), "bad request: umount names the "
			 "filesystem by a descriptor of its mount point");
		err = -EINVAL;
	}
	if (err) {
		answer_err(resp, -err, "%s", why);
		return -1;
	}
	opts = verbs_pipeline_opts(d, req);
	synced = umount_sync(peer->sent_fd, opts.timeout_ms);
	rbuf_printf(&r.lines, REVOKE_LINE_SYNC " " REVOKE_FIELD_FS "=%u:%u "
		    REVOKE_FIELD_RESULT "=%s\n", revoke_kdev_major(t.s_dev),
		    revoke_kdev_minor(t.s_dev), synced);
	umount_let_go(peer->sent_fd);
	holders_skip(&d->pipeline.holders, getpid(), peer->pid);
	umount_super(d, t.s_dev, t.sb, req->cause[0] ? req->cause : "umount",
		     &opts, &r);
	holders_skip(&d->pipeline.holders, getpid(), 0);
	log_info("umount fs=%u:%u by uid=%u pid=%d: %s\n",
		 revoke_kdev_major(t.s_dev), revoke_kdev_minor(t.s_dev),
		 (unsigned int)peer->uid, (int)peer->pid,
		 r.gone ? "gone" : "not gone");
	rbuf_printf(resp, "ok " REVOKE_OK_UMOUNTED "\n");
	filesystems_answer_target(resp, &t);
	umount_answer(resp, &r);
	umount_result_free(&r);
	return 0;
}
