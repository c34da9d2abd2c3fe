// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_report.c - what a pipeline run reports: the failures each
 * step records (pipeline_fail()), its clock, and add's answer lines and
 * log lines for what it left (ctl_fields.h):
 *
 *	failure pid=N tid=N step=WORD reason=WORD [uid=N comm=PCT]
 *		[keeps_access=yes]
 *	killed pid=N uid=N comm=PCT step=WORD reason=WORD gone=yes|no
 *	io_uring pid=N fd=N files=N buffers=N
 *	slow pid=N comm=PCT us=N
 *
 * A failure the policy settled (its holder was killed, or exited) is
 * not a failure any more: it is reported by its "killed" line, or not at
 * all.  comm is the process's name, percent-encoded (it may hold
 * spaces); uid is its real uid.  keeps_access=yes marks what was found
 * and could not be taken away (an io_uring slot), as opposed to a step
 * that failed.  An io_uring line names a ring the file was taken from.
 * A slow line names one of the PIPELINE_SLOWEST holders that took
 * longest, the slowest first, with the time spent on it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline_run.h"
#include "inject/inject.h"

static void comm_field(struct rbuf *resp, const char *comm)
{
	char enc[3 * 16 + 1];

	if (revoke_pct_encode(comm, enc, sizeof(enc)) < 0)
		snprintf(enc, sizeof(enc), "?");
	rbuf_printf(resp, " " REVOKE_FIELD_COMM "=%s", enc);
}

/**
 * pipeline_report_lines() - the failure, killed and io_uring lines of a run
 * @resp: the answer being built
 * @res: the run's report
 */
void pipeline_report_lines(struct rbuf *resp, const struct pipeline_result *res)
{
	size_t i;

	for (i = 0; i < res->nfail; i++) {
		const struct pipeline_failure *f = &res->fail[i];

		if (f->settled)
			continue;
		rbuf_printf(resp, REVOKE_LINE_FAILURE " "
			    REVOKE_FIELD_PID "=%d " REVOKE_FIELD_TID "=%d "
			    REVOKE_FIELD_STEP "=%s " REVOKE_FIELD_REASON "=%s",
			    (int)f->pid, (int)f->tid, f->step, f->reason);
		if (f->uid >= 0) {
			rbuf_printf(resp, " " REVOKE_FIELD_UID "=%ld", f->uid);
			revoke_user_field(resp, f->uid);
			comm_field(resp, f->comm);
		}
		rbuf_printf(resp, "%s\n", f->keeps_access ? " "
			    REVOKE_FIELD_KEEPS_ACCESS "=yes" : "");
	}
	for (i = 0; i < res->nkill; i++) {
		const struct pipeline_kill *k = &res->kill[i];

		rbuf_printf(resp, REVOKE_LINE_KILLED " "
			    REVOKE_FIELD_PID "=%d " REVOKE_FIELD_UID "=%ld",
			    (int)k->pid, k->uid);
		revoke_user_field(resp, k->uid);
		comm_field(resp, k->comm);
		rbuf_printf(resp, " " REVOKE_FIELD_STEP "=%s "
			    REVOKE_FIELD_REASON "=%s "
			    REVOKE_FIELD_GONE "=%s\n", k->step,
			    k->reason, k->gone ? "yes" : "no");
	}
	for (i = 0; i < res->nrings; i++)
		rbuf_printf(resp, REVOKE_LINE_IO_URING " "
			    REVOKE_FIELD_PID "=%d " REVOKE_FIELD_FD "=%d "
			    REVOKE_FIELD_FILES "=%u "
			    REVOKE_FIELD_BUFFERS "=%u\n",
			    (int)res->rings[i].pid, res->rings[i].fd,
			    res->rings[i].files, res->rings[i].buffers);
	for (i = 0; i < res->nslowest; i++) {
		rbuf_printf(resp, REVOKE_LINE_SLOW " " REVOKE_FIELD_PID "=%d",
			    (int)res->slowest[i].pid);
		comm_field(resp, res->slowest[i].comm);
		rbuf_printf(resp, " " REVOKE_FIELD_US "=%llu\n",
			    (unsigned long long)res->slowest[i].us);
	}
}

/* @comm as a log shows it: every byte not printable ASCII as '?' */
static void log_comm(char out[16], const char comm[16])
{
	size_t j;

	for (j = 0; j < 15 && comm[j]; j++)
		out[j] = comm[j] >= 0x20 && comm[j] < 0x7f ? comm[j] : '?';
	out[j] = '\0';
}

/**
 * pipeline_report_log() - one log line per holder the policy killed
 * @res: the run's report
 *
 * A process names itself: its name is logged with every byte that is
 * not printable ASCII as '?', so that it cannot forge a log line.
 */
void pipeline_report_log(const struct pipeline_result *res)
{
	char comm[sizeof(res->kill->comm)];
	size_t i;

	for (i = 0; i < res->nkill; i++) {
		const struct pipeline_kill *k = &res->kill[i];

		log_comm(comm, k->comm);
		log_info("killed pid %d (%s) uid %ld: %s: "
			"%s%s\n", (int)k->pid, comm, k->uid, k->step,
			k->reason, k->gone ? "" : "; still alive");
	}
}

/* Put @s among @res's slowest holders if it is one of them. */
static void note_slow(struct pipeline_result *res, const struct pipeline_slow *s)
{
	size_t i, at;

	for (i = 0; i < res->nslowest; i++)
		if (res->slowest[i].pid == s->pid)
			break;
	if (i < res->nslowest) {	/* seen before: its time grows */
		struct pipeline_slow sum = res->slowest[i];

		sum.us += s->us;
		memmove(&res->slowest[i], &res->slowest[i + 1],
			(--res->nslowest - i) * sizeof(*s));
		note_slow(res, &sum);
		return;
	}
	for (at = 0; at < res->nslowest && res->slowest[at].us >= s->us; at++)
		;
	if (at >= PIPELINE_SLOWEST)
		return;
	if (res->nslowest == PIPELINE_SLOWEST)
		res->nslowest--;
	memmove(&res->slowest[at + 1], &res->slowest[at],
		(res->nslowest - at) * sizeof(*s));
	res->slowest[at] = *s;
	if (!s->comm[0]) {	/* named once it is one of them */
		long uid;

		procfs_describe("/proc", s->pid, &uid, res->slowest[at].comm);
		if (!res->slowest[at].comm[0])
			strcpy(res->slowest[at].comm, "?");	/* gone */
	}
	res->nslowest++;
}

/**
 * pipeline_note_time() - count @us spent on holder @pid
 * @res: the run's report, whose @slowest it may change
 * @pid: the process
 * @us: microseconds spent on it now
 */
void pipeline_note_time(struct pipeline_result *res, pid_t pid, uint64_t us)
{
	struct pipeline_slow s = { .pid = pid, .us = us };

	note_slow(res, &s);
}

static int append(void **arr, size_t *n, const void *more, size_t nmore,
		  size_t size)
{
	void *p;

	if (!nmore)
		return 0;
	p = realloc(*arr, (*n + nmore) * size);
	if (!p)
		return -1;
	memcpy((char *)p + *n * size, more, nmore * size);
	*arr = p;
	*n += nmore;
	return 0;
}

/**
 * pipeline_report_merge() - add @res's failures, kills, rings, passes
 *	and slowest holders to @sum's
 * @sum: the sum (its counts are summed by the caller)
 * @res: one run's report, unchanged
 *
 * Return: 0, or -1 if memory is short (then @sum lists fewer of them).
 */
int pipeline_report_merge(struct pipeline_result *sum,
			  const struct pipeline_result *res)
{
	size_t i;

	sum->passes += res->passes;
	for (i = 0; i < res->nslowest; i++)
		note_slow(sum, &res->slowest[i]);
	if (append((void **)&sum->fail, &sum->nfail, res->fail, res->nfail,
		   sizeof(*res->fail)) ||
	    append((void **)&sum->rings, &sum->nrings, res->rings,
		   res->nrings, sizeof(*res->rings)))
		return -1;
	return append((void **)&sum->kill, &sum->nkill, res->kill, res->nkill,
		      sizeof(*res->kill));
}

/**
 * pipeline_report_log_run() - report what a pipeline run found and did
 * @what: what it ran over ("dev=MAJ:MIN ino=N" or "rdev=MAJ:MIN")
 * @res: its result
 */
void pipeline_report_log_run(const char *what, const struct pipeline_result *res)
{
	char slowest[64] = "";

	if (res->nslowest) {
		const struct pipeline_slow *s = &res->slowest[0];
		char comm[sizeof(s->comm)];

		log_comm(comm, s->comm);
		snprintf(slowest, sizeof(slowest), ", slowest pid %d (%s) %llu us",
			 (int)s->pid, comm, (unsigned long long)s->us);
	}
	log_info("pipeline %s: holders=%u fds=%u mappings=%u waiters=%u "
		 "woken=%u unmapped=%u released=%u failed=%u in %llu us, "
		 "%u passes, %zu killed%s\n", what, res->rep.holders,
		 res->rep.fds, res->rep.mappings, res->rep.waiters,
		 res->rep.woken, res->rep.unmapped, res->rep.released,
		 res->rep.failed, (unsigned long long)res->total_us,
		 res->passes, res->nkill, slowest);
}

/**
 * pipeline_now_us() - the monotonic clock
 *
 * Return: microseconds.
 */
uint64_t pipeline_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/**
 * pipeline_fail() - record what the pipeline could not do
 * @res: the report
 * @pid: the holder, or 0 if it is no one process's failure
 * @tid: its thread, or 0
 * @step: the step (a string that lives for good)
 * @fmt: the reason, one word
 *
 * The policy (pipeline_policy.c) then kills or spares the holder.
 */
void pipeline_fail(struct pipeline_result *res, pid_t pid, pid_t tid,
		   const char *step, const char *fmt, ...)
{
	struct pipeline_failure *f;
	va_list ap;

	res->rep.failed++;
	f = realloc(res->fail, (res->nfail + 1) * sizeof(*f));
	if (!f)
		return;
	res->fail = f;
	f += res->nfail++;
	memset(f, 0, sizeof(*f));
	f->pid = pid;
	f->tid = tid;
	f->step = step;
	f->uid = -1;
	f->keeps_access = false;
	va_start(ap, fmt);
	vsnprintf(f->reason, sizeof(f->reason), fmt, ap);
	va_end(ap);
}

/**
 * pipeline_fail_kept() - report a holder that keeps its access
 * @res: the report
 * @pid: the process
 * @step: what could not be done (a string that outlives @res)
 * @fmt: the reason, one word
 *
 * A failure like the others, marked @keeps_access: what was found could
 * not be taken away, so the process can still reach the file's data.
 */
void pipeline_fail_kept(struct pipeline_result *res, pid_t pid,
			const char *step, const char *fmt, ...)
{
	char reason[sizeof(res->fail->reason)];
	size_t n = res->nfail;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	pipeline_fail(res, pid, 0, step, "%s", reason);
	if (res->nfail > n)
		res->fail[n].keeps_access = true;
}

/**
 * pipeline_errname() - the name of an errno, for a failure's reason
 * @err: a negative errno
 *
 * Return: its name, or "EIO" if it has none.
 */
const char *pipeline_errname(long err)
{
	const char *name = strerrorname_np((int)-err);

	return name ? name : "EIO";
}

void pipeline_result_free(struct pipeline_result *res)
{
	free(res->fail);
	free(res->kill);
	free(res->rings);
	memset(res, 0, sizeof(*res));
}
