# SPDX-License-Identifier: GPL-2.0
# Helpers of the installed-system suite (tests/system/*.bats), which runs
# in the Debian guest of tests/vm/run --system: the package installed by
# apt, revoke-bpfd started by systemd, udevd and journald running.

REPO=$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd)
DEBS=$REPO/build/deb
ASUSER=$REPO/build/tests/asuser
HOSTILE=$REPO/build/tests/hostile
UNIT=revoke-bpfd.service

# until_true CMD...: wait (20 s at most) until CMD succeeds.
until_true() {
	local i
	for i in $(seq 1 400); do
		"$@" && return 0
		sleep 0.05
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

# journal_mark: remember where the unit's journal ends, for journal_since.
journal_mark() {
	CURSOR=$(journalctl -u "$UNIT" -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p')
}

# journal_since [ARGS...]: the unit's journal lines since journal_mark,
# as journald keeps them (-o cat: the message alone).
journal_since() {
	journalctl -u "$UNIT" -o cat -q ${CURSOR:+--after-cursor="$CURSOR"} "$@"
}

# wait_journal TEXT [ARGS...]: wait until the unit logged a line with TEXT
# since journal_mark.
wait_journal() {
	local text=$1
	shift
	until_true bash -c 'journalctl -u "$0" -o cat -q ${1:+--after-cursor="$1"} "${@:3}" |
		grep -qF -- "$2"' "$UNIT" "${CURSOR:-}" "$text" "$@" ||
		{ journal_since "$@" >&2; return 1; }
}

# active: revoke-bpfd is running under systemd and answers.
active() {
	[ "$(systemctl is-active "$UNIT")" = active ] && revoke-bpf status >/dev/null
}

# bg CMD...: run CMD in the background as a holder; its pid in BG and KILL.
bg() {
	# 3>&-: bats waits for every holder of its fd 3 before it goes on
	"$@" 3>&- &
	BG=$!
	KILL+=("$BG")
}

# kill_holders: kill -9 every pid in KILL (for teardown).
kill_holders() {
	local p
	for p in "${KILL[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
	KILL=()
}

# cwd_is PID DIR: the current directory of PID is DIR
cwd_is() { [ "$(readlink "/proc/$1/cwd")" = "$2" ]; }
