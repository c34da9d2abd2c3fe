// SPDX-License-Identifier: GPL-2.0
/*
 * pins.c - the pin directory (REVOKE_PIN_DIR by default): what is
 * pinned there, which programs are attached, and taking it all down.
 *
 * Every enforcement program has one pinned link, named after it; the maps
 * are pinned under their own names (see map_pin_name() in store.c).
 * Loading and attaching is store.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "store.h"
#include "pins.h"
#include "progs.h"

const char *const revoke_prog_names[REVOKE_NR_PROGS] = {
	"revoke_file_permission",
	"revoke_mmap_file",
	"revoke_file_ioctl",
	"revoke_file_open",
	"revoke_inode_free",
	"revoke_file_lock",
	"revoke_file_fcntl",
	"revoke_file_mprotect",
	"revoke_path_truncate",
	"revoke_file_receive",
	"revoke_file_free",
	"revoke_file_truncate",
	"revoke_file_ioctl_compat",
	"revoke_kernel_read_file",
	"revoke_kernel_post_read_file",
	"revoke_uring_cmd",
	"revoke_mmap_backing_file",
	"revoke_file_send_sigiotask",
	"revoke_inode_getxattr",
	"revoke_inode_listxattr",
	"revoke_inode_setxattr",
	"revoke_inode_removexattr",
	"revoke_inode_setattr",
	"revoke_inode_setattr_6_1",
	"revoke_inode_get_acl",
	"revoke_inode_set_acl",
	"revoke_inode_remove_acl",
	"revoke_inode_file_getattr",
	"revoke_inode_file_setattr",
	"revoke_sb_free",
};

static const char *const map_names[] = {
	"revoke_table",
	LEGACY_SET,
	"revoke_state",
	"revoke_events",
	"revoke_reports",
	"revoke_filter",
	"revoked_rdev",
	"revoke_rdev_state",
	"rdev_files",
	"revoke_reach",
	"revoke_b_bss",		/* revoke_armed: see map_pin_name() */
	"revoke_layout",
	"revoke_names",
	"revoked_supers",
	"paused",
	"pause_devs",
	"pause_majors",
	"pause_slices",
	"pause_classes",
	"revoked_files",
};

/**
 * revoke_pin_path() - the path of a pin
 * @buf: result
 * @len: size of @buf
 * @dir: the pin directory
 * @name: the object's name
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int revoke_pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * revoke_dir_root_only() - is this a folder of root's only root may write?
 * @st: what lstat(2) said of it
 *
 * Return: true if it is: nobody else could unlink or plant a pin in it.
 */
bool revoke_dir_root_only(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == 0 &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/**
 * revoke_map_pin_name() - the name a map is pinned under
 * @map: the map
 * @name: its own name, but with '_' for '.', which a BPF filesystem
 *	refuses in names (the global data's map "revoke_b.bss" is pinned as
 *	revoke_b_bss, the holder iterators' "holders_.bss" as holders__bss)
 */
void revoke_map_pin_name(const struct bpf_map *map, char name[NAME_MAX + 1])
{
	char *dot;

	snprintf(name, NAME_MAX + 1, "%s", bpf_map__name(map));
	while ((dot = strchr(name, '.')))
		*dot = '_';
}

/**
 * revoke_pin_get() - open a pinned object
 * @dir: the pin directory
 * @name: the object's name
 *
 * Return: its fd, -ENOENT if it is not pinned, or another negative errno.
 */
int revoke_pin_get(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (revoke_pin_path(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

/**
 * revoke_pinned() - is an object pinned?
 * @dir: the pin directory
 * @name: the object's name
 *
 * Return: true if it is, and can be opened.
 */
bool revoke_pinned(const char *dir, const char *name)
{
	int fd = revoke_pin_get(dir, name);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/**
 * store_count_attached() - how many of the programs have a pinned link
 * @pin_dir: the pin directory
 *
 * Return: 0 to REVOKE_NR_PROGS.
 */
int store_count_attached(const char *pin_dir)
{
	int i, n = 0;

	for (i = 0; i < REVOKE_NR_PROGS; i++)
		n += revoke_pinned(pin_dir, revoke_prog_names[i]);
	return n;
}

/**
 * store_prog_state() - what became of one program
 * @rb: the daemon's handles
 * @i: its index in revoke_prog_names
 *
 * Return: "attached" (its link is pinned), "skipped" (the kernel lacks
 * its hook), "idle" (nothing is revoked, so nothing is attached) or
 * "detached" (none of these: a restart of revoke-bpfd attaches it).
 */
const char *store_prog_state(const struct store *rb, int i)
{
	if (rb->skipped[i])
		return "skipped";
	if (revoke_pinned(rb->pin_dir, revoke_prog_names[i]))
		return "attached";
	return rb->attached ? "detached" : "idle";
}

/*
 * Detach the link pinned at @path now, where the kernel supports it for
 * LSM links, then remove its pin: without the detach the link goes once
 * its last reference does, which the kernel may do later.
 */
static int unpin_link(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd >= 0) {
		bpf_link_detach(fd);	/* EOPNOTSUPP on some kernels */
		close(fd);
	}
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

/**
 * store_unload() - detach every program and drop every revocation
 * @pin_dir: the pin directory
 *
 * Detaches and unpins the links first, then removes the map pins, the
 * programs kept for the next start (progs.c) and the directory.  A
 * program may still run for a while after its pin is gone (the kernel
 * frees links when it gets to it): call store_disarm() first, so that
 * it denies nothing meanwhile.
 *
 * Return: 0, or the first negative errno met (the rest is still tried).
 */
int store_unload(const char *pin_dir)
{
	char path[PATH_MAX];
	size_t i;
	int err, ret = 0;

	for (i = 0; i < REVOKE_NR_PROGS; i++) {
		if (revoke_pin_path(path, sizeof(path), pin_dir, revoke_prog_names[i]))
			return -ENAMETOOLONG;
		err = unpin_link(path);
		if (err && !ret)
			ret = err;
		/* a left-over of an interrupted replacement */
		strncat(path, TMP_SUFFIX, sizeof(path) - strlen(path) - 1);
		unpin_link(path);
	}
	for (i = 0; i < sizeof(map_names) / sizeof(map_names[0]); i++) {
		if (revoke_pin_path(path, sizeof(path), pin_dir, map_names[i]))
			return -ENAMETOOLONG;
		if (unlink(path) && errno != ENOENT && !ret)
			ret = -errno;
	}
	progs_remove(pin_dir);
	if (rmdir(pin_dir) && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}
