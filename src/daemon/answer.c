// SPDX-License-Identifier: GPL-2.0
/*
 * answer.c - the pieces of revoke-bpfd's answers that more than one verb
 * writes: an error, a change's word, and a pipeline run's counts and
 * timings (ctl_fields.h names every field).  The handlers (verbs.c,
 * verbs_query.c, devices.c) write the rest.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "daemon.h"

static const char *const answer_change_words[] = {
	[REVOKE_ADDED] = REVOKE_OK_ADDED,
	[REVOKE_ALREADY] = REVOKE_OK_ALREADY,
	[REVOKE_DELETED] = REVOKE_OK_DELETED,
	[REVOKE_ABSENT] = REVOKE_OK_ABSENT,
};

/**
 * answer_change_name() - the word for a change, in answers and the log
 * @change: what an add or del did
 *
 * Return: "added", "already", "deleted" or "absent".
 */
const char *answer_change_name(enum revoke_change change)
{
	return answer_change_words[change];
}

/**
 * answer_err() - answer an error: "err ENAME message"
 * @resp: the answer
 * @errnum: the positive errno it is named by (EIO if it has no name)
 * @fmt: printf format of the message
 */
void answer_err(struct rbuf *resp, int errnum, const char *fmt, ...)
{
	const char *name = strerrorname_np(errnum);
	char msg[1024], *c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rbuf_printf(resp, "err %s ", name ? name : "EIO");
	/* a name in it may hold any byte: it must stay one line */
	for (c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			rbuf_printf(resp, "\\x%02x", (unsigned char)*c);
		else
			rbuf_printf(resp, "%c", *c);
	rbuf_printf(resp, "\n");
}

/**
 * answer_report() - write the counts of a report (no newline)
 * @resp: the answer
 * @r: the counts
 */
void answer_report(struct rbuf *resp, const struct revoke_report *r)
{
	rbuf_printf(resp, REVOKE_FIELD_HOLDERS "=%u " REVOKE_FIELD_FDS "=%u "
		    REVOKE_FIELD_MAPPINGS "=%u " REVOKE_FIELD_WAITERS "=%u "
		    REVOKE_FIELD_WOKEN "=%u "
		    REVOKE_FIELD_UNMAPPED "=%u " REVOKE_FIELD_RELEASED "=%u "
		    REVOKE_FIELD_FAILED "=%u", r->holders, r->fds,
		    r->mappings, r->waiters, r->woken, r->unmapped, r->released,
		    r->failed);
}

/**
 * answer_pipeline() - answer the counts, timings and failures of a
 * pipeline run, or why it did not run
 * @resp: the answer
 * @err: the run's error, or 0
 * @res: its result (counted as one failure if @err)
 */
void answer_pipeline(struct rbuf *resp, int err, struct pipeline_result *res)
{
	if (err) {
		res->rep.failed = 1;
		answer_report(resp, &res->rep);
		rbuf_printf(resp, " " REVOKE_FIELD_DISCOVER_US "=0 "
			    REVOKE_FIELD_TOTAL_US "=0\n");
		rbuf_printf(resp, REVOKE_LINE_FAILURE " "
			    REVOKE_FIELD_PID "=0 " REVOKE_FIELD_TID "=0 "
			    REVOKE_FIELD_STEP "=discover "
			    REVOKE_FIELD_REASON "=%s\n",
			    err == -ENOSYS ? "holder_iterators_unavailable" :
			    strerrorname_np(-err) ?: "EIO");
		return;
	}
	answer_report(resp, &res->rep);
	rbuf_printf(resp, " " REVOKE_FIELD_DISCOVER_US "=%llu "
		    REVOKE_FIELD_TOTAL_US "=%llu " REVOKE_FIELD_KILLED "=%zu "
		    REVOKE_FIELD_PASSES "=%u\n",
		    (unsigned long long)res->discover_us,
		    (unsigned long long)res->total_us, res->nkill, res->passes);
}

/**
 * answer_attach() - end add's first line with how long it spent
 *	attaching the programs
 * @resp: the answer, its first data line begun
 * @rb: the daemon's handles
 *
 * 0 when the programs were attached already.
 */
void answer_attach(struct rbuf *resp, struct store *rb)
{
	rbuf_printf(resp, " " REVOKE_FIELD_ATTACH_US "=%llu\n",
		    (unsigned long long)store_attach_take(rb));
}

/**
 * answer_set_err() - answer why an entry could not go into a set
 * @resp: the answer
 * @rb: the daemon's handles
 * @err: the set's negative errno
 * @set: which set, as the message names it ("", "device ", "filesystem ")
 *
 * Return: -1, for the handler to return.
 */
int answer_set_err(struct rbuf *resp, const struct store *rb, int err,
		   const char *set)
{
	const char *why = store_attach_error(rb);

	if (why[0])
		answer_err(resp, -err, "cannot attach the enforcing programs, so "
			   "nothing was revoked: %s; see revoke-bpfd's log", why);
	else
		answer_err(resp, -err, "cannot update the revoked %sset: %s",
			   set, strerror(-err));
	return -1;
}
