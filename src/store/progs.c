// SPDX-License-Identifier: GPL-2.0
/*
 * progs.c - this build's loaded programs, kept pinned for the next start.
 *
 * Loading the enforcement programs is most of a start of revoke-bpfd: the
 * verifier walks every path of 30 programs (4 to 8 s under emulation).
 * So each program this build loads is also pinned, not attached, under
 *	PIN_DIR/programs_<build>/<program name>
 * where <build> hashes the object's ELF image and which programs the
 * running kernel can attach.  A later start of the same build adopts
 * them instead of loading: it loads the object's maps only (reusing the
 * pinned ones, as always) and takes each program from its pin, after
 * checking that it is an LSM program whose every map is one of those
 * pinned maps.  Anything else (another build, a map made anew, a pin
 * missing or not ours) means a full load, after which this build's
 * programs replace every programs_* directory.
 *
 * Pins do not outlive the kernel (a BPF filesystem is in memory), so the
 * running kernel, whose BTF the programs were relocated against, is the
 * same for every start that finds them.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "features.h"
#include "pins.h"
#include "progs.h"
#include "store.h"
#include "revoke.skel.h"

#define PROGS_PREFIX "programs_"
/* more than the object has: revoke.bpf.c's maps and its .bss */
#define PROGS_MAX_MAPS 64

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* The directory this build's programs are pinned in, for @rb->skipped. */
static int progs_dir(const struct store *rb, char *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct utsname u;
	const void *elf;
	size_t sz;
	int n;

	elf = revoke_bpf_skel__elf_bytes(&sz);
	h = fnv1a(h, elf, sz);
	h = fnv1a(h, rb->skipped, sizeof(rb->skipped));
	if (!uname(&u)) {
		h = fnv1a(h, u.release, strlen(u.release));
		h = fnv1a(h, u.version, strlen(u.version));
	}
	n = snprintf(buf, len, "%s/" PROGS_PREFIX "%016llx", rb->pin_dir,
		     (unsigned long long)h);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Is @path a directory only root (or we) can write to? */
static bool dir_trusted(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode) &&
	       (st.st_uid == 0 || st.st_uid == geteuid()) &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Collect the ids of every map of @skel's object, all reused from pins. */
static int object_map_ids(struct revoke_bpf_skel *skel, __u32 *ids, int *n)
{
	struct bpf_map *map;

	*n = 0;
	bpf_object__for_each_map(map, skel->obj) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_map__fd(map);

		if (fd < 0 || *n == PROGS_MAX_MAPS)
			return -ESTALE;	/* made anew at load: not pinned yet */
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		ids[(*n)++] = info.id;
	}
	return 0;
}

/*
 * Open the pinned program @name in @dir, if it is an LSM program whose
 * name is @name's (the kernel keeps 15 characters) and which uses no
 * map but those in @ids.
 */
static int adopt_one(const char *dir, const char *name, const __u32 *ids,
		     int n)
{
	__u32 used[PROGS_MAX_MAPS], len;
	struct bpf_prog_info info;
	int fd, i, j;

	fd = revoke_pin_get(dir, name);
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = PROGS_MAX_MAPS;
	info.map_ids = (__u64)(unsigned long)used;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.type != BPF_PROG_TYPE_LSM ||
	    info.nr_map_ids > PROGS_MAX_MAPS ||
	    strncmp(info.name, name, sizeof(info.name) - 1))
		goto stale;
	for (i = 0; i < (int)info.nr_map_ids; i++) {
		for (j = 0; j < n && ids[j] != used[i]; j++)
			;
		if (j == n)
			goto stale;
	}
	return fd;
stale:
	close(fd);
	return -ESTALE;
}

static void progs_fds_close(struct store *rb)
{
	int i;

	for (i = 0; i < REVOKE_NR_PROGS; i++) {
		if (rb->prog_fd[i] >= 0)
			close(rb->prog_fd[i]);
		rb->prog_fd[i] = -1;
	}
}

/**
 * progs_adopt() - take this build's pinned programs instead of loading
 * @rb: the store, its @skipped filled and every map of @skel reused
 *	from its pin (so bpf_map__fd() is the pinned map's)
 * @skel: opened, not loaded
 *
 * On success every program of @skel is set not to load (so loading the
 * object makes its maps only) and @rb->prog_fd[] holds the pinned ones.
 *
 * Return: 0, or a negative errno (-ENOENT: none pinned, -ESTALE: not
 * usable) with nothing changed: load the programs.
 */
int progs_adopt(struct store *rb, struct revoke_bpf_skel *skel)
{
	char dir[PATH_MAX];
	__u32 ids[PROGS_MAX_MAPS];
	struct bpf_program *prog;
	int i, n, ret;

	ret = progs_dir(rb, dir, sizeof(dir));
	if (ret)
		return ret;
	if (!dir_trusted(dir))
		return -ENOENT;
	ret = object_map_ids(skel, ids, &n);
	if (ret)
		return ret;
	for (i = 0; i < REVOKE_NR_PROGS; i++) {
		if (rb->skipped[i])
			continue;
		ret = adopt_one(dir, revoke_prog_names[i], ids, n);
		if (ret < 0) {
			progs_fds_close(rb);
			return ret;
		}
		rb->prog_fd[i] = ret;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	rb->progs_adopted = true;
	return 0;
}

/* Remove the directory @name under @pin_dir and every pin in it. */
static void remove_dir(const char *pin_dir, const char *name)
{
	char path[PATH_MAX], pin[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (revoke_pin_path(path, sizeof(path), pin_dir, name))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    !revoke_pin_path(pin, sizeof(pin), path, e->d_name))
			unlink(pin);
	closedir(d);
	rmdir(path);
}

/**
 * progs_remove() - unpin every build's kept programs
 * @pin_dir: the pin directory
 *
 * Return: 0 (what cannot be removed is left).
 */
int progs_remove(const char *pin_dir)
{
	struct dirent *e;
	DIR *d;

	d = opendir(pin_dir);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, PROGS_PREFIX, strlen(PROGS_PREFIX)))
			remove_dir(pin_dir, e->d_name);
	closedir(d);
	return 0;
}

/**
 * progs_keep() - keep the programs just loaded for the next start
 * @rb: the store, its @skipped filled
 * @skel: loaded
 *
 * Fills @rb->prog_fd[] and pins each program in this build's programs_*
 * directory, in place of every other build's.  A pin that fails costs
 * the next start a load, nothing else, so it is not an error.
 *
 * Return: 0, or a negative errno if a program's descriptor cannot be kept.
 */
int progs_keep(struct store *rb, struct revoke_bpf_skel *skel)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct bpf_program *prog;
	int i, fd;

	bpf_object__for_each_program(prog, skel->obj) {
		i = revoke_prog_index(bpf_program__name(prog));
		if (i < 0 || rb->skipped[i])
			continue;
		fd = dup(bpf_program__fd(prog));
		if (fd < 0) {
			progs_fds_close(rb);
			return -errno;
		}
		rb->prog_fd[i] = fd;
	}
	progs_remove(rb->pin_dir);
	if (progs_dir(rb, dir, sizeof(dir)) || mkdir(dir, 0700))
		return 0;
	for (i = 0; i < REVOKE_NR_PROGS; i++)
		if (rb->prog_fd[i] >= 0 &&
		    !revoke_pin_path(path, sizeof(path), dir, revoke_prog_names[i]))
			bpf_obj_pin(rb->prog_fd[i], path);
	return 0;
}

/**
 * progs_close() - drop the store's program descriptors (the pins stay)
 * @rb: the store
 */
void progs_close(struct store *rb)
{
	progs_fds_close(rb);
}
