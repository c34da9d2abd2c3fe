// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - the enforcing programs are attached only while something
 * is revoked.
 *
 * An attached BPF LSM program costs every call of its hook a trampoline,
 * even when it returns at once: while nothing is revoked, no program is
 * attached and the hooks cost nothing.  The rules:
 *
 *  - attach_ensure() attaches every program this kernel can run, pins
 *    each link under the program's name, and checks that all are pinned,
 *    before any set takes its first entry (the sets call it first);
 *  - attach_idle_tick() detaches them once every set has been empty for
 *    the grace period; it reads the sets itself, since the programs drop
 *    entries of their own (freed inodes, freed super_blocks);
 *  - after kill -9 the pins say what was attached: store_open() attaches
 *    when an entry exists and detaches when none does.
 *
 * So no entry is ever in a set without its hooks: attach before insert,
 * detach only after the last delete, both in the daemon's one thread.
 *
 * Detaching is slow (each link's teardown unregisters its ftrace direct
 * call, and ftrace_shutdown() waits for an RCU-tasks-rude and an
 * RCU-tasks grace period under ftrace_lock: one link after another,
 * about 140 ms each under emulation, 3.9 s for 27 links on 6.12), and
 * the kernel does it in whichever thread drops a link's last reference.
 * So the pins are removed here, and the links' descriptors are closed by
 * a thread of their own, one at a time.  An attach in the meantime does
 * not wait for all of them: it stops that thread after the close under
 * way, pins again the links it had not closed yet (still attached: they
 * never stopped enforcing), and attaches only the programs whose link
 * is gone (the kernel refuses, EBUSY, a program on a hook it is still
 * linked to, so the close under way is waited for).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/clock.h"
#include "armed.h"
#include "attach.h"
#include "pins.h"
#include "progs.h"
#include "store.h"
#include "revoke.skel.h"

/* how often the sets are read while attached, for the programs' drops */
#define ATTACH_POLL_MS 1000

/**
 * attach_prog_tag() - the tag (hash of the code) of a loaded program
 * @prog_fd: the program
 * @tag: result
 *
 * Return: 0 or a negative errno.
 */
int attach_prog_tag(int prog_fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

/*
 * Does the link pinned as @name run a program with this @tag (this
 * build's code) that uses @rb's maps only (not maps since made anew)?
 */
static bool pinned_link_runs(const struct store *rb, const char *name,
			     const __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	__u8 old[BPF_TAG_SIZE];
	int link_fd, prog_fd;
	bool same = false;

	link_fd = revoke_pin_get(rb->pin_dir, name);
	if (link_fd < 0)
		return false;
	if (!bpf_obj_get_info_by_fd(link_fd, &info, &len)) {
		prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
		if (prog_fd >= 0) {
			same = !attach_prog_tag(prog_fd, old) &&
			       !memcmp(old, tag, BPF_TAG_SIZE) &&
			       progs_uses_our_maps(rb, prog_fd);
			close(prog_fd);
		}
	}
	close(link_fd);
	return same;
}

/*
 * Attach the LSM program @prog_fd.  The kernel refuses (EBUSY) a program
 * on a hook it is still linked to: a program adopted at a start (progs.c)
 * whose link an earlier daemon dropped is linked until the kernel has
 * torn that link down, some seconds under emulation.  So an EBUSY is
 * tried again, for ATTACH_BUSY_MS at most.
 */
#define ATTACH_BUSY_MS 10000
static int link_lsm(int prog_fd)
{
	int fd, waited = 0;

	for (;;) {
		fd = bpf_link_create(prog_fd, 0, BPF_LSM_MAC, NULL);
		if (fd >= 0 || errno != EBUSY || waited >= ATTACH_BUSY_MS)
			return fd < 0 ? -errno : fd;
		usleep(20000);
		waited += 20;
	}
}

/*
 * Attach the LSM program @prog_fd and pin its link as @name, replacing
 * an existing pin atomically with rename(2).
 */
static int attach_and_pin(int prog_fd, const char *pin_dir, const char *name,
			  char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int link_fd, ret;

	link_fd = link_lsm(prog_fd);
	if (link_fd < 0) {
		ret = link_fd;
		snprintf(err, errlen, "cannot attach %s: %s", name, strerror(-ret));
		return ret;
	}
	ret = revoke_pin_path(path, sizeof(path), pin_dir, name);
	if (!ret)
		ret = snprintf(tmp, sizeof(tmp), "%s" TMP_SUFFIX, path) >= (int)sizeof(tmp) ?
		      -ENAMETOOLONG : 0;
	if (!ret) {
		unlink(tmp);
		ret = bpf_obj_pin(link_fd, tmp) ? -errno : 0;
	}
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "cannot pin %s: %s", path, strerror(-ret));
		unlink(tmp);
	}
	/* The pin keeps it attached; our fd is not needed. */
	close(link_fd);
	return ret;
}

/*
 * Attach every program, keeping a pinned link that runs the same code,
 * unless @fresh_map: a map was created anew (a build that lacked it, or a
 * pin removed by hand), and the pinned programs still use the old one.
 */
static int attach_all(struct store *rb, bool fresh_map, char *err,
		      size_t errlen)
{
	__u8 tag[BPF_TAG_SIZE];
	int i, ret;

	for (i = 0; i < REVOKE_NR_PROGS; i++) {
		const char *name = revoke_prog_names[i];

		if (rb->skipped[i])
			continue;	/* the kernel lacks its hook */
		ret = attach_prog_tag(rb->prog_fd[i], tag);
		if (ret) {
			snprintf(err, errlen, "cannot read %s: %s", name,
				 strerror(-ret));
			return ret;
		}
		if (!fresh_map && pinned_link_runs(rb, name, tag))
			continue;
		if (revoke_pinned(rb->pin_dir, name))
			rb->replaced++;
		rb->adopted = false;
		ret = attach_and_pin(rb->prog_fd[i], rb->pin_dir, name, err,
				     errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static void release_wait(struct store *rb);
static int release_reclaim(struct store *rb);

/*
 * An attach failed: let go of what it attached if nothing is revoked;
 * if something is (a restart), the links that enforced it stay pinned.
 */
static void attach_fail(struct store *rb)
{
	uint32_t bits;

	if (!armed_bits(rb, &bits) && !bits)
		attach_release(rb);
}

/**
 * attach_ensure() - make sure every enforcing program is attached
 * @rb: the daemon's handles
 *
 * Called before an entry goes into any set.  Attaches (and pins) what is
 * not attached yet, then checks that every program the kernel can run
 * has its pinned link.  On failure the reason is in rb->attach_err, and
 * whatever was attached is let go again unless something is revoked.
 *
 * Return: 0, or a negative errno.
 */
int attach_ensure(struct store *rb)
{
	uint64_t start;
	int ret, n;

	if (rb->attached || !rb->skel)
		return 0;
	start = revoke_now_us();
	rb->last_kept = release_reclaim(rb);
	rb->attach_err[0] = '\0';
	ret = attach_all(rb, rb->fresh_map, rb->attach_err,
			 sizeof(rb->attach_err));
	n = store_count_attached(rb->pin_dir);
	if (!ret && n != REVOKE_NR_PROGS - rb->nr_skipped) {
		snprintf(rb->attach_err, sizeof(rb->attach_err),
			 "only %d of %d programs are attached after attaching "
			 "them", n, REVOKE_NR_PROGS - rb->nr_skipped);
		ret = -ENOLINK;
	}
	if (ret) {
		attach_fail(rb);
		return ret;
	}
	rb->fresh_map = false;
	rb->attached = true;
	rb->idle_since_ms = 0;
	rb->attaches++;
	rb->last_attach_us = revoke_now_us() - start;
	rb->attach_taken_us = rb->last_attach_us;
	return 0;
}

/**
 * struct release_batch - the links of a detach, closed one at a time
 * @lock: guards @stop and @next
 * @stop: an attach wants the links not closed yet back
 * @next: the index of the next descriptor to close
 * @n: how many descriptors
 * @fd: the links' descriptors, their pins gone
 * @prog: the index of each one's program in revoke_prog_names, or -1
 *	for the left-over of an interrupted replacement (never kept)
 */
struct release_batch {
	pthread_mutex_t lock;
	bool stop;
	int next;
	int n;
	int fd[2 * REVOKE_NR_PROGS];
	int prog[2 * REVOKE_NR_PROGS];
};

/* The index of the next descriptor to close, or -1: none, or stopped. */
static int release_next(struct release_batch *b)
{
	int i = -1;

	pthread_mutex_lock(&b->lock);
	if (!b->stop && b->next < b->n)
		i = b->next++;
	pthread_mutex_unlock(&b->lock);
	return i;
}

static void *release_main(void *arg)
{
	struct release_batch *b = arg;
	int i;

	while ((i = release_next(b)) >= 0)
		close(b->fd[i]);
	return NULL;
}

static void release_free(struct release_batch *b)
{
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* Close @b's descriptors in a thread of their own, or here if none starts. */
static void release_async(struct store *rb, struct release_batch *b)
{
	if (pthread_create(&rb->release_thread, NULL, release_main, b)) {
		release_main(b);
		release_free(b);
		return;
	}
	rb->release = b;
}

/* Wait until the links of the last detach are gone. */
static void release_wait(struct store *rb)
{
	if (!rb->release)
		return;
	pthread_join(rb->release_thread, NULL);
	release_free(rb->release);
	rb->release = NULL;
}

/*
 * Stop the detach under way after the close it is in, and pin again the
 * links it had not closed: they are attached still.  What cannot be
 * pinned again is closed here.  Return: how many were kept.
 */
static int release_reclaim(struct store *rb)
{
	struct release_batch *b = rb->release;
	char path[PATH_MAX];
	int i, kept = 0;

	if (!b)
		return 0;
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_mutex_unlock(&b->lock);
	pthread_join(rb->release_thread, NULL);
	for (i = b->next; i < b->n; i++) {
		if (b->prog[i] >= 0 &&
		    !revoke_pin_path(path, sizeof(path), rb->pin_dir,
				     revoke_prog_names[b->prog[i]]) &&
		    !bpf_obj_pin(b->fd[i], path))
			kept++;
		close(b->fd[i]);
	}
	release_free(b);
	rb->release = NULL;
	return kept;
}

/* Take the pin of program @prog (@suffix: its left-over) away, keeping
 * its link's descriptor in @b. */
static void release_pin(struct release_batch *b, const char *pin_dir,
			int prog, const char *suffix)
{
	char path[PATH_MAX];
	int fd;

	if (revoke_pin_path(path, sizeof(path), pin_dir, revoke_prog_names[prog]) ||
	    strlen(path) + strlen(suffix) >= sizeof(path))
		return;
	strcat(path, suffix);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	if (unlink(path) || b->n == (int)(sizeof(b->fd) / sizeof(b->fd[0]))) {
		close(fd);
		return;
	}
	b->prog[b->n] = *suffix ? -1 : prog;
	b->fd[b->n++] = fd;
}

/**
 * attach_release() - detach every enforcing program
 * @rb: the daemon's handles
 *
 * Only while every set is empty.  The pins go at once; the links go when
 * a thread of their own has closed their last descriptors.
 */
void attach_release(struct store *rb)
{
	struct release_batch *b;
	int i;

	release_wait(rb);
	b = calloc(1, sizeof(*b));
	if (!b)
		return;	/* still attached; the next tick tries again */
	pthread_mutex_init(&b->lock, NULL);
	for (i = 0; i < REVOKE_NR_PROGS; i++) {
		release_pin(b, rb->pin_dir, i, "");
		release_pin(b, rb->pin_dir, i, TMP_SUFFIX);
	}
	if (rb->attached)
		rb->detaches++;
	rb->attached = false;
	rb->idle_since_ms = 0;
	if (b->n)
		release_async(rb, b);
	else
		release_free(b);
}

/*
 * Fold the programs' own drops of freed inodes into the counter that
 * arms them (the daemon's counter only ever goes down by its deletes).
 */
static void attach_recount(struct store *rb)
{
	struct revoke_state st;
	uint64_t count;

	if (inode_set_state(rb, &st) || st.freed == rb->freed_seen)
		return;
	rb->freed_seen = st.freed;
	inode_set_sync(rb, &count);
}

/**
 * attach_resync() - set the counters (and pause_devs, pause_majors), and so
 *	revoke_armed, from what the sets hold
 * @rb: the daemon's handles
 *
 * Called at a start before this build's programs are attached: they read
 * pause_majors, which an older build's did not fill.
 *
 * Return: 0 or a negative errno.
 */
int attach_resync(struct store *rb)
{
	uint64_t count;
	int ret;

	ret = inode_set_sync(rb, &count);
	if (!ret)
		ret = device_set_sync(rb, &count);
	if (!ret)
		ret = pause_set_sync(rb);
	return ret;
}

/**
 * attach_sets_hold() - does any set hold an entry?
 * @rb: the daemon's handles
 *
 * Counts the sets themselves (one pass over the table) and sets the
 * counters and revoke_armed from them.
 *
 * Return: true if some set holds an entry, or if it cannot be told.
 */
bool attach_sets_hold(struct store *rb)
{
	uint32_t bits;

	if (attach_resync(rb) || armed_bits(rb, &bits))
		return true;
	return bits != 0;
}

/**
 * attach_idle_tick() - detach the programs once nothing has been revoked
 * for @grace_ms
 * @rb: the daemon's handles
 * @now_ms: CLOCK_MONOTONIC, in milliseconds
 * @grace_ms: how long every set must have been empty
 *
 * Return: milliseconds until it wants to be called again, or -1 when
 * the programs are detached (the next attach_ensure() wakes it).
 */
int attach_idle_tick(struct store *rb, uint64_t now_ms, uint32_t grace_ms)
{
	uint32_t bits;

	if (!rb->attached)
		return -1;
	attach_recount(rb);
	if (armed_bits(rb, &bits) || bits) {
		rb->idle_since_ms = 0;
		return ATTACH_POLL_MS;
	}
	if (!rb->idle_since_ms)
		rb->idle_since_ms = now_ms;
	if (now_ms - rb->idle_since_ms < grace_ms) {
		uint64_t left = grace_ms - (now_ms - rb->idle_since_ms);

		return left < ATTACH_POLL_MS ? (int)left : ATTACH_POLL_MS;
	}
	/* the counters once more from the sets themselves, then let go */
	if (attach_sets_hold(rb)) {
		rb->idle_since_ms = 0;
		return ATTACH_POLL_MS;
	}
	attach_release(rb);
	return -1;
}

/**
 * attach_start() - bring the programs to the state the sets ask for
 * @rb: the daemon's handles, with its skeleton loaded and the armed word
 *	set from the sets
 * @fresh_map: a map was created anew, so pinned links use another one
 * @err: on failure, why
 * @errlen: size of @err
 *
 * Something revoked: attach now (a daemon killed after its last delete
 * left its pins).  Nothing: let go of any link left pinned.
 *
 * Return: 0 or a negative errno.
 */
int attach_start(struct store *rb, bool fresh_map, char *err, size_t errlen)
{
	uint32_t bits;
	int ret;

	rb->fresh_map = fresh_map;
	ret = armed_bits(rb, &bits);
	if (ret) {
		snprintf(err, errlen, "cannot read the revoked sets: %s",
			 strerror(-ret));
		return ret;
	}
	if (!bits) {
		attach_release(rb);
		return 0;
	}
	ret = attach_ensure(rb);
	if (ret)
		snprintf(err, errlen, "%s", rb->attach_err);
	return ret;
}

/**
 * attach_close() - wait for the links a detach let go of
 * @rb: the daemon's handles
 *
 * The pinned links stay as they are.
 */
void attach_close(struct store *rb)
{
	release_wait(rb);
}
