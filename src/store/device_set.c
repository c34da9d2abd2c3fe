// SPDX-License-Identifier: GPL-2.0
/*
 * device_set.c - changes to the revoked device set.
 *
 * As for the inode set (inode_set.c), revoke_rdev_state.nr_rdev is an
 * upper bound on the entries that the hooks trust to skip the device
 * lookup: it is raised before an entry goes in, lowered only after one
 * went out, and recomputed from the map when the daemon starts.
 *
 * An entry only ever moves towards denying less of the *new* device,
 * never of the old one: "removed" stamps the moment the instance went
 * away; files opened later are the new device's and work, files opened
 * earlier stay denied.  A second removal (the new device went away too)
 * stamps again, so the files of the second instance are denied as well.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "armed.h"
#include "attach.h"
#include "store.h"
#include "device_set.h"

static int read_count(struct store *rb, uint64_t *count)
{
	struct revoke_rdev_state st;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(rb->rdev_state_fd, &zero, &st))
		return -errno;
	*count = st.nr_rdev;
	return 0;
}

static int write_count(struct store *rb, uint64_t count)
{
	struct revoke_rdev_state st = { .nr_rdev = count };
	__u32 zero = 0;

	if (bpf_map_update_elem(rb->rdev_state_fd, &zero, &st, BPF_ANY))
		return -errno;
	return armed_update(rb);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Insert a new entry, counted before it can be looked up. */
static int insert(struct store *rb, const struct revoke_rdev_key *key,
		  const struct revoke_rdev_val *val)
{
	uint64_t count = 0;
	int err;

	err = attach_ensure(rb);
	if (!err)
		err = read_count(rb, &count);
	if (!err)
		err = write_count(rb, count + 1);
	if (err)
		return err;
	if (bpf_map_update_elem(rb->rdev_fd, key, val, BPF_NOEXIST)) {
		err = -errno;
		device_set_sync(rb, &count);
		return err == -E2BIG ? -ENOSPC : err;
	}
	return 0;
}

/**
 * device_set_add() - revoke a device by number, or record its removal
 * @rb: the daemon's handles
 * @key: the device
 * @cause: one word saying who revoked it; kept from the first add
 * @removed: the device instance is gone: opens from now on reach a new
 *	device with the same number, and work
 * @change: REVOKE_ADDED, or REVOKE_ALREADY if it was revoked before
 *
 * Return: 0, -ENOSPC if the set is full, or another negative errno.
 */
int device_set_add(struct store *rb, const struct revoke_rdev_key *key,
		     const char *cause, bool removed,
		     enum revoke_change *change)
{
	struct revoke_rdev_val val = {};

	if (!bpf_map_lookup_elem(rb->rdev_fd, key, &val)) {
		*change = REVOKE_ALREADY;
		if (!removed)
			return 0;
		val.removed_ns = now_ns();
		if (bpf_map_update_elem(rb->rdev_fd, key, &val, BPF_EXIST))
			return -errno;
		return 0;
	}
	val.revoked_at = (uint64_t)time(NULL);
	val.removed_ns = removed ? now_ns() : 0;
	strncpy(val.cause, cause, sizeof(val.cause) - 1);
	*change = REVOKE_ADDED;
	return insert(rb, key, &val);
}

/**
 * device_set_get() - look up a revoked device
 * @rb: the daemon's handles
 * @key: the device
 * @val: its entry
 *
 * Return: 0, -ENOENT if it is not revoked, or another negative errno.
 */
int device_set_get(struct store *rb, const struct revoke_rdev_key *key,
		     struct revoke_rdev_val *val)
{
	if (bpf_map_lookup_elem(rb->rdev_fd, key, val))
		return -errno;
	return 0;
}

/* Forget every file opened after a removal: no entry needs them now. */
static void clear_files(struct store *rb)
{
	__u64 addr, next;

	while (!bpf_map_get_next_key(rb->rdev_files_fd, NULL, &next)) {
		addr = next;
		if (bpf_map_delete_elem(rb->rdev_files_fd, &addr))
			break;
	}
}

/**
 * device_set_del() - lift the revocation of a device
 * @rb: the daemon's handles
 * @key: the device
 * @change: REVOKE_DELETED, or REVOKE_ABSENT if it was not revoked
 *
 * Return: 0 or a negative errno.
 */
int device_set_del(struct store *rb, const struct revoke_rdev_key *key,
		     enum revoke_change *change)
{
	uint64_t count;

	if (bpf_map_delete_elem(rb->rdev_fd, key)) {
		if (errno != ENOENT)
			return -errno;
		*change = REVOKE_ABSENT;
		return 0;
	}
	*change = REVOKE_DELETED;
	return device_set_sync(rb, &count);
}

/**
 * device_set_count() - count the revoked devices
 * @rb: the daemon's handles
 * @count: the number
 *
 * Return: 0 or a negative errno.
 */
int device_set_count(struct store *rb, uint64_t *count)
{
	struct revoke_rdev_key key, next;
	void *prev = NULL;

	*count = 0;
	while (!bpf_map_get_next_key(rb->rdev_fd, prev, &next)) {
		key = next;
		prev = &key;
		(*count)++;
	}
	return errno == ENOENT ? 0 : -errno;
}

/**
 * device_set_sync() - set nr_rdev to the number of entries
 * @rb: the daemon's handles
 * @count: the number
 *
 * With no entry left, the files remembered after removals are forgotten.
 *
 * Return: 0 or a negative errno.
 */
int device_set_sync(struct store *rb, uint64_t *count)
{
	int err;

	err = device_set_count(rb, count);
	if (err)
		return err;
	err = write_count(rb, *count);
	if (!err && !*count)
		clear_files(rb);
	return err;
}

/**
 * device_set_for_each() - call @fn for every revoked device
 * @rb: the daemon's handles
 * @fn: called with each key and value; a non-zero return stops the walk
 * @ctx: passed to @fn
 *
 * Return: 0, @fn's non-zero return, or a negative errno.
 */
int device_set_for_each(struct store *rb, device_set_fn fn, void *ctx)
{
	struct revoke_rdev_key key, next;
	struct revoke_rdev_val val;
	void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(rb->rdev_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rb->rdev_fd, &key, &val))
			continue;	/* deleted meanwhile */
		err = fn(&key, &val, ctx);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}
