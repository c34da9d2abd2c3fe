// SPDX-License-Identifier: GPL-2.0
/*
 * file_set.c - changes to the revoked open file set (add --fd).
 *
 * An entry is keyed by a struct file's address, read by the kernel (the
 * ident iterator) from a descriptor the daemon holds while it adds the
 * entry, so that the file cannot be freed, and its address given to
 * another file, before the entry is in.  The hooks drop an entry when
 * its file is freed (file_free_security); nothing else does: a revoked
 * description never works again, so there is no del.  The map itself
 * is the count, and REVOKE_ARMED_FILES is set while it holds an entry
 * (armed.c).
 */
#include <errno.h>

#include <bpf/bpf.h>

#include "armed.h"
#include "attach.h"
#include "file_set.h"
#include "store.h"

/**
 * file_set_add() - revoke one open file description
 * @rb: the daemon's handles
 * @file: its struct file's address; the caller holds the file open
 * @val: the entry (its key, revoked_at, pid and fd; denials 0)
 * @change: REVOKE_ADDED, or REVOKE_ALREADY if it was revoked already
 *
 * Return: 0, -ENOSPC if the set is full, or a negative errno.
 */
int file_set_add(struct store *rb, uint64_t file,
		 const struct revoke_file_val *val, enum revoke_change *change)
{
	struct revoke_file_val old;
	int err;

	err = attach_ensure(rb);
	if (err)
		return err;
	if (!bpf_map_lookup_elem(rb->files_fd, &file, &old)) {
		*change = REVOKE_ALREADY;
		return armed_update(rb);
	}
	/*
	 * The bit first: file_free_security drops an entry only while it is
	 * set, and an entry left behind by a daemon killed in between would
	 * deny the next file given its address.
	 */
	err = armed_update_with(rb, REVOKE_ARMED_FILES);
	if (err)
		return err;
	if (bpf_map_update_elem(rb->files_fd, &file, val, BPF_NOEXIST)) {
		err = -errno;
		if (err != -EEXIST)
			return err == -E2BIG ? -ENOSPC : err;
		*change = REVOKE_ALREADY;
	} else {
		*change = REVOKE_ADDED;
	}
	return armed_update(rb);
}

/**
 * file_set_refresh() - clear REVOKE_ARMED_FILES if the hooks dropped the
 *	last entry (its file was freed)
 * @rb: the daemon's handles
 *
 * Return: 0 or a negative errno.
 */
int file_set_refresh(struct store *rb)
{
	return armed_update(rb);
}

/**
 * file_set_for_each() - call @fn for every revoked open file
 * @rb: the daemon's handles
 * @fn: called with each file's address and entry; a non-zero return
 *	stops the walk
 * @ctx: passed to @fn
 *
 * Return: what @fn returned last, or a negative errno.
 */
int file_set_for_each(struct store *rb, file_set_fn fn, void *ctx)
{
	struct revoke_file_val val;
	uint64_t key, next, *prev = NULL;
	int ret;

	while (!bpf_map_get_next_key(rb->files_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rb->files_fd, &key, &val))
			continue;	/* freed meanwhile */
		ret = fn(key, &val, ctx);
		if (ret)
			return ret;
	}
	return errno == ENOENT ? 0 : -errno;
}

static int count_one(uint64_t file, const struct revoke_file_val *val,
		     void *ctx)
{
	(void)file;
	(void)val;
	++*(uint64_t *)ctx;
	return 0;
}

/**
 * file_set_count() - how many open files are revoked
 * @rb: the daemon's handles
 * @count: result
 *
 * Return: 0 or a negative errno.
 */
int file_set_count(struct store *rb, uint64_t *count)
{
	*count = 0;
	return file_set_for_each(rb, count_one, count);
}
