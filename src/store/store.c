// SPDX-License-Identifier: GPL-2.0
/*
 * store.c - bring the enforcement programs up, so that they keep
 * enforcing when revoke-bpfd is gone.
 *
 * Layout under the pin directory (REVOKE_PIN_DIR by default):
 *	revoke_table		the revoked set (see revoke_bpf.h)
 *	revoke_state		the one-element state array
 *	revoke_events		the ring buffer of denial events
 *	revoke_file_open	... one pinned BPF link per LSM program
 *	programs_<build>/	this build's programs, unattached (progs.c)
 *
 * revoke-bpfd always runs its own build's programs, reusing whichever
 * maps are pinned (so no revocation is ever lost): it loads them, or
 * takes them from the pins an earlier start of the same build left
 * (progs.c), and keeps them loaded.  They are attached only while
 * something is revoked (attach.c).  When they
 * are, for each program:
 *  - no pinned link: attach and pin;
 *  - a pinned link running the same code (same program tag): keep it;
 *  - a pinned link running other code (an older build): attach the new
 *    program, pin its link as NAME__new and rename() it over
 *    the old pin.  Both programs are attached in between, so there is no
 *    moment without enforcement; dropping the old pin detaches the old one.
 * A program for a hook the running kernel lacks is neither loaded nor
 * pinned (features.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>
#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/common.h"
#include "armed.h"
#include "attach.h"
#include "features.h"
#include "fs_layout.h"
#include "legacy.h"
#include "store.h"
#include "pins.h"
#include "progs.h"
#include "revoke.skel.h"

static bool libbpf_verbose;

/* libbpf's lines name libbpf: written as they are, at their priority */
static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	static const int prio[] = { [LIBBPF_WARN] = LOG_WARNING,
				    [LIBBPF_INFO] = LOG_INFO,
				    [LIBBPF_DEBUG] = LOG_DEBUG };

	if (level == LIBBPF_DEBUG && !libbpf_verbose)
		return 0;
	log_vraw(level <= LIBBPF_DEBUG ? prio[level] : LOG_INFO, fmt, ap);
	return 0;
}

/**
 * store_disarm() - make every hook allow everything, at once
 * @rb: the daemon's handles
 *
 * Clears revoke_armed, which each hook reads first: from the return on,
 * nothing is denied, whenever the kernel gets round to tearing down the
 * links.  For unload only: the daemon's counters would arm it again.
 *
 * Return: 0 or a negative errno.
 */
int store_disarm(struct store *rb)
{
	return armed_clear(rb);
}

/*
 * Is @pin_dir root's alone?  A BPF filesystem mounted without a mode is
 * 1777: a folder a user made there before the daemon first ran would be
 * adopted, and the user could unlink its pins and so lift every
 * revocation while the daemon is down.  It must be a directory (not a
 * link), owned by root and writable by no one else.
 */
static int pin_dir_trusted(const char *pin_dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(pin_dir, &st)) {
		snprintf(err, errlen, "cannot stat %s: %s", pin_dir,
			 strerror(errno));
		return -errno;
	}
	if (!revoke_dir_root_only(&st)) {
		snprintf(err, errlen,
			 "%s is not a folder of root's that only root may write "
			 "(owner uid %u, mode %04o): someone else could lift "
			 "every revocation by unlinking its pins; remove it, "
			 "or name another with --pin-dir", pin_dir,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
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
			 "'mount -t bpf -o mode=0700 bpf %s'", parent, parent);
		return -ENOTDIR;
	}
	if (mkdir(pin_dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", pin_dir,
			 strerror(errno));
		return -errno;
	}
	return pin_dir_trusted(pin_dir, err, errlen);
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

/*
 * Reuse the pinned copy of @map if there is one, else pin it after load
 * and set *@fresh.
 */
static int reuse_map(struct bpf_map *map, const char *pin_dir, bool *fresh)
{
	char path[PATH_MAX], name[NAME_MAX + 1];
	int fd, err;

	revoke_map_pin_name(map, name);
	fd = revoke_pin_get(pin_dir, name);
	if (fd == -ENOENT) {
		*fresh = true;
		if (revoke_pin_path(path, sizeof(path), pin_dir, name))
			return -ENAMETOOLONG;
		return bpf_map__set_pin_path(map, path);
	}
	if (fd < 0)
		return fd;
	err = bpf_map__reuse_fd(map, fd);
	close(fd);
	return err;
}

static int keep_fd(int fd, int *out, char *err, size_t errlen)
{
	*out = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (*out < 0) {
		snprintf(err, errlen, "dup: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int map_filter(struct store *rb, char *err, size_t errlen)
{
	void *p = mmap(NULL, REVOKE_FILTER_WORDS * sizeof(uint64_t),
		       PROT_READ | PROT_WRITE, MAP_SHARED, rb->filter_fd, 0);

	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map revoke_filter: %s",
			 strerror(errno));
		return -errno;
	}
	rb->filter = p;
	return 0;
}

static int sync_filter(struct store *rb, char *err, size_t errlen)
{
	int ret = inode_set_filter_sync(rb);

	if (ret)
		snprintf(err, errlen, "cannot fill revoke_filter from the revoked "
			 "set: %s", strerror(-ret));
	return ret;
}

static void unpin(const char *pin_dir, const char *name)
{
	char path[PATH_MAX];

	if (!revoke_pin_path(path, sizeof(path), pin_dir, name))
		unlink(path);
}

/* Map revoke_table, of the size it has (a reused one keeps its own). */
static int map_table(struct store *rb, char *err, size_t errlen)
{
	uint32_t elements = 0;
	int ret;

	ret = map_capacity(rb->table_fd, &elements);
	if (!ret)
		ret = inode_table_map(&rb->table, rb->table_fd, elements);
	if (ret) {
		snprintf(err, errlen, "cannot map revoke_table: %s",
			 strerror(-ret));
		return ret;
	}
	rb->max_entries = inode_table_capacity(&rb->table);
	return 0;
}

/*
 * Leave out the programs the running kernel cannot attach, as its BTF
 * says; *@btf is that BTF, for the caller to free.
 */
static int select_progs(struct store *rb, struct revoke_bpf_skel *skel,
			struct btf **btf, char *err, size_t errlen)
{
	int ret;

	*btf = btf__load_vmlinux_btf();
	if (!*btf) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the kernel's BTF: %s (BPF LSM "
			 "needs CONFIG_DEBUG_INFO_BTF)", strerror(-ret));
		return ret;
	}
	ret = store_select(skel->obj, *btf, rb->skipped, err, errlen);
	if (ret < 0)
		return ret;
	rb->nr_skipped = ret;
	return 0;
}

/*
 * Load the object: its maps, reused from their pins, and this build's
 * programs, taken from their pins (progs.c) unless a map was made anew
 * (@fresh_map), else loaded, verified and pinned for the next start.
 */
static int load_object(struct store *rb, struct revoke_bpf_skel *skel,
		       const struct btf *btf, bool fresh_map, char *err,
		       size_t errlen)
{
	uint64_t start = revoke_now_us();
	int ret;

	if (!fresh_map)
		progs_adopt(rb, skel, btf);
	ret = revoke_bpf_skel__load(skel);
	if (ret) {
		snprintf(err, errlen,
			 "the kernel refused to load the BPF LSM programs: %s%s",
			 strerror(-ret),
			 ret == -EPERM ? " (run as root; BPF LSM may be listed "
			 "but blocked here, e.g. by lockdown or a container)" : "");
		return ret;
	}
	ret = progs_map_ids(rb, skel);
	if (!ret && !rb->progs_adopted)
		ret = progs_keep(rb, skel);
	if (ret) {
		snprintf(err, errlen, "cannot keep the programs: %s",
			 strerror(-ret));
		return ret;
	}
	rb->load_us = revoke_now_us() - start;
	return 0;
}

/* Keep a descriptor of each map the daemon writes, by its skeleton name. */
static int keep_fds(struct store *rb, struct revoke_bpf_skel *skel, char *err,
		    size_t errlen)
{
	const struct {
		struct bpf_map *map;
		int *fd;
	} kept[] = {
		{ skel->maps.revoke_table, &rb->table_fd },
		{ skel->maps.revoke_state, &rb->state_fd },
		{ skel->maps.revoke_events, &rb->events_fd },
		{ skel->maps.revoke_reports, &rb->reports_fd },
		{ skel->maps.revoke_filter, &rb->filter_fd },
		{ skel->maps.revoked_rdev, &rb->rdev_fd },
		{ skel->maps.revoke_rdev_state, &rb->rdev_state_fd },
		{ skel->maps.rdev_files, &rb->rdev_files_fd },
		{ skel->maps.bss, &rb->armed_fd },
		{ skel->maps.revoke_layout, &rb->layout_fd },
		{ skel->maps.revoke_names, &rb->names_fd },
		{ skel->maps.revoked_supers, &rb->supers_fd },
		{ skel->maps.paused, &rb->paused_fd },
		{ skel->maps.pause_devs, &rb->pause_devs_fd },
		{ skel->maps.pause_majors, &rb->pause_majors_fd },
		{ skel->maps.pause_slices, &rb->pause_slices_fd },
		{ skel->maps.pause_classes, &rb->pause_classes_fd },
		{ skel->maps.revoked_files, &rb->files_fd },
	};
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]) && !ret; i++)
		ret = keep_fd(bpf_map__fd(kept[i].map), kept[i].fd, err,
			      errlen);
	return ret;
}

static int load_and_attach(struct store *rb, uint32_t max_entries,
			   char *err, size_t errlen)
{
	struct revoke_bpf_skel *skel;
	bool fresh_map = false, table_fresh;
	struct btf *btf = NULL;
	struct bpf_map *map;
	int ret;

	skel = revoke_bpf_skel__open();
	if (!skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s",
			 strerror(-ret));
		return ret;
	}
	rb->adopted = true;
	ret = select_progs(rb, skel, &btf, err, errlen);
	if (ret)
		goto out;
	table_fresh = !revoke_pinned(rb->pin_dir, "revoke_table");
	ret = bpf_map__set_max_entries(skel->maps.revoke_table,
				       inode_table_elements(max_entries));
	if (!ret)
		ret = bpf_map__set_max_entries(skel->maps.revoke_reports,
					       max_entries);
	if (!ret)
		ret = bpf_map__set_max_entries(skel->maps.revoke_names,
					       max_entries);
	bpf_object__for_each_map(map, skel->obj) {
		if (ret)
			break;
		ret = reuse_map(map, rb->pin_dir, &fresh_map);
	}
	if (ret) {
		snprintf(err, errlen, "cannot reuse the pinned maps in %s: %s",
			 rb->pin_dir, strerror(-ret));
		goto out;
	}
	ret = load_object(rb, skel, btf, fresh_map, err, errlen);
	btf__free(btf);
	btf = NULL;
	if (ret)
		goto out;
	ret = keep_fds(rb, skel, err, errlen);
	if (!ret)
		ret = map_filter(rb, err, errlen);
	if (!ret)
		ret = map_table(rb, err, errlen);
	if (!ret) {
		ret = legacy_migrate(rb, err, errlen);
		if (ret && table_fresh)
			unpin(rb->pin_dir, "revoke_table");
	}
	/*
	 * A filter or an armed word made new (first start, or an upgrade)
	 * is filled before any program of this build is attached.
	 */
	if (!ret)
		ret = sync_filter(rb, err, errlen);
	/*
	 * The counters from the sets themselves: a daemon killed between an
	 * insert and its counter's write, or a counter made anew, must not
	 * make a set that holds an entry look empty to attach_start().
	 */
	if (!ret) {
		ret = attach_resync(rb);
		if (ret)
			snprintf(err, errlen, "cannot count the revoked sets and "
				 "set revoke_armed: %s", strerror(-ret));
	}
	/* kept: the programs are attached while something is revoked */
	rb->skel = skel;
	if (!ret)
		ret = attach_start(rb, fresh_map, err, errlen);
	/* the programs that read the legacy set are detached now */
	if (!ret)
		unpin(rb->pin_dir, LEGACY_SET);
	return ret;
out:
	btf__free(btf);
	revoke_bpf_skel__destroy(skel);
	return ret;
}

/* Every map descriptor the store keeps (see keep_fds()). */
#define STORE_FDS(rb) {							\
	&(rb)->table_fd, &(rb)->state_fd, &(rb)->events_fd,		\
	&(rb)->reports_fd, &(rb)->filter_fd, &(rb)->rdev_fd,		\
	&(rb)->rdev_state_fd, &(rb)->rdev_files_fd, &(rb)->armed_fd,	\
	&(rb)->layout_fd, &(rb)->names_fd, &(rb)->supers_fd,		\
	&(rb)->paused_fd, &(rb)->pause_devs_fd, &(rb)->pause_majors_fd,	\
	&(rb)->pause_slices_fd, &(rb)->pause_classes_fd, &(rb)->files_fd, \
}

static void store_fds_reset(struct store *rb)
{
	int *fds[] = STORE_FDS(rb);
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		*fds[i] = -1;
	for (i = 0; i < REVOKE_NR_PROGS; i++)
		rb->prog_fd[i] = -1;
}

/**
 * store_open() - make sure the programs enforce, and open their maps
 * @rb: result
 * @pin_dir: pin directory, on a BPF filesystem
 * @max_entries: capacity of the revoked set if it has to be created
 * @verbose: print libbpf's debug output (the verifier log)
 * @err: on failure, a one-line reason with what to do about it
 * @errlen: size of @err
 *
 * Return: 0, or a negative errno.  On failure nothing pinned before the
 * call is removed, so enforcement that was in place stays in place.
 */
int store_open(struct store *rb, const char *pin_dir,
		    uint32_t max_entries, bool verbose, char *err, size_t errlen)
{
	int ret;

	memset(rb, 0, sizeof(*rb));
	store_fds_reset(rb);
	if (strlen(pin_dir) >= sizeof(rb->pin_dir)) {
		snprintf(err, errlen, "pin directory path too long");
		return -ENAMETOOLONG;
	}
	strcpy(rb->pin_dir, pin_dir);
	libbpf_verbose = verbose;
	libbpf_set_print(print_libbpf);

	ret = check_bpffs(pin_dir, err, errlen);
	if (!ret)
		ret = load_and_attach(rb, max_entries, err, errlen);
	if (ret)
		store_close(rb);
	return ret;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void store_fds_close(struct store *rb)
{
	int *fds[] = STORE_FDS(rb);
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close_fd(fds[i]);
}

/**
 * store_close() - drop the daemon's handles; the pins keep enforcing
 * @rb: handles from store_open()
 */
void store_close(struct store *rb)
{
	inode_table_unmap(&rb->table);
	if (rb->filter)
		munmap(rb->filter, REVOKE_FILTER_WORDS * sizeof(uint64_t));
	rb->filter = NULL;
	store_fds_close(rb);
	attach_close(rb);
	progs_close(rb);
	revoke_bpf_skel__destroy(rb->skel);
	rb->skel = NULL;
}

/**
 * store_events_ring() - a consumer of the denial events ("revoke_events")
 * @rb: the daemon's handles
 * @fn: called with each event, a struct revoke_event
 * @ctx: passed to @fn
 *
 * Return: the ring buffer, to poll, consume and free with libbpf's
 * ring_buffer__*(), or NULL with errno set.
 */
struct ring_buffer *store_events_ring(const struct store *rb,
				      ring_buffer_sample_fn fn, void *ctx)
{
	return ring_buffer__new(rb->events_fd, fn, ctx, NULL);
}

/**
 * store_layout_update() - fill in what is known now of revoke_layout
 * @rb: the daemon's handles
 * @builtin: also the parts of filesystems built into the kernel
 *
 * Return: what fs_layout_update() returns: the REVOKE_LAYOUT_* parts
 * known, or a negative errno.
 */
int store_layout_update(struct store *rb, bool builtin)
{
	return fs_layout_update(rb->layout_fd, builtin);
}

/**
 * store_layout_share() - make @map, of another BPF object, revoke_layout
 * @rb: the daemon's handles
 * @map: a map declared like revoke_layout (bpf/inode_key.bpf.h), not
 *	loaded yet
 *
 * For the holder iterators, which name files as the hooks do.  A store
 * without the map (the unit tests') leaves @map the iterators' own.
 *
 * Return: 0 or a negative errno.
 */
int store_layout_share(const struct store *rb, struct bpf_map *map)
{
	if (rb->layout_fd < 0)
		return 0;
	return bpf_map__reuse_fd(map, rb->layout_fd);
}

/**
 * store_reach_daemon() - tell the hooks which process is revoke-bpfd
 * @rb: the daemon's handles
 * @tgid: its process id
 *
 * Sets "revoke_reach" (struct revoke_reach_state, bpf/reach.bpf.h), so
 * that the daemon's own TIOCVHANGUP on a revoked tty passes.
 *
 * Return: 0 or a negative errno.
 */
int store_reach_daemon(struct store *rb, uint32_t tgid)
{
	struct revoke_reach_state rs = { .daemon_tgid = tgid };
	__u32 zero = 0;
	int fd, ret = 0;

	fd = revoke_pin_get(rb->pin_dir, "revoke_reach");
	if (fd < 0)
		return fd;
	if (bpf_map_update_elem(fd, &zero, &rs, BPF_ANY))
		ret = -errno;
	close(fd);
	return ret;
}

/**
 * store_idle_tick() - detach the programs once nothing is revoked
 * @rb: the daemon's handles
 * @now_ms: CLOCK_MONOTONIC, in milliseconds
 * @grace_ms: how long every set must have been empty first
 *
 * Return: milliseconds until the next call is due, or -1 if none is.
 */
int store_idle_tick(struct store *rb, uint64_t now_ms, uint32_t grace_ms)
{
	return attach_idle_tick(rb, now_ms, grace_ms);
}

/**
 * store_attach_take() - how long attaching the programs took, once
 * @rb: the daemon's handles
 *
 * Return: the microseconds the last attach took if nothing read them
 * since, else 0.  Reads reset it, and the last attach's error.
 */
uint64_t store_attach_take(struct store *rb)
{
	uint64_t us = rb->attach_taken_us;

	rb->attach_taken_us = 0;
	rb->attach_err[0] = '\0';
	return us;
}

/**
 * store_attach_error() - why the programs could not be attached
 * @rb: the daemon's handles
 *
 * Return: the reason of the last failed attach, or "" if none failed.
 */
const char *store_attach_error(const struct store *rb)
{
	return rb->attach_err;
}

/**
 * store_enforcement() - whether the programs are attached as they should
 * @rb: the daemon's handles
 *
 * Return: "attached", "idle" (nothing revoked, nothing attached) or
 * "missing" (something is revoked and the programs are not attached:
 * never, unless the pins were removed by hand or the counters lie).
 */
const char *store_enforcement(struct store *rb)
{
	uint64_t entries = 0;
	uint32_t bits = 0;

	if (rb->attached)
		return "attached";
	inode_set_count(rb, &entries);
	if (armed_bits(rb, &bits) || bits || entries)
		return "missing";
	return "idle";
}
