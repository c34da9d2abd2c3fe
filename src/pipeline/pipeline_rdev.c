// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_rdev.c - the pipeline over a revoked device: every node of it
 * that is held (/dev/X, a node made with mknod elsewhere) is handled as
 * pipeline_run() handles an inode.
 */
#include <errno.h>
#include <string.h>

#include "pipeline_run.h"

/* The pipeline over every node of @all, from @start. */
static int run_nodes(struct pipeline *pl, const struct holder_set *all,
		     const struct pipeline_opts *opts, uint64_t start,
		     struct pipeline_result *res)
{
	size_t i;
	int err = 0;

	for (i = 0; i < all->ninodes && !err; i++)
		err = pipeline_passes(pl, &all->inodes[i], opts, start, res);
	pipeline_finish(opts, start, res);
	return err;
}

/**
 * pipeline_run_rdev() - end every existing use of a revoked device
 * @pl: the pipeline
 * @key: the device, already in the revoked device set
 * @opts: what to do
 * @res: the report, summed over every node of the device that is held
 *
 * Each node (its own inode: /dev/X, a node made with mknod elsewhere) is
 * handled as pipeline_run() handles an inode.
 *
 * Return: as pipeline_run().
 */
int pipeline_run_rdev(struct pipeline *pl, const struct revoke_rdev_key *key,
		      const struct pipeline_opts *opts,
		      struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	struct holder_set all;
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = holders_find_rdev(&pl->holders, key, &all);
	if (err)
		return err;
	res->discover_us = pipeline_now_us() - start;
	err = run_nodes(pl, &all, opts, start, res);
	holder_set_free(&all);
	return err;
}
