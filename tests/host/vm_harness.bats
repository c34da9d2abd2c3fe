#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/run itself: it boots, relays, and fails loudly and distinctly.

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	RUN=$REPO/tests/vm/run
}

@test "the generic guest has bpf in its LSM list" {
	run "$RUN" -- sh -c 'cat /sys/kernel/security/lsm'
	[ "$status" -eq 0 ]
	[[ ",$output," == *",bpf,"* ]]
}

@test "the cloud guest boots with bpf in its LSM list" {
	run "$RUN" --kernel cloud -- sh -c 'cat /sys/kernel/security/lsm'
	[ "$status" -eq 0 ]
	[[ ",$output," == *",bpf,"* ]]
}

@test "the command's exit status and output are relayed" {
	run "$RUN" -- sh -c 'echo out; echo err >&2; exit 7'
	[ "$status" -eq 7 ]
	[ "$output" = $'out\nerr' ]
}

@test "a --file script runs at its own path against the installed build" {
	local script=$BATS_TEST_TMPDIR/myscript.sh
	printf '#!/bin/bash\necho "$0"; revoke-bpfd --version; command -v revoke-bpf\n' > "$script"
	chmod +x "$script"
	run "$RUN" --file "$script" -- "$script"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$script" ]
	[[ ${lines[1]} =~ ^revoke-bpfd\ [0-9] ]]
	[ "${lines[2]}" = /usr/local/bin/revoke-bpf ]
}

@test "proc, sys, devtmpfs, securityfs, bpffs and tmpfs are mounted" {
	run "$RUN" -- sh -c 'awk "{print \$3, \$2}" /proc/mounts | sort'
	[ "$status" -eq 0 ]
	[[ $output == *"bpf /sys/fs/bpf"* && $output == *"devtmpfs /dev"* ]]
	[[ $output == *"proc /proc"* && $output == *"securityfs /sys/kernel/security"* ]]
	[[ $output == *"sysfs /sys"* && $output == *"tmpfs /tmp"* ]]
}

@test "a guest without BPF LSM is reported with exit 92" {
	REVOKE_VM_APPEND=lsm=capability run "$RUN" -- true
	[ "$status" -eq 92 ]
	[[ $output == "tests/vm/run: BPF LSM is not active in the guest (lsm list: lockdown,capability)"* ]]
}

@test "a time limit that passes is reported with exit 93" {
	run "$RUN" --timeout 1 -- true
	[ "$status" -eq 93 ]
	[[ $output == *"tests/vm/run: time limit of 1s passed"* ]]
}

@test "an unknown kernel name is refused with exit 2" {
	run "$RUN" --kernel nosuch -- true
	[ "$status" -eq 2 ]
	[ "$output" = "tests/vm/run: unknown kernel 'nosuch' (expected 6.1, 6.12, newest, generic or cloud)" ]
}

@test "a --file that does not exist is reported with exit 94" {
	run "$RUN" --file /no/such/file -- true
	[ "$status" -eq 94 ]
	[[ $output == *"tests/vm/run: --file /no/such/file does not exist"* ]]
}

@test "a kernel that cannot be fetched is reported with exit 90" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\nexit 100\n' > "$BATS_TEST_TMPDIR/bin/apt-get"
	printf '#!/bin/sh\nexit 0\n' > "$BATS_TEST_TMPDIR/bin/apt-cache"
	chmod +x "$BATS_TEST_TMPDIR"/bin/*
	PATH=$BATS_TEST_TMPDIR/bin:$PATH REVOKE_VM_CACHE=$BATS_TEST_TMPDIR/cache \
		run "$RUN" -- true
	[ "$status" -eq 90 ]
	[ "$output" = "tests/vm/run: cannot fetch the guest kernel: apt-cache knows no package that linux-image-amd64 depends on (run apt-get update)" ]
}

@test "a guest that does not boot is reported with exit 91" {
	REVOKE_VM_APPEND=rdinit=/no/such/init run "$RUN" -- true
	[ "$status" -eq 91 ]
	[[ ${lines[-1]} == "tests/vm/run: the guest did not boot (kernel "* ]]
}
