// SPDX-License-Identifier: GPL-2.0
/*
 * super_set.c - changes to the revoked filesystem set.
 *
 * An entry names a super_block by its s_dev and its address, both read
 * by the kernel (the ident iterator), never by stat(2).  REVOKE_ARMED_SUPERS
 * is set (armed.c) after an entry goes in and cleared after the last one
 * went out, so that no entry is ever in the map while the hooks skip it
 * for longer than the add takes.  The hooks drop an entry themselves when
 * its super_block is freed; the map itself is the count.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "armed.h"
#include "attach.h"
#include "store.h"

/**
 * super_set_add() - revoke a whole filesystem
 * @rb: the daemon's handles
 * @s_dev: its super_block's s_dev (kernel encoding)
 * @sb: its super_block's address
 * @cause: one word saying who revoked it; kept from the first add
 * @change: REVOKE_ADDED, or REVOKE_ALREADY if it was revoked already
 *
 * An entry of the same s_dev naming another super_block (one freed
 * while its hook was not attached) is replaced.
 *
 * Return: 0, -ENOSPC if the set is full, or a negative errno.
 */
int super_set_add(struct store *rb, uint32_t s_dev, uint64_t sb,
		  const char *cause, enum revoke_change *change)
{
	struct revoke_super_val val = {};
	int err;

	if (!super_set_get(rb, s_dev, &val) && val.sb == sb) {
		*change = REVOKE_ALREADY;
		return armed_update(rb);
	}
	err = attach_ensure(rb);
	if (err)
		return err;
	memset(&val, 0, sizeof(val));
	val.sb = sb;
	val.revoked_at = (uint64_t)time(NULL);
	snprintf(val.cause, sizeof(val.cause), "%s", cause);
	if (bpf_map_update_elem(rb->supers_fd, &s_dev, &val, BPF_ANY)) {
		err = -errno;
		return err == -E2BIG ? -ENOSPC : err;
	}
	*change = REVOKE_ADDED;
	return armed_update(rb);
}

/**
 * super_set_get() - the entry of a filesystem
 * @rb: the daemon's handles
 * @s_dev: its s_dev
 * @val: the entry
 *
 * Return: 0, -ENOENT if it is not revoked, or a negative errno.
 */
int super_set_get(struct store *rb, uint32_t s_dev,
		  struct revoke_super_val *val)
{
	if (bpf_map_lookup_elem(rb->supers_fd, &s_dev, val))
		return -errno;
	return 0;
}

/**
 * super_set_del() - lift the revocation of a filesystem
 * @rb: the daemon's handles
 * @s_dev: its s_dev
 * @change: REVOKE_DELETED, or REVOKE_ABSENT if it was not revoked
 *
 * Return: 0 or a negative errno.
 */
int super_set_del(struct store *rb, uint32_t s_dev,
		  enum revoke_change *change)
{
	if (bpf_map_delete_elem(rb->supers_fd, &s_dev)) {
		if (errno != ENOENT)
			return -errno;
		*change = REVOKE_ABSENT;
	} else {
		*change = REVOKE_DELETED;
	}
	return armed_update(rb);
}

/**
 * super_set_for_each() - call @fn for every revoked filesystem
 * @rb: the daemon's handles
 * @fn: called with each s_dev and entry; a non-zero return stops the walk
 * @ctx: passed to @fn
 *
 * Return: what @fn returned last, or a negative errno.
 */
int super_set_for_each(struct store *rb, super_set_fn fn, void *ctx)
{
	struct revoke_super_val val;
	uint32_t key, next;
	uint32_t *prev = NULL;
	int ret;

	while (!bpf_map_get_next_key(rb->supers_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rb->supers_fd, &key, &val))
			continue;	/* dropped meanwhile */
		ret = fn(key, &val, ctx);
		if (ret)
			return ret;
	}
	return errno == ENOENT ? 0 : -errno;
}

static int count_one(uint32_t s_dev, const struct revoke_super_val *val,
		     void *ctx)
{
	(void)s_dev;
	(void)val;
	++*(uint64_t *)ctx;
	return 0;
}

/**
 * super_set_count() - how many filesystems are revoked
 * @rb: the daemon's handles
 * @count: result
 *
 * Return: 0 or a negative errno.
 */
int super_set_count(struct store *rb, uint64_t *count)
{
	*count = 0;
	return super_set_for_each(rb, count_one, count);
}
