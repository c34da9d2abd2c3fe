// SPDX-License-Identifier: GPL-2.0
/*
 * loopdev.c - revoke the loop devices of a revoked file.
 *
 * The loop driver reads and writes its backing file from its own worker,
 * through the file's operations, without an LSM hook: revoking the file
 * does not stop I/O through /dev/loopN, discards (holes punched in the
 * file) included.  So after the file's deny, each loop device bound to
 * it is
 *
 *  1. found: LOOP_GET_STATUS64 on every bound /dev/loopN (the kernel
 *     fills lo_device and lo_inode from vfs_getattr() of the backing
 *     file, so they compare with the key that stat(2) gave; a path in
 *     /sys/block/loopN/loop/backing_file would depend on the mount
 *     namespace and says nothing of a renamed file);
 *  2. told to detach (LOOP_CLR_FD: at once if nobody else has it open,
 *     else at its last close, as losetup -d does), then denied by number
 *     (revoked_rdev), so every file of it, opened before or after, gets
 *     EIO; LOOP_CLR_FD comes first because the deny would refuse the
 *     daemon's own ioctl;
 *  3. put through the pipeline by number: its holders' descriptors are
 *     released, the last close detaches it and drops the backing file;
 *  4. once it is unbound, its entry is stamped removed, so that a new
 *     loop device with the same number works while the old files stay
 *     denied (see struct revoke_rdev_val);
 *  5. and every loop device is looked at again, for one set up on a
 *     descriptor of the file in a race with the file_ioctl hook
 *     (LOOP_CONFIGURE's descriptor is read from user memory twice).
 *
 * A loop device that stays bound (mounted, or held by a process the
 * pipeline could not release) stays denied and is reported.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "loopdev.h"
#include "pipeline.h"
#include "store/store.h"

#define LOOP_MAJOR 7
#define DETACH_WAIT_MS 1000
#define DETACH_POLL_MS 5

static void why(struct loopdev *l, const char *what, int err)
{
	const char *name = strerrorname_np(err);

	if (!l->why[0])
		snprintf(l->why, sizeof(l->why), "%s_%s", what,
			 name ? name : "EIO");
}

/* Is loop device @n bound to a file?  Its sysfs loop/ directory says. */
static bool bound(unsigned int n)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/block/loop%u/loop", n);
	return access(path, F_OK) == 0;
}

/* Open /dev/loop@n, checking that it is the loop device. */
static int open_loop(unsigned int n)
{
	char path[64];
	struct stat st;
	uint32_t rdev, want;
	int fd;

	snprintf(path, sizeof(path), "/dev/loop%u", n);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	revoke_kdev(LOOP_MAJOR, n, &want);
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) ||
	    revoke_kdev_from_stdev(st.st_rdev, &rdev) || rdev != want) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

static struct loopdev *known(struct loopdev_set *set, unsigned int n)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		if (revoke_kdev_minor(set->dev[i].key.rdev) == n)
			return &set->dev[i];
	return NULL;
}

/* Look at loop device @n; add it to @set if @key backs it. */
static void look_at(struct loopdev_set *set, const struct revoke_key *key,
		    unsigned int n)
{
	struct loop_info64 info;
	struct loopdev *l;
	uint32_t kdev;
	int fd;

	if (known(set, n) || !bound(n))
		return;
	fd = open_loop(n);
	/*
	 * EIO: the hooks deny its node (revoked by path) or its number:
	 * nothing but root's own mknod'd nodes reaches it any more.
	 */
	if (fd == -EIO)
		return;
	if (fd < 0) {
		if (!set->scan_failed[0])
			snprintf(set->scan_failed, sizeof(set->scan_failed),
				 "loop%u_%s", n, strerrorname_np(-fd) ?: "EIO");
		return;
	}
	if (ioctl(fd, LOOP_GET_STATUS64, &info) ||
	    revoke_kdev_from_stdev((dev_t)info.lo_device, &kdev) ||
	    kdev != key->dev || info.lo_inode != key->ino ||
	    set->nr == LOOPDEV_MAX) {
		close(fd);
		return;
	}
	l = &set->dev[set->nr++];
	memset(l, 0, sizeof(*l));
	l->key.type = REVOKE_RDEV_BLOCK;
	revoke_kdev(LOOP_MAJOR, n, &l->key.rdev);
	l->fd = fd;
}

/* Every loop device bound to @key, added to @set. */
static void find(struct loopdev_set *set, const struct revoke_key *key)
{
	struct dirent *de;
	unsigned int n;
	char end;
	DIR *d;

	d = opendir("/sys/block");
	if (!d)
		return;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "loop%u%c", &n, &end) == 1)
			look_at(set, key, n);
	closedir(d);
}

/* Steps 2 and 3 for @l: detach, deny, release its holders. */
static void revoke_one(struct loopdev *l, struct store *rb,
		       struct pipeline *pl)
{
	struct pipeline_opts opts = { .release = REVOKE_RELEASE_YES,
				      .timeout_ms = PIPELINE_TIMEOUT_DEFAULT_MS };
	struct pipeline_result res;
	enum revoke_change change;
	int err;

	if (ioctl(l->fd, LOOP_CLR_FD) && errno != ENXIO)
		why(l, "detach", errno);
	close(l->fd);
	l->fd = -1;
	err = device_set_add(rb, &l->key, "loop", false, &change);
	if (err) {
		why(l, "deny", -err);
		return;
	}
	l->denied = true;
	l->ours = change == REVOKE_ADDED;
	if (!pl->ready)
		return;
	err = pipeline_run_rdev(pl, &l->key, &opts, &res);
	if (err) {
		why(l, "release", -err);
		return;
	}
	l->released = res.rep.released;
	if (res.rep.failed)
		why(l, "release", EBUSY);
	pipeline_result_free(&res);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Step 4: wait for each device to be unbound (a released holder's last
 * close runs in that holder, on its way back to user space), then scope
 * its entry, if this add made it, to the instance that went away.
 */
static void settle(struct loopdev_set *set, struct store *rb,
		   size_t from)
{
	uint64_t end = now_ms() + DETACH_WAIT_MS;
	enum revoke_change change;
	struct loopdev *l;
	size_t i;
	int err;

	for (i = from; i < set->nr; i++) {
		l = &set->dev[i];
		if (!l->denied)
			continue;
		while (bound(revoke_kdev_minor(l->key.rdev)) && now_ms() < end)
			usleep(DETACH_POLL_MS * 1000);
		l->detached = !bound(revoke_kdev_minor(l->key.rdev));
		if (!l->detached) {
			why(l, "detach", EBUSY);
			continue;
		}
		if (!l->ours)
			continue;
		err = device_set_add(rb, &l->key, "loop", true, &change);
		if (err)
			why(l, "scope", -err);
	}
}

/**
 * loopdev_revoke_file() - revoke the loop devices of a revoked file
 * @set: the result
 * @rb: the daemon's handles
 * @pl: the pipeline, to release each device's holders
 * @key: the file, already in the revoked set
 *
 * Runs the steps above twice: the second finds devices set up while the
 * first ran.
 */
void loopdev_revoke_file(struct loopdev_set *set, struct store *rb,
			 struct pipeline *pl, const struct revoke_key *key)
{
	size_t from = 0, i;
	int round;

	memset(set, 0, sizeof(*set));
	for (round = 0; round < 2; round++) {
		find(set, key);
		for (i = from; i < set->nr; i++)
			revoke_one(&set->dev[i], rb, pl);
		settle(set, rb, from);
		if (set->nr == from)
			break;
		from = set->nr;
	}
	for (i = 0; i < set->nr; i++)
		if (set->dev[i].fd >= 0)
			close(set->dev[i].fd);
}

/**
 * loopdev_report() - add's lines for the loop devices: "loop rdev=7:N
 *	denied=yes detached=yes released=N [reason=WORD]", and "loop
 *	scan=failed reason=WORD" if some loop device could not be looked at
 * @resp: the answer
 * @set: after loopdev_revoke_file()
 *
 * Return: true if everything was done.
 */
bool loopdev_report(struct rbuf *resp, const struct loopdev_set *set)
{
	const struct loopdev *l;
	bool ok = !set->scan_failed[0];
	size_t i;

	for (i = 0; i < set->nr; i++) {
		l = &set->dev[i];
		rbuf_printf(resp, REVOKE_LINE_LOOP " "
			    REVOKE_FIELD_RDEV "=%u:%u "
			    REVOKE_FIELD_DENIED "=%s "
			    REVOKE_FIELD_DETACHED "=%s "
			    REVOKE_FIELD_RELEASED "=%u%s%s\n",
			    revoke_kdev_major(l->key.rdev),
			    revoke_kdev_minor(l->key.rdev),
			    l->denied ? "yes" : "no",
			    l->detached ? "yes" : "no", l->released,
			    l->why[0] ? " " REVOKE_FIELD_REASON "=" : "",
			    l->why);
		ok &= l->denied && l->detached && !l->why[0];
	}
	if (set->scan_failed[0])
		rbuf_printf(resp, REVOKE_LINE_LOOP " "
			    REVOKE_FIELD_SCAN "=failed "
			    REVOKE_FIELD_REASON "=%s\n",
			    set->scan_failed);
	return ok;
}
