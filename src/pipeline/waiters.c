// SPDX-License-Identifier: GPL-2.0
/*
 * waiters.c - wake every thread blocked in a system call on a revoked
 * file, as the seed's awaken_all_waiters() did inside the kernel.
 *
 * A thread stopped by PTRACE_INTERRUPT inside a blocking call leaves it
 * with -ERESTART*, and the kernel executes the call again when the thread
 * resumes.  For read, write, ioctl and the like the new call meets the
 * LSM hooks and fails with EIO.  poll, select and epoll have no LSM hook:
 * restarted they would block again on a file that never becomes ready.
 * For those the call is completed here instead, the way the seed's
 * revoked poll (POLLIN|POLLOUT|POLLERR|POLLRDNORM|POLLWRNORM) would have
 * completed it: the revoked descriptors are reported ready with an error,
 * so that the program's next read or write on them meets the EIO.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "waiters.h"

#define REVOKED_POLL_MASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)
#define MAX_POLLFDS 65536
#define MAX_SELECT_FDS 65536

static bool has_fd(const int *fds, size_t nfds, long fd)
{
	size_t i;

	for (i = 0; i < nfds; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/* Does a descriptor-argument call name one of @fds? */
static bool fdarg_match(const struct arch_waiter *w,
			const unsigned long args[6], const int *fds, size_t nfds)
{
	int k;

	for (k = 0; k < 2; k++)
		if (w->fdarg[k] >= 0 && has_fd(fds, nfds, (long)args[w->fdarg[k]]))
			return true;
	return false;
}

/**
 * waiter_peek() - is a thread blocked in a system call on one of @fds?
 * @th: the thread, as the thread iterator saw it (holders_threads())
 * @fds: its process's descriptors of the revoked file
 * @nfds: their number
 * @precise: read poll sets from the process's memory rather than answer
 *	WAITER_MAYBE for poll-like calls
 *
 * A running thread reads as WAITER_MAYBE: its registers are not settled.
 */
enum waiter_state waiter_peek(const struct revoke_thread *th, const int *fds,
			      size_t nfds, bool precise)
{
	struct tracee t = { .tgid = (pid_t)th->tgid };
	const unsigned long *args = (const unsigned long *)th->args;
	struct arch_waiter w;

	if (th->state == 0)
		return WAITER_MAYBE;
	if (th->nr < 0)
		return WAITER_NO;	/* not in a system call */
	w = arch_waiter_of(th->nr);
	switch (w.kind) {
	case ARCH_WAIT_NONE:
		return WAITER_NO;
	case ARCH_WAIT_FDARG:
		return fdarg_match(&w, args, fds, nfds) ? WAITER_YES : WAITER_NO;
	case ARCH_WAIT_POLL:
		if (precise && args[1] && args[1] <= MAX_POLLFDS) {
			size_t cnt = args[1], i;
			struct pollfd *p = calloc(cnt, sizeof(*p));
			enum waiter_state st = WAITER_MAYBE;

			if (p && !tracee_read(&t, args[0], p, cnt * sizeof(*p))) {
				st = WAITER_NO;
				for (i = 0; i < cnt; i++)
					if (has_fd(fds, nfds, p[i].fd))
						st = WAITER_YES;
			}
			free(p);
			return st;
		}
		return WAITER_MAYBE;
	default:
		return WAITER_MAYBE;
	}
}

/* poll/ppoll: the revoked entries become ready with POLLERR. */
static long complete_poll(struct tracee *t, const arch_regs_t *regs,
			  const int *fds, size_t nfds)
{
	unsigned long addr = arch_syscall_arg(regs, 0);
	size_t cnt = arch_syscall_arg(regs, 1), i;
	struct pollfd *p;
	long ready = 0;

	if (!cnt || cnt > MAX_POLLFDS)
		return 0;
	p = calloc(cnt, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (tracee_read(t, addr, p, cnt * sizeof(*p))) {
		ready = -EFAULT;
		goto out;
	}
	for (i = 0; i < cnt; i++) {
		p[i].revents = 0;
		if (p[i].fd >= 0 && has_fd(fds, nfds, p[i].fd)) {
			p[i].revents = (short)((p[i].events & REVOKED_POLL_MASK) |
					       POLLERR);
			ready++;
		}
	}
	if (ready && tracee_write(t, addr, p, cnt * sizeof(*p)))
		ready = -EFAULT;
out:
	free(p);
	return ready;
}

/* select/pselect6: keep only the revoked fds' bits, in read and write. */
static long complete_select(struct tracee *t, const arch_regs_t *regs,
			    const int *fds, size_t nfds)
{
	unsigned long maxfd = arch_syscall_arg(regs, 0);
	size_t words = (maxfd + 63) / 64, bytes = words * 8, i;
	uint64_t *sets[3] = {}, *keep;
	long ready = 0;
	int k;

	if (!maxfd || maxfd > MAX_SELECT_FDS)
		return 0;
	keep = calloc(words, 8);
	for (k = 0; k < 3; k++)
		sets[k] = calloc(words, 8);
	if (!keep || !sets[0] || !sets[1] || !sets[2]) {
		ready = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nfds; i++)
		if (fds[i] >= 0 && (unsigned long)fds[i] < maxfd)
			keep[fds[i] / 64] |= 1ull << (fds[i] % 64);
	for (k = 0; k < 3; k++) {
		unsigned long addr = arch_syscall_arg(regs, k + 1);

		if (addr && tracee_read(t, addr, sets[k], bytes)) {
			ready = -EFAULT;
			goto out;
		}
		for (i = 0; i < words; i++) {
			/* exceptfds: an error is reported as readable/writable */
			sets[k][i] = k == 2 ? 0 : sets[k][i] & keep[i];
			ready += __builtin_popcountll(sets[k][i]);
		}
	}
	for (k = 0; k < 3 && ready > 0; k++) {
		unsigned long addr = arch_syscall_arg(regs, k + 1);

		if (addr && tracee_write(t, addr, sets[k], bytes))
			ready = -EFAULT;
	}
out:
	for (k = 0; k < 3; k++)
		free(sets[k]);
	free(keep);
	return ready;
}

/*
 * epoll_wait & co: report each revoked fd registered in the epoll set,
 * with the data it was registered with (from /proc/PID/fdinfo/EPFD).
 */
static long complete_epoll(struct tracee *t, const arch_regs_t *regs,
			   const int *fds, size_t nfds)
{
	int epfd = (int)arch_syscall_arg(regs, 0);
	unsigned long addr = arch_syscall_arg(regs, 1);
	long max = (long)(int)arch_syscall_arg(regs, 2), ready = 0;
	struct epoll_event ev[64];
	char path[64], line[256];
	unsigned int mask;
	uint64_t data;
	FILE *f;
	int tfd;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)t->tgid, epfd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && ready < max && ready < 64) {
		if (sscanf(line, "tfd: %d events: %x data: %" SCNx64, &tfd, &mask,
			   &data) != 3 || !has_fd(fds, nfds, tfd))
			continue;
		ev[ready].events = (mask & REVOKED_POLL_MASK) | EPOLLERR;
		ev[ready].data.u64 = data;
		ready++;
	}
	fclose(f);
	if (ready && tracee_write(t, addr, ev, (size_t)ready * sizeof(ev[0])))
		return -EFAULT;
	return ready;
}

/**
 * waiter_wake() - make a stopped thread leave a call on the revoked file
 * @t: its process, stopped
 * @th: the thread
 * @fds: the process's descriptors of the revoked file
 * @nfds: their number
 *
 * Changes nothing but, for a completed poll-like call, its result
 * register and the poll set it passed.
 */
enum waiter_wake waiter_wake(struct tracee *t, struct tracee_thread *th,
			     const int *fds, size_t nfds)
{
	const arch_regs_t *regs = &th->saved;
	unsigned long args[6];
	struct arch_waiter w;
	long ready = 0;
	int i;

	/* interrupted for a restart, or (epoll_wait) to return EINTR */
	if (!th->stopped || arch_syscall_nr(regs) < 0 ||
	    !(arch_interrupted(regs) || arch_syscall_ret(regs) == -EINTR))
		return WAKE_NONE;
	w = arch_waiter_of(arch_syscall_nr(regs));
	for (i = 0; i < 6; i++)
		args[i] = arch_syscall_arg(regs, i);
	switch (w.kind) {
	case ARCH_WAIT_NONE:
		return WAKE_NONE;
	case ARCH_WAIT_FDARG:
		return fdarg_match(&w, args, fds, nfds) ? WAKE_RESTART : WAKE_NONE;
	case ARCH_WAIT_POLL:
		ready = complete_poll(t, regs, fds, nfds);
		break;
	case ARCH_WAIT_SELECT:
		ready = complete_select(t, regs, fds, nfds);
		break;
	case ARCH_WAIT_EPOLL:
		ready = complete_epoll(t, regs, fds, nfds);
		break;
	}
	if (ready == 0)
		return WAKE_NONE;
	if (ready < 0)
		return WAKE_FAILED;
	th->regs = th->saved;
	arch_complete_syscall(&th->regs, ready);
	th->dirty = true;
	return WAKE_COMPLETED;
}
