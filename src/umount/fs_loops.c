// SPDX-License-Identifier: GPL-2.0
/*
 * fs_loops.c - loop devices: which are bound (/sys/block/loopN/loop),
 * their numbers (/sys/block/loopN/dev), what LOOP_GET_STATUS64 says of
 * the backing file (lo_device: the s_dev that vfs_getattr() gives, so a
 * second signal besides the backing_file path), and LOOP_CLR_FD.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "umount.h"

#define DELETED " (deleted)"

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/**
 * fs_loops_list() - the loop devices bound to a file, by number
 * @n: their numbers, ascending (free() it)
 * @nr: how many
 *
 * Return: 0, or a negative errno.
 */
int fs_loops_list(unsigned int **n, size_t *nr)
{
	unsigned int num, *nn;
	struct dirent *de;
	char path[300];
	char tail;
	DIR *d;

	*n = NULL;
	*nr = 0;
	d = opendir("/sys/block");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "loop%u%c", &num, &tail) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop", de->d_name);
		if (access(path, F_OK))
			continue;
		nn = realloc(*n, (*nr + 1) * sizeof(*nn));
		if (!nn) {
			closedir(d);
			free(*n);
			*n = NULL;
			*nr = 0;
			return -ENOMEM;
		}
		*n = nn;
		nn[(*nr)++] = num;
	}
	closedir(d);
	qsort(*n, *nr, sizeof(**n), cmp_uint);
	return 0;
}

/**
 * fs_loops_backing_trim() - a backing_file's text as a path: without its
 *	newline and " (deleted)"
 * @s: the text, changed in place
 */
void fs_loops_backing_trim(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[--n] = '\0';
	if (n > strlen(DELETED) && !strcmp(s + n - strlen(DELETED), DELETED))
		s[n - strlen(DELETED)] = '\0';
}

/**
 * fs_loops_rdev() - loop device @n's number, from /sys/block/loopN/dev
 * @n: the loop device's index
 * @rdev: its device number
 *
 * Return: 0, or a negative errno.
 */
int fs_loops_rdev(unsigned int n, dev_t *rdev)
{
	unsigned int maj, min;
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/block/loop%u/dev", n);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*rdev = makedev(maj, min);
	return 0;
}

/* Open loop device @n by its node, checked against its number. */
static int open_loop(unsigned int n, dev_t *rdev)
{
	char path[64];
	struct stat st;
	int fd, err;

	err = fs_loops_rdev(n, rdev);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/dev/loop%u", n);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != *rdev) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/**
 * fs_loops_status() - what LOOP_GET_STATUS64 says of loop device @n's
 *	backing file: the device it is on
 * @n: the loop device's number
 * @lo_device: the backing file's st_dev (a user-space dev_t)
 *
 * Return: 0, or a negative errno (-ENXIO: not bound).
 */
int fs_loops_status(unsigned int n, dev_t *lo_device)
{
	struct loop_info64 info;
	dev_t rdev;
	int fd, err = 0;

	fd = open_loop(n, &rdev);
	if (fd < 0)
		return fd;
	if (ioctl(fd, LOOP_GET_STATUS64, &info))
		err = -errno;
	else
		*lo_device = (dev_t)info.lo_device;
	close(fd);
	return err;
}

/**
 * fs_loops_detach() - LOOP_CLR_FD loop device @n, and wait (1 s at most)
 *	until it has let its backing file go
 * @n: the loop device's number
 *
 * The kernel detaches at once when nobody else has the device open, and
 * otherwise at its last close (LO_FLAGS_AUTOCLEAR): then the backing
 * file is still held and the answer is -EBUSY.
 *
 * Return: 0 if it is unbound, -ENXIO if it was already, -EBUSY, or the
 * negative errno of the open or the ioctl.
 */
int fs_loops_detach(unsigned int n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64];
	dev_t rdev;
	int fd, i, err = 0;

	fd = open_loop(n, &rdev);
	if (fd < 0)
		return fd == -ENOENT ? -ENXIO : fd;
	if (ioctl(fd, LOOP_CLR_FD, 0))
		err = -errno;
	close(fd);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/sys/block/loop%u/loop", n);
	for (i = 0; i < 100; i++) {
		if (access(path, F_OK))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}
