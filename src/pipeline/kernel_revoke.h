/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel_revoke.h - the revokes the kernel already has for some devices:
 * TIOCVHANGUP for a tty, EVIOCREVOKE for an evdev node (what
 * systemd-logind uses).  Used on a device's holders before the BPF deny,
 * which would refuse the daemon's own ioctl as well.
 */
#ifndef REVOKE_KERNEL_REVOKE_H
#define REVOKE_KERNEL_REVOKE_H

#include "holders.h"

unsigned int kernel_revoke_holders(const struct holder_set *set,
				   const struct revoke_rdev_key *key);
int *kernel_hangup_prepare(const struct holder_set *set);
unsigned int kernel_hangup_send(int *pidfds, size_t n);
void kernel_hangup_cancel(int *pidfds, size_t n);

#endif /* REVOKE_KERNEL_REVOKE_H */
