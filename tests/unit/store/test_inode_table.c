// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/store/inode_table.c on a real mmapable BPF array: the
 * cuckoo table holds its full capacity and finds every key, moves keys
 * to make room, reuses freed slots with a new generation, refuses what
 * does not fit without changing the set; and a reader that follows the
 * BPF side's protocol (revoke.bpf.c: table_find) never misses a key that
 * stays in the set while others are added, moved and deleted.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "store/inode_table.h"
#include "tap.h"

#define DEV (8 << 20 | 1)

static int table_create(struct inode_table *t, uint32_t max_entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);
	uint32_t elements = inode_table_elements(max_entries);
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "revoke_table", 4,
			    sizeof(struct revoke_bucket), elements, &mmapable);
	if (fd < 0)
		return -errno;
	err = inode_table_map(t, fd, elements);
	close(fd);
	return err;
}

static struct revoke_key key_n(uint64_t n)
{
	return (struct revoke_key){ .dev = DEV, .ino = n };
}

/* Scattered inode numbers, as a big filesystem hands them out. */
static struct revoke_key key_scattered(uint64_t n)
{
	return (struct revoke_key){ .dev = DEV + (uint32_t)(n % 3),
				    .ino = n * 0x9e3779b97f4a7c15ULL >> 20 };
}

static bool all_found(struct inode_table *t, uint64_t n,
		      struct revoke_key (*key)(uint64_t))
{
	struct revoke_key k;
	uint64_t i;

	for (i = 1; i <= n; i++) {
		k = key(i);
		if (inode_table_find(t, &k, NULL))
			return false;
	}
	return true;
}

static int fill(struct inode_table *t, uint64_t n,
		struct revoke_key (*key)(uint64_t))
{
	struct revoke_val v = { .revoked_at = 1 };
	struct revoke_key k;
	uint64_t i;
	int err;

	for (i = 1; i <= n; i++) {
		k = key(i);
		err = inode_table_insert(t, &k, &v);
		if (err)
			return err;
	}
	return 0;
}

static int count_one(const struct revoke_key *key, const struct revoke_val *val,
		     void *ctx)
{
	(void)key;
	(void)val;
	(*(uint64_t *)ctx)++;
	return 0;
}

/* The BPF side's lookup (revoke.bpf.c), word for word, in C. */
static int bucket_slot(const struct revoke_bucket *b,
		       const struct revoke_key *key)
{
	uint64_t w;
	int s;

	for (s = 0; s < REVOKE_BUCKET_SLOTS; s++) {
		w = __atomic_load_n(&b->word[s], __ATOMIC_ACQUIRE);
		if (!(w & REVOKE_SLOT_LIVE) || (uint32_t)w != key->dev)
			continue;
		if (__atomic_load_n(&b->ino[s], __ATOMIC_ACQUIRE) != key->ino)
			continue;
		if (__atomic_load_n(&b->word[s], __ATOMIC_ACQUIRE) == w)
			return s;
	}
	return -1;
}

static bool bpf_side_finds(const struct inode_table *t,
			   const struct revoke_key *key)
{
	uint64_t hash = inode_table_hash(key->dev, key->ino), moves, mask;
	int try;

	for (try = 0; try < REVOKE_TABLE_TRIES; try++) {
		moves = __atomic_load_n(&t->head->moves, __ATOMIC_ACQUIRE);
		mask = __atomic_load_n(&t->head->mask, __ATOMIC_ACQUIRE);
		if (bucket_slot(&t->bucket[inode_table_first(hash, mask)], key) >= 0 ||
		    bucket_slot(&t->bucket[inode_table_second(hash, mask)], key) >= 0)
			return true;
		if (__atomic_load_n(&t->head->moves, __ATOMIC_ACQUIRE) == moves)
			break;
	}
	return false;
}

struct reader {
	struct inode_table *t;
	uint64_t nkeys;		/* keys 1..nkeys stay in the set throughout */
	volatile bool stop;
	uint64_t lookups, misses;
};

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	struct revoke_key k;
	uint64_t i = 0;

	while (!r->stop) {
		k = key_scattered(1 + i++ % r->nkeys);
		r->misses += !bpf_side_finds(r->t, &k);
		r->lookups++;
	}
	return NULL;
}

/*
 * Keys 1..@stay stay in the table while churn fills it to 90% of its
 * slots, past the capacity the daemon keeps to, so that most inserts
 * move keys: keys from @stay + 1 on are added and deleted, while a
 * reader looks the staying keys up.  Return the reader's misses.
 */
static uint64_t churn_misses(struct inode_table *t, uint64_t stay,
			     uint64_t rounds, uint64_t *lookups)
{
	struct reader r = { .t = t, .nkeys = stay };
	struct revoke_val v = { .revoked_at = 1 };
	uint64_t cap = t->nbuckets * REVOKE_BUCKET_SLOTS * 9 / 10, i;
	uint64_t next = stay + 1;
	struct revoke_key k;
	pthread_t th;

	if (fill(t, stay, key_scattered))
		return ~0ULL;
	pthread_create(&th, NULL, read_loop, &r);
	for (i = 0; i < rounds; i++) {
		for (; next - 1 < cap; next++) {	/* up to capacity */
			k = key_scattered(next);
			inode_table_insert(t, &k, &v);
		}
		for (; next - 1 > stay + (cap - stay) / 2; next--) {
			k = key_scattered(next - 1);
			inode_table_delete(t, &k);
		}
	}
	r.stop = true;
	pthread_join(th, NULL);
	*lookups = r.lookups;
	return r.misses;
}

int main(void)
{
	struct revoke_key a = key_n(12), b = key_n(13), k;
	struct revoke_val v = { .revoked_at = 1700000000, .denials = 0 }, got;
	struct inode_table t = {}, small = {}, big = {}, race = {};
	uint64_t n, moves, word, lookups = 0, misses;
	uint32_t i;
	int s;

	if (table_create(&t, 64) || table_create(&small, 2) ||
	    table_create(&big, 1 << 16) || table_create(&race, 128)) {
		printf("Bail out! cannot create BPF arrays: %s\n", strerror(errno));
		return 1;
	}
	CHECK("a set of N entries gets N/2 buckets, a power of two, and a head",
	      inode_table_elements(2) == 2 && inode_table_elements(64) == 33 &&
	      inode_table_elements(65536) == 32769 &&
	      inode_table_elements(1000000) == 524289 &&
	      inode_table_capacity(&t) == 64 && t.head->mask == 31);
	CHECK("a bucket takes 96 bytes: 48 per entry at capacity",
	      sizeof(struct revoke_bucket) == 96 &&
	      sizeof(struct inode_table_head) == sizeof(struct revoke_bucket));
	CHECK("a key's two buckets differ",
	      inode_table_first(inode_table_hash(DEV, 12), 31) !=
	      inode_table_second(inode_table_hash(DEV, 12), 31));

	CHECK("insert, then find gives the key's value",
	      !inode_table_insert(&t, &a, &v) && !inode_table_find(&t, &a, &got) &&
	      got.revoked_at == 1700000000 && got.denials == 0);
	CHECK("a key not inserted is not found",
	      inode_table_find(&t, &b, NULL) == -ENOENT);
	CHECK("a second insert of a key is refused with EEXIST",
	      inode_table_insert(&t, &a, &v) == -EEXIST &&
	      inode_table_count(&t) == 1);
	CHECK("the same ino on another device is another key",
	      (k = a, k.dev++, !inode_table_insert(&t, &k, &v)) &&
	      inode_table_count(&t) == 2 && !inode_table_delete(&t, &k));
	CHECK("delete drops it, a second delete says ENOENT",
	      !inode_table_delete(&t, &a) && inode_table_find(&t, &a, NULL) == -ENOENT &&
	      inode_table_delete(&t, &a) == -ENOENT && inode_table_count(&t) == 0);

	/* a slot freed and filled again has a new generation */
	inode_table_insert(&t, &a, &v);
	for (i = 0, word = 0; i < t.nbuckets && !word; i++)
		for (s = 0; s < REVOKE_BUCKET_SLOTS; s++)
			if (t.bucket[i].word[s] & REVOKE_SLOT_LIVE)
				word = t.bucket[i].word[s];
	inode_table_delete(&t, &a);
	inode_table_insert(&t, &a, &v);
	for (i = 0, n = 0; i < t.nbuckets; i++)
		for (s = 0; s < REVOKE_BUCKET_SLOTS; s++)
			if (t.bucket[i].word[s] & REVOKE_SLOT_LIVE)
				n = t.bucket[i].word[s];
	CHECK("a slot filled again gets the next generation, so a reader sees it change",
	      n == word + (1ULL << REVOKE_SLOT_GEN_SHIFT) && (uint32_t)n == a.dev);
	/* the BPF side frees a slot by clearing REVOKE_SLOT_LIVE */
	for (i = 0; i < t.nbuckets; i++)
		for (s = 0; s < REVOKE_BUCKET_SLOTS; s++)
			t.bucket[i].word[s] &= ~REVOKE_SLOT_LIVE;
	CHECK("a slot freed by the BPF side is gone and is reused",
	      inode_table_find(&t, &a, NULL) == -ENOENT &&
	      !inode_table_insert(&t, &a, &v) && inode_table_count(&t) == 1);

	CHECK("one bucket holds four keys, and a fifth is refused with ENOSPC",
	      !fill(&small, 4, key_n) && fill(&small, 5, key_n) == -EEXIST &&
	      (k = key_n(5), inode_table_insert(&small, &k, &v)) == -ENOSPC);
	CHECK("and the refusal leaves the set as it was",
	      inode_table_count(&small) == 4 && all_found(&small, 4, key_n));

	CHECK("a table filled to capacity with consecutive inodes finds them all",
	      !fill(&big, inode_table_capacity(&big), key_n) &&
	      all_found(&big, inode_table_capacity(&big), key_n) &&
	      inode_table_count(&big) == inode_table_capacity(&big));
	moves = big.head->moves;
	for (n = 1; n <= inode_table_capacity(&big); n++) {
		k = key_n(n);
		inode_table_delete(&big, &k);
	}
	CHECK("with scattered inodes too, moving keys to make room",
	      inode_table_count(&big) == 0 &&
	      !fill(&big, inode_table_capacity(&big), key_scattered) &&
	      all_found(&big, inode_table_capacity(&big), key_scattered) &&
	      big.head->moves > moves);
	n = 0;
	inode_table_for_each(&big, count_one, &n);
	CHECK("for_each visits every key once", n == inode_table_capacity(&big));

	misses = churn_misses(&race, inode_table_capacity(&race) / 2, 20000,
			      &lookups);
	printf("# reader: %llu lookups, %llu moves, %llu misses\n",
	       (unsigned long long)lookups, (unsigned long long)race.head->moves,
	       (unsigned long long)misses);
	CHECK("a reader following the BPF side's protocol finds every key that stays, while others are added, moved and deleted",
	      misses == 0 && lookups > 0 && race.head->moves > 0);
	inode_table_unmap(&t);
	inode_table_unmap(&small);
	inode_table_unmap(&big);
	inode_table_unmap(&race);
	return tap_done();
}
