// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_load.c - bring the enforcement programs up, so that they keep
 * enforcing when revoke-bpfd is gone.
 *
 * Layout under the pin directory (REVOKE_PIN_DIR by default):
 *	revoked			the hash map of revoked inodes
 *	revoke_state		the one-element state array
 *	revoke_file_open	... one pinned BPF link per LSM program
 *
 * If everything is pinned already, revoke-bpfd adopts it and loads
 * nothing.  Otherwise it loads the programs, reusing whichever maps are
 * pinned (so no revocation is ever lost), attaches the programs whose
 * link is missing, and pins what it created.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_load.h"
#include "revoke.skel.h"

const char *const revoke_prog_names[REVOKE_NR_PROGS] = {
	"revoke_file_permission",
	"revoke_mmap_file",
	"revoke_file_ioctl",
	"revoke_file_open",
};

static bool libbpf_verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int pin_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Open a pinned object; -ENOENT if it is not pinned. */
static int obj_get(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (pin_path(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static bool obj_pinned(const char *dir, const char *name)
{
	int fd = obj_get(dir, name);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/**
 * revoke_bpf_count_attached() - how many of the programs have a pinned link
 * @pin_dir: the pin directory
 *
 * Return: 0 to REVOKE_NR_PROGS.
 */
int revoke_bpf_count_attached(const char *pin_dir)
{
	int i, n = 0;

	for (i = 0; i < REVOKE_NR_PROGS; i++)
		n += obj_pinned(pin_dir, revoke_prog_names[i]);
	return n;
}

static int check_bpffs(const char *pin_dir, char *err, size_t errlen)
{
	char parent[PATH_MAX];
	struct statfs st;
	char *slash;

	snprintf(parent, sizeof(parent), "%s", pin_dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (statfs(parent, &st) || st.f_type != BPF_FS_MAGIC) {
		snprintf(err, errlen,
			 "%s is not a BPF filesystem; mount one with "
			 "'mount -t bpf bpf %s'", parent, parent);
		return -ENOTDIR;
	}
	if (mkdir(pin_dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", pin_dir,
			 strerror(errno));
		return -errno;
	}
	return 0;
}

static int map_capacity(int fd, uint32_t *max_entries)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*max_entries = info.max_entries;
	return 0;
}

static int adopt(struct revoke_bpf *rb)
{
	int fd;

	fd = obj_get(rb->pin_dir, "revoked");
	if (fd < 0)
		return fd;
	rb->revoked_fd = fd;
	fd = obj_get(rb->pin_dir, "revoke_state");
	if (fd < 0)
		return fd;
	rb->state_fd = fd;
	rb->adopted = true;
	return map_capacity(rb->revoked_fd, &rb->max_entries);
}

static bool all_pinned(const char *pin_dir)
{
	return obj_pinned(pin_dir, "revoked") &&
	       obj_pinned(pin_dir, "revoke_state") &&
	       revoke_bpf_count_attached(pin_dir) == REVOKE_NR_PROGS;
}

/* Reuse the pinned copy of @map if there is one, else pin it after load. */
static int reuse_map(struct bpf_map *map, const char *pin_dir)
{
	char path[PATH_MAX];
	int fd, err;

	fd = obj_get(pin_dir, bpf_map__name(map));
	if (fd == -ENOENT) {
		if (pin_path(path, sizeof(path), pin_dir, bpf_map__name(map)))
			return -ENAMETOOLONG;
		return bpf_map__set_pin_path(map, path);
	}
	if (fd < 0)
		return fd;
	err = bpf_map__reuse_fd(map, fd);
	close(fd);
	return err;
}

static int attach_missing(struct revoke_bpf_skel *skel, const char *pin_dir,
			  char *err, size_t errlen)
{
	struct bpf_program *prog;
	char path[PATH_MAX];

	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);
		struct bpf_link *link;
		int ret;

		if (obj_pinned(pin_dir, name))
			continue;
		link = bpf_program__attach_lsm(prog);
		if (!link) {
			ret = -errno;
			snprintf(err, errlen, "cannot attach %s: %s", name,
				 strerror(-ret));
			return ret;
		}
		ret = pin_path(path, sizeof(path), pin_dir, name);
		if (!ret)
			ret = bpf_link__pin(link, path);
		if (ret) {
			snprintf(err, errlen, "cannot pin %s: %s", path,
				 strerror(-ret));
			bpf_link__destroy(link);
			return ret;
		}
		/* The pin keeps it attached; our fd is not needed. */
		bpf_link__destroy(link);
	}
	return 0;
}

static int load_fresh(struct revoke_bpf *rb, uint32_t max_entries, char *err,
		      size_t errlen)
{
	struct revoke_bpf_skel *skel;
	int ret;

	skel = revoke_bpf_skel__open();
	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s",
			 strerror(-ret));
		return ret;
	}
	ret = bpf_map__set_max_entries(skel->maps.revoked, max_entries);
	if (!ret)
		ret = reuse_map(skel->maps.revoked, rb->pin_dir);
	if (!ret)
		ret = reuse_map(skel->maps.revoke_state, rb->pin_dir);
	if (ret) {
		snprintf(err, errlen, "cannot reuse the pinned maps in %s: %s",
			 rb->pin_dir, strerror(-ret));
		goto out;
	}
	ret = revoke_bpf_skel__load(skel);
	if (ret) {
		snprintf(err, errlen,
			 "the kernel refused to load the BPF LSM programs: %s%s",
			 strerror(-ret),
			 ret == -EPERM ? " (run as root; BPF LSM may be listed "
			 "but blocked here, e.g. by lockdown or a container)" : "");
		goto out;
	}
	ret = attach_missing(skel, rb->pin_dir, err, errlen);
	if (ret)
		goto out;
	rb->revoked_fd = dup(bpf_map__fd(skel->maps.revoked));
	rb->state_fd = dup(bpf_map__fd(skel->maps.revoke_state));
	if (rb->revoked_fd < 0 || rb->state_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "dup: %s", strerror(-ret));
		goto out;
	}
	ret = map_capacity(rb->revoked_fd, &rb->max_entries);
out:
	revoke_bpf_skel__destroy(skel);
	return ret;
}

/**
 * revoke_bpf_open() - make sure the programs enforce, and open their maps
 * @rb: result
 * @pin_dir: pin directory, on a BPF filesystem
 * @max_entries: capacity of the revoked map if it has to be created
 * @verbose: print libbpf's debug output (the verifier log)
 * @err: on failure, a one-line reason with what to do about it
 * @errlen: size of @err
 *
 * Return: 0, or a negative errno.  On failure nothing pinned before the
 * call is removed, so enforcement that was in place stays in place.
 */
int revoke_bpf_open(struct revoke_bpf *rb, const char *pin_dir,
		    uint32_t max_entries, bool verbose, char *err, size_t errlen)
{
	int ret;

	memset(rb, 0, sizeof(*rb));
	rb->revoked_fd = -1;
	rb->state_fd = -1;
	if (strlen(pin_dir) >= sizeof(rb->pin_dir)) {
		snprintf(err, errlen, "pin directory path too long");
		return -ENAMETOOLONG;
	}
	strcpy(rb->pin_dir, pin_dir);
	libbpf_verbose = verbose;
	libbpf_set_print(print_libbpf);

	ret = check_bpffs(pin_dir, err, errlen);
	if (ret)
		return ret;
	if (all_pinned(pin_dir)) {
		ret = adopt(rb);
		if (ret)
			snprintf(err, errlen, "cannot adopt the objects pinned in %s: %s",
				 pin_dir, strerror(-ret));
	} else {
		ret = load_fresh(rb, max_entries, err, errlen);
	}
	if (ret)
		revoke_bpf_close(rb);
	return ret;
}

/**
 * revoke_bpf_close() - drop the daemon's handles; the pins keep enforcing
 * @rb: handles from revoke_bpf_open()
 */
void revoke_bpf_close(struct revoke_bpf *rb)
{
	if (rb->revoked_fd >= 0)
		close(rb->revoked_fd);
	if (rb->state_fd >= 0)
		close(rb->state_fd);
	rb->revoked_fd = -1;
	rb->state_fd = -1;
}
