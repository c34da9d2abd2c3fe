#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf pause --uid U and resume (issue 35) on real devices in the
# guest: an evdev keyboard (uinput), a hidraw device (uhid), an ALSA
# capture stream (snd-aloop, read and mmap'd), a V4L2 capture with
# MMAP buffers (vivid) and a usbfs node (/dev/bus/usb/BBB/DDD, major
# 189: g_serial's gadget enumerated on dummy_hcd's host controller; the
# Debian kernels 6.1, 6.12 and newest build no g_zero, but all three
# have dummy_hcd and g_serial).  The devices and the clients are
# pause.bash's.
#
# The first tests check the fixtures themselves, with no pause; the
# others a pause of each kind of device, and a descriptor passed to
# another user.  pause_rules.bats has the rest.

load lib
load pause

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
