// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_file.c - the pipeline for one open file description
 * (revoke-bpf add --fd): the holders of that struct file only, its
 * descriptors, io_uring fixed files and mappings, not the other opens
 * of its inode.  The holder iterators are narrowed to the file's address
 * (holder_only_file in bpf/holders.bpf.c) for the length of the run.
 */
#include <errno.h>
#include <string.h>

#include "pipeline_run.h"
#include "holders.skel.h"

/**
 * pipeline_run_file() - end every existing use of one open file
 * @pl: the pipeline
 * @key: its inode's key (what the iterators look for first)
 * @file: its address, already in the revoked file set
 * @opts: what to do
 * @res: the report; free it with pipeline_result_free()
 *
 * The caller holds a copy of the file, so that @file names it and no
 * other file for the length of the run; its own descriptors are never
 * holders (holders_skip()).
 *
 * Return: 0 when the pipeline ran (@res tells what failed, if anything),
 * or a negative errno if it could not run at all.
 */
int pipeline_run_file(struct pipeline *pl, const struct revoke_key *key,
		      uint64_t file, const struct pipeline_opts *opts,
		      struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	pl->holders.skel->bss->holder_only_file = file;
	err = pipeline_passes(pl, key, opts, start, res);
	pl->holders.skel->bss->holder_only_file = 0;
	if (err)
		return err;
	pipeline_finish(opts, start, res);
	return 0;
}
