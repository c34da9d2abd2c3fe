// SPDX-License-Identifier: GPL-2.0
/*
 * fs_release.c - release what fs_pins_find() found, in the order the
 * kernel lets go of it:
 *
 *  1. swapoff each swap file, in the namespace where its path was read
 *     (a swap area holds its file open, so the mount would stay busy);
 *  2. LOOP_CLR_FD each loop device backed by a file on it that has
 *     nothing mounted from it (a bound loop device holds its backing file
 *     open too); one with a filesystem mounted from it is left, reported
 *     EBUSY with that filesystem: the caller releases that one first;
 *  3. in each namespace, innermost first, umount2(UMOUNT_NOFOLLOW) of the
 *     mounts below the filesystem and then of the filesystem's own,
 *     never MNT_DETACH: a mount still in use fails with EBUSY (after
 *     half a second of retries) and stays,
 *     and one whose namespace's owner locked it (MNT_LOCKED, in a mount
 *     namespace that a user namespace owns) fails with EINVAL.  Just
 *     before each umount2() the namespace's mountinfo is read again: a
 *     mount that propagation (or anyone) took already is reported gone.
 *     The mount point's directory is reached without following a
 *     symbolic link (a link put on the way since fails with ELOOP), and
 *     the mount point is unmounted by its last component from there.
 *
 * Steps 1 and 3 run in a forked child per namespace (setns), which makes
 * system calls only and answers one int per step through a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/common.h"
#include "umount.h"

/* EBUSY retries of one umount2() (0.5 s in all) */
#define BUSY_TRIES 10
#define BUSY_WAIT_US 50000

#define GONE (-1)

/* One request to a namespace's child. */
struct req {
	enum fs_pins_step_kind kind;
	const char *path;
	int id;
};

struct job {
	const struct req *req;
	size_t nr;
	int procfd;
};

/* Is mount @id in the reader's mountinfo? 1, 0 or a negative errno. */
static int mount_present(int procfd, int id)
{
	bool start = true, num = false;
	int fd, found = 0;
	char buf[4096];
	long v = 0;
	ssize_t n, i;

	fd = openat(procfd, "self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && !found) {
		for (i = 0; i < n; i++) {
			if (start) {
				v = 0;
				num = true;
				start = false;
			}
			if (buf[i] == '\n') {
				start = true;
				continue;
			}
			if (!num)
				continue;
			if (buf[i] >= '0' && buf[i] <= '9') {
				v = v * 10 + (buf[i] - '0');
				continue;
			}
			num = false;
			if (v == id)
				found = 1;
		}
	}
	if (n < 0)
		found = -errno;
	close(fd);
	return found;
}

/*
 * Make the directory that holds @path's last component the cwd, found
 * without following a symbolic link (RESOLVE_NO_SYMLINKS), so that a
 * directory on the way that someone replaced with a link since
 * mountinfo was read cannot send the umount to another mount; *@base is
 * then the last component.  The cwd pins the parent's mount only (not
 * the one below it); the caller goes back to / after the step.
 */
static int enter_parent(const char *path, const char **base)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t n;
	int fd, err = 0;

	if (!slash || path[0] != '/')
		return EINVAL;
	n = (size_t)(slash - path);
	if (n >= sizeof(dir))
		return ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n ? n : 1] = '\0';
	if (!n)
		dir[0] = '/';
	fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd < 0)
		return errno;
	if (fchdir(fd))
		err = errno;
	close(fd);
	*base = slash + 1;
	return err;
}

static int umount_once(const struct req *q, int procfd)
{
	const char *base;
	int present, err;

	present = mount_present(procfd, q->id);
	if (present < 0)
		return -present;
	if (!present)
		return GONE;
	if (!strcmp(q->path, "/"))
		return umount2("/", UMOUNT_NOFOLLOW) ? errno : 0;
	err = enter_parent(q->path, &base);
	if (!err && umount2(base, UMOUNT_NOFOLLOW))
		err = errno;
	if (chdir("/") && !err)
		err = errno;
	return err;
}

/*
 * A mount still busy right after the pipeline may be a reference on its
 * way out (a holder just let go drops what it closed or unmapped only
 * once it runs again, a deferred fput(); a killed one once it has
 * exited): EBUSY is tried again, mountinfo read anew each time,
 * BUSY_TRIES times BUSY_WAIT_US apart.
 */
static int do_umount(const struct req *q, int procfd)
{
	int i, err;

	for (i = 0; (err = umount_once(q, procfd)) == EBUSY && i < BUSY_TRIES; i++)
		usleep(BUSY_WAIT_US);
	return err;
}

static int do_req(const struct req *q, int procfd)
{
	if (q->kind == FS_PINS_SWAPOFF)
		return swapoff(q->path) ? errno : 0;
	return do_umount(q, procfd);
}

/* An fs_ns_fn: each request, its result (an int) written to @out. */
static int job_run(void *arg, int out)
{
	const struct job *j = arg;
	size_t i;
	int res;

	for (i = 0; i < j->nr; i++) {
		res = do_req(&j->req[i], j->procfd);
		if (write(out, &res, sizeof(res)) != sizeof(res))
			return EIO;
	}
	return 0;
}

static struct fs_pins_step *new_step(struct fs_pins_report *r,
				     enum fs_pins_step_kind kind,
				     const char *path)
{
	struct fs_pins_step *s = realloc(r->step, (r->nr + 1) * sizeof(*s));

	if (!s)
		return NULL;
	r->step = s;
	s = &s[r->nr];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->path = strdup(path);
	if (!s->path)
		return NULL;
	r->nr++;
	return s;
}

/* Run the requests @q (for the steps from @first on) in namespace @ns. */
static void run_job(const struct fs_ns *ns, struct req *q, size_t nr,
		    struct fs_pins_report *r, size_t first)
{
	struct job j = { q, nr, open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC) };
	char *out = NULL;
	size_t len = 0, i;
	int err, res;

	err = j.procfd < 0 ? -errno : fs_ns_run(ns, job_run, &j, &out, &len);
	if (j.procfd >= 0)
		close(j.procfd);
	for (i = 0; i < nr; i++) {
		struct fs_pins_step *s = &r->step[first + i];

		s->ns_ino = ns->ino;
		s->pid = ns->pid;
		if (err || len < (i + 1) * sizeof(res)) {
			s->err = err ? -err : EIO;
			continue;
		}
		memcpy(&res, out + i * sizeof(res), sizeof(res));
		s->gone = res == GONE;
		s->err = res == GONE ? 0 : res;
	}
	free(out);
}

static int swapoffs(struct fs_pins *p, struct fs_pins_report *r)
{
	struct req q;
	size_t i;

	for (i = 0; i < p->nr_swap; i++) {
		q = (struct req){ FS_PINS_SWAPOFF, p->swap[i].path, 0 };
		if (!new_step(r, FS_PINS_SWAPOFF, q.path))
			return -ENOMEM;
		run_job(&p->ns[p->swap[i].ns], &q, 1, r, r->nr - 1);
	}
	return 0;
}

static int detaches(struct fs_pins *p, struct fs_pins_report *r)
{
	struct fs_pins_step *s;
	char node[32];
	size_t i;
	int err;

	for (i = 0; i < p->nr_loop; i++) {
		snprintf(node, sizeof(node), "/dev/loop%u", p->loop[i].n);
		s = new_step(r, FS_PINS_DETACH, node);
		if (!s)
			return -ENOMEM;
		s->dev = p->loop[i].rdev;
		if (p->loop[i].mounted) {
			s->err = EBUSY;
			continue;
		}
		err = fs_loops_detach(p->loop[i].n);
		s->gone = err == -ENXIO;
		s->err = err && err != -ENXIO ? -err : 0;
	}
	return 0;
}

static int umounts(struct fs_pins *p, struct fs_pins_report *r)
{
	struct req *q = calloc(p->nr_mnt + 1, sizeof(*q));
	struct fs_pins_step *s;
	size_t i, start, first;

	if (!q)
		return -ENOMEM;
	for (start = 0; start < p->nr_mnt; start = i) {
		first = r->nr;
		for (i = start; i < p->nr_mnt && p->mnt[i].ns == p->mnt[start].ns;
		     i++) {
			s = new_step(r, FS_PINS_UMOUNT, p->mnt[i].path);
			if (!s) {
				free(q);
				return -ENOMEM;
			}
			s->dev = p->mnt[i].dev;
			s->submount = p->mnt[i].submount;
			q[i - start] = (struct req){ FS_PINS_UMOUNT,
						     p->mnt[i].path,
						     p->mnt[i].id };
		}
		run_job(&p->ns[p->mnt[start].ns], q, i - start, r, first);
	}
	free(q);
	return 0;
}

/**
 * fs_release() - release what pins the filesystem: swapoff, LOOP_CLR_FD,
 *	umount2() innermost first in each namespace (see the file's comment)
 * @p: from fs_pins_find()
 * @r: what was done (fs_release_report_free() it, whatever the return)
 *
 * Every step is tried even when one before it failed, so that the report
 * names every holder that remains.
 *
 * Return: 0 if every step was done (or found done already), -EBUSY if
 * some failed (@r says which and why), -ENOMEM.
 */
int fs_release(struct fs_pins *p, struct fs_pins_report *r)
{
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	err = swapoffs(p, r);
	if (!err)
		err = detaches(p, r);
	if (!err)
		err = umounts(p, r);
	if (err)
		return err;
	for (i = 0; i < r->nr; i++)
		r->failed += r->step[i].err != 0;
	return r->failed ? -EBUSY : 0;
}

/**
 * fs_release_swaps() - step 1 alone: swapoff each swap file on it
 * @p: what fs_pins_find() found; its swap files are forgotten after, so
 *	that fs_release() does not turn them off again
 * @r: the report, as fs_release()'s (steps of that kind only)
 *
 * For a caller that must turn swap off before it revokes the filesystem:
 * swapoff(2) opens the file by its name, which the revocation denies.
 *
 * Return: 0, -EBUSY if a step failed, or -ENOMEM.
 */
int fs_release_swaps(struct fs_pins *p, struct fs_pins_report *r)
{
	size_t i;
	int err;

	memset(r, 0, sizeof(*r));
	err = swapoffs(p, r);
	for (i = 0; i < p->nr_swap; i++)
		free(p->swap[i].path);
	free(p->swap);
	p->swap = NULL;
	p->nr_swap = 0;
	if (err)
		return err;
	for (i = 0; i < r->nr; i++)
		r->failed += r->step[i].err != 0;
	return r->failed ? -EBUSY : 0;
}

/**
 * fs_release_report_free() - free a report
 * @r: from fs_release()
 */
void fs_release_report_free(struct fs_pins_report *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		free(r->step[i].path);
	free(r->step);
	memset(r, 0, sizeof(*r));
}

static const char *const step_words[] = {
	[FS_PINS_SWAPOFF] = "swapoff",
	[FS_PINS_DETACH] = "detach",
	[FS_PINS_UMOUNT] = "umount",
};

/**
 * fs_release_print() - what fs_release() did, one line a step:
 *	"unpin step=swapoff|umount ns=INO pid=PID path=P [dev=M:N
 *	submount=yes|no] result=done|gone|failed [reason=ENAME]" and
 *	"unpin step=detach rdev=M:N path=/dev/loopN result=...
 *	[mounted=M:N]" (paths percent-encoded)
 * @resp: the answer
 * @p: what fs_pins_find() found (for the loops' mounted filesystems)
 * @r: the report
 */
void fs_release_print(struct rbuf *resp, const struct fs_pins *p,
		      const struct fs_pins_report *r)
{
	const struct fs_pins_step *s;
	char path[3 * 4096], where[96], extra[64];
	size_t i, k;

	for (i = 0; i < r->nr; i++) {
		s = &r->step[i];
		if (revoke_pct_encode(s->path, path, sizeof(path)) < 0)
			strcpy(path, "%3F");
		where[0] = extra[0] = '\0';
		if (s->kind == FS_PINS_DETACH)
			snprintf(where, sizeof(where), REVOKE_FIELD_RDEV "=%u:%u ",
				 major(s->dev), minor(s->dev));
		else
			snprintf(where, sizeof(where), REVOKE_FIELD_NS "=%lu "
				 REVOKE_FIELD_PID "=%d ",
				 (unsigned long)s->ns_ino, s->pid);
		if (s->kind == FS_PINS_UMOUNT)
			snprintf(extra, sizeof(extra), " " REVOKE_FIELD_DEV
				 "=%u:%u " REVOKE_FIELD_SUBMOUNT "=%s",
				 major(s->dev), minor(s->dev),
				 s->submount ? "yes" : "no");
		for (k = 0; s->kind == FS_PINS_DETACH && k < p->nr_loop; k++)
			if (p->loop[k].rdev == s->dev && p->loop[k].mounted)
				snprintf(extra, sizeof(extra), " "
					 REVOKE_FIELD_MOUNTED "=%u:%u",
					 major(p->loop[k].mounted_dev),
					 minor(p->loop[k].mounted_dev));
		rbuf_printf(resp, REVOKE_LINE_UNPIN " " REVOKE_FIELD_STEP "=%s "
			    "%s" REVOKE_FIELD_PATH "=%s%s "
			    REVOKE_FIELD_RESULT "=%s%s%s\n",
			    step_words[s->kind], where, path, extra,
			    s->err ? "failed" : s->gone ? "gone" : "done",
			    s->err ? " " REVOKE_FIELD_REASON "=" : "",
			    s->err ? strerrorname_np(s->err) ?: "EIO" : "");
	}
}
