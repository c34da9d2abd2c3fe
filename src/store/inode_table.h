/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inode_table.h - the revoked set's cuckoo hash table ("revoke_table",
 * see revoke_bpf.h), written through a mapping of its BPF array.
 */
#ifndef REVOKE_STORE_INODE_TABLE_H
#define REVOKE_STORE_INODE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "revoke_bpf.h"

/**
 * struct inode_table - a mapping of "revoke_table"
 * @head: element 0
 * @bucket: the buckets, element 1 on
 * @nbuckets: how many (a power of two)
 * @len: length of the mapping
 */
struct inode_table {
	struct inode_table_head *head;
	struct revoke_bucket *bucket;
	uint32_t nbuckets;
	size_t len;
};

typedef int (*inode_table_fn)(const struct revoke_key *key,
			       const struct revoke_val *val, void *ctx);

uint32_t inode_table_elements(uint32_t max_entries);
uint32_t inode_table_capacity(const struct inode_table *t);
int inode_table_map(struct inode_table *t, int map_fd, uint32_t elements);
void inode_table_unmap(struct inode_table *t);
int inode_table_find(const struct inode_table *t,
		      const struct revoke_key *key, struct revoke_val *val);
int inode_table_insert(struct inode_table *t, const struct revoke_key *key,
			const struct revoke_val *val);
int inode_table_delete(struct inode_table *t, const struct revoke_key *key);
int inode_table_for_each(const struct inode_table *t, inode_table_fn fn,
			  void *ctx);
uint64_t inode_table_count(const struct inode_table *t);

#endif /* REVOKE_STORE_INODE_TABLE_H */
