#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf names a file by what the kernel says of it, on every
# filesystem the README names: ext4, xfs, btrfs (whose subvolumes number
# their files alike), tmpfs, FUSE, and overlayfs, whose files read and
# map through real files on other filesystems.  Runs in the guest, with
# the modules and tools tests/vm/suite brings.

load lib

IMG=/tmp/fs-images
FUSEFILE=$REPO/build/tests/fusefile
REFLINK=$REPO/build/tests/reflink

# mkfs_mount NAME SIZE MKFS...: a filesystem made by MKFS on a loop device
# over a sparse image on /tmp, mounted at /mnt/NAME.
mkfs_mount() {
	local name=$1 size=$2 loopdev
	shift 2
	truncate -s "$size" "$IMG/$name.img"
	loopdev=$(losetup -f)
	losetup "$loopdev" "$IMG/$name.img"
	"$@" "$loopdev" >/dev/null 2>&1 || { echo "$* $loopdev failed" >&2; return 1; }
	mkdir -p "/mnt/$name"
	mount "$loopdev" "/mnt/$name"
}

setup_file() {
	unload_all
	mkdir -p "$IMG"
	mkfs_mount ext4 32M mke2fs -q -t ext4
	mkfs_mount xfs 320M mkfs.xfs -q -f
	mkfs_mount btrfs 128M mkfs.btrfs -q -f
	btrfs subvolume create /mnt/btrfs/sv1 >/dev/null
	btrfs subvolume create /mnt/btrfs/sv2 >/dev/null
	# the first files of each subvolume, numbered alike (257, 258)
	for f in same byino; do
		echo one > "/mnt/btrfs/sv1/$f"
		echo two > "/mnt/btrfs/sv2/$f"
	done
	mkdir -p /mnt/fuse
	"$FUSEFILE" /mnt/fuse > /tmp/fusefile.out 2>&1 3>&- &
	wait_line /tmp/fusefile.out ready
	start_daemon
}

teardown_file() {
	unload_all
	umount /mnt/fuse 2>/dev/null || true
	for m in $(ls -d /mnt/ovl* 2>/dev/null | sort -r) /mnt/ext4 /mnt/xfs /mnt/btrfs; do
		umount "$m" 2>/dev/null || true
	done
	losetup -D 2>/dev/null || true
	rm -rf "$IMG"
}

# Every test revokes files of its own: the entries may stay.
teardown() {
	local m
	# stacked overlays first: the one on top sorts after the one below
	for m in $(ls -d /mnt/ovl* 2>/dev/null | sort -r); do
		umount "$m" 2>/dev/null || true
	done
}

# four_k FILE: FILE holds 4096 bytes of one letter (block-aligned, for
# the reflink and dedupe tests).
four_k() {
	head -c 4096 /dev/zero | tr '\0' a > "$1"
}

# ---- the key: from the kernel's inode --------------------------------------

@test "ext4: a revoked file's descriptor opened before and a new open fail with EIO" {
	F=$(new_file /mnt/ext4)
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" read open
	expect_lines "read: EIO" "open: EIO"
}

@test "xfs: a revoked file's descriptor opened before and a new open fail with EIO" {
	F=$(new_file /mnt/xfs)
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" read open
	expect_lines "read: EIO" "open: EIO"
}

@test "btrfs: a revoked file's descriptor opened before and a new open fail with EIO" {
	F=$(new_file /mnt/btrfs/sv1)
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" read open
	expect_lines "read: EIO" "open: EIO"
}

@test "tmpfs: a revoked file's descriptor opened before and a new open fail with EIO" {
	F=$(new_file /tmp)
	run "$PROBE" --before "revoke-bpf add $F >/dev/null" "$F" read open
	expect_lines "read: EIO" "open: EIO"
}

@test "fuse: a revoked file's descriptor opened before and a new open fail with EIO" {
	run "$PROBE" --rdonly --before "revoke-bpf add /mnt/fuse/f >/dev/null" \
		/mnt/fuse/f read open
	expect_lines "read: EIO" "open: EIO"
}

@test "fuse: the key is the kernel's inode number, which the server chose" {
	revoke-bpf del /mnt/fuse/f >/dev/null
	run revoke-bpf add /mnt/fuse/f
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "/mnt/fuse/f: revoked (dev $(devof /mnt/fuse/f) ino 42)" ]]
}

@test "btrfs: two subvolumes' first files share an inode number, and st_dev is not s_dev" {
	# the collision the key must tell apart
	[ "$(stat -c %i /mnt/btrfs/sv1/same)" = "$(stat -c %i /mnt/btrfs/sv2/same)" ]
	[ "$(devof /mnt/btrfs/sv1/same)" != "$(devof /mnt/btrfs/sv2/same)" ]
	# the superblock's device is neither subvolume's
	sdev=$(awk '$5 == "/mnt/btrfs" { print $3 }' /proc/self/mountinfo)
	[ "$sdev" != "$(devof /mnt/btrfs/sv1/same)" ]
}

@test "btrfs: revoking a file leaves the other subvolume's file of the same inode number alone" {
	[ "$(stat -c %i /mnt/btrfs/sv1/same)" = "$(stat -c %i /mnt/btrfs/sv2/same)" ]
	revoke /mnt/btrfs/sv1/same
	run cat /mnt/btrfs/sv2/same
	[ "$status" -eq 0 ]
	[ "$output" = two ]
	run cat /mnt/btrfs/sv1/same
	[ "$status" -eq 1 ]
	[ "$output" = "cat: can't open '/mnt/btrfs/sv1/same': Input/output error" ]
}

@test "btrfs: add names the subvolume's device, as stat shows it, and list the path" {
	echo one > /mnt/btrfs/sv2/named
	run revoke-bpf add /mnt/btrfs/sv2/named
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/mnt/btrfs/sv2/named: revoked (dev $(devof /mnt/btrfs/sv2/named) ino $(stat -c %i /mnt/btrfs/sv2/named))" ]
	run revoke-bpf list --json
	[[ $output == *"\"dev\":\"$(devof /mnt/btrfs/sv2/named)\""*"\"path\":\"/mnt/btrfs/sv2/named\""* ]]
}

@test "btrfs: add --inode N --dev with the subvolume's device, a fresh daemon's first add, revokes that file only" {
	[ "$(stat -c %i /mnt/btrfs/sv1/byino)" = "$(stat -c %i /mnt/btrfs/sv2/byino)" ]
	# nothing pinned: no add by path has taught the programs btrfs yet
	unload_all
	start_daemon
	revoke-bpf add --inode "$(stat -c %i /mnt/btrfs/sv1/byino)" --dev "$(devof /mnt/btrfs/sv1/byino)" >/dev/null
	run cat /mnt/btrfs/sv2/byino
	[ "$output" = two ]
	run cat /mnt/btrfs/sv1/byino
	[ "$output" = "cat: can't open '/mnt/btrfs/sv1/byino': Input/output error" ]
}

@test "del by path lifts a btrfs revocation" {
	echo one > /mnt/btrfs/sv1/del
	revoke /mnt/btrfs/sv1/del
	run revoke-bpf del /mnt/btrfs/sv1/del
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "/mnt/btrfs/sv1/del: no longer revoked "* ]]
	run cat /mnt/btrfs/sv1/del
	[ "$output" = one ]
}

# ---- reflink and dedupe ----------------------------------------------------

# reflink_denied FS WHICH: on /mnt/FS, FICLONE, FICLONERANGE and
# FIDEDUPERANGE between two 4 KiB files, each after revoking the source
# (WHICH=src) or the destination (WHICH=dst), fail with EIO.
reflink_denied() {
	local d=/mnt/$1 op
	for op in clone clone_range dedupe; do
		four_k "$d/src.$2.$op"
		four_k "$d/dst.$2.$op"
		run "$REFLINK" --before "revoke-bpf add $d/$2.$2.$op >/dev/null" \
			"$d/src.$2.$op" "$d/dst.$2.$op" "$op"
		expect_lines "$op: EIO"
	done
}

@test "reflink works between files that are not revoked (xfs and btrfs)" {
	for fs in xfs btrfs; do
		four_k "/mnt/$fs/a"
		four_k "/mnt/$fs/b"
		run "$REFLINK" "/mnt/$fs/a" "/mnt/$fs/b" clone clone_range dedupe
		expect_lines "clone: ok" "clone_range: ok" "dedupe: ok"
	done
}

@test "xfs: FICLONE, FICLONERANGE and FIDEDUPERANGE from a revoked file fail with EIO" {
	reflink_denied xfs src
}

@test "xfs: FICLONE, FICLONERANGE and FIDEDUPERANGE into a revoked file fail with EIO" {
	reflink_denied xfs dst
}

@test "btrfs: FICLONE, FICLONERANGE and FIDEDUPERANGE from a revoked file fail with EIO" {
	reflink_denied btrfs src
}

@test "btrfs: FICLONE, FICLONERANGE and FIDEDUPERANGE into a revoked file fail with EIO" {
	reflink_denied btrfs dst
}

# ---- overlayfs ---------------------------------------------------------------

# overlay NAME LOWER UPPERBASE [OPTS]: mount an overlay at /mnt/NAME of the
# directory LOWER, its upper and work directories under UPPERBASE.
overlay() {
	local name=$1 lower=$2 base=$3 opts=${4:-}
	mkdir -p "$base/$name.u" "$base/$name.w" "/mnt/$name"
	mount -t overlay "$name" \
		-o "lowerdir=$lower,upperdir=$base/$name.u,workdir=$base/$name.w${opts:+,$opts}" \
		"/mnt/$name"
}

@test "overlayfs (one filesystem): a descriptor opened before, a new open and the lower path fail with EIO" {
	mkdir -p /tmp/l1 && echo lower > /tmp/l1/f
	overlay ovl1 /tmp/l1 /tmp
	run "$PROBE" --rdonly --before "revoke-bpf add /mnt/ovl1/f >/dev/null" \
		/mnt/ovl1/f read open
	expect_lines "read: EIO" "open: EIO"
	run cat /tmp/l1/f
	[ "$output" = "cat: can't open '/tmp/l1/f': Input/output error" ]
}

@test "overlayfs (one filesystem): a mapping made before through the overlay is cut off (SIGBUS)" {
	mkdir -p /tmp/l2 && echo lower > /tmp/l2/f
	overlay ovl2 /tmp/l2 /tmp
	run "$PROBE" --rdonly --map --before "revoke-bpf add /mnt/ovl2/f >/dev/null" \
		/mnt/ovl2/f map_read
	expect_lines "map_read: SIGBUS"
}

@test "overlayfs: a second overlay mount of the same lower file is cut off too" {
	mkdir -p /tmp/l3 && echo lower > /tmp/l3/f
	overlay ovl3a /tmp/l3 /tmp
	overlay ovl3b /tmp/l3 /tmp
	run "$PROBE" --rdonly --before "revoke-bpf add /mnt/ovl3a/f >/dev/null" \
		/mnt/ovl3b/f read open
	expect_lines "read: EIO" "open: EIO"
}

@test "overlayfs: revoking the lower path cuts off the overlay's descriptors, mappings and opens" {
	mkdir -p /tmp/l4 && echo lower > /tmp/l4/f
	overlay ovl4 /tmp/l4 /tmp
	run "$PROBE" --rdonly --map --before "revoke-bpf add /tmp/l4/f >/dev/null" \
		/mnt/ovl4/f read mmap io_uring_read map_read open
	expect_lines "read: EIO" "mmap: EIO" "io_uring_read: EIO" "map_read: SIGBUS" "open: EIO"
}

@test "overlayfs: a fresh daemon's first add, by number, of a lower file cuts off the overlay's descriptors" {
	mkdir -p /tmp/l9 && echo lower > /tmp/l9/f
	overlay ovl9 /tmp/l9 /tmp
	unload_all
	start_daemon
	run "$PROBE" --rdonly --before \
		"revoke-bpf add --inode $(stat -c %i /tmp/l9/f) --dev $(devof /tmp/l9/f) >/dev/null" \
		/mnt/ovl9/f read mmap ioctl
	expect_lines "read: EIO" "mmap: EIO" "ioctl: EIO"
}

@test "overlayfs: a copied-up file is revoked with its upper and its lower file" {
	mkdir -p /tmp/l5 && echo lower > /tmp/l5/f
	overlay ovl5 /tmp/l5 /tmp
	echo upper >> /mnt/ovl5/f
	run revoke-bpf add /mnt/ovl5/f
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *"(dev $(devof /tmp/ovl5.u/f) ino $(stat -c %i /tmp/ovl5.u/f); also $(devof /tmp/l5/f)/$(stat -c %i /tmp/l5/f))" ]]
	run cat /tmp/ovl5.u/f
	[ "$output" = "cat: can't open '/tmp/ovl5.u/f': Input/output error" ]
	run cat /tmp/l5/f
	[ "$output" = "cat: can't open '/tmp/l5/f': Input/output error" ]
	run cat /mnt/ovl5/f
	[ "$output" = "cat: can't open '/mnt/ovl5/f': Input/output error" ]
}

@test "overlayfs: truncate through the overlay of a revoked upper file fails with EIO" {
	mkdir -p /tmp/l6 && echo lower > /tmp/l6/f
	overlay ovl6 /tmp/l6 /tmp
	echo upper >> /mnt/ovl6/f
	revoke /mnt/ovl6/f
	run truncate -s 0 /mnt/ovl6/f
	[ "$status" -eq 1 ]
	[[ $output == *"Input/output error"* ]]
	[ "$(stat -c %s /tmp/ovl6.u/f)" -gt 0 ]
}

@test "overlayfs on overlayfs: revoking the file beneath both cuts off the top overlay's descriptors and mappings" {
	mkdir -p /tmp/l7 && echo lower > /tmp/l7/f
	overlay ovl7a /tmp/l7 /tmp
	overlay ovl7b /mnt/ovl7a /tmp
	run "$PROBE" --rdonly --map --before "revoke-bpf add /tmp/l7/f >/dev/null" \
		/mnt/ovl7b/f read mmap map_read open
	expect_lines "read: EIO" "mmap: EIO" "map_read: SIGBUS" "open: EIO"
}

@test "overlayfs on overlayfs: add by the top overlay's path is refused and names what to do" {
	mkdir -p /tmp/l8 && echo lower > /tmp/l8/f
	overlay ovl8a /tmp/l8 /tmp
	overlay ovl8b /mnt/ovl8a /tmp
	run revoke-bpf add /mnt/ovl8b/f
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: '/mnt/ovl8b/f': it is on an overlayfs stacked on another overlayfs; revoke it by its path in the overlay below" ]
	run cat /mnt/ovl8b/f
	[ "$output" = lower ]
}

# overlay_cross XINO: lower on ext4, upper on tmpfs
overlay_cross() {
	local name=ovlx$1
	mkdir -p "/mnt/ext4/$name" && echo lower > "/mnt/ext4/$name/f"
	overlay "$name" "/mnt/ext4/$name" /tmp "xino=$1"
}

@test "overlayfs (lower on ext4, upper on tmpfs, xino=off): a descriptor opened before and a new open fail with EIO" {
	overlay_cross off
	run "$PROBE" --rdonly --before "revoke-bpf add /mnt/ovlxoff/f >/dev/null" \
		/mnt/ovlxoff/f read open
	expect_lines "read: EIO" "open: EIO"
	run cat /mnt/ext4/ovlxoff/f
	[ "$output" = "cat: can't open '/mnt/ext4/ovlxoff/f': Input/output error" ]
}

@test "overlayfs (lower on ext4, upper on tmpfs, xino=on): a descriptor opened before and a new open fail with EIO" {
	overlay_cross on
	run "$PROBE" --rdonly --before "revoke-bpf add /mnt/ovlxon/f >/dev/null" \
		/mnt/ovlxon/f read open
	expect_lines "read: EIO" "open: EIO"
	run cat /mnt/ext4/ovlxon/f
	[ "$output" = "cat: can't open '/mnt/ext4/ovlxon/f': Input/output error" ]
}
