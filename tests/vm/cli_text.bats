#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What revoke-bpf prints and refuses, decided in user space: the text
# and JSON of every verb, one-line errors for bad arguments and bad
# requests, names with control characters, the metrics, a user other
# than root.  No kernel decides any of it, and the kernel paths it goes
# through (add, list, events) are proven on each kernel by cli.bats and
# the rest: one kernel's suite runs it (tests/lib/kernels.bash).
# kernels: 6.1

load lib
load cli
load ../lib/schema

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
