// SPDX-License-Identifier: GPL-2.0
/*
 * devfeed - a virtual device whose data the test sends, one event per
 * line of standard input, for the pause tests (runs as root):
 *
 *	devfeed uinput	an evdev keyboard, made through /dev/uinput
 *	devfeed uhid	a HID device, made through /dev/uhid, read through
 *			its hidraw node
 *
 * Once the device's node is there (found from sysfs, waited for with
 * inotify on /dev) it says, on stdout:
 *
 *	ready node=/dev/input/eventN rdev=MAJ:MIN	(uinput)
 *	ready node=/dev/hidrawN rdev=MAJ:MIN		(uhid)
 *
 * then reads its standard input, one command a line, and answers each
 * with one line:
 *
 *	key	(uinput) KEY_A pressed and released, then SYN_REPORT: one
 *		packet of three events (72 bytes to an evdev reader)	"key: ok"
 *	input	(uhid) one UHID_INPUT2 report of 8 bytes		"input: ok"
 *	quit	or end-of-file: the device is destroyed (removed, as an
 *		unplugged one is) and devfeed exits 0
 *
 * uhid's requests (UHID_GET_REPORT, UHID_SET_REPORT) are answered as
 * they come; its other events (start, open, close, output) are read and
 * dropped.  Errors: one line on stderr, exit 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uhid.h>
#include <linux/uinput.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#define NODE_WAIT_MS 10000

/* finds the device's node name under /dev (e.g. "input/event3"), or -1 */
typedef int (*find_fn)(void *ctx, char *name, size_t len);

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * wait_node() - wait until the device node that @find names exists
 * @find:	looks the node's name up in sysfs
 * @ctx:	its argument
 * @node:	where the node's path goes
 * @len:	its size
 * @st:		the node's stat
 *
 * sysfs has the device before devtmpfs has its node (uhid even adds its
 * device from a work item): each time /dev or /dev/input changes
 * (inotify), or after 100 ms at most (a sysfs directory sends no
 * inotify event), the lookup is tried again, for 10 s at most.
 *
 * Return: 0, or -1 with a line on stderr.
 */
static int wait_node(find_fn find, void *ctx, char *node, size_t len,
		     struct stat *st)
{
	long deadline = now_ms() + NODE_WAIT_MS;
	int in, input_watched = 0, ret = -1;
	char name[96], buf[4096];
	struct pollfd pfd;

	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, "/dev", IN_CREATE | IN_ATTRIB) < 0) {
		perror("devfeed: inotify /dev");
		goto out;
	}
	for (;;) {
		if (!input_watched &&
		    inotify_add_watch(in, "/dev/input", IN_CREATE | IN_ATTRIB) >= 0)
			input_watched = 1;
		if (!find(ctx, name, sizeof(name))) {
			snprintf(node, len, "/dev/%s", name);
			if (!stat(node, st) && S_ISCHR(st->st_mode)) {
				ret = 0;
				break;
			}
		}
		if (now_ms() >= deadline) {
			fprintf(stderr, "devfeed: no device node appeared in %d s\n",
				NODE_WAIT_MS / 1000);
			break;
		}
		pfd = (struct pollfd){ .fd = in, .events = POLLIN };
		if (poll(&pfd, 1, 100) > 0)
			while (read(in, buf, sizeof(buf)) > 0)
				;
	}
out:
	if (in >= 0)
		close(in);
	return ret;
}

/* the first entry of directory @dir whose name starts with @prefix */
static int first_entry(const char *dir, const char *prefix, char *name,
		       size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = -1;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			snprintf(name, len, "%.*s", (int)len - 1, de->d_name);
			ret = 0;
			break;
		}
	closedir(d);
	return ret;
}

static void say_ready(const char *node, const struct stat *st)
{
	say("ready node=%s rdev=%u:%u", node, major(st->st_rdev),
	    minor(st->st_rdev));
}

/* ---- uinput --------------------------------------------------------------- */

static int uinput_find(void *ctx, char *name, size_t len)
{
	char sysname[64], dir[128], ev[32];

	if (ioctl(*(int *)ctx, UI_GET_SYSNAME(sizeof(sysname)), sysname) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "/sys/devices/virtual/input/%s", sysname);
	if (first_entry(dir, "event", ev, sizeof(ev)))
		return -1;
	snprintf(name, len, "input/%s", ev);
	return 0;
}

static int uinput_emit(int fd, unsigned short type, unsigned short code,
		       int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };

	return write(fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

/* press and release in one packet: a press alone would be dropped the
 * second time, as the key is down already */
static int uinput_key(int fd)
{
	if (uinput_emit(fd, EV_KEY, KEY_A, 1) || uinput_emit(fd, EV_KEY, KEY_A, 0) ||
	    uinput_emit(fd, EV_SYN, SYN_REPORT, 0))
		return -1;
	return 0;
}

static int run_uinput(void)
{
	struct uinput_setup setup = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 0x1d6b, .product = 0x0104 },
	};
	char node[128], line[64];
	struct stat st;
	int fd;

	fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("devfeed: /dev/uinput");
		return 1;
	}
	snprintf(setup.name, sizeof(setup.name), "devfeed keyboard %d", getpid());
	if (ioctl(fd, UI_SET_EVBIT, EV_KEY) || ioctl(fd, UI_SET_KEYBIT, KEY_A) ||
	    ioctl(fd, UI_DEV_SETUP, &setup) || ioctl(fd, UI_DEV_CREATE)) {
		perror("devfeed: uinput");
		return 1;
	}
	if (wait_node(uinput_find, &fd, node, sizeof(node), &st))
		return 1;
	say_ready(node, &st);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "quit"))
			break;
		if (!strcmp(line, "key"))
			say("key: %s", uinput_key(fd) ? strerrorname_np(errno) : "ok");
		else
			say("%s: unknown command", line);
	}
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}

/* ---- uhid ----------------------------------------------------------------- */

/* a vendor-defined device with one input report of 8 bytes, no report id */
static const unsigned char hid_rdesc[] = {
	0x06, 0x00, 0xff,	/* Usage Page (Vendor Defined 0xFF00) */
	0x09, 0x01,		/* Usage (0x01) */
	0xa1, 0x01,		/* Collection (Application) */
	0x15, 0x00,		/*   Logical Minimum (0) */
	0x26, 0xff, 0x00,	/*   Logical Maximum (255) */
	0x75, 0x08,		/*   Report Size (8) */
	0x95, 0x08,		/*   Report Count (8) */
	0x09, 0x01,		/*   Usage (0x01) */
	0x81, 0x02,		/*   Input (Data, Variable, Absolute) */
	0x09, 0x02,		/*   Usage (0x02) */
	0x91, 0x02,		/*   Output (Data, Variable, Absolute) */
	0xc0,			/* End Collection */
};
#define HID_REPORT_SIZE 8

/* the hidraw node of the HID device whose HID_UNIQ is @ctx */
static int uhid_find(void *ctx, char *name, size_t len)
{
	char path[512], want[80], line[256], raw[32];
	struct dirent *de;
	int ret = -1, found;
	FILE *f;
	DIR *d;

	d = opendir("/sys/bus/hid/devices");
	if (!d)
		return -1;
	snprintf(want, sizeof(want), "HID_UNIQ=%s\n", (const char *)ctx);
	while (ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/hid/devices/%s/uevent", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		found = 0;
		while (!found && fgets(line, sizeof(line), f))
			found = !strcmp(line, want);
		fclose(f);
		if (!found)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/hid/devices/%s/hidraw", de->d_name);
		if (!first_entry(path, "hidraw", raw, sizeof(raw))) {
			snprintf(name, len, "%s", raw);
			ret = 0;
		}
	}
	closedir(d);
	return ret;
}

static int uhid_write(int fd, const struct uhid_event *ev)
{
	return write(fd, ev, sizeof(*ev)) == sizeof(*ev) ? 0 : -1;
}

static int uhid_input(int fd, unsigned char seq)
{
	struct uhid_event ev = { .type = UHID_INPUT2 };

	ev.u.input2.size = HID_REPORT_SIZE;
	memset(ev.u.input2.data, seq, HID_REPORT_SIZE);
	return uhid_write(fd, &ev);
}

/* answer what the kernel asks of the device; drop the rest */
static int uhid_answer(int fd)
{
	struct uhid_event ev, reply;

	if (read(fd, &ev, sizeof(ev)) <= 0)
		return errno == EAGAIN ? 0 : -1;
	memset(&reply, 0, sizeof(reply));
	switch (ev.type) {
	case UHID_GET_REPORT:
		reply.type = UHID_GET_REPORT_REPLY;
		reply.u.get_report_reply.id = ev.u.get_report.id;
		reply.u.get_report_reply.size = HID_REPORT_SIZE;
		return uhid_write(fd, &reply);
	case UHID_SET_REPORT:
		reply.type = UHID_SET_REPORT_REPLY;
		reply.u.set_report_reply.id = ev.u.set_report.id;
		return uhid_write(fd, &reply);
	default:
		return 0;
	}
}

static int uhid_create(int fd, const char *uniq)
{
	struct uhid_event ev = { .type = UHID_CREATE2 };
	struct uhid_create2_req *c = &ev.u.create2;

	snprintf((char *)c->name, sizeof(c->name), "devfeed hid %d", getpid());
	snprintf((char *)c->uniq, sizeof(c->uniq), "%s", uniq);
	c->rd_size = sizeof(hid_rdesc);
	memcpy(c->rd_data, hid_rdesc, sizeof(hid_rdesc));
	c->bus = BUS_VIRTUAL;
	c->vendor = 0x1d6b;
	c->product = 0x0104;
	return uhid_write(fd, &ev);
}

/*
 * The commands on stdin that have come: 1 to go on, 0 to quit (on "quit"
 * or end-of-file), -1 on error.  Read with read(2), not stdio, so that no
 * line waits in a buffer that poll(2) does not see.
 */
static int uhid_commands(int fd, unsigned char *seq)
{
	static char buf[256];
	static size_t have;
	char *nl;
	ssize_t n;

	n = read(0, buf + have, sizeof(buf) - 1 - have);
	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : (n < 0 ? -1 : 0);
	have += (size_t)n;
	buf[have] = '\0';
	while ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		if (!strcmp(buf, "quit"))
			return 0;
		if (!strcmp(buf, "input"))
			say("input: %s", uhid_input(fd, ++*seq) ? strerrorname_np(errno) : "ok");
		else
			say("%s: unknown command", buf);
		have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have + 1);
	}
	if (have == sizeof(buf) - 1)
		have = 0;	/* a line too long: dropped */
	return 1;
}

static int run_uhid(void)
{
	struct uhid_event destroy = { .type = UHID_DESTROY };
	unsigned char seq = 0;
	struct pollfd pfd[2];
	char node[128], uniq[32];
	struct stat st;
	int fd, ret = 0;

	fd = open("/dev/uhid", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		perror("devfeed: /dev/uhid");
		return 1;
	}
	snprintf(uniq, sizeof(uniq), "devfeed-%d", getpid());
	if (uhid_create(fd, uniq)) {
		perror("devfeed: UHID_CREATE2");
		return 1;
	}
	if (wait_node(uhid_find, uniq, node, sizeof(node), &st))
		return 1;
	say_ready(node, &st);
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = 0, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("devfeed: poll");
			ret = 1;
			break;
		}
		if ((pfd[1].revents & POLLIN) && uhid_answer(fd)) {
			perror("devfeed: /dev/uhid");
			ret = 1;
			break;
		}
		if (pfd[0].revents && uhid_commands(fd, &seq) <= 0)
			break;
	}
	uhid_write(fd, &destroy);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "uinput"))
		return run_uinput();
	if (argc == 2 && !strcmp(argv[1], "uhid"))
		return run_uhid();
	fprintf(stderr, "usage: devfeed uinput|uhid\n");
	return 2;
}
