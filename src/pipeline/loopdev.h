/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loopdev.h - a revoked file that backs a loop device is revoked with
 * its loop devices: each is denied by number, detached, and scoped to
 * the instance that was there once it is gone.
 */
#ifndef REVOKE_LOOPDEV_H
#define REVOKE_LOOPDEV_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"
#include "common/common.h"
#include "revoke_bpf.h"

struct pipeline;

#define LOOPDEV_MAX 64

/**
 * struct loopdev - a loop device found backed by the revoked file
 * @key: its number (block)
 * @fd: a file of it taken while it could be opened, or -1
 * @denied: its number is in the revoked device set
 * @ours: that entry was made by this add (not there before)
 * @detached: no longer bound to the file
 * @released: its holders' descriptors replaced by the pipeline
 * @why: what failed, one word, or empty
 */
struct loopdev {
	struct revoke_rdev_key key;
	int fd;
	bool denied;
	bool ours;
	bool detached;
	unsigned int released;
	char why[48];
};

/**
 * struct loopdev_set - the loop devices of one revoked file
 * @dev: the devices
 * @nr: their number
 * @scan_failed: some loop device could not be looked at (one word why)
 */
struct loopdev_set {
	struct loopdev dev[LOOPDEV_MAX];
	size_t nr;
	char scan_failed[48];
};

void loopdev_revoke_file(struct loopdev_set *set, struct store *rb,
			 struct pipeline *pl, const struct revoke_key *key);
bool loopdev_report(struct rbuf *resp, const struct loopdev_set *set);

#endif /* REVOKE_LOOPDEV_H */
