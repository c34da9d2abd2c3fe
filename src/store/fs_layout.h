/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fs_layout.h - the offsets in filesystem modules' own structures that the
 * BPF programs need to name a btrfs or overlayfs file (revoke_layout).
 */
#ifndef REVOKE_STORE_FS_LAYOUT_H
#define REVOKE_STORE_FS_LAYOUT_H

#include <stdbool.h>

#include <bpf/btf.h>

#include "revoke_bpf.h"

int fs_layout_offset(const struct btf *btf, const char *sname,
		     const char *member, long *off);
int fs_layout_btrfs(const struct btf *btf, struct revoke_fs_layout *l);
int fs_layout_overlayfs(const struct btf *btf, struct revoke_fs_layout *l);
int fs_layout_update(int fd, bool builtin);

#endif /* REVOKE_STORE_FS_LAYOUT_H */
