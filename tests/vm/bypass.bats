#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Every known way around a revocation.  Each test opens the file (and maps
# it, for --map) before "revoke-bpf add" runs, then takes one route to the
# object and asserts what that route now gets.  Runs in the guest.

load lib

setup() {
	F=$(new_file)
	ADD="revoke-bpf add $F >/dev/null"
}

teardown() {
	revoke-bpf del "$F" >/dev/null 2>&1 || true
	umount /tmp/ovl/merged /tmp/bound 2>/dev/null || true
}

# ---- other names for the same inode -------------------------------------

@test "reopening through /proc/self/fd fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" proc_fd
	expect_lines "proc_fd: EIO"
}

@test "reopening a mapping through /proc/self/map_files fails with EIO" {
	run "$PROBE" --map --before "$ADD" "$F" map_files
	expect_lines "map_files: EIO"
}

@test "O_PATH, then a reopen through /proc/self/fd, fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" opath_reopen
	expect_lines "opath_reopen: EIO"
}

@test "O_PATH, then linkat to a new name, then opening that name, fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" opath_linkat
	expect_lines "opath_linkat: EIO"
}

@test "a bind mount of the file made after the revocation is denied" {
	revoke "$F"
	touch /tmp/bound
	mount --bind "$F" /tmp/bound
	run cat /tmp/bound
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"Input/output error"* ]]
}

@test "the file reached from another mount namespace is denied" {
	revoke "$F"
	run unshare -m sh -c "mount -t tmpfs none /mnt && mkdir /mnt/t &&
		mount --bind /tmp /mnt/t && cat /mnt/t/${F##*/}"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ $output == *"Input/output error"* ]]
}

# ---- other descriptors for the same open file ---------------------------

@test "a dup3 of a descriptor opened before fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" dup_read
	expect_lines "dup_read: EIO"
}

@test "a descriptor inherited across fork fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" fork_read
	expect_lines "fork_read: EIO"
}

@test "a descriptor sent over a unix socket after the revocation is not installed" {
	run "$PROBE" --before "$ADD" "$F" scm_rights
	expect_lines "scm_rights: MSG_CTRUNC"
}

@test "pidfd_getfd of a revoked file fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" pidfd_getfd
	expect_lines "pidfd_getfd: EIO"
}

# ---- other ways to move data --------------------------------------------

@test "preadv2 and pwritev2 fail with EIO" {
	run "$PROBE" --before "$ADD" "$F" preadv2 pwritev2
	expect_lines "preadv2: EIO" "pwritev2: EIO"
}

@test "copy_file_range from and to the file fails with EIO" {
	run "$PROBE" --before "$ADD" "$F" copy_in copy_out
	expect_lines "copy_in: EIO" "copy_out: EIO"
}

@test "io_uring reads and writes complete with EIO" {
	run "$PROBE" --before "$ADD" "$F" io_uring_read io_uring_write
	expect_lines "io_uring_read: EIO" "io_uring_write: EIO"
}

@test "POSIX AIO reads and writes complete with EIO" {
	run "$PROBE" --before "$ADD" "$F" aio_read aio_write
	expect_lines "aio_read: EIO" "aio_write: EIO"
}

@test "a FIFO's buffered data cannot be spliced or teed out after add" {
	# splice and tee between two pipes check no file permission; add
	# releases a FIFO by default, so the descriptor is the dead file
	local fifo=/tmp/bypass.fifo
	rm -f "$fifo"
	mkfifo "$fifo"
	run "$PROBE" --fill --before "revoke-bpf add $fifo >/dev/null" "$fifo" \
		splice_pipe tee read
	revoke-bpf del "$fifo" >/dev/null
	expect_lines "splice_pipe: EIO" "tee: EINVAL" "read: EIO"
}

@test "with --no-release a FIFO's buffered data can still be spliced out (no hook)" {
	local fifo=/tmp/bypass.fifo
	rm -f "$fifo"
	mkfifo "$fifo"
	run "$PROBE" --fill --before "revoke-bpf add --no-release $fifo >/dev/null" \
		"$fifo" splice_pipe read
	revoke-bpf del "$fifo" >/dev/null
	expect_lines "splice_pipe: ok" "read: EIO"
}

# ---- control operations --------------------------------------------------

@test "flock, fcntl record locks and OFD locks fail with EIO" {
	run "$PROBE" --before "$ADD" "$F" flock fcntl_lock ofd_lock
	expect_lines "flock: EIO" "fcntl_lock: EIO" "ofd_lock: EIO"
}

@test "fcntl F_SETFL fails with EIO, while F_GETFL and F_SETFD still work" {
	run "$PROBE" --before "$ADD" "$F" fcntl_setfl fcntl_getfl fcntl_cloexec
	expect_lines "fcntl_setfl: EIO" "fcntl_getfl: ok" "fcntl_cloexec: ok"
}

@test "ftruncate and truncate fail with EIO and leave the file's size" {
	local size
	size=$(stat -c %s "$F")
	run "$PROBE" --before "$ADD" "$F" ftruncate truncate
	expect_lines "ftruncate: EIO" "truncate: EIO"
	[ "$(stat -c %s "$F")" = "$size" ]
}

@test "open with O_TRUNC fails with EIO and leaves the file's size" {
	local size
	size=$(stat -c %s "$F")
	run "$PROBE" --before "$ADD" "$F" open_trunc
	expect_lines "open_trunc: EIO"
	[ "$(stat -c %s "$F")" = "$size" ]
}

# ---- other ways into the kernel ------------------------------------------

@test "a 32-bit process's ioctls work on a file that is not revoked" {
	need_probe32
	run "$PROBE32" "$F" fionread figetbsz
	expect_lines "fionread: ok" "figetbsz: ok"
}

@test "a 32-bit process's ioctls (FIONREAD, FIGETBSZ) fail with EIO" {
	need_probe32
	run "$PROBE32" --before "$ADD" "$F" fionread figetbsz
	expect_lines "fionread: EIO" "figetbsz: EIO"
}

@test "finit_module of a descriptor opened before add fails with EIO in kernel_read_file" {
	revoke-bpf events --count 1 > /tmp/events.out &
	local ev=$!
	wait_subscribed 1
	run "$PROBE" --rdonly --before "$ADD" "$F" finit_module
	expect_lines "finit_module: EIO"
	wait $ev
	grep -q " comm=probe dev=$(devof "$F") ino=$(stat -c %i "$F") hook=kernel_read_file op=read " /tmp/events.out
}

@test "an io_uring passthrough command (block discard) on a revoked loop device fails with EIO" {
	dd if=/dev/zero of=/tmp/blk.img bs=1M count=1 2>/dev/null
	local dev
	dev=$(losetup -f)
	losetup "$dev" /tmp/blk.img
	run "$PROBE" "$dev" uring_cmd_discard
	if [ "$output" != "uring_cmd_discard: ok" ]; then
		losetup -d "$dev"
		skip "this kernel's block devices take no io_uring command ($output)"
	fi
	run "$PROBE" --before "revoke-bpf add --no-release $dev >/dev/null" "$dev" uring_cmd_discard
	revoke-bpf del "$dev" >/dev/null
	losetup -d "$dev"
	expect_lines "uring_cmd_discard: EIO"
}

@test "a pty's SIGIO reaches the owner of a slave that is not revoked" {
	run "$PROBE" --async /dev/ptmx sigio
	expect_lines "sigio: ok"
}

@test "SIGIO of a revoked pty slave is not sent to its owner" {
	[ "$(prog_state revoke_file_send_sigiotask)" != skipped ] ||
		skip "this kernel's fown_struct has no file for file_send_sigiotask (Linux 6.12)"
	run "$PROBE" --async --before 'revoke-bpf add --no-release "$PROBE_PATH" >/dev/null' \
		/dev/ptmx sigio
	expect_lines "sigio: none"
}

# ---- mappings ------------------------------------------------------------

@test "mprotect of a mapping add could not replace (traced holder) fails with EIO" {
	# under strace, spared, the probe's own mapping is left in place
	# (reported as traced, add exits 4); only the hook stands between it
	# and PROT_WRITE
	run strace -I 1 -o /dev/null "$PROBE" --map \
		--before "revoke-bpf add $F --spare >/dev/null; [ \$? -eq 4 ]" \
		"$F" mprotect_write
	expect_lines "mprotect_write: EIO"
}

@test "process_vm_readv of another process's mapping faults (EFAULT) after add" {
	run "$PROBE" --map --before "$ADD" "$F" vm_readv map_read
	expect_lines "vm_readv: EFAULT" "map_read: SIGBUS"
}

# ---- overlayfs -----------------------------------------------------------

# mount_overlay: /tmp/ovl/{lower,upper,work,merged}, "file" in lower.
mount_overlay() {
	rm -rf /tmp/ovl
	mkdir -p /tmp/ovl/lower /tmp/ovl/upper /tmp/ovl/work /tmp/ovl/merged
	echo "lower content" > /tmp/ovl/lower/file
	mount -t overlay overlay -o lowerdir=/tmp/ovl/lower,upperdir=/tmp/ovl/upper,workdir=/tmp/ovl/work \
		/tmp/ovl/merged
}

@test "revoking the lower file denies it through overlayfs" {
	mount_overlay
	# read-only: a read-write open would copy the file up
	run "$PROBE" --rdonly --before "revoke-bpf add /tmp/ovl/lower/file >/dev/null" \
		/tmp/ovl/merged/file read open
	revoke-bpf del /tmp/ovl/lower/file >/dev/null
	expect_lines "read: EIO" "open: EIO"
}

@test "revoking the upper file (after copy-up) denies it through overlayfs" {
	mount_overlay
	echo "copied up" >> /tmp/ovl/merged/file
	[ -f /tmp/ovl/upper/file ]
	run "$PROBE" --before "revoke-bpf add /tmp/ovl/upper/file >/dev/null" \
		/tmp/ovl/merged/file read write open
	revoke-bpf del /tmp/ovl/upper/file >/dev/null
	expect_lines "read: EIO" "write: EIO" "open: EIO"
}

@test "revoking the merged name denies every access through the overlay" {
	mount_overlay
	run "$PROBE" --before "revoke-bpf add /tmp/ovl/merged/file >/dev/null" \
		/tmp/ovl/merged/file read open
	revoke-bpf del /tmp/ovl/merged/file >/dev/null
	expect_lines "read: EIO" "open: EIO"
}

@test "a copy-up of a revoked lower file fails with EIO and copies nothing" {
	mount_overlay
	revoke /tmp/ovl/lower/file
	run "$PROBE" /tmp/ovl/merged/file write
	revoke-bpf del /tmp/ovl/lower/file >/dev/null
	expect_lines "first open: EIO"
	[ ! -e /tmp/ovl/upper/file ]
}

# mmap_file checks the overlayfs file's real file, on every kernel;
# mmap_backing_file (6.12 and later) checks the real file itself.
@test "an mmap through overlayfs of a revoked lower file fails with EIO" {
	mount_overlay
	run "$PROBE" --rdonly --before "revoke-bpf add /tmp/ovl/lower/file >/dev/null" \
		/tmp/ovl/merged/file mmap
	revoke-bpf del /tmp/ovl/lower/file >/dev/null
	expect_lines "mmap: EIO"
}
