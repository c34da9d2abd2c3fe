#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a revoked inode denies, and what it leaves alone.  Runs in the
# guest (tests/vm/run), where BPF LSM is active.

load lib

setup() {
	F=$(new_file)
}

teardown() {
	revoke-bpf del "$F" >/dev/null 2>&1 || true
}

@test "every operation works on a file that is not revoked" {
	run "$PROBE" "$F" read write pread pwrite readv writev sendfile \
		splice_read splice_write mmap ioctl open
	[ "$status" -eq 0 ]
	expect_lines "read: ok" "write: ok" "pread: ok" "pwrite: ok" "readv: ok" \
		"writev: ok" "sendfile: ok" "splice_read: ok" "splice_write: ok" \
		"mmap: ok" "ioctl: ok" "open: ok"
}

@test "read on an fd opened before the revocation fails with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" read
	expect_lines "read: EIO"
}

@test "write on an fd opened before the revocation fails with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" write
	expect_lines "write: EIO"
}

@test "pread and preadv fail with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" pread readv
	expect_lines "pread: EIO" "readv: EIO"
}

@test "pwrite and pwritev fail with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" pwrite writev
	expect_lines "pwrite: EIO" "writev: EIO"
}

@test "sendfile and splice in both directions fail with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" sendfile \
		splice_read splice_write
	expect_lines "sendfile: EIO" "splice_read: EIO" "splice_write: EIO"
}

@test "a new mmap of an fd opened before the revocation fails with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" mmap
	expect_lines "mmap: EIO"
}

@test "an ioctl fails with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" ioctl
	expect_lines "ioctl: EIO"
}

@test "a new open fails with EIO" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" open
	expect_lines "open: EIO"
}

@test "exec of a revoked program fails with EIO" {
	local prog=/tmp/revoked-prog.$$
	cp "$REPO/build/tests/holder" "$prog"
	run "$prog"
	[ "$status" -ne 126 ]
	revoke "$prog"
	run "$prog"
	[ "$status" -eq 126 ]
	[[ $output == *"$prog: Input/output error" ]]
	revoke-bpf del "$prog" >/dev/null
	rm -f "$prog"
}

@test "the file's content is unchanged by denied writes" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" write pwrite
	revoke-bpf del "$F" >/dev/null
	[ "$(cat "$F")" = "some content" ]
}

@test "an unrelated file is untouched" {
	local other
	other=$(new_file)
	revoke "$F"
	run "$PROBE" "$other" read write mmap ioctl open
	expect_lines "read: ok" "write: ok" "mmap: ok" "ioctl: ok" "open: ok"
}

@test "a hard link to a revoked inode is denied" {
	ln "$F" "$F.link"
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F.link" read open
	expect_lines "read: EIO" "open: EIO"
	rm -f "$F.link"
}

@test "revoking through a hard link revokes the original name too" {
	ln "$F" "$F.link"
	revoke "$F.link"
	run "$PROBE" "$F" read
	[ "$status" -eq 1 ]
	expect_lines "first open: EIO"
	revoke-bpf del "$F.link" >/dev/null
	rm -f "$F.link"
}

@test "del restores access on the fd opened before" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null && revoke-bpf del $F >/dev/null" \
		"$F" read write mmap ioctl open
	expect_lines "read: ok" "write: ok" "mmap: ok" "ioctl: ok" "open: ok"
}

@test "a revocation is keyed by filesystem: the same inode number elsewhere is untouched" {
	mkdir -p /mnt/fs_a /mnt/fs_b
	mount -t tmpfs a /mnt/fs_a
	mount -t tmpfs b /mnt/fs_b
	echo a > /mnt/fs_a/f
	echo b > /mnt/fs_b/f
	# two fresh tmpfs instances number their inodes alike
	[ "$(stat -c %i /mnt/fs_a/f)" = "$(stat -c %i /mnt/fs_b/f)" ]
	[ "$(stat -c %d /mnt/fs_a/f)" != "$(stat -c %d /mnt/fs_b/f)" ]
	revoke /mnt/fs_a/f
	run "$PROBE" /mnt/fs_b/f read open
	expect_lines "read: ok" "open: ok"
	run cat /mnt/fs_a/f
	[ "$status" -eq 1 ]
	[[ $output == *"Input/output error"* ]]
	revoke-bpf del /mnt/fs_a/f >/dev/null
	umount /mnt/fs_a /mnt/fs_b
}

@test "st_dev is converted to the kernel's s_dev on a block-device filesystem" {
	dd if=/dev/zero of=/tmp/ext4.img bs=1M count=8 2>/dev/null
	/usr/sbin/mke2fs -q -F -t ext4 /tmp/ext4.img
	mkdir -p /mnt/ext4
	mount -o loop /tmp/ext4.img /mnt/ext4
	echo e > /mnt/ext4/f
	local dev
	dev=$(devof /mnt/ext4)
	# a real major number, where st_dev and the kernel's s_dev differ
	[ "${dev%%:*}" -ne 0 ]
	run "$PROBE" --before "revoke-bpf add /mnt/ext4/f >/dev/null" /mnt/ext4/f read open
	expect_lines "read: EIO" "open: EIO"
	run revoke-bpf list --json
	[[ $output == *"\"dev\":\"$dev\",\"ino\":$(stat -c %i /mnt/ext4/f),"* ]]
	revoke-bpf del /mnt/ext4/f >/dev/null
	umount /mnt/ext4
	rm -f /tmp/ext4.img
}

@test "each denial is counted in list" {
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" read write ioctl
	run revoke-bpf list --json
	[[ $output == *"\"ino\":$(stat -c %i "$F"),\"kind\":\"revoked\",\"revoked_at\":"*",\"denials\":3"[,}]* ]]
}
