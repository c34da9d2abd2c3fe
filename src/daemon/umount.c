// SPDX-License-Identifier: GPL-2.0
/*
 * umount.c - forced unmount: the filesystem goes, whoever holds it.
 *
 *	sync	 syncfs() in a child, bounded by the timeout: what was written
 *		 before the command reaches the device (a device already gone
 *		 is reported, and the rest goes on)
 *	swap	 swap files on it are turned off (swapoff opens the file by its
 *		 name, which the deny would refuse)
 *	deny	 the filesystem goes into the revoked filesystem set: every
 *		 operation on every inode of it fails with EIO from now on
 *	inner	 a filesystem mounted from a loop device backed by a file on
 *		 it is unmounted first, the same way
 *	pipeline every holder of any of its inodes, and every thread standing
 *		 on it (pipeline_fs.c), descriptors released
 *	release	 loop devices backed by it detached, the mounts below it and
 *		 then its own unmounted, in every
 *		 mount namespace, never lazily (src/umount/umount.h)
 *	gone	 wait until the kernel frees the super_block, which drops the
 *		 filesystem's entry from the set (sb_free_security): the one
 *		 sign of it that nothing outside can fake.  A filesystem that
 *		 could not go stays revoked.
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
#include "umount/umount.h"
#include "pipeline/pipeline.h"
#include "store/store.h"

/* How many loop-device levels deep filesystems on filesystems are followed */
#define UMOUNT_DEPTH_MAX 4
/* How many namespaces with a locked copy one filesystem's unmount ends */
#define UMOUNT_NS_MAX 16

/**
 * struct umount_run - one umount_super()
 * @d: the daemon
 * @opts: the pipeline's options: every descriptor is released
 * @cause: who asked, one word
 * @r: the result being made
 * @stack: the filesystems being unmounted, outermost first: one mounted
 *	from a loop device backed by a file of its own is not followed
 */
struct umount_run {
	struct daemon *d;
	struct pipeline_opts opts;
	const char *cause;
	struct umount_result *r;
	uint32_t stack[UMOUNT_DEPTH_MAX];
};

/* Add the time since *@t to @step, and restart *@t. */
static void umount_took(struct umount_result *r, enum umount_step step,
			uint64_t *t)
{
	uint64_t now = pipeline_now_us();

	r->us[step] += now - *t;
	*t = now;
}

/*
 * Wait until @pfd (a pidfd) is readable, @timeout_ms at most, letting
 * the loop turn meanwhile.  Return poll(2)'s.
 */
static int umount_poll(struct daemon *d, struct pollfd *pfd,
		       unsigned int timeout_ms)
{
	uint64_t end = ctl_now_ms() + timeout_ms, now;
	int r, slice;

	for (;;) {
		now = ctl_now_ms();
		slice = now >= end ? 0 : end - now < 20 ? (int)(end - now) : 20;
		r = poll(pfd, 1, slice);
		if (r != 0 || now >= end)
			return r;
		busy_yield(d);
	}
}

/*
 * syncfs() the filesystem of @fd, an O_PATH descriptor, in a child, and
 * wait for it at most @timeout_ms.  Return "ok", an errno name, or
 * "timeout" (the child is killed, so that it is no holder of the
 * filesystem, and reaped by the next umount).
 */
static const char *umount_sync(struct daemon *d, int fd,
			       unsigned int timeout_ms)
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
		/*
		 * Hold nothing of the daemon's but @fd: not a link that a
		 * detach is closing (its teardown would wait for this child,
		 * and the next attach would find its hook still linked), nor
		 * a client's connection.
		 */
		if (fd > 3)
			close_range(3, (unsigned int)fd - 1, 0);
		close_range((unsigned int)fd + 1, ~0U, 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (sfd < 0)
			_exit(errno);
		_exit(syncfs(sfd) ? errno : 0);
	}
	pfd.fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd.fd >= 0 && umount_poll(d, &pfd, timeout_ms) <= 0) {
		/* its wait (a FUSE server that no longer answers) is killable */
		syscall(SYS_pidfd_send_signal, pfd.fd, SIGKILL, NULL, 0);
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
	if (!gone)
		u->r->gone = false;
	rbuf_printf(&u->r->lines, REVOKE_LINE_GONE " " REVOKE_FIELD_FS "=%u:%u "
		    REVOKE_FIELD_GONE "=%s", revoke_kdev_major(s_dev),
		    revoke_kdev_minor(s_dev), gone ? "yes" : "no");
	if (!gone)
		rbuf_printf(&u->r->lines, " " REVOKE_FIELD_REASON "=%s", why);
	rbuf_printf(&u->r->lines, "\n");
}

/* Did every failed step of @rep fail with EBUSY (a mount still in use)? */
static bool umount_busy(const struct fs_pins_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nr; i++)
		if (rep->step[i].err && (rep->step[i].err != EBUSY ||
					 rep->step[i].kind != FS_PINS_UMOUNT))
			return false;
	return rep->failed;
}

/* Why a mount of @s_dev is still busy: who stands on it, if anyone does. */
static void umount_held_by(struct umount_run *u, uint32_t s_dev, char *why,
			   size_t len)
{
	struct holder_set set = {};

	if (holders_find_fs(&u->d->pipeline.holders, s_dev, &set) || !set.nr)
		snprintf(why, len, "busy_no_holder_found");
	else
		snprintf(why, len, "busy_held_by_pid_%d%s", (int)set.procs[0].tgid,
			 set.nr > 1 ? "_and_others" : "");
	holder_set_free(&set);
}

static void umount_one(struct umount_run *u, const struct fs_target *t,
		       int depth);

/* Is @s_dev one of the filesystems being unmounted, from the outermost? */
static bool umount_in_progress(const struct umount_run *u, uint32_t s_dev,
			       int depth)
{
	int i;

	for (i = 0; i <= depth; i++)
		if (u->stack[i] == s_dev)
			return true;
	return false;
}

/*
 * The filesystems mounted from loop devices backed by files of @p's.
 * Return how many there were.
 */
static int umount_inner(struct umount_run *u, const struct fs_pins *p,
			int depth)
{
	struct fs_target inner;
	int n = 0;
	size_t i;

	for (i = 0; i < p->nr_loop; i++) {
		if (!p->loop[i].mounted)
			continue;
		memset(&inner, 0, sizeof(inner));
		revoke_kdev(major(p->loop[i].mounted_dev),
			    minor(p->loop[i].mounted_dev), &inner.s_dev);
		if (umount_in_progress(u, inner.s_dev, depth))
			continue;
		n++;
		busy_step(u->d, "loops");
		if (depth + 1 >= UMOUNT_DEPTH_MAX) {
			umount_gone_line(u, inner.s_dev, false,
					 "loop_devices_nested_too_deep");
			continue;
		}
		umount_one(u, &inner, depth + 1);
	}
	return n;
}

/*
 * Turn off the swap files of @pins, before the deny: swapoff(2) opens the
 * file by its name.
 */
static void umount_swapoff(struct umount_run *u, struct fs_pins *pins)
{
	struct fs_pins_report rep;

	if (!pins->nr_swap)
		return;
	busy_step(u->d, "swap");
	fs_release_swaps(pins, &rep);
	fs_release_print(&u->r->lines, pins, &rep);
	fs_release_report_free(&rep);
}

/* Sum one run of the pipeline into the result. */
static void umount_pipeline(struct umount_run *u, uint32_t s_dev)
{
	struct pipeline_result res;

	busy_step(u->d, "holders");
	if (!pipeline_run_fs(&u->d->pipeline, s_dev, &u->opts, &res)) {
		pipeline_report_log_run("umount", &res);
		pipeline_report_log(&res);
		verbs_sum_results(&u->r->sum, &res);
	}
	pipeline_result_free(&res);
}

/*
 * The mount namespaces whose copy of the filesystem is locked (its
 * unmount failed with EINVAL: a user namespace owns them): the policy for
 * their processes, whose namespace, and its copy, go with the last of
 * them.  Return how many processes it ended.
 */
static int umount_locked(struct umount_run *u, const struct fs_pins_report *rep)
{
	struct pipeline_result res;
	ino_t done[UMOUNT_NS_MAX];
	size_t i, j, ndone = 0;
	int n = 0;

	for (i = 0; i < rep->nr; i++) {
		const struct fs_pins_step *s = &rep->step[i];

		if (s->kind != FS_PINS_UMOUNT || s->err != EINVAL)
			continue;
		for (j = 0; j < ndone && done[j] != s->ns_ino; j++)
			;
		if (j < ndone || ndone == UMOUNT_NS_MAX)
			continue;
		done[ndone++] = s->ns_ino;
		memset(&res, 0, sizeof(res));
		if (pipeline_end_namespace(s->ns_ino, &u->opts, &res) > 0)
			n += (int)res.nkill;
		verbs_sum_results(&u->r->sum, &res);
		pipeline_result_free(&res);
	}
	return n;
}

/*
 * Wait @timeout_ms at most until the kernel frees the super_block of
 * @s_dev: the hooks drop its entry of the revoked filesystem set then
 * (sb_free_security), and nothing else does.  Not its mounts gone nor
 * its device free: a mount tree detached and held by a descriptor, or a
 * mount namespace no process is in, keeps a super_block alive with
 * neither.  Until it is freed, it stays revoked.  Return true once it is.
 */
static bool umount_wait_freed(struct umount_run *u, uint32_t s_dev,
			      int timeout_ms)
{
	uint64_t end = pipeline_now_us() + (uint64_t)timeout_ms * 1000;
	struct revoke_super_val val;

	busy_step(u->d, "wait-gone");
	for (;;) {
		if (super_set_get(&u->d->rb, s_dev, &val) == -ENOENT)
			return true;
		if (pipeline_now_us() >= end)
			return false;
		usleep(20000);
		busy_yield(u->d);
	}
}

/* Deny, release and unmount one filesystem, and whatever sits on it. */
static void umount_one(struct umount_run *u, const struct fs_target *t,
		       int depth)
{
	dev_t dev = makedev(revoke_kdev_major(t->s_dev),
			    revoke_kdev_minor(t->s_dev));
	uint64_t at = pipeline_now_us();
	struct fs_pins_report rep = {};
	enum revoke_change change;
	struct fs_pins pins = {};
	struct rbuf fail = {};
	char why[256];
	bool gone;
	int err;

	u->stack[depth] = t->s_dev;
	err = fs_pins_find(dev, &pins, why, sizeof(why));
	if (!err) {
		fs_pins_print(&u->r->lines, &pins);
		umount_swapoff(u, &pins);
	}
	umount_took(u->r, UMOUNT_RELEASE, &at);
	busy_step(u->d, "revoke");
	if (filesystems_deny(u->d, t, u->cause, &change, &fail)) {
		umount_gone_line(u, t->s_dev, false, "deny_failed");
		goto out;
	}
	if (!err && umount_inner(u, &pins, depth)) {
		/* what pins it now that the filesystems on it are gone */
		fs_pins_free(&pins);
		memset(&pins, 0, sizeof(pins));
		err = fs_pins_find(dev, &pins, why, sizeof(why));
	}
	at = pipeline_now_us();
	umount_pipeline(u, t->s_dev);
	umount_took(u->r, UMOUNT_PIPELINE, &at);
	if (err) {
		umount_gone_line(u, t->s_dev, false, "pins_not_found");
		log_err("umount fs=%u:%u: %s\n", revoke_kdev_major(t->s_dev),
			revoke_kdev_minor(t->s_dev), why);
		goto out;
	}
	busy_step(u->d, "unmount");
	fs_release(&pins, &rep);
	fs_release_print(&u->r->lines, &pins, &rep);
	if (rep.failed && umount_locked(u, &rep)) {
		/* their namespaces went with them: what is left of its mounts */
		fs_release_report_free(&rep);
		fs_pins_free(&pins);
		memset(&pins, 0, sizeof(pins));
		if (!fs_pins_find(dev, &pins, why, sizeof(why))) {
			fs_release(&pins, &rep);
			fs_release_print(&u->r->lines, &pins, &rep);
		}
	}
	umount_took(u->r, UMOUNT_RELEASE, &at);
	/* a step that failed leaves it mounted: no use waiting for it */
	gone = umount_wait_freed(u, t->s_dev,
				 rep.failed ? 0 : (int)u->opts.timeout_ms);
	if (!gone && fs_gone_check(dev, pins.source, why, sizeof(why)))
		snprintf(why, sizeof(why), "super_block_still_referenced");
	else if (!gone && umount_busy(&rep))
		umount_held_by(u, t->s_dev, why, sizeof(why));
	umount_took(u->r, UMOUNT_GONE, &at);
	umount_gone_line(u, t->s_dev, gone, why);
	fs_release_report_free(&rep);
out:
	rbuf_free(&fail);
	fs_pins_free(&pins);
}

/**
 * umount_super() - force one filesystem off the machine: turn its swap
 *	off, deny it, unmount the filesystems on loop devices backed by it,
 *	release every holder, unmount every mount of it and wait until it
 *	is gone
 * @d: the daemon
 * @s_dev: its super_block's s_dev (kernel encoding)
 * @sb: its super_block's address, or 0 if it is known by number only
 * @cause: who asked, one word (in the revoked filesystem set)
 * @opts: the pipeline's options (every descriptor is released whatever
 *	@opts->release says)
 * @r: the result, zeroed by the caller; @r->lines and @r->us may already
 *	hold the caller's (its sync), which come first; umount_result_free()
 *	it
 *
 * Return: true if every filesystem went (@r->gone).
 */
bool umount_super(struct daemon *d, uint32_t s_dev, uint64_t sb,
		  const char *cause, const struct pipeline_opts *opts,
		  struct umount_result *r)
{
	struct umount_run u = { .d = d, .opts = *opts, .cause = cause, .r = r };
	struct fs_target t = { .s_dev = s_dev, .sb = sb };

	r->gone = true;
	u.opts.release = REVOKE_RELEASE_YES;
	umount_one(&u, &t, 0);
	return r->gone;
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
 *	line per sync, pin, release step and filesystem gone (or not), then
 *	the time each step took
 * @resp: the answer
 * @r: the result
 */
void umount_answer(struct rbuf *resp, struct umount_result *r)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < UMOUNT_STEPS; i++)
		total += r->us[i];
	answer_pipeline(resp, 0, &r->sum);
	pipeline_report_lines(resp, &r->sum);
	rbuf_printf(resp, "%.*s", (int)r->lines.len, r->lines.data);
	resp->failed |= r->lines.failed;
	rbuf_printf(resp, REVOKE_LINE_UMOUNT " " REVOKE_FIELD_SYNC_US "=%llu "
		    REVOKE_FIELD_PIPELINE_US "=%llu " REVOKE_FIELD_RELEASE_US
		    "=%llu " REVOKE_FIELD_GONE_US "=%llu " REVOKE_FIELD_TOTAL_US
		    "=%llu\n", (unsigned long long)r->us[UMOUNT_SYNC],
		    (unsigned long long)r->us[UMOUNT_PIPELINE],
		    (unsigned long long)r->us[UMOUNT_RELEASE],
		    (unsigned long long)r->us[UMOUNT_GONE],
		    (unsigned long long)total);
}

/**
 * umount_fs() - umount: force a filesystem off the machine
 * @d: the daemon
 * @peer: who asks, with a descriptor of the filesystem's mount point
 * @req: the request (fs=yes, path, and add's timeout_ms, spare, cause)
 * @resp: the answer: the filesystem, then umount_answer()'s lines
 *
 * Return: 0, or -1 once an error is answered.
 */
int umount_fs(struct daemon *d, const struct ctl_peer *peer,
	      const struct revoke_req *req, struct rbuf *resp)
{
	struct umount_result r = {};
	uint64_t at = pipeline_now_us();
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
	if (!err && !t.mnt_root) {
		snprintf(why, sizeof(why), "'%s' is not a mount point (it is "
			 "on filesystem %u:%u); umount takes the directory a "
			 "filesystem is mounted on", req->path,
			 revoke_kdev_major(t.s_dev), revoke_kdev_minor(t.s_dev));
		err = -EINVAL;
	}
	if (err) {
		answer_err(resp, -err, "%s", why);
		return -1;
	}
	opts = verbs_pipeline_opts(d, req);
	busy_step(d, "sync");
	synced = umount_sync(d, peer->sent_fd, opts.timeout_ms);
	umount_took(&r, UMOUNT_SYNC, &at);
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
	rbuf_printf(resp, "\n");
	umount_answer(resp, &r);
	umount_result_free(&r);
	return 0;
}
