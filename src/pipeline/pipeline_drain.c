// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_drain.c - after the holders are handled, wait until none of
 * their threads is blocked in a call on the revoked file, or the timeout
 * passes; a thread still blocked then is a failure.
 */
#include <time.h>

#include "pipeline_run.h"
#include "waiters.h"

#define DRAIN_POLL_MS 1
#define DRAIN_WOKEN_MS 10
#define DRAIN_SLOW_POLL_MS 10

static bool failed_before(const struct pipeline_result *res, pid_t pid)
{
	size_t i;

	for (i = 0; i < res->nfail; i++)
		if (res->fail[i].pid == pid)
			return true;
	return false;
}

/* Threads of @p still blocked in a call on the file; record them if @last. */
static int count_blocked(const struct holder_proc *p,
			 const struct holder_threads *ts, bool last,
			 struct pipeline_result *res)
{
	const struct revoke_thread *th;
	size_t nth, i;
	int n = 0;

	th = holder_threads_of(ts, p, &nth);
	for (i = 0; i < nth; i++) {
		if (waiter_peek(&th[i], p->fds, p->nfds, true) != WAITER_YES)
			continue;
		n++;
		if (last)
			pipeline_fail(res, p->tgid, (pid_t)th[i].tid, "drain",
			     "still_blocked_on_file");
	}
	return n;
}

/* Woken threads that have not run since: still on their way out. */
static size_t count_running(const struct run *run,
			    const struct holder_threads *ts)
{
	size_t i, j, n = 0;

	for (i = 0; i < run->nwoken; i++)
		for (j = 0; j < ts->nr; j++)
			if (ts->th[j].tid == (uint32_t)run->woken[i]) {
				n += ts->th[j].state == 0;
				break;
			}
	return n;
}

/**
 * pipeline_drain() - wait until the holders' calls on the file are over
 * @run: the run
 * @work: the plans of its holders
 * @nwork: their number
 * @deadline: when to stop waiting (pipeline_now_us())
 *
 * Wait until no thread of a holder we handled is blocked in a call on the
 * file.  Holders that already failed are not waited for: their failure
 * says why.  Only threads that existed when the holders were found can
 * be inside an operation that began before the revocation; the
 * descriptors they named then are the ones to look for, even if a
 * release has replaced them since.  A woken thread reads as running
 * until it restarts its call or returns from it: it is given up to
 * DRAIN_WOKEN_MS to be seen doing either.
 */
void pipeline_drain(struct run *run, const struct holder_work *work,
		    size_t nwork, uint64_t deadline)
{
	struct timespec pause = { 0, DRAIN_POLL_MS * 1000000L };
	uint64_t grace = pipeline_now_us() + DRAIN_WOKEN_MS * 1000;
	struct holder_threads ts;
	size_t i, running;
	bool last;
	int n;

	for (;;) {
		if (holders_threads(&run->pl->holders, &ts))
			return;
		last = pipeline_now_us() >= deadline;
		for (n = 0, i = 0; i < nwork; i++)
			if (!work[i].gone &&
			    !failed_before(run->res, work[i].p->tgid))
				n += count_blocked(work[i].p, &ts, last,
						   run->res);
		running = pipeline_now_us() < grace ? count_running(run, &ts) : 0;
		holder_threads_free(&ts);
		if ((!n && !running) || last)
			return;
		/* past the grace, a thread still blocked is waited for slowly */
		if (pipeline_now_us() >= grace)
			pause.tv_nsec = DRAIN_SLOW_POLL_MS * 1000000L;
		pipeline_yield(run->pl);
		nanosleep(&pause, NULL);
	}
}
