// SPDX-License-Identifier: GPL-2.0
/*
 * holders.bpf.c - find every descriptor and every mapping of a set of
 * inodes, for the revocation pipeline (src/pipeline/holders.c).
 *
 * Two BPF iterators walk all tasks: one over their open files, one over
 * their memory mappings.  Each writes a struct revoke_holder for every
 * file whose (s_dev, i_ino) is a key of "holder_targets", or whose
 * device number is a key of "holder_rdev_targets".  One read of
 * each iterator replaces a walk of /proc/PID/fd and /proc/PID/maps of
 * every process.  A third walks every user thread and writes the system
 * call it is in (struct revoke_thread): one read of it replaces a read of
 * /proc/PID/task/TID/syscall per thread.  A fourth writes the threads
 * whose current or root directory, or executable, is on a filesystem
 * looked for (revoke_fsrefs), and, for holders, every process's
 * name and uid.  The file iterator also looks
 * into every io_uring instance for targets held as fixed files or under
 * registered buffers (uring.bpf.h).  Fields are read with plain
 * loads from the iterators' typed pointers, relocated by CO-RE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "revoke_bpf.h"
#include "inode_key.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_HOLDER_TARGETS);
	__type(key, struct revoke_key);
	__type(value, __u32);
} holder_targets SEC(".maps");

/* Devices looked for by number: any node whose i_rdev is one of them. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_HOLDER_TARGETS);
	__type(key, struct revoke_rdev_key);
	__type(value, __u32);
} holder_rdev_targets SEC(".maps");

/*
 * Filesystems looked for, by their super_block's s_dev: any file on one
 * of them; looked at only while holder_by_sb is set.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_SUPER_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} holder_sb_targets SEC(".maps");

__u32 holder_by_sb;

/*
 * One open file description looked for (add --fd): while set, only
 * descriptors, fixed files and mappings of the struct file at this
 * address are targets, not other opens of its inode.
 */
__u64 holder_only_file;

/* Is @file, a target's file, not the one description looked for? */
static __always_inline bool other_file(struct file *file)
{
	return holder_only_file && (__u64)file != holder_only_file;
}

#define S_IFMT  00170000
#define S_IFBLK 0060000
#define S_IFCHR 0020000
#define PF_KTHREAD 0x00200000
/* vm_flags bits, the same values as PROT_READ, PROT_WRITE, PROT_EXEC */
#define VM_READ 0x1
#define VM_WRITE 0x2
#define VM_EXEC 0x4

static __always_inline bool rdev_target(struct inode *inode)
{
	struct revoke_rdev_key rk = {};
	__u32 fmt = inode->i_mode & S_IFMT;

	if (fmt != S_IFCHR && fmt != S_IFBLK)
		return false;
	rk.rdev = inode->i_rdev;
	rk.type = fmt == S_IFCHR ? REVOKE_RDEV_CHAR : REVOKE_RDEV_BLOCK;
	return bpf_map_lookup_elem(&holder_rdev_targets, &rk);
}

/*
 * Fill @rec's identity from @key, the key of an inode on the filesystem
 * whose s_dev is @s_dev; return 0 if @key, or that filesystem, is a target.
 */
static __always_inline int target_key(const struct revoke_key *key,
				      __u32 s_dev, struct revoke_holder *rec)
{
	if (!bpf_map_lookup_elem(&holder_targets, key) &&
	    (!holder_by_sb || !bpf_map_lookup_elem(&holder_sb_targets, &s_dev)))
		return -1;
	rec->dev = key->dev;
	rec->ino = key->ino;
	return 0;
}

/* The s_dev of @inode's filesystem, @inode a pointer read from memory. */
static __always_inline __u32 sb_dev_read(struct inode *inode)
{
	return BPF_CORE_READ(inode, i_sb, s_dev);
}

/*
 * Fill @rec's identity from @file; return 0 if @file is a target, 1 if it
 * is an overlayfs file whose real file is (the key recorded is the real
 * one's), or -1.
 */
static __always_inline int target_file(struct file *file,
				       struct revoke_holder *rec)
{
	struct revoke_key key = {};
	struct inode *inode;
	struct file *real;

	if (other_file(file))
		return -1;
	inode = file->f_inode;
	if (!inode)
		return -1;
	inode_key(inode, &key);
	if (!target_key(&key, inode->i_sb->s_dev, rec))
		return 0;
	if (rdev_target(inode)) {
		rec->dev = key.dev;
		rec->ino = key.ino;
		return 0;
	}
	real = ovl_real_file(file, inode);
	if (!real)
		return -1;
	inode = BPF_CORE_READ(real, f_inode);
	inode_key_read(inode, &key);
	if (!target_key(&key, sb_dev_read(inode), rec))
		return 1;
	/* an overlay stacked on an overlay */
	real = ovl_real_file_read(real);
	if (!real)
		return -1;
	inode = BPF_CORE_READ(real, f_inode);
	inode_key_read(inode, &key);
	return target_key(&key, sb_dev_read(inode), rec) ? -1 : 1;
}

#include "uring.bpf.h"

/*
 * Set by revoke_holder_fds when a file it reports may have mappings: its
 * page cache has a mapping (i_mmap not empty), or its f_mapping is not
 * its inode's own, so its mappings cannot be told from here.  Cleared
 * by user space before each pass.
 */
__u32 holder_maybe_mapped;

static __always_inline void note_mappings(struct file *file,
					  struct inode *inode)
{
	struct address_space *mapping = file->f_mapping;

	if (mapping != inode->i_mapping || mapping->i_mmap.rb_root.rb_node)
		holder_maybe_mapped = 1;
}

/* Is descriptor @fd of @task close-on-exec? */
static __always_inline __u32 fd_cloexec(struct task_struct *task, __u32 fd)
{
	unsigned long *bits = task->files->fdt->close_on_exec;
	unsigned long word = 0;

	bpf_probe_read_kernel(&word, sizeof(word), bits + fd / (8 * sizeof(word)));
	return (word >> (fd % (8 * sizeof(word)))) & 1;
}

/*
 * Processes never reported as holders (holders_skip()): revoke-bpfd, and
 * the client whose request is being served, which may still hold the
 * descriptor it sent for an instant after sending it.
 */
__u32 holder_self;
__u32 holder_peer;

static __always_inline bool skipped(struct task_struct *task)
{
	return task->tgid == holder_self || task->tgid == holder_peer;
}

SEC("iter/task_file")
int revoke_holder_fds(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct revoke_holder rec = {};
	int match;

	if (!task || !file || skipped(task))
		return 0;
	if (uring_file(file)) {
		uring_scan(ctx->meta->seq, task, file, ctx->fd, 0);
		return 0;
	}
	match = target_file(file, &rec);
	if (match < 0)
		return 0;
	/* an overlayfs file's mappings are its real file's: look for them */
	if (match)
		holder_maybe_mapped = 1;
	else
		note_mappings(file, file->f_inode);
	rec.kind = REVOKE_HOLDER_FD;
	rec.tgid = task->tgid;
	rec.start_boottime = task->group_leader->start_boottime;
	rec.fd = ctx->fd;
	rec.cloexec = fd_cloexec(task, ctx->fd);
	rec.f_uid = file->f_cred->uid.val;
	rec.f_euid = file->f_cred->euid.val;
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

SEC("iter/task_vma")
int revoke_holder_vmas(struct bpf_iter__task_vma *ctx)
{
	struct task_struct *task = ctx->task;
	struct vm_area_struct *vma = ctx->vma;
	struct revoke_holder rec = {};
	struct file *file;

	if (!task || !vma || skipped(task))
		return 0;
	file = vma->vm_file;
	if (!file)
		return 0;
	if (target_file(file, &rec) < 0) {
		/* a ring's queues: the ring lives as long as they are mapped */
		if (uring_file(file))
			uring_scan(ctx->meta->seq, task, file, 0,
				   REVOKE_URING_MAPPED);
		return 0;
	}
	rec.kind = REVOKE_HOLDER_VMA;
	rec.tgid = task->tgid;
	rec.start_boottime = task->group_leader->start_boottime;
	rec.start = vma->vm_start;
	rec.end = vma->vm_end;
	rec.prot = vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
	rec.f_uid = file->f_cred->uid.val;
	rec.f_euid = file->f_cred->euid.val;
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

/* The io_uring instances a thread registered (uring.bpf.h). */
SEC("iter/task")
int revoke_holder_regrings(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;

	if (!task || (task->flags & PF_KTHREAD) || skipped(task))
		return 0;
	uring_scan_registered(ctx->meta->seq, task);
	return 0;
}

/*
 * Write a record of @kind if @inode, @task's current or root directory or
 * its executable, is on a target filesystem.
 */
static __always_inline void fsref(struct seq_file *seq,
				  struct task_struct *task, struct inode *inode,
				  __u32 kind)
{
	struct revoke_holder rec = {};
	struct revoke_key key = {};
	__u32 s_dev;

	if (!inode)
		return;
	s_dev = sb_dev_read(inode);
	if (!bpf_map_lookup_elem(&holder_sb_targets, &s_dev))
		return;
	inode_key_read(inode, &key);
	rec.kind = kind;
	rec.tgid = task->tgid;
	rec.fd = task->pid;
	rec.dev = key.dev;
	rec.ino = key.ino;
	rec.start_boottime = task->group_leader->start_boottime;
	bpf_seq_write(seq, &rec, sizeof(rec));
}

/* Set by holders_fsrefs_tasks(): name every process too. */
__u32 holder_want_tasks;

/* A process's name and real uid (REVOKE_HOLDER_TASK). */
static __always_inline void task_rec(struct seq_file *seq,
				     struct task_struct *task)
{
	struct revoke_holder rec = {};

	rec.kind = REVOKE_HOLDER_TASK;
	rec.tgid = task->tgid;
	rec.fd = BPF_CORE_READ(task, real_cred, uid.val);
	rec.start_boottime = task->start_boottime;
	bpf_probe_read_kernel(&rec.start, 2 * sizeof(rec.start), task->comm);
	bpf_seq_write(seq, &rec, sizeof(rec));
}

/*
 * What pins a target filesystem without a descriptor or a mapping: each
 * thread's current and root directory (threads may have their own, after
 * unshare(CLONE_FS)), and its process's executable.
 */
SEC("iter/task")
int revoke_fsrefs(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct fs_struct *fs;
	struct file *exe;

	if (!task || (task->flags & PF_KTHREAD) || task->tgid == holder_self)
		return 0;
	fs = task->fs;
	if (fs) {
		fsref(ctx->meta->seq, task,
		      BPF_CORE_READ(fs, pwd.dentry, d_inode), REVOKE_HOLDER_CWD);
		fsref(ctx->meta->seq, task,
		      BPF_CORE_READ(fs, root.dentry, d_inode),
		      REVOKE_HOLDER_ROOT);
	}
	exe = task->mm ? BPF_CORE_READ(task, mm, exe_file) : NULL;
	if (exe)
		fsref(ctx->meta->seq, task, BPF_CORE_READ(exe, f_inode),
		      REVOKE_HOLDER_EXE);
	if (holder_want_tasks && task->pid == task->tgid)
		task_rec(ctx->meta->seq, task);
	return 0;
}

/*
 * The system call a thread is in, from the user registers the kernel
 * saved on its entry (what /proc/PID/task/TID/syscall reads).
 */
#if defined(__TARGET_ARCH_x86)
static __always_inline void syscall_of(const struct pt_regs *regs,
				       struct revoke_thread *rec)
{
	rec->nr = (long)regs->orig_ax;
	rec->args[0] = regs->di;
	rec->args[1] = regs->si;
	rec->args[2] = regs->dx;
	rec->args[3] = regs->r10;
	rec->args[4] = regs->r8;
	rec->args[5] = regs->r9;
}
#else
#error "the thread iterator reads x86_64 registers only (see src/inject/arch.h)"
#endif

SEC("iter/task")
int revoke_holder_threads(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct revoke_thread rec = {};
	struct pt_regs *regs;

	if (!task || !task->mm || (task->flags & PF_KTHREAD))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
	rec.tgid = task->tgid;
	rec.tid = task->pid;
	rec.start_boottime = task->group_leader->start_boottime;
	rec.state = task->__state;
	syscall_of(regs, &rec);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

/*
 * revoke_ident: what descriptor ident_fd of the process the iterator is
 * restricted to (revoke-bpfd itself, src/ident.c) refers to, as the
 * hooks see it: the key of its inode and, for an overlayfs file, of its
 * upper and lower inodes.
 */
__s32 ident_fd = -1;

static __always_inline void ident_layer(struct inode *inode,
					struct revoke_key *key, __u32 *flags,
					__u32 flag)
{
	if (!inode)
		return;
	inode_key_read(inode, key);
	*flags |= flag;
	if (BPF_CORE_READ(inode, i_sb, s_magic) == REVOKE_OVERLAYFS_MAGIC)
		*flags |= REVOKE_IDENT_STACKED;
}

SEC("iter/task_file")
int revoke_ident(struct bpf_iter__task_file *ctx)
{
	struct file *file = ctx->file;
	struct revoke_ident rec = {};
	struct super_block *sb;
	struct inode *inode;

	if (!ctx->task || !file || (__s32)ctx->fd != ident_fd)
		return 0;
	inode = file->f_inode;
	if (!inode)
		return 0;
	sb = inode->i_sb;
	inode_key(inode, &rec.key);
	rec.s_dev = sb->s_dev;
	rec.sb = (__u64)sb;
	if (file->f_path.dentry == BPF_CORE_READ(file, f_path.mnt, mnt_root))
		rec.flags |= REVOKE_IDENT_MNT_ROOT;
	rec.mode = inode->i_mode;
	rec.rdev = inode->i_rdev;
	rec.file = (__u64)file;
	bpf_probe_read_kernel_str(rec.fstype, sizeof(rec.fstype),
				  sb->s_type->name);
	ident_layer(ovl_upper_inode(inode), &rec.upper, &rec.flags,
		    REVOKE_IDENT_UPPER);
	ident_layer(ovl_lower_inode(inode), &rec.lower, &rec.flags,
		    REVOKE_IDENT_LOWER);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
