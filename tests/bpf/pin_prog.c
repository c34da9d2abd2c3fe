// SPDX-License-Identifier: GPL-2.0
/*
 * pin_prog - load the first program of a BPF object file, attach it and
 * pin its link at PATH, replacing whatever was pinned there.
 *
 *	pin_prog OBJECT PATH
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_link *link;

	if (argc != 3) {
		fprintf(stderr, "usage: pin_prog OBJECT PATH\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "pin_prog: cannot load %s\n", argv[1]);
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	link = prog ? bpf_program__attach(prog) : NULL;
	if (!link) {
		fprintf(stderr, "pin_prog: cannot attach: %s\n", strerror(errno));
		return 1;
	}
	unlink(argv[2]);
	if (bpf_link__pin(link, argv[2])) {
		fprintf(stderr, "pin_prog: cannot pin %s\n", argv[2]);
		return 1;
	}
	return 0;
}
