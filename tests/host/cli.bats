#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The CLI and the daemon on the host, where no BPF LSM program can load:
# everything that is decided before the kernel is asked.

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	CLI=$REPO/build/revoke-bpf
	DAEMON=$REPO/build/revoke-bpfd
	NOSOCK=$BATS_TEST_TMPDIR/none.sock
}

@test "help lists every command" {
	run "$CLI" help
	[ "$status" -eq 0 ]
	[[ $output == *"revoke-bpf add "* && $output == *"revoke-bpf del "* ]]
	[[ $output == *"revoke-bpf list "* && $output == *"revoke-bpf status "* ]]
}

@test "no command prints the help and fails with 2" {
	run "$CLI"
	[ "$status" -eq 2 ]
	[[ $output == "Usage: revoke-bpf "* ]]
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

@test "add without an operand is an error" {
	run "$CLI" add
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: missing INODE or PATH; try 'revoke-bpf help'" ]
}

@test "a negative inode is an error" {
	run "$CLI" --socket "$NOSOCK" add -5
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: invalid inode '-5': not a positive integer" ]
}

@test "inode 0 is an error" {
	run "$CLI" --socket "$NOSOCK" add 0 --dev 8:1
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: invalid inode '0': not a positive integer" ]
}

@test "an inode past 2^64-1 is an error" {
	run "$CLI" --socket "$NOSOCK" del 18446744073709551616
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: del: invalid inode '18446744073709551616': out of range (at most 18446744073709551615)" ]
}

@test "a malformed --dev is an error" {
	local spec
	for spec in 8 8: :1 x:1 4096:0 0:1048576 -1:0; do
		run "$CLI" --socket "$NOSOCK" add 12 --dev "$spec"
		[ "$status" -eq 1 ]
		[ "$output" = "revoke-bpf: add: invalid --dev '$spec': expected MAJ:MIN with major < 4096 and minor < 1048576" ]
	done
}

@test "--dev with a PATH is an error" {
	run "$CLI" --socket "$NOSOCK" add /etc/hostname --dev 8:1
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: --dev names the filesystem of an INODE; it cannot be used with a PATH" ]
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
	run "$CLI" --socket "$NOSOCK" add --force 12
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: unknown option '--force'; try 'revoke-bpf help'" ]
}

@test "two operands are an error" {
	run "$CLI" --socket "$NOSOCK" add 12 13
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: unexpected extra operand '13'" ]
}

@test "a daemon that is not running is a one-line error saying how to start it" {
	run "$CLI" --socket "$NOSOCK" add /etc/hostname
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: add: cannot reach revoke-bpfd at $NOSOCK (No such file or directory); is it running? start it with 'revoke-bpfd' as root" ]
}

@test "list takes no operands" {
	run "$CLI" --socket "$NOSOCK" list 12
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: list: unexpected argument '12'" ]
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
