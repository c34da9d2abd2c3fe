// SPDX-License-Identifier: GPL-2.0
/*
 * uevent_netlink.c - read kernel uevents from netlink and turn those that
 * name a device node into uevent requests, as the udev rule's client
 * would send them.
 *
 * Only messages from the kernel itself are taken: the sender's netlink
 * port id must be 0 and its credentials uid 0 (udevd and anyone else
 * multicast on other groups or with other ids).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/common.h"
#include "revoke_bpf.h"
#include "uevent_netlink.h"

#define UEVENT_BUF 8192
#define KERNEL_GROUP 1

/**
 * uevent_nl_open() - subscribe to the kernel's uevents
 *
 * Return: a non-blocking socket, or a negative errno.
 */
int uevent_nl_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK,
				    .nl_groups = KERNEL_GROUP };
	int on = 1, fd, ret;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * uevent_nl_parse() - turn one kernel uevent into a uevent request
 * @buf: the message: "ACTION@DEVPATH", then NUL-separated KEY=VALUE
 * @len: its length
 * @req: the request (verb, action, rdev, type, properties)
 *
 * DEVNAME is given as /dev/NAME, as udev would.
 *
 * Return: 1 if it names a device node, 0 if not (ignore it), or -EINVAL.
 */
int uevent_nl_parse(const char *buf, size_t len, struct revoke_req *req)
{
	const char *p = buf, *end = buf + len, *eq, *major = NULL, *minor = NULL;
	const char *sub = NULL, *action = NULL, *val;
	char devname[256];
	size_t n;

	memset(req, 0, sizeof(*req));
	req->verb = REVOKE_VERB_UEVENT;
	if (!len || buf[len - 1] != '\0' || !memchr(buf, '@', strlen(buf)))
		return -EINVAL;
	for (p += strlen(p) + 1; p < end; p += strlen(p) + 1) {
		eq = strchr(p, '=');
		if (!eq)
			continue;
		n = (size_t)(eq - p);
		val = eq + 1;
		if (n == 6 && !strncmp(p, "ACTION", 6))
			action = val;
		else if (n == 5 && !strncmp(p, "MAJOR", 5))
			major = val;
		else if (n == 5 && !strncmp(p, "MINOR", 5))
			minor = val;
		else if (n == 9 && !strncmp(p, "SUBSYSTEM", 9))
			sub = val;
		if (n == 7 && !strncmp(p, "DEVNAME", 7)) {
			if ((size_t)snprintf(devname, sizeof(devname), "/dev/%s",
					     val) >= sizeof(devname))
				return -EINVAL;
			val = devname;
		}
		/*
		 * As "revoke-bpf uevent" does: what cannot be a property (a
		 * bad name, a newline) is skipped, and when the request is
		 * full the first properties are kept.
		 */
		if (revoke_req_add_prop(req, p, n, val) == -ENOSPC)
			break;
	}
	if (!action || !major || !minor || !sub)
		return 0;
	if (revoke_req_uevent(req, action, sub, major, minor))
		return -EINVAL;
	return 1;
}

/**
 * uevent_nl_read() - read the next kernel uevent that names a device node
 * @fd: from uevent_nl_open()
 * @req: the request
 *
 * Return: 1 with @req filled, 0 if there is nothing (more) to read, or a
 * negative errno.  Messages not from the kernel are skipped.
 */
int uevent_nl_read(int fd, struct revoke_req *req)
{
	char buf[UEVENT_BUF];
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct sockaddr_nl from;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	struct ucred *cred;
	ssize_t n;
	int ret;

	for (;;) {
		msg.msg_controllen = sizeof(cbuf);
		msg.msg_namelen = sizeof(from);
		n = recvmsg(fd, &msg, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		c = CMSG_FIRSTHDR(&msg);
		if (!c || c->cmsg_type != SCM_CREDENTIALS || from.nl_pid != 0 ||
		    msg.msg_flags & MSG_TRUNC)
			continue;
		cred = (struct ucred *)CMSG_DATA(c);
		if (cred->uid != 0)
			continue;
		buf[n] = '\0';
		ret = uevent_nl_parse(buf, (size_t)n + 1, req);
		if (ret == 1)
			return 1;
	}
}
