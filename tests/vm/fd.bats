#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf add --fd PID:FD (issue 35, item 5): one open file
# description and every copy of it is revoked, the other opens of its file
# are not.  build/tests/fdcopies holds the description by each route (a
# dup, a forked child, a copy in flight over a unix socket, io_uring by
# descriptor and as a fixed file) beside a second open of the same file,
# runs the add, then tries each route.  One daemon, started with --group
# revokers: uid 1000 is a member.

load lib

FDCOPIES=$REPO/build/tests/fdcopies

setup_file() {
	unload_all
	grep -q '^revokers:' /etc/group || echo 'revokers:x:1000:' >> /etc/group
	start_daemon --group revokers
}

setup() {
	D=$(mktemp -d /tmp/fd.XXXXXX)
	chmod 755 "$D"
	echo "some content" > "$D/file"
	chmod 644 "$D/file"
}

teardown() {
	kill_holders
	umount -l "$D/merged" "$D/fuse" 2>/dev/null || true
	rm -rf "$D"
}

# nothing_revoked: list says so (an entry goes when its file is freed,
# which a ring's teardown does after its process has exited)
nothing_revoked() { [ "$(revoke-bpf list)" = "nothing is revoked" ]; }

@test "add --fd: the description and each copy fail with EIO (its descriptors released), the other open and a new one read; the entry goes with the file" {
	run "$FDCOPIES" "$D/file" --before \
		"revoke-bpf add --fd \$FD_PID:\$FD_NUM >$D/add"
	expect_lines "read: EIO" "dup_read: EIO" "uring_read: EIO" \
		"uring_fixed: EBADF" "received: MSG_CTRUNC" "other_read: 13" \
		"reopen_read: 13" "child_read: EIO"
	run sed -n '1s/pid [0-9]*, descriptor [0-9]* (dev [0-9:]* ino [0-9]*)/pid P, descriptor N (dev D ino I)/p' "$D/add"
	expect_lines "open file of pid P, descriptor N (dev D ino I): revoked"
	grep -q "^  holders 2: fds 4, mappings 0, waiters 0; woken 0, unmapped 0, released 4; failed 0$" "$D/add"
	until_true nothing_revoked
}

@test "add --fd --no-release by a --group member, of its own process: every copy is denied by the description itself, add again says already, list shows it while it lives" {
	chown 1000 "$D"
	"$ASUSER" 1000 "$FDCOPIES" "$D/file" --before \
		"revoke-bpf add --no-release --json --fd \$FD_PID:\$FD_NUM >$D/add && revoke-bpf add --no-release --fd \$FD_PID:\$FD_NUM >$D/again && revoke-bpf list >$D/list && revoke-bpf status >$D/status" >"$D/out"
	run cat "$D/out"
	expect_lines "read: EIO" "dup_read: EIO" "uring_read: EIO" \
		"uring_fixed: EBADF" "received: MSG_CTRUNC" "other_read: 13" \
		"reopen_read: 13" "child_read: EIO"
	grep -q '^{"result":"added","open_fd":"[0-9]*:[0-9]*","dev":"[0-9]*:[0-9]*","ino":[0-9]*,' "$D/add"
	run sed -n '1s/pid [0-9]*, descriptor [0-9]* (dev [0-9:]* ino [0-9]*)/pid P, descriptor N (dev D ino I)/p' "$D/again"
	expect_lines "open file of pid P, descriptor N (dev D ino I): already revoked"
	run sed -n '2s/^fd  *[0-9]*:[0-9]*  *[0-9]*  *\([0-9]*\) .* - *(descriptor [0-9]* of pid [0-9]*)$/fd denials \1/p' "$D/list"
	expect_lines "fd denials 0"
	grep -q "^entries  *0 inodes, 0 devices, 0 filesystems, 1 open file (room for " "$D/status"
	until_true nothing_revoked
}

@test "add --fd refuses bad forms (exit 2, one line), another user's process for a --group member, and del --fd (a revoked description never comes back)" {
	local f pid
	for f in 12 :3 12: x:3 12:x 0:3 12:-1 4194305:0 12:2147483648 " 12:3"; do
		run revoke-bpf add --fd "$f"
		[ "$status" -eq 2 ]
		[ "$output" = "revoke-bpf: add: invalid --fd '$f': expected PID:FD, two numbers (pid 1 to 4194304, fd 0 to 2147483647)" ]
	done
	run revoke-bpf add --fd 1:0 "$D/file"
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: add: --fd names one open file by a process's descriptor; it takes no PATH, --inode, --dev, --rdev, --fs or --cause"
	run revoke-bpf del --fd 1:0
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: del: unknown option '--fd'; try 'revoke-bpf help del'"
	pid=$BASHPID
	exec 7<"$D/file"
	run "$ASUSER" 1000 revoke-bpf add --fd $pid:7
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: process $pid is not yours (you are uid 1000; a setuid, setgid or non-dumpable process is not yours either); only root may revoke its descriptors; run it with sudo"
	run revoke-bpf add --fd $pid:99
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: process $pid has no descriptor 99"
	exec 7<&-
	run revoke-bpf list
	expect_lines "nothing is revoked"
}

# red team: a mapping made through the description before the add is
# taken away (SIGBUS); through overlayfs the mapping's file is the real
# (upper or lower) file, which the holders' search for one description
# does not match: add says so and exits 4, never that it took it.
@test "add --fd replaces a mapping made through it (SIGBUS); through overlayfs it says mappings were not looked for (exit 4)" {
	mkdir "$D/lower" "$D/upper" "$D/work" "$D/merged"
	echo "lower content" > "$D/lower/file"
	mount -t overlay overlay -o "lowerdir=$D/lower,upperdir=$D/upper,workdir=$D/work" "$D/merged"
	start_holder "$D/plain" mmap "$D/file"
	KILL=("$HOLDER_PID")
	run revoke-bpf add --fd "$HOLDER_PID:3"
	[ "$status" -eq 0 ]
	wait_line "$D/plain" "SIGBUS si_code=BUS_ADRERR"
	start_holder "$D/ovl" mmap "$D/merged/file"
	KILL+=("$HOLDER_PID")
	run revoke-bpf --json add --no-release --fd "$HOLDER_PID:3"
	[ "$status" -eq 4 ]
	[ "$(jq -r '.failures[0].reason' <<<"$output")" = overlayfs_mappings_not_looked_for ]
}

# red team: revoke-bpfd's own copy of the description is closed in the
# closer's thread: the last close of a FUSE file waits for the server's
# FLUSH answer, for good if it never answers, and must not hold the
# daemon (fusermount3 is any user's).
@test "add --fd of a FUSE file whose server never answers does not hold revoke-bpfd" {
	mkdir "$D/fuse"
	"$REPO/build/tests/fusefile" "$D/fuse" >"$D/fuse.out" 2>&1 3>&- &
	KILL=("$!")
	wait_line "$D/fuse.out" ready
	start_holder "$D/h" hold "$D/fuse/f"
	KILL+=("$HOLDER_PID")
	# the server sleeps in its answer to this read, for good
	cat "$D/fuse/hang" >/dev/null 2>&1 3>&- &
	KILL+=("$!")
	wait_line "$D/fuse.out" hanging
	run timeout 10 revoke-bpf add --no-release --fd "$HOLDER_PID:3"
	[ "$status" -eq 0 ]
	run timeout 10 revoke-bpf status
	[ "$status" -eq 0 ]
	# the server's death fails its requests: the copy is closed then
	kill_holders
	umount -l "$D/fuse" 2>/dev/null || true
	until_true nothing_revoked
}
