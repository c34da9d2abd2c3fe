#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/idle.sh - what revoke-bpfd costs ordinary I/O while nothing is
# revoked, as a user sees it, in the guest (run by bench/guest.sh with no
# revoke-bpfd running).  Prints one JSON object.
#
#   bench/idle.sh ROUNDS DD_COUNT
#
# ROUNDS rounds of two cases, "dd if=/dev/zero of=/dev/null bs=1
# count=DD_COUNT" (hookbench's dd bs=1 row) in each:
#
#	none	no revoke-bpfd running (and none left a program attached)
#	idle	revoke-bpfd started with --detach-after 1, once its status
#		says enforcement=idle; ended after the dd
#
# none first in odd rounds, idle first in even ones, so that a drift
# within a round hits both alike.  Lists of seconds, a value per round,
# in round order: idle[r] / none[r] is round r's ratio.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$REPO/bench/lib.sh"

rounds=$1 dd_count=$2
none=() idle=()

# dd_s: seconds one dd bs=1 takes, spawn and exit included
dd_s() {
	local t0=$EPOCHREALTIME
	dd if=/dev/zero of=/dev/null bs=1 count="$dd_count" 2>/dev/null
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }'
}

# idle_dd: the idle case's dd, between the daemon's start and end
idle_dd() {
	daemon_start --detach-after 1
	until_enforcement idle
	# what "idle" leaves attached (the last round's answer is kept)
	attached=$(status_field programs_attached)
	idle+=("$(dd_s)")
	daemon_stop
}

for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then
		none+=("$(dd_s)")
		idle_dd
	else
		idle_dd
		none+=("$(dd_s)")
	fi
done
printf '{"rounds": %d, "dd_count": %d, "programs_attached_idle": "%s", ' \
	"$rounds" "$dd_count" "$attached"
printf '"none_s": [%s], "idle_s": [%s]}' "$(IFS=,; echo "${none[*]}")" \
	"$(IFS=,; echo "${idle[*]}")"
