#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# revoke-bpf and revoke-bpfd against the real kernel: answers, errors,
# authentication, and state that stays unchanged on bad input.

load lib

CLEANUP=()

bats_require_minimum_version 1.5.0

setup() {
	F=$(new_file)
	BEFORE=$(revoke-bpf list --json)
}

teardown() {
	local c
	kill_holders
	revoke-bpf del "$F" >/dev/null 2>&1 || true
	if [ -n "${MNT_T:-}" ]; then
		umount -l "$MNT_T" 2>/dev/null || true
		revoke-bpf list --json | jq -r '.[] | select(.fs) | .fs' |
			while read -r fs; do revoke-bpf del --fs-dev "$fs" >/dev/null; done
	fi
	for ((c = ${#CLEANUP[@]} - 1; c >= 0; c--)); do
		eval "${CLEANUP[c]}" >/dev/null 2>&1 || true
	done
	CLEANUP=()
}

# fs_of MNT: "MAJ:MIN (TYPE)" of the filesystem mounted at MNT (the
# topmost), as /proc/self/mountinfo says
fs_of() {
	awk -v m="$1" '$5 == m { for (i = 7; $i != "-"; i++); r = $3 " (" $(i + 1) ")" }
		END { print r }' /proc/self/mountinfo
}

# loop_fs MNT: an ext4 filesystem on a loop device, mounted at MNT, with
# a file f; sets L to the loop device.  Undone by teardown.
loop_fs() {
	local img=/tmp/${1##*/}.img
	truncate -s 32M "$img"
	L=$(losetup -f)
	losetup "$L" "$img"
	CLEANUP+=("rm -f $img" "losetup -d $L")
	mke2fs -q -t ext4 "$L"
	mkdir -p "$1"
	mount "$L" "$1"
	CLEANUP+=("umount $1")
	echo data > "$1/f"
}

# The revoked set must be what it was when the test started.
state_unchanged() {
	[ "$(revoke-bpf list --json)" = "$BEFORE" ]
}

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

# revoke-bpf metrics: any user's, the figures of status and list, and
# valid for Prometheus (REVOKE_PROMTOOL: Debian's promtool, tests/vm/suite)
@test "metrics, as any user: one file revoked, programs attached, its denials; promtool check metrics passes" {
	[ -x "${REVOKE_PROMTOOL:-}" ] || { echo "REVOKE_PROMTOOL must name promtool (tests/vm/debfile)"; false; }
	revoke "$F"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
	run "$ASUSER" 65534 revoke-bpf metrics
	[ "$status" -eq 0 ]
	local m=$output denials
	denials=$(revoke-bpf list --json | jq '[.[] | .denials] | add')
	[ "$denials" -ge 1 ]
	grep -Fx 'revoke_bpf_up 1' <<< "$m"
	grep -Fx 'revoke_bpf_bpf_lsm_active 1' <<< "$m"
	grep -Fx 'revoke_bpf_enforcement_attached 1' <<< "$m"
	grep -Fx 'revoke_bpf_entries{kind="file"} 1' <<< "$m"
	grep -Fx 'revoke_bpf_entries{kind="device"} 0' <<< "$m"
	grep -Fx "revoke_bpf_denials{kind=\"file\"} $denials" <<< "$m"
	grep -Fx "revoke_bpf_build_info{version=\"$(revoke-bpf -j status | jq -r .version)\"} 1" <<< "$m"
	grep -Eqx 'revoke_bpf_attaches_total [1-9][0-9]*' <<< "$m"
	grep -Eqx 'revoke_bpf_last_attach_duration_seconds [0-9]+\.[0-9]{6}' <<< "$m"
	[[ $m != *"$F"* ]]
	run "$REVOKE_PROMTOOL" check metrics <<< "$m"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
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

@test "the maps and the attached programs are pinned under /sys/fs/bpf/revoke-bpf, skipped ones not" {
	local progs
	revoke "$F"
	progs=$(revoke-bpf status -v | sed -n 's/^program\.\([a-z0-9_]*\) *attached$/\1/p')
	run ls /sys/fs/bpf/revoke-bpf
	expect_lines $(printf '%s
' rdev_files revoke_b_bss revoke_events revoke_filter \
		revoke_layout revoke_names revoke_rdev_state revoke_reach revoke_reports \
		revoke_state revoke_table revoked_rdev revoked_supers paused pause_devs \
		pause_slices pause_classes revoked_files $progs | sort)
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

# refused EXPECTED ARGS...: "revoke-bpf ARGS..." fails with one line of
# error that starts "revoke-bpf: " and contains EXPECTED.
refused() {
	local expected=$1
	shift
	run revoke-bpf "$@"
	if [ "$status" -eq 0 ] || [ "${#lines[@]}" -ne 1 ] ||
	   [[ ${lines[0]} != "revoke-bpf: "* ]] || [[ ${lines[0]} != *"$expected"* ]]; then
		echo "revoke-bpf $(printf '%q ' "$@" | cut -c1-200): status $status, expected one line with '$expected':"
		printf '%s\n' "$output" | cut -c1-300
		return 1
	fi
}

@test "every malformed argument of every command is a one-line error, exits non-zero and changes nothing" {
	local big sock=/run/revoke-bpf/control.sock
	revoke "$F"
	BEFORE=$(revoke-bpf list --json)
	big=$(head -c 5000 /dev/zero | tr '\0' a)
	# operands: non-numbers, negatives, 2^64, empty, huge, not UTF-8
	refused "cannot open '': No such file" add ""
	refused "cannot open 'abc'" add abc
	refused "invalid --inode '-5': not a positive integer" add --inode -5
	refused "unknown option '-5'" add -5
	refused "invalid --inode '0'" del --inode 0
	refused "'0' could be the file ./0 or inode 0" del 0
	refused "invalid --inode '18446744073709551616': out of range" add --inode 18446744073709551616
	refused "invalid --inode '99999999999999999999999': out of range" del --inode 99999999999999999999999
	refused "cannot open 'aaaa" add "$big"
	refused "cannot open '/tmp/\\xff\\xfe\\x1b[1m': No such file" add $'/tmp/\xff\xfe\x1b[1m'
	# paths that do not exist, are sockets, directories; devices that do not
	refused "cannot open '/nonexistent'" del /nonexistent
	refused "'$sock' is a socket" add "$sock"
	refused "'/tmp' is a directory" add /tmp
	refused "cannot open '/dev/no-such-device'" add /dev/no-such-device
	# options and their values
	refused "invalid --dev '': expected MAJ:MIN" add --inode 12 --dev ""
	refused "invalid --dev '-1:0'" add --inode 12 --dev -1:0
	refused "invalid --dev '8:18446744073709551616'" add --inode 12 --dev 8:18446744073709551616
	refused "--dev needs a value" add --inode 12 --dev
	refused "--dev names the filesystem of an --inode; a PATH needs none" add "$F" --dev 8:1
	refused "invalid --rdev '': expected MAJ:MIN" add --rdev "" --char
	refused "invalid --rdev 'a:b'" del --rdev a:b --block
	refused "invalid --rdev '4096:0'" add --rdev 4096:0 --block
	refused "--rdev needs --char or --block" add --rdev 1:3
	refused "give one of --char and --block" add --rdev 1:3 --char --block
	refused "--rdev needs a value" del --rdev
	local t
	for t in 0 -1 abc "" 61 60001ms 18446744073709551616 1.5s; do
		refused "--timeout needs a duration from 1ms to 60s: seconds, or a number with ms, s or min (100ms, 2s, 1min)" add "$F" --timeout "$t"
	done
	refused "--timeout needs a duration" add "$F" --timeout
	for t in "" "$big" $'\xff' "a b" "a=b"; do
		refused "--cause needs one word" add --rdev 1:3 --char --cause "$t"
	done
	refused "unknown option '--frob'" add --frob
	refused "unknown option '--release'" del "$F" --release
	refused "unexpected extra operand '/b'" add /a /b
	refused "takes no operand, and 'x' is one" list x
	refused "takes no operand, and 'x' is one" status x
	refused "unknown option '--frob'; try 'revoke-bpf help events'" events --frob
	refused "takes no operand, and 'x' is one" reload x
	refused "takes no operand" uevent x
	refused "unknown command 'frob'" frob
	refused "--socket needs the path of revoke-bpfd's control socket" --socket "" status
	refused "--socket needs the path of revoke-bpfd's control socket" --socket "$big" list
	revoke-bpf status >/dev/null
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

@test "a user other than root may list and status but not add, del or stream events" {
	revoke "$F"
	run "$ASUSER" 65534 revoke-bpf list
	[ "$status" -eq 0 ]
	[[ $output == *"$(stat -c %i "$F")"* ]]
	run "$ASUSER" 65534 revoke-bpf status
	[ "$status" -eq 0 ]
	run "$ASUSER" 65534 revoke-bpf del "$F"
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: del: only root may use 'del' (you are uid 65534); run it with sudo"
	run "$ASUSER" 65534 revoke-bpf events --count 1
	[ "$status" -eq 1 ]
	expect_lines "revoke-bpf: events: only root may use 'events' (you are uid 65534); run it with sudo"
	run "$PROBE" "$F" read
	expect_lines "first open: EIO"
}

@test "malformed requests on the socket get an error line and the daemon lives on" {
	local req
	for req in "" "hello" "revoke-bpf/2 list" "revoke-bpf/1 frob" \
		"revoke-bpf/1 add" "revoke-bpf/1 add ino=-1" "revoke-bpf/1 add ino=1 dev=1" \
		"revoke-bpf/1 add ino=18446744073709551616" "revoke-bpf/1 list ino=3" \
		"revoke-bpf/1 add ino=1 ino=2" $'revoke-bpf/1 \xff\xfe'; do
		run bash -c 'printf "%s\n" "$1" | "$2" /run/revoke-bpf/control.sock' _ "$req" "$CTLSEND"
		[[ $output == "err EINVAL bad request: "* ]] || { echo "request '$req' got '$output'"; false; }
	done
	# every field, with a non-number, a negative, 2^64, an empty value,
	# a huge one and bytes that are not UTF-8
	local field val big
	big=$(head -c 3000 /dev/zero | tr '\0' 9)
	for field in "add ino" "add ino=12 dev" "add ino=12 dev=8:1 release" \
		"add ino=12 dev=8:1 timeout_ms" "add type=char rdev" "add rdev=1:3 type" \
		"add rdev=1:3 type=char removed" "add rdev=1:3 type=char cause" \
		"uevent rdev=8:0 type=block action" "uevent action=remove type=block rdev" \
		"uevent action=remove rdev=8:0 type=block p.DEVNAME"; do
		for val in x -1 18446744073709551616 "" "$big" $'\xff\xfe'; do
			# a word is a fine cause or action, and any text a property
			case "$field:$val" in
			*cause:x | *cause:-1 | *cause:18446744073709551616 | *action:x) continue ;;
			*p.DEVNAME:$'\xff\xfe') ;;
			*p.DEVNAME:*) continue ;;
			esac
			req="revoke-bpf/1 $field=$val"
			run bash -c 'printf "%s\n" "$1" | "$2" /run/revoke-bpf/control.sock' _ "$req" "$CTLSEND"
			[[ $output == "err EINVAL bad request: "* ]] ||
				{ echo "request '${req:0:80}' got '${output:0:200}'"; false; }
		done
	done
	run bash -c 'head -c 10000 /dev/zero | tr "\0" a | "$1" /run/revoke-bpf/control.sock' _ "$CTLSEND"
	expect_lines "err EINVAL request too long (limit 4096 bytes)"
	revoke-bpf status >/dev/null
	state_unchanged
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

@test "add 12, with a file named 12 here, is refused naming both readings, and revokes neither" {
	local d
	d=$(mktemp -d)
	CLEANUP+=("rm -rf $d")
	cd "$d"
	echo twelve > 12
	run revoke-bpf add 12
	[ "$status" -eq 2 ]
	expect_lines "revoke-bpf: add: '12' could be the file ./12 or inode 12: write ./12 for the file, --inode 12 for the inode"
	state_unchanged
	run "$PROBE" 12 read
	expect_lines "read: ok"
	# ./12 is the file
	run revoke-bpf add ./12
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "./12: revoked (dev $(devof 12) ino $(stat -c %i 12))" ]]
	run "$PROBE" 12 read
	expect_lines "first open: EIO"
	revoke-bpf del ./12 >/dev/null
	cd /
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

@test "a file its owner named with a newline, ESC and BEL is added, asked about, listed and deleted by path" {
	local d p ino
	d=$(mktemp -d)
	CLEANUP+=("rm -rf $d")
	chmod 1777 "$d"
	p="$d/"$'evil\nok revoked\e[2J\e]0;PWN\a'
	"$ASUSER" 65534 sh -c 'echo secret > "$1"' _ "$p"
	ino=$(stat -c %i "$p")
	start_holder /tmp/cli-evil.out hold "$p"
	CLEANUP+=("kill $HOLDER_PID")
	run revoke-bpf holders "$p"
	[ "$status" -eq 0 ]
	[[ $output == *$'\n'"$HOLDER_PID "* ]]
	run revoke-bpf add "$p"
	[ "$status" -eq 0 ]
	run "$PROBE" "$p" read
	expect_lines "first open: EIO"
	run bash -c 'revoke-bpf list --json |
		jq -j --arg i "$1" ".[] | select((.ino | tostring) == \$i) | .path"' _ "$ino"
	[ "$output" = "$p" ]
	run revoke-bpf del "$p"
	[ "$status" -eq 0 ]
	run "$PROBE" "$p" read
	expect_lines "read: ok"
}

@test "a path longer than 255 bytes is added, and listed as … and its last 252 bytes" {
	local d p ino a b c
	a=$(printf 'a%.0s' {1..100}) b=$(printf 'b%.0s' {1..100})
	c=$(printf 'c%.0s' {1..100})
	d=$(mktemp -d)
	CLEANUP+=("rm -rf $d")
	mkdir -p "$d/$a/$b"
	p=$d/$a/$b/$c
	echo x > "$p"
	ino=$(stat -c %i "$p")
	run revoke-bpf add "$p"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$p: revoked (dev $(devof "$p") ino $ino)" ]
	run "$PROBE" "$p" read
	expect_lines "first open: EIO"
	run bash -c 'revoke-bpf list --json |
		jq -j --arg i "$1" ".[] | select((.ino | tostring) == \$i) | .path"' _ "$ino"
	[ "$output" = "…${p: -252}" ]
	revoke-bpf del "$p" >/dev/null
	state_unchanged
}

# ---- what people read, and one JSON (issue 34) ----------------------------

SCHEMA=$REPO/doc/revoke-bpf.schema.json

# valid VERB: stdin (JSON documents) is valid against the schema's
# $defs/VERB; prints what is not, and fails, otherwise
valid() {
	local errs
	errs=$(jq -r --slurpfile schema "$SCHEMA" --arg verb "$1" \
		-f "$REPO/tests/lib/schema.jq")
	[ -z "$errs" ] || { echo "$1: $errs"; return 1; }
}

# tmpfs_at DIR: a tmpfs mounted at DIR (made), unmounted in teardown
tmpfs_at() {
	mkdir -p "$1"
	mount -t tmpfs tmpfs "$1"
	MNT_T=$1
}

@test "every verb's --json validates against doc/revoke-bpf.schema.json: holders, add, list, status, events, del, reload, umount, an error" {
	local ev m
	start_holder "$BATS_TEST_TMPDIR/h.out" hold "$F"
	run revoke-bpf --json holders "$F"
	[ "$status" -eq 0 ]
	valid holders <<<"$output"
	[ "$(jq -c ".[] | select(.pid == $HOLDER_PID) | [.user, .access]" <<<"$output")" = '["root","f"]' ]
	run revoke-bpf --json add "$F"
	[ "$status" -eq 0 ]
	valid add <<<"$output"
	[ "$(jq -c '[.result, .report.holders, .failures]' <<<"$output")" = '["added",1,[]]' ]
	run revoke-bpf --json list --all
	[ "$status" -eq 0 ]
	valid list <<<"$output"
	run revoke-bpf --json status
	[ "$status" -eq 0 ]
	valid status <<<"$output"
	[ "$(jq -c '[.enforcement, (.adopted | type)]' <<<"$output")" = '["attached","boolean"]' ]
	revoke-bpf --json events --count 1 > "$BATS_TEST_TMPDIR/ev" &
	ev=$!
	wait_subscribed 1
	cat "$F" 2>/dev/null || true
	wait $ev
	valid event < "$BATS_TEST_TMPDIR/ev"
	# the wall-clock time of the denial is now, within a minute
	[ $(( $(jq '.time_ns / 1e9 | floor' "$BATS_TEST_TMPDIR/ev") - $(date +%s) )) -le 60 ]
	[ $(( $(date +%s) - $(jq '.time_ns / 1e9 | floor' "$BATS_TEST_TMPDIR/ev") )) -le 60 ]
	run revoke-bpf --json del "$F"
	[ "$status" -eq 0 ]
	valid del <<<"$output"
	run revoke-bpf --json reload
	[ "$status" -eq 0 ]
	valid reload <<<"$output"
	m=$BATS_TEST_TMPDIR/m
	tmpfs_at "$m"
	echo x > "$m/f"
	run revoke-bpf --json umount "$m"
	[ "$status" -eq 0 ]
	valid umount <<<"$output"
	[ "$(jq -c '[.result, .filesystems[0].gone]' <<<"$output")" = '["umounted",true]' ]
	run --separate-stderr revoke-bpf --json add /nonexistent/file
	[ "$status" -eq 1 ]
	valid error <<<"$output"
	[ "$(jq -r .error <<<"$output")" = "${stderr#revoke-bpf: add: }" ]
}

@test "the schema check fails on a removed field and on a wrong type" {
	revoke "$F"
	local doc
	doc=$(revoke-bpf --json status)
	valid status <<<"$doc"
	run valid status <<<"$(jq 'del(.entries)' <<<"$doc")"
	[ "$status" -eq 1 ]
	[ "$output" = "status: \$: entries is missing" ]
	run valid status <<<"$(jq '.adopted = "no"' <<<"$doc")"
	[ "$status" -eq 1 ]
	[ "$output" = 'status: $.adopted: string where "boolean" is expected' ]
	run valid list <<<"$(revoke-bpf --json list | jq '.[0].ino |= tostring')"
	[ "$status" -eq 1 ]
	[ "$output" = 'list: $[0].ino: string where "integer" is expected' ]
}

@test "status is a summary of at most 12 lines; status -v is every field" {
	revoke "$F"
	run revoke-bpf status
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -le 12 ]
	[ "${lines[0]}" = "enforcement  attached: every revoked file, device and filesystem is denied" ]
	[[ ${lines[1]} =~ ^programs\ +([0-9]+)/([0-9]+)\ attached ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	[ "${lines[3]}" = "BPF LSM      active" ]
	[ "${lines[4]}" = "kernel       $(uname -r)" ]
	run revoke-bpf status -v
	[ "${#lines[@]}" -gt 40 ]
	[ "$(grep -c '^program\.' <<<"$output")" -eq 30 ]
}

@test "list fits 80 columns with the path last and the time in local ISO 8601" {
	revoke "$F"
	run revoke-bpf list
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "KIND  DEV       INODE      DENIALS REVOKED_AT          AT ADD:H/F/M/W PATH" ]
	local row
	row=$(grep -F " $F" <<<"$output")
	[ "${row:70}" = "$F" ]
	[[ $row =~ ^inode\ $(devof "$F")\ +$(stat -c %i "$F")\ +0\ $(date +%Y-%m-%d)\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ 0/0/0/0\ +$F$ ]]
}

@test "a process name with control characters is shown escaped by holders, a mount path by umount" {
	local m fd
	# a shell that names itself (only a process may write its own comm,
	# and each write(2) replaces it: no newline, which would flush
	# printf's buffer in two writes) and holds F on fd 7 until killed
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	bash -c 'printf "ev\r\033[2J\007" > /proc/self/comm; exec 7<"$1"
		echo ready > "$2"; read -r _ <> "$3"' _ "$F" \
		"$BATS_TEST_TMPDIR/h.out" "$BATS_TEST_TMPDIR/fifo" 3>&- &
	HOLDER_PID=$!
	wait_ready_line "$BATS_TEST_TMPDIR/h.out" "a holder named ev<CR><ESC>[2J<BEL>"
	fd=7
	run revoke-bpf holders "$F"
	[ "$status" -eq 0 ]
	expect_lines "PID      USER       COMMAND          ACCESS FD" \
		"$(printf '%-8s %-10s %-16s %-6s %s' "$HOLDER_PID" root 'ev\r\x1b[2J\x07' f "$fd")"
	[ "$(revoke-bpf --json holders "$F" | jq -c '.[0].comm')" = '"ev\r\u001b[2J\u0007"' ]
	kill_holders
	m=$BATS_TEST_TMPDIR/$'m\e]0;PWN\a'
	tmpfs_at "$m"
	run revoke-bpf umount "$m"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "filesystem "*" (tmpfs) of $BATS_TEST_TMPDIR/m\\x1b]0;PWN\\x07: revoked" ]]
	grep -qxF "  umount $BATS_TEST_TMPDIR/m\\x1b]0;PWN\\x07: done" <<<"$output" ||
		grep -qxF "  umount $BATS_TEST_TMPDIR/m\\x1b]0;PWN\\x07: gone" <<<"$output"
	[[ ${lines[-1]} =~ ^\ \ took\ [0-9.]+\ (us|ms|s):\ sync\ [0-9.]+\ (us|ms|s),\ holders\  ]]
	! grep -q $'\e' <<<"$output"
}
