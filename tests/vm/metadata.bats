#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What a revoked file has besides its bytes: its extended attributes, its
# POSIX ACL, its mode, owner, times and inode flags can be neither read
# nor changed, by descriptor or by path (EIO); stat(2) still works.  Each
# test first shows the route works on the file, then opens it, revokes it
# and takes the route again.  On ext4 (which keeps user.* attributes and
# ACLs on every kernel the suite boots); runs in the guest.

load lib

ATTRPROBE=$REPO/build/tests/attrprobe
MNT=/mnt/meta

setup_file() {
	unload_all
	truncate -s 32M /tmp/meta.img
	mkdir -p "$MNT"
	/usr/sbin/mke2fs -q -F -t ext4 /tmp/meta.img
	mount -o loop /tmp/meta.img "$MNT"
	start_daemon
}

teardown_file() {
	unload_all
	umount /mnt/meta-ovl 2>/dev/null || true
	umount "$MNT" 2>/dev/null || true
	rm -f /tmp/meta.img
}

setup() {
	F=$(new_file "$MNT")
	"$ATTRPROBE" "$F" setxattr >/dev/null
	ADD="revoke-bpf add $F >/dev/null"
}

teardown() {
	revoke-bpf del "$F" >/dev/null 2>&1 || true
}

# works OP...: each OP succeeds on the file while it is not revoked.
works() {
	local op lines=()
	for op in "$@"; do lines+=("$op: ok"); done
	run "$ATTRPROBE" "$F" "$@"
	expect_lines "${lines[@]}"
}

@test "reading an extended attribute fails with EIO, by path and by descriptor" {
	works getxattr fgetxattr
	run "$ATTRPROBE" --before "$ADD" "$F" getxattr fgetxattr
	expect_lines "getxattr: EIO" "fgetxattr: EIO"
}

@test "listing extended attributes fails with EIO, by path and by descriptor" {
	works listxattr flistxattr
	run "$ATTRPROBE" --before "$ADD" "$F" listxattr flistxattr
	expect_lines "listxattr: EIO" "flistxattr: EIO"
}

@test "setting an extended attribute fails with EIO, by path and by descriptor" {
	works setxattr fsetxattr
	run "$ATTRPROBE" --before "$ADD" "$F" setxattr fsetxattr
	expect_lines "setxattr: EIO" "fsetxattr: EIO"
}

@test "removing an extended attribute fails with EIO, by path and by descriptor" {
	run "$ATTRPROBE" --before "$ADD" "$F" removexattr fremovexattr
	expect_lines "removexattr: EIO" "fremovexattr: EIO"
	revoke-bpf del "$F" >/dev/null
	works removexattr
}

@test "the POSIX ACL can be neither set, read nor removed" {
	works set_acl get_acl
	run "$ATTRPROBE" --before "$ADD" "$F" set_acl get_acl remove_acl
	expect_lines "set_acl: EIO" "get_acl: EIO" "remove_acl: EIO"
}

@test "chmod fails with EIO, by path and by descriptor" {
	works chmod fchmod
	run "$ATTRPROBE" --before "$ADD" "$F" chmod fchmod
	expect_lines "chmod: EIO" "fchmod: EIO"
}

@test "chown fails with EIO, by path and by descriptor" {
	works chown fchown
	run "$ATTRPROBE" --before "$ADD" "$F" chown fchown
	expect_lines "chown: EIO" "fchown: EIO"
}

@test "changing the times fails with EIO, by path and by descriptor" {
	works utimes futimens
	run "$ATTRPROBE" --before "$ADD" "$F" utimes futimens
	expect_lines "utimes: EIO" "futimens: EIO"
}

@test "chmod leaves the mode of a revoked file as it was" {
	chmod 600 "$F"
	revoke "$F"
	run chmod 644 "$F"
	[ "$status" -ne 0 ]
	[[ $output == *"Input/output error"* ]]
	[ "$(stat -c %a "$F")" = 600 ]
}

@test "reading the inode flags of a revoked descriptor fails with EIO" {
	works fsgetxattr
	run "$ATTRPROBE" --before "$ADD" "$F" fsgetxattr
	expect_lines "fsgetxattr: EIO"
}

@test "file_getattr and file_setattr by path fail with EIO where the kernel has them" {
	local v
	v=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	if [ "$v" -lt 6017 ]; then
		# before Linux 6.17 there are no such calls, and no route to close
		run "$ATTRPROBE" --before "$ADD" "$F" file_getattr file_setattr
		expect_lines "file_getattr: ENOSYS" "file_setattr: ENOSYS"
		return
	fi
	works file_getattr file_setattr
	run "$ATTRPROBE" --before "$ADD" "$F" file_getattr file_setattr
	expect_lines "file_getattr: EIO" "file_setattr: EIO"
}

@test "stat and fstat of a revoked file still work" {
	run "$ATTRPROBE" --before "$ADD" "$F" stat fstat
	expect_lines "stat: ok" "fstat: ok"
}

@test "an unprivileged owner can neither chmod nor set attributes of its revoked file" {
	chown 65534:65534 "$F"
	run "$ASUSER" 65534 "$ATTRPROBE" "$F" chmod setxattr
	expect_lines "chmod: ok" "setxattr: ok"
	revoke "$F"
	run "$ASUSER" 65534 "$ATTRPROBE" "$F" chmod setxattr removexattr utimes
	expect_lines "chmod: EIO" "setxattr: EIO" "removexattr: EIO" "utimes: EIO"
}

@test "extended attributes of a revoked file are denied through an overlay" {
	local d=$MNT/ovl
	mkdir -p "$d/low" "$d/up" "$d/work" /mnt/meta-ovl
	F=$(new_file "$d/low")
	"$ATTRPROBE" "$F" setxattr >/dev/null
	mount -t overlay overlay -o "lowerdir=$d/low,upperdir=$d/up,workdir=$d/work" /mnt/meta-ovl
	O=/mnt/meta-ovl/${F##*/}
	run "$ATTRPROBE" "$O" getxattr
	expect_lines "getxattr: ok"
	revoke "$F"
	run "$ATTRPROBE" "$O" getxattr setxattr chmod stat
	umount /mnt/meta-ovl
	expect_lines "getxattr: EIO" "setxattr: EIO" "chmod: EIO" "stat: ok"
}

@test "an attribute named like overlayfs's own is denied when read directly, not through an overlay" {
	works set_ovl_xattr get_ovl_xattr fget_ovl_xattr
	run "$ATTRPROBE" --before "$ADD" "$F" get_ovl_xattr fget_ovl_xattr
	expect_lines "get_ovl_xattr: EIO" "fget_ovl_xattr: EIO"
}

@test "a denied change of metadata is reported with its hook" {
	revoke "$F"
	# three denials: attrprobe's open of the file, setxattr, chmod
	revoke-bpf events --count 3 > /tmp/meta-events.out &
	local ev=$!
	wait_subscribed 1
	run "$ATTRPROBE" "$F" setxattr chmod
	expect_lines "setxattr: EIO" "chmod: EIO"
	wait $ev
	grep -q " comm=attrprobe dev=$(devof "$F") ino=$(stat -c %i "$F") hook=inode_setxattr op=xattr " /tmp/meta-events.out
	grep -q " comm=attrprobe dev=$(devof "$F") ino=$(stat -c %i "$F") hook=inode_setattr op=setattr " /tmp/meta-events.out
}

@test "after del, the attributes of the file work again" {
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	works getxattr setxattr chmod utimes
}
