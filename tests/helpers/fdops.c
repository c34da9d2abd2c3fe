// SPDX-License-Identifier: GPL-2.0
/*
 * fdops - a user's program that keeps one descriptor of a device and
 * works on it when told, for the seat test (tests/system/seat.bats),
 * where it runs as a logind session's process: the test writes an
 * operation's name, one a line, into FIFO, and fdops prints what it
 * gave, one line each, on stdout:
 *
 *	ready pid=PID			listening on FIFO
 *	open: ok | open: ERRNAME	PATH opened (read-write), once
 *	read: ok N | read: ERRNAME	read(2) of the descriptor
 *	card_info: ok ID | ...: ERRNAME	an ALSA control device's
 *					SNDRV_CTL_IOCTL_CARD_INFO, its card's id
 *
 * usage: fdops PATH FIFO
 */
#include <fcntl.h>
#include <sound/asound.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "helper.h"

static const char *path;
static const char *verdict;
static char verdict_buf[128];
static int fd = -1;

static int op_open(void)
{
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -1 : 0;
}

static int op_read(void)
{
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return -1;
	snprintf(verdict_buf, sizeof(verdict_buf), "ok %zd", n);
	verdict = verdict_buf;
	return 0;
}

static int op_card_info(void)
{
	struct snd_ctl_card_info info = {};

	if (ioctl(fd, SNDRV_CTL_IOCTL_CARD_INFO, &info))
		return -1;
	snprintf(verdict_buf, sizeof(verdict_buf), "ok %.16s",
		 (const char *)info.id);
	verdict = verdict_buf;
	return 0;
}

static const struct helper_op ops[] = {
	{ "open", op_open },
	{ "read", op_read },
	{ "card_info", op_card_info },
};

int main(int argc, char **argv)
{
	char line[64];
	FILE *in;
	int ffd;

	if (argc != 3) {
		fprintf(stderr, "usage: fdops PATH FIFO\n");
		return 2;
	}
	path = argv[1];
	/* read-write: the FIFO never ends between the test's writes */
	ffd = open(argv[2], O_RDWR | O_CLOEXEC);
	in = ffd < 0 ? NULL : fdopen(ffd, "r");
	if (!in) {
		printf("fifo: %s\n", strerrorname_np(errno));
		return 1;
	}
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			HELPER_RUN_OP("fdops", ops, line, &verdict);
	}
	return 0;
}
