#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# make deb builds the Debian packages revoke-bpf and librevoke-dev
# (debian/), lintian-clean, with exactly the files they should hold, each
# where Debian 12 looks for it, hardened, with no build path; and the
# package's removal (its prerm, run with stand-ins for the daemon, the
# command and the pin directory) lifts every revocation and says so.
#
# One build for the whole file, from clean, into a build folder of its own
# (setup_file): the developer's build/ is neither used nor touched.

setup_file() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
	VERSION=$(sed -n 's/^VERSION *:= *//p' "$REPO/Makefile")
	B=$BATS_FILE_TMPDIR/build
	export REPO VERSION B
	make -C "$REPO" --no-print-directory deb BUILD="$B" \
		>"$BATS_FILE_TMPDIR/make.out" 2>&1
	echo $? >"$BATS_FILE_TMPDIR/make.rc"
	# every package, unpacked
	local p
	for p in revoke-bpf librevoke-dev revoke-bpf-dbgsym; do
		mkdir -p "$BATS_FILE_TMPDIR/$p"
		[ -f "$B/deb/${p}_${VERSION}_amd64.deb" ] &&
			dpkg-deb -x "$B/deb/${p}_${VERSION}_amd64.deb" "$BATS_FILE_TMPDIR/$p"
	done
	return 0
}

setup() {
	DEB=$B/deb
	CHANGES=$DEB/revoke-bpf_${VERSION}_amd64.changes
	RB=$DEB/revoke-bpf_${VERSION}_amd64.deb
	DEV=$DEB/librevoke-dev_${VERSION}_amd64.deb
	DBG=$DEB/revoke-bpf-dbgsym_${VERSION}_amd64.deb
	T=$BATS_TEST_TMPDIR
}

# output without lintian's note that it runs as root
unrooted() {
	grep -v '^running with root privileges is not recommended!$' || true
}

# the paths a package holds, directories with a trailing /, sorted
contents() {
	dpkg-deb -c "$1" | sed 's/^\([^ ]* *\)\{5\}//; s|^\./||; /^$/d' | sort
}

@test "make deb builds revoke-bpf and librevoke-dev, and lintian passes with --fail-on error,warning" {
	# make deb's output: its two steps, and lintian's tags (none) and
	# status; on a failure, the end of the build's log or lintian's tags
	run cat "$BATS_FILE_TMPDIR/make.out"
	echo "$output"
	[ "$(cat "$BATS_FILE_TMPDIR/make.rc")" -eq 0 ]
	[ "$(unrooted <<<"$output")" = "  DEB      $DEB (log: $DEB/build.log)
  LINTIAN  $CHANGES" ]
	[ -f "$RB" ] && [ -f "$DEV" ] && [ -f "$CHANGES" ]
	grep -q " $(basename "$RB")$" "$CHANGES"
	grep -q " $(basename "$DEV")$" "$CHANGES"
}

@test "make deb does nothing while the packages are newer than every source, and builds again after a change" {
	run make -C "$REPO" --no-print-directory deb BUILD="$B"
	[ "$status" -eq 0 ]
	# make[N] under make check, whose MAKELEVEL the tests inherit
	[[ $output =~ ^make(\[[0-9]+\])?:\ Nothing\ to\ be\ done\ for\ \'deb\'\.$ ]]
	# as if README.md had changed (-W): the packages would be built again
	run make -C "$REPO" --no-print-directory -n -W README.md deb BUILD="$B"
	[ "$status" -eq 0 ]
	[[ $output == *"dpkg-buildpackage -us -uc -b"* ]]
}

@test "the package build's log shows every command; it builds what is shipped and the unit tests that need no root, and runs them" {
	# V=1 (unless DEB_BUILD_OPTIONS has terse): the daemon's link, hardened
	grep -q -- ' -Wl,-z,relro -Wl,-z,now build/obj/daemon/daemon.o .* -o build/revoke-bpfd$' "$DEB/build.log"
	# every program and BPF object made (not the objects of src/)
	run bash -c "grep -o -E -- '-o build/[^ ]+\$' '$DEB/build.log' | grep -v -e ' build/obj/' -e ' build/lib/' | sort"
	[ "$output" = "$(cat <<-EOF
	-o build/holders.bpf.o
	-o build/librevoke.so.0
	-o build/revoke-bpf
	-o build/revoke-bpfd
	-o build/revoke.bpf.o
	-o build/tests/common/test_ctl_proto
	-o build/tests/common/test_key
	-o build/tests/common/test_target
	-o build/tests/daemon/test_ctl_loop
	-o build/tests/daemon/test_lsm_check
	-o build/tests/daemon/test_policy
	-o build/tests/daemon/test_seat
	-o build/tests/daemon/test_uevent_netlink
	-o build/tests/pipeline/test_pause_users
	-o build/tests/pipeline/test_report
	-o build/tests/test_librevoke
	-o build/tests/umount/test_fs_pins
	EOF
	)" ]
	run grep -c '^1\.\.[0-9]' "$DEB/build.log"
	[ "$output" = 12 ]
	run grep -c '^not ok' "$DEB/build.log"
	[ "$output" = 0 ]
}

@test "revoke-bpf holds exactly the daemon, the command, its completion, the units, the udev rule, the man pages, the policy, the JSON schema and its docs" {
	run contents "$RB"
	[ "$output" = "$(cat <<-EOF
	etc/
	etc/default/
	etc/default/revoke-bpfd
	etc/revoke-bpf/
	etc/revoke-bpf/policy.conf
	lib/
	lib/systemd/
	lib/systemd/system/
	lib/systemd/system/revoke-bpf-metrics.service
	lib/systemd/system/revoke-bpf-metrics.timer
	lib/systemd/system/revoke-bpfd.service
	lib/udev/
	lib/udev/rules.d/
	lib/udev/rules.d/60-revoke-bpf.rules
	usr/
	usr/bin/
	usr/bin/revoke-bpf
	usr/sbin/
	usr/sbin/revoke-bpfd
	usr/share/
	usr/share/bash-completion/
	usr/share/bash-completion/completions/
	usr/share/bash-completion/completions/revoke-bpf
	usr/share/doc/
	usr/share/doc/revoke-bpf/
	usr/share/doc/revoke-bpf/README.md.gz
	usr/share/doc/revoke-bpf/changelog.gz
	usr/share/doc/revoke-bpf/copyright
	usr/share/lintian/
	usr/share/lintian/overrides/
	usr/share/lintian/overrides/revoke-bpf
	usr/share/man/
	usr/share/man/man5/
	usr/share/man/man5/policy.conf.5.gz
	usr/share/man/man5/revoked.d.5.gz
	usr/share/man/man8/
	usr/share/man/man8/revoke-bpf.8.gz
	usr/share/man/man8/revoke-bpfd.8.gz
	usr/share/revoke-bpf/
	usr/share/revoke-bpf/revoke-bpf.schema.json
	EOF
	)" ]
}

@test "librevoke-dev holds exactly the static library, the header, the pkg-config file, librevoke(3) and the example" {
	run contents "$DEV"
	[ "$output" = "$(cat <<-EOF
	usr/
	usr/include/
	usr/include/revoke.h
	usr/lib/
	usr/lib/x86_64-linux-gnu/
	usr/lib/x86_64-linux-gnu/librevoke.a
	usr/lib/x86_64-linux-gnu/pkgconfig/
	usr/lib/x86_64-linux-gnu/pkgconfig/librevoke.pc
	usr/share/
	usr/share/doc/
	usr/share/doc/librevoke-dev/
	usr/share/doc/librevoke-dev/changelog.gz
	usr/share/doc/librevoke-dev/copyright
	usr/share/doc/librevoke-dev/examples/
	usr/share/doc/librevoke-dev/examples/revoke_example.c
	usr/share/man/
	usr/share/man/man3/
	usr/share/man/man3/librevoke.3.gz
	EOF
	)" ]
}

@test "the shared librevoke is in neither package" {
	run bash -c "{ dpkg-deb -c '$RB'; dpkg-deb -c '$DEV'; dpkg-deb -c '$DBG'; } | grep -c 'librevoke\.so'"
	[ "$output" = 0 ]
}

@test "the policy and the daemon's options are revoke-bpf's conffiles, and librevoke-dev has none" {
	run dpkg-deb -I "$RB" conffiles
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '/etc/default/revoke-bpfd\n/etc/revoke-bpf/policy.conf')" ]
	run dpkg-deb -I "$DEV" conffiles
	[ "$status" -ne 0 ]
}

@test "revoke-bpf depends on libbpf and libc, and enables and starts revoke-bpfd.service on install" {
	run dpkg-deb -f "$RB" Depends
	[ "$output" = "libbpf1 (>= 1:0.6.0), libc6 (>= 2.34)" ]
	dpkg-deb -I "$RB" postinst | grep -q "deb-systemd-helper enable 'revoke-bpfd.service'"
	dpkg-deb -I "$RB" postinst | grep -q "deb-systemd-invoke \$_dh_action 'revoke-bpfd.service'"
	# the metrics timer is the admin's to enable (README, Metrics), and an
	# admin's choice is kept across upgrades
	dpkg-deb -I "$RB" postinst | grep -q "deb-systemd-helper update-state 'revoke-bpf-metrics.timer'"
	! dpkg-deb -I "$RB" postinst | grep -q "enable 'revoke-bpf-metrics"
	! dpkg-deb -I "$RB" postinst | grep -q "deb-systemd-invoke .*'revoke-bpf-metrics"
}

@test "the unit runs /usr/sbin/revoke-bpfd and the udev rule /usr/bin/revoke-bpf" {
	local root=$BATS_FILE_TMPDIR/revoke-bpf
	run grep '^ExecStart=' "$root/lib/systemd/system/revoke-bpfd.service"
	[ "$output" = "ExecStart=/usr/sbin/revoke-bpfd \$REVOKE_BPFD_OPTS" ]
	run grep -o 'RUN+="[^"]*"' "$root/lib/udev/rules.d/60-revoke-bpf.rules"
	[ "$output" = 'RUN+="/usr/bin/revoke-bpf uevent"' ]
}

@test "no shipped ELF file holds an absolute build path, the BPF objects in the daemon included" {
	local f n bad=
	for f in $(find "$BATS_FILE_TMPDIR"/revoke-bpf "$BATS_FILE_TMPDIR"/librevoke-dev \
			"$BATS_FILE_TMPDIR"/revoke-bpf-dbgsym -type f); do
		case $(head -c 4 "$f" | od -An -c | tr -d ' ') in
		177ELF) ;;
		*) [[ $f == *.a ]] || continue ;;
		esac
		# the strings, and the debugging information decompressed
		n=$({ strings -a "$f"; readelf -z --debug-dump=info,line "$f" 2>/dev/null; } |
			grep -c -e "$REPO" -e "$DEB/revoke-bpf-$VERSION" || true)
		[ "$n" = 0 ] || bad+=" ${f#"$BATS_FILE_TMPDIR"/}($n)"
	done
	[ -z "$bad" ] || { echo "build paths in:$bad"; false; }
	# and the daemon does embed the BPF objects, by their relative names
	strings -a "$BATS_FILE_TMPDIR/revoke-bpf/usr/sbin/revoke-bpfd" | grep -qx 'bpf/revoke.bpf.c'
}

@test "the daemon is a PIE, bound now, with RELRO, fortified and with the stack protector" {
	local d=$BATS_FILE_TMPDIR/revoke-bpf/usr/sbin/revoke-bpfd
	run readelf -h "$d"
	[[ $output == *"Type:                              DYN (Position-Independent Executable file)"* ]]
	run bash -c "readelf -d '$d' | grep -E 'FLAGS'"
	[[ ${lines[0]} == *"(FLAGS)"*"BIND_NOW" ]]
	[[ ${lines[1]} == *"(FLAGS_1)"*"Flags: NOW PIE" ]]
	readelf -lW "$d" | grep -q '^ *GNU_RELRO '
	readelf -lW "$d" | grep -qE '^ *GNU_STACK .* RW  0x10$'
	readelf --dyn-syms -W "$d" | grep -qE ' __[a-z]+_chk(@|$)'
	readelf --dyn-syms -W "$d" | grep -q ' __stack_chk_fail'
}

@test "the command is static and not a PIE, on purpose (a lintian override says why), with RELRO, fortified, with the stack protector, and runs" {
	local c=$BATS_FILE_TMPDIR/revoke-bpf/usr/bin/revoke-bpf
	run readelf -h "$c"
	[[ $output == *"Type:                              EXEC (Executable file)"* ]]
	run bash -c "readelf -lW '$c' | grep -cE '^ *(INTERP|DYNAMIC) '"
	[ "$output" = 0 ]
	readelf -lW "$c" | grep -q '^ *GNU_RELRO '
	readelf -lW "$c" | grep -qE '^ *GNU_STACK .* RW  0x10$'
	# what __chk_fail and __stack_chk_fail print: linked in, so called
	strings -a "$c" | grep -qx 'buffer overflow detected'
	strings -a "$c" | grep -qx 'stack smashing detected'
	run cat "$BATS_FILE_TMPDIR/revoke-bpf/usr/share/lintian/overrides/revoke-bpf"
	[[ $output == *"udev"*"start-up"* ]]
	[ "$(grep -v '^#' <<<"$output")" = "statically-linked-binary [usr/bin/revoke-bpf]" ]
	run "$c" --version
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf $VERSION" ]
}

@test "librevoke-dev's pkg-config file builds and links the example against its header and static library" {
	local root=$BATS_FILE_TMPDIR/librevoke-dev
	export PKG_CONFIG_PATH=$root/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
	run pkg-config --modversion librevoke
	[ "$output" = "$VERSION" ]
	run pkg-config --variable=libdir librevoke
	[ "$output" = "$root/usr/lib/x86_64-linux-gnu" ]
	run pkg-config --cflags --libs librevoke
	# (pkg-config ends its line with a space)
	[ "${output% }" = "-I$root/usr/include -L$root/usr/lib/x86_64-linux-gnu -lrevoke" ]
	cc -Wall -Werror "$root/usr/share/doc/librevoke-dev/examples/revoke_example.c" \
		$(pkg-config --cflags --libs librevoke) -o "$T/example"
	run bash -c "readelf -d '$T/example' | grep -c librevoke"
	[ "$output" = 0 ]
	run "$T/example"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "a new open: -5 (Input/output error)" ]
	[[ $output == *"blocked read returned -5 (Input/output error)"* ]]
}

# The package's prerm (as shipped, debhelper's code included), with the
# pin directory, the socket, the options file and the command replaced by
# stand-ins under $T: a sleep started by start_daemon "runs" the daemon,
# which the command reaches (status, unload) only while it lives, as the
# real one would (prerm_env).
prerm_env() {
	mkdir -p "$T/bin" "$T/pins"
	dpkg-deb -I "$RB" prerm |
		sed -e "s|^PIN_DIR=.*|PIN_DIR=$T/pins|" -e "s|^SOCKET=.*|SOCKET=$T/sock|" \
		    -e "s|^OPTIONS=.*|OPTIONS=$T/default|" \
		    -e "s|^CLI=.*|CLI=$T/bin/revoke-bpf|" -e "s|/run/systemd/system|$T/no-systemd|" \
		>"$T/prerm"
	# STATUS: entries devices filesystems; UNLOAD: ok, fail or fail-exit
	cat >"$T/bin/revoke-bpf" <<-EOS
	#!/bin/bash
	echo "\$*" >>"$T/calls"
	[ \$# -ge 2 ] && [ "\$1" = --socket ] || exit 2
	sock=\$2
	shift 2
	if ! kill -0 "\$(cat "$T/daemon.pid" 2>/dev/null)" 2>/dev/null; then
		echo "revoke-bpf: cannot reach revoke-bpfd on \$sock: No such file or directory" >&2
		exit 1
	fi
	case "\$*" in
	status)
		set -- \$(cat "$T/STATUS")
		printf '%-18s %s\n' entries "\$1" capacity 65536 devices "\$2" filesystems "\$3"
		;;
	"--reply-timeout 30 unload --yes")
		case \$(cat "$T/UNLOAD") in
		ok) rm -rf "\$(dirname "\$sock")/pins"; kill \$(cat "$T/daemon.pid")
		    echo "unloaded: nothing is revoked or enforced any more, and revoke-bpfd has exited" ;;
		fail) echo "revoke-bpf: unload: no answer from revoke-bpfd within 30 s" >&2; exit 1 ;;
		fail-exit) kill \$(cat "$T/daemon.pid")
		    echo "revoke-bpf: unload: cannot remove the pins in $T/pins: Device or resource busy; remove them by hand with 'rm -r $T/pins'" >&2; exit 1 ;;
		esac
		;;
	*) exit 2 ;;
	esac
	EOS
	chmod +x "$T/bin/revoke-bpf"
	: >"$T/calls"
	touch "$T/pins/revoke_table" "$T/pins/revoke_file_open" "$T/pins/revoke_b_bss"
}

start_daemon() {
	sleep 600 3>&- &
	echo $! >"$T/daemon.pid"
}

teardown() {
	[ -f "$T/daemon.pid" ] && kill "$(cat "$T/daemon.pid")" 2>/dev/null
	return 0
}

@test "removing revoke-bpf while revoke-bpfd runs lifts every revocation through it, and says so in one line" {
	prerm_env
	start_daemon
	echo "2 1 0" >"$T/STATUS"
	echo ok >"$T/UNLOAD"
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: every revocation was lifted (2 inodes, 1 device, 0 filesystems); revoke-bpfd detached its programs and exited" ]
	[ ! -e "$T/pins" ]
	[ "$(cat "$T/calls")" = "--socket $T/sock status
--socket $T/sock --reply-timeout 30 unload --yes" ]
}

@test "removing revoke-bpf while revoke-bpfd runs with nothing revoked says that nothing was" {
	prerm_env
	start_daemon
	echo "0 0 0" >"$T/STATUS"
	echo ok >"$T/UNLOAD"
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: nothing was revoked; revoke-bpfd detached its programs and exited" ]
	[ ! -e "$T/pins" ]
}

@test "removing revoke-bpf while revoke-bpfd is not running removes its pins, and says every revocation was lifted" {
	prerm_env
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: revoke-bpfd was not running; removed the 3 objects pinned in $T/pins: every revocation was lifted" ]
	[ ! -e "$T/pins" ]
	[ "$(cat "$T/calls")" = "--socket $T/sock status" ]
}

@test "a program any user names revoke-bpfd is not taken for the daemon: the pins are removed" {
	prerm_env
	mkdir -p "$T/fake"
	cp "$(command -v sleep)" "$T/fake/revoke-bpfd"
	"$T/fake/revoke-bpfd" 600 3>&- &
	local fake=$!
	run sh "$T/prerm" remove
	kill "$fake"
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: revoke-bpfd was not running; removed the 3 objects pinned in $T/pins: every revocation was lifted" ]
	[ ! -e "$T/pins" ]
}

@test "the pin folder and socket given in /etc/default/revoke-bpfd are the ones lifted" {
	prerm_env
	mv "$T/pins" "$T/other-pins"
	echo "REVOKE_BPFD_OPTS=\"--pin-dir $T/other-pins --socket=$T/other.sock\"" >"$T/default"
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: revoke-bpfd was not running; removed the 3 objects pinned in $T/other-pins: every revocation was lifted" ]
	[ ! -e "$T/other-pins" ]
	[ "$(cat "$T/calls")" = "--socket $T/other.sock status" ]
}

@test "removing revoke-bpf with no daemon and nothing pinned says that nothing was revoked" {
	prerm_env
	rm -r "$T/pins"
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: nothing was revoked (revoke-bpfd was not running, and nothing is pinned in $T/pins)" ]
}

@test "an unload that fails does not block the removal, and says what is still pinned and how to lift it" {
	prerm_env
	start_daemon
	echo "1 0 0" >"$T/STATUS"
	echo fail >"$T/UNLOAD"
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: revoke-bpfd did not lift the revocations (unload: no answer from revoke-bpfd within 30 s) and still runs: they stay enforced by the 3 objects pinned in $T/pins until it stops; then lift them with 'rm -r $T/pins'" ]
	[ -d "$T/pins" ]
}

@test "an unload that fails and ends the daemon leaves no pin behind, and says so" {
	prerm_env
	start_daemon
	echo "1 0 0" >"$T/STATUS"
	echo fail-exit >"$T/UNLOAD"
	run sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ "$output" = "revoke-bpf: revoke-bpfd's unload failed (unload: cannot remove the pins in $T/pins: Device or resource busy; remove them by hand with 'rm -r $T/pins'), and it was stopped; removed the 3 objects pinned in $T/pins: every revocation was lifted" ]
	[ ! -e "$T/pins" ]
}

@test "an upgrade keeps every revocation, asks nothing of the daemon and says nothing" {
	prerm_env
	start_daemon
	run sh "$T/prerm" upgrade "$VERSION"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(ls "$T/pins" | wc -l)" = 3 ]
	[ ! -s "$T/calls" ]
	kill -0 "$(cat "$T/daemon.pid")"
}

@test "a removal under dpkg --root leaves this machine's pins alone" {
	prerm_env
	run env DPKG_ROOT="$T/chroot" sh "$T/prerm" remove
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(ls "$T/pins" | wc -l)" = 3 ]
}
