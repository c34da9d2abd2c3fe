/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device_set.h - the revoked device set ("revoked_rdev"): devices
 * revoked by number, through every node, scoped to the instance that was
 * there when it was revoked.
 */
#ifndef REVOKE_STORE_DEVICE_SET_H
#define REVOKE_STORE_DEVICE_SET_H

#include <stdbool.h>
#include <stdint.h>

#include "revoke_bpf.h"
#include "inode_set.h"

struct store;

typedef int (*device_set_fn)(const struct revoke_rdev_key *key,
			       const struct revoke_rdev_val *val, void *ctx);

int device_set_add(struct store *rb, const struct revoke_rdev_key *key,
		     const char *cause, bool removed,
		     enum revoke_change *change);
int device_set_get(struct store *rb, const struct revoke_rdev_key *key,
		     struct revoke_rdev_val *val);
int device_set_del(struct store *rb, const struct revoke_rdev_key *key,
		     enum revoke_change *change);
int device_set_count(struct store *rb, uint64_t *count);
int device_set_sync(struct store *rb, uint64_t *count);
int device_set_for_each(struct store *rb, device_set_fn fn, void *ctx);

#endif /* REVOKE_STORE_DEVICE_SET_H */
