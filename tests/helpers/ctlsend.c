// SPDX-License-Identifier: GPL-2.0
/*
 * ctlsend - send stdin, byte for byte, to a unix stream socket, then
 * print what comes back.  For feeding the control socket raw requests.
 *
 *	ctlsend SOCKET < request
 *	ctlsend --lines SOCKET < requests
 *
 * With --lines, each line of stdin (its newline included) is sent on a
 * connection of its own, one after the other, each reply printed: many
 * requests without a process for each.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Send @len bytes of @req on a new connection to @addr; print the reply. */
static int exchange(const struct sockaddr_un *addr, const char *req, size_t len)
{
	char buf[65536];
	ssize_t n;
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof(*addr))) {
		fprintf(stderr, "ctlsend: %s: %s\n", addr->sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (req) {
		if (len && send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
			len = 0;
	} else {
		while ((n = read(0, buf, sizeof(buf))) > 0)
			if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
				break;
	}
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int lines = argc == 3 && !strcmp(argv[1], "--lines");
	const char *path = argc >= 2 ? argv[argc - 1] : "";
	char line[4096];

	if ((argc != 2 && !lines) || strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: ctlsend [--lines] SOCKET < request\n");
		return 2;
	}
	strcpy(addr.sun_path, path);
	if (!lines)
		return exchange(&addr, NULL, 0);
	while (fgets(line, sizeof(line), stdin))
		if (exchange(&addr, line, strlen(line)))
			return 1;
	return 0;
}
