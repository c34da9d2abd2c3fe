// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/daemon/notify.c on real BPF maps: what systemd is
 * told, datagram by datagram, on a socket standing for $NOTIFY_SOCKET:
 * READY=1 with the STATUS= of the sets, STATUS= again only when its
 * text changes (a request, an attach or detach, the programs' own drops
 * of freed filesystems), RELOADING=1, and nothing when nobody listens.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "maps.h"
#include "tap.h"

static struct daemon d;
static int sock = -1;

/* the next datagram, or "" if none is waiting */
static const char *next_msg(void)
{
	static char buf[512];
	ssize_t n = recv(sock, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int listen_at(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	unlink(path);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr)))
		return -1;
	return setenv("NOTIFY_SOCKET", path, 1);
}

static int supers_create(void)
{
	d.rb.supers_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "revoked_supers",
					sizeof(uint32_t),
					sizeof(struct revoke_super_val),
					REVOKE_SUPER_ENTRIES, NULL);
	return d.rb.supers_fd < 0 ? -1 : 0;
}

/* As attach_ensure() and attach_release() leave the store. */
static void attached(bool on)
{
	d.rb.attached = on;
	if (on)
		d.rb.attaches++;
	else
		d.rb.detaches++;
}

static void test_ready_and_changes(void)
{
	struct revoke_key key = { .dev = 0x800001, .ino = 12 };
	struct revoke_rdev_key tty = { .rdev = 0x400001,
				       .type = REVOKE_RDEV_CHAR };
	struct revoke_super_val sv = { .sb = 0xffff888000001000ull };
	enum revoke_change ch;
	uint32_t s_dev = 0x800002;
	uint64_t now = 5000;

	notify_init(&d);
	notify_ready(&d);
	CHECK("READY=1 says nothing is revoked and nothing attached",
	      !strcmp(next_msg(), "READY=1\nSTATUS=idle: nothing revoked "
		      "(programs detached)"));
	notify_status(&d, now);
	CHECK("no change, no STATUS=", !strcmp(next_msg(), ""));

	inode_set_add(&d.rb, &key, &ch);
	attached(true);
	d.notify.stale = true;
	notify_status(&d, now);
	CHECK("an add that attached: enforcing, 1 file",
	      !strcmp(next_msg(), "STATUS=enforcing: 1 file, 0 devices revoked"));
	d.notify.stale = true;
	notify_status(&d, now);
	CHECK("a request that changed nothing: no STATUS=",
	      !strcmp(next_msg(), ""));

	device_set_add(&d.rb, &tty, "admin", false, &ch);
	d.notify.stale = true;
	notify_status(&d, now);
	CHECK("a device too",
	      !strcmp(next_msg(), "STATUS=enforcing: 1 file, 1 device revoked"));

	/* a filesystem entry, as the daemon's umount would make it */
	bpf_map_update_elem(d.rb.supers_fd, &s_dev, &sv, BPF_ANY);
	d.notify.stale = true;
	notify_status(&d, now);
	CHECK("a filesystem is named when there is one",
	      !strcmp(next_msg(), "STATUS=enforcing: 1 file, 1 device, "
		      "1 filesystem revoked"));

	/* the programs drop it themselves when its super_block is freed */
	bpf_map_delete_elem(d.rb.supers_fd, &s_dev);
	notify_status(&d, now + 10);
	CHECK("the programs' own drop is not looked for within a second",
	      !strcmp(next_msg(), ""));
	notify_status(&d, now + 1000);
	CHECK("and is seen after it, with no request",
	      !strcmp(next_msg(), "STATUS=enforcing: 1 file, 1 device revoked"));

	inode_set_del(&d.rb, &key, &ch);
	device_set_del(&d.rb, &tty, &ch);
	d.notify.stale = true;
	notify_status(&d, now + 1000);
	CHECK("all lifted, still attached: the detach to come",
	      !strcmp(next_msg(), "STATUS=enforcing: nothing revoked "
		      "(programs detach within 10 s)"));
	attached(false);
	notify_status(&d, now + 1000);
	CHECK("a detach alone sends idle",
	      !strcmp(next_msg(), "STATUS=idle: nothing revoked "
		      "(programs detached)"));

	inode_set_add(&d.rb, &key, &ch);
	d.notify.stale = true;
	notify_status(&d, now + 1000);
	CHECK("revoked but not attached says so",
	      !strcmp(next_msg(), "STATUS=NOT enforcing: 1 file, 0 devices "
		      "revoked, programs not attached"));
	inode_set_del(&d.rb, &key, &ch);
}

static void test_reload(void)
{
	const char *m;

	notify_reloading(&d);
	m = next_msg();
	CHECK("RELOADING=1 with MONOTONIC_USEC=",
	      !strncmp(m, "RELOADING=1\nMONOTONIC_USEC=", 27) &&
	      strspn(m + 27, "0123456789") == strlen(m + 27) && m[27]);
	notify_ready(&d);
	CHECK("READY=1 ends it, with the last STATUS=",
	      !strncmp(next_msg(), "READY=1\nSTATUS=", 15));
	notify_stopping();
	CHECK("STOPPING=1", !strcmp(next_msg(), "STOPPING=1"));
}

static void test_nobody_listens(void)
{
	struct revoke_key key = { .dev = 0x800001, .ino = 13 };
	enum revoke_change ch;

	unsetenv("NOTIFY_SOCKET");
	memset(&d.notify, 0, sizeof(d.notify));
	notify_init(&d);
	notify_ready(&d);
	inode_set_add(&d.rb, &key, &ch);
	d.notify.stale = true;
	notify_status(&d, 99999);
	notify_reloading(&d);
	CHECK("without NOTIFY_SOCKET nothing is sent, nothing counted",
	      !strcmp(next_msg(), "") && d.notify.stale &&
	      !d.notify.status[0]);
	inode_set_del(&d.rb, &key, &ch);
}

int main(void)
{
	char path[] = "/tmp/test_notify.XXXXXX";
	char sockpath[64];

	if (!mkdtemp(path))
		return 1;
	snprintf(sockpath, sizeof(sockpath), "%s/notify", path);
	d.detach_after_ms = 10000;
	if (test_maps_create(&d.rb, 64) || supers_create()) {
		printf("Bail out! cannot create BPF maps (run as root)\n");
		return 1;
	}
	if (listen_at(sockpath)) {
		printf("Bail out! %s: %s\n", sockpath, strerror(errno));
		return 1;
	}
	test_ready_and_changes();
	test_reload();
	test_nobody_listens();
	close(sock);
	unlink(sockpath);
	rmdir(path);
	return tap_done();
}
