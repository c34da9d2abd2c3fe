/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_loop.h - revoke-bpfd's one event loop: the control socket's
 * connections, served concurrently, and whatever else the daemon watches
 * (signals, the event ring buffer, kernel uevents).
 */
#ifndef REVOKE_CTL_LOOP_H
#define REVOKE_CTL_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl_closer.h"
#include "ctl_server.h"

/* a whole request, from accept to its newline, within this */
#define CTL_REQUEST_MS 2000
/* a whole response written within this, or the client is dropped */
#define CTL_REPLY_MS 2000
/* connections of peers that may not act (not root, not --group) */
#define CTL_MAX_PER_UID 8
#define CTL_MAX_UNPRIV 128
/* slots only root and the --group ever take */
#define CTL_RESERVED 16
#define CTL_MAX_CONNS (CTL_MAX_UNPRIV + CTL_RESERVED)
#define CTL_MAX_WATCHES 8
/* ctl_loop_yield(): a turn's work at most, then the long operation's
 * share: CTL_YIELD_SHARE times what the turn took, CTL_YIELD_GAP_MS at
 * least, before the next turn */
#define CTL_YIELD_BUDGET_MS 20
#define CTL_YIELD_GAP_MS 10
#define CTL_YIELD_SHARE 4

/**
 * struct ctl_loop_ops - what the daemon does with what the loop reads
 * @handle: turn a complete request into a response (ctl_handler_fn)
 * @may_act: whether a peer may change the set (root, --group): it
 *	alone may send a descriptor, is never refused for want of room,
 *	and may take the room of another's connection
 * @unstream: a connection that @handle kept (returned true for) is
 *	going: forget it; the loop closes it
 * @tick: called once per turn of the loop; returns in how many ms it
 *	wants to be called again, or -1
 * @done: whether to stop
 * @may_nest: whether a whole request of a peer (@priv: may act) may be
 *	handled within a long one's ctl_loop_yield(): it changes nothing
 *	(or will be refused); NULL: none may
 */
struct ctl_loop_ops {
	ctl_handler_fn handle;
	bool (*may_act)(const struct ctl_peer *peer, void *ctx);
	bool (*may_nest)(const struct ctl_peer *peer, bool priv,
			 const char *req, size_t len, void *ctx);
	void (*unstream)(int fd, void *ctx);
	int (*tick)(void *ctx);
	bool (*done)(void *ctx);
};

enum ctl_conn_state {
	CTL_FREE,
	CTL_READING,	/* until a newline, end of file or the deadline */
	CTL_WRITING,	/* the response, until sent or the deadline */
	CTL_STREAMING,	/* handed to the events stream */
	CTL_CLOSING,	/* queued on the closer, slot still held */
	CTL_HANDLING,	/* its request is being handled, out of epoll */
	CTL_PARKED,	/* whole, waits for the long request to end */
};

/**
 * struct ctl_conn - one connection
 * @kind: CTL_EP_CONN, to tell it from a watch in epoll's data
 * @state: see enum ctl_conn_state
 * @peer: who, and the descriptor that came with the request
 * @priv: @peer may act (ctl_loop_ops.may_act)
 * @seq: accept order: the oldest is evicted first
 * @deadline_ms: when the request or the response is late
 * @len: bytes of the request in @buf
 * @buf: the request
 * @resp: the response
 * @sent: bytes of @resp sent
 * @junk: descriptors that came unasked, closed with the connection
 * @njunk: their number
 */
struct ctl_conn {
	int kind;
	enum ctl_conn_state state;
	struct ctl_peer peer;
	bool priv;
	uint64_t seq;
	uint64_t deadline_ms;
	size_t len;
	char buf[REVOKE_REQ_MAX + 1];
	struct rbuf resp;
	size_t sent;
	int junk[CTL_MAX_RECV_FDS];
	int njunk;
};

/**
 * struct ctl_watch - another descriptor the loop polls for input
 * @kind: CTL_EP_WATCH
 * @fd: the descriptor, -1 if the slot is free
 * @fn: called when it is readable
 * @arg: passed to @fn
 * @nested: @fn is also called within ctl_loop_yield() (it changes
 *	nothing a long request relies on)
 */
struct ctl_watch {
	int kind;
	int fd;
	void (*fn)(void *arg);
	void *arg;
	bool nested;
};

/**
 * struct ctl_stats - what the loop refused and dropped, for status
 * @refused: connections refused for want of room (per uid or in all)
 * @evicted: unprivileged connections closed to make room for root
 * @late: requests not complete within CTL_REQUEST_MS
 * @stalled: clients dropped for not reading their response
 * @fds_refused: connections that sent descriptors they may not send
 */
struct ctl_stats {
	uint64_t refused;
	uint64_t evicted;
	uint64_t late;
	uint64_t stalled;
	uint64_t fds_refused;
};

/**
 * struct ctl_loop - the loop's state
 * @epfd: epoll
 * @lfd: the listening socket
 * @listen_paused_until: accept(2) ran out of descriptors: not before
 * @ops: the daemon's callbacks
 * @ctx: passed to them
 * @conns: CTL_MAX_CONNS slots
 * @watches: the other descriptors
 * @closer: closes every connection, in a thread of its own
 * @seq: accepts so far
 * @stats: see struct ctl_stats
 * @passrights: the kernel knows SO_PASSRIGHTS
 * @nested: a ctl_loop_yield() turn is under way
 * @yielded: a handler ran ctl_loop_yield() turns: the events of the turn
 *	that called it are stale
 * @yield_after_ms: the next ctl_loop_yield() turn not before
 * @turn_end_ms: the turn under way takes nothing new after this
 * @parked: requests parked so far (for status)
 * @nested_served: requests served within ctl_loop_yield() (for status)
 */
struct ctl_loop {
	int epfd;
	int lfd;
	uint64_t listen_paused_until;
	const struct ctl_loop_ops *ops;
	void *ctx;
	struct ctl_conn *conns;
	struct ctl_watch watches[CTL_MAX_WATCHES];
	struct ctl_closer closer;
	uint64_t seq;
	struct ctl_stats stats;
	bool passrights;
	bool nested;
	bool yielded;
	uint64_t yield_after_ms;
	uint64_t turn_end_ms;
	uint64_t parked;
	uint64_t nested_served;
};

int ctl_loop_init(struct ctl_loop *l, int lfd, const struct ctl_loop_ops *ops,
		  void *ctx);
int ctl_loop_watch(struct ctl_loop *l, int fd, void (*fn)(void *arg), void *arg);
void ctl_loop_unwatch(struct ctl_loop *l, int fd);
int ctl_loop_run(struct ctl_loop *l);
bool ctl_loop_yield(struct ctl_loop *l);
int ctl_loop_watch_nested(struct ctl_loop *l, int fd);
void ctl_loop_drop_stream(struct ctl_loop *l, int fd);
void ctl_loop_status(const struct ctl_loop *l, struct rbuf *resp);

/* ctl_conn.c: one connection's input and output, for ctl_loop.c */
enum { CTL_EP_LISTEN = 1, CTL_EP_CONN, CTL_EP_WATCH, CTL_EP_CLOSER };

int ctl_conn_ep(struct ctl_loop *l, int op, int fd, uint32_t events, void *ptr);
void ctl_conn_read(struct ctl_loop *l, struct ctl_conn *c);
void ctl_conn_write(struct ctl_loop *l, struct ctl_conn *c, bool keep);
void ctl_conn_error(struct ctl_loop *l, struct ctl_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ctl_conn_close(struct ctl_loop *l, struct ctl_conn *c);
void ctl_conn_handle(struct ctl_loop *l, struct ctl_conn *c);
void ctl_loop_fini(struct ctl_loop *l);

#endif /* REVOKE_CTL_LOOP_H */
