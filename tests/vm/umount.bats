#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Forced unmount and whole-filesystem revocation, on every filesystem the
# README names: "revoke-bpf umount" takes a filesystem off the machine
# whoever holds it (descriptors, mappings, a program running from it, a
# blocked reader, a chroot, a current directory, a submount, another mount
# namespace), keeps every byte written before it, and leaves the rest of
# the machine alone; "add --fs" revokes a filesystem without unmounting it.

load lib

BUSYBOX=/bin/busybox	# static: runs from any filesystem, and in a chroot

setup() {
	D=$(mktemp -d /tmp/umount.XXXXXX)
	PIDS=()
	LOOPS=()
}

teardown() {
	local p m l
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	for m in $(awk -v d="$D" 'index($5, d) == 1 { print $5 }' \
		   /proc/self/mountinfo | sort -r); do
		umount "$m" 2>/dev/null || true
	done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	revoke-bpf list --json | jq -r '.[] | select(.fs) | .fs' |
		while read -r fs; do revoke-bpf del --fs-dev "$fs" >/dev/null; done
	rm -rf "$D"
}

# make_fs FS MNT: a fresh FS (ext4, xfs, btrfs, vfat) on a loop device,
# mounted on MNT; sets L to the loop device.
make_fs() {
	local fs=$1 mnt=$2 size=64M
	[ "$fs" = xfs ] && size=320M
	[ "$fs" = btrfs ] && size=128M
	truncate -s "$size" "$D/${mnt##*/}.img"
	L=$(losetup -f)
	losetup "$L" "$D/${mnt##*/}.img"
	LOOPS+=("$L")
	case $fs in
	ext4) mke2fs -q -t ext4 "$L" ;;
	xfs) mkfs.xfs -q -f "$L" ;;
	btrfs) mkfs.btrfs -q -f "$L" >/dev/null ;;
	vfat) mkfs.fat "$L" >/dev/null ;;
	esac
	mkdir -p "$mnt"
	mount "$L" "$mnt"
}

# exe_is PID FILE: the executable of PID is FILE
exe_is() { [ "$(readlink "/proc/$1/exe")" = "$2" ]; }

# bg CMD...: run CMD in the background (bats's fd 3 closed); sets BG.
bg() {
	"$@" 3>&- &
	BG=$!
	PIDS+=("$BG")
}

# sysfs_dir FS DEV: the directory the filesystem has in sysfs while mounted
sysfs_dir() {
	case $1 in
	ext4|xfs) echo "/sys/fs/$1/${2#/dev/}" ;;
	btrfs) echo "/sys/fs/btrfs/$(btrfs filesystem show "$2" |
				      sed -n 's/.*uuid: //p')" ;;
	esac
}

# populate FS M: hold M every way FS allows, each holder saying what it
# saw in $D/NAME.out; sets R (reader), W (writer), MP (mapper), E (program
# running from M), F (FIFO reader), C (chroot), CW (cwd), NS (other mount
# namespace).
populate() {
	local fs=$1 m=$2
	echo "some content" > "$m/data"
	mkdir "$m/d" "$m/sub"
	cp "$BUSYBOX" "$m/busybox"
	mount -t tmpfs sub "$m/sub"
	# a reader that reads again once told to ($D/go)
	bg bash -c 'exec 7<"$1"; echo ready >"$2/r.ready"
		while [ ! -e "$2/go" ]; do sleep 0.05; done
		cat <&7 >"$2/r.out" 2>&1; echo "rc=$?" >>"$2/r.out"' - "$m/data" "$D"
	R=$BG
	# a writer whose data is not synced yet
	bg bash -c 'exec 8>>"$1"; echo "written before umount" >&8
		echo ready >"$2/w.ready"; exec sleep 1000' - "$m/written" "$D"
	W=$BG
	start_holder "$D/mp.out" mmap "$m/data"
	MP=$HOLDER_PID
	PIDS+=("$MP")
	bg "$m/busybox" sleep 1000
	E=$BG
	F=
	if [ "$fs" != vfat ]; then	# vfat has no FIFOs
		mkfifo "$m/fifo"
		bash -c 'exec cat 0<>"$1"' - "$m/fifo" >"$D/f.out" 2>&1 3>&- &
		F=$!
		PIDS+=("$F")
	fi
	bg chroot "$m" /busybox sleep 1000
	C=$BG
	bg bash -c 'cd "$1/d" && exec sleep 1000' - "$m"
	CW=$BG
	bg unshare -m --propagation private sleep 1000
	NS=$BG
	until_true test -e "$D/r.ready" -a -e "$D/w.ready"
	[ -z "$F" ] || wait_blocked "$F"
	until_true cwd_is "$CW" "$m/d"
	grep -q " $m " "/proc/$NS/mountinfo"
}

# other_fs: an unrelated ext4 filesystem, with a file open by a process
other_fs() {
	make_fs ext4 "$D/other"
	echo "not touched" > "$D/other/file"
	bg bash -c 'exec 7<"$1"; sleep 1000' - "$D/other/file"
	O=$BG
}

# check_forced FS M L DIR: what each holder of M saw after "revoke-bpf
# umount"; DIR is the filesystem's sysfs directory while it was mounted
check_forced() {
	local fs=$1 m=$2 l=$3 dir=$4
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^  filesystem [0-9]*:[0-9]*: gone$"
	echo "$output" | grep -Eq "^  killed: pid $E \(busybox\) user root: exe: exe_on_fs$"
	echo "$output" | grep -Eq "^  killed: pid $C \(busybox\) user root: exe: exe_on_fs$"
	# gone from every namespace, and from sysfs
	! grep -q " $m " /proc/self/mountinfo
	! grep -q " $m " "/proc/$NS/mountinfo"
	[ -z "$dir" ] || [ ! -e "$dir" ]
	# the reader's descriptor reads EIO
	touch "$D/go"
	until_true grep -q '^rc=' "$D/r.out"
	[ "$(cat "$D/r.out")" = "$(printf 'cat: read error: Input/output error\nrc=1')" ]
	# the mapper died of SIGBUS BUS_ADRERR at its next access
	wait_line "$D/mp.out" "SIGBUS si_code=BUS_ADRERR"
	# the blocked FIFO reader woke into EIO
	if [ -n "$F" ]; then
		wait "$F" || true
		[ "$(cat "$D/f.out")" = "cat: read error: Input/output error" ]
	fi
	# the current directory moved to /, the process alive
	[ "$(readlink "/proc/$CW/cwd")" = / ]
	kill -0 "$CW"
	# the program running from it and the chroot were killed
	! kill -0 "$E" 2>/dev/null || [ "$(awk '/^State/ { print $2 }' "/proc/$E/status")" = Z ]
	! kill -0 "$C" 2>/dev/null || [ "$(awk '/^State/ { print $2 }' "/proc/$C/status")" = Z ]
	# every byte written before the command is on the device
	mkdir -p "$D/again"
	mount "$l" "$D/again"
	[ "$(cat "$D/again/written")" = "written before umount" ]
	[ "$(cat "$D/again/data")" = "some content" ]
	umount "$D/again"
	# the unrelated filesystem is untouched
	[ "$(cat "$D/other/file")" = "not touched" ]
	[ "$(cat "/proc/$O/fd/7")" = "not touched" ]
}

forced_unmount() {
	local fs=$1 l dir
	make_fs "$fs" "$D/m"
	l=$L
	dir=$(sysfs_dir "$fs" "$l")
	[ -z "$dir" ] || [ -d "$dir" ]
	other_fs
	populate "$fs" "$D/m"
	run revoke-bpf umount "$D/m"
	echo "$output"
	check_forced "$fs" "$D/m" "$l" "$dir"
}

@test "ext4: umount ends every holder, unmounts in every namespace and keeps written data" {
	forced_unmount ext4
}

@test "xfs: umount ends every holder, unmounts in every namespace and keeps written data" {
	forced_unmount xfs
}

@test "btrfs: umount ends every holder, unmounts in every namespace and keeps written data" {
	forced_unmount btrfs
}

@test "vfat: umount ends every holder, unmounts in every namespace and keeps written data" {
	forced_unmount vfat
}

@test "umount --spare leaves a holder it cannot stop alive, exits 4 and keeps the filesystem revoked and mounted" {
	make_fs ext4 "$D/m"
	mkdir "$D/m/d"
	echo data > "$D/m/data"
	# sleep, traced by strace, stands in the filesystem and cannot be stopped
	bg bash -c 'cd "$1" && exec strace -o /dev/null -f sleep 1000' - "$D/m/d"
	until_true grep -q . "/proc/$BG/task/$BG/children"
	T=$(awk '{ print $1 }' "/proc/$BG/task/$BG/children")
	PIDS+=("$T")
	until_true cwd_is "$T" "$D/m/d"
	run revoke-bpf umount --spare "$D/m"
	echo "$output"
	[ "$status" -eq 4 ]
	echo "$output" | grep -Eq "^  failed: pid $T \(sleep\) user root: [a-z]+: traced_by_pid_$BG$"
	echo "$output" | grep -Eq "^  filesystem [0-9]+:[0-9]+: NOT gone: "
	kill -0 "$T"
	grep -q " $D/m " /proc/self/mountinfo
	run cat "$D/m/data"
	[ "$status" -eq 1 ]
	[ "$output" = "cat: can't open '$D/m/data': Input/output error" ]
	revoke-bpf list | grep -Eq "^fs +[0-9]+:[0-9]+ +\* "
}

@test "umount ends a program running from the filesystem, and names it" {
	make_fs ext4 "$D/m"
	cp "$BUSYBOX" "$D/m/busybox"
	bg "$D/m/busybox" sleep 1000
	E=$BG
	until_true exe_is "$E" "$D/m/busybox"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | grep -Fxq "  killed: pid $E (busybox) user root: exe: exe_on_fs"
	! grep -q " $D/m " /proc/self/mountinfo
}

@test "umount of a directory that is not a mount point is refused and changes nothing" {
	make_fs ext4 "$D/m"
	mkdir "$D/m/d"
	echo data > "$D/m/d/f"
	run revoke-bpf umount "$D/m/d"
	[ "$status" -eq 1 ]
	[[ "$output" == "revoke-bpf: umount: '$D/m/d' is not a mount point (it is on filesystem "*"); umount takes the directory a filesystem is mounted on" ]]
	grep -q " $D/m " /proc/self/mountinfo
	[ "$(cat "$D/m/d/f")" = data ]
	! revoke-bpf list | grep -q "^fs "
}

@test "umount by a user who is not root is refused" {
	chmod 755 "$D"
	make_fs ext4 "$D/m"
	run "$ASUSER" 65534 revoke-bpf umount "$D/m"
	[ "$status" -eq 1 ]
	[[ "$output" == *"only root may use 'umount' (you are uid 65534)"* ]]
	grep -q " $D/m " /proc/self/mountinfo
}

@test "add --fs revokes every file of a filesystem, open before or after, and del --fs lifts it" {
	make_fs ext4 "$D/m"
	echo before > "$D/m/a"
	exec 7<"$D/m/a"
	run revoke-bpf add --fs "$D/m"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^filesystem\ [0-9]+:[0-9]+\ \(ext4\)\ of\ $D/m:\ revoked$ ]]
	run cat <&7
	[ "$output" = "cat: read error: Input/output error" ]
	run cat "$D/m/a"
	[ "$output" = "cat: can't open '$D/m/a': Input/output error" ]
	run bash -c "echo x > '$D/m/new'"
	[[ "$output" == *"$D/m/new: Input/output error" ]]
	revoke-bpf list | grep -Eq "^fs +[0-9]+:[0-9]+ +\* "
	grep -q " $D/m " /proc/self/mountinfo
	run revoke-bpf del --fs "$D/m"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^filesystem\ [0-9]+:[0-9]+\ \(ext4\)\ of\ $D/m:\ no\ longer\ revoked$ ]]
	[ "$(cat "$D/m/a")" = before ]
	exec 7<&-
}

@test "btrfs: add --fs revokes the files of every subvolume" {
	make_fs btrfs "$D/m"
	btrfs subvolume create "$D/m/sv1" >/dev/null
	btrfs subvolume create "$D/m/sv2" >/dev/null
	echo one > "$D/m/sv1/f"
	echo two > "$D/m/sv2/f"
	run revoke-bpf add --fs "$D/m"
	[ "$status" -eq 0 ]
	run cat "$D/m/sv1/f"
	[ "$output" = "cat: can't open '$D/m/sv1/f': Input/output error" ]
	run cat "$D/m/sv2/f"
	[ "$output" = "cat: can't open '$D/m/sv2/f': Input/output error" ]
	revoke-bpf del --fs "$D/m" >/dev/null
	[ "$(cat "$D/m/sv2/f")" = two ]
}

@test "add --fs of the filesystem revoke-bpfd runs from is refused" {
	run revoke-bpf add --fs /
	[ "$status" -eq 1 ]
	[[ "$output" == "revoke-bpf: add: filesystem "*" cannot be revoked, even with --force: revoke-bpfd runs from it (its executable is on it)" ]]
	run revoke-bpf add --fs /proc --force
	[ "$status" -eq 1 ]
	[[ "$output" == "revoke-bpf: add: filesystem "*" (proc) cannot be revoked, even with --force: revoke-bpfd works through it" ]]
}

@test "a revoked filesystem unmounted by umount(8) is forgotten with its super_block, and the next one of that number works" {
	make_fs ext4 "$D/m"
	echo old > "$D/m/f"
	revoke-bpf add --fs "$D/m" >/dev/null
	[ "$(cat "$D/m/f" 2>&1)" = "cat: can't open '$D/m/f': Input/output error" ]
	umount "$D/m"
	! revoke-bpf list | grep -q "^fs "
	mke2fs -q -t ext4 "$L"
	mount "$L" "$D/m"
	echo new > "$D/m/f"
	[ "$(cat "$D/m/f")" = new ]
}

@test "umount turns off a swap file on the filesystem, unmounts one mounted from an image on it, and detaches its loop device" {
	local outer inner l2 n2
	make_fs ext4 "$D/m"
	outer=$L
	dd if=/dev/zero of="$D/m/swap" bs=1M count=8 status=none
	chmod 600 "$D/m/swap"
	mkswap "$D/m/swap" >/dev/null
	swapon "$D/m/swap"
	grep -q "^$D/m/swap " /proc/swaps
	truncate -s 32M "$D/m/inner.img"
	l2=$(losetup -f)
	losetup "$l2" "$D/m/inner.img"
	n2=${l2#/dev/loop}
	mke2fs -q -t ext4 "$l2"
	mkdir "$D/inner"
	mount "$l2" "$D/inner"
	echo inside > "$D/inner/f"
	bg bash -c 'exec 7<"$1"; echo ready >"$2/i.ready"
		while [ ! -e "$2/go" ]; do sleep 0.05; done
		cat <&7 >"$2/i.out" 2>&1; echo "rc=$?" >>"$2/i.out"' - "$D/inner/f" "$D"
	until_true test -e "$D/i.ready"
	run revoke-bpf umount "$D/m"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c "^  filesystem [0-9]*:[0-9]*: gone$")" -eq 2 ]
	! grep -q "^$D/m/swap " /proc/swaps
	! grep -q " $D/inner " /proc/self/mountinfo
	! grep -q " $D/m " /proc/self/mountinfo
	[ ! -e "/sys/block/loop$n2/loop/backing_file" ]
	[ ! -e "/sys/fs/ext4/loop$n2" ]
	[ ! -e "/sys/fs/ext4/${outer#/dev/}" ]
	touch "$D/go"
	until_true grep -q '^rc=' "$D/i.out"
	[ "$(cat "$D/i.out")" = "$(printf 'cat: read error: Input/output error\nrc=1')" ]
}

@test "umount from a shell that stands on the filesystem (cwd, descriptors, a mapping, a program started from it) exits 0 with the super_block gone" {
	make_fs ext4 "$D/m"
	cp "$BUSYBOX" "$D/m/sleep"
	echo data > "$D/m/data"
	mkdir "$D/m/d"
	# as a root shell would: cd in, descriptors its children inherit, a
	# mapping, a program run from the filesystem, then umount from there
	run busybox sh -c '
		cd "$1/d" || exit 9
		exec 7<"$1/data" 8>>"$1/written"
		echo unsynced >&8
		"$2" mmap "$1/data" > "$3/mp.out" 2>&1 &
		echo $! > "$3/pids"
		"$1/sleep" 1000 &
		echo $! >> "$3/pids"
		while ! grep -q ^ready "$3/mp.out"; do usleep 10000; done
		revoke-bpf umount "$1"
		echo "rc=$?"' - "$D/m" "$HOLDER" "$D"
	PIDS+=($(cat "$D/pids"))
	echo "$output"
	[ "${lines[-1]}" = "rc=0" ]
	echo "$output" | grep -Fxq "  killed: pid $(sed -n 2p "$D/pids") (sleep) user root: exe: exe_on_fs"
	echo "$output" | grep -q "^  filesystem [0-9]*:[0-9]*: gone$"
	! grep -q " $D/m " /proc/self/mountinfo
}

@test "umount whose standard output is a file on the filesystem is refused with one line and leaves it mounted" {
	make_fs ext4 "$D/m"
	run sh -c 'revoke-bpf umount "$1" > "$1/log"' - "$D/m"
	[ "$status" -eq 1 ]
	[[ $output == "revoke-bpf: "*"standard output is a file on the filesystem to unmount; redirect it elsewhere" ]]
	[ "${#lines[@]}" -eq 1 ]
	grep -q " $D/m " /proc/self/mountinfo
	! revoke-bpf list | grep -q "^fs "
}

@test "btrfs: umount from a shell holding a file of another subvolume (its own st_dev) exits 0 with the super_block gone" {
	make_fs btrfs "$D/m"
	btrfs -q subvolume create "$D/m/sv"
	echo data > "$D/m/sv/f"
	[ "$(stat -c %d "$D/m/sv/f")" != "$(stat -c %d "$D/m")" ]
	run busybox sh -c 'exec 7<"$1/sv/f"; revoke-bpf umount "$1"; echo "rc=$?"' - "$D/m"
	echo "$output"
	[ "${lines[-1]}" = "rc=0" ]
	echo "$output" | grep -q "^  filesystem [0-9]*:[0-9]*: gone$"
	! grep -q " $D/m " /proc/self/mountinfo
}

@test "umount by a copy of revoke-bpf that runs from the filesystem is refused with one line and leaves it mounted" {
	make_fs ext4 "$D/m"
	cp "$(command -v revoke-bpf)" "$D/m/revoke-bpf"
	run "$D/m/revoke-bpf" umount "$D/m"
	[ "$status" -eq 1 ]
	[[ $output == "revoke-bpf: "*"this command runs from the filesystem to unmount (its executable is on it); run a copy from elsewhere" ]]
	[ "${#lines[@]}" -eq 1 ]
	grep -q " $D/m " /proc/self/mountinfo
	! revoke-bpf list | grep -q "^fs "
}

# A long umount does not stop revoke-bpfd answering (issue 34, item 6).

SWARM=$REPO/build/bench/swarm

# swarm N FILE [FDS]: N processes (build/bench/swarm) with FDS (1)
# descriptors each of FILE; returns once every one holds it (60 s at most).
swarm() {
	local i
	: > "$D/swarm"
	bg "$SWARM" "$1" "${3:-1}" 0 0 "$2" > "$D/swarm" 2>&1
	for i in $(seq 1 600); do
		grep -qx ready "$D/swarm" && return 0
		kill -0 "$BG" || break
		sleep 0.1
	done
	cat "$D/swarm" >&2
	return 1
}

# within S CMD...: wait until CMD succeeds, S seconds at most.
within() {
	local i n=$(( $1 * 20 ))
	shift
	for i in $(seq 1 "$n"); do
		"$@" && return 0
		sleep 0.05
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

# fs_listed: the revoked set has a filesystem entry (the umount's deny).
fs_listed() { revoke-bpf list --json | jq -e 'any(.[]; .kind == "filesystem")' >/dev/null; }

# ms CMD...: run CMD (output to $D/ms.out); print how many ms it took.
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" > "$D/ms.out" 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}

# BUSY_HOLDERS: how many processes, with 10 descriptors each, hold the
# filesystem a long umount ends.  The issue's figure is 1,000; under TCG,
# three guests on two CPUs, their umount takes minutes, more than the VM
# suite's budget has room for, so the suite runs it with 150 (seconds:
# many turns of the loop) and REVOKE_BUSY_HOLDERS=1000 tests/vm/suite runs
# it with the issue's figure.
BUSY_HOLDERS=${REVOKE_BUSY_HOLDERS:-150}

@test "during umount of a filesystem held by many processes, status and list answer while it runs, and an add sent meanwhile is done after it" {
	local up addp t i during=0
	mkdir -p "$D/m"
	mount -t tmpfs busy "$D/m"
	head -c 4096 /dev/zero > "$D/m/file"
	echo other > "$D/f"
	swarm "$BUSY_HOLDERS" "$D/m/file" 10
	bg revoke-bpf umount "$D/m" > "$D/umount.out" 2>&1
	up=$BG
	within 60 fs_listed
	# the deny is done: the holders are being released now; a round
	# counts if the umount still ran once both had answered.  What
	# proves the control loop free is that they answer while the umount
	# runs; each answer's bound (5 s) is loose because a CLI's run alone
	# took over 1 s here with five guests on two CPUs
	for i in 1 2 3; do
		t=$(ms revoke-bpf status)
		echo "# status: $t ms" >&3
		grep -q '^enforcement' "$D/ms.out"
		[ "$t" -lt 5000 ]
		t=$(ms revoke-bpf list)
		echo "# list: $t ms" >&3
		# its table, or nothing once the umount has ended (6.1: fast)
		grep -q '^KIND ' "$D/ms.out" || grep -qx 'nothing is revoked' "$D/ms.out"
		[ "$t" -lt 5000 ]
		kill -0 "$up" 2>/dev/null && during=$((during + 1))
	done
	echo "# rounds answered while the umount ran: $during" >&3
	[ "$during" -ge 1 ]
	t=$(ms revoke-bpf holders "$D/f")
	echo "# holders: $t ms" >&3
	bg revoke-bpf add "$D/f" > "$D/add.out" 2>&1
	addp=$BG
	wait "$up"
	cat "$D/umount.out"
	grep -q "^  filesystem [0-9]*:[0-9]*: gone$" "$D/umount.out"
	! grep -q " $D/m " /proc/self/mountinfo
	wait "$addp"
	cat "$D/add.out"
	[[ $(head -1 "$D/add.out") == "$D/f: revoked (dev "* ]]
	# the add was handled once the umount had ended, not within it
	grep -E "umount fs=[0-9:]+ by uid=0 pid=$up: gone|add dev=.* by uid=0 pid=$addp: added" \
		"$DAEMON_LOG" | tail -2 > "$D/order"
	cat "$D/order"
	grep -q "umount fs=" <(sed -n 1p "$D/order")
	grep -q "add dev=" <(sed -n 2p "$D/order")
	revoke-bpf del "$D/f" >/dev/null
}

@test "Ctrl-C on umount says the step reached and exits 130; revoke-bpfd goes on until the filesystem is gone" {
	local up rc=0
	mkdir -p "$D/m"
	mount -t tmpfs busy "$D/m"
	head -c 4096 /dev/zero > "$D/m/file"
	swarm "$BUSY_HOLDERS" "$D/m/file"
	bg revoke-bpf umount "$D/m" > "$D/umount.out" 2>&1
	up=$BG
	within 60 fs_listed
	kill -INT "$up"
	wait "$up" || rc=$?
	cat "$D/umount.out"
	[ "$rc" -eq 130 ]
	[ "$(wc -l < "$D/umount.out")" -eq 1 ]
	[ "$(cat "$D/umount.out")" = "revoke-bpf: umount: interrupted; revoke-bpfd goes on with the umount and the filesystem stays revoked: see 'revoke-bpf list' and its journal (journalctl -u revoke-bpfd)" ]
	# the client is gone; the daemon finishes, and answers meanwhile
	within 60 eval '! grep -q " $D/m " /proc/self/mountinfo'
	revoke-bpf status | grep -q '^enforcement'
	within 60 grep -q "umount fs=[0-9:]* by uid=0 pid=$up: gone" "$DAEMON_LOG"
	! fs_listed
}

@test "umount with progress=yes: one progress line per step, the holders counted, before the answer" {
	mkdir -p "$D/m"
	mount -t tmpfs busy "$D/m"
	head -c 4096 /dev/zero > "$D/m/file"
	swarm 3 "$D/m/file"
	run "$CTLSEND" --fd "$D/m" /run/revoke-bpf/control.sock \
		<<< "revoke-bpf/1 umount path=$D/m fs=yes progress=yes"
	echo "$output"
	[ "$status" -eq 0 ]
	# the steps in order, the holders counted (how often depends on
	# their pace), all before the answer
	grep '^progress ' <<< "$output" | sed 's/ done=[0-9]* total=[0-9]*$//' |
		uniq > "$D/steps"
	diff -u - "$D/steps" <<-'END'
	progress step=sync
	progress step=revoke
	progress step=holders
	progress step=unmount
	progress step=wait-gone
	END
	! grep '^progress step=holders ' <<< "$output" |
		grep -v '^progress step=holders done=[0-3] total=[0-3]$'
	[ "$(grep '^progress step=holders ' <<< "$output" | tail -1)" = \
	  "progress step=holders done=3 total=3" ]
	[ "$(grep -m1 -vn '^progress ' <<< "$output")" = \
	  "$(( $(grep -c '^progress ' <<< "$output") + 1 )):ok umounted" ]
	! grep -q " $D/m " /proc/self/mountinfo
}

@test "umount on a terminal shows each step on stderr, the holders counted in place; without a terminal nothing but the report" {
	mkdir -p "$D/m" "$D/n"
	mount -t tmpfs busy "$D/m"
	head -c 4096 /dev/zero > "$D/m/file"
	swarm 3 "$D/m/file"
	run script -qec "revoke-bpf umount $D/m" /dev/null
	echo "$output" | cat -A
	[ "$status" -eq 0 ]
	tr '\r' '\n' <<< "$output" | grep '^revoke-bpf: umount: ' |
		sed 's| [0-9]*/[0-9]*$||' | uniq > "$D/steps"
	diff -u - "$D/steps" <<-'END'
	revoke-bpf: umount: writing out its data (syncfs)
	revoke-bpf: umount: revoking the filesystem
	revoke-bpf: umount: releasing holders
	revoke-bpf: umount: unmounting every mount
	revoke-bpf: umount: waiting for the filesystem to go
	END
	[[ $output == *$'\rrevoke-bpf: umount: releasing holders 3/3\r\n'* ]]
	mount -t tmpfs busy2 "$D/n"
	run revoke-bpf umount "$D/n"
	[ "$status" -eq 0 ]
	! grep -q 'revoke-bpf: umount: ' <<< "$output"
}

@test "add with progress=yes: the steps attach and holders, the holders counted, before the answer; without it none" {
	echo data > "$D/f"
	swarm 2 "$D/f"
	run "$CTLSEND" --fd "$D/f" /run/revoke-bpf/control.sock \
		<<< "revoke-bpf/1 add path=$D/f progress=yes"
	echo "$output"
	grep '^progress ' <<< "$output" | sed 's/ done=[0-9]* total=[0-9]*$//' |
		uniq > "$D/steps"
	diff -u - "$D/steps" <<-'END'
	progress step=attach
	progress step=holders
	END
	[ "$(grep '^progress step=holders ' <<< "$output" | tail -1)" = \
	  "progress step=holders done=2 total=2" ]
	[ "$(grep -m1 -vn '^progress ' <<< "$output")" = \
	  "$(( $(grep -c '^progress ' <<< "$output") + 1 )):ok added" ]
	revoke-bpf del "$D/f" >/dev/null
	run "$CTLSEND" --fd "$D/f" /run/revoke-bpf/control.sock \
		<<< "revoke-bpf/1 add path=$D/f"
	[ "${lines[0]}" = "ok added" ]
	revoke-bpf del "$D/f" >/dev/null
}
