// SPDX-License-Identifier: GPL-2.0
/*
 * test_tracee.c - the injection layer (src/inject/) on a real child, with
 * nothing of the pipeline: tracee_attach() stops it where it sleeps in
 * read(2), an injected getpid() and close() run as the child, memory
 * written into it reads back, and after tracee_detach() it goes on as
 * if nothing had happened: the read it was asleep in gets its data.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject/inject.h"
#include "tap.h"

#define CHILD_FD 100	/* a descriptor of the child's that is closed in it */

/*
 * The child: says it is ready, then answers each byte read on @in with
 * the next byte on @out, until 'q'.
 */
static void child(int in, int out)
{
	char c;

	if (dup2(open("/dev/null", O_RDONLY), CHILD_FD) != CHILD_FD ||
	    write(out, "r", 1) != 1)
		_exit(10);
	for (;;) {
		if (read(in, &c, 1) != 1)
			_exit(11);
		if (c == 'q')
			_exit(0);
		c++;
		if (write(out, &c, 1) != 1)
			_exit(12);
	}
}

/* Is descriptor @fd open in process @pid? */
static int fd_open_in(pid_t pid, int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	return access(path, F_OK) == 0;
}

int main(void)
{
	unsigned long none[6] = { 0 }, close_args[6] = { CHILD_FD };
	int to[2], from[2], pidfd, status = -1;
	char why[128] = "", c = 0, back[8] = "";
	struct tracee t;
	unsigned long scratch;
	long ret = -1;
	pid_t pid;

	if (pipe(to) || pipe(from))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		child(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	CHECK("the child is ready", read(from[0], &c, 1) == 1 && c == 'r');
	/* let it fall asleep in read() */
	usleep(100 * 1000);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	CHECK("pidfd_open of the child", pidfd >= 0);

	CHECK("tracee_attach() stops the child asleep in read()",
	      tracee_attach(&t, pid, pidfd, 2000, why, sizeof(why)) == 0);
	CHECK("an injected getpid() returns the child's pid",
	      tracee_syscall(&t, SYS_getpid, none, &ret) == 0 && ret == pid);
	CHECK("the child's descriptor is open before the injected close",
	      fd_open_in(pid, CHILD_FD));
	CHECK("an injected close() of it returns 0",
	      tracee_syscall(&t, SYS_close, close_args, &ret) == 0 && ret == 0);
	CHECK("the descriptor is closed in the child", !fd_open_in(pid, CHILD_FD));
	CHECK("a second close() of it fails in the child with EBADF",
	      tracee_syscall(&t, SYS_close, close_args, &ret) == 0 &&
	      ret == -EBADF);
	scratch = tracee_stack_scratch(&t, sizeof(back));
	CHECK("memory written below the child's stack reads back",
	      scratch && tracee_write(&t, scratch, "hello", 6) == 0 &&
	      tracee_read(&t, scratch, back, 6) == 0 &&
	      !strcmp(back, "hello"));
	tracee_detach(&t);

	CHECK("after the detach, the read the child slept in gets its byte",
	      write(to[1], "a", 1) == 1 && read(from[0], &c, 1) == 1 &&
	      c == 'b');
	CHECK("and the child goes on: a second byte",
	      write(to[1], "x", 1) == 1 && read(from[0], &c, 1) == 1 &&
	      c == 'y');
	CHECK("the child exits 0 on its own, not traced any more",
	      write(to[1], "q", 1) == 1 && waitpid(pid, &status, 0) == pid &&
	      WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (why[0])
		printf("# tracee_attach: %s\n", why);
	close(pidfd);
	return tap_done();
}
