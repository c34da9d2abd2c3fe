#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The CLI and the daemon on the host, where no BPF LSM program can load:
# everything that is decided before the kernel is asked.

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	CLI=$REPO/build/revoke-bpf
	DAEMON=$REPO/build/revoke-bpfd
	NOSOCK=$BATS_TEST_TMPDIR/none.sock
}

@test "help is one line per command, every line under 80 columns" {
	run "$CLI" help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Usage: revoke-bpf [OPTIONS] COMMAND [ARGS]" ]
	[ "${lines[1]}" = "  add     TARGET [ADD-OPTIONS]    revoke a file, filesystem or device" ]
	[ "${lines[4]}" = "  holders TARGET [-s]             who holds a file or filesystem" ]
	for verb in add del umount holders list status metrics events reload unload uevent help; do
		[ "$(printf '%s\n' "${lines[@]}" | grep -c "^  $verb ")" -eq 1 ]
	done
	[ -z "$("$CLI" --help | awk 'length > 79')" ]
	[ "$("$CLI" -h)" = "$output" ]
}

@test "every command's help: synopsis, options with defaults, who may, exit status, example, under 80 columns" {
	local verb
	for verb in add del umount holders list status metrics events reload unload uevent help; do
		run "$CLI" help "$verb"
		[ "$status" -eq 0 ]
		[[ ${lines[0]} == "Usage: revoke-bpf $verb"* ]]
		[[ $output == *$'\nExit status: '* && $output == *$'\nExample'* ]]
		[ -z "$(printf '%s\n' "$output" | awk 'length > 79')" ]
		# the same help, however it is asked for
		[ "$("$CLI" "$verb" --help)" = "$output" ]
		[ "$("$CLI" -h "$verb")" = "$output" ]
	done
	run "$CLI" add /dev/null --timeout 1 --help
	[ "${lines[0]}" = "Usage: revoke-bpf add PATH [ADD-OPTIONS]" ]
	[ "${lines[3]}" = "       revoke-bpf add --rdev MAJ:MIN --char|--block [--removed] [ADD-OPTIONS]" ]
	[[ $output == *$'\n  --timeout DURATION    how long to wait for calls still inside the file\n                        (default 2 s; a bare number is seconds, or 100ms, 2s,\n                        1min)\n'* ]]
	[[ $output == *$'\n  --cause WORD          with --rdev or --fs: why, in one word of 1 to 31\n'* ]]
	[[ $output == *$'\nWho may:     root, and the members of revoke-bpfd\'s --group\n'* ]]
	[[ $output == *$'\nExit status: 0 every access is gone; 1 nothing was revoked; 2 the command line\n'* ]]
	run "$CLI" help uevent
	[[ $output == *$'\nWho may:     root only, never revoke-bpfd\'s --group\n'* ]]
	run "$CLI" help list
	[[ $output == *$'\nWho may:     any user\n'* ]]
	run "$CLI" help holders
	[[ $output == *$'\nExit status: 0 something holds it; 1 nothing holds it, or an error (the message\n'* ]]
}

# revoke-bpfd refuses a umount of anything but a mount point's root (its
# "is not a mount point" answer): the help must not offer "any file on
# the filesystem", which --fs takes in add, del and holders.
@test "umount's help does not offer a file inside the filesystem as MOUNTPOINT" {
	run "$CLI" help umount
	[ "$status" -eq 0 ]
	[[ $output != *"any file on the"* ]]
	[[ $output == *"a file or directory inside the"*"filesystem is refused"* ]]
}

# revoke-bpfd refuses the filesystem its executable is on even with
# --force (most often /), which the --force lines listed as forceable.
@test "--force's help says which filesystems it never forces: that of revoke-bpfd's executable too" {
	run "$CLI" help add
	[[ $output == *"the filesystem revoke-bpfd runs"*"from (most often /) are refused even so"* ]]
	run "$CLI" help umount
	[[ $output == *"the filesystem revoke-bpfd runs from (most often /)"* ]]
}

@test "help of an unknown command is one line and exit 2" {
	run "$CLI" help frob
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: help: unknown command 'frob'; try 'revoke-bpf help'" ]
}

@test "no command prints a short usage on stderr and fails with 2" {
	run --separate-stderr "$CLI"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = $'Usage: revoke-bpf [OPTIONS] COMMAND [ARGS]\nTry \'revoke-bpf help\' for the commands.' ]
	run --separate-stderr "$CLI" -j --socket "$NOSOCK"
	[ "$status" -eq 2 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "an unknown option, before or after the command, is one line naming it and exit 2" {
	run "$CLI" --socket "$NOSOCK" list --frob
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: list: unknown option '--frob'; try 'revoke-bpf help list'" ]
	run "$CLI" --frob list
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: list: unknown option '--frob'; try 'revoke-bpf help list'" ]
	run "$CLI" --frob
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: unknown option '--frob'; try 'revoke-bpf help'" ]
}

@test "global options go anywhere on the line" {
	run "$CLI" list --socket "$NOSOCK"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: list: cannot reach revoke-bpfd at $NOSOCK (No such file or directory); is it running? start it: 'systemctl start revoke-bpfd', or 'revoke-bpfd' as root" ]
	run "$CLI" status --reply-timeout 500ms --socket="$NOSOCK" -j
	[ "$status" -eq 1 ]
	[[ $output == *"cannot reach revoke-bpfd at $NOSOCK "* ]]
	run "$CLI" list -V
	[ "$status" -eq 0 ]
	[[ $output =~ ^revoke-bpf\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "a command's option takes its value, even one that looks like a global option" {
	run "$CLI" --socket "$NOSOCK" events --count -j
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: events: --count '-j' is not a positive number" ]
}

@test "-- ends the options: a file named -j is a path" {
	cd "$BATS_TEST_TMPDIR"
	run "$CLI" --socket "$NOSOCK" holders -- -j
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: holders: cannot open '-j': No such file or directory" ]
}

@test "--reply-timeout takes a duration, and a bad one is exit 2" {
	run "$CLI" --reply-timeout 2x list
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: --reply-timeout '2x' is not a duration from 0 (no limit) to 1 day: a number of seconds, or 500ms, 2s, 1min" ]
	run "$CLI" list --reply-timeout
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: list: --reply-timeout needs a value DURATION; try 'revoke-bpf help'" ]
}

@test "usage errors of list, status, reload, events, unload and uevent exit 2, sending nothing" {
	run "$CLI" --socket "$NOSOCK" list 12
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: list: takes no operand, and '12' is one; try 'revoke-bpf help'" ]
	run "$CLI" --socket "$NOSOCK" status now
	[ "$status" -eq 2 ]
	run "$CLI" --socket "$NOSOCK" reload now
	[ "$status" -eq 2 ]
	run "$CLI" --socket "$NOSOCK" events --count 0
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: events: --count '0' is not a positive number" ]
	run "$CLI" --socket "$NOSOCK" events --count
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: events: --count needs a number N; try 'revoke-bpf help events'" ]
	run "$CLI" --socket "$NOSOCK" unload
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: unload: this detaches every program and lifts every revocation; run 'revoke-bpf unload --yes' to do it" ]
	run env ACTION=remove SUBSYSTEM=block MAJOR=8 MINOR=0 \
		"$CLI" --socket "$NOSOCK" uevent extra
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: uevent: takes no operand: udev passes the event in the environment" ]
}

@test "version is printed" {
	run "$CLI" --version
	[ "$status" -eq 0 ]
	[[ $output =~ ^revoke-bpf\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "an unknown command is a one-line error with exit 2" {
	run "$CLI" frob
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: unknown command 'frob'; try 'revoke-bpf help'" ]
}

@test "add without an operand is a usage error: exit 2, one line" {
	run "$CLI" add
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: missing PATH (or --inode N, --fs FS, --rdev MAJ:MIN); try 'revoke-bpf help'" ]
}

@test "an operand of digits only is refused, naming both readings, file there or not" {
	cd "$BATS_TEST_TMPDIR"
	run "$CLI" --socket "$NOSOCK" add 12
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: '12' could be the file ./12 or inode 12: write ./12 for the file, --inode 12 for the inode" ]
	touch 12
	run "$CLI" --socket "$NOSOCK" del 12
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: del: '12' could be the file ./12 or inode 12: write ./12 for the file, --inode 12 for the inode" ]
	# an empty operand is no number: it names no file
	run "$CLI" --socket "$NOSOCK" add ""
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: cannot open '': No such file or directory" ]
	# ./12 is the file: it is sent (and the daemon is not there)
	run "$CLI" --socket "$NOSOCK" add ./12
	[ "$status" -eq 1 ]
	[[ $output == "revoke-bpf: add: cannot reach revoke-bpfd at $NOSOCK "* ]]
}

@test "a negative inode is an error" {
	run "$CLI" --socket "$NOSOCK" add --inode -5
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: invalid --inode '-5': not a positive integer" ]
	run "$CLI" --socket "$NOSOCK" add -5
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: unknown option '-5'; try 'revoke-bpf help add'" ]
}

@test "inode 0 is an error" {
	run "$CLI" --socket "$NOSOCK" add --inode 0 --dev 8:1
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: invalid --inode '0': not a positive integer" ]
}

@test "an inode past 2^64-1 is an error" {
	run "$CLI" --socket "$NOSOCK" del --inode 18446744073709551616
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: del: invalid --inode '18446744073709551616': out of range (at most 18446744073709551615)" ]
}

@test "--inode takes no PATH, and needs a value" {
	run "$CLI" --socket "$NOSOCK" add --inode 12 /etc/hostname
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: --inode names the file by number; it takes no PATH ('/etc/hostname')" ]
	run "$CLI" --socket "$NOSOCK" add --inode
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: --inode needs a value" ]
}

@test "--inode N [--dev MAJ:MIN] is sent as an inode" {
	run "$CLI" --socket "$NOSOCK" add --inode 12 --dev 8:1
	[ "$status" -eq 1 ]
	[[ $output == "revoke-bpf: add: cannot reach revoke-bpfd at $NOSOCK "* ]]
}

@test "a malformed --dev is an error" {
	local spec
	for spec in 8 8: :1 x:1 4096:0 0:1048576 -1:0; do
		run "$CLI" --socket "$NOSOCK" add --inode 12 --dev "$spec"
		[ "$status" -eq 2 ]
		[ "$output" = "revoke-bpf: add: invalid --dev '$spec': expected MAJ:MIN with major < 4096 and minor < 1048576" ]
	done
}

@test "--dev with a PATH is an error" {
	run "$CLI" --socket "$NOSOCK" add /etc/hostname --dev 8:1
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: --dev names the filesystem of an --inode; a PATH needs none" ]
}

@test "a missing path is an error naming it" {
	run "$CLI" --socket "$NOSOCK" add /no/such/file
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: cannot open '/no/such/file': No such file or directory" ]
}

@test "a socket path is refused" {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$BATS_TEST_TMPDIR/s"
	run "$CLI" --socket "$NOSOCK" add "$BATS_TEST_TMPDIR/s"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: '$BATS_TEST_TMPDIR/s' is a socket; connecting to it is not a file operation and cannot be revoked" ]
}

@test "an unknown option is an error" {
	run "$CLI" --socket "$NOSOCK" add --frob ./12
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: unknown option '--frob'; try 'revoke-bpf help add'" ]
}

@test "two operands are an error" {
	run "$CLI" --socket "$NOSOCK" add ./12 ./13
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: unexpected extra operand './13'" ]
}

@test "--force goes with --fs only, and never with del" {
	run "$CLI" --socket "$NOSOCK" add --force /etc/hostname
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: --force goes with --fs: it revokes a filesystem the system cannot do without" ]
	run "$CLI" --socket "$NOSOCK" del --fs / --force
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: del: unknown option '--force'; try 'revoke-bpf help del'" ]
}

@test "--fs needs FS; del --fs-dev takes MAJ:MIN alone" {
	run "$CLI" --socket "$NOSOCK" add --fs
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: --fs needs FS: a mount point, a file on the filesystem or the block device it is mounted from" ]
	run "$CLI" --socket "$NOSOCK" del --fs-dev 8
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: del: invalid --fs-dev '8': expected MAJ:MIN with major < 4096 and minor < 1048576" ]
	run "$CLI" --socket "$NOSOCK" del --fs-dev 8:1 /mnt
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: del: --fs-dev names a filesystem by number; it takes no --fs or FS" ]
	run "$CLI" --socket "$NOSOCK" add --fs-dev 8:1
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: add: unknown option '--fs-dev'; try 'revoke-bpf help add'" ]
	run "$CLI" --socket "$NOSOCK" del --fs-dev 8:1
	[ "$status" -eq 1 ]
	[[ $output == "revoke-bpf: del: cannot reach revoke-bpfd at $NOSOCK "* ]]
}

@test "--fs of a block device no filesystem is mounted from is an error naming it" {
	local loop
	loop=$(ls /dev/loop[0-9]* 2>/dev/null | while read -r d; do
		awk -v d="$d" '$NF != "" && index($0, " " d " ") { f = 1 } END { exit f }' \
			/proc/self/mountinfo && { echo "$d"; break; }; done)
	[ -n "$loop" ] || skip "no block device that is not mounted"
	local majmin
	majmin=$(printf '%d:%d' "0x$(stat -c %t "$loop")" "0x$(stat -c %T "$loop")")
	run "$CLI" --socket "$NOSOCK" add --fs "$loop"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: '$loop' is block device $majmin, and no filesystem is mounted from it here" ]
	run "$CLI" --socket "$NOSOCK" del --fs "$loop"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: del: '$loop' is block device $majmin, and no filesystem is mounted from it here; del --fs-dev MAJ:MIN lifts a filesystem that is gone" ]
	run "$CLI" --socket "$NOSOCK" holders --fs "$loop"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: holders: '$loop' is block device $majmin, and no filesystem is mounted from it here" ]
}

@test "add and umount --timeout take a duration: seconds, or with ms, s or min" {
	local bad
	for bad in 0 0ms 61 61s 2x 1.5 -1 ""; do
		run "$CLI" --socket "$NOSOCK" add --timeout "$bad" /etc/hostname
		[ "$status" -eq 2 ]
		[ "$output" = "revoke-bpf: add: --timeout needs a duration from 1ms to 60s: seconds, or a number with ms, s or min (100ms, 2s, 1min)" ]
	done
	run "$CLI" --socket "$NOSOCK" umount --timeout
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: umount: --timeout needs a duration from 1ms to 60s: seconds, or a number with ms, s or min (100ms, 2s, 1min)" ]
	for good in 2 100ms 1min 60s; do
		run "$CLI" --socket "$NOSOCK" add --timeout "$good" /etc/hostname
		[ "$status" -eq 1 ]
		[[ $output == "revoke-bpf: add: cannot reach revoke-bpfd at $NOSOCK "* ]]
	done
}

@test "holders: usage errors exit 2" {
	run "$CLI" --socket "$NOSOCK" holders
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: holders: missing PATH or --fs FS" ]
	run "$CLI" --socket "$NOSOCK" holders --fs
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: holders: --fs needs FS: a mount point, a file on the filesystem or the block device it is mounted from" ]
}

@test "a daemon that is not running is a one-line error saying how to start it" {
	run "$CLI" --socket "$NOSOCK" add /etc/hostname
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: cannot reach revoke-bpfd at $NOSOCK (No such file or directory); is it running? start it: 'systemctl start revoke-bpfd', or 'revoke-bpfd' as root" ]
}

@test "uevent with no daemon there exits 0 and says nothing: the udev rule logs no failure" {
	run env ACTION=remove SUBSYSTEM=block MAJOR=8 MINOR=0 \
		"$CLI" --socket "$NOSOCK" uevent
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# a socket a killed daemon left behind: nobody listens on it
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$BATS_TEST_TMPDIR/stale.sock"
	run env ACTION=remove SUBSYSTEM=block MAJOR=8 MINOR=0 \
		"$CLI" --socket "$BATS_TEST_TMPDIR/stale.sock" uevent
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "uevent with a malformed event is still a one-line error, daemon or not" {
	run env ACTION=remove SUBSYSTEM=block MAJOR=8x MINOR=0 \
		"$CLI" --socket "$NOSOCK" uevent
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: uevent: ACTION 'remove' or MAJOR:MINOR '8x:0' is malformed" ]
	run env -i "$CLI" --socket "$NOSOCK" uevent
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: uevent: ACTION, SUBSYSTEM, MAJOR and MINOR must be set, as udev's RUN+= sets them for a device node" ]
}

@test "revoke-bpfd refuses to run as a user other than root, with exit status 4" {
	run "$REPO/build/tests/asuser" 65534 "$DAEMON"
	[ "$status" -eq 4 ]
	[ "$output" = "revoke-bpfd: must run as root (it loads BPF LSM programs and reads every process's files)" ]
}

@test "revoke-bpfd rejects a bad --max-entries" {
	local n
	for n in 0 -1 abc 67108865 4294967296; do
		run "$DAEMON" --max-entries "$n"
		[ "$status" -eq 2 ]
		[ "$output" = "revoke-bpfd: --max-entries '$n' is not a number from 1 to 67108864" ]
	done
}

@test "revoke-bpfd: an unknown option is one line and exit status 2" {
	run "$DAEMON" --frob
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpfd: unrecognized option '--frob'; try 'revoke-bpfd --help'" ]
	run "$DAEMON" --pin-dir
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpfd: option '--pin-dir' needs an argument; try 'revoke-bpfd --help'" ]
}

@test "revoke-bpfd: a bad policy file or --group is exit status 6, before the socket is made" {
	[ "$(id -u)" -eq 0 ] || skip "the checks come after the one for root"
	local sock=$BATS_TEST_TMPDIR/run/control.sock
	echo "revoke mode=frob" > "$BATS_TEST_TMPDIR/policy.conf"
	run "$DAEMON" --socket "$sock" --policy "$BATS_TEST_TMPDIR/policy.conf"
	[ "$status" -eq 6 ]
	[ "$output" = "revoke-bpfd: $BATS_TEST_TMPDIR/policy.conf: line 1: mode must be given once, as deny, revoke, release or umount" ]
	run "$DAEMON" --socket "$sock" --group no-such-group-revoke
	[ "$status" -eq 6 ]
	[ "$output" = "revoke-bpfd: --group 'no-such-group-revoke': no such group" ]
	[ ! -e "$sock" ]
}

@test "revoke-bpfd refuses a pin folder that another user could write, and adopts nothing from it" {
	[ "$(id -u)" -eq 0 ] || skip "the checks come after the one for root"
	local b=$BATS_TEST_TMPDIR/bpf
	mkdir "$b"
	# a BPF filesystem of the test's own, mounted as users are told to
	mount -t bpf bpf "$b"
	mkdir "$b/pins"
	chmod 0777 "$b/pins"
	run "$DAEMON" --socket "$BATS_TEST_TMPDIR/sock" --pin-dir "$b/pins"
	umount "$b"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpfd: $b/pins is not a folder of root's that only root may write (owner uid 0, mode 0777): someone else could lift every revocation by unlinking its pins; remove it, or name another with --pin-dir" ]
}

@test "revoke-bpfd writes <3> and no name when stderr is the journal's stream" {
	local err=$BATS_TEST_TMPDIR/stderr
	: > "$err"
	local rc=0
	JOURNAL_STREAM=$(stat -c %d:%i "$err") "$DAEMON" --max-entries 0 2>>"$err" || rc=$?
	[ "$rc" -eq 2 ]
	[ "$(cat "$err")" = "<3>--max-entries '0' is not a number from 1 to 67108864" ]
	# the same stream named, but stderr elsewhere: the usual line
	run env JOURNAL_STREAM="$(stat -c %d:%i "$err")" "$DAEMON" --max-entries 0
	[ "$output" = "revoke-bpfd: --max-entries '0' is not a number from 1 to 67108864" ]
}

@test "revoke-bpfd --help and --version" {
	run "$DAEMON" --help
	[ "$status" -eq 0 ]
	[[ $output == "Usage: revoke-bpfd "* ]]
	run "$DAEMON" --version
	[[ $output =~ ^revoke-bpfd\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}
