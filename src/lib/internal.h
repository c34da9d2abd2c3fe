/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - librevoke's private definitions, shared by its files:
 *
 *	fops_lock.c	fops_read_lock/unlock, and waiting for readers to leave
 *	file.c		files and inodes: open, get/put, release, substitute
 *	revoked_ops.c	the generic revoked tables (seed 008)
 *	waitq.c		blocking inside an operation until woken or revoked
 */
#ifndef LIBREVOKE_INTERNAL_H
#define LIBREVOKE_INTERNAL_H

#include <stdatomic.h>

#include "revoke.h"

/* f_mode bits (the seed's FMODE_RELEASE and FMODE_REVOKED) */
#define FMODE_RELEASE 0x1u	/* release is still owed */
#define FMODE_REVOKED 0x2u	/* f_op is a substitute; the old one is gone */

/**
 * struct revoke_file - one handle (the seed's struct file)
 * @f_op: the table every call goes through
 * @f_mode: FMODE_*, changed under @f_lock
 * @f_count: references; the last put releases and frees
 * @f_use: callers inside @f_op that could not use their thread's slot
 * @f_lock: serialises @f_mode changes with the @f_op swap
 * @f_inode: the object
 * @f_flags: the open flags
 * @private_data: the driver's
 * @f_next: next in @f_inode's list of files (under i_lock)
 * @f_pprev: the pointer that points to this file in that list
 */
struct revoke_file {
	const struct revoke_file_operations *_Atomic f_op;
	_Atomic unsigned int f_mode;
	atomic_long f_count;
	atomic_long f_use;
	pthread_mutex_t f_lock;
	struct revoke_inode *f_inode;
	int f_flags;
	void *_Atomic private_data;
	struct revoke_file *f_next;
	struct revoke_file **f_pprev;
};

/* fops_lock.c */
bool fops_held_by_self(const struct revoke_file *file);
void fops_wait_for_readers(struct revoke_file *file);

#endif /* LIBREVOKE_INTERNAL_H */
