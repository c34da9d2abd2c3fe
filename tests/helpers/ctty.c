// SPDX-License-Identifier: GPL-2.0
/*
 * ctty - a session whose controlling terminal is a new pty's slave, with
 * /dev/tty open, to see what revoking the slave does to it.
 *
 *	ctty [--keep-slave]
 *
 * The parent opens /dev/ptmx and keeps the master; the child calls
 * setsid(), makes the slave its controlling terminal (TIOCSCTTY), opens
 * /dev/tty (non-blocking), closes the slave unless --keep-slave, prints
 * "ready pid=PID slave=PATH" and waits for a line on stdin.  Then it
 * tries, printing "OP: ok" or "OP: ERRNAME" each: read and write on the
 * /dev/tty opened before, open of /dev/tty now, and says whether it got
 * SIGHUP ("sighup: yes" or "sighup: no").
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_hup;

static void on_hup(int sig)
{
	(void)sig;
	got_hup = 1;
}

static void say(const char *what, long ret)
{
	printf("%s: %s\n", what, ret < 0 ? strerrorname_np(errno) : "ok");
}

static int session(const char *slave, int keep)
{
	char line[16], c;
	int sfd, tfd;

	signal(SIGHUP, on_hup);
	if (setsid() < 0)
		return 1;
	sfd = open(slave, O_RDWR | O_NOCTTY);
	if (sfd < 0 || ioctl(sfd, TIOCSCTTY, 0) < 0)
		return 1;
	tfd = open("/dev/tty", O_RDWR | O_NONBLOCK);
	if (tfd < 0)
		return 1;
	if (!keep)
		close(sfd);
	printf("ready pid=%d slave=%s\n", (int)getpid(), slave);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	say("read", read(tfd, &c, 1));
	say("write", write(tfd, "x", 1));
	say("open", open("/dev/tty", O_RDWR | O_NONBLOCK));
	printf("sighup: %s\n", got_hup ? "yes" : "no");
	return 0;
}

int main(int argc, char **argv)
{
	int keep = argc > 1 && !strcmp(argv[1], "--keep-slave");
	int mfd, status;
	char *slave;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mfd = posix_openpt(O_RDWR | O_NOCTTY);
	if (mfd < 0 || grantpt(mfd) || unlockpt(mfd) || !(slave = ptsname(mfd))) {
		perror("ctty: /dev/ptmx");
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(mfd);
		_exit(session(slave, keep));
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	close(mfd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
