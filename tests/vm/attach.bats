#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Attach on demand: the enforcing programs are attached only while
# something is revoked, before the first entry goes in, and detached
# --detach-after seconds after the last one leaves; kill -9 and restarts
# in either state come up in the right one.

load lib

PINS=/sys/fs/bpf/revoke-bpf

setup_file() {
	unload_all
}

setup() {
	F=$(new_file)
	unload_all
}

teardown() {
	revoke-bpf del "$F" >/dev/null 2>&1 || true
	stop_daemon KILL
}

teardown_file() {
	unload_all
}

@test "with nothing revoked no program is attached, and status says idle and exits 0" {
	start_daemon
	run revoke-bpf status -v
	[ "$status" -eq 0 ]
	[[ $output == *"enforcement        idle"* ]]
	[[ $output == *"programs_attached  0/"* ]]
	[[ $output == *"program.revoke_file_permission idle"* ]]
	[ "$(nr_link_pins)" -eq 0 ]
	# the maps are there, so nothing is lost
	[ -e "$PINS/revoke_table" ]
	[ -e "$PINS/revoke_b_bss" ]
}

@test "the first add attaches every program before the entry goes in, and says how long it took" {
	local n us
	start_daemon
	run revoke-bpf --json add "$F"
	[ "$status" -eq 0 ]
	us=$(jq -r .attach_us <<<"$output")
	[ "$us" -gt 0 ]
	run revoke-bpf status -v
	[[ $output == *"enforcement        attached"* ]]
	[[ $output == *"attaches           1"* ]]
	[[ $output == *"last_attach_us     $us"* ]]
	n=$(nr_attached)
	[ "$n" -ge 15 ]
	[[ $output == *"programs_attached  $n/$n"* ]]
	[ "$(nr_link_pins)" -eq "$n" ]
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "the daemon logs each attach with its time, and each detach" {
	: > "$DAEMON_LOG"
	start_daemon --detach-after 0
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	until_true is_idle
	until_true grep -q "nothing revoked for 0 s: programs detached" "$DAEMON_LOG"
	grep -Eq "attached [0-9]+ programs in [0-9]+\.[0-9] ms before the first revocation" "$DAEMON_LOG"
}

@test "an add while attached attaches nothing (attach_us=0)" {
	local g
	g=$(new_file)
	start_daemon
	revoke "$F"
	run revoke-bpf --json add "$g"
	[ "$(jq -r .attach_us <<<"$output")" = 0 ]
	[ "$(status_field attaches)" = 1 ]
	revoke-bpf del "$g" >/dev/null
}

@test "the programs are detached --detach-after seconds after the last del, and the file reads again" {
	start_daemon --detach-after 1
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	until_true is_idle
	[ "$(status_field detaches)" = 1 ]
	[ "$(nr_link_pins)" -eq 0 ]
	run "$PROBE" "$F" read
	expect_lines "read: ok"
}

@test "a del and an add within --detach-after keep the programs attached" {
	start_daemon --detach-after 30
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	run revoke-bpf --json add "$F"
	[ "$(jq -r .attach_us <<<"$output")" = 0 ]
	[ "$(status_field attaches)" = 1 ]
	[ "$(status_field detaches)" = 0 ]
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "an add right after a detach keeps the links not torn down yet, attaches the rest, and denies" {
	: > "$DAEMON_LOG"
	start_daemon --detach-after 0
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	until_true is_idle
	# the teardown of each link takes two RCU-tasks grace periods
	# (ftrace_shutdown()): the add comes while most are still attached
	run revoke-bpf --json add "$F"
	[ "$(jq -r .attach_us <<<"$output")" -gt 0 ]
	[ "$(status_field attaches)" = 2 ]
	[ "$(nr_link_pins)" -eq "$(nr_attached)" ]
	all_attached
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	until_true grep -Eq "attached [0-9]+ programs in [0-9.]+ ms before the first revocation \([1-9][0-9]* kept from the detach under way\)" "$DAEMON_LOG"
}

@test "a revoked file deleted for good (its entry dropped by the kernel) lets the programs detach" {
	start_daemon --detach-after 0
	revoke "$F"
	rm -f "$F"
	until_true is_idle
	[ "$(status_field entries)" = 0 ]
	[ "$(nr_link_pins)" -eq 0 ]
}

@test "a revoked device keeps the programs attached until its del" {
	start_daemon --detach-after 0
	revoke-bpf add --rdev 1:7 --char >/dev/null
	sleep 2
	[ "$(status_field enforcement)" = attached ]
	run "$PROBE" --rdonly /dev/full read
	expect_lines "first open: EIO"
	revoke-bpf del --rdev 1:7 --char >/dev/null
	until_true is_idle
	run "$PROBE" --rdonly /dev/full read
	expect_lines "read: ok"
}

@test "a revoked filesystem keeps the programs attached until its del" {
	start_daemon --detach-after 0
	mkdir -p /tmp/attach-fs
	mount -t tmpfs none /tmp/attach-fs
	echo data > /tmp/attach-fs/f
	revoke-bpf add --fs /tmp/attach-fs >/dev/null
	sleep 2
	[ "$(status_field enforcement)" = attached ]
	run "$PROBE" /tmp/attach-fs/f read
	expect_lines "first open: EIO"
	revoke-bpf del --fs /tmp/attach-fs >/dev/null
	until_true is_idle
	umount /tmp/attach-fs
}

@test "after kill -9 while attached the file stays denied, and the restarted daemon is attached" {
	start_daemon
	revoke "$F"
	stop_daemon KILL
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	start_daemon --detach-after 0
	sleep 2
	[ "$(status_field enforcement)" = attached ]
	all_attached
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "after kill -9 between the last del and the detach, the restarted daemon detaches" {
	start_daemon --detach-after 600
	revoke "$F"
	revoke-bpf del "$F" >/dev/null
	[ "$(nr_link_pins)" -gt 0 ]
	stop_daemon KILL
	start_daemon
	[ "$(status_field enforcement)" = idle ]
	[ "$(nr_link_pins)" -eq 0 ]
	run "$PROBE" "$F" read
	expect_lines "read: ok"
}

@test "an add in the moment of a detach is denied at once" {
	local i
	start_daemon --detach-after 0
	for i in 1 2 3; do
		revoke "$F"
		revoke-bpf del "$F" >/dev/null
		# the detach runs now; the add waits for nothing of it
		revoke "$F"
		run "$PROBE" "$F" read
		expect_lines "first open: EIO"
		revoke-bpf del "$F" >/dev/null
	done
}

@test "--detach-after refuses what is not a number of seconds, with one line" {
	run revoke-bpfd --detach-after soon
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == *"--detach-after 'soon' is not a number of seconds from 0 to 86400"* ]]
}

# programs_dir: this build's folder of kept programs, by name
programs_dir() { (cd "$PINS" && echo programs_*); }

@test "a restart of the same build takes its programs from their pins instead of loading them, and they deny" {
	start_daemon
	stop_daemon
	: >"$DAEMON_LOG"
	start_daemon
	[ "$(status_field programs_adopted)" = yes ]
	grep -q "took this build's programs from their pins in [0-9]* ms" "$DAEMON_LOG"
	revoke "$F"
	all_attached
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "a restart of the same build takes the holder iterators from their pins, resets their maps, and they find every holder" {
	local dir mb=$REPO/build/tests/mapbytes fd_pid
	start_daemon
	stop_daemon
	dir=$(echo "$PINS"/iterators_*)
	# what a daemon killed in the middle of a search could leave
	"$mb" "$dir/holder_targets" fill
	"$mb" "$dir/holders__bss" fill
	"$mb" "$dir/holders__data" fill
	: >"$DAEMON_LOG"
	start_daemon
	grep -qx "revoke-bpfd: took the holder iterators from their pins" "$DAEMON_LOG"
	# as a load leaves them: no target; .bss zero but for the pid the
	# daemon set there (the kernel's map, not a copy); .data's ident_fd -1
	[ "$("$mb" "$dir/holder_targets" words)" = 0 ]
	[ "$("$mb" "$dir/holders__bss" words | tr ' ' '\n' | grep -vx 0)" = "$(cat /tmp/revoke-bpfd.pid)" ]
	[ "$("$mb" "$dir/holders__data" words)" = 4294967295 ]
	# a descriptor's holder, and one of a mapping only (found by the walk
	# of mappings that .bss's holder_maybe_mapped decides)
	start_holder "$BATS_TEST_TMPDIR/fd.out" hold "$F"
	fd_pid=$HOLDER_PID
	start_holder "$BATS_TEST_TMPDIR/map.out" --close mmap "$F"
	run revoke-bpf --json holders "$F"
	kill "$fd_pid" "$HOLDER_PID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -c "[.[] | select(.pid == $fd_pid or .pid == $HOLDER_PID) | .access] | sort" <<<"$output")" = '["f","m"]' ]
	[ "$(jq length <<<"$output")" -eq 2 ]
}

@test "holder iterators pinned under each other's names are not adopted: they are loaded and pinned again" {
	local dir
	start_daemon
	stop_daemon
	dir=$(echo "$PINS"/iterators_*)
	# the file iterator's pin replaced by the iterator of current and
	# root directories (their names differ within the 15 characters the
	# kernel keeps)
	mv "$dir/revoke_holder_fds" "$dir/x"
	mv "$dir/revoke_fsrefs" "$dir/revoke_holder_fds"
	: >"$DAEMON_LOG"
	start_daemon
	grep -qx "revoke-bpfd: loaded the holder iterators" "$DAEMON_LOG"
	[ ! -e "$dir/x" ]
	[ -e "$dir/revoke_fsrefs" ]
	stop_daemon
	: >"$DAEMON_LOG"
	start_daemon
	grep -qx "revoke-bpfd: took the holder iterators from their pins" "$DAEMON_LOG"
}

@test "a map made anew since the programs were pinned: they are loaded again, and only this build's are kept" {
	local build
	start_daemon
	stop_daemon
	build=$(programs_dir)
	# what another build left, and a map its programs do not use
	mkdir "$PINS/programs_0123456789abcdef"
	rm "$PINS/revoke_names"
	start_daemon
	[ "$(status_field programs_adopted)" = no ]
	[ "$(programs_dir)" = "$build" ]
	revoke "$F"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "a program pinned under another program's name is not adopted: all are loaded and pinned again" {
	local dir
	start_daemon
	stop_daemon
	dir=$PINS/$(programs_dir)
	mv "$dir/revoke_file_open" "$dir/x"
	mv "$dir/revoke_file_lock" "$dir/revoke_file_open"
	start_daemon
	[ "$(status_field programs_adopted)" = no ]
	[ ! -e "$dir/x" ]
	revoke "$F"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	stop_daemon
	start_daemon
	[ "$(status_field programs_adopted)" = yes ]
}
