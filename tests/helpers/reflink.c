// SPDX-License-Identifier: GPL-2.0
/*
 * reflink - open two files, optionally run a command (such as the
 * revocation of one of them), then share or compare their blocks through
 * the descriptors opened before it, and print one line per operation:
 * "OP: ok" or "OP: ERRNAME".
 *
 *	reflink [--before 'SHELL COMMAND'] SRC DST OP...
 *
 * SRC is opened read-only, DST read-write.  OPs:
 *	clone		ioctl(DST, FICLONE, SRC)
 *	clone_range	ioctl(DST, FICLONERANGE, SRC's first 4096 bytes)
 *	dedupe		ioctl(SRC, FIDEDUPERANGE, DST's first 4096 bytes);
 *			a range's own status counts as the call's
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "helper.h"

static int src, dst;

static int op_clone(void)
{
	return ioctl(dst, FICLONE, src);
}

static int op_clone_range(void)
{
	struct file_clone_range r = {
		.src_fd = src, .src_offset = 0, .src_length = 4096,
		.dest_offset = 0,
	};

	return ioctl(dst, FICLONERANGE, &r);
}

static int op_dedupe(void)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info info;
	} d = {
		.r = { .src_offset = 0, .src_length = 4096, .dest_count = 1 },
		.info = { .dest_fd = dst, .dest_offset = 0 },
	};

	if (ioctl(src, FIDEDUPERANGE, &d))
		return -1;
	if (d.info.status < 0) {
		errno = -d.info.status;
		return -1;
	}
	if (d.info.status == FILE_DEDUPE_RANGE_DIFFERS) {
		errno = EBADE;	/* shown as EBADE: contents differ */
		return -1;
	}
	return 0;
}

static const struct helper_op ops[] = {
	{ "clone", op_clone },
	{ "clone_range", op_clone_range },
	{ "dedupe", op_dedupe },
};

static int run_op(const char *name)
{
	return HELPER_RUN_OP("reflink", ops, name, NULL);
}

int main(int argc, char **argv)
{
	const char *before = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--before")) {
		before = argv[2];
		i = 3;
	}
	if (argc - i < 3) {
		fprintf(stderr, "usage: reflink [--before CMD] SRC DST OP...\n");
		return 2;
	}
	src = open(argv[i], O_RDONLY);
	dst = open(argv[i + 1], O_RDWR);
	if (src < 0 || dst < 0) {
		printf("first open: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (before) {
		fflush(stdout);
		if (system(before) != 0) {
			fprintf(stderr, "reflink: '%s' failed\n", before);
			return 1;
		}
	}
	for (i += 2; i < argc; i++)
		if (run_op(argv[i]))
			return 2;
	return 0;
}
