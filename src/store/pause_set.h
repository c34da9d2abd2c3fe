/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pause_set.h - devices paused for one user ("paused", "pause_devs",
 * "pause_slices"; see bpf/pause_set.bpf.h): undoable, unlike a revoke.
 */
#ifndef REVOKE_STORE_PAUSE_SET_H
#define REVOKE_STORE_PAUSE_SET_H

#include <stdint.h>

#include "revoke_bpf.h"
#include "inode_set.h"

struct store;

typedef int (*pause_set_fn)(const struct revoke_pause_key *key,
			    const struct revoke_pause_val *val, void *ctx);

typedef int (*pause_class_fn)(const struct revoke_pause_class *key,
			      const struct revoke_pause_val *val, void *ctx);

int pause_set_add(struct store *rb, const struct revoke_pause_key *key,
		  uint32_t err, const char *cause, const char *subsystem,
		  uint32_t flags, enum revoke_change *change);
int pause_set_cause(struct store *rb, const struct revoke_pause_key *key,
		    const char *cause);
int pause_set_get(struct store *rb, const struct revoke_pause_key *key,
		  struct revoke_pause_val *val);
int pause_set_del(struct store *rb, const struct revoke_pause_key *key,
		  enum revoke_change *change);
int pause_set_for_each(struct store *rb, pause_set_fn fn, void *ctx);
int pause_set_slices(struct store *rb, const char *cgroup_root);
int pause_set_sync(struct store *rb);
int pause_class_add(struct store *rb, const struct revoke_pause_class *key,
		    uint32_t err, const char *cause, uint32_t flags,
		    enum revoke_change *change);
int pause_class_del(struct store *rb, const struct revoke_pause_class *key,
		    enum revoke_change *change);
int pause_class_for_each(struct store *rb, pause_class_fn fn, void *ctx);

#endif /* REVOKE_STORE_PAUSE_SET_H */
