# SPDX-License-Identifier: GPL-2.0
# The devices and clients of the pause suites (pause.bats, pause_rules.bats),
# sourced by each after lib.bash: one device of each kind for the whole
# file, made in setup_file; user A (uid 1001) is paused, user B (uid 1002)
# and root are not.
#
# Each client is a devclient (tests/helpers/devclient.c) run as its user
# through asuser: it opens its node once, then runs one command per line
# of a FIFO and prints one line per command ("read: ok 72", "read:
# ENODEV").  devfeed (tests/helpers/devfeed.c) makes the evdev and
# hidraw devices and sends their data when told: a test controls when a
# blocked read returns.

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
