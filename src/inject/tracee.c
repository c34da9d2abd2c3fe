// SPDX-License-Identifier: GPL-2.0
/*
 * tracee.c - stop a whole process with ptrace and let it go exactly as
 * it was (see inject.h); tracee_syscall.c runs system calls in it
 * meanwhile.  The top of the tracee files (tracee_int.h): it calls the
 * others, and none of them calls it.
 *
 * The rules that keep the holder safe:
 *  - PTRACE_SEIZE + PTRACE_INTERRUPT, never SIGSTOP: nothing the process
 *    can see, and a group stop already in effect is left in effect.
 *  - Every thread is stopped before anything is changed, and threads
 *    created meanwhile are found by listing /proc/PID/task again.
 *  - A signal that arrives while we stop a thread is delivered; one that
 *    arrives while it runs an injected call is held and sent again after.
 *  - An injected call is single-stepped, one stop, unless the thread
 *    blocks SIGTRAP or the process ignores it, which the trap of a step
 *    would undo: then it runs from its syscall-entry to its exit stop.
 *  - The injecting thread has PTRACE_O_EXITKILL while its registers are
 *    not its own: if revoke-bpfd dies then, the holder is killed rather
 *    than resumed with foreign registers.
 *  - A thread that does not stop in time (uninterruptible sleep) is handed
 *    to tracee_reap(), which lets it go as soon as it stops, with its
 *    registers put back if they were changed.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracee_int.h"

static int tracer_of(pid_t tgid)
{
	char path[64];
	long tracer = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tgid);
	procfs_status_long(path, "TracerPid", &tracer);
	return (int)tracer;
}

static int seize(pid_t tid)
{
	if (!ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)tracee_seize_opts()))
		return 0;
	/* no CONFIG_CHECKPOINT_RESTORE */
	if (errno == EINVAL &&
	    !ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD))
		return 0;
	return -errno;
}

/*
 * Has thread @tid of @tgid exited, but not been reaped yet?  A thread
 * group leader that called exit while other threads run stays a zombie
 * until the last one exits, and ptrace refuses it (EPERM).
 */
static bool thread_is_zombie(pid_t tgid, pid_t tid)
{
	char path[64], state[8];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid,
		 (int)tid);
	if (procfs_stat_field(path, 3, state, sizeof(state)))
		return true;	/* reaped meanwhile */
	return state[0] == 'Z' || state[0] == 'X';
}

static bool known_tid(const struct tracee *t, pid_t tid)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->th[i].tid == tid)
			return true;
	return false;
}

static int add_thread(struct tracee *t, pid_t tid)
{
	struct tracee_thread *th;

	th = realloc(t->th, (t->nr + 1) * sizeof(*th));
	if (!th)
		return -ENOMEM;
	t->th = th;
	memset(&th[t->nr], 0, sizeof(th[t->nr]));
	th[t->nr].tid = tid;
	t->nr++;
	return 0;
}

/*
 * Seize thread @tid of @t's process and interrupt it.  Return 0 if it is
 * now in @t, 1 if it has exited (or is a zombie, which runs nothing any
 * more), or a negative errno with @why set.
 */
static int seize_thread(struct tracee *t, pid_t tid, char *why, size_t whylen)
{
	int err;

	/* a call injected past its filter could be its death */
	if (!(tracee_seize_opts() & PTRACE_O_SUSPEND_SECCOMP) &&
	    procfs_under_seccomp(tid)) {
		snprintf(why, whylen, "under_seccomp_and_so_is_revoke_bpfd");
		return -EPERM;
	}
	err = seize(tid);

	if (err == -ESRCH || (err == -EPERM && thread_is_zombie(t->tgid, tid)))
		return 1;
	if (err) {
		int tracer = tracer_of(t->tgid);

		if (tracer)
			snprintf(why, whylen, "traced_by_pid_%d", tracer);
		else
			snprintf(why, whylen, "ptrace_%s",
				 strerrorname_np(-err) ?: "refused");
		return err;
	}
	ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
	err = add_thread(t, tid);
	if (err) {
		tracee_reap_later(tid, NULL, false);	/* detached at its stop */
		snprintf(why, whylen, "ENOMEM");
	}
	return err;
}

/* Seize and interrupt every thread not seized yet; return how many. */
static int seize_new_threads(struct tracee *t, char *why, size_t whylen)
{
	char path[64];
	struct dirent *de;
	int n = 0, err = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->tgid);
	dir = opendir(path);
	if (!dir) {
		snprintf(why, whylen, "exited");
		return -ESRCH;
	}
	while ((de = readdir(dir))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || known_tid(t, tid))
			continue;
		err = seize_thread(t, tid, why, whylen);
		if (err < 0)
			break;
		n += !err;
	}
	closedir(dir);
	return err < 0 ? err : n;
}

/**
 * tracee_attach() - stop every thread of a process
 * @t: the result
 * @tgid: the process
 * @pidfd: a pidfd on it (see holder_pidfd()); @t owns it from now on
 * @timeout_ms: how long to wait for threads to stop
 * @why: on failure, a one-word reason (traced_by_pid_N, exited, ...)
 * @whylen: size of @why
 *
 * Threads are seized by number; if the process of @pidfd has exited
 * meanwhile, its pid may already name another process, so then nothing
 * is kept and the answer is -ESRCH.  Threads that do not stop within
 * @timeout_ms are counted in @t->unstopped; the others are stopped.  On
 * failure nothing is left seized or stopped.
 *
 * Return: 0, -ESRCH if it exited, -EAGAIN if it is alive but no thread
 * stopped in time, or another negative errno.
 */
int tracee_attach(struct tracee *t, pid_t tgid, int pidfd, int timeout_ms,
		  char *why, size_t whylen)
{
	uint64_t deadline = tracee_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int round, n, err;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->tgid = tgid;
	t->injector = -1;
	t->pidfd = pidfd;
	for (round = 0; round < 16; round++) {
		n = seize_new_threads(t, why, whylen);
		if (n < 0) {
			err = n;
			goto fail;
		}
		if (n == 0)
			break;
		tracee_wait_stops(t, deadline);
	}
	/* alive now, so every tid seized is still one of its threads */
	if (syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0)) {
		snprintf(why, whylen, "exited");
		err = -ESRCH;
		goto fail;
	}
	for (i = 0; i < t->nr; i++)
		if (t->th[i].tid && !t->th[i].stopped) {
			t->unstopped++;
			t->vforking += t->th[i].in_vfork;
		}
	err = tracee_syscall_choose(t);
	if (err == -ESRCH) {
		/* alive (just checked), yet asleep where no signal reaches */
		snprintf(why, whylen, t->vforking ? "asleep_in_vfork" :
			 "no_thread_stopped");
		err = -EAGAIN;
		goto fail;
	}
	/* without a syscall instruction, only tracee_syscall() fails */
	return 0;
fail:
	tracee_detach(t);
	return err;
}

/* Is thread @tid, stopped by us (so its number is not reused), of @tgid? */
static bool thread_of(pid_t tgid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
	return !access(path, F_OK);
}

/**
 * tracee_interrupt() - interrupt some threads of a process, without
 *	waiting for them
 * @t: the result
 * @tgid: the process
 * @pidfd: a pidfd on it (see holder_pidfd()); @t owns it from now on
 * @tids: the threads, each seen blocked in a system call
 * @n: their number
 * @why: on failure, a one-word reason (traced_by_pid_N, ...)
 * @whylen: size of @why
 *
 * Each thread is seized and interrupted: a thread blocked in a system
 * call leaves it, to restart it when it is let go.  The process's other
 * threads run on, so nothing can be injected into such a tracee; many
 * processes can be interrupted before tracee_wait() waits for any.
 *
 * Return: 0, or a negative errno with nothing left seized.
 */
int tracee_interrupt(struct tracee *t, pid_t tgid, int pidfd,
		     const pid_t *tids, size_t n, char *why, size_t whylen)
{
	size_t i;
	int err;

	memset(t, 0, sizeof(*t));
	t->tgid = tgid;
	t->injector = -1;
	t->pidfd = pidfd;
	for (i = 0; i < n; i++) {
		err = seize_thread(t, tids[i], why, whylen);
		if (err < 0) {
			tracee_detach(t);
			return err;
		}
	}
	return 0;
}

/**
 * tracee_wait() - wait for the threads tracee_interrupt() interrupted
 * @t: from tracee_interrupt()
 * @timeout_ms: how long to wait for them to stop
 * @why: on failure, a one-word reason
 * @whylen: size of @why
 *
 * A stopped thread that is not (or no longer) one of the process's is let
 * go at once; threads that do not stop in time are counted in
 * @t->unstopped, as tracee_attach() does.
 *
 * Return: 0, or -ESRCH (the process exited) with nothing left seized.
 */
int tracee_wait(struct tracee *t, int timeout_ms, char *why, size_t whylen)
{
	uint64_t deadline = tracee_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	size_t i;

	tracee_wait_stops(t, deadline);
	if (syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0)) {
		snprintf(why, whylen, "exited");
		tracee_detach(t);
		return -ESRCH;
	}
	for (i = 0; i < t->nr; i++) {
		struct tracee_thread *th = &t->th[i];

		if (!th->tid)
			continue;
		if (!th->stopped) {
			t->unstopped++;
			t->vforking += th->in_vfork;
			continue;
		}
		if (!thread_of(t->tgid, th->tid)) {
			tracee_detach_or_reap(th->tid);
			th->tid = 0;
		}
	}
	return 0;
}

/* The registers a thread that ran injected calls must leave with. */
static arch_regs_t leaving_regs(const struct tracee_thread *th)
{
	arch_regs_t regs = th->regs;

	if (th->injecting)
		arch_restart_syscall(&regs);
	return regs;
}

/**
 * tracee_detach() - let every thread go, as it was
 * @t: from tracee_attach(); freed
 */
void tracee_detach(struct tracee *t)
{
	size_t i;
	int k;

	tracee_insn_restore(t);	/* before any thread may run */
	for (i = 0; i < t->nr; i++) {
		struct tracee_thread *th = &t->th[i];
		arch_regs_t regs = leaving_regs(th);

		if (!th->tid)
			continue;
		if (!th->stopped) {
			tracee_reap_later(th->tid, th->injecting || th->dirty ?
				    &regs : NULL, th->injecting && th->step);
			continue;
		}
		if (th->injecting || th->dirty)
			arch_setregs(th->tid, &regs);
		/*
		 * A thread let go before it may end the process (a SIGBUS
		 * on a replaced mapping): the others die while stopped, and
		 * stay zombies until their tracer reaps them.
		 */
		if (!tracee_detach_or_reap(th->tid))
			continue;
		for (k = 0; k < th->nresend; k++)
			syscall(SYS_tgkill, t->tgid, th->tid, th->resend[k]);
	}
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	free(t->th);
	t->th = NULL;
	t->nr = 0;
}
