// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fops_lock.c - fops_read_lock() and fops_read_unlock(): mark a thread as
 * being inside a file's operations table, cheaply, and let
 * fops_substitute() wait until no thread is.
 *
 * The seed counted callers in the file (f_use) and, in patch 7, skipped
 * the atomic operation when the file had a single owner.  Here no reader
 * ever writes a shared cache line: each thread owns a slot, a small stack
 * of the files it is inside, and publishes a file there before it loads
 * file->f_op.  The writer pays instead:
 *
 *	reader				writer (fops_substitute)
 *	slot->in[d] = file		file->f_op = new
 *	[barrier]			[barrier on every thread: membarrier]
 *	fop = file->f_op		scan every slot for file; wait
 *
 * Either the reader's load sees the new table, or the writer's scan sees
 * the reader.  The reader's barrier is only a compiler barrier: the
 * writer's membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes every
 * running thread execute a full memory barrier, which is what the
 * reader would otherwise need (liburcu's "memb" flavour does the same).
 * Without membarrier (old kernels, seccomp, ThreadSanitizer builds) the
 * readers use a real fence.
 *
 * Slots are never freed: a thread that exits gives its slot back for the
 * next thread, so the writer's scan is bounded by the peak thread count.
 * A thread nested more than REVOKE_NEST deep, or one whose slot cannot be
 * allocated, counts in the file's f_use with an atomic instead.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define REVOKE_NEST 8
#define IDX_SLOT 0
#define IDX_COUNTER 1

#if defined(__SANITIZE_THREAD__)
#define REVOKE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define REVOKE_TSAN 1
#endif
#endif

/**
 * struct reader - one thread's record of the files it is inside
 * @in: the files, innermost last; NULL above @depth
 * @depth: how many entries of @in are used (written by the owner only)
 * @owned: a live thread owns the slot
 * @next: all slots, in the order they were made
 */
struct reader {
	struct revoke_file *_Atomic in[REVOKE_NEST];
	unsigned int depth;
	atomic_bool owned;
	struct reader *_Atomic next;
} __attribute__((aligned(64)));

static struct reader *_Atomic readers;
static pthread_key_t reader_key;
static pthread_once_t reader_once = PTHREAD_ONCE_INIT;
static bool use_membarrier;

static __thread struct reader *self __attribute__((tls_model("initial-exec")));

static void reader_exit(void *arg)
{
	struct reader *r = arg;

	atomic_store_explicit(&r->owned, false, memory_order_release);
}

static void reader_init(void)
{
	pthread_key_create(&reader_key, reader_exit);
#ifndef REVOKE_TSAN
	use_membarrier = syscall(SYS_membarrier,
				 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#endif
}

/* Take a free slot, or make one; NULL if out of memory. */
static struct reader *reader_register(void)
{
	struct reader *r, *head;

	pthread_once(&reader_once, reader_init);
	for (r = atomic_load(&readers); r; r = atomic_load(&r->next)) {
		bool expected = false;

		if (atomic_compare_exchange_strong(&r->owned, &expected, true))
			goto found;
	}
	r = aligned_alloc(64, sizeof(*r));
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	atomic_init(&r->owned, true);
	head = atomic_load(&readers);
	do {
		atomic_store(&r->next, head);
	} while (!atomic_compare_exchange_weak(&readers, &head, r));
found:
	r->depth = 0;
	pthread_setspecific(reader_key, r);
	self = r;
	return r;
}

static inline void reader_barrier(void)
{
	if (use_membarrier)
		atomic_signal_fence(memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
}

/* Publish @file in @r's next free entry; the caller checked there is one. */
static inline void reader_enter(struct reader *r, struct revoke_file *file)
{
	unsigned int d = r->depth;

	atomic_store_explicit(&r->in[d], file, memory_order_relaxed);
	r->depth = d + 1;
	reader_barrier();
}

/*
 * The first call on a thread, or one nested too deep: kept out of line so
 * that the fast path below saves no registers.
 */
static __attribute__((noinline, cold)) int
fops_read_lock_slow(struct revoke_file *file,
		    const struct revoke_file_operations **fop)
{
	struct reader *r = self ? self : reader_register();
	int idx = IDX_SLOT;

	if (r && r->depth < REVOKE_NEST) {
		reader_enter(r, file);
	} else {
		atomic_fetch_add(&file->f_use, 1);
		idx = IDX_COUNTER;
	}
	*fop = atomic_load_explicit(&file->f_op, memory_order_acquire);
	return idx;
}

/**
 * fops_read_lock() - enter a file's operations table
 * @file: the file
 * @fop: set to the table to call through; valid until fops_read_unlock()
 *
 * Until the matching fops_read_unlock(), fops_substitute() on @file waits
 * for this caller.  Calls nest, and must be unlocked in reverse order.
 *
 * Return: the index to pass to fops_read_unlock().
 */
int fops_read_lock(struct revoke_file *file,
		   const struct revoke_file_operations **fop)
{
	struct reader *r = self;

	if (__builtin_expect(!r || r->depth >= REVOKE_NEST, 0))
		return fops_read_lock_slow(file, fop);
	reader_enter(r, file);
	*fop = atomic_load_explicit(&file->f_op, memory_order_acquire);
	return IDX_SLOT;
}

/**
 * fops_read_unlock() - leave a file's operations table
 * @file: the file
 * @idx: what fops_read_lock() returned
 */
void fops_read_unlock(struct revoke_file *file, int idx)
{
	struct reader *r = self;

	if (idx == IDX_SLOT) {
		r->depth--;
		atomic_store_explicit(&r->in[r->depth], NULL, memory_order_release);
	} else {
		atomic_fetch_sub_explicit(&file->f_use, 1, memory_order_release);
	}
}

/* Is the calling thread inside @file's table? */
bool fops_held_by_self(const struct revoke_file *file)
{
	const struct reader *r = self;
	unsigned int i;

	for (i = 0; r && i < r->depth; i++)
		if (atomic_load_explicit(&r->in[i], memory_order_relaxed) == file)
			return true;
	return false;
}

static void barrier_all_threads(void)
{
	if (use_membarrier &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	atomic_thread_fence(memory_order_seq_cst);
}

static bool readers_inside(const struct revoke_file *file)
{
	const struct reader *r;
	int i;

	if (atomic_load_explicit(&file->f_use, memory_order_acquire))
		return true;
	for (r = atomic_load(&readers); r; r = atomic_load(&r->next))
		for (i = 0; i < REVOKE_NEST; i++)
			if (atomic_load_explicit(&r->in[i], memory_order_acquire) ==
			    file)
				return true;
	return false;
}

/**
 * fops_wait_for_readers() - wait until no thread is inside @file's table
 *	as it was before the caller changed file->f_op
 * @file: the file
 *
 * Spins a little, then sleeps with a growing pause, up to 1 ms.
 */
void fops_wait_for_readers(struct revoke_file *file)
{
	struct timespec pause = { 0, 1000 };
	int spins = 0;

	pthread_once(&reader_once, reader_init);
	barrier_all_threads();
	while (readers_inside(file)) {
		if (spins++ < 100) {
			sched_yield();
			continue;
		}
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 1000000)
			pause.tv_nsec *= 2;
	}
}
