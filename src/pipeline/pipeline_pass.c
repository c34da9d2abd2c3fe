// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_pass.c - one pass of the pipeline over the holders of an
 * inode found by one search: plan each holder (pipeline_plan.c), handle
 * it (pipeline_holder.c), then drain (pipeline_drain.c).  The passes are
 * run by pipeline_policy.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline_run.h"

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
	struct statx stx;
	char path[64];
	size_t i;

	/*
	 * every holder holds the same inode: the first one still there
	 * says, from what the kernel has of it (AT_STATX_DONT_SYNC: the
	 * server of a FUSE file that no longer answers is never asked)
	 */
	for (i = 0; i < set->nr; i++) {
		const struct holder_proc *p = &set->procs[i];

		if (!p->nfds)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)p->tgid,
			 p->fds[0]);
		if (statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_TYPE, &stx))
			continue;
		return S_ISCHR(stx.stx_mode) || S_ISBLK(stx.stx_mode) ||
		       S_ISFIFO(stx.stx_mode) || S_ISSOCK(stx.stx_mode);
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
	struct run run = { .pl = pl, .key = key, .res = res, .opts = opts,
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
	pl->held_total += nwork;
	for (i = 0; i < nwork; i++) {
		/* the holders before are handled, those after stopped */
		if (i)
			pipeline_yield(pl);
		if (files[i]) {
			uint64_t t0 = pipeline_now_us();

			pipeline_holder_handle(&run, &work[i], files[i]);
			revoke_file_put(files[i]);
			pipeline_note_time(res, work[i].p->tgid,
					   pipeline_now_us() - t0);
		} else if (!work[i].err && work[i].t.nr) {
			tracee_detach(&work[i].t);	/* interrupted for nothing */
		}
		pl->held_done++;
	}
	revoke_inode_destroy(&inode);
	free(files);
	if (acted)
		pipeline_drain(&run, work, nwork,
			       start + (uint64_t)opts->timeout_ms * 1000);
	pipeline_plan_free(work, nwork);
	free(run.woken);
}
