/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uevent_netlink.h - the kernel's device events, read by revoke-bpfd
 * itself from NETLINK_KOBJECT_UEVENT when the policy says "source
 * netlink" (no udev needed).
 */
#ifndef REVOKE_UEVENT_NETLINK_H
#define REVOKE_UEVENT_NETLINK_H

#include "common/common.h"

int uevent_nl_open(void);
int uevent_nl_read(int fd, struct revoke_req *req);
int uevent_nl_parse(const char *buf, size_t len, struct revoke_req *req);

#endif /* REVOKE_UEVENT_NETLINK_H */
