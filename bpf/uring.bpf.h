/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uring.bpf.h - find the io_uring instances that keep a target inode
 * after its descriptors and mappings are gone: as a fixed file
 * (IORING_REGISTER_FILES), or through a registered buffer
 * (IORING_REGISTER_BUFFERS) whose pages are the file's page cache.
 * Included by holders.bpf.c, whose task_file iterator calls uring_scan()
 * on every io_uring file it meets, and whose revoke_holder_regrings calls
 * uring_scan_registered() on every thread; each hit is a struct revoke_holder of
 * kind REVOKE_HOLDER_RING_FILE or REVOKE_HOLDER_RING_BUF, naming the
 * ring's descriptor in that process, which src/pipeline/pipeline_uring.c then
 * injects io_uring_register() calls on.
 *
 * The ring is the io_uring file's private_data, a struct io_ring_ctx,
 * whose tables differ between kernels (read from each one's BTF):
 *
 *   6.1, 6.12  ctx->file_table.files[i].file_ptr   (nr_user_files)
 *              ctx->user_bufs[i]                   (nr_user_bufs)
 *   7.2        ctx->file_table.data.nodes[i]->file_ptr
 *              ctx->buf_table.nodes[i]->buf        (.nr each)
 *
 * file_ptr keeps FFS_* flags in its low bits.  A buffer is a struct
 * io_mapped_ubuf whose bvec[] pages (or folios) are looked up by their
 * page->mapping->host.  A kernel where neither layout is found makes a
 * REVOKE_HOLDER_RING_UNKNOWN record for every ring: "not inspected",
 * never a silent pass.  Every walk is bounded (REVOKE_URING_MAX_STEPS);
 * a walk that stops before a table's end says at which slot and why
 * (REVOKE_URING_PARTIAL and a reason).
 */
#ifndef REVOKE_URING_BPF_H
#define REVOKE_URING_BPF_H

#include <bpf/bpf_core_read.h>
#include "revoke_bpf.h"
#include "inode_key.bpf.h"

/* The low bits of a fixed file's file_ptr: FFS_NOWAIT, FFS_ISREG, FFS_SCM */
#define URING_FFS_BITS 7UL
/* page->mapping's low bits: PAGE_MAPPING_ANON, PAGE_MAPPING_MOVABLE */
#define URING_MAPPING_FLAGS 3UL

/*
 * The hits of the walk under way (this CPU's: an iterator runs with
 * migration disabled), kept here by the bpf_loop() steps and written out
 * by uring_walk(): a step cannot reach the iterator's seq_file.
 */
struct uring_hits {
	__u32 n;
	__u32 pad;
	struct {
		__u32 slot;
		__u32 dev;
		__u64 ino;
	} hit[REVOKE_URING_MAX_HITS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uring_hits);
} uring_hits SEC(".maps");

/*
 * Set by revoke-bpfd while it looks for the holders of a file no page of
 * which a registered buffer can hold (holders_walk_buffers()): the
 * buffers of a ring are then not walked at all.
 */
__u32 holder_skip_bufs;

/* 6.1 and 6.12 */
struct io_fixed_file___rvk {
	unsigned long file_ptr;
} __attribute__((preserve_access_index));

struct io_file_table___old {
	struct io_fixed_file___rvk *files;
} __attribute__((preserve_access_index));

struct io_mapped_ubuf___rvk {
	unsigned int nr_bvecs;
	struct bio_vec bvec[];
} __attribute__((preserve_access_index));

struct io_ring_ctx___old {
	struct io_file_table___old file_table;
	unsigned int nr_user_files;
	unsigned int nr_user_bufs;
	struct io_mapped_ubuf___rvk **user_bufs;
} __attribute__((preserve_access_index));

/* 6.13 and later (7.2) */
struct io_rsrc_node___new {
	unsigned long file_ptr;
	struct io_mapped_ubuf___rvk *buf;
} __attribute__((preserve_access_index));

struct io_rsrc_data___new {
	unsigned int nr;
	struct io_rsrc_node___new **nodes;
} __attribute__((preserve_access_index));

struct io_file_table___new {
	struct io_rsrc_data___new data;
} __attribute__((preserve_access_index));

struct io_ring_ctx___new {
	struct io_file_table___new file_table;
	struct io_rsrc_data___new buf_table;
} __attribute__((preserve_access_index));

/* a tail page names its head: compound_head (6.1, 6.12), compound_info */
struct page___head {
	unsigned long compound_head;
} __attribute__((preserve_access_index));

struct page___info {
	unsigned long compound_info;
} __attribute__((preserve_access_index));

/*
 * Which layout this kernel has.  Each is a CO-RE constant at its call
 * site, so the verifier sees the other layout's reads as dead code (a
 * value kept in memory, as in a bpf_loop() callback's state, would not
 * tell it that).
 */
static __always_inline bool uring_old(void)
{
	struct io_ring_ctx___old *o = NULL;

	return bpf_core_field_exists(o->user_bufs) &&
	       bpf_core_field_exists(o->nr_user_files) &&
	       bpf_core_field_exists(o->file_table.files);
}

static __always_inline bool uring_new(void)
{
	struct io_ring_ctx___new *n = NULL;
	struct io_rsrc_data___new *d = NULL;

	return bpf_core_field_exists(n->buf_table) &&
	       bpf_core_field_exists(n->file_table.data) &&
	       bpf_core_field_exists(d->nodes);
}

/*
 * Is @file an io_uring instance?  Its anonymous inode's dentry is named
 * "[io_uring]" by io_uring_get_file() on every kernel here; only the
 * kernel names anonymous inodes.
 */
static __always_inline bool uring_file(struct file *file)
{
	static const char name[] = "[io_uring]";
	char buf[sizeof(name)] = {};
	int i;

	if (bpf_probe_read_kernel(buf, sizeof(buf),
				  BPF_CORE_READ(file, f_path.dentry, d_name.name)))
		return false;
	for (i = 0; i < (int)sizeof(name); i++)
		if (buf[i] != name[i])
			return false;
	return true;
}

/*
 * Is @file, a pointer read from memory, a target?  What target_file()
 * asks of a file the iterator hands over, with every field probe-read.
 */
static __always_inline bool uring_target_file(struct file *file,
					      struct revoke_holder *rec)
{
	struct revoke_rdev_key rk = {};
	struct revoke_key key = {};
	struct inode *inode;
	__u32 fmt;

	if (other_file(file))
		return false;
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode)
		return false;
	inode_key_read(inode, &key);
	if (!target_key(&key, sb_dev_read(inode), rec))
		return true;
	fmt = BPF_CORE_READ(inode, i_mode) & S_IFMT;
	if (fmt == S_IFCHR || fmt == S_IFBLK) {
		rk.rdev = BPF_CORE_READ(inode, i_rdev);
		rk.type = fmt == S_IFCHR ? REVOKE_RDEV_CHAR : REVOKE_RDEV_BLOCK;
		if (bpf_map_lookup_elem(&holder_rdev_targets, &rk)) {
			rec->dev = key.dev;
			rec->ino = key.ino;
			return true;
		}
	}
	file = ovl_real_file_read(file);
	if (!file)
		return false;
	inode = BPF_CORE_READ(file, f_inode);
	inode_key_read(inode, &key);
	return !target_key(&key, sb_dev_read(inode), rec);
}

/*
 * The head page of @page, or NULL if it cannot be told: a tail page
 * keeps its head in compound_head (bit 0 set, the rest the head's
 * address), on 7.2 in compound_info, where the head is either that
 * address or @page masked by it; the one whose compound_info is no
 * tail's is taken.
 */
static __always_inline struct page *uring_head_page(struct page *page)
{
	struct page___head *ph = (void *)page;
	struct page___info *pi = (void *)page, *head;
	unsigned long v;

	if (bpf_core_field_exists(ph->compound_head)) {
		v = BPF_CORE_READ(ph, compound_head);
		return v & 1 ? (struct page *)(v - 1) : page;
	}
	if (!bpf_core_field_exists(pi->compound_info))
		return NULL;
	v = BPF_CORE_READ(pi, compound_info);
	if (!(v & 1))
		return page;
	head = (void *)(v - 1);
	if (head < pi && (unsigned long)pi - (unsigned long)head < (1UL << 30) &&
	    !(BPF_CORE_READ(head, compound_info) & 1))
		return (struct page *)head;
	head = (void *)((unsigned long)pi & (v - 1));
	if (head <= pi && !(BPF_CORE_READ(head, compound_info) & 1))
		return (struct page *)head;
	return NULL;
}

/*
 * The walk of one ring's tables, in bpf_loop() steps.
 *
 * No step may decide anything on what this holds at the walk's start
 * alone: 6.1's verifier checks a bpf_loop() callback once, with the
 * caller's stack as it is at the call, and removes as dead the code that
 * state does not reach (later kernels check it until its state settles).
 * A "buffer read on the step before" kept here was NULL at the call, so
 * on 6.1 every step read the buffer anew and started again at its first
 * page: a walk that never ended, for any buffer without a target's page.
 * So each step reads what it needs from the kernel (values the verifier
 * cannot know), and keeps here only where it is.
 */
struct uring_walk {
	void *ctx;		/* struct io_ring_ctx */
	__u32 nr;		/* slots in the table walked */
	__u32 slot;		/* the next one */
	__u32 bvec;		/* buffers: the next page of slot */
	__u32 why;		/* REVOKE_URING_*: why a slot was not all walked */
	__u32 flags;		/* REVOKE_URING_REGISTERED, or 0 */
	__u32 pad;
	struct revoke_holder rec;
};

/* The walk stops at @w->slot, which it could not walk all of: say why. */
static __always_inline long uring_stop(struct uring_walk *w, __u32 why)
{
	w->why = why;
	return 1;
}

/*
 * Note that @w's slot holds the target in @w->rec; return 0, or 1 (stop
 * there) if there is no room for it.
 */
static __always_inline long uring_hit(struct uring_walk *w)
{
	struct uring_hits *h;
	__u32 zero = 0, n;

	h = bpf_map_lookup_elem(&uring_hits, &zero);
	n = h ? h->n : REVOKE_URING_MAX_HITS;
	if (n >= REVOKE_URING_MAX_HITS)
		return uring_stop(w, REVOKE_URING_HITS);
	h->hit[n].slot = w->slot;
	h->hit[n].dev = w->rec.dev;
	h->hit[n].ino = w->rec.ino;
	h->n = n + 1;
	return 0;
}

static __always_inline struct file *uring_fixed_file(struct uring_walk *w)
{
	struct io_ring_ctx___old *o = w->ctx;
	struct io_ring_ctx___new *n = w->ctx;
	struct io_fixed_file___rvk *files;
	struct io_rsrc_node___new **nodes, *node = NULL;
	unsigned long ptr = 0;
	__u32 slot = w->slot;	/* not in BPF_CORE_READ(): no relocation */

	if (uring_old()) {
		files = BPF_CORE_READ(o, file_table.files);
		ptr = BPF_CORE_READ(files + slot, file_ptr);
	} else if (uring_new()) {
		nodes = BPF_CORE_READ(n, file_table.data.nodes);
		bpf_probe_read_kernel(&node, sizeof(node), nodes + slot);
		ptr = node ? BPF_CORE_READ(node, file_ptr) : 0;
	}
	return (struct file *)(ptr & ~URING_FFS_BITS);
}

/* bpf_loop() step over fixed files, one slot a step. */
static long uring_files_step(__u64 i, void *arg)
{
	struct uring_walk *w = arg;
	struct file *file;

	if (w->slot >= w->nr)
		return 1;
	file = uring_fixed_file(w);
	if (file && uring_target_file(file, &w->rec) && uring_hit(w))
		return 1;
	w->slot++;
	return 0;
}

static __always_inline struct io_mapped_ubuf___rvk *uring_buf(struct uring_walk *w)
{
	struct io_ring_ctx___old *o = w->ctx;
	struct io_ring_ctx___new *n = w->ctx;
	struct io_mapped_ubuf___rvk **bufs, *buf = NULL;
	struct io_rsrc_node___new **nodes, *node = NULL;

	if (uring_old()) {
		bufs = BPF_CORE_READ(o, user_bufs);
		bpf_probe_read_kernel(&buf, sizeof(buf), bufs + w->slot);
		return buf;
	}
	if (!uring_new())
		return NULL;
	nodes = BPF_CORE_READ(n, buf_table.nodes);
	bpf_probe_read_kernel(&node, sizeof(node), nodes + w->slot);
	return node ? BPF_CORE_READ(node, buf) : NULL;
}

/*
 * Is @page (of a registered buffer) a page of a target's page cache?
 * 1 yes, 0 no, -1 its owner cannot be told.
 */
static __always_inline int uring_page_target(struct uring_walk *w,
					     struct page *page)
{
	struct address_space *mapping;
	struct revoke_key key = {};
	struct inode *host;

	if (!page)
		return 0;
	page = uring_head_page(page);
	if (!page)
		return -1;
	mapping = BPF_CORE_READ(page, mapping);
	if (!mapping || ((unsigned long)mapping & URING_MAPPING_FLAGS))
		return 0;	/* anonymous memory, or no file's */
	host = BPF_CORE_READ(mapping, host);
	if (!host)
		return 0;
	inode_key_read(host, &key);
	return !target_key(&key, sb_dev_read(host), &w->rec);
}

/*
 * bpf_loop() step over registered buffers, one page (bvec) a step; a
 * buffer with a target's page is a hit, and the walk goes on at the next
 * buffer.  The buffer and its size are read anew each step (see struct
 * uring_walk).
 */
static long uring_bufs_step(__u64 i, void *arg)
{
	struct uring_walk *w = arg;
	struct io_mapped_ubuf___rvk *buf;
	struct bio_vec *bv;
	__u32 nr_bvecs;
	int target;

	if (w->slot >= w->nr)
		return 1;
	buf = uring_buf(w);
	nr_bvecs = buf ? BPF_CORE_READ(buf, nr_bvecs) : 0;
	if (w->bvec >= nr_bvecs)
		goto next;
	bv = &buf->bvec[w->bvec];	/* not in BPF_CORE_READ(): no relocation */
	target = uring_page_target(w, BPF_CORE_READ(bv, bv_page));
	if (target < 0)
		return uring_stop(w, REVOKE_URING_UNTOLD);
	if (!target) {
		w->bvec++;
		return 0;
	}
	if (uring_hit(w))
		return 1;
next:
	w->bvec = 0;
	w->slot++;
	return 0;
}

/*
 * Walk @w's table with @step and write a record of @kind for each hit, up
 * to REVOKE_URING_MAX_HITS, within REVOKE_URING_MAX_STEPS steps (no step counts
 * them itself: a counter the verifier knows would make it walk the
 * callback once per value); then, if the walk stopped before the table's
 * end, one record with no inode, @start the slot it stopped at and in
 * @prot why (REVOKE_URING_BOUND if the steps ran out).
 */
static __always_inline void uring_walk(struct seq_file *seq,
				       struct uring_walk *w, __u32 kind,
				       long (*step)(__u64, void *))
{
	struct uring_hits *h;
	__u32 zero = 0, i;

	h = bpf_map_lookup_elem(&uring_hits, &zero);
	if (!h)
		return;
	h->n = 0;
	w->slot = 0;
	w->bvec = 0;
	w->why = 0;
	bpf_loop(REVOKE_URING_MAX_STEPS, step, w, 0);
	w->rec.kind = kind;
	w->rec.prot = w->flags;
	for (i = 0; i < REVOKE_URING_MAX_HITS && i < h->n; i++) {
		w->rec.start = h->hit[i].slot;
		w->rec.dev = h->hit[i].dev;
		w->rec.ino = h->hit[i].ino;
		bpf_seq_write(seq, &w->rec, sizeof(w->rec));
	}
	if (w->slot >= w->nr)
		return;
	w->rec.start = w->slot;
	w->rec.prot = w->flags | REVOKE_URING_PARTIAL |
		      (w->why ? w->why : REVOKE_URING_BOUND);
	w->rec.dev = 0;
	w->rec.ino = 0;
	bpf_seq_write(seq, &w->rec, sizeof(w->rec));
}

/* The sizes of @w->ctx's file and buffer tables. */
static __always_inline void uring_sizes(struct uring_walk *w, __u32 *files,
					__u32 *bufs)
{
	struct io_ring_ctx___old *o = w->ctx;
	struct io_ring_ctx___new *n = w->ctx;

	if (uring_old()) {
		*files = BPF_CORE_READ(o, nr_user_files);
		*bufs = BPF_CORE_READ(o, nr_user_bufs);
	} else if (uring_new()) {
		*files = BPF_CORE_READ(n, file_table.data.nr);
		*bufs = BPF_CORE_READ(n, buf_table.nr);
	}
}

/**
 * uring_scan() - report what of the targets the io_uring @file holds
 * @seq: the iterator's output
 * @task: the thread that holds @file
 * @file: an io_uring instance (uring_file())
 * @fd: the process's descriptor of @file; or, with @flags
 *	REVOKE_URING_REGISTERED, the index @task registered it under
 *	(IORING_REGISTER_RING_FDS)
 * @flags: 0 or REVOKE_URING_REGISTERED
 *
 * Writes a struct revoke_holder per fixed-file slot and per registered
 * buffer that holds a target, with @start the slot or buffer index and
 * @end the ring's address (the same ring seen twice); or one
 * REVOKE_HOLDER_RING_UNKNOWN record if this kernel's layout is not known.
 */
static __always_inline void uring_scan(struct seq_file *seq,
				       struct task_struct *task,
				       struct file *file, __u32 fd,
				       __u32 flags)
{
	struct uring_walk w = {};
	__u32 nfiles = 0, nbufs = 0;

	w.ctx = BPF_CORE_READ(file, private_data);
	w.flags = flags;
	w.rec.tgid = BPF_CORE_READ(task, tgid);
	w.rec.start_boottime = BPF_CORE_READ(task, group_leader, start_boottime);
	w.rec.fd = fd;
	w.rec.cloexec = BPF_CORE_READ(task, pid);	/* the thread */
	w.rec.end = (__u64)(unsigned long)w.ctx;
	if (!w.ctx)
		return;
	if (!uring_old() && !uring_new()) {
		w.rec.kind = REVOKE_HOLDER_RING_UNKNOWN;
		w.rec.prot = flags;
		bpf_seq_write(seq, &w.rec, sizeof(w.rec));
		return;
	}
	uring_sizes(&w, &nfiles, &nbufs);
	w.nr = nfiles;
	uring_walk(seq, &w, REVOKE_HOLDER_RING_FILE, uring_files_step);
	if (holder_skip_bufs)
		return;
	w.nr = nbufs;
	uring_walk(seq, &w, REVOKE_HOLDER_RING_BUF, uring_bufs_step);
}

/* struct io_uring_task's registered_rings[] (IO_RINGFD_REG_MAX) */
#define URING_REGISTERED_MAX 16

/* What uring_registered_step() scans: one thread's registered rings. */
struct uring_registered {
	struct seq_file *seq;
	struct task_struct *task;
	struct io_uring_task *tctx;
};

/*
 * bpf_loop() step: uring_scan() registered ring @i.  A step of its own,
 * not a loop: the verifier then checks uring_scan() once, where a loop of
 * URING_REGISTERED_MAX rounds made it check it once a round (a second
 * or more of every start of revoke-bpfd under emulation).
 */
static long uring_registered_step(__u64 i, void *arg)
{
	struct uring_registered *r = arg;
	struct io_uring_task *tctx = r->tctx;
	struct file *file;

	if (i >= URING_REGISTERED_MAX)
		return 1;
	file = BPF_CORE_READ(tctx, registered_rings[i]);
	if (file)
		uring_scan(r->seq, r->task, file, (__u32)i,
			   REVOKE_URING_REGISTERED);
	return 0;
}

/**
 * uring_scan_registered() - uring_scan() the rings @task registered
 * @seq: the iterator's output
 * @task: a thread
 *
 * A ring registered with IORING_REGISTER_RING_FDS is used by index, and
 * may have no descriptor left: the file iterator cannot see it.
 */
static __always_inline void uring_scan_registered(struct seq_file *seq,
						  struct task_struct *task)
{
	struct uring_registered r = { .seq = seq, .task = task };

	if (!bpf_core_field_exists(r.tctx->registered_rings))
		return;
	r.tctx = BPF_CORE_READ(task, io_uring);
	if (!r.tctx)
		return;
	bpf_loop(URING_REGISTERED_MAX, uring_registered_step, &r, 0);
}

#endif /* REVOKE_URING_BPF_H */
