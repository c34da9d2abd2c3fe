/* SPDX-License-Identifier: GPL-2.0 */
/*
 * device_set.bpf.h - the revoked device set as the hooks read it: its
 * maps and the inline helpers that use them.
 *
 * A device is revoked by number (revoke-bpf add --rdev), through every
 * node of it, in "revoked_rdev" (see revoke_bpf.h), written by revoke-bpfd
 * (src/store/device_set.c).  Once the revoked instance has gone away
 * (its entry's removed_ns is stamped), files opened later reach the new
 * device of that number and work: they are remembered in "rdev_files".
 * Included by revoke.bpf.c.
 */
#ifndef REVOKE_DEVICE_SET_BPF_H
#define REVOKE_DEVICE_SET_BPF_H

/* Revoked devices, by number; see revoke_bpf.h. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_RDEV_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_rdev_key);
	__type(value, struct revoke_rdev_val);
} revoked_rdev SEC(".maps");

/* nr_rdev, the device set's counter (see struct revoke_rdev_state) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct revoke_rdev_state);
} revoke_rdev_state SEC(".maps");

/*
 * Files (by struct file address) opened after their revoked device went
 * away: they reach the new device with the same number, and work.  An
 * entry lives as long as its file (file_free_security drops it).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_RDEV_FILES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u64);		/* the entry's removed_ns at the open */
} rdev_files SEC(".maps");

/* The entry of device @rdev of @type (REVOKE_RDEV_*), or NULL. */
static __always_inline struct revoke_rdev_val *
device_set_find(__u32 rdev, __u32 type)
{
	struct revoke_rdev_key rk = { .rdev = rdev, .type = type };

	return bpf_map_lookup_elem(&revoked_rdev, &rk);
}

/*
 * Is @file, of a revoked device's number, one that works: opened after
 * the device went away, so it reaches whatever has that number now?  On
 * open (@hook file_open) it is remembered here with the removal's stamp;
 * if it cannot be (rdev_files full) it is denied like an old one.
 */
static __always_inline bool device_set_new_file(struct file *file, __u32 hook,
						const struct revoke_rdev_val *val)
{
	__u64 addr = (__u64)file, stamp = val->removed_ns;
	__u64 *opened_after;

	if (!stamp)
		return false;	/* not gone yet: every file is denied */
	if (hook == REVOKE_HOOK_FILE_OPEN)
		return !bpf_map_update_elem(&rdev_files, &addr, &stamp, BPF_ANY);
	opened_after = bpf_map_lookup_elem(&rdev_files, &addr);
	return opened_after && *opened_after == stamp;
}

/* @file is freed: forget it, its address may be reused by any file. */
static __always_inline void device_set_forget_file(struct file *file)
{
	__u64 addr = (__u64)file;

	bpf_map_delete_elem(&rdev_files, &addr);
}

#endif /* REVOKE_DEVICE_SET_BPF_H */
