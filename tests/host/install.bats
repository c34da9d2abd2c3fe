#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# make install puts binaries, man pages, the systemd unit and the udev rule
# in place; the unit is checked by systemd-analyze and for its hardening.
#
# Every install names its directories (UNITDIR=, UDEVRULESDIR=, ...), so
# that these tests read the files where they were put whatever the
# Makefile's defaults are.

# what systemd-analyze security --offline=yes rated the unit at (systemd
# 252): it may only go down
EXPOSURE_MAX=7.7

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
}

# install_to DESTDIR PREFIX SYSCONFDIR: make install, the unit and the
# udev rule under PREFIX/lib, as a package lays them out.
install_to() {
	make -s -C "$REPO" install DESTDIR="$1" PREFIX="$2" \
		UNITDIR="$2/lib/systemd/system" \
		UDEVRULESDIR="$2/lib/udev/rules.d" \
		SYSCONFDIR="$3" >/dev/null
}

# unit_tree: install into a directory of the test's own, no DESTDIR, so
# that ExecStart= and Documentation= name files that exist; sets P and
# UNIT.
unit_tree() {
	P=$BATS_TEST_TMPDIR/usr
	install_to "" "$P" "$BATS_TEST_TMPDIR/etc"
	UNIT=$P/lib/systemd/system/revoke-bpfd.service
}

# directive NAME: the values of NAME= in $UNIT, one a line, comments aside
directive() {
	sed -n "s/^$1=//p" "$UNIT"
}

# none_set DIRECTIVE...: $UNIT sets none of them; else name those it sets
none_set() {
	local d found=
	for d; do
		grep -q "^$d=" "$UNIT" && found="$found $d"
	done
	[ -z "$found" ] || { echo "must not be set:$found"; false; }
}

# help_exits: the exit statuses revoke-bpfd --help lists
help_exits() {
	"$REPO/build/revoke-bpfd" --help |
		awk '/^Exit status/ { on = 1; next } on && /^  [0-9]+  / { print $1 }'
}

need_systemd_analyze() {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
}

@test "make install honours DESTDIR and PREFIX" {
	local d=$BATS_TEST_TMPDIR/root
	install_to "$d" /usr /etc
	[ -x "$d/usr/sbin/revoke-bpfd" ]
	[ -x "$d/usr/bin/revoke-bpf" ]
	[ -f "$d/usr/share/man/man8/revoke-bpf.8" ]
	[ -f "$d/usr/share/man/man8/revoke-bpfd.8" ]
	[ -f "$d/usr/share/man/man5/policy.conf.5" ]
	[ -f "$d/usr/share/man/man5/revoked.d.5" ]
	[ -f "$d/usr/share/bash-completion/completions/revoke-bpf" ]
	[ "$(jq -r .title "$d/usr/share/revoke-bpf/revoke-bpf.schema.json")" = "revoke-bpf --json" ]
	[ -f "$d/etc/revoke-bpf/policy.conf" ]
	UNIT=$d/usr/lib/systemd/system/revoke-bpfd.service
	[ "$(directive ExecStart)" = "/usr/sbin/revoke-bpfd \$REVOKE_BPFD_OPTS" ]
	[ "$(directive Type)" = notify ]
	run grep -c 'RUN+="/usr/bin/revoke-bpf uevent"' "$d/usr/lib/udev/rules.d/60-revoke-bpf.rules"
	[ "$output" = 1 ]
}

@test "the installed unit passes systemd-analyze verify, man pages included" {
	need_systemd_analyze
	unit_tree
	[ "$(directive ExecStart)" = "$P/sbin/revoke-bpfd \$REVOKE_BPFD_OPTS" ]
	run env MANPATH="$P/share/man" systemd-analyze verify "$UNIT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the unit gives the daemon no mount namespace, device filter, network or users of its own" {
	unit_tree
	# each makes a mount namespace (systemd.exec(5)), in which an unmount
	# does not reach the host's mounts; PrivateNetwork= implies one in
	# newer systemd; a device filter blocks opening a user's tty
	none_set ProtectSystem ProtectHome PrivateTmp PrivateDevices PrivateMounts \
		ProtectKernelTunables ProtectKernelModules ProtectKernelLogs \
		ProtectControlGroups ProtectProc ProcSubset PrivateIPC \
		ReadWritePaths ReadOnlyPaths InaccessiblePaths ExecPaths NoExecPaths \
		TemporaryFileSystem BindPaths BindReadOnlyPaths MountFlags \
		RootDirectory RootImage MountAPIVFS PrivateNetwork PrivateUsers \
		DynamicUser DeviceAllow DevicePolicy ProtectClock
}

@test "the unit puts the daemon under no seccomp filter, which would cost it PTRACE_O_SUSPEND_SECCOMP" {
	unit_tree
	# each is a seccomp filter (systemd.exec(5)); the kernel refuses
	# PTRACE_O_SUSPEND_SECCOMP to a tracer under one
	none_set SystemCallFilter SystemCallArchitectures SystemCallLog RestrictNamespaces \
		RestrictAddressFamilies LockPersonality MemoryDenyWriteExecute \
		RestrictRealtime RestrictSUIDSGID ProtectHostname ProtectKernelModules \
		ProtectKernelTunables ProtectClock PrivateDevices Personality
}

@test "the unit grants what the daemon's work needs" {
	unit_tree
	local caps=" $(directive CapabilityBoundingSet) " c
	for c in CAP_SYS_ADMIN CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_OVERRIDE \
		CAP_KILL CAP_SYS_CHROOT CAP_MKNOD; do
		[[ $caps == *" $c "* ]] || { echo "missing $c"; false; }
	done
	# a reload that waits for the answer and fails on a refused policy
	[[ $(directive ExecReload) == */bin/revoke-bpf\ reload ]]
	[ "$(directive EnvironmentFile)" = "-/etc/default/revoke-bpfd" ]
	[ "$(directive Restart)" = on-failure ]
}

@test "RestartPreventExitStatus= is every exit status from 2 on, as --help and the man page give them" {
	unit_tree
	local help man
	help=$(help_exits | tr '\n' ' ')
	[ "$help" = "0 1 2 3 4 6 " ]
	[ "$(directive RestartPreventExitStatus) " = "$(help_exits | awk '$1 >= 2' | tr '\n' ' ')" ]
	man=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH [^E]/p' "$REPO/man/revoke-bpfd.8" |
		sed -n 's/^\.B \([0-9][0-9]*\)$/\1/p' | tr '\n' ' ')
	[ "$man" = "$help" ]
}

@test "systemd-analyze security --offline rates the unit at most 7.7" {
	need_systemd_analyze
	unit_tree
	local level
	run systemd-analyze security --offline=yes --no-pager "$UNIT"
	level=$(sed -n 's/^→ Overall exposure level for revoke-bpfd.service: \([0-9.]*\) .*/\1/p' <<<"$output")
	echo "exposure: $level"
	[ -n "$level" ]
	awk -v l="$level" -v m="$EXPOSURE_MAX" 'BEGIN { exit !(l <= m) }'
}

@test "the udev rule runs only while the socket the command uses exists" {
	unit_tree
	local rule=$P/lib/udev/rules.d/60-revoke-bpf.rules sock
	sock=$("$REPO/build/revoke-bpf" help | tr -s ' \n' '  ' |
		sed -n "s/.*revoke-bpfd's control socket (default \([^)]*\)).*/\1/p")
	[ "$sock" = "/run/$(directive RuntimeDirectory)/control.sock" ]
	run grep -c "^ACTION==\"remove\", .*TEST==\"$sock\", RUN+=\"$P/bin/revoke-bpf uevent\"\$" "$rule"
	[ "$output" = 1 ]
}

@test "the options file the unit reads documents every option of revoke-bpfd --help" {
	local opt missing=
	for opt in $("$REPO/build/revoke-bpfd" --help | grep -o '^  \(-., \)\?--[a-z-]*' | grep -o -- '--[a-z-]*'); do
		case $opt in --help|--version) continue ;; esac
		grep -q -- "^#   .*$opt" "$REPO/dist/revoke-bpfd.default" || missing="$missing $opt"
	done
	[ -z "$missing" ] || { echo "not in dist/revoke-bpfd.default:$missing"; false; }
	grep -q '^REVOKE_BPFD_OPTS=' "$REPO/dist/revoke-bpfd.default"
}

@test "make install puts the unit and the udev rule where systemd and udev read them, never in /etc/udev" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$REPO" install DESTDIR="$d" >/dev/null
	run grep '^ExecStart=' "$d/usr/local/lib/systemd/system/revoke-bpfd.service"
	[ "$output" = "ExecStart=/usr/local/sbin/revoke-bpfd \$REVOKE_BPFD_OPTS" ]
	# a folder this machine's systemd (if any) reads units from
	if command -v systemd-analyze >/dev/null; then
		systemd-analyze unit-paths | grep -qx /usr/local/lib/systemd/system
	fi
	# one Debian 12's udev (252) reads rules from: udev(7)
	run grep -o 'RUN+="[^"]*"' "$d/usr/local/lib/udev/rules.d/60-revoke-bpf.rules"
	[ "$output" = 'RUN+="/usr/local/bin/revoke-bpf uevent"' ]
	[ ! -e "$d/etc/udev" ]
}

@test "every subcommand has --help, and its man page section" {
	local c
	for c in add del umount holders list status events reload unload uevent; do
		run "$REPO/build/revoke-bpf" "$c" --help
		[ "$status" -eq 0 ]
		[[ ${lines[0]} == "Usage: revoke-bpf $c"* ]]
		grep -q "^\.B revoke-bpf $c" "$REPO/man/revoke-bpf.8"
	done
}

@test "the man pages render without warnings" {
	local page
	for page in revoke-bpf.8 revoke-bpfd.8 librevoke.3 policy.conf.5; do
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
