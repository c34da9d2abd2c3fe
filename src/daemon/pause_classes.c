// SPDX-License-Identifier: GPL-2.0
/*
 * pause_classes.c - pause --subsystem: a device class paused for a user,
 * which is every device of it in sysfs, and each device of it the kernel
 * adds while the pause holds (this file's own uevent socket, open while
 * some class is paused and only then).  A start of revoke-bpfd takes the
 * paused classes up where the last one left them.
 *
 * Each device is paused as pause pauses one (pause_run_device(),
 * pauses.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pause_run.h"
#include "store/store.h"
#include "uevent_netlink.h"

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
			pause_run_device(run, rdev, type);
	closedir(dp);
	return 0;
}

/*
 * The uevent socket is open while some class is paused; a tag on a seat
 * ("TAG@SEAT") is followed in udev's database instead (pause_tags.c).
 */
static int any_class(const struct revoke_pause_class *key,
		     const struct revoke_pause_val *val, void *ctx)
{
	(void)val;
	(void)ctx;
	return !revoke_is_tag_class(key->subsystem, sizeof(key->subsystem));
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
	pause_run_device(&run, a->rdev, a->type);
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

/**
 * pause_class_line() - the class line of a pause or a resume of a class
 * @run: the request, its @subsystem the class
 * @err: the class's errno
 * @change: what was done
 */
void pause_class_line(struct pause_run *run, uint32_t err,
		      enum revoke_change change)
{
	rbuf_printf(&run->lines, REVOKE_LINE_CLASS);
	pause_class_field(&run->lines, run->subsystem);
	rbuf_printf(&run->lines, " " REVOKE_FIELD_UID "=%u",
		    (unsigned int)run->uid);
	revoke_user_field(&run->lines, run->uid);
	rbuf_printf(&run->lines, " " REVOKE_FIELD_ERRNO "=%s "
		    REVOKE_FIELD_CHANGE "=%s\n", revoke_pause_errno_name(err),
		    answer_change_name(change));
	run->classes++;
}

/**
 * pause_class() - pause a class: remember it, listen for new devices,
 *	pause those there
 * @run: the request, its @subsystem the class
 * @resp: the answer, for an error
 *
 * Return: 0, or -1 once an error is answered.
 */
int pause_class(struct pause_run *run, struct rbuf *resp)
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
	err = pause_class_add(&run->d->rb, &key, run->err, run->cause,
			      pause_run_flags(run), &change);
	/* listening before the walk: a device added meanwhile is not missed */
	if (!err)
		err = pauses_follow(run->d);
	if (err) {
		answer_err(resp, -err, "cannot pause class '%s': %s",
			   run->subsystem, strerror(-err));
		return -1;
	}
	pause_class_line(run, run->err, change);
	log_info("pause subsystem=%s uid=%u: %s\n", run->subsystem,
		 (unsigned int)run->uid, answer_change_name(change));
	return pause_class_devices(run) ? -1 : 0;
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
	if (revoke_is_tag_class(sub, sizeof(sub)))
		return 0;	/* a tag's: pause_tags_sync() */
	pause_class_devices(&run);
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	return 0;
}

/**
 * pauses_start() - take up the paused classes where the last revoke-bpfd
 *	left them: listen for their new devices, and pause those that
 *	appeared while none ran (a tag's: seats_follow())
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
