// SPDX-License-Identifier: GPL-2.0
/*
 * tracee_mem.c - read and write a stopped holder's memory, only where
 * doing so cannot make revoke-bpfd wait on the holder.
 *
 * process_vm_readv() and process_vm_writev() fault the holder's pages in
 * in revoke-bpfd's own thread.  A page of a file mapping that is not in
 * memory is read from its file, and a holder that points its stack (or
 * a poll array) into a mapping of a FUSE file whose server never answers
 * would hold the whole daemon there, uninterruptibly.  So an address is
 * accessed only if every page of it is anonymous memory (the holder's
 * stack, heap, or an anonymous mapping: nothing a user can make a fault
 * wait on, since an unprivileged userfaultfd handles user-mode faults
 * only), or is present in memory now (/proc/PID/pagemap).  Anything else
 * is -EFAULT, which the caller reports (and the policy acts on).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "inject.h"

#define PAGEMAP_PRESENT (1ULL << 63)

/* Are pages @first to @last (page addresses) of @pid all in memory now? */
static bool pages_present(pid_t pid, unsigned long first, unsigned long last,
			  long pagesz)
{
	unsigned long page;
	char path[64];
	uint64_t entry;
	bool ok = true;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (page = first; ok && page <= last; page += pagesz) {
		entry = 0;
		ok = pread(fd, &entry, sizeof(entry),
			   (off_t)(page / (unsigned long)pagesz) * sizeof(entry)) ==
		     sizeof(entry) && (entry & PAGEMAP_PRESENT);
	}
	close(fd);
	return ok;
}

/* The walk of mem_safe(): @next is the first page not yet seen. */
struct mem_walk {
	pid_t pid;
	long pagesz;
	unsigned long mask;
	unsigned long next;
	unsigned long last;
	bool ok;
};

/* procfs_maps() callback: the lines come in address order. */
static int mem_covered(const struct procfs_mapping *m, void *arg)
{
	struct mem_walk *w = arg;

	if (m->end <= w->next)
		return 0;
	if (m->start > w->next)
		return 1;	/* a gap: not mapped */
	if (m->inode)
		w->ok = pages_present(w->pid, w->next,
				      w->last < m->end - 1 ? w->last :
				      (m->end - 1) & w->mask, w->pagesz);
	w->next = m->end;
	return !w->ok || w->next > w->last;
}

/*
 * May @len bytes at @addr of @pid be accessed without waiting on it?
 * One pass over /proc/PID/maps: the mappings must cover the bytes
 * without a gap, and the pages of those with an inode (file mappings)
 * must be in memory.
 */
static bool mem_safe(pid_t pid, unsigned long addr, size_t len)
{
	const long pagesz = sysconf(_SC_PAGESIZE);
	const unsigned long mask = ~(unsigned long)(pagesz - 1);
	struct mem_walk w = { .pid = pid, .pagesz = pagesz, .mask = mask,
			      .next = addr & mask,
			      .last = (addr + len - 1) & mask, .ok = true };

	if (!len || addr + len < addr)
		return false;
	if (procfs_maps(pid, mem_covered, &w) < 0)
		return false;
	return w.ok && w.next > w.last;
}

/**
 * tracee_read() - read a stopped holder's memory
 * @t: a process stopped by tracee_attach()
 * @addr: where, in it
 * @buf: where to
 * @len: how many bytes
 *
 * Return: 0, or -EFAULT if the bytes are not all there, or are in a file
 * mapping's page that is not in memory (see the top of this file).
 */
int tracee_read(struct tracee *t, unsigned long addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	if (!mem_safe(t->tgid, addr, len) ||
	    process_vm_readv(t->tgid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return -EFAULT;
	return 0;
}

/**
 * tracee_write() - write a stopped holder's memory
 * @t: a process stopped by tracee_attach()
 * @addr: where, in it
 * @buf: what
 * @len: how many bytes
 *
 * Return: 0, or -EFAULT as tracee_read().
 */
int tracee_write(struct tracee *t, unsigned long addr, const void *buf,
		 size_t len)
{
	struct iovec local = { (void *)buf, len }, remote = { (void *)addr, len };

	if (!mem_safe(t->tgid, addr, len) ||
	    process_vm_writev(t->tgid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return -EFAULT;
	return 0;
}
