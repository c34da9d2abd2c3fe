// SPDX-License-Identifier: GPL-2.0
/*
 * revoke.bpf.c - the enforcement core: BPF LSM programs that deny every
 * operation on a revoked inode with -EIO.
 *
 * An inode is revoked while its (filesystem device, inode number) is a key
 * of the "revoked" hash map.  revoke-bpfd fills the map; these programs
 * only read it (and count denials).
 *
 * Each hook first honours an earlier LSM's verdict (a non-zero @ret is
 * returned unchanged), then takes the fast path: while the revoked set is
 * empty it returns after a single load from the revoke_state array.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "revoke_bpf.h"

#define EIO 5

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_MAX_ENTRIES_DEFAULT);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_key);
	__type(value, struct revoke_val);
} revoked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct revoke_state);
} revoke_state SEC(".maps");

/*
 * Return -EIO if @file's inode is revoked, else 0.  @file may be NULL
 * (anonymous mmap).
 */
static __always_inline int check_file(struct file *file)
{
	struct revoke_state *st;
	struct revoke_key key = {};
	struct revoke_val *val;
	struct inode *inode;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&revoke_state, &zero);
	if (!st || !st->nr_revoked)
		return 0;
	if (!file)
		return 0;

	inode = BPF_CORE_READ(file, f_inode);
	if (!inode)
		return 0;
	key.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	key.ino = BPF_CORE_READ(inode, i_ino);

	val = bpf_map_lookup_elem(&revoked, &key);
	if (!val)
		return 0;
	__sync_fetch_and_add(&val->denials, 1);
	return -EIO;
}

SEC("lsm/file_permission")
int BPF_PROG(revoke_file_permission, struct file *file, int mask, int ret)
{
	if (ret)
		return ret;
	return check_file(file);
}

SEC("lsm/mmap_file")
int BPF_PROG(revoke_mmap_file, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	if (ret)
		return ret;
	return check_file(file);
}

SEC("lsm/file_ioctl")
int BPF_PROG(revoke_file_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return check_file(file);
}

SEC("lsm/file_open")
int BPF_PROG(revoke_file_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	return check_file(file);
}
