// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * revoked_ops.c - the generic revoked operations (seed 008's
 * fs/revoked_file.c): what a file does once fops_substitute() has put
 * them in place.  Reads see end of file, poll reports every condition
 * with an error, flush and release succeed, and everything else fails
 * with EIO.  revoked_file_ops_eio differs only in its read, which fails
 * with EIO too, as the BPF enforcer, BSD revoke(2) and procfs do.
 */
#include <errno.h>

#include "internal.h"

static off_t revoked_file_llseek(struct revoke_file *file, off_t offset,
				 int whence)
{
	return -EIO;
}

static ssize_t revoked_file_read(struct revoke_file *file, void *buf,
				 size_t len, off_t *pos)
{
	return 0;
}

static ssize_t revoked_file_read_eio(struct revoke_file *file, void *buf,
				     size_t len, off_t *pos)
{
	return -EIO;
}

static ssize_t revoked_file_write(struct revoke_file *file, const void *buf,
				  size_t len, off_t *pos)
{
	return -EIO;
}

static int revoked_file_readdir(struct revoke_file *file, void *dirent)
{
	return -EIO;
}

static unsigned int revoked_file_poll(struct revoke_file *file)
{
	return REVOKE_POLLIN | REVOKE_POLLOUT | REVOKE_POLLERR |
	       REVOKE_POLLRDNORM | REVOKE_POLLWRNORM;
}

static long revoked_file_ioctl(struct revoke_file *file, unsigned int cmd,
			       unsigned long arg)
{
	return -EIO;
}

static int revoked_file_mmap(struct revoke_file *file, void *vma)
{
	return -EIO;
}

static int revoked_file_open(struct revoke_inode *inode,
			     struct revoke_file *file)
{
	return -EIO;
}

static int revoked_file_flush(struct revoke_file *file)
{
	return 0;
}

static int revoked_file_release(struct revoke_inode *inode,
				struct revoke_file *file)
{
	return 0;
}

static int revoked_file_fsync(struct revoke_file *file, int datasync)
{
	return -EIO;
}

static int revoked_file_fasync(int fd, struct revoke_file *file, int on)
{
	return -EIO;
}

static int revoked_file_lock(struct revoke_file *file, int cmd, void *fl)
{
	return -EIO;
}

static ssize_t revoked_file_sendpage(struct revoke_file *file, void *page,
				     int off, size_t len, off_t *pos, int more)
{
	return -EIO;
}

static unsigned long revoked_file_get_unmapped_area(struct revoke_file *file,
						    unsigned long addr,
						    unsigned long len,
						    unsigned long pgoff,
						    unsigned long flags)
{
	return (unsigned long)-EIO;
}

static int revoked_file_check_flags(int flags)
{
	return -EIO;
}

static ssize_t revoked_file_splice_write(void *pipe, struct revoke_file *out,
					 off_t *pos, size_t len,
					 unsigned int flags)
{
	return -EIO;
}

static ssize_t revoked_file_splice_read(struct revoke_file *in, off_t *pos,
					void *pipe, size_t len,
					unsigned int flags)
{
	return -EIO;
}

/* The two tables differ only in read: end of file, or EIO. */
#define REVOKED_FILE_OPS(read_fn) {					\
	.llseek			= revoked_file_llseek,			\
	.read			= read_fn,				\
	.write			= revoked_file_write,			\
	.readdir		= revoked_file_readdir,			\
	.poll			= revoked_file_poll,			\
	.ioctl			= revoked_file_ioctl,			\
	.mmap			= revoked_file_mmap,			\
	.open			= revoked_file_open,			\
	.flush			= revoked_file_flush,			\
	.release		= revoked_file_release,			\
	.fsync			= revoked_file_fsync,			\
	.fasync			= revoked_file_fasync,			\
	.lock			= revoked_file_lock,			\
	.flock			= revoked_file_lock,			\
	.sendpage		= revoked_file_sendpage,		\
	.get_unmapped_area	= revoked_file_get_unmapped_area,	\
	.check_flags		= revoked_file_check_flags,		\
	.splice_write		= revoked_file_splice_write,		\
	.splice_read		= revoked_file_splice_read,		\
}

const struct revoke_file_operations revoked_file_ops =
	REVOKED_FILE_OPS(revoked_file_read);
const struct revoke_file_operations revoked_file_ops_eio =
	REVOKED_FILE_OPS(revoked_file_read_eio);
