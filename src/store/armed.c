// SPDX-License-Identifier: GPL-2.0
/*
 * armed.c - the hooks' revoke_armed word, the first thing every hook
 * reads: one bit per set (REVOKE_ARMED_INODES, REVOKE_ARMED_DEVICES,
 * REVOKE_ARMED_SUPERS, REVOKE_ARMED_PAUSES, REVOKE_ARMED_FILES), set
 * while that set's counter is not zero (for the filesystem, pause and
 * open file sets, while their map holds an entry).  The hooks drop open
 * file entries themselves: the bit may stay set over an empty map until
 * the next update, which costs one lookup per operation, never a miss.
 *
 * The sets and the store's start all write it through here, and this
 * file calls none of them: it reads the counters' maps itself.
 */
#include <errno.h>

#include <bpf/bpf.h>

#include "armed.h"
#include "store.h"
#include "revoke.skel.h"

/**
 * armed_bits() - what revoke_armed should be, from the sets
 * @rb: the daemon's handles
 * @bits: result, REVOKE_ARMED_* of each set that holds something
 *
 * Return: 0 or a negative errno.
 */
int armed_bits(struct store *rb, uint32_t *bits)
{
	struct revoke_rdev_state rs;
	struct revoke_rdev_key dev;
	struct revoke_state st;
	__u32 zero = 0, s_dev;
	bool supers, pauses, files;
	__u64 file;

	if (bpf_map_lookup_elem(rb->state_fd, &zero, &st) ||
	    bpf_map_lookup_elem(rb->rdev_state_fd, &zero, &rs))
		return -errno;
	supers = !bpf_map_get_next_key(rb->supers_fd, NULL, &s_dev);
	pauses = !bpf_map_get_next_key(rb->pause_devs_fd, NULL, &dev);
	files = !bpf_map_get_next_key(rb->files_fd, NULL, &file);
	*bits = (st.nr_revoked ? REVOKE_ARMED_INODES : 0) |
		(rs.nr_rdev ? REVOKE_ARMED_DEVICES : 0) |
		(supers ? REVOKE_ARMED_SUPERS : 0) |
		(pauses ? REVOKE_ARMED_PAUSES : 0) |
		(files ? REVOKE_ARMED_FILES : 0);
	return 0;
}

/**
 * armed_update() - set revoke_armed from the sets
 * @rb: the daemon's handles
 *
 * Call it after every change of nr_revoked, nr_rdev, revoked_supers,
 * revoked_files or pause_devs: while all are empty every hook returns after reading revoke_armed.
 *
 * Return: 0 or a negative errno.
 */
int armed_update(struct store *rb)
{
	return armed_update_with(rb, 0);
}

/**
 * armed_update_with() - armed_update(), with @extra set as well
 * @rb: the daemon's handles
 * @extra: REVOKE_ARMED_* bits to set whatever the sets hold: a set's bit
 *	before its first entry goes in, where the hooks must see the entry
 *	from the moment it is there (file_set_add())
 *
 * Return: 0 or a negative errno.
 */
int armed_update_with(struct store *rb, uint32_t extra)
{
	struct revoke_bpf_skel__bss bss = {};
	__u32 zero = 0;
	int ret;

	ret = armed_bits(rb, &bss.revoke_armed);
	if (ret)
		return ret;
	bss.revoke_armed |= extra;
	if (bpf_map_update_elem(rb->armed_fd, &zero, &bss, BPF_ANY))
		return -errno;
	return 0;
}

/**
 * armed_clear() - make every hook allow everything, at once
 * @rb: the daemon's handles
 *
 * Clears revoke_armed, whatever the counters say; the next
 * armed_update() sets it again.
 *
 * Return: 0 or a negative errno.
 */
int armed_clear(struct store *rb)
{
	struct revoke_bpf_skel__bss bss = {};
	__u32 zero = 0;

	if (bpf_map_update_elem(rb->armed_fd, &zero, &bss, BPF_ANY))
		return -errno;
	return 0;
}
