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
 * pipeline_policy.c runs the passes and deals with what failed,
 * pipeline_pass.c runs one, pipeline_plan.c plans each holder,
 * pipeline_holder.c and pipeline_dead.c handle it, pipeline_drain.c
 * drains, pipeline_report.c keeps the failures; pipeline_rdev.c runs over
 * a device's nodes.
 *
 * Why stopping a thread ends its operations in flight: an operation that
 * passed the LSM check before the map update may still be running; a
 * thread reaches a ptrace stop only on its way back to user space, so once
 * it is stopped that operation is over.  Every later one meets the hook.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline_run.h"
#include "store/store.h"


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
