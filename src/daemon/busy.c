// SPDX-License-Identifier: GPL-2.0
/*
 * busy.c - revoke-bpfd while a long request (add, umount) runs: the
 * progress lines its client asked for (progress=yes), and turns of the
 * event loop (ctl_loop_yield()) in which others are answered.
 *
 * The long request calls busy_step() as each step begins and, through
 * the pipeline's yield hook, between holders, passes and drain polls:
 * points where the store and the maps are consistent and every holder
 * is either handled or stopped.  A turn hands the daemon only requests
 * that change nothing (busy_may_nest()); the others wait, parked by the
 * loop, until the long one ends.  What a nested request could disturb is
 * put back after the turn: the holder iterators' settings (whom they
 * skip, which buffers they walk) and the last attach's report.
 *
 * A progress line is sent without blocking, whole or not at all: one
 * the client has no room for is dropped (a later one says more).  The
 * client's going away ends the lines, never the request.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/common.h"
#include "daemon.h"

/* a holders counter is sent at most this often */
#define BUSY_COUNTER_MS 100

/*
 * The rest of a line the kernel took in part (it does not, for a line
 * this short on a Unix stream socket: one buffer, all or nothing): sent
 * within 100 ms, or the connection is shut down rather than left with
 * half a line before the answer.
 */
static void busy_send_rest(struct daemon_busy *b, const char *p, size_t len)
{
	struct pollfd pfd = { .fd = b->fd, .events = POLLOUT };
	ssize_t n;

	while (len && poll(&pfd, 1, 100) == 1) {
		n = send(b->fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	if (len) {
		shutdown(b->fd, SHUT_RDWR);
		b->fd = -1;
	}
}

/* Send one progress line, if there is a client for it and room. */
static void busy_send(struct daemon_busy *b, const char *step, bool counted)
{
	char line[96];
	ssize_t n;
	int len;

	if (counted)
		len = snprintf(line, sizeof(line), REVOKE_LINE_PROGRESS " step=%s "
			       "done=%zu total=%zu\n", step, b->done, b->total);
	else
		len = snprintf(line, sizeof(line), REVOKE_LINE_PROGRESS
			       " step=%s\n", step);
	n = send(b->fd, line, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		b->fd = -1;		/* gone: the request goes on */
	else if (n >= 0 && n < len)
		busy_send_rest(b, line + n, (size_t)(len - n));
	if (n > 0)
		b->sent_ms = ctl_now_ms();
}

/*
 * Record @step (with @done of @total holders if @counted) and tell the
 * client: a new step at once, a counter every BUSY_COUNTER_MS or when it
 * is complete.
 */
static void busy_progress(struct daemon_busy *b, const char *step,
			  bool counted, size_t done, size_t total)
{
	bool fresh = !b->step || strcmp(b->step, step) ||
		     counted != b->counted;

	if (!fresh && (!counted || (done == b->done && total == b->total)))
		return;
	b->step = step;
	b->counted = counted;
	b->done = done;
	b->total = total;
	if (b->fd < 0)
		return;
	if (fresh || done == total ||
	    ctl_now_ms() - b->sent_ms >= BUSY_COUNTER_MS)
		busy_send(b, step, counted);
}

/**
 * busy_yield() - one turn of the loop for other clients, if it is time
 * @d: the daemon, in a long request, at a consistent point
 */
void busy_yield(struct daemon *d)
{
	void *saved = NULL;

	if (!d->serving || d->loop.nested ||
	    ctl_now_ms() < d->loop.yield_after_ms)
		return;
	/* a nested holders request sets the iterators as it needs them */
	if (d->pipeline.ready) {
		saved = holders_state_save(&d->pipeline.holders);
		if (!saved)
			return;
	}
	ctl_loop_yield(&d->loop);
	if (saved)
		holders_state_restore(&d->pipeline.holders, saved);
}

/**
 * busy_step() - a long request begins a step: tell its client, and let
 *	others in
 * @d: the daemon
 * @step: one word (sync, revoke, holders, swap, loops, unmount,
 *	wait-gone, attach), a string that outlives the request
 */
void busy_step(struct daemon *d, const char *step)
{
	busy_progress(&d->busy, step, false, 0, 0);
	busy_yield(d);
}

/* The pipeline's yield hook: holders handled so far, then a turn. */
static void busy_pipeline_yield(void *arg, const char *step, size_t done,
				size_t total)
{
	struct daemon *d = arg;

	busy_progress(&d->busy, step, true, done, total);
	busy_yield(d);
}

/**
 * busy_init() - give the pipeline its yield hook
 * @d: the daemon, its pipeline initialised
 */
void busy_init(struct daemon *d)
{
	d->pipeline.yield = busy_pipeline_yield;
	d->pipeline.yield_arg = d;
	d->busy.fd = -1;
}

/**
 * busy_may_nest() - may a request be served within a long one's turn?
 * @peer: who sent it
 * @priv: @peer may act
 * @buf: the request
 * @len: its length
 * @ctx: the daemon
 *
 * A request that changes nothing may: list, status, holders, events,
 * one that does not parse, and any from a peer that may not act (it is
 * refused what would).  Others wait until the long one ends.
 *
 * Return: true if it may.
 */
bool busy_may_nest(const struct ctl_peer *peer, bool priv, const char *buf,
		   size_t len, void *ctx)
{
	struct revoke_req req;
	const char *why;

	(void)peer;
	(void)ctx;
	if (!priv || revoke_req_parse(buf, len, &req, &why))
		return true;
	switch (req.verb) {
	case REVOKE_VERB_LIST:
	case REVOKE_VERB_STATUS:
	case REVOKE_VERB_HOLDERS:
	case REVOKE_VERB_EVENTS:
		return true;
	default:
		return false;
	}
}

/* Does the request ask for progress lines, and may its peer have them? */
static bool busy_wants_progress(struct daemon *d, const struct ctl_peer *peer,
				const char *buf, size_t len)
{
	struct revoke_req req;
	const char *why;

	return !revoke_req_parse(buf, len, &req, &why) && req.progress &&
	       (req.verb == REVOKE_VERB_ADD || req.verb == REVOKE_VERB_UMOUNT) &&
	       verbs_may_send_fd(peer, d);
}

/* A request within a turn: what it could disturb of the long one's, kept. */
static bool busy_handle_nested(struct daemon *d, const struct ctl_peer *peer,
			       const char *buf, size_t len, struct rbuf *resp)
{
	uint64_t taken = d->rb.attach_taken_us;
	char err[sizeof(d->rb.attach_err)];
	bool keep;

	memcpy(err, d->rb.attach_err, sizeof(err));
	keep = verbs_handle(peer, buf, len, resp, d);
	d->rb.attach_taken_us = taken;
	memcpy(d->rb.attach_err, err, sizeof(err));
	return keep;
}

/**
 * busy_handle() - the loop's handler: verbs_handle(), with progress
 *	lines for a request that asks for them
 * @peer: who sent it
 * @buf: the request
 * @len: its length
 * @resp: the answer
 * @ctx: the daemon
 *
 * Return: as verbs_handle().
 */
bool busy_handle(const struct ctl_peer *peer, const char *buf, size_t len,
		 struct rbuf *resp, void *ctx)
{
	struct daemon *d = ctx;
	bool keep;

	if (d->loop.nested)
		return busy_handle_nested(d, peer, buf, len, resp);
	d->busy = (struct daemon_busy){ .fd = -1 };
	d->pipeline.held_done = d->pipeline.held_total = 0;
	if (busy_wants_progress(d, peer, buf, len))
		d->busy.fd = peer->fd;
	keep = verbs_handle(peer, buf, len, resp, d);
	d->busy.fd = -1;
	return keep;
}
