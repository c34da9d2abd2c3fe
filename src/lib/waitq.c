// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * waitq.c - blocking inside an operation, the way a driver's read waits
 * for data: until a condition holds, or until the file is revoked.  An
 * operations table whose calls block names revoke_waitq_wake_all() in
 * its awaken_all_waiters, so that fops_substitute() can end the wait.
 *
 * fops_substitute() sets REVOKED before it calls awaken_all_waiters, and
 * a waiter checks REVOKED under the queue's lock before each sleep, so no
 * wake-up is lost.
 */
#include <errno.h>

#include "internal.h"

int revoke_waitq_init(struct revoke_waitq *wq)
{
	int err;

	wq->generation = 0;
	err = pthread_mutex_init(&wq->lock, NULL);
	if (err)
		return -err;
	err = pthread_cond_init(&wq->cond, NULL);
	if (err) {
		pthread_mutex_destroy(&wq->lock);
		return -err;
	}
	return 0;
}

void revoke_waitq_destroy(struct revoke_waitq *wq)
{
	pthread_cond_destroy(&wq->cond);
	pthread_mutex_destroy(&wq->lock);
}

/**
 * revoke_waitq_wait() - sleep until @cond(@arg) holds or @file is revoked
 * @wq: the queue
 * @file: the file whose operation is waiting
 * @cond: checked under @wq's lock before each sleep
 * @arg: its argument
 *
 * Return: 0 when @cond holds, -EIO if @file was revoked first.
 */
int revoke_waitq_wait(struct revoke_waitq *wq, struct revoke_file *file,
		      bool (*cond)(void *arg), void *arg)
{
	int ret;

	pthread_mutex_lock(&wq->lock);
	for (;;) {
		if (revoke_file_revoked(file)) {
			ret = -EIO;
			break;
		}
		if (cond(arg)) {
			ret = 0;
			break;
		}
		pthread_cond_wait(&wq->cond, &wq->lock);
	}
	pthread_mutex_unlock(&wq->lock);
	return ret;
}

/**
 * revoke_waitq_wake_all() - wake every waiter, to check again
 * @wq: the queue
 *
 * Call it when the condition may have become true, and from the table's
 * awaken_all_waiters.
 */
void revoke_waitq_wake_all(struct revoke_waitq *wq)
{
	pthread_mutex_lock(&wq->lock);
	wq->generation++;
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}
