#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/demo.sh - runs in the guest (make demo): a reader is cut off by
# revoke-bpf add, at once, on the descriptor it already holds.
set -u

say() { printf '\n\033[1m>>> %s\033[0m\n' "$*"; }

say "start revoke-bpfd (loads the BPF LSM programs and pins them)"
revoke-bpfd 2>/tmp/revoke-bpfd.log &
for i in $(seq 1 100); do revoke-bpf status >/dev/null 2>&1 && break; sleep 0.1; done
cat /tmp/revoke-bpfd.log
revoke-bpf status

say "a reader opens /tmp/secret once and reads a line every half second"
seq 1 100000 > /tmp/secret
(
	exec 3< /tmp/secret
	while IFS= read -r -u 3 line; do
		echo "  reader: read line $line"
		sleep 0.5
	done
	echo "  reader: read failed: $(cat <&3 2>&1 >/dev/null | sed 's/.*: //')"
) &
reader=$!
sleep 2

say "revoke-bpf add /tmp/secret"
revoke-bpf add /tmp/secret
sleep 1.5
wait $reader

say "the reader's fd is dead; a new open fails too"
cat /tmp/secret
say "revoke-bpf list"
revoke-bpf list

say "revoke-bpf del /tmp/secret lifts it"
revoke-bpf del /tmp/secret
head -n 1 /tmp/secret
