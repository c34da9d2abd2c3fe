/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meta_hooks.bpf.h - the programs for what a file has besides its bytes:
 * extended attributes (and the POSIX ACLs kept in them), and the
 * attributes that chmod, chown, utimes and chattr change.  Each is
 * reached by descriptor (fsetxattr, fchmod) and by path (setxattr,
 * chmod) through the same hook, which is handed a dentry: a revoked
 * inode's are refused with EIO.  stat(2) is left to work.
 *
 * Through overlayfs, the overlay calls the same function on the real
 * dentry beneath, which passes these hooks again (a copy-up first reads
 * the lower file, which file_open refuses).  Included by revoke.bpf.c;
 * revoke-bpfd loads each program only if the running kernel has its hook
 * in the shape the program expects (src/store/features.c).
 */
#ifndef REVOKE_META_HOOKS_H
#define REVOKE_META_HOOKS_H

/* Return -EIO if @dentry's inode is revoked, else 0. */
static __always_inline int check_dentry(struct dentry *dentry, __u32 armed,
					__u32 hook, __u32 op)
{
	if (!dentry)
		return 0;
	return check_inode(dentry->d_inode, armed, hook, op, 0);
}

/*
 * The prefixes of overlayfs's own attributes as little-endian words, so
 * that no string constant (which would be one more map) is needed:
 * "trusted." "overlay.", and "user.ove" "rlay." (five bytes).
 */
#define XATTR_WORD_TRUSTED	0x2e64657473757274ULL
#define XATTR_WORD_OVERLAY	0x2e79616c7265766fULL
#define XATTR_WORD_USER_OVE	0x65766f2e72657375ULL
#define XATTR_WORD_RLAY		0x0000002e79616c72ULL
#define XATTR_MASK_RLAY		0x000000ffffffffffULL

/*
 * Is this overlayfs reading one of its own attributes (trusted.overlay.*,
 * or user.overlay.* on a userxattr mount) for itself?  The overlay reads
 * them from the lower file when it looks the name up, so a revoked lower
 * file could not even be looked up, or stat'ed, through an overlay.  It
 * does so with the mounter's credentials put over the caller's
 * (ovl_override_creds()): a process's own getxattr(2) never runs with
 * cred != real_cred, so it gets no exception, whatever name it asks for.
 */
static __always_inline bool ovl_own_xattr(const char *name)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 w[3] = {};

	if (task->cred == task->real_cred)
		return false;
	if (bpf_probe_read_kernel_str(w, 17, name) < 0)
		return false;
	return (w[0] == XATTR_WORD_TRUSTED && w[1] == XATTR_WORD_OVERLAY) ||
	       (w[0] == XATTR_WORD_USER_OVE &&
		(w[1] & XATTR_MASK_RLAY) == XATTR_WORD_RLAY);
}

/* getxattr(2), fgetxattr(2), lgetxattr(2) */
SEC("lsm/inode_getxattr")
int BPF_PROG(revoke_inode_getxattr, struct dentry *dentry, const char *name,
	     int ret)
{
	HOOK_PROLOGUE(ret, armed);
	if (ovl_own_xattr(name))
		return 0;
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_GETXATTR,
			    REVOKE_OP_XATTR);
}

/* listxattr(2) and the like */
SEC("lsm/inode_listxattr")
int BPF_PROG(revoke_inode_listxattr, struct dentry *dentry, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_LISTXATTR,
			    REVOKE_OP_XATTR);
}

/* setxattr(2) and the like; the first argument is a user namespace
 * before Linux 6.3 and a mount's idmap after: both are left alone. */
SEC("lsm/inode_setxattr")
int BPF_PROG(revoke_inode_setxattr, void *idmap, struct dentry *dentry,
	     const char *name, const void *value, size_t size, int flags,
	     int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_SETXATTR,
			    REVOKE_OP_XATTR);
}

/* removexattr(2) and the like */
SEC("lsm/inode_removexattr")
int BPF_PROG(revoke_inode_removexattr, void *idmap, struct dentry *dentry,
	     const char *name, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_REMOVEXATTR,
			    REVOKE_OP_XATTR);
}

/*
 * chmod, chown, utimes and truncate, by path or by descriptor: every
 * caller of notify_change().  Linux 6.3 put the mount's idmap before
 * the dentry, so there is one program for each shape of the hook, and
 * the kernel gets the one that fits it (features.c).
 */
SEC("lsm/inode_setattr")
int BPF_PROG(revoke_inode_setattr, void *idmap, struct dentry *dentry,
	     struct iattr *attr, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_SETATTR,
			    REVOKE_OP_SETATTR);
}

/* The same before Linux 6.3: (dentry, attr). */
SEC("lsm/inode_setattr")
int BPF_PROG(revoke_inode_setattr_6_1, struct dentry *dentry,
	     struct iattr *attr, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_SETATTR,
			    REVOKE_OP_SETATTR);
}

/*
 * POSIX ACLs, which since Linux 6.2 no longer pass the xattr hooks
 * (system.posix_acl_access and _default go to these instead).
 */
SEC("lsm/inode_get_acl")
int BPF_PROG(revoke_inode_get_acl, void *idmap, struct dentry *dentry,
	     const char *acl_name, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_GET_ACL,
			    REVOKE_OP_XATTR);
}

SEC("lsm/inode_set_acl")
int BPF_PROG(revoke_inode_set_acl, void *idmap, struct dentry *dentry,
	     const char *acl_name, void *kacl, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_SET_ACL,
			    REVOKE_OP_XATTR);
}

SEC("lsm/inode_remove_acl")
int BPF_PROG(revoke_inode_remove_acl, void *idmap, struct dentry *dentry,
	     const char *acl_name, int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_REMOVE_ACL,
			    REVOKE_OP_XATTR);
}

/*
 * The inode flags and project of FS_IOC_FSGETXATTR/FSSETXATTR, and of
 * file_getattr(2)/file_setattr(2) by path (Linux 6.17).
 */
SEC("lsm/inode_file_getattr")
int BPF_PROG(revoke_inode_file_getattr, struct dentry *dentry, void *fa,
	     int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_FILE_GETATTR,
			    REVOKE_OP_SETATTR);
}

SEC("lsm/inode_file_setattr")
int BPF_PROG(revoke_inode_file_setattr, struct dentry *dentry, void *fa,
	     int ret)
{
	HOOK_PROLOGUE(ret, armed);
	return check_dentry(dentry, armed, REVOKE_HOOK_INODE_FILE_SETATTR,
			    REVOKE_OP_SETATTR);
}

#endif /* REVOKE_META_HOOKS_H */
