#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The revocation pipeline, end to end in the guest: after "add" returns,
# blocked callers have been woken into EIO, mappings fault with SIGBUS,
# released descriptors refer to a dead file, and no process is left
# stopped.  Every holder is a real process (build/tests/holder, cat,
# strace) and every assertion is the errno, signal or line it saw.

load lib

setup() {
	D=$(mktemp -d /tmp/pipeline.XXXXXX)
	KILL=()
}

# Every test ends with revoke-bpfd tracing nothing (checked first, while
# the holders live, but failing only once they are cleaned up).
teardown() {
	local held=0
	lets_go_of_all || held=1
	kill_holders
	umount "$D/mnt" 2>/dev/null || true
	return "$held"
}

# fifo: a new FIFO in $D; prints its path.
fifo() {
	mkfifo "$D/fifo"
	echo "$D/fifo"
}

# holder_exits STATUS: wait for $HOLDER_PID, which must exit with STATUS.
holder_exits() {
	local rc=0
	wait "$HOLDER_PID" || rc=$?
	HOLDER_PID=
	[ "$rc" -eq "$1" ] || { echo "holder exited with $rc, expected $1" >&2; return 1; }
}

@test "a cat blocked reading a FIFO exits with EIO" {
	local f rc=0
	f=$(fifo)
	cat 0<>"$f" >"$D/out" 2>&1 3>&- &
	HOLDER_PID=$!
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add "$f" --no-release
	[ "$status" -eq 0 ]
	expect_lines "$f: revoked (dev $(devof "$f") ino $(stat -c %i "$f"))" \
		"  holders 1: fds 1, mappings 0, waiters 1; woken 1, unmapped 0, released 0; failed 0"
	wait "$HOLDER_PID" || rc=$?
	HOLDER_PID=
	[ "$rc" -eq 1 ]
	[ "$(cat "$D/out")" = "cat: read error: Input/output error" ]
}

@test "a reader blocked on a pty slave is woken and released" {
	local slave ino
	start_holder "$D/out" pty /dev/ptmx
	slave=$(sed -n 's/^ready pid=[0-9]* slave=//p' "$D/out")
	[ -c "$slave" ]
	ino=$(stat -c %i "$slave")
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add "$slave"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 1; woken 1, unmapped 0, released 1; failed 0" ]
	wait_line "$D/out" "read: EIO"
	holder_exits 0
	# the pty is gone, and its entry with it: the next pty may reuse the number
	run revoke-bpf list --json
	[[ $output != *"\"ino\":$ino,"* ]]
}

@test "a process in poll() on the fd returns POLLIN|POLLERR, then reads EIO" {
	local f
	f=$(fifo)
	start_holder "$D/out" poll "$f"
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add "$f" --no-release
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 1; woken 1, unmapped 0, released 0; failed 0" ]
	holder_exits 0
	run cat "$D/out"
	[ "${lines[1]}" = "poll: 1 revents=0x9" ]
	[ "${lines[2]}" = "read: EIO" ]
}

@test "a process in epoll_wait() on the fd gets EPOLLIN|EPOLLERR with its data, then reads EIO" {
	local f
	f=$(fifo)
	start_holder "$D/out" epoll "$f"
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add "$f" --no-release
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 1; woken 1, unmapped 0, released 0; failed 0" ]
	holder_exits 0
	run cat "$D/out"
	[ "${lines[1]}" = "epoll: 1 events=0x9 data=4242" ]
	[ "${lines[2]}" = "read: EIO" ]
}

@test "a process in select() on the fd sees it readable, then reads EIO" {
	local f
	f=$(fifo)
	start_holder "$D/out" select "$f"
	wait_blocked "$HOLDER_PID"
	run revoke-bpf add "$f" --no-release
	[ "$status" -eq 0 ]
	holder_exits 0
	run cat "$D/out"
	[ "${lines[1]}" = "select: 1 readable=1" ]
	[ "${lines[2]}" = "read: EIO" ]
}

# add_faults_holder F REPORT SIGBUS [ARG...]: "revoke-bpf add F ARG..."
# succeeds with REPORT as its second line; the holder, which reads its
# mappings of F in a loop, then exits 0 from its SIGBUS handler, whose
# line, the second of $D/out, is SIGBUS.  $lines is left as $D/out's.
add_faults_holder() {
	local f=$1 report=$2 sigbus=$3
	shift 3
	run revoke-bpf add "$f" "$@"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "$report" ]
	holder_exits 0
	run cat "$D/out"
	[ "${lines[1]}" = "$sigbus" ]
	revoke-bpf del "$f" >/dev/null
}

@test "a process reading a mapping in a loop dies with SIGBUS BUS_ADRERR on its next access" {
	local f
	f=$(new_file)
	start_holder "$D/out" mmap "$f"
	sleep 0.2
	grep -q '^ready' "$D/out"
	add_faults_holder "$f" \
		"  holders 1: fds 1, mappings 1, waiters 0; woken 0, unmapped 1, released 0; failed 0" \
		"SIGBUS si_code=BUS_ADRERR"
}

@test "a 16-thread process with 4 mappings has all of them replaced" {
	local f
	f=$(new_file)
	start_holder "$D/out" --threads 16 --maps 4 mmap "$f"
	[ "$(ls /proc/"$HOLDER_PID"/task | wc -l)" -eq 16 ]
	add_faults_holder "$f" \
		"  holders 1: fds 1, mappings 4, waiters 0; woken 0, unmapped 4, released 0; failed 0" \
		"SIGBUS si_code=BUS_ADRERR"
}

@test "a holder whose seccomp filter kills memfd_create and dup3 is still unmapped" {
	local f
	f=$(new_file)
	start_holder "$D/out" --seccomp mmap "$f"
	grep -q '^Seccomp:[[:space:]]*2' "/proc/$HOLDER_PID/status"
	add_faults_holder "$f" \
		"  holders 1: fds 1, mappings 1, waiters 0; woken 0, unmapped 1, released 1; failed 0" \
		"SIGBUS si_code=BUS_ADRERR" --release
}

# mapping_replaced_keeps_sigtrap HOW STATE: a holder that set SIGTRAP to
# HOW (block, ignore, catch) loses its mapping to SIGBUS, and SIGTRAP
# stands as STATE when it faults: the calls injected into it ran without
# changing its signal mask or actions (a single step would have: its trap
# unblocks SIGTRAP and resets an ignored one), and no trap reached it.
mapping_replaced_keeps_sigtrap() {
	local f
	f=$(new_file)
	start_holder "$D/out" --sigtrap "$1" mmap "$f"
	add_faults_holder "$f" \
		"  holders 1: fds 1, mappings 1, waiters 0; woken 0, unmapped 1, released 0; failed 0" \
		"SIGBUS si_code=BUS_ADRERR sigtrap=$2"
	[ "${#lines[@]}" -eq 2 ]
}

@test "a holder that blocks SIGTRAP still blocks it after its mapping is replaced" {
	mapping_replaced_keeps_sigtrap block blocked,default
}

@test "a holder that ignores SIGTRAP still ignores it after its mapping is replaced" {
	mapping_replaced_keeps_sigtrap ignore unblocked,ignore
}

@test "a holder that catches SIGTRAP gets no trap while its mapping is replaced" {
	mapping_replaced_keeps_sigtrap catch unblocked,catch
}

@test "with --spare a holder already under strace is reported, left running, and woken by add once strace lets go" {
	local f pid spid
	f=$(fifo)
	# -I 1: strace blocks SIGTERM by default when it runs the program
	strace -I 1 -o "$D/strace" "$HOLDER" read "$f" >"$D/out" 2>&1 3>&- &
	spid=$!
	KILL+=("$spid")
	for i in $(seq 1 100); do grep -q '^ready' "$D/out" && break; sleep 0.05; done
	pid=$(sed -n 's/^ready pid=//p' "$D/out")
	[ -n "$pid" ]
	wait_blocked "$pid"
	run revoke-bpf add "$f" --no-release --spare
	[ "$status" -eq 4 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 1" ]
	[ "${lines[2]}" = "  failed: pid $pid (holder) user root: stop: traced_by_pid_$spid" ]
	# untouched: still blocked in its read, not stopped by us
	[ "$(cut -d' ' -f1 "/proc/$pid/syscall")" = 0 ]
	not_stopped "$pid"
	kill -TERM "$spid"
	wait "$spid" || true
	# no longer traced: the same add again handles it
	run revoke-bpf add "$f" --no-release
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$f: already revoked (dev $(devof "$f") ino $(stat -c %i "$f"))" ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 1; woken 1, unmapped 0, released 0; failed 0" ]
	wait_line "$D/out" "read: EIO"
}

@test "release puts a dead file in place of the descriptor and lets the filesystem unmount" {
	local f fd
	mkdir "$D/mnt"
	mount -t tmpfs none "$D/mnt"
	f=$(new_file "$D/mnt")
	start_holder "$D/out" hold "$f"
	run umount "$D/mnt"
	[ "$status" -ne 0 ]
	run revoke-bpf add "$f" --release
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 0; woken 0, unmapped 0, released 1; failed 0" ]
	fd=$(ls -l "/proc/$HOLDER_PID/fd" | awk '/revoke-bpf-dead/ { print $9 }')
	[ "$(readlink "/proc/$HOLDER_PID/fd/$fd")" = "/memfd:revoke-bpf-dead (deleted)" ]
	not_stopped "$HOLDER_PID"
	umount "$D/mnt"
}

@test "without release the descriptor still refers to the revoked file" {
	local f
	f=$(new_file)
	start_holder "$D/out" hold "$f"
	run revoke-bpf add "$f" --no-release
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0" ]
	ls -l "/proc/$HOLDER_PID/fd" | grep -qF -- "-> $f"
	not_stopped "$HOLDER_PID"
	revoke-bpf del "$f" >/dev/null
}

@test "add --json reports the pipeline's counts and failures" {
	local f
	f=$(fifo)
	start_holder "$D/out" read "$f"
	wait_blocked "$HOLDER_PID"
	run revoke-bpf --json add "$f" --no-release
	[ "$status" -eq 0 ]
	[[ $output == *'"report":{"holders":1,"fds":1,"mappings":0,"waiters":1,"woken":1,"unmapped":0,"released":0,"failed":0,"discover_us":'* ]]
	[[ $output == *'"failures":[]'* ]]
	wait_line "$D/out" "read: EIO"
}

@test "list shows what the pipeline did for each entry" {
	local f
	f=$(new_file)
	start_holder "$D/out" mmap "$f"
	revoke-bpf add "$f" >/dev/null
	holder_exits 0
	run revoke-bpf list --json
	[[ $output == *"\"ino\":$(stat -c %i "$f")"*'"holders":1,"fds":1,"mappings":1,"waiters":0,"woken":0,"unmapped":1,"released":0,"failed":0'* ]]
	revoke-bpf del "$f" >/dev/null
}
