/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pause_set.bpf.h - devices paused for one user (revoke-bpf pause), as
 * the hooks read them: their maps and the function that decides.
 *
 * "paused" holds one entry per (device, user), "pause_devs" how many
 * users each device is paused for, "pause_majors" their major numbers,
 * "pause_slices" the users' slices of the systemd hierarchy;
 * "pause_classes" the classes paused, which only revoke-bpfd reads.
 * revoke-bpfd writes all five
 * (src/store/pause_set.c).  An operation on a paused device is denied
 * when the user it is paused for is
 * - the current task's real or effective uid,
 * - the real or effective uid the file was opened with (f_cred), so that
 *   a descriptor passed to another user over SCM_RIGHTS or pidfd_getfd()
 *   stays paused,
 * - or the owner of the user-U.slice cgroup the task runs under, so that
 *   a rootless container's subuids are U's too.
 * The entry's errno (ENODEV or EIO) is what the operation fails with.
 * revoke-bpfd itself passes ("revoke_reach", also read by reach.bpf.h):
 * at a resume it drains what the device queued in the user's files
 * during the pause (src/pipeline/pause_wake.c).  Included by revoke.bpf.c.
 */
#ifndef REVOKE_PAUSE_SET_BPF_H
#define REVOKE_PAUSE_SET_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_PAUSE_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_pause_key);
	__type(value, struct revoke_pause_val);
} paused SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_PAUSE_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_rdev_key);
	__type(value, __u32);
} pause_devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_PAUSE_SLICES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct revoke_pause_slice);
} pause_slices SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct revoke_pause_majors);
} pause_majors SEC(".maps");

/* Written by the daemon: see struct revoke_reach_state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct revoke_reach_state);
} revoke_reach SEC(".maps");

/* Is the current task revoke-bpfd itself? */
static __always_inline bool daemon_self(void)
{
	struct revoke_reach_state *rs;
	__u32 zero = 0;

	rs = bpf_map_lookup_elem(&revoke_reach, &zero);
	return rs && rs->daemon_tgid &&
	       rs->daemon_tgid == bpf_get_current_pid_tgid() >> 32;
}

/* Paused classes: kept here for revoke-bpfd, pinned like the rest. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, REVOKE_PAUSE_CLASSES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct revoke_pause_class);
	__type(value, struct revoke_pause_val);
} pause_classes SEC(".maps");

/* The pause of @key's device for @uid, or NULL. */
static __always_inline struct revoke_pause_val *
pause_find(struct revoke_pause_key *key, __u32 uid)
{
	key->uid = uid;
	return bpf_map_lookup_elem(&paused, key);
}

/* The user whose slice the current task runs under, or -1. */
static __always_inline __s64 pause_slice_uid(void)
{
	struct revoke_pause_slice *s;
	__u64 id;
	int level;

	for (level = 1; level <= REVOKE_PAUSE_SLICE_LEVELS; level++) {
		id = bpf_get_current_ancestor_cgroup_id(level);
		if (!id)
			break;
		s = bpf_map_lookup_elem(&pause_slices, &id);
		if (s && s->level == level)
			return s->uid;
	}
	return -1;
}

/*
 * May a pause name a device of @rdev's major?  One test of its bit in
 * "pause_majors" (an array lookup the verifier inlines).
 */
static __always_inline bool pause_major_marked(__u32 rdev)
{
	__u32 zero = 0, major = rdev >> REVOKE_KDEV_MINORBITS;
	struct revoke_pause_majors *m;

	m = bpf_map_lookup_elem(&pause_majors, &zero);
	return !m || (m->bits[major / 64] & (1ULL << (major % 64)));
}

/*
 * Is device @rdev of @type paused for anyone?  A device whose major no
 * pause names passes after pause_major_marked(); the others cost a
 * lookup in "pause_devs".
 */
static __always_inline bool pause_dev_paused(__u32 rdev, __u32 type)
{
	struct revoke_rdev_key dk = { .rdev = rdev, .type = type };

	if (!pause_major_marked(rdev))
		return false;
	return bpf_map_lookup_elem(&pause_devs, &dk);
}

/**
 * revoke_pause_errno() - is device @rdev of @type paused for whoever
 *	makes this operation, on a file opened with @f_uid and @f_euid?
 * @rdev: the device number, kernel encoding
 * @type: enum revoke_rdev_type
 * @f_uid: the real uid of the file's credentials (f_cred)
 * @f_euid: their effective uid
 *
 * A global function: the verifier checks it once per program, not once
 * per call site; it takes scalars only (a global function may not be
 * handed the hook's trusted pointers).
 *
 * Return: the errno to fail with (positive), or 0 to go on.
 */
__noinline int revoke_pause_errno(__u32 rdev, __u32 type, __u32 f_uid,
				  __u32 f_euid)
{
	struct revoke_pause_key pk = { .rdev = rdev, .type = type };
	struct task_struct *task = bpf_get_current_task_btf();
	struct revoke_pause_val *val;
	__u32 uid, euid;
	__s64 slice;

	uid = BPF_CORE_READ(task, cred, uid.val);
	euid = BPF_CORE_READ(task, cred, euid.val);
	val = pause_find(&pk, uid);
	if (!val && euid != uid)
		val = pause_find(&pk, euid);
	if (!val && f_uid != uid && f_uid != euid)
		val = pause_find(&pk, f_uid);
	if (!val && f_euid != f_uid && f_euid != uid && f_euid != euid)
		val = pause_find(&pk, f_euid);
	if (!val) {
		slice = pause_slice_uid();
		if (slice >= 0)
			val = pause_find(&pk, (__u32)slice);
	}
	if (!val)
		return 0;
	__sync_fetch_and_add(&val->denials, 1);
	return val->err;
}

#endif /* REVOKE_PAUSE_SET_BPF_H */
