// SPDX-License-Identifier: GPL-2.0
/*
 * holders_fs.c - what holds a filesystem without a descriptor or a
 * mapping: threads whose current or root directory is on it, and
 * processes whose executable is, from one read of the revoke_fsrefs
 * iterator (bpf/holders.bpf.c); never a stat() or an open() on it.  For
 * holders, the same walk names every process (its comm and real uid).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>

#include "common/key.h"
#include "umount/umount.h"
#include "holders.h"
#include "holders.skel.h"

static int add_task(struct holder_fsrefs *refs,
		    const struct revoke_holder *rec)
{
	struct holder_task *t;

	t = realloc(refs->task, (refs->ntasks + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	refs->task = t;
	t += refs->ntasks++;
	t->tgid = (pid_t)rec->tgid;
	t->uid = (uid_t)rec->fd;
	memcpy(t->comm, &rec->start, sizeof(t->comm) - 1);
	t->comm[sizeof(t->comm) - 1] = '\0';
	return 0;
}

static int add_fsref(void *ctx, const void *data)
{
	const struct revoke_holder *rec = data;
	struct holder_fsrefs *refs = ctx;
	struct holder_fsref *r;

	if (rec->kind == REVOKE_HOLDER_TASK)
		return add_task(refs, rec);
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

static int by_tgid(const void *a, const void *b)
{
	const struct holder_task *x = a, *y = b;

	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

static int fsrefs(struct holders *h, uint32_t s_dev, bool tasks,
		  struct holder_fsrefs *refs)
{
	int map = bpf_map__fd(h->skel->maps.holder_sb_targets);
	__u32 one = 1;
	int err;

	memset(refs, 0, sizeof(*refs));
	if (bpf_map_update_elem(map, &s_dev, &one, BPF_ANY))
		return -errno;
	h->skel->bss->holder_want_tasks = tasks;
	err = holders_run_iter(h->link[HOLDERS_FSREFS],
			       sizeof(struct revoke_holder), add_fsref, refs);
	h->skel->bss->holder_want_tasks = 0;
	bpf_map_delete_elem(map, &s_dev);
	if (err)
		holder_fsrefs_free(refs);
	else if (refs->ntasks)
		qsort(refs->task, refs->ntasks, sizeof(*refs->task), by_tgid);
	return err;
}

/**
 * holders_find_fs() - every descriptor and mapping of any inode of a
 *	filesystem
 * @h: the loaded iterators
 * @s_dev: the filesystem's super_block's s_dev
 * @set: the result, as for holders_find(); @set->inodes lists the inodes
 *
 * Return: 0 or a negative errno.
 */
int holders_find_fs(struct holders *h, uint32_t s_dev, struct holder_set *set)
{
	int err;

	h->skel->bss->holder_by_sb = 1;
	holders_walk_buffers(h, s_dev);
	err = holders_search(h, bpf_map__fd(h->skel->maps.holder_sb_targets),
			     &s_dev, h->link[HOLDERS_FDS],
			     h->link[HOLDERS_REGRINGS], h->link[HOLDERS_VMAS],
			     false, set);
	holders_walk_buffers(h, 0);
	h->skel->bss->holder_by_sb = 0;
	return err;
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
	return fsrefs(h, s_dev, false, refs);
}

/**
 * holders_fsrefs_tasks() - holders_fsrefs(), and the name and real uid
 *	of every process, read in the same walk
 * @h: the loaded iterators
 * @s_dev: the filesystem's super_block's s_dev
 * @refs: the result (@refs->task sorted by tgid); free it with
 *	holder_fsrefs_free()
 *
 * Return: 0 or a negative errno.
 */
int holders_fsrefs_tasks(struct holders *h, uint32_t s_dev,
			 struct holder_fsrefs *refs)
{
	return fsrefs(h, s_dev, true, refs);
}

/**
 * holder_fsrefs_task() - the name and uid holders_fsrefs_tasks() read
 * @refs: its result
 * @tgid: a process
 *
 * Return: the record, or NULL if the walk did not see @tgid.
 */
const struct holder_task *holder_fsrefs_task(const struct holder_fsrefs *refs,
					     pid_t tgid)
{
	struct holder_task key = { .tgid = tgid };

	if (!refs->ntasks)
		return NULL;
	return bsearch(&key, refs->task, refs->ntasks, sizeof(*refs->task),
		       by_tgid);
}

/**
 * holder_fsrefs_free() - free what holders_fsrefs() found
 * @refs: its result
 */
void holder_fsrefs_free(struct holder_fsrefs *refs)
{
	free(refs->ref);
	free(refs->task);
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

/*
 * Filesystems none of whose pages a registered io_uring buffer can hold:
 * io_uring pins a buffer with FOLL_WRITE | FOLL_LONGTERM, which 6.1's
 * io_pin_pages() refuses for a file mapping that is neither shmem nor
 * hugetlbfs, and which mm/gup.c refuses from 6.5 on for a shared mapping
 * whose pages are written back (and a private one is copied: its pages
 * are anonymous); a read-only filesystem's mapping cannot be written.
 */
static const char *const no_buffer_fs[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "vfat", "msdos", "exfat",
	"f2fs", "fuse", "fuseblk", "nfs", "nfs4", "ntfs3", "jfs", "udf",
	"iso9660", "squashfs", "erofs",
};

static bool no_buffer_type(const char *fstype)
{
	size_t i;

	for (i = 0; i < sizeof(no_buffer_fs) / sizeof(*no_buffer_fs); i++)
		if (!strcmp(fstype, no_buffer_fs[i]))
			return true;
	return false;
}

/*
 * Is the filesystem of @kdev (kernel encoding) one of no_buffer_fs, by
 * every mount of it revoke-bpfd sees?  One it does not see (a memfd's)
 * may be in a buffer.
 */
static bool no_page_in_buffers(uint32_t kdev)
{
	dev_t dev = makedev(revoke_kdev_major(kdev), revoke_kdev_minor(kdev));
	struct fs_mount_table t;
	bool found = false, no = true;
	size_t i;

	if (fs_mounts_read_self(&t))
		return false;
	for (i = 0; i < t.nr; i++) {
		if (t.m[i].dev != dev)
			continue;
		found = true;
		no &= no_buffer_type(t.m[i].fstype);
	}
	fs_mounts_table_free(&t);
	return found && no;
}

/**
 * holders_walk_buffers() - whether the next searches walk the pages of
 *	registered io_uring buffers
 * @h: the loaded iterators
 * @kdev: the filesystem searched (kernel encoding); 0: walk them
 *
 * A walk of every page of every buffer of every ring costs as much as
 * the buffers are large, and one that reaches its bound is a failure; it
 * is made only when the filesystem's pages can be in a buffer at all.
 * Set once for all the searches of one filesystem's files, by whoever
 * makes them (pipeline_passes(), the holders verb; holders_find_fs() on
 * its own), since it reads /proc/self/mountinfo: not once per holder.
 */
void holders_walk_buffers(struct holders *h, uint32_t kdev)
{
	h->skel->bss->holder_skip_bufs = kdev && no_page_in_buffers(kdev);
}

/**
 * holders_state_save() - a copy of what the next searches are told
 *	(whom to skip, which buffers to walk), for a search made in between
 * @h: the loaded iterators
 *
 * Return: the copy, for holders_state_restore(), or NULL without memory
 * (then nothing can be restored: the caller must not search in between).
 */
void *holders_state_save(struct holders *h)
{
	void *copy = malloc(sizeof(*h->skel->bss));

	if (copy)
		memcpy(copy, h->skel->bss, sizeof(*h->skel->bss));
	return copy;
}

/**
 * holders_state_restore() - put back, and free, what holders_state_save()
 *	copied
 * @h: the loaded iterators
 * @copy: the copy
 */
void holders_state_restore(struct holders *h, void *copy)
{
	memcpy(h->skel->bss, copy, sizeof(*h->skel->bss));
	free(copy);
}
