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

/*
 * Is page @page (an address, page-aligned) of @pid in a mapping whose
 * inode is 0 (anonymous memory)?  Return 1 if so, 0 if it is in another
 * mapping, -1 if in none.
 */
static int page_anonymous(pid_t pid, unsigned long page)
{
	unsigned long start, end, ino;
	char path[64], line[512];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &start, &end,
			   &ino) != 3 || page < start || page >= end)
			continue;
		ret = ino == 0;
		break;
	}
	fclose(f);
	return ret;
}

/* Is page @page of @pid in memory now? */
static bool page_present(pid_t pid, unsigned long page, long pagesz)
{
	char path[64];
	uint64_t entry = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, &entry, sizeof(entry),
		  (off_t)(page / (unsigned long)pagesz) * sizeof(entry));
	close(fd);
	return n == sizeof(entry) && (entry & PAGEMAP_PRESENT);
}

/* May @len bytes at @addr of @pid be accessed without waiting on it? */
static bool mem_safe(pid_t pid, unsigned long addr, size_t len)
{
	const long pagesz = sysconf(_SC_PAGESIZE);
	unsigned long page, last;
	int anon;

	if (!len || addr + len < addr)
		return false;
	last = (addr + len - 1) & ~(unsigned long)(pagesz - 1);
	for (page = addr & ~(unsigned long)(pagesz - 1); ; page += pagesz) {
		anon = page_anonymous(pid, page);
		if (anon < 0 || (!anon && !page_present(pid, page, pagesz)))
			return false;
		if (page == last)
			return true;
	}
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
