# SPDX-License-Identifier: GPL-2.0
#
# bench/lib.sh - what the benchmark scripts share (bench/run on the host,
# bench/guest.sh and bench/ab-guest.sh in the guest): sourced, with REPO
# set to the repository.

# ms_since T0: milliseconds since $EPOCHREALTIME was T0.
ms_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", (b - a) * 1000 }'
}

# field JSON KEY: a number field of a flat JSON text.
field() {
	sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1"
}

# population_start KIND N PATH: make PATH, a FIFO (KIND fifo) or a 4 KiB
# file, and, if N > 0, start build/bench/swarm: N processes with 10
# descriptors of it, min(N,100) of them blocked reading it (fifo) or
# mapping it (file; KIND none: neither).  Returns once every process is
# set up and the readers have had time to reach their read.  Sets
# POP_PID (empty without a swarm), POP_WAITERS and POP_MAPS.
population_start() {
	local kind=$1 n=$2 path=$3 few=$(( $2 < 100 ? $2 : 100 ))
	POP_PID= POP_WAITERS=0 POP_MAPS=0
	rm -f "$path"
	if [ "$kind" = fifo ]; then
		mkfifo "$path"
		POP_WAITERS=$few
	else
		head -c 4096 /dev/zero > "$path"
		[ "$kind" = file ] && POP_MAPS=$few
	fi
	[ "$n" -gt 0 ] || return 0
	# made here: the background job's redirection may come after the grep
	: > "$path.swarm"
	"$REPO/build/bench/swarm" "$n" 10 "$POP_WAITERS" "$POP_MAPS" "$path" >> "$path.swarm" 2>&1 &
	POP_PID=$!
	until grep -q ready "$path.swarm"; do
		if ! kill -0 "$POP_PID" 2>/dev/null; then
			echo "bench: swarm $n on $path failed: $(cat "$path.swarm")" >&2
			return 1
		fi
		sleep 0.1
	done
	[ "$POP_WAITERS" -eq 0 ] || sleep 0.5	# let the readers reach their read
}

# population_stop PATH: end the swarm of PATH, which reaps it.
population_stop() {
	if [ -n "$POP_PID" ]; then
		kill -TERM "$POP_PID"
		wait "$POP_PID" 2>/dev/null || true
	fi
	rm -f "$1.swarm"
	POP_PID=
}

# daemon_start ARG...: start revoke-bpfd ARG... (log in
# /tmp/revoke-bpfd.log); returns once it answers "status" (whatever its
# exit status says of the programs), within 60 s.  Sets DAEMON_PID.
daemon_start() {
	local end=$((SECONDS + 60))
	revoke-bpfd "$@" >>/tmp/revoke-bpfd.log 2>&1 &
	DAEMON_PID=$!
	until [ -n "$(status_field daemon_pid)" ]; do
		if ! kill -0 "$DAEMON_PID" 2>/dev/null || [ $SECONDS -ge $end ]; then
			echo "bench: revoke-bpfd $* did not start: $(tail -n 5 /tmp/revoke-bpfd.log)" >&2
			return 1
		fi
		sleep 0.1
	done
}

# daemon_stop: end the revoke-bpfd daemon_start started (it has 30 s),
# and reap it.
daemon_stop() {
	local end=$((SECONDS + 30))
	kill -TERM "$DAEMON_PID"
	while kill -0 "$DAEMON_PID" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			echo "bench: revoke-bpfd did not exit within 30 s of SIGTERM" >&2
			return 1
		fi
		sleep 0.05
	done
	wait "$DAEMON_PID" 2>/dev/null || true
	DAEMON_PID=
}

# status_field NAME: the value of NAME in "revoke-bpf status" (its lines
# are "NAME VALUE", aligned).
status_field() {
	revoke-bpf status -v 2>/dev/null | awk -v n="$1" '$1 == n { print $2 }'
}

# until_enforcement STATE: poll "revoke-bpf status" until it says
# enforcement STATE (attached or idle), for at most 60 s.
until_enforcement() {
	local end=$((SECONDS + 60))
	until [ "$(status_field enforcement)" = "$1" ]; do
		if [ $SECONDS -ge $end ]; then
			echo "bench: revoke-bpf status did not say enforcement $1 within 60 s" >&2
			return 1
		fi
		sleep 0.05
	done
}
