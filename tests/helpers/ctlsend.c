// SPDX-License-Identifier: GPL-2.0
/*
 * ctlsend - send stdin, byte for byte, to a unix stream socket, then
 * print what comes back.  For feeding the control socket raw requests.
 *
 *	ctlsend SOCKET < request
 *	ctlsend --lines SOCKET < requests
 *	ctlsend --fd PATH SOCKET < request
 *
 * With --lines, each line of stdin (its newline included) is sent on a
 * connection of its own, one after the other, each reply printed: many
 * requests without a process for each.  With --fd, the request (read
 * whole first, 64 KiB at most) carries an O_PATH descriptor of PATH, as
 * revoke-bpf sends with add, del and umount.
 */
#include <errno.h>
#include <fcntl.h>
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

/* Send stdin with an O_PATH descriptor of @file; print the reply. */
static int exchange_fd(const struct sockaddr_un *addr, const char *file)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control = {};
	static char buf[65536];
	struct iovec iov = { .iov_base = buf };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int fd, pfd = open(file, O_PATH | O_CLOEXEC);
	ssize_t n;

	while (pfd >= 0 && iov.iov_len < sizeof(buf) &&
	       (n = read(0, buf + iov.iov_len, sizeof(buf) - iov.iov_len)) > 0)
		iov.iov_len += (size_t)n;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (pfd < 0 || fd < 0 ||
	    connect(fd, (const struct sockaddr *)addr, sizeof(*addr))) {
		fprintf(stderr, "ctlsend: %s: %s\n", file, strerror(errno));
		return 1;
	}
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &pfd, sizeof(int));
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		fprintf(stderr, "ctlsend: sendmsg: %s\n", strerror(errno));
	close(pfd);
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
	int with_fd = argc == 4 && !strcmp(argv[1], "--fd");
	char line[4096];

	if (with_fd && strlen(path) < sizeof(addr.sun_path)) {
		strcpy(addr.sun_path, path);
		return exchange_fd(&addr, argv[2]);
	}
	if ((argc != 2 && !lines) || strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: ctlsend [--lines | --fd PATH] SOCKET < "
			"request\n");
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
