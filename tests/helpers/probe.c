// SPDX-License-Identifier: GPL-2.0
/*
 * probe - open a file, optionally run a command (such as a revocation),
 * then try operations on the descriptor opened before it and print, one
 * line each, "OP: ok", "OP: ERRNAME" or another verdict (SIGBUS,
 * MSG_CTRUNC).  The tests compare these lines.
 *
 *	probe [--rdonly] [--map] [--fill] [--async] [--before 'SHELL COMMAND']
 *	      PATH OP...
 *
 * The file is opened read-write if it can be, else read-only; --rdonly
 * opens it read-only (a read-write open of an overlayfs file copies it up).
 * --map maps the file's first page (MAP_SHARED, PROT_READ) and forks a
 * child that shares the mapping, both before the command; --fill writes
 * one byte to the file (a FIFO's buffer) before it.  PATH /dev/ptmx opens
 * a new pseudo-terminal and works on its slave, whose path the command
 * finds in $PROBE_PATH.  --async has SIGIO sent to the probe for the file
 * (F_SETOWN, O_ASYNC) before the command.
 *
 * OPs on the descriptor: read write pread pwrite readv writev preadv2
 * pwritev2 sendfile splice_read splice_write copy_in copy_out tee
 * splice_pipe mmap ioctl fstat dup_read fork_read io_uring_read
 * io_uring_write aio_read aio_write flock fcntl_lock ofd_lock fcntl_setfl
 * fcntl_getfl fcntl_cloexec ftruncate scm_rights pidfd_getfd
 * uring_cmd_discard (a block device's) finit_module
 * sigio: with --async on a pseudo-terminal, a line is written to its
 * master; "sigio: ok" if SIGIO came within 1 s, else "sigio: none"
 * By name: open open_trunc truncate proc_fd opath_reopen opath_linkat
 * On the --map mapping: map_files map_read mprotect_write vm_readv
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

static const char *path;
static int fd;
static int master = -1;		/* PATH /dev/ptmx: the master side */
static volatile sig_atomic_t sigios;	/* --async: SIGIOs received */
static char *map;		/* --map: the first page, mapped before */
static pid_t map_child;		/* --map: a child sharing that mapping */
static const char *verdict;	/* an op's result other than ok/errno */
static sigjmp_buf fault_jmp;

/* Close @cfd, leaving errno as the operation before it set it. */
static void close_keep_errno(int cfd)
{
	int saved = errno;

	close(cfd);
	errno = saved;
}

/* Open @name read-only and close it again: 0, or -1 with errno. */
static int try_open(const char *name)
{
	int nfd = open(name, O_RDONLY);

	if (nfd < 0)
		return -1;
	close(nfd);
	return 0;
}

static int op_open(void)
{
	return try_open(path);
}

static int op_read(void)
{
	char c;

	return read(fd, &c, 1) < 0 ? -1 : 0;
}

static int op_write(void)
{
	return write(fd, "w", 1) < 0 ? -1 : 0;
}

static int op_pread(void)
{
	char c;

	return pread(fd, &c, 1, 0) < 0 ? -1 : 0;
}

static int op_pwrite(void)
{
	return pwrite(fd, "p", 1, 0) < 0 ? -1 : 0;
}

static int op_readv(void)
{
	char a, b;
	struct iovec iov[2] = { { &a, 1 }, { &b, 1 } };

	return preadv(fd, iov, 2, 0) < 0 ? -1 : 0;
}

static int op_writev(void)
{
	struct iovec iov[2] = { { "v", 1 }, { "w", 1 } };

	return pwritev(fd, iov, 2, 0) < 0 ? -1 : 0;
}

static int with_pipe(int (*fn)(int p[2]))
{
	int p[2], ret;

	if (pipe(p))
		return -1;
	ret = fn(p);
	close_keep_errno(p[0]);
	close_keep_errno(p[1]);
	return ret;
}

static int sendfile_fn(int p[2])
{
	off_t off = 0;

	return sendfile(p[1], fd, &off, 1) < 0 ? -1 : 0;
}

static int splice_read_fn(int p[2])
{
	loff_t off = 0;

	return splice(fd, &off, p[1], NULL, 1, 0) < 0 ? -1 : 0;
}

static int splice_write_fn(int p[2])
{
	loff_t off = 0;

	if (write(p[1], "s", 1) != 1)
		return -1;
	return splice(p[0], NULL, fd, &off, 1, 0) < 0 ? -1 : 0;
}

static int op_sendfile(void)
{
	return with_pipe(sendfile_fn);
}

static int op_splice_read(void)
{
	return with_pipe(splice_read_fn);
}

static int op_splice_write(void)
{
	return with_pipe(splice_write_fn);
}

static int op_preadv2(void)
{
	char c;
	struct iovec iov = { &c, 1 };

	return preadv2(fd, &iov, 1, 0, RWF_HIPRI) < 0 ? -1 : 0;
}

static int op_pwritev2(void)
{
	struct iovec iov = { "2", 1 };

	return pwritev2(fd, &iov, 1, 0, RWF_DSYNC) < 0 ? -1 : 0;
}

/* A scratch file beside PATH (same filesystem), for copy_file_range. */
static int scratch_file(void)
{
	char name[4096];
	int sfd;

	snprintf(name, sizeof(name), "%s.scratch", path);
	sfd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (sfd >= 0) {
		unlink(name);
		if (write(sfd, "scratch", 7) != 7) {
			close(sfd);
			return -1;
		}
	}
	return sfd;
}

static int copy_range(int from_revoked)
{
	int sfd = scratch_file();
	loff_t a = 0, b = 0;
	ssize_t n;

	if (sfd < 0)
		return -1;
	n = from_revoked ? copy_file_range(fd, &a, sfd, &b, 1, 0)
			 : copy_file_range(sfd, &a, fd, &b, 1, 0);
	close_keep_errno(sfd);
	return n < 0 ? -1 : 0;
}

static int op_copy_in(void)
{
	return copy_range(1);
}

static int op_copy_out(void)
{
	return copy_range(0);
}

static int tee_fn(int p[2])
{
	return tee(fd, p[1], 1, SPLICE_F_NONBLOCK) < 0 ? -1 : 0;
}

static int splice_pipe_fn(int p[2])
{
	return splice(fd, NULL, p[1], NULL, 1, SPLICE_F_NONBLOCK) < 0 ? -1 : 0;
}

/* PATH a FIFO: tee() and splice() from it into another pipe */
static int op_tee(void)
{
	return with_pipe(tee_fn);
}

static int op_splice_pipe(void)
{
	return with_pipe(splice_pipe_fn);
}

static int op_dup_read(void)
{
	int nfd = dup3(fd, 100, O_CLOEXEC), ret;
	char c;

	if (nfd < 0)
		return -1;
	ret = read(nfd, &c, 1) < 0 ? -1 : 0;
	close_keep_errno(nfd);
	return ret;
}

/* The child reads the inherited descriptor and exits with the errno. */
static int op_fork_read(void)
{
	int status;
	pid_t pid = fork();
	char c;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(read(fd, &c, 1) < 0 ? errno : 0);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	errno = WEXITSTATUS(status);
	return errno ? -1 : 0;
}

#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)	/* linux/fs.h, 6.12 */
#endif

enum uring_op { URING_READ, URING_WRITE, URING_DISCARD };

/*
 * One read, write, or passthrough command (a block device's discard of
 * its first 4 KiB) through an io_uring, the result from its CQE.
 */
static int uring_one(enum uring_op op)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char c = 'u';
	int err;

	err = io_uring_queue_init(2, &ring, 0);
	if (err) {
		errno = -err;
		return -1;
	}
	sqe = io_uring_get_sqe(&ring);
	if (op == URING_WRITE) {
		io_uring_prep_write(sqe, fd, &c, 1, 0);
	} else if (op == URING_READ) {
		io_uring_prep_read(sqe, fd, &c, 1, 0);
	} else {
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
		sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
		sqe->addr = 0;
		sqe->addr3 = 4096;
	}
	err = io_uring_submit(&ring);
	if (err == 1)
		err = io_uring_wait_cqe(&ring, &cqe);
	if (err >= 0) {
		err = cqe->res < 0 ? cqe->res : 0;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	errno = -err;
	return err < 0 ? -1 : 0;
}

static int op_io_uring_read(void)
{
	return uring_one(URING_READ);
}

static int op_io_uring_write(void)
{
	return uring_one(URING_WRITE);
}

static int op_uring_cmd_discard(void)
{
	return uring_one(URING_DISCARD);
}

/* The kernel reads the file itself: ENOEXEC unless it is a module. */
static int op_finit_module(void)
{
	return syscall(SYS_finit_module, fd, "", 0);
}

/* POSIX AIO (glibc runs it on a thread of its own) */
static int posix_aio(int write)
{
	const struct aiocb *list[1];
	struct aiocb cb;
	char c = 'a';
	int err;

	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_buf = &c;
	cb.aio_nbytes = 1;
	list[0] = &cb;
	if ((write ? aio_write(&cb) : aio_read(&cb)) < 0)
		return -1;
	while ((err = aio_error(&cb)) == EINPROGRESS)
		aio_suspend(list, 1, NULL);
	aio_return(&cb);
	errno = err;
	return err ? -1 : 0;
}

static int op_aio_read(void)
{
	return posix_aio(0);
}

static int op_aio_write(void)
{
	return posix_aio(1);
}

static int op_flock(void)
{
	return flock(fd, LOCK_EX | LOCK_NB);
}

static int record_lock(int cmd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	return fcntl(fd, cmd, &fl) < 0 ? -1 : 0;
}

static int op_fcntl_lock(void)
{
	return record_lock(F_SETLK);
}

static int op_ofd_lock(void)
{
	return record_lock(F_OFD_SETLK);
}

static int op_fcntl_setfl(void)
{
	return fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ? -1 : 0;
}

static int op_fcntl_getfl(void)
{
	return fcntl(fd, F_GETFL) < 0 ? -1 : 0;
}

static int op_fcntl_cloexec(void)
{
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int op_ftruncate(void)
{
	return ftruncate(fd, 1);
}

static int op_open_trunc(void)
{
	int nfd = open(path, O_WRONLY | O_TRUNC);

	if (nfd < 0)
		return -1;
	close(nfd);
	return 0;
}

static int op_truncate(void)
{
	return truncate(path, 1);
}

static int open_proc_fd(int which)
{
	char name[64];

	snprintf(name, sizeof(name), "/proc/self/fd/%d", which);
	return try_open(name);
}

static int op_proc_fd(void)
{
	return open_proc_fd(fd);
}

/* O_PATH needs no open permission; reopening it through /proc does */
static int op_opath_reopen(void)
{
	int opath = open(path, O_PATH), ret;

	if (opath < 0)
		return -1;
	ret = open_proc_fd(opath);
	close_keep_errno(opath);
	return ret;
}

/* Give the inode a new name from an O_PATH descriptor, then open that. */
static int op_opath_linkat(void)
{
	char name[4096];
	int opath = open(path, O_PATH), ret, saved;

	if (opath < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.linked", path);
	unlink(name);
	ret = linkat(opath, "", AT_FDCWD, name, AT_EMPTY_PATH);
	close_keep_errno(opath);
	if (ret < 0)
		return -1;
	ret = try_open(name);
	saved = errno;
	unlink(name);
	errno = saved;
	return ret;
}

/*
 * Send the descriptor over a unix socket (SCM_RIGHTS) and receive it.
 * If the kernel would not install it the verdict is MSG_CTRUNC; else the
 * result of a read on what arrived.
 */
static int op_scm_rights(void)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int sv[2], got = -1, ret = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sv[0], &msg, 0) != 1)
		goto out;
	msg.msg_controllen = sizeof(u.buf);
	if (recvmsg(sv[1], &msg, 0) != 1)
		goto out;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&got, CMSG_DATA(cm), sizeof(int));
	if (got < 0) {
		verdict = msg.msg_flags & MSG_CTRUNC ? "MSG_CTRUNC" : "no_fd";
		ret = 0;
		goto out;
	}
	ret = read(got, &byte, 1) < 0 ? -1 : 0;
out:
	if (got >= 0)
		close_keep_errno(got);
	close_keep_errno(sv[0]);
	close_keep_errno(sv[1]);
	return ret;
}

static int op_pidfd_getfd(void)
{
	int pidfd = syscall(SYS_pidfd_open, getpid(), 0), nfd;

	if (pidfd < 0)
		return -1;
	nfd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (nfd >= 0)
		close_keep_errno(nfd);
	close_keep_errno(pidfd);
	return nfd < 0 ? -1 : 0;
}

static int need_map(void)
{
	if (map)
		return 0;
	fprintf(stderr, "probe: this operation needs --map\n");
	exit(2);
}

static int op_map_files(void)
{
	char name[128];

	need_map();
	snprintf(name, sizeof(name), "/proc/self/map_files/%lx-%lx",
		 (unsigned long)map, (unsigned long)map + 4096);
	return try_open(name);
}

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static int op_map_read(void)
{
	volatile char c;

	need_map();
	signal(SIGBUS, on_fault);
	signal(SIGSEGV, on_fault);
	switch (sigsetjmp(fault_jmp, 1)) {
	case 0:
		c = map[0];
		(void)c;
		return 0;
	case SIGBUS:
		verdict = "SIGBUS";
		return 0;
	default:
		verdict = "SIGSEGV";
		return 0;
	}
}

static int op_mprotect_write(void)
{
	need_map();
	return mprotect(map, 4096, PROT_READ | PROT_WRITE);
}

/* Read the child's copy of the mapping from here. */
static int op_vm_readv(void)
{
	char c;
	struct iovec local = { &c, 1 }, remote = { map, 1 };

	need_map();
	return process_vm_readv(map_child, &local, 1, &remote, 1, 0) < 0 ? -1 : 0;
}

static int op_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, 4096);
	return 0;
}

static int op_ioctl(void)
{
	int n;

	return ioctl(fd, FIONREAD, &n);
}

static int op_fstat(void)
{
	struct stat st;

	return fstat(fd, &st);
}

static void on_sigio(int sig)
{
	(void)sig;
	sigios++;
}

/* --async: have the file's owner, this process, sent SIGIO. */
static int set_async(void)
{
	struct sigaction sa = { .sa_handler = on_sigio };
	int fl = fcntl(fd, F_GETFL);

	if (sigaction(SIGIO, &sa, NULL) || fl < 0 ||
	    fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETFL, fl | O_ASYNC)) {
		printf("async: %s\n", strerrorname_np(errno));
		return -1;
	}
	return 0;
}

static int op_sigio(void)
{
	int i;

	sigios = 0;
	if (master < 0 || write(master, "x\n", 2) != 2)
		return -1;
	for (i = 0; i < 100 && !sigios; i++)
		usleep(10000);
	verdict = sigios ? "ok" : "none";
	return 0;
}

/* PATH /dev/ptmx: open a new pseudo-terminal's slave as the file. */
static int open_pty(void)
{
	const char *slave;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    !(slave = ptsname(master)))
		return -1;
	setenv("PROBE_PATH", slave, 1);
	path = strdup(slave);
	return open(path, O_RDWR | O_NOCTTY);
}

static const struct helper_op ops[] = {
	{ "open", op_open },
	{ "read", op_read },
	{ "write", op_write },
	{ "pread", op_pread },
	{ "pwrite", op_pwrite },
	{ "readv", op_readv },
	{ "writev", op_writev },
	{ "sendfile", op_sendfile },
	{ "splice_read", op_splice_read },
	{ "splice_write", op_splice_write },
	{ "mmap", op_mmap },
	{ "ioctl", op_ioctl },
	{ "fstat", op_fstat },
	{ "preadv2", op_preadv2 },
	{ "pwritev2", op_pwritev2 },
	{ "copy_in", op_copy_in },
	{ "copy_out", op_copy_out },
	{ "tee", op_tee },
	{ "splice_pipe", op_splice_pipe },
	{ "dup_read", op_dup_read },
	{ "fork_read", op_fork_read },
	{ "io_uring_read", op_io_uring_read },
	{ "io_uring_write", op_io_uring_write },
	{ "uring_cmd_discard", op_uring_cmd_discard },
	{ "finit_module", op_finit_module },
	{ "sigio", op_sigio },
	{ "aio_read", op_aio_read },
	{ "aio_write", op_aio_write },
	{ "flock", op_flock },
	{ "fcntl_lock", op_fcntl_lock },
	{ "ofd_lock", op_ofd_lock },
	{ "fcntl_setfl", op_fcntl_setfl },
	{ "fcntl_getfl", op_fcntl_getfl },
	{ "fcntl_cloexec", op_fcntl_cloexec },
	{ "ftruncate", op_ftruncate },
	{ "truncate", op_truncate },
	{ "open_trunc", op_open_trunc },
	{ "proc_fd", op_proc_fd },
	{ "opath_reopen", op_opath_reopen },
	{ "opath_linkat", op_opath_linkat },
	{ "scm_rights", op_scm_rights },
	{ "pidfd_getfd", op_pidfd_getfd },
	{ "map_files", op_map_files },
	{ "map_read", op_map_read },
	{ "mprotect_write", op_mprotect_write },
	{ "vm_readv", op_vm_readv },
};

static int run_op(const char *name)
{
	return HELPER_RUN_OP("probe", ops, name, &verdict);
}

/* --map: map the first page, and fork a child that shares the mapping. */
static int map_first_page(void)
{
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("first mmap: %s\n", strerrorname_np(errno));
		return -1;
	}
	map_child = fork();
	if (map_child < 0)
		return -1;
	if (map_child == 0) {
		for (;;)
			pause();
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *before = NULL;
	bool want_map = false, fill = false, rdonly = false, async = false;
	int i = 1, ret = 0;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--map"))
			want_map = true;
		else if (!strcmp(argv[i], "--rdonly"))
			rdonly = true;
		else if (!strcmp(argv[i], "--fill"))
			fill = true;
		else if (!strcmp(argv[i], "--async"))
			async = true;
		else if (!strcmp(argv[i], "--before") && i + 1 < argc)
			before = argv[++i];
		else
			break;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: probe [--rdonly] [--map] [--fill] [--async] [--before CMD] PATH OP...\n");
		return 2;
	}
	path = argv[i++];
	if (!strcmp(path, "/dev/ptmx")) {
		fd = open_pty();
	} else {
		setenv("PROBE_PATH", path, 1);
		fd = rdonly ? -1 : open(path, O_RDWR);
		if (fd < 0)
			fd = open(path, O_RDONLY);
	}
	if (fd < 0) {
		printf("first open: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (fill && write(fd, "f", 1) != 1) {
		printf("fill: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (want_map && map_first_page())
		return 1;
	if (async && set_async())
		return 1;
	if (before) {
		fflush(stdout);
		if (system(before) != 0) {
			fprintf(stderr, "probe: '%s' failed\n", before);
			ret = 1;
		}
	}
	for (; !ret && i < argc; i++)
		if (run_op(argv[i]))
			ret = 2;
	if (map_child > 0) {
		kill(map_child, SIGKILL);
		waitpid(map_child, NULL, 0);
	}
	return ret;
}
