// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_closer.c - close the control socket's connections in a thread of
 * their own.
 *
 * A client can leave descriptors in its connection (SCM_RIGHTS) that
 * revoke-bpfd never asked for: queued before the connection was
 * accepted, sent after its request, or sent by a peer that may not send
 * any.  Whoever drops the last reference to such a file runs its final
 * release, and some releases block: a TCP socket with SO_LINGER whose
 * peer does not read waits up to its linger time in close.  The
 * kernel runs that release in the thread whose close(2) (or recvmsg(2),
 * which drops the descriptors it cannot hand over) let go of the last
 * reference.  So the thread that serves requests closes no connection
 * and no descriptor it did not ask for: it queues them here.
 *
 * The closer takes one descriptor at a time.  One that takes longer
 * than CTL_CLOSER_KICK_MS is interrupted with SIGUSR1 (a handler that
 * does nothing, without SA_RESTART): an interruptible wait in a release,
 * such as SO_LINGER's, then ends.  A release that sleeps uninterruptibly
 * keeps the closer, and only the closer, waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "ctl_closer.h"

/* one descriptor to close; @tag, if not -1, is reported once it is */
struct ctl_close_item {
	int fd;
	int tag;
};

/**
 * ctl_now_ms() - milliseconds of CLOCK_MONOTONIC
 *
 * Return: the time, never 0.
 */
uint64_t ctl_now_ms(void)
{
	return revoke_now_us() / 1000 + 1;
}

static void ctl_closer_on_kick(int sig)
{
	(void)sig;
}

static void *ctl_closer_main(void *arg)
{
	struct ctl_closer *c = arg;
	struct ctl_close_item it;
	sigset_t kick;
	ssize_t n;

	sigemptyset(&kick);
	sigaddset(&kick, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &kick, NULL);
	for (;;) {
		n = read(c->todo[0], &it, sizeof(it));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(it))
			break;	/* the main loop closed its end */
		atomic_store(&c->busy_since_ms, ctl_now_ms());
		close(it.fd);
		atomic_store(&c->busy_since_ms, 0);
		atomic_fetch_add(&c->closed, 1);
		if (it.tag >= 0)
			while (write(c->done[1], &it.tag, sizeof(it.tag)) < 0 &&
			       errno == EINTR)
				;
	}
	return NULL;
}

static int ctl_closer_pipes(struct ctl_closer *c)
{
	if (pipe2(c->todo, O_CLOEXEC))
		return -errno;
	if (pipe2(c->done, O_CLOEXEC | O_NONBLOCK)) {
		close(c->todo[0]);
		close(c->todo[1]);
		return -errno;
	}
	/* the main loop never waits for the closer */
	fcntl(c->todo[1], F_SETFL, O_NONBLOCK);
	fcntl(c->todo[1], F_SETPIPE_SZ, 1 << 20);
	fcntl(c->done[1], F_SETPIPE_SZ, 1 << 20);
	return 0;
}

/**
 * ctl_closer_start() - start the closing thread
 * @c: the closer, zeroed
 *
 * The thread blocks every signal but SIGUSR1, so that SIGCHLD and the
 * daemon's signalfd signals stay with the main thread.
 *
 * Return: 0 or a negative errno.
 */
int ctl_closer_start(struct ctl_closer *c)
{
	struct sigaction sa = { .sa_handler = ctl_closer_on_kick };
	sigset_t all, old;
	int err;

	err = ctl_closer_pipes(c);
	if (err)
		return err;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: a kick ends a wait */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&c->thread, NULL, ctl_closer_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto fail;
	c->running = true;
	return 0;
fail:
	close(c->todo[0]);
	close(c->todo[1]);
	close(c->done[0]);
	close(c->done[1]);
	return err;
}

/**
 * ctl_closer_put() - have descriptors closed by the closer
 * @c: the closer
 * @fds: the descriptors, closed in this order
 * @nfds: their number
 * @tag: reported by ctl_closer_take_done() once the last is closed; -1
 *	for no report
 *
 * If the queue is full (the closer has been stuck for a long time), a
 * descriptor is closed here instead.
 *
 * Return: true if @tag will be reported, false if it will not (-1, or
 * the last descriptor was closed here).
 */
bool ctl_closer_put(struct ctl_closer *c, const int *fds, int nfds, int tag)
{
	struct ctl_close_item it;
	bool queued = false;
	int i;

	for (i = 0; i < nfds; i++) {
		it.fd = fds[i];
		it.tag = i == nfds - 1 ? tag : -1;
		queued = c->running &&
			 write(c->todo[1], &it, sizeof(it)) == sizeof(it);
		if (queued)
			atomic_fetch_add(&c->queued, 1);
		else
			close(fds[i]);
	}
	return queued && tag >= 0;
}

/* A descriptor that polls readable when a tagged close is done. */
int ctl_closer_done_fd(const struct ctl_closer *c)
{
	return c->done[0];
}

/**
 * ctl_closer_take_done() - the tag of one close that is done
 * @c: the closer
 * @tag: the tag
 *
 * Return: 1 with @tag set, 0 if none is waiting.
 */
int ctl_closer_take_done(struct ctl_closer *c, int *tag)
{
	return read(c->done[0], tag, sizeof(*tag)) == sizeof(*tag);
}

/**
 * ctl_closer_kick() - interrupt a close that is taking too long
 * @c: the closer
 * @now_ms: ctl_now_ms()
 *
 * Return: ms until it should be called again, -1 if the closer has
 * nothing to close.
 */
int ctl_closer_kick(struct ctl_closer *c, uint64_t now_ms)
{
	uint64_t since = atomic_load(&c->busy_since_ms);

	if (atomic_load(&c->closed) == atomic_load(&c->queued))
		return -1;
	if (!since)
		return CTL_CLOSER_KICK_MS;	/* about to start one */
	if (now_ms - since < CTL_CLOSER_KICK_MS)
		return (int)(since + CTL_CLOSER_KICK_MS - now_ms);
	pthread_kill(c->thread, SIGUSR1);
	atomic_fetch_add(&c->kicks, 1);
	return CTL_CLOSER_KICK_MS;
}

/**
 * ctl_closer_stop() - let the closer finish its queue and end
 * @c: the closer
 *
 * The thread is not waited for: a release that sleeps uninterruptibly
 * must not keep the daemon from exiting.
 */
void ctl_closer_stop(struct ctl_closer *c)
{
	if (!c->running)
		return;
	close(c->todo[1]);
	pthread_detach(c->thread);
	c->running = false;
}
