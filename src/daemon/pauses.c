// SPDX-License-Identifier: GPL-2.0
/*
 * pauses.c - pause and resume: a device denied to one user, undoably
 * (revoke-bpf pause, resume).
 *
 * A pause puts (device, user) in the paused set (src/store/pause_set.c),
 * whose hooks fail that user's every operation on the device with the
 * pause's errno (bpf/pause_set.bpf.h), then wakes the user's threads
 * blocked on it (src/pipeline/pause_wake.c).  Nothing of the holders is
 * released, unmapped or killed: a resume takes the entry out, and the
 * same descriptors work again.  A class (pause --subsystem) is paused
 * by pausing each of its devices in sysfs, and each device of it the
 * kernel adds while the pause holds (pause_classes.c); a tag on a seat
 * (pause --tag uaccess) each device udev tagged, and tags later
 * (pause_tags.c).  A pause --revoke is marked so (REVOKE_PAUSE_REVOKE),
 * for list.
 *
 * Answer of both verbs:
 *
 *	ok paused|resumed
 *	device rdev=M:N type=T uid=U [user=NAME] errno=E change=WORD
 *		[subsystem=S | tag=uaccess seat=SEAT]
 *	class subsystem=S | tag=uaccess seat=SEAT, uid=U [user=NAME]
 *		errno=E change=WORD
 *	HOLDERS LINE, failure lines		(pause only: pipeline_pause_wake())
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "pause_run.h"
#include "store/store.h"

#define PAUSE_CAUSE_DEFAULT "admin"

/*
 * The line of a device done; with @rep (pause --revoke), what was taken
 * away from the user on it.
 */
static void device_line(struct pause_run *run, const struct revoke_pause_key *key,
			uint32_t err, const char *subsystem,
			enum revoke_change change,
			const struct revoke_report *rep)
{
	rbuf_printf(&run->lines, REVOKE_LINE_DEVICE " " REVOKE_FIELD_RDEV
		    "=%u:%u " REVOKE_FIELD_TYPE "=%s " REVOKE_FIELD_UID "=%u",
		    revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		    revoke_rdev_type_name(key->type), key->uid);
	revoke_user_field(&run->lines, key->uid);
	rbuf_printf(&run->lines, " " REVOKE_FIELD_ERRNO "=%s "
		    REVOKE_FIELD_CHANGE "=%s", revoke_pause_errno_name(err),
		    answer_change_name(change));
	if (subsystem[0])
		pause_class_field(&run->lines, subsystem);
	if (!run->wake)
		rbuf_printf(&run->lines, " " REVOKE_FIELD_DRAINED "=%llu",
			    (unsigned long long)run->drained);
	if (rep)
		rbuf_printf(&run->lines, " " REVOKE_FIELD_REVOKED "=yes "
			    REVOKE_FIELD_UNMAPPED "=%u " REVOKE_FIELD_RELEASED
			    "=%u", rep->unmapped, rep->released);
	rbuf_printf(&run->lines, "\n");
	run->devices++;
}

/* A device that could not be paused or resumed: named, with why. */
static void device_failed(struct pause_run *run,
			  const struct revoke_pause_key *key, int err)
{
	if (!run->failed)
		run->failed = err;
	rbuf_printf(&run->lines, REVOKE_LINE_DEVICE " " REVOKE_FIELD_RDEV
		    "=%u:%u " REVOKE_FIELD_TYPE "=%s " REVOKE_FIELD_UID "=%u "
		    REVOKE_FIELD_REASON "=%s\n", revoke_kdev_major(key->rdev),
		    revoke_kdev_minor(key->rdev),
		    revoke_rdev_type_name(key->type), key->uid,
		    strerrorname_np(-err) ?: "EIO");
	log_err("pause rdev=%u:%u type=%s uid=%u: %s\n",
		revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		revoke_rdev_type_name(key->type), key->uid, strerror(-err));
}

static void log_change(const char *verb, const struct revoke_pause_key *key,
		       enum revoke_change change)
{
	log_info("%s rdev=%u:%u type=%s uid=%u: %s\n", verb,
		 revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		 revoke_rdev_type_name(key->type), key->uid,
		 answer_change_name(change));
}

/* What pause --revoke took away from the user on one device: the log. */
static void log_revoked(const struct revoke_pause_key *key,
			const struct pipeline_result *res)
{
	char what[64];

	snprintf(what, sizeof(what), "pause --revoke rdev=%u:%u uid=%u",
		 revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		 key->uid);
	pipeline_report_log_run(what, res);
	pipeline_report_log(res);
}

/**
 * pause_run_device() - pause one device for the run's user, then wake the
 *	user's waiters (or, for pause --revoke, take the user's descriptors
 *	and mappings of it away)
 * @run: the request
 * @rdev: the device
 * @type: REVOKE_RDEV_CHAR or REVOKE_RDEV_BLOCK
 */
void pause_run_device(struct pause_run *run, uint32_t rdev, uint32_t type)
{
	struct revoke_pause_key key = { .rdev = rdev, .type = type,
					.uid = run->uid };
	struct revoke_rdev_key dev = { .rdev = rdev, .type = type };
	struct revoke_pause_val old;
	struct pipeline_result res;
	enum revoke_change change;
	int err;

	err = pause_set_add(&run->d->rb, &key, run->err, run->cause,
			    run->subsystem, pause_run_flags(run),
			    &change);
	if (err) {
		device_failed(run, &key, err);
		return;
	}
	/* an admin's pause of what the seat paused is the admin's now */
	if (change == REVOKE_ALREADY && strcmp(run->cause, PAUSE_CAUSE_SEAT) &&
	    !pause_set_get(&run->d->rb, &key, &old) &&
	    !strncmp(old.cause, PAUSE_CAUSE_SEAT, sizeof(old.cause)))
		pause_set_cause(&run->d->rb, &key, run->cause);
	log_change("pause", &key, change);
	if (!run->wake) {
		device_line(run, &key, run->err, run->subsystem, change, NULL);
		return;
	}
	if (run->revoke)
		err = pipeline_pause_revoke(&run->d->pipeline, &dev, run->uid,
					    &res);
	else
		err = pipeline_pause_wake(&run->d->pipeline, &dev, run->uid,
					  &res);
	if (err) {
		device_line(run, &key, run->err, run->subsystem, change, NULL);
		run->wake_err = err;
		return;
	}
	device_line(run, &key, run->err, run->subsystem, change,
		    run->revoke ? &res.rep : NULL);
	if (run->revoke)
		log_revoked(&key, &res);
	verbs_sum_results(&run->sum, &res);
	pipeline_result_free(&res);
}

/**
 * pauses_device() - pause one device for one user, as pause does, and
 *	wake the user's waiters on it (seat.c)
 * @d: the daemon
 * @key: the device and the user
 * @err: the errno the user's operations fail with
 * @cause: who pauses it, one word
 *
 * Return: 0, or a negative errno: not paused, or the waiters not looked
 * for (logged).
 */
int pauses_device(struct daemon *d, const struct revoke_pause_key *key,
		  uint32_t err, const char *cause)
{
	struct pause_run run = { .d = d, .uid = key->uid, .err = err,
				 .cause = cause, .subsystem = "", .wake = true };
	size_t i;

	pause_run_device(&run, key->rdev, key->type);
	if (run.wake_err)
		log_err("pause rdev=%u:%u uid=%u: cannot wake the waiters: %s\n",
			revoke_kdev_major(key->rdev),
			revoke_kdev_minor(key->rdev), key->uid,
			strerror(-run.wake_err));
	/* what pause names and exits 4 for, with no one to answer: the log */
	for (i = 0; i < run.sum.nfail; i++)
		log_warn("pause rdev=%u:%u uid=%u: pid %d (%.16s): %s\n",
			 revoke_kdev_major(key->rdev),
			 revoke_kdev_minor(key->rdev), key->uid,
			 (int)run.sum.fail[i].pid, run.sum.fail[i].comm,
			 run.sum.fail[i].keeps_access ?
			 "keeps a mapping of the device, which works without "
			 "a system call: not paused" : run.sum.fail[i].reason);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	return run.failed ? run.failed : run.wake_err;
}

/*
 * Lift one pause: first drop what the device queued in the user's files
 * meanwhile (the next session's keys), then take the entry out.  The
 * one way out of a pause, for resume and for the seat.
 */
static int lift(struct daemon *d, const struct revoke_pause_key *key,
		uint64_t *bytes, enum revoke_change *change)
{
	struct revoke_rdev_key dev = { .rdev = key->rdev, .type = key->type };
	struct revoke_pause_val val;

	*bytes = 0;
	if (!pause_set_get(&d->rb, key, &val))
		pipeline_pause_drain(&d->pipeline, &dev, key->uid, bytes);
	return pause_set_del(&d->rb, key, change);
}

/**
 * pauses_lift() - resume one pause, as resume does, its queued data
 *	dropped first (seat.c)
 * @d: the daemon
 * @key: the device and the user
 *
 * Return: 0 or a negative errno (logged).
 */
int pauses_lift(struct daemon *d, const struct revoke_pause_key *key)
{
	enum revoke_change change;
	uint64_t bytes;
	int err = lift(d, key, &bytes, &change);

	if (err) {
		log_err("resume rdev=%u:%u type=%s uid=%u: %s\n",
			revoke_kdev_major(key->rdev),
			revoke_kdev_minor(key->rdev),
			revoke_rdev_type_name(key->type), key->uid,
			strerror(-err));
		return err;
	}
	log_change("resume", key, change);
	return 0;
}

/**
 * pauses_changed() - after pauses_device() and pauses_lift(): the paused
 *	users' slices, and systemd's status, brought up to date
 * @d: the daemon
 */
void pauses_changed(struct daemon *d)
{
	int err = pause_set_slices(&d->rb, PAUSE_CGROUP_ROOT);

	if (err)
		log_err("cannot update the paused users' slices: %s\n",
			strerror(-err));
	d->notify.stale = true;
}


/* End a pause request: slices, the answer, what the pipeline found. */
static int pause_answer(struct pause_run *run, const char *word,
			struct rbuf *resp)
{
	int err = pause_set_slices(&run->d->rb, PAUSE_CGROUP_ROOT);

	if (err)
		log_err("cannot update the paused users' slices: %s\n",
			strerror(-err));
	if (run->failed && !run->devices && !run->classes) {
		const char *why = store_attach_error(&run->d->rb);

		if (why[0])
			answer_err(resp, -run->failed, "cannot attach the "
				   "enforcing programs, so nothing was paused: "
				   "%s; see revoke-bpfd's log", why);
		else
			answer_err(resp, -run->failed, "cannot %s: %s",
				   run->wake ? "pause" : "resume",
				   strerror(-run->failed));
		return -1;
	}
	/* some devices only failed: each is named with its reason */
	rbuf_printf(resp, "ok %s\n%.*s", word, (int)run->lines.len,
		    run->lines.data ? run->lines.data : "");
	if (run->wake) {
		answer_pipeline(resp, run->wake_err, &run->sum);
		if (!run->wake_err)
			pipeline_report_lines(resp, &run->sum);
	}
	return 0;
}

/*
 * The class @req names, as @run->subsystem: its subsystem ("" for none),
 * or for a tag on a seat the name it is paused under, "TAG@SEAT"
 * (revoke_tag_class()), made in @name.
 * Return: 0, or -1 once an error is answered.
 */
static int req_class(const struct revoke_req *req, struct pause_run *run,
		     char name[REVOKE_SUBSYSTEM_LEN], struct rbuf *resp)
{
	run->subsystem = req->subsystem;
	if (!req->tag[0])
		return 0;
	if (revoke_tag_class(req->tag, req->seat, name, REVOKE_SUBSYSTEM_LEN)) {
		answer_err(resp, ENAMETOOLONG, "tag and seat too long");
		return -1;
	}
	run->subsystem = name;
	return 0;
}

/**
 * verbs_pause() - pause a device, or a class, for a user
 * @d: the daemon
 * @peer: who asked
 * @req: uid=, rdev= and type=, subsystem=, or tag= [seat=]; errno=,
 *	cause=, release=yes
 * @resp: the answer
 *
 * Return: 0, or -1 once an error is answered.
 */
int verbs_pause(struct daemon *d, const struct ctl_peer *peer,
		const struct revoke_req *req, struct rbuf *resp)
{
	struct pause_run run = {
		.d = d, .uid = req->uid,
		.err = req->pause_errno ? req->pause_errno : ENODEV,
		.cause = req->cause[0] ? req->cause : PAUSE_CAUSE_DEFAULT,
		.wake = true,
		.revoke = req->has_release && req->release == REVOKE_RELEASE_YES,
	};
	char name[REVOKE_SUBSYSTEM_LEN];
	struct revoke_rdev_key key;
	int ret;

	(void)peer;
	if (req_class(req, &run, name, resp))
		return -1;
	if (!req->uid) {
		answer_err(resp, EINVAL, "uid 0 cannot be paused: that is root, "
			   "revoke-bpfd among it; to cut a device off for "
			   "everyone, use add --rdev");
		return -1;
	}
	if (req->tag[0]) {
		ret = pause_tag(&run, resp);
	} else if (req->subsystem[0]) {
		ret = pause_class(&run, resp);
	} else {
		key = devices_key_of(req);
		pause_run_device(&run, key.rdev, key.type);
		ret = 0;
	}
	if (!ret)
		ret = pause_answer(&run, REVOKE_OK_PAUSED, resp);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	d->notify.stale = true;
	return ret;
}

/* Lift one pause (lift()); answer its device line, with the bytes dropped. */
static void resume_device(struct pause_run *run,
			  const struct revoke_pause_key *key, uint32_t err,
			  const char *subsystem)
{
	enum revoke_change change;
	uint64_t bytes;
	int ret;

	ret = lift(run->d, key, &bytes, &change);
	if (ret) {
		device_failed(run, key, ret);
		return;
	}
	log_change("resume", key, change);
	run->drained = bytes;
	device_line(run, key, err, subsystem, change, NULL);
	run->drained = 0;
}

/* Resume @key if the request names it: its device, its class, or all. */
static int resume_one(const struct revoke_pause_key *key,
		      const struct revoke_pause_val *val, void *ctx)
{
	struct pause_run *run = ctx;
	char sub[REVOKE_SUBSYSTEM_LEN];

	memcpy(sub, val->subsystem, sizeof(sub));
	sub[sizeof(sub) - 1] = '\0';
	if (key->uid != run->uid ||
	    (run->subsystem[0] && strcmp(sub, run->subsystem)))
		return 0;
	resume_device(run, key, val->err, sub);
	return 0;
}

/* Forget the classes a resume names: one, or all of the user's. */
static int resume_class(const struct revoke_pause_class *key,
			const struct revoke_pause_val *val, void *ctx)
{
	struct pause_run *run = ctx;
	enum revoke_change change;
	char sub[REVOKE_SUBSYSTEM_LEN];
	const char *was = run->subsystem;

	memcpy(sub, key->subsystem, sizeof(sub));
	sub[sizeof(sub) - 1] = '\0';
	if (key->uid != run->uid || (was[0] && strcmp(sub, was)))
		return 0;
	if (pause_class_del(&run->d->rb, key, &change))
		return 0;
	run->subsystem = sub;
	pause_class_line(run, val->err, change);
	run->subsystem = was;
	log_info("resume subsystem=%s uid=%u: %s\n", sub,
		 (unsigned int)run->uid, answer_change_name(change));
	return 0;
}

/**
 * verbs_resume() - lift pauses of a user: of one device, of a class, or
 *	all of them
 * @d: the daemon
 * @peer: who asked
 * @req: uid=, and rdev= and type=, subsystem=, tag= [seat=], or none
 * @resp: the answer
 *
 * A device or class that was not paused is answered change=absent.
 *
 * Return: 0, or -1 once an error is answered.
 */
int verbs_resume(struct daemon *d, const struct ctl_peer *peer,
		 const struct revoke_req *req, struct rbuf *resp)
{
	struct pause_run run = { .d = d, .uid = req->uid, .cause = "" };
	struct revoke_pause_key key = { .uid = req->uid };
	struct revoke_pause_val val = { .err = ENODEV };
	char name[REVOKE_SUBSYSTEM_LEN];
	int ret;

	(void)peer;
	if (req_class(req, &run, name, resp))
		return -1;
	if (req->has_rdev) {
		key.rdev = devices_key_of(req).rdev;
		key.type = req->rdev_type;
		pause_set_get(&d->rb, &key, &val);
		resume_device(&run, &key, val.err, "");
	} else {
		pause_class_for_each(&d->rb, resume_class, &run);
		pause_set_for_each(&d->rb, resume_one, &run);
		pauses_follow(d);
		seats_inotify(d);
		if (run.subsystem[0] && !run.devices && !run.lines.len)
			pause_class_line(&run, ENODEV, REVOKE_ABSENT);
	}
	ret = pause_answer(&run, REVOKE_OK_RESUMED, resp);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	d->notify.stale = true;
	return ret;
}
