// SPDX-License-Identifier: GPL-2.0
/*
 * swarm - a population of holder processes for the pipeline benchmark
 * (bench/guest.sh): PROCS processes, each with FDS descriptors of PATH;
 * the first WAITERS of them block reading it (PATH a FIFO), the first
 * MAPS of them map it (PATH a regular file).
 *
 *	swarm PROCS FDS WAITERS MAPS PATH
 *
 * Prints "ready" once every process is set up, then waits.  SIGTERM ends
 * every process of the population and reaps it, so that no zombie is
 * left for init to collect; the death of swarm ends them too.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static sigset_t term;

static void child(int idx, int fds, int waiters, int maps, const char *path,
		  int ready_fd)
{
	int fd = -1, i;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &term, NULL);
	for (i = 0; i < fds; i++) {
		fd = open(path, O_RDWR);
		if (fd < 0) {
			perror(path);
			_exit(1);
		}
	}
	if (idx < maps && mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) ==
			  MAP_FAILED) {
		perror("mmap");
		_exit(1);
	}
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	close(ready_fd);
	if (idx < waiters)
		while (read(fd, &c, 1) > 0)
			;
	for (;;)
		pause();
}

static volatile sig_atomic_t stop;
static pid_t *pids;
static int npids;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Kill the population and reap every process of it.  A child that a
 * tracer holds as a zombie cannot be reaped: swarm gives up after 10 s
 * (SIGALRM), rather than hang whoever waits for it.
 */
static void end_all(void)
{
	int i;

	for (i = 0; i < npids; i++)
		kill(pids[i], SIGKILL);
	alarm(10);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	int procs, fds, waiters, maps, i, p[2];
	sigset_t old;
	char c;

	if (argc != 6) {
		fprintf(stderr, "usage: swarm PROCS FDS WAITERS MAPS PATH\n");
		return 2;
	}
	procs = atoi(argv[1]);
	fds = atoi(argv[2]);
	waiters = atoi(argv[3]);
	maps = atoi(argv[4]);
	if (procs < 1 || fds < 1 || waiters < 0 || maps < 0) {
		fprintf(stderr, "swarm: PROCS and FDS must be positive\n");
		return 2;
	}
	pids = calloc((size_t)procs, sizeof(*pids));
	if (!pids || pipe(p))
		return 1;
	/* SIGTERM held until sigsuspend(), so that none is missed */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	signal(SIGTERM, on_term);
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			end_all();
			return 1;
		}
		if (pid == 0) {
			close(p[0]);
			child(i, fds, waiters, maps, argv[5], p[1]);
		}
		pids[npids++] = pid;
	}
	close(p[1]);
	for (i = 0; i < procs; i++)
		if (read(p[0], &c, 1) != 1) {
			fprintf(stderr, "swarm: a holder failed to set up\n");
			end_all();
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	end_all();
	return 0;
}
