// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_server.c - the daemon's end of the control socket: the listening
 * socket, who the peer is, and reading from a connection without ever
 * blocking and without ever dropping a descriptor the peer sent
 * (ctl_loop.c serves the connections, ctl_closer.c closes them).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_server.h"

#define CTL_IO_TIMEOUT_MS 2000

/*
 * Make the socket's directory, 0755 whatever the umask (the unit's is
 * 0077): every user connects, for list and status.
 */
static int make_parent(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755))
		return errno == EEXIST ? 0 : -errno;
	if (chmod(dir, 0755))
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
	if (listen(fd, 512))
		goto fail;
	return fd;
fail:
	ret = -errno;
	snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
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


static void read_groups(int fd, struct ctl_peer *peer)
{
	socklen_t len = sizeof(peer->groups);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, peer->groups, &len) == 0)
		peer->ngroups = (int)(len / sizeof(gid_t));
	else
		peer->ngroups = 0;
}

/**
 * ctl_peer_identify() - who is at the other end of a connection
 * @fd: the accepted connection
 * @peer: filled: @fd, SO_PEERCRED's pid, uid and gid, SO_PEERGROUPS;
 *	no descriptor yet
 *
 * Return: 0 or a negative errno.
 */
int ctl_peer_identify(int fd, struct ctl_peer *peer)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	memset(peer, 0, sizeof(*peer));
	peer->fd = fd;
	peer->sent_fd = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		return -errno;
	peer->pid = cred.pid;
	peer->uid = cred.uid;
	peer->gid = cred.gid;
	read_groups(fd, peer);
	return 0;
}

/**
 * ctl_refuse_fds() - have the kernel refuse descriptors sent to @fd
 * @fd: an accepted connection
 *
 * SO_PASSRIGHTS (Linux 6.16): from now on a sendmsg(2) with SCM_RIGHTS
 * to this connection fails with EPERM in the sender, so that no file
 * reaches revoke-bpfd unasked.  Older kernels do not know the option.
 *
 * Return: 0, or -ENOPROTOOPT where the kernel lacks it.
 */
int ctl_refuse_fds(int fd)
{
	int off = 0;

	if (setsockopt(fd, SOL_SOCKET, CTL_SO_PASSRIGHTS, &off, sizeof(off)))
		return -errno;
	return 0;
}

/**
 * ctl_recv_plain() - read what a peer that may not send descriptors sent
 * @fd: the connection, non-blocking
 * @buf: where to put it
 * @cap: room in @buf
 * @fds: set if descriptors came with the bytes
 *
 * The bytes are peeked first, without room for descriptors: the kernel
 * then says (MSG_CTRUNC) whether any came with them, while they stay
 * queued with the bytes, so that no last reference to one is dropped
 * here.  Only bytes that came alone are taken; those that came with
 * descriptors are copied to @buf and left in the connection.
 *
 * Return: bytes read (or, with @fds set, copied), 0 at end of file,
 * -EAGAIN if nothing is there, or a negative errno.
 */
ssize_t ctl_recv_plain(int fd, char *buf, size_t cap, bool *fds)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	*fds = false;
	n = recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	*fds = msg.msg_flags & MSG_CTRUNC;
	if (n == 0 || *fds)
		return n;
	/* the same bytes again, now taken: they came without descriptors */
	n = recv(fd, buf, (size_t)n, MSG_DONTWAIT);
	return n < 0 ? -errno : n;
}

/* Every descriptor in the control messages of @msg, into @fds. */
static int take_fds(struct msghdr *msg, int *fds, int max)
{
	struct cmsghdr *c;
	int n = 0;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t i, k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k && n < max; i++)
			memcpy(&fds[n++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	return n;
}

/**
 * ctl_recv_fds() - read what a peer that may send a descriptor sent
 * @fd: the connection, non-blocking
 * @buf: where to put the bytes
 * @cap: room in @buf
 * @fds: every descriptor that came with them (room for CTL_MAX_RECV_FDS,
 *	what the kernel sends with one message at most, so that none is
 *	dropped here)
 * @nfds: their number
 *
 * Return: bytes read, 0 at end of file, -EAGAIN if nothing is there, or
 * a negative errno; -EMSGSIZE if the kernel still cut descriptors off
 * (those it could not install are released in this thread).
 */
ssize_t ctl_recv_fds(int fd, char *buf, size_t cap, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(CTL_MAX_RECV_FDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	ssize_t n;

	*nfds = 0;
	n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	*nfds = take_fds(&msg, fds, CTL_MAX_RECV_FDS);
	if (msg.msg_flags & MSG_CTRUNC)
		return -EMSGSIZE;
	return n;
}

/**
 * ctl_fd_is_opath() - was @fd opened with O_PATH?
 * @fd: a descriptor a client sent
 *
 * Such a descriptor reads, maps and opens nothing by itself, and its
 * last release runs no file's release method.
 *
 * Return: true if it was.
 */
bool ctl_fd_is_opath(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_PATH);
}
