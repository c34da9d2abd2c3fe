// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - what revoke-bpfd tells systemd (Type=notify), when it
 * listens: READY=1 once the daemon serves, RELOADING=1 then READY=1
 * around a reread of the policy, STOPPING=1, and a STATUS= line that
 * says what is enforced ("systemctl status" shows it), sent again
 * whenever its text changes.
 *
 * Each message is one datagram to $NOTIFY_SOCKET, as sd_notify(3) sends
 * it, without libsystemd.  Counting the sets costs a pass over the
 * revoked set, so it is done only when something may have changed: a
 * privileged request or a uevent was handled, the programs were attached or
 * detached, or, while they are attached, they dropped the entries of
 * freed inodes or filesystems themselves (looked at once a second).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

/* how often the programs' own drops are looked for while attached */
#define NOTIFY_DROPS_MS 1000

/* Send @msg to $NOTIFY_SOCKET, '@' meaning the abstract namespace. */
static void notify_send(const char *msg)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	socklen_t len;
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(addr.sun_path))
		return;
	memcpy(addr.sun_path, path, strlen(path));
	if (addr.sun_path[0] == '@')
		addr.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&addr, len);
	close(fd);
}

/* "1 file", "2 files" */
static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/**
 * notify_status_text() - what STATUS= says of the sets and the programs
 * @d: the daemon
 * @buf: the text, without "STATUS="
 * @len: size of @buf
 */
void notify_status_text(struct daemon *d, char *buf, size_t len)
{
	uint64_t files = 0, devs = 0, fss = 0;
	char more[64] = "";

	inode_set_count(&d->rb, &files);
	device_set_count(&d->rb, &devs);
	super_set_count(&d->rb, &fss);
	if (!files && !devs && !fss) {
		if (d->rb.attached)
			snprintf(buf, len, "enforcing: nothing revoked (programs "
				 "detach within %u s)", d->detach_after_ms / 1000);
		else
			snprintf(buf, len, "idle: nothing revoked (programs "
				 "detached)");
		return;
	}
	if (fss)
		snprintf(more, sizeof(more), ", %llu filesystem%s",
			 (unsigned long long)fss, plural(fss));
	snprintf(buf, len, "%s: %llu file%s, %llu device%s%s revoked%s",
		 d->rb.attached ? "enforcing" : "NOT enforcing",
		 (unsigned long long)files, plural(files),
		 (unsigned long long)devs, plural(devs), more,
		 d->rb.attached ? "" : ", programs not attached");
}

/**
 * notify_ready() - tell systemd the daemon serves, and what it enforces
 * @d: the daemon
 *
 * Once at start, and at the end of a reload.
 */
void notify_ready(struct daemon *d)
{
	char msg[sizeof("READY=1\nSTATUS=") + NOTIFY_STATUS_LEN];

	if (!d->notify.listening)
		return;
	if (!d->notify.status[0])
		notify_status_text(d, d->notify.status,
				   sizeof(d->notify.status));
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", d->notify.status);
	notify_send(msg);
}

/**
 * notify_reloading() - tell systemd the daemon rereads its policy
 * @d: the daemon
 *
 * notify_ready() ends it.  MONOTONIC_USEC= is what systemd 253's
 * Type=notify-reload asks for; 252 ignores it.
 */
void notify_reloading(struct daemon *d)
{
	char msg[64];

	if (!d->notify.listening)
		return;
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)revoke_now_us());
	notify_send(msg);
}

/**
 * notify_stopping() - tell systemd the daemon is on its way out
 */
void notify_stopping(void)
{
	notify_send("STOPPING=1");
}

/*
 * Did the programs drop entries themselves (a freed inode, a freed
 * filesystem) since the last look?  Both are cheap to tell: the freed
 * counter, and the filesystem set, which is small.
 */
static bool notify_dropped(struct daemon *d)
{
	struct daemon_notify *n = &d->notify;
	struct revoke_state st = {};
	uint64_t supers = 0;
	bool dropped;

	inode_set_state(&d->rb, &st);
	super_set_count(&d->rb, &supers);
	dropped = st.freed != n->freed || supers != n->supers;
	n->freed = st.freed;
	n->supers = supers;
	return dropped;
}

/**
 * notify_status() - send STATUS= again if what it says has changed
 * @d: the daemon
 * @now_ms: CLOCK_MONOTONIC, in milliseconds
 *
 * Call it as the loop comes round.  The sets are counted only if
 * @d->notify.stale was set (a privileged request, a uevent), the programs were
 * attached or detached since, or they dropped entries themselves; and
 * not at all if nobody listens.
 */
void notify_status(struct daemon *d, uint64_t now_ms)
{
	char text[NOTIFY_STATUS_LEN], msg[sizeof("STATUS=") + NOTIFY_STATUS_LEN];
	struct daemon_notify *n = &d->notify;

	if (!n->listening)
		return;
	if (d->rb.attaches != n->attaches || d->rb.detaches != n->detaches)
		n->stale = true;
	if (d->rb.attached && now_ms - n->looked_ms >= NOTIFY_DROPS_MS) {
		n->looked_ms = now_ms;
		if (notify_dropped(d))
			n->stale = true;
	}
	if (!n->stale)
		return;
	n->stale = false;
	n->attaches = d->rb.attaches;
	n->detaches = d->rb.detaches;
	notify_dropped(d);	/* the drops this count includes */
	notify_status_text(d, text, sizeof(text));
	if (!strcmp(text, n->status))
		return;
	snprintf(n->status, sizeof(n->status), "%s", text);
	snprintf(msg, sizeof(msg), "STATUS=%s", text);
	notify_send(msg);
}

/**
 * notify_init() - note whether systemd listens
 * @d: the daemon, its store open
 */
void notify_init(struct daemon *d)
{
	const char *path = getenv("NOTIFY_SOCKET");

	d->notify.listening = path && *path;
	d->notify.attaches = d->rb.attaches;
	d->notify.detaches = d->rb.detaches;
	if (d->notify.listening)
		notify_dropped(d);
}
