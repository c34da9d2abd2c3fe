// SPDX-License-Identifier: GPL-2.0
/*
 * fs_layout.c - find, in a filesystem module's BTF, where its private
 * structures keep what names a file, for the BPF programs'
 * "revoke_layout" (struct revoke_fs_layout in revoke_bpf.h).
 *
 * btrfs keeps a subvolume's device in struct btrfs_root, reached from
 * struct btrfs_inode; overlayfs keeps its upper and lower dentries in
 * struct ovl_inode and its real file behind an open file's private_data.
 * None of these is in vmlinux's BTF when the filesystem is a module, and
 * their layout differs between kernels (6.1 has ovl_inode.lowerpath,
 * later kernels an ovl_entry with a stack of lower paths, 6.13 and later
 * a struct ovl_file behind private_data), so the offsets are read at run
 * time from /sys/kernel/btf/MODULE, or from vmlinux's BTF when the
 * filesystem is built in.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "fs_layout.h"

/* An offset the BPF programs accept (see read_at() in inode_key.bpf.h). */
static bool in_bounds(long off)
{
	return off >= -REVOKE_LAYOUT_MAX_OFF && off <= REVOKE_LAYOUT_MAX_OFF;
}

/* Offset in bytes of member @name of @t, in anonymous members too. */
static int member_offset(const struct btf *btf, const struct btf_type *t,
			 const char *name, long *off)
{
	const struct btf_member *m = btf_members(t);
	__u16 i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		const char *mname = btf__name_by_offset(btf, m->name_off);
		long base = btf_member_bit_offset(t, i) / 8, inner;
		const struct btf_type *mt;

		if (mname && *mname) {
			if (strcmp(mname, name))
				continue;
			*off = base;
			return 0;
		}
		mt = btf__type_by_id(btf, btf__resolve_type(btf, m->type));
		if (mt && (btf_is_struct(mt) || btf_is_union(mt)) &&
		    !member_offset(btf, mt, name, &inner)) {
			*off = base + inner;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * fs_layout_offset() - offsetof(@sname, @member) in @btf
 * @btf: the module's (split) BTF
 * @sname: a struct's name
 * @member: a member's name; anonymous structs and unions are looked into
 * @off: the offset in bytes
 *
 * Return: 0, or -ENOENT if there is no such struct or member.
 */
int fs_layout_offset(const struct btf *btf, const char *sname,
		     const char *member, long *off)
{
	const struct btf_type *t;
	__s32 id;

	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	if (!t || member_offset(btf, t, member, off))
		return -ENOENT;
	return in_bounds(*off) ? 0 : -ERANGE;
}

/* offsetof(@sname, @member) - offsetof(@sname, vfs_inode) */
static int from_vfs_inode(const struct btf *btf, const char *sname,
			  const char *member, long *off)
{
	long m, vfs;

	if (fs_layout_offset(btf, sname, member, &m) ||
	    fs_layout_offset(btf, sname, "vfs_inode", &vfs))
		return -ENOENT;
	*off = m - vfs;
	return in_bounds(*off) ? 0 : -ERANGE;
}

/* The first of @names that @sname has, and its offset. */
static int first_member(const struct btf *btf, const char *sname,
			const char *const *names, long *off)
{
	for (; *names; names++)
		if (!fs_layout_offset(btf, sname, *names, off))
			return 0;
	return -ENOENT;
}

/**
 * fs_layout_btrfs() - the btrfs part of the layout, from btrfs's BTF
 * @btf: btrfs's BTF
 * @l: filled in, with REVOKE_LAYOUT_BTRFS set, on success
 *
 * Return: 0, or -ENOENT if the BTF lacks what is needed.
 */
int fs_layout_btrfs(const struct btf *btf, struct revoke_fs_layout *l)
{
	long root, anon;

	if (from_vfs_inode(btf, "btrfs_inode", "root", &root) ||
	    fs_layout_offset(btf, "btrfs_root", "anon_dev", &anon))
		return -ENOENT;
	l->btrfs_root = (__s32)root;
	l->btrfs_anon_dev = (__u32)anon;
	l->flags |= REVOKE_LAYOUT_BTRFS;
	return 0;
}

/* Where an overlayfs inode keeps its first lower dentry. */
static int ovl_lower(const struct btf *btf, struct revoke_fs_layout *l)
{
	static const char *const stack[] = { "__lowerstack", "lowerstack", NULL };
	static const char *const num[] = { "__numlower", "numlower", NULL };
	long path, dentry, oe, first, count;

	if (fs_layout_offset(btf, "ovl_path", "dentry", &dentry))
		return -ENOENT;
	/* 6.1: struct ovl_path lowerpath in struct ovl_inode */
	if (!from_vfs_inode(btf, "ovl_inode", "lowerpath", &path)) {
		l->ovl_lower = (__s32)(path + dentry);
		l->ovl_stack = -1;
		l->ovl_numlower = 0;
		return 0;
	}
	/* 6.5 and later: struct ovl_entry *oe, a stack of lower paths */
	if (from_vfs_inode(btf, "ovl_inode", "oe", &oe) ||
	    first_member(btf, "ovl_entry", stack, &first) ||
	    first_member(btf, "ovl_entry", num, &count))
		return -ENOENT;
	l->ovl_lower = (__s32)oe;
	l->ovl_stack = (__s32)(first + dentry);
	l->ovl_numlower = (__s32)count;
	return 0;
}

/**
 * fs_layout_overlayfs() - the overlayfs part of the layout, from its BTF
 * @btf: overlay's BTF
 * @l: filled in, with REVOKE_LAYOUT_OVL set, on success
 *
 * Return: 0, or -ENOENT if the BTF lacks what is needed.
 */
int fs_layout_overlayfs(const struct btf *btf, struct revoke_fs_layout *l)
{
	long upper, realfile;

	if (from_vfs_inode(btf, "ovl_inode", "__upperdentry", &upper) ||
	    ovl_lower(btf, l))
		return -ENOENT;
	/* 6.13 and later: private_data is a struct ovl_file */
	if (fs_layout_offset(btf, "ovl_file", "realfile", &realfile))
		realfile = REVOKE_LAYOUT_SELF;
	l->ovl_upper = (__s32)upper;
	l->ovl_realfile = (__s32)realfile;
	l->flags |= REVOKE_LAYOUT_OVL;
	return 0;
}

static const struct {
	const char *module;
	__u32 flag;
	int (*fill)(const struct btf *btf, struct revoke_fs_layout *l);
} parts[] = {
	{ "btrfs", REVOKE_LAYOUT_BTRFS, fs_layout_btrfs },
	{ "overlay", REVOKE_LAYOUT_OVL, fs_layout_overlayfs },
};

/*
 * Is filesystem type @name registered (/proc/filesystems): built in, or
 * its module loaded?  Each part's module is named after its type.
 */
static bool fs_registered(const char *name)
{
	char line[128], *type;
	bool found = false;
	FILE *f;

	f = fopen("/proc/filesystems", "re");
	if (!f)
		return true;	/* cannot tell: look */
	while (!found && fgets(line, sizeof(line), f)) {
		type = strchr(line, '\t');
		type = type ? type + 1 : line;
		type[strcspn(type, "\n")] = '\0';
		found = !strcmp(type, name);
	}
	fclose(f);
	return found;
}

/**
 * fs_layout_update() - fill in the parts of "revoke_layout" still unknown
 * @fd: the revoke_layout map
 * @builtin: also look in vmlinux's BTF, for a filesystem built in (at
 *	start-up: parsing it costs milliseconds); else only at modules
 *	loaded since (/sys/kernel/btf/MODULE)
 *
 * Called when revoke-bpfd starts and before it names any file, by path
 * or by number: a filesystem that is neither built in nor loaded has no
 * file that could be named, nor an overlayfs file open on one, and a
 * part once filled in stays (a module reloaded is the same build).  A
 * part that cannot be filled in is left unknown: btrfs files then keep
 * s_dev in their key, overlayfs files are checked as themselves only.
 *
 * Return: the REVOKE_LAYOUT_* parts known now, or a negative errno if the
 * map cannot be read or written.
 */
int fs_layout_update(int fd, bool builtin)
{
	struct revoke_fs_layout l = {};
	struct btf *vmlinux = NULL, *btf;
	__u32 zero = 0, before, now;
	char path[128];
	bool loaded;
	size_t i;

	if (bpf_map_lookup_elem(fd, &zero, &l))
		return -errno;
	before = l.flags;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (l.flags & parts[i].flag)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s",
			 parts[i].module);
		loaded = !access(path, R_OK);
		/* built in (or a module without BTF): in vmlinux's, if anywhere */
		if (!loaded && (!builtin || !fs_registered(parts[i].module)))
			continue;
		if (!vmlinux)
			vmlinux = btf__load_vmlinux_btf();
		if (!vmlinux)
			break;
		btf = loaded ? btf__parse_split(path, vmlinux) : NULL;
		parts[i].fill(btf ? btf : vmlinux, &l);
		btf__free(btf);
	}
	btf__free(vmlinux);
	if (l.flags == before)
		return (int)l.flags;
	/*
	 * The programs read the element while it is copied in: write the
	 * offsets first, under the flags they had, then the flags.
	 */
	now = l.flags;
	l.flags = before;
	if (bpf_map_update_elem(fd, &zero, &l, BPF_ANY))
		return -errno;
	l.flags = now;
	if (bpf_map_update_elem(fd, &zero, &l, BPF_ANY))
		return -errno;
	return (int)l.flags;
}
