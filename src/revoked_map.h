/* SPDX-License-Identifier: GPL-2.0 */
/*
 * revoked_map.h - the revoked set as the daemon sees it: add, delete,
 * look up and walk entries of the table, keeping the programs' fast-path
 * counter in step.
 */
#ifndef REVOKE_REVOKED_MAP_H
#define REVOKE_REVOKED_MAP_H

#include <stdint.h>

#include "bpf_load.h"
#include "revoke_bpf.h"

enum revoke_change {
	REVOKE_ADDED,
	REVOKE_ALREADY,
	REVOKE_DELETED,
	REVOKE_ABSENT,
};

typedef revoke_table_fn revoked_map_fn;

int revoked_map_state(struct revoke_bpf *rb, struct revoke_state *st);
int revoked_map_count(struct revoke_bpf *rb, uint64_t *count);
int revoked_map_sync(struct revoke_bpf *rb, uint64_t *count);
int revoked_map_filter_sync(struct revoke_bpf *rb);
int revoked_map_add(struct revoke_bpf *rb, const struct revoke_key *key,
		    enum revoke_change *change);
int revoked_map_del(struct revoke_bpf *rb, const struct revoke_key *key,
		    enum revoke_change *change);
int revoked_map_report_set(struct revoke_bpf *rb, const struct revoke_key *key,
			   const struct revoke_report *report);
int revoked_map_report_get(struct revoke_bpf *rb, const struct revoke_key *key,
			   struct revoke_report *report);
int revoked_map_for_each(struct revoke_bpf *rb, revoked_map_fn fn, void *ctx);

int revoked_map_name_set(struct revoke_bpf *rb, const struct revoke_key *key,
			 const char *path);
int revoked_map_name_get(struct revoke_bpf *rb, const struct revoke_key *key,
			 struct revoke_name *name);

#endif /* REVOKE_REVOKED_MAP_H */
