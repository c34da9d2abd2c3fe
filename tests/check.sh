#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/check.sh - run every test and end with "N passed, N failed".
#
#   1. C unit tests (build/tests/test_*), on the host; librevoke's race
#      test, its tests under sanitizers, and its spin model
#   2. BATS suites in tests/host, on the host (CLI, install, a fresh
#      machine's make; the VM harness, which boots guests of its own)
#   3. libFuzzer on every parser, 5 s each (make fuzz)
#   4. make bench with tiny counts, inside the guest (bench/run --quick:
#      the hook rows on 6.1 and 6.12, the rest on 6.1)
#   5. BATS suites in tests/vm, inside the guest, once on each of kernels
#      newest, 6.12 and 6.1 (tests/vm/suite)
#   6. the installed-system suite, tests/system: the Debian package (make
#      deb, built by tests/host/deb.bats in step 2) installed by apt in a
#      Debian system booted with systemd, on each of the three kernels
#      (tests/system/suite)
#
# Every suite speaks TAP; its "ok" and "not ok" lines are tallied.  A
# suite that dies without a plan counts as a failure.
#
# Each guest runs on one host thread, and the guests run side by side,
# $REVOKE_CHECK_GUESTS at once (default 3 on 2 cores: a guest waiting on
# a sleep or a grace period leaves its core to another), each suite's
# output kept in a file of its own and shown, then tallied, as it ends.
# The host's own suites run meanwhile.  Each VM suite has a budget of wall
# time, set from its profile (README, Tests): one that passes it fails
# with a line that says so, so that a change sees the time it adds.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1
passed=0 failed=0
GUESTS=${REVOKE_CHECK_GUESTS:-3}
# seconds of wall time each VM suite may take, side by side with the rest
VM_BUDGET=${REVOKE_VM_BUDGET:-3000}
# and each installed-system suite (one boot of a Debian system)
SYSTEM_BUDGET=${REVOKE_SYSTEM_BUDGET:-900}
OUT=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$OUT"' EXIT

# count NAME OUT RC SECONDS [BUDGET]: echo a TAP producer's output OUT,
# count its results, and say how long it took.
count() {
	local name=$1 out=$2 rc=$3 secs=$4 budget=${5:-} p f
	echo "== $name"
	cat "$out"
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	if ! grep -q '^1\.\.[0-9]' "$out" || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		echo "not ok - $name exited with status $rc"
		f=$((f + 1))
	fi
	if [ -n "$budget" ] && [ "$secs" -gt "$budget" ]; then
		echo "not ok - $name took $secs s, over its budget of $budget s (tests/check.sh VM_BUDGET; see the README's profile)"
		f=$((f + 1))
	fi
	echo "== $name: $p passed, $f failed, $secs s"
	passed=$((passed + p))
	failed=$((failed + f))
}

# tally NAME COMMAND...: run a TAP producer now, and count it.
tally() {
	local name=$1 start=$SECONDS rc
	shift
	"$@" >"$OUT/now" 2>&1
	rc=$?
	count "$name" "$OUT/now" "$rc" $((SECONDS - start))
}

# In the background, at most $GUESTS at once: guest NAME BUDGET COMMAND...
# starts one; reap shows and counts those that have ended; wait_below N
# reaps until fewer than N are running.
declare -A GNAME=() GBUDGET=() GSTART=()
NGUESTS=0
guest() {
	local name=$1 budget=$2 id=$((NGUESTS++))
	shift 2
	wait_below "$GUESTS"
	echo "== started: $name"
	GNAME[$id]=$name GBUDGET[$id]=$budget GSTART[$id]=$SECONDS
	( "$@" >"$OUT/g$id" 2>&1; echo $? >"$OUT/g$id.rc"
	  times >"$OUT/g$id.cpu"
	  echo $SECONDS >"$OUT/g$id.tmp" && mv "$OUT/g$id.tmp" "$OUT/g$id.end" ) &
}
reap() {
	local id
	for id in "${!GNAME[@]}"; do
		[ -e "$OUT/g$id.end" ] || continue
		count "${GNAME[$id]}" "$OUT/g$id" "$(cat "$OUT/g$id.rc")" \
			$(($(cat "$OUT/g$id.end") - GSTART[$id])) "${GBUDGET[$id]}"
		echo "# ${GNAME[$id]}: $(cpu_seconds <"$OUT/g$id.cpu") s of CPU (host and guest)"
		unset "GNAME[$id]"
	done
}
# cpu_seconds < TIMES: the CPU time, user and system, of the children of
# the shell whose bash "times" TIMES is, in whole seconds: what a guest
# cost the host's 2 cores, beside its wall time.
cpu_seconds() {
	tail -n 1 | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
		printf "%d\n", s }'
}
wait_below() {
	while [ "$(jobs -pr | wc -l)" -ge "$1" ]; do
		wait -n
		reap
	done
}

# the VM suite on each kernel that users run: Debian unstable's, the 6.12
# that Debian 12's archive ships, and Debian 12's default (longest first)
for kernel in newest 6.12 6.1; do
	guest "vm ($kernel): tests/vm" "$VM_BUDGET" tests/vm/suite --kernel "$kernel"
done

for t in build/tests/test_* build/tests/*/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && tally "unit: ${t#build/tests/}" "$t"
done
tally "librevoke: races, 10^6 calls" build/tests/race_librevoke
tally "librevoke: under ASan+UBSan and TSan (make sanitize)" make -s sanitize
tally "librevoke: protocol model (make spin)" make -s spin
tally "host: tests/host (but the VM harness)" bats --tap $(ls tests/host/*.bats | grep -v /vm_harness.bats)
tally "fuzz: every parser, 5 s each (make fuzz)" make -s fuzz FUZZ_SECONDS=5
# make bench, once with tiny counts (its numbers mean nothing here): keeps
# the benchmark suite working without timing anything in a test.
bench() {
	local name="make bench runs end to end (bench/run --quick)" ok=1 r=build/bench/results.json
	if REVOKE_BENCH_KERNELS="6.1 6.12" bench/run --quick >/tmp/revoke-bench.log 2>&1 &&
	   jq -e '.hooks.dd_bs1 | has("none") and has("empty_hook") and has("armed_0") and has("armed_1000")' \
		"$r" >/dev/null &&
	   jq -e '.pipeline.fifo[0].woken == 10 and .pipeline.file[0].unmapped == 10 and
		  .pipeline.fifo[0].found_fds == 100 and .pipeline.fifo[0].failed == 0 and
		  .pipeline.none[0].found_fds == 100 and .pipeline.none[0].woken == 0 and
		  .pipeline.none[0].unmapped == 0 and .pipeline.none[0].failed == 0 and
		  .host_discovery.rows[0].found_fds == 100 and .host_discovery.rows[1].found_vmas == 10 and
		  .host_pipeline.rows[0].maps == 10 and (.host_pipeline.rows[0].pipeline_ms.median > 0)' \
		"$r" >/dev/null &&
	   jq -e '.ctl | (.none_add_ms.values | length == 5) and (.hold_add_ms.values | length == 5) and
		  (.trickle_add_ms.values | length == 5)' "$r" >/dev/null &&
	   jq -e '.librevoke.threads_2 | has("bare") and has("librevoke") and has("rwlock") and has("urcu_inline")' \
		"$r" >/dev/null &&
	   jq -e '.umount.rows[0] | .released >= 100 and .unmapped == 10 and .failed == 0 and
		  (.umount_ms.median > 0)' "$r" >/dev/null; then
		echo "ok 1 $name"
	else
		tail -n 30 /tmp/revoke-bench.log
		echo "not ok 1 $name"
		ok=0
	fi
	# on each kernel: the hook rows, the idle daemon against none (its
	# programs detached), and a first add that attached them while the
	# second, with them attached, did not
	name="make bench has the hook, idle, first-add and instruction-counted rows of 6.1 and 6.12"
	if [ $ok = 1 ] &&
	   jq -e '(.kernels | length == 2) and (.kernels[0] | startswith("6.1.")) and
		  (.kernels[1] | startswith("6.12.")) and (.hooks == .hooks_by_kernel[.kernels[0]]) and
		  (. as $j | .kernels | all(. as $k |
		    ($j.hooks_by_kernel[$k].dd_bs1 | has("none") and has("empty_hook") and has("armed_0")) and
		    ($j.idle_by_kernel[$k] | .rounds == 1 and .none_s.median > 0 and .idle_s.median > 0 and
		      .["idle/none"].median > 0 and (.programs_attached_idle | startswith("0/"))) and
		    ($j.attach_by_kernel[$k] | .first.attach_us.min > 0 and .attached.attach_us.max == 0 and
		      .during_detach.attach_us.min > 0 and .first.add_ms.min > 0 and .attaches == 2 and
		      .detaches == 2) and
		    ($j.icount_by_kernel[$k] | .dd_bs1 | has("padded_hook") and
		      has("armed_same_fs") and has("armed_paused")))) and
		  # the instrument sees the few instructions of the padded hook
		  # (icount: the same every run) and the gain of the fast path
		  (. as $j | .kernels | all($j.icount_by_kernel[.].ratios.dd_bs1 |
		    .["padded_hook/empty_hook"].median > 1.005 and
		    .["armed_1/empty_hook"].median < .["armed_same_fs/empty_hook"].median))' \
		  "$r" >/dev/null; then
		echo "ok 2 $name"
	else
		jq '{kernels, idle_by_kernel, attach_by_kernel}' "$r" 2>&1 | head -n 60
		echo "not ok 2 $name"
	fi
	echo "1..2"
}
# Behind the VM suites, each as a guest ends, the longest first: the
# VM suites end within 4 minutes of each other (2026-12-08: 1,693, 1,740
# and 1,887 s), and what comes after them is about 15 minutes of guests
# on 2 CPUs, which stay busy to the end.  6.12's system suite, the
# longest, runs ansible.bats too (its "# kernels:" line; 984 s of wall
# time and 679 s of CPU beside the others, 2026-12-08).  The package was
# built by tests/host/deb.bats above: their make deb is done.
system() {
	local budget=$SYSTEM_BUDGET
	[ "$1" != 6.12 ] || budget=${REVOKE_SYSTEM_BUDGET_612:-1300}
	guest "system ($1): tests/system" "$budget" tests/system/suite --kernel "$1"
}
system 6.12
system newest
guest "host: tests/host/vm_harness.bats (boots its own guests)" "" bats --tap tests/host/vm_harness.bats
system 6.1
guest "bench: bench/run --quick" "" bench
wait_below 1
reap
times >"$OUT/all.cpu"
echo "# everything: $(cpu_seconds <"$OUT/all.cpu") s of CPU, $SECONDS s of wall time"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
