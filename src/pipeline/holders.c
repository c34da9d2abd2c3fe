// SPDX-License-Identifier: GPL-2.0
/*
 * holders.c - run the holder iterators (bpf/holders.bpf.c) and group
 * their records by process.
 *
 * The iterators are loaded once, when the daemon starts; each search puts
 * the target in "holder_targets", reads both iterators to the end, and
 * takes the target out again.  The thread iterator needs no target: it
 * reports every user thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "holders.h"
#include "store/store.h"
#include "inject/inject.h"
#include "holders.skel.h"

static struct holder_proc *proc_of(struct holder_set *set,
				   const struct revoke_holder *rec)
{
	pid_t tgid = (pid_t)rec->tgid;
	struct holder_proc *p;

	/* records come task by task: the last one is the likely match */
	if (set->nr && set->procs[set->nr - 1].tgid == tgid)
		return &set->procs[set->nr - 1];
	for (p = set->procs; p < set->procs + set->nr; p++)
		if (p->tgid == tgid)
			return p;
	p = realloc(set->procs, (set->nr + 1) * sizeof(*p));
	if (!p)
		return NULL;
	set->procs = p;
	p += set->nr++;
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->start_boottime = rec->start_boottime;
	return p;
}

/* Remember the inode of @rec, once. */
static int add_inode(struct holder_set *set, const struct revoke_holder *rec)
{
	struct revoke_key *k;
	size_t i;

	for (i = 0; i < set->ninodes; i++)
		if (set->inodes[i].dev == rec->dev && set->inodes[i].ino == rec->ino)
			return 0;
	k = realloc(set->inodes, (set->ninodes + 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	set->inodes = k;
	k[set->ninodes++] = (struct revoke_key){ .dev = rec->dev, .ino = rec->ino };
	return 0;
}

/*
 * An io_uring record: what a ring of @p holds (bpf/uring.bpf.h), once:
 * an iterator restricted to one process reports a descriptor again for
 * each of its threads that shares the table (io_uring's own io-wq
 * workers among them).
 */
static int add_ring(struct holder_set *set, struct holder_proc *p,
		    const struct revoke_holder *rec)
{
	struct holder_ring *r;
	size_t i;

	for (i = 0; i < p->nrings; i++)
		if (p->rings[i].fd == (int)rec->fd &&
		    p->rings[i].kind == rec->kind &&
		    p->rings[i].index == (uint32_t)rec->start &&
		    p->rings[i].ring == rec->end &&
		    p->rings[i].flags == rec->prot &&
		    (!(rec->prot & REVOKE_URING_REGISTERED) ||
		     p->rings[i].tid == (pid_t)rec->cloexec))
			return 0;
	r = realloc(p->rings, (p->nrings + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	p->rings = r;
	r += p->nrings++;
	r->fd = (int)rec->fd;
	r->tid = (pid_t)rec->cloexec;
	r->kind = rec->kind;
	r->index = (uint32_t)rec->start;
	r->flags = rec->prot;
	r->ring = rec->end;
	r->found = rec->kind != REVOKE_HOLDER_RING_UNKNOWN &&
		   (rec->dev || rec->ino);
	set->nrings++;
	return 0;
}

static int add_record(struct holder_set *set, const struct revoke_holder *rec)
{
	struct holder_proc *p = proc_of(set, rec);

	if (!p)
		return -ENOMEM;
	if (rec->kind >= REVOKE_HOLDER_RING_FILE)
		return (rec->dev || rec->ino) && add_inode(set, rec) ? -ENOMEM :
		       add_ring(set, p, rec);
	if (add_inode(set, rec))
		return -ENOMEM;
	if (rec->kind == REVOKE_HOLDER_FD) {
		int *fds = realloc(p->fds, (p->nfds + 1) * sizeof(*fds));
		struct holder_cred *cred;
		bool *cloexec;

		if (!fds)
			return -ENOMEM;
		p->fds = fds;
		cloexec = realloc(p->cloexec, (p->nfds + 1) * sizeof(*cloexec));
		if (!cloexec)
			return -ENOMEM;
		p->cloexec = cloexec;
		cred = realloc(p->cred, (p->nfds + 1) * sizeof(*cred));
		if (!cred)
			return -ENOMEM;
		p->cred = cred;
		cred[p->nfds] = (struct holder_cred){ rec->f_uid, rec->f_euid };
		fds[p->nfds] = (int)rec->fd;
		cloexec[p->nfds++] = rec->cloexec;
		set->nfds++;
	} else {
		struct holder_vma *v = realloc(p->vmas, (p->nvmas + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->vmas = v;
		v[p->nvmas].start = rec->start;
		v[p->nvmas].end = rec->end;
		v[p->nvmas].prot = (int)rec->prot;
		v[p->nvmas].cred = (struct holder_cred){ rec->f_uid, rec->f_euid };
		p->nvmas++;
		set->nvmas++;
	}
	return 0;
}

/*
 * Read one iterator to its end, passing each record of @size bytes to
 * @add with @ctx; stop at the first error @add returns.
 */
int holders_run_iter(int link, size_t size,
		     int (*add)(void *ctx, const void *rec), void *ctx)
{
	char buf[16384] __attribute__((aligned(8)));
	size_t have = 0, used;
	ssize_t n;
	int fd, err = 0;

	fd = bpf_iter_create(link);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				err = -errno;
			break;
		}
		have += (size_t)n;
		for (used = 0; used + size <= have && !err; used += size)
			err = add(ctx, buf + used);
		if (err)
			break;
		/* keep a partial record for the next read */
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	close(fd);
	return err;
}

static int add_holder(void *set, const void *rec)
{
	return add_record(set, rec);
}

/*
 * Put @key in @map, read the iterators @fds and @regrings (if not -1)
 * and @vmas into @set, take @key out again.  If @may_skip_vmas and some process has a
 * descriptor of the inode, none of whose files has a mapping, the walk of
 * every mapping is spared: a mapping comes from an mmap() of an open file of the
 * inode, each new one is refused since the inode is revoked, and one in
 * flight is by a thread blocked in mmap() on a descriptor, which the
 * pipeline stops and rescans (see plan_holder() in pipeline.c).
 */
int holders_search(struct holders *h, int map, const void *key,
		   int fds, int regrings, int vmas, bool may_skip_vmas,
		   struct holder_set *set)
{
	__u32 one = 1;
	int err;

	memset(set, 0, sizeof(*set));
	if (bpf_map_update_elem(map, key, &one, BPF_ANY))
		return -errno;
	h->skel->bss->holder_maybe_mapped = 0;
	err = fds >= 0 ? holders_run_iter(fds, sizeof(struct revoke_holder),
					  add_holder, set) : 0;
	if (!err && regrings >= 0)
		err = holders_run_iter(regrings, sizeof(struct revoke_holder),
			       add_holder, set);
	if (!err && (!may_skip_vmas || !set->nfds ||
		     h->skel->bss->holder_maybe_mapped))
		err = holders_run_iter(vmas, sizeof(struct revoke_holder), add_holder,
			       set);
	bpf_map_delete_elem(map, key);
	if (err)
		holder_set_free(set);
	return err;
}

/**
 * holders_find() - every descriptor and mapping of an inode
 * @h: the loaded iterators
 * @key: the inode
 * @set: the result, grouped by process; free it with holder_set_free()
 *
 * Threads that share a descriptor table or an address space are reported
 * once, under their process.
 *
 * Return: 0 or a negative errno.
 */
int holders_find(struct holders *h, const struct revoke_key *key,
		 struct holder_set *set)
{
	return holders_search(h, bpf_map__fd(h->skel->maps.holder_targets),
			      key, h->link[HOLDERS_FDS],
			      h->link[HOLDERS_REGRINGS], h->link[HOLDERS_VMAS],
			      true, set);
}

/**
 * holders_find_rdev() - every descriptor and mapping of a device's nodes
 * @h: the loaded iterators
 * @key: the device
 * @set: the result, as for holders_find(); @set->inodes lists the nodes
 *
 * Return: 0 or a negative errno.
 */
int holders_find_rdev(struct holders *h, const struct revoke_rdev_key *key,
		      struct holder_set *set)
{
	return holders_search(h,
			      bpf_map__fd(h->skel->maps.holder_rdev_targets),
			      key, h->link[HOLDERS_FDS],
			      h->link[HOLDERS_REGRINGS], h->link[HOLDERS_VMAS],
			      false, set);
}

/* Close a link, if open. */
static void close_link(int fd)
{
	if (fd >= 0)
		close(fd);
}

/**
 * holders_scan() - the mappings, and descriptors, of an inode in one process
 * @h: the loaded iterators
 * @key: the inode
 * @tgid: the process; stopped by the caller, for an answer that holds
 * @with_fds: look for its descriptors and io_uring instances too, not
 *	only its mappings
 * @set: the result, that process or nothing; free it with holder_set_free()
 *
 * The iterators walk the threads of @tgid only (task iterator parameters,
 * Linux 6.1), not every process.
 *
 * Return: 0 or a negative errno.
 */
int holders_scan(struct holders *h, const struct revoke_key *key, pid_t tgid,
		 bool with_fds, struct holder_set *set)
{
	int fds = -1, regrings = -1, vmas;
	int err;

	memset(set, 0, sizeof(*set));
	vmas = holders_iter_link(h->prog_fd[HOLDERS_VMAS], tgid);
	if (vmas < 0)
		return vmas;
	if (with_fds) {
		fds = holders_iter_link(h->prog_fd[HOLDERS_FDS], tgid);
		regrings = holders_iter_link(h->prog_fd[HOLDERS_REGRINGS], tgid);
		err = fds < 0 ? fds : regrings;
		if (err < 0)
			goto out;
	}
	err = holders_search(h, bpf_map__fd(h->skel->maps.holder_targets), key,
			     fds, regrings, vmas, false, set);
out:
	close_link(regrings);
	close_link(fds);
	close_link(vmas);
	return err;
}

/**
 * holder_pidfd() - a pidfd on a holder, if it is still the process that
 *	was found
 * @p: the holder, as holders_find() found it
 *
 * The pid may have been given to another process since: the start time
 * tells.  Once the pidfd is open, that process is named for good (a
 * later ptrace or signal by pid number should still check the pidfd:
 * pidfd_send_signal(pidfd, 0) fails once the process has exited).
 *
 * Return: the pidfd, or -ESRCH if the holder has exited.
 */
int holder_pidfd(const struct holder_proc *p)
{
	long tck = sysconf(_SC_CLK_TCK);
	char path[64], start[32];
	int pidfd;

	pidfd = (int)syscall(SYS_pidfd_open, p->tgid, 0);
	if (pidfd < 0)
		return -ESRCH;
	/* field 22, starttime: clock ticks since boot */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->tgid);
	if (tck <= 0 || procfs_stat_field(path, 22, start, sizeof(start)) ||
	    strtoull(start, NULL, 10) !=
	    p->start_boottime / (1000000000ull / (uint64_t)tck)) {
		close(pidfd);
		return -ESRCH;
	}
	return pidfd;
}

static int add_thread(void *ctx, const void *rec)
{
	struct holder_threads *ts = ctx;
	struct revoke_thread *th;

	if (ts->nr == ts->cap) {
		size_t cap = ts->cap ? 2 * ts->cap : 1024;

		th = realloc(ts->th, cap * sizeof(*th));
		if (!th)
			return -ENOMEM;
		ts->th = th;
		ts->cap = cap;
	}
	memcpy(&ts->th[ts->nr++], rec, sizeof(*th));
	return 0;
}

static int by_tgid_tid(const void *a, const void *b)
{
	const struct revoke_thread *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/**
 * holders_threads() - every user thread and the system call it is in
 * @h: the loaded iterators
 * @ts: the result, sorted by process; free it with holder_threads_free()
 *
 * One pass of the thread iterator: what /proc/PID/task/TID/syscall says
 * of every thread, without opening a file per thread.
 *
 * Return: 0 or a negative errno.
 */
int holders_threads(struct holders *h, struct holder_threads *ts)
{
	int err;

	memset(ts, 0, sizeof(*ts));
	err = holders_run_iter(h->link[HOLDERS_THREADS],
			       sizeof(struct revoke_thread), add_thread, ts);
	if (err) {
		holder_threads_free(ts);
		return err;
	}
	qsort(ts->th, ts->nr, sizeof(*ts->th), by_tgid_tid);
	return 0;
}

/**
 * holder_threads_of() - the threads of one holder
 * @ts: from holders_threads()
 * @p: the holder
 * @n: set to their number (0 if it has exited, or its pid names another
 *	process now)
 *
 * Return: the first of them, in @ts.
 */
const struct revoke_thread *holder_threads_of(const struct holder_threads *ts,
					      const struct holder_proc *p,
					      size_t *n)
{
	size_t lo = 0, hi = ts->nr, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ts->th[mid].tgid < (uint32_t)p->tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < ts->nr && ts->th[end].tgid == (uint32_t)p->tgid;)
		end++;
	*n = end > lo && ts->th[lo].start_boottime == p->start_boottime ?
	     end - lo : 0;
	return ts->th + lo;
}

/**
 * holders_pidfds() - pidfds on holders that are still the processes found
 * @h: the loaded iterators
 * @procs: the holders
 * @pidfds: set, for each holder, to a pidfd on it, or to -ESRCH if it has
 *	exited (or its pid names another process now)
 * @n: their number
 *
 * What holder_pidfd() does for one holder with /proc/PID/stat, done for
 * many with one pass of the thread iterator once every pidfd is open: a
 * pidfd opened before that pass names a process with the holder's pid
 * then, which is the holder if that pid still had its start time.
 *
 * Return: 0 or a negative errno (then no pidfd is left open).
 */
int holders_pidfds(struct holders *h, const struct holder_proc *const *procs,
		   int *pidfds, size_t n)
{
	struct holder_threads ts;
	size_t i, nth;
	int err;

	for (i = 0; i < n; i++) {
		pidfds[i] = (int)syscall(SYS_pidfd_open, procs[i]->tgid, 0);
		if (pidfds[i] < 0)
			pidfds[i] = -ESRCH;
	}
	err = holders_threads(h, &ts);
	for (i = 0; i < n; i++) {
		if (pidfds[i] < 0)
			continue;
		holder_threads_of(&ts, procs[i], &nth);
		if (err || !nth) {
			close(pidfds[i]);
			pidfds[i] = -ESRCH;
		}
	}
	if (!err)
		holder_threads_free(&ts);
	return err;
}

void holder_threads_free(struct holder_threads *ts)
{
	free(ts->th);
	memset(ts, 0, sizeof(*ts));
}

/**
 * holder_proc_free() - free what one holder's record owns
 * @p: the record (itself not freed)
 */
void holder_proc_free(struct holder_proc *p)
{
	free(p->fds);
	free(p->cloexec);
	free(p->cred);
	free(p->vmas);
	free(p->rings);
}

void holder_set_free(struct holder_set *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		holder_proc_free(&set->procs[i]);
	free(set->procs);
	free(set->inodes);
	memset(set, 0, sizeof(*set));
}

/**
 * holders_ident() - what one of this process's descriptors refers to, as
 *	the hooks see it
 * @h: the loaded iterators
 * @fd: the descriptor
 * @id: the result: its key, filesystem, mode and, for overlayfs, the keys
 *	of its upper and lower inodes
 *
 * Runs the revoke_ident iterator over this process's descriptors only.
 *
 * Return: 0, -EBADF if @fd is not open, or another negative errno.
 */
int holders_ident(struct holders *h, int fd, struct revoke_ident *id)
{
	ssize_t n;
	int link, it, ret = 0;

	h->skel->data->ident_fd = fd;
	link = holders_iter_link(h->prog_fd[HOLDERS_IDENT], getpid());
	if (link < 0) {
		h->skel->data->ident_fd = -1;
		return link;
	}
	it = bpf_iter_create(link);
	if (it < 0) {
		ret = -errno;
		goto out;
	}
	do
		n = read(it, id, sizeof(*id));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if (n != (ssize_t)sizeof(*id))
		ret = -EBADF;
	close(it);
out:
	close(link);
	h->skel->data->ident_fd = -1;
	return ret;
}

/**
 * holders_skip() - never report these processes as holders
 * @h: the loaded iterators
 * @self: revoke-bpfd itself: the descriptor a client sends it names the
 *	very file it revokes, for the length of the request
 * @peer: the client of that request, which closes its own descriptor of
 *	the file right after sending it (0: none)
 */
void holders_skip(struct holders *h, pid_t self, pid_t peer)
{
	h->skel->bss->holder_self = (__u32)self;
	h->skel->bss->holder_peer = (__u32)peer;
}
