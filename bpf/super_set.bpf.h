/* SPDX-License-Identifier: GPL-2.0 */
/*
 * super_set.bpf.h - the revoked filesystem set as the hooks read it: its
 * map and the inline helpers that use it.
 *
 * "revoked_supers" holds one entry per revoked filesystem, keyed by its
 * super_block's s_dev (for btrfs the filesystem's, not a subvolume's)
 * and naming the super_block itself: a hook denies an inode whose
 * i_sb is that super_block, whatever the inode, so that a whole
 * filesystem costs one lookup per hook and not one entry per inode, and
 * files opened after the revocation are denied too.  revoke-bpfd writes
 * it (src/store/super_set.c); the hooks drop an entry when its
 * super_block is freed, so that a later filesystem given the same s_dev
 * is not denied.  Included by revoke.bpf.c.
 */
#ifndef REVOKE_SUPER_SET_BPF_H
#define REVOKE_SUPER_SET_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_SUPER_ENTRIES);
	__type(key, __u32);
	__type(value, struct revoke_super_val);
} revoked_supers SEC(".maps");

/*
 * Is @sb, whose s_dev is @s_dev, revoked?  An entry with no super_block
 * (revoke-bpfd knew the filesystem by number only: one mounted from a
 * device that went away) stands for whichever has that s_dev.  If it is, its entry counts
 * one more denial.
 */
static __always_inline bool super_set_deny(struct super_block *sb, __u32 s_dev)
{
	struct revoke_super_val *val;

	val = bpf_map_lookup_elem(&revoked_supers, &s_dev);
	if (!val || (val->sb && val->sb != (__u64)sb))
		return false;
	__sync_fetch_and_add(&val->denials, 1);
	return true;
}

/* @sb is being freed: forget it, if it was revoked. */
static __always_inline void super_set_forget(struct super_block *sb)
{
	struct revoke_super_val *val;
	__u32 s_dev = sb->s_dev;

	val = bpf_map_lookup_elem(&revoked_supers, &s_dev);
	if (val && (!val->sb || val->sb == (__u64)sb))
		bpf_map_delete_elem(&revoked_supers, &s_dev);
}

#endif /* REVOKE_SUPER_SET_BPF_H */
