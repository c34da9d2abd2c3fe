#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/umount.sh - forced unmount's latency, in the guest (run by
# bench/guest.sh, or alone with a revoke-bpfd running).  Prints one JSON
# object.
#
#   bench/umount.sh ROUNDS SIZES
#
# For each N in SIZES (comma-separated), ROUNDS times, the sizes taking
# turns: a tmpfs mounted on its own and N processes (build/bench/swarm)
# with 10 descriptors each of a file on it, min(N,100) of them mapping
# it; then "revoke-bpf umount", timed from call to exit, with the split
# its answer gives: sync, the holders (of which finding them), the
# release of what pins it, and the wait until it is gone.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/bench/lib.sh"

rounds=$1 sizes=$2
MNT=/mnt/bench-umount
declare -A ROW

# umount_round N: one forced unmount of a population of N processes
umount_round() {
	local n=$1 t0 out ms k
	mkdir -p "$MNT"
	mount -t tmpfs bench-umount "$MNT"
	population_start file "$n" "$MNT/file"
	t0=$EPOCHREALTIME
	out=$(revoke-bpf --json umount "$MNT") || {
		echo "bench: umount of $n holders failed: $out" >&2
		return 1
	}
	ms=$(ms_since "$t0")
	population_stop "$MNT/file"
	ROW[$n:umount_ms]+="$ms "
	for k in sync_us discover_us pipeline_us release_us gone_us; do
		ROW[$n:$k]+="$(awk -v u="$(field "$out" "$k")" 'BEGIN { printf "%.2f", u / 1000 }') "
	done
	ROW[$n:released]=$(field "$out" released)
	ROW[$n:unmapped]=$(field "$out" unmapped)
	ROW[$n:failed]=$(( ${ROW[$n:failed]:-0} + $(field "$out" failed) ))
	! grep -q " $MNT " /proc/self/mountinfo
}

# umount_row N: the row, every list in milliseconds, a value per round
umount_row() {
	local n=$1 k v
	printf '{"procs": %d, "fds": %d, "maps": %d, "rounds": %d, "released": %s, "unmapped": %s, "failed": %d' \
		"$n" $((n * 10)) $(( n < 100 ? n : 100 )) "$rounds" \
		"${ROW[$n:released]}" "${ROW[$n:unmapped]}" "${ROW[$n:failed]}"
	for k in umount_ms sync_us discover_us pipeline_us release_us gone_us; do
		read -ra v <<<"${ROW[$n:$k]}"
		printf ', "%s": [%s]' "${k/_us/_ms}" "$(IFS=,; echo "${v[*]}")"
	done
	printf '}'
}

for r in $(seq "$rounds"); do
	for n in ${sizes//,/ }; do
		umount_round "$n"
	done
done
sep=
printf '{"rows": ['
for n in ${sizes//,/ }; do
	printf '%s\n  ' "$sep"
	umount_row "$n"
	sep=,
done
printf ']}'
