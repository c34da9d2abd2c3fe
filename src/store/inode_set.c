// SPDX-License-Identifier: GPL-2.0
/*
 * inode_set.c - changes to the revoked set (inode_table.c's table),
 * with the counter, the armed word and the filter that front it.
 *
 * revoke_state.nr_revoked must never be zero while the map has entries:
 * the programs skip the lookup when it is.  So an entry is counted before
 * add returns, and the counter is recomputed from the map itself whenever
 * the daemon starts, so it is right even after a crash.  The programs
 * free the entries of freed inodes without lowering the counter, so it is
 * an upper bound; add and del adjust it by one from its current value,
 * which keeps it an upper bound.
 *
 * The filter (revoke_filter, see revoke_bpf.h) must have the bit of every
 * key in the set: add sets it after the insert and before it returns;
 * del and the start of the daemon recompute words from the set, and
 * write each word whole, so that a bit that is needed is never cleared,
 * not even for a moment.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "armed.h"
#include "attach.h"
#include "store.h"
#include "inode_set.h"

/**
 * inode_set_state() - read the programs' shared state
 * @rb: the daemon's handles
 * @st: result
 *
 * Return: 0 or a negative errno.
 */
int inode_set_state(struct store *rb, struct revoke_state *st)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(rb->state_fd, &zero, st))
		return -errno;
	return 0;
}

/*
 * Set the fast-path counter, keeping the other fields, and the hooks'
 * revoke_armed from it.  The daemon is the
 * only writer of nr_revoked; the programs only add to the other fields,
 * so an increment they make between our read and write can be lost,
 * which costs a statistic, never a revocation.
 */
static int write_count(struct store *rb, uint64_t count)
{
	struct revoke_state st;
	__u32 zero = 0;
	int err;

	err = inode_set_state(rb, &st);
	if (err)
		return err;
	st.nr_revoked = count;
	if (bpf_map_update_elem(rb->state_fd, &zero, &st, BPF_ANY))
		return -errno;
	return armed_update(rb);
}

static int read_count(struct store *rb, uint64_t *count)
{
	struct revoke_state st;
	int err;

	err = inode_set_state(rb, &st);
	if (!err)
		*count = st.nr_revoked;
	return err;
}

/**
 * inode_set_count() - number of entries in the revoked set
 * @rb: the daemon's handles
 * @count: result
 *
 * Return: 0 or a negative errno.
 */
int inode_set_count(struct store *rb, uint64_t *count)
{
	*count = inode_table_count(&rb->table);
	return 0;
}

/**
 * inode_set_sync() - recompute the fast-path counter from the map
 * @rb: the daemon's handles
 * @count: number of revoked entries
 *
 * Return: 0 or a negative errno.
 */
int inode_set_sync(struct store *rb, uint64_t *count)
{
	int err;

	err = inode_set_count(rb, count);
	if (!err)
		err = write_count(rb, *count);
	return err;
}

/* Set @key's bit and its device's (revoke_bpf.h). */
static void filter_set(struct store *rb, const struct revoke_key *key)
{
	uint32_t bits[2] = { revoke_filter_bit(key->dev, key->ino),
			     revoke_filter_dev_bit(key->dev) };
	int i;

	for (i = 0; i < 2; i++)
		__atomic_fetch_or(&rb->filter[revoke_filter_word(bits[i])],
				  revoke_filter_mask(bits[i]), __ATOMIC_SEQ_CST);
}

/* Words @first .. @first + @nr - 1 of the filter, recomputed into @words. */
struct filter_words {
	uint64_t *words;
	uint32_t first;
	uint32_t nr;
};

/* Or the bits of every key in the set that fall in @ctx's words. */
static int filter_bits(const struct revoke_key *key,
		       const struct revoke_val *val, void *ctx)
{
	struct filter_words *fw = ctx;
	uint32_t bits[2] = { revoke_filter_bit(key->dev, key->ino),
			     revoke_filter_dev_bit(key->dev) };
	uint32_t word;
	int i;

	(void)val;
	for (i = 0; i < 2; i++) {
		word = revoke_filter_word(bits[i]);
		if (word - fw->first < fw->nr)
			fw->words[word - fw->first] |= revoke_filter_mask(bits[i]);
	}
	return 0;
}

/*
 * Recompute @fw's words from the set and store each that differs, whole:
 * a bit still needed is never cleared, not even for a moment.
 */
static int filter_recompute(struct store *rb, struct filter_words *fw)
{
	uint32_t i;
	int err;

	err = inode_set_for_each(rb, filter_bits, fw);
	for (i = 0; !err && i < fw->nr; i++)
		if (__atomic_load_n(&rb->filter[fw->first + i], __ATOMIC_RELAXED) !=
		    fw->words[i])
			__atomic_store_n(&rb->filter[fw->first + i], fw->words[i],
					 __ATOMIC_SEQ_CST);
	return err;
}

/**
 * inode_set_filter_sync() - recompute the whole filter from the set
 * @rb: the daemon's handles, with the filter mapped
 *
 * Run before the programs are attached, so that a filter made new (first
 * start, or an upgrade from a build without one) holds every key before
 * a program reads it; and at every start, to drop stale bits.
 *
 * Return: 0 or a negative errno.
 */
int inode_set_filter_sync(struct store *rb)
{
	struct filter_words fw = {
		.words = calloc(REVOKE_FILTER_WORDS, sizeof(uint64_t)),
		.first = 0,
		.nr = REVOKE_FILTER_WORDS,
	};
	int err;

	if (!fw.words)
		return -ENOMEM;
	err = filter_recompute(rb, &fw);
	free(fw.words);
	return err;
}

/* After a delete: recompute the words of @key's bit and its device's. */
static int filter_rebuild_word(struct store *rb,
			       const struct revoke_key *key)
{
	uint32_t words[2] = {
		revoke_filter_word(revoke_filter_bit(key->dev, key->ino)),
		revoke_filter_word(revoke_filter_dev_bit(key->dev)),
	};
	uint64_t word;
	struct filter_words fw = { .words = &word, .nr = 1 };
	int i, err = 0;

	for (i = 0; !err && i < 2; i++) {
		if (i && words[1] == words[0])
			break;
		word = 0;
		fw.first = words[i];
		err = filter_recompute(rb, &fw);
	}
	return err;
}

/**
 * inode_set_add() - revoke one inode
 * @rb: the daemon's handles
 * @key: the inode
 * @change: REVOKE_ADDED, or REVOKE_ALREADY if it was revoked before
 *
 * Return: 0, -ENOSPC if the map is full, or another negative errno.  On
 * error the set is unchanged.
 */
int inode_set_add(struct store *rb, const struct revoke_key *key,
		    enum revoke_change *change)
{
	struct revoke_val val = { .revoked_at = (uint64_t)time(NULL) };
	uint64_t count = 0;
	int err;

	if (!inode_table_find(&rb->table, key, NULL)) {
		filter_set(rb, key);
		*change = REVOKE_ALREADY;
		return attach_ensure(rb);
	}
	err = read_count(rb, &count);
	if (err)
		return err;
	/* the counter is an upper bound: the BPF side drops freed inodes */
	if (count >= rb->max_entries)
		count = inode_table_count(&rb->table);
	if (count >= rb->max_entries)
		return -ENOSPC;
	err = attach_ensure(rb);
	if (err)
		return err;
	err = inode_table_insert(&rb->table, key, &val);
	if (err)
		return err;
	filter_set(rb, key);
	err = write_count(rb, count + 1);
	if (err) {
		inode_table_delete(&rb->table, key);
		return err;
	}
	*change = REVOKE_ADDED;
	return 0;
}

/**
 * inode_set_del() - lift the revocation of one inode
 * @rb: the daemon's handles
 * @key: the inode
 * @change: REVOKE_DELETED, or REVOKE_ABSENT if it was not revoked
 *
 * Return: 0 or a negative errno.
 */
int inode_set_del(struct store *rb, const struct revoke_key *key,
		    enum revoke_change *change)
{
	uint64_t count = 0;
	int err;

	if (inode_table_delete(&rb->table, key)) {
		*change = REVOKE_ABSENT;
		return 0;
	}
	*change = REVOKE_DELETED;
	bpf_map_delete_elem(rb->reports_fd, key);
	bpf_map_delete_elem(rb->names_fd, key);
	filter_rebuild_word(rb, key);
	err = read_count(rb, &count);
	if (!err && count > 0)
		err = write_count(rb, count - 1);
	return err;
}

/**
 * inode_set_for_each() - call @fn for every revoked entry
 * @rb: the daemon's handles
 * @fn: callback; a non-zero return stops the walk and is returned
 * @ctx: passed to @fn
 *
 * Return: 0, @fn's non-zero value, or a negative errno.
 */
int inode_set_for_each(struct store *rb, inode_set_fn fn, void *ctx)
{
	return inode_table_for_each(&rb->table, fn, ctx);
}

/**
 * inode_set_report_set() - record what the pipeline did for an entry
 * @rb: the daemon's handles
 * @key: the revoked inode
 * @report: the counts
 *
 * Return: 0 or a negative errno.
 */
int inode_set_report_set(struct store *rb, const struct revoke_key *key,
			   const struct revoke_report *report)
{
	if (bpf_map_update_elem(rb->reports_fd, key, report, BPF_ANY))
		return -errno;
	return 0;
}

/**
 * inode_set_report_get() - what the pipeline last did for an entry
 * @rb: the daemon's handles
 * @key: the revoked inode
 * @report: the counts
 *
 * Return: 0, -ENOENT if the pipeline never ran for it, or a negative errno.
 */
int inode_set_report_get(struct store *rb, const struct revoke_key *key,
			   struct revoke_report *report)
{
	if (bpf_map_lookup_elem(rb->reports_fd, key, report))
		return -errno;
	return 0;
}

/**
 * inode_set_name_set() - remember what an entry was added as, for list
 * @rb: the daemon's handles
 * @key: the revoked inode
 * @path: the client's name for it; longer ones keep their last bytes
 *
 * Return: 0 or a negative errno.
 */
int inode_set_name_set(struct store *rb, const struct revoke_key *key,
			 const char *path)
{
	struct revoke_name name = {};
	size_t len = strlen(path), max = sizeof(name.path) - 1;

	if (len > max)
		snprintf(name.path, sizeof(name.path), "...%s", path + len - max + 3);
	else
		memcpy(name.path, path, len);
	if (bpf_map_update_elem(rb->names_fd, key, &name, BPF_ANY))
		return -errno;
	return 0;
}

/**
 * inode_set_name_get() - what an entry was added as
 * @rb: the daemon's handles
 * @key: the revoked inode
 * @name: the name, NUL-terminated
 *
 * Return: 0, -ENOENT if it was added by number, or a negative errno.
 */
int inode_set_name_get(struct store *rb, const struct revoke_key *key,
			 struct revoke_name *name)
{
	if (bpf_map_lookup_elem(rb->names_fd, key, name))
		return -errno;
	name->path[sizeof(name->path) - 1] = '\0';
	return 0;
}
