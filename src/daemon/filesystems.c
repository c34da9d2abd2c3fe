// SPDX-License-Identifier: GPL-2.0
/*
 * filesystems.c - revoked filesystems, the one room for whole-filesystem
 * requests: add fs= and del fs= (a filesystem revoked without being
 * unmounted), and what list and status say of them.  A filesystem is
 * named by the kernel's own super_block, read from the descriptor the
 * client sent (the ident iterator), never by stat(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "pipeline/pipeline.h"
#include "store/store.h"

/* Filesystems revoke-bpfd itself cannot do without. */
static const char *const filesystems_kept[] = { "proc", "sysfs", "bpf" };

/* The s_dev of the filesystem @path is on, as the kernel says, or 0. */
static uint32_t filesystems_sdev_of(struct daemon *d, const char *path)
{
	struct revoke_ident id;
	uint32_t s_dev = 0;
	int fd;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!holders_ident(&d->pipeline.holders, fd, &id))
		s_dev = id.s_dev;
	close(fd);
	return s_dev;
}

/*
 * Refuse a filesystem revoke-bpfd needs to go on: its root, its
 * executable's, procfs, sysfs and the BPF filesystem.  Return 0, or
 * -EBUSY with @why set.
 */
static int filesystems_refuse(struct daemon *d, const struct fs_target *t,
			      char *why, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(filesystems_kept) / sizeof(*filesystems_kept);
	     i++) {
		if (!strcmp(t->fstype, filesystems_kept[i])) {
			snprintf(why, len, "%s cannot be revoked: revoke-bpfd "
				 "works through it", t->fstype);
			return -EBUSY;
		}
	}
	if (t->s_dev == filesystems_sdev_of(d, "/") ||
	    t->s_dev == filesystems_sdev_of(d, "/proc/self/exe")) {
		snprintf(why, len, "filesystem %u:%u cannot be revoked: "
			 "revoke-bpfd runs from it (its root or its "
			 "executable is on it)", revoke_kdev_major(t->s_dev),
			 revoke_kdev_minor(t->s_dev));
		return -EBUSY;
	}
	return 0;
}

/**
 * filesystems_named() - the filesystem a request names, whatever it is
 * @d: the daemon
 * @peer: who sent it (and, with fs=yes, the descriptor of a file on it)
 * @req: the request
 * @t: the result; @t->sb is 0 when it is named by number (fs=MAJ:MIN)
 * @why: what went wrong, on error
 * @len: its size
 *
 * What filesystems_target() refuses is named too: holders only reads.
 *
 * Return: 0, or a negative errno with @why set.
 */
int filesystems_named(struct daemon *d, const struct ctl_peer *peer,
		      const struct revoke_req *req, struct fs_target *t,
		      char *why, size_t len)
{
	struct revoke_ident id;
	int err;

	memset(t, 0, sizeof(*t));
	if (req->fs == REVOKE_FS_DEV) {
		revoke_kdev(req->fs_major, req->fs_minor, &t->s_dev);
		return 0;
	}
	if (peer->sent_fd < 0) {
		snprintf(why, len, "bad request: fs=yes comes with a "
			 "descriptor of a file on the filesystem, and none came");
		return -EINVAL;
	}
	if (!d->pipeline.ready) {
		snprintf(why, len, "cannot read which filesystem '%s' is on "
			 "from the kernel: %s", req->path, d->pipeline.why);
		return -ENOSYS;
	}
	err = holders_ident(&d->pipeline.holders, peer->sent_fd, &id);
	if (err) {
		snprintf(why, len, "'%s': cannot read its filesystem: %s",
			 req->path, strerror(-err));
		return err;
	}
	t->s_dev = id.s_dev;
	t->sb = id.sb;
	t->mnt_root = id.flags & REVOKE_IDENT_MNT_ROOT;
	memcpy(t->fstype, id.fstype, sizeof(t->fstype));
	t->fstype[sizeof(t->fstype) - 1] = '\0';
	return 0;
}

/**
 * filesystems_target() - the filesystem a request names, to revoke
 * @d: the daemon
 * @peer: who sent it (and, with fs=yes, the descriptor of a file on it)
 * @req: the request
 * @t: the result; @t->sb is 0 when it is named by number (fs=MAJ:MIN)
 * @why: what went wrong, on error
 * @len: its size
 *
 * Return: 0, or a negative errno with @why set (-EBUSY for a filesystem
 * revoke-bpfd cannot do without).
 */
int filesystems_target(struct daemon *d, const struct ctl_peer *peer,
		       const struct revoke_req *req, struct fs_target *t,
		       char *why, size_t len)
{
	int err = filesystems_named(d, peer, req, t, why, len);

	if (err || req->fs == REVOKE_FS_DEV)
		return err;
	return filesystems_refuse(d, t, why, len);
}

/**
 * filesystems_answer_target() - the answer's line naming the filesystem
 * @resp: the answer
 * @t: the filesystem
 */
void filesystems_answer_target(struct rbuf *resp, const struct fs_target *t)
{
	rbuf_printf(resp, REVOKE_FIELD_FS "=%u:%u", revoke_kdev_major(t->s_dev),
		    revoke_kdev_minor(t->s_dev));
	if (t->fstype[0])
		rbuf_printf(resp, " " REVOKE_FIELD_FSTYPE "=%s", t->fstype);
	rbuf_printf(resp, "\n");
}

/**
 * filesystems_deny() - put a filesystem in the revoked filesystem set
 * @d: the daemon
 * @t: the filesystem, named by its super_block
 * @cause: who revoked it, one word
 * @change: REVOKE_ADDED or REVOKE_ALREADY
 * @resp: the answer, if it fails
 *
 * Return: 0, or -1 once answered.
 */
int filesystems_deny(struct daemon *d, const struct fs_target *t,
		     const char *cause, enum revoke_change *change,
		     struct rbuf *resp)
{
	int err = super_set_add(&d->rb, t->s_dev, t->sb, cause, change);

	if (err == -ENOSPC) {
		answer_err(resp, ENOSPC, "the revoked filesystem set is full "
			   "(%u entries); del a filesystem first",
			   REVOKE_SUPER_ENTRIES);
		return -1;
	}
	if (err) {
		answer_err(resp, -err, "cannot update the revoked filesystem "
			   "set: %s", strerror(-err));
		return -1;
	}
	log_info("fs=%u:%u type=%s revoked by %s: %s\n",
		 revoke_kdev_major(t->s_dev), revoke_kdev_minor(t->s_dev),
		 t->fstype[0] ? t->fstype : "?", cause,
		 answer_change_name(*change));
	return 0;
}

/**
 * filesystems_add() - add fs=: revoke a whole filesystem, unmounting
 *	nothing
 * @d: the daemon
 * @peer: who asks
 * @req: the request
 * @resp: the answer: the change, the filesystem, and the pipeline's
 *	report over every file of it that is held
 *
 * Return: 0, or -1 once an error is answered.
 */
int filesystems_add(struct daemon *d, const struct ctl_peer *peer,
		    const struct revoke_req *req, struct rbuf *resp)
{
	struct pipeline_opts opts = verbs_pipeline_opts(d, req);
	struct pipeline_result res;
	enum revoke_change change;
	struct fs_target t;
	char why[512];
	int err;

	err = filesystems_target(d, peer, req, &t, why, sizeof(why));
	if (err) {
		answer_err(resp, -err, "%s", why);
		return -1;
	}
	if (filesystems_deny(d, &t, req->cause[0] ? req->cause : "admin",
			     &change, resp))
		return -1;
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	filesystems_answer_target(resp, &t);
	holders_skip(&d->pipeline.holders, getpid(), peer->pid);
	err = pipeline_run_fs(&d->pipeline, t.s_dev, &opts, &res);
	holders_skip(&d->pipeline.holders, getpid(), 0);
	pipeline_report_log_run("fs", &res);
	pipeline_report_log(&res);
	answer_pipeline(resp, err, &res);
	if (!err)
		pipeline_report_lines(resp, &res);
	pipeline_result_free(&res);
	return 0;
}

/**
 * filesystems_del() - del fs=: lift a filesystem's revocation
 * @d: the daemon
 * @peer: who asks
 * @req: the request (fs=yes with the file sent, or fs=MAJ:MIN)
 * @resp: the answer
 *
 * Return: 0, or -1 once an error is answered.
 */
int filesystems_del(struct daemon *d, const struct ctl_peer *peer,
		    const struct revoke_req *req, struct rbuf *resp)
{
	enum revoke_change change;
	struct fs_target t;
	char why[512];
	int err;

	err = filesystems_target(d, peer, req, &t, why, sizeof(why));
	if (err == -EBUSY)
		err = 0;	/* nothing of it was revoked; say absent below */
	if (err) {
		answer_err(resp, -err, "%s", why);
		return -1;
	}
	err = super_set_del(&d->rb, t.s_dev, &change);
	if (err) {
		answer_err(resp, -err, "cannot update the revoked filesystem "
			   "set: %s", strerror(-err));
		return -1;
	}
	log_info("fs=%u:%u del by uid=%u pid=%d: %s\n",
		 revoke_kdev_major(t.s_dev), revoke_kdev_minor(t.s_dev),
		 (unsigned int)peer->uid, (int)peer->pid,
		 answer_change_name(change));
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	filesystems_answer_target(resp, &t);
	return 0;
}

static int filesystems_list_one(uint32_t s_dev,
				const struct revoke_super_val *val, void *ctx)
{
	char cause[REVOKE_CAUSE_LEN];

	memcpy(cause, val->cause, sizeof(cause));
	cause[sizeof(cause) - 1] = '\0';
	rbuf_printf(ctx, REVOKE_FIELD_FS "=%u:%u " REVOKE_FIELD_KIND
		    "=filesystem " REVOKE_FIELD_REVOKED_AT "=%llu "
		    REVOKE_FIELD_DENIALS "=%llu " REVOKE_FIELD_CAUSE "=%s\n",
		    revoke_kdev_major(s_dev), revoke_kdev_minor(s_dev),
		    (unsigned long long)val->revoked_at,
		    (unsigned long long)val->denials, cause[0] ? cause : "-");
	return 0;
}

/**
 * filesystems_list() - list's lines for the revoked filesystems
 * @d: the daemon
 * @body: where they go
 *
 * Return: 0 or a negative errno.
 */
int filesystems_list(struct daemon *d, struct rbuf *body)
{
	return super_set_for_each(&d->rb, filesystems_list_one, body);
}
