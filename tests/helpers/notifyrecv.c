// SPDX-License-Identifier: GPL-2.0
/*
 * notifyrecv - stand in for systemd's notification socket: bind a unix
 * datagram socket at PATH, print the first COUNT messages received (1 if
 * not given), each followed by a newline, and exit.
 *
 *	notifyrecv PATH [COUNT]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char buf[4096];
	long count = argc == 3 ? atol(argv[2]) : 1;
	ssize_t n;
	int fd;

	if (argc < 2 || argc > 3 || count < 1 ||
	    strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: notifyrecv PATH [COUNT]\n");
		return 2;
	}
	strcpy(addr.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "notifyrecv: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (count--) {
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			return 1;
		buf[n] = '\0';
		printf("%s\n", buf);
		fflush(stdout);
	}
	return 0;
}
