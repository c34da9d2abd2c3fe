#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf as users install it: the Debian package (make deb) installed
# by apt in a Debian system booted with systemd as PID 1, udevd and
# journald (tests/vm/run --system); revoke-bpfd started by systemd under
# the shipped unit, its sandbox included.  Each test is a job of the
# daemon that the unit must allow, seen from outside: as a user, through
# systemctl, journalctl, udev and apt.  The tests build on each other in
# order (one boot, one install): the last ones stop the daemon and remove
# the package.

load lib

DISK_POLICY='revoke subsystem=block DEVNAME=/dev/sd* DEVTYPE=disk'
POLICY=/etc/revoke-bpf/policy.conf

setup_file() {
	local out
	out=$(apt-get install -y -q "$DEBS"/revoke-bpf_*_amd64.deb \
		"$DEBS"/librevoke-dev_*_amd64.deb 2>&1) || { echo "$out" >&2; return 1; }
	# scsi_debug's disk, sda, for the removals below; loop for a filesystem
	modprobe scsi_debug
	udevadm settle -t 20
}

setup() {
	D=$(mktemp -d /tmp/system.XXXXXX)
	chmod 755 "$D"	# holders run as nobody
	KILL=()
	journal_mark
}

teardown() {
	kill_holders
	umount "$D/m" 2>/dev/null || true
	# a removed disk's entry, which its next removal would otherwise find
	revoke-bpf del --rdev 8:0 --block >/dev/null 2>&1 || true
}

# rescan: let scsi_debug's disk come back, as sda.
rescan() {
	local h
	for h in /sys/class/scsi_host/host*/scan; do
		echo "- - -" > "$h"
	done
	udevadm settle -t 20
	until_true test -b /dev/sda
}

# remove_disk: hold sda, delete it as a hot-unplug does; sets HOLDER.
remove_disk() {
	[ -b /dev/sda ] || rescan
	bg bash -c 'exec 7</dev/sda; exec sleep 1000'
	HOLDER=$BG
	until_true test -e "/proc/$HOLDER/fd/7"
	echo 1 > /sys/block/sda/device/delete
}

# as_nobody CMD...: run CMD as uid 65534, its output in $D/out, until it
# says "ready"; its pid first in KILL.
as_nobody() {
	"$ASUSER" 65534 "$@" >"$D/out" 2>&1 3>&- &
	KILL+=($!)
	until_true grep -q '^ready' "$D/out"
}

# ext4_at DIR: a new ext4 filesystem mounted at DIR, with a file "data".
ext4_at() {
	truncate -s 32M "$D/img"
	mkfs.ext4 -q "$D/img"
	mkdir -p "$1"
	mount -o loop "$D/img" "$1"
	echo "some content" > "$1/data"
	mkdir "$1/d"
	chmod -R a+rwX "$1"
}

@test "apt installs the package, and systemd starts revoke-bpfd enabled and idle" {
	[ "$(systemctl is-enabled "$UNIT")" = enabled ]
	until_true active
	[ "$(systemctl show -p StatusText --value "$UNIT")" = "idle: nothing revoked (programs detached)" ]
	# what the package put where systemd and udev look
	[ "$(systemctl show -p FragmentPath --value "$UNIT")" = /lib/systemd/system/revoke-bpfd.service ]
	[ -e /lib/udev/rules.d/60-revoke-bpf.rules ]
	dpkg-query -W -f '${Conffiles}\n' revoke-bpf | grep -q '^ /etc/revoke-bpf/policy.conf '
}

@test "the default policy kills another user's traced holder with SIGKILL, and names it" {
	local f child
	f=$D/file
	echo data > "$f"
	chmod 666 "$f"
	as_nobody "$HOSTILE" traced "$f"
	child=$(sed -n 's/^ready pid=[0-9]* child=//p' "$D/out")
	KILL+=("$child")
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "  killed: pid $child (hostile) user nobody: stop: traced_by_pid_${KILL[0]}" ]
	until_true grep -qx "child ended: signal KILL" "$D/out"
	revoke-bpf del "$f" >/dev/null
}

@test "a holder confined by seccomp is released, not killed: its filter is suspended for the injected calls" {
	local f
	f=$D/file
	echo data > "$f"
	chmod 666 "$f"
	as_nobody "$HOLDER" --seccomp mmap "$f"
	grep -q '^Seccomp:[[:space:]]*2' "/proc/${KILL[0]}/status"
	run revoke-bpf add "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  holders 1: fds 1, mappings 1, waiters 0; woken 0, unmapped 1, released 0; failed 0" ]
	until_true grep -qx "SIGBUS si_code=BUS_ADRERR" "$D/out"
	revoke-bpf del "$f" >/dev/null
}

@test "umount of a busy filesystem in the host's mount namespace ends gone" {
	local cw
	ext4_at "$D/m"
	bg "$ASUSER" 65534 bash -c 'cd "$0/d" && exec 7<"$0/data" && exec sleep 1000' "$D/m"
	cw=$BG
	until_true cwd_is "$cw" "$D/m/d"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^  filesystem [0-9]*:[0-9]*: gone$"
	! grep -q " $D/m " /proc/self/mountinfo
	# the holder lives on, moved to /
	[ "$(readlink "/proc/$cw/cwd")" = / ]
}

@test "umount of a filesystem also mounted in a second mount namespace ends gone in both" {
	local ns
	ext4_at "$D/m"
	bg unshare -m --propagation private sleep 1000
	ns=$BG
	until_true grep -q " $D/m " "/proc/$ns/mountinfo"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^  filesystem [0-9]*:[0-9]*: gone$"
	! grep -q " $D/m " /proc/self/mountinfo
	! grep -q " $D/m " "/proc/$ns/mountinfo"
}

@test "with source netlink in the policy, a removed disk is revoked from the kernel's own uevents" {
	printf 'source netlink\n%s\n' "$DISK_POLICY" > "$POLICY"
	run revoke-bpf reload
	echo "$output"
	[ "$output" = "reloaded: 1 rule from $POLICY (device removals from netlink)" ]
	remove_disk
	wait_journal "uevent remove block 8:0: policy line 2, mode release"
	wait_journal "pipeline rdev=8:0: holders=1 fds=1"
	revoke-bpf list | grep -Eq '^block +8:0 +- +[0-9]+ +[0-9-]+ [0-9:]+ +- +\(removed\) cause=netlink$'
	ls -l "/proc/$HOLDER/fd/7" | grep -qF '/memfd:revoke-bpf-dead (deleted)'
}

@test "with the installed udev rule and udevd, a removed disk is revoked" {
	printf '%s\n' "$DISK_POLICY" > "$POLICY"
	run revoke-bpf reload
	[ "$output" = "reloaded: 1 rule from $POLICY (device removals from udev)" ]
	remove_disk
	wait_journal "uevent remove block 8:0: policy line 1, mode release"
	wait_journal "pipeline rdev=8:0: holders=1 fds=1"
	revoke-bpf list | grep -Eq '^block +8:0 +- +[0-9]+ +[0-9-]+ [0-9:]+ +- +\(removed\) cause=udev$'
	ls -l "/proc/$HOLDER/fd/7" | grep -qF '/memfd:revoke-bpf-dead (deleted)'
}

@test "systemctl reload rereads the policy" {
	printf '%s\n%s\n' "$DISK_POLICY" 'revoke subsystem=input' > "$POLICY"
	systemctl reload "$UNIT"
	wait_journal "policy $POLICY: 2 rules, source udev"
	run revoke-bpf reload
	[ "$output" = "reloaded: 2 rules from $POLICY (device removals from udev)" ]
}

@test "systemctl reload of a refused policy fails, and journalctl -p err shows it with its line and no prefix" {
	printf 'revoke mode=sometimes\n' > "$POLICY"
	# the reload fails, and says why
	run systemctl reload "$UNIT"
	[ "$status" -ne 0 ]
	journal_has "$POLICY: line 1: mode must be given once" 3
	# the journal names the unit: no "revoke-bpfd: " in the message
	! journal_since | grep -q '^revoke-bpfd: '
	# what is not an error is not logged as one: its start's notice
	CURSOR= journal_has "ready, listening on /run/revoke-bpf/control.sock" 6
	! CURSOR= journal_has "ready, listening" 3
	printf '%s\n' "$DISK_POLICY" > "$POLICY"
	systemctl reload "$UNIT"
}

# prom_ino: the inode of the metrics file, or none
prom_ino() { stat -c %i "$PROM" 2>/dev/null || echo none; }

# prom_replaced INO: the metrics file is no longer inode INO
prom_replaced() { [ "$(prom_ino)" != "$1" ]; }

@test "revoke-bpf-metrics: the timer is shipped disabled; it and its service write revoke-bpf.prom by a rename, nothing left beside it; promtool passes it" {
	local ino
	PROM=/var/lib/prometheus/node-exporter/revoke-bpf.prom
	[ -x "${REVOKE_PROMTOOL:-}" ] || { echo "REVOKE_PROMTOOL must name promtool (tests/system/suite)"; false; }
	[ "$(systemctl is-enabled revoke-bpf-metrics.timer)" = disabled ]
	[ "$(systemctl is-active revoke-bpf-metrics.timer)" = inactive ]
	# without node_exporter's folder the service does nothing
	systemctl start revoke-bpf-metrics.service
	[ "$(systemctl show -p ConditionResult --value revoke-bpf-metrics.service)" = no ]
	echo data > "$D/f"
	revoke-bpf add "$D/f" >/dev/null
	mkdir -p /var/lib/prometheus/node-exporter
	# a oneshot: start returns once it has run
	systemctl start revoke-bpf-metrics.service
	[ "$(systemctl show -p Result --value revoke-bpf-metrics.service)" = success ]
	[ "$(ls -A /var/lib/prometheus/node-exporter)" = revoke-bpf.prom ]
	grep -Fx 'revoke_bpf_entries{kind="file"} 1' "$PROM"
	grep -Fx 'revoke_bpf_enforcement_attached 1' "$PROM"
	grep -Fx 'revoke_bpf_bpf_lsm_active 1' "$PROM"
	[ "$(stat -c '%a %U' "$PROM")" = "644 root" ]
	run "$REVOKE_PROMTOOL" check metrics < "$PROM"
	[ "$status" -eq 0 ]
	# the timer runs it at once: a new file (a rename), not the old one
	# rewritten
	ino=$(prom_ino)
	systemctl start revoke-bpf-metrics.timer
	until_true prom_replaced "$ino"
	systemctl stop revoke-bpf-metrics.timer
	[ "$(ls -A /var/lib/prometheus/node-exporter)" = revoke-bpf.prom ]
	revoke-bpf del "$D/f" >/dev/null
	rm -r /var/lib/prometheus
}

# status_says REGEX: the unit's status text matches REGEX, whole.
status_says() {
	[[ $(systemctl show -p StatusText --value "$UNIT") =~ ^$1$ ]]
}

@test "systemctl stop keeps enforcing: a revoked file stays revoked" {
	echo secret > /srv/secret
	revoke-bpf add /srv/secret >/dev/null
	# what systemctl status shows, as the daemon sees it
	until_true status_says "enforcing: [0-9]+ files?, [0-9]+ devices? revoked"
	systemctl stop "$UNIT"
	[ "$(systemctl is-active "$UNIT")" = inactive ]
	run cat /srv/secret
	[ "$status" -eq 1 ]
	[ "$output" = "cat: /srv/secret: Input/output error" ]
}

@test "apt remove lifts every revocation, and says so" {
	run apt-get remove -y -q revoke-bpf
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^revoke-bpf: revoke-bpfd was not running; removed the [0-9]* objects pinned in /sys/fs/bpf/revoke-bpf: every revocation was lifted"
	[ ! -e /sys/fs/bpf/revoke-bpf ]
	# the links go with their last pin, a moment later on some kernels
	until_true cat /srv/secret
	[ "$(cat /srv/secret)" = secret ]
}
