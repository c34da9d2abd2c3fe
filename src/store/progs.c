// SPDX-License-Identifier: GPL-2.0
/*
 * progs.c - this build's loaded programs, kept pinned for the next start.
 *
 * Loading the enforcement programs is most of a start of revoke-bpfd: the
 * verifier walks every path of 30 programs (4 to 8 s under emulation).
 * So each program this build loads is also pinned, not attached, under
 *	PIN_DIR/programs_<build>/<program name>
 * where <build> hashes the object's ELF image, which programs the
 * running kernel can attach, libbpf's version and the kernel's release.
 * A later start of the same build adopts them instead of loading: it
 * loads the object's maps only (reusing the pinned ones, as always) and
 * takes each program from its pin, after checking that it is an LSM
 * program of its name, made for its own hook, whose every map is one of
 * those pinned maps.  Anything else (another build, a map made anew, a
 * pin missing or not ours) means a full load, after which this build's
 * programs replace every programs_* directory.
 *
 * Pins do not outlive the kernel (a BPF filesystem is in memory), so the
 * running kernel, whose BTF the programs were relocated against, is the
 * same for every start that finds them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "features.h"
#include "pins.h"
#include "progs.h"
#include "store.h"
#include "revoke.skel.h"

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/**
 * progs_folder() - the folder a build's programs are kept in
 * @pin_dir: the pin directory
 * @prefix: which object's ("programs_", "iterators_")
 * @elf: the object's ELF image, @sz bytes
 * @extra: anything else its programs depend on, @extra_len bytes
 * @buf: the path, @len bytes
 *
 * The name is @prefix and a hash of the image, @extra, libbpf's version
 * (libbpf relocated the programs, and is linked dynamically) and the
 * running kernel's release and version.
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int progs_folder(const char *pin_dir, const char *prefix, const void *elf,
		 size_t sz, const void *extra, size_t extra_len, char *buf,
		 size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct utsname u;
	int n;

	h = fnv1a(h, elf, sz);
	h = fnv1a(h, extra, extra_len);
	h = fnv1a(h, libbpf_version_string(), strlen(libbpf_version_string()));
	if (!uname(&u)) {
		h = fnv1a(h, u.release, strlen(u.release));
		h = fnv1a(h, u.version, strlen(u.version));
	}
	n = snprintf(buf, len, "%s/%s%016llx", pin_dir, prefix,
		     (unsigned long long)h);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The folder this build's enforcement programs are kept in. */
static int progs_dir(const struct store *rb, char *buf, size_t len)
{
	const void *elf;
	size_t sz;

	elf = revoke_bpf_skel__elf_bytes(&sz);
	return progs_folder(rb->pin_dir, PROGS_PREFIX, elf, sz, rb->skipped,
			    sizeof(rb->skipped), buf, len);
}

/* Is @path a folder of root's only root may write?  (Else not adopted.) */
static bool folder_trusted(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && revoke_dir_root_only(&st);
}

/**
 * progs_object_map_ids() - the id of every map of a BPF object
 * @obj: opened, its maps reused from pins (before a load), or loaded
 * @ids: result, STORE_MAX_MAPS at most
 * @n: their number
 *
 * Return: 0, -ESTALE if a map has no descriptor yet (it is made at
 * load: not pinned before) or there are too many, or another negative
 * errno.
 */
int progs_object_map_ids(struct bpf_object *obj, __u32 *ids,
			 int *n)
{
	struct bpf_map *map;

	*n = 0;
	bpf_object__for_each_map(map, obj) {
		struct bpf_map_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_map__fd(map);

		if (fd < 0 || *n == STORE_MAX_MAPS)
			return -ESTALE;
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		ids[(*n)++] = info.id;
	}
	return 0;
}

/**
 * progs_map_ids() - note the id of every map of the object
 * @rb: result (@map_ids, @nr_map_ids)
 * @skel: opened, its maps reused from pins (before a load), or loaded
 *
 * Return: what progs_object_map_ids() returns.
 */
int progs_map_ids(struct store *rb, struct revoke_bpf_skel *skel)
{
	return progs_object_map_ids(skel->obj, rb->map_ids, &rb->nr_map_ids);
}

/*
 * Read what the kernel says of program @fd into @info, with the ids of
 * the maps it uses in @used; and is each of those maps one of @ids[@n]?
 */
static bool prog_info_maps_in(int fd, const __u32 *ids, int n,
			      struct bpf_prog_info *info,
			      __u32 used[STORE_MAX_MAPS])
{
	__u32 len = sizeof(*info);
	int i, j;

	memset(info, 0, sizeof(*info));
	info->nr_map_ids = STORE_MAX_MAPS;
	info->map_ids = (__u64)(unsigned long)used;
	if (bpf_obj_get_info_by_fd(fd, info, &len) ||
	    info->nr_map_ids > STORE_MAX_MAPS)
		return false;
	for (i = 0; i < (int)info->nr_map_ids; i++) {
		for (j = 0; j < n && ids[j] != used[i]; j++)
			;
		if (j == n)
			return false;
	}
	return true;
}

/**
 * progs_uses_our_maps() - does a program read and write @rb's maps only?
 * @rb: the store, its @map_ids noted (progs_map_ids())
 * @prog_fd: the program
 *
 * A program loaded against a map since unpinned and made anew would
 * enforce what that old map says: such a program is neither adopted nor
 * kept attached.
 *
 * Return: true if every map it uses is one of the object's.
 */
bool progs_uses_our_maps(const struct store *rb, int prog_fd)
{
	__u32 used[STORE_MAX_MAPS];
	struct bpf_prog_info info;

	return prog_info_maps_in(prog_fd, rb->map_ids, rb->nr_map_ids, &info,
				 used);
}

/* The BTF id of the function program @prog of the object attaches to. */
static __u32 hook_btf_id(const struct btf *btf, const struct bpf_program *prog)
{
	const char *hook = revoke_prog_hook(prog);
	int id = hook ? revoke_btf_hook_id(btf, hook) : 0;

	return id > 0 ? (__u32)id : 0;
}

/**
 * progs_pinned() - open a kept program, if it is what its name says
 * @dir: the folder progs_folder() named
 * @name: the program's name (the kernel keeps 15 characters)
 * @type: its type
 * @ids: the ids of the maps it may use, @n of them
 * @info: what the kernel says of it
 *
 * Return: its descriptor, -ENOENT if not pinned, or -ESTALE if it is not
 * a program of @type named @name that uses no map but those of @ids.
 */
int progs_pinned(const char *dir, const char *name, __u32 type,
		 const __u32 *ids, int n, struct bpf_prog_info *info)
{
	__u32 used[STORE_MAX_MAPS];
	int fd;

	fd = revoke_pin_get(dir, name);
	if (fd < 0)
		return fd;
	if (prog_info_maps_in(fd, ids, n, info, used) && info->type == type &&
	    !strncmp(info->name, name, sizeof(info->name) - 1))
		return fd;
	close(fd);
	return -ESTALE;
}

/*
 * Open the pinned program @name in @dir, if it is an LSM program named
 * @name, made to attach to @hook (the BTF id of its bpf_lsm_ function),
 * that uses no map but @rb's.
 */
static int adopt_one(const struct store *rb, const char *dir,
		     const char *name, __u32 hook)
{
	struct bpf_prog_info info;
	int fd;

	fd = progs_pinned(dir, name, BPF_PROG_TYPE_LSM, rb->map_ids,
			  rb->nr_map_ids, &info);
	if (fd < 0 || (hook && info.attach_btf_id == hook))
		return fd;
	close(fd);
	return -ESTALE;
}

/**
 * progs_close() - drop the store's program descriptors (the pins stay)
 * @rb: the store
 */
void progs_close(struct store *rb)
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
 * @btf: the running kernel's BTF, for the hooks' ids
 *
 * On success every program of @skel is set not to load (so loading the
 * object makes its maps only) and @rb->prog_fd[] holds the pinned ones.
 *
 * Return: 0, or a negative errno (-ENOENT: none pinned, -ESTALE: not
 * usable) with nothing changed: load the programs.
 */
int progs_adopt(struct store *rb, struct revoke_bpf_skel *skel,
		const struct btf *btf)
{
	struct bpf_program *prog;
	char dir[PATH_MAX];
	int i, fd, ret;

	ret = progs_dir(rb, dir, sizeof(dir));
	if (ret)
		return ret;
	if (!folder_trusted(dir))
		return -ENOENT;
	ret = progs_map_ids(rb, skel);
	if (ret)
		return ret;
	bpf_object__for_each_program(prog, skel->obj) {
		i = revoke_prog_index(bpf_program__name(prog));
		if (i < 0 || rb->skipped[i])
			continue;
		fd = adopt_one(rb, dir, revoke_prog_names[i],
			       hook_btf_id(btf, prog));
		if (fd < 0) {
			progs_close(rb);
			return fd;
		}
		rb->prog_fd[i] = fd;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	rb->progs_adopted = true;
	return 0;
}

/**
 * progs_folder_clear() - unpin everything in a folder of kept programs
 * @path: the folder (or a path that leads to it, /proc/self/fd/N)
 */
void progs_folder_clear(const char *path)
{
	char pin[PATH_MAX];
	struct dirent *e;
	DIR *d;

	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    !revoke_pin_path(pin, sizeof(pin), path, e->d_name))
			unlink(pin);
	closedir(d);
}

/* Remove the directory @name under @pin_dir and every pin in it. */
static void remove_dir(const char *pin_dir, const char *name)
{
	char path[PATH_MAX];

	if (revoke_pin_path(path, sizeof(path), pin_dir, name))
		return;
	progs_folder_clear(path);
	rmdir(path);
}

/**
 * progs_remove_kept() - unpin every build's kept programs of one object
 * @pin_dir: the pin directory
 * @prefix: the object's, as given to progs_folder()
 * @spare: the path of a folder to leave (this build's), or NULL
 */
void progs_remove_kept(const char *pin_dir, const char *prefix,
		       const char *spare)
{
	const char *base = spare ? strrchr(spare, '/') : NULL;
	struct dirent *e;
	DIR *d;

	d = opendir(pin_dir);
	if (!d)
		return;
	while ((e = readdir(d)))
		/* a folder, never a symlink to one */
		if (e->d_type == DT_DIR &&
		    !strncmp(e->d_name, prefix, strlen(prefix)) &&
		    !(base && !strcmp(e->d_name, base + 1)))
			remove_dir(pin_dir, e->d_name);
	closedir(d);
}

/**
 * progs_remove() - unpin every build's kept programs
 * @pin_dir: the pin directory
 *
 * Return: 0 (what cannot be removed is left).
 */
int progs_remove(const char *pin_dir)
{
	progs_remove_kept(pin_dir, PROGS_PREFIX, NULL);
	progs_remove_kept(pin_dir, ITERS_PREFIX, NULL);
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
		if (i < 0)
			return -ENOENT;	/* not in revoke_prog_names: never attached */
		if (rb->skipped[i])
			continue;
		fd = fcntl(bpf_program__fd(prog), F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			progs_close(rb);
			return -errno;
		}
		rb->prog_fd[i] = fd;
	}
	progs_remove_kept(rb->pin_dir, PROGS_PREFIX, NULL);
	if (progs_dir(rb, dir, sizeof(dir)) || mkdir(dir, 0700))
		return 0;
	for (i = 0; i < REVOKE_NR_PROGS; i++)
		if (rb->prog_fd[i] >= 0 &&
		    !revoke_pin_path(path, sizeof(path), dir, revoke_prog_names[i]))
			bpf_obj_pin(rb->prog_fd[i], path);
	return 0;
}
