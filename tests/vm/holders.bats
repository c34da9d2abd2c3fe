#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf holders PATH | --fs FS: who holds a file or a filesystem,
# and how, from the BPF iterators, revoking nothing; --fs finds a mount
# point (or a block device) in /proc/self/mountinfo and touches nothing
# on it.
# An ext4 filesystem on a loop device is held at once by a reader (a
# descriptor), a mapper (a mapping only), a process whose cwd is in it, a
# process chrooted into it and a program running from it; fuser -m (psmisc)
# is the reference.

load lib

IMG=/tmp/holders-images
MNT=/mnt/hx
BTRFS=/mnt/hbtrfs

# mkfs_mount NAME SIZE MOUNTPOINT MKFS...: a filesystem made by MKFS on a
# loop device over a sparse image, mounted at MOUNTPOINT.
mkfs_mount() {
	local name=$1 size=$2 mnt=$3 loopdev
	shift 3
	truncate -s "$size" "$IMG/$name.img"
	loopdev=$(losetup -f)
	losetup "$loopdev" "$IMG/$name.img"
	"$@" "$loopdev" >/dev/null 2>&1 || { echo "$* $loopdev failed" >&2; return 1; }
	mkdir -p "$mnt"
	mount "$loopdev" "$mnt"
}

# spawn VAR CMD...: run CMD in the background, its pid in VAR and in KILL.
spawn() {
	local var=$1
	shift
	"$@" >/dev/null 2>&1 3>&- &
	printf -v "$var" %s $!
	KILL+=($!)
}

setup_file() {
	unload_all
	mkdir -p "$IMG"
	mkfs_mount ext4 32M "$MNT" mke2fs -q -t ext4
	echo "some content" > "$MNT/data"
	mkdir -p "$MNT/dir" "$MNT/bin" "$MNT/root/bin"
	# a static program to run from the filesystem and to chroot with
	cp /bin/busybox "$MNT/bin/busybox"
	cp /bin/busybox "$MNT/root/bin/busybox"
	start_daemon
}

teardown_file() {
	unload_all
	umount "$BTRFS" "$MNT" 2>/dev/null || true
	losetup -D 2>/dev/null || true
	rm -rf "$IMG"
}

# The population of the ext4 filesystem, started anew for each test.
setup() {
	KILL=()
	start_holder /tmp/holders-reader.out hold "$MNT/data"
	READER=$HOLDER_PID
	KILL+=("$READER")
	start_holder /tmp/holders-mapper.out --close mmap "$MNT/data"
	MAPPER=$HOLDER_PID
	KILL+=("$MAPPER")
	HOLDER_PID=
	spawn INSIDE sh -c "cd $MNT/dir && exec sleep 1000"
	spawn CHROOTED chroot "$MNT/root" /bin/busybox sleep 1000
	spawn RUNNER "$MNT/bin/busybox" sleep 1000
	wait_settled
}

teardown() {
	local pids=("${KILL[@]}" ${HOLDER_PID:-})
	kill_holders
	# reaped: a dying holder must not be seen by the next test
	wait "${pids[@]}" 2>/dev/null || true
	umount "/mnt/h space" "/mnt/hstack" "/mnt/hstack" "/mnt/hempty" "/mnt/hquiet" \
		2>/dev/null || true
}

# wait_settled: every spawned process has exec'ed what it runs (its cwd,
# root and executable are in place): up to 5 s.
wait_settled() {
	local i
	for i in $(seq 1 100); do
		[ "$(readlink "/proc/$INSIDE/cwd")" = "$MNT/dir" ] &&
		[ "$(readlink "/proc/$CHROOTED/exe")" = "$MNT/root/bin/busybox" ] &&
		[ "$(readlink "/proc/$RUNNER/exe")" = "$MNT/bin/busybox" ] &&
		return 0
		sleep 0.05
	done
	echo "the holders did not settle" >&2
	return 1
}

# pid_access: "PID ACCESS" of each row of the table in $output, sorted.
pid_access() {
	printf '%s\n' "$output" | awk 'NR > 1 { print $1, $4 }' | sort -n
}

# fuser_pids MOUNTPOINT: the pids fuser -m names, one a line, sorted.
fuser_pids() {
	fuser -m "$1" 2>/dev/null | tr -s ' \t' '\n\n' | grep -v '^$' | sort -n
}

@test "holders --fs names each holder of the filesystem with how it holds it" {
	run revoke-bpf holders --fs "$MNT"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "PID      USER       COMMAND          ACCESS FD" ]
	expected=$(printf '%s\n' "$READER f" "$MAPPER m" "$INSIDE c" \
		"$CHROOTED mcre" "$RUNNER me" | sort -n)
	[ "$(pid_access)" = "$expected" ] || { echo "got:"; pid_access; false; }
}

@test "holders --fs names the reader's descriptor, its user and its command" {
	fd=$(for f in /proc/$READER/fd/*; do
		if [ "$(readlink "$f")" = "$MNT/data" ]; then echo "${f##*/}"; fi
	done)
	[ -n "$fd" ]
	run revoke-bpf holders --fs "$MNT"
	[ "$status" -eq 0 ]
	row=$(printf '%s\n' "$output" | awk -v p="$READER" '$1 == p')
	[ "$row" = "$(printf '%-8s %-10s %-16s %-6s %s' "$READER" root holder f "$fd")" ]
}

@test "holders --fs names the same processes as fuser -m" {
	run revoke-bpf holders --fs "$MNT"
	[ "$status" -eq 0 ]
	ours=$(printf '%s\n' "$output" | awk 'NR > 1 { print $1 }' | sort -n)
	theirs=$(fuser_pids "$MNT")
	[ -n "$theirs" ]
	[ "$ours" = "$theirs" ] || { echo "ours: $ours"; echo "fuser: $theirs"; false; }
}

@test "holders PATH names the reader and the mapper of that file only" {
	run revoke-bpf holders "$MNT/data"
	[ "$status" -eq 0 ]
	expected=$(printf '%s\n' "$READER f" "$MAPPER m" | sort -n)
	[ "$(pid_access)" = "$expected" ] || { echo "got:"; pid_access; false; }
}

@test "holders PATH of a directory names those whose cwd or root it is" {
	run revoke-bpf holders "$MNT/dir"
	[ "$status" -eq 0 ]
	[ "$(pid_access)" = "$INSIDE c" ]
	run revoke-bpf holders "$MNT/root"
	[ "$status" -eq 0 ]
	[ "$(pid_access)" = "$CHROOTED cr" ]
}

@test "holders --fs --json is an array of objects with the same pids and access" {
	run revoke-bpf holders --fs "$MNT"
	text=$(pid_access)
	run revoke-bpf holders --fs "$MNT" --json
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | jq -r 'type')" = array ]
	json=$(printf '%s\n' "$output" | jq -r '.[] | "\(.pid) \(.access)"' | sort -n)
	[ "$json" = "$text" ]
	run jq -c ".[] | select(.pid == $CHROOTED) |
		[.uid, .user, .comm, .fd, .mappings > 0, .cwd, .root, .exe, .io_uring]" \
		<<<"$output"
	expect_lines '[0,"root","busybox",[],true,true,true,true,0]'
}

@test "holders --fs answers without stat, open or realpath on the filesystem" {
	run strace -f -qq -e trace=%file -o /tmp/holders.strace \
		revoke-bpf holders --fs "$MNT"
	[ "$status" -eq 0 ]
	[[ $output == *"$READER "* ]]
	# every call naming a file but the execve, whose argv names it
	run grep -c . /tmp/holders.strace
	[ "$output" -gt 1 ]
	run sh -c "grep -v ' execve(' /tmp/holders.strace | grep -F '$MNT'"
	[ "$status" -eq 1 ]
}

# source_of MNT: the device MNT is mounted from, as mountinfo says
source_of() {
	awk -v m="$1" '$5 == m { for (i = 7; $i != "-"; i++); d = $(i + 2) } END { print d }' \
		/proc/self/mountinfo
}

@test "holders --fs of the block device names the filesystem mounted from it, as fuser -m reads it" {
	local dev want
	dev=$(source_of "$MNT")
	[[ $dev == /dev/loop* ]]
	want=$(revoke-bpf holders --fs "$MNT")
	[[ $want == *"$READER "* ]]
	run revoke-bpf holders --fs "$dev"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
}

@test "holders --fs finds a mount point named relatively, through . and .." {
	run revoke-bpf holders --fs "$MNT"
	want=$(pid_access)
	cd /mnt
	run revoke-bpf holders --fs "./nothere/.././hx/"
	[ "$status" -eq 0 ]
	[ "$(pid_access)" = "$want" ]
}

@test "holders --fs of a path that does not exist fails with one line; of a file on the filesystem, names its holders" {
	run revoke-bpf holders --fs /not/a/mountpoint
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: holders: cannot open '/not/a/mountpoint': No such file or directory"
	# a directory of the filesystem names it, as its mount point does
	local want
	want=$(revoke-bpf holders --fs "$MNT")
	run revoke-bpf holders --fs "$MNT/dir"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
}

@test "holders --fs of a mount point whose name holds a space" {
	mkdir -p "/mnt/h space"
	mount -t tmpfs none "/mnt/h space"
	echo x > "/mnt/h space/f"
	start_holder /tmp/holders-space.out hold "/mnt/h space/f"
	run revoke-bpf holders --fs "/mnt/h space"
	[ "$status" -eq 0 ]
	[ "$(pid_access)" = "$HOLDER_PID f" ]
}

@test "holders --fs names the holders of the topmost of two mounts at one path" {
	mkdir -p /mnt/hstack
	mount -t tmpfs below /mnt/hstack
	echo x > /mnt/hstack/f
	start_holder /tmp/holders-below.out hold /mnt/hstack/f
	KILL+=("$HOLDER_PID")
	mount -t tmpfs above /mnt/hstack
	echo x > /mnt/hstack/f
	start_holder /tmp/holders-above.out hold /mnt/hstack/f
	run revoke-bpf holders --fs /mnt/hstack
	[ "$status" -eq 0 ]
	[ "$(pid_access)" = "$HOLDER_PID f" ]
}

@test "holders --fs of a filesystem nobody holds prints the header only and exits 1, as fuser" {
	mkdir -p /mnt/hempty
	mount -t tmpfs none /mnt/hempty
	run revoke-bpf holders --fs /mnt/hempty
	[ "$status" -eq 1 ]
	expect_lines "PID      USER       COMMAND          ACCESS FD"
	run revoke-bpf holders --fs /mnt/hempty --json
	[ "$status" -eq 1 ]
	expect_lines "[]"
}

@test "holders -s prints nothing: exit 0 when something holds it, 1 when nothing does" {
	run revoke-bpf holders -s --fs "$MNT"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	mkdir -p /mnt/hquiet
	mount -t tmpfs none /mnt/hquiet
	run revoke-bpf holders --fs /mnt/hquiet --quiet
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}

@test "holders without an operand, or with two, fails with one line" {
	run revoke-bpf holders
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: holders: missing PATH or --fs FS"
	run revoke-bpf holders --fs
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: holders: --fs needs FS: a mount point, a file on the filesystem or the block device it is mounted from"
	run revoke-bpf holders "$MNT/data" "$MNT/dir"
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: holders: unexpected extra operand '$MNT/dir'"
}

@test "a user other than root may not ask for holders" {
	run "$ASUSER" 65534 revoke-bpf holders --fs "$MNT"
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: holders: only root may use 'holders' (you are uid 65534); run it with sudo"
}

@test "btrfs: holders --fs of the filesystem finds holders in both subvolumes" {
	mkfs_mount btrfs 128M "$BTRFS" mkfs.btrfs -q -f
	btrfs subvolume create "$BTRFS/sv1" >/dev/null
	btrfs subvolume create "$BTRFS/sv2" >/dev/null
	echo one > "$BTRFS/sv1/f"
	start_holder /tmp/holders-sv1.out hold "$BTRFS/sv1/f"
	KILL+=("$HOLDER_PID")
	SV1=$HOLDER_PID
	spawn SV2 sh -c "cd $BTRFS/sv2 && exec sleep 1000"
	for i in $(seq 1 100); do
		[ "$(readlink "/proc/$SV2/cwd")" = "$BTRFS/sv2" ] && break
		sleep 0.05
	done
	# the subvolumes' files have devices of their own: not the s_dev
	[ "$(devof "$BTRFS/sv1/f")" != "$(devof "$BTRFS/sv2")" ]
	run revoke-bpf holders --fs "$BTRFS"
	[ "$status" -eq 0 ]
	expected=$(printf '%s\n' "$SV1 f" "$SV2 c" | sort -n)
	[ "$(pid_access)" = "$expected" ] || { echo "got:"; pid_access; false; }
	# fuser -m matches st_dev: one call per subvolume finds them, the
	# filesystem's mount point none
	ours=$(printf '%s\n' "$output" | awk 'NR > 1 { print $1 }' | sort -n)
	theirs=$( (fuser_pids "$BTRFS/sv1"; fuser_pids "$BTRFS/sv2") | sort -n)
	top=$(fuser_pids "$BTRFS")
	echo "ours: $ours; fuser per subvolume: $theirs; fuser -m $BTRFS: $top"
	[ "$ours" = "$theirs" ]
	[ -z "$top" ]
	# by its device: btrfs's s_dev is no device number; its source says
	[[ $(source_of "$BTRFS") == /dev/loop* ]]
	run revoke-bpf holders --fs "$(source_of "$BTRFS")"
	[ "$status" -eq 0 ]
	[ "$(pid_access)" = "$expected" ]
	HOLDER_PID=
}

# A FUSE mount's source (mountinfo's) is whatever its mounter wrote in -o
# fsname=, and any user of fusermount3 may write /dev/sdb1 there.
# Mounted before the filesystem really on that device, it came first in
# mountinfo, and --fs of the device meant the FUSE filesystem: holders
# said nothing held the device's filesystem, and umount took down the
# FUSE mount and left the real one mounted and readable.
@test "--fs of a block device is not a FUSE mount whose source (fsname) names that device" {
	local dev
	truncate -s 32M "$IMG/decoy.img"
	dev=$(losetup -f)
	losetup "$dev" "$IMG/decoy.img"
	mke2fs -q -t ext4 "$dev"
	mkdir -p /mnt/hevil /mnt/hreal
	FUSEFILE_FSNAME=$dev "$REPO/build/tests/fusefile" /mnt/hevil \
		>/tmp/hevil.out 2>&1 3>&- &
	wait_line /tmp/hevil.out ready
	[ "$(source_of /mnt/hevil)" = "$dev" ]
	mount "$dev" /mnt/hreal
	echo secret > /mnt/hreal/data
	start_holder /tmp/holders-real.out hold /mnt/hreal/data
	KILL+=("$HOLDER_PID")
	run revoke-bpf holders --fs "$dev"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | awk 'NR > 1 { print $1 }')" = "$HOLDER_PID" ]
	run revoke-bpf umount --fs "$dev"
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q ' /mnt/hreal ' /proc/self/mountinfo
	grep -q ' /mnt/hevil ' /proc/self/mountinfo
	umount /mnt/hevil
	HOLDER_PID=
}
