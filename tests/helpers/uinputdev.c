// SPDX-License-Identifier: GPL-2.0
/*
 * uinputdev - a virtual keyboard, for the evdev tests: creates it through
 * /dev/uinput, says "ready /dev/input/eventN", and destroys it when its
 * standard input reaches end-of-file (the device is then removed, as an
 * unplugged keyboard is).
 *
 *	uinputdev
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The eventN node of the input device uinput created for @fd. */
static int event_node(int fd, char *node, size_t len)
{
	char sysname[64], path[128];
	struct dirent *de;
	DIR *dir;

	if (ioctl(fd, UI_GET_SYSNAME(sizeof(sysname)), sysname) < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/virtual/input/%s", sysname);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "event", 5))
			break;
	if (de)
		snprintf(node, len, "/dev/input/%.32s", de->d_name);
	closedir(dir);
	return de ? 0 : -1;
}

int main(void)
{
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL } };
	char node[128], line[64];
	int fd, i;

	fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("/dev/uinput");
		return 1;
	}
	strcpy(setup.name, "revoke-bpf test keyboard");
	if (ioctl(fd, UI_SET_EVBIT, EV_KEY) || ioctl(fd, UI_SET_KEYBIT, KEY_A) ||
	    ioctl(fd, UI_DEV_SETUP, &setup) || ioctl(fd, UI_DEV_CREATE)) {
		perror("uinput");
		return 1;
	}
	/* devtmpfs makes the node shortly after the device appears */
	for (i = 0; i < 100 && (event_node(fd, node, sizeof(node)) ||
				access(node, F_OK)); i++)
		usleep(20000);
	if (i == 100) {
		fprintf(stderr, "uinputdev: no event node appeared\n");
		return 1;
	}
	printf("ready %s\n", node);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
