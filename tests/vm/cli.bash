# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/cli.bash - setup, teardown and helpers of cli.bats and
# cli_text.bats (loaded after lib.bash).

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
