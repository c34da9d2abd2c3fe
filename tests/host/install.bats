#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# make install puts binaries, man pages, the systemd unit, the udev rule
# and the example policy in place.

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
	run grep -o 'RUN+="[^"]*"' "$d/opt/rb/lib/udev/rules.d/60-revoke-bpf.rules"
	[ "$output" = 'RUN+="/opt/rb/bin/revoke-bpf uevent"' ]
	[ -f "$d/etc/revoke-bpf/policy.conf" ]
}

@test "make install puts the unit and the udev rule where systemd and udev read them, never in /etc/udev" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$REPO" install DESTDIR="$d" >/dev/null
	run grep '^ExecStart=' "$d/usr/local/lib/systemd/system/revoke-bpfd.service"
	[ "$output" = "ExecStart=/usr/local/sbin/revoke-bpfd" ]
	# a folder this machine's systemd (if any) reads units from
	if command -v systemd-analyze >/dev/null; then
		systemd-analyze unit-paths | grep -qx /usr/local/lib/systemd/system
	fi
	# one Debian 12's udev (252) reads rules from: udev(7)
	run grep -o 'RUN+="[^"]*"' "$d/usr/local/lib/udev/rules.d/60-revoke-bpf.rules"
	[ "$output" = 'RUN+="/usr/local/bin/revoke-bpf uevent"' ]
	[ ! -e "$d/etc/udev" ]
	# and where a package puts them, for Debian 12's debhelper (debian/rules)
	d=$BATS_TEST_TMPDIR/pkg
	make -s -C "$REPO" install DESTDIR="$d" PREFIX=/usr UNITDIR=/lib/systemd/system \
		UDEVRULESDIR=/lib/udev/rules.d >/dev/null
	run grep '^ExecStart=' "$d/lib/systemd/system/revoke-bpfd.service"
	[ "$output" = "ExecStart=/usr/sbin/revoke-bpfd" ]
	run grep -o 'RUN+="[^"]*"' "$d/lib/udev/rules.d/60-revoke-bpf.rules"
	[ "$output" = 'RUN+="/usr/bin/revoke-bpf uevent"' ]
}

@test "every subcommand has --help" {
	local c
	for c in add del list status events unload; do
		run "$REPO/build/revoke-bpf" "$c" --help
		[ "$status" -eq 0 ]
		[[ ${lines[0]} == "Usage: revoke-bpf [--socket PATH] [--reply-timeout S] $c"* ]]
	done
}

@test "the man pages render without warnings" {
	local page
	for page in revoke-bpf.8 revoke-bpfd.8 librevoke.3; do
		run bash -c "LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '$REPO/man/$page' 2>&1 >/dev/null"
		[ -z "$output" ] || { echo "$page: $output"; false; }
	done
}

@test "make install puts librevoke in place, and a program builds against it with pkg-config" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$REPO" install DESTDIR="$d" PREFIX=/opt/rb >/dev/null
	[ -f "$d/opt/rb/lib/librevoke.a" ]
	[ -x "$d/opt/rb/lib/librevoke.so.0" ]
	[ "$(readlink "$d/opt/rb/lib/librevoke.so")" = librevoke.so.0 ]
	[ -f "$d/opt/rb/include/revoke.h" ]
	[ -f "$d/opt/rb/share/man/man3/librevoke.3" ]
	export PKG_CONFIG_PATH=$d/opt/rb/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d
	run pkg-config --modversion librevoke
	[ "$output" = "$(sed -n 's/^VERSION *:= *//p' "$REPO/Makefile")" ]
	cc -Wall -Werror "$REPO/examples/revoke_example.c" \
		$(pkg-config --cflags --libs librevoke) -lpthread -o "$BATS_TEST_TMPDIR/example"
	run env LD_LIBRARY_PATH="$d/opt/rb/lib" "$BATS_TEST_TMPDIR/example"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "a new open: -5 (Input/output error)" ]
	[ "$(grep -c '^release of handle' <<<"$output")" -eq 2 ]
	[[ $output == *"blocked read returned -5 (Input/output error)"* ]]
	[[ $output == *"read on the other handle: -5"* ]]
}
