// SPDX-License-Identifier: GPL-2.0
/*
 * ctlsend - send stdin, byte for byte, to a unix stream socket, then
 * print what comes back.  For feeding the control socket raw requests.
 *
 *	ctlsend SOCKET < request
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char buf[65536];
	ssize_t n;
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: ctlsend SOCKET < request\n");
		return 2;
	}
	strcpy(addr.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, "ctlsend: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
			break;
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return 0;
}
