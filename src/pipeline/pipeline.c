// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline.c - after "add" has put an inode in the revoked set (so no new
 * operation on it can start), make every existing use of it stop:
 *
 *  1. find the holders: every process with a descriptor or a mapping of
 *     the inode, from the BPF iterators (holders.c);
 *  2. the inode becomes a librevoke struct revoke_inode whose open files
 *     are its holders; for each holder that has a mapping, a thread
 *     blocked on the file or running, or descriptors to release: stop all
 *     its threads (tracee.c) and, while it is stopped, fops_substitute()
 *     its file, which runs, in the seed's order and release exactly once:
 *     - the mappings hook: replace each mapping in place by a MAP_SHARED
 *       mapping of a sealed, empty memfd, so that the next access raises
 *       SIGBUS (BUS_ADRERR), as the seed's revoked_vm_ops did,
 *     - awaken_all_waiters: wake its waiters (waiters.c),
 *     - release: dup3() that memfd, itself revoked, over each descriptor,
 *       so that the last reference to the original file goes and its
 *       release runs now;
 *     and let it go;
 *  3. drain: wait until no thread is blocked in a call on the file, or
 *     the timeout passes;
 *  4. report the counts (and keep them in the revoke_reports map).
 *
 * Why stopping a thread ends its operations in flight: an operation that
 * passed the LSM check before the map update may still be running; a
 * thread reaches a ptrace stop only on its way back to user space, so once
 * it is stopped that operation is over.  Every later one meets the hook.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/key.h"
#include "revoke.h"
#include "pipeline.h"
#include "store/inode_set.h"
#include "tracee.h"
#include "waiters.h"

#define STOP_TIMEOUT_MS 1000
#define DRAIN_POLL_MS 1
#define DRAIN_WOKEN_MS 10
#define DRAIN_SLOW_POLL_MS 10
#define DEAD_NAME "revoke-bpf-dead"

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

static const char *errname(long err)
{
	const char *name = strerrorname_np((int)-err);

	return name ? name : "EIO";
}

/**
 * pipeline_init() - load what the pipeline needs
 * @pl: the pipeline
 * @rb: the enforcement maps
 *
 * Without the holder iterators the pipeline reports that it cannot run;
 * the map update, and so the denial of every new operation, still works.
 */
void pipeline_init(struct pipeline *pl, struct store *rb)
{
	memset(pl, 0, sizeof(*pl));
	pl->rb = rb;
	pl->ready = !holders_open(&pl->holders, rb->layout_fd, pl->why,
				   sizeof(pl->why));
}

void pipeline_fini(struct pipeline *pl)
{
	if (pl->ready)
		holders_close(&pl->holders);
	pl->ready = false;
}

void pipeline_result_free(struct pipeline_result *res)
{
	free(res->fail);
	free(res->kill);
	free(res->rings);
	memset(res, 0, sizeof(*res));
}

static bool want_release(const struct pipeline_opts *opts, bool by_default)
{
	return opts->release == REVOKE_RELEASE_YES ||
	       (opts->release == REVOKE_RELEASE_AUTO && by_default);
}

/* Run one system call in @t; a failure to run it counts as its result. */
static long sys(struct tracee *t, long nr, unsigned long a0, unsigned long a1,
		unsigned long a2, unsigned long a3, unsigned long a4,
		unsigned long a5)
{
	unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	long ret;
	int err;

	err = tracee_syscall(t, nr, args, &ret);
	return err ? err : ret;
}

static bool sys_failed(long ret)
{
	return ret < 0 && ret > -4096;
}

/*
 * Revoke the dead file: every operation on it fails with EIO, and its
 * entry goes away with it (it has no links: see revoke_inode_free).
 */
static int revoke_dead_file(struct pipeline *pl, const struct revoke_key *key)
{
	struct revoke_report dead = { .flags = REVOKE_REPORT_DEAD };
	enum revoke_change change;
	int err;

	err = inode_set_add(pl->rb, key, &change);
	if (!err)
		inode_set_report_set(pl->rb, key, &dead);
	return err;
}

/*
 * One run of the pipeline over one inode: what every holder shares.
 * @woken lists the threads woken, which the drain gives time to leave.
 */
struct run {
	struct pipeline *pl;
	const struct revoke_key *key;
	bool release;
	struct pipeline_result *res;
	pid_t *woken;
	size_t nwoken;
	size_t woken_cap;
};

static void note_woken(struct run *run, pid_t tid)
{
	pid_t *w = run->woken;

	if (run->nwoken == run->woken_cap) {
		run->woken_cap = run->woken_cap ? 2 * run->woken_cap : 64;
		w = realloc(run->woken, run->woken_cap * sizeof(*w));
		if (!w)
			return;	/* the drain only waits less for it */
		run->woken = w;
	}
	w[run->nwoken++] = tid;
}

static void wake_all(struct run *run, struct tracee *t,
		     const struct holder_proc *h)
{
	struct pipeline_result *res = run->res;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		struct tracee_thread *th = &t->th[i];

		switch (waiter_wake(t, th, h->fds, h->nfds)) {
		case WAKE_NONE:
			break;
		case WAKE_RESTART:
		case WAKE_COMPLETED:
			res->rep.waiters++;
			res->rep.woken++;
			note_woken(run, th->tid);
			break;
		case WAKE_FAILED:
			res->rep.waiters++;
			pipeline_fail(res, t->tgid, th->tid, "wake", "poll_set_unreadable");
			break;
		}
	}
}

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
 * Put the dead file's name where the holder's memfd_create() can read
 * it: on the injecting thread's stack below what it uses (what was
 * there is put back by dead_name_restore()), or, if that cannot be
 * written, in a page mapped for it (unmapped by dead_file_close()).
 */
static unsigned long dead_name(struct holder_file *hf, const char *step)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct tracee *t = hf->t;
	unsigned long addr;

	addr = tracee_stack_scratch(t, sizeof(DEAD_NAME));
	if (addr && !tracee_read(t, addr, hf->name_was, sizeof(hf->name_was)) &&
	    !tracee_write(t, addr, DEAD_NAME, sizeof(DEAD_NAME))) {
		hf->name_at = addr;
		return addr;
	}
	hf->scratch = sys(t, arch_nr_mmap, 0, page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sys_failed(hf->scratch)) {
		pipeline_fail(hf->run->res, t->tgid, 0, step, "inject_%s",
		     errname(hf->scratch));
		hf->scratch = 0;
		return 0;
	}
	if (tracee_write(t, hf->scratch, DEAD_NAME, sizeof(DEAD_NAME))) {
		pipeline_fail(hf->run->res, t->tgid, 0, step, "memfd_EFAULT");
		return 0;
	}
	return hf->scratch;
}

/*
 * Seal the holder's new memfd empty for good (every page of a mapping of
 * it is past its end) and learn its inode, through our own descriptor of
 * it rather than by injecting more calls.
 */
static int dead_file_seal(struct holder_file *hf)
{
	struct stat st;
	int fd, err = 0;

	fd = (int)syscall(SYS_pidfd_getfd, hf->t->pidfd, (int)hf->mfd, 0);
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    fstat(fd, &st))
		err = -errno;
	else if (revoke_kdev_from_stdev(st.st_dev, &hf->dead.dev))
		err = -EINVAL;
	else
		hf->dead.ino = st.st_ino;
	close(fd);
	return err;
}

/* Put back the bytes of the holder's stack that dead_name() wrote over. */
static void dead_name_restore(struct holder_file *hf)
{
	if (!hf->name_at)
		return;
	if (tracee_write(hf->t, hf->name_at, hf->name_was, sizeof(hf->name_was)))
		pipeline_fail(hf->run->res, hf->t->tgid, 0, "release",
			      "stack_not_restored");
	hf->name_at = 0;
}

/* In the stopped holder, make the dead file once: an empty, sealed memfd. */
static int dead_file_open(struct holder_file *hf, const char *step)
{
	struct tracee *t = hf->t;
	unsigned long name;
	int err;

	if (hf->mfd >= 0)
		return 0;
	name = dead_name(hf, step);
	if (!name)
		return -1;
	hf->mfd = sys(t, arch_nr_memfd_create, name,
		      MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0, 0, 0);
	dead_name_restore(hf);
	if (sys_failed(hf->mfd)) {
		pipeline_fail(hf->run->res, t->tgid, 0, step, "memfd_%s",
		     errname(hf->mfd));
		return -1;
	}
	err = dead_file_seal(hf);
	if (err) {
		/* never revoked, so never used: dead_file_revoke() says err */
		hf->dead_err = err;
		pipeline_fail(hf->run->res, t->tgid, 0, step, "memfd_seal_%s",
		     errname(err));
		return -1;
	}
	return 0;
}

/*
 * Revoke the dead file, once, as soon as the holder keeps a way to it
 * (mappings of it, which /proc/PID/map_files would reopen, or the
 * descriptors about to be replaced): only after it is mapped, since our
 * own mmap_file hook then refuses to map it.
 */
static int dead_file_revoke(struct holder_file *hf, const char *step)
{
	if (hf->dead_err == 1) {
		hf->dead_err = revoke_dead_file(hf->run->pl, &hf->dead);
		if (hf->dead_err)
			pipeline_fail(hf->run->res, hf->t->tgid, 0, step, "dead_file_%s",
			     errname(hf->dead_err));
	}
	return hf->dead_err;
}

static void dead_file_close(struct holder_file *hf)
{
	const long page = sysconf(_SC_PAGESIZE);

	if (hf->mfd >= 0)
		sys(hf->t, arch_nr_close, hf->mfd, 0, 0, 0, 0, 0);
	if (hf->scratch)
		sys(hf->t, arch_nr_munmap, hf->scratch, page, 0, 0, 0, 0);
}

/* remap_file_mappings: map the dead file over every mapping of the file. */
static void holder_remap(struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);
	const struct holder_proc *h = hf->h;
	pid_t pid = hf->t->tgid;
	size_t i;
	long r;

	if (!h->nvmas || dead_file_open(hf, "unmap"))
		return;
	for (i = 0; i < h->nvmas; i++) {
		const struct holder_vma *v = &h->vmas[i];

		r = sys(hf->t, arch_nr_mmap, v->start, v->end - v->start,
			v->prot, MAP_SHARED | MAP_FIXED, hf->mfd, 0);
		if ((unsigned long)r == v->start)
			hf->run->res->rep.unmapped++;
		else
			pipeline_fail(hf->run->res, pid, 0, "unmap", "%lx_%s", v->start,
			     r == -EPERM ? "sealed" : errname(r));
	}
	dead_file_revoke(hf, "unmap");
}

/* awaken_all_waiters: every thread blocked in a call on the file. */
static void holder_awaken(struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);

	wake_all(hf->run, hf->t, hf->h);
}

/* release, once: dup3() the dead file over each descriptor, if asked. */
static int holder_release(struct revoke_inode *inode, struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);
	const struct holder_proc *h;
	size_t i;
	long r;

	(void)inode;
	/* the last put of a holder that was not stopped: nothing to undo */
	if (!hf)
		return 0;
	h = hf->h;
	if (!hf->run->release || !h->nfds || dead_file_open(hf, "release") ||
	    dead_file_revoke(hf, "release"))
		return 0;
	for (i = 0; i < h->nfds; i++) {
		r = sys(hf->t, arch_nr_dup3, hf->mfd, h->fds[i],
			h->cloexec[i] ? O_CLOEXEC : 0, 0, 0, 0);
		if (r == h->fds[i])
			hf->run->res->rep.released++;
		else
			pipeline_fail(hf->run->res, hf->t->tgid, 0, "release", "fd_%d_%s",
			     h->fds[i], errname(r));
	}
	return 0;
}

static const struct revoke_file_operations holder_fops = {
	.awaken_all_waiters = holder_awaken,
	.release = holder_release,
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

/*
 * Is @th inside an mmap() of one of @p's descriptors of the file?  It
 * passed the hook before the revocation, and its mapping may appear after
 * the mappings were looked for: only a stop, then a rescan, sees it.
 */
static bool mapping_file(const struct revoke_thread *th,
			 const struct holder_proc *p)
{
	size_t i;

	if (th->nr != arch_nr_mmap)
		return false;
	for (i = 0; i < p->nfds; i++)
		if ((int)th->args[4] == p->fds[i])
			return true;
	return false;
}

static int plan_holder(struct holder_work *w, const struct holder_threads *ts,
		       bool release)
{
	const struct holder_proc *p = w->p;
	const struct revoke_thread *th;
	size_t n, i;

	th = holder_threads_of(ts, p, &n);
	w->gone = !n;
	w->stop = p->nvmas || release || p->nrings;
	for (i = 0; i < n && !w->stop; i++) {
		if (mapping_file(&th[i], p)) {
			w->stop = true;
			break;
		}
		switch (waiter_peek(&th[i], p->fds, p->nfds, true)) {
		case WAITER_NO:
			break;
		case WAITER_MAYBE:
			w->stop = true;
			break;
		case WAITER_YES:
			if (!w->kick) {
				w->kick = calloc(n, sizeof(*w->kick));
				if (!w->kick)
					return -ENOMEM;
			}
			w->kick[w->nkick++] = (pid_t)th[i].tid;
			break;
		}
	}
	return 0;
}

/*
 * Interrupt the waiters of every holder that needs nothing else, all
 * before waiting for any: each stops while the others are interrupted.
 */
static void interrupt_waiters(struct holder_work *work, size_t nwork)
{
	struct holder_work *w;

	for (w = work; w < work + nwork; w++) {
		if (w->gone || w->stop || !w->nkick)
			continue;
		w->err = tracee_interrupt(&w->t, w->p->tgid, w->pidfd, w->kick,
					  w->nkick, w->why, sizeof(w->why));
		w->pidfd = -1;	/* the tracee's now */
	}
}

/*
 * Is the file released without --release?  Devices are, so that their
 * driver's release runs now; FIFOs and sockets too, because data already
 * in a pipe's buffer can be spliced or teed out with no LSM hook on the
 * way (splice between two pipes checks no file permission), so only
 * taking the descriptor away closes that route.
 */
static bool release_by_default(const struct holder_set *set)
{
	char path[64];
	struct stat st;
	size_t i;

	/* every holder holds the same inode: the first one still there says */
	for (i = 0; i < set->nr; i++) {
		const struct holder_proc *p = &set->procs[i];

		if (!p->nfds)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)p->tgid,
			 p->fds[0]);
		if (stat(path, &st))
			continue;
		return S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
		       S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
	}
	return false;
}

/* Substitute @file's table while @hf's threads are stopped. */
static void substitute(struct revoke_file *file, struct holder_file *hf)
{
	revoke_file_set_private(file, hf);
	fops_substitute(file, &revoked_file_ops_eio, holder_remap);
	dead_file_close(hf);
}

/*
 * A holder that needs only its waiters woken: wait for the stops
 * interrupt_waiters() asked for, and substitute its file's table, which
 * wakes them; let them go.
 */
static void handle_waiters(struct run *run, struct holder_work *w,
			   struct revoke_file *file)
{
	const struct holder_proc *p = w->p;
	struct pipeline_result *res = run->res;
	struct holder_file hf = { .run = run, .t = &w->t, .h = p, .mfd = -1,
				  .dead_err = 1 };

	res->rep.fds += p->nfds;
	if (w->err) {
		pipeline_fail(res, p->tgid, 0, "stop", "%s", w->why);
		return;
	}
	if (tracee_wait(&w->t, STOP_TIMEOUT_MS, w->why, sizeof(w->why)))
		return;	/* it exited, and let go of everything */
	if (w->t.unstopped)
		pipeline_fail(res, p->tgid, 0, "stop", "%d_threads_uninterruptible",
		     w->t.unstopped);
	substitute(file, &hf);
	tracee_detach(&w->t);
}

/*
 * Stop every thread of the holder of @file, substitute its table while
 * it is stopped, and let it go.
 */
static void handle_stop(struct run *run, struct holder_work *w,
			struct revoke_file *file)
{
	const struct holder_proc *p = w->p;
	static const struct holder_proc none;
	struct holder_proc view = { .fds = p->fds, .nfds = p->nfds };
	struct pipeline_result *res = run->res;
	struct holder_file hf = { .run = run, .h = run->release ? &none : &view,
				  .mfd = -1, .dead_err = 1 };
	struct holder_set now;
	struct tracee t;
	char why[48];
	int err;

	err = tracee_attach(&t, p->tgid, w->pidfd, STOP_TIMEOUT_MS, why,
			    sizeof(why));
	w->pidfd = -1;	/* the tracee's now */
	if (err) {
		if (err == -ESRCH)
			return;	/* it exited, and let go of everything */
		/* alive but not stopped (-EAGAIN) or not ours: the policy's */
		res->rep.fds += p->nfds;
		res->rep.mappings += p->nvmas;
		pipeline_fail(res, p->tgid, 0, "stop", "%s", why);
		return;
	}
	if (t.unstopped)
		pipeline_fail(res, p->tgid, 0, "stop", "%d_threads_uninterruptible",
		     t.unstopped);
	/*
	 * What it maps now that it is stopped: the list to act on; and its
	 * descriptors, if they are to be released (to wake its waiters,
	 * those it had when found are the ones their calls name).
	 */
	err = holders_scan(&run->pl->holders, run->key, p->tgid,
			   run->release || p->nrings, &now);
	if (err)
		pipeline_fail(res, p->tgid, 0, "stop", "scan_%s", errname(err));
	else if (run->release && now.nr)
		hf.h = &now.procs[0];
	else if (now.nr)
		view.vmas = now.procs[0].vmas, view.nvmas = now.procs[0].nvmas;
	res->rep.fds += hf.h->nfds;
	res->rep.mappings += hf.h->nvmas;
	hf.t = &t;
	if (!err)
		substitute(file, &hf);
	if (!err && now.nr)
		pipeline_uring_take(res, &t, now.procs[0].rings,
				    now.procs[0].nrings);
	tracee_detach(&t);
	if (!err)
		holder_set_free(&now);
}

static void handle_proc(struct run *run, struct holder_work *w,
			struct revoke_file *file)
{
	run->res->rep.holders++;
	if (w->gone)
		return;
	if (w->stop)
		handle_stop(run, w, file);
	else if (w->nkick)
		handle_waiters(run, w, file);
	else
		run->res->rep.fds += w->p->nfds;
}

static bool failed_before(const struct pipeline_result *res, pid_t pid)
{
	size_t i;

	for (i = 0; i < res->nfail; i++)
		if (res->fail[i].pid == pid)
			return true;
	return false;
}

/* Threads of @p still blocked in a call on the file; record them if @last. */
static int count_blocked(const struct holder_proc *p,
			 const struct holder_threads *ts, bool last,
			 struct pipeline_result *res)
{
	const struct revoke_thread *th;
	size_t nth, i;
	int n = 0;

	th = holder_threads_of(ts, p, &nth);
	for (i = 0; i < nth; i++) {
		if (waiter_peek(&th[i], p->fds, p->nfds, true) != WAITER_YES)
			continue;
		n++;
		if (last)
			pipeline_fail(res, p->tgid, (pid_t)th[i].tid, "drain",
			     "still_blocked_on_file");
	}
	return n;
}

/* Woken threads that have not run since: still on their way out. */
static size_t count_running(const struct run *run,
			    const struct holder_threads *ts)
{
	size_t i, j, n = 0;

	for (i = 0; i < run->nwoken; i++)
		for (j = 0; j < ts->nr; j++)
			if (ts->th[j].tid == (uint32_t)run->woken[i]) {
				n += ts->th[j].state == 0;
				break;
			}
	return n;
}

/*
 * Wait until no thread of a holder we handled is blocked in a call on the
 * file.  Holders that already failed are not waited for: their failure
 * says why.  Only threads that existed when the holders were found can
 * be inside an operation that began before the revocation; the
 * descriptors they named then are the ones to look for, even if a
 * release has replaced them since.  A woken thread reads as running
 * until it restarts its call or returns from it: it is given up to
 * DRAIN_WOKEN_MS to be seen doing either.
 */
static void drain(struct run *run, const struct holder_work *work,
		  size_t nwork, uint64_t deadline)
{
	struct timespec pause = { 0, DRAIN_POLL_MS * 1000000L };
	uint64_t grace = pipeline_now_us() + DRAIN_WOKEN_MS * 1000;
	struct holder_threads ts;
	size_t i, running;
	bool last;
	int n;

	for (;;) {
		if (holders_threads(&run->pl->holders, &ts))
			return;
		last = pipeline_now_us() >= deadline;
		for (n = 0, i = 0; i < nwork; i++)
			if (!work[i].gone &&
			    !failed_before(run->res, work[i].p->tgid))
				n += count_blocked(work[i].p, &ts, last,
						   run->res);
		running = pipeline_now_us() < grace ? count_running(run, &ts) : 0;
		holder_threads_free(&ts);
		if ((!n && !running) || last)
			return;
		/* past the grace, a thread still blocked is waited for slowly */
		if (pipeline_now_us() >= grace)
			pause.tv_nsec = DRAIN_SLOW_POLL_MS * 1000000L;
		nanosleep(&pause, NULL);
	}
}

static void work_free(struct holder_work *work, size_t nwork)
{
	size_t i;

	for (i = 0; i < nwork; i++) {
		free(work[i].kick);
		if (work[i].pidfd >= 0)
			close(work[i].pidfd);
	}
	free(work);
}

/* Does the pipeline do anything to this holder? */
static bool acts_on(const struct holder_work *w)
{
	return !w->gone && (w->stop || w->nkick);
}

/*
 * A pidfd on every holder that needs anything; one whose pid names
 * another process now has exited, and needs nothing.
 */
static int take_pidfds(struct run *run, struct holder_work *work, size_t nwork)
{
	const struct holder_proc **procs = calloc(nwork ? nwork : 1,
						  sizeof(*procs));
	int *pidfds = calloc(nwork ? nwork : 1, sizeof(*pidfds));
	size_t i, n = 0;
	int err = -ENOMEM;

	if (!procs || !pidfds)
		goto out;
	for (i = 0; i < nwork; i++)
		if (acts_on(&work[i]))
			procs[n++] = work[i].p;
	err = n ? holders_pidfds(&run->pl->holders, procs, pidfds, n) : 0;
	for (i = 0, n = 0; !err && i < nwork; i++) {
		if (!acts_on(&work[i]))
			continue;
		work[i].pidfd = pidfds[n++];
		work[i].gone = work[i].pidfd < 0;
	}
out:
	free(procs);
	free(pidfds);
	return err;
}

/*
 * The holders of @set but ourselves, each with what it needs; NULL if
 * memory or the thread snapshot is short (the failure is in @res).
 */
static struct holder_work *plan(struct run *run, const struct holder_set *set,
				size_t *nwork)
{
	struct holder_threads ts;
	struct holder_work *work;
	size_t i;
	int err;

	*nwork = 0;
	err = holders_threads(&run->pl->holders, &ts);
	if (err) {
		pipeline_fail(run->res, 0, 0, "stop", "threads_%s", errname(err));
		return NULL;
	}
	work = calloc(set->nr ? set->nr : 1, sizeof(*work));
	for (i = 0; work && i < set->nr; i++) {
		struct holder_work *w = &work[*nwork];

		if (set->procs[i].tgid == getpid())
			continue;
		w->p = &set->procs[i];
		w->pidfd = -1;
		++*nwork;
		if (plan_holder(w, &ts, run->release)) {
			work_free(work, *nwork);
			work = NULL;
		}
	}
	holder_threads_free(&ts);
	if (!work) {
		pipeline_fail(run->res, 0, 0, "stop", "ENOMEM");
		return NULL;
	}
	err = take_pidfds(run, work, *nwork);
	if (err) {
		pipeline_fail(run->res, 0, 0, "stop", "pidfds_%s", errname(err));
		work_free(work, *nwork);
		return NULL;
	}
	return work;
}

/**
 * pipeline_run_set() - handle every holder of @set and drain
 * @pl: the pipeline
 * @key: the inode
 * @set: the holders found for it (one pass of pipeline_passes())
 * @opts: what to do
 * @start: when the run began (pipeline_now_us())
 * @res: the report, added to
 *
 * With no holder to
 * act on there is nothing to drain: each of their threads was asleep in
 * a call that names no descriptor of the file (one running, or in a call
 * on the file, is acted on: see plan_holder()), and the map update,
 * made before, refuses every new call on it.
 */
void pipeline_run_set(struct pipeline *pl, const struct revoke_key *key,
		      const struct holder_set *set,
		      const struct pipeline_opts *opts, uint64_t start,
		      struct pipeline_result *res)
{
	struct run run = { .pl = pl, .key = key, .res = res,
			   .release = want_release(opts, release_by_default(set)) };
	struct revoke_file **files;
	struct holder_work *work;
	struct revoke_inode inode;
	bool acted = false;
	size_t i, nwork;

	if (!set->nr)
		return;	/* nobody holds it: no thread to look at, no drain */
	work = plan(&run, set, &nwork);
	if (!work)
		return;
	/* the inode and its open files (the seed's i_files): its holders */
	files = calloc(nwork ? nwork : 1, sizeof(*files));
	if (!files || revoke_inode_init(&inode, &holder_fops, NULL)) {
		pipeline_fail(res, 0, 0, "stop", "ENOMEM");
		free(files);
		work_free(work, nwork);
		return;
	}
	for (i = 0; i < nwork; i++) {
		if (revoke_file_open(&inode, 0, &files[i]))
			pipeline_fail(res, work[i].p->tgid, 0, "stop", "ENOMEM");
		acted |= acts_on(&work[i]);
	}
	interrupt_waiters(work, nwork);
	for (i = 0; i < nwork; i++) {
		if (files[i]) {
			handle_proc(&run, &work[i], files[i]);
			revoke_file_put(files[i]);
		} else if (!work[i].err && work[i].t.nr) {
			tracee_detach(&work[i].t);	/* interrupted for nothing */
		}
	}
	revoke_inode_destroy(&inode);
	free(files);
	if (acted)
		drain(&run, work, nwork,
		      start + (uint64_t)opts->timeout_ms * 1000);
	work_free(work, nwork);
	free(run.woken);
}

static void finish(const struct pipeline_opts *opts, uint64_t start,
		   struct pipeline_result *res)
{
	res->total_us = pipeline_now_us() - start;
	if (res->rep.released || opts->release == REVOKE_RELEASE_YES)
		res->rep.flags |= REVOKE_REPORT_RELEASE;
}

/**
 * pipeline_run() - end every existing use of a revoked inode
 * @pl: the pipeline
 * @key: the inode, already in the revoked set
 * @opts: what to do
 * @res: the report; free it with pipeline_result_free()
 *
 * Return: 0 when the pipeline ran (@res tells what failed, if anything),
 * or a negative errno if it could not run at all.
 */
int pipeline_run(struct pipeline *pl, const struct revoke_key *key,
		 const struct pipeline_opts *opts, struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = pipeline_passes(pl, key, opts, start, res);
	if (err)
		return err;
	finish(opts, start, res);
	inode_set_report_set(pl->rb, key, &res->rep);
	return 0;
}

/**
 * pipeline_run_rdev() - end every existing use of a revoked device
 * @pl: the pipeline
 * @key: the device, already in the revoked device set
 * @opts: what to do
 * @res: the report, summed over every node of the device that is held
 *
 * Each node (its own inode: /dev/X, a node made with mknod elsewhere) is
 * handled as pipeline_run() handles an inode.
 *
 * Return: as pipeline_run().
 */
int pipeline_run_rdev(struct pipeline *pl, const struct revoke_rdev_key *key,
		      const struct pipeline_opts *opts,
		      struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	struct holder_set all;
	size_t i;
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = holders_find_rdev(&pl->holders, key, &all);
	if (err)
		return err;
	res->discover_us = pipeline_now_us() - start;
	for (i = 0; i < all.ninodes && !err; i++)
		err = pipeline_passes(pl, &all.inodes[i], opts, start, res);
	holder_set_free(&all);
	finish(opts, start, res);
	return err;
}
