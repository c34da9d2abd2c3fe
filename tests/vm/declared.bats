#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Declared state (revoked.d(5), issue 37): revoke-bpfd --declared DIR
# applies DIR/*.conf at start, on reload and when the folder changes,
# here laid out as a Kubernetes ConfigMap is (each NAME.conf a link into
# ..data, a link to a timestamped folder swapped by a rename).  What a
# line added survives kill -9 (the record in /run/revoke-bpf) and comes
# back after unload; what an admin added by hand is never lifted.
#
# Waits are bounded polls of 'status --json' (the daemon's own count of
# what it read), never sleeps.
#
# What it proves is the daemon's reading of the folder and its record;
# each line goes through add, whose enforcement every kernel's suite
# proves (enforcement.bats, bypass.bats): one kernel's suite runs it
# (tests/lib/kernels.bash).
# kernels: 6.1

load lib

DIR=/tmp/declared.d
T=/tmp/decl

# conf VERSION NAME LINES...: the ConfigMap's folder ..VERSION holds NAME
publish() {
	local v=$1 name=$2
	shift 2
	mkdir -p "$DIR/..$v"
	printf '%s\n' "$@" > "$DIR/..$v/$name"
	ln -sfn "..data/$name" "$DIR/$name"
}

# swap VERSION: point ..data at ..VERSION, by a rename, as kubelet does
swap() {
	ln -sfn "..$1" "$DIR/..data_tmp"
	mv -T "$DIR/..data_tmp" "$DIR/..data"
}

# declared_field KEY: status --json's KEY
declared_field() {
	revoke-bpf status --json | jq -r ".$1"
}

# wait_declared KEY VALUE: until status says so (10 s at most)
wait_declared() {
	local i
	for i in $(seq 1 100); do
		[ "$(declared_field "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	echo "status --json: $1 is $(declared_field "$1"), not $2" >&2
	return 1
}

# denied FILE: reading it fails with EIO
denied() {
	run cat "$1"
	[ "$status" -ne 0 ] && [[ $output == *"Input/output error"* ]]
}

# the entries and the line each came from, sorted
entries() {
	revoke-bpf list --json |
		jq -r '.[] | "\(.path // .rdev) \(.from // "admin")"' | sort
}

setup_file() {
	unload_all
	rm -rf "$DIR" "$T" /run/revoke-bpf/declared.state
	mkdir -p "$T"
	echo one > "$T/one"
	echo "two words" > "$T/two words"
	echo three > "$T/three"
	echo hand > "$T/hand"
	echo five > "$T/five"
	echo six > "$T/six"
	ln -s "$T/five" "$T/link"	# outside the folder: no watch sees it change
	publish v1 a.conf "# secrets leaked on 2026-12-01" \
		"$T/one" \
		"" \
		"\"$T/two words\" --spare   # quoted: a space" \
		"--bogus $T/one" \
		"relative/path" \
		"$T/later/file"
	publish v1 b.conf "--rdev 1:7 --char --cause declared" "$T/link"
	swap v1
	echo "$T/three" > "$DIR/notes.txt"	# not *.conf: not read
	echo "$T/three" > "$DIR/.hidden.conf"	# a dotfile: not read
	start_daemon --declared "$DIR"
}

teardown_file() {
	unload_all
	rm -rf "$DIR" "$T" /run/revoke-bpf/declared.state
}

@test "declared lines are applied at start; bad ones counted, a missing path pending" {
	denied "$T/one"
	denied "$T/two words"
	run cat "$T/three"
	[ "$status" -eq 0 ]
	run revoke-bpf status --json
	[ "$(jq -c '[.declared, .declared_applied, .declared_failed, .declared_pending]' <<<"$output")" = "[7,4,3,1]" ]
	[[ $(jq -r .declared_hash <<<"$output") =~ ^[0-9a-f]{16}$ ]]
	run entries
	expect_lines "$T/link b.conf:2" "$T/one a.conf:2" "$T/two words a.conf:4" "1:7 b.conf:1"
	run revoke-bpf status
	[[ $output == *"
declared: 7 lines, 4 applied, 3 failed (hash $(declared_field declared_hash))"* ]]
}

@test "reload: each line not applied as FILE:LINE: why, exit 1; the rest stays" {
	run revoke-bpf reload
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "reloaded: "* ]]
	[ "${lines[1]}" = "declared: 7 lines, 4 applied, 3 failed (hash $(declared_field declared_hash))" ]
	[ "${lines[2]}" = "$DIR/a.conf:5: unknown option '--bogus'; try 'revoke-bpf help add'" ]
	[ "${lines[3]}" = "$DIR/a.conf:6: 'relative/path' is not an absolute path; a declared line names files from /" ]
	[ "${lines[4]}" = "$DIR/a.conf:7: '$T/later/file' does not exist yet; applied when it appears" ]
	[ "${#lines[@]}" -eq 5 ]
	run entries
	expect_lines "$T/link b.conf:2" "$T/one a.conf:2" "$T/two words a.conf:4" "1:7 b.conf:1"
}

@test "a pending path is applied once it appears" {
	# it appears whole, by a rename: the daemon may revoke it the moment
	# it exists, and a write after its creation would race with that
	mkdir "$T/.stage"
	echo later > "$T/.stage/file"
	mv "$T/.stage" "$T/later"
	wait_declared declared_pending 0
	denied "$T/later/file"
	[ "$(declared_field declared_applied)" = 5 ]
}

# red team: a line is resolved again by root at every apply; a user
# whose folder it runs through must not choose the file (a link of
# theirs), nor lift it by renaming it away (the line goes pending).
@test "a declared path through another user's symbolic link is refused; a file renamed away stays revoked" {
	mkdir "$T/u"
	echo key > "$T/u/key"
	chown -R 65534 "$T/u"
	echo "$T/u/key" > "$DIR/c.conf"
	wait_declared declared 8
	denied "$T/u/key"
	"$ASUSER" 65534 sh -c "mv '$T/u/key' '$T/u/.x' && ln -s '$T/three' '$T/u/key'"
	run revoke-bpf reload
	[ "$status" -eq 1 ]
	[[ $output == *"
$DIR/c.conf:1: '$T/u/key' runs through a symbolic link of uid 65534; a declared path follows only root's (name the file it points to)"* ]]
	[ "$(cat "$T/three")" = three ]
	denied "$T/u/.x"
	rm "$DIR/c.conf"
	wait_declared declared 7
	[ "$(cat "$T/u/.x")" = key ]
	rm -r "$T/u"
	[ "$(declared_field declared_applied)" = 5 ]
}

@test "reload follows a line to its new file: the new one revoked, the old one lifted" {
	denied "$T/five"
	ln -sfn "$T/six" "$T/link"
	run revoke-bpf reload
	[ "${lines[1]}" = "declared: 7 lines, 5 applied, 2 failed (hash $(declared_field declared_hash))" ]
	[ "$(cat "$T/five")" = five ]
	denied "$T/six"
	[ "$(revoke-bpf list --json | jq -r '.[] | select(.path == "'"$T/link"'") | .from')" = b.conf:2 ]
}

@test "del of a declared entry by hand is refused, naming its line" {
	run revoke-bpf del "$T/one"
	[ "$status" -eq 1 ]
	[[ $output == *"is declared by $DIR/a.conf:2; remove that line and run 'revoke-bpf reload' to lift it" ]]
	denied "$T/one"
}

@test "add --persist writes the line to local.conf; a hand-added entry is never lifted" {
	run revoke-bpf add --persist "$T/three"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "  declared in $DIR/local.conf:1" ]
	[ "$(cat "$DIR/local.conf")" = "$T/three" ]
	[ "$(stat -c %a "$DIR/local.conf")" = 644 ]
	revoke-bpf add "$T/hand" >/dev/null
	wait_declared declared 8
	run entries
	expect_lines "$T/hand admin" "$T/later/file a.conf:7" "$T/link b.conf:2" \
		"$T/one a.conf:2" "$T/three local.conf:1" "$T/two words a.conf:4" \
		"1:7 b.conf:1"
}

@test "after kill -9 and a restart: nothing lost, nothing doubled" {
	local hash before
	hash=$(declared_field declared_hash)
	before=$(entries)
	stop_daemon KILL
	start_daemon --declared "$DIR"
	[ "$(entries)" = "$before" ]
	[ "$(declared_field declared_hash)" = "$hash" ]
	[ "$(revoke-bpf status --json | jq -c '[.declared, .declared_applied, .entries, .devices]')" = "[8,6,6,1]" ]
	# every line was known from the record: no add ran again
	! grep -q "by uid=0 pid=$(cat /tmp/revoke-bpfd.pid):" "$DAEMON_LOG"
}

@test "a ConfigMap swap that drops lines lifts what they added, not the admin's" {
	local hash
	hash=$(declared_field declared_hash)
	publish v2 a.conf "\"$T/two words\" --spare"
	publish v2 b.conf "# no devices any more"
	swap v2
	wait_declared declared 2
	[ "$(declared_field declared_hash)" != "$hash" ]
	[ "$(declared_field declared_failed)" = 0 ]
	[ "$(cat "$T/one")" = one ]
	[ "$(cat "$T/later/file")" = later ]
	[ "$(cat "$T/six")" = six ]
	head -c1 /dev/full >/dev/null
	run entries
	expect_lines "$T/hand admin" "$T/three local.conf:1" "$T/two words a.conf:1"
}

@test "after unload and a restart the declared lines are applied again" {
	revoke-bpf unload --yes >/dev/null
	while [ -e /proc/"$(cat /tmp/revoke-bpfd.pid)" ]; do sleep 0.05; done
	[ "$(cat "$T/hand")" = hand ]
	start_daemon --declared "$DIR"
	run entries
	expect_lines "$T/three local.conf:1" "$T/two words a.conf:1"
	denied "$T/three"
	denied "$T/two words"
	[ "$(cat "$T/hand")" = hand ]
}
