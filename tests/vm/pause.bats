#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf pause --uid U and resume (issue 35) on real devices in the
# guest: an evdev keyboard (uinput), a hidraw device (uhid), an ALSA
# capture stream (snd-aloop, read and mmap'd), a V4L2 capture with
# MMAP buffers (vivid) and a usbfs node (/dev/bus/usb/BBB/DDD, major
# 189: g_serial's gadget enumerated on dummy_hcd's host controller; the
# Debian kernels 6.1, 6.12 and newest build no g_zero, but all three
# have dummy_hcd and g_serial).  One device of each kind for the whole
# file, made in setup_file; user A (uid 1001) is paused, user B (uid
# 1002) and root are not.
#
# Each client is a devclient (tests/helpers/devclient.c) run as its user
# through asuser: it opens its node once, then runs one command per line
# of a FIFO and prints one line per command ("read: ok 72", "read:
# ENODEV").  devfeed (tests/helpers/devfeed.c) makes the evdev and
# hidraw devices and sends their data when told: a test controls when a
# blocked read returns.
#
# The first tests check the fixtures themselves, with no pause; the
# others the pause, and fail until revoke-bpf has it.

load lib

DEVFEED=$REPO/build/tests/devfeed
DEVCLIENT=$REPO/build/tests/devclient
A=1001
B=1002

# ---- the devices, for the whole file ----------------------------------------

# start_feed KIND NODEVAR RDEVVAR: "devfeed KIND" as root, its commands
# from the FIFO $FEED/KIND.in (kept open by a writer, so that a test's
# "echo key >" is not its end-of-file), its lines in $FEED/KIND.out; once
# it is ready, its node in NODEVAR and its MAJ:MIN in RDEVVAR.
start_feed() {
	local kind=$1
	mkfifo "$FEED/$kind.in"
	command sleep 100000 >"$FEED/$kind.in" 3>&- &
	echo $! >>"$FEED/pids"
	"$DEVFEED" "$kind" <"$FEED/$kind.in" >"$FEED/$kind.out" 2>&1 3>&- &
	echo $! >>"$FEED/pids"
	wait_ready_line "$FEED/$kind.out" "devfeed $kind" || return
	printf -v "$2" %s "$(sed -n 's/^ready node=\(.*\) rdev=.*$/\1/p' "$FEED/$kind.out")"
	printf -v "$3" %s "$(sed -n 's/^ready node=.* rdev=\(.*\)$/\1/p' "$FEED/$kind.out")"
	[ -c "${!2}" ]
}

# feed KIND COMMAND: have devfeed KIND send one event (key, input).  The
# FIFOs are written through a read-write open, which never blocks: a
# helper that died fails the test by its silence, it does not hang it.
feed() { echo "$2" 1<>"$FEED/$1.in"; }

# sysfs_node CLASS ATTR VALUE: /dev/NAME of the device of CLASS whose ATTR
# reads VALUE (the sound card's id, the video device's name)
sysfs_node() {
	local d
	for d in /sys/class/"$1"/*; do
		[ "$(cat "$d/$2" 2>/dev/null)" = "$3" ] && { echo "${d##*/}"; return 0; }
	done
	echo "no $1 device with $2 '$3'" >&2
	return 1
}

# usb_node VENDOR PRODUCT: /dev/bus/usb/BBB/DDD of the USB device
# VENDOR:PRODUCT, once the hub has enumerated it (10 s at most)
usb_node() {
	local d i
	for i in $(seq 1 200); do
		for d in /sys/bus/usb/devices/*; do
			[ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = "$1:$2" ] &&
				[ -c "/dev/$(sed -n 's/^DEVNAME=//p' "$d/uevent")" ] &&
				{ echo "/dev/$(sed -n 's/^DEVNAME=//p' "$d/uevent")"; return 0; }
		done
		sleep 0.05
	done
	echo "no USB device $1:$2 in /sys/bus/usb/devices" >&2
	return 1
}

setup_file() {
	local card video
	unload_all
	export FEED=$BATS_FILE_TMPDIR
	start_feed uinput EV_NODE EV_RDEV
	start_feed uhid HID_NODE HID_RDEV
	# snd-aloop's card, its first capture device; vivid's capture node
	card=$(sysfs_node sound id Loopback)
	PCM_NODE=/dev/snd/pcmC${card#card}D0c
	video=$(sysfs_node video4linux name vivid-000-vid-cap)
	VID_NODE=/dev/$video
	[ -c "$PCM_NODE" ] && [ -c "$VID_NODE" ]
	PCM_RDEV=$(printf '%d:%d' 0x$(stat -c %t "$PCM_NODE") 0x$(stat -c %T "$PCM_NODE"))
	# g_serial's gadget (NetChip's test ids, 0525:a4a7)
	USB_NODE=$(usb_node 0525 a4a7)
	USB_RDEV=$(printf '%d:%d' 0x$(stat -c %t "$USB_NODE") 0x$(stat -c %T "$USB_NODE"))
	# the seat's devices are the users' (logind's ACL, in short)
	chmod 0666 "$EV_NODE" "$HID_NODE" "$PCM_NODE" "$VID_NODE" "$USB_NODE"
	export EV_NODE EV_RDEV HID_NODE HID_RDEV PCM_NODE PCM_RDEV VID_NODE USB_NODE USB_RDEV
	start_daemon
}

teardown_file() {
	local p
	feed uinput quit 2>/dev/null || true
	feed uhid quit 2>/dev/null || true
	for p in $(cat "$FEED/pids" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null || true
	done
	unload_all
}

# ---- the clients, for one test ------------------------------------------------

setup() {
	D=$(mktemp -d /tmp/pause.XXXXXX)
	# the users' unix sockets, in a directory they can all reach and write
	chmod 0755 "$D"
	mkdir -m 1777 "$D/s"
	KILL=()
	declare -gA CPID=() CFD=() MARK=()
}

teardown() {
	kill_holders
	revoke-bpf resume --uid $A >/dev/null 2>&1 || true
	revoke-bpf resume --uid $B >/dev/null 2>&1 || true
	rm -rf "$D"
}

# client NAME UID ARGS...: start "devclient ARGS..." as UID, its commands
# from the FIFO $D/NAME.in (kept open by a writer), its lines in
# $D/NAME.out, and wait until it is ready (then CPID[NAME] and CFD[NAME]
# are its pid and descriptor); "recv SOCK": until it listens, and
# client_ready once it has been sent a descriptor.
client() {
	local name=$1 uid=$2
	shift 2
	mkfifo "$D/$name.in"
	command sleep 100000 >"$D/$name.in" 3>&- &
	KILL+=($!)
	"$ASUSER" "$uid" "$DEVCLIENT" "$@" <"$D/$name.in" >"$D/$name.out" 2>&1 3>&- &
	KILL+=($!)
	if [ "$1" = recv ]; then
		wait_line "$D/$name.out" "listening pid=$! sock=$2"
	else
		client_ready "$name"
	fi
}

# client_ready NAME: wait until client NAME says ready; sets CPID, CFD
client_ready() {
	wait_ready_line "$D/$1.out" "devclient $1" || return
	CPID[$1]=$(sed -n 's/^ready pid=\([0-9]*\) fd=[0-9]*$/\1/p' "$D/$1.out")
	CFD[$1]=$(sed -n 's/^ready pid=[0-9]* fd=\([0-9]*\)$/\1/p' "$D/$1.out")
}

# answer NAME N: wait (10 s at most) for the first result line of client
# NAME after its line N ("reading", "polling" and "dequeueing" are not
# results); it goes in $output.
answer() {
	local i
	for i in $(seq 1 200); do
		output=$(tail -n +"$(($2 + 1))" "$D/$1.out" |
			 grep -vxE 'reading|polling|dequeueing' | head -n1)
		[ -z "$output" ] || return 0
		sleep 0.05
	done
	echo "client $1 gave no answer after its line $2:" >&2
	sed 's/^/  /' "$D/$1.out" >&2
	return 1
}

# ask NAME COMMAND: run COMMAND in client NAME; its line in $output
ask() {
	local n
	n=$(wc -l <"$D/$1.out")
	echo "$2" 1<>"$D/$1.in"
	answer "$1" "$n"
}

# begin NAME COMMAND: start the blocking COMMAND (read, poll, dqbuf) in
# client NAME and wait until it is blocked in its system call on the
# client's descriptor; "finish NAME" waits for its line.
begin() {
	local name=$1 n i fd re s
	n=$(wc -l <"$D/$name.out")
	MARK[$name]=$n
	echo "$2" 1<>"$D/$name.in"
	fd=$(printf '0x%x' "${CFD[$name]}")
	case $2 in
	read) re="^(0|16) $fd " ;;	# read(2), or READI_FRAMES (ioctl)
	poll) re='^(7|271) ' ;;		# poll(2) or ppoll(2)
	*) re="^16 $fd " ;;		# an ioctl (DQBUF)
	esac
	for i in $(seq 1 200); do
		s=$(cat "/proc/${CPID[$name]}/syscall" 2>/dev/null) || break
		[[ $s =~ $re ]] && return 0
		sleep 0.05
	done
	echo "client $name is not blocked in '$2' (syscall: $s):" >&2
	sed 's/^/  /' "$D/$name.out" >&2
	return 1
}

finish() { answer "$1" "${MARK[$1]}"; }

# is LINE: $output is LINE (both shown if not)
is() { expect_lines "$1"; }

# pause ARGS...: revoke-bpf pause ARGS..., its output shown, in $output
pause() {
	run revoke-bpf pause "$@"
	echo "revoke-bpf pause $*: exit $status"
	echo "$output"
}

resume() {
	run revoke-bpf resume "$@"
	echo "revoke-bpf resume $*: exit $status"
	echo "$output"
}

# ---- the fixtures, without any pause ----------------------------------------

@test "fixture: a blocked evdev read returns the key uinput sends, and ioctl works" {
	client a $A "$EV_NODE"
	begin a read
	feed uinput key
	finish a
	is "read: ok 72"
	ask a ioctl
	is "ioctl: ok"
}

@test "fixture: a blocked evdev poll returns POLLIN when a key comes" {
	client a $A "$EV_NODE"
	begin a poll
	feed uinput key
	finish a
	is "poll: POLLIN"
	ask a read
	is "read: ok 72"
}

@test "fixture: a blocked hidraw read returns the report uhid sends, and ioctl works" {
	client a $A "$HID_NODE"
	begin a read
	feed uhid input
	finish a
	is "read: ok 8"
	ask a ioctl
	is "ioctl: ok"
}

@test "fixture: snd-aloop's capture stream reads a period at a time with READI_FRAMES" {
	client a $A pcm-capture "$PCM_NODE"
	ask a read
	is "read: ok 480"
	ask a read
	is "read: ok 480"
	ask a ioctl
	is "ioctl: ok"
}

@test "fixture: snd-aloop's mmap'd ring advances with no system call on the device" {
	client a $A pcm-mmap "$PCM_NODE"
	ask a mmap-read
	[[ $output =~ ^mmap-read:\ advanced\ [1-9][0-9]*$ ]]
	ask a mmap-read
	[[ $output =~ ^mmap-read:\ advanced\ [1-9][0-9]*$ ]]
}

@test "fixture: vivid's MMAP buffers are dequeued with frames, and read through the mapping" {
	local first
	client a $A v4l2-mmap "$VID_NODE"
	ask a dqbuf
	echo "first: $output"
	[[ $output =~ ^dqbuf:\ ok\ seq\ ([0-9]+)$ ]]
	first=${BASH_REMATCH[1]}
	ask a dqbuf
	echo "second: $output"
	[[ $output =~ ^dqbuf:\ ok\ seq\ ([0-9]+)$ ]]
	# vivid numbers frames by the time since STREAMON: under TCG two
	# buffers filled in one frame's time have the same number (newest)
	[ "${BASH_REMATCH[1]}" -ge "$first" ]
	ask a peek
	is "peek: ok"
	ask a ioctl
	is "ioctl: ok"
}

@test "fixture: a descriptor passed over SCM_RIGHTS reads in the receiving user's process" {
	client b $B recv "$D/s/sock"
	client a $A "$EV_NODE"
	ask a "send $D/s/sock"
	is "send: ok"
	client_ready b
	ask a close
	is "close: ok"
	begin b read
	feed uinput key
	finish b
	is "read: ok 72"
}

# ---- pause and resume -----------------------------------------------------------

@test "pause --uid A of an evdev node: A's blocked read gets ENODEV once, B and root read on; resume gives A its descriptor back" {
	client a $A "$EV_NODE"
	client b $B "$EV_NODE"
	client r 0 "$EV_NODE"
	begin a read
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	finish a
	is "read: ENODEV"
	ask a read
	is "read: ENODEV"
	ask a ioctl
	is "ioctl: ENODEV"
	feed uinput key
	ask b read
	is "read: ok 72"
	ask r read
	is "read: ok 72"
	ask b ioctl
	is "ioctl: ok"
	run "$ASUSER" $B "$DEVCLIENT" "$EV_NODE" <<<ioctl
	[ "${lines[1]}" = "ioctl: ok" ]
	resume --uid $A
	[ "$status" -eq 0 ]
	# the key typed during the pause was the next session's: dropped
	[ "$output" = "char device $EV_RDEV: resumed for uid $A; 72 bytes it queued during the pause dropped" ]
	begin a read
	feed uinput key
	finish a
	is "read: ok 72"
	ask a ioctl
	is "ioctl: ok"
}

@test "pause --uid A --rdev of a hidraw device: A's blocked read gets ENODEV, B reads on; resume gives A its descriptor back" {
	client a $A "$HID_NODE"
	client b $B "$HID_NODE"
	begin a read
	pause --uid $A --rdev "$HID_RDEV" --char
	[ "$status" -eq 0 ]
	finish a
	is "read: ENODEV"
	ask a ioctl
	is "ioctl: ENODEV"
	feed uhid input
	ask b read
	is "read: ok 8"
	resume --uid $A
	[ "$status" -eq 0 ]
	# the report sent during the pause was not A's: dropped
	[ "$output" = "char device $HID_RDEV: resumed for uid $A; 8 bytes it queued during the pause dropped" ]
	begin a read
	feed uhid input
	finish a
	is "read: ok 8"
	ask a ioctl
	is "ioctl: ok"
}

@test "pause --uid A of snd-aloop's capture: A's READI_FRAMES gets ENODEV, B captures; resume lets A capture again" {
	client a $A pcm-capture "$PCM_NODE"
	ask a read
	is "read: ok 480"
	pause --uid $A "$PCM_NODE"
	[ "$status" -eq 0 ]
	ask a read
	is "read: ENODEV"
	ask a ioctl
	is "ioctl: ENODEV"
	client b $B pcm-capture "$PCM_NODE"
	ask b read
	is "read: ok 480"
	resume --uid $A
	[ "$status" -eq 0 ]
	ask a read
	is "read: ok 480"
}

@test "pause --uid A of vivid: A's DQBUF gets ENODEV, B's QUERYCAP works; pause exits 4 for A's MMAP buffers, which still read" {
	client a $A v4l2-mmap "$VID_NODE"
	ask a dqbuf
	[[ $output =~ ^dqbuf:\ ok\ seq\ [0-9]+$ ]]
	pause --uid $A "$VID_NODE"
	[ "$status" -eq 4 ]
	ask a dqbuf
	is "dqbuf: ENODEV"
	ask a ioctl
	is "ioctl: ENODEV"
	# the mapping the pause did not take, and said so
	ask a peek
	is "peek: ok"
	run "$ASUSER" $B "$DEVCLIENT" "$VID_NODE" <<<ioctl
	[ "${lines[1]}" = "ioctl: ok" ]
	resume --uid $A
	[ "$status" -eq 0 ]
	ask a dqbuf
	[[ $output =~ ^dqbuf:\ ok\ seq\ [0-9]+$ ]]
}

@test "usbfs: pause --uid A cuts A's open usbfs node with ENODEV, B's and root's work; resume gives A the same descriptor back" {
	client a $A "$USB_NODE"
	client b $B "$USB_NODE"
	client r 0 "$USB_NODE"
	ask a ioctl
	is "ioctl: ok"
	pause --uid $A "$USB_NODE"
	[ "$status" -eq 0 ]
	ask a read
	is "read: ENODEV"
	ask a ioctl
	is "ioctl: ENODEV"
	# a read of a usbfs node is the device's descriptors: the device's
	# (18 bytes), then its one configuration's, ACM's (75)
	ask b read
	is "read: ok 93"
	ask r read
	is "read: ok 93"
	ask b ioctl
	is "ioctl: ok"
	resume --uid $A
	[ "$status" -eq 0 ]
	[ "$output" = "char device $USB_RDEV: resumed for uid $A" ]
	# A's read failed, its offset is still 0
	ask a read
	is "read: ok 93"
	ask a ioctl
	is "ioctl: ok"
}

@test "pause --uid A exits 4 for A's mmap'd ALSA ring, whose pointer still advances: the pause does not claim it" {
	client a $A pcm-mmap "$PCM_NODE"
	ask a mmap-read
	[[ $output =~ ^mmap-read:\ advanced\ [1-9][0-9]*$ ]]
	pause --uid $A "$PCM_NODE"
	[ "$status" -eq 4 ]
	ask a mmap-read
	[[ $output =~ ^mmap-read:\ advanced\ [1-9][0-9]*$ ]]
}

@test "a descriptor A passed to B over SCM_RIGHTS stays paused in B; B's own descriptor does not" {
	client b $B recv "$D/s/sock"
	client a $A "$EV_NODE"
	client b2 $B "$EV_NODE"
	ask a "send $D/s/sock"
	is "send: ok"
	client_ready b
	ask a close
	is "close: ok"
	begin b read
	pause --uid $A "$EV_NODE"
	[ "$status" -eq 0 ]
	finish b
	is "read: ENODEV"
	ask b ioctl
	is "ioctl: ENODEV"
	feed uinput key
	ask b2 read
	is "read: ok 72"
}

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
