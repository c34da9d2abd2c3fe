// SPDX-License-Identifier: GPL-2.0
/* asuser - run a command as another uid/gid, with no supplementary groups. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID COMMAND [ARG...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		fprintf(stderr, "asuser: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "asuser: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
