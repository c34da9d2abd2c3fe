// SPDX-License-Identifier: GPL-2.0
/*
 * pause_users.c - which descriptors and mappings of a device are one
 * user's, as the pause hooks decide it (bpf/pause_set.bpf.h), for the
 * pause's wake and drain (pause_wake.c) and for pause --revoke, which
 * runs the whole pipeline (wake, replace the mappings, release) on them
 * alone.
 *
 * A process is the user's when its real or effective uid is the user's,
 * or when it runs under the user's slice (user.slice/user-UID.slice):
 * all its descriptors and mappings of the device are.  In any other
 * process, those whose file the user opened (f_cred, from the holder
 * iterator) are.
 */
#include <stdio.h>
#include <string.h>

#include "pipeline_run.h"

/* Does the line "0::PATH" of /proc/PID/cgroup put @pid under @uid's slice? */
static bool in_slice(pid_t pid, uid_t uid)
{
	char path[64], line[512], slice[64];
	bool in = false;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	n = (size_t)snprintf(slice, sizeof(slice), "0::/user.slice/user-%u.slice",
			     (unsigned int)uid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!in && fgets(line, sizeof(line), f))
		in = !strncmp(line, slice, n) &&
		     (line[n] == '/' || line[n] == '\n');
	fclose(f);
	return in;
}

/**
 * pause_proc_is_users() - is process @pid @uid's: its real or effective
 *	uid, or its slice?
 * @pid: the process
 * @uid: the user
 *
 * Return: true if it is (false if it is gone).
 */
bool pause_proc_is_users(pid_t pid, uid_t uid)
{
	char path[64], line[256];
	unsigned int r, e;
	bool is = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
			is = r == uid || e == uid;
			break;
		}
	}
	fclose(f);
	return is || in_slice(pid, uid);
}

/**
 * pause_cred_is() - was a file opened with @uid's credentials?
 * @c: its f_cred's uids
 * @uid: the user
 *
 * Return: true if its real or effective uid is @uid.
 */
bool pause_cred_is(const struct holder_cred *c, uid_t uid)
{
	return c->uid == uid || c->euid == uid;
}

/**
 * pause_users_fds() - @p's descriptors of the device that are @uid's
 * @p: a holder
 * @uid: the user
 * @whole: the process is the user's (pause_proc_is_users()): all of them
 * @fds: room for @p->nfds descriptors
 *
 * Return: their number.
 */
size_t pause_users_fds(const struct holder_proc *p, uid_t uid, bool whole,
		       int *fds)
{
	size_t i, n = 0;

	for (i = 0; i < p->nfds; i++)
		if (whole || pause_cred_is(&p->cred[i], uid))
			fds[n++] = p->fds[i];
	return n;
}

/* Keep of @p, a process not the user's, what the user opened. */
static void keep_opened(struct holder_proc *p, uid_t uid)
{
	size_t i, n = 0;

	for (i = 0; i < p->nfds; i++) {
		if (!pause_cred_is(&p->cred[i], uid))
			continue;
		p->fds[n] = p->fds[i];
		p->cloexec[n] = p->cloexec[i];
		p->cred[n++] = p->cred[i];
	}
	p->nfds = n;
	for (i = n = 0; i < p->nvmas; i++)
		if (pause_cred_is(&p->vmas[i].cred, uid))
			p->vmas[n++] = p->vmas[i];
	p->nvmas = n;
	/* a ring's slot names no opener: the ring's owner's, not the user's */
	p->nrings = 0;
}

/**
 * pause_keep_users() - keep in @set only what is @uid's: the processes
 *	that are the user's, whole, and of the others the descriptors and
 *	mappings the user opened; a process left with nothing goes
 * @set: holders found (holders_find(), holders_scan())
 * @uid: the user
 */
void pause_keep_users(struct holder_set *set, uid_t uid)
{
	size_t i, n = 0;

	set->nfds = set->nvmas = set->nrings = 0;
	for (i = 0; i < set->nr; i++) {
		struct holder_proc *p = &set->procs[i];

		if (!pause_proc_is_users(p->tgid, uid))
			keep_opened(p, uid);
		if (!p->nfds && !p->nvmas && !p->nrings) {
			holder_proc_free(p);
			continue;
		}
		set->nfds += p->nfds;
		set->nvmas += p->nvmas;
		set->nrings += p->nrings;
		set->procs[n++] = *p;
	}
	set->nr = n;
}

/**
 * pipeline_pause_revoke() - pause --revoke: after the pause's deny, end
 *	every use of a device by one user, as add --rdev does for everyone
 * @pl: the pipeline
 * @key: the device, already paused for @uid (the hooks deny first)
 * @uid: the user
 * @res: what was found and done; free it with pipeline_result_free()
 *
 * The pipeline (pipeline_run_rdev()) over the user's descriptors and
 * mappings only (pause_keep_users()): their blocked threads woken, their
 * mappings replaced (the next access raises SIGBUS), their descriptors
 * released.  Other users', and root's, are not touched.  A holder whose
 * access could not be taken away is spared and named: a pause ends no
 * process.
 *
 * Return: as pipeline_run_rdev().
 */
int pipeline_pause_revoke(struct pipeline *pl, const struct revoke_rdev_key *key,
			  uid_t uid, struct pipeline_result *res)
{
	struct pipeline_opts opts = {
		.release = REVOKE_RELEASE_YES,
		.timeout_ms = PIPELINE_TIMEOUT_DEFAULT_MS,
		.spare = true,
		.one_user = true,
		.uid = uid,
	};

	return pipeline_run_rdev(pl, key, &opts, res);
}
