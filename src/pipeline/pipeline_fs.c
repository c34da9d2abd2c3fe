// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_fs.c - the pipeline over a revoked filesystem: every holder of
 * any inode of it, and every thread that stands on it.
 *
 *	1. places: a thread whose current directory is on the filesystem
 *	   (and whose root is not) is moved to its root by an injected
 *	   chdir("/"); a process whose root directory or executable is on
 *	   it cannot be moved off it, and goes to the policy (killed, or a
 *	   failure with --spare);
 *	2. files: each inode held (a descriptor, a mapping, an io_uring
 *	   resource) is handled as pipeline_run() handles one, search after
 *	   search until one finds nothing new;
 *	3. places again: whatever still stands on it is the policy's.
 *
 * The filesystem is in the revoked set already, so no file of it opens
 * any more; a search after the deny finds every file opened before it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "pipeline_run.h"

#define FS_STOP_TIMEOUT_MS 1000
#define FS_FILE_SEARCHES 4

/* The processes of @refs, each once, as a holder set the policy reads. */
static int fs_ref_procs(const struct holder_fsrefs *refs,
			struct holder_set *set)
{
	size_t i, j;

	memset(set, 0, sizeof(*set));
	set->procs = calloc(refs->nr + 1, sizeof(*set->procs));
	if (!set->procs)
		return -ENOMEM;
	for (i = 0; i < refs->nr; i++) {
		for (j = 0; j < set->nr; j++)
			if (set->procs[j].tgid == refs->ref[i].tgid)
				break;
		if (j < set->nr)
			continue;
		set->procs[set->nr].tgid = refs->ref[i].tgid;
		set->procs[set->nr++].start_boottime =
			refs->ref[i].start_boottime;
	}
	return 0;
}

/* Does process @tgid stand on the filesystem as @kind in @refs? */
static bool fs_ref_has(const struct holder_fsrefs *refs, pid_t tgid,
		       uint32_t kind)
{
	size_t i;

	for (i = 0; i < refs->nr; i++)
		if (refs->ref[i].tgid == tgid && refs->ref[i].kind == kind)
			return true;
	return false;
}

/* Is @pid named by a failure already (one the policy spared)? */
static bool fs_failed_before(const struct pipeline_result *res, pid_t pid)
{
	size_t i;

	for (i = 0; i < res->nfail; i++)
		if (res->fail[i].pid == pid && !res->fail[i].settled)
			return true;
	return false;
}

/*
 * Move @p's current directory to its root: chdir("/") injected while every
 * thread is stopped, the "/" written below its stack and put back after.
 * Return 0, or a negative errno with @why set.
 */
static int fs_move_cwd(const struct holder_proc *p, char *why, size_t len)
{
	unsigned long addr, args[6] = {};
	struct tracee t;
	char was[2];
	long ret = 0;
	int pidfd, err;

	pidfd = holder_pidfd(p);
	if (pidfd < 0)
		return 0;	/* it exited, and its cwd with it */
	err = tracee_attach(&t, p->tgid, pidfd, FS_STOP_TIMEOUT_MS, why, len);
	if (err)
		return err == -ESRCH ? 0 : err;
	addr = tracee_stack_scratch(&t, sizeof(was));
	err = -ENOEXEC;
	if (addr && !tracee_read(&t, addr, was, sizeof(was)) &&
	    !tracee_write(&t, addr, "/", 2)) {
		args[0] = addr;
		err = tracee_syscall(&t, SYS_chdir, args, &ret);
		if (!err && ret < 0)
			err = (int)ret;
		if (tracee_write(&t, addr, was, sizeof(was)) && !err)
			err = -EFAULT;
	}
	if (err)
		snprintf(why, len, "chdir_%s", pipeline_errname(err));
	tracee_detach(&t);
	return err;
}

/* fs_move_cwd(), its failure reported and its time counted */
static void fs_move_timed(const struct holder_proc *p,
			  struct pipeline_result *res)
{
	uint64_t t0 = pipeline_now_us();
	char why[48];

	if (fs_move_cwd(p, why, sizeof(why)))
		pipeline_fail_kept(res, p->tgid, "cwd", "%s", why);
	pipeline_note_time(res, p->tgid, pipeline_now_us() - t0);
}

/*
 * One look at what stands on the filesystem: with @move, a current
 * directory is moved; anything else goes to the policy.
 */
static int fs_places(struct pipeline *pl, uint32_t s_dev, bool move,
		     const struct pipeline_opts *opts,
		     struct pipeline_result *res)
{
	struct holder_fsrefs refs;
	struct holder_set set;
	size_t i, first = res->nfail;
	int err;

	err = holders_fsrefs(&pl->holders, s_dev, &refs);
	if (err)
		return err;
	err = fs_ref_procs(&refs, &set);
	for (i = 0; !err && i < set.nr; i++) {
		const struct holder_proc *p = &set.procs[i];

		if (!move && fs_failed_before(res, p->tgid))
			continue;
		res->rep.holders++;
		if (fs_ref_has(&refs, p->tgid, REVOKE_HOLDER_EXE))
			pipeline_fail_kept(res, p->tgid, "exe", "exe_on_fs");
		else if (fs_ref_has(&refs, p->tgid, REVOKE_HOLDER_ROOT))
			pipeline_fail_kept(res, p->tgid, "root", "root_on_fs");
		else if (!move)
			pipeline_fail_kept(res, p->tgid, "cwd", "cwd_on_fs");
		else
			fs_move_timed(p, res);
	}
	if (!err)
		pipeline_policy_apply(&set, opts->spare, res, first);
	free(set.procs);
	holder_fsrefs_free(&refs);
	return err;
}

/* Was @key handled by an earlier search? */
static bool fs_handled(const struct revoke_key *done, size_t ndone,
		       const struct revoke_key *key)
{
	size_t i;

	for (i = 0; i < ndone; i++)
		if (done[i].dev == key->dev && done[i].ino == key->ino)
			return true;
	return false;
}

/*
 * Every file of the filesystem that is held, each handled as
 * pipeline_run() handles one, search after search until one finds no
 * file not handled yet (a holder may have opened one more before the
 * deny, and handed it to a process the search before did not see).
 */
static int fs_files(struct pipeline *pl, uint32_t s_dev,
		    const struct pipeline_opts *opts, uint64_t start,
		    struct pipeline_result *res)
{
	struct revoke_key *done = NULL, *more;
	struct holder_set all;
	size_t i, ndone = 0, fresh;
	int search, err = 0;

	for (search = 0; search < FS_FILE_SEARCHES && !err; search++) {
		err = holders_find_fs(&pl->holders, s_dev, &all);
		if (err)
			break;
		if (!search)
			res->discover_us = pipeline_now_us() - start;
		more = realloc(done, (ndone + all.ninodes + 1) * sizeof(*done));
		if (!more) {
			holder_set_free(&all);
			err = -ENOMEM;
			break;
		}
		done = more;
		for (i = 0, fresh = 0; i < all.ninodes && !err; i++) {
			if (fs_handled(done, ndone, &all.inodes[i]))
				continue;
			done[ndone + fresh++] = all.inodes[i];
			pipeline_yield(pl);
			err = pipeline_passes(pl, &all.inodes[i], opts, start,
					      res);
		}
		ndone += fresh;
		holder_set_free(&all);
		if (!fresh)
			break;
	}
	if (!err && search == FS_FILE_SEARCHES)
		pipeline_fail(res, 0, 0, "rescan", "new_files_after_%d_searches",
			      FS_FILE_SEARCHES);
	free(done);
	return err;
}

/**
 * pipeline_run_fs() - end every existing use of a revoked filesystem
 * @pl: the pipeline
 * @s_dev: the filesystem's super_block's s_dev, already in the revoked
 *	filesystem set
 * @opts: what to do (a forced unmount releases every descriptor)
 * @res: the report, summed over every inode held; free it with
 *	pipeline_result_free()
 *
 * Return: as pipeline_run().
 */
int pipeline_run_fs(struct pipeline *pl, uint32_t s_dev,
		    const struct pipeline_opts *opts,
		    struct pipeline_result *res)
{
	uint64_t start = pipeline_now_us();
	int err;

	memset(res, 0, sizeof(*res));
	if (!pl->ready)
		return -ENOSYS;
	err = fs_places(pl, s_dev, true, opts, res);
	if (!err)
		err = fs_files(pl, s_dev, opts, start, res);
	if (!err)
		err = fs_places(pl, s_dev, false, opts, res);
	pipeline_finish(opts, start, res);
	return err;
}
