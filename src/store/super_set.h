/* SPDX-License-Identifier: GPL-2.0 */
/*
 * super_set.h - the revoked filesystem set ("revoked_supers"): whole
 * filesystems, named by their super_block (bpf/super_set.bpf.h).
 */
#ifndef REVOKE_STORE_SUPER_SET_H
#define REVOKE_STORE_SUPER_SET_H

#include <stdint.h>

#include "revoke_bpf.h"
#include "inode_set.h"

struct store;

typedef int (*super_set_fn)(uint32_t s_dev, const struct revoke_super_val *val,
			    void *ctx);

int super_set_add(struct store *rb, uint32_t s_dev, uint64_t sb,
		  const char *cause, enum revoke_change *change);
int super_set_get(struct store *rb, uint32_t s_dev,
		  struct revoke_super_val *val);
int super_set_del(struct store *rb, uint32_t s_dev,
		  enum revoke_change *change);
int super_set_for_each(struct store *rb, super_set_fn fn, void *ctx);
int super_set_count(struct store *rb, uint64_t *count);

#endif /* REVOKE_STORE_SUPER_SET_H */
