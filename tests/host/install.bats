#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# make install puts binaries, man pages and the systemd unit in place.

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
}

@test "make install honours DESTDIR and PREFIX" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$REPO" install DESTDIR="$d" PREFIX=/opt/rb >/dev/null
	[ -x "$d/opt/rb/sbin/revoke-bpfd" ]
	[ -x "$d/opt/rb/bin/revoke-bpf" ]
	[ -f "$d/opt/rb/share/man/man8/revoke-bpf.8" ]
	[ -f "$d/opt/rb/share/man/man8/revoke-bpfd.8" ]
	run grep '^ExecStart=' "$d/opt/rb/lib/systemd/system/revoke-bpfd.service"
	[ "$output" = "ExecStart=/opt/rb/sbin/revoke-bpfd" ]
	run grep '^Type=' "$d/opt/rb/lib/systemd/system/revoke-bpfd.service"
	[ "$output" = "Type=notify" ]
}

@test "every subcommand has --help" {
	local c
	for c in add del list status events unload; do
		run "$REPO/build/revoke-bpf" "$c" --help
		[ "$status" -eq 0 ]
		[[ ${lines[0]} == "Usage: revoke-bpf [--socket PATH] $c"* ]]
	done
}

@test "the man pages render without warnings" {
	local page
	for page in revoke-bpf.8 revoke-bpfd.8; do
		run bash -c "LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '$REPO/man/$page' 2>&1 >/dev/null"
		[ -z "$output" ] || { echo "$page: $output"; false; }
	done
}
