// SPDX-License-Identifier: GPL-2.0
/*
 * pinreset DIR - lift every revocation pinned in DIR (revoke-bpfd
 * stopped) and leave its maps as a first start makes them, keeping the
 * programs pinned in DIR's subdirectories (src/store/progs.c) so the next
 * start takes them instead of loading them.
 *
 * Each map is made as new first: a hash map emptied, an array zeroed, a
 * ring buffer drained; a map of another type is unpinned (the next start
 * makes it anew, and loads).  Then each link is detached and unpinned.  The suites
 * call this between files and tests (tests/vm/lib.bash's unload_all), so
 * a start costs a load only where a test asks for one.
 *
 * Exit status: 0, or 1 with the object and the reason on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* "link" or "map", from /proc/self/fdinfo/FD, or NULL */
static const char *obj_kind(int fd)
{
	char path[64], line[256];
	const char *kind = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (!kind && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "link_type:", 10))
			kind = "link";
		else if (!strncmp(line, "map_type:", 9))
			kind = "map";
	}
	fclose(f);
	return kind;
}

static int empty_hash(int fd, const struct bpf_map_info *info)
{
	char key[info->key_size];

	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return errno == ENOENT ? 0 : -errno;
}

static int zero_array(int fd, const struct bpf_map_info *info, size_t value)
{
	size_t len = (size_t)info->value_size * info->max_entries;
	void *zero, *p;
	__u32 i;

	if (info->map_flags & BPF_F_MMAPABLE) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return -errno;
		memset(p, 0, len);
		munmap(p, len);
		return 0;
	}
	zero = calloc(1, value);
	if (!zero)
		return -ENOMEM;
	for (i = 0; i < info->max_entries; i++)
		if (bpf_map_update_elem(fd, &i, zero, BPF_ANY))
			break;
	free(zero);
	return i == info->max_entries ? 0 : -errno;
}

static int skip(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static int drain(int fd)
{
	struct ring_buffer *rb = ring_buffer__new(fd, skip, NULL, NULL);
	int ret;

	if (!rb)
		return -errno;
	ret = ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return ret < 0 ? ret : 0;
}

/* Make the map @fd as new; 1 if its type is not one of those, so unpin it. */
static int reset_map(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int cpus;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	switch (info.type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
		return empty_hash(fd, &info);
	case BPF_MAP_TYPE_ARRAY:
		return zero_array(fd, &info, info.value_size);
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		cpus = libbpf_num_possible_cpus();
		if (cpus < 0)
			return cpus;
		return zero_array(fd, &info,
				  (size_t)((info.value_size + 7) & ~7U) * cpus);
	case BPF_MAP_TYPE_RINGBUF:
		return drain(fd);
	default:
		return 1;
	}
}

/*
 * Reset the object pinned at @path if it is of @kind ("map": made as
 * new, or unpinned; "link": detached and unpinned); anything else is
 * unpinned with the links.
 */
static int reset(const char *path, const char *want)
{
	const char *kind;
	int fd, ret = 1;

	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	kind = obj_kind(fd);
	if (!kind)
		kind = "link";
	if (strcmp(kind, want)) {
		close(fd);
		return 0;
	}
	if (!strcmp(kind, "link"))
		bpf_link_detach(fd);	/* EOPNOTSUPP on some kernels */
	else
		ret = reset_map(fd);
	close(fd);
	if (ret > 0 && unlink(path))
		return -errno;
	return ret < 0 ? ret : 0;
}

/* Reset every object of @kind pinned in @dir. */
static int reset_all(const char *dir, const char *kind)
{
	char path[PATH_MAX];
	struct dirent *e;
	int ret, status = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "pinreset: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_type == DT_DIR)
			continue;	/* ".", "..", the programs' folders */
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ret = reset(path, kind);
		if (ret) {
			fprintf(stderr, "pinreset: %s: %s\n", path, strerror(-ret));
			status = 1;
		}
	}
	closedir(d);
	return status;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pinreset DIR\n");
		return 2;
	}
	char bss[PATH_MAX];
	int ret;

	/*
	 * The armed word first (the object's .bss, revoke_b_bss): every hook
	 * allows everything from then on, so neither the links still
	 * attached while the other maps are reset nor one the kernel tears
	 * down late writes or denies anything.
	 */
	snprintf(bss, sizeof(bss), "%s/revoke_b_bss", argv[1]);
	ret = reset(bss, "map");
	if (ret && ret != -ENOENT) {
		fprintf(stderr, "pinreset: %s: %s\n", bss, strerror(-ret));
		return 1;
	}
	return reset_all(argv[1], "map") | reset_all(argv[1], "link");
}
