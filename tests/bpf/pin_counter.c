// SPDX-License-Identifier: GPL-2.0
/*
 * pin_counter - set a set's counter in PIN_DIR's pinned maps, keeping the
 * other fields: what a daemon killed between an insert and the counter's
 * write leaves (inode_set_add() writes the table, then nr_revoked).
 *
 *	pin_counter PIN_DIR inodes|devices N
 *
 * Prints the counter's old value.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "revoke_bpf.h"

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	struct revoke_rdev_state rs;
	struct revoke_state st;
	bool inodes;
	__u32 zero = 0;
	__u64 old;
	int fd, ret;

	if (argc != 4 || (strcmp(argv[2], "inodes") && strcmp(argv[2], "devices"))) {
		fprintf(stderr, "usage: pin_counter PIN_DIR inodes|devices N\n");
		return 2;
	}
	inodes = !strcmp(argv[2], "inodes");
	snprintf(path, sizeof(path), "%s/%s", argv[1],
		 inodes ? "revoke_state" : "revoke_rdev_state");
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, "pin_counter: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (inodes) {
		ret = bpf_map_lookup_elem(fd, &zero, &st);
		old = st.nr_revoked;
		st.nr_revoked = strtoull(argv[3], NULL, 0);
		if (!ret)
			ret = bpf_map_update_elem(fd, &zero, &st, BPF_ANY);
	} else {
		ret = bpf_map_lookup_elem(fd, &zero, &rs);
		old = rs.nr_rdev;
		rs.nr_rdev = strtoull(argv[3], NULL, 0);
		if (!ret)
			ret = bpf_map_update_elem(fd, &zero, &rs, BPF_ANY);
	}
	if (ret) {
		fprintf(stderr, "pin_counter: %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("%llu\n", (unsigned long long)old);
	return 0;
}
