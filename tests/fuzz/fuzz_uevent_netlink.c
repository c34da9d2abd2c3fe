// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_uevent_netlink - libFuzzer target for the kernel uevent parser
 * (policy "source netlink": revoke-bpfd reads these from the kernel).
 *
 * A message that names a device node must name a valid device number
 * and an action; if its request fits the control protocol, that request
 * must parse back to the same device.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ctl_proto.h"
#include "daemon/uevent_netlink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct revoke_req req, back;
	char line[REVOKE_REQ_MAX];
	const char *why;
	int r, n;

	r = uevent_nl_parse((const char *)data, size, &req);
	if (r < 0 || r == 0)
		return 0;
	if (r != 1 || !req.has_rdev || !req.action[0] || req.rdev_major >= 4096 ||
	    req.rdev_minor >= 1u << 20)
		abort();
	n = revoke_req_format(&req, line, sizeof(line));
	if (n < 0)
		return 0;	/* too many properties for one request line */
	if (revoke_req_parse(line, (size_t)n, &back, &why) ||
	    back.rdev_major != req.rdev_major || back.rdev_minor != req.rdev_minor ||
	    back.rdev_type != req.rdev_type || strcmp(back.action, req.action) ||
	    back.nprops != req.nprops)
		abort();
	return 0;
}
