// SPDX-License-Identifier: GPL-2.0
/*
 * devclient - a client of a device, for the pause tests: it opens a node
 * once (run as the user it stands for, through asuser), then runs one
 * command per line of its standard input on that descriptor and prints
 * exactly one result line per command.
 *
 *	devclient [--timeout S] NODE		open NODE read-write
 *	devclient [--timeout S] MODE NODE	open and set up NODE for MODE
 *	devclient [--timeout S] recv SOCK	receive a descriptor on SOCK
 *
 * MODE (devclient_media.c): pcm-capture (a running ALSA capture stream,
 * read with READI_FRAMES), pcm-mmap (the same, its ring mapped, read
 * without a system call), v4l2-mmap (V4L2 streaming with MMAP buffers).
 * recv listens on the unix socket SOCK (made writable by anyone), says
 * "listening pid=P sock=SOCK", and takes the descriptor that another
 * devclient's "send SOCK" passes over SCM_RIGHTS.
 *
 * Lines on stdout:
 *	ready pid=P fd=N	the descriptor is there; commands are read now
 *	open: ERRNAME		NODE could not be opened (exit 1)
 *	setup: ...		what a MODE set up (before "ready")
 *	NAME: ok [DETAIL]	command NAME worked
 *	NAME: ERRNAME		it failed with that errno (strerrorname_np)
 *	NAME: SIGBUS CODE	it faulted on a mapping (BUS_ADRERR: a page
 *				past the end of what is mapped now, as a
 *				mapping revoke-bpf replaced); the client
 *				goes on
 *
 * Commands, on any descriptor:
 *	read		"reading", then one read(2) of up to 4096 bytes:
 *			"read: ok BYTES" (in pcm modes: READI_FRAMES of one
 *			period, "read: ok FRAMES")
 *	poll		"polling", then poll(2) for POLLIN with no timeout:
 *			"poll: POLLIN|POLLRDNORM" (the revents bits' names)
 *	ioctl		a harmless read-only ioctl of the device's class (its
 *			sysfs subsystem): EVIOCGVERSION (input), HIDIOCGRDESCSIZE
 *			(hidraw), SNDRV_PCM_IOCTL_PVERSION (sound),
 *			VIDIOC_QUERYCAP (video4linux),
 *			USBDEVFS_GET_CAPABILITIES (usb, a usbfs node):
 *			"ioctl: ok"
 *	open		a new open of NODE, closed again: "open: ok"
 *	send SOCK	pass the descriptor to "devclient recv SOCK": "send: ok"
 *	close		close the descriptor: "close: ok"
 *	quit		(or end-of-file) exit 0
 * and those of the MODE (mmap-read; dqbuf, peek).  A blocking command
 * gives up after --timeout seconds (default 30) with EINTR, so that a
 * test that waits in vain fails instead of hanging.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/hidraw.h>
#include <linux/input.h>
#include <linux/usbdevice_fs.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <sound/asound.h>

#include "devclient.h"
#include "helper.h"

unsigned int dc_timeout = 30;

static const char *node;	/* NULL for a received descriptor */
static int dev_fd = -1;

static const char *ename(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

/* The sysfs subsystem of the character device @fd is of ("input"), or "". */
static const char *class_of(int fd, char *buf, size_t len)
{
	char link[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;
	char *slash;

	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return "";
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return "";
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "%.*s", (int)len - 1, slash ? slash + 1 : target);
	return buf;
}

/* ---- the commands ----------------------------------------------------------- */

static int cmd_read(int fd, const char *arg, char *out, size_t len)
{
	char buf[4096];
	ssize_t n;

	(void)arg;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -1;
	snprintf(out, len, "ok %zd", n);
	return 0;
}

static const struct {
	short bit;
	const char *name;
} poll_bits[] = {
	{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" }, { POLLOUT, "POLLOUT" },
	{ POLLERR, "POLLERR" }, { POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
	{ POLLRDNORM, "POLLRDNORM" }, { POLLRDBAND, "POLLRDBAND" },
	{ POLLWRNORM, "POLLWRNORM" }, { POLLWRBAND, "POLLWRBAND" },
	{ POLLRDHUP, "POLLRDHUP" },
};

static int cmd_poll(int fd, const char *arg, char *out, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t i, at = 0;

	(void)arg;
	if (poll(&pfd, 1, -1) < 0)
		return -1;
	out[0] = '\0';
	for (i = 0; i < sizeof(poll_bits) / sizeof(poll_bits[0]); i++)
		if ((pfd.revents & poll_bits[i].bit) && at < len)
			at += (size_t)snprintf(out + at, len - at, "%s%s", at ? "|" : "",
					       poll_bits[i].name);
	if (!at)
		snprintf(out, len, "0x%x", (unsigned)pfd.revents);
	return 0;
}

static int cmd_ioctl(int fd, const char *arg, char *out, size_t len)
{
	struct v4l2_capability cap;
	char cls[32];
	const char *c = class_of(fd, cls, sizeof(cls));
	__u32 caps;
	int v, ret;

	(void)arg;
	if (!strcmp(c, "input"))
		ret = ioctl(fd, EVIOCGVERSION, &v);
	else if (!strcmp(c, "hidraw"))
		ret = ioctl(fd, HIDIOCGRDESCSIZE, &v);
	else if (!strcmp(c, "sound"))
		ret = ioctl(fd, SNDRV_PCM_IOCTL_PVERSION, &v);
	else if (!strcmp(c, "video4linux"))
		ret = ioctl(fd, VIDIOC_QUERYCAP, &cap);
	else if (!strcmp(c, "usb"))
		ret = ioctl(fd, USBDEVFS_GET_CAPABILITIES, &caps);
	else {
		snprintf(out, len, "no ioctl for class '%s'", c);
		return 0;
	}
	if (ret < 0)
		return -1;
	snprintf(out, len, "ok");
	return 0;
}

static int cmd_open(int fd, const char *arg, char *out, size_t len)
{
	int f;

	(void)fd, (void)arg;
	if (!node) {
		snprintf(out, len, "no node (a received descriptor)");
		return 0;
	}
	f = open(node, O_RDWR | O_CLOEXEC);
	if (f < 0)
		return -1;
	close(f);
	snprintf(out, len, "ok");
	return 0;
}

static int unix_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

static int cmd_send(int fd, const char *arg, char *out, size_t len)
{
	char data = 'F', cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	struct sockaddr_un sun;
	int s, ret = -1, err;

	if (!arg || unix_addr(arg, &sun))
		return errno = arg ? errno : EINVAL, -1;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (!connect(s, (struct sockaddr *)&sun, sizeof(sun)) &&
	    sendmsg(s, &msg, 0) == 1)
		ret = 0;
	err = errno;
	close(s);
	errno = err;
	if (!ret)
		snprintf(out, len, "ok");
	return ret;
}

static int cmd_close(int fd, const char *arg, char *out, size_t len)
{
	(void)arg;
	if (close(fd))
		return -1;
	dev_fd = -1;
	snprintf(out, len, "ok");
	return 0;
}

static const struct dc_cmd commands[] = {
	{ "read", cmd_read, "reading" },
	{ "poll", cmd_poll, "polling" },
	{ "ioctl", cmd_ioctl, NULL },
	{ "open", cmd_open, NULL },
	{ "send", cmd_send, NULL },
	{ "close", cmd_close, NULL },
};

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_code;

static void on_alarm(int sig)
{
	(void)sig;	/* only there to interrupt the blocked call */
}

/* A fault on a mapping: the command in progress ends with "SIGBUS". */
static void on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	bus_code = si->si_code;
	siglongjmp(bus_jmp, 1);
}

static const char *bus_name(int code)
{
	switch (code) {
	case BUS_ADRALN: return "BUS_ADRALN";
	case BUS_ADRERR: return "BUS_ADRERR";
	case BUS_OBJERR: return "BUS_OBJERR";
	default: return "?";
	}
}

/* Runs command LINE ("NAME [ARG]") and prints its one line. */
static void run_line(char *line)
{
	const struct dc_cmd *volatile cmd = NULL;
	char out[192], *arg;
	size_t i;
	int ret;

	arg = strchr(line, ' ');
	if (arg)
		*arg++ = '\0';
	cmd = media_cmd(line);
	for (i = 0; !cmd && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(line, commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		say("%s: unknown command", line);
		return;
	}
	if (cmd->before)
		say("%s", cmd->before);
	out[0] = '\0';
	if (sigsetjmp(bus_jmp, 1)) {
		alarm(0);
		say("%s: SIGBUS %s", cmd->name, bus_name(bus_code));
		return;
	}
	alarm(dc_timeout);
	ret = cmd->fn(dev_fd, arg, out, sizeof(out));
	i = (size_t)errno;
	alarm(0);
	if (ret)
		say("%s: %s", cmd->name, ename((int)i));
	else
		say("%s: %s", cmd->name, out);
}

/* ---- receiving a descriptor ------------------------------------------------- */

static int recv_fd(int c)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(c, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
		errno = EBADMSG;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Listens on @path until a descriptor comes; returns it, or -1. */
static int receive(const char *path)
{
	struct sockaddr_un sun;
	int s, c, fd = -1;

	if (unix_addr(path, &sun))
		return -1;
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	unlink(path);
	if (bind(s, (struct sockaddr *)&sun, sizeof(sun)) || chmod(path, 0777) ||
	    listen(s, 1))
		goto out;
	say("listening pid=%d sock=%s", getpid(), path);
	c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (c >= 0) {
		fd = recv_fd(c);
		close(c);
	}
out:
	c = errno;
	close(s);
	unlink(path);
	errno = c;
	return fd;
}

static int usage(void)
{
	fprintf(stderr, "usage: devclient [--timeout S] [pcm-capture|pcm-mmap|v4l2-mmap] NODE\n"
			"       devclient [--timeout S] recv SOCK\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct sigaction bus = { .sa_sigaction = on_bus, .sa_flags = SA_SIGINFO };
	const char *mode = NULL;
	char line[256];

	if (argc > 2 && !strcmp(argv[1], "--timeout")) {
		dc_timeout = (unsigned int)strtoul(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc == 2)
		node = argv[1];
	else if (argc == 3)
		mode = argv[1], node = argv[2];
	else
		return usage();
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGBUS, &bus, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (mode && !strcmp(mode, "recv")) {
		dev_fd = receive(node);
		node = NULL;
		if (dev_fd < 0) {
			say("recv: %s", ename(errno));
			return 1;
		}
	} else if (mode) {
		dev_fd = media_open(mode, node);
		if (dev_fd == -3)
			return usage();
		if (dev_fd == -2)
			return 1;
	} else {
		dev_fd = open(node, O_RDWR | O_CLOEXEC);
	}
	if (dev_fd < 0) {
		say("open: %s", ename(errno));
		return 1;
	}
	say("ready pid=%d fd=%d", getpid(), dev_fd);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "quit"))
			break;
		if (line[0])
			run_line(line);
	}
	return 0;
}
