#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/lib/sanitize.sh BINARY... - run librevoke's tests built under
# ASan+UBSan (*_asan) and TSan (*_tsan), as TAP: one result per binary.
# A sanitizer report fails the binary even if its own checks passed.
#
# TSan needs a memory layout it knows: run it without address space
# randomisation (setarch -R), which newer kernels' 32-bit mmap entropy
# otherwise breaks.
set -uo pipefail

n=0 failed=0
for bin in "$@"; do
	n=$((n + 1))
	log=$(mktemp)
	case $bin in
	*_tsan) run=(setarch "$(uname -m)" -R "$bin") ;;
	*) run=("$bin") ;;
	esac
	if ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
	   TSAN_OPTIONS=halt_on_error=1:exitcode=66 "${run[@]}" >"$log" 2>&1 &&
	   ! grep -q 'Sanitizer' "$log"; then
		echo "ok $n - ${bin##*/}: $(grep -c '^ok' "$log") checks pass, no sanitizer report"
	else
		sed 's/^/# /' "$log" | tail -n 40
		echo "not ok $n - ${bin##*/}"
		failed=$((failed + 1))
	fi
	rm -f "$log"
done
echo "1..$n"
[ "$failed" -eq 0 ]
