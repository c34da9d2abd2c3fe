#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# contrib/ansible for real, as an admin runs it: Debian's ansible-core in
# the guest, ansible-playbook -c local.  The role installs the package
# from its .deb, declares two files in revoked.d/ansible.conf, enables
# the service and reloads it; a second run changes nothing; the declared
# files are denied to a user.  Then the one-shot playbook adds and
# unmounts, reporting changed once and not again.  Ansible in qemu TCG is
# slow (25-60 s a run) and tests no kernel behaviour: this file runs on
# 6.12 only (tests/lib/kernels.bash).
# kernels: 6.12

load lib

ROLE_DIR=$REPO/contrib/ansible

setup_file() {
	mkdir -p /srv/a "/srv/with space"
	echo secret > /srv/a/key
	echo other > "/srv/with space/key"
	chmod -R a+rX /srv
}

# the machine as the files after this one expect it: no package, nothing
# declared, nothing revoked
teardown_file() {
	apt-get purge -y -q revoke-bpf >/dev/null 2>&1 || true
	rm -rf /etc/revoke-bpf /srv/a "/srv/with space"
}

setup() {
	D=$(mktemp -d /tmp/ansible.XXXXXX)
	chmod 755 "$D"
}

teardown() {
	umount "$D/m" 2>/dev/null || true
}

# play PLAYBOOK VARS-JSON: run ansible-playbook on this machine; its
# output in $output, and its recap's counts in RECAP ("ok=N changed=N
# ... ignored=N").
play() {
	# the interpreter named, as an inventory would: no discovery each run
	run ansible-playbook -i localhost, -c local \
		-e ansible_python_interpreter=/usr/bin/python3 -e "$2" "$ROLE_DIR/$1"
	echo "$output"
	RECAP=$(sed -n 's/^localhost *: *//p' <<<"$output" | tr -s ' ' | sed 's/ $//')
	[ "$status" -eq "${PLAY_STATUS:-0}" ] ||
		{ journalctl -u "$UNIT" -q --no-pager | tail -n 20; return 1; }
}

# read_as_nobody FILE: cat FILE as uid 65534; its output in $output.
read_as_nobody() {
	run "$ASUSER" 65534 cat "$1"
}

@test "the role installs and starts revoke-bpfd, declares the files, and its second run changes nothing" {
	local deb vars
	deb=$(echo "$DEBS"/revoke-bpf_*_amd64.deb)
	vars=$(jq -nc --arg deb "$deb" '{revoke_bpf_deb: $deb,
		revoke_bpf_revoked: ["/srv/a/key", "\"/srv/with space/key\" --spare"]}')
	play site.yml "$vars"
	[ "$RECAP" = "ok=5 changed=4 unreachable=0 failed=0 skipped=1 rescued=0 ignored=0" ]
	[ "$(systemctl is-enabled "$UNIT")" = enabled ]
	[ "$(cat /etc/revoke-bpf/revoked.d/ansible.conf)" = "# Ansible managed: changes here are overwritten by the revoke_bpf role.
# One revocation a line, as the arguments of 'revoke-bpf add'.
/srv/a/key
\"/srv/with space/key\" --spare" ]
	run revoke-bpf --json status
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.declared, .declared_applied, .declared_failed]' <<<"$output")" = "[2,2,0]" ]
	read_as_nobody /srv/a/key
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /srv/a/key: Input/output error" ]
	read_as_nobody "/srv/with space/key"
	[ "$output" = "cat: '/srv/with space/key': Input/output error" ]

	play site.yml "$vars"
	[ "$RECAP" = "ok=4 changed=0 unreachable=0 failed=0 skipped=1 rescued=0 ignored=0" ]
}

@test "the one-shot playbook: add and umount report changed; an add revoked already does not; a failed add fails" {
	local vars
	echo data > "$D/f"
	chmod 644 "$D/f"
	truncate -s 16M "$D/img"
	mkfs.ext4 -q "$D/img"
	mkdir "$D/m"
	mount -o loop "$D/img" "$D/m"
	vars=$(jq -nc --arg f "$D/f" --arg m "$D/m" \
		'{revoke_bpf_add: [$f], revoke_bpf_umount: [$m]}')
	play oneshot.yml "$vars"
	[ "$RECAP" = "ok=3 changed=2 unreachable=0 failed=0 skipped=0 rescued=0 ignored=0" ]
	read_as_nobody "$D/f"
	[ "$output" = "cat: $D/f: Input/output error" ]
	run mountpoint -q "$D/m"
	[ "$status" -eq 32 ]

	# revoked already: add answers "already", not a change; a failed add
	# (nothing to revoke, exit 1) fails the play (ansible-playbook exit 2)
	vars=$(jq -nc --arg f "$D/f" '{revoke_bpf_add: [$f, "/nonexistent"]}')
	PLAY_STATUS=2 play oneshot.yml "$vars"
	[ "$RECAP" = "ok=0 changed=0 unreachable=0 failed=1 skipped=0 rescued=0 ignored=0" ]
	grep -qxF "ok: [localhost] => (item=$D/f)" <<<"$output"
	grep -qF 'failed: [localhost] (item=/nonexistent) => {"' <<<"$output"
	revoke-bpf del "$D/f" >/dev/null
}
