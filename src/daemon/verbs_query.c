// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_query.c - the verbs that only read: list (the revoked inodes and
 * devices) and status (the daemon, its programs and its sets), for the
 * handler table in verbs.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "lsm_check.h"
#include "store/store.h"

#ifndef REVOKE_VERSION
#define REVOKE_VERSION "0.0.0"
#endif

struct verbs_list_ctx {
	struct daemon *d;
	struct rbuf *body;
};

static int verbs_list_inode(const struct revoke_key *key,
			    const struct revoke_val *val, void *ctx)
{
	struct verbs_list_ctx *lc = ctx;
	char enc[3 * REVOKE_NAME_MAX];
	struct revoke_name name;
	struct revoke_report rep;
	bool have = !inode_set_report_get(&lc->d->rb, key, &rep);

	rbuf_printf(lc->body, REVOKE_FIELD_DEV "=%u:%u "
		    REVOKE_FIELD_INO "=%llu " REVOKE_FIELD_KIND "=%s "
		    REVOKE_FIELD_REVOKED_AT "=%llu "
		    REVOKE_FIELD_DENIALS "=%llu", revoke_kdev_major(key->dev),
		    revoke_kdev_minor(key->dev), (unsigned long long)key->ino,
		    have && rep.flags & REVOKE_REPORT_DEAD ? "dead" : "revoked",
		    (unsigned long long)val->revoked_at,
		    (unsigned long long)val->denials);
	if (have && !(rep.flags & REVOKE_REPORT_DEAD)) {
		rbuf_printf(lc->body, " ");
		answer_report(lc->body, &rep);
	}
	if (!inode_set_name_get(&lc->d->rb, key, &name) &&
	    revoke_pct_encode(name.path, enc, sizeof(enc)) > 0)
		rbuf_printf(lc->body, " " REVOKE_FIELD_PATH "=%s", enc);
	rbuf_printf(lc->body, "\n");
	return 0;
}

static int verbs_list_rdev(const struct revoke_rdev_key *key,
			   const struct revoke_rdev_val *val, void *ctx)
{
	struct verbs_list_ctx *lc = ctx;
	char cause[REVOKE_CAUSE_LEN];

	memcpy(cause, val->cause, sizeof(cause));
	cause[sizeof(cause) - 1] = '\0';
	rbuf_printf(lc->body, REVOKE_FIELD_RDEV "=%u:%u "
		    REVOKE_FIELD_TYPE "=%s " REVOKE_FIELD_KIND "=device "
		    REVOKE_FIELD_REVOKED_AT "=%llu "
		    REVOKE_FIELD_REMOVED_AT "=%llu "
		    REVOKE_FIELD_DENIALS "=%llu " REVOKE_FIELD_CAUSE "=%s\n",
		    revoke_kdev_major(key->rdev), revoke_kdev_minor(key->rdev),
		    revoke_rdev_type_name(key->type),
		    (unsigned long long)val->revoked_at,
		    (unsigned long long)(val->removed_ns / 1000000000ull),
		    (unsigned long long)val->denials, cause[0] ? cause : "-");
	return 0;
}

/* @v's cause and subsystem, NUL-terminated, "-" for none */
static void pause_words(const struct revoke_pause_val *v, char *cause,
			char *sub)
{
	memcpy(cause, v->cause, REVOKE_CAUSE_LEN);
	cause[REVOKE_CAUSE_LEN - 1] = '\0';
	memcpy(sub, v->subsystem, REVOKE_SUBSYSTEM_LEN);
	sub[REVOKE_SUBSYSTEM_LEN - 1] = '\0';
	if (!cause[0])
		strcpy(cause, "-");
}

/* A pause's last fields: how it was made, and through which class. */
static void pause_tail(struct rbuf *b, const struct revoke_pause_val *val,
		       const char *sub)
{
	rbuf_printf(b, " " REVOKE_FIELD_REVOKED "=%s",
		    val->flags & REVOKE_PAUSE_REVOKE ? "yes" : "no");
	if (sub[0])
		pause_class_field(b, sub);
	rbuf_printf(b, "\n");
}

static int verbs_list_pause(const struct revoke_pause_key *key,
			    const struct revoke_pause_val *val, void *ctx)
{
	struct verbs_list_ctx *lc = ctx;
	char cause[REVOKE_CAUSE_LEN], sub[REVOKE_SUBSYSTEM_LEN];

	pause_words(val, cause, sub);
	rbuf_printf(lc->body, REVOKE_FIELD_RDEV "=%u:%u "
		    REVOKE_FIELD_TYPE "=%s " REVOKE_FIELD_KIND "=pause "
		    REVOKE_FIELD_UID "=%u", revoke_kdev_major(key->rdev),
		    revoke_kdev_minor(key->rdev),
		    revoke_rdev_type_name(key->type), key->uid);
	revoke_user_field(lc->body, key->uid);
	rbuf_printf(lc->body, " " REVOKE_FIELD_ERRNO "=%s "
		    REVOKE_FIELD_PAUSED_AT "=%llu " REVOKE_FIELD_DENIALS "=%llu "
		    REVOKE_FIELD_CAUSE "=%s",
		    revoke_pause_errno_name(val->err),
		    (unsigned long long)val->paused_at,
		    (unsigned long long)val->denials, cause);
	pause_tail(lc->body, val, sub);
	return 0;
}

static int verbs_list_pause_class(const struct revoke_pause_class *key,
				  const struct revoke_pause_val *val,
				  void *ctx)
{
	struct verbs_list_ctx *lc = ctx;
	char cause[REVOKE_CAUSE_LEN], sub[REVOKE_SUBSYSTEM_LEN];

	pause_words(val, cause, sub);
	rbuf_printf(lc->body, REVOKE_FIELD_KIND "=pause_class "
		    REVOKE_FIELD_UID "=%u", key->uid);
	revoke_user_field(lc->body, key->uid);
	rbuf_printf(lc->body, " " REVOKE_FIELD_ERRNO "=%s "
		    REVOKE_FIELD_PAUSED_AT "=%llu " REVOKE_FIELD_CAUSE "=%s",
		    revoke_pause_errno_name(val->err),
		    (unsigned long long)val->paused_at, cause);
	pause_tail(lc->body, val, sub);
	return 0;
}

int verbs_list(struct daemon *d, const struct ctl_peer *peer,
	       const struct revoke_req *req, struct rbuf *resp)
{
	struct rbuf body = {};
	struct verbs_list_ctx lc = { d, &body };
	int err;

	(void)peer;
	(void)req;
	err = inode_set_for_each(&d->rb, verbs_list_inode, &lc);
	if (!err)
		err = device_set_for_each(&d->rb, verbs_list_rdev, &lc);
	if (!err)
		err = filesystems_list(d, &body);
	if (!err)
		err = fds_list(d, &body);
	if (!err)
		err = pause_class_for_each(&d->rb, verbs_list_pause_class, &lc);
	if (!err)
		err = pause_set_for_each(&d->rb, verbs_list_pause, &lc);
	if (err) {
		rbuf_free(&body);
		answer_err(resp, -err, "cannot read the revoked set: %s",
			   strerror(-err));
		return -1;
	}
	rbuf_printf(resp, "ok " REVOKE_OK_LIST "\n");
	if (body.len)
		declared_list_mark(d, body.data, body.len, resp);
	resp->failed |= body.failed;
	rbuf_free(&body);
	return 0;
}

static int count_pause(const struct revoke_pause_key *key,
		       const struct revoke_pause_val *val, void *ctx)
{
	(void)key;
	(void)val;
	(*(uint64_t *)ctx)++;
	return 0;
}

static int count_class(const struct revoke_pause_class *key,
		       const struct revoke_pause_val *val, void *ctx)
{
	(void)key;
	(void)val;
	(*(uint64_t *)ctx)++;
	return 0;
}

int verbs_status(struct daemon *d, const struct ctl_peer *peer,
		 const struct revoke_req *req, struct rbuf *resp)
{
	struct revoke_state st;
	struct utsname uts;
	uint64_t count = 0, ndev = 0, nfs = 0, npause = 0, nclass = 0, nfd = 0;
	int i;

	(void)peer;
	(void)req;
	uname(&uts);
	pause_set_for_each(&d->rb, count_pause, &npause);
	pause_class_for_each(&d->rb, count_class, &nclass);
	inode_set_count(&d->rb, &count);
	device_set_count(&d->rb, &ndev);
	super_set_count(&d->rb, &nfs);
	file_set_count(&d->rb, &nfd);
	memset(&st, 0, sizeof(st));
	inode_set_state(&d->rb, &st);
	rbuf_printf(resp, "ok " REVOKE_OK_STATUS "\n");
	rbuf_printf(resp, REVOKE_FIELD_DAEMON_PID "=%d\n", (int)getpid());
	rbuf_printf(resp, REVOKE_FIELD_VERSION "=%s\n", REVOKE_VERSION);
	rbuf_printf(resp, REVOKE_FIELD_UPTIME_S "=%lld\n",
		    (long long)(time(NULL) - d->started));
	rbuf_printf(resp, REVOKE_FIELD_KERNEL "=%s\n", uts.release);
	rbuf_printf(resp, REVOKE_FIELD_LSM "=%s\n", d->lsm);
	rbuf_printf(resp, REVOKE_FIELD_BPF_LSM "=%s\n",
		    revoke_lsm_has_bpf(d->lsm) ? "active" : "inactive");
	rbuf_printf(resp, REVOKE_FIELD_ENFORCEMENT "=%s\n",
		    store_enforcement(&d->rb));
	rbuf_printf(resp, REVOKE_FIELD_ATTACHES "=%u\n", d->rb.attaches);
	rbuf_printf(resp, REVOKE_FIELD_DETACHES "=%u\n", d->rb.detaches);
	rbuf_printf(resp, REVOKE_FIELD_LAST_ATTACH_US "=%llu\n",
		    (unsigned long long)d->rb.last_attach_us);
	rbuf_printf(resp, REVOKE_FIELD_DETACH_AFTER_S "=%u\n",
		    d->detach_after_ms / 1000);
	rbuf_printf(resp, REVOKE_FIELD_PROGRAMS_ATTACHED "=%d/%d\n",
		    store_count_attached(d->rb.pin_dir),
		    REVOKE_NR_PROGS - d->rb.nr_skipped);
	rbuf_printf(resp, REVOKE_FIELD_PROGRAMS_SKIPPED "=%d\n",
		    d->rb.nr_skipped);
	for (i = 0; i < REVOKE_NR_PROGS; i++)
		rbuf_printf(resp, REVOKE_FIELD_PROGRAM_PREFIX "%s=%s\n",
			    revoke_prog_names[i],
			    store_prog_state(&d->rb, i));
	rbuf_printf(resp, REVOKE_FIELD_PIN_DIR "=%s\n", d->rb.pin_dir);
	rbuf_printf(resp, REVOKE_FIELD_ADOPTED "=%s\n",
		    d->rb.adopted ? "yes" : "no");
	rbuf_printf(resp, REVOKE_FIELD_REPLACED_PROGRAMS "=%d\n",
		    d->rb.replaced);
	rbuf_printf(resp, REVOKE_FIELD_PROGRAMS_ADOPTED "=%s\n",
		    d->rb.progs_adopted ? "yes" : "no");
	rbuf_printf(resp, REVOKE_FIELD_LOAD_US "=%llu\n",
		    (unsigned long long)d->rb.load_us);
	rbuf_printf(resp, REVOKE_FIELD_ENTRIES "=%llu\n",
		    (unsigned long long)count);
	rbuf_printf(resp, REVOKE_FIELD_CAPACITY "=%u\n", d->rb.max_entries);
	rbuf_printf(resp, REVOKE_FIELD_DEVICES "=%llu\n",
		    (unsigned long long)ndev);
	rbuf_printf(resp, REVOKE_FIELD_FILESYSTEMS "=%llu\n",
		    (unsigned long long)nfs);
	rbuf_printf(resp, REVOKE_FIELD_OPEN_FILES "=%llu\n",
		    (unsigned long long)nfd);
	rbuf_printf(resp, REVOKE_FIELD_PAUSES "=%llu\n",
		    (unsigned long long)npause);
	rbuf_printf(resp, REVOKE_FIELD_PAUSED_CLASSES "=%llu\n",
		    (unsigned long long)nclass);
	seats_status(d, resp);
	rbuf_printf(resp, REVOKE_FIELD_FREED_INODES "=%llu\n",
		    (unsigned long long)st.freed);
	rbuf_printf(resp, REVOKE_FIELD_EVENTS_LOST "=%llu\n",
		    (unsigned long long)st.events_lost);
	rbuf_printf(resp, REVOKE_FIELD_SUBSCRIBERS "=%d\n", d->events.nsubs);
	rbuf_printf(resp, REVOKE_FIELD_SOCKET "=%s\n", d->socket_path);
	rbuf_printf(resp, REVOKE_FIELD_ADMIN_GROUP "=%s\n",
		    d->group_name ? d->group_name : "-");
	declared_status(d, resp);
	ctl_loop_status(&d->loop, resp);
	return 0;
}
