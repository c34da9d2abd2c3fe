// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/store/inode_set.c on real BPF maps (hash and array maps
 * load on the host): the filter in front of the revoked set keeps the bit
 * of every key, through add, del of a key that shares its word, and a
 * full resync; and the hooks' revoke_armed follows the set.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <bpf/bpf.h>

#include "store/inode_set.h"
#include "maps.h"
#include "tap.h"

static struct store rb;

static bool bit_set(const struct revoke_key *k)
{
	uint32_t bit = revoke_filter_bit(k->dev, k->ino);

	return rb.filter[bit >> 6] >> (bit & 63) & 1;
}

static bool dev_bit_set(uint32_t dev)
{
	uint32_t bit = revoke_filter_dev_bit(dev);

	return rb.filter[bit >> 6] >> (bit & 63) & 1;
}

/* A key other than @a whose bit is in the same word as @a's. */
static struct revoke_key same_word(const struct revoke_key *a)
{
	struct revoke_key b = *a;
	uint32_t word = revoke_filter_bit(a->dev, a->ino) >> 6;

	do
		b.ino++;
	while (revoke_filter_bit(b.dev, b.ino) >> 6 != word ||
	       revoke_filter_bit(b.dev, b.ino) == revoke_filter_bit(a->dev, a->ino));
	return b;
}

int main(void)
{
	struct revoke_key a = { .dev = 8 << 20 | 1, .ino = 12 }, b, c;
	enum revoke_change ch;
	uint64_t count;
	uint32_t i;
	bool empty = true;

	if (test_maps_create(&rb, 64)) {
		printf("Bail out! cannot create BPF maps: %s\n", strerror(errno));
		return 1;
	}
	b = same_word(&a);
	c = (struct revoke_key){ .dev = 8 << 20 | 1, .ino = 99 };
	CHECK("the filter hash spreads consecutive inodes over the bitmap",
	      revoke_filter_bit(a.dev, 12) != revoke_filter_bit(a.dev, 13) &&
	      revoke_filter_bit(a.dev, 12) < REVOKE_FILTER_WORDS * 64);
	CHECK("add sets the key's bit",
	      !inode_set_add(&rb, &a, &ch) && ch == REVOKE_ADDED && bit_set(&a));
	CHECK("and its device's bit, which the hooks look at first",
	      dev_bit_set(a.dev) && !dev_bit_set(9 << 20 | 1));
	CHECK("and arms the hooks for inodes",
	      test_armed(&rb) == REVOKE_ARMED_INODES);
	CHECK("a key not added has its bit clear", !bit_set(&c));
	CHECK("a second key in the same word gets its bit too",
	      !inode_set_add(&rb, &b, &ch) && bit_set(&b) && bit_set(&a));
	CHECK("count and sync see both keys",
	      !inode_set_count(&rb, &count) && count == 2 &&
	      !inode_set_sync(&rb, &count) && count == 2);
	CHECK("del of one key clears its bit",
	      !inode_set_del(&rb, &a, &ch) && ch == REVOKE_DELETED && !bit_set(&a));
	CHECK("and keeps the bit of the other key in the same word", bit_set(&b));
	CHECK("and the device's bit while a key of it is left",
	      dev_bit_set(a.dev));
	rb.filter[revoke_filter_bit(b.dev, b.ino) >> 6] = 0;
	CHECK("a full sync puts back a bit that went missing",
	      !inode_set_filter_sync(&rb) && bit_set(&b));
	rb.filter[revoke_filter_bit(c.dev, c.ino) >> 6] |=
		1ull << (revoke_filter_bit(c.dev, c.ino) & 63);
	CHECK("and drops a stale bit", !inode_set_filter_sync(&rb) && !bit_set(&c));
	inode_set_del(&rb, &b, &ch);
	CHECK("del of a device's last key clears the device's bit",
	      !dev_bit_set(b.dev));
	for (i = 0; i < REVOKE_FILTER_WORDS; i++)
		if (rb.filter[i])
			empty = false;
	CHECK("an empty set leaves an empty filter",
	      empty && !inode_set_count(&rb, &count) && count == 0);
	CHECK("and the hooks disarmed: they return after one load",
	      test_armed(&rb) == 0);
	return tap_done();
}
