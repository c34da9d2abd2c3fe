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
 * it in exactly one place, revoke_kdev() in src/key.c.
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

/**
 * struct revoke_val - what is known about a revoked inode
 * @revoked_at: CLOCK_REALTIME seconds when it was revoked (set by the daemon)
 * @denials: operations denied so far (counted by the BPF programs)
 */
struct revoke_val {
	__u64 revoked_at;
	__u64 denials;
};

/**
 * struct revoke_state - the single element of the "revoke_state" array map
 * @nr_revoked: number of entries in the revoked set.  While it is zero
 *	the hooks return after one load, without looking at the file.
 */
struct revoke_state {
	__u64 nr_revoked;
};

/* Where revoke-bpfd pins its objects and listens. */
#define REVOKE_PIN_DIR     "/sys/fs/bpf/revoke-bpf"
#define REVOKE_RUN_DIR     "/run/revoke-bpf"
#define REVOKE_SOCKET_PATH REVOKE_RUN_DIR "/control.sock"

#endif /* REVOKE_BPF_H */
