/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inode_key.bpf.h - the one place where a BPF program turns a kernel
 * inode into the key of the revoked set, and an overlayfs file into the
 * file it reads through.  Included by the hooks (revoke.bpf.c) and by the
 * iterators (holders.bpf.c), so that what the daemon revokes, what it
 * looks for and what the hooks deny are named alike.
 *
 * The key is (super_block->s_dev, i_ino), but for btrfs, whose subvolumes
 * share one super_block and number their inodes alike, it takes the
 * subvolume's anonymous device instead of s_dev.  Where that lives (and
 * where overlayfs keeps its real files) is private to each module: the
 * daemon reads the offsets from the module's BTF into "revoke_layout"
 * (struct revoke_fs_layout) before it names any file there.
 */
#ifndef REVOKE_INODE_KEY_BPF_H
#define REVOKE_INODE_KEY_BPF_H

#include <bpf/bpf_core_read.h>
#include "revoke_bpf.h"

#define REVOKE_S_IFMT  00170000
#define REVOKE_S_IFREG 0100000

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct revoke_fs_layout);
} revoke_layout SEC(".maps");

static __always_inline struct revoke_fs_layout *fs_layout(__u32 part)
{
	struct revoke_fs_layout *l;
	__u32 zero = 0;

	l = bpf_map_lookup_elem(&revoke_layout, &zero);
	return l && (l->flags & part) ? l : NULL;
}

/*
 * Read @size bytes at @base + @off into @dst; false if they cannot be.
 * The verifier lets an offset it cannot bound move a kernel pointer
 * nowhere: every offset is bounded here, as revoke-bpfd bounds it.
 */
static __always_inline bool read_at(void *dst, __u32 size, const void *base,
				    __s64 off)
{
	/* shifted to 0..2 * MAX, a range the verifier tracks on this value */
	__u64 shifted = (__u64)(off + REVOKE_LAYOUT_MAX_OFF);
	const char *p = base;

	if (!base || shifted > 2 * REVOKE_LAYOUT_MAX_OFF)
		return false;
	/* keep the compiler from folding the shift back into @off */
	asm volatile("" : "+r"(shifted));
	p -= REVOKE_LAYOUT_MAX_OFF;
	p += shifted;
	return !bpf_probe_read_kernel(dst, size, p);
}

/* The pointer at @base + @off, or NULL if it cannot be read. */
static __always_inline void *read_ptr(const void *base, __s64 off)
{
	void *p = NULL;

	return read_at(&p, sizeof(p), base, off) ? p : NULL;
}

/* The device of @inode's btrfs subvolume, or @s_dev if it is unknown. */
static __always_inline __u32 btrfs_subvol_dev(struct inode *inode, __u32 s_dev)
{
	struct revoke_fs_layout *l = fs_layout(REVOKE_LAYOUT_BTRFS);
	__u32 dev = 0;

	if (!l || !read_at(&dev, sizeof(dev), read_ptr(inode, l->btrfs_root),
			   l->btrfs_anon_dev))
		return s_dev;
	return dev ? dev : s_dev;
}

/*
 * The hooks' arguments are typed kernel pointers (BTF), so the fields of
 * vmlinux's own structures are read with plain loads, relocated by CO-RE.
 */
static __always_inline void inode_key(struct inode *inode,
				      struct revoke_key *key)
{
	struct super_block *sb = inode->i_sb;

	key->dev = sb->s_dev;
	key->ino = inode->i_ino;
	if (sb->s_magic == REVOKE_BTRFS_MAGIC)
		key->dev = btrfs_subvol_dev(inode, key->dev);
}

/*
 * inode_key() for an inode whose pointer was read from memory rather than
 * handed to the program (an overlayfs layer's), as a scalar: the verifier
 * knows no type for it, so every field is read with
 * bpf_probe_read_kernel().  A global function, checked once per program
 * by the verifier rather than at each of its many uses (overlay layers,
 * io_uring's files, the holders' walks).  Return: 0.
 */
__noinline int revoke_inode_key_read(__u64 ptr, struct revoke_key *key)
{
	struct inode *inode = (struct inode *)ptr;
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);

	if (!key)
		return 0;
	key->dev = BPF_CORE_READ(sb, s_dev);
	key->ino = BPF_CORE_READ(inode, i_ino);
	if (BPF_CORE_READ(sb, s_magic) == REVOKE_BTRFS_MAGIC)
		key->dev = btrfs_subvol_dev(inode, key->dev);
	return 0;
}

static __always_inline void inode_key_read(struct inode *inode,
					   struct revoke_key *key)
{
	revoke_inode_key_read((__u64)inode, key);
}

/*
 * The file an overlayfs regular file @file (of @inode) reads, writes and
 * maps through, or NULL: @file is no such file, it is not open yet (the
 * file_open hook runs before ovl_open()), or the layout is unknown.  A
 * pointer read from memory: read what it points to with inode_key_read().
 */
static __always_inline struct file *ovl_real_file(struct file *file,
						  struct inode *inode)
{
	struct revoke_fs_layout *l;
	void *priv;

	if (inode->i_sb->s_magic != REVOKE_OVERLAYFS_MAGIC ||
	    (inode->i_mode & REVOKE_S_IFMT) != REVOKE_S_IFREG)
		return NULL;
	l = fs_layout(REVOKE_LAYOUT_OVL);
	if (!l)
		return NULL;
	priv = file->private_data;
	if (l->ovl_realfile == REVOKE_LAYOUT_SELF)
		return priv;
	return read_ptr(priv, l->ovl_realfile);
}

/*
 * ovl_real_file() for @file, a pointer read from memory: an overlayfs file
 * may be stacked on another (FILESYSTEM_MAX_STACK_DEPTH is 2).
 */
static __always_inline struct file *ovl_real_file_read(struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct revoke_fs_layout *l;
	void *priv;

	if (!inode ||
	    BPF_CORE_READ(inode, i_sb, s_magic) != REVOKE_OVERLAYFS_MAGIC ||
	    (BPF_CORE_READ(inode, i_mode) & REVOKE_S_IFMT) != REVOKE_S_IFREG)
		return NULL;
	l = fs_layout(REVOKE_LAYOUT_OVL);
	if (!l)
		return NULL;
	priv = BPF_CORE_READ(file, private_data);
	if (l->ovl_realfile == REVOKE_LAYOUT_SELF)
		return priv;
	return read_ptr(priv, l->ovl_realfile);
}

/* The inode of @dentry, a pointer read from memory, or NULL. */
static __always_inline struct inode *dentry_inode(struct dentry *dentry)
{
	return dentry ? BPF_CORE_READ(dentry, d_inode) : NULL;
}

/* An overlayfs inode's upper inode, or NULL (none yet, or not overlayfs). */
static __always_inline struct inode *ovl_upper_inode(struct inode *inode)
{
	struct revoke_fs_layout *l;

	if (inode->i_sb->s_magic != REVOKE_OVERLAYFS_MAGIC)
		return NULL;
	l = fs_layout(REVOKE_LAYOUT_OVL);
	if (!l)
		return NULL;
	return dentry_inode(read_ptr(inode, l->ovl_upper));
}

/* An overlayfs inode's (first) lower inode, or NULL. */
static __always_inline struct inode *ovl_lower_inode(struct inode *inode)
{
	struct revoke_fs_layout *l;
	__u32 numlower = 0;
	void *oe;

	if (inode->i_sb->s_magic != REVOKE_OVERLAYFS_MAGIC)
		return NULL;
	l = fs_layout(REVOKE_LAYOUT_OVL);
	if (!l)
		return NULL;
	if (l->ovl_stack < 0)
		return dentry_inode(read_ptr(inode, l->ovl_lower));
	oe = read_ptr(inode, l->ovl_lower);
	if (!read_at(&numlower, sizeof(numlower), oe, l->ovl_numlower) ||
	    !numlower)
		return NULL;
	return dentry_inode(read_ptr(oe, l->ovl_stack));
}

#endif /* REVOKE_INODE_KEY_BPF_H */
