// SPDX-License-Identifier: GPL-2.0
/*
 * probe32 - probe's 32-bit sibling, built with gcc -m32 -static: its
 * ioctl(2) goes through the kernel's compat entry (compat_sys_ioctl),
 * which calls the file_ioctl_compat LSM hook instead of file_ioctl.
 *
 *	probe32 [--before 'SHELL COMMAND'] PATH OP...
 *
 * Opens PATH (read-write if it can), runs the command, then tries each OP
 * on the descriptor opened before it and prints "OP: ok" or "OP: ERRNAME".
 * OPs: fionread figetbsz read
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

static int fd;

static int op_fionread(void)
{
	int n;

	return ioctl(fd, FIONREAD, &n);
}

static int op_figetbsz(void)
{
	int n;

	return ioctl(fd, FIGETBSZ, &n);
}

static int op_read(void)
{
	char c;

	return read(fd, &c, 1) < 0 ? -1 : 0;
}

static const struct helper_op ops[] = {
	{ "fionread", op_fionread },
	{ "figetbsz", op_figetbsz },
	{ "read", op_read },
};

static int run_op(const char *name)
{
	return HELPER_RUN_OP("probe32", ops, name, NULL);
}

int main(int argc, char **argv)
{
	const char *before = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--before")) {
		before = argv[2];
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: probe32 [--before CMD] PATH OP...\n");
		return 2;
	}
	fd = open(argv[i], O_RDWR);
	if (fd < 0)
		fd = open(argv[i], O_RDONLY);
	if (fd < 0) {
		printf("first open: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (before) {
		fflush(stdout);
		if (system(before) != 0) {
			fprintf(stderr, "probe32: '%s' failed\n", before);
			return 1;
		}
	}
	for (i++; i < argc; i++)
		if (run_op(argv[i]))
			return 2;
	return 0;
}
