// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - every denial the BPF programs report becomes one line:
 *
 *	ts_ns=N time_ns=N pid=N tgid=N uid=N comm=PCT dev=MAJ:MIN ino=N hook=H
 *	op=O arg=0xN
 *
 * written to each subscriber (without blocking: a subscriber that cannot
 * keep up is dropped) and to the daemon's log, at most REVOKE_LOG_PER_SEC
 * lines a second, with a count of what was left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "events.h"
#include "common/common.h"
#include "store/store.h"

static const char *const hook_names[] = {
	[REVOKE_HOOK_FILE_PERMISSION] = "file_permission",
	[REVOKE_HOOK_MMAP_FILE] = "mmap_file",
	[REVOKE_HOOK_FILE_IOCTL] = "file_ioctl",
	[REVOKE_HOOK_FILE_OPEN] = "file_open",
	[REVOKE_HOOK_FILE_LOCK] = "file_lock",
	[REVOKE_HOOK_FILE_FCNTL] = "file_fcntl",
	[REVOKE_HOOK_FILE_MPROTECT] = "file_mprotect",
	[REVOKE_HOOK_PATH_TRUNCATE] = "path_truncate",
	[REVOKE_HOOK_FILE_RECEIVE] = "file_receive",
	[REVOKE_HOOK_FILE_TRUNCATE] = "file_truncate",
	[REVOKE_HOOK_FILE_IOCTL_COMPAT] = "file_ioctl_compat",
	[REVOKE_HOOK_KERNEL_READ_FILE] = "kernel_read_file",
	[REVOKE_HOOK_KERNEL_POST_READ_FILE] = "kernel_post_read_file",
	[REVOKE_HOOK_URING_CMD] = "uring_cmd",
	[REVOKE_HOOK_MMAP_BACKING_FILE] = "mmap_backing_file",
	[REVOKE_HOOK_FILE_SEND_SIGIOTASK] = "file_send_sigiotask",
	[REVOKE_HOOK_INODE_GETXATTR] = "inode_getxattr",
	[REVOKE_HOOK_INODE_LISTXATTR] = "inode_listxattr",
	[REVOKE_HOOK_INODE_SETXATTR] = "inode_setxattr",
	[REVOKE_HOOK_INODE_REMOVEXATTR] = "inode_removexattr",
	[REVOKE_HOOK_INODE_SETATTR] = "inode_setattr",
	[REVOKE_HOOK_INODE_GET_ACL] = "inode_get_acl",
	[REVOKE_HOOK_INODE_SET_ACL] = "inode_set_acl",
	[REVOKE_HOOK_INODE_REMOVE_ACL] = "inode_remove_acl",
	[REVOKE_HOOK_INODE_FILE_GETATTR] = "inode_file_getattr",
	[REVOKE_HOOK_INODE_FILE_SETATTR] = "inode_file_setattr",
};

static const char *const op_names[] = {
	[REVOKE_OP_READ] = "read",
	[REVOKE_OP_WRITE] = "write",
	[REVOKE_OP_MMAP] = "mmap",
	[REVOKE_OP_IOCTL] = "ioctl",
	[REVOKE_OP_OPEN] = "open",
	[REVOKE_OP_OTHER] = "other",
	[REVOKE_OP_LOCK] = "lock",
	[REVOKE_OP_FCNTL] = "fcntl",
	[REVOKE_OP_SIGNAL] = "signal",
	[REVOKE_OP_XATTR] = "xattr",
	[REVOKE_OP_SETATTR] = "setattr",
};

static const char *name_of(const char *const *names, size_t n, __u32 i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

/*
 * @mono_ns (CLOCK_MONOTONIC, bpf_ktime_get_ns()) as nanoseconds since the
 * epoch: plus the offset between the two clocks now, so that an event
 * can be matched with the journal.
 */
static unsigned long long events_wall_ns(unsigned long long mono_ns)
{
	struct timespec rt, mono;
	long long off;

	if (clock_gettime(CLOCK_REALTIME, &rt) ||
	    clock_gettime(CLOCK_MONOTONIC, &mono))
		return 0;
	off = (long long)(rt.tv_sec - mono.tv_sec) * 1000000000ll +
	      (rt.tv_nsec - mono.tv_nsec);
	return mono_ns + (unsigned long long)off;
}

/**
 * revoke_event_format() - one event as a line of key=value fields
 * @e: the event from the ring buffer
 * @buf: output, ends in a newline
 * @len: size of @buf
 *
 * The task name is percent-encoded, as everywhere in the answers; the
 * time is both the kernel's monotonic ts_ns and time_ns, the same
 * instant in nanoseconds since the epoch.
 *
 * Return: the line's length, or -ENOSPC.
 */
int revoke_event_format(const struct revoke_event *e, char *buf, size_t len)
{
	char comm[REVOKE_COMM_LEN + 1], enc[3 * REVOKE_COMM_LEN + 1];
	int n;

	memcpy(comm, e->comm, REVOKE_COMM_LEN);
	comm[REVOKE_COMM_LEN] = '\0';
	if (!comm[0] || revoke_pct_encode(comm, enc, sizeof(enc)) < 0)
		snprintf(enc, sizeof(enc), "?");
	n = snprintf(buf, len,
		     REVOKE_FIELD_TS_NS "=%llu " REVOKE_FIELD_TIME_NS "=%llu "
		     REVOKE_FIELD_PID "=%u "
		     REVOKE_FIELD_TGID "=%u " REVOKE_FIELD_UID "=%u "
		     REVOKE_FIELD_COMM "=%s " REVOKE_FIELD_DEV "=%u:%u "
		     REVOKE_FIELD_INO "=%llu " REVOKE_FIELD_HOOK "=%s "
		     REVOKE_FIELD_OP "=%s " REVOKE_FIELD_ARG "=0x%llx\n",
		     (unsigned long long)e->ts_ns, events_wall_ns(e->ts_ns),
		     e->pid, e->tgid, e->uid, enc, revoke_kdev_major(e->dev),
		     revoke_kdev_minor(e->dev), (unsigned long long)e->ino,
		     name_of(hook_names, sizeof(hook_names) / sizeof(hook_names[0]), e->hook),
		     name_of(op_names, sizeof(op_names) / sizeof(op_names[0]), e->op),
		     (unsigned long long)e->arg);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

static void drop_subscriber(struct revoke_events *ev, int i)
{
	int fd = ev->subs[i];

	ev->subs[i] = ev->subs[--ev->nsubs];
	if (ev->on_drop)
		ev->on_drop(fd, ev->drop_arg);
	else
		close(fd);
}

static void log_line(struct revoke_events *ev, const char *line)
{
	time_t now = time(NULL);

	if (now != ev->window) {
		if (ev->suppressed)
			log_info("%llu more denials not logged\n",
				 ev->suppressed);
		ev->window = now;
		ev->logged = 0;
		ev->suppressed = 0;
	}
	if (ev->logged >= REVOKE_LOG_PER_SEC) {
		ev->suppressed++;
		return;
	}
	ev->logged++;
	log_info("denied %s", line);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct revoke_events *ev = ctx;
	char line[512];
	int i, n;

	if (size < sizeof(struct revoke_event))
		return 0;
	n = revoke_event_format(data, line, sizeof(line));
	if (n < 0)
		return 0;
	log_line(ev, line);
	for (i = ev->nsubs - 1; i >= 0; i--)
		if (send(ev->subs[i], line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
			drop_subscriber(ev, i);
	return 0;
}

/**
 * revoke_events_open() - start consuming the ring buffer
 * @ev: the state to set up
 * @store: the store, whose "revoke_events" ring the hooks write
 *
 * Return: 0 or a negative errno.
 */
int revoke_events_open(struct revoke_events *ev, const struct store *store)
{
	memset(ev, 0, sizeof(*ev));
	ev->ring = store_events_ring(store, on_event, ev);
	return ev->ring ? 0 : -errno;
}

void revoke_events_close(struct revoke_events *ev)
{
	while (ev->nsubs)
		drop_subscriber(ev, 0);
	ring_buffer__free(ev->ring);
	ev->ring = NULL;
}

/* An fd that polls readable when events are waiting. */
int revoke_events_fd(const struct revoke_events *ev)
{
	return ring_buffer__epoll_fd(ev->ring);
}

/**
 * revoke_events_consume() - handle every event waiting in the ring buffer
 * @ev: the state
 *
 * Return: number of events, or a negative errno.
 */
int revoke_events_consume(struct revoke_events *ev)
{
	return ring_buffer__consume(ev->ring);
}

/**
 * revoke_events_subscribe() - stream events to a connection from now on
 * @ev: the state
 * @fd: the connection; owned by @ev on success
 *
 * Return: 0, or -EBUSY if REVOKE_MAX_SUBSCRIBERS are already streaming.
 */
int revoke_events_subscribe(struct revoke_events *ev, int fd)
{
	if (ev->nsubs == REVOKE_MAX_SUBSCRIBERS)
		return -EBUSY;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ev->subs[ev->nsubs++] = fd;
	return 0;
}

/**
 * revoke_events_unsubscribe() - stop streaming to a connection
 * @ev: the state
 * @fd: as given to revoke_events_subscribe(); not closed here
 */
void revoke_events_unsubscribe(struct revoke_events *ev, int fd)
{
	int i;

	for (i = 0; i < ev->nsubs; i++) {
		if (ev->subs[i] == fd) {
			ev->subs[i] = ev->subs[--ev->nsubs];
			return;
		}
	}
}
