// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_server.c - accept one connection, authenticate the peer, read one
 * request, hand it to the daemon, write the answer, close.
 *
 * The daemon is single-threaded; a client cannot wedge it: each
 * connection has a receive and a send time limit, a request larger than
 * REVOKE_REQ_MAX is answered with an error and never buffered whole.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_server.h"

#define CTL_IO_TIMEOUT_MS 2000

static int make_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Is someone already answering on @addr?  Then we must not steal it. */
static bool socket_alive(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return false;
	alive = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(fd);
	return alive;
}

/**
 * ctl_listen() - create the listening control socket
 * @path: socket path; its directory is created if missing
 * @err: on failure, a one-line reason
 * @errlen: size of @err
 *
 * Anyone may connect (the socket is 0666); what a peer may do is decided
 * per request from SO_PEERCRED.
 *
 * Return: the listening fd, or a negative errno.
 */
int ctl_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	ret = make_parent(path);
	if (ret) {
		snprintf(err, errlen, "cannot create the directory of %s: %s",
			 path, strerror(-ret));
		return ret;
	}
	if (socket_alive(&addr)) {
		snprintf(err, errlen,
			 "another revoke-bpfd is already serving %s; stop it first",
			 path);
		return -EADDRINUSE;
	}
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
		goto fail;
	if (chmod(path, 0666))
		goto fail;
	if (listen(fd, 64))
		goto fail;
	return fd;
fail:
	ret = -errno;
	snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

static void set_timeouts(int fd)
{
	struct timeval tv = {
		.tv_sec = CTL_IO_TIMEOUT_MS / 1000,
		.tv_usec = (CTL_IO_TIMEOUT_MS % 1000) * 1000,
	};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * Take the descriptors that came with a message: keep the first one in
 * @peer->sent_fd, close any other.  More than one, or one cut off, is an
 * error (-EMSGSIZE).
 */
static int take_fds(struct msghdr *msg, struct ctl_peer *peer)
{
	struct cmsghdr *c;
	int ret = msg->msg_flags & MSG_CTRUNC ? -EMSGSIZE : 0;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t i, n;
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (peer->sent_fd < 0) {
				peer->sent_fd = fd;
				continue;
			}
			close(fd);
			ret = -EMSGSIZE;
		}
	}
	return ret;
}

/*
 * Read up to and including the first newline, and the descriptor that
 * may come with it.  Return the length, 0 if the peer sent nothing,
 * -E2BIG past REVOKE_REQ_MAX, -EMSGSIZE for more than one descriptor, or
 * a negative errno.
 */
static ssize_t read_request(int fd, char *buf, size_t cap,
			    struct ctl_peer *peer, bool take)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	size_t len = 0;
	ssize_t n;
	int ret;

	while (len < cap) {
		struct iovec iov = { .iov_base = buf + len, .iov_len = cap - len };
		/* without room for them, the kernel drops the descriptors */
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = take ? control.buf : NULL,
			.msg_controllen = take ? sizeof(control.buf) : 0,
		};

		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		ret = take ? take_fds(&msg, peer) : 0;
		if (ret)
			return ret;
		if (n == 0)
			return (ssize_t)len;
		if (memchr(buf + len, '\n', (size_t)n))
			return (ssize_t)(len + (size_t)n);
		len += (size_t)n;
	}
	return -E2BIG;
}

static void read_groups(int fd, struct ctl_peer *peer)
{
	socklen_t len = sizeof(peer->groups);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, peer->groups, &len) == 0)
		peer->ngroups = (int)(len / sizeof(gid_t));
	else
		peer->ngroups = 0;
}

/**
 * ctl_peer_in_group() - is the peer a member of group @gid?
 * @peer: from the connection
 * @gid: the group
 *
 * Return: true if @gid is the peer's primary or a supplementary group.
 */
bool ctl_peer_in_group(const struct ctl_peer *peer, gid_t gid)
{
	int i;

	if (peer->gid == gid)
		return true;
	for (i = 0; i < peer->ngroups; i++)
		if (peer->groups[i] == gid)
			return true;
	return false;
}

/**
 * ctl_serve_one() - serve one pending connection, if there is one
 * @lfd: the listening socket from ctl_listen()
 * @handler: turns a request into a response
 * @may_send_fd: whether a peer's request may carry a descriptor; the
 *	kernel drops any other peer's unseen (no flush runs, but the file's
 *	last release runs in this thread: issue 21)
 * @ctx: passed to @handler and @may_send_fd
 */
void ctl_serve_one(int lfd, ctl_handler_fn handler,
		   bool (*may_send_fd)(const struct ctl_peer *peer, void *ctx),
		   void *ctx)
{
	char buf[REVOKE_REQ_MAX + 1];
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct ctl_peer peer = { .sent_fd = -1 };
	struct rbuf resp = {};
	bool keep = false;
	ssize_t len;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	set_timeouts(fd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen)) {
		rbuf_printf(&resp, "err EPERM cannot identify the client\n");
		goto reply;
	}
	peer.fd = fd;
	peer.pid = cred.pid;
	peer.uid = cred.uid;
	peer.gid = cred.gid;
	read_groups(fd, &peer);

	len = read_request(fd, buf, REVOKE_REQ_MAX, &peer,
			   may_send_fd(&peer, ctx));
	if (len == -EMSGSIZE)
		rbuf_printf(&resp, "err EINVAL a request carries one descriptor "
			    "at most\n");
	else if (len == -E2BIG)
		rbuf_printf(&resp, "err EINVAL request too long (limit %d bytes)\n",
			    REVOKE_REQ_MAX);
	else if (len == -EAGAIN)
		rbuf_printf(&resp, "err ETIMEDOUT no request within %d ms\n",
			    CTL_IO_TIMEOUT_MS);
	else if (len < 0)
		goto out;
	else
		keep = handler(&peer, buf, (size_t)len, &resp, ctx);
reply:
	if (resp.failed) {
		rbuf_free(&resp);
		rbuf_printf(&resp, "err ENOMEM response too large\n");
	}
	if (resp.len)
		ctl_send_all(fd, resp.data, resp.len);
out:
	rbuf_free(&resp);
	if (peer.sent_fd >= 0)
		close(peer.sent_fd);
	if (!keep)
		close(fd);
}
