// SPDX-License-Identifier: GPL-2.0
/*
 * inode_find.c - find the filesystems on which inode number N is open or
 * mapped, by walking /proc/PID/fd and /proc/PID/maps.
 *
 * An inode number alone names nothing: every filesystem has its own
 * numbers.  What user space can see is the inodes that processes hold, so
 * that is what "add INODE" without --dev resolves against.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inode_find.h"
#include "common/common.h"

struct finder {
	uint64_t ino;
	struct inode_site *sites;
	size_t max;
	size_t nr;
};

static void note_site(struct finder *f, uint32_t kdev, const char *example)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (f->sites[i].kdev == kdev)
			return;
	if (f->nr == f->max)
		return;
	f->sites[f->nr].kdev = kdev;
	snprintf(f->sites[f->nr].example, sizeof(f->sites[0].example), "%s",
		 example);
	f->nr++;
}

static bool is_pid(const char *name)
{
	return *name && strspn(name, "0123456789") == strlen(name);
}

static void scan_fds(struct finder *f, const char *proc, const char *pid)
{
	char dir[PATH_MAX], target[128];
	struct dirent *de;
	struct stat st;
	uint32_t kdev;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s/fd", proc, pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!is_pid(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) || st.st_ino != f->ino)
			continue;
		if (revoke_kdev_from_stdev(st.st_dev, &kdev))
			continue;
		n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		note_site(f, kdev, target);
	}
	closedir(d);
}

static void scan_maps(struct finder *f, const char *proc, const char *pid)
{
	char path[PATH_MAX], line[PATH_MAX + 128], file[128];
	unsigned int maj, min;
	unsigned long long ino;
	uint32_t kdev;
	FILE *fp;
	int off;

	snprintf(path, sizeof(path), "%s/%s/maps", proc, pid);
	fp = fopen(path, "re");
	if (!fp)
		return;
	/* start-end perms offset MAJ:MIN inode path */
	while (fgets(line, sizeof(line), fp)) {
		off = 0;
		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &ino,
			   &off) < 3)
			continue;
		if (ino != f->ino || revoke_kdev(maj, min, &kdev))
			continue;
		snprintf(file, sizeof(file), "%s", line + off);
		file[strcspn(file, "\n")] = '\0';
		note_site(f, kdev, file);
	}
	fclose(fp);
}

/**
 * inode_find_sites() - filesystems on which inode @ino is held by a process
 * @proc: the procfs mount to walk, normally "/proc"
 * @ino: the inode number
 * @sites: output array
 * @max: its size
 * @nr: number of distinct filesystems found (at most @max)
 *
 * Return: 0, or a negative errno if @proc cannot be read.
 */
int inode_find_sites(const char *proc, uint64_t ino, struct inode_site *sites,
		     size_t max, size_t *nr)
{
	struct finder f = { .ino = ino, .sites = sites, .max = max };
	struct dirent *de;
	DIR *d;

	d = opendir(proc);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!is_pid(de->d_name))
			continue;
		scan_fds(&f, proc, de->d_name);
		scan_maps(&f, proc, de->d_name);
	}
	closedir(d);
	*nr = f.nr;
	return 0;
}
