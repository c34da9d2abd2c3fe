#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Revoking a tty also cuts off /dev/tty in every session whose
# controlling terminal it is, opened before or after, whether or not
# anyone holds the tty by its own name, the way the kernel's hangup does:
# the hooks resolve /dev/tty to the tty it reaches (bpf/reach.bpf.h) and
# revoke-bpfd hangs the tty up after the deny (src/pipeline/tty.c).

load lib

CTTY=$REPO/build/tests/ctty

setup() {
	D=$(mktemp -d /tmp/tty.XXXXXX)
	KILL=()
}

teardown() {
	exec 5>&- 6>&- 2>/dev/null || true
	kill_holders
	[ -z "${DEL:-}" ] || revoke-bpf del $DEL >/dev/null 2>&1 || true
}

# start_session NAME FD: a ctty session reading its go line from FD;
# sets SLAVE and SLAVE_RDEV
start_session() {
	local i
	mkfifo "$D/$1.in"
	"$CTTY" <"$D/$1.in" >"$D/$1.out" 2>&1 3>&- &
	KILL+=($!)
	eval "exec $2>\"\$D/\$1.in\""
	for i in $(seq 1 100); do
		grep -q '^ready ' "$D/$1.out" && break
		sleep 0.05
	done
	SLAVE=$(sed -n 's/^ready pid=[0-9]* slave=//p' "$D/$1.out")
	[ -c "$SLAVE" ] || { cat "$D/$1.out"; false; }
	SLAVE_RDEV=$(printf '%d:%d' "0x$(stat -c %t "$SLAVE")" "0x$(stat -c %T "$SLAVE")")
}

# finish NAME FD: let the session try its operations; print what it saw
finish() {
	echo go >&"$2"
	wait_line "$D/$1.out" "sighup: yes" 2>/dev/null ||
		wait_line "$D/$1.out" "sighup: no"
	sed 1d "$D/$1.out"
}

@test "add /dev/pts/N cuts off /dev/tty in its session, opened before (EIO) and after (ENXIO)" {
	local other
	start_session b 6
	other=$SLAVE
	start_session a 5
	DEL="$(stat -c %i "$SLAVE") --dev $(devof "$SLAVE")"
	run revoke-bpf add "$SLAVE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "  tty $SLAVE_RDEV: hung up" ]
	run finish a 5
	# read and write: the hook (a hung-up tty would read end-of-file);
	# open: the hangup cleared the session's controlling terminal
	expect_lines "read: EIO" "write: EIO" "open: ENXIO" "sighup: yes"
	# the other pty's session is unaffected
	run finish b 6
	expect_lines "read: EAGAIN" "write: ok" "open: ok" "sighup: no"
	[ "$other" != "$SLAVE" ]
}

@test "add --rdev of a pty nobody holds by name cuts off /dev/tty in its session" {
	start_session b 6
	start_session a 5
	# the session holds /dev/tty only: ctty closed the slave
	! ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q " -> $SLAVE\$"
	DEL="--rdev $SLAVE_RDEV --char"
	run revoke-bpf add --rdev "$SLAVE_RDEV" --char
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "char device $SLAVE_RDEV: revoked" ]
	[ "${lines[-1]}" = "  tty $SLAVE_RDEV: hung up" ]
	run finish a 5
	expect_lines "read: EIO" "write: EIO" "open: ENXIO" "sighup: yes"
	run finish b 6
	expect_lines "read: EAGAIN" "write: ok" "open: ok" "sighup: no"
}

@test "add --json reports the tty hung up" {
	start_session a 5
	DEL="--rdev $SLAVE_RDEV --char"
	run revoke-bpf add --rdev "$SLAVE_RDEV" --char --json
	[ "$status" -eq 0 ]
	[[ $output == *'"ttys":[{"rdev":"'$SLAVE_RDEV'","hungup":true}]'* ]]
	run finish a 5
	expect_lines "read: EIO" "write: EIO" "open: ENXIO" "sighup: yes"
}
