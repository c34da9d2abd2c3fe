#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The README's two commands on a fresh machine: their packages are
# installed (make deps) before anything reads pkg-config or probes the
# compiler, and make demo builds only what the demo needs.  Stood in for
# here by a pkg-config that knows no fuse3 until a stand-in for
# tests/deps.sh has run, and by stand-ins for the guest and the suite.

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/bin"
	# pkg-config as on a machine where libfuse3-dev comes with make deps
	cat > "$T/bin/pkg-config" <<-EOS
	#!/bin/sh
	case " \$* " in
	*" fuse3 "*) [ -e "$T/installed" ] || { echo "Package fuse3 was not found in the pkg-config search path." >&2; exit 1; } ;;
	esac
	exec /usr/bin/pkg-config "\$@"
	EOS
	# tests/vm/run: say what it was asked
	cat > "$T/bin/vm_run" <<-EOS
	#!/bin/sh
	echo "vm_run \$*"
	EOS
	chmod +x "$T/bin/pkg-config" "$T/bin/vm_run"
	export PATH=$T/bin:$PATH
}

@test "make demo on a machine without libfuse3-dev installs first, builds the daemon and the command only, and boots with --no-tests" {
	run make -s -j2 -C "$REPO" BUILD="$T/build" DEPS="touch $T/installed" \
		VM_RUN="$T/bin/vm_run" demo
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output != *"fuse3 was not found"* ]]
	[ "${lines[-1]}" = "vm_run --no-tests --file $REPO/tests/demo.sh -- $REPO/tests/demo.sh" ]
	[ -x "$T/build/revoke-bpfd" ]
	[ -x "$T/build/revoke-bpf" ]
	# no test helper was built: a FUSE server least of all
	[ ! -e "$T/build/tests" ]
}

@test "make check on a machine without libfuse3-dev installs first, then builds the FUSE server with libfuse" {
	# the rest of the build as it is (make check built it), the FUSE server
	# to be made again
	[ ! -d "$REPO/build" ] || cp -a "$REPO/build" "$T/build"
	rm -f "$T/build/tests/fusefile"
	run make -s -j2 -C "$REPO" BUILD="$T/build" DEPS="touch $T/installed" \
		CHECK="echo check ran" check
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output != *"fuse3 was not found"* ]]
	[ "${lines[-1]}" = "check ran" ]
	# linked against libfuse 3
	objdump -p "$T/build/tests/fusefile" | grep -q 'NEEDED.*libfuse3\.so'
}
