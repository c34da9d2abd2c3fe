/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline.h - what "add" does after the map update, so that a revoked
 * file stops working everywhere at once: the user-space half of the 2009
 * series' fops_substitute().
 *
 *	find holders -> wake waiters -> replace mappings -> release -> drain
 *
 * The folder's one public header: what other folders (the daemon, the
 * benchmarks, the tests) use of it.  The headers beside it are its own.
 */
#ifndef REVOKE_PIPELINE_H
#define REVOKE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/store.h"
#include "common/common.h"
#include "holders.h"
#include "loopdev.h"
#include "revoke_bpf.h"
#include "tty.h"

/**
 * struct pipeline_opts - what one run does
 * @release: replace descriptors by a dead file (auto: for device files)
 * @timeout_ms: how long the drain waits
 * @spare: a holder whose access could not be taken away is left alive
 *	and reported as a failure, instead of being killed
 *	(pipeline_policy.c)
 * @one_user: act only on what is @uid's, as a pause decides it
 *	(pause --revoke: pause_users.c)
 * @uid: see @one_user
 */
struct pipeline_opts {
	enum revoke_release release;
	unsigned int timeout_ms;
	bool spare;
	bool one_user;
	uid_t uid;
};

#define PIPELINE_TIMEOUT_DEFAULT_MS 2000

/**
 * struct pipeline_failure - something the pipeline could not do
 * @pid: the process
 * @tid: the thread, or 0 for the whole process
 * @step: stop, wake, unmap, release, drain, rescan or kill
 * @reason: one word: an errno name, or e.g. traced_by_pid_N
 * @uid: the process's real uid, once the policy looked (-1 if unknown)
 * @comm: its name, once the policy looked ("" if unknown)
 * @settled: the policy has dealt with it: it is no failure any more
 *	(the process was killed, or had exited, so its access is gone)
 * @keeps_access: the process keeps its access to the file (cannot
 *	revoke): what a policy that ends such holders acts on
 */
struct pipeline_failure {
	pid_t pid;
	pid_t tid;
	const char *step;
	char reason[96];
	long uid;
	char comm[16];
	bool settled;
	bool keeps_access;
};

/**
 * struct pipeline_kill - a holder the policy ended (pipeline_policy.c)
 * @pid: the process
 * @uid: its real uid
 * @comm: its name
 * @step: the step that could not take its access away
 * @reason: why (the failure's reason)
 * @gone: it had exited by the deadline; else it is also a failure
 */
struct pipeline_kill {
	pid_t pid;
	long uid;
	char comm[16];
	const char *step;
	char reason[96];
	bool gone;
};

/**
 * struct pipeline_ring - what was taken away from one ring
 *	(pipeline_uring.c)
 * @pid: the process whose descriptor of the ring was used
 * @fd: that descriptor
 * @files: fixed-file slots emptied
 * @buffers: registered buffers replaced by an empty one
 */
struct pipeline_ring {
	pid_t pid;
	int fd;
	unsigned int files;
	unsigned int buffers;
};

/* How many of the slowest holders a run reports (struct pipeline_slow) */
#define PIPELINE_SLOWEST 4

/**
 * struct pipeline_slow - a holder that took long to handle
 * @pid: the process
 * @comm: its name
 * @us: time spent on it: stopping it, taking its access away, letting
 *	it go (summed over passes)
 */
struct pipeline_slow {
	pid_t pid;
	char comm[16];
	uint64_t us;
};

/**
 * struct pipeline_result - the report of one run
 * @rep: the counts, as stored in the revoke_reports map
 * @fail: the failures (some settled by the policy: see @rep.failed)
 * @nfail: their number
 * @kill: the holders the policy killed
 * @nkill: their number
 * @passes: discovery passes run (pipeline_policy.c), summed over inodes
 * @rings: the io_uring instances a revoked file was taken away from
 * @nrings: their number
 * @discover_us: time spent finding holders the first time
 * @total_us: time from the start of the run to the end of the drain
 * @slowest: the holders that took longest, the slowest first
 * @nslowest: their number
 */
struct pipeline_result {
	struct revoke_report rep;
	struct pipeline_failure *fail;
	size_t nfail;
	struct pipeline_kill *kill;
	size_t nkill;
	unsigned int passes;
	struct pipeline_ring *rings;
	size_t nrings;
	uint64_t discover_us;
	uint64_t total_us;
	struct pipeline_slow slowest[PIPELINE_SLOWEST];
	size_t nslowest;
};

/**
 * struct pipeline - the pipeline's long-lived state
 * @rb: the enforcement maps (dead files are revoked in them)
 * @holders: the holder iterators
 * @ready: @holders is loaded
 * @why: if not @ready, why not
 * @yield: called between holders, passes and drain polls, where the
 *	holders state is consistent: the caller's progress report and its
 *	turn of the event loop (NULL: none); @step names the step
 * @yield_arg: passed to @yield
 * @held_done: holders handled since the caller last zeroed it
 * @held_total: holders found to handle, likewise
 */
struct pipeline {
	struct store *rb;
	struct holders holders;
	bool ready;
	char why[256];
	void (*yield)(void *arg, const char *step, size_t done, size_t total);
	void *yield_arg;
	size_t held_done;
	size_t held_total;
};

/**
 * pipeline_yield() - the caller's turn, at a consistent point
 * @pl: the pipeline
 */
static inline void pipeline_yield(struct pipeline *pl)
{
	if (pl->yield)
		pl->yield(pl->yield_arg, "holders", pl->held_done,
			  pl->held_total);
}

void pipeline_init(struct pipeline *pl, struct store *rb);
void pipeline_fini(struct pipeline *pl);
int pipeline_run(struct pipeline *pl, const struct revoke_key *key,
		 const struct pipeline_opts *opts, struct pipeline_result *res);
int pipeline_run_file(struct pipeline *pl, const struct revoke_key *key,
		      uint64_t file, const struct pipeline_opts *opts,
		      struct pipeline_result *res);
int pipeline_run_rdev(struct pipeline *pl, const struct revoke_rdev_key *key,
		      const struct pipeline_opts *opts,
		      struct pipeline_result *res);
int pipeline_pause_wake(struct pipeline *pl, const struct revoke_rdev_key *key,
			uid_t uid, struct pipeline_result *res);
int pipeline_pause_revoke(struct pipeline *pl, const struct revoke_rdev_key *key,
			  uid_t uid, struct pipeline_result *res);
int pipeline_pause_drain(struct pipeline *pl, const struct revoke_rdev_key *key,
			 uid_t uid, uint64_t *bytes);
int pipeline_run_fs(struct pipeline *pl, uint32_t s_dev,
		    const struct pipeline_opts *opts,
		    struct pipeline_result *res);
int pipeline_end_namespace(ino_t ns, const struct pipeline_opts *opts,
			   struct pipeline_result *res);
void pipeline_result_free(struct pipeline_result *res);
uint64_t pipeline_now_us(void);
void pipeline_note_time(struct pipeline_result *res, pid_t pid, uint64_t us);
void pipeline_fail_kept(struct pipeline_result *res, pid_t pid,
			const char *step, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * struct pipeline_rdev - "add rdev=" from before the deny to the end
 *	(pipeline_rdev.c)
 * @key: the device
 * @kernel_revoked: ttys hung up and evdev nodes revoked before the deny
 * @pidfds: the holders to send SIGHUP to after the pipeline, or NULL
 * @npidfds: their number
 * @tty: the tty to hang up after the pipeline, if the device is one
 */
struct pipeline_rdev {
	struct revoke_rdev_key key;
	unsigned int kernel_revoked;
	int *pidfds;
	size_t npidfds;
	struct tty_hangup tty;
};

void pipeline_rdev_prepare(struct pipeline *pl,
			   const struct revoke_rdev_key *key, bool hangup,
			   struct pipeline_rdev *rd);
void pipeline_rdev_cancel(struct pipeline_rdev *rd);
void pipeline_rdev_finish(struct pipeline_rdev *rd, struct rbuf *resp);

/* pipeline_report.c: the report of a run, in the answer and the log */
void pipeline_report_lines(struct rbuf *resp,
			   const struct pipeline_result *res);
void pipeline_report_log_run(const char *what,
			     const struct pipeline_result *res);
void pipeline_report_log(const struct pipeline_result *res);
int pipeline_report_merge(struct pipeline_result *sum,
			  const struct pipeline_result *res);

#endif /* REVOKE_PIPELINE_H */
