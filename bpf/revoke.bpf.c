// SPDX-License-Identifier: GPL-2.0
/*
 * revoke.bpf.c - the enforcement core: BPF LSM programs that deny every
 * operation on a revoked inode with -EIO.
 *
 * An inode is revoked while its (filesystem device, inode number) is in
 * the inode set (inode_set.bpf.h) or its filesystem is in the filesystem
 * set (super_set.bpf.h), a device while its number is in the device set
 * (device_set.bpf.h), one open file description while its address is
 * in the file set (file_set.bpf.h).  revoke-bpfd fills the sets; these
 * programs read them, count denials, report each one through a ring
 * buffer, and free the entry of an inode that is deleted and freed (so
 * that a new file that reuses the number is not denied).
 *
 * Each hook opens with HOOK_PROLOGUE: an earlier LSM's verdict (a
 * non-zero @ret) is returned unchanged, and while nothing is revoked the
 * hook returns after a single load, of the global revoke_armed; while
 * something is, a file whose bit in revoke_filter is clear (nearly every
 * file) returns after one more array load, without a lookup in the set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "revoke_bpf.h"
#include "inode_key.bpf.h"
#include "inode_set.bpf.h"
#include "device_set.bpf.h"
#include "super_set.bpf.h"
#include "pause_set.bpf.h"
#include "file_set.bpf.h"

#define EIO 5
#define ENODEV 19
#define MAY_WRITE 0x2
#define MAY_READ 0x4
/* fcntl commands (uapi/asm-generic/fcntl.h, linux/fcntl.h) */
/* include/linux/fs.h */
#define FMODE_PATH 0x4000
#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_DUPFD_CLOEXEC 1030
/* inode modes (uapi/linux/stat.h) */
#define S_IFMT  00170000
#define S_IFBLK 0060000
#define S_IFCHR 0020000

char LICENSE[] SEC("license") = "GPL";

/* The inode set's counter, nr_revoked, and the hooks' statistics. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct revoke_state);
} revoke_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, REVOKE_EVENTS_BYTES);
} revoke_events SEC(".maps");

/*
 * REVOKE_ARMED_INODES | REVOKE_ARMED_DEVICES, or 0 while nothing is
 * revoked; written by the daemon only.  A global, so that reading it is
 * one load from an address the verifier fixed, with no map lookup.
 */
__u32 revoke_armed;

/*
 * The opening of every hook with a verdict: the verdict of an earlier LSM
 * (@ret non-zero) stands, and while nothing is revoked the hook allows
 * after this one load.  Declares @armed, revoke_armed as the hook read it.
 */
#define HOOK_PROLOGUE(ret, armed)					\
	__u32 armed = revoke_armed;					\
	if ((ret) || !armed)						\
		return (ret)

static __always_inline struct revoke_state *state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&revoke_state, &zero);
}

/* What a file_permission @mask asks for, as an event's op. */
static __always_inline __u32 permission_op(__u64 mask)
{
	return mask & MAY_WRITE ? REVOKE_OP_WRITE :
	       mask & MAY_READ ? REVOKE_OP_READ : REVOKE_OP_OTHER;
}

/*
 * Report a denial of @op on @key: an event in the ring, or one more lost.
 * file_permission's op is worked out from its mask (@arg) only here, so
 * that the path of a file that is not revoked does not pay for it.  A
 * global function: the verifier checks one copy per program, not one at
 * each place a hook denies.  Return: 0.
 */
__noinline int revoke_report(const struct revoke_key *key, __u32 hook,
			     __u32 op, __u64 arg)
{
	struct revoke_state *st = state();
	struct revoke_event *ev;
	__u64 id;

	if (!st || !key)
		return 0;
	ev = bpf_ringbuf_reserve(&revoke_events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&st->events_lost, 1);
		return 0;
	}
	ev->ts_ns = bpf_ktime_get_ns();
	id = bpf_get_current_pid_tgid();
	ev->pid = (__u32)id;
	ev->tgid = id >> 32;
	ev->uid = (__u32)bpf_get_current_uid_gid();
	ev->dev = key->dev;
	ev->ino = key->ino;
	ev->hook = hook;
	ev->op = hook == REVOKE_HOOK_FILE_PERMISSION ? permission_op(arg) : op;
	ev->arg = arg;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/* Deny: count and report the operation on @key, and return -EIO. */
static __always_inline int denied(const struct revoke_key *key, __u32 hook,
				  __u32 op, __u64 arg)
{
	revoke_report(key, hook, op, arg);
	return -EIO;
}

/*
 * Is @key revoked?  If it is, count and report the operation, and return
 * 1; else 0.  A global function, so that the verifier checks the set's
 * unrolled lookup once per program, where a copy inlined at each of
 * check_file()'s calls was checked once for each (most of every start of
 * revoke-bpfd under emulation).
 */
__noinline int revoke_key_denied(const struct revoke_key *key, __u32 hook,
				 __u32 op, __u64 arg)
{
	if (!key || !inode_set_deny(key))
		return 0;
	denied(key, hook, op, arg);
	return 1;
}

/*
 * Return -EIO if @key is revoked, else 0, and report the denial.  The
 * filter is looked at here, inlined: the call of revoke_key_denied()
 * costs more than the look (bench: 33 instructions of 250 per
 * file_permission).
 */
static __always_inline int check_key(const struct revoke_key *key, __u32 hook,
				     __u32 op, __u64 arg)
{
	if (!inode_set_may_hold(key))
		return 0;
	return revoke_key_denied(key, hook, op, arg) ? -EIO : 0;
}

/*
 * The same for @inode, a pointer the hook was handed (or NULL): denied if
 * its filesystem is revoked (super_set.bpf.h) or it is.
 */
static __always_inline int check_inode(struct inode *inode, __u32 armed,
				       __u32 hook, __u32 op, __u64 arg)
{
	struct revoke_key key = {};
	struct super_block *sb;

	if (!inode)
		return 0;
	if (armed & REVOKE_ARMED_SUPERS) {
		sb = inode->i_sb;
		if (super_set_deny(sb, sb->s_dev)) {
			inode_key(inode, &key);
			return denied(&key, hook, op, arg);
		}
	}
	if (!(armed & REVOKE_ARMED_INODES))
		return 0;
	inode_key(inode, &key);
	return check_key(&key, hook, op, arg);
}

/*
 * The same for @inode, a pointer read from memory (or NULL), as a
 * scalar: 1 if denied (reported), else 0.  A global function, checked
 * once per program by the verifier, where the copies inlined for an
 * overlay's real files, a pty's and a loop device's backing file were
 * checked once each (most of a start of revoke-bpfd under emulation);
 * none of them is on the path of a plain file.
 */
__noinline int revoke_inode_read_denied(__u64 ptr, __u32 armed, __u32 hook,
					__u32 op, __u64 arg)
{
	struct inode *inode = (struct inode *)ptr;
	struct revoke_key key = {};
	struct super_block *sb;

	if (!inode)
		return 0;
	if (armed & REVOKE_ARMED_SUPERS) {
		sb = BPF_CORE_READ(inode, i_sb);
		if (sb && super_set_deny(sb, BPF_CORE_READ(sb, s_dev))) {
			inode_key_read(inode, &key);
			denied(&key, hook, op, arg);
			return 1;
		}
	}
	if (!(armed & REVOKE_ARMED_INODES))
		return 0;
	inode_key_read(inode, &key);
	return check_key(&key, hook, op, arg) ? 1 : 0;
}

/* revoke_inode_read_denied() as a verdict: -EIO or 0. */
static __always_inline int check_inode_read(struct inode *inode, __u32 armed,
					    __u32 hook, __u32 op, __u64 arg)
{
	return revoke_inode_read_denied((__u64)inode, armed, hook, op, arg) ?
	       -EIO : 0;
}

/*
 * Is device @rdev of @type paused for anyone, for @hook?  A descriptor
 * passes (file_receive) while paused: it works again on resume.
 */
static __always_inline bool device_paused(__u32 rdev, __u32 type, __u32 armed,
					  __u32 hook)
{
	return (armed & REVOKE_ARMED_PAUSES) &&
	       hook != REVOKE_HOOK_FILE_RECEIVE && pause_dev_paused(rdev, type);
}

/*
 * Return -EIO if device @rdev of @type (REVOKE_RDEV_*) is revoked for
 * @file: opened before the device went away, or at any time while it
 * has not gone yet; the pause's errno if it is paused (@paused, from
 * device_paused()) for the user of this operation (pause_set.bpf.h);
 * report it as @shown.
 */
static __always_inline int deny_device(struct file *file, __u32 rdev,
				       __u32 type, bool paused,
				       const struct revoke_key *shown,
				       __u32 armed, __u32 hook, __u32 op,
				       __u64 arg)
{
	struct revoke_rdev_val *val;
	const struct cred *fcred;
	int err;

	if (paused && !daemon_self()) {
		fcred = BPF_CORE_READ(file, f_cred);
		err = revoke_pause_errno(rdev, type,
					 BPF_CORE_READ(fcred, uid.val),
					 BPF_CORE_READ(fcred, euid.val));
		if (err) {
			revoke_report(shown, hook, op, arg);
			/* bounded for the verifier: an LSM returns -4095..0 */
			return err == ENODEV ? -ENODEV : -EIO;
		}
	}
	if (!(armed & REVOKE_ARMED_DEVICES))
		return 0;
	val = device_set_find(rdev, type);
	if (!val || device_set_new_file(file, hook, val))
		return 0;
	__sync_fetch_and_add(&val->denials, 1);
	return denied(shown, hook, op, arg);
}

/* The same for @file, if @inode, its inode, is a device special file. */
static __always_inline int check_rdev(struct file *file, struct inode *inode,
				      __u32 armed, __u32 hook, __u32 op,
				      __u64 arg)
{
	struct revoke_key key = {};
	__u32 fmt, rdev, type;
	bool paused;

	if (!(armed & (REVOKE_ARMED_DEVICES | REVOKE_ARMED_PAUSES)))
		return 0;
	fmt = inode->i_mode & S_IFMT;
	if (fmt != S_IFCHR && fmt != S_IFBLK)
		return 0;
	rdev = inode->i_rdev;
	type = fmt == S_IFCHR ? REVOKE_RDEV_CHAR : REVOKE_RDEV_BLOCK;
	/*
	 * The key only names the file in a report: while only pauses are
	 * armed, a device no pause can name (pause_majors) passes without
	 * it.
	 */
	paused = device_paused(rdev, type, armed, hook);
	if (!paused && !(armed & REVOKE_ARMED_DEVICES))
		return 0;
	inode_key(inode, &key);
	return deny_device(file, rdev, type, paused, &key, armed, hook, op,
			   arg);
}

#include "reach.bpf.h"

/*
 * check_file() while only files are revoked (revoke_armed is
 * REVOKE_ARMED_INODES alone), for @inode that reaches no other inode: no
 * tty alias (check_tty()) nor revoke-bpfd's TIOCVHANGUP, no overlayfs
 * file (its real file's), and not btrfs, whose keys name the subvolume
 * and not s_dev.  A file on a
 * filesystem none of whose inodes is in the set passes after one look at
 * its super_block: the device's filter bit (revoke_bpf.h) is clear.
 *
 * Return: -EIO or 0, the verdict; 1 if @inode is not one of these.
 */
static __always_inline int check_plain_inode(struct inode *inode, __u32 hook,
					     __u32 op, __u64 arg)
{
	struct revoke_key key = {};
	struct super_block *sb;
	unsigned long magic;
	__u32 rdev;

	/* the daemon's own hangup of a revoked tty (check_tty()) */
	if (hook == REVOKE_HOOK_FILE_IOCTL && arg == TIOCVHANGUP)
		return 1;
	rdev = inode->i_rdev;
	if (tty_alias(rdev))
		return 1;
	sb = inode->i_sb;
	magic = sb->s_magic;
	if (magic == REVOKE_OVERLAYFS_MAGIC || magic == REVOKE_BTRFS_MAGIC)
		return 1;
	key.dev = sb->s_dev;
	if (!inode_set_dev_may_hold(key.dev))
		return 0;
	key.ino = inode->i_ino;
	return check_key(&key, hook, op, arg);
}

/*
 * Return -EIO if @file itself, the open file description, is revoked
 * (add --fd), whatever its inode, and report the denial.  revoke-bpfd
 * may take a copy of it (pidfd_getfd), so that an add of it again says
 * "already".
 */
static __always_inline int check_open_file(struct file *file, __u32 armed,
					   __u32 hook, __u32 op, __u64 arg)
{
	struct revoke_file_val *val;

	if (!(armed & REVOKE_ARMED_FILES) ||
	    (hook == REVOKE_HOOK_FILE_RECEIVE && daemon_self()))
		return 0;
	val = file_set_deny(file);
	return val ? denied(&val->key, hook, op, arg) : 0;
}

/*
 * While pauses are all that is armed, is @inode a device file a pause
 * may name: a device of a major marked in "pause_majors", or a tty alias
 * (check_tty() looks through it)?  Every other file passes check_file()
 * with no more look: other users' reads and writes while a pause holds.
 */
static __always_inline bool pause_may_name(struct inode *inode)
{
	__u32 fmt = inode->i_mode & S_IFMT, rdev = inode->i_rdev;

	if (fmt != S_IFCHR && fmt != S_IFBLK)
		return false;
	if (fmt == S_IFCHR && tty_alias(rdev))
		return true;
	return pause_major_marked(rdev);
}

/*
 * The same for @file, which may be NULL (an anonymous mapping), and for
 * the files it reaches through: an overlayfs file is denied if its real
 * file (a regular file, never a device), or that file's own real file
 * when overlays are stacked, is revoked, whatever its own key
 * (its own inode number may be another layer's, and aio, io_uring and
 * mmap on it reach the real file without a hook of their own).
 */
static __always_inline int check_file(struct file *file, __u32 armed,
				      __u32 hook, __u32 op, __u64 arg)
{
	struct inode *inode;
	struct file *real;
	int ret;

	if (!file)
		return 0;
	inode = file->f_inode;
	if (armed == REVOKE_ARMED_PAUSES && (!inode || !pause_may_name(inode)))
		return 0;
	ret = check_open_file(file, armed, hook, op, arg);
	if (ret)
		return ret;
	if (!inode)
		return 0;
	if (armed == REVOKE_ARMED_INODES) {
		ret = check_plain_inode(inode, hook, op, arg);
		if (ret <= 0)
			return ret;
	}
	/* a tty alias: the tty it reaches (reach.bpf.h) */
	ret = check_tty(file, inode, armed, hook, op, arg);
	if (ret)
		return ret < 0 ? ret : 0;
	/* the device first: nothing of it is live across the set's lookups */
	ret = check_rdev(file, inode, armed, hook, op, arg);
	if (!ret)
		ret = check_inode(inode, armed, hook, op, arg);
	if (ret || !(armed & (REVOKE_ARMED_INODES | REVOKE_ARMED_SUPERS)))
		return ret;
	real = ovl_real_file(file, inode);
	if (!real)
		return 0;
	ret = check_inode_read(BPF_CORE_READ(real, f_inode), armed, hook, op,
			       arg);
	if (ret)
		return ret;
	/* an overlay stacked on an overlay: its real file's real file */
	real = ovl_real_file_read(real);
	if (!real)
		return 0;
	return check_inode_read(BPF_CORE_READ(real, f_inode), armed, hook, op,
				arg);
}

SEC("lsm/file_permission")
int BPF_PROG(revoke_file_permission, struct file *file, int mask, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_FILE_PERMISSION, 0,
			  (__u32)mask);
}

SEC("lsm/mmap_file")
int BPF_PROG(revoke_mmap_file, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_MMAP_FILE, REVOKE_OP_MMAP,
			  prot);
}

/*
 * An ioctl on @file, or one setting up a loop device on a revoked file
 * (reach.bpf.h); @hook tells the 64-bit entry from the 32-bit one.
 */
static __always_inline int check_ioctl(struct file *file, unsigned int cmd,
				       unsigned long arg, __u32 armed,
				       __u32 hook)
{
	int ret = check_loop_ioctl(file, cmd, arg, armed);

	if (ret)
		return ret;
	return check_file(file, armed, hook, REVOKE_OP_IOCTL, cmd);
}

SEC("lsm/file_ioctl")
int BPF_PROG(revoke_file_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_ioctl(file, cmd, arg, armed, REVOKE_HOOK_FILE_IOCTL);
}

SEC("lsm/file_open")
int BPF_PROG(revoke_file_open, struct file *file, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_FILE_OPEN, REVOKE_OP_OPEN,
			  file->f_flags);
}

/* flock() and fcntl() record locks: the seed's revoked lock and flock */
SEC("lsm/file_lock")
int BPF_PROG(revoke_file_lock, struct file *file, unsigned int cmd, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_FILE_LOCK, REVOKE_OP_LOCK,
			  cmd);
}

/*
 * fcntl() on the open file (F_SETFL reaches check_flags, F_SETLK the
 * locks, F_SETLEASE, F_NOTIFY, F_SETOWN, ...) fails; the commands that
 * act on the descriptor table only keep working, so a holder can still
 * dup, close-on-exec and close what it holds.
 */
SEC("lsm/file_fcntl")
int BPF_PROG(revoke_file_fcntl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
	case F_GETFD:
	case F_SETFD:
	case F_GETFL:
		return 0;
	}
	return check_file(file, armed, REVOKE_HOOK_FILE_FCNTL, REVOKE_OP_FCNTL,
			  cmd);
}

/* A mapping made before the revocation, and not replaced, gains nothing. */
SEC("lsm/file_mprotect")
int BPF_PROG(revoke_file_mprotect, struct vm_area_struct *vma,
	     unsigned long reqprot, unsigned long prot, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(vma->vm_file, armed, REVOKE_HOOK_FILE_MPROTECT,
			  REVOKE_OP_MMAP, prot);
}

/* truncate(2) and ftruncate(2), by path or by descriptor */
SEC("lsm/path_truncate")
int BPF_PROG(revoke_path_truncate, const struct path *path, int ret)
{
	struct inode *inode;
	int err;

	HOOK_PROLOGUE(ret, armed);
	inode = path->dentry->d_inode;
	err = check_inode(inode, armed, REVOKE_HOOK_PATH_TRUNCATE,
			  REVOKE_OP_WRITE, 0);
	if (err || !inode)
		return err;
	/* overlayfs truncates its upper file without another hook */
	return check_inode_read(ovl_upper_inode(inode), armed,
			   REVOKE_HOOK_PATH_TRUNCATE, REVOKE_OP_WRITE, 0);
}

/*
 * A descriptor of a revoked file received over a unix socket
 * (SCM_RIGHTS), or taken with pidfd_getfd(), is not installed: the
 * receiver sees MSG_CTRUNC, pidfd_getfd() fails with EIO.
 */
SEC("lsm/file_receive")
int BPF_PROG(revoke_file_receive, struct file *file, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	/*
	 * An O_PATH descriptor reads, writes, maps and reopens nothing
	 * without passing file_open or the hooks above: it passes, so that
	 * revoke-bpf can hand revoke-bpfd the file it names.
	 */
	if (file->f_mode & FMODE_PATH)
		return 0;
	return check_file(file, armed, REVOKE_HOOK_FILE_RECEIVE,
			  REVOKE_OP_OTHER, 0);
}

#include "extra_hooks.bpf.h"
#include "meta_hooks.bpf.h"

/*
 * An inode is being freed.  If it has no links left it is gone for good,
 * and its number may be handed to a new file at once (ext4 does): drop
 * the revocation.  An inode merely evicted from the cache (drop_caches)
 * still has links, and its entry stays.  A FUSE server says what i_nlink
 * is, so a hostile one could have a revoked file's entry dropped while
 * the file lives on: FUSE entries stay until del.
 */
SEC("lsm/inode_free_security")
int BPF_PROG(revoke_inode_free, struct inode *inode)
{
	struct revoke_key key = {};
	struct revoke_state *st;

	if (!(revoke_armed & REVOKE_ARMED_INODES) || inode->i_nlink != 0 ||
	    inode->i_sb->s_magic == REVOKE_FUSE_MAGIC)
		return 0;
	st = state();
	if (!st)
		return 0;
	inode_key(inode, &key);
	if (inode_set_drop(&key))
		__sync_fetch_and_add(&st->freed, 1);
	return 0;
}

/* A file is freed: forget it, its address may be reused by any file. */
SEC("lsm/file_free_security")
int BPF_PROG(revoke_file_free, struct file *file)
{
	__u32 armed = revoke_armed;

	if (armed & REVOKE_ARMED_DEVICES)
		device_set_forget_file(file);
	if (armed & REVOKE_ARMED_FILES)
		file_set_forget(file);
	return 0;
}

/* A filesystem is gone: a revocation of it names nothing any more. */
SEC("lsm/sb_free_security")
int BPF_PROG(revoke_sb_free, struct super_block *sb)
{
	if (revoke_armed & REVOKE_ARMED_SUPERS)
		super_set_forget(sb);
	return 0;
}
