/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.h - denial events: read from the BPF ring buffer, logged with a
 * rate limit, and streamed to "revoke-bpf events" subscribers.
 */
#ifndef REVOKE_EVENTS_H
#define REVOKE_EVENTS_H

#include <stddef.h>
#include <time.h>

#include "revoke_bpf.h"

#define REVOKE_MAX_SUBSCRIBERS 16
#define REVOKE_LOG_PER_SEC 10

struct ring_buffer;

/**
 * struct revoke_events - the daemon's event plumbing
 * @ring: libbpf's consumer of the revoke_events ring buffer
 * @subs: connections streaming events
 * @nsubs: their number
 * @window: the second the rate limit is counting
 * @logged: log lines written in @window
 * @suppressed: events not logged since the last summary
 * @on_drop: called with a subscriber's connection when it is dropped
 *	(it cannot keep up, or the events stop), to close it; close(2) if
 *	NULL
 * @drop_arg: passed to @on_drop
 */
struct revoke_events {
	struct ring_buffer *ring;
	int subs[REVOKE_MAX_SUBSCRIBERS];
	int nsubs;
	time_t window;
	unsigned int logged;
	unsigned long long suppressed;
	void (*on_drop)(int fd, void *arg);
	void *drop_arg;
};

int revoke_event_format(const struct revoke_event *e, char *buf, size_t len);

struct store;
int revoke_events_open(struct revoke_events *ev, const struct store *store);
void revoke_events_close(struct revoke_events *ev);
int revoke_events_fd(const struct revoke_events *ev);
int revoke_events_consume(struct revoke_events *ev);
int revoke_events_subscribe(struct revoke_events *ev, int fd);
void revoke_events_unsubscribe(struct revoke_events *ev, int fd);

#endif /* REVOKE_EVENTS_H */
