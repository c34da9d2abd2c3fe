#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What pins a filesystem without a descriptor (src/umount/umount.h),
# found and released on a real kernel through build/tests/fs_pins_probe:
# an ext4 on a loop device, with a tmpfs mounted below it, the same
# filesystem in a second mount namespace, a swap file on it, and a second
# loop device backed by an image on it with an ext4 mounted from that.
# The paths have spaces in them (mountinfo and /proc/swaps write \040).
# No daemon: the module is user space alone.

load lib

FS_PINS=$REPO/build/tests/fs_pins_probe
IMG=/tmp/fs-pins
OUT=/mnt/outer
IN=/mnt/inner

setup_file() {
	mkdir -p "$IMG"
}

teardown_file() {
	rm -rf "$IMG"
}

# s_dev MOUNTPOINT: its MAJ:MIN in this namespace's mountinfo (which
# writes a space as \040).
s_dev() {
	local esc=${1// /\\040} id parent dev root mp rest d=
	while read -r id parent dev root mp rest; do
		[ "$mp" != "$esc" ] || d=$dev
	done < /proc/self/mountinfo
	echo "$d"
}

# attach FILE: bind FILE to a free loop device, and print its name.
attach() {
	local dev
	dev=$(losetup -f)
	losetup "$dev" "$1"
	echo "$dev"
}

# ns_of PID: the inode of PID's mount namespace.
ns_of() {
	readlink "/proc/$1/ns/mnt" | tr -dc 0-9
}

# start_ns VAR ARGS...: a process in a new mount namespace made by
# "unshare ARGS... sleep", its pid in VAR and in KILL.
start_ns() {
	local var=$1 pid i
	shift
	unshare "$@" sleep 1000 3>&- &
	pid=$!
	KILL+=("$pid")
	# unshare has made the namespace when its pid's differs from ours
	for i in $(seq 1 100); do
		[ "$(ns_of "$pid")" != "$(ns_of $$)" ] && [ -n "$(ns_of "$pid")" ] && break
		sleep 0.05
	done
	printf -v "$var" %s "$pid"
}

setup() {
	KILL=()
	truncate -s 64M "$IMG/outer.img"
	LO=$(attach "$IMG/outer.img")
	mke2fs -q -t ext4 "$LO" >/dev/null
	mkdir -p "$OUT" "$IN"
	mount "$LO" "$OUT"
	mkdir "$OUT/s p"
	mount -t tmpfs sub "$OUT/s p"
	dd if=/dev/zero of="$OUT/swap file" bs=1M count=8 2>/dev/null
	chmod 600 "$OUT/swap file"
	mkswap "$OUT/swap file" >/dev/null
	swapon "$OUT/swap file"
	truncate -s 16M "$OUT/inner.img"
	LI=$(attach "$OUT/inner.img")
	mke2fs -q -t ext4 "$LI" >/dev/null
	mount "$LI" "$IN"
	ODEV=$(s_dev "$OUT")
	SDEV=$(s_dev "$OUT/s p")
	IDEV=$(s_dev "$IN")
	LN=${LI#/dev/loop}
	start_ns NS2PID -m --propagation private
	NS1=$(ns_of 1)
	NS2=$(ns_of "$NS2PID")
}

teardown() {
	local p
	for p in "${KILL[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	swapoff "$OUT/swap file" 2>/dev/null || true
	for p in /mnt/decoy/m /mnt/decoy "$OUT/e/m" "$OUT/d/m"; do
		umount "$p" 2>/dev/null || true
	done
	umount "$IN" 2>/dev/null || true
	umount "$OUT/s p" 2>/dev/null || true
	[ -z "${LI:-}" ] || losetup -d "$LI" 2>/dev/null || true
	umount "$OUT" 2>/dev/null || true
	[ -z "${LO:-}" ] || losetup -d "$LO" 2>/dev/null || true
	rm -f "$IMG/outer.img"
}

@test "find: the outer ext4's mounts in both namespaces, its submount, its swap file, the loop device on it with the inner ext4" {
	[ "$NS1" != "$NS2" ]
	run "$FS_PINS" find "$ODEV"
	echo "$output"
	[ "$status" -eq 0 ]
	expect_lines \
		"pin kind=mount ns=$NS1 pid=1 dev=$SDEV path=$OUT/s%20p submount=yes" \
		"pin kind=mount ns=$NS1 pid=1 dev=$ODEV path=$OUT submount=no" \
		"pin kind=mount ns=$NS2 pid=$NS2PID dev=$SDEV path=$OUT/s%20p submount=yes" \
		"pin kind=mount ns=$NS2 pid=$NS2PID dev=$ODEV path=$OUT submount=no" \
		"pin kind=swap ns=$NS1 pid=1 path=$OUT/swap%20file" \
		"pin kind=loop rdev=7:$LN backing=$OUT/inner.img ns=$NS1 match=path,status mounted=$IDEV"
}

@test "find: the inner ext4 is mounted in both namespaces and pins nothing else" {
	run "$FS_PINS" find "$IDEV"
	[ "$status" -eq 0 ]
	expect_lines \
		"pin kind=mount ns=$NS1 pid=1 dev=$IDEV path=$IN submount=no" \
		"pin kind=mount ns=$NS2 pid=$NS2PID dev=$IDEV path=$IN submount=no"
}

@test "release the inner ext4, then the outer: gone from both namespaces, swap off, loop detached, devices free" {
	local ln_o=${LO#/dev/loop}
	run "$FS_PINS" release "$IDEV"
	echo "$output"
	[ "$status" -eq 0 ]
	expect_lines \
		"pin kind=mount ns=$NS1 pid=1 dev=$IDEV path=$IN submount=no" \
		"pin kind=mount ns=$NS2 pid=$NS2PID dev=$IDEV path=$IN submount=no" \
		"unpin step=umount ns=$NS1 pid=1 path=$IN dev=$IDEV submount=no result=done" \
		"unpin step=umount ns=$NS2 pid=$NS2PID path=$IN dev=$IDEV submount=no result=done" \
		"gone: yes"
	[ ! -e "/sys/fs/ext4/loop$LN" ]
	run "$FS_PINS" release "$ODEV"
	echo "$output"
	[ "$status" -eq 0 ]
	expect_lines \
		"pin kind=mount ns=$NS1 pid=1 dev=$SDEV path=$OUT/s%20p submount=yes" \
		"pin kind=mount ns=$NS1 pid=1 dev=$ODEV path=$OUT submount=no" \
		"pin kind=mount ns=$NS2 pid=$NS2PID dev=$SDEV path=$OUT/s%20p submount=yes" \
		"pin kind=mount ns=$NS2 pid=$NS2PID dev=$ODEV path=$OUT submount=no" \
		"pin kind=swap ns=$NS1 pid=1 path=$OUT/swap%20file" \
		"pin kind=loop rdev=7:$LN backing=$OUT/inner.img ns=$NS1 match=path,status mounted=no" \
		"unpin step=swapoff ns=$NS1 pid=1 path=$OUT/swap%20file result=done" \
		"unpin step=detach rdev=7:$LN path=/dev/loop$LN result=done" \
		"unpin step=umount ns=$NS1 pid=1 path=$OUT/s%20p dev=$SDEV submount=yes result=done" \
		"unpin step=umount ns=$NS1 pid=1 path=$OUT dev=$ODEV submount=no result=done" \
		"unpin step=umount ns=$NS2 pid=$NS2PID path=$OUT/s%20p dev=$SDEV submount=yes result=done" \
		"unpin step=umount ns=$NS2 pid=$NS2PID path=$OUT dev=$ODEV submount=no result=done" \
		"gone: yes"
	# every one of those, seen from outside the module
	! grep -q " $ODEV \| $SDEV \| $IDEV " /proc/1/mountinfo
	! grep -q " $ODEV \| $SDEV \| $IDEV " "/proc/$NS2PID/mountinfo"
	[ "$(wc -l < /proc/swaps)" -eq 1 ]
	[ ! -e "/sys/block/loop$LN/loop" ]
	[ ! -e "/sys/fs/ext4/loop$ln_o" ]
	[ ! -e "/sys/fs/ext4/loop$LN" ]
	# the outer loop device is free to detach: nothing holds it
	losetup -d "$LO"
	LO=
	run "$FS_PINS" find "$ODEV"
	[ "$status" -eq 2 ]
	[[ $output == "find: no mount of $ODEV in "*" mount namespaces" ]]
}

@test "release: a loop device with a filesystem mounted from it is left, EBUSY, and keeps the outer ext4 busy" {
	run "$FS_PINS" release "$ODEV"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"
unpin step=detach rdev=7:$LN path=/dev/loop$LN mounted=$IDEV result=failed reason=EBUSY
"* ]]
	[[ $output == *"
unpin step=umount ns=$NS1 pid=1 path=$OUT dev=$ODEV submount=no result=failed reason=EBUSY
"* ]]
	[[ $output == *"
gone: no mounted in mount namespace $NS1 (pid 1) at $OUT" ]]
	# not lazy: the inner image is still read and mounted where it was
	grep -q " $ODEV / $OUT " /proc/1/mountinfo
	grep -q " $IDEV / $IN " /proc/1/mountinfo
}

@test "release: a mount still in use fails with EBUSY, is reported, and stays (never detached lazily)" {
	(cd "$OUT" && exec sleep 1000) 3>&- &
	KILL+=($!)
	# the inner ext4 is in the second namespace too: released by the probe
	"$FS_PINS" release "$IDEV" >/dev/null
	run "$FS_PINS" release "$ODEV"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"
unpin step=detach rdev=7:$LN path=/dev/loop$LN result=done
unpin step=umount ns=$NS1 pid=1 path=$OUT/s%20p dev=$SDEV submount=yes result=done
unpin step=umount ns=$NS1 pid=1 path=$OUT dev=$ODEV submount=no result=failed reason=EBUSY
unpin step=umount ns=$NS2 pid=$NS2PID path=$OUT/s%20p dev=$SDEV submount=yes result=done
unpin step=umount ns=$NS2 pid=$NS2PID path=$OUT dev=$ODEV submount=no result=done
gone: no mounted in mount namespace $NS1 (pid 1) at $OUT" ]]
	grep -q " $ODEV / $OUT " /proc/1/mountinfo
	[ -e "/sys/fs/ext4/${LO#/dev/}" ]
}

# The tmpfs's parent (the ext4) is shared: its umount in the first
# namespace propagates to its peer in the third, which the probe then finds
# gone; the ext4's own parent (/) is private, so its umount does not.
@test "release: a mount that propagation took already is reported gone" {
	# the inner ext4 is in the second namespace too: released by the probe
	"$FS_PINS" release "$IDEV" >/dev/null
	mount --make-rshared "$OUT"
	start_ns NS3PID -m --propagation shared
	NS3=$(ns_of "$NS3PID")
	run "$FS_PINS" release "$ODEV"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"
unpin step=umount ns=$NS3 pid=$NS3PID path=$OUT/s%20p dev=$SDEV submount=yes result=gone
unpin step=umount ns=$NS3 pid=$NS3PID path=$OUT dev=$ODEV submount=no result=done
gone: yes" ]]
}

@test "release: a mount locked in a user namespace's mount namespace fails with EINVAL" {
	# the inner ext4 is in the second namespace too: released by the probe
	"$FS_PINS" release "$IDEV" >/dev/null
	start_ns NS4PID -Urm --propagation private
	NS4=$(ns_of "$NS4PID")
	run "$FS_PINS" release "$ODEV"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"
unpin step=umount ns=$NS4 pid=$NS4PID path=$OUT/s%20p dev=$SDEV submount=yes result=failed reason=EINVAL
unpin step=umount ns=$NS4 pid=$NS4PID path=$OUT dev=$ODEV submount=no result=failed reason=EINVAL
gone: no mounted in mount namespace $NS4 (pid $NS4PID) at $OUT" ]]
}

# A directory on the way to a submount is replaced by a symbolic link to
# another mount's directory between the find and the release: the umount
# must not follow it (it would unmount the other mount).
@test "release: a symbolic link put on a mount point's path since the find is not followed (ELOOP), the other mount stays" {
	"$FS_PINS" release "$IDEV" >/dev/null
	mkdir -p "$OUT/d/m" /mnt/decoy
	mount -t tmpfs m "$OUT/d/m"
	mount -t tmpfs decoy /mnt/decoy
	mkdir /mnt/decoy/m
	mount -t tmpfs decoy-m /mnt/decoy/m
	local mdev
	mdev=$(s_dev "$OUT/d/m")
	run "$FS_PINS" release "$ODEV" --before \
		"mv $OUT/d $OUT/e && ln -s /mnt/decoy $OUT/d"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -q " /mnt/decoy/m " /proc/1/mountinfo
	grep -q " $OUT/e/m " /proc/1/mountinfo
	[[ $output == *"
unpin step=umount ns=$NS1 pid=1 path=$OUT/d/m dev=$mdev submount=yes result=failed reason=ELOOP
"* ]]
}
