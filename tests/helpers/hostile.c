// SPDX-License-Identifier: GPL-2.0
/*
 * hostile - holders that try to keep a file after it is revoked, for
 * tests/vm/hostile.bats.  Each says what happens to it on stdout, one
 * line per event.
 *
 *	hostile spin FILE FIFO
 *		maps FILE (MAP_SHARED, read and write), opens FIFO and leaves
 *		a line in it, unmaps its [vdso], says "ready
 *		pid=PID fifo_fd=N", and spins in user space reading and
 *		writing the mapping, with no system call (so no "syscall"
 *		instruction to borrow).  On SIGBUS it reads FIFO's descriptor
 *		("fifo read: ERRNAME" or "fifo read: ok N"), checks that its
 *		spinning code is byte for byte what it was ("text intact" or
 *		"text changed"), says "SIGBUS si_code=NAME" and exits 0.
 *
 *	hostile chain FILE FLAG
 *		a subreaper whose child maps FILE and, in a loop, forks and
 *		exits, each child going on: every generation first looks
 *		whether FLAG exists, then reads the mapping; if FLAG existed
 *		before that read succeeded it says "read after add gen=N".
 *		The subreaper says "ready pid=PID" once the first child has
 *		mapped FILE, then reaps every generation and, once none is
 *		left, says "chain ended: generations=N exited=N sigbus=N
 *		sigkill=N other=N".
 *
 *	hostile traced FILE
 *		forks a child that maps FILE and reads it in a loop, and
 *		traces it (PTRACE_SEIZE, as any user may trace their own
 *		child): says "ready pid=PARENT child=CHILD", passes the
 *		child's signals on, and says "child ended: signal NAME" or
 *		"child ended: exit N" when it does.
 *
 *	hostile stuck map|fd FILE PATH GO
 *		maps FILE, opens PATH (a file of a FUSE server) and, with map,
 *		maps it and closes it, says "ready pid=PID", waits until GO
 *		exists, says "reading" and reads PATH (the server no longer
 *		answers by then), through the mapping or the descriptor, and
 *		says "read:
 *		..." if that ever returns.  With fd, the descriptor is still
 *		open when the process exits, and its close waits for the
 *		server's answer to FUSE_FLUSH.
 *
 *	hostile vfork FILE
 *		opens and maps FILE, then vfork()s a child that never execs
 *		nor exits (it waits in pause()): the parent sleeps in the
 *		kernel until it does, where no signal but SIGKILL reaches it.
 *		The child says "ready pid=PARENT child=CHILD"; the parent
 *		says "vfork returned" if it ever runs again.
 *
 *	hostile spawn FILE FIFO
 *		maps FILE, then posix_spawn()s a child whose file action
 *		opens FIFO, which blocks (glibc: clone3 with CLONE_VFORK, so
 *		the parent sleeps until the child execs or exits); says
 *		"ready pid=PID" from a thread first, and "spawned" if
 *		posix_spawn() returns
 *
 *	hostile vfork-threads FILE
 *		as vfork, with two more threads asleep in pause() beside the
 *		vfork()ing one; after the child's "ready" line the parent,
 *		once back, reads its mapping ("read after vfork" or SIGBUS)
 *
 *	hostile stack FILE [PATH]
 *		maps FILE (MAP_SHARED), points its stack pointer at the
 *		middle of a page-aligned 8 KiB buffer of 'A' and spins there
 *		without touching memory, saying "ready pid=PID buf=ADDR"
 *		first; with PATH (a file of a FUSE server that answers
 *		nothing more), at the end of a never-touched MAP_PRIVATE
 *		mapping of PATH instead, where any access of the daemon's
 *		would wait on the server.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

#define TEXT_LEN 64

static volatile char *map;
static char stack_buf[8192] __attribute__((aligned(4096)));
static int fifo_fd = -1;
static unsigned char text_copy[TEXT_LEN];

static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

static volatile char *map_file(const char *path, int prot)
{
	int fd = open(path, prot & PROT_WRITE ? O_RDWR : O_RDONLY);
	void *p;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	p = mmap(NULL, 4096, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	close(fd);
	return p;
}

/* The loop of "spin": no call, no syscall instruction, and it never ends. */
static __attribute__((noinline, noreturn)) void spin(void)
{
	for (;;)
		map[1] = map[0];
}

static void spin_on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char c;
	ssize_t r;

	(void)sig;
	(void)uc;
	r = read(fifo_fd, &c, 1);
	if (r < 0)
		say("fifo read: %s", ename(errno));
	else
		say("fifo read: ok %zd", r);
	say("text %s", memcmp(text_copy, (const void *)spin, TEXT_LEN) ?
	    "changed" : "intact");
	say("SIGBUS si_code=%s", si->si_code == BUS_ADRERR ? "BUS_ADRERR" :
	    "other");
	_exit(0);
}

/* Unmap the mappings named @name in /proc/self/maps. */
static int unmap_named(const char *name)
{
	unsigned long start, end;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, name) ||
		    sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		if (munmap((void *)start, end - start))
			n = -1;
		else if (n >= 0)
			n++;
	}
	fclose(f);
	return n;
}

static int do_spin(const char *file, const char *fifo)
{
	struct sigaction sa = { .sa_sigaction = spin_on_sigbus,
				.sa_flags = SA_SIGINFO };

	map = map_file(file, PROT_READ | PROT_WRITE);
	fifo_fd = open(fifo, O_RDWR);
	if (fifo_fd < 0 || write(fifo_fd, "buffered\n", 9) != 9) {
		perror(fifo);
		return 1;
	}
	memcpy(text_copy, (const void *)spin, TEXT_LEN);
	sigaction(SIGBUS, &sa, NULL);
	if (unmap_named("[vdso]") != 1) {
		say("cannot unmap [vdso]");
		return 1;
	}
	say("ready pid=%d fifo_fd=%d", (int)getpid(), fifo_fd);
	spin();
}

/* One generation of "chain": look, read, fork, and leave it to the child. */
static __attribute__((noreturn)) void chain_link(const char *flag)
{
	unsigned long gen;
	int after;
	pid_t pid;

	for (gen = 1;; gen++) {
		after = !access(flag, F_OK);
		if (map[0] && after)
			say("read after add gen=%lu", gen);
		do
			pid = fork();
		while (pid < 0 && errno == EAGAIN);
		if (pid)
			_exit(pid < 0 ? 1 : 0);
	}
}

static int do_chain(const char *file, const char *flag)
{
	unsigned long gens = 0, exited = 0, sigbus = 0, sigkill = 0, other = 0;
	int ready[2], status;
	char c;
	pid_t pid;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) || pipe(ready))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		map = map_file(file, PROT_READ);
		close(ready[1]);
		chain_link(flag);
	}
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 0)
		return 1;
	say("ready pid=%d", (int)getpid());
	while ((pid = wait(&status)) > 0) {
		gens++;
		if (WIFEXITED(status))
			exited++;
		else if (WTERMSIG(status) == SIGBUS)
			sigbus++;
		else if (WTERMSIG(status) == SIGKILL)
			sigkill++;
		else
			other++;
	}
	say("chain ended: generations=%lu exited=%lu sigbus=%lu sigkill=%lu "
	    "other=%lu", gens, exited, sigbus, sigkill, other);
	return 0;
}

static int do_traced(const char *file)
{
	int status, sig;
	pid_t child;

	map = map_file(file, PROT_READ);
	child = fork();
	if (child == 0) {
		for (;;) {
			(void)map[0];
			usleep(2000);
		}
	}
	if (child < 0 || ptrace(PTRACE_SEIZE, child, NULL, NULL)) {
		perror("ptrace");
		return 1;
	}
	say("ready pid=%d child=%d", (int)getpid(), (int)child);
	while (waitpid(child, &status, __WALL) == child) {
		if (WIFEXITED(status)) {
			say("child ended: exit %d", WEXITSTATUS(status));
			return 0;
		}
		if (WIFSIGNALED(status)) {
			say("child ended: signal %s",
			    sigabbrev_np(WTERMSIG(status)) ?: "?");
			return 0;
		}
		/* a signal-delivery stop: pass the signal on */
		sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;
		ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig);
	}
	return 1;
}

static int do_stuck(const char *how, const char *file, const char *path,
		    const char *go)
{
	volatile char *fuse_map = NULL;
	char buf[64];
	ssize_t r;
	int fd;

	map = map_file(file, PROT_READ);
	if (!strcmp(how, "map")) {
		fuse_map = map_file(path, PROT_READ);
		fd = -1;
	} else {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			return 1;
		}
	}
	say("ready pid=%d", (int)getpid());
	while (access(go, F_OK))
		usleep(10000);
	say("reading");
	if (fuse_map) {
		buf[0] = fuse_map[0];
		say("read: ok");
		return 0;
	}
	r = read(fd, buf, sizeof(buf));
	say("read: %s", r < 0 ? ename(errno) : "ok");
	return 0;
}

static int do_stack(const char *file, const char *path)
{
	char *sp = stack_buf + 4096;
	void *p;
	int fd;

	map = map_file(file, PROT_READ | PROT_WRITE);
	memset(stack_buf, 'A', sizeof(stack_buf));
	if (path) {
		fd = open(path, O_RDONLY);
		p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			perror(path);
			return 1;
		}
		close(fd);
		sp = (char *)p + 4096;
	}
	say("ready pid=%d buf=%lu", (int)getpid(), (unsigned long)stack_buf);
	__asm__ volatile("mov %0, %%rsp\n1: jmp 1b\n" : : "r"(sp) : "memory");
	return 0;
}

/* a number in decimal at the end of @end (no stdio in a vfork child) */
static char *decimal(char *end, long n)
{
	*--end = '\0';
	do
		*--end = (char)('0' + n % 10);
	while (n /= 10);
	return end;
}

static int do_vfork(const char *path)
{
	static char line[64], num[2][24];
	pid_t parent = getpid();

	map = map_file(path, PROT_READ);
	if (open(path, O_RDONLY) < 0) {
		perror(path);
		return 1;
	}
	if (!vfork()) {
		/* the parent's memory: only static buffers and system calls */
		strcpy(line, "ready pid=");
		strcat(line, decimal(num[0] + sizeof(num[0]), parent));
		strcat(line, " child=");
		strcat(line, decimal(num[1] + sizeof(num[1]), getpid()));
		strcat(line, "\n");
		if (write(1, line, strlen(line)) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	say("vfork returned");
	return 0;
}

static void *pause_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Say "ready" once the main thread is asleep in posix_spawn(). */
static void *spawn_ready(void *arg)
{
	usleep(200000);
	say("ready pid=%d", (int)(long)arg);
	return NULL;
}

static int do_spawn(const char *path, const char *fifo)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "true", NULL };
	pthread_t th;
	pid_t child;

	map = map_file(path, PROT_READ);
	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_addopen(&fa, 0, fifo, O_RDONLY, 0) ||
	    pthread_create(&th, NULL, spawn_ready, (void *)(long)getpid())) {
		perror("spawn setup");
		return 1;
	}
	if (posix_spawnp(&child, "true", &fa, NULL, argv, NULL)) {
		perror("posix_spawn");
		return 1;
	}
	say("spawned");
	return 0;
}

static int do_vfork_threads(const char *path)
{
	pthread_t th;
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&th, NULL, pause_thread, NULL)) {
			perror("pthread_create");
			return 1;
		}
	do_vfork(path);
	say("read after vfork: %c", map[0]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "spin"))
		return do_spin(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "chain"))
		return do_chain(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "traced"))
		return do_traced(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "stuck") &&
	    (!strcmp(argv[2], "map") || !strcmp(argv[2], "fd")))
		return do_stuck(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 3 && !strcmp(argv[1], "vfork"))
		return do_vfork(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "vfork-threads"))
		return do_vfork_threads(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "spawn"))
		return do_spawn(argv[2], argv[3]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "stack"))
		return do_stack(argv[2], argc == 4 ? argv[3] : NULL);
	fprintf(stderr, "usage: hostile spin FILE FIFO | chain FILE FLAG | "
		"traced FILE | stuck map|fd FILE PATH GO | vfork FILE | "
		"vfork-threads FILE | spawn FILE FIFO | "
		"stack FILE [PATH]\n");
	return 2;
}
