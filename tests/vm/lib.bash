# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest's BATS suites.  Sourced by each *.bats file.

REPO=$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd)
PROBE=$REPO/build/tests/probe
PROBE32=$REPO/build/tests/probe32
ASUSER=$REPO/build/tests/asuser
CTLSEND=$REPO/build/tests/ctlsend
DAEMON_LOG=/tmp/revoke-bpfd.log

# wait_ready PID [SOCKET]: wait until the daemon PID answers on SOCKET (60 s
# at most: a start loads and verifies every program, 7 s alone on newest
# under TCG, longer beside other guests).
wait_ready() {
	local i sock=${2:-/run/revoke-bpf/control.sock}
	for i in $(seq 1 600); do
		revoke-bpf --socket "$sock" status >/dev/null 2>&1 && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	echo "revoke-bpfd did not become ready:" >&2
	cat "$DAEMON_LOG" >&2
	return 1
}

# The suite's profile, which tests/vm/profile sums up at its end: each
# start of the daemon and each sleep, with when it began and ended.
PROFILE=/tmp/revoke-profile
# (a test may revoke the filesystem it is on: never fail for it)
sleep() {
	local s=$EPOCHREALTIME rc=0
	command sleep "$@" || rc=$?
	{ echo "sleep $s $EPOCHREALTIME" >>"$PROFILE"; } 2>/dev/null || true
	return "$rc"
}

# start_daemon [ARGS...]: start revoke-bpfd and wait until it answers.
start_daemon() {
	local s=$EPOCHREALTIME
	revoke-bpfd "$@" >>"$DAEMON_LOG" 2>&1 &
	echo $! > /tmp/revoke-bpfd.pid
	disown
	wait_ready "$(cat /tmp/revoke-bpfd.pid)" || return
	{ echo "start $s $EPOCHREALTIME" >>"$PROFILE"; } 2>/dev/null || true
}

# wait_subscribed N: wait until N "revoke-bpf events" streams are open.
wait_subscribed() {
	local i
	for i in $(seq 1 100); do
		revoke-bpf status -v | grep -q "^subscribers  *$1\$" && return 0
		sleep 0.1
	done
	return 1
}

# stop_daemon [SIGNAL]: stop it, leaving the pins (and enforcement) in place.
stop_daemon() {
	local pid
	pid=$(cat /tmp/revoke-bpfd.pid 2>/dev/null) || return 0
	kill "-${1:-TERM}" "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	rm -f /tmp/revoke-bpfd.pid
}

# unload_all: stop the daemon and lift every revocation: every pinned map
# made as a first start makes it, then every link detached and unpinned
# (tests/helpers/pinreset).  This build's programs stay pinned, so the
# next start takes them instead of loading them (src/store/progs.c): a
# test of a first start removes /sys/fs/bpf/revoke-bpf itself.
unload_all() {
	stop_daemon
	# what the declared state recorded names the set it was applied to
	rm -f /run/revoke-bpf/declared.state
	[ ! -d /sys/fs/bpf/revoke-bpf ] ||
		"$REPO/build/tests/pinreset" /sys/fs/bpf/revoke-bpf ||
		rm -rf /sys/fs/bpf/revoke-bpf
}

# Each suite starts with nothing loaded and a daemon of its own, and
# leaves nothing loaded; a suite that needs more defines its own pair.
setup_file() {
	unload_all
	start_daemon
}

teardown_file() {
	unload_all
}

# new_file [DIR]: create a fresh file with some content and print its path.
new_file() {
	local f
	f=$(mktemp "${1:-/tmp}/revoke.XXXXXX")
	echo "some content" > "$f"
	echo "$f"
}

# revoke PATH: revoke it, quietly, failing the test if that fails.
revoke() {
	revoke-bpf add "$1" >/dev/null
}

# expect_lines EXPECTED...: $output must be exactly these lines.
expect_lines() {
	local expected
	expected=$(printf '%s\n' "$@")
	if [ "$output" != "$expected" ]; then
		echo "expected:"; printf '  %s\n' "$@"
		echo "got:"; printf '%s\n' "$output" | sed 's/^/  /'
		return 1
	fi
}

# page C: 4096 bytes of C
page() {
	head -c 4096 /dev/zero | tr '\0' "$1"
}

# devof PATH: the MAJ:MIN of the filesystem PATH is on, decoded here from
# stat's st_dev with glibc's layout, independently of revoke-bpf's code.
devof() {
	local d
	d=$(stat -c %d "$1")
	echo "$(( (d >> 8 & 0xfff) | (d >> 32 & ~0xfff) )):$(( (d & 0xff) | (d >> 12 & ~0xff) ))"
}

HOLDER=$REPO/build/tests/holder

# start_holder OUT ARGS...: run "holder ARGS..." in the background, output
# to OUT, and wait until it is set up; sets HOLDER_PID.
start_holder() {
	local out=$1
	shift
	# 3>&-: bats waits for every holder of its fd 3 before it goes on
	"$HOLDER" "$@" >"$out" 2>&1 3>&- &
	HOLDER_PID=$!
	wait_ready_line "$out" "holder $*"
}

# wait_ready_line OUT WHAT: wait (10 s at most) until OUT has a line
# starting "ready", the line a helper (holder, hostile) says once it is set
# up; if none comes, say so for WHAT and show OUT on stderr, and fail.
wait_ready_line() {
	local i
	for i in $(seq 1 200); do
		grep -q '^ready' "$1" && return 0
		sleep 0.05
	done
	echo "$2 did not get ready:" >&2
	cat "$1" >&2
	return 1
}

# wait_blocked PID: wait until PID's main thread is blocked in a system call.
wait_blocked() {
	local i s
	for i in $(seq 1 200); do
		s=$(cat "/proc/$1/syscall" 2>/dev/null) || return 1
		case $s in running|-1*) ;; *) return 0 ;; esac
		sleep 0.05
	done
	return 1
}

# kill_holders: kill -9 every pid in KILL and $HOLDER_PID (for teardown).
kill_holders() {
	local p
	for p in "${KILL[@]}" ${HOLDER_PID:-}; do
		kill -9 "$p" 2>/dev/null || true
	done
	HOLDER_PID=
}

# wait_line FILE TEXT: wait up to 5 s until FILE has a line TEXT.
wait_line() {
	local i
	for i in $(seq 1 100); do
		grep -qxF "$2" "$1" && return 0
		sleep 0.05
	done
	echo "no line '$2' in $1:" >&2
	cat "$1" >&2
	return 1
}

# not_stopped PID: PID is alive and not in a ptrace or job-control stop.
not_stopped() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)
	case $state in t|T) echo "pid $1 is left stopped ($state)" >&2; return 1 ;; esac
}

# lets_go_of_all: wait up to 2 s until revoke-bpfd traces no task (a
# thread it lost while stopped is reaped by its main loop, every 50 ms);
# else name those it still holds, zombies that their parents cannot reap.
lets_go_of_all() {
	local pid i held
	pid=$(cat /tmp/revoke-bpfd.pid 2>/dev/null) || return 0
	for i in $(seq 1 40); do
		held=$(grep -l "^TracerPid:[[:space:]]*$pid\$" \
			/proc/[0-9]*/task/[0-9]*/status 2>/dev/null) || return 0
		sleep 0.05
	done
	echo "revoke-bpfd still traces:" $held >&2
	return 1
}

# need_probe32: skip the test unless the 32-bit probe was built (gcc-multilib)
# and this kernel runs 32-bit programs (IA32 emulation).
need_probe32() {
	[ -x "$PROBE32" ] ||
		skip "no build/tests/probe32: install gcc-multilib and rebuild"
	"$PROBE32" /dev/null read >/dev/null 2>&1 ||
		skip "this kernel runs no 32-bit programs (ia32_emulation=0?)"
}

# prog_state NAME: what status says of program NAME (attached, skipped, ...)
prog_state() {
	revoke-bpf status -v | sed -n "s/^program\.$1  *//p"
}

# nr_attached: how many programs status says are attached.
nr_attached() {
	revoke-bpf status -v | grep -c '^program\.[a-z0-9_]* *attached$'
}

# all_attached: status says every program this kernel can run is attached.
all_attached() {
	local n
	n=$(nr_attached)
	revoke-bpf status -v | grep -qx "programs_attached  *$n/$n"
}

# status_field NAME: the value status gives NAME
status_field() {
	revoke-bpf status -v | sed -n "s/^$1  *//p"
}

# is_idle: status says nothing is attached because nothing is revoked
is_idle() { [ "$(status_field enforcement)" = idle ]; }

# prog_names: every program status names
prog_names() {
	revoke-bpf status -v | sed -n 's/^program\.\([a-z0-9_]*\) .*/\1/p'
}

# nr_link_pins: how many of those programs have a pinned link
nr_link_pins() {
	local n=0 p
	for p in $(prog_names); do
		[ ! -e "/sys/fs/bpf/revoke-bpf/$p" ] || n=$((n + 1))
	done
	echo "$n"
}

# until_true CMD...: wait (10 s at most) until CMD succeeds
until_true() {
	local i
	for i in $(seq 1 200); do
		"$@" && return 0
		sleep 0.05
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

# cwd_is PID DIR: the current directory of PID is DIR
cwd_is() { [ "$(readlink "/proc/$1/cwd")" = "$2" ]; }
