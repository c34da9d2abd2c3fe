// SPDX-License-Identifier: GPL-2.0
/*
 * Race tests for librevoke: worker threads call operations in loops
 * while another thread revokes the file, and the file's last reference
 * is dropped at a random moment, racing with the revocation.  Over every
 * trial:
 *  - no call enters the old table after fops_substitute() or
 *    inode_fops_substitute() returned (the old table's operations check a
 *    flag the substituting thread sets once the call has returned);
 *  - release runs exactly once per file;
 *  - nothing leaks (run under ASan/LSan by make sanitize) and nothing
 *    races (TSan).
 *
 *	race_librevoke [TOTAL_CALLS]	default 1000000
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "revoke.h"
#include "../unit/tap.h"

#define WORKERS 4
#define CALLS_PER_WORKER 250

struct trial {
	struct revoke_inode inode;
	struct revoke_file *file;
	atomic_bool substituted;	/* the substitute call has returned */
	atomic_int releases;
	atomic_long late_calls;		/* old-table calls after that */
	atomic_long calls;
	bool whole_inode;		/* inode_fops_substitute, no reference */
	unsigned int seed;
};

static struct trial *trial_of(struct revoke_file *file)
{
	return (struct trial *)((char *)revoke_file_inode(file) -
				offsetof(struct trial, inode));
}

/*
 * An old-table call: it must neither start nor still be running once the
 * substitute call has returned, so the flag is checked on the way in and,
 * after some work, on the way out.
 */
static void old_call(struct revoke_file *file, unsigned long work)
{
	struct trial *t = trial_of(file);
	volatile unsigned long i;

	if (atomic_load(&t->substituted))
		atomic_fetch_add(&t->late_calls, 1);
	for (i = 0; i < work; i++)
		;
	if (atomic_load(&t->substituted))
		atomic_fetch_add(&t->late_calls, 1);
	atomic_fetch_add(&t->calls, 1);
}

static long old_ioctl(struct revoke_file *file, unsigned int cmd,
		      unsigned long arg)
{
	old_call(file, arg);
	return 0;
}

static ssize_t old_read(struct revoke_file *file, void *buf, size_t len,
			off_t *pos)
{
	old_call(file, 64);
	return (ssize_t)len;
}

static int old_release(struct revoke_inode *inode, struct revoke_file *file)
{
	struct trial *t = (struct trial *)((char *)inode -
					   offsetof(struct trial, inode));

	atomic_fetch_add(&t->releases, 1);
	return 0;
}

static const struct revoke_file_operations old_ops = {
	.ioctl = old_ioctl,
	.read = old_read,
	.release = old_release,
};

static void *worker(void *arg)
{
	struct trial *t = arg;
	struct revoke_file *f = t->file;	/* a reference of our own */
	char c;
	int i;

	for (i = 0; i < CALLS_PER_WORKER; i++) {
		if (i & 1)
			revoke_call_ioctl(f, 0, (unsigned long)(i % 7) * 300);
		else
			revoke_call_read(f, &c, 1, NULL);
	}
	revoke_file_put(f);
	return NULL;
}

static void spin(unsigned int *seed)
{
	volatile int i, n = rand_r(seed) % 20000;

	for (i = 0; i < n; i++)
		;
}

static void *substituter(void *arg)
{
	struct trial *t = arg;

	spin(&t->seed);
	if (t->whole_inode) {
		inode_fops_substitute(&t->inode, &revoked_file_ops, NULL, NULL);
	} else {
		fops_substitute(t->file, &revoked_file_ops, NULL);
		atomic_store(&t->substituted, true);
		revoke_file_put(t->file);
		return NULL;
	}
	atomic_store(&t->substituted, true);
	return NULL;
}

/* Run one trial; return the calls made through the old table. */
static long run_trial(struct trial *t, long *late, int *bad_release)
{
	pthread_t w[WORKERS], s;
	int i;

	revoke_inode_init(&t->inode, &old_ops, NULL);
	if (revoke_file_open(&t->inode, 0, &t->file))
		abort();
	for (i = 0; i < WORKERS; i++)
		revoke_file_get(t->file);
	if (!t->whole_inode)
		revoke_file_get(t->file);	/* the substituter's */
	for (i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, t);
	pthread_create(&s, NULL, substituter, t);
	spin(&t->seed);
	revoke_file_put(t->file);	/* the opener's: may be the last */
	for (i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(s, NULL);
	*late += atomic_load(&t->late_calls);
	if (atomic_load(&t->releases) != 1)
		(*bad_release)++;
	if (revoke_inode_destroy(&t->inode))
		abort();
	return atomic_load(&t->calls);
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 1000000, calls = 0, late = 0;
	long attempted = 0;
	int trials = 0, bad_release = 0;

	while (attempted < total) {
		struct trial *t = calloc(1, sizeof(*t));

		t->whole_inode = trials & 1;
		t->seed = (unsigned int)trials * 2654435761u;
		calls += run_trial(t, &late, &bad_release);
		attempted += WORKERS * CALLS_PER_WORKER;
		trials++;
		free(t);
	}
	printf("# %d trials, %ld calls attempted, %ld reached the old table, "
	       "%ld after substitute returned, %d files released other than once\n",
	       trials, attempted, calls, late, bad_release);
	CHECK("no call enters the old table after substitute returned", late == 0);
	CHECK("release runs exactly once per file, racing with the last close",
	      bad_release == 0);
	CHECK("the races happened: some calls reached the old table and some did not",
	      calls > 0 && calls < attempted);
	return tap_done();
}
