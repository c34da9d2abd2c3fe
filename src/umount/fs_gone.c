// SPDX-License-Identifier: GPL-2.0
/*
 * fs_gone.c - is a superblock really gone after its last umount?  No
 * mountinfo line of any mount namespace names its s_dev, and, for a
 * filesystem on a block device, the device opens with O_EXCL (EBUSY while
 * a superblock still claims it).  The device is opened by number through
 * a node of our own, so that neither a renamed /dev entry nor the
 * filesystem itself is looked at.  The last umount's superblock shutdown
 * can finish a moment after umount2() returns (a deferred mntput, the
 * loop device's release): fs_gone_wait() polls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "umount.h"

#define POLL_MS 20

/* Is @s_dev in the mountinfo of namespace @ns?  1, 0, negative errno. */
static int mounted_in(const struct fs_ns *ns, dev_t s_dev, char *why,
		      size_t len)
{
	int procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *name = "self/mountinfo";
	struct fs_ns_files f = { &procfd, &name, 1 };
	struct fs_mount_table t;
	char *buf = NULL;
	size_t n, i;
	int err;

	if (procfd < 0)
		return -errno;
	err = fs_ns_run(ns, fs_ns_cat, &f, &buf, &n);
	close(procfd);
	if (!err)
		err = fs_mounts_parse(buf, strlen(buf), &t);
	free(buf);
	if (err)
		return err;
	for (i = 0; i < t.nr && t.m[i].dev != s_dev; i++)
		;
	if (i < t.nr)
		snprintf(why, len, "mounted in mount namespace %lu (pid %d) at %s",
			 (unsigned long)ns->ino, ns->pid, t.m[i].path);
	err = i < t.nr;
	fs_mounts_table_free(&t);
	return err;
}

/* The block device of @s_dev (@source if it is anonymous), or 0. */
static dev_t block_dev(dev_t s_dev, const char *source)
{
	struct stat st;

	if (major(s_dev))
		return s_dev;
	if (source && !strncmp(source, "/dev/", 5) && !stat(source, &st) &&
	    S_ISBLK(st.st_mode))
		return st.st_rdev;
	return 0;
}

/* Does block device @bdev open with O_EXCL?  1, 0 (EBUSY), -errno. */
static int opens_excl(dev_t bdev)
{
	char dir[] = "/dev/.fs_gone.XXXXXX", node[64];
	int fd, ret;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(node, sizeof(node), "%s/b", dir);
	if (mknod(node, S_IFBLK | 0600, bdev)) {
		ret = -errno;
		rmdir(dir);
		return ret;
	}
	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	ret = fd >= 0 ? 1 : errno == EBUSY ? 0 : -errno;
	if (fd >= 0)
		close(fd);
	unlink(node);
	rmdir(dir);
	/* a device that is gone holds no superblock either */
	return ret == -ENXIO || ret == -ENODEV ? 1 : ret;
}

/**
 * fs_gone_check() - is the superblock @s_dev gone: mounted in no mount
 *	namespace, and its block device (if it has one) free to claim?
 * @s_dev: the superblock
 * @source: its mount source from mountinfo (for a filesystem whose s_dev
 *	is anonymous but which sits on a block device, as btrfs), or NULL
 * @why: what still holds it, one line, when false
 * @len: size of @why
 *
 * Return: true if it is gone.
 */
bool fs_gone_check(dev_t s_dev, const char *source, char *why, size_t len)
{
	struct fs_ns *ns;
	size_t nr, i;
	dev_t bdev;
	int ret = 0;

	why[0] = '\0';
	ret = fs_ns_list(&ns, &nr);
	if (ret) {
		snprintf(why, len, "cannot list mount namespaces: %s",
			 strerrorname_np(-ret) ?: "EIO");
		return false;
	}
	for (i = 0; i < nr && !ret; i++) {
		ret = mounted_in(&ns[i], s_dev, why, len);
		if (ret < 0)
			snprintf(why, len, "cannot read mount namespace %lu: %s",
				 (unsigned long)ns[i].ino,
				 strerrorname_np(-ret) ?: "EIO");
	}
	fs_ns_free(ns, nr);
	if (ret)
		return false;
	bdev = block_dev(s_dev, source);
	if (!bdev)
		return true;
	ret = opens_excl(bdev);
	if (ret == 1)
		return true;
	snprintf(why, len, "block device %u:%u %s", major(bdev), minor(bdev),
		 ret ? strerrorname_np(-ret) ?: "EIO" : "busy (EBUSY)");
	return false;
}

/**
 * fs_gone_wait() - fs_gone_check() until it is true or @timeout_ms passed
 * @s_dev: the superblock
 * @source: its mount source, or NULL
 * @timeout_ms: how long to wait at most
 * @why: what still holds it, when false
 * @len: size of @why
 *
 * Return: true if it is gone.
 */
bool fs_gone_wait(dev_t s_dev, const char *source, int timeout_ms, char *why,
		  size_t len)
{
	struct timespec ts = { 0, POLL_MS * 1000 * 1000 };
	int waited = 0;

	while (!fs_gone_check(s_dev, source, why, len)) {
		if (waited >= timeout_ms)
			return false;
		nanosleep(&ts, NULL);
		waited += POLL_MS;
	}
	return true;
}
