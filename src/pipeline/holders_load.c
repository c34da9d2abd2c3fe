// SPDX-License-Identifier: GPL-2.0
/*
 * holders_load.c - load the holder iterators (bpf/holders.bpf.c), or take
 * this build's from their pins.
 *
 * Like the enforcement programs (src/store/progs.c), the iterators a
 * start loads are kept pinned, with the maps that are theirs alone, in
 *	PIN_DIR/iterators_<build>/
 * where <build> hashes their object, libbpf's version and the kernel's
 * release.  A later start of the same build takes them from there, so
 * the verifier does not walk them again (half a second of a start under
 * emulation).  It takes them only if the folder is root's alone, every
 * map is pinned and is what the object declares, and every program is a
 * tracing program of its name that uses no map but those; then it gives
 * the maps the state a load gives them (targets emptied, .bss zeroed,
 * .data as in the object), through mappings it checks are the kernel's.
 * Anything else, at any step, means a load, kept in the folder in place
 * of what was there and of every other build's.
 *
 * The maps hold one search's state (its target, the .bss words the
 * daemon sets), so a daemon takes the folder for itself (flock) and,
 * from then on, reaches the pins through that locked descriptor only.
 * A second daemon on the same pins loads iterators of its own and keeps
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "holders.h"
#include "store/pins.h"
#include "store/progs.h"
#include "store/store.h"
#include "holders.skel.h"

/* The skeleton's program of each enum holders_prog. */
static struct bpf_program *prog_of(struct holders_bpf_skel *skel, int i)
{
	struct bpf_program *progs[HOLDERS_NR_PROGS] = {
		[HOLDERS_FDS] = skel->progs.revoke_holder_fds,
		[HOLDERS_VMAS] = skel->progs.revoke_holder_vmas,
		[HOLDERS_THREADS] = skel->progs.revoke_holder_threads,
		[HOLDERS_REGRINGS] = skel->progs.revoke_holder_regrings,
		[HOLDERS_FSREFS] = skel->progs.revoke_fsrefs,
		[HOLDERS_IDENT] = skel->progs.revoke_ident,
	};

	return progs[i];
}

/*
 * Do the programs' names differ in the 15 characters the kernel keeps?
 * (Else the name check of an adoption could not tell them apart.)
 */
static bool names_distinct(struct holders_bpf_skel *skel)
{
	int i, j;

	for (i = 0; i < HOLDERS_NR_PROGS; i++)
		for (j = 0; j < i; j++)
			if (!strncmp(bpf_program__name(prog_of(skel, i)),
				     bpf_program__name(prog_of(skel, j)),
				     BPF_OBJ_NAME_LEN - 1))
				return false;
	return true;
}

/* Is the pinned map @fd what @map declares? */
static bool map_compatible(const struct bpf_map *map, int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	       info.type == bpf_map__type(map) &&
	       info.key_size == bpf_map__key_size(map) &&
	       info.value_size == bpf_map__value_size(map) &&
	       info.max_entries == bpf_map__max_entries(map) &&
	       info.map_flags == bpf_map__map_flags(map);
}

/*
 * Open this build's folder under @pin_dir (made if there is none), take
 * it for this daemon, and check it is the folder of that name and root's
 * alone.  @via is set to the path every later step reaches it by: the
 * locked descriptor's.  Return the descriptor, -EWOULDBLOCK if another
 * daemon has the folder, or another negative errno.
 */
static int kept_open(const char *pin_dir, char dir[PATH_MAX], char via[64])
{
	struct stat st, at;
	const void *elf;
	size_t sz;
	int fd;

	elf = holders_bpf_skel__elf_bytes(&sz);
	if (progs_folder(pin_dir, ITERS_PREFIX, elf, sz, NULL, 0, dir, PATH_MAX))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -EWOULDBLOCK;
	}
	/* not removed and made anew by another daemon since the open */
	if (fstat(fd, &st) || !revoke_dir_root_only(&st) || lstat(dir, &at) ||
	    at.st_dev != st.st_dev || at.st_ino != st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	snprintf(via, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/*
 * Take the kept iterators from @via: reuse each map of the opened
 * @h->skel from its pin (revoke_layout is the store's already), then
 * open each program; on success the skeleton's load makes no program.
 */
static int adopt(struct holders *h, const char *via)
{
	__u32 ids[STORE_MAX_MAPS];
	struct bpf_prog_info info;
	char name[NAME_MAX + 1];
	struct bpf_program *p;
	struct bpf_map *map;
	int i, n, fd, ret;

	if (!names_distinct(h->skel))
		return -ESTALE;
	bpf_object__for_each_map(map, h->skel->obj) {
		if (bpf_map__fd(map) >= 0)
			continue;	/* revoke_layout, the store's */
		revoke_map_pin_name(map, name);
		fd = revoke_pin_get(via, name);
		if (fd < 0)
			return fd;
		if (!map_compatible(map, fd) || bpf_map__reuse_fd(map, fd)) {
			close(fd);
			return -ESTALE;
		}
		close(fd);
	}
	ret = progs_object_map_ids(h->skel->obj, ids, &n);
	if (ret)
		return ret;
	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		fd = progs_pinned(via, bpf_program__name(prog_of(h->skel, i)),
				  BPF_PROG_TYPE_TRACING, ids, n, &info);
		if (fd < 0)
			return fd;
		h->prog_fd[i] = fd;
	}
	bpf_object__for_each_program(p, h->skel->obj)
		bpf_program__set_autoload(p, false);
	h->adopted = true;
	return 0;
}

/* Empty a hash map of the iterators: what a search left in it. */
static int empty_map(const struct bpf_map *map)
{
	char key[64];
	int fd = bpf_map__fd(map);

	if (bpf_map__key_size(map) > sizeof(key))
		return -E2BIG;
	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return errno == ENOENT ? 0 : -errno;
}

/* The most bytes of global data map_global() maps and checks */
#define GLOBAL_MAX 256

/*
 * Map the adopted array @map at @at, where the skeleton has it: libbpf
 * maps a global data map onto the kernel's only when it made the map
 * itself (1.4.7 and later: not a reused one), so the skeleton's
 * pointer may be to a private copy.  Then check, by a lookup, that what
 * is written there is the kernel's, and write @first there.
 */
static int map_global(const struct bpf_map *map, void *at, const void *first)
{
	size_t vsz = bpf_map__value_size(map), page = (size_t)sysconf(_SC_PAGESIZE);
	size_t sz = ((vsz + 7) / 8 * 8 * bpf_map__max_entries(map) + page - 1) /
		    page * page;
	unsigned char seen[GLOBAL_MAX];
	__u32 zero = 0;

	if (vsz > sizeof(seen) || bpf_map__max_entries(map) != 1)
		return -E2BIG;
	if (mmap(at, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 bpf_map__fd(map), 0) == MAP_FAILED)
		return -errno;
	memset(at, 0xa5, vsz);
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, seen))
		return -errno;
	if (memcmp(seen, at, vsz))
		return -ESTALE;
	memcpy(at, first, vsz);
	return 0;
}

/* Give the adopted maps the state a load gives them. */
static int reset(struct holders *h, const void *data)
{
	static const unsigned char zeros[GLOBAL_MAX];
	struct holders_bpf_skel *s = h->skel;
	int ret;

	ret = empty_map(s->maps.holder_targets);
	if (!ret)
		ret = empty_map(s->maps.holder_rdev_targets);
	if (!ret)
		ret = empty_map(s->maps.holder_sb_targets);
	if (!ret)
		ret = map_global(s->maps.bss, s->bss, zeros);
	if (!ret)
		ret = map_global(s->maps.data, s->data, data);
	return ret;
}

/*
 * Pin each map of the loaded @h->skel but revoke_layout (the store's,
 * pinned by it), and each program.
 */
static void keep(struct holders *h, const char *via)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct bpf_map *map;
	int i;

	bpf_object__for_each_map(map, h->skel->obj) {
		if (map == h->skel->maps.revoke_layout)
			continue;
		revoke_map_pin_name(map, name);
		if (!revoke_pin_path(path, sizeof(path), via, name))
			bpf_obj_pin(bpf_map__fd(map), path);
	}
	for (i = 0; i < HOLDERS_NR_PROGS; i++)
		if (!revoke_pin_path(path, sizeof(path), via,
				     bpf_program__name(prog_of(h->skel, i))))
			bpf_obj_pin(h->prog_fd[i], path);
}

/* Open the skeleton, its revoke_layout the store's. */
static int open_skel(struct holders *h, const struct store *store)
{
	h->skel = holders_bpf_skel__open();
	if (!h->skel)
		return -errno;
	if (store && store_layout_share(store, h->skel->maps.revoke_layout)) {
		holders_bpf_skel__destroy(h->skel);
		h->skel = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Let go of the programs and maps (not of the kept folder). */
static void unload(struct holders *h)
{
	int i;

	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		if (h->prog_fd[i] >= 0)
			close(h->prog_fd[i]);
		h->prog_fd[i] = -1;
	}
	h->adopted = false;
	holders_bpf_skel__destroy(h->skel);
	h->skel = NULL;
}

/* Take the iterators kept in @via, with their maps reset. */
static int take(struct holders *h, const struct store *store,
		const char *via)
{
	unsigned char first[GLOBAL_MAX] = {};
	int ret;

	ret = open_skel(h, store);
	if (ret)
		return ret;
	/* .data as the object has it, before anything maps it */
	if (bpf_map__value_size(h->skel->maps.data) <= sizeof(first))
		memcpy(first, h->skel->data,
		       bpf_map__value_size(h->skel->maps.data));
	ret = adopt(h, via);
	if (!ret && holders_bpf_skel__load(h->skel))
		ret = -errno;
	if (!ret)
		ret = reset(h, first);
	if (ret)
		unload(h);
	return ret;
}

/* Load the iterators; keep them in @via, unless NULL. */
static int load(struct holders *h, const struct store *store,
		const char *dir, const char *via)
{
	int i, ret;

	ret = open_skel(h, store);
	if (ret)
		return ret;
	if (holders_bpf_skel__load(h->skel))
		return -errno;
	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		h->prog_fd[i] = fcntl(bpf_program__fd(prog_of(h->skel, i)),
				 F_DUPFD_CLOEXEC, 0);
		if (h->prog_fd[i] < 0)
			return -errno;
	}
	if (via) {
		progs_remove_kept(store->pin_dir, ITERS_PREFIX, dir);
		/* what a failed adoption, or a crash while it was filled, left */
		progs_folder_clear(via);
		keep(h, via);
	}
	return 0;
}

/**
 * holders_iter_link() - a link of an iterator program, to read with
 *	bpf_iter_create()
 * @prog_fd: the program (struct holders' @prog_fd[])
 * @tgid: only the threads of this process (task iterator parameters,
 *	Linux 6.1), or 0: every thread
 *
 * Return: the link's descriptor, or a negative errno.
 */
int holders_iter_link(int prog_fd, pid_t tgid)
{
	union bpf_iter_link_info linfo = { .task.pid = (__u32)tgid };
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	int fd;

	if (tgid) {
		opts.iter_info = &linfo;
		opts.iter_info_len = sizeof(linfo);
	}
	fd = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
	return fd < 0 ? -errno : fd;
}

/* The links read for every search, or a negative errno. */
static int link_all(struct holders *h)
{
	int i;

	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		if (i == HOLDERS_IDENT)
			continue;	/* one descriptor's, per call */
		h->link[i] = holders_iter_link(h->prog_fd[i], 0);
		if (h->link[i] < 0)
			return h->link[i];
	}
	return 0;
}

/* Close the links, if open. */
static void unlink_all(struct holders *h)
{
	int i;

	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		if (h->link[i] >= 0)
			close(h->link[i]);
		h->link[i] = -1;
	}
}

/**
 * holders_open() - load the holder iterators, or take this build's
 * @h: result
 * @store: the store, whose "revoke_layout" map the iterators share to
 *	name files as the hooks do, and under whose pin directory they are
 *	kept; NULL for one of the iterators' own, nothing kept
 * @err: on failure, a one-line reason
 * @errlen: size of @err
 *
 * Return: 0 or a negative errno.
 */
int holders_open(struct holders *h, const struct store *store, char *err,
		 size_t errlen)
{
	char dir[PATH_MAX], via[64];
	const char *keep_in = NULL;
	int i, ret;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < HOLDERS_NR_PROGS; i++)
		h->prog_fd[i] = h->link[i] = -1;
	h->kept_fd = -1;
	if (store && store->pin_dir[0]) {
		ret = kept_open(store->pin_dir, dir, via);
		/* else: another daemon's, or not ours: load, keep nothing */
		if (ret >= 0) {
			h->kept_fd = ret;
			keep_in = via;
		}
	}
	/* the kept ones, if they are what this build loads and link */
	if (keep_in && !take(h, store, keep_in)) {
		if (!link_all(h))
			return 0;
		unlink_all(h);
		unload(h);
	}
	ret = load(h, store, dir, keep_in);
	if (ret) {
		snprintf(err, errlen, "cannot load the holder iterators "
			 "(iter/task_file, iter/task_vma, iter/task with "
			 "bpf_task_pt_regs; Linux 5.15 or later): %s",
			 strerror(-ret));
		holders_close(h);
		return ret;
	}
	ret = link_all(h);
	if (ret) {
		snprintf(err, errlen, "cannot attach the holder iterators: %s",
			 strerror(-ret));
		holders_close(h);
	}
	return ret;
}

/**
 * holders_close() - let go of the iterators (the kept ones stay pinned)
 * @h: from holders_open()
 */
void holders_close(struct holders *h)
{
	unlink_all(h);
	unload(h);
	if (h->kept_fd >= 0)
		close(h->kept_fd);
	h->kept_fd = -1;
}
