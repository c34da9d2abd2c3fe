// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_ns.c - the processes of a mount namespace whose copy of a
 * filesystem nothing outside can unmount.
 *
 * Any user may make a user and mount namespace (unshare -Urm): the mounts
 * copied into it are locked (MNT_LOCKED), umount2() of one from outside
 * fails with EINVAL, and the copy keeps the filesystem's super_block
 * alive for as long as the namespace lives, that is, as long as a process
 * is in it.  Such processes are holders whose access cannot be taken away
 * otherwise: the policy ends them (pipeline_policy.c), and the namespace
 * and its copy go with the last of them; with --spare each is named as a
 * failure instead.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline_run.h"

/* Is process @pid in mount namespace @ns? */
static bool ns_of(pid_t pid, ino_t ns)
{
	char path[64], link[64], want[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	snprintf(want, sizeof(want), "mnt:[%lu]", (unsigned long)ns);
	return !strcmp(link, want);
}

/* Add process @pid to @set, named by its start time. */
static int ns_add(struct holder_set *set, pid_t pid)
{
	long tck = sysconf(_SC_CLK_TCK);
	struct holder_proc *p;
	char path[64], start[32];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tck <= 0 || procfs_stat_field(path, 22, start, sizeof(start)))
		return 0;	/* gone meanwhile */
	p = realloc(set->procs, (set->nr + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	set->procs = p;
	p += set->nr++;
	memset(p, 0, sizeof(*p));
	p->tgid = pid;
	p->start_boottime = strtoull(start, NULL, 10) *
			    (1000000000ull / (uint64_t)tck);
	return 0;
}

/**
 * pipeline_end_namespace() - the policy for every process in a mount
 *	namespace whose copy of a filesystem is locked
 * @ns: the namespace's inode number
 * @opts: what to do (@opts->spare: name them, do not end them)
 * @res: the report: each process is a failure "umount:
 *	mount_locked_in_namespace", settled when the policy ends it
 *
 * Return: how many processes were in the namespace, or a negative errno.
 */
int pipeline_end_namespace(ino_t ns, const struct pipeline_opts *opts,
			   struct pipeline_result *res)
{
	struct holder_set set = {};
	size_t i, first = res->nfail;
	struct dirent *e;
	int err = 0;
	DIR *proc;
	char *end;
	long pid;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (e = readdir(proc))) {
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || !ns_of(pid, ns))
			continue;
		err = ns_add(&set, (pid_t)pid);
	}
	closedir(proc);
	for (i = 0; !err && i < set.nr; i++) {
		res->rep.holders++;
		pipeline_fail_kept(res, set.procs[i].tgid, "umount",
				   "mount_locked_in_namespace");
	}
	if (!err)
		pipeline_policy_apply(&set, opts->spare, res, first);
	free(set.procs);
	return err ? err : (int)set.nr;
}
