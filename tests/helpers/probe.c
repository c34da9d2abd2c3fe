// SPDX-License-Identifier: GPL-2.0
/*
 * probe - open a file, optionally run a command (such as a revocation),
 * then try operations on the descriptor opened before it and print, one
 * line each, "OP: ok" or "OP: ERRNAME".  The tests compare these lines.
 *
 *	probe [--before 'SHELL COMMAND'] PATH OP...
 *
 * OPs: open read write pread pwrite readv writev sendfile splice_read
 * splice_write mmap ioctl fstat
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *path;
static int fd;

static int op_open(void)
{
	int nfd = open(path, O_RDONLY);

	if (nfd < 0)
		return -1;
	close(nfd);
	return 0;
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
	int p[2], ret, saved;

	if (pipe(p))
		return -1;
	ret = fn(p);
	saved = errno;
	close(p[0]);
	close(p[1]);
	errno = saved;
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

static const struct {
	const char *name;
	int (*fn)(void);
} ops[] = {
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
};

static int run_op(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(name, ops[i].name))
			continue;
		errno = 0;
		if (ops[i].fn())
			printf("%s: %s\n", name, strerrorname_np(errno));
		else
			printf("%s: ok\n", name);
		fflush(stdout);
		return 0;
	}
	fprintf(stderr, "probe: unknown operation '%s'\n", name);
	return -1;
}

int main(int argc, char **argv)
{
	const char *before = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--before")) {
		before = argv[2];
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: probe [--before CMD] PATH OP...\n");
		return 2;
	}
	path = argv[i++];
	fd = open(path, O_RDWR);
	if (fd < 0)
		fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("first open: %s\n", strerrorname_np(errno));
		return 1;
	}
	if (before) {
		fflush(stdout);
		if (system(before) != 0) {
			fprintf(stderr, "probe: '%s' failed\n", before);
			return 1;
		}
	}
	for (; i < argc; i++)
		if (run_op(argv[i]))
			return 2;
	return 0;
}
