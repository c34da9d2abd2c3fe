// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/daemon/uevent_netlink.c: kernel uevent messages as requests. */
#include <string.h>

#include "revoke_bpf.h"
#include "daemon/uevent_netlink.h"
#include "tap.h"

static struct revoke_req req;

/* A message as the kernel sends it: NUL-separated strings. */
#define MSG(s) s, sizeof(s)

static const char *prop(const char *key)
{
	size_t i;

	for (i = 0; i < req.nprops; i++)
		if (!strcmp(req.prop_keys[i], key))
			return req.prop_vals[i];
	return NULL;
}

int main(void)
{
	CHECK("a disk's removal names the block device 8:0",
	      uevent_nl_parse(MSG("remove@/devices/pseudo_0/block/sda\0"
				  "ACTION=remove\0DEVPATH=/devices/pseudo_0/block/sda\0"
				  "SUBSYSTEM=block\0MAJOR=8\0MINOR=0\0DEVNAME=sda\0"
				  "DEVTYPE=disk\0SEQNUM=660"), &req) == 1 &&
	      req.verb == REVOKE_VERB_UEVENT && !strcmp(req.action, "remove") &&
	      req.has_rdev && req.rdev_major == 8 && req.rdev_minor == 0 &&
	      req.rdev_type == REVOKE_RDEV_BLOCK);
	CHECK("DEVNAME is given as udev gives it, under /dev",
	      prop("DEVNAME") && !strcmp(prop("DEVNAME"), "/dev/sda") &&
	      prop("DEVTYPE") && !strcmp(prop("DEVTYPE"), "disk"));
	CHECK("a tty is a character device",
	      uevent_nl_parse(MSG("remove@/devices/x/tty/ttyUSB0\0ACTION=remove\0"
				  "SUBSYSTEM=tty\0MAJOR=188\0MINOR=0\0DEVNAME=ttyUSB0"),
			      &req) == 1 && req.rdev_type == REVOKE_RDEV_CHAR &&
	      req.rdev_major == 188);
	CHECK("an event without a device number is ignored",
	      uevent_nl_parse(MSG("remove@/devices/x/usb1\0ACTION=remove\0"
				  "SUBSYSTEM=usb"), &req) == 0);
	CHECK("a message without ACTION@DEVPATH is refused",
	      uevent_nl_parse(MSG("libudev\0ACTION=remove\0SUBSYSTEM=tty\0"
				  "MAJOR=188\0MINOR=0"), &req) == -22);
	CHECK("a device number out of range is refused",
	      uevent_nl_parse(MSG("remove@/x\0ACTION=remove\0SUBSYSTEM=tty\0"
				  "MAJOR=4096\0MINOR=0"), &req) == -22);
	CHECK("a property that no request could carry is skipped, the event kept",
	      uevent_nl_parse(MSG("remove@/x\0ACTION=remove\0SUBSYSTEM=tty\0"
				  "MAJOR=188\0MINOR=1\0SEQ.NUM=5\0ID_MODEL=a\nb\0"
				  "DEVNAME=ttyUSB1"), &req) == 1 &&
	      req.rdev_minor == 1 && !prop("SEQ.NUM") && !prop("ID_MODEL") &&
	      prop("DEVNAME") && !strcmp(prop("DEVNAME"), "/dev/ttyUSB1"));
	CHECK("an ACTION that is not a lower-case word is refused",
	      uevent_nl_parse(MSG("remove@/x\0ACTION=re\xecmove\0SUBSYSTEM=tty\0"
				  "MAJOR=188\0MINOR=0"), &req) == -22);
	return tap_done();
}
