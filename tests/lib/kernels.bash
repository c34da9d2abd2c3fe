# SPDX-License-Identifier: GPL-2.0
#
# tests/lib/kernels.bash - which kernels' suites run a bats file, for
# tests/vm/suite and tests/system/suite (sourced by both).
#
# A file runs in every kernel's suite, unless it has a line
#
#	# kernels: NAME...
#
# naming the only ones of make check's three kernels (tests/vm/run's
# names 6.1, 6.12 and newest) whose suite runs it; another name
# (generic, cloud) runs every file.  That is for a file none of whose
# tests asserts anything a kernel decides: what the CLI prints, the
# control protocol, Ansible; the kernel paths it goes through are proven
# on every kernel by other files.  The line says why, beside it.  A file
# named on a suite's command line always runs.

# for_kernel NAME FILE...: print the FILEs NAME's suite runs, one a line.
for_kernel() {
	local kernel=$1 f names
	shift
	case $kernel in
	6.1|6.12|newest) ;;
	*) printf '%s\n' "$@"; return ;;
	esac
	for f in "$@"; do
		names=$(sed -n 's/^# kernels: //p' "$f" | head -n 1)
		if [ -z "$names" ] || [[ " $names " == *" $kernel "* ]]; then
			printf '%s\n' "$f"
		fi
	done
}
