// SPDX-License-Identifier: GPL-2.0
/* ctl_client.c - send one request to revoke-bpfd and read its answer. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
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

/* Send @len bytes of @p, with descriptor @send_fd if it is not -1. */
static int send_request(int fd, const char *p, size_t len, int send_fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	if (send_fd < 0)
		return ctl_send_all(fd, p, len);
	memset(&control, 0, sizeof(control));
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &send_fd, sizeof(int));
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return ctl_send_all(fd, p + n, len - (size_t)n);
}

/* ctl_open() but for @send_fd, which the caller closes. */
static int connect_send(const char *path, const struct revoke_req *req,
			int send_fd, char *err, size_t errlen)
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
	ret = send_request(fd, line, (size_t)n, send_fd);
	if (ret) {
		snprintf(err, errlen, "revoke-bpfd at %s did not take the request: %s",
			 path, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * ctl_open() - connect to the daemon and send one request
 * @path: the daemon's socket
 * @req: the request
 * @send_fd: a descriptor to send with it (a path= request's file), or -1;
 *	closed here in any case
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * Return: the connected socket, to read the answer from, or a negative
 * errno if the daemon could not be reached.
 */
int ctl_open(const char *path, const struct revoke_req *req, int send_fd,
	     char *err, size_t errlen)
{
	int fd = connect_send(path, req, send_fd, err, errlen);

	/* the daemon has its own reference now: ours would make us a holder */
	if (send_fd >= 0)
		close(send_fd);
	return fd;
}

/**
 * ctl_call() - one request, one response
 * @path: the daemon's socket
 * @req: the request
 * @send_fd: a descriptor to send with it, or -1; closed, as by ctl_open()
 * @resp: the raw response text, NUL-terminated
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * Return: 0 if a response arrived (it may still be an "err" line), or a
 * negative errno if the daemon could not be reached.
 */
int ctl_call(const char *path, const struct revoke_req *req, int send_fd,
	     struct rbuf *resp, char *err, size_t errlen)
{
	int fd, ret;

	fd = ctl_open(path, req, send_fd, err, errlen);
	if (fd < 0)
		return fd;
	ret = recv_all(fd, resp);
	if (ret)
		snprintf(err, errlen, "revoke-bpfd at %s did not answer: %s",
			 path, strerror(-ret));
	close(fd);
	return ret;
}
