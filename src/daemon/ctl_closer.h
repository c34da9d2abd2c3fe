/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_closer.h - a thread of its own that closes the control socket's
 * connections, so that the last release of whatever a client left in
 * them runs there, never in the thread that serves requests.
 */
#ifndef REVOKE_CTL_CLOSER_H
#define REVOKE_CTL_CLOSER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* how long one close may take before the closer is interrupted */
#define CTL_CLOSER_KICK_MS 100

/**
 * struct ctl_closer - the closing thread and its two queues
 * @thread: the thread
 * @todo: pipe, main loop to closer: struct ctl_close_item
 * @done: pipe, closer to main loop: the tag of each item closed
 * @busy_since_ms: CLOCK_MONOTONIC ms when the close under way began, 0
 *	when idle
 * @kicks: closes interrupted because they took longer than
 *	CTL_CLOSER_KICK_MS
 * @queued: descriptors given to the closer (written by the main loop)
 * @closed: descriptors it closed (written by the closer)
 * @running: the thread was started
 */
struct ctl_closer {
	pthread_t thread;
	int todo[2];
	int done[2];
	_Atomic uint64_t busy_since_ms;
	_Atomic uint64_t kicks;
	_Atomic uint64_t queued;
	_Atomic uint64_t closed;
	bool running;
};

int ctl_closer_start(struct ctl_closer *c);
bool ctl_closer_put(struct ctl_closer *c, const int *fds, int nfds, int tag);
int ctl_closer_done_fd(const struct ctl_closer *c);
int ctl_closer_take_done(struct ctl_closer *c, int *tag);
int ctl_closer_kick(struct ctl_closer *c, uint64_t now_ms);
void ctl_closer_stop(struct ctl_closer *c);

uint64_t ctl_now_ms(void);

#endif /* REVOKE_CTL_CLOSER_H */
