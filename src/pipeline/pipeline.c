// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline.c - after "add" has put an inode in the revoked set (so no new
 * operation on it can start), make every existing use of it stop:
 *
 *  1. find the holders: every process with a descriptor or a mapping of
 *     the inode, from the BPF iterators (holders.c);
 *  2. the inode becomes a librevoke struct revoke_inode whose open files
 *     are its holders; for each holder that has a mapping, a thread
 *     blocked on the file or running, or descriptors to release: stop all
 *     its threads (tracee.c) and, while it is stopped, fops_substitute()
 *     its file, which runs, in the seed's order and release exactly once:
 *     - the mappings hook: replace each mapping in place by a MAP_SHARED
 *       mapping of a sealed, empty memfd, so that the next access raises
 *       SIGBUS (BUS_ADRERR), as the seed's revoked_vm_ops did,
 *     - awaken_all_waiters: wake its waiters (waiters.c),
 *     - release: dup3() that memfd, itself revoked, over each descriptor,
 *       so that the last reference to the original file goes and its
 *       release runs now;
 *     and let it go;
 *  3. drain: wait until no thread is blocked in a call on the file, or
 *     the timeout passes;
 *  4. report the counts (and keep them in the revoke_reports map).
 *
 * pipeline_plan.c plans each holder, pipeline_holder.c and pipeline_dead.c
 * handle it, pipeline_drain.c drains, pipeline_policy.c runs the passes
 * and deals with what failed, pipeline_rdev.c runs over a device's nodes.
 *
 * Why stopping a thread ends its operations in flight: an operation that
 * passed the LSM check before the map update may still be running; a
 * thread reaches a ptrace stop only on its way back to user space, so once
 * it is stopped that operation is over.  Every later one meets the hook.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pipeline_run.h"
#include "store/store.h"

/**
 * pipeline_now_us() - the monotonic clock
 *
 * Return: microseconds.
 */
uint64_t pipeline_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/**
 * pipeline_fail() - record what the pipeline could not do
 * @res: the report
 * @pid: the holder, or 0 if it is no one process's failure
 * @tid: its thread, or 0
 * @step: the step (a string that lives for good)
 * @fmt: the reason, one word
 *
 * The policy (pipeline_policy.c) then kills or spares the holder.
 */
void pipeline_fail(struct pipeline_result *res, pid_t pid, pid_t tid,
		   const char *step, const char *fmt, ...)
{
	struct pipeline_failure *f;
	va_list ap;

	res->rep.failed++;
	f = realloc(res->fail, (res->nfail + 1) * sizeof(*f));
	if (!f)
		return;
	res->fail = f;
	f += res->nfail++;
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->tid = tid;
	f->step = step;
	f->uid = -1;
	f->keeps_access = false;
	va_start(ap, fmt);
	vsnprintf(f->reason, sizeof(f->reason), fmt, ap);
	va_end(ap);
}

/**
 * pipeline_fail_kept() - report a holder that keeps its access
 * @res: the report
 * @pid: the process
 * @step: what could not be done (a string that outlives @res)
 * @fmt: the reason, one word
 *
 * A failure like the others, marked @keeps_access: what was found could
 * not be taken away, so the process can still reach the file's data.
 */
void pipeline_fail_kept(struct pipeline_result *res, pid_t pid,
			const char *step, const char *fmt, ...)
{
	char reason[sizeof(res->fail->reason)];
	size_t n = res->nfail;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	pipeline_fail(res, pid, 0, step, "%s", reason);
	if (res->nfail > n)
		res->fail[n].keeps_access = true;
}

/**
 * pipeline_errname() - the name of an errno, for a failure's reason
 * @err: a negative errno
 *
 * Return: its name, or "EIO" if it has none.
 */
const char *pipeline_errname(long err)
{
	const char *name = strerrorname_np((int)-err);

	return name ? name : "EIO";
}

/**
 * pipeline_init() - load what the pipeline needs
 * @pl: the pipeline
 * @rb: the enforcement maps
 *
 * Without the holder iterators the pipeline reports that it cannot run;
 * the map update, and so the denial of every new operation, still works.
 */
void pipeline_init(struct pipeline *pl, struct store *rb)
{
	memset(pl, 0, sizeof(*pl));
	pl->rb = rb;
	pl->ready = !holders_open(&pl->holders, rb, pl->why,
				   sizeof(pl->why));
}

void pipeline_fini(struct pipeline *pl)
{
	if (pl->ready)
		holders_close(&pl->holders);
	pl->ready = false;
}

void pipeline_result_free(struct pipeline_result *res)
{
	free(res->fail);
	free(res->kill);
	free(res->rings);
	memset(res, 0, sizeof(*res));
}

static bool want_release(const struct pipeline_opts *opts, bool by_default)
{
	return opts->release == REVOKE_RELEASE_YES ||
	       (opts->release == REVOKE_RELEASE_AUTO && by_default);
}

/*
 * Is the file released without --release?  Devices are, so that their
 * driver's release runs now; FIFOs and sockets too, because data already
 * in a pipe's buffer can be spliced or teed out with no LSM hook on the
 * way (splice between two pipes checks no file permission), so only
 * taking the descriptor away closes that route.
 */
static bool release_by_default(const struct holder_set *set)
{
	char path[64];
	struct stat st;
	size_t i;

	/* every holder holds the same inode: the first one still there says */
	for (i = 0; i < set->nr; i++) {
		const struct holder_proc *p = &set->procs[i];

		if (!p->nfds)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)p->tgid,
			 p->fds[0]);
		if (stat(path, &st))
			continue;
		return S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
		       S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
	}
	return false;
}

/**
 * pipeline_run_set() - handle every holder of @set and drain
 * @pl: the pipeline
 * @key: the inode
 * @set: the holders found for it (one pass of pipeline_passes())
 * @opts: what to do
 * @start: when the run began (pipeline_now_us())
 * @res: the report, added to
 *
 * With no holder to
 * act on there is nothing to drain: each of their threads was asleep in
 * a call that names no descriptor of the file (one running, or in a call
 * on the file, is acted on: see plan_holder()), and the map update,
 * made before, refuses every new call on it.
 */
void pipeline_run_set(struct pipeline *pl, const struct revoke_key *key,
		      const struct holder_set *set,
		      const struct pipeline_opts *opts, uint64_t start,
		      struct pipeline_result *res)
{
	struct run run = { .pl = pl, .key = key, .res = res,
			   .release = want_release(opts, release_by_default(set)) };
	struct revoke_file **files;
	struct holder_work *work;
	struct revoke_inode inode;
	bool acted = false;
	size_t i, nwork;

	if (!set->nr)
		return;	/* nobody holds it: no thread to look at, no drain */
	work = pipeline_plan(&run, set, &nwork);
	if (!work)
		return;
	/* the inode and its open files (the seed's i_files): its holders */
	files = calloc(nwork ? nwork : 1, sizeof(*files));
	if (!files || revoke_inode_init(&inode, &pipeline_holder_fops, NULL)) {
		pipeline_fail(res, 0, 0, "stop", "ENOMEM");
		free(files);
		pipeline_plan_free(work, nwork);
		return;
	}
	for (i = 0; i < nwork; i++) {
		if (revoke_file_open(&inode, 0, &files[i]))
			pipeline_fail(res, work[i].p->tgid, 0, "stop", "ENOMEM");
		acted |= pipeline_plan_acts_on(&work[i]);
	}
	pipeline_plan_interrupt(work, nwork);
	for (i = 0; i < nwork; i++) {
		if (files[i]) {
			pipeline_holder_handle(&run, &work[i], files[i]);
			revoke_file_put(files[i]);
		} else if (!work[i].err && work[i].t.nr) {
			tracee_detach(&work[i].t);	/* interrupted for nothing */
		}
	}
	revoke_inode_destroy(&inode);
	free(files);
	if (acted)
		pipeline_drain(&run, work, nwork,
			       start + (uint64_t)opts->timeout_ms * 1000);
	pipeline_plan_free(work, nwork);
	free(run.woken);
}

/**
 * pipeline_finish() - the end of a run: its time, and its release flag
 * @opts: what the run did
 * @start: when it began (pipeline_now_us())
 * @res: the report
 */
void pipeline_finish(const struct pipeline_opts *opts, uint64_t start,
		     struct pipeline_result *res)
{
	res->total_us = pipeline_now_us() - start;
	if (res->rep.released || opts->release == REVOKE_RELEASE_YES)
		res->rep.flags |= REVOKE_REPORT_RELEASE;
}

/**
 * pipeline_run() - end every existing use of a revoked inode
 * @pl: the pipeline
 * @key: the inode, already in the revoked set
 * @opts: what to do
 * @res: the report; free it with pipeline_result_free()
 *
 * Return: 0 when the pipeline ran (@res tells what failed, if anything),
 * or a negative errno if it could not run at all.
 */
int pipeline_run(struct pipeline *pl, const struct revoke_key *key,
		 const struct pipeline_opts *opts, struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = pipeline_passes(pl, key, opts, start, res);
	if (err)
		return err;
	pipeline_finish(opts, start, res);
	inode_set_report_set(pl->rb, key, &res->rep);
	return 0;
}
