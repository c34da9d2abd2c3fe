#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/run itself: it boots, relays, and fails loudly and distinctly.

# One boot of the generic guest for the tests of what every guest has and
# does: a --file script, at its own path, prints its LSM list, its mounts,
# what it finds of the installed build, then a line on each of stdout and
# stderr, and exits 7.  Its output and exit status, for each test to read.
setup_file() {
	local repo script rc=0
	repo=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	script=$BATS_FILE_TMPDIR/myscript.sh
	cat >"$script" <<-'EOF'
	#!/bin/bash
	echo "lsm: $(cat /sys/kernel/security/lsm)"
	awk '{print "mount: " $3, $2}' /proc/mounts | sort
	echo "script: $0"
	echo "daemon: $(revoke-bpfd --version)"
	echo "cli: $(command -v revoke-bpf)"
	echo out; echo err >&2; exit 7
	EOF
	chmod +x "$script"
	"$repo/tests/vm/run" --no-tests --file "$script" -- "$script" \
		>"$BATS_FILE_TMPDIR/generic.out" 2>&1 || rc=$?
	echo "$rc" >"$BATS_FILE_TMPDIR/generic.rc"
}

# generic PREFIX: the generic guest's lines that start with PREFIX, without it
generic() {
	sed -n "s/^$1//p" "$BATS_FILE_TMPDIR/generic.out"
}

# The generic guest's whole output, which bats shows if the test fails.
setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	RUN=$REPO/tests/vm/run
	cat "$BATS_FILE_TMPDIR/generic.out"
}

@test "the generic guest has bpf in its LSM list" {
	[[ ",$(generic 'lsm: ')," == *",bpf,"* ]]
}

@test "the cloud guest boots with bpf in its LSM list" {
	run "$RUN" --kernel cloud --no-tests -- sh -c 'cat /sys/kernel/security/lsm'
	[ "$status" -eq 0 ]
	[[ ",$output," == *",bpf,"* ]]
}

# The version of the linux-image-VER package the machine's apt names.
default_kernel() {
	apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { sub(/^linux-image-/, "", $2); print $2; exit }'
}
newest_612() {
	apt-cache pkgnames linux-image-6.12. | grep -E '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$' |
		sort -V | tail -n1 | sed 's/^linux-image-//; s/-unsigned$//'
}

@test "--kernel 6.1 boots Debian 12's kernel, ext4 with its softdep crc32c" {
	local v
	v=$(default_kernel)
	[[ $v == 6.1.* ]]
	run "$RUN" --kernel 6.1 --no-tests --module ext4 -- sh -c 'uname -r; cat /etc/revoke-vm/modules'
	[ "$status" -eq 0 ]
	[ "$output" = "$v"$'\ncrc32c_generic\njbd2\nmbcache\ncrc16\next4' ]
}

@test "--kernel 6.12 boots Debian 12's newest 6.12; fuse, built in, is accepted" {
	local v
	v=$(newest_612)
	[[ $v == 6.12.*+deb12-amd64 ]]
	run "$RUN" --kernel 6.12 --no-tests --module fuse --module loop -- \
		sh -c 'uname -r; cat /etc/revoke-vm/modules; grep -w fuse /proc/filesystems'
	[ "$status" -eq 0 ]
	[ "$output" = "$v"$'\nloop\nnodev\tfuse' ]
}

@test "--kernel newest boots Debian unstable's kernel and says which, .ko.xz modules load" {
	run "$RUN" --kernel newest --no-tests --module btrfs -- sh -c 'uname -r; cut -d" " -f1 /proc/modules | sort'
	echo "$output"	# shown if the test fails
	[ "$status" -eq 0 ]
	[[ ${lines[0]} =~ ^tests/vm/run:\ kernel\ ([0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+-amd64)\ \(newest:\ Debian\ unstable\)$ ]]
	local v=${BASH_REMATCH[1]}
	[ "$output" = "tests/vm/run: kernel $v (newest: Debian unstable)"$'\n'"$v"$'\nbtrfs\nlibblake2b\nraid6_pq\nxor' ]
}

@test "a module that no kernel file or built-in has is reported with exit 94" {
	local v
	v=$(newest_612)
	run "$RUN" --kernel 6.12 --module nosuch -- true
	[ "$status" -eq 94 ]
	[ "$output" = "tests/vm/run: no kernel module 'nosuch' in $v, neither a file nor built in" ]
}

@test "the command's exit status and output are relayed" {
	[ "$(cat "$BATS_FILE_TMPDIR/generic.rc")" -eq 7 ]
	[ "$(tail -n 2 "$BATS_FILE_TMPDIR/generic.out")" = $'out\nerr' ]
	# and nothing but what the script printed
	! grep -vE '^((lsm|mount|script|daemon|cli): .*|out|err)$' "$BATS_FILE_TMPDIR/generic.out"
}

@test "a --file script runs at its own path against the installed build" {
	[ "$(generic 'script: ')" = "$BATS_FILE_TMPDIR/myscript.sh" ]
	[[ $(generic 'daemon: ') =~ ^revoke-bpfd\ [0-9] ]]
	[ "$(generic 'cli: ')" = /usr/local/bin/revoke-bpf ]
}

@test "proc, sys, devtmpfs, securityfs, bpffs and tmpfs are mounted" {
	local m
	m=$(generic 'mount: ')
	[[ $m == *"bpf /sys/fs/bpf"* && $m == *"devtmpfs /dev"* ]]
	[[ $m == *"proc /proc"* && $m == *"securityfs /sys/kernel/security"* ]]
	[[ $m == *"sysfs /sys"* && $m == *"tmpfs /tmp"* ]]
}

@test "a guest without BPF LSM is reported with exit 92" {
	REVOKE_VM_APPEND=lsm=capability run "$RUN" --no-tests -- true
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

@test "a newest kernel that unstable's lists do not name is reported with exit 90" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\nexit 100\n' > "$BATS_TEST_TMPDIR/bin/apt-get"
	printf '#!/bin/sh\nexit 0\n' > "$BATS_TEST_TMPDIR/bin/apt-cache"
	chmod +x "$BATS_TEST_TMPDIR"/bin/*
	PATH=$BATS_TEST_TMPDIR/bin:$PATH REVOKE_VM_CACHE=$BATS_TEST_TMPDIR/cache \
		run "$RUN" --kernel newest -- true
	[ "$status" -eq 90 ]
	[ "$output" = "tests/vm/run: cannot fetch the newest kernel: Debian unstable's lists ($BATS_TEST_TMPDIR/cache/apt-sid) name no package that linux-image-amd64 depends on (is the archive reachable?)" ]
	[ "$(cat "$BATS_TEST_TMPDIR/cache/apt-sid/sources.list" | cut -d' ' -f1,3-)" = "deb sid main" ]
}

@test "a guest that does not boot is reported with exit 91" {
	REVOKE_VM_APPEND=rdinit=/no/such/init run "$RUN" -- true
	[ "$status" -eq 91 ]
	[[ ${lines[-1]} == "tests/vm/run: the guest did not boot (kernel "* ]]
}

@test "a guest kernel that crashes is reported with exit 95, naming the panic" {
	run "$RUN" --no-tests -- sh -c 'echo c > /proc/sysrq-trigger'
	[ "$status" -eq 95 ]
	[[ ${lines[-1]} == "tests/vm/run: the guest kernel crashed (kernel 6.1."*", generic): Kernel panic - not syncing: sysrq triggered crash" ]]
}

@test "tests/vm/suite runs once more, in a fresh guest, what a crashed guest did not finish; a second crash fails its test" {
	run "$REPO/tests/vm/suite" "$REPO/tests/host/fixtures/crash.bats"
	[ "$status" -eq 95 ]
	# tests/vm/run reports each crash
	local crash='^tests/vm/run: the guest kernel crashed (kernel 6\.1\..*, generic): Kernel panic - not syncing: sysrq triggered crash$'
	[ "$(grep -c "$crash" <<<"$output")" -eq 2 ]
	# and the suite says what it did of them (the kernel's own lines, its
	# panic and trace, are relayed too)
	output=$(grep -v "$crash" <<<"$output" | grep -vE '^\[ *[0-9]+\.[0-9]+\] |^# slowest: ' |
		 sed -E 's/ in [0-9]+ms$//')
	expect=(
		"1..5"
		"ok 1 a test before the crash"
		"# the guest kernel crashed during test 2 'a test that crashes the kernel unless it runs first'; running its 4 unfinished tests once more in a fresh guest"
		"ok 2 a test that crashes the kernel unless it runs first"
		"ok 3 a test after the crash"
		"not ok 4 a test that crashes the kernel always # the guest kernel crashed again while it ran"
		"# the guest kernel crashed in a second guest; 1 tests after it did not run"
	)
	[ "$output" = "$(printf '%s\n' "${expect[@]}")" ] || { echo "$output"; false; }
}

@test "::reboot:: between two commands is refused with exit 2 without --system" {
	run "$RUN" --no-tests -- true ::reboot:: true
	[ "$status" -eq 2 ]
	[ "$output" = "tests/vm/run: ::reboot:: needs --system" ]
}
