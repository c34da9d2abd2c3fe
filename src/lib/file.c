// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * file.c - revocable files and the objects they refer to, after seeds 004
 * and 005: an inode keeps the list of its open files (i_files) under a
 * mutex; a file has an operations table, a use count (fops_lock.c) and
 * two mode bits, RELEASE (release is still owed) and REVOKED.
 *
 * Release runs exactly once.  It is owed from a successful open (RELEASE
 * is set before the opener leaves the table), and paid by whichever comes
 * first, under f_lock:
 *  - the last revoke_file_put() (frelease), unless the file is REVOKED:
 *    then the substitute owes it;
 *  - fops_substitute(), after every caller has left the old table.
 * The last put unlinks the file from its inode only after frelease, under
 * i_lock, so an inode_fops_substitute() in progress finishes with a file
 * before the file can be freed.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/**
 * revoke_inode_init() - initialise an object that files can be opened on
 * @inode: the object
 * @fop: the table new files get
 * @private: the caller's, see revoke_file_inode()
 *
 * Return: 0, or a negative errno.
 */
int revoke_inode_init(struct revoke_inode *inode,
		      const struct revoke_file_operations *fop, void *private)
{
	if (!inode || !fop)
		return -EINVAL;
	inode->i_files = NULL;
	inode->i_nfiles = 0;
	inode->i_private = private;
	atomic_init(&inode->i_fop, fop);
	return -pthread_mutex_init(&inode->i_lock, NULL);
}

/**
 * revoke_inode_destroy() - free what revoke_inode_init() set up
 * @inode: an object with no open file
 *
 * Return: 0, or -EBUSY if files are still open on it.
 */
int revoke_inode_destroy(struct revoke_inode *inode)
{
	size_t n;

	pthread_mutex_lock(&inode->i_lock);
	n = inode->i_nfiles;
	pthread_mutex_unlock(&inode->i_lock);
	if (n)
		return -EBUSY;
	pthread_mutex_destroy(&inode->i_lock);
	return 0;
}

static void file_add(struct revoke_file *file, struct revoke_inode *inode)
{
	file->f_next = inode->i_files;
	if (file->f_next)
		file->f_next->f_pprev = &file->f_next;
	inode->i_files = file;
	file->f_pprev = &inode->i_files;
	inode->i_nfiles++;
}

/* Take @file off its inode's list (the seed's file_kill). */
static void file_kill(struct revoke_file *file)
{
	struct revoke_inode *inode = file->f_inode;

	pthread_mutex_lock(&inode->i_lock);
	*file->f_pprev = file->f_next;
	if (file->f_next)
		file->f_next->f_pprev = file->f_pprev;
	inode->i_nfiles--;
	pthread_mutex_unlock(&inode->i_lock);
}

static void file_free(struct revoke_file *file)
{
	pthread_mutex_destroy(&file->f_lock);
	free(file);
}

/**
 * revoke_file_open() - open a file on an object
 * @inode: the object
 * @flags: open flags, kept for the operations (check_flags sees them)
 * @filep: the new file, with one reference
 *
 * The file gets the object's current table; its open runs inside the
 * table, and release is owed once it succeeds.  On an object revoked by
 * inode_fops_substitute(), the revoked table's open fails with -EIO.
 *
 * Return: 0, or the negative errno of check_flags or open, or -ENOMEM.
 */
int revoke_file_open(struct revoke_inode *inode, int flags,
		     struct revoke_file **filep)
{
	const struct revoke_file_operations *fop;
	struct revoke_file *file;
	int idx, err = 0;

	if (!inode || !filep)
		return -EINVAL;
	file = calloc(1, sizeof(*file));
	if (!file)
		return -ENOMEM;
	atomic_init(&file->f_count, 1);
	pthread_mutex_init(&file->f_lock, NULL);
	file->f_inode = inode;
	file->f_flags = flags;

	pthread_mutex_lock(&inode->i_lock);
	atomic_init(&file->f_op, atomic_load(&inode->i_fop));
	file_add(file, inode);
	pthread_mutex_unlock(&inode->i_lock);

	idx = fops_read_lock(file, &fop);
	if (fop->check_flags)
		err = fop->check_flags(flags);
	if (!err && fop->open)
		err = fop->open(inode, file);
	if (!err) {
		pthread_mutex_lock(&file->f_lock);
		atomic_fetch_or(&file->f_mode, FMODE_RELEASE);
		pthread_mutex_unlock(&file->f_lock);
	}
	fops_read_unlock(file, idx);
	if (err) {
		file_kill(file);
		file_free(file);
		return err;
	}
	*filep = file;
	return 0;
}

/**
 * revoke_file_get() - take a reference
 * @file: a file the caller holds a reference to
 *
 * Return: @file.
 */
struct revoke_file *revoke_file_get(struct revoke_file *file)
{
	atomic_fetch_add_explicit(&file->f_count, 1, memory_order_relaxed);
	return file;
}

/* The last reference is gone: pay release if it is still owed here. */
static void frelease(struct revoke_file *file)
{
	const struct revoke_file_operations *fop;
	unsigned int mode;
	int idx;

	idx = fops_read_lock(file, &fop);
	pthread_mutex_lock(&file->f_lock);
	mode = atomic_load(&file->f_mode);
	if ((mode & (FMODE_REVOKED | FMODE_RELEASE)) == FMODE_RELEASE)
		atomic_store(&file->f_mode, mode & ~FMODE_RELEASE);
	pthread_mutex_unlock(&file->f_lock);
	if ((mode & (FMODE_REVOKED | FMODE_RELEASE)) == FMODE_RELEASE &&
	    fop->release)
		fop->release(file->f_inode, file);
	fops_read_unlock(file, idx);
}

/**
 * revoke_file_put() - drop a reference; the last one releases and frees
 * @file: the file
 */
void revoke_file_put(struct revoke_file *file)
{
	if (atomic_fetch_sub_explicit(&file->f_count, 1,
				      memory_order_acq_rel) != 1)
		return;
	frelease(file);
	file_kill(file);
	file_free(file);
}

void *revoke_file_private(const struct revoke_file *file)
{
	return atomic_load_explicit(&file->private_data, memory_order_acquire);
}

void revoke_file_set_private(struct revoke_file *file, void *private)
{
	atomic_store_explicit(&file->private_data, private, memory_order_release);
}

struct revoke_inode *revoke_file_inode(const struct revoke_file *file)
{
	return file->f_inode;
}

int revoke_file_flags(const struct revoke_file *file)
{
	return file->f_flags;
}

/**
 * revoke_file_revoked() - has fops_substitute() run on @file?
 * @file: the file
 *
 * Return: true from the moment the substitute table is in place.
 */
bool revoke_file_revoked(const struct revoke_file *file)
{
	return atomic_load_explicit(&file->f_mode, memory_order_acquire) &
	       FMODE_REVOKED;
}

/**
 * fops_substitute() - revoke a file: swap its table, wake, drain, release
 * @file: a file the caller holds a reference to
 * @new_fop: the table every later call goes through (e.g. revoked_file_ops)
 * @remap_file_mappings: called once the table is swapped, to revoke the
 *	file's mappings (NULL: none)
 *
 * Under f_lock the table is swapped and REVOKED set: no caller can reach
 * the old table after that.  Then the mappings hook and the old table's
 * awaken_all_waiters run, the call waits until no caller is inside the
 * old table, runs the old release if it is still owed (exactly once, see
 * the top of this file), and clears the private data.
 *
 * Must not be called from inside an operation of @file.
 *
 * Return: REVOKE_SUBSTITUTED, REVOKE_ALREADY_REVOKED if an earlier call
 * revoked the file (nothing is done), -EINVAL for a NULL argument, or
 * -EDEADLK if the calling thread is inside @file's table.
 */
int fops_substitute(struct revoke_file *file,
		    const struct revoke_file_operations *new_fop,
		    void (*remap_file_mappings)(struct revoke_file *file))
{
	const struct revoke_file_operations *old_fop;
	unsigned int mode;

	if (!file || !new_fop)
		return -EINVAL;
	if (fops_held_by_self(file))
		return -EDEADLK;

	pthread_mutex_lock(&file->f_lock);
	mode = atomic_load(&file->f_mode);
	if (mode & FMODE_REVOKED) {
		pthread_mutex_unlock(&file->f_lock);
		return REVOKE_ALREADY_REVOKED;
	}
	old_fop = atomic_load(&file->f_op);
	atomic_store_explicit(&file->f_op, new_fop, memory_order_release);
	atomic_store(&file->f_mode, mode | FMODE_REVOKED);
	pthread_mutex_unlock(&file->f_lock);

	if (remap_file_mappings)
		remap_file_mappings(file);
	if (old_fop->awaken_all_waiters)
		old_fop->awaken_all_waiters(file);
	fops_wait_for_readers(file);

	pthread_mutex_lock(&file->f_lock);
	mode = atomic_fetch_and(&file->f_mode, ~FMODE_RELEASE);
	pthread_mutex_unlock(&file->f_lock);
	if ((mode & FMODE_RELEASE) && old_fop->release)
		old_fop->release(file->f_inode, file);
	revoke_file_set_private(file, NULL);
	return REVOKE_SUBSTITUTED;
}

/**
 * inode_fops_substitute() - revoke an object: every open file, and every
 *	later open
 * @inode: the object
 * @new_fop: the table its files and later opens get
 * @remap_file_mappings: as for fops_substitute()
 * @substituted: if not NULL, set to the number of files this call revoked
 *
 * Holds i_lock throughout, so operations of the object's files must not
 * open or close files of the same object.
 *
 * Return: 0, or -EINVAL for a NULL argument, or -EDEADLK (nothing done)
 * if the calling thread is inside one of the object's files.
 */
int inode_fops_substitute(struct revoke_inode *inode,
			  const struct revoke_file_operations *new_fop,
			  void (*remap_file_mappings)(struct revoke_file *file),
			  size_t *substituted)
{
	struct revoke_file *file;
	size_t n = 0;
	int err = 0;

	if (!inode || !new_fop)
		return -EINVAL;
	pthread_mutex_lock(&inode->i_lock);
	for (file = inode->i_files; file; file = file->f_next)
		if (fops_held_by_self(file))
			err = -EDEADLK;
	if (!err) {
		atomic_store(&inode->i_fop, new_fop);
		for (file = inode->i_files; file; file = file->f_next)
			if (fops_substitute(file, new_fop, remap_file_mappings) ==
			    REVOKE_SUBSTITUTED)
				n++;
	}
	pthread_mutex_unlock(&inode->i_lock);
	if (substituted)
		*substituted = n;
	return err;
}

/*
 * The call wrappers: each brackets one operation with fops_read_lock()
 * and fops_read_unlock().  A missing operation fails as the VFS fails it.
 */

ssize_t revoke_call_read(struct revoke_file *file, void *buf, size_t len,
			 off_t *pos)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	ssize_t ret = fop->read ? fop->read(file, buf, len, pos) : -EINVAL;

	fops_read_unlock(file, idx);
	return ret;
}

ssize_t revoke_call_write(struct revoke_file *file, const void *buf,
			  size_t len, off_t *pos)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	ssize_t ret = fop->write ? fop->write(file, buf, len, pos) : -EINVAL;

	fops_read_unlock(file, idx);
	return ret;
}

off_t revoke_call_llseek(struct revoke_file *file, off_t offset, int whence)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	off_t ret = fop->llseek ? fop->llseek(file, offset, whence) : -ESPIPE;

	fops_read_unlock(file, idx);
	return ret;
}

/* No poll operation: always ready, as the VFS's DEFAULT_POLLMASK. */
unsigned int revoke_call_poll(struct revoke_file *file)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	unsigned int ret = fop->poll ? fop->poll(file) :
		REVOKE_POLLIN | REVOKE_POLLOUT | REVOKE_POLLRDNORM |
		REVOKE_POLLWRNORM;

	fops_read_unlock(file, idx);
	return ret;
}

long revoke_call_ioctl(struct revoke_file *file, unsigned int cmd,
		       unsigned long arg)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	long ret = fop->ioctl ? fop->ioctl(file, cmd, arg) : -ENOTTY;

	fops_read_unlock(file, idx);
	return ret;
}

int revoke_call_mmap(struct revoke_file *file, void *vma)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	int ret = fop->mmap ? fop->mmap(file, vma) : -ENODEV;

	fops_read_unlock(file, idx);
	return ret;
}

int revoke_call_flush(struct revoke_file *file)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	int ret = fop->flush ? fop->flush(file) : 0;

	fops_read_unlock(file, idx);
	return ret;
}

int revoke_call_fsync(struct revoke_file *file, int datasync)
{
	const struct revoke_file_operations *fop;
	int idx = fops_read_lock(file, &fop);
	int ret = fop->fsync ? fop->fsync(file, datasync) : -EINVAL;

	fops_read_unlock(file, idx);
	return ret;
}
