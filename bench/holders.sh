#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/holders.sh - who holds a filesystem: "revoke-bpf holders --fs"
# against "fuser -m" and "lsof +f --", in the guest (run by bench/guest.sh,
# or alone with a revoke-bpfd running).  Prints one JSON object.
#
#   bench/holders.sh ROUNDS SIZES
#
# For each N in SIZES (comma-separated): a tmpfs mounted on its own, and
# N processes (build/bench/swarm) with 10 descriptors each of a file on
# it, min(N,100) of them mapping it.  On that population the three tools
# take turns, ROUNDS rounds, the order rotating each round; each is timed
# from call to exit (wall time, ms), and the pids each names are counted.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/bench/lib.sh"

rounds=$1 sizes=$2
MNT=/mnt/bench-holders

# holders_count TOOL: how many processes TOOL names on $MNT.
holders_count() {
	case $1 in
	holders) revoke-bpf holders --fs "$MNT" | tail -n +2 | wc -l ;;
	fuser) fuser -m "$MNT" 2>/dev/null | wc -w ;;
	lsof) lsof -t +f -- "$MNT" 2>/dev/null | wc -l ;;
	esac
}

# holders_time TOOL: one timed run of TOOL on $MNT, in ms.
holders_time() {
	local t0=$EPOCHREALTIME
	case $1 in
	holders) revoke-bpf holders --fs "$MNT" >/dev/null ;;
	fuser) fuser -m "$MNT" >/dev/null 2>&1 || true ;;
	lsof) lsof +f -- "$MNT" >/dev/null 2>&1 || true ;;
	esac
	ms_since "$t0"
}

# holders_row N: the row of a population of N processes.
holders_row() {
	local n=$1 r i t tools=(holders fuser lsof) order
	declare -A ms=() count=()
	mkdir -p "$MNT"
	mount -t tmpfs bench-holders "$MNT"
	population_start file "$n" "$MNT/file"
	for t in "${tools[@]}"; do
		count[$t]=$(holders_count "$t")
	done
	for r in $(seq "$rounds"); do
		order=()
		for i in 0 1 2; do
			order+=("${tools[$(( (i + r) % 3 ))]}")
		done
		for t in "${order[@]}"; do
			ms[$t]+="$(holders_time "$t") "
		done
	done
	population_stop "$MNT/file"
	umount "$MNT"
	printf '{"procs": %d, "fds": %d, "maps": %d, "rounds": %d' "$n" \
		$((n * 10)) "$POP_MAPS" "$rounds"
	for t in "${tools[@]}"; do
		read -ra v <<<"${ms[$t]}"
		printf ', "%s_found": %d, "%s_ms": [%s]' "$t" "${count[$t]}" "$t" \
			"$(IFS=,; echo "${v[*]}")"
	done
	printf '}'
}

sep=
printf '{"rows": ['
for n in ${sizes//,/ }; do
	printf '%s\n  ' "$sep"
	holders_row "$n"
	sep=,
done
printf ']}\n'
