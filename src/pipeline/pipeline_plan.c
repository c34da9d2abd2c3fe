// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_plan.c - what each holder of a revoked inode needs, from the
 * system call each of its threads is in (the thread iterator's
 * snapshot): all its threads stopped, only its waiters interrupted, or
 * nothing; and a pidfd on each holder that needs anything.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "pipeline_run.h"
#include "waiters.h"

/*
 * Is @th inside an mmap() of one of @p's descriptors of the file?  It
 * passed the hook before the revocation, and its mapping may appear after
 * the mappings were looked for: only a stop, then a rescan, sees it.
 */
static bool mapping_file(const struct revoke_thread *th,
			 const struct holder_proc *p)
{
	size_t i;

	if (th->nr != arch_nr_mmap)
		return false;
	for (i = 0; i < p->nfds; i++)
		if ((int)th->args[4] == p->fds[i])
			return true;
	return false;
}

static int plan_holder(struct holder_work *w, const struct holder_threads *ts,
		       bool release)
{
	const struct holder_proc *p = w->p;
	const struct revoke_thread *th;
	size_t n, i;

	th = holder_threads_of(ts, p, &n);
	w->gone = !n;
	w->stop = p->nvmas || release || p->nrings;
	for (i = 0; i < n && !w->stop; i++) {
		if (mapping_file(&th[i], p)) {
			w->stop = true;
			break;
		}
		switch (waiter_peek(&th[i], p->fds, p->nfds, true)) {
		case WAITER_NO:
			break;
		case WAITER_MAYBE:
			w->stop = true;
			break;
		case WAITER_YES:
			if (!w->kick) {
				w->kick = calloc(n, sizeof(*w->kick));
				if (!w->kick)
					return -ENOMEM;
			}
			w->kick[w->nkick++] = (pid_t)th[i].tid;
			break;
		}
	}
	return 0;
}

/**
 * pipeline_plan_interrupt() - interrupt the waiters of every holder that
 *	needs nothing else
 * @work: the plans
 * @nwork: their number
 *
 * All before waiting for any: each stops while the others are
 * interrupted.
 */
void pipeline_plan_interrupt(struct holder_work *work, size_t nwork)
{
	struct holder_work *w;

	for (w = work; w < work + nwork; w++) {
		if (w->gone || w->stop || !w->nkick)
			continue;
		w->err = tracee_interrupt(&w->t, w->p->tgid, w->pidfd, w->kick,
					  w->nkick, w->why, sizeof(w->why));
		w->pidfd = -1;	/* the tracee's now */
	}
}

/**
 * pipeline_plan_free() - free the plans, and the pidfds not handed on
 * @work: from pipeline_plan()
 * @nwork: their number
 */
void pipeline_plan_free(struct holder_work *work, size_t nwork)
{
	size_t i;

	for (i = 0; i < nwork; i++) {
		free(work[i].kick);
		if (work[i].pidfd >= 0)
			close(work[i].pidfd);
	}
	free(work);
}

/**
 * pipeline_plan_acts_on() - does the pipeline do anything to this holder?
 * @w: its plan
 *
 * Return: true if it is to be stopped or its waiters interrupted.
 */
bool pipeline_plan_acts_on(const struct holder_work *w)
{
	return !w->gone && (w->stop || w->nkick);
}

/*
 * A pidfd on every holder that needs anything; one whose pid names
 * another process now has exited, and needs nothing.
 */
static int take_pidfds(struct run *run, struct holder_work *work, size_t nwork)
{
	const struct holder_proc **procs = calloc(nwork ? nwork : 1,
						  sizeof(*procs));
	int *pidfds = calloc(nwork ? nwork : 1, sizeof(*pidfds));
	size_t i, n = 0;
	int err = -ENOMEM;

	if (!procs || !pidfds)
		goto out;
	for (i = 0; i < nwork; i++)
		if (pipeline_plan_acts_on(&work[i]))
			procs[n++] = work[i].p;
	err = n ? holders_pidfds(&run->pl->holders, procs, pidfds, n) : 0;
	for (i = 0, n = 0; !err && i < nwork; i++) {
		if (!pipeline_plan_acts_on(&work[i]))
			continue;
		work[i].pidfd = pidfds[n++];
		work[i].gone = work[i].pidfd < 0;
	}
out:
	free(procs);
	free(pidfds);
	return err;
}

/**
 * pipeline_plan() - the holders of @set but ourselves, each with what it
 *	needs, and a pidfd on each that needs anything
 * @run: the run
 * @set: the holders found
 * @nwork: their number
 *
 * Return: the plans, to free with pipeline_plan_free(); NULL if memory or
 * the thread snapshot is short (the failure is in @run->res).
 */
struct holder_work *pipeline_plan(struct run *run,
				  const struct holder_set *set, size_t *nwork)
{
	struct holder_threads ts;
	struct holder_work *work;
	size_t i;
	int err;

	*nwork = 0;
	err = holders_threads(&run->pl->holders, &ts);
	if (err) {
		pipeline_fail(run->res, 0, 0, "stop", "threads_%s",
			      pipeline_errname(err));
		return NULL;
	}
	work = calloc(set->nr ? set->nr : 1, sizeof(*work));
	for (i = 0; work && i < set->nr; i++) {
		struct holder_work *w = &work[*nwork];

		if (set->procs[i].tgid == getpid())
			continue;
		w->p = &set->procs[i];
		w->pidfd = -1;
		++*nwork;
		if (plan_holder(w, &ts, run->release)) {
			pipeline_plan_free(work, *nwork);
			work = NULL;
		}
	}
	holder_threads_free(&ts);
	if (!work) {
		pipeline_fail(run->res, 0, 0, "stop", "ENOMEM");
		return NULL;
	}
	err = take_pidfds(run, work, *nwork);
	if (err) {
		pipeline_fail(run->res, 0, 0, "stop", "pidfds_%s",
			      pipeline_errname(err));
		pipeline_plan_free(work, *nwork);
		return NULL;
	}
	return work;
}
