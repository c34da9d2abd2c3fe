/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * revoke.h - librevoke: revocable handles for user-space programs, with
 * the semantics of the 2009 VFS series "file descriptor hot-unplug
 * support" (fops_substitute, fops_read_lock, revoked_file_ops).
 *
 * A program that hands out handles to objects that can vanish (a device
 * server, a FUSE/CUSE server, a plugin host) makes each handle a struct
 * revoke_file with an operations table, and calls every operation through
 * the revoke_call_*() wrappers, which bracket it with fops_read_lock() /
 * fops_read_unlock().  When the object goes away, fops_substitute()
 * swaps in a revoked table: no caller reaches the old table after it
 * returns, blocked callers are woken, and the old release runs exactly
 * once.  inode_fops_substitute() does it for every handle of an object
 * and for every later open.
 *
 * Thread safety: every function may be called from any thread.  Readers
 * write only their own thread's slot (no shared cache line is written on
 * the fast path); fops_substitute() pays instead, with one membarrier(2)
 * and a scan of the threads that use the library.
 *
 * See librevoke(3) for each function, and examples/revoke_example.c.
 */
#ifndef REVOKE_H
#define REVOKE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct revoke_file;
struct revoke_inode;

/* poll() results, the same bits as <poll.h> */
#define REVOKE_POLLIN     0x001
#define REVOKE_POLLOUT    0x004
#define REVOKE_POLLERR    0x008
#define REVOKE_POLLRDNORM 0x040
#define REVOKE_POLLWRNORM 0x100

/**
 * struct revoke_file_operations - what a handle does (the seed's
 *	struct file_operations).  Any member may be NULL: calling it then
 *	returns -EINVAL (-ENOTTY for ioctl), as the VFS does.  Operations
 *	return a negative errno on failure.
 */
struct revoke_file_operations {
	off_t (*llseek)(struct revoke_file *file, off_t offset, int whence);
	ssize_t (*read)(struct revoke_file *file, void *buf, size_t len,
			off_t *pos);
	ssize_t (*write)(struct revoke_file *file, const void *buf, size_t len,
			 off_t *pos);
	int (*readdir)(struct revoke_file *file, void *dirent);
	unsigned int (*poll)(struct revoke_file *file);
	long (*ioctl)(struct revoke_file *file, unsigned int cmd,
		      unsigned long arg);
	int (*mmap)(struct revoke_file *file, void *vma);
	int (*open)(struct revoke_inode *inode, struct revoke_file *file);
	int (*flush)(struct revoke_file *file);
	int (*release)(struct revoke_inode *inode, struct revoke_file *file);
	int (*fsync)(struct revoke_file *file, int datasync);
	int (*fasync)(int fd, struct revoke_file *file, int on);
	int (*lock)(struct revoke_file *file, int cmd, void *fl);
	int (*flock)(struct revoke_file *file, int cmd, void *fl);
	ssize_t (*sendpage)(struct revoke_file *file, void *page, int off,
			    size_t len, off_t *pos, int more);
	unsigned long (*get_unmapped_area)(struct revoke_file *file,
					   unsigned long addr, unsigned long len,
					   unsigned long pgoff,
					   unsigned long flags);
	int (*check_flags)(int flags);
	ssize_t (*splice_write)(void *pipe, struct revoke_file *out,
				off_t *pos, size_t len, unsigned int flags);
	ssize_t (*splice_read)(struct revoke_file *in, off_t *pos, void *pipe,
			       size_t len, unsigned int flags);
	/* wake every caller blocked inside this table (see revoke_waitq) */
	void (*awaken_all_waiters)(struct revoke_file *file);
};

/*
 * The generic revoked table, exactly as the seed's revoked_file_ops: read
 * returns 0 (end of file), poll returns IN|OUT|ERR|RDNORM|WRNORM, flush
 * and release return 0, everything else -EIO.
 */
extern const struct revoke_file_operations revoked_file_ops;
/* The same, but read also fails with -EIO (what the BPF enforcer, BSD and
 * procfs do). */
extern const struct revoke_file_operations revoked_file_ops_eio;

/**
 * struct revoke_inode - an object that handles refer to (the seed's
 *	struct inode, with its list of open files, i_files)
 *
 * Initialise with revoke_inode_init(), destroy with revoke_inode_destroy()
 * once it has no open files.  The members are the library's.
 */
struct revoke_inode {
	pthread_mutex_t i_lock;
	const struct revoke_file_operations *_Atomic i_fop;
	struct revoke_file *i_files;
	size_t i_nfiles;
	void *i_private;
};

/* The result of fops_substitute(). */
enum revoke_substitute_result {
	REVOKE_SUBSTITUTED = 0,		/* this call revoked the file */
	REVOKE_ALREADY_REVOKED = 1,	/* an earlier call had; nothing done */
};

int revoke_inode_init(struct revoke_inode *inode,
		      const struct revoke_file_operations *fop, void *private);
int revoke_inode_destroy(struct revoke_inode *inode);

int revoke_file_open(struct revoke_inode *inode, int flags,
		     struct revoke_file **filep);
struct revoke_file *revoke_file_get(struct revoke_file *file);
void revoke_file_put(struct revoke_file *file);

void *revoke_file_private(const struct revoke_file *file);
void revoke_file_set_private(struct revoke_file *file, void *private);
struct revoke_inode *revoke_file_inode(const struct revoke_file *file);
int revoke_file_flags(const struct revoke_file *file);
bool revoke_file_revoked(const struct revoke_file *file);

int fops_read_lock(struct revoke_file *file,
		   const struct revoke_file_operations **fop);
void fops_read_unlock(struct revoke_file *file, int idx);

int fops_substitute(struct revoke_file *file,
		    const struct revoke_file_operations *new_fop,
		    void (*remap_file_mappings)(struct revoke_file *file));
int inode_fops_substitute(struct revoke_inode *inode,
			  const struct revoke_file_operations *new_fop,
			  void (*remap_file_mappings)(struct revoke_file *file),
			  size_t *substituted);

ssize_t revoke_call_read(struct revoke_file *file, void *buf, size_t len,
			 off_t *pos);
ssize_t revoke_call_write(struct revoke_file *file, const void *buf,
			  size_t len, off_t *pos);
off_t revoke_call_llseek(struct revoke_file *file, off_t offset, int whence);
unsigned int revoke_call_poll(struct revoke_file *file);
long revoke_call_ioctl(struct revoke_file *file, unsigned int cmd,
		       unsigned long arg);
int revoke_call_mmap(struct revoke_file *file, void *vma);
int revoke_call_flush(struct revoke_file *file);
int revoke_call_fsync(struct revoke_file *file, int datasync);

/**
 * struct revoke_waitq - a place for callers to block inside an operation
 *	until a condition holds or the file is revoked
 */
struct revoke_waitq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t generation;
};

int revoke_waitq_init(struct revoke_waitq *wq);
void revoke_waitq_destroy(struct revoke_waitq *wq);
int revoke_waitq_wait(struct revoke_waitq *wq, struct revoke_file *file,
		      bool (*cond)(void *arg), void *arg);
void revoke_waitq_wake_all(struct revoke_waitq *wq);

#ifdef __cplusplus
}
#endif

#endif /* REVOKE_H */
