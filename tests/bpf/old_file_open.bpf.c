// SPDX-License-Identifier: GPL-2.0
/*
 * old_file_open.bpf.c - stands for a revoke_file_open of another build:
 * same name, other code (it denies nothing), so another program tag.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("lsm/file_open")
int BPF_PROG(revoke_file_open, struct file *file, int ret)
{
	return ret;
}
