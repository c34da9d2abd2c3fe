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
# KIND:PROCS is none:N (N processes with 10 descriptors of a file, none
# blocked, nothing mapped; none:0, a file nobody holds), fifo:N (N
# processes with 10 descriptors, min(N,100) blocked reading) or file:N
# (min(N,100) mapping).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=$1 dir_a=$2 dir_b=$3

. "$REPO/bench/lib.sh"

# one_add LABEL DIR ROUND KIND N: a population, an add, its line
one_add() {
	local label=$1 dir=$2 r=$3 kind=$4 n=$5 f=/tmp/ab.$4 t0 out
	population_start "$kind" "$n" "$f"
	t0=$EPOCHREALTIME
	out=$("$dir/revoke-bpf" --json add "$f" --no-release)
	echo "R $r $label $kind:$n add_ms=$(ms_since "$t0") pipeline_us=$(field "$out" total_us) failed=$(field "$out" failed)"
	population_stop "$f"
	"$dir/revoke-bpf" del "$f" >/dev/null
}

for r in $(seq "$rounds"); do
	for label in A B; do
		dir=$dir_a
		[ "$label" = B ] && dir=$dir_b
		"$dir/revoke-bpfd" >/tmp/ab.daemon.log 2>&1 &
		dpid=$!
		until "$dir/revoke-bpf" status >/dev/null 2>&1; do sleep 0.1; done
		for spec in none:0 none:1000 fifo:10 fifo:1000 file:100 file:1000; do
			one_add "$label" "$dir" "$r" "${spec%%:*}" "${spec#*:}"
		done
		kill -TERM "$dpid"
		wait "$dpid" 2>/dev/null || true
	done
done
