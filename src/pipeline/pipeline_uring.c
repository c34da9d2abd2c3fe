// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_uring.c - take a revoked file away from a holder's io_uring
 * instances, while the holder is stopped.
 *
 * A ring keeps a file as a fixed file (IORING_REGISTER_FILES), and keeps
 * a file's pages under a registered buffer (IORING_REGISTER_BUFFERS),
 * after every descriptor and mapping of it is gone: I/O on a fixed file
 * of a pipe (IORING_OP_SPLICE) passes no LSM hook, nor does
 * IORING_OP_READ_FIXED or WRITE_FIXED into or out of a registered
 * buffer.  The iterators (bpf/uring.bpf.h) say which slot or buffer of
 * which of the holder's rings; here the holder itself is made to call
 *
 *   io_uring_register(ring, IORING_REGISTER_FILES_UPDATE2, {slot, [-1]})
 *   io_uring_register(ring, IORING_REGISTER_BUFFERS_UPDATE, {buf, [{0, 0}]})
 *
 * which empty the slot and put the kernel's empty buffer in place of the
 * registered one (what IORING_REGISTER_BUFFERS2 calls a sparse entry),
 * without waiting for requests in flight; a later request on that slot
 * or buffer fails (EBADF, EFAULT).  Then
 *
 *   io_uring_register(ring, IORING_REGISTER_SYNC_CANCEL, {ANY, 200 ms})
 *
 * ends the requests in flight, which may hold the file or the buffer's
 * pages since before; the ring drops its reference as each ends.  The
 * arguments go on the
 * injecting thread's stack, below what it uses, and the bytes there are
 * put back afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <linux/io_uring.h>

#include "pipeline.h"
#include "pipeline_uring.h"

/* What goes on the holder's stack: an update and its one entry, or a cancel. */
union uring_args {
	struct {
		struct io_uring_rsrc_update2 up;
		union {
			__s32 fd;
			struct iovec iov;
		} entry;
	} upd;
	struct io_uring_sync_cancel_reg cancel;
};

/* How long the holder waits for its requests in flight to be cancelled */
#define URING_CANCEL_TIMEOUT_NS 200000000

static const char *uring_errname(long err)
{
	const char *name = strerrorname_np((int)-err);

	return name ? name : "EIO";
}

/*
 * Make the stopped holder @t run io_uring_register(@fd, @op, @args,
 * @nr_args), @args on its stack; return the call's result or a negative
 * errno.  An update's entry is given its address there.
 */
static long uring_register(struct tracee *t, int fd, unsigned int op,
			   union uring_args *args, unsigned long nr_args)
{
	union uring_args saved;
	unsigned long addr, a[6] = { 0 };
	long ret;
	int err;

	addr = tracee_stack_scratch(t, sizeof(*args));
	if (!addr)
		return -ENOSYS;
	addr &= ~7UL;	/* the kernel reads __aligned_u64 fields */
	if (tracee_read(t, addr, &saved, sizeof(saved)))
		return -EFAULT;
	if (op != IORING_REGISTER_SYNC_CANCEL)
		args->upd.up.data = addr + offsetof(union uring_args, upd.entry);
	if (tracee_write(t, addr, args, sizeof(*args)))
		return -EFAULT;
	a[0] = (unsigned long)fd;
	a[1] = op;
	a[2] = addr;
	a[3] = nr_args;
	err = tracee_syscall(t, arch_nr_io_uring_register, a, &ret);
	if (tracee_write(t, addr, &saved, sizeof(saved)) && !err)
		err = -EFAULT;
	return err ? err : ret;
}

/* Replace entry @index of ring @fd's files or buffers (@op) by @args'. */
static long uring_update(struct tracee *t, int fd, unsigned int op,
			 uint32_t index, union uring_args *args)
{
	args->upd.up.offset = index;
	args->upd.up.nr = 1;
	return uring_register(t, fd, op, args, sizeof(args->upd.up));
}

/* Empty fixed-file slot @index of ring @fd. */
static long uring_drop_file(struct tracee *t, int fd, uint32_t index)
{
	union uring_args args = { .upd.entry.fd = -1 };

	return uring_update(t, fd, IORING_REGISTER_FILES_UPDATE2, index, &args);
}

/* Replace registered buffer @index of ring @fd by the empty one. */
static long uring_drop_buf(struct tracee *t, int fd, uint32_t index)
{
	union uring_args args = { .upd.entry.iov = { NULL, 0 } };

	return uring_update(t, fd, IORING_REGISTER_BUFFERS_UPDATE, index, &args);
}

/*
 * Cancel every request in flight on ring @fd, waiting for them up to
 * URING_CANCEL_TIMEOUT_NS: one may have taken the file, or the buffer,
 * before its slot was emptied and go on using it (a splice blocked on a
 * FIFO, a read into the buffer waiting for data).  No cancel key names
 * them alone: a key by file matches a request's own file, not a splice's
 * source or a buffer.  0, or a negative errno (-ETIME: some did not end).
 */
static long uring_cancel_all(struct tracee *t, int fd)
{
	union uring_args args = {
		.cancel.fd = -1,
		.cancel.flags = IORING_ASYNC_CANCEL_ANY,
		.cancel.timeout.tv_nsec = URING_CANCEL_TIMEOUT_NS,
	};
	long ret;

	ret = uring_register(t, fd, IORING_REGISTER_SYNC_CANCEL, &args, 1);
	return ret == -ENOENT || ret >= 0 ? 0 : ret;
}

/* The entry of @res's ring list for descriptor @fd of @pid, made if new. */
static struct pipeline_ring *ring_of(struct pipeline_result *res, pid_t pid,
				     int fd)
{
	struct pipeline_ring *r;
	size_t i;

	for (i = 0; i < res->nrings; i++)
		if (res->rings[i].pid == pid && res->rings[i].fd == fd)
			return &res->rings[i];
	r = realloc(res->rings, (res->nrings + 1) * sizeof(*r));
	if (!r)
		return NULL;
	res->rings = r;
	r += res->nrings++;
	*r = (struct pipeline_ring){ .pid = pid, .fd = fd };
	return r;
}

/*
 * A ring the process has no descriptor of, reached only by an index a
 * thread registered (IORING_REGISTER_RING_FDS), or only through the
 * mappings of its queues (used with SQPOLL after its descriptor was
 * closed): io_uring_register() reaches the first by index only from that
 * very thread, and only from 6.3 on (IORING_REGISTER_USE_REGISTERED_RING),
 * and the second not at all, so neither is acted on: it is a failure the
 * holder keeps its access through.  One the process also has a
 * descriptor of is taken through that.
 */
static bool without_fd(const struct holder_ring *hr,
		       const struct holder_ring *all, size_t n,
		       struct pipeline_result *res, pid_t pid)
{
	const uint32_t no_fd = REVOKE_URING_REGISTERED | REVOKE_URING_MAPPED;
	size_t i;

	if (!(hr->flags & no_fd))
		return false;
	for (i = 0; i < n; i++) {
		if (all[i].ring != hr->ring)
			continue;
		if (!(all[i].flags & no_fd))
			return true;	/* done through its descriptor */
		if (!(hr->flags & REVOKE_URING_REGISTERED) &&
		    (all[i].flags & REVOKE_URING_REGISTERED))
			return true;	/* said once, as registered */
	}
	if (hr->flags & REVOKE_URING_REGISTERED)
		pipeline_fail_kept(res, pid, "io_uring",
				   "ring_registered_%d_by_thread_%d_no_fd",
				   hr->fd, (int)hr->tid);
	else
		pipeline_fail_kept(res, pid, "io_uring", "ring_mapped_no_fd");
	return true;
}

/*
 * Why a walk of a ring's table stopped at a slot or buffer (a record
 * with REVOKE_URING_PARTIAL), as the end of a reason in the report.
 */
static const char *partial_why(uint32_t flags, char *buf, size_t size)
{
	if (flags & REVOKE_URING_UNTOLD)
		return "page_owner_unreadable";
	if (flags & REVOKE_URING_HITS)
		snprintf(buf, size, "over_%u_slots_hold_it", REVOKE_URING_MAX_HITS);
	else
		snprintf(buf, size, "walk_over_%u_steps", REVOKE_URING_MAX_STEPS);
	return buf;
}

/* One record of what a ring holds: take it away, or say why not. */
static void take_one(struct pipeline_result *res, struct tracee *t,
		     const struct holder_ring *hr)
{
	struct pipeline_ring *r;
	char why[48];
	long ret;

	if (hr->kind == REVOKE_HOLDER_RING_UNKNOWN) {
		pipeline_fail_kept(res, t->tgid, "io_uring",
				   "ring_fd_%d_not_inspected", hr->fd);
		return;
	}
	if (!hr->found) {
		pipeline_fail_kept(res, t->tgid, "io_uring",
				   "ring_fd_%d_%s_%u_not_inspected_%s", hr->fd,
				   hr->kind == REVOKE_HOLDER_RING_FILE ? "file" :
				   "buffer", hr->index,
				   partial_why(hr->flags, why, sizeof(why)));
		return;
	}
	if (hr->kind == REVOKE_HOLDER_RING_FILE)
		ret = uring_drop_file(t, hr->fd, hr->index);
	else
		ret = uring_drop_buf(t, hr->fd, hr->index);
	if (ret != 1) {
		pipeline_fail_kept(res, t->tgid, "io_uring", "ring_fd_%d_%s_%u_%s",
				   hr->fd, hr->kind == REVOKE_HOLDER_RING_FILE ?
				   "file" : "buffer", hr->index,
				   ret >= 0 ? "not_updated" : uring_errname(ret));
		return;
	}
	r = ring_of(res, t->tgid, hr->fd);
	if (!r)
		return;	/* done, only not reported */
	if (hr->kind == REVOKE_HOLDER_RING_FILE)
		r->files++;
	else
		r->buffers++;
}

/**
 * pipeline_uring_take() - take a revoked file away from a holder's rings
 * @res: the run's report: each ring acted on goes in @res->rings, each
 *	slot or buffer that stays in @res->fail as a failure that leaves the
 *	holder its access (pipeline_fail_kept())
 * @t: the holder, every thread stopped (tracee_attach())
 * @rings: what its rings hold of the file, found while it was stopped
 * @n: their number
 *
 * Every request in flight on a ring acted on is cancelled afterwards.
 * A ring that another process shares (inherited, or sent over a socket)
 * is emptied for both: the tables belong to the ring, not to a process.
 * A ring the process reaches only through an index a thread registered
 * or only through its mappings is a failure (see without_fd()).
 */
void pipeline_uring_take(struct pipeline_result *res, struct tracee *t,
			 const struct holder_ring *rings, size_t n)
{
	size_t i, first = res->nrings;
	long ret;

	for (i = 0; i < n; i++)
		if (!without_fd(&rings[i], rings, n, res, t->tgid))
			take_one(res, t, &rings[i]);
	/* then what the requests in flight took before */
	for (i = first; i < res->nrings; i++) {
		ret = uring_cancel_all(t, res->rings[i].fd);
		if (ret)
			pipeline_fail_kept(res, t->tgid, "io_uring",
					   "ring_fd_%d_cancel_%s",
					   res->rings[i].fd, uring_errname(ret));
	}
}
