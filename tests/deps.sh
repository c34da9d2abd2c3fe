#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/deps.sh - install, from Debian's packages, whatever building and
# testing revoke-bpf needs and this machine lacks.  Does nothing when all
# is there.
set -euo pipefail

PACKAGES=(
	make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config
	bats qemu-system-x86 busybox-static cpio e2fsprogs libclang-rt-14-dev man-db
	strace jq psmisc lsof spin liburcu-dev liburing-dev
	# tests/host/output.bats: a stand-in daemon, and tests/lib/schema.jq
	# checked against a real JSON Schema validator
	python3 python3-jsonschema
	# the VM suite: .ko.xz modules (6.12 and newer), btrfs and xfs made on
	# the host's tools, 32-bit static test programs, a FUSE server
	xz-utils btrfs-progs xfsprogs gcc-multilib fuse3 libfuse3-dev
	# umount.bats: vfat, the USB stick's filesystem
	dosfstools
	# make deb and tests/host/deb.bats: the Debian packages, and lintian
	debhelper dpkg-dev lintian
	# tests/system: a Debian root with systemd (tests/vm/debian-root), the
	# guest kernel's modules.dep (depmod), systemd-analyze for the unit
	mmdebstrap kmod systemd
	# tests/host/contrib.bats: contrib/ansible linted, deploy/kubernetes
	# linted and its fields checked against the API's models
	ansible-lint yamllint python3-kubernetes
)
# ... and rendered by kubectl kustomize: Debian's kubectl unless the
# machine has one already (another kubectl package owns /usr/bin/kubectl)
command -v kubectl >/dev/null || PACKAGES+=(kubernetes-client)
# make bench also plots
[ "${1:-}" = bench ] && PACKAGES+=(gnuplot-nox)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "tests/deps.sh: missing packages: ${missing[*]}; install them with" \
		"'sudo apt-get install ${missing[*]}' or run 'make deps' as root" >&2
	exit 1
fi
echo "tests/deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
