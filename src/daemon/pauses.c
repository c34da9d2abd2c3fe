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
 * kernel adds while the pause holds (this file's own uevent socket).
 *
 * Answer of both verbs:
 *
 *	ok paused|resumed
 *	device rdev=M:N type=T uid=U [user=NAME] errno=E change=WORD
 *		[subsystem=S]
 *	class subsystem=S uid=U [user=NAME] errno=E change=WORD
 *	HOLDERS LINE, failure lines		(pause only: pipeline_pause_wake())
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "pipeline/pipeline.h"
#include "store/store.h"
#include "uevent_netlink.h"

#define PAUSE_CGROUP_ROOT "/sys/fs/cgroup"
#define PAUSE_CAUSE_DEFAULT "admin"

/* What one pause or resume request is doing, across its devices. */
struct pause_run {
	struct daemon *d;
	uid_t uid;
	uint32_t err;
	const char *cause;
	const char *subsystem;	/* the class being paused or resumed, or "" */
	struct rbuf lines;	/* its device and class lines */
	struct pipeline_result sum;
	bool wake;		/* pause: wake the user's waiters */
	int failed;		/* a negative errno: the first failure */
	int wake_err;		/* the holders could not be looked for */
	uint64_t drained;	/* resume: bytes dropped from the device line's */
	size_t devices;		/* device lines, of devices done */
	size_t classes;		/* class lines */
};

static void device_line(struct pause_run *run, const struct revoke_pause_key *key,
			uint32_t err, const char *subsystem,
			enum revoke_change change)
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
		rbuf_printf(&run->lines, " " REVOKE_FIELD_SUBSYSTEM "=%s",
			    subsystem);
	if (!run->wake)
		rbuf_printf(&run->lines, " " REVOKE_FIELD_DRAINED "=%llu",
			    (unsigned long long)run->drained);
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

/* Pause one device for the run's user, then wake the user's waiters. */
static void pause_device(struct pause_run *run, uint32_t rdev, uint32_t type)
{
	struct revoke_pause_key key = { .rdev = rdev, .type = type,
					.uid = run->uid };
	struct revoke_rdev_key dev = { .rdev = rdev, .type = type };
	struct revoke_pause_val old;
	struct pipeline_result res;
	enum revoke_change change;
	int err;

	err = pause_set_add(&run->d->rb, &key, run->err, run->cause,
			    run->subsystem, &change);
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
	device_line(run, &key, run->err, run->subsystem, change);
	if (!run->wake)
		return;
	err = pipeline_pause_wake(&run->d->pipeline, &dev, run->uid, &res);
	if (err) {
		run->wake_err = err;
		return;
	}
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

	pause_device(&run, key->rdev, key->type);
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

/* The type of @subsystem's device nodes. */
static uint32_t class_type(const char *subsystem)
{
	return strcmp(subsystem, "block") ? REVOKE_RDEV_CHAR : REVOKE_RDEV_BLOCK;
}

/* The sysfs folder whose entries are @subsystem's devices. */
static void class_dir(const char *subsystem, char *dir, size_t len)
{
	/* usb_device nodes (/dev/bus/usb) are a bus's, not a class's */
	if (!strcmp(subsystem, "usb"))
		snprintf(dir, len, "/sys/bus/usb/devices");
	else
		snprintf(dir, len, "/sys/class/%s", subsystem);
}

/* Read "MAJ:MIN" from @dir/@name/dev into @rdev; 0 or -1. */
static int read_dev(const char *dir, const char *name, uint32_t *rdev)
{
	char path[512], buf[32];
	unsigned int ma, mi;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s/dev", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) && sscanf(buf, "%u:%u", &ma, &mi) == 2;
	fclose(f);
	return ok && !revoke_kdev(ma, mi, rdev) ? 0 : -1;
}

/* Pause every device of the run's class that sysfs lists. */
static int pause_class_devices(struct pause_run *run)
{
	char dir[128];
	struct dirent *e;
	uint32_t type, rdev;
	DIR *dp;

	class_dir(run->subsystem, dir, sizeof(dir));
	type = class_type(run->subsystem);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.' && !read_dev(dir, e->d_name, &rdev))
			pause_device(run, rdev, type);
	closedir(dp);
	return 0;
}

/* The uevent socket is open while some class is paused. */
static int any_class(const struct revoke_pause_class *key,
		     const struct revoke_pause_val *val, void *ctx)
{
	(void)key;
	(void)val;
	(void)ctx;
	return 1;
}

static void pauses_read_uevents(void *arg);

/**
 * pauses_follow() - listen to the kernel's uevents while a class is
 *	paused, and only then
 * @d: the daemon
 *
 * Return: 0 or a negative errno.
 */
int pauses_follow(struct daemon *d)
{
	bool want = pause_class_for_each(&d->rb, any_class, NULL) == 1;

	if (want && d->pause_uevent_fd < 0) {
		d->pause_uevent_fd = uevent_nl_open();
		if (d->pause_uevent_fd < 0)
			return d->pause_uevent_fd;
		if (d->serving)
			pauses_watch(d);
	}
	if (!want && d->pause_uevent_fd >= 0) {
		if (d->serving)
			ctl_loop_unwatch(&d->loop, d->pause_uevent_fd);
		close(d->pause_uevent_fd);
		d->pause_uevent_fd = -1;
	}
	return 0;
}

/**
 * pauses_watch() - watch the uevent socket in the event loop
 * @d: the daemon, its loop up
 *
 * Return: 0 or a negative errno.
 */
int pauses_watch(struct daemon *d)
{
	return ctl_loop_watch(&d->loop, d->pause_uevent_fd,
			      pauses_read_uevents, d);
}

/* A device the kernel added: pause it for each user its class is for. */
struct added {
	struct daemon *d;
	const char *subsystem;
	uint32_t rdev;
	uint32_t type;
};

static int pause_added(const struct revoke_pause_class *key,
		       const struct revoke_pause_val *val, void *ctx)
{
	struct added *a = ctx;
	struct pause_run run = { .d = a->d, .uid = key->uid, .err = val->err,
				 .cause = val->cause,
				 .subsystem = a->subsystem, .wake = true };
	char cls[REVOKE_SUBSYSTEM_LEN];

	memcpy(cls, key->subsystem, sizeof(cls));
	cls[sizeof(cls) - 1] = '\0';
	if (strcmp(cls, a->subsystem) || class_type(cls) != a->type)
		return 0;
	pause_device(&run, a->rdev, a->type);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	return 0;
}

static void pauses_read_uevents(void *arg)
{
	struct daemon *d = arg;
	struct revoke_req req;
	struct added a = { .d = d };
	bool changed = false;

	while (uevent_nl_read(d->pause_uevent_fd, &req) == 1) {
		a.subsystem = uevent_prop(&(struct uevent_props){
				req.prop_keys, req.prop_vals, req.nprops },
					  "SUBSYSTEM");
		if (strcmp(req.action, "add") || !a.subsystem)
			continue;
		a.type = req.rdev_type;
		if (revoke_kdev(req.rdev_major, req.rdev_minor, &a.rdev))
			continue;
		pause_class_for_each(&d->rb, pause_added, &a);
		changed = true;
	}
	if (changed) {
		pause_set_slices(&d->rb, PAUSE_CGROUP_ROOT);
		d->notify.stale = true;
	}
}

/* The class line of a pause or a resume of a class. */
static void class_line(struct pause_run *run, uint32_t err,
		       enum revoke_change change)
{
	rbuf_printf(&run->lines, REVOKE_LINE_CLASS " " REVOKE_FIELD_SUBSYSTEM
		    "=%s " REVOKE_FIELD_UID "=%u", run->subsystem,
		    (unsigned int)run->uid);
	revoke_user_field(&run->lines, run->uid);
	rbuf_printf(&run->lines, " " REVOKE_FIELD_ERRNO "=%s "
		    REVOKE_FIELD_CHANGE "=%s\n", revoke_pause_errno_name(err),
		    answer_change_name(change));
	run->classes++;
}

/* Pause a class: remember it, listen for new devices, pause those there. */
static int pause_class(struct pause_run *run, struct rbuf *resp)
{
	struct revoke_pause_class key = { .uid = run->uid };
	enum revoke_change change;
	char dir[128];
	int err;

	class_dir(run->subsystem, dir, sizeof(dir));
	if (access(dir, F_OK)) {
		answer_err(resp, ENOENT, "no device class '%s': %s does not "
			   "exist (see ls /sys/class)", run->subsystem, dir);
		return -1;
	}
	strcpy(key.subsystem, run->subsystem);
	err = pause_class_add(&run->d->rb, &key, run->err, run->cause, &change);
	/* listening before the walk: a device added meanwhile is not missed */
	if (!err)
		err = pauses_follow(run->d);
	if (err) {
		answer_err(resp, -err, "cannot pause class '%s': %s",
			   run->subsystem, strerror(-err));
		return -1;
	}
	class_line(run, run->err, change);
	log_info("pause subsystem=%s uid=%u: %s\n", run->subsystem,
		 (unsigned int)run->uid, answer_change_name(change));
	return pause_class_devices(run) ? -1 : 0;
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

/**
 * verbs_pause() - pause a device, or a class, for a user
 * @d: the daemon
 * @peer: who asked
 * @req: uid=, rdev= and type= or subsystem=, errno=, cause=
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
		.subsystem = req->subsystem, .wake = true,
	};
	struct revoke_rdev_key key;
	int ret;

	(void)peer;
	if (!req->uid) {
		answer_err(resp, EINVAL, "uid 0 cannot be paused: that is root, "
			   "revoke-bpfd among it; to cut a device off for "
			   "everyone, use add --rdev");
		return -1;
	}
	if (req->subsystem[0]) {
		ret = pause_class(&run, resp);
	} else {
		key = devices_key_of(req);
		pause_device(&run, key.rdev, key.type);
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
	device_line(run, key, err, subsystem, change);
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
	class_line(run, val->err, change);
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
 * @req: uid=, and rdev= and type=, or subsystem=, or neither
 * @resp: the answer
 *
 * A device or class that was not paused is answered change=absent.
 *
 * Return: 0, or -1 once an error is answered.
 */
int verbs_resume(struct daemon *d, const struct ctl_peer *peer,
		 const struct revoke_req *req, struct rbuf *resp)
{
	struct pause_run run = { .d = d, .uid = req->uid, .cause = "",
				 .subsystem = req->subsystem };
	struct revoke_pause_key key = { .uid = req->uid };
	struct revoke_pause_val val = { .err = ENODEV };
	int ret;

	(void)peer;
	if (req->has_rdev) {
		key.rdev = devices_key_of(req).rdev;
		key.type = req->rdev_type;
		pause_set_get(&d->rb, &key, &val);
		resume_device(&run, &key, val.err, "");
	} else {
		pause_class_for_each(&d->rb, resume_class, &run);
		pause_set_for_each(&d->rb, resume_one, &run);
		pauses_follow(d);
		if (req->subsystem[0] && !run.devices && !run.lines.len) {
			run.subsystem = req->subsystem;
			class_line(&run, ENODEV, REVOKE_ABSENT);
		}
	}
	ret = pause_answer(&run, REVOKE_OK_RESUMED, resp);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	d->notify.stale = true;
	return ret;
}

/* A class paused before this start: its devices added meanwhile too. */
static int resync_class(const struct revoke_pause_class *key,
			const struct revoke_pause_val *val, void *ctx)
{
	char sub[REVOKE_SUBSYSTEM_LEN];
	struct pause_run run = { .d = ctx, .uid = key->uid, .err = val->err,
				 .cause = val->cause, .subsystem = sub,
				 .wake = true };

	memcpy(sub, key->subsystem, sizeof(sub));
	sub[sizeof(sub) - 1] = '\0';
	pause_class_devices(&run);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	return 0;
}

/**
 * pauses_start() - take up the paused classes where the last revoke-bpfd
 *	left them: listen for their new devices, and pause those that
 *	appeared while none ran
 * @d: the daemon, its store open
 *
 * Return: 0 or a negative errno (no uevent socket).
 */
int pauses_start(struct daemon *d)
{
	int err = pauses_follow(d);

	pause_class_for_each(&d->rb, resync_class, d);
	pause_set_slices(&d->rb, PAUSE_CGROUP_ROOT);
	return err;
}
