// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - one handler per request verb, found in a table by the
 * router, verbs_handle(); the one writer of revoke-bpfd's answers.
 *
 * A handler returns 0 once answered, -1 once it answered an error, or 1
 * if it keeps the connection (events).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "pipeline/pipeline.h"
#include "store/store.h"

static void verbs_log_change(const struct ctl_peer *peer, const char *verb,
			     const struct revoke_key *key,
			     enum revoke_change change)
{
	log_info("%s dev=%u:%u ino=%llu by uid=%u pid=%d: %s\n", verb,
		 revoke_kdev_major(key->dev), revoke_kdev_minor(key->dev),
		 (unsigned long long)key->ino, (unsigned int)peer->uid,
		 (int)peer->pid, answer_change_name(change));
}

/**
 * verbs_pipeline_opts() - what the pipeline does for a request
 * @d: the daemon
 * @req: an add (or umount) request
 *
 * A holder that cannot be handled is spared if the request or the
 * policy says so.
 *
 * Return: the options.
 */
struct pipeline_opts verbs_pipeline_opts(const struct daemon *d,
					 const struct revoke_req *req)
{
	return (struct pipeline_opts){
		.release = req->has_release ? req->release : REVOKE_RELEASE_AUTO,
		.timeout_ms = req->timeout_ms ? req->timeout_ms :
			      PIPELINE_TIMEOUT_DEFAULT_MS,
		.spare = req->spare || d->policy.spare_holders,
	};
}

/**
 * verbs_sum_results() - add one run's report to a sum
 * @sum: the sum; it keeps @res's failures and kills
 * @res: the run's report
 */
void verbs_sum_results(struct pipeline_result *sum,
		       const struct pipeline_result *res)
{
	struct revoke_report *s = &sum->rep;
	const struct revoke_report *r = &res->rep;

	s->holders += r->holders;
	s->fds += r->fds;
	s->mappings += r->mappings;
	s->waiters += r->waiters;
	s->woken += r->woken;
	s->unmapped += r->unmapped;
	s->released += r->released;
	s->failed += r->failed;
	sum->discover_us += res->discover_us;
	sum->total_us += res->total_us;
	pipeline_report_merge(sum, res);
}

/*
 * The map update has made every new operation fail; now end the existing
 * ones (pipeline.c) for each of @keys, the files one request revoked, and
 * answer what was found and done, as one count.
 */
static void verbs_run_pipeline(struct daemon *d, const struct revoke_key *keys,
			       size_t nkeys, const struct revoke_req *req,
			       struct rbuf *resp)
{
	struct pipeline_opts opts = verbs_pipeline_opts(d, req);
	struct pipeline_result res[NAMED_MAX_KEYS], sum = {};
	char what[64];
	size_t i, j;
	int err = 0;

	for (i = 0; i < nkeys && !err; i++) {
		err = pipeline_run(&d->pipeline, &keys[i], &opts, &res[i]);
		if (err)
			break;
		verbs_sum_results(&sum, &res[i]);
		snprintf(what, sizeof(what), "dev=%u:%u ino=%llu",
			 revoke_kdev_major(keys[i].dev),
			 revoke_kdev_minor(keys[i].dev),
			 (unsigned long long)keys[i].ino);
		pipeline_report_log_run(what, &res[i]);
		pipeline_report_log(&res[i]);
	}
	if (err) {
		answer_pipeline(resp, err, &res[i]);
	} else {
		answer_pipeline(resp, 0, &sum);
		for (j = 0; j < nkeys; j++)
			pipeline_report_lines(resp, &res[j]);
	}
	for (j = 0; j < i; j++)
		pipeline_result_free(&res[j]);
	pipeline_result_free(&sum);
}

/*
 * The keys @req names, or the answer why not: 0; 1 once a del of an
 * inode revoked nowhere is answered "ok absent"; or -1 once answered.
 */
static int verbs_keys(struct daemon *d, const struct ctl_peer *peer,
		      const struct revoke_req *req, struct named_file *nf,
		      struct rbuf *resp)
{
	char why[1024];
	int err;

	err = request_keys_find(d, peer, req, nf, why, sizeof(why));
	if (err == 1) {
		rbuf_printf(resp, "ok %s\n", answer_change_name(REVOKE_ABSENT));
		rbuf_printf(resp, REVOKE_FIELD_INO "=%llu\n",
			    (unsigned long long)req->ino);
		return 1;
	}
	if (err) {
		answer_err(resp, -err, "%s", why);
		return -1;
	}
	return 0;
}

/* The key line: the first key, then any other one the request revoked. */
static void verbs_resp_keys(struct rbuf *resp, const struct named_file *nf)
{
	size_t i;

	rbuf_printf(resp, REVOKE_FIELD_DEV "=%u:%u " REVOKE_FIELD_INO "=%llu",
		    revoke_kdev_major(nf->keys[0].dev),
		    revoke_kdev_minor(nf->keys[0].dev),
		    (unsigned long long)nf->keys[0].ino);
	for (i = 1; i < nf->nkeys; i++)
		rbuf_printf(resp, " " REVOKE_FIELD_ALSO "=%u:%u/%llu",
			    revoke_kdev_major(nf->keys[i].dev),
			    revoke_kdev_minor(nf->keys[i].dev),
			    (unsigned long long)nf->keys[i].ino);
}

static int verbs_add_rdev(struct daemon *d, const struct ctl_peer *peer,
		       const struct revoke_req *req, struct rbuf *resp)
{
	struct rdev_add add = {
		.key = devices_key_of(req),
		.cause = req->cause[0] ? req->cause : "admin",
		.removed = req->removed,
		.opts = verbs_pipeline_opts(d, req),
		.uid = peer->uid,
		.pid = peer->pid,
	};

	return devices_add(d, &add, (struct rdev_actions){ .pipeline = true },
			   resp);
}

static int verbs_del_rdev(struct daemon *d, const struct ctl_peer *peer,
			  const struct revoke_req *req, struct rbuf *resp)
{
	struct revoke_rdev_key key = devices_key_of(req);
	enum revoke_change change;
	int err;

	err = devices_del(d, &key, peer->uid, peer->pid, &change);
	if (err) {
		answer_err(resp, -err, "cannot update the revoked device set: %s",
			   strerror(-err));
		return -1;
	}
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	rbuf_printf(resp, REVOKE_FIELD_RDEV "=%u:%u "
		    REVOKE_FIELD_TYPE "=%s\n", revoke_kdev_major(key.rdev),
		    revoke_kdev_minor(key.rdev), revoke_rdev_type_name(key.type));
	return 0;
}

/* Deny each key in the revoked set; 0, or an errno answered. */
static int verbs_deny(struct daemon *d, const struct ctl_peer *peer,
		      const struct revoke_req *req, const struct named_file *nf,
		      enum revoke_change *change)
{
	enum revoke_change one;
	size_t i;
	int err;

	*change = REVOKE_ALREADY;
	for (i = 0; i < nf->nkeys; i++) {
		err = inode_set_add(&d->rb, &nf->keys[i], &one);
		if (err)
			return err;
		if (one == REVOKE_ADDED)
			*change = REVOKE_ADDED;
		if (req->has_path)
			inode_set_name_set(&d->rb, &nf->keys[i], req->path);
		verbs_log_change(peer, "add", &nf->keys[i], one);
	}
	return 0;
}

static int verbs_add(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	enum revoke_change change;
	struct loopdev_set loops;
	struct named_file nf;
	struct tty_hangup th;
	size_t i;
	int err;

	if (req->has_rdev)
		return verbs_add_rdev(d, peer, req, resp);
	if (req->fs)
		return filesystems_add(d, peer, req, resp);
	if (req->has_fd)
		return fds_add(d, peer, req, resp);
	if (verbs_keys(d, peer, req, &nf, resp))
		return -1;

	/* a pty slave: a file of it to hang it up with after the deny */
	tty_prepare_inode(&th, d->pipeline.ready ? &d->pipeline.holders : NULL,
			  &nf.keys[0]);
	busy_step(d, "attach");
	err = verbs_deny(d, peer, req, &nf, &change);
	if (err)
		tty_hangup_cancel(&th);
	if (err == -ENOSPC) {
		answer_err(resp, ENOSPC,
			   "the revoked set is full (%u entries); del an entry, or "
			   "unload and restart revoke-bpfd with a larger --max-entries",
			   d->rb.max_entries);
		return -1;
	}
	if (err)
		return answer_set_err(resp, &d->rb, err, "");
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	verbs_resp_keys(resp, &nf);
	answer_attach(resp, &d->rb);
	if (req->has_path && d->pipeline.ready)
		holders_skip(&d->pipeline.holders, getpid(), peer->pid);
	busy_step(d, "holders");
	verbs_run_pipeline(d, nf.keys, nf.nkeys, req, resp);
	if (req->has_path && d->pipeline.ready)
		holders_skip(&d->pipeline.holders, getpid(), 0);
	/* the loop devices backed by each file, by their own numbers */
	for (i = 0; i < nf.nkeys; i++) {
		loopdev_revoke_file(&loops, &d->rb, &d->pipeline, &nf.keys[i]);
		loopdev_report(resp, &loops);
		/* and the filesystems mounted from them, still bound */
		filesystems_revoke_loops(d, &loops, req, peer->pid, resp);
	}
	tty_hangup_finish(&th);
	tty_hangup_report(resp, &th);
	return 0;
}

static int verbs_del(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	enum revoke_change change = REVOKE_ABSENT, one;
	struct named_file nf;
	size_t i;
	int err;

	if (req->has_rdev)
		return verbs_del_rdev(d, peer, req, resp);
	if (req->fs)
		return filesystems_del(d, peer, req, resp);
	err = verbs_keys(d, peer, req, &nf, resp);
	if (err)
		return err > 0 ? 0 : -1;
	for (i = 0; i < nf.nkeys; i++) {
		err = inode_set_del(&d->rb, &nf.keys[i], &one);
		if (err) {
			answer_err(resp, -err, "cannot update the revoked set: %s",
				   strerror(-err));
			return -1;
		}
		if (one == REVOKE_DELETED)
			change = REVOKE_DELETED;
		verbs_log_change(peer, "del", &nf.keys[i], one);
	}
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	verbs_resp_keys(resp, &nf);
	rbuf_printf(resp, "\n");
	return 0;
}

/* Keep the connection and stream every denial to it. */
static int verbs_events(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp)
{
	(void)req;
	if (revoke_events_subscribe(&d->events, peer->fd)) {
		answer_err(resp, EBUSY, "already %d event subscribers; try again later",
			   REVOKE_MAX_SUBSCRIBERS);
		return -1;
	}
	rbuf_printf(resp, "ok " REVOKE_OK_EVENTS "\n");
	return 1;
}

/*
 * Drop every revocation, detach every program, and exit: first clear
 * revoke_armed, so that nothing is denied from then on, however long the
 * kernel takes to tear the links down after their pins go.
 */
static int verbs_unload(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp)
{
	char pin_dir[sizeof(d->rb.pin_dir)];
	int err;

	(void)req;
	strcpy(pin_dir, d->rb.pin_dir);
	/* every hook returns at its first load from here on */
	err = store_disarm(&d->rb);
	if (err)
		log_err("cannot clear revoke_armed: %s; the programs deny "
			"until the kernel detaches them\n", strerror(-err));
	revoke_events_close(&d->events);
	store_close(&d->rb);
	err = store_unload(pin_dir);
	declared_forget(d);
	log_info("unload by uid=%u pid=%d: %s\n", (unsigned int)peer->uid,
		 (int)peer->pid, err ? strerror(-err) :
		 "every program detached, every revocation lifted");
	d->quit = true;
	if (err) {
		answer_err(resp, -err, "cannot remove the pins in %s: %s; remove "
			   "them by hand with 'rm -r %s'", pin_dir, strerror(-err),
			   pin_dir);
		return -1;
	}
	rbuf_printf(resp, "ok " REVOKE_OK_UNLOADED "\n");
	return 0;
}

/* A device event from the udev rule (revoke-bpf uevent). */
static int verbs_uevent(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp)
{
	struct device_removal rm;
	int ret;

	devices_removal_of(&rm, req, false, peer->uid, peer->pid);
	ret = devices_removed(d, &rm, resp);
	if (ret == 1) {
		rbuf_printf(resp, "ok " REVOKE_OK_IGNORED "\n");
		return 0;
	}
	return ret;
}

static int verbs_reload(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp)
{
	char err[512], enc[3 * PATH_MAX];

	(void)peer;
	(void)req;
	if (devices_reload_policy(d, err, sizeof(err))) {
		answer_err(resp, EINVAL, "%s; the policy in force is unchanged",
			   err);
		return -1;
	}
	declared_apply(d);
	rbuf_printf(resp, "ok " REVOKE_OK_RELOADED "\n");
	/* a path, percent-encoded like every name in an answer */
	if (revoke_pct_encode(d->policy_path, enc, sizeof(enc)) < 0)
		snprintf(enc, sizeof(enc), "%%3F");
	rbuf_printf(resp, REVOKE_FIELD_POLICY "=%s " REVOKE_FIELD_RULES "=%zu "
		    REVOKE_FIELD_SOURCE "=%s\n", enc,
		    d->policy.nrules, d->uevent_fd >= 0 ? "netlink" : "udev");
	declared_answer(d, resp);
	return 0;
}

typedef int (*verbs_fn)(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp);

static const verbs_fn verbs_handlers[REVOKE_VERB_COUNT] = {
	[REVOKE_VERB_ADD] = verbs_add,
	[REVOKE_VERB_DEL] = verbs_del,
	[REVOKE_VERB_LIST] = verbs_list,
	[REVOKE_VERB_STATUS] = verbs_status,
	[REVOKE_VERB_EVENTS] = verbs_events,
	[REVOKE_VERB_UNLOAD] = verbs_unload,
	[REVOKE_VERB_UEVENT] = verbs_uevent,
	[REVOKE_VERB_RELOAD] = verbs_reload,
	[REVOKE_VERB_UMOUNT] = umount_fs,
	[REVOKE_VERB_HOLDERS] = verbs_holders,
	[REVOKE_VERB_PAUSE] = verbs_pause,
	[REVOKE_VERB_RESUME] = verbs_resume,
};

static bool verbs_may_act(const struct daemon *d, const struct ctl_peer *peer)
{
	return peer->uid == 0 ||
	       (d->group_name && ctl_peer_in_group(peer, d->group));
}

/**
 * verbs_may_send_fd() - may @peer send the daemon a descriptor?
 * @peer: the peer
 * @ctx: the daemon
 *
 * Only a peer who may change the set may.
 *
 * Return: true if so.
 */
bool verbs_may_send_fd(const struct ctl_peer *peer, void *ctx)
{
	return verbs_may_act(ctx, peer);
}

/*
 * Whether @peer may not send @verb (revoke_verbs[].access): if so,
 * answer EPERM naming who may, and return true.
 */
static bool verbs_refuse(const struct daemon *d, const struct ctl_peer *peer,
			 enum revoke_verb verb, struct rbuf *resp)
{
	enum revoke_access access = revoke_verb_access(verb);

	if (access == REVOKE_ACCESS_ANYONE || peer->uid == 0)
		return false;
	if (access == REVOKE_ACCESS_ROOT) {
		answer_err(resp, EPERM,
			   "only root may use '%s' (you are uid %u)%s; run it "
			   "with sudo", revoke_verb_name(verb),
			   (unsigned int)peer->uid, d->group_name ?
			   ", not the members of revoke-bpfd's --group" : "");
		return true;
	}
	if (verbs_may_act(d, peer))
		return false;
	answer_err(resp, EPERM,
		   "only root%s%s may use '%s' (you are uid %u); run it with sudo",
		   d->group_name ? " and members of group " : "",
		   d->group_name ? d->group_name : "",
		   revoke_verb_name(verb), (unsigned int)peer->uid);
	return true;
}

/**
 * verbs_handle() - parse, check and answer one request
 * @peer: who sent it
 * @buf: the request
 * @len: its length
 * @resp: the answer
 * @ctx: the daemon
 *
 * Return: true if the handler kept the connection (events).
 */
bool verbs_handle(const struct ctl_peer *peer, const char *buf, size_t len,
		  struct rbuf *resp, void *ctx)
{
	struct daemon *d = ctx;
	struct revoke_req req;
	const char *why = "";
	bool keep;

	if (revoke_req_parse(buf, len, &req, &why)) {
		answer_err(resp, EINVAL, "bad request: %s", why);
		return false;
	}
	if (verbs_refuse(d, peer, req.verb, resp))
		return false;
	if (peer->fds_refused) {
		answer_err(resp, EPERM, "uid %u may not send revoke-bpfd descriptors",
			   (unsigned int)peer->uid);
		return false;
	}
	if (!verbs_handlers[req.verb]) {
		answer_err(resp, ENOSYS, "'%s' is not served by this revoke-bpfd",
			   revoke_verb_name(req.verb));
		return false;
	}
	store_attach_take(&d->rb);	/* an attach of an earlier event's */
	/* only a privileged verb changes what is revoked: STATUS= counts
	 * again after it, not after anyone's status or list */
	if (revoke_verb_privileged(req.verb))
		d->notify.stale = true;
	if (req.verb == REVOKE_VERB_DEL &&
	    declared_refuse_del(d, peer, &req, resp))
		return false;
	/*
	 * The line is written from the path the client names, which need
	 * not be the file it sent: root's only, as the folder is.
	 */
	if (req.persist && peer->uid != 0) {
		answer_err(resp, EPERM, "add --persist writes %s: root only; "
			   "run it with sudo", d->decl.dir);
		return false;
	}
	keep = verbs_handlers[req.verb](d, peer, &req, resp) == 1;
	if (req.verb == REVOKE_VERB_ADD)
		declared_after_add(d, peer, &req, resp);
	return keep;
}
