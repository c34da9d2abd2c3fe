// SPDX-License-Identifier: GPL-2.0
/* ctl_client.c - send one request to revoke-bpfd and read its answer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_client.h"

static int recv_all(int fd, struct rbuf *resp)
{
	char chunk[8192];
	ssize_t n;

	for (;;) {
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		rbuf_printf(resp, "%.*s", (int)n, chunk);
	}
	if (resp->failed)
		return -ENOMEM;
	if (resp->len == 0)
		return -ECONNRESET;
	rbuf_printf(resp, "%s", "");	/* NUL-terminate */
	return 0;
}

/**
 * ctl_open() - connect to the daemon and send one request
 * @path: the daemon's socket
 * @req: the request
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * Return: the connected socket, to read the answer from, or a negative
 * errno if the daemon could not be reached.
 */
int ctl_open(const char *path, const struct revoke_req *req, char *err,
	     size_t errlen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char line[REVOKE_REQ_MAX];
	int fd, n, ret;

	n = revoke_req_format(req, line, sizeof(line));
	if (n < 0) {
		snprintf(err, errlen, "request too long");
		return n;
	}
	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return ret;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		snprintf(err, errlen,
			 "cannot reach revoke-bpfd at %s (%s); is it running? "
			 "start it with 'revoke-bpfd' as root",
			 path, strerror(errno));
		close(fd);
		return ret;
	}
	ret = ctl_send_all(fd, line, (size_t)n);
	if (ret) {
		snprintf(err, errlen, "revoke-bpfd at %s did not take the request: %s",
			 path, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * ctl_call() - one request, one response
 * @path: the daemon's socket
 * @req: the request
 * @resp: the raw response text, NUL-terminated
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * Return: 0 if a response arrived (it may still be an "err" line), or a
 * negative errno if the daemon could not be reached.
 */
int ctl_call(const char *path, const struct revoke_req *req, struct rbuf *resp,
	     char *err, size_t errlen)
{
	int fd, ret;

	fd = ctl_open(path, req, err, errlen);
	if (fd < 0)
		return fd;
	ret = recv_all(fd, resp);
	if (ret)
		snprintf(err, errlen, "revoke-bpfd at %s did not answer: %s",
			 path, strerror(-ret));
	close(fd);
	return ret;
}
