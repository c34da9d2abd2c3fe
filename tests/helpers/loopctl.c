// SPDX-License-Identifier: GPL-2.0
/*
 * loopctl - add or remove a loop device through /dev/loop-control, the
 * way a real device comes and goes (the kernel sends add and remove
 * uevents, devtmpfs makes and drops /dev/loopN).  Prints "add: ok",
 * "remove: EBUSY" and so on, like probe, and exits 0 either way.
 *
 *	loopctl add|remove N
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long cmd;
	char *end;
	long n;
	int fd;

	if (argc != 3 || (strcmp(argv[1], "add") && strcmp(argv[1], "remove"))) {
		fprintf(stderr, "usage: loopctl add|remove N\n");
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*end || n < 0 || n > 1000000) {
		fprintf(stderr, "loopctl: '%s' is not a loop device number\n",
			argv[2]);
		return 2;
	}
	cmd = argv[1][0] == 'a' ? LOOP_CTL_ADD : LOOP_CTL_REMOVE;
	fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("loopctl: /dev/loop-control");
		return 1;
	}
	if (ioctl(fd, cmd, n) < 0)
		printf("%s: %s\n", argv[1], strerrorname_np(errno));
	else
		printf("%s: ok\n", argv[1]);
	close(fd);
	return 0;
}
