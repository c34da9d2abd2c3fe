// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_rdev.c - the pipeline over a revoked device: every node of it
 * that is held (/dev/X, a node made with mknod elsewhere) is handled as
 * pipeline_run() handles an inode.
 *
 * "add rdev=" also uses the kernel's own revoke, which needs the
 * daemon's ioctls still allowed, so it comes before the deny, on the
 * holders found then:
 *
 *	pipeline_rdev_prepare()	find the holders; hang up the ttys and
 *				revoke the evdev nodes they have open
 *				(kernel_revoke.c); take the pidfds to send
 *				SIGHUP to and a file of the tty (tty.c)
 *	(the daemon's deny, or pipeline_rdev_cancel() if it fails)
 *	pipeline_run_rdev()	find the holders again, then the pipeline
 *				over every node they hold
 *	pipeline_rdev_finish()	hang the tty up, send the SIGHUPs
 *
 * The second search is not a repeat: a node of the device (one made with
 * mknod anywhere) first opened between the first search and the deny is
 * denied but held, and only a search after the deny finds its holder.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "kernel_revoke.h"
#include "pipeline_run.h"

/**
 * pipeline_run_rdev() - end every existing use of a revoked device
 * @pl: the pipeline
 * @key: the device, already in the revoked device set
 * @opts: what to do
 * @res: the report, summed over every node of the device that is held
 *
 * Each node (its own inode: /dev/X, a node made with mknod elsewhere) is
 * handled as pipeline_run() handles an inode.
 *
 * Return: as pipeline_run().
 */
int pipeline_run_rdev(struct pipeline *pl, const struct revoke_rdev_key *key,
		      const struct pipeline_opts *opts,
		      struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	struct holder_set all;
	size_t i;
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = holders_find_rdev(&pl->holders, key, &all);
	if (err)
		return err;
	res->discover_us = pipeline_now_us() - start;
	for (i = 0; i < all.ninodes && !err; i++)
		err = pipeline_passes(pl, &all.inodes[i], opts, start, res);
	pipeline_finish(opts, start, res);
	holder_set_free(&all);
	return err;
}

/**
 * pipeline_rdev_prepare() - before the deny of a device: find its
 *	holders, apply the kernel's own revoke, take what the hangup needs
 * @pl: the pipeline
 * @key: the device
 * @hangup: send SIGHUP to the holders after the pipeline
 * @rd: the result, for pipeline_rdev_finish(),
 *	or pipeline_rdev_cancel()
 *
 * @rd->kernel_revoked counts the ttys hung up and the evdev nodes
 * revoked; a tty held by its own name counts as hung up already.
 */
void pipeline_rdev_prepare(struct pipeline *pl,
			   const struct revoke_rdev_key *key, bool hangup,
			   struct pipeline_rdev *rd)
{
	struct holder_set set;

	memset(rd, 0, sizeof(*rd));
	rd->key = *key;
	if (pl->ready && !holders_find_rdev(&pl->holders, key, &set)) {
		rd->kernel_revoked = kernel_revoke_holders(&set, key);
		if (hangup) {
			rd->pidfds = kernel_hangup_prepare(&set);
			rd->npidfds = set.nr;
		}
		holder_set_free(&set);
	}
	tty_prepare_rdev(&rd->tty, pl->ready ? &pl->holders : NULL, key);
	/* a tty held by its name was hung up just now */
	rd->tty.hungup = rd->tty.is_tty && rd->kernel_revoked;
}

/**
 * pipeline_rdev_cancel() - the deny failed: close what was taken,
 *	signalling no one and hanging nothing up
 * @rd: from pipeline_rdev_prepare(), or zeroed
 */
void pipeline_rdev_cancel(struct pipeline_rdev *rd)
{
	kernel_hangup_cancel(rd->pidfds, rd->npidfds);
	rd->pidfds = NULL;
	tty_hangup_cancel(&rd->tty);
}

/**
 * pipeline_rdev_finish() - after the pipeline: hang the tty up, report
 *	it, and send SIGHUP to the holders, if asked
 * @rd: from pipeline_rdev_prepare()
 * @resp: the answer, which the tty's hangup line is added to
 */
void pipeline_rdev_finish(struct pipeline_rdev *rd, struct rbuf *resp)
{
	tty_hangup_finish(&rd->tty);
	tty_hangup_report(resp, &rd->tty);
	if (rd->pidfds)
		log_info("rdev=%u:%u: SIGHUP sent to %u "
			"holders\n", revoke_kdev_major(rd->key.rdev),
			revoke_kdev_minor(rd->key.rdev),
			kernel_hangup_send(rd->pidfds, rd->npidfds));
	rd->pidfds = NULL;
}
