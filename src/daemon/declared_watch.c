// SPDX-License-Identifier: GPL-2.0
/*
 * declared_watch.c - when to apply the declared files again: the folder
 * changed (a file written, renamed, removed; a ConfigMap's "..data" link
 * swapped, a rename in the folder), a pending path's nearest existing
 * folder gained an entry, or a mount came or went (a disk mounted after
 * boot).  One inotify descriptor and /proc/self/mountinfo (EPOLLPRI on a
 * change) under one epoll descriptor, which the loop watches: every
 * event already queued is read, then one apply for the batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "daemon.h"

#define DECLARED_DIR_EVENTS (IN_CREATE | IN_DELETE | IN_MOVED_FROM | \
			     IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | \
			     IN_MOVE_SELF | IN_ONLYDIR)
#define DECLARED_UP_EVENTS (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

/* Watch the folder, or, while it does not exist, its parent. */
static void declared_watch_dir(struct declared *dc)
{
	char up[PATH_MAX], *slash;

	if (dc->in < 0 || dc->wd_dir >= 0)
		return;
	dc->wd_dir = inotify_add_watch(dc->in, dc->dir, DECLARED_DIR_EVENTS);
	if (dc->wd_dir >= 0 || dc->wd_up >= 0)
		return;
	snprintf(up, sizeof(up), "%s", dc->dir);
	slash = strrchr(up, '/');
	if (!slash)
		return;
	*(slash == up ? slash + 1 : slash) = '\0';
	dc->wd_up = inotify_add_watch(dc->in, up, DECLARED_UP_EVENTS);
}

/**
 * declared_watch_pending() - apply again when @path may have appeared
 * @d: the daemon
 * @path: a pending line's absolute path
 * @missing: @path did not exist: if it does once watched, it appeared
 *	in between, and the apply is run again (declared.c)
 *
 * Its nearest existing folder is watched for entries created or moved
 * in (a folder on the way, then the file).
 */
void declared_watch_pending(struct daemon *d, const char *path, bool missing)
{
	struct declared *dc = &d->decl;
	char dir[PATH_MAX], *slash;
	int wd = -1;

	if (dc->in < 0 || dc->nwd == DECLARED_WATCHES)
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	while (wd < 0 && (slash = strrchr(dir, '/'))) {
		*(slash == dir ? slash + 1 : slash) = '\0';
		wd = inotify_add_watch(dc->in, dir, DECLARED_UP_EVENTS |
				       IN_MASK_ADD);
		if (slash == dir)
			break;
	}
	if (wd >= 0)
		dc->wd[dc->nwd++] = wd;
	if (missing && !access(path, F_OK))
		dc->again = true;
}

/**
 * declared_watch_clear() - stop watching the pending paths' folders
 * @dc: the declared state
 */
void declared_watch_clear(struct declared *dc)
{
	size_t i;

	for (i = 0; i < dc->nwd; i++)
		if (dc->wd[i] != dc->wd_dir && dc->wd[i] != dc->wd_up)
			inotify_rm_watch(dc->in, dc->wd[i]);
	dc->nwd = 0;
}

/*
 * Read every queued inotify event: the number of those that may change
 * what is declared; @gone is set if the folder's watch ended (the folder
 * removed or renamed).  IN_IGNORED of a pending path's watch is not one:
 * every apply removes those watches (declared_watch_clear()), and
 * counting their IN_IGNORED made each apply start the next, for good.
 */
static int declared_drain(struct declared *dc, bool *gone)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	int events = 0;
	ssize_t n;
	char *p;

	while ((n = read(dc->in, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->wd == dc->wd_dir &&
			    (ev->mask & (IN_IGNORED | IN_DELETE_SELF |
					 IN_MOVE_SELF)))
				*gone = true;
			else if (ev->mask & IN_IGNORED)
				continue;
			events++;
		}
	return events;
}

/**
 * declared_watch_settle() - after an apply, read the events it caused
 * @dc: the declared state
 *
 * Its own IN_IGNORED are dropped here, so that they do not wake the loop
 * (whose wake-up with no event is a mount change, which matters to a
 * pending line: an apply).
 *
 * Return: true if a change came meanwhile (another round is needed).
 */
bool declared_watch_settle(struct declared *dc)
{
	bool gone = false;
	int n;

	if (dc->in < 0)
		return false;
	n = declared_drain(dc, &gone);
	if (gone) {
		if (dc->wd_dir >= 0)
			inotify_rm_watch(dc->in, dc->wd_dir);
		dc->wd_dir = -1;
		declared_watch_dir(dc);
	}
	return n > 0 || gone;
}

/*
 * The loop's watch: the batch of changes read, then one apply.  A
 * wake-up with no inotify event is a mount change (mountinfo's EPOLLPRI,
 * which the nested poll may already have consumed): it matters to
 * pending lines only.
 */
static void declared_changed(void *arg)
{
	struct daemon *d = arg;
	struct declared *dc = &d->decl;
	struct epoll_event evs[4];
	bool gone = false;
	int n;

	epoll_wait(dc->ep, evs, 4, 0);	/* the ready list, emptied */
	n = declared_drain(dc, &gone);
	if (gone) {
		if (dc->wd_dir >= 0)
			inotify_rm_watch(dc->in, dc->wd_dir);
		dc->wd_dir = -1;
	}
	if (dc->wd_dir < 0)
		declared_watch_dir(dc);
	if (n > 0 || dc->pending)
		declared_apply(d);
}

/**
 * declared_watch_start() - set up the watches, before the first apply
 * @d: the daemon
 *
 * Return: 0 or a negative errno (the files are then read at start and
 * on reload only).
 */
int declared_watch_start(struct daemon *d)
{
	struct declared *dc = &d->decl;
	struct epoll_event ev = { .events = EPOLLIN };

	dc->ep = epoll_create1(EPOLL_CLOEXEC);
	dc->in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	dc->mnt = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (dc->ep < 0 || dc->in < 0)
		return -errno;
	ev.data.fd = dc->in;
	if (epoll_ctl(dc->ep, EPOLL_CTL_ADD, dc->in, &ev))
		return -errno;
	ev = (struct epoll_event){ .events = EPOLLPRI, .data.fd = dc->mnt };
	if (dc->mnt >= 0 && epoll_ctl(dc->ep, EPOLL_CTL_ADD, dc->mnt, &ev))
		log_warn("declared: cannot follow mounts: %s; a line on a disk "
			 "mounted later waits for a reload\n", strerror(errno));
	declared_watch_dir(dc);
	return 0;
}

/**
 * declared_watch() - the loop watches the declared files from now on
 * @d: the daemon, its loop set up
 *
 * Return: 0 or a negative errno.
 */
int declared_watch(struct daemon *d)
{
	if (d->decl.ep < 0)
		return 0;
	return ctl_loop_watch(&d->loop, d->decl.ep, declared_changed, d);
}
