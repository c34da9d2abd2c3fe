#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Declared revocations across a reboot, part 2: after the reboot that
# tests/system/suite puts after reboot-1.bats.  The declared file was
# denied to nobody once revoke-bpfd was up and before logins were let in
# (reboot-1.bats's unit read it), the one added by hand is not kept, and
# removing the line and reloading lifts the declared one.

load lib
load reboot

setup_file() {
	[ -e "$DIR/boot_id" ] ||
		{ echo "reboot-2.bats runs after reboot-1.bats and a reboot (tests/system/suite with both)" >&2; return 1; }
	until_true active
}

teardown_file() {
	systemctl disable "$PROBE" 2>/dev/null || true
	rm -f "/etc/systemd/system/$PROBE" "$DECLARED"
	systemctl daemon-reload
	revoke-bpf reload >/dev/null || true
}

# mono UNIT PROPERTY: a monotonic timestamp of UNIT, in microseconds.
mono() {
	systemctl show -P "$2" "$1"
}

@test "after a reboot: revoke-bpfd was ready, and nobody denied the declared file (EIO), before logins were let in" {
	[ "$(cat /proc/sys/kernel/random/boot_id)" != "$(cat "$DIR/boot_id")" ]
	# the shipped unit's order, and this boot's
	[[ " $(systemctl show -P Before revoke-bpfd.service) " == *" systemd-user-sessions.service "* ]]
	ready=$(mono revoke-bpfd.service ActiveEnterTimestampMonotonic)
	probed=$(mono "$PROBE" ExecMainExitTimestampMonotonic)
	logins=$(mono systemd-user-sessions.service InactiveExitTimestampMonotonic)
	echo "ready $ready probed $probed logins $logins"
	[ "$ready" -gt 0 ] && [ "$ready" -lt "$probed" ] && [ "$probed" -le "$logins" ]
	[ "$(cat "$DIR/probe")" = "cat: $SECRET: Input/output error
exit 1" ]
	run "$ASUSER" 65534 cat "$SECRET"
	[ "$status" -eq 1 ]
	[ "$output" = "cat: $SECRET: Input/output error" ]
}

@test "after a reboot: the revocation added by hand is gone, and status and list say only the declared one is there" {
	run "$ASUSER" 65534 cat "$HAND"
	[ "$status" -eq 0 ]
	[ "$output" = hand ]
	[ "$(revoke-bpf -j status | jq -c '[.entries, .declared, .declared_applied, .declared_failed]')" = '[1,1,1,0]' ]
	[ "$(revoke-bpf -j list | jq -r '.[].path')" = "$SECRET" ]
}

@test "after a reboot: the declared line removed and revoke-bpf reload, the file reads again" {
	: > "$DECLARED"
	revoke-bpf reload
	run "$ASUSER" 65534 cat "$SECRET"
	[ "$status" -eq 0 ]
	[ "$output" = secret ]
	[ "$(revoke-bpf list)" = "nothing is revoked" ]
	[ "$(revoke-bpf -j status | jq -c '[.entries, .declared, .declared_applied, .declared_failed]')" = '[0,0,0,0]' ]
}
