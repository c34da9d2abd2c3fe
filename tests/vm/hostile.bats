#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Holders that fight back, as an unprivileged user (uid 65534) who wants
# to keep a file after root revokes it: no syscall instruction to lend,
# a fork-and-exit chain, a child traced by its own parent, a wait in a
# FUSE request its server never answers.  Each ends with its access gone
# (SIGBUS on the mapping, or killed by the policy and named), or, with
# --spare, alive and reported with exit status 4; none is left stopped
# or traced by revoke-bpfd.

load lib

HOSTILE=$REPO/build/tests/hostile
FUSEFILE=$REPO/build/tests/fusefile

setup() {
	D=$(mktemp -d /tmp/hostile.XXXXXX)
	chmod 755 "$D"
	KILL=()
}

# The FUSE server goes first: a holder killed while it waits for it ends
# only once the kernel fails its requests (then revoke-bpfd, its tracer
# since it tried to stop it, reaps it).
teardown() {
	local held=0
	if [ -n "${FUSE_PID:-}" ]; then
		kill -9 "$FUSE_PID" 2>/dev/null || true
		wait "$FUSE_PID" 2>/dev/null || true
		umount -l "$D/fuse" 2>/dev/null || true
		FUSE_PID=
	fi
	lets_go_of_all || held=1
	kill_holders
	return "$held"
}

# as_nobody OUT ARGS...: "hostile ARGS..." as uid 65534 in the background,
# output to OUT; waits for its "ready" line and sets HOLDER_PID (asuser
# executes hostile, so the pid is the same).
as_nobody() {
	local out=$1
	shift
	"$ASUSER" 65534 "$HOSTILE" "$@" >"$out" 2>&1 3>&- &
	HOLDER_PID=$!
	wait_ready_line "$out" "hostile $*"
}

# nobody_file: a new file uid 65534 may read and write; prints its path.
nobody_file() {
	local f
	f=$(new_file "$D")
	chmod 666 "$f"
	echo "$f"
}

# untouched PID TRACER: PID is neither stopped nor traced by anyone but
# TRACER (0: no one).
untouched() {
	not_stopped "$1"
	[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$1/status")" = "$2" ]
}

# holder_exits STATUS: wait for $HOLDER_PID, which must exit with STATUS.
holder_exits() {
	local rc=0
	wait "$HOLDER_PID" || rc=$?
	HOLDER_PID=
	[ "$rc" -eq "$1" ] || { echo "holder exited with $rc, expected $1" >&2; return 1; }
}

@test "a holder with no syscall instruction to lend (no vDSO, spinning) loses its FIFO descriptor and its mapping" {
	local f fd
	f=$(nobody_file)
	mkfifo -m 666 "$D/fifo"
	as_nobody "$D/out" spin "$f" "$D/fifo"
	fd=$(sed -n 's/^ready pid=[0-9]* fifo_fd=//p' "$D/out")
	! grep -q '\[vdso\]' "/proc/$HOLDER_PID/maps"
	sleep 0.3	# past its last call: spinning in user space
	run revoke-bpf add "$D/fifo"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 0, waiters 0; woken 0, unmapped 0, released 1; failed 0" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(readlink "/proc/$HOLDER_PID/fd/$fd")" = "/memfd:revoke-bpf-dead (deleted)" ]
	untouched "$HOLDER_PID" 0
	run revoke-bpf add "$f"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 0, mappings 1, waiters 0; woken 0, unmapped 1, released 0; failed 0" ]
	[ "${#lines[@]}" -eq 2 ]
	holder_exits 0
	# its SIGBUS handler: the FIFO's descriptor is the dead file, its code
	# is what it was before the instruction was written and put back
	run cat "$D/out"
	[ "${lines[1]}" = "fifo read: EIO" ]
	[ "${lines[2]}" = "text intact" ]
	[ "${lines[3]}" = "SIGBUS si_code=BUS_ADRERR" ]
}

@test "a fork-and-exit chain holding a mapping: no generation reads the file after add" {
	local f ended
	f=$(nobody_file)
	as_nobody "$D/out" chain "$f" "$D/after"
	sleep 0.5	# generations go by
	run revoke-bpf add "$f"
	touch "$D/after"
	echo "add exited $status: $output"	# shown if the test fails
	[ "$status" -eq 0 ]
	[[ ${lines[1]} =~ ^"  holders "[0-9]+": fds 0, mappings "[0-9]+", waiters 0; woken 0, unmapped "[0-9]+", released 0; failed 0"(", killed "[0-9]+)?$ ]]
	# any holder killed is a generation, named and with its reason
	for l in "${lines[@]:2}"; do
		[[ $l =~ ^"  killed: pid "[0-9]+" (hostile) user nobody: "(rescan: new_holder_after_4_passes|stop: no_thread_stopped)$ ]] ||
			[[ $l =~ ^"  slow: pid "[0-9]+" (hostile) took "[0-9]+" ms"$ ]]
	done
	for i in $(seq 1 200); do
		grep -q '^chain ended' "$D/out" && break
		sleep 0.05
	done
	ended=$(grep '^chain ended' "$D/out")
	# what it took, for the record (TAP comments)
	echo "# add: ${lines[1]# }" >&3
	echo "# $ended" >&3
	echo "# $(grep -o 'in [0-9]* us, [0-9]* passes, [0-9]* killed' "$DAEMON_LOG" | tail -1)" >&3
	[[ $ended =~ ^"chain ended: generations="[1-9][0-9]*" exited="[0-9]+" sigbus="[0-9]+" sigkill="[0-9]+" other=0"$ ]]
	! grep -q '^read after add' "$D/out"
	holder_exits 0
}

@test "a child traced by its unprivileged parent is killed by default and named with uid and reason" {
	local f child
	f=$(nobody_file)
	as_nobody "$D/out" traced "$f"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf add "$f"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 2: fds 0, mappings 2, waiters 0; woken 0, unmapped 1, released 0; failed 0, killed 1" ]
	[ "${lines[2]}" = "  killed: pid $child (hostile) user nobody: stop: traced_by_pid_$HOLDER_PID" ]
	[ "${#lines[@]}" -eq 3 ]
	wait_line "$D/out" "child ended: signal KILL"
	holder_exits 0
}

@test "with --spare the traced child survives, add exits 4 and names it" {
	local f child
	f=$(nobody_file)
	as_nobody "$D/out" traced "$f"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf add "$f" --spare
	[ "$status" -eq 4 ]
	[ "${lines[1]}" = "  holders 2: fds 0, mappings 2, waiters 0; woken 0, unmapped 1, released 0; failed 1" ]
	[ "${lines[2]}" = "  failed: pid $child (hostile) user nobody: stop: traced_by_pid_$HOLDER_PID" ]
	[ "${#lines[@]}" -eq 3 ]
	# alive, traced by its parent only, not stopped
	untouched "$child" "$HOLDER_PID"
	untouched "$HOLDER_PID" 0
	! grep -q '^child ended' "$D/out"
}

# revoke-bpfd injects system calls into native (64-bit) processes only:
# a 32-bit holder's single-stepped call does not end where it should, and
# the holder is killed as one that cannot be released, and named.
@test "a 32-bit holder of a mapping, into which no call can be injected, is killed by default and named with the reason" {
	local f
	f=$(nobody_file)
	"$ASUSER" 65534 "$REPO/build/tests/holder32" "$f" >"$D/out" 2>&1 3>&- &
	HOLDER_PID=$!
	wait_ready_line "$D/out" "holder32"
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 1, waiters 0; woken 0, unmapped 0, released 0; failed 0, killed 1" ]
	[ "${lines[2]}" = "  killed: pid $HOLDER_PID (holder32) user nobody: unmap: inject_EIO" ]
	[ "${#lines[@]}" -eq 3 ]
	! grep -q SIGBUS "$D/out"
	holder_exits 137
}

@test "the policy's 'holders spare' spares a traced child as --spare does" {
	local f child
	f=$(nobody_file)
	printf 'holders spare\n' > "$D/policy.conf"
	stop_daemon
	start_daemon --policy "$D/policy.conf"
	as_nobody "$D/out" traced "$f"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf add "$f"
	stop_daemon
	start_daemon
	[ "$status" -eq 4 ]
	[ "${lines[2]}" = "  failed: pid $child (hostile) user nobody: stop: traced_by_pid_$HOLDER_PID" ]
	untouched "$child" "$HOLDER_PID"
}

@test "add --json lists each failure and each killed holder with pid, uid, comm, step and reason" {
	local f child
	f=$(nobody_file)
	as_nobody "$D/out" traced "$f"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf --json add "$f" --spare
	[ "$status" -eq 4 ]
	[[ $output == *"\"failures\":[{\"pid\":$child,\"tid\":0,\"step\":\"stop\",\"reason\":\"traced_by_pid_$HOLDER_PID\",\"uid\":65534,\"user\":\"nobody\",\"comm\":\"hostile\"}],\"killed\":[]"* ]]
	run revoke-bpf --json add "$f"
	[ "$status" -eq 0 ]
	[[ $output == *"\"failures\":[],\"killed\":[{\"pid\":$child,\"uid\":65534,\"user\":\"nobody\",\"comm\":\"hostile\",\"step\":\"stop\",\"reason\":\"traced_by_pid_$HOLDER_PID\",\"gone\":true}]"* ]]
	wait_line "$D/out" "child ended: signal KILL"
}

# fuse_stuck HOW: a FUSE server in $D/fuse that answers nothing more, and
# a holder (uid 65534) of a new file $F asleep in a read of the server's
# file through HOW (map or fd).  Its wait is killable (D) or, on some
# kernels for a read by descriptor, first interruptible (S), which the
# pipeline's PTRACE_INTERRUPT turns into a killable one: either way no
# ptrace stop comes, and only SIGKILL reaches it.
fuse_stuck() {
	F=$(nobody_file)
	mkdir "$D/fuse"
	"$FUSEFILE" "$D/fuse" > "$D/fuse.out" 2>&1 3>&- &
	FUSE_PID=$!
	wait_line "$D/fuse.out" ready
	as_nobody "$D/out" stuck "$1" "$F" "$D/fuse/f" "$D/go"
	# the server sleeps in its answer to this read, for good
	cat "$D/fuse/hang" > /dev/null 2>&1 3>&- &
	KILL+=("$!")
	wait_line "$D/fuse.out" hanging
	touch "$D/go"
	wait_line "$D/out" reading
	sleep 0.5
	grep -q '^State:[[:space:]]*[SD]' "/proc/$HOLDER_PID/status" || {
		echo "the holder is not asleep in the FUSE request:" >&2
		grep State "/proc/$HOLDER_PID/status" >&2
		return 1
	}
	! grep -q '^read:' "$D/out"
}

@test "a holder asleep in a FUSE request its server never answers is killed by default" {
	fuse_stuck map
	run revoke-bpf add "$F"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 0, mappings 1, waiters 0; woken 0, unmapped 0, released 0; failed 0, killed 1" ]
	[ "${lines[2]}" = "  killed: pid $HOLDER_PID (hostile) user nobody: stop: no_thread_stopped" ]
	# the second it waited for a stop that never came, named
	[[ ${lines[3]} =~ ^"  slow: pid $HOLDER_PID (hostile) took 1"[0-9]{3}" ms"$ ]]
	[ "${#lines[@]}" -eq 4 ]
	holder_exits 137
}

@test "a killed holder whose exit waits on a FUSE server that never answers is reported alive, add exits 4" {
	fuse_stuck fd
	run revoke-bpf add "$F"
	[ "$status" -eq 4 ]
	[ "${lines[1]}" = "  holders 1: fds 0, mappings 1, waiters 0; woken 0, unmapped 0, released 0; failed 1, killed 1" ]
	[ "${lines[2]}" = "  failed: pid $HOLDER_PID (hostile) user nobody: kill: alive_2000ms_after_SIGKILL" ]
	[ "${lines[3]}" = "  killed: pid $HOLDER_PID (hostile) user nobody: stop: no_thread_stopped; still alive" ]
	[[ ${lines[4]} =~ ^"  slow: pid $HOLDER_PID (hostile) took 1"[0-9]{3}" ms"$ ]]
	[ "${#lines[@]}" -eq 5 ]
	# its close of the FUSE file (FUSE_FLUSH) waits: it dies with the server
	grep -q '^State:[[:space:]]*D' "/proc/$HOLDER_PID/status"
	kill -9 "$FUSE_PID"
	holder_exits 137
}

@test "add exits 0 when every access is gone, 4 when a holder keeps it, 3 when a loop device stays bound, 1 when nothing is revoked" {
	local f child img
	f=$(nobody_file)
	run revoke-bpf add "$f"
	[ "$status" -eq 0 ]
	f=$(nobody_file)
	as_nobody "$D/out" traced "$f"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf add "$f" --spare
	[ "$status" -eq 4 ]
	# a loop device with a filesystem mounted from it stays bound: 3
	img=$D/img
	dd if=/dev/zero of="$img" bs=1M count=8 2>/dev/null
	mke2fs -q -F -t ext4 "$img"
	# a number of its own: losetup -f in other files hands out the low ones
	"$REPO/build/tests/loopctl" add 54 >/dev/null
	run "$REPO/build/tests/loopio" bind 54 "$img"
	expect_lines "bind: ok"
	mkdir "$D/mnt"
	mount /dev/loop54 "$D/mnt"
	run revoke-bpf add "$img"
	umount "$D/mnt"
	revoke-bpf del --rdev 7:54 --block >/dev/null 2>&1 || true
	"$REPO/build/tests/loopio" unbind 54 >/dev/null 2>&1 || true
	"$REPO/build/tests/loopctl" remove 54 >/dev/null
	[ "$status" -eq 3 ]
	[[ $output == *"  loop device 7:54: denied, still bound, released 0; failed: detach_EBUSY"* ]]
	run revoke-bpf add "$D/nonexistent"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: cannot open '$D/nonexistent': No such file or directory" ]
}

@test "the bytes below a holder's stack pointer that add used are put back" {
	local f buf
	f=$(nobody_file)
	as_nobody "$D/out" stack "$f"
	buf=$(sed -n 's/^ready pid=[0-9]* buf=//p' "$D/out")
	run revoke-bpf add "$f"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 0, mappings 1, waiters 0; woken 0, unmapped 1, released 0; failed 0" ]
	! grep -q "$f" "/proc/$HOLDER_PID/maps"
	untouched "$HOLDER_PID" 0
	# the 8 KiB around its stack pointer: 'A' and nothing else
	[ "$(dd if="/proc/$HOLDER_PID/mem" bs=4096 skip=$((buf / 4096)) count=2 2>/dev/null |
		tr -d A | wc -c)" -eq 0 ]
	[ "$(dd if="/proc/$HOLDER_PID/mem" bs=4096 skip=$((buf / 4096)) count=2 2>/dev/null |
		wc -c)" -eq 8192 ]
}

@test "a holder whose stack is a mapping of a FUSE file whose server never answers cannot hold the daemon" {
	local f
	f=$(nobody_file)
	mkdir "$D/fuse"
	"$FUSEFILE" "$D/fuse" > "$D/fuse.out" 2>&1 3>&- &
	FUSE_PID=$!
	wait_line "$D/fuse.out" ready
	as_nobody "$D/out" stack "$f" "$D/fuse/f"
	# the server sleeps in its answer to this read, for good
	cat "$D/fuse/hang" > /dev/null 2>&1 3>&- &
	KILL+=("$!")
	wait_line "$D/fuse.out" hanging
	run timeout 60 revoke-bpf add "$f"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 0, mappings 1, waiters 0; woken 0, unmapped 1, released 0; failed 0" ]
	! grep -q "$f" "/proc/$HOLDER_PID/maps"
	run timeout 10 revoke-bpf status
	[ "$status" -eq 0 ]
}

# json_add N FILE: "revoke-bpf --json add FILE"; its exit status, output
# and the pipeline's time (total_us) in ADD_RC[N], ADD_OUT[N], ADD_US[N].
json_add() {
	local rc=0 out
	out=$(revoke-bpf --json add "$2") || rc=$?
	ADD_RC[$1]=$rc
	ADD_OUT[$1]=$out
	ADD_US[$1]=$(printf '%s' "$out" | grep -o '"total_us":[0-9]*' | cut -d: -f2)
	echo "# add $1 (exit $rc): ${ADD_US[$1]} us" >&3
}

@test "nine hostile holders of nine files at once: no add stalls (each under 5 s), only the traced child and the vfork parent killed" {
	local i stopped vparent vchild tparent tchild spin mapper addr mem
	local -a f ADD_RC ADD_OUT ADD_US
	local uring="env URING_ALARM=120 $REPO/build/tests/uring" wait_go='touch "$0"; while [ ! -e "$1" ]; do sleep 0.05; done'
	for i in 1 2 3 6 7 8; do f[$i]=$(nobody_file); done
	for i in 4 5 9; do mkfifo -m 666 "$D/fifo$i"; f[$i]=$D/fifo$i; done
	mkfifo -m 666 "$D/spinfifo"
	# 1: a holder in a job-control stop (SIGSTOP)
	start_holder "$D/out1" hold "${f[1]}"
	stopped=$HOLDER_PID
	KILL+=("$stopped")
	kill -STOP "$stopped"
	# 2: a parent asleep in vfork(), its child never execs
	"$HOSTILE" vfork "${f[2]}" > "$D/out2" 2>&1 3>&- &
	vparent=$!
	KILL+=("$vparent")
	wait_ready_line "$D/out2" "hostile vfork"
	vchild=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out2")
	KILL+=("$vchild")
	# 3: a child traced by its own parent (uid 65534)
	as_nobody "$D/out3" traced "${f[3]}"
	tparent=$HOLDER_PID
	tchild=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out3")
	KILL+=("$tparent" "$tchild")
	# 6: a spinner with no vDSO and no system call (uid 65534)
	as_nobody "$D/out6" spin "${f[6]}" "$D/spinfifo"
	spin=$HOLDER_PID
	KILL+=("$spin")
	# 8: a mapping of the file its process never touches, read through
	# /proc/PID/mem held open
	page M > "${f[8]}"
	"$HOSTILE" stack "${f[8]}" > "$D/out8" 2>&1 3>&- &
	mapper=$!
	wait_ready_line "$D/out8" "hostile stack"
	KILL+=("$mapper")
	addr=$(awk -v f="${f[8]}" '$6 == f { split($1, a, "-"); print a[1]; exit }' "/proc/$mapper/maps")
	exec {mem}<"/proc/$mapper/mem"
	dd bs=4096 skip=$((0x$addr / 4096)) count=1 <&"$mem" 2>/dev/null | grep -q MMMM
	# 4: a ring polled by a kernel thread (SQPOLL); 5: a splice blocked in
	# io-wq; 7: a registered buffer over the file's pages; 9: a fixed file
	# beside a registered buffer of anonymous memory (last, and each
	# given 120 s before its alarm: the adds take turns)
	$uring fifo-sqpoll "${f[4]}" --before "sh -c '$wait_go' $D/up4 $D/go" > "$D/out4" 2>&1 3>&- &
	KILL+=("$!")
	$uring fifo-pending "${f[5]}" --before "sh -c '$wait_go' $D/up5 $D/go" > "$D/out5" 2>&1 3>&- &
	KILL+=("$!")
	page S > "${f[7]}"
	$uring buffer "${f[7]}" --before "sh -c '$wait_go' $D/up7 $D/go" > "$D/out7" 2>&1 3>&- &
	KILL+=("$!")
	$uring fixed-anonbuf "${f[9]}" --before "sh -c '$wait_go' $D/up9 $D/go" > "$D/out9" 2>&1 3>&- &
	KILL+=("$!")
	for i in 4 5 7 9; do until_true test -e "$D/up$i"; done
	echo "# set up in $SECONDS s" >&3
	sleep 0.3	# the spinner past its last call, the splice in io-wq

	for i in 1 2 3 4 5 6 7 8 9; do json_add "$i" "${f[$i]}"; done
	touch "$D/go"
	echo "# nine adds: $(( (ADD_US[1] + ADD_US[2] + ADD_US[3] + ADD_US[4] + ADD_US[5] + ADD_US[6] + ADD_US[7] + ADD_US[8] + ADD_US[9]) / 1000 )) ms in all" >&3

	for i in 1 2 3 4 5 6 7 8 9; do
		[ "${ADD_RC[$i]}" -eq 0 ] || { echo "add $i exited ${ADD_RC[$i]}: ${ADD_OUT[$i]}"; return 1; }
		[ "${ADD_US[$i]}" -lt 5000000 ] || { echo "add $i took ${ADD_US[$i]} us: ${ADD_OUT[$i]}"; return 1; }
		case $i in
		2) [[ ${ADD_OUT[$i]} == *"\"slowest\":["*"{\"pid\":$vparent,\"comm\":\"hostile\",\"us\":"* ]] &&
		   [[ ${ADD_OUT[$i]} == *"\"killed\":[{\"pid\":$vparent,\"uid\":0,\"user\":\"root\",\"comm\":\"hostile\",\"step\":\"stop\",\"reason\":\"asleep_in_vfork\",\"gone\":true}]"* ]] ;;
		3) [[ ${ADD_OUT[$i]} == *"\"killed\":[{\"pid\":$tchild,\"uid\":65534,\"user\":\"nobody\",\"comm\":\"hostile\",\"step\":\"stop\",\"reason\":\"traced_by_pid_$tparent\",\"gone\":true}]"* ]] ;;
		*) [[ ${ADD_OUT[$i]} == *'"failures":[],"killed":[]'* ]] ;;
		esac || { echo "add $i: ${ADD_OUT[$i]}"; return 1; }
	done
	# 1: still in its job-control stop, its descriptor dead
	[ "$(sed 's/.*) //' "/proc/$stopped/stat" | cut -d' ' -f1)" = T ]
	# 4, 5, 7, 9: what each ring still reaches
	wait_line "$D/out4" "splice_in: EBADF"
	grep -qx "splice_out: EBADF" "$D/out4"
	case $(uname -r) in
	6.*) wait_line "$D/out5" "pending_splice: EINTR" ;;
	*) wait_line "$D/out5" "pending_splice: errno 512" ;;
	esac
	wait_line "$D/out7" "read_fixed: EFAULT"
	grep -qx "write_fixed: EFAULT" "$D/out7"
	wait_line "$D/out9" "read_fixed: 4096"
	grep -qx "splice_out: EBADF" "$D/out9"
	grep -qx "write_fixed: 4096" "$D/out9"
	# 6: SIGBUS on its next access, its code as it was
	wait_line "$D/out6" "SIGBUS si_code=BUS_ADRERR"
	grep -qx "text intact" "$D/out6"
	# 8: the mapping read through /proc/PID/mem gives nothing of the file
	run dd bs=4096 skip=$((0x$addr / 4096)) count=1 <&"$mem"
	exec {mem}<&-
	[ "$status" -ne 0 ]
	[[ $output == *"Input/output error"* ]]
	kill -0 "$mapper"
	# the vfork parent is gone, the traced child too; no one is left stopped
	! kill -0 "$vparent" 2>/dev/null
	wait_line "$D/out3" "child ended: signal KILL"
}

@test "a parent asleep in posix_spawn() (clone3 with CLONE_VFORK), its child blocked opening a FIFO, is killed as asleep_in_vfork without waiting out the stop" {
	local f child
	f=$(nobody_file)
	mkfifo "$D/fifo"
	"$HOSTILE" spawn "$f" "$D/fifo" > "$D/out" 2>&1 3>&- &
	HOLDER_PID=$!
	wait_ready_line "$D/out" "hostile spawn"
	child=$(cat "/proc/$HOLDER_PID/task/$HOLDER_PID/children")
	KILL+=($child)
	grep -q '^State:[[:space:]]*D' "/proc/$HOLDER_PID/status"
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == *", killed 1" ]]
	[ "${lines[2]}" = "  killed: pid $HOLDER_PID (hostile) user root: stop: asleep_in_vfork" ]
	[ "${#lines[@]}" -eq 3 ]
	holder_exits 137
}

@test "a parent with more threads, one asleep in vfork(), is not killed: its mapping is replaced through another thread" {
	local f child
	f=$(nobody_file)
	"$HOSTILE" vfork-threads "$f" > "$D/out" 2>&1 3>&- &
	HOLDER_PID=$!
	wait_ready_line "$D/out" "hostile vfork-threads"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *killed* ]]
	[[ $output != *failed:* ]]
	# the child goes; the parent, back from vfork(), faults on the mapping
	kill -9 "$child"
	holder_exits 135
	! grep -q '^read after vfork' "$D/out"
}

@test "umount of a FUSE filesystem whose server no longer answers ends within its timeouts, exits 4 and names what stays" {
	local cat t0=$SECONDS
	mkdir "$D/fuse"
	"$FUSEFILE" "$D/fuse" > "$D/fuse.out" 2>&1 3>&- &
	FUSE_PID=$!
	wait_line "$D/fuse.out" ready
	cat "$D/fuse/hang" > /dev/null 2>&1 3>&- &
	cat=$!
	KILL+=("$cat")
	wait_line "$D/fuse.out" hanging
	run timeout 90 revoke-bpf umount "$D/fuse"
	echo "$output"
	[ "$status" -eq 4 ]
	[ $((SECONDS - t0)) -lt 60 ]
	echo "$output" | grep -Fxq "  sync: timeout"
	echo "$output" | grep -Fxq "  failed: pid $cat (cat) user root: kill: alive_2000ms_after_SIGKILL"
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	# the daemon's own sync, killed when it timed out, is no holder
	! echo "$output" | grep -q "(revoke-bpfd)"
}
