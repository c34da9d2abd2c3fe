#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Device hot-unplug through the real udevd: Debian's systemd-udevd runs in
# the guest with the rule "make install" ships, and a real device goes
# away: a SCSI disk of scsi_debug deleted through sysfs, as a pulled USB
# disk would be.  Holders hold it through /dev/sda and through a second
# node made with mknod.  REVOKE_UDEVADM names Debian's udevadm
# (tests/vm/udevadm fetches it); the tests fail without it.
#
# mode=umount (issue 23): an ext4 on the disk or on its partition,
# mounted and held, is revoked and unmounted when the disk goes, and the
# disk comes back as sda.  scsi_debug is made to look like a USB disk
# (ID_BUS=usb, by a test rule before the shipped one) for the example
# policy's own rule.

load lib

LOOPCTL=$REPO/build/tests/loopctl
POLICY=/tmp/udev-policy.conf
GOOD_POLICY='revoke subsystem=block DEVNAME=/dev/sd* DEVTYPE=disk'
UMOUNT_POLICY='revoke subsystem=block DEVNAME=/dev/sd* DEVTYPE=disk mode=umount'
USB_RULE=/etc/udev/rules.d/59-revoke-test-usb.rules

setup_file() {
	[ -x "${REVOKE_UDEVADM:-}" ] || {
		echo "REVOKE_UDEVADM must name udevadm (see tests/vm/udevadm)" >&2
		return 1
	}
	unload_all
	echo "$GOOD_POLICY" > "$POLICY"
	start_daemon --policy "$POLICY"
	mkdir -p /tmp/udevbin
	ln -sf "$REVOKE_UDEVADM" /tmp/udevbin/systemd-udevd
	/tmp/udevbin/systemd-udevd --daemon
}

teardown_file() {
	"$REVOKE_UDEVADM" control --exit || true
	unload_all
}

setup() {
	D=$(mktemp -d /tmp/udev.XXXXXX)
	KILL=()
	[ -b /dev/sda ] || rescan
	echo "$GOOD_POLICY" > "$POLICY"
	revoke-bpf reload >/dev/null
	MARK=$(stat -c %s "$DAEMON_LOG")
}

teardown() {
	kill_holders
	umount "$D/m" 2>/dev/null || true
	if [ -e "$USB_RULE" ]; then
		rm -f "$USB_RULE"
		"$REVOKE_UDEVADM" control --reload
	fi
	# no rule may match the partition the cleanup below removes
	echo "$GOOD_POLICY" > "$POLICY"
	revoke-bpf reload >/dev/null
	# no partition table or filesystem left for the next test
	[ -b /dev/sda ] || rescan || true
	dd if=/dev/zero of=/dev/sda bs=1M count=1 2>/dev/null || true
	blockdev --rereadpt /dev/sda 2>/dev/null || true
	"$REVOKE_UDEVADM" settle -t 10 || true
	revoke-bpf del --rdev 8:0 --block >/dev/null 2>&1 || true
	revoke-bpf del --rdev 8:1 --block >/dev/null 2>&1 || true
}

# rescan: let scsi_debug's disk come back, as 8:0 again.
rescan() {
	local h i
	for h in /sys/class/scsi_host/host*/scan; do
		echo "- - -" > "$h"
	done
	"$REVOKE_UDEVADM" settle -t 10
	for i in $(seq 1 100); do
		[ -b /dev/sda ] && return 0
		sleep 0.05
	done
	return 1
}

# remove_disk: delete the disk, as a hot-unplug does, and let udev run.
remove_disk() {
	echo 1 > /sys/block/sda/device/delete
	"$REVOKE_UDEVADM" settle -t 10
}

# wait_log TEXT [N]: the daemon logged a line with TEXT since setup
# (waiting N times 50 ms at most, default 200).
wait_log() {
	local i
	for i in $(seq 1 "${2:-200}"); do
		tail -c +"$((MARK + 1))" "$DAEMON_LOG" | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	echo "no log line '$1' in:" >&2
	tail -c +"$((MARK + 1))" "$DAEMON_LOG" >&2
	return 1
}

# le32 N: N as 4 bytes, little-endian.
le32() {
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) \
		$(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# partition_disk: an MBR with one Linux partition from sector 2048 to the
# end of the disk, and /dev/sda1 made by udev.
partition_disk() {
	local sectors i
	sectors=$(cat /sys/block/sda/size)
	{
		dd if=/dev/zero bs=446 count=1 2>/dev/null
		printf '\x00\x00\x00\x00\x83\x00\x00\x00'
		le32 2048
		le32 $((sectors - 2048))
		dd if=/dev/zero bs=48 count=1 2>/dev/null
		printf '\x55\xaa'
	} > "$D/mbr"
	# from a file: from a pipe, dd's one read may be short
	dd if="$D/mbr" of=/dev/sda bs=512 count=1 conv=notrunc 2>/dev/null
	blockdev --rereadpt /dev/sda
	"$REVOKE_UDEVADM" settle -t 10
	for i in $(seq 1 100); do
		[ -b /dev/sda1 ] && return 0
		sleep 0.05
	done
	return 1
}

# mount_ext4 DEV: ext4 on DEV, mounted at $D/m, with a file.
mount_ext4() {
	/usr/sbin/mke2fs -q -F -t ext4 "$1"
	mkdir -p "$D/m"
	mount -t ext4 "$1" "$D/m"
	echo "some content" > "$D/m/file"
	sync
}

# hold_fs: a process with its cwd in $D/m (CWD_PID) and one holding
# $D/m/file open (HOLDER_PID); both killed in teardown.
hold_fs() {
	(cd "$D/m" && exec sleep 600) 3>&- &
	CWD_PID=$!
	KILL+=("$CWD_PID")
	start_holder "$D/h" hold "$D/m/file"
	until [ "$(readlink "/proc/$CWD_PID/cwd")" = "$D/m" ]; do
		sleep 0.05
	done
}

# umounted DEV: DEV is mounted nowhere, and ext4 let go of it.
umounted() {
	! grep -q "^$1 " /proc/mounts &&
	! grep -q " $D/m " /proc/mounts &&
	[ ! -e "/sys/fs/ext4/${1#/dev/}" ]
}

# usb_policy: the example policy's rule for USB disks, as shipped (its
# example line), and scsi_debug's disk made to look like one.
usb_policy() {
	local rule
	rule=$(sed -n 's/^#[[:space:]]*\(revoke subsystem=block ID_BUS=usb mode=umount\)[[:space:]]*$/\1/p' \
		/etc/revoke-bpf/policy.conf)
	[ "$rule" = "revoke subsystem=block ID_BUS=usb mode=umount" ]
	echo "$rule" > "$POLICY"
	revoke-bpf reload >/dev/null
	# the admin's folder, before the shipped rule (which make install put
	# under /usr/local/lib/udev/rules.d)
	mkdir -p "${USB_RULE%/*}"
	echo 'SUBSYSTEM=="block", KERNEL=="sd*", ENV{ID_BUS}="usb"' > "$USB_RULE"
	"$REVOKE_UDEVADM" control --reload
}

# dead_fd PID: the holder's descriptor now refers to the dead file.
dead_fd() {
	ls -l "/proc/$1/fd" | grep -qF '/memfd:revoke-bpf-dead (deleted)'
}

@test "a SCSI disk removed under udev is revoked by the shipped rule, and its holders through both nodes are released" {
	mknod "$D/node" b 8 0
	start_holder "$D/a" hold /dev/sda
	KILL+=("$HOLDER_PID")
	start_holder "$D/b" hold "$D/node"
	KILL+=("$HOLDER_PID")
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 1, mode release"
	wait_log "revoke-bpfd: pipeline rdev=8:0: holders=2 fds=2 mappings=0 waiters=0 woken=0 unmapped=0 released=2 failed=0"
	dead_fd "${KILL[0]}"
	dead_fd "${KILL[1]}"
	not_stopped "${KILL[0]}"
	not_stopped "${KILL[1]}"
	# the list also has the dead file the descriptors now refer to
	run revoke-bpf list
	printf '%s\n' "${lines[@]}" |
		grep -Eq '^block +8:0 +- +[0-9]+ +[0-9-]+ [0-9:]+ +- +\(removed\) cause=udev$'

}

@test "a process holding the disk through a mknod'd node reads EIO once udev has handled the removal" {
	mknod "$D/node" b 8 0
	run "$PROBE" --rdonly --before "echo 1 > /sys/block/sda/device/delete &&
		$REVOKE_UDEVADM settle -t 10 &&
		until tail -c +$((MARK + 1)) $DAEMON_LOG | grep -q 'pipeline rdev=8:0'; do
			sleep 0.05; done" "$D/node" read
	expect_lines "read: EIO"
}

@test "after the disk comes back with the same number, both nodes work again" {
	mknod "$D/node" b 8 0
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 1, mode release"
	rescan
	[ "$(stat -c %t:%T /dev/sda)" = "8:0" ]
	run "$PROBE" --rdonly /dev/sda read
	expect_lines "read: ok"
	run "$PROBE" --rdonly "$D/node" read
	expect_lines "read: ok"
}

@test "a removed device that no policy rule matches is not revoked" {
	# a loop device of its own: earlier suites may have left loop4 bound
	"$LOOPCTL" add 60 >/dev/null
	"$REVOKE_UDEVADM" settle -t 10
	MARK=$(stat -c %s "$DAEMON_LOG")
	"$LOOPCTL" remove 60 >/dev/null
	"$REVOKE_UDEVADM" settle -t 10
	wait_log "revoke-bpfd: uevent remove block 7:60: no policy rule"
	run revoke-bpf list
	expect_lines "nothing is revoked"
}

@test "an invalid policy is refused with its line, by reload and on SIGHUP, and the old one stays in force" {
	printf '%s\nrevoke mode=sometimes\n' "$GOOD_POLICY" > "$POLICY"
	run revoke-bpf reload
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: reload: $POLICY: line 2: mode must be given once, as deny, revoke, release or umount; the policy in force is unchanged"
	kill -HUP "$(cat /tmp/revoke-bpfd.pid)"
	wait_log "revoke-bpfd: $POLICY: line 2: mode must be given once, as deny, revoke, release or umount; the policy in force is unchanged (1 rules)"
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 1, mode release"
	echo "$GOOD_POLICY" > "$POLICY"
	run revoke-bpf reload
	expect_lines "reloaded: 1 rule from $POLICY (device removals from udev)"
}

@test "with source netlink the daemon revokes a removed disk from the kernel's own uevent, and ignores the rule's" {
	printf 'source netlink\n%s\n' "$GOOD_POLICY" > "$POLICY"
	run revoke-bpf reload
	expect_lines "reloaded: 1 rule from $POLICY (device removals from netlink)"
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 2, mode release"
	run revoke-bpf list
	printf '%s\n' "${lines[@]}" |
		grep -Eq '^block +8:0 +- +[0-9]+ +[0-9-]+ [0-9:]+ +- +\(removed\) cause=netlink$'
}

@test "udevadm test --action=remove shows the shipped rule running revoke-bpf uevent" {
	run "$REVOKE_UDEVADM" test --action=remove /sys/block/sda
	[[ $output == *"/usr/local/lib/udev/rules.d/60-revoke-bpf.rules:11 RUN '/usr/local/bin/revoke-bpf uevent'"* ]]
}

@test "revoke-bpf uevent outside udev says what it needs and sends nothing" {
	run env -i "$(command -v revoke-bpf)" uevent
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: uevent: ACTION, SUBSYSTEM, MAJOR and MINOR must be set, as udev's RUN+= sets them for a device node"
	run env -i ACTION=remove SUBSYSTEM=block MAJOR=8 MINOR=x \
		"$(command -v revoke-bpf)" uevent
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: uevent: ACTION 'remove' or MAJOR:MINOR '8:x' is malformed"
	run revoke-bpf list
	expect_lines "nothing is revoked"
}

@test "signal=hup sends SIGHUP to the holders of a removed disk, as a tty hangup would" {
	local pid rc=0
	printf '%s signal=hup\n' "$GOOD_POLICY" > "$POLICY"
	revoke-bpf reload >/dev/null
	start_holder "$D/a" hold /dev/sda
	pid=$HOLDER_PID
	HOLDER_PID=
	remove_disk
	wait_log "revoke-bpfd: rdev=8:0: SIGHUP sent to 1 holders"
	wait "$pid" || rc=$?
	[ "$rc" -eq $((128 + 1)) ]
}

@test "mode=umount: the disk of a mounted, held partition is deleted; the filesystem is revoked and unmounted, its holders released, and the disk comes back as sda" {
	partition_disk
	mount_ext4 /dev/sda1
	hold_fs
	echo "$UMOUNT_POLICY" > "$POLICY"
	revoke-bpf reload >/dev/null
	remove_disk
	# the partition goes first, matched by no rule, then its disk
	wait_log "revoke-bpfd: uevent remove block 8:1: no policy rule"
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 1, mode umount"
	wait_log "revoke-bpfd: uevent remove block 8:0: fs=8:1 type=ext4 revoked and unmounted" 600
	wait_log "revoke-bpfd: uevent remove block 8:0: filesystem fs=8:1 gone=yes"
	umounted /dev/sda1
	[ "$(readlink "/proc/$CWD_PID/cwd")" = / ]
	dead_fd "$HOLDER_PID"
	not_stopped "$CWD_PID"
	not_stopped "$HOLDER_PID"
	run revoke-bpf list
	printf '%s\n' "${lines[@]}" |
		grep -Eq '^block +8:0 +- +[0-9]+ +[0-9-]+ [0-9:]+ +- +\(removed\) cause=udev$'
	# gone: nothing of it is left in the revoked filesystem set
	! printf '%s\n' "${lines[@]}" | grep -q "^fs "
	rescan
	[ "$(stat -c %t:%T /dev/sda)" = "8:0" ]
	# the partition's node comes with its own, later event
	"$REVOKE_UDEVADM" settle -t 10
	for i in $(seq 1 100); do [ -b /dev/sda1 ] && break; sleep 0.1; done
	[ -b /dev/sda1 ]
}

@test "mode=umount: a reader of a file on the removed disk's partition reads EIO" {
	partition_disk
	mount_ext4 /dev/sda1
	echo "$UMOUNT_POLICY" > "$POLICY"
	revoke-bpf reload >/dev/null
	run "$PROBE" --rdonly --before "echo 1 > /sys/block/sda/device/delete &&
		$REVOKE_UDEVADM settle -t 10 &&
		until tail -c +$((MARK + 1)) $DAEMON_LOG | grep -q 'fs=8:1 type=ext4 revoked'; do
			sleep 0.05; done" "$D/m/file" read
	expect_lines "read: EIO"
	umounted /dev/sda1
}

@test "the example policy's rule for USB disks (mode=umount) unmounts an ext4 on the whole disk when it is deleted" {
	usb_policy
	mount_ext4 /dev/sda
	hold_fs
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 1, mode umount"
	wait_log "revoke-bpfd: uevent remove block 8:0: fs=8:0 type=ext4 revoked and unmounted" 600
	umounted /dev/sda
	[ "$(readlink "/proc/$CWD_PID/cwd")" = / ]
	dead_fd "$HOLDER_PID"
	rescan
	[ "$(stat -c %t:%T /dev/sda)" = "8:0" ]
}

@test "the example policy's rule for USB disks: a partition matches it in its own event, before its disk" {
	partition_disk
	usb_policy
	mount_ext4 /dev/sda1
	hold_fs
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:1: policy line 1, mode umount"
	wait_log "revoke-bpfd: uevent remove block 8:1: fs=8:1 type=ext4 revoked and unmounted" 600
	wait_log "revoke-bpfd: uevent remove block 8:0: no filesystem is mounted from it or its partitions"
	umounted /dev/sda1
	[ "$(readlink "/proc/$CWD_PID/cwd")" = / ]
	dead_fd "$HOLDER_PID"
	rescan
	[ "$(stat -c %t:%T /dev/sda)" = "8:0" ]
}

@test "with source netlink, mode=umount for the whole disk covers its partition's filesystem, from the kernel's own uevents" {
	partition_disk
	mount_ext4 /dev/sda1
	hold_fs
	printf 'source netlink\n%s\n' "$UMOUNT_POLICY" > "$POLICY"
	run revoke-bpf reload
	expect_lines "reloaded: 1 rule from $POLICY (device removals from netlink)"
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:1: no policy rule"
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 2, mode umount"
	wait_log "revoke-bpfd: uevent remove block 8:0: fs=8:1 type=ext4 revoked and unmounted" 600
	umounted /dev/sda1
	[ "$(readlink "/proc/$CWD_PID/cwd")" = / ]
	dead_fd "$HOLDER_PID"
	run revoke-bpf list
	printf '%s\n' "${lines[@]}" |
		grep -Eq '^block +8:0 +- +[0-9]+ +[0-9-]+ [0-9:]+ +- +\(removed\) cause=netlink$'
}

@test "without mode=umount a removed disk's mounted filesystem stays mounted, and the disk comes back as sdb" {
	local i
	mount_ext4 /dev/sda
	remove_disk
	wait_log "revoke-bpfd: uevent remove block 8:0: policy line 1, mode release"
	grep -q "^/dev/sda $D/m ext4 " /proc/mounts
	for i in /sys/class/scsi_host/host*/scan; do echo "- - -" > "$i"; done
	"$REVOKE_UDEVADM" settle -t 10
	[ -b /dev/sdb ]
	[ ! -b /dev/sda ]
	echo 1 > /sys/block/sdb/device/delete
	"$REVOKE_UDEVADM" settle -t 10
	wait_log "revoke-bpfd: uevent remove block 8:16: policy line 1, mode release"
	revoke-bpf del --rdev 8:16 --block >/dev/null
	umount "$D/m"
}
