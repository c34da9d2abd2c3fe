/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pause_run.h - what pauses.c (pause and resume of devices),
 * pause_classes.c (classes, and the devices the kernel adds to them) and
 * pause_tags.c (a seat's devices udev tagged) share, inside src/daemon
 * only.
 */
#ifndef REVOKE_DAEMON_PAUSE_RUN_H
#define REVOKE_DAEMON_PAUSE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/common.h"
#include "daemon.h"
#include "pipeline/pipeline.h"

#define PAUSE_CGROUP_ROOT "/sys/fs/cgroup"

/**
 * struct pause_run - what one pause or resume request is doing, across
 *	its devices
 * @d: the daemon
 * @uid: the user
 * @err: the errno the user's operations fail with
 * @cause: who pauses, one word
 * @subsystem: the class being paused or resumed ("TAG@SEAT" for a tag
 *	on a seat), or ""
 * @lines: its device and class lines
 * @sum: what the pipeline found and did, summed over the devices
 * @wake: pause: wake the user's waiters
 * @revoke: pause --revoke: release the user's descriptors and replace
 *	their mappings too (pipeline_pause_revoke())
 * @failed: a negative errno: the first failure
 * @wake_err: the holders could not be looked for
 * @drained: resume: bytes dropped, for the device line
 * @devices: device lines, of devices done
 * @classes: class lines
 */
struct pause_run {
	struct daemon *d;
	uid_t uid;
	uint32_t err;
	const char *cause;
	const char *subsystem;
	struct rbuf lines;
	struct pipeline_result sum;
	bool wake;
	bool revoke;
	int failed;
	int wake_err;
	uint64_t drained;
	size_t devices;
	size_t classes;
};

/* what the pause sets keep of @run: REVOKE_PAUSE_REVOKE for --revoke */
static inline uint32_t pause_run_flags(const struct pause_run *run)
{
	return run->revoke ? REVOKE_PAUSE_REVOKE : 0;
}

/* pauses.c */
void pause_run_device(struct pause_run *run, uint32_t rdev, uint32_t type);

/* pause_classes.c */
void pause_class_line(struct pause_run *run, uint32_t err,
		      enum revoke_change change);
int pause_class(struct pause_run *run, struct rbuf *resp);

/* pause_tags.c */
int pause_tag(struct pause_run *run, struct rbuf *resp);

#endif /* REVOKE_DAEMON_PAUSE_RUN_H */
