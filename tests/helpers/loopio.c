// SPDX-License-Identifier: GPL-2.0
/*
 * loopio - bind a loop device to a file, or open a loop device and its
 * backing file, optionally run a command (such as a revocation), then try
 * operations on the descriptors opened before it and print, one line
 * each, "OP: ok" or "OP: ERRNAME", like probe.
 *
 *	loopio bind N FILE			LOOP_SET_FD /dev/loopN FILE
 *	loopio unbind N				LOOP_CLR_FD /dev/loopN
 *	loopio N FILE [--before 'CMD'] OP...
 *
 * OPs: read (buffered pread of /dev/loopN), dread and dwrite (O_DIRECT),
 * discard (BLKDISCARD of the first 4 KiB), setfd:M and configure:M
 * (LOOP_SET_FD or LOOP_CONFIGURE of /dev/loopM with FILE's descriptor).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int lfd, dfd, ffd;
static char buf[4096] __attribute__((aligned(4096)));

static int open_loop(const char *n, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/loop%s", n);
	return open(path, flags | O_CLOEXEC);
}

static int op(const char *name)
{
	uint64_t range[2] = { 0, 4096 };
	struct loop_config cfg;
	int m, ret;

	if (!strcmp(name, "read"))
		return pread(lfd, buf, 512, 0) < 0 ? -1 : 0;
	if (!strcmp(name, "dread"))
		return pread(dfd, buf, 4096, 0) < 0 ? -1 : 0;
	if (!strcmp(name, "dwrite"))
		return pwrite(dfd, buf, 4096, 0) < 0 ? -1 : 0;
	if (!strcmp(name, "discard"))
		return ioctl(lfd, BLKDISCARD, range);
	if (!strncmp(name, "setfd:", 6) || !strncmp(name, "configure:", 10)) {
		m = open_loop(strchr(name, ':') + 1, O_RDWR);
		if (m < 0)
			return -1;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (__u32)ffd;
		ret = name[0] == 's' ? ioctl(m, LOOP_SET_FD, ffd) :
				       ioctl(m, LOOP_CONFIGURE, &cfg);
		if (!ret)
			ioctl(m, LOOP_CLR_FD);
		close(m);
		return ret;
	}
	fprintf(stderr, "loopio: unknown op '%s'\n", name);
	exit(2);
}

static void say(const char *what, int ret)
{
	printf("%s: %s\n", what, ret ? strerrorname_np(errno) : "ok");
}

int main(int argc, char **argv)
{
	const char *before = NULL;
	int i = 3, fd, f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "bind")) {
		fd = open_loop(argv[2], O_RDWR);
		f = open(argv[3], O_RDWR | O_CLOEXEC);
		say("bind", fd < 0 || f < 0 ? -1 : ioctl(fd, LOOP_SET_FD, f));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "unbind")) {
		fd = open_loop(argv[2], O_RDONLY);
		say("unbind", fd < 0 ? -1 : ioctl(fd, LOOP_CLR_FD));
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: loopio N FILE [--before CMD] OP...\n");
		return 2;
	}
	lfd = open_loop(argv[1], O_RDWR);
	dfd = open_loop(argv[1], O_RDWR | O_DIRECT);
	ffd = open(argv[2], O_RDWR | O_CLOEXEC);
	if (lfd < 0 || dfd < 0 || ffd < 0) {
		perror("loopio: open");
		return 1;
	}
	if (!strcmp(argv[3], "--before") && argc > 4) {
		before = argv[4];
		i = 5;
	}
	if (before && system(before) != 0) {
		fprintf(stderr, "loopio: '%s' failed\n", before);
		return 1;
	}
	for (; i < argc; i++)
		say(argv[i], op(argv[i]));
	return 0;
}
