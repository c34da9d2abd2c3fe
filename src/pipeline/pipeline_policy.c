// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_policy.c - no holder is left with its access: the passes of
 * the pipeline over one inode, and what is done with a holder whose
 * access could not be taken away.
 *
 * Passes.  One discovery misses what is born after it: a process that
 * forks and exits in a loop hands the mapping on to a child the pass
 * did not see.  So after each pass the holders are found again, and a
 * pass that finds no holder it had not seen before (by pid and start
 * time) ends the run.  The first PASSES_HANDLED passes stop and handle
 * the new holders (pipeline_run_set()); a holder still new after that is
 * taken for a fork chain that outruns the stops, and goes straight to the
 * policy, pass after pass, until none is new or PASSES_MAX passes ran.
 *
 * Why not freeze the holders instead: the cgroup v2 freezer freezes a
 * whole cgroup, and a holder's cgroup (a user's session, a service)
 * holds processes that have nothing to do with the file; moving the
 * holder to a cgroup of our own would change its limits and accounting
 * and race with its own forks.  PTRACE_O_TRACEFORK only catches the
 * forks of a process already seized, while a chain's member lives a
 * fork's time: by the time a pass seizes the one it found, it has
 * exited and its child runs on.  A kill by pidfd right after the
 * discovery is the shortest step there is; a chain member killed can
 * fork no more, and each later pass only has to catch the children born
 * in the instant between a discovery and its kills.
 *
 * The policy.  A holder the pipeline could not handle (traced by another
 * process, no thread that would stop, no instruction to inject with, a
 * call that failed, a fork chain past the passes, or anything a step
 * records with pipeline_fail() under its pid) is killed by default:
 * SIGKILL through a pidfd checked against its start time, after the map
 * update (so it is already denied every new operation), and reported
 * with pid, uid, comm and why.  With @opts->spare it is left alive and
 * its failures stay failures.  A killed holder still alive KILL_WAIT_MS
 * later (asleep where even SIGKILL does not reach, such as a FUSE
 * request its server read and never answers) is a failure too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pipeline_run.h"

#define PASSES_HANDLED 4
#define PASSES_MAX 64
#define KILL_WAIT_MS 2000

/* The holders the passes over one inode have seen. */
struct seen {
	pid_t *tgid;
	uint64_t *start;
	size_t nr;
};

static bool seen_before(const struct seen *s, const struct holder_proc *p)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->tgid[i] == p->tgid && s->start[i] == p->start_boottime)
			return true;
	return false;
}

static int note_seen(struct seen *s, const struct holder_proc *p)
{
	pid_t *tgid = realloc(s->tgid, (s->nr + 1) * sizeof(*tgid));
	uint64_t *start;

	if (!tgid)
		return -ENOMEM;
	s->tgid = tgid;
	start = realloc(s->start, (s->nr + 1) * sizeof(*start));
	if (!start)
		return -ENOMEM;
	s->start = start;
	tgid[s->nr] = p->tgid;
	start[s->nr++] = p->start_boottime;
	return 0;
}

/*
 * Keep in @set the holders not seen before (revoke-bpfd itself is never
 * one), and note them seen.  Return how many are kept, or -ENOMEM.
 */
static int keep_new(struct seen *s, struct holder_set *set)
{
	size_t i, n = 0;

	for (i = 0; i < set->nr; i++) {
		struct holder_proc *p = &set->procs[i];

		if (p->tgid == getpid() || seen_before(s, p)) {
			holder_proc_free(p);
			continue;
		}
		if (note_seen(s, p)) {
			holder_proc_free(p);
			continue;	/* not kept: it cannot be told new later */
		}
		set->procs[n++] = *p;
	}
	set->nr = n;
	return (int)n;
}

static const struct holder_proc *proc_of(const struct holder_set *set,
					 pid_t pid)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		if (set->procs[i].tgid == pid)
			return &set->procs[i];
	return NULL;
}

/* Has the process of @pidfd exited (a zombie included)? */
static bool exited(int pidfd, int timeout_ms)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) > 0;
}

/* Failures of @pid from @first on are the policy's business no more. */
static void settle(struct pipeline_result *res, size_t first, pid_t pid)
{
	size_t i;

	for (i = first; i < res->nfail; i++) {
		if (res->fail[i].pid != pid || res->fail[i].settled)
			continue;
		res->fail[i].settled = true;
		res->rep.failed--;
	}
}

static struct pipeline_kill *add_kill(struct pipeline_result *res,
				      const struct pipeline_failure *f)
{
	struct pipeline_kill *k = realloc(res->kill,
					  (res->nkill + 1) * sizeof(*k));

	if (!k)
		return NULL;
	res->kill = k;
	k += res->nkill++;
	memset(k, 0, sizeof(*k));
	k->pid = f->pid;
	k->uid = f->uid;
	memcpy(k->comm, f->comm, sizeof(k->comm));
	k->step = f->step;
	memcpy(k->reason, f->reason, sizeof(k->reason));
	return k;
}

/*
 * Kill the holder of failure @f, if it is still the process @set found.
 * Return its pidfd if it was killed (the caller waits on it), else -1.
 */
static int kill_holder(const struct holder_set *set,
		       struct pipeline_result *res, size_t first, size_t i)
{
	const struct holder_proc *p = proc_of(set, res->fail[i].pid);
	int pidfd;

	if (!p)
		return -1;	/* not a holder this pass found: stays a failure */
	pidfd = holder_pidfd(p);
	if (pidfd < 0 || exited(pidfd, 0)) {
		/* gone by itself, and its access with it */
		settle(res, first, p->tgid);
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0)) {
		/* ESRCH: it exited (and was reaped) since, by itself */
		if (errno == ESRCH)
			settle(res, first, p->tgid);
		close(pidfd);
		return -1;
	}
	if (!add_kill(res, &res->fail[i])) {
		close(pidfd);
		return -1;
	}
	settle(res, first, p->tgid);
	return pidfd;
}

/*
 * Wait until every holder killed since @kill0 (@pidfds, in order) has
 * exited, or KILL_WAIT_MS; one still alive is a failure again.
 */
static void wait_killed(struct pipeline_result *res, size_t kill0,
			const int *pidfds)
{
	uint64_t deadline = pipeline_now_us() + KILL_WAIT_MS * 1000ull;
	size_t i;

	for (i = kill0; i < res->nkill; i++) {
		struct pipeline_kill *k = &res->kill[i];
		uint64_t now = pipeline_now_us();
		int left = now < deadline ? (int)((deadline - now) / 1000) : 0;

		k->gone = exited(pidfds[i - kill0], left);
		close(pidfds[i - kill0]);
		if (k->gone)
			continue;
		pipeline_fail(res, k->pid, 0, "kill", "alive_%dms_after_SIGKILL",
			      KILL_WAIT_MS);
		res->fail[res->nfail - 1].uid = k->uid;
		memcpy(res->fail[res->nfail - 1].comm, k->comm, sizeof(k->comm));
		res->fail[res->nfail - 1].settled = false;
	}
}

/**
 * pipeline_policy_apply() - the policy, for the failures recorded from
 *	@first on by the pass that found @set
 * @set: the holders that pass found (a failure's pid must be one of them
 *	to be killed: the start time names the process)
 * @spare: leave them alive, as failures
 * @res: the report
 * @first: the first failure of that pass
 *
 * Names each holder (uid, comm), then kills it unless @spare.
 */
void pipeline_policy_apply(const struct holder_set *set, bool spare,
			   struct pipeline_result *res, size_t first)
{
	size_t i, nfail = res->nfail, kill0 = res->nkill, n = 0;
	int *pidfds = calloc(nfail - first + 1, sizeof(*pidfds));
	int pidfd;

	for (i = first; i < nfail; i++) {
		struct pipeline_failure *f = &res->fail[i];

		if (!f->pid || f->settled)
			continue;
		procfs_describe("/proc", f->pid, &f->uid, f->comm);
		if (spare || !pidfds)
			continue;
		pidfd = kill_holder(set, res, first, i);
		if (pidfd >= 0)
			pidfds[n++] = pidfd;
	}
	if (pidfds)
		wait_killed(res, kill0, pidfds);
	free(pidfds);
}

/*
 * A pass past PASSES_HANDLED: its new holders are forking faster than
 * they can be stopped; each is the policy's at once.
 */
static void pass_over(const struct holder_set *set, struct pipeline_result *res)
{
	size_t i;

	for (i = 0; i < set->nr; i++) {
		res->rep.holders++;
		res->rep.fds += set->procs[i].nfds;
		res->rep.mappings += set->procs[i].nvmas;
		pipeline_fail(res, set->procs[i].tgid, 0, "rescan",
			      "new_holder_after_%d_passes", PASSES_HANDLED);
	}
}

/**
 * pipeline_passes() - handle the holders of one inode until no new one
 *	is found
 * @pl: the pipeline
 * @key: the inode, already in the revoked set
 * @opts: what to do
 * @start: when the run began (pipeline_now_us())
 * @res: the report, added to
 *
 * Return: 0, or a negative errno if the first discovery failed (then
 * nothing was done).
 */
int pipeline_passes(struct pipeline *pl, const struct revoke_key *key,
		    const struct pipeline_opts *opts, uint64_t start,
		    struct pipeline_result *res)
{
	struct seen seen = {};
	struct holder_set set;
	size_t first;
	int pass, n, err = 0;

	/* one look at its filesystem for every search and scan below */
	holders_walk_buffers(&pl->holders, key->dev);
	for (pass = 0; pass < PASSES_MAX; pass++) {
		if (pass)
			pipeline_yield(pl);
		err = holders_find(&pl->holders, key, &set);
		if (err && !pass)
			break;
		if (err) {
			pipeline_fail(res, 0, 0, "rescan", "%s",
				      strerrorname_np(-err) ?: "EIO");
			err = 0;
			break;
		}
		if (opts->one_user)
			pause_keep_users(&set, opts->uid);
		if (!res->passes++ && !res->discover_us)
			res->discover_us = pipeline_now_us() - start;
		n = keep_new(&seen, &set);
		if (n <= 0) {
			holder_set_free(&set);
			break;
		}
		first = res->nfail;
		if (pass < PASSES_HANDLED)
			pipeline_run_set(pl, key, &set, opts, start, res);
		else
			pass_over(&set, res);
		pipeline_policy_apply(&set, opts->spare, res, first);
		holder_set_free(&set);
	}
	if (pass == PASSES_MAX)
		pipeline_fail(res, 0, 0, "rescan", "new_holders_after_%d_passes",
			      PASSES_MAX);
	holders_walk_buffers(&pl->holders, 0);
	free(seen.tgid);
	free(seen.start);
	return err;
}
