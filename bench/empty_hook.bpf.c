// SPDX-License-Identifier: GPL-2.0
/*
 * empty_hook.bpf.c - the floor of any BPF LSM design: programs on the
 * same hooks as bpf/revoke.bpf.c that only return the verdict they were
 * given.  bench/hookbench.c measures ours against these.
 *
 * pad_loops, set before load, makes file_permission run that many more
 * iterations of a loop of a few instructions: the "padded_hook" case, a
 * deliberate slowdown of known size that shows the instrument can see one
 * (make bench's instruction-counted rows).  At 0, the default, the
 * verifier knows the loop never runs and removes it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 pad_loops = 0;

SEC("lsm/file_permission")
int BPF_PROG(empty_file_permission, struct file *file, int mask, int ret)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < pad_loops && i < 4096; i++) {
		sum += i;
		barrier_var(sum);
	}
	return ret + (int)(sum & 0);
}

SEC("lsm/mmap_file")
int BPF_PROG(empty_mmap_file, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	return ret;
}

SEC("lsm/file_ioctl")
int BPF_PROG(empty_file_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	return ret;
}

SEC("lsm/file_open")
int BPF_PROG(empty_file_open, struct file *file, int ret)
{
	return ret;
}

SEC("lsm/file_lock")
int BPF_PROG(empty_file_lock, struct file *file, unsigned int cmd, int ret)
{
	return ret;
}

SEC("lsm/file_fcntl")
int BPF_PROG(empty_file_fcntl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	return ret;
}

SEC("lsm/file_mprotect")
int BPF_PROG(empty_file_mprotect, struct vm_area_struct *vma,
	     unsigned long reqprot, unsigned long prot, int ret)
{
	return ret;
}

SEC("lsm/path_truncate")
int BPF_PROG(empty_path_truncate, const struct path *path, int ret)
{
	return ret;
}

SEC("lsm/file_receive")
int BPF_PROG(empty_file_receive, struct file *file, int ret)
{
	return ret;
}

SEC("lsm/inode_free_security")
int BPF_PROG(empty_inode_free, struct inode *inode)
{
	return 0;
}
