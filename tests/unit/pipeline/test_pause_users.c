// SPDX-License-Identifier: GPL-2.0
/*
 * test_pause_users.c - what pause --revoke acts on (pause_keep_users(),
 * src/pipeline/pause_users.c): of a process that is the user's,
 * everything; of another, only the descriptors and mappings the user
 * opened (f_cred), never its io_uring records; a process left with
 * nothing of the user's is dropped.  Needs no root: the processes are
 * this one and its parent, read in /proc.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline_run.h"
#include "tap.h"

#define OTHER 4242	/* a uid neither process has */

static void *dup_mem(const void *p, size_t n)
{
	void *c = malloc(n);

	if (c)
		memcpy(c, p, n);
	return c;
}

/* A holder @tgid: fds 3 (the caller's @own cred) and 4 (OTHER's), two
 * mappings likewise, and one io_uring record. */
static void make_proc(struct holder_proc *p, pid_t tgid, uid_t own)
{
	const int fds[] = { 3, 4 };
	const bool cloexec[] = { false, true };
	const struct holder_cred cred[] = { { own, own }, { 1, OTHER } };
	const struct holder_vma vmas[] = {
		{ .start = 0x1000, .end = 0x2000, .cred = { own, own } },
		{ .start = 0x3000, .end = 0x4000, .cred = { OTHER, 1 } },
	};
	const struct holder_ring ring = { .fd = 9, .found = true };

	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->fds = dup_mem(fds, sizeof(fds));
	p->cloexec = dup_mem(cloexec, sizeof(cloexec));
	p->cred = dup_mem(cred, sizeof(cred));
	p->nfds = 2;
	p->vmas = dup_mem(vmas, sizeof(vmas));
	p->nvmas = 2;
	p->rings = dup_mem(&ring, sizeof(ring));
	p->nrings = 1;
}

static void make_set(struct holder_set *set, uid_t own2)
{
	memset(set, 0, sizeof(*set));
	set->procs = calloc(2, sizeof(*set->procs));
	make_proc(&set->procs[0], getpid(), getuid());
	make_proc(&set->procs[1], getppid(), own2);
	set->nr = 2;
}

int main(void)
{
	struct holder_set set;

	/* the user of this process: all of it, whatever opened what */
	make_set(&set, getuid());
	pause_keep_users(&set, getuid());
	CHECK("a process whose uid is the user's is kept whole",
	      set.nr >= 1 && set.procs[0].tgid == getpid() &&
	      set.procs[0].nfds == 2 && set.procs[0].nvmas == 2 &&
	      set.procs[0].nrings == 1);
	holder_set_free(&set);

	/* another user: in these processes, only what that user opened */
	make_set(&set, OTHER);
	pause_keep_users(&set, OTHER);
	CHECK("in a process not the user's, only the descriptor the user opened",
	      set.nr == 2 && set.procs[0].nfds == 1 && set.procs[0].fds[0] == 4 &&
	      set.procs[0].cloexec[0] && set.procs[0].cred[0].euid == OTHER);
	CHECK("... and the mapping it opened (by its real or effective uid)",
	      set.procs[0].nvmas == 1 && set.procs[0].vmas[0].start == 0x3000);
	CHECK("... and none of its io_uring records (they name no opener)",
	      set.procs[0].nrings == 0);
	CHECK("the set's totals are what was kept",
	      set.nfds == 3 && set.nvmas == 3 && set.nrings == 0);
	holder_set_free(&set);

	/* a uid that opened nothing there: nothing is left */
	make_set(&set, getuid());
	pause_keep_users(&set, OTHER + 1);
	CHECK("a process with nothing of the user's is dropped",
	      set.nr == 0 && set.nfds == 0 && set.nvmas == 0);
	holder_set_free(&set);
	return tap_done();
}
