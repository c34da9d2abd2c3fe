/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umount.h - what pins a filesystem without a descriptor (other than a
 * task's cwd, root and executable): its mounts in every mount namespace,
 * the mounts below them, swap files on it and loop devices backed by
 * files on it; found and released from user space, without stat() or
 * open() of anything on the filesystem (issue 23).  The folder's one
 * header, for the daemon's umount verb and the pipeline (which reads
 * mountinfo through it); nothing here calls up into src/pipeline/ or
 * src/daemon/.
 *
 *	fs_pins_find()   what pins the superblock s_dev (fs_pins.c)
 *	fs_release()     swapoff, LOOP_CLR_FD, umount2 innermost first
 *	                 (fs_release.c)
 *	fs_gone_wait()   until the superblock is really gone (fs_gone.c)
 *
 * Below them: fs_ns.c (mount namespaces, work done inside one),
 * fs_mounts.c (mountinfo, prefix matching), fs_swap.c (/proc/swaps),
 * fs_loops.c (loop devices).
 */
#ifndef REVOKE_UMOUNT_H
#define REVOKE_UMOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rbuf;

/**
 * struct fs_ns - a mount namespace, entered through a process in it
 * @ino: its inode number (as in the link /proc/PID/ns/mnt -> mnt:[INO])
 * @pid: the process it was found through
 * @fd: /proc/@pid/ns/mnt, open (keeps the namespace for setns())
 */
struct fs_ns {
	ino_t ino;
	pid_t pid;
	int fd;
};

/**
 * struct fs_mount - one line of a mountinfo
 * @id: its mount id
 * @parent: its parent's mount id
 * @dev: the superblock's s_dev (third field), as a user-space dev_t
 * @root: the root of the mount within its filesystem (unescaped)
 * @path: its mount point, relative to the reader's root (unescaped)
 * @fstype: filesystem type
 * @source: mount source (unescaped), e.g. /dev/loop0
 * @depth: how many mounts are above it (0 for the namespace's root)
 */
struct fs_mount {
	int id;
	int parent;
	dev_t dev;
	char *root;
	char *path;
	char *fstype;
	char *source;
	unsigned int depth;
};

/**
 * struct fs_mount_table - a parsed mountinfo
 * @m: its lines, in the file's order
 * @nr: their number
 */
struct fs_mount_table {
	struct fs_mount *m;
	size_t nr;
};

/**
 * struct fs_swap_entry - one line of /proc/swaps
 * @index: its place in the file (the same in every namespace)
 * @path: the file name (unescaped, without " (deleted)")
 * @is_file: its type is "file" (not "partition")
 * @deleted: the file was deleted
 */
struct fs_swap_entry {
	unsigned int index;
	char *path;
	bool is_file;
	bool deleted;
};

/**
 * struct fs_pins_mount - a mount to unmount
 * @ns: index in &struct fs_pins.ns
 * @id: its mount id in that namespace
 * @dev: its superblock
 * @path: its mount point there
 * @depth: its depth in that namespace's mount tree
 * @submount: below a mount of the superblock, not one of it
 */
struct fs_pins_mount {
	unsigned int ns;
	int id;
	dev_t dev;
	char *path;
	unsigned int depth;
	bool submount;
};

/**
 * struct fs_pins_swap - a swap file on the filesystem
 * @ns: index in &struct fs_pins.ns where @path names it
 * @path: its path there
 * @index: its line in /proc/swaps
 */
struct fs_pins_swap {
	unsigned int ns;
	char *path;
	unsigned int index;
};

/**
 * struct fs_pins_loop - a loop device backed by a file on the filesystem
 * @n: its number (/dev/loopN)
 * @rdev: its device number
 * @backing: its backing file, as named in namespace @ns (or as read in
 *	the caller's namespace if no path matched)
 * @ns: index in &struct fs_pins.ns where @backing matched, or -1
 * @by_path: @backing is under a mount of the filesystem
 * @by_status: LOOP_GET_STATUS64's lo_device is the filesystem's s_dev
 * @mounted: a filesystem is mounted from it (its s_dev in @mounted_dev):
 *	the caller must release that one first
 * @mounted_dev: that filesystem's s_dev
 */
struct fs_pins_loop {
	unsigned int n;
	dev_t rdev;
	char *backing;
	int ns;
	bool by_path;
	bool by_status;
	bool mounted;
	dev_t mounted_dev;
};

/**
 * struct fs_pins - what pins one superblock
 * @s_dev: the superblock
 * @source: a mount source of it from mountinfo (e.g. /dev/loop0), or NULL
 * @ns: every mount namespace found
 * @nr_ns: their number
 * @mnt: the mounts of it and below it, per namespace, innermost first
 * @nr_mnt: their number
 * @swap: swap files on it
 * @nr_swap: their number
 * @loop: loop devices backed by files on it
 * @nr_loop: their number
 */
struct fs_pins {
	dev_t s_dev;
	char *source;
	struct fs_ns *ns;
	size_t nr_ns;
	struct fs_pins_mount *mnt;
	size_t nr_mnt;
	struct fs_pins_swap *swap;
	size_t nr_swap;
	struct fs_pins_loop *loop;
	size_t nr_loop;
};

enum fs_pins_step_kind {
	FS_PINS_SWAPOFF,
	FS_PINS_DETACH,
	FS_PINS_UMOUNT,
};

/**
 * struct fs_pins_step - one thing fs_release() did or tried
 * @kind: swapoff, detach (a loop device) or umount
 * @path: the swap file or mount point; for detach, /dev/loopN
 * @ns_ino: the namespace it was done in (0 for detach: the caller's)
 * @pid: the process whose namespace was entered (0 for detach)
 * @dev: umount: the mount's superblock; detach: the loop's rdev
 * @submount: umount of a mount below the filesystem
 * @gone: it was gone already (propagation, or someone else)
 * @err: 0, or the positive errno it failed with
 */
struct fs_pins_step {
	enum fs_pins_step_kind kind;
	char *path;
	ino_t ns_ino;
	pid_t pid;
	dev_t dev;
	bool submount;
	bool gone;
	int err;
};

/**
 * struct fs_pins_report - what fs_release() did
 * @step: each step, in the order done
 * @nr: their number
 * @failed: how many failed
 */
struct fs_pins_report {
	struct fs_pins_step *step;
	size_t nr;
	unsigned int failed;
};

/* fs_pins.c */
int fs_pins_find(dev_t s_dev, struct fs_pins *p, char *err, size_t errlen);
void fs_pins_free(struct fs_pins *p);
void fs_pins_print(struct rbuf *resp, const struct fs_pins *p);

/* fs_release.c */
int fs_release(struct fs_pins *p, struct fs_pins_report *r);
int fs_release_swaps(struct fs_pins *p, struct fs_pins_report *r);
void fs_release_report_free(struct fs_pins_report *r);
void fs_release_print(struct rbuf *resp, const struct fs_pins *p,
		      const struct fs_pins_report *r);

/* fs_gone.c */
bool fs_gone_check(dev_t s_dev, const char *source, char *why, size_t len);
bool fs_gone_wait(dev_t s_dev, const char *source, int timeout_ms,
		  char *why, size_t len);

/* fs_mounts.c */
void fs_mounts_unescape(char *s);
int fs_mounts_parse(const char *text, size_t len, struct fs_mount_table *t);
void fs_mounts_table_free(struct fs_mount_table *t);
int fs_mounts_read_self(struct fs_mount_table *t);
bool fs_mounts_is_prefix(const char *mnt, const char *path);
const struct fs_mount *fs_mounts_lookup(const struct fs_mount_table *t,
					const char *path);
bool fs_mounts_below(const struct fs_mount_table *t, size_t i, dev_t s_dev);
void fs_mounts_sort(struct fs_pins_mount *m, size_t nr);

/* fs_ns.c */
int fs_ns_list(struct fs_ns **ns, size_t *nr);
void fs_ns_free(struct fs_ns *ns, size_t nr);

/**
 * typedef fs_ns_fn - work done in a child inside a mount namespace
 * @arg: what the caller gave
 * @out: where its answer goes (a pipe to the caller)
 *
 * It runs in a forked child of a process that may have threads: it
 * makes system calls only (no malloc, no stdio).
 *
 * Return: 0, or a positive errno: the child's exit status.
 */
typedef int (*fs_ns_fn)(void *arg, int out);
int fs_ns_run(const struct fs_ns *ns, fs_ns_fn fn, void *arg,
		     char **out, size_t *len);
int fs_ns_cat(void *arg, int out);

/**
 * struct fs_ns_files - the files fs_ns_cat() writes, each
 *	followed by a NUL (nothing for a file it could not open)
 * @dirfd: the directory of each (opened before the namespace is entered)
 * @name: each, relative to its @dirfd
 * @nr: their number
 */
struct fs_ns_files {
	const int *dirfd;
	const char *const *name;
	size_t nr;
};

/* fs_swap.c */
int fs_swap_parse(char *text, struct fs_swap_entry **out, size_t *nr);
void fs_swap_free(struct fs_swap_entry *e, size_t nr);

/* fs_loops.c */
int fs_loops_list(unsigned int **n, size_t *nr);
void fs_loops_backing_trim(char *s);
int fs_loops_rdev(unsigned int n, dev_t *rdev);
int fs_loops_status(unsigned int n, dev_t *lo_device);
int fs_loops_detach(unsigned int n);

#endif /* REVOKE_UMOUNT_H */
