#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpfd following logind's seat0 ("seat seat0" in policy.conf) in
# the Debian system of tests/vm/run --system: two real logind sessions,
# PAM logins (pam_systemd) on tty2 and tty3 for two users, switched by
# loginctl activate (logind's own VT switch).  The seat's uaccess device
# is snd-aloop's control node, tagged by udev's 70-uaccess.rules.  Each user's session
# runs fdops, which keeps one descriptor of it and works on it when told.

load lib

POLICY=/etc/revoke-bpf/policy.conf
FDOPS=$REPO/build/tests/fdops

setup_file() {
	local out
	# installed.bats, before this file, removes the package at its end
	out=$(apt-get install -y -q "$DEBS"/revoke-bpf_*_amd64.deb 2>&1) ||
		{ echo "$out" >&2; return 1; }
	until_true active
	modprobe snd-aloop
	udevadm settle -t 20
	id alice >/dev/null 2>&1 || useradd -m alice
	id bob >/dev/null 2>&1 || useradd -m bob
}

setup() {
	D=$(mktemp -d /tmp/seat.XXXXXX)
	chmod 755 "$D"
	journal_mark
}

teardown() {
	[ -z "${ROOT_FDOPS:-}" ] || kill "$ROOT_FDOPS" 2>/dev/null || true
	revoke-bpf resume --uid "$(id -u alice)" >/dev/null 2>&1 || true
	systemctl stop seat-alice seat-bob 2>/dev/null || true
	systemctl reset-failed seat-alice seat-bob 2>/dev/null || true
	: > "$POLICY"
	revoke-bpf reload >/dev/null || true
}

# session USER TTY: a PAM login of USER on TTY (tty2, ...) running fdops
# on the seat's device; it reads operations from $D/USER.in and says
# what they gave in $D/USER.out.
session() {
	local i
	mkfifo -m 666 "$D/$1.in"
	# pam_systemd reads the seat and VT from XDG_SEAT and XDG_VTNR too
	systemd-run -q --unit="seat-$1" -p PAMName=login -p User="$1" \
		-p TTYPath="/dev/$2" -p StandardInput=tty \
		-p StandardOutput="file:$D/$1.out" -p StandardError=inherit \
		-E XDG_SEAT=seat0 -E XDG_VTNR="${2#tty}" \
		"$FDOPS" "$DEV" "$D/$1.in"
	# the login starts the user's systemd first: seconds under TCG
	for i in $(seq 1 600); do
		grep -qs '^ready' "$D/$1.out" && return 0
		sleep 0.1
	done
	systemctl status "seat-$1" >&2
	return 1
}

# ask USER OP: have USER's fdops do OP; its answer in $output.
ask() {
	local n
	n=$(wc -l < "$D/$1.out")
	echo "$2" > "$D/$1.in"
	until_true test "$(wc -l < "$D/$1.out")" -gt "$n"
	output=$(tail -n 1 "$D/$1.out")
	echo "$1 $2: $output"
}

# session_of USER: the id of USER's session on seat0.
session_of() {
	loginctl list-sessions --no-legend | awk -v u="$1" '$3 == u && $4 == "seat0" { print $1 }'
}

# switched_to USER: revoke-bpfd has seen USER's session become active.
switched_to() {
	wait_journal "seat seat0: uid $(id -u "$1") active"
}

# seat_pauses [RDEV]: the pauses of device RDEV (default: the seat's
# device, $RDEV), "USER ERRNO CAUSE" each
seat_pauses() {
	revoke-bpf --json list | jq -r --arg r "${1:-$RDEV}" \
		'.[] | select(.kind == "pause" and .rdev == $r) | "\(.user) \(.errno) \(.cause)"'
}

# control_of ID: the number (MAJ:MIN) of sound card ID's control node
control_of() {
	local card
	card=$(grep -lx "$1" /sys/class/sound/card*/id)
	card=${card%/id}
	cat "/sys/class/sound/controlC${card##*card}/dev"
}

@test "a seat followed: who leaves the active session is paused on its uaccess devices, one plugged in too; the same descriptor works again when back" {
	local card a b plugged
	card=$(grep -lx Loopback /sys/class/sound/card*/id)
	card=${card%/id}
	DEV=/dev/snd/controlC${card##*card}
	RDEV=$(control_of Loopback)
	# udev tagged it for the seat, as logind's ACLs need
	udevadm info -q property "$DEV" | grep -qx 'TAGS=.*:uaccess:.*'

	echo "seat seat0" > "$POLICY"
	run revoke-bpf reload
	[ "$status" -eq 0 ]
	run revoke-bpf status
	echo "$output"
	[ "${lines[6]}" = "seats        seat0: who has a session there but not the active one is paused on its uaccess devices" ]

	session alice tty2
	session bob tty3
	a=$(session_of alice)
	b=$(session_of bob)
	[ -n "$a" ] && [ -n "$b" ]

	# alice's VT comes to the front: bob, inactive, is paused
	loginctl activate "$a"
	switched_to alice
	[ "$(seat_pauses)" = "bob ENODEV seat" ]
	ask alice open;		[ "$output" = "open: ok" ]
	ask alice card_info;	[ "$output" = "card_info: ok Loopback" ]

	# bob's session activated: alice's descriptor is paused, bob works
	journal_mark
	loginctl activate "$b"
	switched_to bob
	[ "$(seat_pauses)" = "alice ENODEV seat" ]
	ask alice card_info;	[ "$output" = "card_info: ENODEV" ]
	ask alice read;		[ "$output" = "read: ENODEV" ]
	ask bob open;		[ "$output" = "open: ok" ]
	ask bob card_info;	[ "$output" = "card_info: ok Loopback" ]

	# a sound card plugged in meanwhile is alice's no more than the others
	modprobe snd-dummy
	udevadm settle -t 20
	plugged=$(control_of Dummy)
	until_true test "$(seat_pauses "$plugged")" = "alice ENODEV seat"

	# back to alice: the same descriptor works again, bob's is paused
	journal_mark
	loginctl activate "$a"
	switched_to alice
	[ "$(seat_pauses)" = "bob ENODEV seat" ]
	[ "$(seat_pauses "$plugged")" = "bob ENODEV seat" ]
	ask alice card_info;	[ "$output" = "card_info: ok Loopback" ]
	ask bob card_info;	[ "$output" = "card_info: ENODEV" ]

	# an admin's pause of what the seat paused is the admin's from then
	# on: bob's device, paused by the seat, paused by the admin too; back
	# to bob, it stays paused
	revoke-bpf pause --uid "$(id -u bob)" --errno EIO "$DEV" >/dev/null
	[ "$(seat_pauses)" = "bob EIO admin" ]
	journal_mark
	loginctl activate "$b"
	switched_to bob
	ask bob card_info;	[ "$output" = "card_info: EIO" ]
	revoke-bpf resume --uid "$(id -u bob)" "$DEV" >/dev/null
	ask bob card_info;	[ "$output" = "card_info: ok Loopback" ]
	journal_mark
	loginctl activate "$a"
	switched_to alice

	# an admin's pause is the admin's: the seat neither lifts it nor
	# pauses over it
	revoke-bpf pause --uid "$(id -u alice)" --errno EIO "$DEV" >/dev/null
	journal_mark
	loginctl activate "$b"
	switched_to bob
	[ "$(seat_pauses)" = "alice EIO admin" ]
	ask alice card_info;	[ "$output" = "card_info: EIO" ]
	revoke-bpf resume --uid "$(id -u alice)" "$DEV" >/dev/null

	# the seat line gone from the policy: its pauses go with it
	journal_mark
	loginctl activate "$a"
	switched_to alice
	: > "$POLICY"
	revoke-bpf reload >/dev/null
	[ -z "$(revoke-bpf --json list | jq -r '.[] | select(.kind == "pause") | .user')" ]
	ask bob card_info;	[ "$output" = "card_info: ok Loopback" ]
}

# opens USER: USER's fdops opened the device (logind's ACL is there)
opens() {
	ask "$1" open
	[ "$output" = "open: ok" ]
}

# root_fdops: fdops as root on $DEV, asked as "root"; ended by teardown
root_fdops() {
	mkfifo "$D/root.in"
	"$FDOPS" "$DEV" "$D/root.in" > "$D/root.out" 3>&- &
	ROOT_FDOPS=$!
	until_true grep -qs '^ready' "$D/root.out"
}

# pauses_for USER: the pauses of USER, "KIND WHAT ERRNO CAUSE REVOKED" each,
# a device's WHAT its rdev and tag, a tag's "uaccess@SEAT"
pauses_for() {
	revoke-bpf --json list | jq -r --argjson u "$(id -u "$1")" \
		'.[] | select((.kind == "pause" or .kind == "pause_class") and .uid == $u) |
		 "\(.kind) \(.rdev // "-") \(.tag)@\(.seat) \(.errno) \(.cause) \(.revoked)"' | sort
}

@test "pause --tag uaccess by hand, no seat followed: A is paused on seat0's uaccess devices, one tagged later too; B and root are not; resume gives A's descriptor back" {
	local card a b plugged dummy
	card=$(grep -lx Loopback /sys/class/sound/card*/id)
	card=${card%/id}
	DEV=/dev/snd/controlC${card##*card}
	RDEV=$(control_of Loopback)
	udevadm info -q property "$DEV" | grep -qx 'TAGS=.*:uaccess:.*'
	# the card plugged in later is snd-dummy's: out, if the test before
	# loaded it
	modprobe -r snd-dummy || true
	[ ! -e /sys/module/snd_dummy ]
	udevadm settle -t 20
	: > "$POLICY"
	revoke-bpf reload >/dev/null

	# each user opens the device while its session is the active one
	# (logind's ACL), and keeps it
	session alice tty2
	session bob tty3
	a=$(session_of alice)
	b=$(session_of bob)
	loginctl activate "$a"
	until_true opens alice
	loginctl activate "$b"
	until_true opens bob
	root_fdops
	ask root open;		[ "$output" = "open: ok" ]

	run revoke-bpf pause --uid "$(id -u alice)" --tag uaccess
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "tag uaccess seat0: paused for uid $(id -u alice) (alice), ENODEV; devices tagged later too" ]
	[[ ${lines[1]} =~ ^\ \ [1-9][0-9]*\ devices?\ of\ it\ paused$ ]]
	[ "$(pauses_for alice | grep -c " $RDEV uaccess@seat0 ENODEV admin false$")" -eq 1 ]
	[ "$(pauses_for alice | grep -c "^pause_class - uaccess@seat0 ENODEV admin false$")" -eq 1 ]
	run revoke-bpf list
	[[ $output == *$'\n'"alice            tag uaccess seat0  ENODEV       - "*" cause=admin, new devices too"* ]]
	[ -z "$(pauses_for bob)" ]

	ask alice card_info;	[ "$output" = "card_info: ENODEV" ]
	ask alice read;		[ "$output" = "read: ENODEV" ]
	ask bob card_info;	[ "$output" = "card_info: ok Loopback" ]
	ask root card_info;	[ "$output" = "card_info: ok Loopback" ]

	# a card plugged in during the pause: udev tags its control uaccess,
	# and alice is paused on it too
	modprobe snd-dummy
	udevadm settle -t 20
	plugged=$(control_of Dummy)
	until_true test "$(pauses_for alice | grep -c " $plugged uaccess@seat0 ENODEV admin false$")" -eq 1

	run revoke-bpf resume --uid "$(id -u alice)" --tag uaccess --seat seat0
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "tag uaccess seat0: resumed for uid $(id -u alice) (alice)" ]
	[[ ${lines[1]} =~ ^\ \ [1-9][0-9]*\ devices\ of\ it\ resumed$ ]]
	[ "${#lines[@]}" -eq 2 ]
	[ -z "$(pauses_for alice)" ]
	ask alice card_info;	[ "$output" = "card_info: ok Loopback" ]
	ask bob card_info;	[ "$output" = "card_info: ok Loopback" ]
	ask root card_info;	[ "$output" = "card_info: ok Loopback" ]
}
