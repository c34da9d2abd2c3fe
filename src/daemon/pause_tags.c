// SPDX-License-Identifier: GPL-2.0
/*
 * pause_tags.c - pause --tag uaccess [--seat SEAT]: a user paused on every
 * device node udev tagged uaccess on a seat (seat0 if none is named), the
 * devices the seat follower pauses (udev_uaccess.c reads them for both),
 * and on each one udev tags while the pause holds.
 *
 * A tag on a seat is kept as a paused class named "TAG@SEAT"
 * (revoke_tag_class()), and each device paused through it carries that
 * name, so that resume --tag lifts what pause --tag made, as resume
 * --subsystem does.  udev tags a device after the kernel's uevent, once
 * its rules ran: what tells of a new one is udev's database, which the
 * seat code watches with inotify (seat.c: the descriptor is open while a
 * tag is paused); each change of it is a pause_tags_sync().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pause_run.h"
#include "store/store.h"
#include "udev_uaccess.h"

#define TAG_DEVS_MAX 1024

/**
 * pause_class_field() - a class's fields in a device, class or list line:
 *	" subsystem=NAME", or for a tag on a seat " tag=TAG seat=SEAT"
 * @b: the line
 * @name: the class's name, as the pause sets keep it
 */
void pause_class_field(struct rbuf *b, const char *name)
{
	char tag[REVOKE_SUBSYSTEM_LEN], seat[REVOKE_SUBSYSTEM_LEN];

	if (revoke_tag_class_split(name, tag, sizeof(tag), seat, sizeof(seat)))
		rbuf_printf(b, " " REVOKE_FIELD_TAG "=%s " REVOKE_FIELD_SEAT
			    "=%s", tag, seat);
	else
		rbuf_printf(b, " " REVOKE_FIELD_SUBSYSTEM "=%s", name);
}

/* Pause each device tagged on the run's seat (its class "TAG@SEAT"). */
static int pause_tag_devices(struct pause_run *run, bool missing_only)
{
	char tag[REVOKE_SUBSYSTEM_LEN], seat[REVOKE_SUBSYSTEM_LEN];
	struct udev_devs out = { .max = TAG_DEVS_MAX };
	struct revoke_pause_key key = { .uid = run->uid };
	struct revoke_pause_val val;
	size_t i;

	if (!revoke_tag_class_split(run->subsystem, tag, sizeof(tag), seat,
				    sizeof(seat)))
		return -EINVAL;
	out.devs = calloc(TAG_DEVS_MAX, sizeof(*out.devs));
	if (!out.devs)
		return -ENOMEM;
	udev_uaccess_devices(seat, &out);
	for (i = 0; i < out.n; i++) {
		key.rdev = out.devs[i].rdev;
		key.type = out.devs[i].type;
		if (missing_only && !pause_set_get(&run->d->rb, &key, &val))
			continue;
		pause_run_device(run, key.rdev, key.type);
	}
	free(out.devs);
	return 0;
}

/**
 * pause_tag() - pause a tag on a seat: remember it, watch udev's
 *	database, pause the devices tagged now
 * @run: the request, its @subsystem "TAG@SEAT"
 * @resp: the answer, for an error
 *
 * Return: 0, or -1 once an error is answered.
 */
int pause_tag(struct pause_run *run, struct rbuf *resp)
{
	struct revoke_pause_class key = { .uid = run->uid };
	enum revoke_change change;
	int err;

	strcpy(key.subsystem, run->subsystem);
	err = pause_class_add(&run->d->rb, &key, run->err, run->cause,
			      pause_run_flags(run), &change);
	/* watching before the walk: a device tagged meanwhile is not missed */
	if (!err)
		err = seats_inotify(run->d);
	if (err) {
		answer_err(resp, -err, "cannot pause the devices tagged %s: %s",
			   run->subsystem, strerror(-err));
		return -1;
	}
	pause_class_line(run, run->err, change);
	log_info("pause tag=%s uid=%u: %s\n", run->subsystem,
		 (unsigned int)run->uid, answer_change_name(change));
	err = pause_tag_devices(run, false);
	if (err) {
		answer_err(resp, -err, "cannot read udev's devices tagged %s: "
			   "%s", run->subsystem, strerror(-err));
		return -1;
	}
	return 0;
}

static int any_tag(const struct revoke_pause_class *key,
		   const struct revoke_pause_val *val, void *ctx)
{
	(void)val;
	(void)ctx;
	return revoke_is_tag_class(key->subsystem, sizeof(key->subsystem));
}

/**
 * pause_tags_any() - is some tag on a seat paused, for anyone?
 * @d: the daemon
 *
 * Return: true if so: udev's database is to be watched.
 */
bool pause_tags_any(struct daemon *d)
{
	return pause_class_for_each(&d->rb, any_tag, NULL) == 1;
}

/* A pass over the paused tags: the daemon, how many devices it paused. */
struct tag_sync {
	struct daemon *d;
	size_t paused;
};

/* One tag paused: pause its user on the devices tagged since. */
static int sync_tag(const struct revoke_pause_class *key,
		    const struct revoke_pause_val *val, void *ctx)
{
	struct tag_sync *ts = ctx;
	char name[REVOKE_SUBSYSTEM_LEN];
	struct pause_run run = { .d = ts->d, .uid = key->uid, .err = val->err,
				 .cause = val->cause, .subsystem = name,
				 .wake = true };

	memcpy(name, key->subsystem, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	if (!revoke_is_tag_class(name, sizeof(name)))
		return 0;
	pause_tag_devices(&run, true);
	if (run.devices)
		log_info("pause tag=%s uid=%u: %zu device%s tagged since\n",
			 name, (unsigned int)run.uid, run.devices,
			 run.devices == 1 ? "" : "s");
	ts->paused += run.devices;
	rbuf_free(&run.lines);
	pipeline_result_free(&run.sum);
	return 0;
}

/**
 * pause_tags_sync() - pause each paused tag's user on the devices tagged
 *	since (hot-plug, or while no revoke-bpfd ran)
 * @d: the daemon
 *
 * Called by seat.c for each change of udev's database, and at start.
 */
void pause_tags_sync(struct daemon *d)
{
	struct tag_sync ts = { .d = d };

	pause_class_for_each(&d->rb, sync_tag, &ts);
	if (ts.paused)
		pauses_changed(d);
}
