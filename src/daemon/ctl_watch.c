// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_watch.c - the loop's other descriptors (ctl_loop.c): watches,
 * those also read within a long request's turns, the events stream's
 * connections, and the loop's counts for status.
 */
#include <errno.h>
#include <sys/epoll.h>

#include "ctl_loop.h"

/**
 * ctl_loop_watch() - call @fn whenever @fd is readable
 * @l: the loop
 * @fd: the descriptor
 * @fn: what to call
 * @arg: passed to @fn
 *
 * Return: 0 or a negative errno (-ENOSPC: CTL_MAX_WATCHES already).
 */
int ctl_loop_watch(struct ctl_loop *l, int fd, void (*fn)(void *arg), void *arg)
{
	struct ctl_watch *w = NULL;
	int i, err;

	for (i = 0; i < CTL_MAX_WATCHES && !w; i++)
		if (l->watches[i].fd < 0)
			w = &l->watches[i];
	if (!w)
		return -ENOSPC;
	*w = (struct ctl_watch){ .kind = CTL_EP_WATCH, .fd = fd, .fn = fn,
				 .arg = arg };
	err = ctl_conn_ep(l, EPOLL_CTL_ADD, fd, EPOLLIN, w);
	if (err)
		w->fd = -1;
	return err;
}

/**
 * ctl_loop_watch_nested() - read @fd within ctl_loop_yield() turns too
 * @l: the loop
 * @fd: as given to ctl_loop_watch(); what its function does must change
 *	nothing a long request relies on
 *
 * Return: 0, or -ENOENT if @fd is not watched.
 */
int ctl_loop_watch_nested(struct ctl_loop *l, int fd)
{
	int i;

	for (i = 0; i < CTL_MAX_WATCHES; i++)
		if (l->watches[i].fd == fd) {
			l->watches[i].nested = true;
			return 0;
		}
	return -ENOENT;
}

/**
 * ctl_loop_unwatch() - stop watching @fd; call before closing it
 * @l: the loop
 * @fd: as given to ctl_loop_watch()
 */
void ctl_loop_unwatch(struct ctl_loop *l, int fd)
{
	int i;

	for (i = 0; i < CTL_MAX_WATCHES; i++) {
		if (l->watches[i].fd != fd)
			continue;
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
		l->watches[i].fd = -1;
	}
}

/**
 * ctl_loop_drop_stream() - a streaming connection is to go
 * @l: the loop
 * @fd: its descriptor, no longer in the stream's list
 *
 * For the stream (events.c) when a subscriber cannot keep up: the loop
 * closes it, through the closer.
 */
void ctl_loop_drop_stream(struct ctl_loop *l, int fd)
{
	int i;

	for (i = 0; i < CTL_MAX_CONNS; i++) {
		struct ctl_conn *c = &l->conns[i];

		if (c->state == CTL_STREAMING && c->peer.fd == fd) {
			ctl_conn_close(l, c);
			return;
		}
	}
	ctl_closer_put(&l->closer, &fd, 1, -1);
}

/**
 * ctl_loop_status() - the loop's counts, as status lines
 * @l: the loop
 * @resp: where to print them
 */
void ctl_loop_status(const struct ctl_loop *l, struct rbuf *resp)
{
	int i, open = 0, closing = 0;

	for (i = 0; l->conns && i < CTL_MAX_CONNS; i++) {
		open += l->conns[i].state == CTL_READING ||
			l->conns[i].state == CTL_WRITING;
		closing += l->conns[i].state == CTL_CLOSING;
	}
	rbuf_printf(resp, REVOKE_FIELD_CONNECTIONS "=%d\n", open);
	rbuf_printf(resp, REVOKE_FIELD_CONNECTIONS_CLOSING "=%d\n", closing);
	rbuf_printf(resp, REVOKE_FIELD_CONNECTIONS_REFUSED "=%llu\n",
		    (unsigned long long)l->stats.refused);
	rbuf_printf(resp, REVOKE_FIELD_CONNECTIONS_EVICTED "=%llu\n",
		    (unsigned long long)l->stats.evicted);
	rbuf_printf(resp, REVOKE_FIELD_REQUESTS_LATE "=%llu\n", (unsigned long long)l->stats.late);
	rbuf_printf(resp, REVOKE_FIELD_CLIENTS_NOT_READING "=%llu\n",
		    (unsigned long long)l->stats.stalled);
	rbuf_printf(resp, REVOKE_FIELD_DESCRIPTORS_REFUSED "=%llu\n",
		    (unsigned long long)l->stats.fds_refused);
	rbuf_printf(resp, REVOKE_FIELD_DESCRIPTOR_REFUSAL "=%s\n",
		    l->passrights ? "kernel" : "closer");
	rbuf_printf(resp, REVOKE_FIELD_CLOSER_KICKS "=%llu\n",
		    (unsigned long long)atomic_load(&l->closer.kicks));
}
