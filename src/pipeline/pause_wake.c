// SPDX-License-Identifier: GPL-2.0
/*
 * pause_wake.c - after a device is paused for a user, wake that user's
 * threads blocked on it, once, and name the mappings the pause does not
 * cover.
 *
 * Which descriptors are the user's is decided as the hooks decide it
 * (bpf/pause_set.bpf.h): every descriptor of a process whose real or
 * effective uid is the user's, or that runs under the user's slice; and
 * in any other process, the descriptors whose file the user opened
 * (f_cred, from the holder iterator).  A thread blocked in a system call
 * on one of them is interrupted (tracee_interrupt(), never a whole
 * process stopped) and its call restarts into the hook, which fails it
 * with the pause's errno; a poll, select or epoll wait is completed with
 * the descriptor ready (waiters.c), so that the next read meets it.
 * Nothing else of the holder is touched: no descriptor is closed and no
 * mapping replaced, so that a resume gives back what was there.  A
 * mapping of the device keeps working without a system call (an ALSA
 * ring, a v4l2 buffer): it is reported as kept, never as paused.
 *
 * At a resume, what the device queued in the user's open files during
 * the pause (the next session's keys in an evdev client's buffer, hidraw
 * reports, captured sound) is the next session's, not the user's: it is
 * read and dropped through a copy of each descriptor (pidfd_getfd(), non-
 * blocking), before the pause is lifted.  The hooks let revoke-bpfd
 * read it (bpf/pause_set.bpf.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pipeline_run.h"
#include "inject/inject.h"
#include "waiters.h"

#define PAUSE_STOP_TIMEOUT_MS 1000
/* a drain reads this much of one file at most (a device that is always
 * readable, /dev/zero, is not a queue: it stops there) */
#define PAUSE_DRAIN_MAX (256 * 1024)

/* Interrupt the threads of @p blocked on @fds, and wake each once. */
static void wake_proc(const struct holder_proc *p, const int *fds, size_t nfds,
		      const struct holder_threads *ts,
		      struct pipeline_result *res)
{
	const struct revoke_thread *th;
	struct tracee t;
	pid_t *kick;
	size_t n, i, nkick = 0;
	char why[48];
	int pidfd;

	th = holder_threads_of(ts, p, &n);
	kick = calloc(n ? n : 1, sizeof(*kick));
	if (!kick) {
		pipeline_fail(res, p->tgid, 0, "wake", "ENOMEM");
		return;
	}
	for (i = 0; i < n; i++)
		if (waiter_peek(&th[i], fds, nfds, true) != WAITER_NO)
			kick[nkick++] = (pid_t)th[i].tid;
	if (!nkick)
		goto out;
	pidfd = holder_pidfd(p);
	if (pidfd < 0)
		goto out;	/* it exited */
	if (tracee_interrupt(&t, p->tgid, pidfd, kick, nkick, why,
			     sizeof(why))) {
		pipeline_fail(res, p->tgid, 0, "stop", "%s", why);
		goto out;
	}
	if (tracee_wait(&t, PAUSE_STOP_TIMEOUT_MS, why, sizeof(why)))
		goto out;	/* it exited */
	pipeline_wake_threads(&t, fds, nfds, res, NULL, NULL);
	tracee_detach(&t);
out:
	free(kick);
}

/* Handle @p, a holder of the paused device; 0 or -ENOMEM. */
static int pause_proc(const struct holder_proc *p, uid_t uid,
		      const struct holder_threads *ts,
		      struct pipeline_result *res)
{
	bool whole = pause_proc_is_users(p->tgid, uid);
	size_t i, nfds = 0, kept = 0;
	int *fds;

	fds = calloc(p->nfds ? p->nfds : 1, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	nfds = pause_users_fds(p, uid, whole, fds);
	for (i = 0; i < p->nvmas; i++)
		kept += whole || pause_cred_is(&p->vmas[i].cred, uid);
	if (nfds || kept) {
		res->rep.holders++;
		res->rep.fds += nfds;
		res->rep.mappings += kept;
	}
	if (nfds)
		wake_proc(p, fds, nfds, ts, res);
	if (kept)
		pipeline_fail_kept(res, p->tgid, "pause", "%zu_mappings_kept",
				   kept);
	free(fds);
	return 0;
}

/**
 * pipeline_pause_wake() - wake a user's waiters on a paused device
 * @pl: the pipeline
 * @key: the device, already paused for @uid (the hooks deny first)
 * @uid: the user
 * @res: what was found and done; failures with keeps_access are the
 *	mappings the pause does not cover; free it with
 *	pipeline_result_free()
 *
 * Return: 0, or a negative errno if the holders could not be found.
 */
int pipeline_pause_wake(struct pipeline *pl, const struct revoke_rdev_key *key,
			uid_t uid, struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	struct holder_threads ts = {};
	struct holder_set set;
	size_t i;
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOTSUP;
	err = holders_find_rdev(&pl->holders, key, &set);
	if (err)
		return err;
	res->discover_us = pipeline_now_us() - start;
	if (set.nr)
		err = holders_threads(&pl->holders, &ts);
	for (i = 0; i < set.nr && !err; i++)
		err = pause_proc(&set.procs[i], uid, &ts, res);
	holder_threads_free(&ts);
	holder_set_free(&set);
	/* named, never killed: a pause ends no process */
	for (i = 0; i < res->nfail && !err; i++)
		procfs_describe("/proc", res->fail[i].pid, &res->fail[i].uid,
				res->fail[i].comm);
	res->total_us = pipeline_now_us() - start;
	return err;
}

/* Read and drop what @fd has queued, without blocking; the bytes read. */
static uint64_t drain_fd(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	uint64_t got = 0;
	int flags = fcntl(fd, F_GETFL);
	ssize_t n;

	/* the flag is the open file's, which the user shares: put it back */
	if (flags < 0 || (!(flags & O_NONBLOCK) &&
			  fcntl(fd, F_SETFL, flags | O_NONBLOCK)))
		return 0;
	while (got < PAUSE_DRAIN_MAX && poll(&p, 1, 0) == 1 &&
	       (p.revents & POLLIN)) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags);
	return got;
}

/* Drain each of @p's descriptors that are @uid's; add the bytes to @bytes. */
static void drain_proc(const struct holder_proc *p, uid_t uid,
		       uint64_t *bytes)
{
	int *fds = calloc(p->nfds ? p->nfds : 1, sizeof(*fds));
	int pidfd = -1, fd;
	size_t i, n;

	if (!fds)
		return;
	n = pause_users_fds(p, uid, pause_proc_is_users(p->tgid, uid), fds);
	if (n)
		pidfd = holder_pidfd(p);
	for (i = 0; i < n && pidfd >= 0; i++) {
		fd = (int)syscall(SYS_pidfd_getfd, pidfd, fds[i], 0);
		if (fd < 0)
			continue;
		*bytes += drain_fd(fd);
		close(fd);
	}
	if (pidfd >= 0)
		close(pidfd);
	free(fds);
}

/**
 * pipeline_pause_drain() - before a resume: drop what a paused device
 *	queued in the user's open files during the pause
 * @pl: the pipeline
 * @key: the device, still paused for @uid
 * @uid: the user
 * @bytes: the bytes read and dropped
 *
 * A descriptor shared by two processes (fork, SCM_RIGHTS) is one open
 * file: drained once, through whichever comes first.
 *
 * Return: 0, or a negative errno if the holders could not be found.
 */
int pipeline_pause_drain(struct pipeline *pl, const struct revoke_rdev_key *key,
			 uid_t uid, uint64_t *bytes)
{
	struct holder_set set;
	size_t i;
	int err;

	*bytes = 0;
	if (!pl->ready || key->type != REVOKE_RDEV_CHAR)
		return 0;	/* a block device queues nothing of the user's */
	err = holders_find_rdev(&pl->holders, key, &set);
	if (err)
		return err;
	for (i = 0; i < set.nr; i++)
		drain_proc(&set.procs[i], uid, bytes);
	holder_set_free(&set);
	return 0;
}
