// SPDX-License-Identifier: GPL-2.0
/*
 * ctlhog - clients that try to hold up revoke-bpfd's control socket.
 *
 *	ctlhog idle SOCKET N UID     N connections that send nothing
 *	ctlhog trickle SOCKET N UID  N connections that send a request one
 *	                             byte every 1.5 s
 *	ctlhog noread SOCKET N UID   N connections that ask for "list" and
 *	                             never read the answer
 *	ctlhog listen SOCKET         a daemon that listens and never accepts
 *	ctlhog mute SOCKET           a daemon that reads requests and never
 *	                             answers
 *	ctlhog linger SOCKET UID     one connection that sends, after its
 *	                             first byte, a TCP socket whose close
 *	                             blocks (SO_LINGER 30 s, unsent data, a
 *	                             peer that does not read); prints what
 *	                             came of it and runs until killed
 *
 * Connection i is made as uid (and gid) UID + i / 8, with seteuid(2), so
 * that SO_PEERCRED names that uid: 8 connections per uid, revoke-bpfd's
 * limit.  Run as root.  idle, trickle and noread print "ready N" once
 * they have connected and run until killed, connecting again whenever
 * revoke-bpfd closes one.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PER_UID 8
#define MAX_CONNS 1024

static const char *sock_path;
static const char request[] = "revoke-bpf/1 status\n";

static int connect_as(uid_t uid)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, ret;

	strcpy(addr.sun_path, sock_path);
	if (setegid(uid) || seteuid(uid)) {
		perror("ctlhog: seteuid");
		exit(1);
	}
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ret = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&addr, sizeof(addr));
	if (seteuid(0) || setegid(0)) {
		perror("ctlhog: seteuid back");
		exit(1);
	}
	if (ret) {
		fprintf(stderr, "ctlhog: connect: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

/* The daemon closed it (or answered): true, after draining it. */
static bool closed(int fd)
{
	char buf[4096];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 0) <= 0)
		return false;
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	return true;
}

static int hold(const char *mode, int n, uid_t uid0)
{
	static int fds[MAX_CONNS], sent[MAX_CONNS];
	bool trickle = !strcmp(mode, "trickle"), noread = !strcmp(mode, "noread");
	int i;

	for (i = 0; i < n; i++) {
		fds[i] = connect_as(uid0 + (uid_t)(i / PER_UID));
		if (noread)
			send(fds[i], "revoke-bpf/1 list\n", 18, MSG_NOSIGNAL);
	}
	printf("ready %d\n", n);
	fflush(stdout);
	for (;;) {
		usleep(trickle ? 1500000 : 100000);
		for (i = 0; i < n; i++) {
			if (!noread && closed(fds[i])) {
				close(fds[i]);
				fds[i] = connect_as(uid0 + (uid_t)(i / PER_UID));
				sent[i] = 0;
			}
			if (trickle && sent[i] < (int)sizeof(request) - 1)
				send(fds[i], request + sent[i]++, 1, MSG_NOSIGNAL);
		}
	}
	return 0;
}

/* A TCP connection over loopback whose close, with SO_LINGER, blocks. */
static int lingering_socket(int *server)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger lg = { .l_onoff = 1, .l_linger = 30 };
	socklen_t alen = sizeof(a);
	static char junk[65536];
	int c;

	*server = socket(AF_INET, SOCK_STREAM, 0);
	if (*server < 0 || bind(*server, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(*server, 1) || getsockname(*server, (struct sockaddr *)&a, &alen))
		return -1;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	/* fill the peer's window and our send queue: nothing more can go */
	while (send(c, junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;
	setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	return c;
}

static int send_fd(int fd, int tosend, const char *text)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control = {};
	struct iovec iov = { .iov_base = (void *)text, .iov_len = strlen(text) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &tosend, sizeof(int));
	return sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static int linger(uid_t uid)
{
	char buf[512];
	int server, tcp, fd, err;
	ssize_t n;

	tcp = lingering_socket(&server);
	if (tcp < 0) {
		perror("ctlhog: a lingering TCP socket");
		return 1;
	}
	fd = connect_as(uid);
	/* the first byte alone, then the rest once the daemon has the
	 * connection (it refuses descriptors from then on, where it can) */
	send(fd, request, 1, MSG_NOSIGNAL);
	usleep(300000);
	err = send_fd(fd, tcp, request + 1);
	if (err) {
		printf("sendmsg: %s\n", strerror(-err));
		fflush(stdout);
		close(tcp);	/* ours is the last reference: we linger */
		pause();
	}
	close(tcp);	/* revoke-bpfd's reference is the last */
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	printf("%s", buf);
	fflush(stdout);
	/* the TCP peer stays, not reading: the close goes on lingering */
	pause();
	return 0;
}

/* listen: never accept; mute: accept and read, never answer */
static int fake_daemon(const char *path, bool accepting)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char buf[4096];
	int fd, c;

	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 16)) {
		perror("ctlhog: listen");
		return 1;
	}
	for (;;) {
		if (!accepting) {
			pause();
			continue;
		}
		c = accept(fd, NULL, NULL);
		while (c >= 0 && read(c, buf, sizeof(buf)) > 0)
			;
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && (!strcmp(argv[1], "listen") || !strcmp(argv[1], "mute")))
		return fake_daemon(argv[2], argv[1][0] == 'm');
	if (argc == 4 && !strcmp(argv[1], "linger")) {
		sock_path = argv[2];
		return linger((uid_t)atoi(argv[3]));
	}
	if (argc != 5 || strlen(argv[2]) >= sizeof(((struct sockaddr_un *)0)->sun_path) ||
	    atoi(argv[3]) < 1 || atoi(argv[3]) > MAX_CONNS) {
		fprintf(stderr, "usage: ctlhog idle|trickle|noread SOCKET N UID\n"
			"       ctlhog linger SOCKET UID\n");
		return 2;
	}
	sock_path = argv[2];
	return hold(argv[1], atoi(argv[3]), (uid_t)atoi(argv[4]));
}
