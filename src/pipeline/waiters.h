/* SPDX-License-Identifier: GPL-2.0 */
/*
 * waiters.h - threads blocked in a system call on a revoked file: finding
 * them, and making each one return.
 */
#ifndef REVOKE_WAITERS_H
#define REVOKE_WAITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "revoke_bpf.h"
#include "inject/inject.h"

/* What the system call a thread is in says of it. */
enum waiter_state {
	WAITER_NO,		/* not in a system call on one of the fds */
	WAITER_YES,		/* blocked in one on one of the fds */
	WAITER_MAYBE,		/* running, or poll-like: stop it to know */
};

enum waiter_state waiter_peek(const struct revoke_thread *th, const int *fds,
			      size_t nfds, bool precise);

/* What happened to a stopped thread. */
enum waiter_wake {
	WAKE_NONE,		/* it was not waiting on the file */
	WAKE_RESTART,		/* its call restarts and meets the LSM: EIO */
	WAKE_COMPLETED,		/* its poll/select/epoll now returns the fd */
	WAKE_FAILED,		/* it waits on the file, and we could not help */
};

enum waiter_wake waiter_wake(struct tracee *t, struct tracee_thread *th,
			     const int *fds, size_t nfds);

#endif /* REVOKE_WAITERS_H */
