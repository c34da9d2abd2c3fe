#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/ab-guest.sh - run by bench/ab in the guest: two builds of
# revoke-bpfd and revoke-bpf take turns, round by round, at "add" on the
# same kinds of population (bench/swarm), nothing else between them.
#
#   bench/ab-guest.sh ROUNDS DIR_A DIR_B
#
# Each DIR holds revoke-bpfd and revoke-bpf.  Prints one line per add:
#   R ROUND A|B KIND:PROCS add_ms=T pipeline_us=U failed=N
# KIND:PROCS is none:0 (a file nobody holds), fifo:N (N processes with 10
# descriptors, min(N,100) blocked reading) or file:N (min(N,100) mapping).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SWARM=$REPO/build/bench/swarm
rounds=$1 dir_a=$2 dir_b=$3

ms_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", (b - a) * 1000 }'
}

field() {
	sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1"
}

# one_add LABEL DIR ROUND KIND N: a population, an add, its line
one_add() {
	local label=$1 dir=$2 r=$3 kind=$4 n=$5 f=/tmp/ab.$4 pid= t0 out
	local few=$(( n < 100 ? n : 100 )) waiters=0 maps=0
	rm -f "$f"
	if [ "$kind" = fifo ]; then
		mkfifo "$f"
		waiters=$few
	else
		head -c 4096 /dev/zero > "$f"
		[ "$kind" = file ] && maps=$few
	fi
	if [ "$n" -gt 0 ]; then
		"$SWARM" "$n" 10 "$waiters" "$maps" "$f" > /tmp/ab.swarm &
		pid=$!
		until grep -q ready /tmp/ab.swarm; do sleep 0.1; done
		sleep 0.5	# let the waiters reach their read
	fi
	t0=$EPOCHREALTIME
	out=$("$dir/revoke-bpf" --json add "$f" --no-release)
	echo "R $r $label $kind:$n add_ms=$(ms_since "$t0") pipeline_us=$(field "$out" total_us) failed=$(field "$out" failed)"
	if [ -n "$pid" ]; then
		kill -TERM "$pid"
		wait "$pid" 2>/dev/null || true
	fi
	"$dir/revoke-bpf" del "$f" >/dev/null
}

for r in $(seq "$rounds"); do
	for label in A B; do
		dir=$dir_a
		[ "$label" = B ] && dir=$dir_b
		"$dir/revoke-bpfd" >/tmp/ab.daemon.log 2>&1 &
		dpid=$!
		until "$dir/revoke-bpf" status >/dev/null 2>&1; do sleep 0.1; done
		for spec in none:0 fifo:10 fifo:1000 file:100 file:1000; do
			one_add "$label" "$dir" "$r" "${spec%%:*}" "${spec#*:}"
		done
		kill -TERM "$dpid"
		wait "$dpid" 2>/dev/null || true
	done
done
