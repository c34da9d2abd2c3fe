/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inode_set.h - the revoked set as the daemon sees it: add, delete,
 * look up and walk entries of the table, keeping the programs' fast-path
 * counter in step.
 */
#ifndef REVOKE_STORE_INODE_SET_H
#define REVOKE_STORE_INODE_SET_H

#include <stdint.h>

#include "revoke_bpf.h"
#include "inode_table.h"

struct store;

enum revoke_change {
	REVOKE_ADDED,
	REVOKE_ALREADY,
	REVOKE_DELETED,
	REVOKE_ABSENT,
};

typedef inode_table_fn inode_set_fn;

int inode_set_state(struct store *rb, struct revoke_state *st);
int inode_set_count(struct store *rb, uint64_t *count);
int inode_set_sync(struct store *rb, uint64_t *count);
int inode_set_filter_sync(struct store *rb);
int inode_set_add(struct store *rb, const struct revoke_key *key,
		    enum revoke_change *change);
int inode_set_del(struct store *rb, const struct revoke_key *key,
		    enum revoke_change *change);
int inode_set_report_set(struct store *rb, const struct revoke_key *key,
			   const struct revoke_report *report);
int inode_set_report_get(struct store *rb, const struct revoke_key *key,
			   struct revoke_report *report);
int inode_set_for_each(struct store *rb, inode_set_fn fn, void *ctx);

int inode_set_name_set(struct store *rb, const struct revoke_key *key,
			 const char *path);
int inode_set_name_get(struct store *rb, const struct revoke_key *key,
			 struct revoke_name *name);

#endif /* REVOKE_STORE_INODE_SET_H */
