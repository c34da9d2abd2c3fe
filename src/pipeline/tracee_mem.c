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

#include "tracee.h"

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
	unsigned long start, end, ino, next = addr & mask;
	unsigned long last = (addr + len - 1) & mask;
	char path[64], line[512];
	bool ok = true;
	FILE *f;

	if (!len || addr + len < addr)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* the lines come in address order: @next is the first page unseen */
	while (ok && next <= last && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &start, &end,
			   &ino) != 3 || end <= next)
			continue;
		if (start > next)
			break;		/* a gap: not mapped */
		if (ino)
			ok = pages_present(pid, next,
					   last < end - 1 ? last : (end - 1) & mask,
					   pagesz);
		next = end;
	}
	fclose(f);
	return ok && next > last;
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
