/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file_set.h - the revoked open file set ("revoked_files"): single open
 * file descriptions, named by their struct file (bpf/file_set.bpf.h).
 */
#ifndef REVOKE_STORE_FILE_SET_H
#define REVOKE_STORE_FILE_SET_H

#include <stdint.h>

#include "revoke_bpf.h"
#include "inode_set.h"

struct store;

typedef int (*file_set_fn)(uint64_t file, const struct revoke_file_val *val,
			   void *ctx);

int file_set_add(struct store *rb, uint64_t file,
		 const struct revoke_file_val *val, enum revoke_change *change);
int file_set_refresh(struct store *rb);
int file_set_for_each(struct store *rb, file_set_fn fn, void *ctx);
int file_set_count(struct store *rb, uint64_t *count);

#endif /* REVOKE_STORE_FILE_SET_H */
