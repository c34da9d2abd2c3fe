// SPDX-License-Identifier: GPL-2.0
/*
 * holder - a process that holds a file the way real programs do, for the
 * pipeline tests: blocked in read, poll, epoll or select on it, mapping
 * and touching it, or just keeping it open.  It says what happens to it,
 * one line per event, on stdout:
 *
 *	ready pid=PID			set up; the test may revoke now
 *	read: ERRNAME | read: ok N	a read returned
 *	poll: N revents=0xX		poll returned
 *	epoll: N events=0xX data=D	epoll_wait returned
 *	select: N readable=0|1		select returned
 *	SIGBUS si_code=NAME		a mapping faulted (the process exits)
 *
 * MODE pty opens a new pseudo-terminal (PATH is /dev/ptmx), says
 * "ready pid=PID slave=/dev/pts/N", and blocks reading the slave.
 * usage: holder [--threads N] [--maps N] [--close] [--seccomp] [--zombie-leader]
 *	[--exec-every MS] MODE PATH
 *	MODE: read poll epoll select mmap hold
 * --close (MODE mmap): the descriptor is closed once PATH is mapped, so
 * that the process holds PATH by its mappings only.
 * --seccomp forbids memfd_create and dup3 (SECCOMP_RET_KILL_PROCESS), the
 * calls revoke-bpfd injects: they only work under PTRACE_O_SUSPEND_SECCOMP.
 * --zombie-leader (with --threads 2 or more): the main thread exits once
 * ready, and the other threads go on.
 * --sigtrap block|ignore|catch: SIGTRAP blocked, ignored or caught
 * before "ready"; the SIGBUS line then says how SIGTRAP stands when the
 * fault comes (sigtrap=blocked|unblocked,default|ignore|catch), and a
 * SIGTRAP that reaches the handler says "SIGTRAP".
 * --exec-every MS (MODE mmap): every MS milliseconds the holder executes
 * itself again with the same arguments, so it opens and maps PATH anew
 * (and says "ready" again): a process that execs while it is handled.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static int fd;
static const char *mode;
static int nmaps = 1;
static volatile char **maps;
static char **self_argv;
static int exec_every_ms;
static const char *sigtrap;


static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

static void read_once(void)
{
	char c;
	ssize_t r = read(fd, &c, 1);

	if (r < 0)
		say("read: %s", ename(errno));
	else
		say("read: ok %zd", r);
}

static void on_sigtrap(int sig)
{
	(void)sig;
	if (write(1, "SIGTRAP\n", 8) < 0)
		_exit(3);
}

/* How SIGTRAP stands, for the SIGBUS line of --sigtrap. */
static const char *sigtrap_state(void)
{
	struct sigaction act;
	sigset_t cur;
	bool blocked;

	sigprocmask(SIG_BLOCK, NULL, &cur);
	sigaction(SIGTRAP, NULL, &act);
	blocked = sigismember(&cur, SIGTRAP);
	if (act.sa_handler == SIG_IGN)
		return blocked ? " sigtrap=blocked,ignore" : " sigtrap=unblocked,ignore";
	if (act.sa_handler == on_sigtrap)
		return blocked ? " sigtrap=blocked,catch" : " sigtrap=unblocked,catch";
	return blocked ? " sigtrap=blocked,default" : " sigtrap=unblocked,default";
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char line[96];
	int n;

	(void)sig;
	(void)uc;
	n = snprintf(line, sizeof(line), "SIGBUS si_code=%s%s\n",
		     si->si_code == BUS_ADRERR ? "BUS_ADRERR" :
		     si->si_code == BUS_ADRALN ? "BUS_ADRALN" : "other",
		     sigtrap ? sigtrap_state() : "");
	if (write(1, line, (size_t)n) < 0)
		_exit(3);
	_exit(0);
}

/* With --exec-every, execute this program again once its time is up. */
static void maybe_exec(struct timespec *since)
{
	struct timespec now;

	if (!exec_every_ms)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - since->tv_sec) * 1000 +
	    (now.tv_nsec - since->tv_nsec) / 1000000 < exec_every_ms)
		return;
	execv("/proc/self/exe", self_argv);
	say("exec: %s", ename(errno));
	_exit(1);
}

static void *worker(void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 4242 };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	fd_set rs;
	int ep, r, i;

	(void)arg;
	if (!strcmp(mode, "read")) {
		read_once();
	} else if (!strcmp(mode, "poll")) {
		r = poll(&p, 1, -1);
		say("poll: %d revents=0x%x", r < 0 ? -errno : r, p.revents);
		read_once();
	} else if (!strcmp(mode, "epoll")) {
		ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
		memset(&ev, 0, sizeof(ev));
		r = epoll_wait(ep, &ev, 1, -1);
		say("epoll: %d events=0x%x data=%llu", r < 0 ? -errno : r,
		    ev.events, (unsigned long long)ev.data.u64);
		read_once();
	} else if (!strcmp(mode, "select")) {
		FD_ZERO(&rs);
		FD_SET(fd, &rs);
		r = select(fd + 1, &rs, NULL, NULL, NULL);
		say("select: %d readable=%d", r < 0 ? -errno : r, FD_ISSET(fd, &rs));
		read_once();
	} else if (!strcmp(mode, "mmap")) {
		struct timespec since;

		clock_gettime(CLOCK_MONOTONIC, &since);
		for (;;) {
			for (i = 0; i < nmaps; i++)
				(void)*maps[i];
			usleep(2000);
			maybe_exec(&since);
		}
	} else {
		for (;;)
			pause();
	}
	return NULL;
}

static int pty_reader(const char *ptmx)
{
	int master = open(ptmx, O_RDWR | O_NOCTTY);
	char *name;

	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    !(name = ptsname(master))) {
		perror(ptmx);
		return 1;
	}
	fd = open(name, O_RDWR | O_NOCTTY);
	if (fd < 0) {
		perror(name);
		return 1;
	}
	say("ready pid=%d slave=%s", (int)getpid(), name);
	read_once();
	return 0;
}

static int forbid_injection(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_dup3, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* --sigtrap: 0, or -1 for an unknown word. */
static int set_sigtrap(const char *how)
{
	sigset_t trap;

	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	if (!strcmp(how, "block"))
		return sigprocmask(SIG_BLOCK, &trap, NULL);
	if (!strcmp(how, "ignore"))
		return signal(SIGTRAP, SIG_IGN) == SIG_ERR ? -1 : 0;
	if (!strcmp(how, "catch"))
		return signal(SIGTRAP, on_sigtrap) == SIG_ERR ? -1 : 0;
	return -1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	int nthreads = 1, seccomp = 0, zombie_leader = 0, close_fd = 0, i;
	pthread_t *th;
	struct stat st;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--maps") && i + 1 < argc)
			nmaps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--close"))
			close_fd = 1;
		else if (!strcmp(argv[i], "--seccomp"))
			seccomp = 1;
		else if (!strcmp(argv[i], "--zombie-leader"))
			zombie_leader = 1;
		else if (!strcmp(argv[i], "--exec-every") && i + 1 < argc)
			exec_every_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sigtrap") && i + 1 < argc)
			sigtrap = argv[++i];
		else
			break;
	}
	if (argc - i != 2 || nthreads < 1 || nmaps < 1 || exec_every_ms < 0 ||
	    (zombie_leader && nthreads < 2) || (sigtrap && set_sigtrap(sigtrap))) {
		fprintf(stderr, "usage: holder [--threads N] [--maps N] [--close] [--seccomp] "
			"[--zombie-leader] [--exec-every MS] [--sigtrap block|ignore|catch] "
			"read|poll|epoll|select|mmap|hold PATH\n");
		return 2;
	}
	self_argv = argv;
	mode = argv[i];
	if (!strcmp(mode, "pty"))
		return pty_reader(argv[i + 1]);
	if (stat(argv[i + 1], &st)) {
		perror(argv[i + 1]);
		return 1;
	}
	/* O_RDWR on a FIFO: no wait for a writer, and reads block for good */
	fd = open(argv[i + 1], S_ISREG(st.st_mode) ? O_RDONLY : O_RDWR);
	if (fd < 0) {
		perror(argv[i + 1]);
		return 1;
	}
	maps = calloc((size_t)nmaps, sizeof(*maps));
	for (i = 0; !strcmp(mode, "mmap") && i < nmaps; i++) {
		maps[i] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (maps[i] == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	if (close_fd && !strcmp(mode, "mmap")) {
		close(fd);
		fd = -1;
	}
	sigaction(SIGBUS, &sa, NULL);
	if (seccomp && forbid_injection()) {
		perror("seccomp");
		return 1;
	}
	th = calloc((size_t)nthreads, sizeof(*th));
	for (i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	say("ready pid=%d", (int)getpid());
	/*
	 * The main thread exits, the process lives on with a zombie leader.
	 * The raw exit ends this thread only, and does not need libgcc_s for
	 * unwinding as pthread_exit() does (the guest has no libgcc_s).
	 */
	if (zombie_leader)
		syscall(SYS_exit, 0);
	worker(NULL);
	for (i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
