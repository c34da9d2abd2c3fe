#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/check.sh - run every test and end with "N passed, N failed".
#
#   1. C unit tests (build/tests/test_*), on the host; librevoke's race
#      test, its tests under sanitizers, and its spin model
#   2. BATS suites in tests/host, on the host (CLI, harness, install)
#   3. libFuzzer on every parser, 5 s each (make fuzz)
#   4. make bench with tiny counts, inside the guest (bench/run --quick:
#      the hook rows on 6.1 and 6.12, the rest on 6.1)
#   5. BATS suites in tests/vm, inside the guest, once on each of kernels
#      6.1, 6.12 and newest (tests/vm/suite)
#
# Every suite speaks TAP; its "ok" and "not ok" lines are tallied.  A
# suite that dies without a plan counts as a failure.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO" || exit 1
passed=0 failed=0

# tally NAME COMMAND...: run a TAP producer, echo it, count its results.
tally() {
	local name=$1 out rc p f start=$SECONDS
	shift
	echo "== $name"
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^ok ' "$out")
	f=$(grep -c '^not ok ' "$out")
	if ! grep -q '^1\.\.[0-9]' "$out" || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		echo "not ok - $name exited with status $rc"
		f=$((f + 1))
	fi
	echo "== $name: $p passed, $f failed, $((SECONDS - start)) s"
	passed=$((passed + p))
	failed=$((failed + f))
	rm -f "$out"
}

for t in build/tests/test_* build/tests/*/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && tally "unit: ${t#build/tests/}" "$t"
done
tally "librevoke: races, 10^6 calls" build/tests/race_librevoke
tally "librevoke: under ASan+UBSan and TSan (make sanitize)" make -s sanitize
tally "librevoke: protocol model (make spin)" make -s spin
tally "host: tests/host" bats --tap tests/host
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
	name="make bench has the hook, idle and first-add rows of 6.1 and 6.12"
	if [ $ok = 1 ] &&
	   jq -e '(.kernels | length == 2) and (.kernels[0] | startswith("6.1.")) and
		  (.kernels[1] | startswith("6.12.")) and (.hooks == .hooks_by_kernel[.kernels[0]]) and
		  (. as $j | .kernels | all(. as $k |
		    ($j.hooks_by_kernel[$k].dd_bs1 | has("none") and has("empty_hook") and has("armed_0")) and
		    ($j.idle_by_kernel[$k] | .rounds == 1 and .none_s.median > 0 and .idle_s.median > 0 and
		      .["idle/none"].median > 0 and (.programs_attached_idle | startswith("0/"))) and
		    ($j.attach_by_kernel[$k] | .first.attach_us.min > 0 and .attached.attach_us.max == 0 and
		      .during_detach.attach_us.min > 0 and .first.add_ms.min > 0 and .attaches == 2 and
		      .detaches == 2)))' "$r" >/dev/null; then
		echo "ok 2 $name"
	else
		jq '{kernels, idle_by_kernel, attach_by_kernel}' "$r" 2>&1 | head -n 60
		echo "not ok 2 $name"
	fi
	echo "1..2"
}
tally "bench: bench/run --quick" bench
# the VM suite on each kernel that users run: Debian 12's default, the
# 6.12 that Debian 12's archive ships, and Debian unstable's
for kernel in 6.1 6.12 newest; do
	tally "vm ($kernel): tests/vm" tests/vm/suite --kernel "$kernel"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
