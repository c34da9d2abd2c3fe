// SPDX-License-Identifier: GPL-2.0
/*
 * mapbytes PIN fill|words - what a daemon killed in the middle of a
 * search could leave in a pinned map, and what is in it.
 *
 *	fill	an array: element 0 set to bytes 0x5a; a hash map: an entry
 *		whose key and value are bytes 0x5a
 *	words	an array: element 0 as 32-bit words, in decimal, one space
 *		between; a hash map: its number of entries
 *
 * For the test of the holder iterators taken from their pins
 * (tests/vm/attach.bats): the start that takes them leaves their maps as
 * a load does, whatever was in them.
 *
 * Exit status: 0, 1 with the reason on stderr, 2 on bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#define MAX_BYTES 4096

static int fail(const char *what)
{
	fprintf(stderr, "mapbytes: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	static unsigned char key[MAX_BYTES], val[MAX_BYTES], next[MAX_BYTES];
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, i;
	unsigned long n = 0;
	int fd;

	if (argc != 3 || (strcmp(argv[2], "fill") && strcmp(argv[2], "words"))) {
		fprintf(stderr, "usage: mapbytes PIN fill|words\n");
		return 2;
	}
	fd = bpf_obj_get(argv[1]);
	if (fd < 0)
		return fail(argv[1]);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return fail("map info");
	if (info.key_size > MAX_BYTES || info.value_size > MAX_BYTES) {
		errno = E2BIG;
		return fail(argv[1]);
	}
	if (info.type == BPF_MAP_TYPE_ARRAY) {
		if (!strcmp(argv[2], "fill")) {
			memset(val, 0x5a, info.value_size);
			return bpf_map_update_elem(fd, &zero, val, BPF_ANY) ?
			       fail("update") : 0;
		}
		if (bpf_map_lookup_elem(fd, &zero, val))
			return fail("lookup");
		for (i = 0; i + 4 <= info.value_size; i += 4) {
			uint32_t w;

			memcpy(&w, val + i, 4);
			printf("%s%u", i ? " " : "", w);
		}
		printf("\n");
		return 0;
	}
	if (!strcmp(argv[2], "fill")) {
		memset(key, 0x5a, info.key_size);
		memset(val, 0x5a, info.value_size);
		return bpf_map_update_elem(fd, key, val, BPF_ANY) ? fail("update") : 0;
	}
	while (!bpf_map_get_next_key(fd, n ? key : NULL, next)) {
		memcpy(key, next, info.key_size);
		n++;
	}
	printf("%lu\n", n);
	return 0;
}
