/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extra_hooks.bpf.h - the programs for routes to a file's data that only
 * some kernels have, or that few files reach: ftruncate through
 * file_truncate (6.2+), a 32-bit process's ioctl, the kernel reading a
 * file for itself, io_uring passthrough commands, mmap through
 * overlayfs, and SIGIO.  Included by revoke.bpf.c, whose check_file()
 * they call; revoke-bpfd loads each only if the running kernel has its
 * hook (src/store/features.c).
 */
#ifndef REVOKE_EXTRA_HOOKS_H
#define REVOKE_EXTRA_HOOKS_H

/*
 * ftruncate(2) since Linux 6.2 (before, it went through path_truncate),
 * io_uring's IORING_OP_FTRUNCATE, and open(O_TRUNC) after file_open.  A
 * kernel without the hook does not get this program (features.c).
 */
SEC("lsm/file_truncate")
int BPF_PROG(revoke_file_truncate, struct file *file, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_FILE_TRUNCATE,
			  REVOKE_OP_WRITE, 0);
}

/* A 32-bit process's ioctl(2): compat_sys_ioctl() skips file_ioctl. */
SEC("lsm/file_ioctl_compat")
int BPF_PROG(revoke_file_ioctl_compat, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_ioctl(file, cmd, arg, armed, REVOKE_HOOK_FILE_IOCTL_COMPAT);
}

/*
 * The kernel reads a whole file for itself, given a descriptor
 * (finit_module, kexec_file_load) or a path (firmware, IMA's policy):
 * refused before the first byte is read.
 */
SEC("lsm/kernel_read_file")
int BPF_PROG(revoke_kernel_read_file, struct file *file,
	     enum kernel_read_file_id id, bool contents, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_KERNEL_READ_FILE,
			  REVOKE_OP_READ, id);
}

/* ... and refused before it uses what it read, if revoked meanwhile. */
SEC("lsm/kernel_post_read_file")
int BPF_PROG(revoke_kernel_post_read_file, struct file *file, char *buf,
	     loff_t size, enum kernel_read_file_id id, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(file, armed, REVOKE_HOOK_KERNEL_POST_READ_FILE,
			  REVOKE_OP_READ, id);
}

/*
 * io_uring passthrough commands (IORING_OP_URING_CMD: NVMe and ublk
 * character devices, block devices, sockets): an ioctl that does not go
 * through file_ioctl.
 */
SEC("lsm/uring_cmd")
int BPF_PROG(revoke_uring_cmd, struct io_uring_cmd *ioucmd, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(ioucmd->file, armed, REVOKE_HOOK_URING_CMD,
			  REVOKE_OP_IOCTL, ioucmd->cmd_op);
}

/*
 * mmap of an overlayfs (or FUSE passthrough) file maps the file beneath:
 * mmap_file saw only the overlay's file, this sees the real one.
 */
SEC("lsm/mmap_backing_file")
int BPF_PROG(revoke_mmap_backing_file, struct vm_area_struct *vma,
	     struct file *backing_file, struct file *user_file, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	return check_file(backing_file, armed, REVOKE_HOOK_MMAP_BACKING_FILE,
			  REVOKE_OP_MMAP, 0);
}

/*
 * SIGIO and SIGURG of a revoked file (F_SETOWN, O_ASYNC) are not sent:
 * they would tell its owner that data came.  The file is found through
 * fown_struct's back pointer, which Linux 6.12 added; before, the
 * program is not loaded (features.c).
 */
SEC("lsm/file_send_sigiotask")
int BPF_PROG(revoke_file_send_sigiotask, struct task_struct *tsk,
	     struct fown_struct *fown, int sig, int ret)
{
	HOOK_PROLOGUE(ret, armed);

	if (!bpf_core_field_exists(fown->file))
		return 0;
	return check_file(fown->file, armed, REVOKE_HOOK_FILE_SEND_SIGIOTASK,
			  REVOKE_OP_SIGNAL, sig);
}

#endif /* REVOKE_EXTRA_HOOKS_H */
