#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The control socket under clients that try to hold revoke-bpfd up:
# slow, idle, too many, not reading, sending descriptors whose close
# blocks.  Root's requests must go through all the same, at once.
#
# All of it is the daemon's own loop and the CLI's waits: no kernel
# decides any of it, so one kernel's suite runs it (tests/lib/kernels.bash).
# kernels: 6.1

load lib

SOCK=/run/revoke-bpf/control.sock
CTLHOG=$REPO/build/tests/ctlhog

setup() {
	F=$(new_file)
	revoke-bpf status >/dev/null 2>&1 || start_daemon
	HOGS=()
}

teardown() {
	local p
	for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${HOGS[@]}"; do wait "$p" 2>/dev/null || true; done
	revoke-bpf del "$F" >/dev/null 2>&1 || true
}

# hog MODE N UID: start ctlhog and wait until its connections are up.
hog() {
	local out
	out=$(mktemp)
	"$CTLHOG" "$1" "$SOCK" "$2" "$3" >"$out" 2>&1 3>&- &
	HOGS+=($!)
	wait_line "$out" "ready $2"
}

# ms_of COMMAND...: run it, print its wall time in ms; fail if it fails.
ms_of() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null || return 1
	echo $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
}

# stat_of NAME: a status field's value
stat_of() {
	revoke-bpf status -v | sed -n "s/^$1  *//p"
}

# base_add: time an add of a new file with nothing in the way, the programs
# attached by an add before it, in BASE_MS (a guest beside other guests is
# slow, and so is every add in it).  Both stay revoked, so that the
# programs stay attached for the add that is measured against it.
base_add() {
	local g h
	g=$(new_file)
	h=$(new_file)
	revoke "$g"
	BASE_MS=$(ms_of revoke-bpf add "$h")
}

# not_delayed MS: an add that took MS took less than 1 s more than BASE_MS
# (waiting on a client at all means its 2 s deadline, or a trickler's next
# byte 1.5 s away).
not_delayed() {
	echo "add took $1 ms, $BASE_MS ms with nothing in the way"
	[ "$1" -lt $((BASE_MS + 1000)) ]
}

@test "a client trickling a request a byte every 1.5 s does not delay root's add" {
	local ms
	base_add
	hog trickle 8 65534
	sleep 3
	ms=$(ms_of revoke-bpf add "$F")
	not_delayed "$ms"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "100 idle unprivileged connections do not delay root's add" {
	local ms
	base_add
	hog idle 100 20000
	[ "$(stat_of connections)" -ge 100 ]
	ms=$(ms_of revoke-bpf add "$F")
	not_delayed "$ms"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "the 9th connection of one uid is refused with EBUSY while root gets through" {
	hog idle 8 65534
	run "$ASUSER" 65534 revoke-bpf status
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: status: uid 65534 already has 8 connections to revoke-bpfd; close one first"
	# another uid is not refused
	run "$ASUSER" 65533 revoke-bpf status
	[ "$status" -eq 0 ]
	run revoke-bpf add "$F"
	[ "$status" -eq 0 ]
	[ "$(stat_of connections_refused)" -ge 1 ]
}

@test "128 unprivileged connections fill their share; root still gets through" {
	local ms
	base_add
	hog idle 128 30000
	run "$ASUSER" 40000 revoke-bpf status
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: status: revoke-bpfd serves 128 connections already; try again later"
	ms=$(ms_of revoke-bpf add "$F")
	not_delayed "$ms"
}

@test "--reply-timeout takes a duration with a unit, after the command too" {
	local fake=/run/fake-revoke3.sock t0 ms
	rm -f $fake
	"$CTLHOG" listen "$fake" 3>&- &
	HOGS+=($!)
	while [ ! -S $fake ]; do sleep 0.05; done
	t0=$EPOCHREALTIME
	run revoke-bpf list --socket $fake --reply-timeout 300ms
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: list: timed out after 0.3 s waiting for revoke-bpfd at $fake to read the 'list' request"
	ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
	[ "$ms" -ge 300 ] && [ "$ms" -lt 2000 ]
}

@test "a member of the --group may do what the help says, and gets EPERM for uevent and unload" {
	grep -q '^revokers:' /etc/group || echo 'revokers:x:1000:' >> /etc/group
	stop_daemon
	start_daemon --group revokers
	run "$ASUSER" 1000 revoke-bpf add "$F"
	[ "$status" -eq 0 ]
	run "$ASUSER" 1000 revoke-bpf list
	[ "$status" -eq 0 ]
	run "$ASUSER" 1000 revoke-bpf reload
	[ "$status" -eq 0 ]
	run "$ASUSER" 1000 revoke-bpf holders -s "$F"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	# revoke-bpf uevent returns without the answer: ask as it does
	run "$ASUSER" 1000 bash -c 'printf "%s\n" "$1" | "$2" "$3"' _ \
		"revoke-bpf/1 uevent action=remove rdev=188:0 type=char" \
		"$CTLSEND" "$SOCK"
	expect_lines "err EPERM only root may use 'uevent' (you are uid 1000), not the members of revoke-bpfd's --group; run it with sudo"
	run "$ASUSER" 1000 revoke-bpf unload --yes
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: unload: only root may use 'unload' (you are uid 1000), not the members of revoke-bpfd's --group; run it with sudo"
	mkdir -p /run/grp-fs
	mount -t tmpfs none /run/grp-fs
	run "$ASUSER" 65534 revoke-bpf umount /run/grp-fs
	umount /run/grp-fs
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: umount: only root and members of group revokers may use 'umount' (you are uid 65534); run it with sudo"
	run "$ASUSER" 1000 revoke-bpf del "$F"
	[ "$status" -eq 0 ]
	stop_daemon
	start_daemon
	revoke-bpf status >/dev/null
}

@test "a request not complete within 2 s gets ETIMEDOUT and is closed" {
	run bash -c '{ printf "revoke-bpf/1 sta"; sleep 4; } | "$1" "$2"' _ "$CTLSEND" "$SOCK"
	expect_lines "err ETIMEDOUT no complete request within 2000 ms"
	[ "$(stat_of requests_late)" -ge 1 ]
}

@test "revoke-bpf --reply-timeout against a daemon that reads nothing exits 1 naming the wait" {
	local fake=/run/fake-revoke.sock
	rm -f $fake
	# a listening socket that nobody accepts on: connect succeeds, the
	# request is never read
	"$CTLHOG" listen "$fake" 3>&- &
	HOGS+=($!)
	while [ ! -S $fake ]; do sleep 0.05; done
	local t0=$EPOCHREALTIME
	run revoke-bpf --socket $fake --reply-timeout 1 list
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: list: timed out after 1 s waiting for revoke-bpfd at $fake to read the 'list' request"
	local ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
	[ "$ms" -ge 1000 ] && [ "$ms" -lt 3000 ]
}

@test "revoke-bpf --reply-timeout against a daemon that reads and never answers names the reply" {
	local fake=/run/fake-revoke2.sock
	rm -f $fake
	"$CTLHOG" mute "$fake" 3>&- &
	HOGS+=($!)
	while [ ! -S $fake ]; do sleep 0.05; done
	run revoke-bpf --socket $fake --reply-timeout 1 status
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: status: timed out after 1 s waiting for revoke-bpfd's reply to 'status'"
}

@test "bad --reply-timeout values are refused" {
	local t
	for t in -1 abc "" 86401 1.5; do
		run revoke-bpf --reply-timeout "$t" status
		[ "$status" -eq 2 ]
		expect_lines "revoke-bpf: --reply-timeout '$t' is not a duration from 0 (no limit) to 1 day: a number of seconds, or 500ms, 2s, 1min"
	done
}

@test "a client that asks for list and never reads cannot stall the daemon, and is dropped" {
	local i before wmem ms
	for i in $(seq 1 60); do revoke-bpf add "$(new_file)" >/dev/null; done
	base_add
	before=$(stat_of clients_not_reading)
	# a small send buffer for its connection, so that list fills it
	wmem=$(cat /proc/sys/net/core/wmem_default)
	echo 4608 > /proc/sys/net/core/wmem_default
	hog noread 1 65534
	echo "$wmem" > /proc/sys/net/core/wmem_default
	ms=$(ms_of revoke-bpf add "$F")
	not_delayed "$ms"
	sleep 2.5
	[ "$(stat_of clients_not_reading)" -eq $((before + 1)) ]
}

@test "a lingering TCP socket sent over SCM_RIGHTS by a user does not wedge the daemon" {
	ip link set lo up 2>/dev/null || ifconfig lo up
	local refusal ms i
	refusal=$(stat_of descriptor_refusal)
	base_add
	"$CTLHOG" linger "$SOCK" 65534 > /tmp/linger.out 2>&1 3>&- &
	HOGS+=($!)
	sleep 0.5
	ms=$(ms_of revoke-bpf add "$F")
	not_delayed "$ms"
	# its answer (20 s at most: filling the TCP queue takes a guest
	# beside two others a while)
	for i in $(seq 1 400); do [ -s /tmp/linger.out ] && break; sleep 0.05; done
	run cat /tmp/linger.out
	if [ "$refusal" = kernel ]; then
		# Linux 6.16+: SO_PASSRIGHTS, the kernel refuses it in the sender
		expect_lines "sendmsg: Operation not permitted"
	else
		expect_lines "err EPERM uid 65534 may not send revoke-bpfd descriptors"
		# the closer was interrupted in the socket's 30 s linger
		for i in $(seq 1 20); do
			[ "$(stat_of closer_kicks)" -ge 1 ] && break
			sleep 0.1
		done
		[ "$(stat_of closer_kicks)" -ge 1 ]
	fi
	run revoke-bpf status
	[ "$status" -eq 0 ]
}
