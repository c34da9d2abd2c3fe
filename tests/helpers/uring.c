// SPDX-License-Identifier: GPL-2.0
/*
 * uring - keep a file through io_uring only, run a command (revoke-bpf
 * add), then try to reach the file through the ring and print what each
 * try got, one line each: "OP: N" (bytes) or "OP: ERRNAME" (the CQE's
 * result).  For tests/vm/uring.bats.
 *
 *	uring buffer PATH|--memfd --before CMD
 *		a registered buffer over PATH's first page (MAP_SHARED), or
 *		over a memfd's (which a child keeps open), mapping and
 *		descriptor closed before CMD;
 *		then write_fixed (buffer -> a new file: what it leaks) and
 *		read_fixed (a file of 'X' -> buffer: what it overwrites)
 *	uring fifo PATH --before CMD
 *		FIFO PATH opened, "buffered" written into it, registered as
 *		fixed file 0, descriptor closed before CMD; then splice_out
 *		(fixed file -> a pipe) and splice_in (a pipe -> fixed file)
 *	uring fifo-sqpoll PATH --before CMD
 *		as fifo, with a kernel thread polling the submission queue
 *		(IORING_SETUP_SQPOLL): it, not this process, issues the calls
 *	uring buffer-pending PATH --before CMD
 *		as buffer, and a READ_FIXED into the buffer from an empty
 *		pipe in flight during CMD; after it, the pipe gets a page of
 *		'X' and pending_read_fixed is what the read got
 *	uring fifo-pending PATH --before CMD
 *		FIFO PATH, empty, as fixed file 0, and a splice out of it in
 *		flight (blocked) during CMD; pending_splice is what it got
 *	uring regring PATH --before CMD
 *		as fifo, but the ring is registered (IORING_REGISTER_RING_FDS)
 *		and its descriptor closed before CMD: it is used by index
 *	uring mapped PATH --before CMD
 *		as fifo-sqpoll, and the ring's descriptor closed before CMD:
 *		the ring lives on through the mappings of its queues, which
 *		the polling thread reads
 *	uring fixed-anonbuf PATH --before CMD
 *		as fifo, and one registered buffer: a page of this program's
 *		own .bss (anonymous memory, nothing of PATH in it); after CMD,
 *		splice_out, then write_fixed and read_fixed through the
 *		buffer (which must still work: only the file is taken away)
 *	uring anon-pool N --before CMD
 *		one ring with N registered buffers, each over the same 64 MiB
 *		of anonymous memory (N = 65: more pages than a walk's bound
 *		of 2^20), and no file; after CMD, "alive"
 *	uring msgring PATH --before CMD
 *		as fifo, and a second ring with one empty slot; after CMD,
 *		msg_ring (IORING_MSG_SEND_FD of fixed file 0 to the second
 *		ring's slot 0), then splice_out from the second ring's slot
 *
 * CMD finds this process's pid in $URING_PID and its (first) ring's
 * descriptor in $URING_FD; with --memfd, the memfd's inode in $URING_INO
 * and its filesystem in $URING_DEV (MAJ:MIN).  "leaked: TEXT" prints what
 * write_fixed wrote, if anything.  The process exits 0 once every line
 * is printed, 1 on a setup failure (with a message on stderr).  It is
 * killed by SIGALRM after $URING_ALARM seconds (default 20).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PAGE 4096
#define FIFO_DATA "buffered"

static void die(const char *what, int err)
{
	fprintf(stderr, "uring: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* Submit @sqe's request on @ring, wait for it, return its result. */
static int complete(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit(ring);
	if (ret != 1)
		die("io_uring_submit", ret < 0 ? ret : EIO);
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		die("io_uring_wait_cqe", ret);
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static struct io_uring_sqe *sqe_of(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		die("io_uring_get_sqe", EBUSY);
	return sqe;
}

static void report(const char *op, int res)
{
	if (res >= 0)
		printf("%s: %d\n", op, res);
	else if (strerrorname_np(-res))
		printf("%s: %s\n", op, strerrorname_np(-res));
	else	/* a kernel-internal one, such as ERESTARTSYS (512) */
		printf("%s: errno %d\n", op, -res);
	fflush(stdout);
}

static void run_before(const char *cmd, const struct io_uring *ring)
{
	char n[32];

	snprintf(n, sizeof(n), "%d", (int)getpid());
	setenv("URING_PID", n, 1);
	snprintf(n, sizeof(n), "%d", ring->ring_fd);
	setenv("URING_FD", n, 1);
	fflush(stdout);
	if (system(cmd) != 0) {
		fprintf(stderr, "uring: '%s' failed\n", cmd);
		exit(1);
	}
}

/* A file's first page, made of @c, on an unlinked file in /tmp. */
static int filled(char c)
{
	char page[PAGE];
	int fd;

	fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	if (fd < 0)
		die("O_TMPFILE", errno);
	memset(page, c, sizeof(page));
	if (pwrite(fd, page, sizeof(page), 0) != PAGE)
		die("pwrite", errno);
	return fd;
}

/* The file the buffer is over: PATH, or a new memfd named in the env. */
static int buffer_file(const char *path)
{
	char dev[32], ino[32], page[PAGE];
	struct stat st;
	pid_t child;
	int fd;

	if (strcmp(path, "--memfd")) {
		fd = open(path, O_RDWR);
		if (fd < 0)
			die(path, errno);
		return fd;
	}
	fd = memfd_create("uring-buffer", 0);
	memset(page, 'M', sizeof(page));
	if (fd < 0 || pwrite(fd, page, sizeof(page), 0) != PAGE || fstat(fd, &st))
		die("memfd", errno);
	/*
	 * A child keeps the memfd: once no descriptor or mapping is left,
	 * the memfd is gone and its pages, still pinned by the ring, are no
	 * file's any more.  It dies with this process.
	 */
	child = fork();
	if (child < 0)
		die("fork", errno);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		for (;;)
			pause();
	}
	snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)st.st_ino);
	setenv("URING_DEV", dev, 1);
	setenv("URING_INO", ino, 1);
	return fd;
}

static int mode_buffer(const char *path, const char *cmd)
{
	struct io_uring ring;
	char out[PAGE + 1];
	struct iovec iov;
	int fd, sink, src, ret;
	ssize_t n;

	fd = buffer_file(path);
	iov.iov_len = PAGE;
	iov.iov_base = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (iov.iov_base == MAP_FAILED)
		die("mmap", errno);
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		die("io_uring_register_buffers", ret);
	if (munmap(iov.iov_base, PAGE) || close(fd))
		die("munmap, close", errno);
	run_before(cmd, &ring);

	/* what the buffer still shows of the file */
	sink = filled('-');
	io_uring_prep_write_fixed(sqe_of(&ring), sink, iov.iov_base, PAGE, 0, 0);
	report("write_fixed", complete(&ring));
	n = pread(sink, out, PAGE, 0);
	out[n > 16 ? 16 : n > 0 ? n : 0] = '\0';
	if (out[0] && out[0] != '-')	/* the sink's '-' was overwritten */
		printf("leaked: %s\n", out);

	/* what the buffer can still change of the file */
	src = filled('X');
	io_uring_prep_read_fixed(sqe_of(&ring), src, iov.iov_base, PAGE, 0, 0);
	report("read_fixed", complete(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}

/* Wait for the one request in flight on @ring; its result. */
static int wait_one(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		die("io_uring_wait_cqe", ret);
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static void submit_one(struct io_uring *ring)
{
	int ret = io_uring_submit(ring);

	if (ret != 1)
		die("io_uring_submit", ret < 0 ? ret : EIO);
	usleep(200000);		/* let it block */
}

static int mode_buffer_pending(const char *path, const char *cmd)
{
	struct io_uring ring;
	char page[PAGE];
	struct iovec iov;
	int fd, p[2], ret;

	fd = buffer_file(path);
	iov.iov_len = PAGE;
	iov.iov_base = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (iov.iov_base == MAP_FAILED)
		die("mmap", errno);
	ret = io_uring_queue_init(4, &ring, 0);
	if (!ret)
		ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		die("io_uring", ret);
	if (munmap(iov.iov_base, PAGE) || close(fd) || pipe(p))
		die("munmap, close, pipe", errno);
	io_uring_prep_read_fixed(sqe_of(&ring), p[0], iov.iov_base, PAGE, 0, 0);
	submit_one(&ring);
	run_before(cmd, &ring);
	memset(page, 'X', sizeof(page));
	if (write(p[1], page, sizeof(page)) != PAGE)
		die("write", errno);
	report("pending_read_fixed", wait_one(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}

/*
 * A ring (set up with @flags) with FIFO @path as fixed file 0,
 * "buffered" in it, fd closed.
 */
static void fifo_ring(struct io_uring *ring, const char *path,
		      unsigned int flags)
{
	int fd, ret;

	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path, errno);
	if (write(fd, FIFO_DATA, strlen(FIFO_DATA)) != (ssize_t)strlen(FIFO_DATA))
		die("write", errno);
	ret = io_uring_queue_init(4, ring, flags);
	if (ret)
		die("io_uring_queue_init", ret);
	ret = io_uring_register_files(ring, &fd, 1);
	if (ret)
		die("io_uring_register_files", ret);
	close(fd);
}

/* Splice up to 64 bytes out of fixed file 0 of @ring into a new pipe. */
static int splice_out(struct io_uring *ring)
{
	int p[2], ret;

	if (pipe2(p, O_NONBLOCK))
		die("pipe", errno);
	io_uring_prep_splice(sqe_of(ring), 0, -1, p[1], -1, 64,
			     SPLICE_F_FD_IN_FIXED | SPLICE_F_NONBLOCK);
	ret = complete(ring);
	close(p[0]);
	close(p[1]);
	return ret;
}

/* Splice "in" from a new pipe into fixed file 0 of @ring. */
static int splice_in(struct io_uring *ring)
{
	struct io_uring_sqe *sqe;
	int p[2], ret;

	if (pipe(p) || write(p[1], "in", 2) != 2)
		die("pipe", errno);
	sqe = sqe_of(ring);
	io_uring_prep_splice(sqe, p[0], -1, 0, -1, 2, SPLICE_F_NONBLOCK);
	sqe->flags |= IOSQE_FIXED_FILE;	/* the output is fixed file 0 */
	ret = complete(ring);
	close(p[0]);
	close(p[1]);
	return ret;
}

static int mode_fifo(const char *path, const char *cmd, unsigned int flags)
{
	struct io_uring ring;

	fifo_ring(&ring, path, flags);
	run_before(cmd, &ring);
	report("splice_out", splice_out(&ring));
	report("splice_in", splice_in(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}

static int mode_fifo_pending(const char *path, const char *cmd)
{
	struct io_uring ring;
	int fd, p[2], ret;

	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path, errno);
	ret = io_uring_queue_init(4, &ring, 0);
	if (!ret)
		ret = io_uring_register_files(&ring, &fd, 1);
	if (ret)
		die("io_uring", ret);
	if (close(fd) || pipe(p))
		die("close, pipe", errno);
	io_uring_prep_splice(sqe_of(&ring), 0, -1, p[1], -1, 64,
			     SPLICE_F_FD_IN_FIXED);
	submit_one(&ring);
	run_before(cmd, &ring);
	report("pending_splice", wait_one(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}

static int mode_regring(const char *path, const char *cmd)
{
	struct io_uring ring;
	int ret;

	fifo_ring(&ring, path, 0);
	ret = io_uring_register_ring_fd(&ring);
	if (ret != 1)
		die("io_uring_register_ring_fd", ret < 0 ? ret : EIO);
	close(ring.ring_fd);	/* submissions go by the registered index */
	run_before(cmd, &ring);		/* $URING_FD: the descriptor closed */
	report("splice_out", splice_out(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}

static int mode_mapped(const char *path, const char *cmd)
{
	struct io_uring ring;

	fifo_ring(&ring, path, IORING_SETUP_SQPOLL);
	close(ring.ring_fd);	/* the queues stay mapped */
	run_before(cmd, &ring);
	report("splice_out", splice_out(&ring));
	return 0;
}

/* a page of .bss: anonymous memory once written */
static char anon_page[PAGE] __attribute__((aligned(PAGE)));

static int mode_fixed_anonbuf(const char *path, const char *cmd)
{
	struct iovec iov = { .iov_base = anon_page, .iov_len = PAGE };
	struct io_uring ring;
	int sink, src, ret;

	fifo_ring(&ring, path, 0);
	memset(anon_page, 'A', PAGE);
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		die("io_uring_register_buffers", ret);
	run_before(cmd, &ring);
	report("splice_out", splice_out(&ring));
	sink = filled('-');
	io_uring_prep_write_fixed(sqe_of(&ring), sink, anon_page, PAGE, 0, 0);
	report("write_fixed", complete(&ring));
	src = filled('X');
	io_uring_prep_read_fixed(sqe_of(&ring), src, anon_page, PAGE, 0, 0);
	report("read_fixed", complete(&ring));
	io_uring_queue_exit(&ring);
	return 0;
}

#define POOL_BYTES (64ul << 20)

static int mode_anon_pool(const char *n, const char *cmd)
{
	int i, nr = atoi(n), ret;
	struct io_uring ring;
	struct iovec *iov;
	void *pool;

	pool = mmap(NULL, POOL_BYTES, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	iov = calloc(nr > 0 ? nr : 1, sizeof(*iov));
	if (pool == MAP_FAILED || !iov || nr <= 0)
		die("the pool", pool == MAP_FAILED ? errno : EINVAL);
	madvise(pool, POOL_BYTES, MADV_NOHUGEPAGE);	/* a page a bvec */
	memset(pool, 'P', POOL_BYTES);
	for (i = 0; i < nr; i++)
		iov[i] = (struct iovec){ pool, POOL_BYTES };
	ret = io_uring_queue_init(4, &ring, 0);
	if (!ret)
		ret = io_uring_register_buffers(&ring, iov, (unsigned int)nr);
	if (ret)
		die("io_uring_register_buffers", ret);
	run_before(cmd, &ring);
	printf("alive\n");
	io_uring_queue_exit(&ring);
	return 0;
}

static int mode_msgring(const char *path, const char *cmd)
{
	struct io_uring ring, other;
	struct io_uring_sqe *sqe;
	int ret;

	fifo_ring(&ring, path, 0);
	ret = io_uring_queue_init(4, &other, 0);
	if (!ret)
		ret = io_uring_register_files_sparse(&other, 1);
	if (ret)
		die("the second ring", ret);
	run_before(cmd, &ring);
	sqe = sqe_of(&ring);
	io_uring_prep_rw(IORING_OP_MSG_RING, sqe, other.ring_fd, NULL, 0, 0);
	sqe->addr = IORING_MSG_SEND_FD;
	sqe->addr3 = 0;		/* our fixed file 0 */
	sqe->file_index = 1;	/* to the other ring's slot 0 */
	report("msg_ring", complete(&ring));
	report("splice_out", splice_out(&other));
	io_uring_queue_exit(&other);
	io_uring_queue_exit(&ring);
	return 0;
}

int main(int argc, char **argv)
{
	/* a request that is never ended kills it: no hang */
	alarm(getenv("URING_ALARM") ? (unsigned int)atoi(getenv("URING_ALARM")) : 20);
	if (argc != 5 || strcmp(argv[3], "--before")) {
		fprintf(stderr, "usage: uring buffer|buffer-pending|fifo|fifo-sqpoll|fifo-pending|regring|"
			"msgring|mapped|fixed-anonbuf|anon-pool "
			"PATH|--memfd|N "
			"--before CMD\n");
		return 2;
	}
	if (!strcmp(argv[1], "buffer"))
		return mode_buffer(argv[2], argv[4]);
	if (!strcmp(argv[1], "fifo"))
		return mode_fifo(argv[2], argv[4], 0);
	if (!strcmp(argv[1], "fifo-sqpoll"))
		return mode_fifo(argv[2], argv[4], IORING_SETUP_SQPOLL);
	if (!strcmp(argv[1], "buffer-pending"))
		return mode_buffer_pending(argv[2], argv[4]);
	if (!strcmp(argv[1], "fifo-pending"))
		return mode_fifo_pending(argv[2], argv[4]);
	if (!strcmp(argv[1], "regring"))
		return mode_regring(argv[2], argv[4]);
	if (!strcmp(argv[1], "msgring"))
		return mode_msgring(argv[2], argv[4]);
	if (!strcmp(argv[1], "anon-pool"))
		return mode_anon_pool(argv[2], argv[4]);
	if (!strcmp(argv[1], "fixed-anonbuf"))
		return mode_fixed_anonbuf(argv[2], argv[4]);
	if (!strcmp(argv[1], "mapped"))
		return mode_mapped(argv[2], argv[4]);
	fprintf(stderr, "uring: unknown mode '%s'\n", argv[1]);
	return 2;
}
