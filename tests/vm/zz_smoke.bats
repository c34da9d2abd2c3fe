#!/usr/bin/env bats
load lib
HOLDER=$REPO/build/tests/holder

@test "smoke: pause /dev/zero for nobody" {
	run revoke-bpf pause --uid 65534 /dev/zero
	echo "$output" >&3
	[ "$status" -eq 0 ]
	run "$ASUSER" 65534 head -c 4 /dev/zero
	echo "nobody: $status $output" >&3
	[ "$status" -ne 0 ]
	[ "$(head -c 4 /dev/zero | wc -c)" = 4 ]
	revoke-bpf list >&3
	revoke-bpf status >&3
	revoke-bpf -j list >&3
	run revoke-bpf -j pause --uid 65534 /dev/zero
	echo "$output" >&3
	run revoke-bpf resume --uid 65534
	echo "$output" >&3
	run "$ASUSER" 65534 head -c 4 /dev/zero
	echo "nobody after: $status" >&3
	[ "$status" -eq 0 ]
	run revoke-bpf resume --uid 65534
	echo "$output" >&3
}

@test "smoke: a blocked pty reader of nobody is woken with ENODEV" {
	"$ASUSER" 65534 "$HOLDER" pty /dev/ptmx > /tmp/h.out 2>&1 3>&- &
	wait_ready_line /tmp/h.out holder
	slave=$(sed -n 's/.*slave=//p' /tmp/h.out)
	echo "slave $slave" >&3
	sleep 0.3
	run revoke-bpf pause --uid 65534 "$slave"
	echo "$output" >&3
	for i in $(seq 50); do grep -q "^read:" /tmp/h.out && break; sleep 0.1; done
	cat /tmp/h.out >&3
	grep -q "read: ENODEV" /tmp/h.out
	run revoke-bpf pause --uid 65534 --subsystem sound
	echo "$status $output" >&3
	run revoke-bpf pause --uid 65534 --subsystem tty
	echo "$status ${lines[0]} ... ${#lines[@]} lines" >&3
	revoke-bpf list | tail -3 >&3
	run revoke-bpf resume --uid 65534 --subsystem tty
	echo "$status ${#lines[@]} lines" >&3
	run revoke-bpf resume --uid 65534
	echo "$status $output" >&3
	revoke-bpf status >&3
}
