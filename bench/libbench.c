// SPDX-License-Identifier: GPL-2.0
/*
 * libbench - what bracketing a call with fops_read_lock()/fops_read_unlock()
 * costs, against the alternatives, on the host.
 *
 *	libbench [ITERATIONS [ROUNDS]]
 *
 * Every case calls the same no-op read through an operations table, on
 * one file shared by all threads, ITERATIONS times per thread:
 *
 *	bare		the call alone: the table pointer loaded, the call made
 *	librevoke	fops_read_lock(); call; fops_read_unlock()
 *	f_use		an atomic increment and decrement of a shared counter,
 *			what the 2009 series did before its fast path
 *	rwlock		pthread_rwlock_rdlock(); call; pthread_rwlock_unlock()
 *	urcu_call	liburcu's memb flavour, rcu_read_lock() as a library call
 *	urcu_inline	the same, inlined (_LGPL_SOURCE)
 *
 * with 1 and 2 threads.  The cases are interleaved within each round, and
 * each number printed is the median (and min, max) over the rounds of the
 * per-call time, in nanoseconds.  The result is one JSON object on stdout.
 */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu/urcu-memb.h>

#include "revoke.h"

/* The library-call flavour of liburcu, beside the inlined one above. */
#undef urcu_memb_read_lock
#undef urcu_memb_read_unlock
extern void urcu_memb_read_lock(void);
extern void urcu_memb_read_unlock(void);

enum bench_case { BARE, LIBREVOKE, F_USE, RWLOCK, URCU_CALL, URCU_INLINE, NCASES };

static const char *const case_names[NCASES] = {
	"bare", "librevoke", "f_use", "rwlock", "urcu_call", "urcu_inline",
};

#define MAX_THREADS 2
#define MAX_ROUNDS 101

static ssize_t noop_read(struct revoke_file *file, void *buf, size_t len,
			 off_t *pos)
{
	(void)file;
	(void)buf;
	(void)pos;
	return (ssize_t)len;
}

static const struct revoke_file_operations noop_fops = { .read = noop_read };

static struct revoke_inode inode;
static struct revoke_file *file;
static const struct revoke_file_operations *_Atomic bare_fop = &noop_fops;
static atomic_long f_use;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t start;
static long iterations;

struct worker {
	pthread_t thread;
	enum bench_case which;
	double ns_per_call;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Call the table's read through a pointer the compiler cannot fold. */
static inline ssize_t call(const struct revoke_file_operations *fop)
{
	return fop->read(file, NULL, 1, NULL);
}

static void loop_bare(long n)
{
	while (n--)
		call(atomic_load_explicit(&bare_fop, memory_order_acquire));
}

static void loop_librevoke(long n)
{
	const struct revoke_file_operations *fop;
	int idx;

	while (n--) {
		idx = fops_read_lock(file, &fop);
		call(fop);
		fops_read_unlock(file, idx);
	}
}

static void loop_f_use(long n)
{
	while (n--) {
		atomic_fetch_add(&f_use, 1);
		call(atomic_load_explicit(&bare_fop, memory_order_acquire));
		atomic_fetch_sub_explicit(&f_use, 1, memory_order_release);
	}
}

static void loop_rwlock(long n)
{
	while (n--) {
		pthread_rwlock_rdlock(&rwlock);
		call(atomic_load_explicit(&bare_fop, memory_order_acquire));
		pthread_rwlock_unlock(&rwlock);
	}
}

static void loop_urcu_call(long n)
{
	while (n--) {
		urcu_memb_read_lock();
		call(atomic_load_explicit(&bare_fop, memory_order_acquire));
		urcu_memb_read_unlock();
	}
}

static void loop_urcu_inline(long n)
{
	while (n--) {
		_urcu_memb_read_lock();
		call(atomic_load_explicit(&bare_fop, memory_order_acquire));
		_urcu_memb_read_unlock();
	}
}

static void (*const loops[NCASES])(long) = {
	loop_bare, loop_librevoke, loop_f_use, loop_rwlock, loop_urcu_call,
	loop_urcu_inline,
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	double t0;

	urcu_memb_register_thread();
	loops[w->which](iterations / 100);	/* warm up: slot, caches */
	pthread_barrier_wait(&start);
	t0 = now_ns();
	loops[w->which](iterations);
	w->ns_per_call = (now_ns() - t0) / iterations;
	urcu_memb_unregister_thread();
	return NULL;
}

/* One measurement: @nthreads threads run case @which; the mean per call. */
static int measure(enum bench_case which, int nthreads, double *ns)
{
	struct worker w[MAX_THREADS];
	double sum = 0;
	int i, err;

	if (pthread_barrier_init(&start, NULL, nthreads))
		return -1;
	for (i = 0; i < nthreads; i++) {
		w[i].which = which;
		err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "libbench: pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		sum += w[i].ns_per_call;
	}
	pthread_barrier_destroy(&start);
	*ns = sum / nthreads;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print_stats(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("{\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}",
	       v[n / 2], v[0], v[n - 1]);
}

static long parse_arg(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "libbench: %s '%s' is not a number from %ld to %ld\n",
			what, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static double ns[MAX_THREADS + 1][NCASES][MAX_ROUNDS];
	int rounds = 7, r, t, c, err;

	iterations = 20000000;
	if (argc > 1)
		iterations = parse_arg(argv[1], "ITERATIONS", 100, 1000000000);
	if (argc > 2)
		rounds = parse_arg(argv[2], "ROUNDS", 1, MAX_ROUNDS);

	err = revoke_inode_init(&inode, &noop_fops, NULL);
	if (!err)
		err = revoke_file_open(&inode, 0, &file);
	if (err) {
		fprintf(stderr, "libbench: cannot open a librevoke file: %s\n",
			strerror(-err));
		return 1;
	}

	for (r = 0; r < rounds; r++)
		for (t = 1; t <= MAX_THREADS; t++)
			for (c = 0; c < NCASES; c++)
				if (measure(c, t, &ns[t][c][r])) {
					fprintf(stderr, "libbench: pthread_barrier_init failed\n");
					return 1;
				}

	printf("{\"iterations\": %ld, \"rounds\": %d", iterations, rounds);
	for (t = 1; t <= MAX_THREADS; t++) {
		printf(", \"threads_%d\": {", t);
		for (c = 0; c < NCASES; c++) {
			printf("%s\"%s\": ", c ? ", " : "", case_names[c]);
			print_stats(ns[t][c], rounds);
		}
		printf("}");
	}
	printf("}\n");

	revoke_file_put(file);
	revoke_inode_destroy(&inode);
	return 0;
}
