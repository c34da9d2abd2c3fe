#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Red team (issue 23): an unprivileged process (uid 65534) that wants to
# keep a filesystem that root revokes (add --fs) or force-unmounts
# (revoke-bpf umount), or to make umount exit 0 while the superblock is
# still alive.  A route that keeps the super_block alive without a task
# revoke-bpfd can act on (a descriptor in flight, a bound socket's name, a
# namespace no process is in) is open: there umount must say so (exit 3,
# NOT gone) and the filesystem stay revoked (README, Coverage).

load lib

ATTACK=$REPO/build/tests/umount_attack

setup() {
	D=$(mktemp -d /tmp/uattack.XXXXXX)
	chmod 755 "$D"
	PIDS=()
	L=
	mkdir "$D/m"
	truncate -s 64M "$D/img"
	L=$(losetup -f)
	losetup "$L" "$D/img"
	mke2fs -q -t ext4 "$L"
	mount "$L" "$D/m"
	chmod 777 "$D/m"
	echo "secret data" > "$D/m/data"
	chmod 644 "$D/m/data"
	mkdir -m 777 "$D/m/sub"
	SYSDIR=/sys/fs/ext4/${L#/dev/}
	[ -d "$SYSDIR" ]
}

teardown() {
	local p m
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	for m in $(awk -v d="$D" 'index($5, d) == 1 { print $5 }' \
		   /proc/self/mountinfo | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
	revoke-bpf list --json | jq -r '.[] | select(.fs) | .fs' |
		while read -r fs; do revoke-bpf del --fs-dev "$fs" >/dev/null; done
	[ -z "$L" ] || losetup -d "$L" 2>/dev/null || true
	rm -rf "$D"
}


# attack MODE PATH: run umount_attack MODE PATH as uid 65534 in the
# background, output in $D/a.out; waits until it holds what it holds
attack() {
	"$ASUSER" 65534 "$ATTACK" "$1" "$2" "$D/go" >"$D/a.out" 2>&1 3>&- &
	PIDS+=($!)
	A=$!
	until_true grep -q '^ready$' "$D/a.out"
}

# result: once go is given, the attacker's last line
result() {
	touch "$D/go"
	until_true grep -Eq '^(read|recv|setns|socket)' "$D/a.out"
	cat "$D/a.out" >&2
	tail -n 1 "$D/a.out"
}

@test "a descriptor kept only in a SCM_RIGHTS message in flight keeps the filesystem: umount exits 3, NOT gone, and the data stays denied" {
	attack inflight "$D/m/data"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 3 ]
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	revoke-bpf list | grep -Eq "^fs +[0-9]+:[0-9]+ +\* "
	# the data is denied: file_receive drops the descriptor
	[ "$(result)" = "recv: EPERM" ]
}

@test "a descriptor in flight in SCM_RIGHTS is dropped when received after add --fs (file_receive)" {
	attack inflight "$D/m/data"
	run revoke-bpf add --fs "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(result)" = "recv: EPERM" ]
}

@test "an AF_UNIX socket bound to a name on the filesystem keeps it: umount exits 3, NOT gone, and it stays revoked" {
	attack unixbind "$D/m/sub/sock"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 3 ]
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	revoke-bpf list | grep -Eq "^fs +[0-9]+:[0-9]+ +\* "
	run cat "$D/m/data"
	[ "$output" = "cat: can't open '$D/m/data': Input/output error" ]
}

@test "an unprivileged user+mount namespace (unshare -Urm) does not keep the filesystem: its process is ended, umount exits 0 and the superblock is gone" {
	"$ASUSER" 65534 unshare -Urm sleep 1000 3>&- &
	P=$!
	PIDS+=("$P")
	until_true grep -q " $D/m " "/proc/$P/mountinfo"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -Eq "^  killed: pid [0-9]+ \(sleep\) user nobody: umount: mount_locked_in_namespace$"
	! grep -q " $D/m " /proc/self/mountinfo
	[ ! -e "$SYSDIR" ]
}

@test "umount --spare names the process of a user+mount namespace that keeps a locked copy, exits 4 and keeps the filesystem revoked" {
	"$ASUSER" 65534 unshare -Urm sleep 1000 3>&- &
	P=$!
	PIDS+=("$P")
	until_true grep -q " $D/m " "/proc/$P/mountinfo"
	run revoke-bpf umount --spare "$D/m"
	echo "$output"
	[ "$status" -eq 4 ]
	echo "$output" | grep -Eq "^  failed: pid [0-9]+ \(sleep\) user nobody: umount: mount_locked_in_namespace$"
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	revoke-bpf list | grep -Eq "^fs +[0-9]+:[0-9]+ +\* "
}

@test "a mount namespace with no task left, kept by an nsfs descriptor, keeps the filesystem: umount exits 3, NOT gone, and the file reads EIO there" {
	attack orphanns "$D/m/data"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 3 ]
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	# the data is denied in the namespace's copy of the mount
	[ "$(result)" = "read: open EIO" ]
}

@test "an O_PATH descriptor reopened through /proc/self/fd after add --fs fails with EIO" {
	attack opath "$D/m/data"
	run revoke-bpf add --fs "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(result)" = "read: open EIO" ]
}

@test "an O_PATH descriptor does not keep the filesystem: umount exits 0 and the superblock is gone" {
	attack opath "$D/m/data"
	run revoke-bpf umount "$D/m"
	echo "$output"
	echo "umount exit status: $status"
	echo "$output" | sed 's/^/# /' >&3
	echo "# umount exit status: $status; sysfs: $(ls -d "$SYSDIR" 2>&1)" >&3
	[ "$status" -eq 0 ]
	[ ! -e "$SYSDIR" ]
}

@test "a bind mount of a subdirectory elsewhere is unmounted by umount too" {
	mkdir "$D/b"
	mount --bind "$D/m/sub" "$D/b"
	"$ASUSER" 65534 bash -c 'cd "$1" && exec sleep 1000' - "$D/b" 3>&- &
	P=$!
	PIDS+=("$P")
	until_true cwd_is "$P" "$D/b"
	run revoke-bpf umount "$D/m"
	echo "$output"
	echo "umount exit status: $status"
	echo "$output" | sed 's/^/# /' >&3
	echo "# umount exit status: $status; sysfs: $(ls -d "$SYSDIR" 2>&1)" >&3
	[ "$status" -eq 0 ]
	! grep -q " $D/b " /proc/self/mountinfo
	[ ! -e "$SYSDIR" ]
	cwd_is "$P" /
	kill -0 "$P"
}

@test "another process's descriptor reopened through /proc/PID/fd after add --fs fails with EIO" {
	"$ASUSER" 65534 bash -c 'exec 7<"$1"; exec sleep 1000' - "$D/m/data" 3>&- &
	PIDS+=($!)
	P=$!
	until_true test -e "/proc/$P/fd/7"
	run revoke-bpf add --fs "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$ASUSER" 65534 cat "/proc/$P/fd/7"
	echo "$output"
	[ "$output" = "cat: can't open '/proc/$P/fd/7': Input/output error" ]
}

@test "a detached copy of the mount (open_tree OPEN_TREE_CLONE in a user namespace) held by a descriptor: umount exits 0 only once the superblock is gone, and data reads EIO" {
	attack detached "$D/m"
	run revoke-bpf umount "$D/m"
	echo "$output"
	echo "umount exit status: $status"
	echo "$output" | sed 's/^/# /' >&3
	echo "# umount exit status: $status; sysfs: $(ls -d "$SYSDIR" 2>&1)" >&3
	echo "sysfs: $(ls -d "$SYSDIR" 2>&1)"
	[ "$status" -eq 0 ]
	[ ! -e "$SYSDIR" ]
	# the descriptor was released: a dead file, not a directory
	[ "$(result)" = "read: open ENOTDIR" ]
}

@test "a detached copy of the mount kept only in a SCM_RIGHTS message in flight keeps the filesystem: umount exits 3, NOT gone, and the data reads EIO" {
	attack detached-inflight "$D/m"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 3 ]
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	# the data is denied (EIO), though the detached mount is received
	[ "$(result)" = "read: open EIO" ]
}

@test "a fork chain that maps a file of the filesystem and forks as fast as it can: umount exits 0, the superblock is gone, no generation reads after it" {
	"$ASUSER" 65534 "$REPO/build/tests/hostile" chain "$D/m/data" "$D/flag" \
		>"$D/chain.out" 2>&1 3>&- &
	PIDS+=($!)
	until_true grep -q '^ready' "$D/chain.out"
	run revoke-bpf umount "$D/m"
	touch "$D/flag"
	echo "$output"
	echo "$output" | sed 's/^/# /' >&3
	echo "# umount exit status: $status; sysfs: $(ls -d "$SYSDIR" 2>&1)" >&3
	sleep 1
	cat "$D/chain.out" >&2
	! grep -q 'read after add' "$D/chain.out"
	[ "$status" -eq 0 ]
	[ ! -e "$SYSDIR" ]
}

# tmpfs_attack MODE: a tmpfs on $D/t with a file, held by umount_attack
# MODE, then "revoke-bpf umount"; sets status, output and R (what the
# attacker got once let go)
tmpfs_attack() {
	mkdir "$D/t"
	mount -t tmpfs -o mode=777 uattack "$D/t"
	echo "tmpfs data" > "$D/t/data"
	chmod 644 "$D/t/data"
	attack "$1" "$2"
	run revoke-bpf umount "$D/t"
	echo "$output"
	echo "$output" | sed 's/^/# /' >&3
	echo "# umount exit status: $status" >&3
	revoke-bpf list | sed 's/^/# list: /' >&3
	R=$(result)
	echo "# attacker after umount: $R" >&3
}

@test "tmpfs: a detached copy of the mount kept in a SCM_RIGHTS message in flight: umount does not exit 0 while the superblock lives, and its data stays denied" {
	tmpfs_attack detached-inflight "$D/t"
	[ "$R" != "read: tmpfs data" ]
	# "read: open EIO" after an exit 0 would still prove the super_block
	# alive: the detached mount was received
	[ "$status" -ne 0 ] || [ "$R" = "recv: EPERM" ]
}

@test "tmpfs: a mount namespace with no task left, kept by an nsfs descriptor: umount does not exit 0 while the superblock lives, and its data stays denied" {
	tmpfs_attack orphanns "$D/t/data"
	[ "$R" != "read: tmpfs data" ]
	[ "$status" -ne 0 ]
}
