// SPDX-License-Identifier: GPL-2.0
/*
 * inode_table.c - the revoked set's cuckoo hash table, as the daemon
 * writes it: through a shared mapping of the BPF array the hooks read.
 *
 * The layout and the rules that let the hooks read it while it changes
 * are in revoke_bpf.h.  In short: a key is in one of its two buckets; a
 * slot is filled ino first, word last, with a new generation; a slot is
 * freed by clearing REVOKE_SLOT_LIVE with a compare-and-swap (the BPF
 * side frees slots of freed inodes the same way); and a key moved to its
 * other bucket to make room is copied, then "moves" is increased, then
 * the old slot is freed.  Only one thread of one daemon writes keys.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "inode_table.h"

/* Buckets the search for room may visit (a breadth-first cuckoo path). */
#define PATH_NODES 64

/**
 * inode_table_elements() - size of the array for a set of @max_entries
 * @max_entries: 1 to REVOKE_TABLE_MAX_ENTRIES
 *
 * Return: the head plus the fewest buckets, a power of two, that hold
 * @max_entries at two entries a bucket.
 */
uint32_t inode_table_elements(uint32_t max_entries)
{
	uint32_t nbuckets = 1;

	while ((uint64_t)nbuckets * 2 < max_entries)
		nbuckets <<= 1;
	return nbuckets + 1;
}

/**
 * inode_table_capacity() - how many entries the set may hold
 * @t: the table
 *
 * Return: two per bucket, at which the cuckoo search practically always
 * finds room (see revoke_bpf.h).
 */
uint32_t inode_table_capacity(const struct inode_table *t)
{
	return t->nbuckets * 2;
}

/**
 * inode_table_map() - map the table's array and check its head
 * @t: result
 * @map_fd: the "revoke_table" array
 * @elements: its max_entries
 *
 * A table made new (all zero) gets its mask here, before any key.
 *
 * Return: 0, -EINVAL if the array is not a table of this layout, or
 * another negative errno.
 */
int inode_table_map(struct inode_table *t, int map_fd, uint32_t elements)
{
	uint32_t nbuckets = elements - 1;
	void *p;

	if (elements < 2 || (nbuckets & (nbuckets - 1)))
		return -EINVAL;
	t->len = (size_t)elements * sizeof(struct revoke_bucket);
	p = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	t->head = p;
	t->bucket = (struct revoke_bucket *)p + 1;
	t->nbuckets = nbuckets;
	if (!__atomic_load_n(&t->head->mask, __ATOMIC_RELAXED))
		__atomic_store_n(&t->head->mask, (uint64_t)nbuckets - 1,
				 __ATOMIC_SEQ_CST);
	if (t->head->mask != nbuckets - 1) {
		inode_table_unmap(t);
		return -EINVAL;
	}
	return 0;
}

/**
 * inode_table_unmap() - drop the mapping made by inode_table_map()
 * @t: the table; may be unmapped already
 */
void inode_table_unmap(struct inode_table *t)
{
	if (t->head)
		munmap(t->head, t->len);
	t->head = NULL;
	t->bucket = NULL;
}

static uint64_t word_of(const struct revoke_bucket *b, int s)
{
	return __atomic_load_n(&b->word[s], __ATOMIC_ACQUIRE);
}

static bool live(uint64_t word)
{
	return word & REVOKE_SLOT_LIVE;
}

static void key_at(const struct revoke_bucket *b, int s, struct revoke_key *key)
{
	*key = (struct revoke_key){ .dev = (uint32_t)word_of(b, s),
				    .ino = b->ino[s] };
}

/* The slot of @key in bucket @i, or -1. */
static int slot_of(const struct inode_table *t, uint32_t i,
		   const struct revoke_key *key)
{
	const struct revoke_bucket *b = &t->bucket[i];
	uint64_t w;
	int s;

	for (s = 0; s < REVOKE_BUCKET_SLOTS; s++) {
		w = word_of(b, s);
		if (live(w) && (uint32_t)w == key->dev && b->ino[s] == key->ino)
			return s;
	}
	return -1;
}

/* A free slot of bucket @i, or -1. */
static int free_slot(const struct inode_table *t, uint32_t i)
{
	int s;

	for (s = 0; s < REVOKE_BUCKET_SLOTS; s++)
		if (!live(word_of(&t->bucket[i], s)))
			return s;
	return -1;
}

static int nr_free(const struct inode_table *t, uint32_t i)
{
	int s, n = 0;

	for (s = 0; s < REVOKE_BUCKET_SLOTS; s++)
		n += !live(word_of(&t->bucket[i], s));
	return n;
}

static void buckets_of(const struct inode_table *t,
		       const struct revoke_key *key, uint32_t b[2])
{
	uint64_t hash = inode_table_hash(key->dev, key->ino);

	b[0] = inode_table_first(hash, t->nbuckets - 1);
	b[1] = inode_table_second(hash, t->nbuckets - 1);
}

/* Where @key is: its bucket in *@i and the slot, or -1. */
static int locate(const struct inode_table *t, const struct revoke_key *key,
		  uint32_t *i)
{
	uint32_t b[2];
	int k, s;

	buckets_of(t, key, b);
	for (k = 0; k < 2; k++) {
		s = slot_of(t, b[k], key);
		if (s >= 0) {
			*i = b[k];
			return s;
		}
	}
	return -1;
}

/* Write @key and @val into the free slot @s of bucket @i: the word last. */
static uint64_t fill(struct inode_table *t, uint32_t i, int s,
		     const struct revoke_key *key, const struct revoke_val *val)
{
	struct revoke_bucket *b = &t->bucket[i];
	uint64_t gen = ((word_of(b, s) >> REVOKE_SLOT_GEN_SHIFT) + 1) &
		       REVOKE_SLOT_GEN_MASK;
	uint64_t w = REVOKE_SLOT_LIVE | gen << REVOKE_SLOT_GEN_SHIFT | key->dev;

	b->ino[s] = key->ino;
	b->denials[s] = (uint32_t)val->denials;
	b->revoked_at[s] = (uint32_t)val->revoked_at;
	__atomic_store_n(&b->word[s], w, __ATOMIC_RELEASE);
	return w;
}

/* Free slot @s of bucket @i if it still holds @word; false if it did not. */
static bool release(struct inode_table *t, uint32_t i, int s, uint64_t word)
{
	return __atomic_compare_exchange_n(&t->bucket[i].word[s], &word,
					   word & ~REVOKE_SLOT_LIVE, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void val_at(const struct revoke_bucket *b, int s, struct revoke_val *val)
{
	*val = (struct revoke_val){
		.revoked_at = __atomic_load_n(&b->revoked_at[s], __ATOMIC_RELAXED),
		.denials = __atomic_load_n(&b->denials[s], __ATOMIC_RELAXED),
	};
}

/*
 * Move the key in slot @s of bucket @from to the free slot @to_s of its
 * other bucket @to: copy, count the move, free the old slot.  If the BPF
 * side freed the old slot meanwhile (its inode was freed), free the copy
 * too: the entry is gone either way, and slot @s is free.
 */
static void move(struct inode_table *t, uint32_t from, int s, uint32_t to,
		 int to_s)
{
	uint64_t old = word_of(&t->bucket[from], s), copy;
	struct revoke_key key;
	struct revoke_val val;

	if (!live(old))
		return;		/* freed by the BPF side: nothing to move */
	key_at(&t->bucket[from], s, &key);
	val_at(&t->bucket[from], s, &val);
	copy = fill(t, to, to_s, &key, &val);
	__atomic_fetch_add(&t->head->moves, 1, __ATOMIC_SEQ_CST);
	if (!release(t, from, s, old))
		release(t, to, to_s, copy);
}

/* A bucket on the search for room, and how a key gets into it. */
struct path_node {
	uint32_t bucket;
	int parent;	/* the node whose key moves here, or -1 */
	int slot;	/* that key's slot in the parent's bucket */
};

static bool visited(const struct path_node *node, int n, uint32_t bucket)
{
	int i;

	for (i = 0; i < n; i++)
		if (node[i].bucket == bucket)
			return true;
	return false;
}

/*
 * Find room for a key whose buckets are @b: breadth first, from a bucket
 * with a free slot back to @b through keys that move to their other
 * bucket.  No bucket is visited twice, so every key on the path moves
 * once, between its own two buckets.  Return the node with the free
 * slot, or -1.
 */
static int find_room(const struct inode_table *t, const uint32_t b[2],
		     struct path_node *node)
{
	uint32_t alt[2];
	struct revoke_key key;
	int n = 0, i, s, k;

	/* the emptier bucket first */
	k = b[1] != b[0] && nr_free(t, b[1]) > nr_free(t, b[0]);
	node[n++] = (struct path_node){ b[k], -1, -1 };
	if (b[1] != b[0])
		node[n++] = (struct path_node){ b[!k], -1, -1 };
	for (i = 0; i < n; i++) {
		if (free_slot(t, node[i].bucket) >= 0)
			return i;
		for (s = 0; s < REVOKE_BUCKET_SLOTS && n < PATH_NODES; s++) {
			key_at(&t->bucket[node[i].bucket], s, &key);
			buckets_of(t, &key, alt);
			alt[0] = alt[0] == node[i].bucket ? alt[1] : alt[0];
			if (!visited(node, n, alt[0]))
				node[n++] = (struct path_node){ alt[0], i, s };
		}
	}
	return -1;
}

/**
 * inode_table_insert() - add a key to the set
 * @t: the table
 * @key: the key
 * @val: its revocation time and denials so far
 *
 * The caller keeps the set within inode_table_capacity().  Keys may move
 * to their other bucket to make room; a lookup never misses one.
 *
 * Return: 0, -EEXIST if @key is in the set, or -ENOSPC if no room was
 * found within PATH_NODES buckets (the set is unchanged).
 */
int inode_table_insert(struct inode_table *t, const struct revoke_key *key,
			const struct revoke_val *val)
{
	struct path_node node[PATH_NODES];
	uint32_t b[2], at;
	int i, s, p;

	if (locate(t, key, &at) >= 0)
		return -EEXIST;
	buckets_of(t, key, b);
	i = find_room(t, b, node);
	if (i < 0)
		return -ENOSPC;
	/* from the free slot back: each key moves into the slot just freed */
	s = free_slot(t, node[i].bucket);
	for (; node[i].parent >= 0; i = p) {
		p = node[i].parent;
		move(t, node[p].bucket, node[i].slot, node[i].bucket, s);
		s = node[i].slot;
	}
	fill(t, node[i].bucket, s, key, val);
	return 0;
}

/**
 * inode_table_delete() - drop a key from the set
 * @t: the table
 * @key: the key
 *
 * Return: 0, or -ENOENT if it was not in the set.
 */
int inode_table_delete(struct inode_table *t, const struct revoke_key *key)
{
	uint32_t i;
	int s;

	s = locate(t, key, &i);
	if (s < 0 || !release(t, i, s, word_of(&t->bucket[i], s)))
		return -ENOENT;
	return 0;
}

/**
 * inode_table_find() - look a key up
 * @t: the table
 * @key: the key
 * @val: its revocation time and denials; may be NULL
 *
 * Return: 0, or -ENOENT if it is not in the set.
 */
int inode_table_find(const struct inode_table *t,
		      const struct revoke_key *key, struct revoke_val *val)
{
	uint32_t i;
	int s;

	s = locate(t, key, &i);
	if (s < 0)
		return -ENOENT;
	if (val)
		val_at(&t->bucket[i], s, val);
	return 0;
}

/**
 * inode_table_for_each() - call @fn for every key in the set
 * @t: the table
 * @fn: callback; a non-zero return stops the walk and is returned
 * @ctx: passed to @fn
 *
 * Return: 0 or @fn's non-zero value.
 */
int inode_table_for_each(const struct inode_table *t, inode_table_fn fn,
			  void *ctx)
{
	struct revoke_key key;
	struct revoke_val val;
	uint32_t i;
	int s, err;

	for (i = 0; i < t->nbuckets; i++)
		for (s = 0; s < REVOKE_BUCKET_SLOTS; s++) {
			if (!live(word_of(&t->bucket[i], s)))
				continue;
			key_at(&t->bucket[i], s, &key);
			val_at(&t->bucket[i], s, &val);
			err = fn(&key, &val, ctx);
			if (err)
				return err;
		}
	return 0;
}

/**
 * inode_table_count() - number of keys in the set
 * @t: the table
 *
 * Return: the count, by one pass over the table.
 */
uint64_t inode_table_count(const struct inode_table *t)
{
	uint64_t n = 0;
	uint32_t i;
	int s;

	for (i = 0; i < t->nbuckets; i++)
		for (s = 0; s < REVOKE_BUCKET_SLOTS; s++)
			n += live(word_of(&t->bucket[i], s));
	return n;
}
