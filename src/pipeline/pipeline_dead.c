// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline_dead.c - the dead file a stopped holder's mappings and
 * descriptors are replaced by: an empty memfd, sealed, made in the
 * holder by injected calls (tracee_syscall.c) and itself revoked, so
 * that the next access to a mapping of it raises SIGBUS and every
 * operation on a descriptor of it fails with EIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "pipeline_run.h"
#include "store/store.h"

/* Run one system call in @t; a failure to run it counts as its result. */
static long sys(struct tracee *t, long nr, unsigned long a0, unsigned long a1,
		unsigned long a2, unsigned long a3, unsigned long a4,
		unsigned long a5)
{
	unsigned long args[6] = { a0, a1, a2, a3, a4, a5 };
	long ret;
	int err;

	err = tracee_syscall(t, nr, args, &ret);
	return err ? err : ret;
}

static bool sys_failed(long ret)
{
	return ret < 0 && ret > -4096;
}


/*
 * Revoke the dead file: every operation on it fails with EIO, and its
 * entry goes away with it (it has no links: see revoke_inode_free).
 */
static int revoke_dead_file(struct pipeline *pl, const struct revoke_key *key)
{
	struct revoke_report dead = { .flags = REVOKE_REPORT_DEAD };
	enum revoke_change change;
	int err;

	err = inode_set_add(pl->rb, key, &change);
	if (!err)
		inode_set_report_set(pl->rb, key, &dead);
	return err;
}

/*
 * Put the dead file's name where the holder's memfd_create() can read
 * it: on the injecting thread's stack below what it uses (what was
 * there is put back by dead_name_restore()), or, if that cannot be
 * written, in a page mapped for it (unmapped by dead_file_close()).
 */
static unsigned long dead_name(struct holder_file *hf, const char *step)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct tracee *t = hf->t;
	unsigned long addr;

	addr = tracee_stack_scratch(t, sizeof(DEAD_NAME));
	if (addr && !tracee_read(t, addr, hf->name_was, sizeof(hf->name_was)) &&
	    !tracee_write(t, addr, DEAD_NAME, sizeof(DEAD_NAME))) {
		hf->name_at = addr;
		return addr;
	}
	hf->scratch = sys(t, arch_nr_mmap, 0, page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sys_failed(hf->scratch)) {
		pipeline_fail(hf->run->res, t->tgid, 0, step, "inject_%s",
		     pipeline_errname(hf->scratch));
		hf->scratch = 0;
		return 0;
	}
	if (tracee_write(t, hf->scratch, DEAD_NAME, sizeof(DEAD_NAME))) {
		pipeline_fail(hf->run->res, t->tgid, 0, step, "memfd_EFAULT");
		return 0;
	}
	return hf->scratch;
}

/*
 * Seal the holder's new memfd empty for good (every page of a mapping of
 * it is past its end) and learn its inode, through our own descriptor of
 * it rather than by injecting more calls.
 */
static int dead_file_seal(struct holder_file *hf)
{
	struct stat st;
	int fd, err = 0;

	fd = (int)syscall(SYS_pidfd_getfd, hf->t->pidfd, (int)hf->mfd, 0);
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    fstat(fd, &st))
		err = -errno;
	else if (revoke_kdev_from_stdev(st.st_dev, &hf->dead.dev))
		err = -EINVAL;
	else
		hf->dead.ino = st.st_ino;
	close(fd);
	return err;
}

/* Put back the bytes of the holder's stack that dead_name() wrote over. */
static void dead_name_restore(struct holder_file *hf)
{
	if (!hf->name_at)
		return;
	if (tracee_write(hf->t, hf->name_at, hf->name_was, sizeof(hf->name_was)))
		pipeline_fail(hf->run->res, hf->t->tgid, 0, "release",
			      "stack_not_restored");
	hf->name_at = 0;
}

/* In the stopped holder, make the dead file once: an empty, sealed memfd. */
static int dead_file_open(struct holder_file *hf, const char *step)
{
	struct tracee *t = hf->t;
	unsigned long name;
	int err;

	if (hf->mfd >= 0)
		return 0;
	name = dead_name(hf, step);
	if (!name)
		return -1;
	hf->mfd = sys(t, arch_nr_memfd_create, name,
		      MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0, 0, 0);
	dead_name_restore(hf);
	if (sys_failed(hf->mfd)) {
		pipeline_fail(hf->run->res, t->tgid, 0, step, "memfd_%s",
		     pipeline_errname(hf->mfd));
		return -1;
	}
	err = dead_file_seal(hf);
	if (err) {
		/* never revoked, so never used: dead_file_revoke() says err */
		hf->dead_err = err;
		pipeline_fail(hf->run->res, t->tgid, 0, step, "memfd_seal_%s",
		     pipeline_errname(err));
		return -1;
	}
	return 0;
}

/*
 * Revoke the dead file, once, as soon as the holder keeps a way to it
 * (mappings of it, which /proc/PID/map_files would reopen, or the
 * descriptors about to be replaced): only after it is mapped, since our
 * own mmap_file hook then refuses to map it.
 */
static int dead_file_revoke(struct holder_file *hf, const char *step)
{
	if (hf->dead_err == 1) {
		hf->dead_err = revoke_dead_file(hf->run->pl, &hf->dead);
		if (hf->dead_err)
			pipeline_fail(hf->run->res, hf->t->tgid, 0, step, "dead_file_%s",
			     pipeline_errname(hf->dead_err));
	}
	return hf->dead_err;
}

/**
 * pipeline_dead_close() - close the dead file in the holder, and unmap
 *	the page its name was written to, if one was mapped
 * @hf: the stopped holder
 */
void pipeline_dead_close(struct holder_file *hf)
{
	const long page = sysconf(_SC_PAGESIZE);

	if (hf->mfd >= 0)
		sys(hf->t, arch_nr_close, hf->mfd, 0, 0, 0, 0, 0);
	if (hf->scratch)
		sys(hf->t, arch_nr_munmap, hf->scratch, page, 0, 0, 0, 0);
}

/**
 * pipeline_dead_map() - map the dead file over every mapping of the file
 * @hf: the stopped holder; its mappings are @hf->h's
 *
 * The remap_file_mappings step of fops_substitute().
 */
void pipeline_dead_map(struct holder_file *hf)
{
	const struct holder_proc *h = hf->h;
	pid_t pid = hf->t->tgid;
	size_t i;
	long r;

	if (!h->nvmas || dead_file_open(hf, "unmap"))
		return;
	for (i = 0; i < h->nvmas; i++) {
		const struct holder_vma *v = &h->vmas[i];

		r = sys(hf->t, arch_nr_mmap, v->start, v->end - v->start,
			v->prot, MAP_SHARED | MAP_FIXED, hf->mfd, 0);
		if ((unsigned long)r == v->start)
			hf->run->res->rep.unmapped++;
		else
			pipeline_fail(hf->run->res, pid, 0, "unmap", "%lx_%s", v->start,
			     r == -EPERM ? "sealed" : pipeline_errname(r));
	}
	dead_file_revoke(hf, "unmap");
}

/**
 * pipeline_dead_dup() - dup3() the dead file over each descriptor
 * @hf: the stopped holder; its descriptors are @hf->h's
 *
 * Only if the run releases (@hf->run->release).
 */
void pipeline_dead_dup(struct holder_file *hf)
{
	const struct holder_proc *h = hf->h;
	size_t i;
	long r;

	if (!hf->run->release || !h->nfds || dead_file_open(hf, "release") ||
	    dead_file_revoke(hf, "release"))
		return;
	for (i = 0; i < h->nfds; i++) {
		r = sys(hf->t, arch_nr_dup3, hf->mfd, h->fds[i],
			h->cloexec[i] ? O_CLOEXEC : 0, 0, 0, 0);
		if (r == h->fds[i])
			hf->run->res->rep.released++;
		else
			pipeline_fail(hf->run->res, hf->t->tgid, 0, "release", "fd_%d_%s",
			     h->fds[i], pipeline_errname(r));
	}
}
