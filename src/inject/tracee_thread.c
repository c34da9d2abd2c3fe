// SPDX-License-Identifier: GPL-2.0
/*
 * tracee_thread.c - one thread under our ptrace: the options it is seized
 * with, waiting until it changes state and telling what stopped it, and
 * the reaper, which lets go the threads that stop too late for
 * tracee_detach() (see tracee.c).  The lowest of the tracee files
 * (tracee_int.h): it calls none of them.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "common/common.h"
#include "tracee_int.h"

/* Threads seized but not let go yet: see tracee_reap(). */
struct pending {
	pid_t tid;
	bool has_regs;
	bool stepping;	/* it may stop at the trap of an injected call */
	arch_regs_t regs;
};

static struct pending *pending;
static size_t npending;

/**
 * tracee_reap_later() - leave a thread to the reaper
 * @tid: the thread, seized
 * @regs: the registers it must leave with, or NULL for those it has
 * @stepping: it may stop at the trap of an injected call
 *
 * tracee_reap() lets it go at its next stop.
 */
void tracee_reap_later(pid_t tid, const arch_regs_t *regs, bool stepping)
{
	struct pending *p = realloc(pending, (npending + 1) * sizeof(*p));

	if (!p) {
		log_err("out of memory: thread %d is left "
			"to be detached when revoke-bpfd exits\n", (int)tid);
		return;
	}
	pending = p;
	memset(&p[npending], 0, sizeof(p[npending]));
	p[npending].tid = tid;
	p[npending].stepping = stepping;
	if (regs) {
		p[npending].has_regs = true;
		p[npending].regs = *regs;
	}
	npending++;
}

/**
 * tracee_lose_thread() - forget a thread no longer in a ptrace stop
 * @th: the thread
 *
 * Killed while stopped, it is dying, and as a zombie only its tracer can
 * reap it; its parent's wait() waits until then.  The reaper
 * (tracee_reap()) does.
 */
void tracee_lose_thread(struct tracee_thread *th)
{
	if (th->tid)
		tracee_reap_later(th->tid, NULL, false);
	th->tid = 0;
	th->stopped = false;
}

/**
 * tracee_detach_or_reap() - let a stopped thread go
 * @tid: the thread
 *
 * If it is no longer stopped (killed), it is left to the reaper.
 *
 * Return: true if it was let go.
 */
bool tracee_detach_or_reap(pid_t tid)
{
	if (!ptrace(PTRACE_DETACH, tid, NULL, NULL))
		return true;
	tracee_reap_later(tid, NULL, false);
	return false;
}

/**
 * tracee_now_ns() - the monotonic clock, for deadlines
 *
 * Return: nanoseconds.
 */
uint64_t tracee_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A ptrace stop notifies the tracer with SIGCHLD, unless SIGCHLD is
 * ignored (SIG_IGN, which a parent may leave us across exec): so it is
 * set to its default and kept blocked from the first wait on, to stay
 * pending for sigtimedwait() instead of being discarded.  revoke-bpfd
 * starts no other children.
 */
static int block_sigchld(sigset_t *chld)
{
	static bool blocked;

	sigemptyset(chld);
	sigaddset(chld, SIGCHLD);
	if (blocked)
		return 0;
	if (signal(SIGCHLD, SIG_DFL) == SIG_ERR ||
	    sigprocmask(SIG_BLOCK, chld, NULL))
		return -errno;
	blocked = true;
	return 0;
}

/*
 * Wait until @tid changes state or @deadline (tracee_now_ns()) passes, asleep
 * until a SIGCHLD says that some child or tracee did.
 */
static int wait_tid(pid_t tid, int *status, uint64_t deadline)
{
	struct timespec left;
	sigset_t chld;
	uint64_t now;
	pid_t r;
	int err;

	err = block_sigchld(&chld);
	if (err)
		return err;
	for (;;) {
		r = waitpid(tid, status, __WALL | WNOHANG);
		if (r == tid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		now = tracee_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		left.tv_sec = (time_t)((deadline - now) / 1000000000ull);
		left.tv_nsec = (long)((deadline - now) % 1000000000ull);
		/* a SIGCHLD that came since waitpid() is pending: no sleep */
		sigtimedwait(&chld, NULL, &left);
	}
}

static bool thread_gone(int status)
{
	return WIFEXITED(status) || WIFSIGNALED(status);
}

/**
 * tracee_wait_thread() - wait until a thread changes state
 * @th: the thread
 * @status: its wait status
 * @deadline: when to give up (tracee_now_ns())
 *
 * Return: 0, -ESRCH if it exited (it is reaped: @th->tid becomes 0),
 * -ETIMEDOUT, or another negative errno.
 */
int tracee_wait_thread(struct tracee_thread *th, int *status,
		       uint64_t deadline)
{
	int err;

	err = wait_tid(th->tid, status, deadline);
	if (err)
		return err;
	if (thread_gone(*status)) {
		th->tid = 0;	/* reaped */
		return -ESRCH;
	}
	return 0;
}

/**
 * tracee_signal_stop() - is this stop a signal on its way in?
 * @status: a wait status
 *
 * Return: true for a signal-delivery stop (no event, no syscall stop).
 */
bool tracee_signal_stop(int status)
{
	return WIFSTOPPED(status) && (status >> 16) == 0 &&
	       WSTOPSIG(status) != TRACEE_SYSCALL_STOP;
}

/**
 * tracee_seize_opts() - the ptrace options revoke-bpfd seizes threads with
 *
 * PTRACE_O_SUSPEND_SECCOMP lets the calls injected into a holder confined
 * by seccomp pass its filter.  The kernel refuses it (EPERM) to a tracer
 * that is under a seccomp filter itself, as a unit's SystemCallFilter=
 * and the like would put revoke-bpfd: then it is left out, and such a
 * holder is not injected into (seize_thread(), tracee.c).  Decided once.
 *
 * Return: TRACEE_SEIZE_OPTS, or it without PTRACE_O_SUSPEND_SECCOMP.
 */
int tracee_seize_opts(void)
{
	static int opts = -1;

	if (opts < 0)
		opts = procfs_under_seccomp(0) ?
		       TRACEE_SEIZE_OPTS & ~PTRACE_O_SUSPEND_SECCOMP :
		       TRACEE_SEIZE_OPTS;
	return opts;
}

/**
 * tracee_step_trap() - is this stop the trap of a single step?
 * @tid: the thread
 * @status: its wait status
 *
 * Return: 1 for the trap of a step, 0 for anything else (a SIGTRAP
 * someone sent among it), or a negative errno.
 */
int tracee_step_trap(pid_t tid, int status)
{
	siginfo_t si;

	if (!tracee_signal_stop(status) || WSTOPSIG(status) != SIGTRAP)
		return 0;
	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si))
		return -errno;
	return si.si_code > 0;	/* from the kernel, not from kill() & co */
}

/**
 * tracee_reap() - let go threads that stopped late
 *
 * Call it from the main loop while it returns non-zero.
 *
 * Return: how many threads are still waited for.
 */
int tracee_reap(void)
{
	size_t i = 0;
	int status;

	while (i < npending) {
		struct pending *p = &pending[i];
		pid_t r = waitpid(p->tid, &status, __WALL | WNOHANG);

		if (r == 0) {
			i++;
			continue;
		}
		if (r == p->tid && WIFSTOPPED(status)) {
			bool deliver = tracee_signal_stop(status) &&
				       !(p->stepping && tracee_step_trap(p->tid, status));

			if (p->has_regs)
				arch_setregs(p->tid, &p->regs);
			ptrace(PTRACE_DETACH, p->tid, NULL,
			       (void *)(long)(deliver ? WSTOPSIG(status) : 0));
		}
		pending[i] = pending[--npending];
	}
	return (int)npending;
}
