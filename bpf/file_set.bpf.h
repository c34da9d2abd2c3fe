/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file_set.bpf.h - revoked open file descriptions (revoke-bpf add --fd)
 * as the hooks read them: their map and the inline helpers that use it.
 *
 * "revoked_files" is keyed by the address of a struct file: one open
 * file description, shared by every descriptor that is a copy of it
 * (dup, fork, SCM_RIGHTS, pidfd_getfd) and by the mappings made through
 * it, and by nothing else: another open of the same inode is another
 * struct file and works.  revoke-bpfd writes it (src/store/file_set.c)
 * while it holds a copy of the file, so that the file cannot be freed
 * and its address reused before the entry is in; the hooks drop the
 * entry when the file is freed.  Included by revoke.bpf.c.
 */
#ifndef REVOKE_FILE_SET_BPF_H
#define REVOKE_FILE_SET_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_FILE_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct revoke_file_val);
} revoked_files SEC(".maps");

/*
 * Is @file revoked?  If it is, its entry counts one more denial, and is
 * returned (its key names the inode, for the event); else NULL.
 */
static __always_inline struct revoke_file_val *file_set_deny(struct file *file)
{
	__u64 addr = (__u64)file;
	struct revoke_file_val *val;

	val = bpf_map_lookup_elem(&revoked_files, &addr);
	if (val)
		__sync_fetch_and_add(&val->denials, 1);
	return val;
}

/* @file is freed: forget it, its address may be reused by any file. */
static __always_inline void file_set_forget(struct file *file)
{
	__u64 addr = (__u64)file;

	bpf_map_delete_elem(&revoked_files, &addr);
}

#endif /* REVOKE_FILE_SET_BPF_H */
