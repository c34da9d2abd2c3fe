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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "key.h"
#include "revoke.h"
#include "pipeline.h"
#include "revoked_map.h"
#include "tracee.h"
#include "waiters.h"

#define STOP_TIMEOUT_MS 1000
#define DRAIN_POLL_MS 10
#define DEAD_NAME "revoke-bpf-dead"

/* A descriptor or mapping of the revoked inode, seen while stopped. */
struct held_fd {
	int fd;
	bool cloexec;
};

struct held_vma {
	unsigned long start;
	unsigned long end;
	int prot;
};

struct held {
	struct held_fd *fds;
	size_t nfds;
	struct held_vma *vmas;
	size_t nvmas;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

static void fail(struct pipeline_result *res, pid_t pid, pid_t tid,
		 const char *step, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void fail(struct pipeline_result *res, pid_t pid, pid_t tid,
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
	f->pid = pid;
	f->tid = tid;
	f->step = step;
	va_start(ap, fmt);
	vsnprintf(f->reason, sizeof(f->reason), fmt, ap);
	va_end(ap);
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
void pipeline_init(struct pipeline *pl, struct revoke_bpf *rb)
{
	memset(pl, 0, sizeof(*pl));
	pl->rb = rb;
	pl->ready = !holders_open(&pl->holders, pl->why, sizeof(pl->why));
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
	memset(res, 0, sizeof(*res));
}

static bool same_key(const struct stat *st, const struct revoke_key *key)
{
	uint32_t kdev;

	return !revoke_kdev_from_stdev(st->st_dev, &kdev) && kdev == key->dev &&
	       st->st_ino == key->ino;
}

static bool fd_cloexec(pid_t pid, int fd)
{
	char path[64], line[128];
	unsigned int flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %o", &flags) == 1)
			break;
	fclose(f);
	return flags & O_CLOEXEC;
}

/* The descriptors of @key in a stopped process: the authoritative list. */
static int scan_fds(pid_t pid, const struct revoke_key *key, struct held *h)
{
	char path[64];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		int fd = atoi(de->d_name);
		struct held_fd *v;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(dir), de->d_name, &st, 0) || !same_key(&st, key))
			continue;
		v = realloc(h->fds, (h->nfds + 1) * sizeof(*v));
		if (!v)
			break;
		h->fds = v;
		v[h->nfds].fd = fd;
		v[h->nfds].cloexec = fd_cloexec(pid, fd);
		h->nfds++;
	}
	closedir(dir);
	return 0;
}

/* The mappings of @key in a stopped process, from /proc/PID/maps. */
static int scan_maps(pid_t pid, const struct revoke_key *key, struct held *h)
{
	unsigned long start, end, ino;
	unsigned int major, minor;
	char path[64], line[4096], perms[8];
	uint32_t kdev;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct held_vma *v;

		if (sscanf(line, "%lx-%lx %7s %*x %x:%x %lu", &start, &end, perms,
			   &major, &minor, &ino) != 6 ||
		    revoke_kdev(major, minor, &kdev) || kdev != key->dev ||
		    ino != key->ino)
			continue;
		v = realloc(h->vmas, (h->nvmas + 1) * sizeof(*v));
		if (!v)
			break;
		h->vmas = v;
		v[h->nvmas].start = start;
		v[h->nvmas].end = end;
		v[h->nvmas].prot = (perms[0] == 'r' ? PROT_READ : 0) |
				   (perms[1] == 'w' ? PROT_WRITE : 0) |
				   (perms[2] == 'x' ? PROT_EXEC : 0);
		h->nvmas++;
	}
	fclose(f);
	return 0;
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
 * Revoke the memfd made in the holder: the dead file its released
 * descriptors will refer to.  Every operation on it fails with EIO, and
 * its entry goes away with it (it has no links: see revoke_inode_free).
 */
static int revoke_dead_file(struct pipeline *pl, pid_t pid, long mfd)
{
	struct revoke_report dead = { .flags = REVOKE_REPORT_DEAD };
	enum revoke_change change;
	struct revoke_key key = {};
	char path[64];
	struct stat st;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, mfd);
	if (stat(path, &st) || revoke_kdev_from_stdev(st.st_dev, &key.dev))
		return -ESRCH;
	key.ino = st.st_ino;
	err = revoked_map_add(pl->rb, &key, &change);
	if (!err)
		revoked_map_report_set(pl->rb, &key, &dead);
	return err;
}

static void wake_all(struct tracee *t, const struct held *h,
		     struct pipeline_result *res)
{
	int fds[h->nfds ? h->nfds : 1];
	size_t i;

	for (i = 0; i < h->nfds; i++)
		fds[i] = h->fds[i].fd;
	for (i = 0; i < t->nr; i++) {
		struct tracee_thread *th = &t->th[i];

		switch (waiter_wake(t, th, fds, h->nfds)) {
		case WAKE_NONE:
			break;
		case WAKE_RESTART:
		case WAKE_COMPLETED:
			res->rep.waiters++;
			res->rep.woken++;
			break;
		case WAKE_FAILED:
			res->rep.waiters++;
			fail(res, t->tgid, th->tid, "wake", "poll_set_unreadable");
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
	struct pipeline *pl;
	struct tracee *t;
	const struct held *h;
	bool release;
	struct pipeline_result *res;
	long scratch;		/* a page in the holder, 0 until needed */
	long mfd;		/* the dead memfd in the holder, or < 0 */
	int dead_err;		/* 1 until it is revoked, then 0 or -errno */
};

/* In the stopped holder, make the dead file once: an empty, sealed memfd. */
static int dead_file_open(struct holder_file *hf, const char *step)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct tracee *t = hf->t;
	pid_t pid = t->tgid;

	if (hf->mfd >= 0)
		return 0;
	hf->scratch = sys(t, arch_nr_mmap, 0, page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sys_failed(hf->scratch)) {
		fail(hf->res, pid, 0, step, "inject_%s", errname(hf->scratch));
		hf->scratch = 0;
		return -1;
	}
	hf->mfd = -EFAULT;
	if (!tracee_write(t, hf->scratch, DEAD_NAME, sizeof(DEAD_NAME)))
		hf->mfd = sys(t, arch_nr_memfd_create, hf->scratch,
			      MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0, 0, 0);
	if (sys_failed(hf->mfd)) {
		fail(hf->res, pid, 0, step, "memfd_%s", errname(hf->mfd));
		return -1;
	}
	/* empty for good: every page of a mapping of it is past its end */
	sys(t, arch_nr_fcntl, hf->mfd, F_ADD_SEALS,
	    F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, 0, 0, 0);
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
		hf->dead_err = revoke_dead_file(hf->pl, hf->t->tgid, hf->mfd);
		if (hf->dead_err)
			fail(hf->res, hf->t->tgid, 0, step, "dead_file_%s",
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
	const struct held *h = hf->h;
	pid_t pid = hf->t->tgid;
	size_t i;
	long r;

	if (!h->nvmas || dead_file_open(hf, "unmap"))
		return;
	for (i = 0; i < h->nvmas; i++) {
		const struct held_vma *v = &h->vmas[i];

		r = sys(hf->t, arch_nr_mmap, v->start, v->end - v->start,
			v->prot, MAP_SHARED | MAP_FIXED, hf->mfd, 0);
		if ((unsigned long)r == v->start)
			hf->res->rep.unmapped++;
		else
			fail(hf->res, pid, 0, "unmap", "%lx_%s", v->start,
			     r == -EPERM ? "sealed" : errname(r));
	}
	dead_file_revoke(hf, "unmap");
}

/* awaken_all_waiters: every thread blocked in a call on the file. */
static void holder_awaken(struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);

	wake_all(hf->t, hf->h, hf->res);
}

/* release, once: dup3() the dead file over each descriptor, if asked. */
static int holder_release(struct revoke_inode *inode, struct revoke_file *file)
{
	struct holder_file *hf = revoke_file_private(file);
	const struct held *h;
	size_t i;
	long r;

	(void)inode;
	/* the last put of a holder that was not stopped: nothing to undo */
	if (!hf)
		return 0;
	h = hf->h;
	if (!hf->release || !h->nfds || dead_file_open(hf, "release") ||
	    dead_file_revoke(hf, "release"))
		return 0;
	for (i = 0; i < h->nfds; i++) {
		const struct held_fd *f = &h->fds[i];

		r = sys(hf->t, arch_nr_dup3, hf->mfd, f->fd,
			f->cloexec ? O_CLOEXEC : 0, 0, 0, 0);
		if (r == f->fd)
			hf->res->rep.released++;
		else
			fail(hf->res, hf->t->tgid, 0, "release", "fd_%d_%s",
			     f->fd, errname(r));
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
 * mappings, descriptors to release, or a thread running (which may be
 * inside an operation on the file); else only its waiters interrupted,
 * each blocked in a call on the file; else nothing.
 */
struct holder_work {
	const struct holder_proc *p;
	bool gone;		/* exited, or its pid names another process */
	bool stop;		/* stop every thread */
	pid_t *kick;		/* else: the waiters to interrupt */
	size_t nkick;
	struct tracee t;	/* the waiters, once interrupted */
	int err;		/* interrupting them failed: @why says why */
	char why[48];
};

static int plan_holder(struct holder_work *w, const struct holder_threads *ts,
		       bool release)
{
	const struct holder_proc *p = w->p;
	const struct revoke_thread *th;
	size_t n, i;

	th = holder_threads_of(ts, p, &n);
	w->gone = !n;
	w->stop = p->nvmas || release;
	for (i = 0; i < n && !w->stop; i++) {
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
	int pidfd;

	for (w = work; w < work + nwork; w++) {
		if (w->gone || w->stop || !w->nkick)
			continue;
		pidfd = holder_pidfd(w->p);
		if (pidfd < 0) {
			w->gone = true;
			continue;
		}
		w->err = tracee_interrupt(&w->t, w->p->tgid, pidfd, w->kick,
					  w->nkick, w->why, sizeof(w->why));
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
static void handle_waiters(struct holder_work *w, struct revoke_file *file,
			   struct pipeline_result *res)
{
	const struct holder_proc *p = w->p;
	struct held_fd fds[p->nfds ? p->nfds : 1];
	struct held h = { .fds = fds, .nfds = p->nfds };
	struct holder_file hf = { .h = &h, .res = res, .mfd = -1,
				  .dead_err = 1, .t = &w->t };
	size_t i;

	res->rep.fds += p->nfds;
	if (w->err) {
		fail(res, p->tgid, 0, "stop", "%s", w->why);
		return;
	}
	if (tracee_wait(&w->t, STOP_TIMEOUT_MS, w->why, sizeof(w->why)))
		return;	/* it exited, and let go of everything */
	if (w->t.unstopped)
		fail(res, p->tgid, 0, "stop", "%d_threads_uninterruptible",
		     w->t.unstopped);
	for (i = 0; i < p->nfds; i++)
		fds[i] = (struct held_fd){ .fd = p->fds[i] };
	substitute(file, &hf);
	tracee_detach(&w->t);
}

/*
 * Stop every thread of the holder of @file, substitute its table while
 * it is stopped, and let it go.
 */
static void handle_stop(struct pipeline *pl, const struct revoke_key *key,
			const struct holder_proc *p, struct revoke_file *file,
			bool release, struct pipeline_result *res)
{
	struct held h = {};
	struct holder_file hf = { .pl = pl, .h = &h, .release = release,
				  .res = res, .mfd = -1, .dead_err = 1 };
	struct tracee t;
	char why[48];
	int err;

	err = holder_pidfd(p);
	if (err >= 0)
		err = tracee_attach(&t, p->tgid, err, STOP_TIMEOUT_MS, why,
				    sizeof(why));
	if (err) {
		if (err == -ESRCH)
			return;	/* it exited, and let go of everything */
		res->rep.fds += p->nfds;
		res->rep.mappings += p->nvmas;
		fail(res, p->tgid, 0, "stop", "%s", why);
		return;
	}
	if (t.unstopped)
		fail(res, p->tgid, 0, "stop", "%d_threads_uninterruptible",
		     t.unstopped);
	scan_fds(p->tgid, key, &h);
	scan_maps(p->tgid, key, &h);
	res->rep.fds += h.nfds;
	res->rep.mappings += h.nvmas;
	hf.t = &t;
	substitute(file, &hf);
	tracee_detach(&t);
	free(h.fds);
	free(h.vmas);
}

static void handle_proc(struct pipeline *pl, const struct revoke_key *key,
			struct holder_work *w, struct revoke_file *file,
			bool release, struct pipeline_result *res)
{
	res->rep.holders++;
	if (w->gone)
		return;
	if (w->stop)
		handle_stop(pl, key, w->p, file, release, res);
	else if (w->nkick)
		handle_waiters(w, file, res);
	else
		res->rep.fds += w->p->nfds;
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
			fail(res, p->tgid, (pid_t)th[i].tid, "drain",
			     "still_blocked_on_file");
	}
	return n;
}

/*
 * Wait until no thread of a holder we handled is blocked in a call on the
 * file.  Holders that already failed are not waited for: their failure
 * says why.  Only threads that existed when the holders were found can
 * be inside an operation that began before the revocation; the
 * descriptors they named then are the ones to look for, even if a
 * release has replaced them since.
 */
static void drain(struct pipeline *pl, const struct holder_work *work,
		  size_t nwork, uint64_t deadline, struct pipeline_result *res)
{
	struct timespec pause = { 0, DRAIN_POLL_MS * 1000000L };
	struct holder_threads ts;
	bool last = false;
	size_t i;
	int n;

	/* a thread just woken reads as running until it restarts or returns */
	if (res->rep.woken)
		nanosleep(&pause, NULL);
	for (;;) {
		if (holders_threads(&pl->holders, &ts))
			return;
		last = now_us() >= deadline;
		for (n = 0, i = 0; i < nwork; i++)
			if (!work[i].gone &&
			    !failed_before(res, work[i].p->tgid))
				n += count_blocked(work[i].p, &ts, last, res);
		holder_threads_free(&ts);
		if (!n || last)
			return;
		nanosleep(&pause, NULL);
	}
}

static void work_free(struct holder_work *work, size_t nwork)
{
	size_t i;

	for (i = 0; i < nwork; i++)
		free(work[i].kick);
	free(work);
}

/*
 * The holders of @set but ourselves, each with what it needs; NULL if
 * memory or the thread snapshot is short (the failure is in @res).
 */
static struct holder_work *plan(struct pipeline *pl,
				const struct holder_set *set, bool release,
				size_t *nwork, struct pipeline_result *res)
{
	struct holder_threads ts;
	struct holder_work *work;
	size_t i;
	int err;

	*nwork = 0;
	err = holders_threads(&pl->holders, &ts);
	if (err) {
		fail(res, 0, 0, "stop", "threads_%s", errname(err));
		return NULL;
	}
	work = calloc(set->nr ? set->nr : 1, sizeof(*work));
	for (i = 0; work && i < set->nr; i++) {
		struct holder_work *w = &work[*nwork];

		if (set->procs[i].tgid == getpid())
			continue;
		w->p = &set->procs[i];
		++*nwork;
		if (plan_holder(w, &ts, release)) {
			work_free(work, *nwork);
			work = NULL;
		}
	}
	holder_threads_free(&ts);
	if (!work)
		fail(res, 0, 0, "stop", "ENOMEM");
	return work;
}

/*
 * Handle every holder of @key and drain, adding to @res; @set is the
 * holders found for it, @start when the run began.
 */
static void run_inode(struct pipeline *pl, const struct revoke_key *key,
		      const struct holder_set *set,
		      const struct pipeline_opts *opts, uint64_t start,
		      struct pipeline_result *res)
{
	bool release = want_release(opts, release_by_default(set));
	struct revoke_file **files;
	struct holder_work *work;
	struct revoke_inode inode;
	size_t i, nwork;

	work = plan(pl, set, release, &nwork, res);
	if (!work)
		return;
	/* the inode and its open files (the seed's i_files): its holders */
	files = calloc(nwork ? nwork : 1, sizeof(*files));
	if (!files || revoke_inode_init(&inode, &holder_fops, NULL)) {
		fail(res, 0, 0, "stop", "ENOMEM");
		free(files);
		work_free(work, nwork);
		return;
	}
	for (i = 0; i < nwork; i++)
		if (revoke_file_open(&inode, 0, &files[i]))
			fail(res, work[i].p->tgid, 0, "stop", "ENOMEM");
	interrupt_waiters(work, nwork);
	for (i = 0; i < nwork; i++) {
		if (files[i]) {
			handle_proc(pl, key, &work[i], files[i], release, res);
			revoke_file_put(files[i]);
		} else if (!work[i].err && work[i].t.nr) {
			tracee_detach(&work[i].t);	/* interrupted for nothing */
		}
	}
	revoke_inode_destroy(&inode);
	free(files);
	drain(pl, work, nwork, start + (uint64_t)opts->timeout_ms * 1000, res);
	work_free(work, nwork);
}

static void finish(const struct pipeline_opts *opts, uint64_t start,
		   struct pipeline_result *res)
{
	res->total_us = now_us() - start;
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
	uint64_t start = now_us();
	struct holder_set set;
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = holders_find(&pl->holders, key, &set);
	if (err)
		return err;
	res->discover_us = now_us() - start;
	run_inode(pl, key, &set, opts, start, res);
	holder_set_free(&set);
	finish(opts, start, res);
	revoked_map_report_set(pl->rb, key, &res->rep);
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
	uint64_t start = now_us();
	struct holder_set all, one;
	size_t i;
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = holders_find_rdev(&pl->holders, key, &all);
	if (err)
		return err;
	res->discover_us = now_us() - start;
	for (i = 0; i < all.ninodes && !err; i++) {
		err = holders_find(&pl->holders, &all.inodes[i], &one);
		if (err)
			break;
		run_inode(pl, &all.inodes[i], &one, opts, start, res);
		holder_set_free(&one);
	}
	holder_set_free(&all);
	finish(opts, start, res);
	return err;
}
