#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/lib/spin.sh - model-check tests/lib/fops.pml with spin, as TAP:
# the protocol must verify with no error in any interleaving, and the
# broken variant (writer waits before it swaps) must be caught.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# verify [DEFINE]: run spin's exhaustive search; print its summary line.
verify() {
	rm -f pan pan.* ./*.trail
	spin -a ${1:+-D$1} "$REPO/tests/lib/fops.pml" >spin.log 2>&1 &&
		cc -O2 -DSAFETY -o pan pan.c >>spin.log 2>&1 &&
		./pan -m100000 >pan.log 2>&1
	grep -E '^State-vector|errors:|states, stored' pan.log | tr -s ' \t' ' '
}

out=$(verify)
echo "# $out"
if grep -q 'errors: 0' <<<"$out"; then
	echo "ok 1 - fops.pml: no old-table call after substitute returns, release exactly once, in every interleaving"
else
	cat pan.log spin.log 2>/dev/null | sed 's/^/# /' | tail -n 30
	echo "not ok 1 - fops.pml: no old-table call after substitute returns, release exactly once, in every interleaving"
fi
out=$(verify BROKEN_SCAN_FIRST)
echo "# $out"
if grep -qE 'errors: [1-9]' <<<"$out"; then
	echo "ok 2 - fops.pml: a writer that waits before it swaps the table is caught"
else
	echo "not ok 2 - fops.pml: a writer that waits before it swaps the table is caught"
fi
echo "1..2"
