/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline_run.h - what the files of one pipeline run share, inside
 * src/pipeline only: the run (pipeline.c), the passes (pipeline_policy.c),
 * one pass (pipeline_pass.c), the plan of each holder (pipeline_plan.c),
 * a stopped holder's file and its dead file (pipeline_holder.c,
 * pipeline_dead.c), the drain (pipeline_drain.c) and the report
 * (pipeline_report.c).  Calls go in that order, never back.  Other
 * folders include pipeline.h.
 */
#ifndef REVOKE_PIPELINE_RUN_H
#define REVOKE_PIPELINE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "holders.h"
#include "pipeline.h"
#include "revoke.h"
#include "inject/inject.h"

#define DEAD_NAME "revoke-bpf-dead"

/*
 * One run of the pipeline over one inode: what every holder shares.
 * @woken lists the threads woken, which the drain gives time to leave.
 */
struct run {
	struct pipeline *pl;
	const struct revoke_key *key;
	const struct pipeline_opts *opts;
	bool release;
	struct pipeline_result *res;
	pid_t *woken;
	size_t nwoken;
	size_t woken_cap;
};


/*
 * A holder, while it is stopped, as librevoke sees it: one struct
 * revoke_file of the revoked inode, whose table fops_substitute() swaps
 * for revoked_file_ops_eio before it runs, in the seed's order, the
 * mappings hook (holder_remap), the old table's awaken_all_waiters
 * (holder_awaken) and, exactly once, its release (holder_release).
 */
struct holder_file {
	struct run *run;
	struct tracee *t;
	const struct holder_proc *h;	/* its descriptors and mappings */
	long scratch;		/* a page mapped in the holder, or 0 */
	unsigned long name_at;	/* the name on its stack, or 0 */
	char name_was[sizeof(DEAD_NAME)];	/* what was there before */
	long mfd;		/* the dead memfd in the holder, or < 0 */
	struct revoke_key dead;	/* its inode */
	int dead_err;		/* 1 until it is revoked, then 0 or -errno */
};


/*
 * What one holder needs, from the system call each of its threads is in
 * (the thread iterator's snapshot): all its threads stopped, if it has
 * mappings, descriptors to release, a thread running (which may be
 * inside an operation on the file) or inside mmap() of it; else only its
 * waiters interrupted, each blocked in a call on the file; else nothing.
 */
struct holder_work {
	const struct holder_proc *p;
	bool gone;		/* exited, or its pid names another process */
	bool stop;		/* stop every thread */
	pid_t *kick;		/* else: the waiters to interrupt */
	size_t nkick;
	int pidfd;		/* on it, if it needs anything, or < 0 */
	struct tracee t;	/* the waiters, once interrupted */
	int err;		/* interrupting them failed: @why says why */
	char why[48];
};


/* pipeline.c */
void pipeline_finish(const struct pipeline_opts *opts, uint64_t start,
		     struct pipeline_result *res);

/* pipeline_pass.c */
void pipeline_run_set(struct pipeline *pl, const struct revoke_key *key,
		      const struct holder_set *set,
		      const struct pipeline_opts *opts, uint64_t start,
		      struct pipeline_result *res);

/* pipeline_report.c */
void pipeline_fail(struct pipeline_result *res, pid_t pid, pid_t tid,
		   const char *step, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
const char *pipeline_errname(long err);

/* pipeline_policy.c */
void pipeline_policy_apply(const struct holder_set *set, bool spare,
			   struct pipeline_result *res, size_t first);
int pipeline_passes(struct pipeline *pl, const struct revoke_key *key,
		    const struct pipeline_opts *opts, uint64_t start,
		    struct pipeline_result *res);

/* pipeline_plan.c */
struct holder_work *pipeline_plan(struct run *run,
				  const struct holder_set *set, size_t *nwork);
void pipeline_plan_interrupt(struct holder_work *work, size_t nwork);
bool pipeline_plan_acts_on(const struct holder_work *w);
void pipeline_plan_free(struct holder_work *work, size_t nwork);

/* pipeline_holder.c */
extern const struct revoke_file_operations pipeline_holder_fops;
void pipeline_wake_threads(struct tracee *t, const int *fds, size_t nfds,
			   struct pipeline_result *res,
			   void (*woken)(void *arg, pid_t tid), void *arg);
void pipeline_holder_handle(struct run *run, struct holder_work *w,
			    struct revoke_file *file);

/* pause_users.c */
bool pause_proc_is_users(pid_t pid, uid_t uid);
bool pause_cred_is(const struct holder_cred *c, uid_t uid);
size_t pause_users_fds(const struct holder_proc *p, uid_t uid, bool whole,
		       int *fds);
void pause_keep_users(struct holder_set *set, uid_t uid);

/* pipeline_dead.c */
void pipeline_dead_map(struct holder_file *hf);
void pipeline_dead_dup(struct holder_file *hf);
void pipeline_dead_close(struct holder_file *hf);

/* pipeline_drain.c */
void pipeline_drain(struct run *run, const struct holder_work *work,
		    size_t nwork, uint64_t deadline);

#endif /* REVOKE_PIPELINE_RUN_H */
