#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf and revoke-bpfd against the real kernel: answers, errors,
# authentication, and state that stays unchanged on bad input.  What
# the CLI prints and refuses, decided in user space, is cli_text.bats.

load lib
load cli

@test "status reports BPF LSM active and, while something is revoked, every program the kernel can run attached" {
	revoke "$F"
	run revoke-bpf status -v
	[ "$status" -eq 0 ]
	[[ $output == *"bpf_lsm            active"* ]]
	local n
	n=$(grep -c '^program\.[a-z0-9_]* *attached$' <<<"$output")
	[ "$n" -ge 15 ]
	[[ $output == *"programs_attached  $n/$n"* ]]
	[[ $output == *"enforcement        attached"* ]]
	[[ $output == *"pin_dir            /sys/fs/bpf/revoke-bpf"* ]]
}

@test "status names every program, and those whose hook the kernel lacks as skipped" {
	revoke "$F"
	run revoke-bpf status --json
	[ "$status" -eq 0 ]
	local truncate=attached backing=attached acl=attached
	local setattr=attached setattr_6_1=skipped fileattr=skipped skipped=3
	# file_truncate and the ACL hooks came in Linux 6.2, inode_setattr's
	# idmap in 6.3, mmap_backing_file and fown_struct's file
	# (file_send_sigiotask) in 6.12, inode_file_getattr/setattr in 6.17
	case $(uname -r) in
	6.1.*) truncate=skipped backing=skipped acl=skipped setattr=skipped
	       setattr_6_1=attached skipped=9 ;;
	6.12.*) ;;
	*) fileattr=attached skipped=1 ;;
	esac
	prog() { jq -r ".program.revoke_$1" <<<"$output"; }
	[ "$(prog file_truncate)" = "$truncate" ]
	[ "$(prog mmap_backing_file)" = "$backing" ]
	[ "$(prog file_send_sigiotask)" = "$backing" ]
	[ "$(prog inode_set_acl)" = "$acl" ]
	[ "$(prog inode_setattr)" = "$setattr" ]
	[ "$(prog inode_setattr_6_1)" = "$setattr_6_1" ]
	[ "$(prog inode_file_setattr)" = "$fileattr" ]
	[ "$(prog inode_getxattr)" = attached ]
	[ "$(prog file_ioctl_compat)" = attached ]
	[ "$(prog file_permission)" = attached ]
	[ "$(jq .programs_skipped <<<"$output")" = "$skipped" ]
	[ "$(prog sb_free)" = attached ]
	[ "$(jq '.program | length' <<<"$output")" -eq 30 ]
}

@test "the maps, the attached programs' links and this build's programs are pinned under /sys/fs/bpf/revoke-bpf, skipped ones not" {
	local progs build iters
	revoke "$F"
	progs=$(revoke-bpf status -v | sed -n 's/^program\.\([a-z0-9_]*\) *attached$/\1/p')
	build=$(cd /sys/fs/bpf/revoke-bpf && echo programs_*)
	[[ $build =~ ^programs_[0-9a-f]{16}$ ]]
	iters=$(cd /sys/fs/bpf/revoke-bpf && echo iterators_*)
	[[ $iters =~ ^iterators_[0-9a-f]{16}$ ]]
	run ls /sys/fs/bpf/revoke-bpf
	expect_lines $(printf '%s
' rdev_files revoke_b_bss revoke_events revoke_filter \
		revoke_layout revoke_names revoke_rdev_state revoke_reach revoke_reports \
		revoke_state revoke_table revoked_rdev revoked_supers paused pause_devs pause_majors \
		pause_slices pause_classes revoked_files $build $iters $progs | sort)
	run ls "/sys/fs/bpf/revoke-bpf/$build"
	expect_lines $(printf '%s\n' $progs | sort)
	# the holder iterators, and the maps that are theirs alone
	run ls "/sys/fs/bpf/revoke-bpf/$iters"
	expect_lines holder_rdev_targets holder_sb_targets holder_targets \
		holders__bss holders__data revoke_fsrefs revoke_holder_fds \
		revoke_holder_regrings revoke_holder_threads revoke_holder_vmas \
		revoke_ident uring_hits
}

@test "add PATH says what it revoked" {
	run revoke-bpf add "$F"
	[ "$status" -eq 0 ]
	expect_lines "$F: revoked (dev $(devof /tmp) ino $(stat -c %i "$F"))" \
		"  holders 0: fds 0, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 0"
}

@test "add of an already revoked inode is harmless and says so" {
	revoke "$F"
	local after_first
	after_first=$(revoke-bpf list --json)
	run revoke-bpf add "$F"
	[ "$status" -eq 0 ]
	[[ $output == "$F: already revoked (dev "* ]]
	[ "$(revoke-bpf list --json)" = "$after_first" ]
}

@test "del of an inode that is not revoked is harmless and says so" {
	run revoke-bpf del "$F"
	[ "$status" -eq 0 ]
	[[ $output == "$F: was not revoked (dev "* ]]
	state_unchanged
}

@test "add --inode N --dev MAJ:MIN revokes that filesystem's inode" {
	run revoke-bpf add --inode "$(stat -c %i "$F")" --dev "$(devof /tmp)"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "inode $(stat -c %i "$F") on $(devof /tmp): revoked" ]
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "add --inode N finds the filesystem when exactly one holds it open" {
	mkdir -p /mnt/uniq && mount -t tmpfs u /mnt/uniq
	# a file of this tmpfs whose inode number no other inode held
	# anywhere, open or mapped, has (add INODE looks at both): the first
	# of its files whose number is not among theirs
	local held i ino
	# (and the command's own, mapped while it runs: it is static)
	held=$(stat -L -c %i /proc/[0-9]*/fd/* /proc/[0-9]*/map_files/* \
	       "$(command -v revoke-bpf)" 2>/dev/null | sort -u)
	for ((i = 0; ; i++)); do
		echo u > /mnt/uniq/$i
		ino=$(stat -c %i /mnt/uniq/$i)
		grep -qxF "$ino" <<<"$held" || break
	done
	mv /mnt/uniq/$i /mnt/uniq/f
	exec 7< /mnt/uniq/f
	run revoke-bpf add --inode "$ino"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "inode $ino on $(devof /mnt/uniq): revoked" ]
	run cat /mnt/uniq/f
	[[ $output == *"Input/output error"* ]]
	exec 7<&-
	revoke-bpf del --inode "$ino" >/dev/null
	umount /mnt/uniq
}

@test "add --inode N held on two filesystems is an error that lists both" {
	mkdir -p /mnt/d1 /mnt/d2
	mount -t tmpfs d1 /mnt/d1
	mount -t tmpfs d2 /mnt/d2
	echo 1 > /mnt/d1/f
	echo 2 > /mnt/d2/f
	exec 7< /mnt/d1/f 8< /mnt/d2/f
	local ino
	ino=$(stat -c %i /mnt/d1/f)
	run revoke-bpf add --inode "$ino"
	exec 7<&- 8<&-
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == "revoke-bpf: add: inode $ino is in use on "*" filesystems: "* ]]
	[[ $output == *"$(devof /mnt/d1) (/mnt/d1/f)"* ]]
	[[ $output == *"$(devof /mnt/d2) (/mnt/d2/f)"* ]]
	[[ $output == *"choose one with --dev MAJ:MIN" ]]
	umount /mnt/d1 /mnt/d2
	state_unchanged
}

@test "add --inode N that no process holds is an error that says to use --dev" {
	run revoke-bpf add --inode 987654321
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: inode 987654321 is not open or mapped by any process, so its filesystem is unknown; name it with --dev MAJ:MIN or revoke it by PATH"
	state_unchanged
}

@test "add of a missing path fails and changes nothing" {
	run revoke-bpf add /tmp/no-such-file
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: cannot open '/tmp/no-such-file': No such file or directory"
	state_unchanged
}

@test "add of a non-number, a negative and an out-of-range inode fail and change nothing" {
	run revoke-bpf add 12x
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: cannot open '12x': No such file or directory"
	run revoke-bpf add --inode -5
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: add: invalid --inode '-5': not a positive integer"
	run revoke-bpf add --inode 18446744073709551616 --dev 0:1
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: add: invalid --inode '18446744073709551616': out of range (at most 18446744073709551615)"
	state_unchanged
}

@test "add --json of a file whose name is not UTF-8 is still valid JSON" {
	local d
	d=$(mktemp -d)
	echo x > "$d/bad"$'\xff'"name"
	run revoke-bpf add --json "$d/bad"$'\xff'"name"
	revoke-bpf del "$d/bad"$'\xff'"name" >/dev/null
	rm -rf "$d"
	[ "$status" -eq 0 ]
	# JSON is UTF-8: the stray byte is U+FFFD, never the raw byte
	[[ $output == *"\"path\":\"$d/bad\\ufffdname\""* ]]
	[[ $output != *$'\xff'* ]]
}

@test "a directory is refused" {
	run revoke-bpf add /tmp
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: '/tmp' is a directory; revoke-bpf revokes files and devices, not directories"
	state_unchanged
}

@test "a full revoked set is a clear error and changes nothing" {
	local sock=/run/revoke-bpf-small.sock pins=/sys/fs/bpf/revoke-small
	revoke-bpfd --max-entries 2 --pin-dir $pins --socket $sock >>"$DAEMON_LOG" 2>&1 &
	local pid=$!
	wait_ready $pid $sock
	local a b c
	a=$(new_file); b=$(new_file); c=$(new_file)
	revoke-bpf --socket $sock add "$a" >/dev/null
	revoke-bpf --socket $sock add "$b" >/dev/null
	local full
	full=$(revoke-bpf --socket $sock list --json)
	run revoke-bpf --socket $sock add "$c"
	kill $pid; wait $pid || true
	rm -rf $pins
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: the revoked set is full (2 entries); del an entry, or unload and restart revoke-bpfd with a larger --max-entries"
	run revoke-bpf --socket $sock list --json
	[ "$status" -eq 1 ]
	[[ $full == *"$(stat -c %i "$a")"* && $full == *"$(stat -c %i "$b")"* ]]
	[[ $full != *"\"ino\":$(stat -c %i "$c"),"* ]]
}

@test "enforcement outlives the daemon, and a restarted daemon adopts it" {
	revoke "$F"
	local n
	n=$(revoke-bpf list --all | tail -n +2 | wc -l)
	stop_daemon KILL
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	start_daemon
	run revoke-bpf status -v
	[[ $output == *"adopted            yes"* ]]
	[[ $output == *"entries            $n"* ]]
	run revoke-bpf list --json
	[[ $output == *"\"ino\":$(stat -c %i "$F"),"* ]]
}

@test "the CLI says so when the daemon is not running" {
	stop_daemon
	run revoke-bpf list
	start_daemon
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: list: cannot reach revoke-bpfd at /run/revoke-bpf/control.sock (No such file or directory); is it running? start it: 'systemctl start revoke-bpfd', or 'revoke-bpfd' as root"
}

@test "a second daemon refuses to take over the socket" {
	run revoke-bpfd
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpfd: another revoke-bpfd is already serving /run/revoke-bpf/control.sock; stop it first"
	revoke-bpf status >/dev/null
}

@test "add --fs /dev/loopN revokes the filesystem mounted from it, not devtmpfs; del --fs /dev/loopN lifts it" {
	loop_fs /mnt/clifs
	run revoke-bpf add --fs "$L"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "filesystem $(fs_of /mnt/clifs) of /mnt/clifs: revoked" ]
	run cat /mnt/clifs/f
	[[ $output == *"Input/output error"* ]]
	# the node's own filesystem is not touched
	echo x > /dev/null
	run bash -c 'revoke-bpf list --json | jq -r ".[] | select(.fs) | .fs"'
	expect_lines "$(fs_of /mnt/clifs | cut -d' ' -f1)"
	run revoke-bpf del --fs "$L"
	[ "$status" -eq 0 ]
	expect_lines "filesystem $(fs_of /mnt/clifs) of /mnt/clifs: no longer revoked"
	[ "$(cat /mnt/clifs/f)" = data ]
	state_unchanged
}

@test "add --fs of a block device nothing is mounted from is refused, and so is del --fs" {
	local img=/tmp/clinone.img l
	truncate -s 1M "$img"
	l=$(losetup -f)
	losetup "$l" "$img"
	CLEANUP+=("rm -f $img" "losetup -d $l")
	run revoke-bpf add --fs "$l"
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: '$l' is block device 7:${l#/dev/loop}, and no filesystem is mounted from it here"
	run revoke-bpf del --fs "$l"
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: del: '$l' is block device 7:${l#/dev/loop}, and no filesystem is mounted from it here; del --fs-dev MAJ:MIN lifts a filesystem that is gone"
	state_unchanged
}

@test "add --fs and umount of /dev, /proc, /sys and / are refused with the reason, and nothing is revoked" {
	[ "$(fs_of /dev | sed 's/.*(\(.*\))/\1/')" = devtmpfs ]
	run revoke-bpf add --fs /dev
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: filesystem $(fs_of /dev) is one the system cannot do without: it holds the device nodes of /dev; --force revokes it anyway"
	run revoke-bpf add --fs /dev/null
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: filesystem $(fs_of /dev) is one the system cannot do without: it holds the device nodes of /dev; --force revokes it anyway"
	run revoke-bpf umount /dev < "$F"
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: umount: filesystem $(fs_of /dev) is one the system cannot do without: it holds the device nodes of /dev; --force revokes it anyway"
	run revoke-bpf add --fs /proc
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: filesystem $(fs_of /proc) cannot be revoked, even with --force: revoke-bpfd works through it"
	run revoke-bpf add --fs /sys --force
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: filesystem $(fs_of /sys) cannot be revoked, even with --force: revoke-bpfd works through it"
	run revoke-bpf add --fs /
	[ "$status" -eq 1 ]
	if [ "$(devof "$(command -v revoke-bpfd)")" = "$(devof /)" ]; then
		expect_lines "revoke-bpf: add: filesystem $(fs_of /) cannot be revoked, even with --force: revoke-bpfd runs from it (its executable is on it)"
	else
		expect_lines "revoke-bpf: add: filesystem $(fs_of /) is one the system cannot do without: it is the root filesystem; --force revokes it anyway"
	fi
	if [ -n "$(fs_of /dev/pts)" ]; then
		run revoke-bpf add --fs /dev/pts
		[ "$status" -eq 1 ]
		expect_lines "revoke-bpf: add: filesystem $(fs_of /dev/pts) is one the system cannot do without: it holds the terminals of every session; --force revokes it anyway"
	fi
	echo x > /dev/null
	state_unchanged
}

@test "the filesystem of revoke-bpfd's socket is refused without --force, and revoked with it" {
	local m=/mnt/clisock pins=/sys/fs/bpf/revoke-clisock pid
	mkdir -p $m
	mount -t tmpfs clisock $m
	CLEANUP+=("umount $m" "rm -rf $pins")
	echo data > $m/f
	revoke-bpfd --pin-dir $pins --socket $m/s >>"$DAEMON_LOG" 2>&1 &
	pid=$!
	CLEANUP+=("kill $pid")
	wait_ready $pid $m/s
	run revoke-bpf --socket $m/s add --fs $m
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: add: filesystem $(fs_of $m) is one the system cannot do without: revoke-bpfd's socket $m/s is on it; --force revokes it anyway"
	[ "$(cat $m/f)" = data ]
	run revoke-bpf --socket $m/s add --fs $m --force
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "filesystem $(fs_of $m) of $m: revoked" ]
	run cat $m/f
	[[ $output == *"Input/output error"* ]]
	kill $pid
	wait $pid || true
	state_unchanged
}
