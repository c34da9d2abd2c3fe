# SPDX-License-Identifier: GPL-2.0
# tests/vm/archive.bash - sourced by tests/vm/run and tests/vm/debian-root:
# where this machine's apt takes its Debian release from.  The address is
# read from the apt configuration at run time, never written in the
# repository.

# The archive that the machine's apt sources (one-line or deb822 format)
# take its own Debian release from.
debian_archive() {
	local release
	release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	{
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk -v r="$release" '$1 == "deb" {
				i = 2; if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == r) print $i }'
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk -v r="$release" '
				function out() { if (uri != "" && (" " suites " ") ~ (" " r " ")) print uri; uri = suites = "" }
				/^[ \t]*$/ { out() }
				/^URIs:/ { uri = $2 }
				/^Suites:/ { suites = $0; sub(/^Suites:[ \t]*/, "", suites) }
				END { out() }'
	} | head -n1
}
