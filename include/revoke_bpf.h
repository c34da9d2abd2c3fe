/* SPDX-License-Identifier: GPL-2.0 */
/*
 * revoke_bpf.h - the one set of definitions shared by the BPF programs
 * (bpf/revoke.bpf.c) and user space (src/).
 *
 * Only fixed-width types here: the same bytes are read by the kernel and
 * by the daemon.
 */
#ifndef REVOKE_BPF_H
#define REVOKE_BPF_H

#ifdef __BPF__
/* vmlinux.h already defines the __u* types */
#else
#include <linux/types.h>
#endif

/* Default size of the revoked set; revoke-bpfd --max-entries overrides. */
#define REVOKE_MAX_ENTRIES_DEFAULT 65536

/*
 * Kernel dev_t encoding (include/linux/kdev_t.h: MINORBITS 20).  The BPF
 * side sees super_block->s_dev in this form; user space converts st_dev to
 * it in exactly one place, revoke_kdev() in src/common/key.c.
 */
#define REVOKE_KDEV_MINORBITS 20
#define REVOKE_KDEV_MINORMASK ((1U << REVOKE_KDEV_MINORBITS) - 1)
#define REVOKE_KDEV_MAJORMAX  ((1U << (32 - REVOKE_KDEV_MINORBITS)) - 1)

/**
 * struct revoke_key - identity of a revoked inode
 * @dev: the filesystem's device (super_block->s_dev, kernel encoding)
 * @pad: always zero, so that the key has no holes with garbage in them
 * @ino: the inode number on that filesystem
 */
struct revoke_key {
	__u32 dev;
	__u32 pad;
	__u64 ino;
};

/*
 * The filter in front of the revoked set ("revoke_filter", an mmapable
 * array of REVOKE_FILTER_WORDS 64-bit words): bit revoke_filter_bit(key)
 * is set for every key in the set.  A hook looks up the hash map only if
 * its file's bit is set, so the files that are not revoked, nearly all of
 * them, cost one inlined array load instead of a hash lookup.  A bit may
 * be set with no key behind it (deleted entries until the word is
 * rebuilt, other keys with the same hash): that costs a lookup, never a
 * wrong verdict.  2^24 bits, 2 MiB: 1,000,000 entries set about 6% of
 * them.
 *
 * Each key also sets its device's bit, revoke_filter_dev_bit(key.dev) (the
 * bit of the key (dev, 0)), so that while only files are revoked a hook can
 * let a file on a filesystem with nothing revoked pass after one look at
 * its super_block, without making its key (see check_file()).
 */
#define REVOKE_FILTER_BITS_LOG2 24
#define REVOKE_FILTER_WORDS (1u << (REVOKE_FILTER_BITS_LOG2 - 6))

/* Fibonacci hashing of the key, to REVOKE_FILTER_BITS_LOG2 bits. */
static inline __u32 revoke_filter_bit(__u32 dev, __u64 ino)
{
	__u64 h = (ino ^ ((__u64)dev << 40)) * 0x9e3779b97f4a7c15ULL;

	return (__u32)(h >> (64 - REVOKE_FILTER_BITS_LOG2));
}

/* The bit set for every key of filesystem device @dev (see above). */
static inline __u32 revoke_filter_dev_bit(__u32 dev)
{
	return revoke_filter_bit(dev, 0);
}

/* Where bit @bit of the filter lives: its word, and its mask in the word. */
static inline __u32 revoke_filter_word(__u32 bit)
{
	return bit >> 6;
}

static inline __u64 revoke_filter_mask(__u32 bit)
{
	return 1ULL << (bit & 63);
}

/**
 * struct revoke_val - what is known about a revoked inode
 * @revoked_at: CLOCK_REALTIME seconds when it was revoked (set by the daemon)
 * @denials: operations denied so far (counted by the BPF programs)
 */
struct revoke_val {
	__u64 revoked_at;
	__u64 denials;
};

/*
 * The revoked set ("revoke_table"): a bucketed cuckoo hash table of our
 * own in an mmapable BPF array, 48 bytes per entry at full capacity where
 * a BPF hash map takes about 120.  Element 0 is a struct
 * inode_table_head; element 1 + i is bucket i of a power-of-two number
 * of them.  A key lives in one of its two buckets
 * (inode_table_first() and inode_table_second()), in any of
 * REVOKE_BUCKET_SLOTS slots, so a lookup reads at most two buckets.
 * The set holds at most 2 entries per bucket (a load of 1/2), at which
 * an insert practically never fails to find room.
 *
 * The daemon is the only writer of keys, through its mapping of the
 * array; the BPF side reads them and frees the slots of freed inodes.
 * A slot's word is REVOKE_SLOT_LIVE | generation << 32 | dev: the daemon
 * writes the ino first, then the word, with a generation one higher than
 * the slot's last, so a reader that sees the same word before and after
 * reading the ino read a consistent key.  To make room, the daemon moves
 * a key to its other bucket: it copies it there, adds one to the head's
 * moves, then frees the old slot.  A reader that misses a key retries if
 * moves changed meanwhile, since it may have looked in each bucket at
 * the wrong moment.  Both rely on x86's ordering of loads and of stores
 * (the only architecture this project builds for, see holders.bpf.c).
 */
#define REVOKE_BUCKET_SLOTS 4
#define REVOKE_SLOT_LIVE (1ULL << 63)
#define REVOKE_SLOT_GEN_SHIFT 32
#define REVOKE_SLOT_GEN_MASK 0x7fffffffULL
/* A lookup that saw the table change under it tries this many times. */
#define REVOKE_TABLE_TRIES 4
/* The largest --max-entries: 2^25 buckets of 96 bytes, 3 GiB. */
#define REVOKE_TABLE_MAX_ENTRIES (1u << 26)

/**
 * struct revoke_bucket - REVOKE_BUCKET_SLOTS entries of the revoked set
 * @word: per slot, REVOKE_SLOT_LIVE | generation << 32 | dev (the
 *	key's dev), or without REVOKE_SLOT_LIVE if the slot is free
 * @ino: per slot, the key's inode number
 * @denials: per slot, operations denied so far (modulo 2^32)
 * @revoked_at: per slot, CLOCK_REALTIME seconds when it was revoked
 */
struct revoke_bucket {
	__u64 word[REVOKE_BUCKET_SLOTS];
	__u64 ino[REVOKE_BUCKET_SLOTS];
	__u32 denials[REVOKE_BUCKET_SLOTS];
	__u32 revoked_at[REVOKE_BUCKET_SLOTS];
};

/**
 * struct inode_table_head - element 0 of "revoke_table"
 * @moves: keys moved to their other bucket so far (see above)
 * @mask: number of buckets - 1, set by the daemon when the table is new,
 *	before any key is written
 * @pad: always zero; the head is as large as a bucket
 */
struct inode_table_head {
	__u64 moves;
	__u64 mask;
	__u64 pad[10];
};

/* One 64-bit hash of a key for both buckets (the splitmix64 finalizer). */
static inline __u64 inode_table_hash(__u32 dev, __u64 ino)
{
	__u64 x = ino ^ ((__u64)dev << 32 | dev);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A key's first bucket, from its hash and the table's mask. */
static inline __u32 inode_table_first(__u64 hash, __u64 mask)
{
	return (__u32)(hash & mask);
}

/*
 * Its other one: from the hash's high half, and never the first while
 * there are two buckets or more.
 */
static inline __u32 inode_table_second(__u64 hash, __u64 mask)
{
	__u32 first = (__u32)(hash & mask), second = (__u32)((hash >> 32) & mask);

	return second == first ? (__u32)((first ^ 1) & mask) : second;
}

/* What kind of device a struct revoke_rdev_key names. */
enum revoke_rdev_type {
	REVOKE_RDEV_CHAR = 1,
	REVOKE_RDEV_BLOCK = 2,
};

/**
 * struct revoke_rdev_key - a revoked device: every character or block
 *	special inode whose i_rdev is @rdev, through any node (devtmpfs, a
 *	node made with mknod in a container or a chroot), is denied
 * @rdev: the device number (inode->i_rdev, kernel encoding)
 * @type: enum revoke_rdev_type
 */
struct revoke_rdev_key {
	__u32 rdev;
	__u32 type;
};

#define REVOKE_CAUSE_LEN 32

/**
 * struct revoke_rdev_val - what is known about a revoked device
 * @revoked_at: CLOCK_REALTIME seconds when it was revoked
 * @removed_ns: CLOCK_REALTIME nanoseconds when this instance of the
 *	device went away, 0 while it has not.  Until then every open of the
 *	number is denied.  From then on an open reaches a new device that
 *	reuses the number (a re-plugged ttyUSB0 is 188:0 again): the BPF
 *	side records such a file in "rdev_files" with this stamp and lets
 *	it work, while every file opened before stays denied.  A later
 *	removal sets a new stamp, which the files of the instance that
 *	went away then no longer match.
 * @denials: operations denied so far
 * @cause: who revoked it, one word (e.g. "admin", "udev", "netlink")
 */
struct revoke_rdev_val {
	__u64 revoked_at;
	__u64 removed_ns;
	__u64 denials;
	char cause[REVOKE_CAUSE_LEN];
};

/* Capacity of the revoked device set and of the files opened after a removal */
#define REVOKE_RDEV_ENTRIES 4096
#define REVOKE_RDEV_FILES 65536

/**
 * struct revoke_rdev_state - the single element of "revoke_rdev_state"
 * @nr_rdev: an upper bound on the entries of "revoked_rdev"; while it is
 *	zero, REVOKE_ARMED_DEVICES is clear and the hooks do not look at
 *	device numbers at all
 */
struct revoke_rdev_state {
	__u64 nr_rdev;
};

#define REVOKE_SUBSYSTEM_LEN 32

/**
 * struct revoke_pause_key - a device paused for one user (revoke-bpf
 *	pause): the "paused" map's key
 * @rdev: the device number (inode->i_rdev, kernel encoding)
 * @type: enum revoke_rdev_type
 * @uid: the user, a uid of the initial user namespace
 * @pad: always zero
 */
struct revoke_pause_key {
	__u32 rdev;
	__u32 type;
	__u32 uid;
	__u32 pad;
};

/**
 * struct revoke_pause_val - what is known about a pause
 * @err: the errno every denied operation fails with (ENODEV or EIO)
 * @flags: REVOKE_PAUSE_REVOKE if it was made by pause --revoke (its
 *	holders' descriptors released, mappings replaced), else zero
 * @paused_at: CLOCK_REALTIME seconds when it was paused
 * @denials: operations denied so far
 * @cause: who paused it, one word (e.g. "admin", "seat")
 * @subsystem: the device class it was paused through (pause
 *	--subsystem), or a udev tag on a seat, "TAG@SEAT" (pause --tag
 *	--seat: "uaccess@seat0"; '@' is in no class's name), or "" if the
 *	device was named itself
 */
struct revoke_pause_val {
	__u32 err;
	__u32 flags;
	__u64 paused_at;
	__u64 denials;
	char cause[REVOKE_CAUSE_LEN];
	char subsystem[REVOKE_SUBSYSTEM_LEN];
};

#define REVOKE_PAUSE_REVOKE 0x1	/* revoke_pause_val.flags: pause --revoke */

/**
 * struct revoke_pause_class - a device class paused for a user
 *	("pause_classes", read by revoke-bpfd only): every device of it,
 *	those that appear later too
 * @uid: the user
 * @subsystem: the class (sound, video4linux, hidraw, input, usb, ...),
 *	or "TAG@SEAT" (pause --tag uaccess --seat seat0)
 */
struct revoke_pause_class {
	__u32 uid;
	char subsystem[REVOKE_SUBSYSTEM_LEN];
};

#define REVOKE_PAUSE_CLASSES 256

/*
 * "pause_devs", keyed by struct revoke_rdev_key: for each device paused
 * for anyone, for how many users.  A hook looks a device up here first,
 * so that an unrelated device (/dev/null) costs one lookup while pauses
 * exist, and looks up "paused" only for a device in it.
 */
#define REVOKE_PAUSE_ENTRIES 4096

/**
 * struct revoke_pause_majors - "pause_majors", an array of one: a bit for
 *	each major number that a device in "pause_devs" has
 * @bits: bit (major % 64) of word (major / 64)
 *
 * The hooks test a device's major here before they look it up in
 * "pause_devs": a device of another major (/dev/null, a disk, a tty while
 * only sound cards are paused) costs a load and a test, not a hash
 * lookup.  revoke-bpfd sets a major's bit before a device of it goes into
 * "pause_devs" and clears it after the last one has left, so the bit is
 * never clear while a device of its major is paused.  A map made anew
 * (a first start of this build over an older one's pauses) is filled by
 * pause_set_sync() before this build's programs, the ones that read it,
 * are attached (store.c: attach_resync() before attach_start()).
 */
struct revoke_pause_majors {
	__u64 bits[(REVOKE_KDEV_MAJORMAX + 1) / 64];
};

/**
 * struct revoke_pause_slice - "pause_slices", keyed by a cgroup's id (the
 *	cgroup v2 directory's inode number): a user's slice of the systemd
 *	hierarchy (user.slice/user-U.slice), whose tasks are U's whatever
 *	their uid (a rootless container's subuids)
 * @uid: U
 * @level: the cgroup's depth below the root (user-U.slice: 2)
 */
struct revoke_pause_slice {
	__u32 uid;
	__u32 level;
};

#define REVOKE_PAUSE_SLICES 1024
/* The deepest cgroup level at which a user's slice is looked for */
#define REVOKE_PAUSE_SLICE_LEVELS 4

/*
 * What is revoked, as the hooks' first and, while nothing is, only load
 * sees it: revoke.bpf.c's global "revoke_armed" (its .bss map, written
 * by the daemon from nr_revoked and nr_rdev).
 */
#define REVOKE_ARMED_INODES 0x1		/* the revoked set may hold entries */
#define REVOKE_ARMED_DEVICES 0x2	/* some device is revoked */
#define REVOKE_ARMED_SUPERS 0x4		/* some filesystem is revoked */
#define REVOKE_ARMED_PAUSES 0x8		/* some device is paused for a user */
#define REVOKE_ARMED_FILES 0x10		/* some open file is revoked (--fd) */

/**
 * struct revoke_file_val - a revoked open file description ("revoked_files",
 *	keyed by the kernel's struct file address): every operation through
 *	any descriptor of it (a dup, a fork's copy, one passed over
 *	SCM_RIGHTS or taken with pidfd_getfd) is denied; other opens of
 *	the same inode are not.  The hooks drop the entry when the file is
 *	freed (file_free_security), so that a file later given the same
 *	address is not denied.
 * @key: its inode's key, for list and the denial events
 * @revoked_at: CLOCK_REALTIME seconds when it was revoked
 * @denials: operations denied so far
 * @pid: the process it was named by (add --fd PID:FD)
 * @fd: that process's descriptor
 */
struct revoke_file_val {
	struct revoke_key key;
	__u64 revoked_at;
	__u64 denials;
	__u32 pid;
	__u32 fd;
};

/* Capacity of the revoked open file set */
#define REVOKE_FILE_ENTRIES 1024

/**
 * struct revoke_super_val - a revoked filesystem ("revoked_supers", keyed
 *	by its super_block's s_dev): every operation on every inode of it
 *	is denied
 * @sb: the kernel's super_block (its address): the entry is that
 *	superblock's and no other's, even if a later filesystem is given the
 *	same s_dev; the hooks compare it, and the entry is dropped when the
 *	superblock is freed (sb_free_security); 0 when revoke-bpfd knew it
 *	by number only (a filesystem on a device that went away): then any
 *	super_block of that s_dev
 * @revoked_at: CLOCK_REALTIME seconds when it was revoked
 * @denials: operations denied so far
 * @cause: who revoked it, one word ("admin", "umount", "udev", ...)
 */
struct revoke_super_val {
	__u64 sb;
	__u64 revoked_at;
	__u64 denials;
	char cause[REVOKE_CAUSE_LEN];
};

/* Capacity of the revoked filesystem set */
#define REVOKE_SUPER_ENTRIES 256

/**
 * struct revoke_state - the single element of the "revoke_state" array map
 * @nr_revoked: an upper bound on the number of entries in the revoked set.
 *	While it is zero, REVOKE_ARMED_INODES is clear and the hooks do not
 *	look the file up.  It may count more entries than there are (the BPF
 *	side drops entries of freed inodes without lowering it), never fewer.
 * @events_lost: denial events dropped because the ring buffer was full
 * @freed: entries dropped because their inode was deleted and freed
 */
struct revoke_state {
	__u64 nr_revoked;
	__u64 events_lost;
	__u64 freed;
};

/**
 * struct revoke_report - what the revocation pipeline last did for an
 * entry of the revoked set (the "revoke_reports" map, same keys)
 * @holders: processes found holding the inode (open or mapped)
 * @fds: descriptors found
 * @mappings: mappings found
 * @waiters: threads found blocked in a system call on the file
 * @woken: waiters interrupted (restarted into EIO, or their poll completed)
 * @unmapped: mappings replaced by one that raises SIGBUS
 * @released: descriptors replaced by a dead file
 * @failed: holders, threads or objects that could not be handled
 * @flags: REVOKE_REPORT_*
 * @pad: always zero
 */
struct revoke_report {
	__u32 holders;
	__u32 fds;
	__u32 mappings;
	__u32 waiters;
	__u32 woken;
	__u32 unmapped;
	__u32 released;
	__u32 failed;
	__u32 flags;
	__u32 pad;
};

/* The entry is a dead file made by revoke-bpfd to replace released fds. */
#define REVOKE_REPORT_DEAD  0x1
/* The pipeline ran with release of the descriptors. */
#define REVOKE_REPORT_RELEASE 0x2

/* What a holder iterator record describes (struct revoke_holder.kind). */
enum revoke_holder_kind {
	REVOKE_HOLDER_FD = 1,
	REVOKE_HOLDER_VMA = 2,
	/* an io_uring instance (bpf/uring.bpf.h): @fd is the ring's */
	REVOKE_HOLDER_RING_FILE = 3,	/* fixed-file slot @start */
	REVOKE_HOLDER_RING_BUF = 4,	/* registered buffer @start */
	REVOKE_HOLDER_RING_UNKNOWN = 5,	/* this kernel's rings not inspected */
	/*
	 * a thread's place on a target filesystem (revoke_holder_fsrefs):
	 * @fd is the thread, @dev and @ino the inode
	 */
	REVOKE_HOLDER_CWD = 6,		/* its current directory */
	REVOKE_HOLDER_ROOT = 7,		/* its root directory */
	REVOKE_HOLDER_EXE = 8,		/* its process's executable */
	/*
	 * a process, written by revoke_holder_fsrefs for each one while
	 * holder_want_tasks is set (holders_fsrefs_tasks()): @fd its real
	 * uid, @start and @end its name (TASK_COMM_LEN bytes, NUL-padded),
	 * read in the same walk instead of /proc/PID/status and comm
	 */
	REVOKE_HOLDER_TASK = 9,
};

/*
 * A ring record's @prot: the walk of that table stopped before its end,
 * at slot or buffer @start (a record with @dev 0), for the reason given
 * by one of the bits below
 */
#define REVOKE_URING_PARTIAL 0x1
/* ... it took REVOKE_URING_MAX_STEPS steps and did not get to the end */
#define REVOKE_URING_BOUND 0x8
/* ... the owner of a page of buffer @start could not be read */
#define REVOKE_URING_UNTOLD 0x10
/* ... more slots of the table than one walk reports hold a target */
#define REVOKE_URING_HITS 0x20
/*
 * A ring record's @prot: the ring was found among those a thread
 * registered (IORING_REGISTER_RING_FDS), @fd is that index and
 * @cloexec the thread
 */
#define REVOKE_URING_REGISTERED 0x2
/*
 * A ring record's @prot: the ring was found through a mapping of its
 * queues (a process may close the ring's descriptor and go on using it
 * through them, with SQPOLL); @fd means nothing
 */
#define REVOKE_URING_MAPPED 0x4
/* Steps (fixed-file slots, buffer pages) walked per ring and table */
#define REVOKE_URING_MAX_STEPS (1u << 20)
/* Slots of one table holding a target that one walk reports */
#define REVOKE_URING_MAX_HITS 64

/**
 * struct revoke_holder - one record written by the holder iterators
 *	(bpf/holders.bpf.c): a descriptor or a mapping of a target inode
 * @kind: enum revoke_holder_kind
 * @tgid: the process
 * @fd: the descriptor (REVOKE_HOLDER_FD)
 * @dev: filesystem device, kernel encoding
 * @ino: inode number
 * @start: first address of the mapping (REVOKE_HOLDER_VMA); the slot or
 *	buffer index (REVOKE_HOLDER_RING_*)
 * @end: address just past the mapping (REVOKE_HOLDER_VMA); the ring's
 *	kernel address (REVOKE_HOLDER_RING_*), which tells one ring seen
 *	through two processes
 * @start_boottime: when the process started, ns since boot (its leader's
 *	start_boottime): with @tgid, names the process even if the pid is
 *	reused after it exits
 * @cloexec: the descriptor is close-on-exec (REVOKE_HOLDER_FD); the
 *	thread that holds the ring (REVOKE_HOLDER_RING_*)
 * @prot: the mapping's PROT_READ|PROT_WRITE|PROT_EXEC (REVOKE_HOLDER_VMA);
 *	REVOKE_URING_* (REVOKE_HOLDER_RING_*)
 * @f_uid: the real uid the file was opened with, its f_cred's
 *	(REVOKE_HOLDER_FD and REVOKE_HOLDER_VMA): whose it is, for a pause
 * @f_euid: likewise, the effective uid
 */
struct revoke_holder {
	__u32 kind;
	__u32 tgid;
	__u32 fd;
	__u32 dev;
	__u64 ino;
	__u64 start;
	__u64 end;
	__u64 start_boottime;
	__u32 cloexec;
	__u32 prot;
	__u32 f_uid;
	__u32 f_euid;
};

/**
 * struct revoke_thread - one record of the thread iterator
 *	(bpf/holders.bpf.c): a user thread and the system call it is in, as
 *	/proc/PID/task/TID/syscall would tell, read in one pass over all
 *	threads instead of one file per thread
 * @tgid: its process
 * @tid: the thread
 * @start_boottime: when its process started (see struct revoke_holder)
 * @state: the task's __state: 0 while it runs or may run, else it sleeps
 *	(or is stopped) and @nr and @args are settled
 * @nr: the system call it is in, or -1 if none
 * @args: that call's six arguments
 */
struct revoke_thread {
	__u32 tgid;
	__u32 tid;
	__u64 start_boottime;
	__u32 state;
	__u32 pad;
	__s64 nr;
	__u64 args[6];
};

/* Capacity of the iterators' target set: inodes looked for in one pass. */
#define REVOKE_HOLDER_TARGETS 1024

/* Which hook denied an operation (struct revoke_event.hook). */
enum revoke_hook {
	REVOKE_HOOK_FILE_PERMISSION = 1,
	REVOKE_HOOK_MMAP_FILE = 2,
	REVOKE_HOOK_FILE_IOCTL = 3,
	REVOKE_HOOK_FILE_OPEN = 4,
	REVOKE_HOOK_FILE_LOCK = 5,
	REVOKE_HOOK_FILE_FCNTL = 6,
	REVOKE_HOOK_FILE_MPROTECT = 7,
	REVOKE_HOOK_PATH_TRUNCATE = 8,
	REVOKE_HOOK_FILE_RECEIVE = 9,
	REVOKE_HOOK_FILE_TRUNCATE = 10,
	REVOKE_HOOK_FILE_IOCTL_COMPAT = 11,
	REVOKE_HOOK_KERNEL_READ_FILE = 12,
	REVOKE_HOOK_KERNEL_POST_READ_FILE = 13,
	REVOKE_HOOK_URING_CMD = 14,
	REVOKE_HOOK_MMAP_BACKING_FILE = 15,
	REVOKE_HOOK_FILE_SEND_SIGIOTASK = 16,
	REVOKE_HOOK_INODE_GETXATTR = 17,
	REVOKE_HOOK_INODE_LISTXATTR = 18,
	REVOKE_HOOK_INODE_SETXATTR = 19,
	REVOKE_HOOK_INODE_REMOVEXATTR = 20,
	REVOKE_HOOK_INODE_SETATTR = 21,
	REVOKE_HOOK_INODE_GET_ACL = 22,
	REVOKE_HOOK_INODE_SET_ACL = 23,
	REVOKE_HOOK_INODE_REMOVE_ACL = 24,
	REVOKE_HOOK_INODE_FILE_GETATTR = 25,
	REVOKE_HOOK_INODE_FILE_SETATTR = 26,
};

/* What was denied (struct revoke_event.op). */
enum revoke_op {
	REVOKE_OP_READ = 1,
	REVOKE_OP_WRITE = 2,
	REVOKE_OP_MMAP = 3,
	REVOKE_OP_IOCTL = 4,
	REVOKE_OP_OPEN = 5,
	REVOKE_OP_OTHER = 6,
	REVOKE_OP_LOCK = 7,
	REVOKE_OP_FCNTL = 8,
	REVOKE_OP_SIGNAL = 9,
	REVOKE_OP_XATTR = 10,
	REVOKE_OP_SETATTR = 11,
};

#define REVOKE_COMM_LEN 16
#define REVOKE_EVENTS_BYTES (256 * 1024)

/**
 * struct revoke_event - one denial, sent through the "revoke_events" ring
 * @ts_ns: bpf_ktime_get_ns() at the denial (CLOCK_MONOTONIC)
 * @pid: the thread id (kernel pid)
 * @tgid: the process id
 * @uid: the task's real uid
 * @dev: filesystem device, kernel encoding
 * @ino: inode number
 * @hook: enum revoke_hook
 * @op: enum revoke_op
 * @arg: the hook's argument: permission mask, ioctl or io_uring command,
 *	mmap prot, open flags, what the kernel reads the file for
 *	(enum kernel_read_file_id), or the signal
 * @comm: the task's name
 */
struct revoke_event {
	__u64 ts_ns;
	__u32 pid;
	__u32 tgid;
	__u32 uid;
	__u32 dev;
	__u64 ino;
	__u32 hook;
	__u32 op;
	__u64 arg;
	char comm[REVOKE_COMM_LEN];
};

/*
 * Files that (s_dev, i_ino) does not name alone.  btrfs gives each
 * subvolume an anonymous device of its own (what stat(2) reports as
 * st_dev) under one super_block, and numbers inodes per subvolume (the
 * first file of each is 257): a btrfs file's key takes its subvolume's
 * device instead of s_dev.  An overlayfs file reads, writes and maps
 * through a file of the layer below ("the real file"): the hooks check
 * that file too, so that what is revoked is the real file, however it is
 * reached.
 */
#define REVOKE_BTRFS_MAGIC	0x9123683e	/* super_block.s_magic */
#define REVOKE_OVERLAYFS_MAGIC	0x794c7630
#define REVOKE_FUSE_MAGIC	0x65735546	/* its server says what i_nlink is */

/* struct revoke_fs_layout.flags: which of its parts are known */
#define REVOKE_LAYOUT_BTRFS	0x1
#define REVOKE_LAYOUT_OVL	0x2
/* ovl_realfile: an overlayfs file's private_data is the real file itself */
#define REVOKE_LAYOUT_SELF	(-1)
/* No offset in struct revoke_fs_layout is larger (in absolute value) */
#define REVOKE_LAYOUT_MAX_OFF	65536

/**
 * struct revoke_fs_layout - where a filesystem module's own structures
 *	hold what names a file ("revoke_layout", one element)
 * @flags: REVOKE_LAYOUT_*: the parts below that are filled in
 * @btrfs_root: from a btrfs inode's struct inode to its struct btrfs_root
 *	pointer (offsetof(btrfs_inode, root) - offsetof(btrfs_inode,
 *	vfs_inode), negative)
 * @btrfs_anon_dev: offset of anon_dev (the subvolume's device) in struct
 *	btrfs_root
 * @ovl_upper: from an overlayfs inode's struct inode to its upper dentry
 *	pointer (ovl_inode.__upperdentry)
 * @ovl_realfile: offset of the real file pointer in what an overlayfs
 *	regular file's private_data points to, or REVOKE_LAYOUT_SELF
 * @ovl_lower: from an overlayfs inode's struct inode to the pointer to its
 *	lower dentry (@ovl_stack < 0), or to its struct ovl_entry
 * @ovl_stack: offset of the first lower dentry pointer in struct
 *	ovl_entry, or -1 if @ovl_lower leads to the dentry pointer itself
 * @ovl_numlower: offset of the number of lower layers in struct ovl_entry
 *
 * These structures are private to their modules (not in vmlinux's BTF) and
 * differ between kernels: revoke-bpfd reads the offsets from the module's
 * own BTF (/sys/kernel/btf/MODULE) before it names any file of that
 * filesystem, see src/store/fs_layout.c.  A part not filled in is never used:
 * until then btrfs keys take s_dev, and overlayfs files are checked as
 * themselves only.
 */
struct revoke_fs_layout {
	__u32 flags;
	__s32 btrfs_root;
	__u32 btrfs_anon_dev;
	__s32 ovl_upper;
	__s32 ovl_realfile;
	__s32 ovl_lower;
	__s32 ovl_stack;
	__s32 ovl_numlower;
};

/* struct revoke_ident.flags */
#define REVOKE_IDENT_UPPER	0x1	/* @upper is an overlayfs upper file */
#define REVOKE_IDENT_LOWER	0x2	/* @lower is an overlayfs lower file */
#define REVOKE_IDENT_STACKED	0x4	/* a layer is itself on overlayfs */
#define REVOKE_IDENT_MNT_ROOT	0x8	/* it is the root of its mount */
#define REVOKE_FSTYPE_LEN 16

/**
 * struct revoke_ident - what the kernel says a descriptor of revoke-bpfd's
 *	own refers to (the "revoke_ident" iterator, bpf/holders.bpf.c)
 * @key: the key the hooks compute for its inode
 * @s_dev: its super_block's s_dev
 * @mode: its i_mode
 * @rdev: its i_rdev (a device special file)
 * @sb: its super_block's address (what "revoked_supers" is checked by)
 * @flags: REVOKE_IDENT_*
 * @upper: an overlayfs file's upper inode's key
 * @lower: an overlayfs file's lower inode's key
 * @fstype: the filesystem type's name
 * @file: the open file's address (what "revoked_files" is keyed by)
 */
struct revoke_ident {
	struct revoke_key key;
	__u32 s_dev;
	__u32 mode;
	__u32 rdev;
	__u32 flags;
	__u64 sb;
	struct revoke_key upper;
	struct revoke_key lower;
	char fstype[REVOKE_FSTYPE_LEN];
	__u64 file;
};

/* Longest name of a revoked file that list shows, with its NUL */
#define REVOKE_NAME_MAX 256

/**
 * struct revoke_name - the name a revoked file was given ("revoke_names")
 * @path: what the client named it, NUL-terminated; never opened again
 */
struct revoke_name {
	char path[REVOKE_NAME_MAX];
};

/**
 * struct revoke_reach_state - the single element of "revoke_reach"
 *	(bpf/reach.bpf.h)
 * @daemon_tgid: revoke-bpfd's process (in the initial pid namespace): its
 *	TIOCVHANGUP of a revoked tty is let through, so that it can hang the
 *	tty up after the deny and the pipeline, not before
 * @pad: always zero
 */
struct revoke_reach_state {
	__u32 daemon_tgid;
	__u32 pad;
};

/* Where revoke-bpfd pins its objects and listens. */
#define REVOKE_PIN_DIR     "/sys/fs/bpf/revoke-bpf"
#define REVOKE_RUN_DIR     "/run/revoke-bpf"
#define REVOKE_SOCKET_PATH REVOKE_RUN_DIR "/control.sock"

#endif /* REVOKE_BPF_H */
