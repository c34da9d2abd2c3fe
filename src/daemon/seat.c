// SPDX-License-Identifier: GPL-2.0
/*
 * seat.c - follow logind's seats ("seat NAME" in the policy): the users
 * with a session on a seat but not its active one are paused on the
 * seat's uaccess devices (cause "seat"), and resumed when one of their
 * sessions becomes active, as logind moves its ACLs.
 *
 * Without libsystemd, the way sd_login_monitor_new("seat") does: inotify
 * on /run/systemd/seats/, whose files logind replaces (rename) at every
 * change; a seat's file says ACTIVE_UID= and UIDS= (seat_save() in
 * systemd's src/login/logind-seat.c).  The seat's devices are those
 * logind's ACL code (logind-acl.c) picks, which udev tagged uaccess
 * (udev_uaccess.c).  A device tagged while users are paused (a hot-plug)
 * is seen by the watches on the tag's index and on udev's database, and
 * paused too.  The same watches serve pause --tag uaccess (pause_tags.c):
 * the inotify descriptor is open while a seat is followed or a tag is
 * paused.
 *
 * Every change is one pass that makes the seat pauses what the seats
 * say now (seats_sync()): pauses of cause "seat" that no seat wants are
 * resumed, those missing are made; an admin's pause is never touched,
 * nor paused over.  uid 0 is never paused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "store/store.h"
#include "udev_uaccess.h"

/* where logind keeps what is read; a unit test points elsewhere */
#ifndef SEAT_RUN_DIR
#define SEAT_RUN_DIR "/run/systemd"
#endif
#define SEAT_DIR SEAT_RUN_DIR "/seats"
#define SEAT_CAUSE PAUSE_CAUSE_SEAT
#define SEAT_UIDS_MAX 64
#define SEAT_DEVS_MAX 1024
#define SEAT_STALE_MAX 4096

/* One seat as logind and udev describe it now. */
struct seat_view {
	const struct policy_seat *ps;
	bool has_active;
	uid_t active;
	uid_t uids[SEAT_UIDS_MAX];
	size_t nuids;
	struct revoke_rdev_key devs[SEAT_DEVS_MAX];
	size_t ndevs;
};

/* The "UIDS=" list: each uid once, at most SEAT_UIDS_MAX. */
static void add_uids(struct seat_view *v, char *list)
{
	char *save = NULL, *w;
	unsigned long u;
	size_t i;

	for (w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		u = strtoul(w, NULL, 10);
		for (i = 0; i < v->nuids && v->uids[i] != (uid_t)u; i++)
			;
		if (i == v->nuids && v->nuids < SEAT_UIDS_MAX)
			v->uids[v->nuids++] = (uid_t)u;
	}
}

/**
 * seat_read_state() - read logind's file of a seat
 * @v: the seat; its uids and active uid are set
 *
 * A seat without a file (logind not running, no such seat) has no
 * session: no one is paused on it.
 */
static void seat_read_state(struct seat_view *v)
{
	char path[128], line[4096];
	FILE *f;

	v->nuids = 0;
	v->has_active = false;
	snprintf(path, sizeof(path), SEAT_DIR "/%s", v->ps->name);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "ACTIVE_UID=", 11)) {
			v->active = (uid_t)strtoul(line + 11, NULL, 10);
			v->has_active = true;
		} else if (!strncmp(line, "UIDS=", 5)) {
			add_uids(v, line + 5);
		}
	}
	fclose(f);
}

/* The seat's devices: what udev tagged uaccess for it (udev_uaccess.c). */
static void seat_read_devices(struct seat_view *v)
{
	struct udev_devs out = { .devs = v->devs, .max = SEAT_DEVS_MAX };

	udev_uaccess_devices(v->ps->name, &out);
	v->ndevs = out.n;
}

/* Does @v pause @key: its device, a user of it who is not active? */
static bool seat_wants(const struct seat_view *v,
		       const struct revoke_pause_key *key)
{
	size_t i;
	bool user = false;

	if (!key->uid || (v->has_active && v->active == key->uid))
		return false;
	for (i = 0; i < v->nuids && !user; i++)
		user = v->uids[i] == key->uid;
	for (i = 0; user && i < v->ndevs; i++)
		if (v->devs[i].rdev == key->rdev && v->devs[i].type == key->type)
			return true;
	return false;
}

/* What one pass works on: every seat followed, and the pauses to lift. */
struct seat_pass {
	struct daemon *d;
	struct seat_view *views;
	size_t nviews;
	struct revoke_pause_key *stale;
	size_t nstale;
	unsigned int paused;
	unsigned int resumed;
};

static bool any_wants(const struct seat_pass *p,
		      const struct revoke_pause_key *key)
{
	size_t i;

	for (i = 0; i < p->nviews; i++)
		if (seat_wants(&p->views[i], key))
			return true;
	return false;
}

/* A seat pause no seat wants any more: collected, lifted after the walk. */
static int find_stale(const struct revoke_pause_key *key,
		      const struct revoke_pause_val *val, void *ctx)
{
	struct seat_pass *p = ctx;

	if (strncmp(val->cause, SEAT_CAUSE, sizeof(val->cause)) ||
	    any_wants(p, key) || p->nstale == SEAT_STALE_MAX)
		return 0;
	p->stale[p->nstale++] = *key;
	return 0;
}

/* Pause @v's inactive users on its devices, where none is paused yet. */
static void seat_pause_users(struct seat_pass *p, const struct seat_view *v)
{
	struct revoke_pause_val val;
	struct revoke_pause_key key;
	size_t u, i;

	for (u = 0; u < v->nuids; u++) {
		key.uid = v->uids[u];
		key.pad = 0;
		for (i = 0; i < v->ndevs; i++) {
			key.rdev = v->devs[i].rdev;
			key.type = v->devs[i].type;
			if (!seat_wants(v, &key) ||
			    !pause_set_get(&p->d->rb, &key, &val))
				continue;
			if (!pauses_device(p->d, &key, v->ps->err, SEAT_CAUSE))
				p->paused++;
		}
	}
}

static void seat_log(const struct seat_view *v)
{
	char who[32] = "no session";

	if (v->has_active)
		snprintf(who, sizeof(who), "uid %u", (unsigned int)v->active);
	log_info("seat %s: %s active, %zu users with a session, %zu uaccess "
		 "devices\n", v->ps->name, who, v->nuids, v->ndevs);
}

/**
 * seats_sync() - make the seat pauses what the seats say now: lift
 *	those no seat wants, then pause each seat's inactive users
 * @d: the daemon
 *
 * With no seat followed, only lifts: the pauses a policy that followed
 * seats left behind go with its seat lines.
 */
void seats_sync(struct daemon *d)
{
	size_t nseats = d->policy.nseats, i;
	struct seat_pass p = { .d = d };

	p.views = calloc(nseats ? nseats : 1, sizeof(*p.views));
	p.stale = calloc(SEAT_STALE_MAX, sizeof(*p.stale));
	if (!p.views || !p.stale) {
		log_err("seats: out of memory\n");
		goto out;
	}
	for (i = 0; i < nseats; i++) {
		p.views[i].ps = &d->policy.seats[i];
		seat_read_state(&p.views[i]);
		seat_read_devices(&p.views[i]);
	}
	p.nviews = nseats;
	pause_set_for_each(&d->rb, find_stale, &p);
	for (i = 0; i < p.nstale; i++)
		if (!pauses_lift(d, &p.stale[i]))
			p.resumed++;
	for (i = 0; i < nseats; i++)
		seat_pause_users(&p, &p.views[i]);
	if (p.paused || p.resumed) {
		for (i = 0; i < nseats; i++)
			seat_log(&p.views[i]);
		pauses_changed(d);
	}
out:
	free(p.views);
	free(p.stale);
}

/* Watch @path on the inotify descriptor, if it is not watched yet. */
static void watch_dir(struct daemon *d, int *wd, const char *path,
		      uint32_t mask)
{
	if (*wd < 0)
		*wd = inotify_add_watch(d->seats.fd, path, mask | IN_ONLYDIR);
}

/*
 * What is watched: the seats' files (replaced by rename, or deleted),
 * /run/systemd and /run/udev/tags for the folders that are not there yet,
 * the uaccess tag's index (a device tagged or untagged), and udev's
 * database, which udev writes (rename) after the tag's index.
 */
static void seats_add_watches(struct daemon *d)
{
	watch_dir(d, &d->seats.wd_seats, SEAT_DIR, IN_MOVED_TO | IN_DELETE);
	watch_dir(d, &d->seats.wd_run, SEAT_RUN_DIR, IN_CREATE | IN_MOVED_TO);
	watch_dir(d, &d->seats.wd_tags, SEAT_TAGS_DIR,
		  IN_CREATE | IN_DELETE | IN_MOVED_TO);
	watch_dir(d, &d->seats.wd_udev, SEAT_UDEV_DIR "/tags",
		  IN_CREATE | IN_MOVED_TO);
	watch_dir(d, &d->seats.wd_data, SEAT_DATA_DIR, IN_MOVED_TO);
}

/*
 * Does @ev call for a pass?  Of udev's database, only a device tagged
 * uaccess's; a watch gone is watched again.
 */
static bool seats_event(struct daemon *d, const struct inotify_event *ev)
{
	if (ev->mask & IN_IGNORED) {
		if (ev->wd == d->seats.wd_seats)
			d->seats.wd_seats = -1;
		if (ev->wd == d->seats.wd_tags)
			d->seats.wd_tags = -1;
		return true;
	}
	if (ev->wd != d->seats.wd_data || !ev->len)
		return true;
	return udev_uaccess_indexed(ev->name);
}

/* Something changed: read the events out, then one pass if need be. */
static void seats_read_events(void *arg)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct daemon *d = arg;
	struct inotify_event *ev;
	bool pass = false;
	ssize_t n;
	char *p;

	while ((n = read(d->seats.fd, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (struct inotify_event *)p;
			pass |= seats_event(d, ev);
		}
	if (!pass)
		return;
	seats_add_watches(d);
	seats_sync(d);
	pause_tags_sync(d);
}

/**
 * seats_watch() - watch the inotify descriptor in the event loop
 * @d: the daemon, its loop up
 *
 * Return: 0 or a negative errno.
 */
int seats_watch(struct daemon *d)
{
	if (d->seats.fd < 0)
		return 0;
	return ctl_loop_watch(&d->loop, d->seats.fd, seats_read_events, d);
}

static void seats_close(struct daemon *d)
{
	if (d->serving)
		ctl_loop_unwatch(&d->loop, d->seats.fd);
	close(d->seats.fd);
	d->seats.fd = -1;
}

/**
 * seats_inotify() - watch logind's seats and udev's database while the
 *	policy follows a seat or a tag is paused (pause --tag), and only
 *	then
 * @d: the daemon
 *
 * Return: 0 or a negative errno (no inotify descriptor).
 */
int seats_inotify(struct daemon *d)
{
	bool want = d->policy.nseats || pause_tags_any(d);
	int err;

	if (!want && d->seats.fd >= 0)
		seats_close(d);
	if (want && d->seats.fd < 0) {
		d->seats.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (d->seats.fd < 0)
			return -errno;
		d->seats.wd_seats = d->seats.wd_run = -1;
		d->seats.wd_tags = d->seats.wd_udev = d->seats.wd_data = -1;
		seats_add_watches(d);
		err = d->serving ? seats_watch(d) : 0;
		if (err) {
			close(d->seats.fd);
			d->seats.fd = -1;
			return err;
		}
	}
	return 0;
}

/**
 * seats_follow() - follow the seats the policy names, and only those:
 *	watch them while there are some, then make the pauses match
 * @d: the daemon, its policy read
 *
 * Called at start and after each reload of the policy.  The paused
 * tags' devices tagged meanwhile (while no revoke-bpfd ran) are paused
 * too, once udev's database is watched.
 *
 * Return: 0 or a negative errno (no inotify descriptor).
 */
int seats_follow(struct daemon *d)
{
	int err = seats_inotify(d);

	if (err)
		return err;
	seats_sync(d);
	pause_tags_sync(d);
	return 0;
}

/**
 * seats_status() - status's field of the seats followed
 * @d: the daemon
 * @resp: the answer: "seats=seat0,seat1", or "seats=-"
 */
void seats_status(const struct daemon *d, struct rbuf *resp)
{
	size_t i;

	rbuf_printf(resp, REVOKE_FIELD_SEATS "=");
	for (i = 0; i < d->policy.nseats; i++)
		rbuf_printf(resp, "%s%s", i ? "," : "", d->policy.seats[i].name);
	rbuf_printf(resp, "%s\n", d->policy.nseats ? "" : "-");
}
