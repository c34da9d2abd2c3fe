// SPDX-License-Identifier: GPL-2.0
/*
 * daemon.c - revoke-bpfd: loads and pins the enforcement programs, then
 * serves the control socket until SIGTERM or SIGINT.
 *
 * Connections are served together by one event loop (ctl_loop.c); each
 * complete request is handled at once by the do_* functions below, one
 * per verb.  Between requests it forwards the programs' denial events
 * (events.c).
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "ctl_loop.h"
#include "events.h"
#include "inode_find.h"
#include "pipeline/kernel_revoke.h"
#include "common/key.h"
#include "pipeline/loopdev.h"
#include "lsm_check.h"
#include "store/fs_layout.h"
#include "named.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_report.h"
#include "policy.h"
#include "store/inode_set.h"
#include "store/device_set.h"
#include "pipeline/tracee.h"
#include "pipeline/tty.h"
#include "uevent_netlink.h"

#ifndef REVOKE_VERSION
#define REVOKE_VERSION "0.0.0"
#endif

struct daemon {
	struct store rb;
	struct revoke_events events;
	struct pipeline pipeline;
	time_t started;
	char lsm[256];
	const char *socket_path;
	const char *proc;
	const char *group_name;
	gid_t group;
	const char *policy_path;
	struct policy policy;
	int uevent_fd;
	int signal_fd;
	struct ctl_loop loop;
	bool serving;
	bool quit;
};

static void resp_err(struct rbuf *resp, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void resp_err(struct rbuf *resp, int errnum, const char *fmt, ...)
{
	const char *name = strerrorname_np(errnum);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rbuf_printf(resp, "err %s %s\n", name ? name : "EIO", msg);
}

static const char *const change_words[] = {
	[REVOKE_ADDED] = "added",
	[REVOKE_ALREADY] = "already",
	[REVOKE_DELETED] = "deleted",
	[REVOKE_ABSENT] = "absent",
};

static void list_sites(struct rbuf *out, const struct inode_site *sites,
		       size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		rbuf_printf(out, "%s%u:%u (%s)", i ? ", " : "",
			    revoke_kdev_major(sites[i].kdev),
			    revoke_kdev_minor(sites[i].kdev), sites[i].example);
}

/*
 * The filesystem of an "add INODE" without --dev: the one filesystem on
 * which some process holds an inode of that number.
 */
static int resolve_dev(struct daemon *d, uint64_t ino, uint32_t *kdev,
		       struct rbuf *resp)
{
	struct inode_site sites[REVOKE_FIND_MAX];
	struct rbuf names = {};
	size_t nr;
	int err;

	err = inode_find_sites(d->proc, ino, sites, REVOKE_FIND_MAX, &nr);
	if (err) {
		resp_err(resp, -err, "cannot walk %s to find inode %llu: %s",
			 d->proc, (unsigned long long)ino, strerror(-err));
		return err;
	}
	if (nr == 0) {
		resp_err(resp, ENOENT,
			 "inode %llu is not open or mapped by any process, so its "
			 "filesystem is unknown; name it with --dev MAJ:MIN or "
			 "revoke it by PATH", (unsigned long long)ino);
		return -ENOENT;
	}
	if (nr > 1) {
		list_sites(&names, sites, nr);
		resp_err(resp, ENOTUNIQ,
			 "inode %llu is in use on %zu filesystems: %s; choose one "
			 "with --dev MAJ:MIN", (unsigned long long)ino, nr,
			 names.failed ? "?" : names.data);
		rbuf_free(&names);
		return -ENOTUNIQ;
	}
	*kdev = sites[0].kdev;
	return 0;
}

struct ino_match {
	uint64_t ino;
	struct revoke_key keys[REVOKE_FIND_MAX];
	size_t nr;
};

static int match_ino(const struct revoke_key *key, const struct revoke_val *val,
		     void *ctx)
{
	struct ino_match *m = ctx;

	(void)val;
	if (key->ino == m->ino && m->nr < REVOKE_FIND_MAX)
		m->keys[m->nr++] = *key;
	return 0;
}

/* The filesystem of a "del INODE" without --dev: the revoked entry's. */
static int resolve_revoked_dev(struct daemon *d, uint64_t ino, uint32_t *kdev,
			       struct rbuf *resp)
{
	struct ino_match m = { .ino = ino };
	struct inode_site sites[REVOKE_FIND_MAX];
	struct rbuf names = {};
	size_t i;
	int err;

	err = inode_set_for_each(&d->rb, match_ino, &m);
	if (err) {
		resp_err(resp, -err, "cannot read the revoked set: %s",
			 strerror(-err));
		return err;
	}
	if (m.nr == 0)
		return -ENOENT;
	if (m.nr > 1) {
		for (i = 0; i < m.nr; i++) {
			sites[i].kdev = m.keys[i].dev;
			snprintf(sites[i].example, sizeof(sites[i].example),
				 "revoked");
		}
		list_sites(&names, sites, m.nr);
		resp_err(resp, ENOTUNIQ,
			 "inode %llu is revoked on %zu filesystems: %s; choose one "
			 "with --dev MAJ:MIN", (unsigned long long)ino, m.nr,
			 names.failed ? "?" : names.data);
		rbuf_free(&names);
		return -ENOTUNIQ;
	}
	*kdev = m.keys[0].dev;
	return 0;
}

static void log_change(const struct ctl_peer *peer, const char *verb,
		       const struct revoke_key *key, enum revoke_change change)
{
	fprintf(stderr, "revoke-bpfd: %s dev=%u:%u ino=%llu by uid=%u pid=%d: %s\n",
		verb, revoke_kdev_major(key->dev), revoke_kdev_minor(key->dev),
		(unsigned long long)key->ino, (unsigned int)peer->uid,
		(int)peer->pid, change_words[change]);
}

static void resp_report(struct rbuf *resp, const struct revoke_report *r)
{
	rbuf_printf(resp, "holders=%u fds=%u mappings=%u waiters=%u woken=%u "
		    "unmapped=%u released=%u failed=%u", r->holders, r->fds,
		    r->mappings, r->waiters, r->woken, r->unmapped, r->released,
		    r->failed);
}

/* A holder that cannot be handled is spared if add or the policy says so. */
static struct pipeline_opts pipeline_opts_of(const struct daemon *d,
					     const struct revoke_req *req)
{
	return (struct pipeline_opts){
		.release = req->has_release ? req->release : REVOKE_RELEASE_AUTO,
		.timeout_ms = req->timeout_ms ? req->timeout_ms :
			      PIPELINE_TIMEOUT_DEFAULT_MS,
		.spare = req->spare || d->policy.spare_holders,
	};
}

/* The counts, timings and failures of a pipeline run (or why it did not). */
static void resp_pipeline(struct rbuf *resp, int err,
			  struct pipeline_result *res)
{
	if (err) {
		res->rep.failed = 1;
		resp_report(resp, &res->rep);
		rbuf_printf(resp, " discover_us=0 total_us=0\n");
		rbuf_printf(resp, "failure pid=0 tid=0 step=discover reason=%s\n",
			    err == -ENOSYS ? "holder_iterators_unavailable" :
			    strerrorname_np(-err) ?: "EIO");
		return;
	}
	resp_report(resp, &res->rep);
	rbuf_printf(resp, " discover_us=%llu total_us=%llu killed=%zu passes=%u\n",
		    (unsigned long long)res->discover_us,
		    (unsigned long long)res->total_us, res->nkill, res->passes);
}

static void log_pipeline(const char *what, const struct pipeline_result *res)
{
	fprintf(stderr, "revoke-bpfd: pipeline %s: holders=%u fds=%u "
		"mappings=%u waiters=%u woken=%u unmapped=%u released=%u "
		"failed=%u in %llu us, %u passes, %zu killed\n", what,
		res->rep.holders, res->rep.fds,
		res->rep.mappings, res->rep.waiters, res->rep.woken,
		res->rep.unmapped, res->rep.released, res->rep.failed,
		(unsigned long long)res->total_us, res->passes, res->nkill);
}

/* Add @res's counts and timings to @sum's; @sum keeps @res's failures. */
static void sum_results(struct pipeline_result *sum,
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
 * report what was found and done, as one count.
 */
static void run_pipeline(struct daemon *d, const struct revoke_key *keys,
			 size_t nkeys, const struct revoke_req *req,
			 struct rbuf *resp)
{
	struct pipeline_opts opts = pipeline_opts_of(d, req);
	struct pipeline_result res[NAMED_MAX_KEYS], sum = {};
	char what[64];
	size_t i, j;
	int err = 0;

	for (i = 0; i < nkeys && !err; i++) {
		err = pipeline_run(&d->pipeline, &keys[i], &opts, &res[i]);
		if (err)
			break;
		sum_results(&sum, &res[i]);
		snprintf(what, sizeof(what), "dev=%u:%u ino=%llu",
			 revoke_kdev_major(keys[i].dev),
			 revoke_kdev_minor(keys[i].dev),
			 (unsigned long long)keys[i].ino);
		log_pipeline(what, &res[i]);
		pipeline_report_log(&res[i]);
	}
	if (err) {
		resp_pipeline(resp, err, &res[i]);
	} else {
		resp_pipeline(resp, 0, &sum);
		for (j = 0; j < nkeys; j++)
			pipeline_report_lines(resp, &res[j]);
	}
	for (j = 0; j < i; j++)
		pipeline_result_free(&res[j]);
	pipeline_result_free(&sum);
}

static struct revoke_rdev_key rdev_key_of(const struct revoke_req *req)
{
	struct revoke_rdev_key key = { .type = req->rdev_type };

	revoke_kdev(req->rdev_major, req->rdev_minor, &key.rdev);
	return key;
}

static void resp_rdev(struct rbuf *resp, const struct revoke_rdev_key *key)
{
	rbuf_printf(resp, "rdev=%u:%u type=%s\n", revoke_kdev_major(key->rdev),
		    revoke_kdev_minor(key->rdev), revoke_rdev_type_name(key->type));
}

static void log_rdev_change(const struct ctl_peer *peer, const char *verb,
			    const struct revoke_rdev_key *key, const char *cause,
			    enum revoke_change change)
{
	fprintf(stderr, "revoke-bpfd: %s rdev=%u:%u type=%s cause=%s by uid=%u "
		"pid=%d: %s\n", verb, revoke_kdev_major(key->rdev),
		revoke_kdev_minor(key->rdev), revoke_rdev_type_name(key->type), cause,
		(unsigned int)peer->uid, (int)peer->pid, change_words[change]);
}

/*
 * add rdev=: hang up the ttys and revoke the evdev nodes the holders
 * have open (the kernel's own revoke, while the daemon's ioctl is still
 * allowed), deny the device number in every hook, then run the pipeline
 * over every node of it that is held.
 */
/* What add_rdev() does after the deny. */
struct rdev_actions {
	bool pipeline;
	bool hangup;
};

static int add_rdev(struct daemon *d, const struct ctl_peer *peer,
		    const struct revoke_req *req, struct rdev_actions act,
		    struct rbuf *resp)
{
	struct revoke_rdev_key key = rdev_key_of(req);
	const char *cause = req->cause[0] ? req->cause : "admin";
	struct pipeline_opts opts = pipeline_opts_of(d, req);
	struct pipeline_result res;
	struct pipeline_rdev rd = {};
	enum revoke_change change;
	char what[64];
	int err;

	if (act.pipeline)
		pipeline_rdev_prepare(&d->pipeline, &key, act.hangup, &rd);
	err = device_set_add(&d->rb, &key, cause, req->removed, &change);
	if (err)
		pipeline_rdev_cancel(&rd);
	if (err == -ENOSPC) {
		resp_err(resp, ENOSPC, "the revoked device set is full (%u "
			 "entries); del a device first", REVOKE_RDEV_ENTRIES);
		return -1;
	}
	if (err) {
		resp_err(resp, -err, "cannot update the revoked device set: %s",
			 strerror(-err));
		return -1;
	}
	log_rdev_change(peer, req->removed ? "add removed" : "add", &key, cause,
			change);
	rbuf_printf(resp, "ok %s\n", change_words[change]);
	rbuf_printf(resp, "rdev=%u:%u type=%s kernel_revoked=%u\n",
		    revoke_kdev_major(key.rdev), revoke_kdev_minor(key.rdev),
		    revoke_rdev_type_name(key.type), rd.kernel_revoked);
	if (!act.pipeline)
		return 0;	/* no pidfds were taken either */
	err = pipeline_rdev_run(&d->pipeline, &rd, &opts, &res);
	resp_pipeline(resp, err, &res);
	if (!err)
		pipeline_report_lines(resp, &res);
	pipeline_rdev_finish(&rd, resp);
	if (err)
		return 0;
	snprintf(what, sizeof(what), "rdev=%u:%u", revoke_kdev_major(key.rdev),
		 revoke_kdev_minor(key.rdev));
	log_pipeline(what, &res);
	pipeline_report_log(&res);
	pipeline_result_free(&res);
	return 0;
}

static int do_add_rdev(struct daemon *d, const struct ctl_peer *peer,
		       const struct revoke_req *req, struct rbuf *resp)
{
	return add_rdev(d, peer, req, (struct rdev_actions){ .pipeline = true },
			resp);
}

/*
 * A device event, from the udev rule (revoke-bpf uevent) or, with
 * @from_kernel, from the kernel's netlink uevents.  A removed device is
 * revoked if the policy says so, and its revocation, if it was revoked
 * before, is scoped to the instance that went away, policy or not.
 */
static int handle_uevent(struct daemon *d, const struct ctl_peer *peer,
			 const struct revoke_req *req, bool from_kernel,
			 struct rbuf *resp)
{
	struct uevent_props props = { req->prop_keys, req->prop_vals,
				      req->nprops };
	struct revoke_rdev_key key = rdev_key_of(req);
	struct revoke_req add;
	const struct policy_rule *rule;
	struct revoke_rdev_val val;
	bool revoked;

	/* one source at a time, or a removal would be stamped twice */
	if (from_kernel != (d->policy.source == POLICY_SOURCE_NETLINK) ||
	    strcmp(req->action, "remove")) {
		rbuf_printf(resp, "ok ignored\n");
		return 0;
	}
	revoked = !device_set_get(&d->rb, &key, &val);
	rule = policy_match(&d->policy, &props);
	if (rule)
		fprintf(stderr, "revoke-bpfd: uevent remove %s %u:%u: policy "
			"line %u, mode %s\n", revoke_rdev_type_name(key.type),
			req->rdev_major, req->rdev_minor, rule->line,
			policy_mode_name(rule->mode));
	else
		fprintf(stderr, "revoke-bpfd: uevent remove %s %u:%u: %s\n",
			revoke_rdev_type_name(key.type), req->rdev_major, req->rdev_minor,
			revoked ? "revoked before, now removed" : "no policy rule");
	if (!rule && !revoked) {
		rbuf_printf(resp, "ok ignored\n");
		return 0;
	}
	add = *req;
	add.verb = REVOKE_VERB_ADD;
	add.removed = true;
	snprintf(add.cause, sizeof(add.cause), from_kernel ? "netlink" : "udev");
	/* no rule (revoked by hand): the default, release for devices */
	add.has_release = rule != NULL;
	add.release = rule && rule->mode == POLICY_RELEASE ? REVOKE_RELEASE_YES :
							     REVOKE_RELEASE_NO;
	return add_rdev(d, peer, &add, (struct rdev_actions){
				.pipeline = !rule || rule->mode != POLICY_DENY,
				.hangup = rule && rule->hangup }, resp);
}

static int do_uevent(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	return handle_uevent(d, peer, req, false, resp);
}

static void read_uevents(void *arg);

/* Listen to the kernel's uevents if, and only if, the policy says so. */
static int follow_source(struct daemon *d, char *err, size_t errlen)
{
	bool want = d->policy.source == POLICY_SOURCE_NETLINK;

	if (want && d->uevent_fd < 0) {
		d->uevent_fd = uevent_nl_open();
		if (d->uevent_fd < 0) {
			snprintf(err, errlen, "cannot listen to kernel uevents: %s",
				 strerror(-d->uevent_fd));
			return d->uevent_fd;
		}
		if (d->serving)
			ctl_loop_watch(&d->loop, d->uevent_fd, read_uevents, d);
	}
	if (!want && d->uevent_fd >= 0) {
		if (d->serving)
			ctl_loop_unwatch(&d->loop, d->uevent_fd);
		close(d->uevent_fd);
		d->uevent_fd = -1;
	}
	return 0;
}

/* Reread the policy file; keep the one in force if the new one is bad. */
static int reload_policy(struct daemon *d, char *err, size_t errlen)
{
	int ret = policy_load(d->policy_path, &d->policy, err, errlen);

	if (!ret)
		ret = follow_source(d, err, errlen);
	if (ret)
		fprintf(stderr, "revoke-bpfd: %s; the policy in force is "
			"unchanged (%zu rules)\n", err, d->policy.nrules);
	else
		fprintf(stderr, "revoke-bpfd: policy %s: %zu rules, source %s\n",
			d->policy_path, d->policy.nrules,
			d->uevent_fd >= 0 ? "netlink" : "udev");
	return ret;
}

/* Every pending kernel uevent, handled as the udev rule's would be. */
static void read_uevents(void *arg)
{
	struct daemon *d = arg;
	static struct revoke_req req;
	struct ctl_peer kernel = { .fd = -1, .uid = 0, .pid = 0 };
	struct rbuf resp = {};

	while (uevent_nl_read(d->uevent_fd, &req) == 1) {
		handle_uevent(d, &kernel, &req, true, &resp);
		rbuf_free(&resp);
	}
}

static int do_reload(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	char err[512];

	(void)peer;
	(void)req;
	if (reload_policy(d, err, sizeof(err))) {
		resp_err(resp, EINVAL, "%s; the policy in force is unchanged",
			 err);
		return -1;
	}
	rbuf_printf(resp, "ok reloaded\n");
	rbuf_printf(resp, "policy=%s rules=%zu source=%s\n", d->policy_path,
		    d->policy.nrules, d->uevent_fd >= 0 ? "netlink" : "udev");
	return 0;
}

static int do_del_rdev(struct daemon *d, const struct ctl_peer *peer,
		       const struct revoke_req *req, struct rbuf *resp)
{
	struct revoke_rdev_key key = rdev_key_of(req);
	enum revoke_change change;
	int err;

	err = device_set_del(&d->rb, &key, &change);
	if (err) {
		resp_err(resp, -err, "cannot update the revoked device set: %s",
			 strerror(-err));
		return -1;
	}
	log_rdev_change(peer, "del", &key, "-", change);
	rbuf_printf(resp, "ok %s\n", change_words[change]);
	resp_rdev(resp, &key);
	return 0;
}

/*
 * The keys a request names: those of the file it sent (path=), or the
 * inode it numbers, on the filesystem it names or the one filesystem
 * where that inode is in use (add) or revoked (del).  Return 0, 1 if
 * del named an inode revoked nowhere (answered here), or -1 (answered).
 */
static int request_keys(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct named_file *nf,
			struct rbuf *resp)
{
	char why[256];
	int err;

	memset(nf, 0, sizeof(*nf));
	/* a btrfs or overlay module loaded since: its files can be named now */
	err = fs_layout_update(d->rb.layout_fd, false);
	if (err < 0) {
		resp_err(resp, -err, "cannot update revoke_layout: %s",
			 strerror(-err));
		return -1;
	}
	if (req->has_path) {
		if (peer->sent_fd < 0) {
			resp_err(resp, EINVAL, "bad request: path comes with a "
				 "descriptor of the file, and none came");
			return -1;
		}
		if (!d->pipeline.ready) {
			resp_err(resp, ENOSYS, "cannot read what '%s' is from "
				 "the kernel: %s", req->path, d->pipeline.why);
			return -1;
		}
		err = named_file(&d->pipeline.holders, peer->sent_fd, nf, why,
				 sizeof(why));
		if (err)
			resp_err(resp, -err, "'%s': %s", req->path, why);
		return err ? -1 : 0;
	}
	nf->keys[0].ino = req->ino;
	nf->nkeys = 1;
	if (req->has_dev) {
		revoke_kdev(req->major, req->minor, &nf->keys[0].dev);
		return 0;
	}
	if (req->verb == REVOKE_VERB_ADD)
		return resolve_dev(d, req->ino, &nf->keys[0].dev, resp) ? -1 : 0;
	err = resolve_revoked_dev(d, req->ino, &nf->keys[0].dev, resp);
	if (err == -ENOENT) {
		rbuf_printf(resp, "ok %s\n", change_words[REVOKE_ABSENT]);
		rbuf_printf(resp, "ino=%llu\n", (unsigned long long)req->ino);
		return 1;
	}
	return err ? -1 : 0;
}

/* The key line: the first key, then any other one the request revoked. */
static void resp_keys(struct rbuf *resp, const struct named_file *nf)
{
	size_t i;

	rbuf_printf(resp, "dev=%u:%u ino=%llu", revoke_kdev_major(nf->keys[0].dev),
		    revoke_kdev_minor(nf->keys[0].dev),
		    (unsigned long long)nf->keys[0].ino);
	for (i = 1; i < nf->nkeys; i++)
		rbuf_printf(resp, " also=%u:%u/%llu",
			    revoke_kdev_major(nf->keys[i].dev),
			    revoke_kdev_minor(nf->keys[i].dev),
			    (unsigned long long)nf->keys[i].ino);
	rbuf_printf(resp, "\n");
}

static int do_add(struct daemon *d, const struct ctl_peer *peer,
		  const struct revoke_req *req, struct rbuf *resp)
{
	enum revoke_change change = REVOKE_ALREADY, one;
	struct loopdev_set loops;
	struct named_file nf;
	struct tty_hangup th;
	size_t i;
	int err = 0;

	if (req->has_rdev)
		return do_add_rdev(d, peer, req, resp);
	if (request_keys(d, peer, req, &nf, resp))
		return -1;

	/* a pty slave: a file of it to hang it up with after the deny */
	tty_prepare_inode(&th, d->pipeline.ready ? &d->pipeline.holders : NULL,
			  &nf.keys[0]);
	for (i = 0; i < nf.nkeys && !err; i++) {
		err = inode_set_add(&d->rb, &nf.keys[i], &one);
		if (err)
			break;
		if (one == REVOKE_ADDED)
			change = REVOKE_ADDED;
		if (req->has_path)
			inode_set_name_set(&d->rb, &nf.keys[i], req->path);
		log_change(peer, "add", &nf.keys[i], one);
	}
	if (err)
		tty_hangup_cancel(&th);
	if (err == -ENOSPC) {
		resp_err(resp, ENOSPC,
			 "the revoked set is full (%u entries); del an entry, or "
			 "unload and restart revoke-bpfd with a larger --max-entries",
			 d->rb.max_entries);
		return -1;
	}
	if (err) {
		resp_err(resp, -err, "cannot update the revoked set: %s",
			 strerror(-err));
		return -1;
	}
	rbuf_printf(resp, "ok %s\n", change_words[change]);
	resp_keys(resp, &nf);
	if (req->has_path && d->pipeline.ready)
		holders_skip(&d->pipeline.holders, getpid(), peer->pid);
	run_pipeline(d, nf.keys, nf.nkeys, req, resp);
	if (req->has_path && d->pipeline.ready)
		holders_skip(&d->pipeline.holders, getpid(), 0);
	/* the loop devices backed by each file, by their own numbers */
	for (i = 0; i < nf.nkeys; i++) {
		loopdev_revoke_file(&loops, &d->rb, &d->pipeline, &nf.keys[i]);
		loopdev_report(resp, &loops);
	}
	tty_hangup_finish(&th);
	tty_hangup_report(resp, &th);
	return 0;
}

static int do_del(struct daemon *d, const struct ctl_peer *peer,
		  const struct revoke_req *req, struct rbuf *resp)
{
	enum revoke_change change = REVOKE_ABSENT, one;
	struct named_file nf;
	size_t i;
	int err;

	if (req->has_rdev)
		return do_del_rdev(d, peer, req, resp);
	err = request_keys(d, peer, req, &nf, resp);
	if (err)
		return err > 0 ? 0 : -1;
	for (i = 0; i < nf.nkeys; i++) {
		err = inode_set_del(&d->rb, &nf.keys[i], &one);
		if (err) {
			resp_err(resp, -err, "cannot update the revoked set: %s",
				 strerror(-err));
			return -1;
		}
		if (one == REVOKE_DELETED)
			change = REVOKE_DELETED;
		log_change(peer, "del", &nf.keys[i], one);
	}
	rbuf_printf(resp, "ok %s\n", change_words[change]);
	resp_keys(resp, &nf);
	return 0;
}

struct list_ctx {
	struct daemon *d;
	struct rbuf *body;
};

static int list_one(const struct revoke_key *key, const struct revoke_val *val,
		    void *ctx)
{
	struct list_ctx *lc = ctx;
	char enc[3 * REVOKE_NAME_MAX];
	struct revoke_name name;
	struct revoke_report rep;
	bool have = !inode_set_report_get(&lc->d->rb, key, &rep);

	rbuf_printf(lc->body, "dev=%u:%u ino=%llu kind=%s revoked_at=%llu "
		    "denials=%llu", revoke_kdev_major(key->dev),
		    revoke_kdev_minor(key->dev), (unsigned long long)key->ino,
		    have && rep.flags & REVOKE_REPORT_DEAD ? "dead" : "revoked",
		    (unsigned long long)val->revoked_at,
		    (unsigned long long)val->denials);
	if (have && !(rep.flags & REVOKE_REPORT_DEAD)) {
		rbuf_printf(lc->body, " ");
		resp_report(lc->body, &rep);
	}
	if (!inode_set_name_get(&lc->d->rb, key, &name) &&
	    revoke_pct_encode(name.path, enc, sizeof(enc)) > 0)
		rbuf_printf(lc->body, " path=%s", enc);
	rbuf_printf(lc->body, "\n");
	return 0;
}

static int list_rdev(const struct revoke_rdev_key *key,
		     const struct revoke_rdev_val *val, void *ctx)
{
	struct list_ctx *lc = ctx;
	char cause[REVOKE_CAUSE_LEN];

	memcpy(cause, val->cause, sizeof(cause));
	cause[sizeof(cause) - 1] = '\0';
	rbuf_printf(lc->body, "rdev=%u:%u type=%s kind=device revoked_at=%llu "
		    "removed_at=%llu denials=%llu cause=%s\n",
		    revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		    revoke_rdev_type_name(key->type),
		    (unsigned long long)val->revoked_at,
		    (unsigned long long)(val->removed_ns / 1000000000ull),
		    (unsigned long long)val->denials, cause[0] ? cause : "-");
	return 0;
}

static int do_list(struct daemon *d, const struct ctl_peer *peer,
		   const struct revoke_req *req, struct rbuf *resp)
{
	struct rbuf body = {};
	struct list_ctx lc = { d, &body };
	int err;

	(void)peer;
	(void)req;
	err = inode_set_for_each(&d->rb, list_one, &lc);
	if (!err)
		err = device_set_for_each(&d->rb, list_rdev, &lc);
	if (err) {
		rbuf_free(&body);
		resp_err(resp, -err, "cannot read the revoked set: %s",
			 strerror(-err));
		return -1;
	}
	rbuf_printf(resp, "ok list\n");
	if (body.len)
		rbuf_printf(resp, "%.*s", (int)body.len, body.data);
	resp->failed |= body.failed;
	rbuf_free(&body);
	return 0;
}

static int do_status(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	struct revoke_state st;
	struct utsname uts;
	uint64_t count = 0, ndev = 0;
	int i;

	(void)peer;
	(void)req;
	uname(&uts);
	inode_set_count(&d->rb, &count);
	device_set_count(&d->rb, &ndev);
	memset(&st, 0, sizeof(st));
	inode_set_state(&d->rb, &st);
	rbuf_printf(resp, "ok status\n");
	rbuf_printf(resp, "daemon_pid=%d\n", (int)getpid());
	rbuf_printf(resp, "version=%s\n", REVOKE_VERSION);
	rbuf_printf(resp, "uptime_s=%lld\n", (long long)(time(NULL) - d->started));
	rbuf_printf(resp, "kernel=%s\n", uts.release);
	rbuf_printf(resp, "lsm=%s\n", d->lsm);
	rbuf_printf(resp, "bpf_lsm=%s\n",
		    revoke_lsm_has_bpf(d->lsm) ? "active" : "inactive");
	rbuf_printf(resp, "programs_attached=%d/%d\n",
		    store_count_attached(d->rb.pin_dir),
		    REVOKE_NR_PROGS - d->rb.nr_skipped);
	rbuf_printf(resp, "programs_skipped=%d\n", d->rb.nr_skipped);
	for (i = 0; i < REVOKE_NR_PROGS; i++)
		rbuf_printf(resp, "program.%s=%s\n", revoke_prog_names[i],
			    store_prog_state(&d->rb, i));
	rbuf_printf(resp, "pin_dir=%s\n", d->rb.pin_dir);
	rbuf_printf(resp, "adopted=%s\n", d->rb.adopted ? "yes" : "no");
	rbuf_printf(resp, "replaced_programs=%d\n", d->rb.replaced);
	rbuf_printf(resp, "entries=%llu\n", (unsigned long long)count);
	rbuf_printf(resp, "capacity=%u\n", d->rb.max_entries);
	rbuf_printf(resp, "devices=%llu\n", (unsigned long long)ndev);
	rbuf_printf(resp, "freed_inodes=%llu\n", (unsigned long long)st.freed);
	rbuf_printf(resp, "events_lost=%llu\n", (unsigned long long)st.events_lost);
	rbuf_printf(resp, "subscribers=%d\n", d->events.nsubs);
	rbuf_printf(resp, "socket=%s\n", d->socket_path);
	rbuf_printf(resp, "admin_group=%s\n", d->group_name ? d->group_name : "-");
	ctl_loop_status(&d->loop, resp);
	return 0;
}

/* Keep the connection and stream every denial to it. */
static int do_events(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	(void)req;
	if (revoke_events_subscribe(&d->events, peer->fd)) {
		resp_err(resp, EBUSY, "already %d event subscribers; try again later",
			 REVOKE_MAX_SUBSCRIBERS);
		return -1;
	}
	rbuf_printf(resp, "ok events\n");
	return 1;
}

/*
 * Drop every revocation, detach every program, and exit: first clear
 * revoke_armed, so that nothing is denied from then on, however long the
 * kernel takes to tear the links down after their pins go.
 */
static int do_unload(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req, struct rbuf *resp)
{
	char pin_dir[sizeof(d->rb.pin_dir)];
	int err;

	(void)req;
	strcpy(pin_dir, d->rb.pin_dir);
	/* every hook returns at its first load from here on */
	err = store_disarm(&d->rb);
	if (err)
		fprintf(stderr, "revoke-bpfd: cannot clear revoke_armed: %s; "
			"the programs deny until the kernel detaches them\n",
			strerror(-err));
	revoke_events_close(&d->events);
	store_close(&d->rb);
	err = store_unload(pin_dir);
	fprintf(stderr, "revoke-bpfd: unload by uid=%u pid=%d: %s\n",
		(unsigned int)peer->uid, (int)peer->pid,
		err ? strerror(-err) : "every program detached, every revocation lifted");
	d->quit = true;
	if (err) {
		resp_err(resp, -err, "cannot remove the pins in %s: %s; remove "
			 "them by hand with 'rm -r %s'", pin_dir, strerror(-err),
			 pin_dir);
		return -1;
	}
	rbuf_printf(resp, "ok unloaded\n");
	return 0;
}

typedef int (*verb_fn)(struct daemon *d, const struct ctl_peer *peer,
		       const struct revoke_req *req, struct rbuf *resp);

static const verb_fn verb_handlers[] = {
	[REVOKE_VERB_ADD] = do_add,
	[REVOKE_VERB_DEL] = do_del,
	[REVOKE_VERB_LIST] = do_list,
	[REVOKE_VERB_STATUS] = do_status,
	[REVOKE_VERB_EVENTS] = do_events,
	[REVOKE_VERB_UNLOAD] = do_unload,
	[REVOKE_VERB_UEVENT] = do_uevent,
	[REVOKE_VERB_RELOAD] = do_reload,
};

static bool may_act(const struct daemon *d, const struct ctl_peer *peer)
{
	return peer->uid == 0 ||
	       (d->group_name && ctl_peer_in_group(peer, d->group));
}

/* Only a peer who may change the set sends the daemon a descriptor. */
static bool may_send_fd(const struct ctl_peer *peer, void *ctx)
{
	return may_act(ctx, peer);
}

/* Return true if the handler kept the connection (events). */
static bool handle_request(const struct ctl_peer *peer, const char *buf,
			   size_t len, struct rbuf *resp, void *ctx)
{
	struct daemon *d = ctx;
	struct revoke_req req;
	const char *why = "";

	if (revoke_req_parse(buf, len, &req, &why)) {
		resp_err(resp, EINVAL, "bad request: %s", why);
		return false;
	}
	if (revoke_verb_privileged(req.verb) && !may_act(d, peer)) {
		resp_err(resp, EPERM,
			 "only root%s%s may use '%s' (you are uid %u); run it with sudo",
			 d->group_name ? " and members of group " : "",
			 d->group_name ? d->group_name : "",
			 revoke_verb_name(req.verb), (unsigned int)peer->uid);
		return false;
	}
	if (peer->fds_refused) {
		resp_err(resp, EPERM, "uid %u may not send revoke-bpfd descriptors",
			 (unsigned int)peer->uid);
		return false;
	}
	return verb_handlers[req.verb](d, peer, &req, resp) == 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: revoke-bpfd [OPTION]...\n"
		"Load the revoke-bpf BPF LSM programs, pin them under %s so that\n"
		"they keep enforcing without the daemon, and serve revoke-bpf(8)\n"
		"requests on %s.  Runs in the foreground; ready once\n"
		"'revoke-bpf status' succeeds (and, under systemd, once it has sent\n"
		"READY=1).\n"
		"\n"
		"  --pin-dir DIR       pin directory on a BPF filesystem (default %s)\n"
		"  --socket PATH       control socket (default %s)\n"
		"  --max-entries N     capacity of the revoked set when it is created\n"
		"                      (default %d; an adopted set keeps its size)\n"
		"  --group NAME        members of this group may add, del and unload\n"
		"                      too (default: root only)\n"
		"  --proc DIR          procfs to search for holders (default /proc)\n"
		"  --policy FILE       which removed devices to revoke, and how\n"
		"                      (default %s; reread on SIGHUP\n"
		"                      and 'revoke-bpf reload')\n"
		"  -v, --verbose       print libbpf's debug output\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n",
		REVOKE_PIN_DIR, REVOKE_SOCKET_PATH, REVOKE_PIN_DIR,
		REVOKE_SOCKET_PATH, REVOKE_MAX_ENTRIES_DEFAULT, POLICY_PATH_DEFAULT);
}

struct options {
	const char *pin_dir;
	const char *socket_path;
	const char *proc;
	const char *group;
	const char *policy;
	uint32_t max_entries;
	bool verbose;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "max-entries", required_argument, NULL, 'm' },
		{ "group", required_argument, NULL, 'g' },
		{ "proc", required_argument, NULL, 'P' },
		{ "policy", required_argument, NULL, 'y' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	uint64_t n;
	int c;

	while ((c = getopt_long(argc, argv, "vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->pin_dir = optarg;
			break;
		case 's':
			o->socket_path = optarg;
			break;
		case 'P':
			o->proc = optarg;
			break;
		case 'g':
			o->group = optarg;
			break;
		case 'y':
			o->policy = optarg;
			break;
		case 'm':
			if (revoke_parse_u64(optarg, &n) || n == 0 ||
			    n > REVOKE_TABLE_MAX_ENTRIES) {
				fprintf(stderr, "revoke-bpfd: --max-entries '%s' is not "
					"a number from 1 to %u\n", optarg,
					REVOKE_TABLE_MAX_ENTRIES);
				return 2;
			}
			o->max_entries = (uint32_t)n;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("revoke-bpfd %s\n", REVOKE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'revoke-bpfd --help' for more information.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "revoke-bpfd: unexpected argument '%s'; "
			"try 'revoke-bpfd --help'\n", argv[optind]);
		return 2;
	}
	return -1;
}

static int resolve_group(struct daemon *d, const char *name)
{
	struct group *gr;

	if (!name)
		return 0;
	gr = getgrnam(name);
	if (!gr) {
		fprintf(stderr, "revoke-bpfd: --group '%s': no such group\n", name);
		return -ENOENT;
	}
	d->group_name = name;
	d->group = gr->gr_gid;
	return 0;
}

static int signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/*
 * Tell systemd (Type=notify) how we are doing, if it is listening:
 * a datagram to $NOTIFY_SOCKET, '@' meaning the abstract namespace.
 */
static void sd_notify(const char *state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	socklen_t len;
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(addr.sun_path))
		return;
	memcpy(addr.sun_path, path, strlen(path));
	if (addr.sun_path[0] == '@')
		addr.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr, len);
	close(fd);
}

static int check_lsm(struct daemon *d)
{
	char advice[1024];
	int err;

	err = revoke_lsm_list(d->lsm, sizeof(d->lsm));
	if (err) {
		fprintf(stderr, "revoke-bpfd: cannot read %s: %s; mount securityfs "
			"with 'mount -t securityfs none /sys/kernel/security'\n",
			REVOKE_LSM_FILE, strerror(-err));
		return err;
	}
	if (!revoke_lsm_has_bpf(d->lsm)) {
		revoke_lsm_advice(d->lsm, advice, sizeof(advice));
		fprintf(stderr, "revoke-bpfd: %s\n", advice);
		return -ENOTSUP;
	}
	return 0;
}

/* SIGTERM and SIGINT end the loop, SIGHUP rereads the policy. */
static void read_signal(void *arg)
{
	struct daemon *d = arg;
	struct signalfd_siginfo si;
	char err[512];

	if (read(d->signal_fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGHUP) {
		reload_policy(d, err, sizeof(err));
		return;
	}
	fprintf(stderr, "revoke-bpfd: %s, exiting; the pinned programs keep "
		"enforcing\n", strsignal((int)si.ssi_signo));
	d->quit = true;
}

static void read_events(void *arg)
{
	struct daemon *d = arg;

	revoke_events_consume(&d->events);
}

static bool loop_done(void *ctx)
{
	return ((struct daemon *)ctx)->quit;
}

/* threads that stopped late are let go within 50 ms */
static int loop_tick(void *ctx)
{
	(void)ctx;
	return tracee_reap() ? 50 : -1;
}

static void loop_unstream(int fd, void *ctx)
{
	revoke_events_unsubscribe(&((struct daemon *)ctx)->events, fd);
}

static void events_dropped(int fd, void *arg)
{
	ctl_loop_drop_stream(arg, fd);
}

static const struct ctl_loop_ops loop_ops = {
	.handle = handle_request,
	.may_act = may_send_fd,
	.unstream = loop_unstream,
	.tick = loop_tick,
	.done = loop_done,
};

static int serve(struct daemon *d, int lfd)
{
	int ret;

	ret = ctl_loop_init(&d->loop, lfd, &loop_ops, d);
	if (ret) {
		fprintf(stderr, "revoke-bpfd: cannot set up the event loop: %s\n",
			strerror(-ret));
		return ret;
	}
	d->serving = true;
	d->events.on_drop = events_dropped;
	d->events.drop_arg = &d->loop;
	ret = ctl_loop_watch(&d->loop, d->signal_fd, read_signal, d);
	if (!ret)
		ret = ctl_loop_watch(&d->loop, revoke_events_fd(&d->events),
				     read_events, d);
	if (!ret && d->uevent_fd >= 0)
		ret = ctl_loop_watch(&d->loop, d->uevent_fd, read_uevents, d);
	if (!ret)
		ret = ctl_loop_run(&d->loop);
	if (ret)
		fprintf(stderr, "revoke-bpfd: event loop: %s\n", strerror(-ret));
	return ret;
}

static int start(struct daemon *d, const struct options *o)
{
	char err[1024];
	uint64_t count, ndev;
	int ret;

	if (check_lsm(d))
		return -1;
	if (store_open(&d->rb, o->pin_dir, o->max_entries, o->verbose, err,
			    sizeof(err))) {
		fprintf(stderr, "revoke-bpfd: %s\n", err);
		return -1;
	}
	ret = inode_set_sync(&d->rb, &count);
	if (!ret)
		ret = device_set_sync(&d->rb, &ndev);
	if (ret) {
		fprintf(stderr, "revoke-bpfd: cannot read the revoked set: %s\n",
			strerror(-ret));
		goto fail;
	}
	ret = revoke_events_open(&d->events, d->rb.events_fd);
	if (ret) {
		fprintf(stderr, "revoke-bpfd: cannot read the event ring buffer: %s\n",
			strerror(-ret));
		goto fail;
	}
	ret = tty_reach_init(&d->rb);
	if (ret)
		fprintf(stderr, "revoke-bpfd: cannot write revoke_reach: %s; a "
			"revoked tty will not be hung up after the deny\n",
			strerror(-ret));
	ret = fs_layout_update(d->rb.layout_fd, true);
	if (ret < 0) {
		fprintf(stderr, "revoke-bpfd: cannot fill revoke_layout: %s\n",
			strerror(-ret));
		goto fail;
	}
	pipeline_init(&d->pipeline, &d->rb);
	if (d->pipeline.ready)
		holders_skip(&d->pipeline.holders, getpid(), 0);
	if (!d->pipeline.ready)
		fprintf(stderr, "revoke-bpfd: %s; revocation will deny new "
			"operations but not find holders, wake waiters or "
			"replace mappings\n", d->pipeline.why);
	fprintf(stderr, "revoke-bpfd: %s %d programs under %s (%d replaced, "
		"%d skipped), %llu of %u entries and %llu devices revoked\n",
		d->rb.adopted ? "adopted" : "attached",
		store_count_attached(o->pin_dir), o->pin_dir, d->rb.replaced,
		d->rb.nr_skipped,
		(unsigned long long)count, d->rb.max_entries,
		(unsigned long long)ndev);
	return 0;
fail:
	store_close(&d->rb);
	return -1;
}

int main(int argc, char **argv)
{
	struct options o = {
		.pin_dir = REVOKE_PIN_DIR,
		.socket_path = REVOKE_SOCKET_PATH,
		.proc = "/proc",
		.policy = POLICY_PATH_DEFAULT,
		.max_entries = REVOKE_MAX_ENTRIES_DEFAULT,
	};
	struct daemon d = { .started = time(NULL) };
	char err[1024];
	int ret, lfd;

	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	d.socket_path = o.socket_path;
	d.proc = o.proc;
	if (geteuid() != 0) {
		fprintf(stderr, "revoke-bpfd: must run as root (it loads BPF LSM "
			"programs and reads every process's files)\n");
		return 1;
	}
	if (resolve_group(&d, o.group))
		return 1;
	d.policy_path = o.policy;
	d.uevent_fd = -1;
	if (policy_load(d.policy_path, &d.policy, err, sizeof(err)) ||
	    follow_source(&d, err, sizeof(err))) {
		fprintf(stderr, "revoke-bpfd: %s\n", err);
		return 1;
	}
	d.signal_fd = signal_fd();
	if (d.signal_fd < 0) {
		fprintf(stderr, "revoke-bpfd: signalfd: %s\n", strerror(errno));
		return 1;
	}
	/*
	 * Listen first, so that a second daemon stops before it touches the
	 * pins; requests wait in the backlog until the programs are up.
	 */
	ret = 1;
	lfd = ctl_listen(o.socket_path, err, sizeof(err));
	if (lfd < 0) {
		fprintf(stderr, "revoke-bpfd: %s\n", err);
		close(d.signal_fd);
		return 1;
	}
	if (start(&d, &o))
		goto out_listen;
	fprintf(stderr, "revoke-bpfd: ready, listening on %s\n", o.socket_path);
	sd_notify("READY=1\nSTATUS=enforcing");
	ret = serve(&d, lfd) ? 1 : 0;
	sd_notify("STOPPING=1");
	pipeline_fini(&d.pipeline);
	revoke_events_close(&d.events);
	store_close(&d.rb);
	ctl_loop_fini(&d.loop);
out_listen:
	close(lfd);
	unlink(o.socket_path);
	close(d.signal_fd);
	if (d.uevent_fd >= 0)
		close(d.uevent_fd);
	policy_free(&d.policy);
	return ret;
}
