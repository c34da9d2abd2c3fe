/* SPDX-License-Identifier: GPL-2.0 */
/*
 * revoked_rdev.h - the revoked device set ("revoked_rdev"): devices
 * revoked by number, through every node, scoped to the instance that was
 * there when it was revoked.
 */
#ifndef REVOKE_REVOKED_RDEV_H
#define REVOKE_REVOKED_RDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf_load.h"
#include "revoked_map.h"
#include "revoke_bpf.h"

typedef int (*revoked_rdev_fn)(const struct revoke_rdev_key *key,
			       const struct revoke_rdev_val *val, void *ctx);

int revoked_rdev_add(struct revoke_bpf *rb, const struct revoke_rdev_key *key,
		     const char *cause, bool removed,
		     enum revoke_change *change);
int revoked_rdev_get(struct revoke_bpf *rb, const struct revoke_rdev_key *key,
		     struct revoke_rdev_val *val);
int revoked_rdev_del(struct revoke_bpf *rb, const struct revoke_rdev_key *key,
		     enum revoke_change *change);
int revoked_rdev_count(struct revoke_bpf *rb, uint64_t *count);
int revoked_rdev_sync(struct revoke_bpf *rb, uint64_t *count);
int revoked_rdev_for_each(struct revoke_bpf *rb, revoked_rdev_fn fn, void *ctx);

#endif /* REVOKE_REVOKED_RDEV_H */
