// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_conn.c - one control connection's input and output, for the loop
 * (ctl_loop.c): read without blocking and without taking a descriptor
 * the peer may not send, hand a whole request to the daemon, write the
 * answer as the client reads it, and close through the closer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl_loop.h"

/* epoll_ctl(2) of @fd in the loop's epoll, with @ptr as its data. */
int ctl_conn_ep(struct ctl_loop *l, int op, int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(l->epfd, op, fd, &ev) ? -errno : 0;
}

/* Close a connection: through the closer, whose report frees the slot. */
void ctl_conn_close(struct ctl_loop *l, struct ctl_conn *c)
{
	int fds[CTL_MAX_RECV_FDS + 2], n = 0, i;

	epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->peer.fd, NULL);
	for (i = 0; i < c->njunk; i++)
		fds[n++] = c->junk[i];
	if (c->peer.sent_fd >= 0)
		fds[n++] = c->peer.sent_fd;
	fds[n++] = c->peer.fd;
	rbuf_free(&c->resp);
	c->njunk = 0;
	c->peer.sent_fd = -1;
	/* root's slot is free at once; another's once the close is done */
	if (ctl_closer_put(&l->closer, fds, n, c->priv ? -1 : (int)(c - l->conns)))
		c->state = CTL_CLOSING;
	else
		c->state = CTL_FREE;
}

/* Send what is left of the response; close, or stream, once it is out. */
void ctl_conn_write(struct ctl_loop *l, struct ctl_conn *c, bool keep)
{
	ssize_t n;

	while (c->sent < c->resp.len) {
		n = send(c->peer.fd, c->resp.data + c->sent, c->resp.len - c->sent,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && !keep) {
			if (c->state != CTL_WRITING)
				ctl_conn_ep(l, EPOLL_CTL_MOD, c->peer.fd, EPOLLOUT, c);
			c->state = CTL_WRITING;
			return;
		}
		if (n < 0)
			break;
		c->sent += (size_t)n;
	}
	if (keep && c->sent == c->resp.len) {
		/* the stream writes to it from now on (events.c) */
		rbuf_free(&c->resp);
		c->state = CTL_STREAMING;
		ctl_conn_ep(l, EPOLL_CTL_MOD, c->peer.fd, EPOLLIN | EPOLLRDHUP, c);
		return;
	}
	if (keep)
		l->ops->unstream(c->peer.fd, l->ctx);
	ctl_conn_close(l, c);
}

/* Answer with @resp (or one error line) and write it. */
static void conn_answer(struct ctl_loop *l, struct ctl_conn *c, bool keep)
{
	if (c->resp.failed) {
		rbuf_free(&c->resp);
		rbuf_printf(&c->resp, "err ENOMEM response too large\n");
	}
	c->sent = 0;
	c->deadline_ms = ctl_now_ms() + CTL_REPLY_MS;
	ctl_conn_write(l, c, keep);
}

/* Answer one error line (printf @fmt, without its newline) and close. */
void ctl_conn_error(struct ctl_loop *l, struct ctl_conn *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rbuf_free(&c->resp);
	rbuf_printf(&c->resp, "%s\n", line);
	conn_answer(l, c, false);
}

/**
 * ctl_conn_handle() - hand a whole request to the daemon and answer it
 * @l: the loop
 * @c: the connection, its request in @c->buf
 *
 * The connection is out of epoll while its request is handled: turns of
 * ctl_loop_yield() within the handler neither read it, nor time it out,
 * nor close it, whatever its client does meanwhile.
 */
void ctl_conn_handle(struct ctl_loop *l, struct ctl_conn *c)
{
	bool keep;

	/* no descriptor is expected after the request, from anyone */
	if (l->passrights && c->priv)
		ctl_refuse_fds(c->peer.fd);
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->peer.fd, NULL);
	c->state = CTL_HANDLING;
	keep = l->ops->handle(&c->peer, c->buf, c->len, &c->resp, l->ctx);
	/*
	 * The O_PATH descriptor has served: closed before the answer, so
	 * that the file's filesystem is not kept busy once add returns.  It
	 * was checked to be O_PATH: its last release calls no release method.
	 */
	if (c->peer.sent_fd >= 0) {
		close(c->peer.sent_fd);
		c->peer.sent_fd = -1;
	}
	c->state = CTL_READING;
	if (ctl_conn_ep(l, EPOLL_CTL_ADD, c->peer.fd, EPOLLIN | EPOLLRDHUP, c)) {
		if (keep)
			l->ops->unstream(c->peer.fd, l->ctx);
		ctl_conn_close(l, c);
		return;
	}
	conn_answer(l, c, keep);
}

/*
 * A whole request: within a long request's ctl_loop_yield(), one that
 * may not nest is parked, out of epoll, until the long one ends
 * (ctl_loop_run() serves the parked in the order they came).
 */
static void conn_handle(struct ctl_loop *l, struct ctl_conn *c)
{
	if (l->nested && (!l->ops->may_nest ||
			  !l->ops->may_nest(&c->peer, c->priv, c->buf, c->len,
					    l->ctx))) {
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->peer.fd, NULL);
		c->state = CTL_PARKED;
		l->parked++;
		return;
	}
	if (l->nested)
		l->nested_served++;
	ctl_conn_handle(l, c);
}

/*
 * The descriptors that came with a root or --group request: the first,
 * if O_PATH, is the request's; any other is refused with the request.
 * Return 0, or -1 if the request was refused.
 */
static int conn_take_fds(struct ctl_loop *l, struct ctl_conn *c, const int *fds,
			 int nfds, bool cut)
{
	bool extra = cut, not_path = false;
	int i;

	for (i = 0; i < nfds; i++) {
		if (c->peer.sent_fd < 0 && !extra && ctl_fd_is_opath(fds[i])) {
			c->peer.sent_fd = fds[i];
			continue;
		}
		if (c->peer.sent_fd < 0 && !extra)
			not_path = true;
		else
			extra = true;
		c->junk[c->njunk++] = fds[i];
	}
	if (!extra && !not_path)
		return 0;
	l->stats.fds_refused++;
	if (not_path)
		ctl_conn_error(l, c, "err EINVAL the descriptor sent with a request "
			   "must be an O_PATH one");
	else
		ctl_conn_error(l, c, "err EINVAL a request carries one descriptor "
			   "at most");
	return -1;
}

/* Read what is there; handle the request once it is whole. */
void ctl_conn_read(struct ctl_loop *l, struct ctl_conn *c)
{
	int fds[CTL_MAX_RECV_FDS], nfds = 0;
	size_t room = REVOKE_REQ_MAX - c->len;
	bool unasked = false;
	ssize_t n;

	if (c->priv)
		n = ctl_recv_fds(c->peer.fd, c->buf + c->len, room, fds, &nfds);
	else
		n = ctl_recv_plain(c->peer.fd, c->buf + c->len, room, &unasked);
	if (n == -EAGAIN || n == -EINTR)
		return;
	if (c->priv && (nfds || n == -EMSGSIZE) &&
	    conn_take_fds(l, c, fds, nfds, n == -EMSGSIZE))
		return;
	if (unasked) {
		/*
		 * Left in the connection, for the closer: the request is
		 * what came so far, answered as one that carried them.
		 */
		l->stats.fds_refused++;
		c->peer.fds_refused = true;
		if (!memchr(c->buf + c->len, '\n', (size_t)n)) {
			ctl_conn_error(l, c, "err EPERM uid %u may not send "
				   "revoke-bpfd descriptors",
				   (unsigned int)c->peer.uid);
			return;
		}
	}
	if (n < 0) {
		ctl_conn_close(l, c);
		return;
	}
	if (n > 0 && !memchr(c->buf + c->len, '\n', (size_t)n)) {
		c->len += (size_t)n;
		if (c->len == REVOKE_REQ_MAX)
			ctl_conn_error(l, c, "err EINVAL request too long (limit %d "
				   "bytes)", REVOKE_REQ_MAX);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	conn_handle(l, c);
}

