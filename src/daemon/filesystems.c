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
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "umount/umount.h"
#include "pipeline/pipeline.h"
#include "store/store.h"

/* Filesystems revoke-bpfd itself cannot do without, even forced. */
static const char *const filesystems_kept[] = { "proc", "sysfs", "bpf" };

/* Filesystems the system cannot do without: refused unless forced. */
static const struct {
	const char *fstype;
	const char *why;
} filesystems_needed[] = {
	{ "devtmpfs", "it holds the device nodes of /dev" },
	{ "devpts", "it holds the terminals of every session" },
	{ "cgroup", "the service manager keeps processes through it" },
	{ "cgroup2", "the service manager keeps processes through it" },
};

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
 * Why the system cannot do without @t, or NULL: its type, or it is the
 * root filesystem, or revoke-bpfd's socket or pins are on it.
 */
static const char *filesystems_needed_why(struct daemon *d,
					  const struct fs_target *t,
					  char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(filesystems_needed) /
			sizeof(*filesystems_needed); i++)
		if (!strcmp(t->fstype, filesystems_needed[i].fstype))
			return filesystems_needed[i].why;
	if (t->s_dev == filesystems_sdev_of(d, "/"))
		return "it is the root filesystem";
	if (d->socket_path &&
	    t->s_dev == filesystems_sdev_of(d, d->socket_path)) {
		snprintf(buf, len, "revoke-bpfd's socket %s is on it",
			 d->socket_path);
		return buf;
	}
	if (t->s_dev == filesystems_sdev_of(d, d->rb.pin_dir)) {
		snprintf(buf, len, "revoke-bpfd's pins (%s) are on it",
			 d->rb.pin_dir);
		return buf;
	}
	return NULL;
}

/*
 * Refuse a filesystem revoke-bpfd needs to go on (procfs, sysfs, the BPF
 * filesystem, its executable's), even with force=yes; and one the system
 * cannot do without (filesystems_needed_why()) unless @force.  Return 0,
 * or -EBUSY with @why set.
 */
static int filesystems_refuse(struct daemon *d, const struct fs_target *t,
			      bool force, char *why, size_t len)
{
	unsigned int maj = revoke_kdev_major(t->s_dev);
	unsigned int min = revoke_kdev_minor(t->s_dev);
	const char *need;
	char buf[320];
	size_t i;

	for (i = 0; i < sizeof(filesystems_kept) / sizeof(*filesystems_kept);
	     i++) {
		if (!strcmp(t->fstype, filesystems_kept[i])) {
			snprintf(why, len, "filesystem %u:%u (%s) cannot be "
				 "revoked, even with --force: revoke-bpfd works "
				 "through it", maj, min, t->fstype);
			return -EBUSY;
		}
	}
	if (t->s_dev == filesystems_sdev_of(d, "/proc/self/exe")) {
		snprintf(why, len, "filesystem %u:%u (%s) cannot be revoked, "
			 "even with --force: revoke-bpfd runs from it (its "
			 "executable is on it)", maj, min, t->fstype);
		return -EBUSY;
	}
	need = force ? NULL : filesystems_needed_why(d, t, buf, sizeof(buf));
	if (need) {
		snprintf(why, len, "filesystem %u:%u (%s) is one the system "
			 "cannot do without: %s; --force revokes it anyway",
			 maj, min, t->fstype, need);
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
	return filesystems_refuse(d, t, req->force, why, len);
}

/**
 * filesystems_answer_target() - the answer's line naming the filesystem,
 *	without its end: the caller may add fields
 * @resp: the answer
 * @t: the filesystem
 */
void filesystems_answer_target(struct rbuf *resp, const struct fs_target *t)
{
	rbuf_printf(resp, REVOKE_FIELD_FS "=%u:%u", revoke_kdev_major(t->s_dev),
		    revoke_kdev_minor(t->s_dev));
	if (t->fstype[0])
		rbuf_printf(resp, " " REVOKE_FIELD_FSTYPE "=%s", t->fstype);
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
	if (err)
		return answer_set_err(resp, &d->rb, err, "filesystem ");
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
	answer_attach(resp, &d->rb);
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

/*
 * Name @t's super_block by the kernel's ident of an O_PATH descriptor of
 * @path, a mount point of it in the daemon's namespace, if it is still
 * @t's (not mounted over).  Return true if it is.
 */
static bool filesystems_ident_at(struct daemon *d, const char *path,
				 struct fs_target *t)
{
	struct revoke_ident id;
	bool ok = false;
	int fd;

	if (!d->pipeline.ready)
		return false;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (!holders_ident(&d->pipeline.holders, fd, &id) &&
	    id.s_dev == t->s_dev) {
		t->sb = id.sb;
		memcpy(t->fstype, id.fstype, sizeof(t->fstype));
		t->fstype[sizeof(t->fstype) - 1] = '\0';
		ok = true;
	}
	close(fd);
	return ok;
}

/* Add mount @m to @out (@nr so far, room for @max) if it is a new fs. */
static void filesystems_take(struct daemon *d, const struct fs_mount *m,
			     uint32_t s_dev, struct fs_target *out,
			     size_t *nr, size_t max)
{
	struct fs_target *t = NULL;
	char why[512];
	size_t i;

	for (i = 0; i < *nr; i++)
		if (out[i].s_dev == s_dev)
			t = &out[i];
	if (t && t->sb)
		return;
	if (!t) {
		if (*nr == max)
			return;
		t = &out[*nr];
		memset(t, 0, sizeof(*t));
		t->s_dev = s_dev;
		snprintf(t->fstype, sizeof(t->fstype), "%s", m->fstype);
		(*nr)++;
	}
	filesystems_ident_at(d, m->path, t);
	if (filesystems_refuse(d, t, false, why, sizeof(why))) {
		log_warn("%s; left alone\n", why);
		*t = out[--*nr];
	}
}

/**
 * filesystems_mounted_from() - the filesystems mounted in revoke-bpfd's
 *	mount namespace from some block devices
 * @d: the daemon
 * @rdevs: the devices (kernel encoding): a filesystem matches when its
 *	super_block's s_dev, mountinfo's third field, is one of them
 * @nr: their number
 * @out: the filesystems, each named by its super_block if the kernel's
 *	ident of one of its mount points says (else by number only)
 * @max: room in @out
 *
 * A filesystem revoke-bpfd cannot do without (filesystems_refuse()) is
 * left out, and said in the log.
 *
 * Return: how many are in @out, or a negative errno.
 */
int filesystems_mounted_from(struct daemon *d, const uint32_t *rdevs,
			     size_t nr, struct fs_target *out, size_t max)
{
	struct fs_mount_table tab;
	size_t i, j, found = 0;
	uint32_t s_dev;
	int err;

	err = fs_mounts_read_self(&tab);
	if (err)
		return err;
	for (i = 0; i < tab.nr; i++) {
		if (revoke_kdev(major(tab.m[i].dev), minor(tab.m[i].dev),
				&s_dev))
			continue;
		for (j = 0; j < nr && rdevs[j] != s_dev; j++)
			;
		if (j < nr)
			filesystems_take(d, &tab.m[i], s_dev, out, &found, max);
	}
	fs_mounts_table_free(&tab);
	return (int)found;
}

/* Revoke @t, mounted from a loop device of a revoked file; say it. */
static void filesystems_revoke_image(struct daemon *d, struct fs_target *t,
				     const struct revoke_req *req,
				     pid_t skip, struct rbuf *resp)
{
	struct pipeline_opts opts = verbs_pipeline_opts(d, req);
	const char *cause = req->cause[0] ? req->cause : "image";
	struct pipeline_result res;
	enum revoke_change change;
	struct rbuf fail = {};
	int err;

	rbuf_printf(resp, REVOKE_LINE_MOUNTED " " REVOKE_FIELD_FS "=%u:%u "
		    REVOKE_FIELD_FSTYPE "=%s ", revoke_kdev_major(t->s_dev),
		    revoke_kdev_minor(t->s_dev), t->fstype[0] ? t->fstype : "-");
	err = filesystems_deny(d, t, cause, &change, &fail);
	rbuf_free(&fail);
	if (err) {
		rbuf_printf(resp, REVOKE_FIELD_REVOKED "=no "
			    REVOKE_FIELD_REASON "=deny_failed\n");
		return;
	}
	holders_skip(&d->pipeline.holders, getpid(), skip);
	err = pipeline_run_fs(&d->pipeline, t->s_dev, &opts, &res);
	holders_skip(&d->pipeline.holders, getpid(), 0);
	if (err) {
		rbuf_printf(resp, REVOKE_FIELD_REVOKED "=yes "
			    REVOKE_FIELD_REASON "=pipeline_%s\n",
			    strerrorname_np(-err) ?: "EIO");
		return;
	}
	rbuf_printf(resp, REVOKE_FIELD_REVOKED "=yes " REVOKE_FIELD_HOLDERS
		    "=%u " REVOKE_FIELD_RELEASED "=%u " REVOKE_FIELD_FAILED
		    "=%u\n", res.rep.holders, res.rep.released,
		    res.rep.failed);
	pipeline_report_lines(resp, &res);
	pipeline_report_log_run("image fs", &res);
	pipeline_report_log(&res);
	pipeline_result_free(&res);
}

/**
 * filesystems_revoke_loops() - add's step for a file that holds mounted
 *	filesystem images: revoke every filesystem mounted from one of the
 *	file's loop devices (the loop driver reads the file without a hook,
 *	so revoking the file alone leaves them readable), unmounting nothing
 * @d: the daemon
 * @loops: the file's loop devices, from loopdev_revoke_file()
 * @req: the add (its pipeline options and cause)
 * @skip: the client's pid, whose cwd may be on one of them
 * @resp: add's answer: one "mounted" line per filesystem, then the
 *	pipeline's failures and kills
 */
void filesystems_revoke_loops(struct daemon *d, const struct loopdev_set *loops,
			      const struct revoke_req *req, pid_t skip,
			      struct rbuf *resp)
{
	struct fs_target t[LOOPDEV_MAX];
	uint32_t rdevs[LOOPDEV_MAX];
	int i, nr;

	for (i = 0; i < (int)loops->nr; i++)
		rdevs[i] = loops->dev[i].key.rdev;
	if (!loops->nr)
		return;
	nr = filesystems_mounted_from(d, rdevs, loops->nr, t, LOOPDEV_MAX);
	if (nr < 0) {
		rbuf_printf(resp, REVOKE_LINE_MOUNTED " " REVOKE_FIELD_SCAN
			    "=failed " REVOKE_FIELD_REASON "=%s\n",
			    strerrorname_np(-nr) ?: "EIO");
		return;
	}
	for (i = 0; i < nr; i++)
		filesystems_revoke_image(d, &t[i], req, skip, resp);
}
