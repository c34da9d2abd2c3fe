// SPDX-License-Identifier: GPL-2.0
/*
 * pin_legacy_set - make PIN_DIR look as a build before revoke_table left
 * it: every entry of PIN_DIR/revoke_table is copied into a new hash map
 * pinned as PIN_DIR/revoked (that build's set), and the revoke_table pin
 * is removed.  Prints how many entries it copied.
 *
 *	pin_legacy_set PIN_DIR
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "store/inode_table.h"

struct legacy {
	int fd;
	unsigned int copied;
};

static int copy_entry(const struct revoke_key *key,
		      const struct revoke_val *val, void *ctx)
{
	struct legacy *l = ctx;

	if (bpf_map_update_elem(l->fd, key, val, BPF_NOEXIST))
		return -errno;
	l->copied++;
	return 0;
}

int main(int argc, char **argv)
{
	char table_path[PATH_MAX], set_path[PATH_MAX];
	struct bpf_map_info info = { 0 };
	__u32 info_len = sizeof(info);
	struct legacy l = { .fd = -1 };
	struct inode_table t;
	int table_fd, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: pin_legacy_set PIN_DIR\n");
		return 2;
	}
	snprintf(table_path, sizeof(table_path), "%s/revoke_table", argv[1]);
	snprintf(set_path, sizeof(set_path), "%s/revoked", argv[1]);
	table_fd = bpf_obj_get(table_path);
	if (table_fd < 0 || bpf_obj_get_info_by_fd(table_fd, &info, &info_len) ||
	    inode_table_map(&t, table_fd, info.max_entries)) {
		fprintf(stderr, "pin_legacy_set: cannot map %s\n", table_path);
		return 1;
	}
	l.fd = bpf_map_create(BPF_MAP_TYPE_HASH, "revoked",
			      sizeof(struct revoke_key),
			      sizeof(struct revoke_val),
			      inode_table_capacity(&t), NULL);
	ret = l.fd < 0 ? -errno : inode_table_for_each(&t, copy_entry, &l);
	if (!ret && bpf_obj_pin(l.fd, set_path))
		ret = -errno;
	if (ret) {
		fprintf(stderr, "pin_legacy_set: cannot pin %s: %s\n", set_path,
			strerror(-ret));
		return 1;
	}
	unlink(table_path);
	printf("%u\n", l.copied);
	return 0;
}
