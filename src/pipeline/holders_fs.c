// SPDX-License-Identifier: GPL-2.0
/*
 * holders_fs.c - what holds a filesystem without a descriptor or a
 * mapping: threads whose current or root directory is on it, and
 * processes whose executable is, from one read of the revoke_holder_fsrefs
 * iterator (bpf/holders.bpf.c); never a stat() or an open() on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "holders.h"
#include "holders.skel.h"

static int add_fsref(void *ctx, const void *data)
{
	const struct revoke_holder *rec = data;
	struct holder_fsrefs *refs = ctx;
	struct holder_fsref *r;

	r = realloc(refs->ref, (refs->nr + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	refs->ref = r;
	r += refs->nr++;
	r->tgid = (pid_t)rec->tgid;
	r->tid = (pid_t)rec->fd;
	r->start_boottime = rec->start_boottime;
	r->kind = rec->kind;
	r->key.dev = rec->dev;
	r->key.ino = rec->ino;
	return 0;
}

/**
 * holders_fsrefs() - every thread whose current or root directory, or
 *	executable, is on a filesystem
 * @h: the loaded iterators
 * @s_dev: the filesystem's super_block's s_dev
 * @refs: the result; free it with holder_fsrefs_free()
 *
 * An executable is reported for every thread of its process.
 *
 * Return: 0 or a negative errno.
 */
int holders_fsrefs(struct holders *h, uint32_t s_dev,
		   struct holder_fsrefs *refs)
{
	int map = bpf_map__fd(h->skel->maps.holder_sb_targets);
	__u32 one = 1;
	int err;

	memset(refs, 0, sizeof(*refs));
	if (bpf_map_update_elem(map, &s_dev, &one, BPF_ANY))
		return -errno;
	err = holders_run_iter(h->fsrefs_link, sizeof(struct revoke_holder),
			       add_fsref, refs);
	bpf_map_delete_elem(map, &s_dev);
	if (err)
		holder_fsrefs_free(refs);
	return err;
}

/**
 * holder_fsrefs_free() - free what holders_fsrefs() found
 * @refs: its result
 */
void holder_fsrefs_free(struct holder_fsrefs *refs)
{
	free(refs->ref);
	memset(refs, 0, sizeof(*refs));
}

/**
 * holder_fsref_name() - how a reference is named in reports
 * @kind: REVOKE_HOLDER_CWD, _ROOT or _EXE
 *
 * Return: "cwd", "root" or "exe".
 */
const char *holder_fsref_name(uint32_t kind)
{
	switch (kind) {
	case REVOKE_HOLDER_CWD:
		return "cwd";
	case REVOKE_HOLDER_ROOT:
		return "root";
	default:
		return "exe";
	}
}
