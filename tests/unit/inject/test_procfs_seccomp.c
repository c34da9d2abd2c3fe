// SPDX-License-Identifier: GPL-2.0
/*
 * test_procfs_seccomp.c - a field of /proc/PID/status read by name, and
 * the ptrace options revoke-bpfd seizes with: PTRACE_O_SUSPEND_SECCOMP
 * unless it is under a seccomp filter itself (the kernel refuses it then,
 * as it did to the daemon under a unit with SystemCallFilter=).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject/inject.h"
#include "tap.h"

/* Put the caller under a seccomp filter that allows everything. */
static int allow_all_filter(void)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &insn };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * In a child under a filter: exit 0 if it sees itself under seccomp and
 * would seize without PTRACE_O_SUSPEND_SECCOMP, else what went wrong.
 * With @ready >= 0, says so on it once under the filter and parks, for
 * the parent to look at it.
 */
static void child(int ready)
{
	if (allow_all_filter())
		_exit(10);
	if (ready >= 0) {
		if (write(ready, "", 1) != 1)
			_exit(14);
		for (;;)
			pause();
	}
	if (!procfs_under_seccomp(0))
		_exit(11);
	if (tracee_seize_opts() & PTRACE_O_SUSPEND_SECCOMP)
		_exit(12);
	if (!(tracee_seize_opts() & PTRACE_O_TRACESYSGOOD))
		_exit(13);
	_exit(0);
}

int main(void)
{
	long val = -1;
	pid_t pid;
	int status = -1, p[2];
	char c;

	CHECK("Pid is read by name, not taken for PPid or TracerPid",
	      procfs_status_long("/proc/self/status", "Pid", &val) == 0 &&
	      val == getpid());
	val = 42;
	CHECK("a field the file lacks is -ENOENT, the value untouched",
	      procfs_status_long("/proc/self/status", "NoSuchField", &val) == -ENOENT &&
	      val == 42);
	CHECK("a file that cannot be read is -ENOENT",
	      procfs_status_long("/proc/0/status", "Pid", &val) == -ENOENT);

	if (pipe(p))
		return 1;
	pid = fork();
	if (pid == 0)
		child(p[1]);
	CHECK("another process under a filter is seen as under seccomp",
	      pid > 0 && read(p[0], &c, 1) == 1 && procfs_under_seccomp(pid));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	pid = fork();
	if (pid == 0)
		child(-1);
	waitpid(pid, &status, 0);
	CHECK("under a filter itself, it seizes without PTRACE_O_SUSPEND_SECCOMP",
	      WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* after the child: tracee_seize_opts() decides once, for good */
	CHECK("this test runs under no seccomp filter",
	      !procfs_under_seccomp(0));
	CHECK("so threads are seized with PTRACE_O_SUSPEND_SECCOMP",
	      tracee_seize_opts() == TRACEE_SEIZE_OPTS);

	return tap_done();
}
