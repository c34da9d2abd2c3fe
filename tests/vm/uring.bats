#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# io_uring keeps a file after every descriptor and mapping of it is gone:
# as a fixed file, or under a registered buffer over its pages.  Each test
# has build/tests/uring set that up, run "revoke-bpf add" (CMD, with the
# helper's pid in $URING_PID and its ring's descriptor in $URING_FD), then
# try the route and print the CQE's result.  Runs in the guest.

load lib

URING=$REPO/build/tests/uring

setup() {
	D=$(mktemp -d /tmp/uring.XXXXXX)
}

teardown() {
	local held=0
	lets_go_of_all || held=1
	revoke-bpf del "$D/file" >/dev/null 2>&1 || true
	revoke-bpf del "$D/fifo" >/dev/null 2>&1 || true
	return "$held"
}

# for sh -c SCRIPT PATH DIR: add PATH, its report to DIR/add, and the
# helper's pid and ring descriptor to DIR/ids
ADD_TO='revoke-bpf add "$0" >"$1/add"; echo "$URING_PID $URING_FD" >"$1/ids"'

@test "a registered buffer over a tmpfs file (mapping and fd closed): after add WRITE_FIXED and READ_FIXED fail with EFAULT, the file unchanged" {
	page S > "$D/file"
	run "$URING" buffer "$D/file" --before "sh -c '$ADD_TO' $D/file $D"
	expect_lines "write_fixed: EFAULT" "read_fixed: EFAULT"
	revoke-bpf del "$D/file" >/dev/null
	[ "$(cat "$D/file")" = "$(page S)" ]
}

@test "a registered buffer over a memfd another process keeps (mapping and fd closed): after add by inode WRITE_FIXED and READ_FIXED fail with EFAULT" {
	run "$URING" buffer --memfd --before \
		'revoke-bpf add --inode "$URING_INO" --dev "$URING_DEV" >/dev/null'
	expect_lines "write_fixed: EFAULT" "read_fixed: EFAULT"
}

@test "without add, the same buffer leaks and overwrites the file (the route the tests above close)" {
	page S > "$D/file"
	run "$URING" buffer "$D/file" --before true
	expect_lines "write_fixed: 4096" "leaked: SSSSSSSSSSSSSSSS" "read_fixed: 4096"
	[ "$(cat "$D/file")" = "$(page X)" ]
}

@test "a READ_FIXED into the buffer in flight during add is cancelled (ECANCELED): the data that arrives after does not reach the file" {
	page S > "$D/file"
	run "$URING" buffer-pending "$D/file" --before "revoke-bpf add $D/file >/dev/null"
	expect_lines "pending_read_fixed: ECANCELED"
	revoke-bpf del "$D/file" >/dev/null
	[ "$(cat "$D/file")" = "$(page S)" ]
}

@test "a FIFO registered as a fixed file (fd closed): after add IORING_OP_SPLICE out of it and into it fails with EBADF" {
	mkfifo "$D/fifo"
	run "$URING" fifo "$D/fifo" --before "revoke-bpf add $D/fifo >/dev/null"
	expect_lines "splice_out: EBADF" "splice_in: EBADF"
}

@test "with SQPOLL (a kernel thread submits), the fixed FIFO is taken away the same: splice out and in fail with EBADF" {
	mkfifo "$D/fifo"
	run "$URING" fifo-sqpoll "$D/fifo" --before "revoke-bpf add $D/fifo >/dev/null"
	expect_lines "splice_out: EBADF" "splice_in: EBADF"
}

@test "a splice out of a fixed FIFO, blocked in io-wq during add, is ended (EINTR; on 7.x the CQE carries ERESTARTSYS, 512)" {
	local want="pending_splice: EINTR"
	# 7.2 completes the cancelled io-wq splice with the kernel-internal
	# -ERESTARTSYS instead of -EINTR: ended all the same
	case $(uname -r) in 6.*) ;; *) want="pending_splice: errno 512" ;; esac
	mkfifo "$D/fifo"
	run "$URING" fifo-pending "$D/fifo" --before "revoke-bpf add $D/fifo >/dev/null"
	expect_lines "$want"
}

@test "MSG_RING cannot pass a revoked fixed file to another ring: EBADF, and the other ring has nothing" {
	mkfifo "$D/fifo"
	run "$URING" msgring "$D/fifo" --before "revoke-bpf add $D/fifo >/dev/null"
	expect_lines "msg_ring: EBADF" "splice_out: EBADF"
}

@test "a ring with the file as a fixed file and an anonymous registered buffer loses only the file: not killed, the buffer still works" {
	local pid fd
	mkfifo "$D/fifo"
	run "$URING" fixed-anonbuf "$D/fifo" --before "sh -c '$ADD_TO' $D/fifo $D"
	[ "$status" -eq 0 ]
	expect_lines "splice_out: EBADF" "write_fixed: 4096" "read_fixed: 4096"
	read -r pid fd < "$D/ids"
	output=$(cat "$D/add")
	expect_lines "$D/fifo: revoked (dev $(devof "$D/fifo") ino $(stat -c %i "$D/fifo"))" \
		"  holders 1: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0" \
		"  io_uring of pid $pid (fd $fd): fixed files 1, buffers 0 taken away"
}

@test "add names the process whose ring held the file, its ring descriptor and what was taken away" {
	local pid fd
	mkfifo "$D/fifo"
	run "$URING" fifo "$D/fifo" --before "sh -c '$ADD_TO' $D/fifo $D"
	[ "$status" -eq 0 ]
	read -r pid fd < "$D/ids"
	output=$(cat "$D/add")
	expect_lines "$D/fifo: revoked (dev $(devof "$D/fifo") ino $(stat -c %i "$D/fifo"))" \
		"  holders 1: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0" \
		"  io_uring of pid $pid (fd $fd): fixed files 1, buffers 0 taken away"
}

@test "a ring used only by its registered index (IORING_REGISTER_RING_FDS, fd closed) keeps the file: its owner is killed" {
	local pid fd
	mkfifo "$D/fifo"
	run "$URING" regring "$D/fifo" --before "sh -c '$ADD_TO' $D/fifo $D"
	[ "$status" -eq 137 ]
	read -r pid fd < "$D/ids"
	output=$(cat "$D/add")
	expect_lines "$D/fifo: revoked (dev $(devof "$D/fifo") ino $(stat -c %i "$D/fifo"))" \
		"  holders 1: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0, killed 1" \
		"  killed: pid $pid (uring) user root: io_uring: ring_registered_0_by_thread_${pid}_no_fd"
}

@test "with --spare, the owner of a ring used only by its registered index survives, add exits 4 and names it" {
	local rc pid fd
	mkfifo "$D/fifo"
	run "$URING" regring "$D/fifo" --before \
		"sh -c 'revoke-bpf add --spare \"\$0\" >\"\$1/add\"; echo \$? \$URING_PID \$URING_FD >\"\$1/ids\"' $D/fifo $D"
	[ "$status" -eq 0 ]
	read -r rc pid fd < "$D/ids"
	[ "$rc" -eq 4 ]
	output=$(cat "$D/add")
	expect_lines "$D/fifo: revoked (dev $(devof "$D/fifo") ino $(stat -c %i "$D/fifo"))" \
		"  holders 1: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 1" \
		"  failed: pid $pid (uring) user root: io_uring: ring_registered_0_by_thread_${pid}_no_fd"
}

@test "a ring kept only by the mappings of its queues (SQPOLL, fd closed) keeps the file: its owner is killed" {
	local pid fd
	mkfifo "$D/fifo"
	run "$URING" mapped "$D/fifo" --before "sh -c '$ADD_TO' $D/fifo $D"
	[ "$status" -eq 137 ]
	read -r pid fd < "$D/ids"
	output=$(cat "$D/add")
	expect_lines "$D/fifo: revoked (dev $(devof "$D/fifo") ino $(stat -c %i "$D/fifo"))" \
		"  holders 1: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0, killed 1" \
		"  killed: pid $pid (uring) user root: io_uring: ring_mapped_no_fd"
}

@test "add of an ext4 file does not walk registered buffers: a ring of 65 buffers over 64 MiB of anonymous memory (past the walk's bound) is left alone" {
	local l
	truncate -s 64M "$D/img"
	l=$(losetup -f)
	losetup "$l" "$D/img"
	mke2fs -q -t ext4 "$l"
	mkdir "$D/m"
	mount "$l" "$D/m"
	echo data > "$D/m/f"
	run "$URING" anon-pool 65 --before "revoke-bpf add $D/m/f"
	revoke-bpf del "$D/m/f" >/dev/null
	umount "$D/m"
	losetup -d "$l"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 0: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0" ]
	[ "${lines[-1]}" = alive ]
}
