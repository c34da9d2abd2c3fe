// SPDX-License-Identifier: GPL-2.0
/*
 * tracee_stop.c - wait for the threads tracee_attach() seized and
 * interrupted to stop, and tell those that will not (asleep in vfork()).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "tracee_int.h"

/* Wait for the stop PTRACE_INTERRUPT asked for. */
static int wait_stop(struct tracee_thread *th, uint64_t deadline)
{
	int status, err;

	for (;;) {
		err = tracee_wait_thread(th, &status, deadline);
		if (err)
			return err;
		if (!WIFSTOPPED(status))
			continue;
		if ((status >> 16) == PTRACE_EVENT_STOP)
			break;
		/* a signal on its way in: let it be delivered */
		ptrace(PTRACE_CONT, th->tid, NULL,
		       (void *)(long)(tracee_signal_stop(status) ?
				      WSTOPSIG(status) : 0));
	}
	err = arch_getregs(th->tid, &th->saved);
	if (err)
		return err;
	th->regs = th->saved;
	th->stopped = true;
	return 0;
}

static void wait_stops(struct tracee *t, uint64_t deadline)
{
	size_t i;
	int err;

	for (i = 0; i < t->nr; i++) {
		struct tracee_thread *th = &t->th[i];

		if (!th->tid || th->stopped || th->in_vfork)
			continue;
		err = wait_stop(th, deadline);
		if (err && err != -ETIMEDOUT)
			tracee_lose_thread(th);
	}
}

/* How long a thread may take to stop before it is looked at for vfork() */
#define VFORK_LOOK_NS 100000000ull

/**
 * tracee_wait_stops() - wait for the stops PTRACE_INTERRUPT asked for
 * @t: the threads seized
 * @deadline: when to give up (tracee_now_ns())
 *
 * A thread still running after VFORK_LOOK_NS that sleeps in vfork() is
 * not waited for (@in_vfork): it stops only once its child execs or
 * exits, if ever.  A thread that exits or is lost is forgotten.
 */
void tracee_wait_stops(struct tracee *t, uint64_t deadline)
{
	uint64_t look = tracee_now_ns() + VFORK_LOOK_NS;
	size_t i;

	wait_stops(t, look < deadline ? look : deadline);
	for (i = 0; i < t->nr; i++)
		if (t->th[i].tid && !t->th[i].stopped &&
		    procfs_in_vfork(t->tgid, t->th[i].tid))
			t->th[i].in_vfork = true;
	wait_stops(t, deadline);
}
