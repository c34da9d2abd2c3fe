#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# dist/revoke-bpf.bash: what Tab offers, with the commands and options
# read from the built revoke-bpf's help.

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	CLI=$REPO/build/revoke-bpf
	source "$REPO/dist/revoke-bpf.bash"
}

# complete WORD...: COMPREPLY for the line WORD... (the last is the word
# under the cursor), one a line, sorted
complete_line() {
	COMP_WORDS=(revoke-bpf "$@")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	_revoke_bpf "$CLI"
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

@test "the completion is registered for revoke-bpf" {
	run complete -p revoke-bpf
	[ "$output" = "complete -F _revoke_bpf revoke-bpf" ]
}

@test "the first word is a command" {
	run complete_line ""
	[ "$(echo $output)" = "add del events help holders list metrics pause reload resume status uevent umount unload" ]
	run complete_line u
	[ "$(echo $output)" = "uevent umount unload" ]
}

@test "a command's options and the global ones, after the command or before it" {
	run complete_line add --r
	[ "$(echo $output)" = "--rdev --release --removed --reply-timeout" ]
	run complete_line -j holders -
	[ "$(echo $output)" = "--fs --help --json --pretty --quiet --reply-timeout --socket --version -V -h -j -p -s" ]
	run complete_line --socket /tmp/s events --
	[[ $output == *--count* && $output != *--inode* ]]
}

@test "pause offers --tag and --seat; --tag's value is uaccess, --seat's a seat" {
	run complete_line pause --uid 1001 --t
	[ "$output" = "--tag" ]
	run complete_line resume --s
	[ "$(echo $output)" = "--seat --socket --subsystem" ]
	run complete_line pause --uid 1001 --tag ""
	[ "$output" = "uaccess" ]
	run complete_line pause --uid 1001 --tag uaccess --seat seat
	want=$(ls /run/systemd/seats 2>/dev/null | grep '^seat' || echo seat0)
	[ "$output" = "$want" ]
}

@test "--fs and umount offer mount points, --dev the filesystems' MAJ:MIN" {
	run complete_line add --fs /pro
	[ "$output" = "/proc" ]
	run complete_line umount /pro
	[ "$output" = "/proc" ]
	run complete_line del --dev ""
	[[ $'\n'$output$'\n' == *$'\n'"$(sed -n 's/^[^ ]* [^ ]* \([^ ]*\) \/ \/proc .*/\1/p' /proc/self/mountinfo | head -1)"$'\n'* ]]
}

@test "a PATH is a file, after -- too; values of --cause and --timeout are not guessed" {
	cd "$BATS_TEST_TMPDIR"
	touch -- afile -j
	run complete_line add af
	[ "$output" = "afile" ]
	run complete_line holders -- -
	[ "$output" = "-j" ]
	run complete_line add --cause ""
	[ -z "$output" ]
	run complete_line umount --timeout ""
	[ -z "$output" ]
}

@test "help completes a command" {
	run complete_line help st
	[ "$output" = "status" ]
}

# A mount point's name is chosen by whoever mounted it (a user's FUSE
# mount, a USB stick's label under /media): inserted without the shell's
# file-name quoting, "/media/u/x;reboot" became code on the admin's line.
@test "mount points are offered with file-name quoting, so that a name holding ; or \$( stays one word" {
	compopt() { COMPOPTS+="$*;"; }
	_revoke_bpf_mounts() { printf '%s\n' '/tmp/zz;touch /tmp/pwned'; }
	COMPOPTS=
	COMP_WORDS=(revoke-bpf umount /tmp/zz)
	COMP_CWORD=2
	_revoke_bpf "$CLI"
	[ "${COMPREPLY[*]}" = "/tmp/zz;touch /tmp/pwned" ]
	[[ $COMPOPTS == *"-o filenames"* ]]
	COMPOPTS=
	COMP_WORDS=(revoke-bpf add --fs /tmp/zz)
	COMP_CWORD=3
	COMPREPLY=()
	_revoke_bpf "$CLI"
	[ "${COMPREPLY[*]}" = "/tmp/zz;touch /tmp/pwned" ]
	[[ $COMPOPTS == *"-o filenames"* ]]
}

@test "metrics -o and --output take a file" {
	cd "$BATS_TEST_TMPDIR"
	touch afile
	run complete_line metrics -o af
	[ "$output" = "afile" ]
	run complete_line metrics --output af
	[ "$output" = "afile" ]
	run complete_line metrics -
	[[ " $(echo $output) " == *" --output "* && " $(echo $output) " == *" -o "* ]]
}
