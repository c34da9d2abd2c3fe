// SPDX-License-Identifier: GPL-2.0
/*
 * umount_attack - an unprivileged process that tries to keep a filesystem
 * (or a file of it) past "revoke-bpf add --fs" or "revoke-bpf umount".
 *
 *   umount_attack inflight FILE GO     FILE's descriptor kept only in a
 *                                      SCM_RIGHTS message in flight; once
 *                                      GO exists, received and read
 *   umount_attack unixbind PATH GO     an AF_UNIX socket bound to PATH (on
 *                                      the filesystem); kept until GO
 *   umount_attack orphanns FILE GO     a user+mount namespace of its own,
 *                                      its only task gone, kept by a
 *                                      descriptor of /proc/PID/ns/mnt;
 *                                      once GO exists, entered and FILE
 *                                      read there
 *   umount_attack detached[-inflight] MNT GO
 *                                      a detached copy of MNT's mount made
 *                                      in a user namespace of its own,
 *                                      its descriptor kept (in flight);
 *                                      once GO exists, MNT/data read
 *   umount_attack opath FILE GO        an O_PATH descriptor of FILE; once
 *                                      GO exists, reopened through
 *                                      /proc/self/fd and read
 *
 * Prints "ready" once it holds what it holds, then one line per result:
 * "read: DATA" or "read: ERRNO-NAME"; "recv: EPERM" when the kernel
 * dropped the descriptor of the message (MSG_CTRUNC: file_receive refused).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OPEN_TREE_CLONE_ 1

static void wait_go(const char *go)
{
	while (access(go, F_OK))
		usleep(50000);
}

static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

static void read_report(int fd)
{
	char buf[256];
	ssize_t n;

	if (fd < 0) {
		printf("read: open %s\n", strerrorname_np(errno));
		return;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		printf("read: %s\n", strerrorname_np(errno));
		return;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	printf("read: %s\n", buf);
}

static int send_fd(int sock, int fd)
{
	char c = 'x';
	struct iovec iov = { &c, 1 };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len < CMSG_LEN(sizeof(int))) {
		/* file_receive refused it: the kernel drops it, MSG_CTRUNC */
		errno = (m.msg_flags & MSG_CTRUNC) ? EPERM : ENOMSG;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int do_inflight(const char *file, const char *go)
{
	int sv[2], fd;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return perror("socketpair"), 1;
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return perror(file), 1;
	if (send_fd(sv[0], fd))
		return perror("sendmsg"), 1;
	close(fd);
	ready();
	wait_go(go);
	fd = recv_fd(sv[1]);
	if (fd < 0) {
		printf("recv: %s\n", strerrorname_np(errno));
		return 0;
	}
	read_report(fd);
	return 0;
}

static int do_unixbind(const char *path, const char *go)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)))
		return perror("bind"), 1;
	ready();
	wait_go(go);
	printf("socket still bound\n");
	return 0;
}

static int do_orphanns(const char *file, const char *go)
{
	int p[2], q[2], mnt, user;
	char path[64], c;
	pid_t pid;

	if (pipe(p) || pipe(q))
		return perror("pipe"), 1;
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			perror("unshare"), _exit(1);
		if (write(p[1], "u", 1) != 1)
			_exit(1);
		/* until the parent has the ns */
		_exit(read(q[0], &c, 1) < 0);
	}
	if (read(p[0], &c, 1) != 1)
		return fprintf(stderr, "child failed\n"), 1;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	mnt = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	user = open(path, O_RDONLY);
	if (mnt < 0 || user < 0)
		return perror("open ns"), 1;
	if (write(q[1], "g", 1) != 1)
		return perror("write"), 1;
	waitpid(pid, NULL, 0);	/* no task is left in the namespace */
	ready();
	wait_go(go);
	pid = fork();
	if (pid == 0) {
		if (setns(user, CLONE_NEWUSER) || setns(mnt, CLONE_NEWNS)) {
			printf("setns: %s\n", strerrorname_np(errno));
			_exit(0);
		}
		read_report(open(file, O_RDONLY));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}

/* a detached copy of MNT's mount (open_tree OPEN_TREE_CLONE in a user
 * namespace of its own), kept in flight (INFLIGHT) or in the table */
static int do_detached(const char *mnt, const char *go, int inflight)
{
	int sv[2], fl[2], fd;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, fl))
		return perror("socketpair"), 1;
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			perror("unshare"), _exit(1);
		fd = syscall(SYS_open_tree, AT_FDCWD, mnt, OPEN_TREE_CLONE_);
		if (fd < 0)
			perror("open_tree"), _exit(1);
		if (send_fd(sv[0], fd))
			perror("sendmsg"), _exit(1);
		_exit(0);
	}
	fd = recv_fd(sv[1]);
	waitpid(pid, NULL, 0);
	if (fd < 0)
		return fprintf(stderr, "no detached mount\n"), 1;
	if (inflight) {
		if (send_fd(fl[0], fd))
			return perror("sendmsg"), 1;
		close(fd);
	}
	ready();
	wait_go(go);
	if (inflight) {
		fd = recv_fd(fl[1]);
		if (fd < 0) {
			printf("recv: %s\n", strerrorname_np(errno));
			return 0;
		}
	}
	read_report(openat(fd, "data", O_RDONLY));
	return 0;
}

static int do_opath(const char *file, const char *go)
{
	int fd = open(file, O_PATH);
	char path[64];

	if (fd < 0)
		return perror(file), 1;
	ready();
	wait_go(go);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	read_report(open(path, O_RDONLY));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4) {
		fprintf(stderr, "usage: umount_attack inflight|unixbind|orphanns|opath PATH GO\n");
		return 2;
	}
	if (!strcmp(argv[1], "inflight"))
		return do_inflight(argv[2], argv[3]);
	if (!strcmp(argv[1], "unixbind"))
		return do_unixbind(argv[2], argv[3]);
	if (!strcmp(argv[1], "orphanns"))
		return do_orphanns(argv[2], argv[3]);
	if (!strcmp(argv[1], "detached"))
		return do_detached(argv[2], argv[3], 0);
	if (!strcmp(argv[1], "detached-inflight"))
		return do_detached(argv[2], argv[3], 1);
	if (!strcmp(argv[1], "opath"))
		return do_opath(argv[2], argv[3]);
	fprintf(stderr, "umount_attack: unknown mode %s\n", argv[1]);
	return 2;
}
