/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inode_set.bpf.h - the revoked inode set as the hooks read it: its maps
 * and the inline helpers that use them.
 *
 * The set is "revoke_table", a cuckoo hash table in an array (layout,
 * hash and reader protocol in revoke_bpf.h), written by revoke-bpfd
 * (src/store/inode_table.c) and read here without a lock: a slot whose
 * word changes while it is read is no match, and a miss while the daemon
 * moved keys between buckets is looked at again.  In front of it,
 * "revoke_filter" has one bit per hash of every key in the set, so that
 * nearly every file costs one array load and no lookup.  Included by
 * revoke.bpf.c.
 */
#ifndef REVOKE_INODE_SET_BPF_H
#define REVOKE_INODE_SET_BPF_H

/*
 * The revoked set: a head and a power-of-two number of buckets (see
 * revoke_bpf.h); revoke-bpfd sizes it before the load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct revoke_bucket);
} revoke_table SEC(".maps");

/* See REVOKE_FILTER_WORDS in revoke_bpf.h; written by the daemon only. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, REVOKE_FILTER_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} revoke_filter SEC(".maps");

/* What the pipeline did per entry; read by list, never by the hooks. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_MAX_ENTRIES_DEFAULT);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_key);
	__type(value, struct revoke_report);
} revoke_reports SEC(".maps");

/* The name each entry was added by, for list; read by the daemon only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_MAX_ENTRIES_DEFAULT);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_key);
	__type(value, struct revoke_name);
} revoke_names SEC(".maps");

/* Is @key's filter bit set?  If not, @key is not in the revoked set. */
static __always_inline bool inode_set_may_hold(const struct revoke_key *key)
{
	__u32 bit = revoke_filter_bit(key->dev, key->ino);
	__u32 word = revoke_filter_word(bit);
	__u64 *w;

	w = bpf_map_lookup_elem(&revoke_filter, &word);
	return w && (*w & revoke_filter_mask(bit));
}

/* Is filesystem device @dev's bit set?  If not, none of its keys is in the set. */
static __always_inline bool inode_set_dev_may_hold(__u32 dev)
{
	__u32 bit = revoke_filter_dev_bit(dev);
	__u32 word = revoke_filter_word(bit);
	__u64 *w;

	w = bpf_map_lookup_elem(&revoke_filter, &word);
	return w && (*w & revoke_filter_mask(bit));
}

/* A load the compiler may neither drop, repeat nor move. */
static __always_inline __u64 inode_set_load(const __u64 *p)
{
	return *(const volatile __u64 *)p;
}

static __always_inline struct revoke_bucket *inode_set_bucket(__u32 i)
{
	__u32 element = i + 1;

	return bpf_map_lookup_elem(&revoke_table, &element);
}

/*
 * The slot of @key in bucket @b, or -1; *@word is its word.  A slot whose
 * word changed while its ino was read is no match (it was being reused).
 */
static __always_inline int inode_set_slot(struct revoke_bucket *b,
					  const struct revoke_key *key,
					  __u64 *word)
{
	__u64 w;
	int s;

#pragma unroll
	for (s = 0; s < REVOKE_BUCKET_SLOTS; s++) {
		w = inode_set_load(&b->word[s]);
		if (!(w & REVOKE_SLOT_LIVE) || (__u32)w != key->dev)
			continue;
		if (inode_set_load(&b->ino[s]) != key->ino)
			continue;
		if (inode_set_load(&b->word[s]) == w) {
			*word = w;
			return s;
		}
	}
	return -1;
}

/* One look in both of @key's buckets: its slot, or -1. */
static __always_inline int inode_set_look(struct inode_table_head *head,
					  const struct revoke_key *key,
					  __u64 hash, struct revoke_bucket **bucket,
					  __u64 *word)
{
	__u64 mask = inode_set_load(&head->mask);
	struct revoke_bucket *b;
	int s;

	b = inode_set_bucket(inode_table_first(hash, mask));
	s = b ? inode_set_slot(b, key, word) : -1;
	if (s < 0) {
		b = inode_set_bucket(inode_table_second(hash, mask));
		s = b ? inode_set_slot(b, key, word) : -1;
	}
	*bucket = b;
	return s;
}

/*
 * Look @key up: return its slot and set *@bucket and *@word, or return
 * -1.  A miss while the daemon moved keys between buckets (the head's
 * moves changed) is looked at again.  The loops are unrolled: the
 * verifier sees straight code.
 */
static __always_inline int inode_set_find(const struct revoke_key *key,
					  struct revoke_bucket **bucket,
					  __u64 *word)
{
	__u64 hash = inode_table_hash(key->dev, key->ino), moves;
	struct inode_table_head *head;
	__u32 zero = 0;
	int try, s;

	head = bpf_map_lookup_elem(&revoke_table, &zero);
	if (!head)
		return -1;
#pragma unroll
	for (try = 0; try < REVOKE_TABLE_TRIES; try++) {
		moves = inode_set_load(&head->moves);
		s = inode_set_look(head, key, hash, bucket, word);
		if (s >= 0)
			return s;
		if (inode_set_load(&head->moves) == moves)
			break;
	}
	return -1;
}

/*
 * Is @key revoked?  If it is, its slot counts one more denial.  A key
 * whose filter bit is clear is not looked up.
 */
static __always_inline bool inode_set_deny(const struct revoke_key *key)
{
	struct revoke_bucket *b;
	__u64 word;
	int s;

	if (!inode_set_may_hold(key))
		return false;
	s = inode_set_find(key, &b, &word);
	if (s < 0)
		return false;
	__sync_fetch_and_add(&b->denials[s & (REVOKE_BUCKET_SLOTS - 1)], 1);
	return true;
}

/*
 * Free @key's slot, as inode_table_delete() does; true if this did.  A
 * key the daemon moved meanwhile may have a copy in its other bucket, so
 * the lookup is made again until no move happened during it.
 */
static __always_inline bool inode_set_free(const struct revoke_key *key)
{
	__u64 hash = inode_table_hash(key->dev, key->ino), moves, word;
	struct inode_table_head *head;
	struct revoke_bucket *b;
	bool freed = false;
	__u32 zero = 0;
	int try, s;

	head = bpf_map_lookup_elem(&revoke_table, &zero);
	if (!head)
		return false;
#pragma unroll
	for (try = 0; try < REVOKE_TABLE_TRIES; try++) {
		moves = inode_set_load(&head->moves);
		s = inode_set_look(head, key, hash, &b, &word);
		if (s >= 0)
			freed |= __sync_val_compare_and_swap(
					&b->word[s & (REVOKE_BUCKET_SLOTS - 1)],
					word, word & ~REVOKE_SLOT_LIVE) == word;
		if (inode_set_load(&head->moves) == moves)
			break;
	}
	return freed;
}

/*
 * Drop @key from the set, with what the daemon kept beside it (its
 * report and its name); true if its slot was freed here.
 */
static __always_inline bool inode_set_drop(const struct revoke_key *key)
{
	if (!inode_set_free(key))
		return false;
	bpf_map_delete_elem(&revoke_reports, key);
	bpf_map_delete_elem(&revoke_names, key);
	return true;
}

#endif /* REVOKE_INODE_SET_BPF_H */
