#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Declared revocations across a reboot, part 1 (before it): a file
# revoked by a line of /etc/revoke-bpf/revoked.d/test.conf, another added
# by hand, and a oneshot unit that reads the declared file as nobody at
# every boot, ordered after revoke-bpfd.service and before
# systemd-user-sessions.service (before anyone can log in).
# tests/system/suite reboots the guest after this file (the line below)
# and runs reboot-2.bats in the next boot.
# tests/system/suite: reboot after this file

load lib
load reboot

setup_file() {
	local out
	# installed.bats, before this file, removes the package at its end
	out=$(apt-get install -y -q "$DEBS"/revoke-bpf_*_amd64.deb 2>&1) ||
		{ echo "$out" >&2; return 1; }
	until_true active
}

@test "before a reboot: a declared file and one added by hand are denied; a unit will read the first at boot, before logins" {
	mkdir -p "$DIR"
	chmod 755 "$DIR"
	echo secret > "$SECRET"
	echo hand > "$HAND"
	chmod 644 "$SECRET" "$HAND"
	mkdir -p /etc/revoke-bpf/revoked.d
	printf '# tests/system/reboot-1.bats\n%s\n' "$SECRET" > "$DECLARED"
	revoke-bpf reload
	run revoke-bpf add "$HAND"
	[ "$status" -eq 0 ]
	for f in "$SECRET" "$HAND"; do
		run "$ASUSER" 65534 cat "$f"
		[ "$status" -eq 1 ]
		[ "$output" = "cat: $f: Input/output error" ]
	done
	[ "$(revoke-bpf -j status | jq -c '[.entries, .declared, .declared_applied, .declared_failed]')" = '[2,1,1,0]' ]
	cat > /etc/systemd/system/$PROBE <<UNIT
[Unit]
Description=tests/system/reboot-1.bats: read a declared file as nobody before logins
After=revoke-bpfd.service
Before=systemd-user-sessions.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c '$ASUSER 65534 cat $SECRET >$DIR/probe 2>&1; echo "exit \$\$?" >>$DIR/probe'

[Install]
WantedBy=multi-user.target
UNIT
	systemctl daemon-reload
	systemctl enable "$PROBE"
	cat /proc/sys/kernel/random/boot_id > "$DIR/boot_id"
}
