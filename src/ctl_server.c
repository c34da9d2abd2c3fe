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
 * Read up to and including the first newline.  Return the length, 0 if
 * the peer sent nothing, -E2BIG past REVOKE_REQ_MAX, or a negative errno.
 */
static ssize_t read_request(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	while (len < cap) {
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
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
 * @ctx: passed to @handler
 */
void ctl_serve_one(int lfd, ctl_handler_fn handler, void *ctx)
{
	char buf[REVOKE_REQ_MAX + 1];
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct ctl_peer peer = {};
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

	len = read_request(fd, buf, REVOKE_REQ_MAX);
	if (len == -E2BIG)
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
	if (!keep)
		close(fd);
}
