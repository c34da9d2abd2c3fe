// SPDX-License-Identifier: GPL-2.0
/*
 * fs_pins_probe - src/umount/umount.h on a real kernel: print what
 * pins a filesystem (its "pin" lines), and release it ("unpin" lines),
 * as the daemon's umount verb will.
 *
 *	fs_pins_probe find MAJ:MIN       the pin lines; exit 0, or 1 with
 *	                                 "find: REASON" (2 if not mounted)
 *	fs_pins_probe release MAJ:MIN [--before CMD]
 *	                                 the pin lines, release, the unpin
 *	                                 lines, then "gone: yes" or
 *	                                 "gone: no REASON" (waiting 5 s at
 *	                                 most); exit 0 if all was done and
 *	                                 the superblock is gone, else 1;
 *	                                 CMD is run by sh between the find
 *	                                 and the release
 *	fs_pins_probe gone MAJ:MIN [SOURCE]   "gone: yes|no REASON"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "common/common.h"
#include "umount/umount.h"

#define GONE_WAIT_MS 5000

static int parse_dev(const char *s, dev_t *dev)
{
	unsigned int maj, min;
	char tail;

	if (sscanf(s, "%u:%u%c", &maj, &min, &tail) != 2)
		return -1;
	*dev = makedev(maj, min);
	return 0;
}

static void flush(struct rbuf *b)
{
	if (b->data)
		fwrite(b->data, 1, b->len, stdout);
	rbuf_free(b);
	memset(b, 0, sizeof(*b));
}

static int gone(dev_t dev, const char *source, int wait_ms)
{
	char why[512];

	if (fs_gone_wait(dev, source, wait_ms, why, sizeof(why))) {
		printf("gone: yes\n");
		return 0;
	}
	printf("gone: no %s\n", why);
	return 1;
}

int main(int argc, char **argv)
{
	struct fs_pins_report r;
	struct rbuf b = { 0 };
	struct fs_pins p;
	char err[512];
	char *source;
	dev_t dev;
	int ret;

	if (argc < 3 || argc > 5 || parse_dev(argv[2], &dev) ||
	    (argc == 4 && strcmp(argv[1], "gone")) ||
	    (argc == 5 && (strcmp(argv[1], "release") ||
			   strcmp(argv[3], "--before")))) {
		fprintf(stderr, "usage: fs_pins_probe find|release MAJ:MIN | "
			"release MAJ:MIN --before CMD | gone MAJ:MIN [SOURCE]\n");
		return 2;
	}
	if (!strcmp(argv[1], "gone"))
		return gone(dev, argc == 4 ? argv[3] : NULL, 0);
	if (strcmp(argv[1], "find") && strcmp(argv[1], "release")) {
		fprintf(stderr, "fs_pins_probe: unknown command '%s'\n", argv[1]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = fs_pins_find(dev, &p, err, sizeof(err));
	fs_pins_print(&b, &p);
	flush(&b);
	if (ret) {
		printf("find: %s\n", err);
		fs_pins_free(&p);
		return ret == -ENOENT ? 2 : 1;
	}
	if (!strcmp(argv[1], "find")) {
		fs_pins_free(&p);
		return 0;
	}
	if (argc == 5 && system(argv[4]))
		printf("before: failed\n");
	ret = fs_release(&p, &r);
	fs_release_print(&b, &p, &r);
	flush(&b);
	if (ret == -ENOMEM)
		printf("release: ENOMEM\n");
	source = p.source ? strdup(p.source) : NULL;
	fs_release_report_free(&r);
	fs_pins_free(&p);
	ret = gone(dev, source, GONE_WAIT_MS) || ret;
	free(source);
	return ret ? 1 : 0;
}
