// SPDX-License-Identifier: GPL-2.0
/*
 * swarm - a population of holder processes for the pipeline benchmark
 * (bench/guest.sh): PROCS processes, each with FDS descriptors of PATH;
 * the first WAITERS of them block reading it (PATH a FIFO), the first
 * MAPS of them map it (PATH a regular file).
 *
 *	swarm PROCS FDS WAITERS MAPS PATH
 *
 * Prints "ready" once every process is set up, then waits.  SIGTERM (or
 * the death of swarm) ends every process of the population.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

static void child(int idx, int fds, int waiters, int maps, const char *path,
		  int ready_fd)
{
	int fd = -1, i;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
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

static void on_term(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

int main(int argc, char **argv)
{
	int procs, fds, waiters, maps, i, p[2];
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
	setpgid(0, 0);
	signal(SIGTERM, on_term);
	if (pipe(p))
		return 1;
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			kill(0, SIGKILL);
		}
		if (pid == 0) {
			close(p[0]);
			child(i, fds, waiters, maps, argv[5], p[1]);
		}
	}
	close(p[1]);
	for (i = 0; i < procs; i++)
		if (read(p[0], &c, 1) != 1) {
			fprintf(stderr, "swarm: a holder failed to set up\n");
			kill(0, SIGKILL);
		}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
