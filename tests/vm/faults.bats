#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Revocation under faults and races: the daemon killed in the middle of
# add, holders in odd states, and the linearizability check.  Runs in the
# guest.  make check runs the counts below; "make faults" runs the full
# ones (1,000 trials, 1,000 holders, 20 kills).

load lib

SWARM=$REPO/build/bench/swarm
LINEARIZE=$REPO/build/tests/linearize
LINEARIZE_TRIALS=${LINEARIZE_TRIALS:-40}
FAULT_HOLDERS=${FAULT_HOLDERS:-200}
FAULT_KILLS=${FAULT_KILLS:-5}

setup() {
	D=$(mktemp -d)
	HOLDER_PID=
	SWARM_PID=
}

# Every test ends with revoke-bpfd tracing nothing (checked first, while
# the holders live, but failing only once they are cleaned up).
teardown() {
	local held=0
	lets_go_of_all || held=1
	[ -n "$HOLDER_PID" ] && kill -9 "$HOLDER_PID" 2>/dev/null
	[ -n "$SWARM_PID" ] && kill -TERM "$SWARM_PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$D"
	# a test may have killed the daemon
	[ -e /tmp/revoke-bpfd.pid ] || start_daemon
	return "$held"
}

# stopped_tasks: every task (thread) in a ptrace or job-control stop.
stopped_tasks() {
	sed -n 's/^\([0-9]*\) (.*) \([tT]\) .*/\1 \2/p' /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null
}

# children_of PID: the pids whose parent is PID.
children_of() {
	sed -n "s/^\([0-9]*\) (.*) . $1 .*/\1/p" /proc/[0-9]*/stat 2>/dev/null
}

@test "no operation that starts after add returned succeeds: 16 threads in 4 processes" {
	local f i
	f=$(new_file)
	run "$LINEARIZE" "$f" "$LINEARIZE_TRIALS" 4 4
	echo "$output"
	echo "# linearize: $output" >&3
	[ "$status" -eq 0 ]
	[[ $output == "trials $LINEARIZE_TRIALS violations 0 operations_ok "* ]]
}

@test "kill -9 of the daemon in the middle of add, with many holders: enforcement holds, nothing is left stopped" {
	local i f pid delay addpid
	for i in $(seq 1 "$FAULT_KILLS"); do
		f=$(new_file)
		"$SWARM" "$FAULT_HOLDERS" 1 0 "$FAULT_HOLDERS" "$f" >"$D/swarm" 2>&1 3>&- &
		SWARM_PID=$!
		wait_line "$D/swarm" ready
		revoke-bpf add "$f" >/dev/null 2>&1 3>&- &
		addpid=$!
		delay=$(( RANDOM % 400 ))
		sleep "0.$(printf %03d "$delay")"
		pid=$(cat /tmp/revoke-bpfd.pid)
		kill -9 "$pid"
		while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
		rm -f /tmp/revoke-bpfd.pid
		wait "$addpid" 2>/dev/null || true
		# the kernel detached every tracee when the tracer died
		sleep 0.2
		run stopped_tasks
		[ -z "$output" ] || { echo "round $i (kill after ${delay} ms): stopped: $output"; false; }
		# enforcement never lapsed: the map update comes before any
		# process is touched, and the programs and map stay pinned
		run cat "$f"
		[ "$status" -ne 0 ] || { echo "round $i: $f readable after kill -9"; false; }
		[[ $output == *"Input/output error"* ]] || { echo "round $i: $output"; false; }
		start_daemon
		run revoke-bpf list --json
		[[ $output == *"\"ino\":$(stat -c %i "$f"),"* ]] ||
			{ echo "round $i: not listed after restart: $output"; false; }
		kill -TERM "$SWARM_PID"
		wait "$SWARM_PID" 2>/dev/null || true
		SWARM_PID=
	done
}

@test "a holder whose main thread has exited (a zombie leader) is still woken with EIO" {
	local f i
	f=$(mktemp -u /tmp/revoke.fifo.XXXXXX)
	mkfifo "$f"
	start_holder "$D/out" --threads 2 --zombie-leader read "$f"
	sleep 0.3
	[ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$HOLDER_PID/status")" = Z ]
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	wait_line "$D/out" "read: EIO"
	not_stopped "$HOLDER_PID"
}

@test "holders that are killed while add handles them: add completes, the daemon lives and lets go of each, the file stays denied" {
	local f i addpid st
	f=$(new_file)
	"$SWARM" "$FAULT_HOLDERS" 1 0 "$FAULT_HOLDERS" "$f" >"$D/swarm" 2>&1 3>&- &
	SWARM_PID=$!
	wait_line "$D/swarm" ready
	revoke-bpf add "$f" >"$D/add" 2>&1 3>&- &
	addpid=$!
	sleep "0.$(printf %03d $(( RANDOM % 300 )))"
	kill -9 $(children_of "$SWARM_PID")
	# not "run wait": run's subshell cannot wait for this shell's child
	st=0
	wait "$addpid" || st=$?
	cat "$D/add"
	[ "$st" -eq 0 ]
	run stopped_tasks
	[ -z "$output" ]
	lets_go_of_all
	run cat "$f"
	[[ $output == *"Input/output error"* ]]
	run revoke-bpf status
	[ "$status" -eq 0 ]
}

@test "a holder that execs itself while add handles it is never left stopped and loses the file" {
	local f i
	f=$(new_file)
	start_holder "$D/out" --exec-every 30 mmap "$f"
	sleep 0.2
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	not_stopped "$HOLDER_PID"
	# its next exec opens the file anew and is denied; or it had opened
	# it just before add and its mmap is denied; or its mapping was
	# replaced and the next touch faults
	for i in $(seq 1 100); do
		grep -qx -e "$f: Input/output error" -e "mmap: Input/output error" \
			-e "SIGBUS si_code=BUS_ADRERR" "$D/out" && break
		sleep 0.05
	done
	cat "$D/out"
	grep -qx -e "$f: Input/output error" -e "mmap: Input/output error" \
		-e "SIGBUS si_code=BUS_ADRERR" "$D/out"
}
