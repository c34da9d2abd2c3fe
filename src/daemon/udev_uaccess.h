/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udev_uaccess.h - the device nodes udev tagged uaccess on a seat, read
 * from udev's database (udev_uaccess.c): what logind gives a seat's
 * active user access to, for the seat follower (seat.c) and pause --tag
 * uaccess (pause_tags.c) alike.
 */
#ifndef REVOKE_DAEMON_UDEV_UACCESS_H
#define REVOKE_DAEMON_UDEV_UACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "revoke_bpf.h"

/* where udev keeps what is read; a unit test points elsewhere */
#ifndef SEAT_UDEV_DIR
#define SEAT_UDEV_DIR "/run/udev"
#define SEAT_DEV_DIR "/dev"
#endif
#define SEAT_TAGS_DIR SEAT_UDEV_DIR "/tags/uaccess"
#define SEAT_STATIC_DIR SEAT_UDEV_DIR "/static_node-tags/uaccess"
#define SEAT_DATA_DIR SEAT_UDEV_DIR "/data"

/**
 * struct udev_devs - device numbers read, at most @max
 * @devs: where they go
 * @n: how many there are
 * @max: room in @devs
 */
struct udev_devs {
	struct revoke_rdev_key *devs;
	size_t n;
	size_t max;
};

void udev_uaccess_devices(const char *seat, struct udev_devs *out);
bool udev_uaccess_indexed(const char *id);

#endif /* REVOKE_DAEMON_UDEV_UACCESS_H */
