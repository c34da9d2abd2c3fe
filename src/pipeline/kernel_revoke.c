// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_revoke.c - hang up ttys and revoke evdev nodes that a revoked
 * device's holders have open, through the kernel's own interfaces.
 *
 * The holder's open file is taken with pidfd_getfd() (the same struct
 * file, so the ioctl acts on the holder's descriptor), and dropped again.
 */
#include <errno.h>
#include <linux/input.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "kernel_revoke.h"
#include "common/common.h"

static int revoke_one(int fd, const struct revoke_rdev_key *key)
{
	struct stat st;
	uint32_t kdev;
	int version;

	/* only the device being revoked, whatever the descriptor is now */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    key->type != REVOKE_RDEV_CHAR ||
	    revoke_kdev_from_stdev(st.st_rdev, &kdev) || kdev != key->rdev)
		return 0;
	if (isatty(fd))
		return ioctl(fd, TIOCVHANGUP) == 0;
	if (ioctl(fd, EVIOCGVERSION, &version) == 0)
		return ioctl(fd, EVIOCREVOKE, NULL) == 0;
	return 0;
}

/**
 * kernel_revoke_holders() - apply the kernel's own revoke to every
 *	descriptor in @set that is a tty or an evdev node
 * @set: holders of a device's nodes
 * @key: the device
 *
 * A holder that exited (even if its pid is another process's now), or a
 * descriptor closed or reused meanwhile for something else, is skipped.
 *
 * Return: how many descriptors were hung up or revoked.
 */
unsigned int kernel_revoke_holders(const struct holder_set *set,
				   const struct revoke_rdev_key *key)
{
	unsigned int done = 0;
	size_t i, j;

	for (i = 0; i < set->nr; i++) {
		const struct holder_proc *p = &set->procs[i];
		int pidfd;

		if (!p->nfds)
			continue;
		pidfd = holder_pidfd(p);
		if (pidfd < 0)
			continue;
		for (j = 0; j < p->nfds; j++) {
			int fd = (int)syscall(SYS_pidfd_getfd, pidfd, p->fds[j], 0);

			if (fd < 0)
				continue;
			done += revoke_one(fd, key);
			close(fd);
		}
		close(pidfd);
	}
	return done;
}

/**
 * kernel_hangup_prepare() - a pidfd for each process of @set, taken when
 *	the holders are found, so that the SIGHUP sent after the pipeline
 *	cannot reach a process that reused a pid meanwhile
 * @set: holders of a device's nodes
 *
 * Return: @set->nr pidfds (-1 for a process already gone), or NULL.
 */
int *kernel_hangup_prepare(const struct holder_set *set)
{
	int *pidfds = calloc(set->nr ? set->nr : 1, sizeof(*pidfds));
	size_t i;

	if (!pidfds)
		return NULL;
	for (i = 0; i < set->nr; i++)
		pidfds[i] = holder_pidfd(&set->procs[i]);
	return pidfds;
}

/* Close and free the pidfds without signalling anyone. */
void kernel_hangup_cancel(int *pidfds, size_t n)
{
	size_t i;

	for (i = 0; pidfds && i < n; i++)
		if (pidfds[i] >= 0)
			close(pidfds[i]);
	free(pidfds);
}

/**
 * kernel_hangup_send() - send SIGHUP to each holder, as a tty hangup
 *	does to its session, and close and free the pidfds
 * @pidfds: from kernel_hangup_prepare()
 * @n: their number
 *
 * Return: how many processes were signalled.
 */
unsigned int kernel_hangup_send(int *pidfds, size_t n)
{
	unsigned int sent = 0;
	size_t i;

	for (i = 0; pidfds && i < n; i++) {
		if (pidfds[i] < 0)
			continue;
		if (syscall(SYS_pidfd_send_signal, pidfds[i], SIGHUP, NULL, 0) == 0)
			sent++;
		close(pidfds[i]);
	}
	free(pidfds);
	return sent;
}
