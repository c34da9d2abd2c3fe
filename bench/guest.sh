#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest.sh - the benchmarks that need BPF LSM; run in the guest by
# bench/run.  Prints one JSON object on stdout between two marker lines.
#
#   bench/guest.sh ROUNDS DD_COUNT LOOPS LEVELS AROUNDS SETTLE_S \
#                  [SIZES PROUNDS CROUNDS HROUNDS]
#
# The hooks' part, run on every kernel bench/run boots:
# 1. hookbench: what the hooks cost ordinary I/O (see bench/hookbench.c).
# 2. The idle daemon (bench/idle.sh): dd bs=1, DD_COUNT bytes, with no
#    revoke-bpfd and with revoke-bpfd running, nothing revoked, ROUNDS
#    rounds taking turns.
# 3. Attach on demand (bench/attach.sh): what the first add after an idle
#    period pays to attach the programs, AROUNDS rounds, SETTLE_S seconds
#    of idle before each.
# The rest, with SIZES PROUNDS CROUNDS HROUNDS only (bench/run gives them
# on the first kernel):
# 4. The pipeline: for each N in SIZES, N holder processes with 10
#    descriptors each of a FIFO, min(N,100) of them blocked reading it;
#    of a regular file, min(N,100) of them mapping it; and of a regular
#    file, nobody blocked and nothing mapped (descriptors only).  On the
#    same population: fuser and lsof (wall time), then "revoke-bpf add":
#    the time the daemon spent finding the holders (BPF iterators), the whole
#    pipeline, and the command from call to report.  PROUNDS rounds, each
#    on a fresh population, interleaved: a list of PROUNDS values each.
# 5. The control socket: root's "revoke-bpf add" of a file nobody holds,
#    from call to report, against an idle daemon, with 100 unprivileged
#    connections held open (ctlhog idle: 13 uids, each connection closed
#    by the daemon's 2 s request deadline and made again at once), and
#    with 100 trickling a request a byte every 1.5 s (ctlhog trickle).
#    CROUNDS rounds, the three cases taking turns in each, 5 adds per
#    case and round.
# 6. Who holds a filesystem (bench/holders.sh): for each N in SIZES, N
#    processes with 10 descriptors each of a file on a tmpfs, min(N,100)
#    of them mapping it: "revoke-bpf holders --fs", "fuser -m" and
#    "lsof +f --" taking turns, HROUNDS rounds.
# 7. Forced unmount (bench/umount.sh): for each N in SIZES, the same
#    population, then "revoke-bpf umount" and its step split, PROUNDS
#    rounds.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$REPO/build/bench
rounds=$1 dd_count=$2 loops=$3 levels=$4 arounds=$5 settle_s=$6
sizes=${7:-} prounds=${8:-} crounds=${9:-} hrounds=${10:-}

. "$REPO/bench/lib.sh"

# pipeline_round N KIND: one round of a population's row; adds one value
# to each of its lists in ROW and sets its counts.
declare -A ROW
pipeline_round() {
	local n=$1 kind=$2 f=/tmp/bench.$2 t0 out k=$1:$2
	population_start "$kind" "$n" "$f"
	t0=$EPOCHREALTIME; fuser "$f" >/dev/null 2>&1 || true
	ROW[$k:fuser_ms]+="$(ms_since "$t0") "
	t0=$EPOCHREALTIME; lsof "$f" >/dev/null 2>&1 || true
	ROW[$k:lsof_ms]+="$(ms_since "$t0") "
	t0=$EPOCHREALTIME
	out=$(revoke-bpf --json add "$f" --no-release)
	ROW[$k:add_ms]+="$(ms_since "$t0") "
	population_stop "$f"
	revoke-bpf del "$f" >/dev/null
	ROW[$k:discover_ms]+="$(awk -v u="$(field "$out" discover_us)" 'BEGIN { printf "%.2f", u / 1000 }') "
	ROW[$k:pipeline_ms]+="$(awk -v u="$(field "$out" total_us)" 'BEGIN { printf "%.2f", u / 1000 }') "
	ROW[$k:head]=$(printf '"procs": %d, "fds": %d, "waiters": %d, "maps": %d, "found_fds": %s, "woken": %s, "unmapped": %s' \
		"$n" $((n * 10)) "$POP_WAITERS" "$POP_MAPS" "$(field "$out" fds)" \
		"$(field "$out" woken)" "$(field "$out" unmapped)")
	ROW[$k:failed]=$(( ${ROW[$k:failed]:-0} + $(field "$out" failed) ))
}

# pipeline_row N KIND: the row, every list in milliseconds, a value per round
pipeline_row() {
	local k=$1:$2 m v
	printf '{%s, "failed": %d, "rounds": %d' "${ROW[$k:head]}" "${ROW[$k:failed]}" "$prounds"
	for m in fuser_ms lsof_ms discover_ms pipeline_ms add_ms; do
		read -ra v <<<"${ROW[$k:$m]}"
		printf ', "%s": [%s]' "$m" "$(IFS=,; echo "${v[*]}")"
	done
	printf '}'
}

# ctl_round CASE: 5 adds of root's with CASE's clients (none, hold,
# trickle) connected; adds one value per add to CTL[CASE].
declare -A CTL
ctl_round() {
	local hog= out=/tmp/bench.ctlhog f=/tmp/bench.ctl t0 k
	if [ "$1" != none ]; then
		: > "$out"
		"$REPO/build/tests/ctlhog" "$([ "$1" = hold ] && echo idle || echo trickle)" \
			/run/revoke-bpf/control.sock 100 20000 >> "$out" 2>&1 &
		hog=$!
		until grep -q '^ready' "$out"; do sleep 0.05; done
		# the tricklers well into their requests
		[ "$1" = hold ] || sleep 2
	fi
	for k in 1 2 3 4 5; do
		echo data > "$f"
		t0=$EPOCHREALTIME
		revoke-bpf add "$f" >/dev/null
		CTL[$1]+="$(ms_since "$t0") "
		revoke-bpf del "$f" >/dev/null
		rm -f "$f"
	done
	if [ -n "$hog" ]; then
		kill "$hog"
		wait "$hog" 2>/dev/null || true
	fi
}

echo "BENCH-JSON-BEGIN"
printf '{"kernel": "%s", "cpus": %d,\n"hooks": ' "$(uname -r)" "$(nproc)"
# its notices (programs this kernel cannot run) would land in the JSON:
# the guest's stderr is its console too
"$B/hookbench" --rounds "$rounds" --dd-count "$dd_count" --loops "$loops" \
	--levels "$levels" 2>/tmp/hookbench.err ||
	{ cat /tmp/hookbench.err; exit 1; }
printf ',\n"idle": '
"$REPO/bench/idle.sh" "$rounds" "$dd_count"
printf ',\n"attach": '
"$REPO/bench/attach.sh" "$arounds" "$settle_s"
if [ -z "$sizes" ]; then
	printf '}\n'
	echo "BENCH-JSON-END"
	exit 0
fi
# the programs kept attached, so that the rows below do not pay the
# first add's attach at random (bench/attach.sh measures it): a long
# --detach-after, and one add before the rounds
daemon_start --detach-after 3600
echo data > /tmp/bench.warm
revoke-bpf add /tmp/bench.warm >/dev/null
revoke-bpf del /tmp/bench.warm >/dev/null
# the rows' rounds interleaved: round r of every row before round r + 1
for r in $(seq "$prounds"); do
	for kind in fifo file none; do
		for n in ${sizes//,/ }; do
			pipeline_round "$n" "$kind"
		done
	done
done
printf ',\n"pipeline": {"fifo": ['
for kind in fifo file none; do
	[ "$kind" = fifo ] || printf '], "%s": [' "$kind"
	sep=
	for n in ${sizes//,/ }; do
		printf '%s\n  ' "$sep"
		pipeline_row "$n" "$kind"
		sep=,
	done
done
printf ']},\n"ctl": {"rounds": %d' "$crounds"
for r in $(seq "$crounds"); do
	for c in none hold trickle; do
		ctl_round "$c"
	done
done
for c in none hold trickle; do
	read -ra v <<<"${CTL[$c]}"
	printf ', "%s_add_ms": [%s]' "$c" "$(IFS=,; echo "${v[*]}")"
done
printf '},\n"holders": '
"$REPO/bench/holders.sh" "$hrounds" "$sizes"
printf ',\n"umount": '
"$REPO/bench/umount.sh" "$prounds" "$sizes"
printf '}\n'
echo "BENCH-JSON-END"
