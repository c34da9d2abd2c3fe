// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_holder.c - one holder of a revoked inode, as librevoke sees
 * it: its file's table is substituted (fops_substitute()) while its
 * threads are stopped, or only its waiters interrupted, which runs the
 * mappings hook, wakes its waiters (waiters.c) and releases its
 * descriptors (pipeline_dead.c); then it is let go.
 */
#include <errno.h>
#include <stdlib.h>

#include "pipeline_run.h"
#include "pipeline_uring.h"
#include "waiters.h"

#define STOP_TIMEOUT_MS 1000

static void note_woken(struct run *run, pid_t tid)
{
	pid_t *w = run->woken;

	if (run->nwoken == run->woken_cap) {
		run->woken_cap = run->woken_cap ? 2 * run->woken_cap : 64;
		w = realloc(run->woken, run->woken_cap * sizeof(*w));
		if (!w)
			return;	/* the drain only waits less for it */
		run->woken = w;
	}
	w[run->nwoken++] = tid;
}

/**
 * pipeline_wake_threads() - wake each stopped thread of @t blocked in a
 *	call on one of @fds, and count it
 * @t: the stopped holder
 * @fds: its descriptors of the file
 * @nfds: their number
 * @res: the report: waiters, woken, and a failure per thread that could
 *	not be woken
 * @woken: called with each thread woken (NULL: none)
 * @arg: passed to @woken
 */
void pipeline_wake_threads(struct tracee *t, const int *fds, size_t nfds,
			   struct pipeline_result *res,
			   void (*woken)(void *arg, pid_t tid), void *arg)
{
	size_t i;

	for (i = 0; i < (size_t)t->nr; i++) {
		struct tracee_thread *th = &t->th[i];

		switch (waiter_wake(t, th, fds, nfds)) {
		case WAKE_NONE:
			break;
		case WAKE_RESTART:
		case WAKE_COMPLETED:
			res->rep.waiters++;
			res->rep.woken++;
			if (woken)
				woken(arg, th->tid);
			break;
		case WAKE_FAILED:
			res->rep.waiters++;
			pipeline_fail(res, t->tgid, th->tid, "wake", "poll_set_unreadable");
			break;
		}
	}
}

static void note_run_woken(void *arg, pid_t tid)
{
	note_woken(arg, tid);
}

static void wake_all(struct run *run, struct tracee *t,
		     const struct holder_proc *h)
{
	pipeline_wake_threads(t, h->fds, h->nfds, run->res, note_run_woken, run);
}

/* remap_file_mappings: map the dead file over every mapping of the file. */
static void holder_remap(struct revoke_file *file)
{
	pipeline_dead_map(revoke_file_private(file));
}

/* awaken_all_waiters: every thread blocked in a call on the file. */
static void holder_awaken(struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);

	wake_all(hf->run, hf->t, hf->h);
}

/* release, once: dup3() the dead file over each descriptor, if asked. */
static int holder_release(struct revoke_inode *inode, struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);

	(void)inode;
	/* the last put of a holder that was not stopped: nothing to undo */
	if (hf)
		pipeline_dead_dup(hf);
	return 0;
}

/* The table of the holders' files: see struct holder_file. */
const struct revoke_file_operations pipeline_holder_fops = {
	.awaken_all_waiters = holder_awaken,
	.release = holder_release,
};

/* Substitute @file's table while @hf's threads are stopped. */
static void substitute(struct revoke_file *file, struct holder_file *hf)
{
	revoke_file_set_private(file, hf);
	fops_substitute(file, &revoked_file_ops_eio, holder_remap);
	pipeline_dead_close(hf);
}

/*
 * A holder that needs only its waiters woken: wait for the stops
 * pipeline_plan_interrupt() asked for, and substitute its file's table, which
 * wakes them; let them go.
 */
static void handle_waiters(struct run *run, struct holder_work *w,
			   struct revoke_file *file)
{
	const struct holder_proc *p = w->p;
	struct pipeline_result *res = run->res;
	struct holder_file hf = { .run = run, .t = &w->t, .h = p, .mfd = -1,
				  .dead_err = 1 };

	res->rep.fds += p->nfds;
	if (w->err) {
		pipeline_fail(res, p->tgid, 0, "stop", "%s", w->why);
		return;
	}
	if (tracee_wait(&w->t, STOP_TIMEOUT_MS, w->why, sizeof(w->why)))
		return;	/* it exited, and let go of everything */
	if (w->t.unstopped > w->t.vforking)
		pipeline_fail(res, p->tgid, 0, "stop", "%d_threads_uninterruptible",
		     w->t.unstopped - w->t.vforking);
	substitute(file, &hf);
	tracee_detach(&w->t);
}

/*
 * Stop every thread of the holder of @file, substitute its table while
 * it is stopped, and let it go.
 */
static void handle_stop(struct run *run, struct holder_work *w,
			struct revoke_file *file)
{
	const struct holder_proc *p = w->p;
	static const struct holder_proc none;
	struct holder_proc view = { .fds = p->fds, .nfds = p->nfds };
	struct pipeline_result *res = run->res;
	struct holder_file hf = { .run = run, .h = run->release ? &none : &view,
				  .mfd = -1, .dead_err = 1 };
	struct holder_set now;
	struct tracee t;
	char why[48];
	int err;

	err = tracee_attach(&t, p->tgid, w->pidfd, STOP_TIMEOUT_MS, why,
			    sizeof(why));
	w->pidfd = -1;	/* the tracee's now */
	if (err) {
		if (err == -ESRCH)
			return;	/* it exited, and let go of everything */
		/* alive but not stopped (-EAGAIN) or not ours: the policy's */
		res->rep.fds += p->nfds;
		res->rep.mappings += p->nvmas;
		pipeline_fail(res, p->tgid, 0, "stop", "%s", why);
		return;
	}
	if (t.unstopped > t.vforking)	/* a vfork()ing one holds nothing */
		pipeline_fail(res, p->tgid, 0, "stop", "%d_threads_uninterruptible",
		     t.unstopped - t.vforking);
	/*
	 * What it maps now that it is stopped: the list to act on; and its
	 * descriptors, if they are to be released (to wake its waiters,
	 * those it had when found are the ones their calls name).
	 */
	err = holders_scan(&run->pl->holders, run->key, p->tgid,
			   run->release || p->nrings, &now);
	if (!err && run->opts->one_user)
		pause_keep_users(&now, run->opts->uid);
	if (err)
		pipeline_fail(res, p->tgid, 0, "stop", "scan_%s",
			      pipeline_errname(err));
	else if (run->release && now.nr)
		hf.h = &now.procs[0];
	else if (now.nr)
		view.vmas = now.procs[0].vmas, view.nvmas = now.procs[0].nvmas;
	res->rep.fds += hf.h->nfds;
	res->rep.mappings += hf.h->nvmas;
	hf.t = &t;
	if (!err)
		substitute(file, &hf);
	if (!err && now.nr)
		pipeline_uring_take(res, &t, now.procs[0].rings,
				    now.procs[0].nrings);
	tracee_detach(&t);
	if (!err)
		holder_set_free(&now);
}

/**
 * pipeline_holder_handle() - do what one holder needs (see its plan)
 * @run: the run
 * @w: the holder and its plan
 * @file: its file of the revoked inode
 */
void pipeline_holder_handle(struct run *run, struct holder_work *w,
			    struct revoke_file *file)
{
	run->res->rep.holders++;
	if (w->gone)
		return;
	if (w->stop)
		handle_stop(run, w, file);
	else if (w->nkick)
		handle_waiters(run, w, file);
	else
		run->res->rep.fds += w->p->nfds;
}
