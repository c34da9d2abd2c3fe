#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Revoking a device by number (add --rdev), in the guest, with a real
# device that really comes and goes: a loop device added and removed
# through /dev/loop-control (the kernel's own add and remove, devtmpfs
# node included).  A second node of the same number is made with mknod,
# as a container or a chroot would have; it is its own inode.

load lib

LOOPCTL=$REPO/build/tests/loopctl
N=50

setup() {
	D=$(mktemp -d /tmp/device.XXXXXX)
	KILL=()
	"$LOOPCTL" add $N >/dev/null
	[ -b /dev/loop$N ]
	mknod "$D/node" b 7 $N
}

teardown() {
	kill_holders
	revoke-bpf del --rdev 7:$N --block >/dev/null 2>&1 || true
	"$LOOPCTL" remove $N >/dev/null
}

@test "add --rdev denies the device through its devtmpfs node and a mknod'd node" {
	run "$PROBE" --rdonly --before "revoke-bpf add --rdev 7:$N --block --no-release >/dev/null" \
		/dev/loop$N read ioctl open
	expect_lines "read: EIO" "ioctl: EIO" "open: EIO"
	run "$PROBE" --rdonly "$D/node" read
	[ "$status" -eq 1 ]
	expect_lines "first open: EIO"
}

@test "a device of the other kind with the same number is not revoked" {
	revoke-bpf add --rdev 7:$N --char >/dev/null
	run "$PROBE" --rdonly "$D/node" read
	expect_lines "read: ok"
	revoke-bpf del --rdev 7:$N --char >/dev/null
}

@test "the holders of both nodes are released, and the device can then be removed" {
	start_holder "$D/a" hold /dev/loop$N
	KILL+=("$HOLDER_PID")
	start_holder "$D/b" hold "$D/node"
	KILL+=("$HOLDER_PID")
	HOLDER_PID=
	run "$LOOPCTL" remove $N
	expect_lines "remove: EBUSY"
	run revoke-bpf add --rdev 7:$N --block
	[ "$status" -eq 0 ]
	expect_lines "block device 7:$N: revoked" \
		"  holders 2: fds 2, mappings 0, waiters 0; woken 0, unmapped 0, released 2; failed 0"
	not_stopped "${KILL[0]}"
	not_stopped "${KILL[1]}"
	run "$LOOPCTL" remove $N
	expect_lines "remove: ok"
}

@test "after the removal a new device with the same number works through both nodes" {
	revoke-bpf add --rdev 7:$N --block >/dev/null
	"$LOOPCTL" remove $N >/dev/null
	revoke-bpf add --rdev 7:$N --block --removed --cause test-unplug >/dev/null
	run "$LOOPCTL" add $N
	expect_lines "add: ok"
	run "$PROBE" --rdonly /dev/loop$N read ioctl open
	expect_lines "read: ok" "ioctl: EINVAL" "open: ok"
	run "$PROBE" --rdonly "$D/node" read
	expect_lines "read: ok"
}

@test "a file of the device opened before a second removal is denied again" {
	revoke-bpf add --rdev 7:$N --block >/dev/null
	"$LOOPCTL" remove $N >/dev/null
	revoke-bpf add --rdev 7:$N --block --removed >/dev/null
	"$LOOPCTL" add $N >/dev/null
	# the new device is removed too, while a file of it is open
	run "$PROBE" --rdonly --before "revoke-bpf add --rdev 7:$N --block --removed --no-release >/dev/null" \
		"$D/node" read
	expect_lines "read: EIO"
}

@test "list shows a revoked device with its removal and cause" {
	revoke-bpf add --rdev 7:$N --block --cause test-unplug >/dev/null
	run revoke-bpf list
	[[ ${lines[1]} =~ ^block\ +7:$N\ +-\ .*\ -\ +cause=test-unplug$ ]]
	"$LOOPCTL" remove $N >/dev/null
	revoke-bpf add --rdev 7:$N --block --removed >/dev/null
	run revoke-bpf list --json
	[[ $output == *'"rdev":"7:'$N'","type":"block","kind":"device"'* ]]
	[[ $output != *'"removed_at":0,'* ]]
	[[ $output == *'"removed_at_rfc3339":"'[0-9]*'Z"'* ]]
	[[ $output == *'"cause":"test-unplug"'* ]]
	"$LOOPCTL" add $N >/dev/null
}

@test "del --rdev lifts the revocation, and status counts devices" {
	revoke-bpf add --rdev 7:$N --block >/dev/null
	run revoke-bpf status -v
	[[ $output =~ devices\ +1 ]]
	run revoke-bpf del --rdev 7:$N --block
	expect_lines "block device 7:$N: no longer revoked"
	run "$PROBE" --rdonly "$D/node" read
	expect_lines "read: ok"
}

@test "bad device arguments are refused with one line and change nothing" {
	run revoke-bpf add --rdev 7:$N
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: add: --rdev needs --char or --block: the same numbers name different devices of each kind"
	run revoke-bpf add --rdev 4096:0 --block
	[ "$status" -eq 2 ]
	run revoke-bpf add --rdev 7:$N --block --cause "two words"
	[ "$status" -eq 2 ]
	run "$CTLSEND" /run/revoke-bpf/control.sock \
		<<<"revoke-bpf/1 add rdev=7:$N type=pipe"
	[ "$output" = "err EINVAL bad request: type is not char or block" ]
	run "$CTLSEND" /run/revoke-bpf/control.sock \
		<<<"revoke-bpf/1 add rdev=7:$N ino=5 type=block"
	[ "$output" = "err EINVAL bad request: rdev names a device; it does not go with ino or dev" ]
	run revoke-bpf list
	expect_lines "nothing is revoked"
}

@test "add --rdev hangs up a tty with the kernel's own TIOCVHANGUP, waking its blocked reader" {
	local slave rdev
	start_holder "$D/out" pty /dev/ptmx
	slave=$(sed -n 's/^ready pid=[0-9]* slave=//p' "$D/out")
	rdev=$(printf '%d:%d' "0x$(stat -c %t "$slave")" "0x$(stat -c %T "$slave")")
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add --rdev "$rdev" --char
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "char device $rdev: revoked (1 hung up or revoked by the kernel)" ]
	# a hung-up tty reads end-of-file, as after a modem hangup
	wait_line "$D/out" "read: ok 0"
	revoke-bpf del --rdev "$rdev" --char >/dev/null
}

@test "add --rdev revokes an input device with the kernel's own EVIOCREVOKE, waking its blocked poller" {
	local node rdev i
	mkfifo "$D/in"
	"$REPO/build/tests/uinputdev" <"$D/in" >"$D/uinput" 2>&1 3>&- &
	KILL+=($!)
	exec 5>"$D/in"
	for i in $(seq 1 100); do
		grep -q '^ready ' "$D/uinput" && break
		sleep 0.05
	done
	node=$(sed -n 's/^ready //p' "$D/uinput")
	[ -c "$node" ] || { cat "$D/uinput"; false; }
	rdev=$(printf '%d:%d' "0x$(stat -c %t "$node")" "0x$(stat -c %T "$node")")
	# poll, not read: evdev refuses reads shorter than an input_event
	start_holder "$D/out" poll "$node"
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add --rdev "$rdev" --char
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "char device $rdev: revoked (1 hung up or revoked by the kernel)" ]
	# the kernel's revoke wakes the poll with POLLERR|POLLHUP, as an
	# unplug does (the pipeline's own completion would say 0x9)
	wait_line "$D/out" "poll: 1 revents=0x18"
	run cat "$node"
	[[ $output == *"Input/output error"* ]]
	exec 5>&-
	revoke-bpf del --rdev "$rdev" --char >/dev/null
}
