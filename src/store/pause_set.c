// SPDX-License-Identifier: GPL-2.0
/*
 * pause_set.c - changes to the paused device set.
 *
 * A pause is one entry of "paused" per (device, user).  "pause_devs"
 * counts, per device, the users it is paused for: an entry goes in there
 * after its first pause is in "paused", and out before its last one
 * leaves, so that a hook that finds a device in "pause_devs" may find no
 * pause (and allows), never the other way round.  REVOKE_ARMED_PAUSES is
 * set while "pause_devs" holds an entry (armed.c).
 *
 * "pause_majors" has a bit for each major number in "pause_devs", set
 * before a device of that major goes in and cleared after the last one
 * has left (include/revoke_bpf.h).
 *
 * "pause_slices" maps the cgroup of each paused user's systemd slice
 * (user.slice/user-U.slice) to U; pause_set_slices() rebuilds it from
 * the users in "paused" after every change.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <bpf/bpf.h>

#include "armed.h"
#include "attach.h"
#include "pause_set.h"
#include "store.h"

static struct revoke_rdev_key dev_of(const struct revoke_pause_key *key)
{
	return (struct revoke_rdev_key){ .rdev = key->rdev, .type = key->type };
}

static void major_bit(struct revoke_pause_majors *m,
		      const struct revoke_rdev_key *dev)
{
	uint32_t major = dev->rdev >> REVOKE_KDEV_MINORBITS;

	m->bits[major / 64] |= 1ULL << (major % 64);
}

/*
 * Set the bits of the majors of @dev[0..@n) in "pause_majors", before
 * they go into "pause_devs": one write.  The other bits are written as
 * they were: a hook that reads the word while it is written sees them
 * set all along.
 */
static int majors_add(struct store *rb, const struct revoke_rdev_key *dev,
		      size_t n)
{
	struct revoke_pause_majors m;
	uint32_t zero = 0;
	size_t i;

	if (bpf_map_lookup_elem(rb->pause_majors_fd, &zero, &m))
		return -errno;
	for (i = 0; i < n; i++)
		major_bit(&m, &dev[i]);
	return bpf_map_update_elem(rb->pause_majors_fd, &zero, &m, BPF_ANY) ?
	       -errno : 0;
}

/*
 * Make "pause_majors" the majors of the devices in "pause_devs": after a
 * device has left it (its bit goes if it was the last of its major), and
 * at a start.
 */
static int majors_sync(struct store *rb)
{
	struct revoke_pause_majors m = {};
	struct revoke_rdev_key dev, next;
	uint32_t zero = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(rb->pause_devs_fd, prev, &next)) {
		dev = next;
		major_bit(&m, &dev);
		prev = &dev;
	}
	if (errno != ENOENT)
		return -errno;
	return bpf_map_update_elem(rb->pause_majors_fd, &zero, &m, BPF_ANY) ?
	       -errno : 0;
}

/* Add @delta to the number of users @key's device is paused for. */
static int count_users(struct store *rb, const struct revoke_pause_key *key,
		       int delta)
{
	struct revoke_rdev_key dev = dev_of(key);
	__u32 users = 0;
	int ret;

	if (bpf_map_lookup_elem(rb->pause_devs_fd, &dev, &users) &&
	    errno != ENOENT)
		return -errno;
	users += delta;
	if (!users) {
		if (bpf_map_delete_elem(rb->pause_devs_fd, &dev) &&
		    errno != ENOENT)
			return -errno;
		ret = majors_sync(rb);
	} else {
		/* a device's first user: its major's bit before it goes in */
		ret = users == (__u32)delta ? majors_add(rb, &dev, 1) : 0;
		if (!ret && bpf_map_update_elem(rb->pause_devs_fd, &dev,
						&users, BPF_ANY))
			ret = -errno;
	}
	return ret ? ret : armed_update(rb);
}

/**
 * pause_set_add() - pause a device for a user
 * @rb: the daemon's handles
 * @key: the device and the user
 * @err: the errno the user's operations fail with (ENODEV or EIO)
 * @cause: one word saying who paused it; kept from the first pause
 * @subsystem: the class it is paused through, or "" (kept likewise)
 * @flags: REVOKE_PAUSE_REVOKE for pause --revoke, or 0; a pause that
 *	was revoked once stays marked
 * @change: REVOKE_ADDED, or REVOKE_ALREADY if it was paused (its errno
 *	is @err from now on)
 *
 * Return: 0, -ENOSPC if the set is full, or another negative errno.
 */
int pause_set_add(struct store *rb, const struct revoke_pause_key *key,
		  uint32_t err, const char *cause, const char *subsystem,
		  uint32_t flags, enum revoke_change *change)
{
	struct revoke_pause_val val = {};
	int ret;

	ret = attach_ensure(rb);
	if (ret)
		return ret;
	if (!bpf_map_lookup_elem(rb->paused_fd, key, &val)) {
		*change = REVOKE_ALREADY;
		val.err = err;
		val.flags |= flags;
		if (bpf_map_update_elem(rb->paused_fd, key, &val, BPF_EXIST))
			return -errno;
		return 0;
	}
	val.err = err;
	val.flags = flags;
	val.paused_at = (uint64_t)time(NULL);
	strncpy(val.cause, cause, sizeof(val.cause) - 1);
	strncpy(val.subsystem, subsystem, sizeof(val.subsystem) - 1);
	if (bpf_map_update_elem(rb->paused_fd, key, &val, BPF_NOEXIST))
		return errno == E2BIG ? -ENOSPC : -errno;
	ret = count_users(rb, key, 1);
	if (ret) {
		bpf_map_delete_elem(rb->paused_fd, key);
		return ret;
	}
	*change = REVOKE_ADDED;
	return 0;
}

/**
 * pause_set_cause() - say who holds a pause from now on
 * @rb: the daemon's handles
 * @key: the device and the user, paused
 * @cause: one word
 *
 * Return: 0, -ENOENT if it is not paused, or another negative errno.
 */
int pause_set_cause(struct store *rb, const struct revoke_pause_key *key,
		    const char *cause)
{
	struct revoke_pause_val val;

	if (bpf_map_lookup_elem(rb->paused_fd, key, &val))
		return -errno;
	memset(val.cause, 0, sizeof(val.cause));
	strncpy(val.cause, cause, sizeof(val.cause) - 1);
	if (bpf_map_update_elem(rb->paused_fd, key, &val, BPF_EXIST))
		return -errno;
	return 0;
}

/**
 * pause_set_get() - look up a pause
 * @rb: the daemon's handles
 * @key: the device and the user
 * @val: its entry
 *
 * Return: 0, -ENOENT if it is not paused, or another negative errno.
 */
int pause_set_get(struct store *rb, const struct revoke_pause_key *key,
		  struct revoke_pause_val *val)
{
	if (bpf_map_lookup_elem(rb->paused_fd, key, val))
		return -errno;
	return 0;
}

/**
 * pause_set_del() - resume a device for a user
 * @rb: the daemon's handles
 * @key: the device and the user
 * @change: REVOKE_DELETED, or REVOKE_ABSENT if it was not paused
 *
 * Return: 0 or a negative errno.
 */
int pause_set_del(struct store *rb, const struct revoke_pause_key *key,
		  enum revoke_change *change)
{
	struct revoke_pause_val val;

	if (bpf_map_lookup_elem(rb->paused_fd, key, &val)) {
		if (errno != ENOENT)
			return -errno;
		*change = REVOKE_ABSENT;
		return 0;
	}
	*change = REVOKE_DELETED;
	if (bpf_map_delete_elem(rb->paused_fd, key))
		return errno == ENOENT ? 0 : -errno;
	return count_users(rb, key, -1);
}

/**
 * pause_set_for_each() - call @fn for every pause
 * @rb: the daemon's handles
 * @fn: called with each key and value; a non-zero return stops the walk
 * @ctx: passed to @fn
 *
 * Return: 0, @fn's non-zero return, or a negative errno.
 */
int pause_set_for_each(struct store *rb, pause_set_fn fn, void *ctx)
{
	struct revoke_pause_key key, next;
	struct revoke_pause_val val;
	void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(rb->paused_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rb->paused_fd, &key, &val))
			continue;	/* deleted meanwhile */
		err = fn(&key, &val, ctx);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

struct slices {
	struct store *rb;
	const char *root;
	__u64 ids[REVOKE_PAUSE_SLICES];
	size_t nr;
};

/* Put @key's user's slice in "pause_slices", if the user has one. */
static int add_slice(const struct revoke_pause_key *key,
		     const struct revoke_pause_val *val, void *arg)
{
	struct revoke_pause_slice s = { .uid = key->uid, .level = 2 };
	struct slices *ctx = arg;
	char path[256];
	struct stat st;
	__u64 id;

	(void)val;
	snprintf(path, sizeof(path), "%s/user.slice/user-%u.slice", ctx->root,
		 key->uid);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;	/* no session of U's: nothing runs under it */
	id = st.st_ino;		/* a cgroup v2 directory's inode is its id */
	if (ctx->nr == REVOKE_PAUSE_SLICES)
		return -ENOSPC;
	ctx->ids[ctx->nr++] = id;
	if (bpf_map_update_elem(ctx->rb->pause_slices_fd, &id, &s, BPF_ANY))
		return -errno;
	return 0;
}

static bool wanted(const struct slices *ctx, __u64 id)
{
	size_t i;

	for (i = 0; i < ctx->nr; i++)
		if (ctx->ids[i] == id)
			return true;
	return false;
}

/**
 * pause_set_slices() - make "pause_slices" the slices of the paused users
 * @rb: the daemon's handles
 * @cgroup_root: where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup)
 *
 * The slices wanted go in before those no longer wanted go out, so that
 * no task of a paused user is let through in between.  A slice made
 * after this (a user's first login after the pause) is added by the
 * next call: every pause and resume makes one.
 *
 * Return: 0 or a negative errno.
 */
int pause_set_slices(struct store *rb, const char *cgroup_root)
{
	static struct slices ctx;
	__u64 id, next;
	void *prev = NULL;
	int err;

	ctx.rb = rb;
	ctx.root = cgroup_root;
	ctx.nr = 0;
	err = pause_set_for_each(rb, add_slice, &ctx);
	if (err)
		return err;
	while (!bpf_map_get_next_key(rb->pause_slices_fd, prev, &next)) {
		id = next;
		if (!wanted(&ctx, id) &&
		    !bpf_map_delete_elem(rb->pause_slices_fd, &id))
			continue;	/* the walk goes on from the start */
		prev = &id;
	}
	return 0;
}

/**
 * pause_class_add() - remember that a class is paused for a user
 * @rb: the daemon's handles
 * @key: the user and the class
 * @err: the errno of its devices' pauses
 * @cause: who paused it
 * @flags: REVOKE_PAUSE_REVOKE for pause --revoke, or 0 (kept once set)
 * @change: REVOKE_ADDED, or REVOKE_ALREADY (its errno is @err now)
 *
 * Return: 0, -ENOSPC if the set is full, or another negative errno.
 */
int pause_class_add(struct store *rb, const struct revoke_pause_class *key,
		    uint32_t err, const char *cause, uint32_t flags,
		    enum revoke_change *change)
{
	struct revoke_pause_val val = {};

	*change = bpf_map_lookup_elem(rb->pause_classes_fd, key, &val) ?
		  REVOKE_ADDED : REVOKE_ALREADY;
	val.err = err;
	val.flags |= flags;
	if (*change == REVOKE_ADDED) {
		val.paused_at = (uint64_t)time(NULL);
		strncpy(val.cause, cause, sizeof(val.cause) - 1);
		memcpy(val.subsystem, key->subsystem, sizeof(val.subsystem));
	}
	if (bpf_map_update_elem(rb->pause_classes_fd, key, &val, BPF_ANY))
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

/**
 * pause_class_del() - forget a paused class
 * @rb: the daemon's handles
 * @key: the user and the class
 * @change: REVOKE_DELETED, or REVOKE_ABSENT
 *
 * Return: 0 or a negative errno.
 */
int pause_class_del(struct store *rb, const struct revoke_pause_class *key,
		    enum revoke_change *change)
{
	*change = REVOKE_DELETED;
	if (!bpf_map_delete_elem(rb->pause_classes_fd, key))
		return 0;
	*change = REVOKE_ABSENT;
	return errno == ENOENT ? 0 : -errno;
}

/**
 * pause_class_for_each() - call @fn for every paused class
 * @rb: the daemon's handles
 * @fn: called with each key and value; a non-zero return stops the walk
 * @ctx: passed to @fn
 *
 * Return: 0, @fn's non-zero return, or a negative errno.
 */
int pause_class_for_each(struct store *rb, pause_class_fn fn, void *ctx)
{
	struct revoke_pause_class key, next;
	struct revoke_pause_val val;
	void *prev = NULL;
	int err;

	while (!bpf_map_get_next_key(rb->pause_classes_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(rb->pause_classes_fd, &key, &val))
			continue;
		err = fn(&key, &val, ctx);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* Count, in @ctx's "pause_devs"-shaped table, the users of @key's device. */
struct dev_users {
	struct revoke_rdev_key dev[REVOKE_PAUSE_ENTRIES];
	__u32 users[REVOKE_PAUSE_ENTRIES];
	size_t nr;
};

static int count_dev(const struct revoke_pause_key *key,
		     const struct revoke_pause_val *val, void *arg)
{
	struct revoke_rdev_key dev = dev_of(key);
	struct dev_users *du = arg;
	size_t i;

	(void)val;
	for (i = 0; i < du->nr; i++)
		if (!memcmp(&du->dev[i], &dev, sizeof(dev)))
			break;
	if (i == du->nr) {
		if (du->nr == REVOKE_PAUSE_ENTRIES)
			return -ENOSPC;
		du->dev[du->nr++] = dev;
	}
	du->users[i]++;
	return 0;
}

static bool counted(const struct dev_users *du,
		    const struct revoke_rdev_key *dev)
{
	size_t i;

	for (i = 0; i < du->nr; i++)
		if (!memcmp(&du->dev[i], dev, sizeof(*dev)))
			return true;
	return false;
}

/**
 * pause_set_sync() - make "pause_devs" count what "paused" holds, and
 *	"pause_majors" name their majors
 * @rb: the daemon's handles
 *
 * A daemon killed between a pause's two writes, or a "pause_devs" made
 * anew, would leave a pause the hooks never look up: a start counts
 * again, the entries wanted in before those not wanted go out.
 *
 * Return: 0 or a negative errno.
 */
int pause_set_sync(struct store *rb)
{
	static struct dev_users du;
	struct revoke_rdev_key dev, next;
	void *prev = NULL;
	size_t i;
	int err;

	du.nr = 0;
	memset(du.users, 0, sizeof(du.users));
	err = pause_set_for_each(rb, count_dev, &du);
	if (err)
		return err;
	err = majors_add(rb, du.dev, du.nr);
	if (err)
		return err;
	for (i = 0; i < du.nr; i++)
		if (bpf_map_update_elem(rb->pause_devs_fd, &du.dev[i],
					&du.users[i], BPF_ANY))
			return -errno;
	while (!bpf_map_get_next_key(rb->pause_devs_fd, prev, &next)) {
		dev = next;
		if (!counted(&du, &dev) &&
		    !bpf_map_delete_elem(rb->pause_devs_fd, &dev))
			continue;	/* the walk goes on from the start */
		prev = &dev;
	}
	err = majors_sync(rb);
	return err ? err : armed_update(rb);
}
