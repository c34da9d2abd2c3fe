// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_loop.c - revoke-bpfd's event loop: every control connection at
 * once, in one thread, none of them able to hold up another.
 *
 * Connections are non-blocking and read as bytes arrive, each into a
 * buffer of its own.  A request must be whole (its newline, or the end
 * of file) within CTL_REQUEST_MS of the accept, else it is answered
 * "err ETIMEDOUT" and closed.  A complete request is handled at once;
 * handlers are synchronous, so requests are handled one at a time, but
 * only whole ones.  The response is written as the client reads it, for
 * CTL_REPLY_MS at most: a client that stops reading is dropped.
 *
 * A long request (add, umount) calls ctl_loop_yield() where what it
 * works on is consistent: one turn of the loop, without waiting, within
 * CTL_YIELD_BUDGET_MS, that accepts, reads, expires and answers, but
 * hands the daemon only the requests ctl_loop_ops.may_nest allows (those
 * that change nothing); any other is parked, out of epoll, and served
 * once the long one has ended, in the order the connections came.  Only
 * watches marked nested are read meanwhile.  A turn takes its share:
 * the next comes CTL_YIELD_SHARE times its length later, so that a
 * flood of requests takes a fifth of the long one's time at most.
 *
 * Room: a peer that may not act (see ctl_loop_ops.may_act) has at most
 * CTL_MAX_PER_UID connections, and all such peers CTL_MAX_UNPRIV; the
 * CTL_RESERVED slots beyond are root's and --group's, who are never
 * refused while a slot is free and, when none is, take the oldest
 * unprivileged connection's.  A connection is counted until its close
 * is done (ctl_closer.c), so a client that makes its close slow slows
 * only its own uid's next connections.
 *
 * Descriptors: only a peer that may act sends one, an O_PATH descriptor
 * with add and del.  Any other is refused with the request: on Linux
 * 6.16 and later the kernel refuses it in the sender (SO_PASSRIGHTS),
 * before that it is left in the connection (ctl_recv_plain()) or taken
 * and then closed, like every connection, by the closer thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ctl_loop.h"

static int ep_listen_kind = CTL_EP_LISTEN;
static int ep_closer_kind = CTL_EP_CLOSER;

/* Does this kernel have SO_PASSRIGHTS?  Asked once, of a socketpair. */
static bool ctl_loop_has_passrights(void)
{
	int sv[2];
	bool ok;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	ok = ctl_refuse_fds(sv[0]) == 0;
	close(sv[0]);
	close(sv[1]);
	return ok;
}

/* Connections of peers that may not act: of @uid, and of all. */
static void count_unpriv(const struct ctl_loop *l, uid_t uid, int *of_uid,
			 int *all)
{
	int i;

	*of_uid = *all = 0;
	for (i = 0; i < CTL_MAX_CONNS; i++) {
		const struct ctl_conn *c = &l->conns[i];

		if (c->state == CTL_FREE || c->state == CTL_STREAMING || c->priv)
			continue;
		(*all)++;
		if (c->peer.uid == uid)
			(*of_uid)++;
	}
}

/* The oldest unprivileged connection still being served, closed. */
static struct ctl_conn *evict_oldest(struct ctl_loop *l)
{
	struct ctl_conn *old = NULL;
	int fds[CTL_MAX_RECV_FDS + 2], n = 0, i;

	for (i = 0; i < CTL_MAX_CONNS; i++) {
		struct ctl_conn *c = &l->conns[i];

		if (c->priv || (c->state != CTL_READING && c->state != CTL_WRITING))
			continue;
		if (!old || c->seq < old->seq)
			old = c;
	}
	if (!old)
		return NULL;
	l->stats.evicted++;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, old->peer.fd, NULL);
	send(old->peer.fd, "err EBUSY closed to make room for root\n", 39,
	     MSG_DONTWAIT | MSG_NOSIGNAL);
	for (i = 0; i < old->njunk; i++)
		fds[n++] = old->junk[i];
	fds[n++] = old->peer.fd;
	/* its slot is root's now; its close is not counted any more */
	ctl_closer_put(&l->closer, fds, n, -1);
	rbuf_free(&old->resp);
	old->state = CTL_FREE;
	return old;
}

static struct ctl_conn *free_slot(struct ctl_loop *l, bool priv)
{
	int i;

	for (i = 0; i < CTL_MAX_CONNS; i++)
		if (l->conns[i].state == CTL_FREE)
			return &l->conns[i];
	return priv ? evict_oldest(l) : NULL;
}

/* Refuse a connection with one line, without a slot. */
static void refuse(struct ctl_loop *l, int fd, const char *line)
{
	l->stats.refused++;
	send(fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL);
	ctl_closer_put(&l->closer, &fd, 1, -1);
}

/* Who is it, is there room for it: then read what it sent so far. */
static void admit(struct ctl_loop *l, int fd)
{
	struct ctl_peer peer;
	struct ctl_conn *c;
	char line[160];
	int of_uid, all;
	bool priv;

	if (ctl_peer_identify(fd, &peer)) {
		refuse(l, fd, "err EPERM cannot identify the client\n");
		return;
	}
	priv = l->ops->may_act(&peer, l->ctx);
	if (!priv && l->passrights)
		ctl_refuse_fds(fd);
	count_unpriv(l, peer.uid, &of_uid, &all);
	if (!priv && of_uid >= CTL_MAX_PER_UID) {
		snprintf(line, sizeof(line), "err EBUSY uid %u already has %d "
			 "connections to revoke-bpfd; close one first\n",
			 (unsigned int)peer.uid, CTL_MAX_PER_UID);
		refuse(l, fd, line);
		return;
	}
	c = !priv && all >= CTL_MAX_UNPRIV ? NULL : free_slot(l, priv);
	if (!c) {
		snprintf(line, sizeof(line), "err EBUSY revoke-bpfd serves %d "
			 "connections already; try again later\n",
			 priv ? CTL_MAX_CONNS : CTL_MAX_UNPRIV);
		refuse(l, fd, line);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->kind = CTL_EP_CONN;
	c->peer = peer;
	c->priv = priv;
	c->seq = ++l->seq;
	c->state = CTL_READING;
	c->deadline_ms = ctl_now_ms() + CTL_REQUEST_MS;
	if (ctl_conn_ep(l, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLRDHUP, c)) {
		ctl_conn_close(l, c);
		return;
	}
	ctl_conn_read(l, c);
}

static void accept_all(struct ctl_loop *l)
{
	int fd, i;

	for (i = 0; i < 64; i++) {
		/* a turn within a long request: its budget is spent */
		if (l->nested && ctl_now_ms() >= l->turn_end_ms)
			return;
		fd = accept4(l->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0) {
			admit(l, fd);
			continue;
		}
		if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
		    errno == ENOBUFS) {
			/* out of descriptors: look again in a while */
			log_warn("accept: %s; pausing 100 ms\n",
				strerror(errno));
			l->listen_paused_until = ctl_now_ms() + 100;
			ctl_conn_ep(l, EPOLL_CTL_MOD, l->lfd, 0, &ep_listen_kind);
		}
		return;
	}
}

/* Deadlines passed: answered and closed.  Return ms to the next one. */
static int expire(struct ctl_loop *l, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	int i;

	for (i = 0; i < CTL_MAX_CONNS; i++) {
		struct ctl_conn *c = &l->conns[i];

		if (c->state != CTL_READING && c->state != CTL_WRITING)
			continue;
		if (c->deadline_ms > now) {
			next = c->deadline_ms < next ? c->deadline_ms : next;
			continue;
		}
		if (c->state == CTL_WRITING) {
			l->stats.stalled++;
			ctl_conn_close(l, c);
			continue;
		}
		l->stats.late++;
		ctl_conn_error(l, c, "err ETIMEDOUT no complete request within %d ms",
			   CTL_REQUEST_MS);
		/* a client that does not read the error is not waited for */
		if (c->state == CTL_WRITING)
			ctl_conn_close(l, c);
	}
	if (l->listen_paused_until && l->listen_paused_until <= now) {
		l->listen_paused_until = 0;
		ctl_conn_ep(l, EPOLL_CTL_MOD, l->lfd, EPOLLIN, &ep_listen_kind);
	}
	if (l->listen_paused_until && l->listen_paused_until < next)
		next = l->listen_paused_until;
	return next == UINT64_MAX ? -1 : (int)(next - now);
}

static void closes_done(struct ctl_loop *l)
{
	int tag;

	while (ctl_closer_take_done(&l->closer, &tag) == 1)
		if (tag >= 0 && tag < CTL_MAX_CONNS &&
		    l->conns[tag].state == CTL_CLOSING)
			l->conns[tag].state = CTL_FREE;
}

static void conn_event(struct ctl_loop *l, struct ctl_conn *c, uint32_t events)
{
	switch (c->state) {
	case CTL_READING:
		ctl_conn_read(l, c);
		break;
	case CTL_WRITING:
		ctl_conn_write(l, c, false);
		break;
	case CTL_STREAMING:
		/*
		 * A subscriber sends nothing: anything is its going away.  An
		 * event for the slot's previous connection is told apart by
		 * there being nothing to read.
		 */
		if (!(events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)) &&
		    recv(c->peer.fd, &(char){ 0 }, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
		    errno == EAGAIN)
			break;
		l->ops->unstream(c->peer.fd, l->ctx);
		ctl_conn_close(l, c);
		break;
	default:
		break;
	}
}

static void dispatch(struct ctl_loop *l, const struct epoll_event *ev)
{
	int kind = *(int *)ev->data.ptr;
	struct ctl_watch *w;

	switch (kind) {
	case CTL_EP_LISTEN:
		accept_all(l);
		break;
	case CTL_EP_CLOSER:
		closes_done(l);
		break;
	case CTL_EP_WATCH:
		w = ev->data.ptr;
		if (w->fd >= 0 && (!l->nested || w->nested))
			w->fn(w->arg);
		break;
	case CTL_EP_CONN:
		conn_event(l, ev->data.ptr, ev->events);
		break;
	}
}

static int min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/*
 * Dispatch @n events of one epoll_wait(), root's and --group's
 * connections first, until @budget_end (ms, 0: none), the daemon is
 * done, or (outside a turn) a handler's ctl_loop_yield() made the rest
 * stale.
 */
static void dispatch_all(struct ctl_loop *l, const struct epoll_event *evs,
			 int n, uint64_t budget_end)
{
	int i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			struct ctl_conn *c = evs[i].data.ptr;
			bool first = c->kind == CTL_EP_CONN && c->priv;

			if (l->ops->done(l->ctx) ||
			    (l->yielded && !l->nested) ||
			    (budget_end && ctl_now_ms() >= budget_end))
				return;
			if (first == (pass == 0))
				dispatch(l, &evs[i]);
		}
}

/* The oldest parked request, or NULL. */
static struct ctl_conn *oldest_parked(struct ctl_loop *l)
{
	struct ctl_conn *old = NULL;
	int i;

	for (i = 0; i < CTL_MAX_CONNS; i++) {
		struct ctl_conn *c = &l->conns[i];

		if (c->state == CTL_PARKED && (!old || c->seq < old->seq))
			old = c;
	}
	return old;
}

/* The requests parked by a long one, served in the order they came. */
static void serve_parked(struct ctl_loop *l)
{
	struct ctl_conn *c;

	while (!l->ops->done(l->ctx) && (c = oldest_parked(l)))
		ctl_conn_handle(l, c);
}

/**
 * ctl_loop_run() - serve until ctl_loop_ops.done says so
 * @l: the loop
 *
 * Root's and --group's connections that have something to read are
 * served first in every turn.
 *
 * Return: 0, or a negative errno if epoll failed.
 */
int ctl_loop_run(struct ctl_loop *l)
{
	struct epoll_event evs[64];
	int n, timeout;
	uint64_t now;

	while (!l->ops->done(l->ctx)) {
		now = ctl_now_ms();
		timeout = l->ops->tick(l->ctx);
		timeout = min_timeout(timeout, expire(l, now));
		timeout = min_timeout(timeout, ctl_closer_kick(&l->closer, now));
		n = epoll_wait(l->epfd, evs, 64, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		l->yielded = false;
		dispatch_all(l, evs, n, 0);
		serve_parked(l);
	}
	return 0;
}

/**
 * ctl_loop_yield() - one turn of the loop within a long request
 * @l: the loop
 *
 * For a handler, at a point where what it works on is consistent and a
 * request that only reads may see it: accept, read, answer what may
 * nest (ctl_loop_ops.may_nest), park the rest, expire the late, take
 * the closer's reports, read the nested watches; CTL_YIELD_BUDGET_MS at
 * most, and nothing if the last turn was too recent.  A handler called
 * within the turn never turns the loop itself.
 *
 * Return: true if a turn ran.
 */
bool ctl_loop_yield(struct ctl_loop *l)
{
	struct epoll_event evs[16];
	uint64_t start = ctl_now_ms(), t0, took, gap;
	int n;

	if (l->nested || !l->conns || start < l->yield_after_ms)
		return false;
	t0 = revoke_now_us();
	l->nested = true;
	l->turn_end_ms = start + CTL_YIELD_BUDGET_MS;
	n = epoll_wait(l->epfd, evs, 16, 0);
	if (n > 0)
		dispatch_all(l, evs, n, l->turn_end_ms);
	/* after the reads: a request that came in the gap is not late */
	expire(l, ctl_now_ms());
	ctl_closer_kick(&l->closer, ctl_now_ms());
	l->nested = false;
	/* the events of the turn that called the handler are stale now */
	l->yielded = true;
	took = revoke_now_us() - t0;
	gap = took * CTL_YIELD_SHARE;
	if (gap < CTL_YIELD_GAP_MS * 1000)
		gap = CTL_YIELD_GAP_MS * 1000;
	l->yield_after_ms = (revoke_now_us() + gap + 999) / 1000;
	return true;
}

/*
 * As many descriptors as the hard limit allows: one the kernel cannot
 * install in recvmsg(2) is released in the calling thread.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/**
 * ctl_loop_init() - set up the loop around a listening socket
 * @l: the loop
 * @lfd: from ctl_listen()
 * @ops: the daemon's callbacks
 * @ctx: passed to them
 *
 * Return: 0 or a negative errno.
 */
int ctl_loop_init(struct ctl_loop *l, int lfd, const struct ctl_loop_ops *ops,
		  void *ctx)
{
	int i, err;

	memset(l, 0, sizeof(*l));
	l->lfd = lfd;
	l->ops = ops;
	l->ctx = ctx;
	for (i = 0; i < CTL_MAX_WATCHES; i++)
		l->watches[i].fd = -1;
	l->passrights = ctl_loop_has_passrights();
	raise_nofile();
	l->conns = calloc(CTL_MAX_CONNS, sizeof(*l->conns));
	if (!l->conns)
		return -ENOMEM;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		err = -errno;
		goto fail;
	}
	err = ctl_closer_start(&l->closer);
	if (err)
		goto fail_ep;
	err = ctl_conn_ep(l, EPOLL_CTL_ADD, lfd, EPOLLIN, &ep_listen_kind);
	if (!err)
		err = ctl_conn_ep(l, EPOLL_CTL_ADD, ctl_closer_done_fd(&l->closer),
				  EPOLLIN, &ep_closer_kind);
	if (err)
		goto fail_closer;
	return 0;
fail_closer:
	ctl_closer_stop(&l->closer);
fail_ep:
	close(l->epfd);
fail:
	free(l->conns);
	l->conns = NULL;
	return err;
}

/**
 * ctl_loop_fini() - close every connection and stop the closer
 * @l: the loop
 */
void ctl_loop_fini(struct ctl_loop *l)
{
	int i;

	if (!l->conns)
		return;
	for (i = 0; i < CTL_MAX_CONNS; i++) {
		struct ctl_conn *c = &l->conns[i];

		if (c->state == CTL_READING || c->state == CTL_WRITING ||
		    c->state == CTL_PARKED)
			ctl_conn_close(l, c);
	}
	ctl_closer_stop(&l->closer);
	close(l->epfd);
	free(l->conns);
	l->conns = NULL;
}
