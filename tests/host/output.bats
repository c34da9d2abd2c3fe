#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# What revoke-bpf prints, text and --json, for answers of revoke-bpfd's
# given as they are on the wire: tests/host/fakectl.py stands in for the
# daemon's socket and sends back the file ANSWER.  And tests/lib/schema.jq,
# the jq validator the VM suite checks every verb's --json with, against
# python3-jsonschema.

bats_require_minimum_version 1.5.0

load ../lib/schema

setup_file() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	export REPO
	export SOCK=$BATS_FILE_TMPDIR/ctl.sock ANSWER=$BATS_FILE_TMPDIR/answer
	: > "$ANSWER"
	python3 "$REPO/tests/host/fakectl.py" "$SOCK" "$ANSWER" \
		> "$BATS_FILE_TMPDIR/ready" 3>&- &
	echo $! > "$BATS_FILE_TMPDIR/fake.pid"
	for _ in $(seq 100); do
		[ -s "$BATS_FILE_TMPDIR/ready" ] && return 0
		sleep 0.05
	done
	echo "fakectl.py did not start" >&2
	return 1
}

teardown_file() {
	kill "$(cat "$BATS_FILE_TMPDIR/fake.pid")"
}

setup() {
	CLI=$REPO/build/revoke-bpf
	SCHEMA=$REPO/doc/revoke-bpf.schema.json
	export TZ=UTC
}

# answer LINE...: what the stand-in daemon answers next
answer() { printf '%s\n' "$@" > "$ANSWER"; }

rbpf() { "$CLI" --socket "$SOCK" "$@"; }

# expect_lines LINE...: $output is exactly these lines
expect_lines() {
	local want
	want=$(printf '%s\n' "$@")
	[ "$output" = "${want%$'\n'}" ] && return 0
	printf 'expected:\n%s\ngot:\n%s\n' "$want" "$output"
	return 1
}

# pyvalid VERB: the same with python3-jsonschema; exit 0 if valid
pyvalid() {
	python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
schema = dict(schema, **{"$ref": "#/$defs/" + sys.argv[2]})
for line in sys.stdin.read().splitlines():
    if line.strip():
        jsonschema.validate(json.loads(line), schema,
                            cls=jsonschema.Draft202012Validator)
' "$SCHEMA" "$1" 2>/dev/null
}

EVIL_ENC='/tmp/evil%0Aok%20revoked%1B%5B2J%1B%5D0%3BPWN%07'
EVIL_TEXT='/tmp/evil\nok revoked\x1b[2J\x1b]0;PWN\x07'

LIST_ANSWER=(
	"ok list"
	"dev=8:1 ino=1234 kind=revoked revoked_at=1796613247 denials=3 holders=1 fds=2 mappings=0 waiters=0 woken=0 unmapped=0 released=1 failed=0 path=/srv/a.log"
	"dev=0:1 ino=77 kind=dead revoked_at=1796613247 denials=0"
	"rdev=188:0 type=char kind=device revoked_at=1796613247 removed_at=1796613250 denials=12 cause=2024"
	"fs=0:45 kind=filesystem revoked_at=1796613248 denials=0 cause=-"
	"dev=8:1 ino=99 kind=revoked revoked_at=1796613249 denials=0 holders=2 fds=2 mappings=1 waiters=0 woken=0 unmapped=1 released=0 failed=2 path=$EVIL_ENC"
)

@test "list: 80 columns with the path last, local times, devices and filesystems aligned, dead files counted" {
	answer "${LIST_ANSWER[@]}"
	run rbpf list
	[ "$status" -eq 0 ]
	[ "$output" = "KIND  DEV       INODE      DENIALS REVOKED_AT          AT ADD:H/F/M/W PATH
inode 8:1       1234             3 2026-12-07 03:14:07 1/2/0/0        /srv/a.log
char  188:0     -               12 2026-12-07 03:14:07 -              (removed) cause=2024
fs    0:45      *                0 2026-12-07 03:14:08 -
inode 8:1       99               0 2026-12-07 03:14:09 2/2/1/0        $EVIL_TEXT (2 holders not handled)
(1 dead file not shown: what holders' descriptors and mappings of a revoked file now refer to, gone once closed; 'list --all' shows them)" ]
	# every column before the path fits 80: the path begins at 71
	[ "${#lines[0]}" -le 80 ]
	[ "${lines[0]:70}" = PATH ]
	[ "${lines[1]:70}" = /srv/a.log ]
	[ "${lines[2]:70}" = "(removed) cause=2024" ]
}

@test "list --all shows the dead files; TZ gives the local time" {
	answer "${LIST_ANSWER[@]}"
	TZ=Europe/Paris run rbpf list --all
	[ "${lines[2]}" = "dead  0:1       77               0 2026-12-07 04:14:07 -              -" ]
	[ "${#lines[@]}" -eq 6 ]
}

@test "list --json: numbers by field (a cause of 2024 stays a string), null for none, epoch and RFC 3339 times, the exact name" {
	answer "${LIST_ANSWER[@]}"
	run rbpf --json list
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[1]' <<<"$output")" = '{"rdev":"188:0","type":"char","kind":"device","revoked_at":1796613247,"revoked_at_rfc3339":"2026-12-07T03:14:07Z","removed_at":1796613250,"removed_at_rfc3339":"2026-12-07T03:14:10Z","denials":12,"cause":"2024"}' ]
	[ "$(jq -c '.[2].cause' <<<"$output")" = null ]
	[ "$(jq -r '.[3].path' <<<"$output")" = "$(printf '/tmp/evil\nok revoked\033[2J\033]0;PWN\007')" ]
	# the dead file too only with --all
	[ "$(jq length <<<"$output")" -eq 4 ]
	valid list <<<"$output"
	run rbpf --json list --all
	[ "$(jq -c '[.[] | .kind]' <<<"$output")" = '["revoked","dead","device","filesystem","revoked"]' ]
}

STATUS_ANSWER=(
	"ok status" "daemon_pid=123" "version=0.1.0" "uptime_s=4000"
	"kernel=6.12.1" "lsm=lockdown,capability,bpf" "bpf_lsm=active"
	"enforcement=attached" "attaches=1" "detaches=0" "last_attach_us=1234"
	"detach_after_s=60" "programs_attached=3/3" "programs_skipped=1"
	"program.file_open=attached" "program.file_permission=attached"
	"program.mmap_file=attached" "program.uring_cmd=skipped"
	"pin_dir=/sys/fs/bpf/revoke-bpf" "adopted=no" "replaced_programs=0"
	"programs_adopted=yes" "load_us=108000"
	"entries=3" "capacity=65536" "devices=1" "filesystems=0" "pauses=0" "paused_classes=0"
	"freed_inodes=0" "events_lost=0" "subscribers=0"
	"socket=/run/revoke-bpf.sock" "admin_group=-" "connections=1"
	"connections_closing=0" "connections_refused=0" "connections_evicted=0"
	"requests_late=0" "clients_not_reading=0" "descriptors_refused=0"
	"descriptor_refusal=kernel" "closer_kicks=0"
)

@test "status: a summary of six lines on a healthy system" {
	answer "${STATUS_ANSWER[@]}"
	run rbpf status
	[ "$status" -eq 0 ]
	[ "$output" = "enforcement  attached: every revoked file, device and filesystem is denied
programs     3/3 attached, 1 skipped (this kernel lacks their hook)
entries      3 inodes, 1 device, 0 filesystems (room for 65536 inodes)
BPF LSM      active
kernel       6.12.1
revoke-bpfd  pid 123, version 0.1.0, up 66 min" ]
}

@test "status: the seats followed, one line after the six, only when the policy names some" {
	answer "${STATUS_ANSWER[@]}" "seats=seat0,seat-usb"
	run rbpf status
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 7 ]
	[ "${lines[6]}" = "seats        seat0,seat-usb: who has a session there but not the active one is paused on its uaccess devices" ]
	answer "${STATUS_ANSWER[@]}" "seats=-"
	run rbpf status
	[ "${#lines[@]}" -eq 6 ]
	run rbpf --json status
	[ "$(jq -c .seats <<<"$output")" = null ]
	valid status <<<"$output"
}

@test "status: one line per problem, still at most 12 lines" {
	answer "${STATUS_ANSWER[@]/bpf_lsm=active/bpf_lsm=inactive}"
	sed -i 's/^entries=3$/entries=65000/; s/^events_lost=0$/events_lost=7/' "$ANSWER"
	run rbpf status
	[ "${#lines[@]}" -le 12 ]
	[ "${lines[6]}" = "problem      BPF LSM is not active: nothing can be denied; boot with bpf in lsm=" ]
	[ "${lines[7]}" = "problem      the inode set is 99% full" ]
	[ "${lines[8]}" = "problem      7 denial events were lost (the ring buffer was full)" ]
}

@test "status -v and --verbose: every field, as before" {
	answer "${STATUS_ANSWER[@]}"
	run rbpf status -v
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 42 ]
	[ "${lines[0]}" = "daemon_pid         123" ]
	[ "${lines[14]}" = "program.file_permission attached" ]
	[ "${lines[20]}" = "programs_adopted   yes" ]
	[ "${lines[21]}" = "load_us            108000" ]
	[ "${lines[32]}" = "admin_group        -" ]
	[ "$(rbpf status --verbose)" = "$output" ]
}

@test "status --json: typed, program.NAME nested, valid" {
	answer "${STATUS_ANSWER[@]}"
	run rbpf --json status
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.daemon_pid, .adopted, .admin_group, .program, .programs_attached]' <<<"$output")" = \
		'[123,false,null,{"file_open":"attached","file_permission":"attached","mmap_file":"attached","uring_cmd":"skipped"},"3/3"]' ]
	valid status <<<"$output"
}

@test "a failure in --json mode is {\"error\": ...} on stdout and one line on stderr" {
	answer "err EPERM only root may do that"
	run --separate-stderr rbpf --json list
	[ "$status" -eq 1 ]
	[ "$output" = '{"error":"only root may do that"}' ]
	[ "$stderr" = "revoke-bpf: list: only root may do that" ]
	valid error <<<"$output"
	run --separate-stderr "$CLI" --socket "$BATS_TEST_TMPDIR/none" --json status
	[ "$status" -eq 1 ]
	[ "$(jq -r 'keys[]' <<<"$output")" = error ]
}

@test "-p/--pretty indents the same JSON" {
	answer "${STATUS_ANSWER[@]}"
	run rbpf -p status
	[ "${lines[0]}" = "{" ]
	[ "${lines[1]}" = '  "daemon_pid": 123,' ]
	[ "${lines[14]}" = '  "program": {' ]
	[ "${lines[15]}" = '    "file_open": "attached",' ]
	[ "$(jq -S . <<<"$output")" = "$(rbpf --json status | jq -S .)" ]
	[ "$(rbpf --pretty status)" = "$output" ]
}

UMOUNT_ANSWER=(
	"ok umounted" "fs=8:16 fstype=ext4"
	"holders=1 fds=1 mappings=0 waiters=0 woken=0 unmapped=0 released=1 failed=0 discover_us=100 total_us=14015000 killed=0 passes=1"
	"sync fs=8:16 result=ok"
	"pin kind=mount ns=4026531840 pid=1 dev=8:16 path=/mnt/x%1B%5D0%3BPWN%07%0A submount=no"
	"unpin step=umount ns=4026531840 pid=1 path=/mnt/x%1B%5D0%3BPWN%07%0A dev=8:16 submount=no result=done"
	"filesystem fs=8:16 gone=yes"
	"umount sync_us=8000 pipeline_us=14015000 release_us=1200 gone_us=300 total_us=14024500"
)

@test "umount: durations in human units, a mount path escaped" {
	answer "${UMOUNT_ANSWER[@]}"
	run rbpf umount /dev/shm
	[ "$status" -eq 0 ]
	[ "$output" = 'filesystem 8:16 (ext4) of /dev/shm: revoked
  holders 1: fds 1, mappings 0, waiters 0; woken 0, unmapped 0, released 1; failed 0
  sync: ok
  umount /mnt/x\x1b]0;PWN\x07\n: done
  filesystem 8:16: gone
  took 14.0 s: sync 8 ms, holders 14.0 s, release 1 ms, gone 300 us' ]
}

@test "umount --json: booleans, the exact mount path, valid" {
	answer "${UMOUNT_ANSWER[@]}"
	run rbpf --json umount /dev/shm
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.filesystems[0].gone, .pins[0].submount, .umount[0].total_us]' <<<"$output")" = '[true,false,14024500]' ]
	[ "$(jq -c '.unpins[0].path' <<<"$output")" = '"/mnt/x\u001b]0;PWN\u0007\n"' ]
	valid umount <<<"$output"
}

ADD_ANSWER=(
	"ok added" "dev=8:1 ino=12 attach_us=0"
	"holders=2 fds=2 mappings=0 waiters=0 woken=0 unmapped=0 released=0 failed=1 discover_us=1 total_us=2 killed=1 passes=1"
	"failure pid=7 tid=0 step=stop reason=traced uid=1000 user=alice comm=x%1B keeps_access=yes"
	"killed pid=8 uid=4242 comm=hostile step=stop reason=no_thread_stopped gone=no"
)

@test "add: user names from the daemon, the uid when it has none, names escaped, exit 4" {
	answer "${ADD_ANSWER[@]}"
	run rbpf add /etc/hostname
	[ "$status" -eq 4 ]
	[ "$output" = '/etc/hostname: revoked (dev 8:1 ino 12)
  holders 2: fds 2, mappings 0, waiters 0; woken 0, unmapped 0, released 0; failed 1, killed 1
  failed: pid 7 (x\x1b) user alice: stop: traced
  killed: pid 8 (hostile) uid 4242: stop: no_thread_stopped; still alive' ]
	run rbpf --json add /etc/hostname
	[ "$status" -eq 4 ]
	[ "$(jq -c '.failures[0] | [.user, .uid, .keeps_access]' <<<"$output")" = '["alice",1000,true]' ]
	[ "$(jq -c '.killed[0] | has("user")' <<<"$output")" = false ]
	valid add <<<"$output"
}

HOLDERS_ANSWER=(
	"ok holders" "dev=8:1 ino=12"
	"holder pid=10 uid=1000 user=alice comm=c%1B%5B2J fd=3,4 mappings=0 io_uring=0 cwd=no root=no exe=no"
	"holder pid=11 uid=4242 comm=sleep fd=- mappings=2 io_uring=0 cwd=yes root=no exe=no"
)

@test "holders: the user the daemon named, else the uid; the command escaped" {
	answer "${HOLDERS_ANSWER[@]}"
	run rbpf holders /etc/hostname
	[ "$output" = 'PID      USER       COMMAND          ACCESS FD
10       alice      c\x1b[2J         f      3,4
11       4242       sleep            mc     -' ]
	run rbpf --json holders /etc/hostname
	[ "$(jq -c '.[] | [.user, .fd, .cwd, .access]' <<<"$output")" = '["alice",[3,4],false,"f"]
[null,[],true,"mc"]' ]
	valid holders <<<"$output"
}

# A name of bytes that look like UTF-8 but are not (an overlong newline,
# a surrogate, a code point past U+10FFFF): a holder names itself so
# (prctl PR_SET_NAME), a file's owner names the file.  Strict decoders
# (Python's) refuse such bytes: they are U+FFFD in JSON and \xNN in text.
@test "holders: a command of malformed UTF-8 (overlong, surrogate, past U+10FFFF) is U+FFFD in JSON, \\x in text" {
	answer "ok holders" "" \
		"holder pid=12 uid=1000 comm=a%E0%80%8Ab%ED%A0%80c%F4%90%80%80 fd=3 mappings=0 io_uring=0 cwd=no root=no exe=no"
	run rbpf --json holders /etc/hostname
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read())' <<<"$output"
	[ "$(jq -r '.[0].comm' <<<"$output")" = "a$(printf '\uFFFD%.0s' 1 2 3)b$(printf '\uFFFD%.0s' 1 2 3)c$(printf '\uFFFD%.0s' 1 2 3 4)" ]
	run rbpf holders /etc/hostname
	[[ $output == *'a\xe0\x80\x8ab\xed\xa0\x80c\xf4\x90\x80\x80'* ]]
}

# Characters that show nothing themselves but reorder or hide the text
# around them: a right-to-left override makes "a<U+202E>fdp.exe" show
# as "aexe.pdf"; a zero-width space and U+2028 hide in a name.  Escaped
# in text; exact in JSON.
@test "holders: a command holding U+202E, U+200B or U+2028 is escaped byte by byte in text, exact in JSON" {
	answer "ok holders" "" \
		"holder pid=12 uid=1000 comm=a%E2%80%AEfdp.exe fd=3 mappings=0 io_uring=0 cwd=no root=no exe=no" \
		"holder pid=13 uid=1000 comm=b%E2%80%8Bc%E2%80%A8d fd=3 mappings=0 io_uring=0 cwd=no root=no exe=no"
	run rbpf holders /etc/hostname
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == *'a\xe2\x80\xaefdp.exe '* ]]
	[[ ${lines[2]} == *'b\xe2\x80\x8bc\xe2\x80\xa8d '* ]]
	run rbpf --json holders /etc/hostname
	[ "$(jq -c '[.[].comm]' <<<"$output")" = "$(printf '["a\u202efdp.exe","b\u200bc\u2028d"]')" ]
}

# An inode number is 64 bits unsigned: a FUSE server chooses its own (up
# to 2^64-1), overlayfs's xino sets high bits.  Past 2^63-1 it was
# printed as 9223372036854775807 (strtoll's ceiling), and past 19 digits
# as a string.
@test "list --json: an inode number past 2^63 is that number, up to 2^64-1" {
	answer "ok list" \
		"dev=0:50 ino=9300000000000000000 kind=revoked revoked_at=1796613249 denials=0 path=/a" \
		"dev=0:50 ino=18446744073709551615 kind=revoked revoked_at=1796613249 denials=0 path=/b" \
		"dev=0:50 ino=18446744073709551616 kind=revoked revoked_at=1796613249 denials=0 path=/c"
	run rbpf --json list
	[ "$status" -eq 0 ]
	[[ $output == *'"ino":9300000000000000000,'* ]]
	[[ $output == *'"ino":18446744073709551615,'* ]]
	# past 64 bits it is no inode number: a string, which the schema refuses
	[[ $output == *'"ino":"18446744073709551616",'* ]]
	[ "$(python3 -c 'import json, sys; print([e["ino"] for e in json.load(sys.stdin)][:2])' <<<"$output")" = "[9300000000000000000, 18446744073709551615]" ]
}

EVENT_LINE="ts_ns=1000 time_ns=1796613247123456789 pid=5 tgid=5 uid=0 comm=my%20cat%0A dev=8:1 ino=12 hook=file_open op=open arg=0x0"

@test "events: wall-clock time with milliseconds, the name escaped to one word" {
	answer "ok events" "$EVENT_LINE"
	run rbpf events --count 1
	[ "$status" -eq 0 ]
	[ "$output" = '2026-12-07 03:14:07.123 pid=5 tgid=5 uid=0 comm=my\x20cat\n dev=8:1 ino=12 hook=file_open op=open arg=0x0' ]
}

@test "events --json: epoch ns and RFC 3339, valid" {
	answer "ok events" "$EVENT_LINE" "$EVENT_LINE"
	run rbpf --json events --count 2
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == '{"ts_ns":1000,"time_ns":1796613247123456789,"pid":5,'* ]]
	[ "$(jq -c '[.time, .comm, .ino]' <<<"${lines[0]}")" = '["2026-12-07T03:14:07.123456789Z","my cat\n",12]' ]
	valid event <<<"$output"
}

@test "reload: what was read, as text and JSON" {
	answer "ok reloaded" "policy=/etc/revoke-bpf/policy.conf rules=1 source=udev"
	run rbpf reload
	[ "$output" = "reloaded: 1 rule from /etc/revoke-bpf/policy.conf (device removals from udev)" ]
	run rbpf --json reload
	[ "$output" = '{"result":"reloaded","policy":"/etc/revoke-bpf/policy.conf","rules":1,"source":"udev"}' ]
	valid reload <<<"$output"
	# the path travels percent-encoded: a space or an escape in it
	answer "ok reloaded" "policy=/etc/my%20pol%1B.conf rules=3 source=netlink"
	run rbpf reload
	[ "$output" = 'reloaded: 3 rules from /etc/my pol\x1b.conf (device removals from netlink)' ]
	[ "$(rbpf --json reload | jq -c .policy)" = '"/etc/my pol\u001b.conf"' ]
}

# Every verb's document from above, valid, and mutations that are not:
# the jq validator and python3-jsonschema must agree on each.
@test "schema.jq agrees with python3-jsonschema on valid and invalid documents" {
	local verb doc bad n=0
	declare -A docs
	answer "${LIST_ANSWER[@]}"; docs[list]=$(rbpf --json list)
	answer "${STATUS_ANSWER[@]}"; docs[status]=$(rbpf --json status)
	answer "${UMOUNT_ANSWER[@]}"; docs[umount]=$(rbpf --json umount /dev/shm)
	answer "${ADD_ANSWER[@]}"; docs[add]=$(rbpf --json add /etc/hostname || true)
	answer "${HOLDERS_ANSWER[@]}"; docs[holders]=$(rbpf --json holders /etc/hostname)
	answer "ok events" "$EVENT_LINE"; docs[event]=$(rbpf --json events --count 1)
	for verb in "${!docs[@]}"; do
		doc=${docs[$verb]}
		valid "$verb" <<<"$doc"
		pyvalid "$verb" <<<"$doc"
	done
	# a removed required field, a wrong type, an unknown field, a value
	# outside an enum, a wrong item type, a nested wrong type
	for bad in \
		"status|del(.entries)" "status|.adopted = \"no\"" \
		"status|.program.file_open = 1" "status|.enforcement = \"on\"" \
		"list|.[0].ino = \"1234\"" "list|.[0].extra = 1" \
		"list|del(.[1].kind)" "holders|.[0].fd = [\"3\"]" \
		"add|.report.holders = \"2\"" "add|del(.failures[0].step)" \
		"umount|.filesystems[0].gone = \"yes\"" "event|.time_ns = 1.5" \
		"event|del(.time)" "umount|.result = \"mounted\""; do
		verb=${bad%%|*}
		doc=$(jq -c "${bad#*|}" <<<"${docs[$verb]}")
		if valid "$verb" <<<"$doc" >/dev/null; then
			echo "jq validator took $bad"; return 1
		fi
		if pyvalid "$verb" <<<"$doc"; then
			echo "jsonschema took $bad"; return 1
		fi
		n=$((n + 1))
	done
	[ "$n" -eq 14 ]
}

PAUSE_ANSWER=(
	"ok paused"
	"device rdev=116:3 type=char uid=1001 user=alice errno=ENODEV change=added"
	"device rdev=116:4 type=char uid=1001 user=alice errno=ENODEV change=already"
	"holders=2 fds=3 mappings=1 waiters=1 woken=1 unmapped=0 released=0 failed=1 discover_us=90 total_us=2000 killed=0 passes=0"
	"failure pid=42 tid=0 step=pause reason=1_mappings_kept uid=1001 user=alice comm=arecord keeps_access=yes"
)

@test "pause: a line per device, the holders summed, a mapping it does not cover named: exit 4" {
	answer "${PAUSE_ANSWER[@]}"
	run rbpf pause --uid 1001 --rdev 116:3 --char
	[ "$status" -eq 4 ]
	expect_lines "char device 116:3: paused for uid 1001 (alice), ENODEV" \
		"char device 116:4: already paused for uid 1001 (alice), ENODEV" \
		"  holders 2: fds 3, mappings 1, waiters 1; woken 1; failed 1" \
		"  kept: pid 42 (arecord) user alice: 1 mapping of the device, which works without a system call: not paused"
	run rbpf --json pause --uid 1001 --rdev 116:3 --char
	[ "$status" -eq 4 ]
	valid pause <<<"$output"
	pyvalid pause <<<"$output"
	[ "$(jq -c '[.result, .uid, .devices[0].errno, .devices[1].change, .report.woken, .failures[0].keeps_access]' <<<"$output")" = \
		'["paused",1001,"ENODEV","already",1,true]' ]
}

@test "pause of a class, and a device it could not pause: named, exit 4" {
	answer "ok paused" \
		"class subsystem=sound uid=1001 errno=EIO change=added" \
		"device rdev=116:3 type=char uid=1001 reason=ENOSPC" \
		"device rdev=116:4 type=char uid=1001 errno=EIO change=added subsystem=sound" \
		"holders=0 fds=0 mappings=0 waiters=0 woken=0 unmapped=0 released=0 failed=0 discover_us=1 total_us=1 killed=0 passes=0"
	run rbpf pause --uid 1001 --subsystem sound --errno EIO
	[ "$status" -eq 4 ]
	expect_lines "class sound: paused for uid 1001, EIO; devices added later too" \
		"  1 device of it paused" \
		"char device 116:3: NOT paused for uid 1001: ENOSPC" \
		"  holders 0: fds 0, mappings 0, waiters 0; woken 0; failed 0"
}

@test "pause --revoke: per device what was released and replaced, the counts as add's; a holder it could not handle: exit 4" {
	answer "ok paused" \
		"device rdev=116:3 type=char uid=1001 user=alice errno=ENODEV change=added revoked=yes unmapped=3 released=1" \
		"holders=1 fds=1 mappings=3 waiters=0 woken=0 unmapped=3 released=1 failed=0 discover_us=90 total_us=2000 killed=0 passes=1"
	run rbpf pause --uid 1001 --revoke --rdev 116:3 --char
	[ "$status" -eq 0 ]
	expect_lines "char device 116:3: paused and revoked for uid 1001 (alice), ENODEV: 1 descriptor released, 3 mappings replaced" \
		"  holders 1: fds 1, mappings 3, waiters 0; woken 0, unmapped 3, released 1; failed 0"
	run rbpf --json pause --uid 1001 --revoke --rdev 116:3 --char
	[ "$status" -eq 0 ]
	valid pause <<<"$output"
	pyvalid pause <<<"$output"
	[ "$(jq -c '[.revoke, .devices[0].revoked, .devices[0].released, .devices[0].unmapped, .report.released, .report.unmapped]' <<<"$output")" = \
		'[true,true,1,3,1,3]' ]
	answer "ok paused" \
		"device rdev=116:3 type=char uid=1001 user=alice errno=ENODEV change=added revoked=yes unmapped=0 released=0" \
		"holders=1 fds=1 mappings=0 waiters=0 woken=0 unmapped=0 released=0 failed=1 discover_us=90 total_us=2000 killed=0 passes=1" \
		"failure pid=42 tid=0 step=stop reason=traced_by_pid_7 uid=1001 user=alice comm=arecord"
	run rbpf pause --uid 1001 --revoke --rdev 116:3 --char
	[ "$status" -eq 4 ]
	[ "${lines[0]}" = "char device 116:3: paused and revoked for uid 1001 (alice), ENODEV: 0 descriptors released, 0 mappings replaced" ]
	run rbpf resume --uid 1001 --revoke
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: resume: unknown option '--revoke'; try 'revoke-bpf help resume'" ]
}

@test "resume: each device given back, or said not paused; nothing: one line" {
	answer "ok resumed" \
		"device rdev=116:3 type=char uid=1001 user=alice errno=ENODEV change=deleted drained=48" \
		"class subsystem=sound uid=1001 user=alice errno=ENODEV change=absent"
	run rbpf resume --uid 1001
	[ "$status" -eq 0 ]
	expect_lines "char device 116:3: resumed for uid 1001 (alice); 48 bytes it queued during the pause dropped" \
		"class sound: was not paused for uid 1001 (alice)"
	answer "ok resumed"
	run rbpf resume --uid 1001
	[ "$status" -eq 0 ]
	[ "$output" = "nothing was paused for uid 1001" ]
	run rbpf --json resume --uid 1001
	valid resume <<<"$output"
	[ "$output" = '{"result":"resumed","uid":1001,"devices":[],"classes":[]}' ]
}

@test "pause and resume: usage errors exit 2 and send nothing" {
	: > "$ANSWER"
	run rbpf pause /dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: needs --uid UID: whose access to pause" ]
	run rbpf pause --uid 1001
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: needs a DEVICE: a node, --rdev MAJ:MIN --char|--block, --subsystem NAME or --tag uaccess" ]
	run rbpf pause --uid alice /dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --uid takes a user id, and 'alice' is not one (for a name: --uid \$(id -u NAME))" ]
	run rbpf pause --uid 1001 /etc/hostname
	[ "$status" -eq 2 ]
	[[ $output == "revoke-bpf: pause: '/etc/hostname' is not a device node:"* ]]
	run rbpf pause --uid 1001 --errno ENOENT /dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --errno takes ENODEV or EIO, not 'ENOENT'" ]
	run rbpf pause --uid 1001 --rdev 1:3
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --rdev needs --char or --block after it" ]
	run rbpf resume --uid 1001 --errno EIO
	[ "$status" -eq 2 ]
	run rbpf pause --uid 1001 --tag seat
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --tag takes uaccess (the one tag supported), not 'seat'" ]
	run rbpf resume --uid 1001 --tag power-switch
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: resume: --tag takes uaccess (the one tag supported), not 'power-switch'" ]
	run rbpf pause --uid 1001 --seat seat0 /dev/null
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --seat goes right after --tag uaccess: the seat whose tagged devices" ]
	run rbpf resume --uid 1001 --seat seat1
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: resume: --seat goes right after --tag uaccess: the seat whose tagged devices" ]
	run rbpf pause --uid 1001 --tag uaccess --seat seat0 --seat seat1
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --seat goes right after --tag uaccess: the seat whose tagged devices" ]
	run rbpf pause --uid 1001 --tag uaccess --seat 0
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --seat takes a seat's name (seat, then 1 to 19 of A-Z a-z 0-9 _ -: seat0, seat-1), not '0'" ]
	run rbpf pause --uid 1001 --tag
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: pause: --tag needs a value; try 'revoke-bpf help pause'" ]
}

@test "pause --tag uaccess: the tag's line, its devices counted under it; --json valid" {
	answer "ok paused" \
		"class tag=uaccess seat=seat0 uid=1001 user=alice errno=ENODEV change=added" \
		"device rdev=116:7 type=char uid=1001 user=alice errno=ENODEV change=added tag=uaccess seat=seat0" \
		"device rdev=116:33 type=char uid=1001 user=alice errno=ENODEV change=already tag=uaccess seat=seat0" \
		"holders=1 fds=1 mappings=0 waiters=0 woken=0 unmapped=0 released=0 failed=0 discover_us=1 total_us=1 killed=0 passes=0"
	run rbpf pause --uid 1001 --tag uaccess
	[ "$status" -eq 0 ]
	expect_lines "tag uaccess seat0: paused for uid 1001 (alice), ENODEV; devices tagged later too" \
		"  2 devices of it paused" \
		"  holders 1: fds 1, mappings 0, waiters 0; woken 0; failed 0"
	run rbpf --json pause --uid 1001 --tag uaccess --seat seat0
	[ "$status" -eq 0 ]
	valid pause <<<"$output"
	pyvalid pause <<<"$output"
	[ "$(jq -c '[.classes[0].tag, .classes[0].seat, .devices[1].tag, .devices[1].seat, .revoke]' <<<"$output")" = \
		'["uaccess","seat0","uaccess","seat0",false]' ]
	answer "ok resumed" \
		"class tag=uaccess seat=seat1 uid=1001 errno=ENODEV change=absent"
	run rbpf resume --uid 1001 --tag uaccess --seat seat1
	[ "$status" -eq 0 ]
	[ "$output" = "tag uaccess seat1: was not paused for uid 1001" ]
}

@test "list: pauses in a table of their own, for whom, what, since when" {
	answer "ok list" \
		"rdev=116:3 type=char kind=pause uid=1001 user=alice errno=ENODEV paused_at=1796613247 denials=4 cause=admin subsystem=sound" \
		"subsystem=sound kind=pause_class uid=1001 user=alice errno=ENODEV paused_at=1796613247 cause=admin"
	run rbpf list
	[ "$status" -eq 0 ]
	expect_lines "nothing is revoked" "" \
		"PAUSED FOR       DEVICE             ERRNO  DENIALS PAUSED_AT" \
		"alice            char 116:3         ENODEV       4 2026-12-07 03:14:07 cause=admin class=sound" \
		"alice            class sound        ENODEV       - 2026-12-07 03:14:07 cause=admin, new devices too"
	run rbpf --json list
	valid list <<<"$output"
	[ "$(jq -c '[.[0].kind, .[0].uid, .[0].paused_at_rfc3339, .[1].kind]' <<<"$output")" = \
		'["pause",1001,"2026-12-07T03:14:07Z","pause_class"]' ]
}

@test "list: a pause --revoke says so, a tag on a seat is shown as one" {
	answer "ok list" \
		"rdev=116:3 type=char kind=pause uid=1001 user=alice errno=ENODEV paused_at=1796613247 denials=0 cause=admin revoked=yes" \
		"rdev=116:7 type=char kind=pause uid=1002 errno=EIO paused_at=1796613247 denials=2 cause=admin revoked=no tag=uaccess seat=seat0" \
		"kind=pause_class uid=1002 errno=EIO paused_at=1796613247 cause=admin revoked=no tag=uaccess seat=seat0" \
		"kind=pause_class uid=1001 user=alice errno=ENODEV paused_at=1796613247 cause=admin revoked=yes subsystem=sound"
	run rbpf list
	[ "$status" -eq 0 ]
	expect_lines "nothing is revoked" "" \
		"PAUSED FOR       DEVICE             ERRNO  DENIALS PAUSED_AT" \
		"alice            char 116:3         ENODEV       0 2026-12-07 03:14:07 cause=admin, revoked" \
		"1002             char 116:7         EIO          2 2026-12-07 03:14:07 cause=admin tag=uaccess seat0" \
		"1002             tag uaccess seat0  EIO          - 2026-12-07 03:14:07 cause=admin, new devices too" \
		"alice            class sound        ENODEV       - 2026-12-07 03:14:07 cause=admin, revoked, new devices too"
	run rbpf --json list
	valid list <<<"$output"
	pyvalid list <<<"$output"
	[ "$(jq -c '[.[0].revoked, .[1].revoked, .[1].tag, .[1].seat, .[2].kind, .[2].tag, .[2].seat, .[3].revoked, .[3].subsystem]' <<<"$output")" = \
		'[true,false,"uaccess","seat0","pause_class","uaccess","seat0",true,"sound"]' ]
}

# promtool, Debian's (prometheus), unpacked into the VM cache, not installed
promtool() {
	local p
	p=$("$REPO/tests/vm/debfile" prometheus usr/bin/promtool) || return 1
	"$p" "$@"
}

@test "metrics: status and list as Prometheus's text format, by kind, no path in a label; promtool passes it" {
	# one answer serves both requests: status's fields, then list's lines
	answer "ok status" "version=0.1.0" "bpf_lsm=active" "enforcement=attached" \
		"attaches=2" "detaches=1" "last_attach_us=1234567" "load_us=2345678" "capacity=65536" \
		"events_lost=0" "declared=3" "declared_applied=2" "declared_failed=1" "declared_pending=0" \
		"${LIST_ANSWER[@]:1}" \
		"rdev=116:2 type=char kind=pause uid=1001 errno=ENODEV paused_at=1 denials=4 cause=admin" \
		"subsystem=video4linux kind=pause_class uid=1001 errno=ENODEV paused_at=1 cause=admin"
	run rbpf metrics
	[ "$status" -eq 0 ]
	[[ $output != *srv* && $output != *evil* && $output != *1001* ]]
	output=$(grep -v '^#' <<< "$output")
	expect_lines 'revoke_bpf_up 1' 'revoke_bpf_build_info{version="0.1.0"} 1' \
		'revoke_bpf_bpf_lsm_active 1' 'revoke_bpf_enforcement_attached 1' \
		'revoke_bpf_attaches_total 2' 'revoke_bpf_detaches_total 1' \
		'revoke_bpf_last_attach_duration_seconds 1.234567' \
		'revoke_bpf_load_duration_seconds 2.345678' \
		'revoke_bpf_entries_capacity 65536' 'revoke_bpf_events_lost_total 0' \
		'revoke_bpf_declared 3' 'revoke_bpf_declared_applied 2' \
		'revoke_bpf_declared_failed 1' 'revoke_bpf_declared_pending 0' \
		'revoke_bpf_entries{kind="file"} 3' 'revoke_bpf_entries{kind="fs"} 1' \
		'revoke_bpf_entries{kind="device"} 1' 'revoke_bpf_entries{kind="pause"} 1' \
		'revoke_bpf_entries{kind="pause_class"} 1' \
		'revoke_bpf_denials{kind="file"} 3' 'revoke_bpf_denials{kind="fs"} 0' \
		'revoke_bpf_denials{kind="device"} 12' 'revoke_bpf_denials{kind="pause"} 4' \
		'revoke_bpf_denials{kind="pause_class"} 0'
	rbpf metrics | promtool check metrics
	[ "$(rbpf metrics | grep -c '^# TYPE ')" -eq 16 ]
	[ "$(rbpf metrics | grep -c '^# HELP ')" -eq 16 ]
}

@test "metrics: an older daemon's missing fields leave their families out; -j and operands are usage errors" {
	answer "ok status" "version=0.0.9" "bpf_lsm=inactive" "enforcement=idle"
	run rbpf metrics
	[ "$status" -eq 0 ]
	[[ $output != *declared* && $output != *attaches* ]]
	[[ $output == *$'\nrevoke_bpf_bpf_lsm_active 0\n'* ]]
	[[ $output == *$'\nrevoke_bpf_enforcement_attached 0\n'* ]]
	run rbpf -j metrics
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "revoke-bpf: metrics: has no JSON form: it prints Prometheus's text format; 'revoke-bpf -j status' and '-j list' give its figures" ]
	run rbpf metrics now
	[ "$status" -eq 2 ]
	[ "$output" = "revoke-bpf: metrics: takes no operand, and 'now' is one; try 'revoke-bpf help'" ]
}

@test "metrics --output: written whole by a rename, no file left beside it; revoke-bpfd unreachable: revoke_bpf_up 0, exit 1" {
	local d=$BATS_TEST_TMPDIR/textfile
	mkdir "$d"
	answer "ok status" "version=0.1.0" "bpf_lsm=active" "enforcement=idle"
	run rbpf metrics -o "$d/revoke-bpf.prom"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(ls -A "$d")" = revoke-bpf.prom ]
	[ "$(stat -c %a "$d/revoke-bpf.prom")" = 644 ]
	[ "$(cat "$d/revoke-bpf.prom")" = "$(rbpf metrics)" ]
	run "$CLI" --socket "$BATS_TEST_TMPDIR/none.sock" metrics --output="$d/revoke-bpf.prom"
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "revoke-bpf: metrics: cannot reach revoke-bpfd at "* ]]
	[ "$(ls -A "$d")" = revoke-bpf.prom ]
	[ "$(cat "$d/revoke-bpf.prom")" = "# HELP revoke_bpf_up Whether revoke-bpfd answered (0: the other families are missing).
# TYPE revoke_bpf_up gauge
revoke_bpf_up 0" ]
	promtool check metrics < "$d/revoke-bpf.prom"
	run rbpf metrics -o "$d/no/such/dir.prom"
	[ "$status" -eq 1 ]
	[ "$output" = "revoke-bpf: metrics: cannot create a file beside '$d/no/such/dir.prom': No such file or directory; is its folder there, and writable?" ]
}
