// SPDX-License-Identifier: GPL-2.0
/*
 * fdcopies - hold one open file description of PATH by every route a
 * copy of it takes, and another open of PATH beside it, run a command
 * (revoke-bpf add --fd), then try each route and print what it got, one
 * line each: "ROUTE: N" (bytes read) or "ROUTE: ERRNAME".  For
 * tests/vm/fd.bats.
 *
 *	fdcopies PATH --before CMD
 *
 * Before CMD: descriptor A of PATH (the one CMD revokes: $FD_PID:$FD_NUM),
 * B, a second open of PATH, D = dup(A), a forked child that keeps A,
 * A sent over a unix socket and not yet received (in flight), and an
 * io_uring instance with A as fixed file 0.  After CMD, in this order:
 *
 *	read		pread(A)
 *	dup_read	pread(D)
 *	uring_read	IORING_OP_READ on A's descriptor
 *	uring_fixed	IORING_OP_READ on fixed file 0
 *	received	recvmsg() of the copy in flight: "fd" or MSG_CTRUNC
 *	other_read	pread(B)
 *	reopen_read	pread() of PATH opened again
 *	child_read	pread(A) in the child
 *
 * Exits 0 once every line is printed, 1 on a setup failure (a message on
 * stderr); killed by SIGALRM after 20 seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "fdcopies: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void report(const char *route, long res)
{
	if (res >= 0)
		printf("%s: %ld\n", route, res);
	else
		printf("%s: %s\n", route, strerrorname_np((int)-res) ?: "?");
	fflush(stdout);
}

/* pread(@fd): bytes read, or -errno */
static long read_of(int fd)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	return n < 0 ? -errno : n;
}

/* One IORING_OP_READ of @fd (fixed file index if @fixed): its result. */
static long uring_read(struct io_uring *ring, int fd, bool fixed)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	static char buf[64];
	int res;

	io_uring_prep_read(sqe, fd, buf, sizeof(buf), 0);
	if (fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		die("io_uring");
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

static void send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg");
}

/* Receive the copy in flight and say what came: "fd" or MSG_CTRUNC. */
static void receive(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {}, c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		die("recvmsg");
	cm = CMSG_FIRSTHDR(&msg);
	if (msg.msg_flags & MSG_CTRUNC) {
		printf("received: MSG_CTRUNC\n");
	} else if (cm && cm->cmsg_type == SCM_RIGHTS) {
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		printf("received: fd\n");
		report("received_read", read_of(fd));
	} else {
		printf("received: nothing\n");
	}
	fflush(stdout);
}

/* The child: keeps A, reads it once told to (a byte on @go). */
static void child(int go, int a)
{
	char c;

	if (read(go, &c, 1) != 1)
		_exit(1);
	report("child_read", read_of(a));
	_exit(0);
}

int main(int argc, char **argv)
{
	int a, b, d, sv[2], go[2], r;
	struct io_uring ring;
	char n[32];
	pid_t pid;

	alarm(20);
	if (argc != 4 || strcmp(argv[2], "--before")) {
		fprintf(stderr, "usage: fdcopies PATH --before CMD\n");
		return 2;
	}
	/* close-on-exec: CMD's shell holds no copy */
	a = open(argv[1], O_RDONLY | O_CLOEXEC);
	b = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (a < 0 || b < 0)
		die("open");
	d = fcntl(a, F_DUPFD_CLOEXEC, 0);
	if (d < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
	    pipe2(go, O_CLOEXEC))
		die("dup, socketpair or pipe");
	send_fd(sv[0], a);
	r = io_uring_queue_init(4, &ring, 0);
	if (r || io_uring_register_files(&ring, &a, 1)) {
		errno = r ? -r : EINVAL;
		die("io_uring");
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		child(go[0], a);
	snprintf(n, sizeof(n), "%d", (int)getpid());
	setenv("FD_PID", n, 1);
	snprintf(n, sizeof(n), "%d", a);
	setenv("FD_NUM", n, 1);
	fflush(stdout);
	if (system(argv[3]) != 0) {
		fprintf(stderr, "fdcopies: '%s' failed\n", argv[3]);
		kill(pid, SIGKILL);
		return 1;
	}
	report("read", read_of(a));
	report("dup_read", read_of(d));
	report("uring_read", uring_read(&ring, a, false));
	report("uring_fixed", uring_read(&ring, 0, true));
	receive(sv[1]);
	report("other_read", read_of(b));
	r = open(argv[1], O_RDONLY | O_CLOEXEC);
	report("reopen_read", r < 0 ? -errno : read_of(r));
	if (write(go[1], "g", 1) != 1 || waitpid(pid, NULL, 0) != pid)
		die("child");
	return 0;
}
