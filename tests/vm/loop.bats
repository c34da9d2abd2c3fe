#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A file that backs a loop device is revoked with its loop device: the
# loop driver does its I/O on the file without a hook, so the device is
# denied by number, detached, and scoped to the instance that went away
# (src/pipeline/loopdev.c); a new loop cannot be set up on a descriptor of the
# revoked file (bpf/reach.bpf.h).

load lib

LOOPCTL=$REPO/build/tests/loopctl
LOOPIO=$REPO/build/tests/loopio
N=52
M=53

setup() {
	D=$(mktemp -d /tmp/loop.XXXXXX)
	"$LOOPCTL" add $N >/dev/null
	"$LOOPCTL" add $M >/dev/null
	F=$D/backing
	G=$D/other
	dd if=/dev/zero of="$F" bs=64k count=16 2>/dev/null
	dd if=/dev/zero of="$G" bs=64k count=16 2>/dev/null
	run "$LOOPIO" bind $N "$F"
	expect_lines "bind: ok"
	FDEL="$(stat -c %i "$F") --dev $(devof "$F")"
}

teardown() {
	revoke-bpf del $FDEL >/dev/null 2>&1 || true
	revoke-bpf del --rdev 7:$N --block >/dev/null 2>&1 || true
	"$LOOPIO" unbind $N >/dev/null 2>&1 || true
	"$LOOPIO" unbind $M >/dev/null 2>&1 || true
	"$LOOPCTL" remove $N >/dev/null
	"$LOOPCTL" remove $M >/dev/null
}

@test "add FILE: reads, O_DIRECT reads and writes and discards through its loop device fail with EIO" {
	run "$LOOPIO" $N "$F" --before "revoke-bpf add $F >$D/add" \
		read dread dwrite discard
	cat "$D/add"
	expect_lines "read: EIO" "dread: EIO" "dwrite: EIO" "discard: EIO"
	grep -qx "  loop device 7:$N: denied, detached, released 2" "$D/add"
	# detached: the file is released
	[ ! -e /sys/block/loop$N/loop ]
	run "$PROBE" --rdonly /dev/loop$N read
	expect_lines "read: ok"
}

@test "LOOP_SET_FD and LOOP_CONFIGURE with a descriptor of the revoked file opened before fail with EIO" {
	run "$LOOPIO" $N "$F" --before "revoke-bpf add $F >/dev/null" \
		setfd:$M configure:$M
	expect_lines "setfd:$M: EIO" "configure:$M: EIO"
	[ ! -e /sys/block/loop$M/loop ]
}

@test "a loop device over another file is unaffected" {
	run "$LOOPIO" bind $M "$G"
	expect_lines "bind: ok"
	run "$LOOPIO" $M "$G" --before "revoke-bpf add $F >/dev/null" \
		read dread dwrite discard
	expect_lines "read: ok" "dread: ok" "dwrite: ok" "discard: ok"
	grep -q "^$(basename "$G")\$\|$G" /sys/block/loop$M/loop/backing_file
}

@test "a fresh loop over another file with the same number works afterwards" {
	revoke-bpf add "$F" >/dev/null
	run "$LOOPIO" bind $N "$G"
	expect_lines "bind: ok"
	run "$LOOPIO" $N "$G" read dread dwrite discard
	expect_lines "read: ok" "dread: ok" "dwrite: ok" "discard: ok"
}

@test "list and add --json tell the loop device revoked with the file" {
	run revoke-bpf add "$F" --json
	[ "$status" -eq 0 ]
	[[ $output == *'"loops":[{"rdev":"7:'$N'","denied":true,"detached":true,"released":0}]'* ]]
	run revoke-bpf list
	[[ $output == *"block 7:$N "*"(removed) cause=loop"* ]]
}
