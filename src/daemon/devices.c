// SPDX-License-Identifier: GPL-2.0
/*
 * devices.c - revoked devices, the one room for hot-unplug: revoking a
 * device number (by an add rdev=, or because the device went away), its
 * del, the removals the udev rule or the kernel's uevents tell, and the
 * policy that says what a removal does and where removals come from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "pipeline/pipeline.h"
#include "store/store.h"
#include "uevent_netlink.h"

/**
 * devices_key_of() - the device a request names with rdev= and type=
 * @req: the request
 *
 * Return: its key.
 */
struct revoke_rdev_key devices_key_of(const struct revoke_req *req)
{
	struct revoke_rdev_key key = { .type = req->rdev_type };

	revoke_kdev(req->rdev_major, req->rdev_minor, &key.rdev);
	return key;
}

static void devices_log_change(const char *verb,
			       const struct revoke_rdev_key *key,
			       const char *cause, uid_t uid, pid_t pid,
			       enum revoke_change change)
{
	log_info("%s rdev=%u:%u type=%s cause=%s by uid=%u pid=%d: %s\n", verb,
		 revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		 revoke_rdev_type_name(key->type), cause, (unsigned int)uid,
		 (int)pid, answer_change_name(change));
}

/**
 * devices_add() - revoke a device number
 * @d: the daemon
 * @add: the device, and how
 * @act: what to do after the deny
 * @resp: the answer
 *
 * Hang up the ttys and revoke the evdev nodes the holders have open (the
 * kernel's own revoke, while the daemon's ioctl is still allowed), deny
 * the device number in every hook, then run the pipeline over every node
 * of it that is held.
 *
 * Return: 0, or -1 if the device could not be denied (answered).
 */
int devices_add(struct daemon *d, const struct rdev_add *add,
		struct rdev_actions act, struct rbuf *resp)
{
	struct revoke_rdev_key key = add->key;
	struct pipeline_rdev rd = {};
	struct pipeline_result res;
	enum revoke_change change;
	char what[64];
	int err;

	if (act.pipeline)
		pipeline_rdev_prepare(&d->pipeline, &key, act.hangup, &rd);
	err = device_set_add(&d->rb, &key, add->cause, add->removed, &change);
	if (err)
		pipeline_rdev_cancel(&rd);
	if (err == -ENOSPC) {
		answer_err(resp, ENOSPC, "the revoked device set is full (%u "
			   "entries); del a device first", REVOKE_RDEV_ENTRIES);
		return -1;
	}
	if (err)
		return answer_set_err(resp, &d->rb, err, "device ");
	devices_log_change(add->removed ? "add removed" : "add", &key,
			   add->cause, add->uid, add->pid, change);
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	rbuf_printf(resp, REVOKE_FIELD_RDEV "=%u:%u " REVOKE_FIELD_TYPE "=%s "
		    REVOKE_FIELD_KERNEL_REVOKED "=%u",
		    revoke_kdev_major(key.rdev), revoke_kdev_minor(key.rdev),
		    revoke_rdev_type_name(key.type), rd.kernel_revoked);
	answer_attach(resp, &d->rb);
	if (!act.pipeline)
		return 0;	/* no pidfds were taken either */
	err = pipeline_run_rdev(&d->pipeline, &key, &add->opts, &res);
	answer_pipeline(resp, err, &res);
	if (!err)
		pipeline_report_lines(resp, &res);
	pipeline_rdev_finish(&rd, resp);
	if (err)
		return 0;
	snprintf(what, sizeof(what), "rdev=%u:%u", revoke_kdev_major(key.rdev),
		 revoke_kdev_minor(key.rdev));
	pipeline_report_log_run(what, &res);
	pipeline_report_log(&res);
	pipeline_result_free(&res);
	return 0;
}

/**
 * devices_del() - lift a device's revocation
 * @d: the daemon
 * @key: the device
 * @uid: who asked, for the log
 * @pid: likewise
 * @change: deleted, or absent
 *
 * Return: 0 or a negative errno.
 */
int devices_del(struct daemon *d, const struct revoke_rdev_key *key,
		uid_t uid, pid_t pid, enum revoke_change *change)
{
	int err;

	err = device_set_del(&d->rb, key, change);
	if (!err)
		devices_log_change("del", key, "-", uid, pid, *change);
	return err;
}

/**
 * devices_removal_of() - what a uevent request says went away
 * @rm: the removal; it points into @req, which must outlive it
 * @req: a uevent request, from the udev rule or uevent_nl_read()
 * @from_kernel: @req came from the kernel's netlink uevents
 * @uid: who sent it (the kernel: 0)
 * @pid: likewise
 */
void devices_removal_of(struct device_removal *rm, const struct revoke_req *req,
			bool from_kernel, uid_t uid, pid_t pid)
{
	*rm = (struct device_removal){
		.key = devices_key_of(req),
		.major = req->rdev_major,
		.minor = req->rdev_minor,
		.action = req->action,
		.props = { req->prop_keys, req->prop_vals, req->nprops },
		.from_kernel = from_kernel,
		.uid = uid,
		.pid = pid,
	};
}

/* The policy's rule for @rm, or NULL; said in the log either way. */
static const struct policy_rule *devices_rule(struct daemon *d,
					      const struct device_removal *rm,
					      bool revoked)
{
	const struct policy_rule *rule = policy_match(&d->policy, &rm->props);
	const char *type = revoke_rdev_type_name(rm->key.type);

	if (rule)
		log_info("uevent remove %s %u:%u: policy line %u, mode %s\n",
			 type, rm->major, rm->minor, rule->line,
			 policy_mode_name(rule->mode));
	else
		log_info("uevent remove %s %u:%u: %s\n", type, rm->major,
			 rm->minor, revoked ? "revoked before, now removed" :
					      "no policy rule");
	return rule;
}

/* The value of @rm's property @key, or NULL. */
static const char *devices_prop(const struct device_removal *rm,
				const char *key)
{
	size_t i;

	for (i = 0; i < rm->props.n; i++)
		if (!strcmp(rm->props.keys[i], key))
			return rm->props.vals[i];
	return NULL;
}

/*
 * Remember @rm if it is a partition, for its disk's removal: the kernel
 * removes a disk's partitions first, each in an event of its own, and
 * their sysfs entries are gone by the time the disk's event comes.
 */
static void devices_note_partition(struct daemon *d,
				   const struct device_removal *rm)
{
	const char *type = devices_prop(rm, "DEVTYPE");
	const char *path = devices_prop(rm, "DEVPATH");
	size_t slot;

	if (rm->key.type != REVOKE_RDEV_BLOCK || !type || !path ||
	    strcmp(type, "partition") || strlen(path) >= DEVICES_DEVPATH_LEN)
		return;
	slot = d->parts.next++ % DEVICES_PARTS_MAX;
	strcpy(d->parts.devpath[slot], path);
	d->parts.rdev[slot] = rm->key.rdev;
}

/*
 * The block devices whose filesystems go with @rm: itself, and the
 * partitions seen removed whose DEVPATH is below its own (forgotten
 * now: their disk is gone).  Return how many are in @rdevs.
 */
static size_t devices_with_partitions(struct daemon *d,
				      const struct device_removal *rm,
				      uint32_t *rdevs, size_t max)
{
	const char *path = devices_prop(rm, "DEVPATH");
	size_t i, n = 1, len;

	rdevs[0] = rm->key.rdev;
	if (rm->key.type != REVOKE_RDEV_BLOCK || !path)
		return n;
	len = strlen(path);
	for (i = 0; i < DEVICES_PARTS_MAX; i++) {
		if (strncmp(d->parts.devpath[i], path, len) ||
		    d->parts.devpath[i][len] != '/')
			continue;
		if (n < max)
			rdevs[n++] = d->parts.rdev[i];
		d->parts.devpath[i][0] = '\0';
	}
	return n;
}

/*
 * mode=umount: revoke and unmount every filesystem mounted from @rm or
 * from one of @rdevs, its partitions, as "revoke-bpf umount" does; say
 * each in the log and in @resp.
 */
static void devices_umount(struct daemon *d, const struct device_removal *rm,
			   const uint32_t *rdevs, size_t nr,
			   const struct rdev_add *add, struct rbuf *resp)
{
	struct fs_target t[DEVICES_PARTS_MAX];
	struct umount_result r;
	char *line, *save = NULL;
	int i, n;

	n = filesystems_mounted_from(d, rdevs, nr, t, DEVICES_PARTS_MAX);
	if (n < 0)
		log_err("uevent remove block %u:%u: cannot read the mounts: "
			"%s\n", rm->major, rm->minor, strerror(-n));
	if (!n)
		log_info("uevent remove block %u:%u: no filesystem is mounted "
			 "from it or its partitions\n", rm->major, rm->minor);
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		umount_super(d, t[i].s_dev, t[i].sb, add->cause, &add->opts,
			     &r);
		log_info("uevent remove block %u:%u: fs=%u:%u type=%s %s\n",
			 rm->major, rm->minor, revoke_kdev_major(t[i].s_dev),
			 revoke_kdev_minor(t[i].s_dev), t[i].fstype,
			 r.gone ? "revoked and unmounted" :
			 "revoked, NOT unmounted");
		pipeline_report_lines(resp, &r.sum);
		rbuf_printf(resp, "%.*s", (int)r.lines.len, r.lines.data);
		line = r.lines.data ? strtok_r(r.lines.data, "\n", &save) : NULL;
		for (; line; line = strtok_r(NULL, "\n", &save))
			log_info("uevent remove block %u:%u: %s\n", rm->major,
				 rm->minor, line);
		umount_result_free(&r);
	}
}

/**
 * devices_removed() - act on a device event
 * @d: the daemon
 * @rm: the event
 * @resp: the answer, unless the event is ignored
 *
 * A removed device is revoked if the policy says so, and its revocation,
 * if it was revoked before, is scoped to the instance that went away,
 * policy or not.  With mode=umount, every filesystem mounted from a
 * removed block device or from its partitions (removed before it, in
 * events of their own: devices_note_partition()) is then revoked and
 * unmounted by umount_super().  Events from the source the policy does
 * not follow, and any action but "remove", are ignored.
 *
 * Return: 1 if ignored (nothing answered), else as devices_add().
 */
int devices_removed(struct daemon *d, const struct device_removal *rm,
		    struct rbuf *resp)
{
	uint32_t rdevs[DEVICES_PARTS_MAX + 1];
	const struct policy_rule *rule;
	struct revoke_rdev_val val;
	struct rdev_add add;
	bool revoked;
	size_t nr;
	int ret;

	/* one source at a time, or a removal would be stamped twice */
	if (rm->from_kernel != (d->policy.source == POLICY_SOURCE_NETLINK) ||
	    strcmp(rm->action, "remove"))
		return 1;
	devices_note_partition(d, rm);
	nr = devices_with_partitions(d, rm, rdevs, DEVICES_PARTS_MAX + 1);
	revoked = !device_set_get(&d->rb, &rm->key, &val);
	rule = devices_rule(d, rm, revoked);
	if (!rule && !revoked)
		return 1;
	add = (struct rdev_add){
		.key = rm->key,
		.cause = rm->from_kernel ? "netlink" : "udev",
		.removed = true,
		.opts = {
			/* no rule (revoked by hand): the default, release */
			.release = !rule ? REVOKE_RELEASE_AUTO :
				   rule->mode == POLICY_RELEASE ||
				   rule->mode == POLICY_UMOUNT ?
				   REVOKE_RELEASE_YES : REVOKE_RELEASE_NO,
			.timeout_ms = PIPELINE_TIMEOUT_DEFAULT_MS,
			.spare = d->policy.spare_holders,
		},
		.uid = rm->uid,
		.pid = rm->pid,
	};
	ret = devices_add(d, &add, (struct rdev_actions){
				.pipeline = !rule || rule->mode != POLICY_DENY,
				.hangup = rule && rule->hangup }, resp);
	if (!ret && rule && rule->mode == POLICY_UMOUNT &&
	    rm->key.type == REVOKE_RDEV_BLOCK)
		devices_umount(d, rm, rdevs, nr, &add, resp);
	return ret;
}

/**
 * devices_read_uevents() - handle every pending kernel uevent
 * @arg: the daemon
 *
 * As the udev rule's would be; the answers go nowhere.
 */
void devices_read_uevents(void *arg)
{
	struct daemon *d = arg;
	struct device_removal rm;
	struct rbuf resp = {};

	while (uevent_nl_read(d->uevent_fd, &d->uevent_req) == 1) {
		devices_removal_of(&rm, &d->uevent_req, true, 0, 0);
		devices_removed(d, &rm, &resp);
		rbuf_free(&resp);
		d->notify.stale = true;
	}
}

/**
 * devices_follow_source() - listen to the kernel's uevents if, and only
 * if, the policy says so
 * @d: the daemon
 * @err: why not, on error
 * @errlen: its size
 *
 * Return: 0 or a negative errno.
 */
int devices_follow_source(struct daemon *d, char *err, size_t errlen)
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
			ctl_loop_watch(&d->loop, d->uevent_fd,
				       devices_read_uevents, d);
	}
	if (!want && d->uevent_fd >= 0) {
		if (d->serving)
			ctl_loop_unwatch(&d->loop, d->uevent_fd);
		close(d->uevent_fd);
		d->uevent_fd = -1;
	}
	return 0;
}

/**
 * devices_reload_policy() - reread the policy file
 * @d: the daemon
 * @err: why it was not taken, on error
 * @errlen: its size
 *
 * The policy in force is kept if the new one is bad.  systemd is told
 * RELOADING=1 before, READY=1 after, either way.
 *
 * Return: 0 or a negative errno.
 */
int devices_reload_policy(struct daemon *d, char *err, size_t errlen)
{
	int ret, seats;

	notify_reloading(d);
	ret = policy_load(d->policy_path, &d->policy, err, errlen);
	if (!ret)
		ret = devices_follow_source(d, err, errlen);
	if (ret)
		log_err("%s; the policy in force is unchanged (%zu rules)\n",
			err, d->policy.nrules);
	else
		log_info("policy %s: %zu rules, source %s\n", d->policy_path,
			 d->policy.nrules, d->uevent_fd >= 0 ? "netlink" : "udev");
	/* its seat lines, new or gone, take effect (seat.c) */
	seats = ret ? 0 : seats_follow(d);
	if (seats)
		log_err("cannot follow the seats: inotify: %s\n",
			strerror(-seats));
	notify_ready(d);
	return ret;
}
