# SPDX-License-Identifier: GPL-2.0
# Helpers of the installed-system suite (tests/system/*.bats), which runs
# in the Debian guest of tests/vm/run --system: the package installed by
# apt, revoke-bpfd started by systemd, udevd and journald running.

REPO=$(cd "$(dirname "${BATS_TEST_FILENAME}")/../.." && pwd)
DEBS=$REPO/build/deb
ASUSER=$REPO/build/tests/asuser
HOSTILE=$REPO/build/tests/hostile
HOLDER=$REPO/build/tests/holder
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

# journal_since [PRIORITY]: the messages the unit logged since
# journal_mark, those at PRIORITY (3 err, 4 warning, 6 info) or more
# urgent only if given.  Filtered by jq, not by -p: journalctl 252 skips
# the first entry after --after-cursor when the cursor's own entry does
# not match -p.
journal_since() {
	journalctl -u "$UNIT" -q -o json ${CURSOR:+--after-cursor="$CURSOR"} |
		jq -r --argjson max "${1:-7}" 'select((.PRIORITY | tonumber) <= $max) | .MESSAGE'
}

# journal_has TEXT [PRIORITY]: journal_since PRIORITY has a line with TEXT.
journal_has() {
	journal_since "${2:-7}" | grep -qF -- "$1"
}

# wait_journal TEXT [PRIORITY]: wait until journal_has TEXT PRIORITY.
wait_journal() {
	until_true journal_has "$@" || { journal_since >&2; return 1; }
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
