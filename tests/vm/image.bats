#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A mounted filesystem image (issue 23, item 5): "add IMAGE" revokes the
# file, its loop device, and the filesystem mounted from that loop device
# (src/daemon/filesystems.c, filesystems_revoke_loops()): the loop driver
# reads the image without a hook, so without it a file read through the
# mount would keep its content.  Nothing is unmounted.

load lib

LOOPCTL=$REPO/build/tests/loopctl
LOOPIO=$REPO/build/tests/loopio
N=51

setup() {
	D=$(mktemp -d /tmp/image.XXXXXX)
	KILL=()
	IMG=$D/img
	"$LOOPCTL" add $N >/dev/null
	dd if=/dev/zero of="$IMG" bs=1M count=8 2>/dev/null
	/usr/sbin/mke2fs -q -F -t ext4 "$IMG"
	run "$LOOPIO" bind $N "$IMG"
	expect_lines "bind: ok"
	mkdir "$D/m"
	mount -t ext4 /dev/loop$N "$D/m"
	echo "some content" > "$D/m/file"
	sync
}

teardown() {
	kill_holders
	revoke-bpf del --fs-dev 7:$N >/dev/null 2>&1 || true
	revoke-bpf del "$IMG" >/dev/null 2>&1 || true
	umount "$D/m" 2>/dev/null || true
	revoke-bpf del --rdev 7:$N --block >/dev/null 2>&1 || true
	"$LOOPIO" unbind $N >/dev/null 2>&1 || true
	"$LOOPCTL" remove $N >/dev/null 2>&1 || true
	rm -rf "$D"
}

@test "add IMAGE: a file of the mounted image read through the mount, and a new open of it, fail with EIO; add names the filesystem" {
	run "$PROBE" --rdonly --before "revoke-bpf add $IMG >$D/add; echo \$? >$D/rc" \
		"$D/m/file" read open
	cat "$D/add"
	expect_lines "read: EIO" "open: EIO"
	# the loop device stays bound (mounted): reported, exit 3
	[ "$(cat "$D/rc")" = 3 ]
	grep -qx "$IMG: revoked (dev $(devof "$IMG") ino $(stat -c %i "$IMG"))" "$D/add"
	# the probe and the shell it runs the add from
	grep -qx "  filesystem 7:$N (ext4) mounted from it: revoked; holders 2, released 0, failed 0" "$D/add"
	# not unmounted
	grep -q "^/dev/loop$N $D/m ext4 " /proc/mounts
	run cat "$D/m/file"
	[ "$status" -eq 1 ]
	[[ $output == *"Input/output error"* ]]
	run revoke-bpf list
	printf '%s\n' "${lines[@]}" |
		grep -Eq "^fs +7:$N +\* +[0-9]+ +[0-9-]+ [0-9:]+ +- +cause=image\$"
}

@test "add IMAGE handles the holders on the mounted image: a cwd inside, a descriptor of a file" {
	local cwd_pid
	(cd "$D/m" && exec sleep 600) 3>&- &
	cwd_pid=$!
	KILL+=("$cwd_pid")
	start_holder "$D/h" hold "$D/m/file"
	until [ "$(readlink "/proc/$cwd_pid/cwd")" = "$D/m" ]; do sleep 0.05; done
	run revoke-bpf add "$IMG"
	[ "$status" -eq 3 ]
	[[ $output == *"  filesystem 7:$N (ext4) mounted from it: revoked; holders 2, released 0, failed 0"* ]]
	not_stopped "$cwd_pid"
	not_stopped "$HOLDER_PID"
	# the cwd is moved out; the descriptor is kept (a regular file is
	# not released by default) and denied
	[ "$(readlink "/proc/$cwd_pid/cwd")" = / ]
	[ "$(readlink "/proc/$HOLDER_PID/fd/3")" = "$D/m/file" ]
	run "$PROBE" --rdonly "/proc/$HOLDER_PID/fd/3" read
	expect_lines "first open: EIO"
}

@test "add IMAGE --json lists the filesystem under mounted" {
	run revoke-bpf add "$IMG" --json
	[ "$status" -eq 3 ]
	[[ $output == *'"mounted":[{"fs":"7:'$N'","fstype":"ext4","revoked":true,"holders":0,"released":0,"failed":0}]'* ]]
}

@test "del --fs-dev lifts the image's filesystem, and del IMAGE the image: the file reads again through the mount" {
	revoke-bpf add "$IMG" >/dev/null || [ $? -eq 3 ]
	run "$PROBE" --rdonly "$D/m/file" read
	expect_lines "first open: EIO"
	run revoke-bpf del --fs-dev 7:$N
	[ "$status" -eq 0 ]
	expect_lines "filesystem 7:$N: no longer revoked"
	run revoke-bpf del "$IMG"
	[ "$status" -eq 0 ]
	run "$PROBE" --rdonly "$D/m/file" read
	expect_lines "read: ok"
	[ "$(cat "$D/m/file")" = "some content" ]
	run revoke-bpf list
	! printf '%s\n' "${lines[@]}" | grep -q "^fs "
}

@test "an image that is not mounted revokes no filesystem, and another mounted image is untouched" {
	local other=$D/other
	dd if=/dev/zero of="$other" bs=1M count=1 2>/dev/null
	run revoke-bpf add "$other"
	[ "$status" -eq 0 ]
	[[ $output != *"mounted from it"* ]]
	run "$PROBE" --rdonly "$D/m/file" read
	expect_lines "read: ok"
	revoke-bpf del "$other" >/dev/null
}
