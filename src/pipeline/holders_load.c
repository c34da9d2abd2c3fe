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
 * tracing program of its name that uses no map but those; else it loads
 * them and keeps them in place of every other build's.
 *
 * The maps hold one search's state (its target, the .bss words the
 * daemon sets): a daemon takes the folder for itself (flock) and, when
 * it adopts them, empties the targets and gives .bss and .data their
 * first values, as a load would.  A second daemon on the same pins loads
 * iterators of its own and keeps nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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
		[HOLDERS_FSREFS] = skel->progs.revoke_holder_fsrefs,
		[HOLDERS_IDENT] = skel->progs.revoke_ident,
	};

	return progs[i];
}

/* A map's pin name: its name, "." (of ".bss") made "_". */
static void map_pin_name(const struct bpf_map *map, char name[NAME_MAX + 1])
{
	char *c;

	snprintf(name, NAME_MAX + 1, "%s", bpf_map__name(map));
	for (c = name; *c; c++)
		if (*c == '.' || *c == '/')
			*c = '_';
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
 * Open the folder this build's iterators are kept in (made anew, in place
 * of every build's, if @create), and take it for this daemon.  Return its
 * descriptor, -EWOULDBLOCK if another daemon has it, or another negative
 * errno (none, or not root's alone).
 */
static int kept_open(const char *pin_dir, bool create, char *dir, size_t len)
{
	const void *elf;
	size_t sz;
	int fd;

	elf = holders_bpf_skel__elf_bytes(&sz);
	if (progs_folder(pin_dir, ITERS_PREFIX, elf, sz, NULL, 0, dir, len))
		return -ENAMETOOLONG;
	if (create) {
		progs_remove_kept(pin_dir, ITERS_PREFIX);
		if (mkdir(dir, 0700))
			return -errno;
	}
	if (!progs_folder_trusted(dir))
		return -ENOENT;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -EWOULDBLOCK;
	}
	return fd;
}

/*
 * Take the kept iterators: reuse each map of @h->skel from its pin (the
 * shared revoke_layout already is), then open each program; on success
 * no program of the skeleton is loaded by its load.
 */
static int adopt(struct holders *h, const char *dir)
{
	__u32 ids[STORE_MAX_MAPS];
	struct bpf_prog_info info;
	char name[NAME_MAX + 1];
	struct bpf_program *p;
	struct bpf_map *map;
	int i, n = 0, fd;

	bpf_object__for_each_map(map, h->skel->obj) {
		struct bpf_map_info mi = {};
		__u32 len = sizeof(mi);

		if (n == STORE_MAX_MAPS)
			return -ESTALE;
		fd = bpf_map__fd(map);
		if (fd < 0) {
			map_pin_name(map, name);
			fd = revoke_pin_get(dir, name);
			if (fd < 0)
				return fd;
			if (!map_compatible(map, fd) ||
			    bpf_map__reuse_fd(map, fd)) {
				close(fd);
				return -ESTALE;
			}
			close(fd);
			fd = bpf_map__fd(map);
		}
		if (bpf_obj_get_info_by_fd(fd, &mi, &len))
			return -errno;
		ids[n++] = mi.id;
	}
	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		fd = progs_pinned(dir, bpf_program__name(prog_of(h->skel, i)),
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
static void empty_map(const struct bpf_map *map)
{
	char key[64];
	int fd = bpf_map__fd(map);

	if (bpf_map__key_size(map) > sizeof(key))
		return;
	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			break;
}

/* Pin each map of the loaded @h->skel but the shared one, and each program. */
static void keep(struct holders *h, const char *dir)
{
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct bpf_map *map;
	int i;

	bpf_object__for_each_map(map, h->skel->obj) {
		if (map == h->skel->maps.revoke_layout && h->shared_layout)
			continue;
		map_pin_name(map, name);
		if (!revoke_pin_path(path, sizeof(path), dir, name))
			bpf_obj_pin(bpf_map__fd(map), path);
	}
	for (i = 0; i < HOLDERS_NR_PROGS; i++)
		if (!revoke_pin_path(path, sizeof(path), dir,
				     bpf_program__name(prog_of(h->skel, i))))
			bpf_obj_pin(h->prog_fd[i], path);
}

/* Open the skeleton, its revoke_layout the store's. */
static int open_skel(struct holders *h, const struct store *store)
{
	h->skel = holders_bpf_skel__open();
	if (!h->skel)
		return -errno;
	h->shared_layout = store && store->layout_fd >= 0;
	if (store && store_layout_share(store, h->skel->maps.revoke_layout)) {
		holders_bpf_skel__destroy(h->skel);
		h->skel = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Close the programs' descriptors. */
static void close_progs(struct holders *h)
{
	int i;

	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		if (h->prog_fd[i] >= 0)
			close(h->prog_fd[i]);
		h->prog_fd[i] = -1;
	}
	h->adopted = false;
}

/*
 * Load the iterators, or adopt them when @store has a pin directory: the
 * programs in @h->prog_fd[], the maps behind @h->skel.
 */
static int load(struct holders *h, const struct store *store)
{
	bool keeps = store && store->pin_dir[0];
	struct holders_bpf_skel__data first;
	char dir[PATH_MAX];
	int ret, i;

	ret = open_skel(h, store);
	if (ret)
		return ret;
	/* .data as the object has it, for adopted maps */
	memcpy(&first, h->skel->data, sizeof(first));
	if (keeps) {
		h->kept_fd = kept_open(store->pin_dir, false, dir, sizeof(dir));
		/* another daemon's: load ours, keep nothing */
		keeps = h->kept_fd != -EWOULDBLOCK;
	}
	if (h->kept_fd >= 0) {
		if (adopt(h, dir)) {
			/* not the kept ones: start over, and load */
			close_progs(h);
			holders_bpf_skel__destroy(h->skel);
			ret = open_skel(h, store);
			if (ret)
				return ret;
		}
	}
	if (holders_bpf_skel__load(h->skel))
		return -errno;
	if (h->adopted) {
		/* as a load leaves them */
		empty_map(h->skel->maps.holder_targets);
		empty_map(h->skel->maps.holder_rdev_targets);
		empty_map(h->skel->maps.holder_sb_targets);
		memset(h->skel->bss, 0, sizeof(*h->skel->bss));
		memcpy(h->skel->data, &first, sizeof(first));
		return 0;
	}
	for (i = 0; i < HOLDERS_NR_PROGS; i++) {
		h->prog_fd[i] = dup(bpf_program__fd(prog_of(h->skel, i)));
		if (h->prog_fd[i] < 0)
			return -errno;
	}
	if (keeps) {
		if (h->kept_fd >= 0)
			close(h->kept_fd);
		h->kept_fd = kept_open(store->pin_dir, true, dir, sizeof(dir));
		if (h->kept_fd >= 0)
			keep(h, dir);
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
	int *links[] = { &h->fds_link, &h->vmas_link, &h->threads_link,
			 &h->regrings_link, &h->fsrefs_link };
	int progs[] = { HOLDERS_FDS, HOLDERS_VMAS, HOLDERS_THREADS,
			HOLDERS_REGRINGS, HOLDERS_FSREFS };
	size_t i;
	int ret;

	memset(h, 0, sizeof(*h));
	h->kept_fd = -1;
	for (i = 0; i < HOLDERS_NR_PROGS; i++)
		h->prog_fd[i] = -1;
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		*links[i] = -1;
	ret = load(h, store);
	if (ret) {
		snprintf(err, errlen, "cannot load the holder iterators "
			 "(iter/task_file, iter/task_vma, iter/task with "
			 "bpf_task_pt_regs; Linux 5.15 or later): %s",
			 strerror(-ret));
		holders_close(h);
		return ret;
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		*links[i] = holders_iter_link(h->prog_fd[progs[i]], 0);
		if (*links[i] < 0) {
			ret = *links[i];
			snprintf(err, errlen, "cannot attach the holder "
				 "iterators: %s", strerror(-ret));
			holders_close(h);
			return ret;
		}
	}
	return 0;
}

/**
 * holders_close() - let go of the iterators (the kept ones stay pinned)
 * @h: from holders_open()
 */
void holders_close(struct holders *h)
{
	int *fds[] = { &h->fds_link, &h->vmas_link, &h->threads_link,
		       &h->regrings_link, &h->fsrefs_link, &h->kept_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	close_progs(h);
	holders_bpf_skel__destroy(h->skel);
	h->skel = NULL;
}
