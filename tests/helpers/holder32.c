// SPDX-License-Identifier: GPL-2.0
/*
 * holder32 - a 32-bit process (gcc -m32 -static) that holds a file by a
 * mapping and reads it every 100 ms, for the test of what add does to a
 * holder whose system calls revoke-bpfd cannot inject (its injection is
 * for native, 64-bit processes).
 *
 *	holder32 PATH
 *
 * Says "ready pid=PID" once PATH is open and mapped, then "SIGBUS" if a
 * read of the mapping faults (and exits 7).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static void on_bus(int sig)
{
	(void)sig;
	if (write(1, "SIGBUS\n", 7) < 0)
		_exit(8);
	_exit(7);
}

int main(int argc, char **argv)
{
	volatile char *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: holder32 PATH\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	signal(SIGBUS, on_bus);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		(void)p[0];
		usleep(100000);
	}
}
