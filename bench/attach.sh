#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/attach.sh - what attaching the programs on demand adds to "add",
# in the guest (run by bench/guest.sh with no revoke-bpfd running).
# Prints one JSON object.
#
#   bench/attach.sh ROUNDS SETTLE_S
#
# revoke-bpfd runs with --detach-after 1.  ROUNDS rounds of three adds of
# a file nobody holds, each timed from call to exit (add_ms) and with the
# time the daemon says it spent attaching (attach_us):
#
#	first		the daemon idle for SETTLE_S seconds (the kernel done
#			with the links of the last detach): the add attaches
#	attached	a second file while the first is revoked: nothing to
#			attach (attach_us 0)
#	during_detach	both deleted, then an add as soon as the status says
#			enforcement=idle: the kernel may still be tearing the
#			old links down when the new ones go in
#
# Each list has a value per round, in round order.  The daemon's attaches
# and detaches counters at the end are printed too.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/bench/lib.sh"

rounds=$1 settle_s=$2
F1=/tmp/bench.attach1 F2=/tmp/bench.attach2
declare -A ROW

# timed_add CASE FILE: add FILE, append its add_ms and attach_us to CASE's
timed_add() {
	local t0=$EPOCHREALTIME out us
	out=$(revoke-bpf --json add "$2")
	ROW[$1:add_ms]+="$(ms_since "$t0") "
	us=$(field "$out" attach_us)
	[ -n "$us" ] || { echo "bench: add $2 gave no attach_us: $out" >&2; return 1; }
	ROW[$1:attach_us]+="$us "
}

# the lists of CASE as JSON
case_json() {
	local m v sep=
	printf '"%s": {' "$1"
	for m in add_ms attach_us; do
		read -ra v <<<"${ROW[$1:$m]}"
		printf '%s"%s": [%s]' "$sep" "$m" "$(IFS=,; echo "${v[*]}")"
		sep=', '
	done
	printf '}'
}

echo data > "$F1"
echo data > "$F2"
daemon_start --detach-after 1
until_enforcement idle
for r in $(seq "$rounds"); do
	sleep "$settle_s"
	timed_add first "$F1"
	timed_add attached "$F2"
	revoke-bpf del "$F2" >/dev/null
	revoke-bpf del "$F1" >/dev/null
	until_enforcement idle
	timed_add during_detach "$F1"
	revoke-bpf del "$F1" >/dev/null
	until_enforcement idle
done
printf '{"rounds": %d, "settle_s": %s, "detach_after_s": 1, ' "$rounds" "$settle_s"
printf '"attaches": %s, "detaches": %s, ' "$(status_field attaches)" \
	"$(status_field detaches)"
case_json first
printf ', '
case_json attached
printf ', '
case_json during_detach
printf '}'
daemon_stop
rm -f "$F1" "$F2"
