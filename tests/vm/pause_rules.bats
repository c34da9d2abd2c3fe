#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf pause --uid U and resume (issue 35), on pause.bash's real
# devices: a new open, a poller, a device plugged in during a pause and
# a restart, who is the user (slices, a root broker, uid 0), a pause
# beside a revocation, and pause --revoke.

load lib
load pause

@test "A's new open of a paused node fails with ENODEV, B's works; --errno EIO gives EIO" {
	client a $A "$EV_NODE"
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	run "$ASUSER" $A "$DEVCLIENT" "$EV_NODE" </dev/null
	[ "$status" -eq 1 ]
	is "open: ENODEV"
	run "$ASUSER" $B "$DEVCLIENT" "$EV_NODE" <<<ioctl
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "ioctl: ok" ]
	resume --uid $A
	[ "$status" -eq 0 ]
	pause --uid $A --errno EIO "$EV_NODE"
	[ "$status" -eq 0 ]
	run "$ASUSER" $A "$DEVCLIENT" "$EV_NODE" </dev/null
	[ "$status" -eq 1 ]
	is "open: EIO"
	ask a ioctl
	is "ioctl: EIO"
}

@test "pause --uid A wakes A's blocked poller once, with POLLIN|POLLERR; its next poll blocks, and a key after resume wakes it" {
	client a $A "$EV_NODE"
	begin a poll
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	finish a
	is "poll: POLLIN|POLLERR"
	ask a read
	is "read: ENODEV"
	# once: the next poll sleeps, it does not spin on a ready descriptor
	begin a poll
	resume --uid $A
	[ "$status" -eq 0 ]
	feed uinput key
	finish a
	is "poll: POLLIN"
	ask a read
	is "read: ok 72"
}

@test "pause --subsystem input: a keyboard plugged in during the pause is paused for A too, and the pause outlives a restart of revoke-bpfd" {
	local node rdev i
	pause --uid $A --subsystem input
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "class input: paused for uid $A, ENODEV; devices added later too" ]
	[[ ${lines[1]} =~ ^\ \ [1-9][0-9]*\ devices?\ of\ it\ paused$ ]]
	# a second keyboard, plugged in while the pause holds
	FEED=$D start_feed uinput node rdev
	chmod 0666 "$node"
	for i in $(seq 1 100); do
		revoke-bpf -j list | jq -e --arg r "$rdev" \
			'any(.[]; .kind == "pause" and .rdev == $r and .uid == 1001 and .subsystem == "input")' \
			>/dev/null && break
		sleep 0.1
	done
	run "$ASUSER" $A "$DEVCLIENT" "$node" </dev/null
	[ "$status" -eq 1 ]
	is "open: ENODEV"
	run "$ASUSER" $B "$DEVCLIENT" "$node" <<<ioctl
	[ "${lines[1]}" = "ioctl: ok" ]
	# revoke-bpfd killed: the pinned pause holds; restarted, it is listed
	stop_daemon KILL
	run "$ASUSER" $A "$DEVCLIENT" "$node" </dev/null
	is "open: ENODEV"
	start_daemon
	run revoke-bpf -j list
	[ "$(jq -c --arg r "$rdev" '[.[] | select(.rdev == $r) | .kind]' <<<"$output")" = '["pause"]' ]
	resume --uid $A --subsystem input
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "class input: resumed for uid $A" ]
	run "$ASUSER" $A "$DEVCLIENT" "$node" <<<ioctl
	[ "${lines[1]}" = "ioctl: ok" ]
	echo quit 1<>"$D/uinput.in"
	for i in $(cat "$D/pids"); do KILL+=("$i"); done
}

@test "a task of another uid under A's user-1001.slice is A's; root's broker handing A a descriptor it opened does not spare A; uid 0 cannot be paused" {
	local slice=/sys/fs/cgroup/user.slice/user-$A.slice cpid
	# the guest has no systemd: the hierarchy it would make, by hand
	grep -q "^[^ ]* /sys/fs/cgroup cgroup2 " /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup
	mkdir -p "$slice"
	# a subuid of A's (a rootless container's), in A's slice
	mkfifo "$D/c.in"
	command sleep 100000 >"$D/c.in" 3>&- &
	KILL+=($!)
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" 100000 "$3" "$4"' sh \
		"$slice" "$ASUSER" "$DEVCLIENT" "$EV_NODE" <"$D/c.in" >"$D/c.out" 2>&1 3>&- &
	cpid=$!
	KILL+=("$cpid")
	client_ready c
	# root opens the node and hands it to A (as logind's TakeDevice does)
	client r 0 "$EV_NODE"
	client x $A recv "$D/s/sock2"
	ask r "send $D/s/sock2"
	is "send: ok"
	client_ready x
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	ask c ioctl
	is "ioctl: ENODEV"
	ask x ioctl
	is "ioctl: ENODEV"
	ask r ioctl
	is "ioctl: ok"
	run revoke-bpf pause --uid 0 "$EV_NODE"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: pause: uid 0 cannot be paused: that is root, revoke-bpfd among it; to cut a device off for everyone, use add --rdev" ]
	resume --uid $A
	ask c ioctl
	is "ioctl: ok"
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null || true
	rmdir "$slice" "${slice%/*}"
}

@test "resume --uid A never lifts an add --rdev revocation of the same device" {
	client a $A "$EV_NODE"
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	run revoke-bpf add --rdev "$EV_RDEV" --char --no-release
	[ "$status" -eq 0 ]
	resume --uid $A
	[ "$status" -eq 0 ]
	ask a ioctl
	is "ioctl: EIO"
	ask a open
	is "open: EIO"
	run revoke-bpf del --rdev "$EV_RDEV" --char
	[ "$status" -eq 0 ]
	ask a open
	is "open: ok"
}

@test "pausing A on a revoked device un-revokes nothing, for A or for B" {
	client a $A "$EV_NODE"
	client b $B "$EV_NODE"
	run revoke-bpf add --rdev "$EV_RDEV" --char --no-release
	[ "$status" -eq 0 ]
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	ask a ioctl
	is "ioctl: ENODEV"
	ask b ioctl
	is "ioctl: EIO"
	resume --uid $A
	ask a ioctl
	is "ioctl: EIO"
	ask b ioctl
	is "ioctl: EIO"
	run revoke-bpf del --rdev "$EV_RDEV" --char
	[ "$status" -eq 0 ]
}

# ---- pause --revoke -------------------------------------------------------------

@test "pause --revoke --uid A of snd-aloop's mmap'd capture: exit 0, A's ring faults with SIGBUS and its descriptor is released; B captures on; after resume A opens again" {
	client a $A pcm-mmap "$PCM_NODE"
	client b $B pcm-capture "$PCM_NODE"
	ask a mmap-read
	[[ $output =~ ^mmap-read:\ advanced\ [1-9][0-9]*$ ]]
	pause --uid $A --revoke "$PCM_NODE"
	[ "$status" -eq 0 ]
	expect_lines "char device $PCM_RDEV: paused and revoked for uid $A, ENODEV: 1 descriptor released, 3 mappings replaced" \
		"  holders 1: fds 1, mappings 3, waiters 0; woken 0, unmapped 3, released 1; failed 0"
	ask a mmap-read
	is "mmap-read: SIGBUS BUS_ADRERR"
	# its descriptor is a dead file now (not the device: no ioctl of its)
	ask a read
	is "read: EIO"
	ask b read
	is "read: ok 480"
	resume --uid $A
	[ "$status" -eq 0 ]
	is "char device $PCM_RDEV: resumed for uid $A"
	ask a open
	is "open: ok"
	run "$ASUSER" $A "$DEVCLIENT" pcm-mmap "$PCM_NODE" <<<mmap-read
	[[ ${lines[-1]} =~ ^mmap-read:\ advanced\ [1-9][0-9]*$ ]]
}

@test "pause --revoke --uid A of an evdev node: A's blocked read ends, its descriptor is released, B reads on; --json says so; after resume A reopens and reads" {
	client a $A "$EV_NODE"
	client b $B "$EV_NODE"
	begin a read
	run revoke-bpf --json pause --uid $A --revoke "$EV_NODE"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.result, .revoke, .devices[0].change, .devices[0].revoked, .devices[0].released, .devices[0].unmapped, .report.fds, .report.released, .report.woken, .failures]' <<<"$output")" = \
		'["paused",true,"added",true,1,0,1,1,1,[]]' ]
	# list remembers a pause --revoke as one; B's plain pause is not
	pause --uid $B "$EV_NODE"
	[ "$status" -eq 0 ]
	[ "$(revoke-bpf --json list | jq -c --arg r "$EV_RDEV" \
		'[.[] | select(.kind == "pause" and .rdev == $r) | [.uid, .revoked]] | sort')" = "[[$A,true],[$B,false]]" ]
	run revoke-bpf list
	[ "$(grep -c "^[^ ]* *char $EV_RDEV .* cause=admin, revoked$" <<<"$output")" -eq 1 ]
	resume --uid $B
	[ "$status" -eq 0 ]
	finish a
	is "read: EIO"
	ask a read
	is "read: EIO"
	feed uinput key
	ask b read
	is "read: ok 72"
	resume --uid $A
	[ "$status" -eq 0 ]
	client a2 $A "$EV_NODE"
	begin a2 read
	feed uinput key
	finish a2
	is "read: ok 72"
}
