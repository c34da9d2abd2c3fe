#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpfd as a service: restarts without a gap, revocations that live
# exactly as long as their inode, events, unload, group authorisation.

load lib

setup() {
	F=$(new_file)
	revoke-bpf status >/dev/null 2>&1 || start_daemon
}

teardown() {
	revoke-bpf del "$F" >/dev/null 2>&1 || true
}

mount_ext4() {
	dd if=/dev/zero of=/tmp/ext4.img bs=1M count=8 2>/dev/null
	/usr/sbin/mke2fs -q -F -t ext4 /tmp/ext4.img
	mkdir -p /mnt/ext4
	mount -o loop /tmp/ext4.img /mnt/ext4
}

umount_ext4() {
	umount /mnt/ext4
	rm -f /tmp/ext4.img
}

@test "after kill -9 a revoked file stays denied and add says the daemon is not running" {
	revoke "$F"
	stop_daemon KILL
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	run revoke-bpf add "$(new_file)"
	[ "$status" -eq 1 ]
	[[ $output == "revoke-bpf: add: cannot reach revoke-bpfd at /run/revoke-bpf/control.sock (Connection refused); is it running? start it: 'systemctl start revoke-bpfd', or 'revoke-bpfd' as root" ]]
	start_daemon
}

@test "a reader looping on the file never succeeds across a kill -9 and restart" {
	revoke "$F"
	local before
	before=$(revoke-bpf list --json)
	( while [ ! -e /tmp/stop-reader ]; do
		if cat "$F" >/dev/null 2>&1; then echo success >> /tmp/reader.log; fi
	  done ) &
	local reader=$!
	sleep 0.5
	stop_daemon KILL
	sleep 0.5
	start_daemon
	sleep 0.5
	touch /tmp/stop-reader
	wait $reader
	rm -f /tmp/stop-reader
	[ ! -e /tmp/reader.log ]
	# the same entries, denial counts aside
	[ "$(revoke-bpf list --json | sed 's/"denials":[0-9]*//g')" = \
	  "$(echo "$before" | sed 's/"denials":[0-9]*//g')" ]
	run revoke-bpf status -v
	[[ $output == *"adopted            yes"* ]]
}

@test "a revocation survives the inode dropping out of the cache" {
	mount_ext4
	echo data > /mnt/ext4/f
	revoke /mnt/ext4/f
	sync
	echo 3 > /proc/sys/vm/drop_caches
	run cat /mnt/ext4/f
	[ "$status" -eq 1 ]
	[ "$output" = "cat: can't open '/mnt/ext4/f': Input/output error" ]
	revoke-bpf del /mnt/ext4/f >/dev/null
	umount_ext4
}

@test "a deleted inode's revocation does not deny a new file that reuses its number" {
	mount_ext4
	echo old > /mnt/ext4/old
	local ino
	ino=$(stat -c %i /mnt/ext4/old)
	revoke /mnt/ext4/old
	rm /mnt/ext4/old
	echo new > /mnt/ext4/new
	# ext4 hands the number out again at once
	[ "$(stat -c %i /mnt/ext4/new)" = "$ino" ]
	run cat /mnt/ext4/new
	[ "$status" -eq 0 ]
	[ "$output" = new ]
	run revoke-bpf list --json
	[[ $output != *"\"ino\":$ino,"* ]]
	run revoke-bpf status -v
	[[ $output == *"freed_inodes       "[1-9]* ]]
	umount_ext4
}

@test "a deleted file that is still open stays revoked until closed" {
	exec 6<>"$F"
	revoke "$F"
	rm "$F"
	run "$PROBE" "/proc/$$/fd/6" read
	expect_lines "first open: EIO"
	exec 6<&-
}

@test "events shows a denial with the right pid, hook and operation" {
	revoke "$F"
	revoke-bpf events --count 1 > /tmp/events.out &
	local ev=$!
	wait_subscribed 1
	bash -c 'echo $$ > /tmp/cat.pid; exec cat "$1"' _ "$F" 2>/dev/null || true
	wait $ev
	local pid ino
	pid=$(cat /tmp/cat.pid)
	ino=$(stat -c %i "$F")
	run cat /tmp/events.out
	[[ $output =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}\ [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\ pid=$pid\ tgid=$pid\ uid=0\ comm=cat\ dev=$(devof "$F")\ ino=$ino\ hook=file_open\ op=open\ arg=0x[0-9a-f]+$ ]]
}

@test "events --json prints one JSON object per denial" {
	revoke "$F"
	revoke-bpf events --json --count 2 > /tmp/events.json &
	local ev=$!
	wait_subscribed 1
	"$PROBE" "$F" read >/dev/null 2>&1 || true
	cat "$F" 2>/dev/null || true
	wait $ev
	run cat /tmp/events.json
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == '{"ts_ns":'*',"time_ns":'*'"hook":"file_open","op":"open","arg":"0x'*'","time":"20'*'Z"}' ]]
}

@test "denials are logged by the daemon" {
	revoke "$F"
	cat "$F" 2>/dev/null || true
	sleep 0.3
	run grep "revoke-bpfd: denied .* comm=cat dev=$(devof "$F") ino=$(stat -c %i "$F") hook=file_open op=open" "$DAEMON_LOG"
	[ "$status" -eq 0 ]
}

@test "1000 malformed requests leave the daemon answering and the set unchanged" {
	revoke "$F"
	local before
	before=$(revoke-bpf list --json)
	# each on a connection of its own, from one process
	seq 1 1000 | sed 's|.*|revoke-bpf/1 add ino=x&|' |
		"$CTLSEND" --lines /run/revoke-bpf/control.sock > "$BATS_TEST_TMPDIR/replies"
	[ "$(grep -c '^err E' "$BATS_TEST_TMPDIR/replies")" -eq 1000 ]
	run revoke-bpf status
	[ "$status" -eq 0 ]
	[ "$(revoke-bpf list --json)" = "$before" ]
}

@test "a member of the --group may add; others still may not" {
	grep -q '^revokers:' /etc/group || echo 'revokers:x:1000:' >> /etc/group
	stop_daemon
	start_daemon --group revokers
	run "$ASUSER" 1000 revoke-bpf add "$F"
	[ "$status" -eq 0 ]
	[[ $output == "$F: revoked (dev "* ]]
	run "$ASUSER" 65534 revoke-bpf del "$F"
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: del: only root and members of group revokers may use 'del' (you are uid 65534); run it with sudo"
	stop_daemon
	start_daemon
}

@test "unload without --yes changes nothing" {
	revoke "$F"
	run revoke-bpf unload
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: unload: this detaches every program and lifts every revocation; run 'revoke-bpf unload --yes' to do it"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "unload --yes lifts every revocation, removes the pins and stops the daemon" {
	revoke "$F"
	run revoke-bpf unload --yes
	[ "$status" -eq 0 ]
	expect_lines "unloaded: nothing is revoked or enforced any more, and revoke-bpfd has exited"
	local pid
	pid=$(cat /tmp/revoke-bpfd.pid)
	for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$pid" 2>/dev/null
	[ ! -e /sys/fs/bpf/revoke-bpf ]
	run "$PROBE" "$F" read open
	expect_lines "read: ok" "open: ok"
	rm -f /tmp/revoke-bpfd.pid
	start_daemon
}

@test "unload --yes lifts every revocation by the time it returns" {
	local pid
	pid=$(cat /tmp/revoke-bpfd.pid)
	run "$PROBE" --before "revoke-bpf add $F >/dev/null && revoke-bpf unload --yes >/dev/null" \
		"$F" read write ioctl mmap ftruncate open
	expect_lines "read: ok" "write: ok" "ioctl: ok" "mmap: ok" "ftruncate: ok" "open: ok"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
	rm -f /tmp/revoke-bpfd.pid
	start_daemon
}

@test "revoke-bpfd tells systemd READY=1 once it serves, STATUS= what it enforces, RELOADING=1 around a reload" {
	unload_all
	"$REPO/build/tests/notifyrecv" /run/notify.sock 6 > /tmp/notify.out &
	local rcv=$!
	while [ ! -S /run/notify.sock ]; do sleep 0.05; done
	NOTIFY_SOCKET=/run/notify.sock start_daemon --detach-after 0
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	kill -HUP "$(cat /tmp/revoke-bpfd.pid)"
	stop_daemon
	wait $rcv
	run cat /tmp/notify.out
	[[ ${lines[5]} =~ ^MONOTONIC_USEC=[0-9]+$ ]]
	lines[5]=MONOTONIC_USEC=N
	output=$(printf '%s\n' "${lines[@]}")
	expect_lines "READY=1" "STATUS=idle: nothing revoked (programs detached)" \
		"STATUS=enforcing: 1 file, 0 devices revoked" \
		"STATUS=idle: nothing revoked (programs detached)" \
		"RELOADING=1" "MONOTONIC_USEC=N" \
		"READY=1" "STATUS=idle: nothing revoked (programs detached)" \
		"STOPPING=1"
	start_daemon
}

@test "a pinned program of another build is replaced, and denies again" {
	revoke "$F"
	stop_daemon
	# another build's revoke_file_open, which denies nothing, takes the pin
	"$REPO/build/tests/pin_prog" "$REPO/build/tests/old_file_open.bpf.o" \
		/sys/fs/bpf/revoke-bpf/revoke_file_open
	run "$PROBE" "$F" read
	expect_lines "read: EIO"
	start_daemon
	run revoke-bpf status -v
	[[ $output == *"adopted            no"* ]]
	[[ $output == *"replaced_programs  1"* ]]
	all_attached
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	[ ! -e /sys/fs/bpf/revoke-bpf/revoke_file_open__new ]
}

@test "a pinned set without revoke_filter (an older build) is upgraded without losing a revocation" {
	local g
	g=$(new_file)
	revoke "$F"
	stop_daemon
	# what a build before the filter left pinned: no revoke_filter
	rm /sys/fs/bpf/revoke-bpf/revoke_filter
	start_daemon
	run revoke-bpf status -v
	[[ $output == *"replaced_programs  $(nr_attached)"* ]]
	all_attached
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	# the programs now attached read the filter the daemon writes
	revoke "$g"
	run "$PROBE" "$g" read
	expect_lines "first open: EIO"
	revoke-bpf del "$g" >/dev/null
	run "$PROBE" "$g" read
	expect_lines "read: ok"
}

@test "a revoked set an older build pinned as a hash map moves into revoke_table, and stays enforced" {
	local g
	g=$(new_file)
	revoke "$F"
	revoke "$g"
	stop_daemon
	# what a build before revoke_table left pinned: the set as a hash map
	run "$REPO/build/tests/pin_legacy_set" /sys/fs/bpf/revoke-bpf
	expect_lines 2
	[ ! -e /sys/fs/bpf/revoke-bpf/revoke_table ]
	start_daemon
	run revoke-bpf status -v
	all_attached
	grep -Eq '^entries +2$' <<<"$output"
	[ ! -e /sys/fs/bpf/revoke-bpf/revoked ]
	[ -e /sys/fs/bpf/revoke-bpf/revoke_table ]
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	run "$PROBE" "$g" read
	expect_lines "first open: EIO"
	# the moved entries are the daemon's own: del works on them
	revoke-bpf del "$g" >/dev/null
	run "$PROBE" "$g" read
	expect_lines "read: ok"
}
