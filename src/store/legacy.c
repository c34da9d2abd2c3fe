// SPDX-License-Identifier: GPL-2.0
/*
 * legacy.c - the revoked set as builds before revoke_table pinned it (a
 * hash map, LEGACY_SET), moved into the table on the first start of this
 * build.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "legacy.h"
#include "pins.h"
#include "store.h"

/**
 * legacy_migrate() - copy the set an older build pinned into the table
 * @rb: the daemon's handles, with revoke_table mapped
 * @err: on failure, a one-line reason with what to do about it
 * @errlen: size of @err
 *
 * Copies every entry of LEGACY_SET, a hash map, into the table, before
 * any program of this build is attached; the old programs, still
 * attached, enforce it meanwhile.  Its pin goes once this build's
 * programs are attached (store.c).  Entries the table holds already (a
 * start that died before that) are not counted twice.
 *
 * Return: 0 (also when there is no such set) or a negative errno.
 */
int legacy_migrate(struct store *rb, char *err, size_t errlen)
{
	struct revoke_key key, next;
	struct revoke_val val;
	void *prev = NULL;
	uint64_t count;
	int fd, ret = 0;

	fd = revoke_pin_get(rb->pin_dir, LEGACY_SET);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		ret = fd;
	count = inode_table_count(&rb->table);
	while (!ret && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;	/* dropped meanwhile: its inode was freed */
		if (!inode_table_find(&rb->table, &key, NULL))
			continue;
		if (count >= rb->max_entries)
			ret = -ENOSPC;
		else
			ret = inode_table_insert(&rb->table, &key, &val);
		count += !ret;
	}
	if (!ret && errno != ENOENT)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		snprintf(err, errlen, "cannot move the revocations an older build "
			 "pinned as %s/%s into revoke_table: %s%s", rb->pin_dir,
			 LEGACY_SET, strerror(-ret), ret == -ENOSPC ? "; start "
			 "revoke-bpfd with a larger --max-entries" : "");
	return ret;
}
