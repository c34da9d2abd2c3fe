# SPDX-License-Identifier: GPL-2.0
# tests/vm/system.bash - tests/vm/run --system: boot a real Debian system.
# Sourced by tests/vm/run, whose kernel (KDIR, KVER, MDIR), module and
# marker functions it uses.
#
# Two disks: the root filesystem of tests/vm/debian-root (vda, written
# through qemu's snapshot=on, so the cached image is never changed) and
# the kernel's modules with their modules.dep and aliases (vdb, read-only,
# an ext4 image made once per kernel beside it in the cache).  A busybox
# initramfs loads what it takes to mount them, copies every --file into
# the root at its own path, adds the service that runs COMMAND, and
# switch_roots to systemd.  The service prints the same markers as the
# busybox guest's init, so that run relays and judges both alike.

# The modules image of the kernel in $MDIR, made once: a copy of the
# tree, depmod'ed on the host (the packages ship no modules.dep), as ext4.
# Sets MODIMG.
modules_image() {
	local tmp size
	MODIMG=$KDIR/.modules.img
	[ -e "$MODIMG" ] && return 0
	command -v depmod >/dev/null || die $EXIT_INITRD "depmod is missing (package kmod); run 'make deps'"
	tmp=$(mktemp -d "$KDIR/.modules.XXXXXX")
	mkdir -p "$tmp/lib/modules"
	cp -a "$MDIR" "$tmp/lib/modules/$KVER" &&
		depmod -b "$tmp" "$KVER" ||
		{ rm -rf "$tmp"; die $EXIT_INITRD "cannot depmod the modules of $KVER"; }
	size=$(( $(du -sm "$tmp/lib/modules/$KVER" | cut -f1) * 12 / 10 + 64 ))
	mkfs.ext4 -q -F -L modules -d "$tmp/lib/modules/$KVER" "$tmp/modules.img" "${size}M" >&2 &&
		mv "$tmp/modules.img" "$MODIMG" ||
		{ rm -rf "$tmp"; die $EXIT_INITRD "cannot make the modules image of $KVER"; }
	rm -rf "$tmp"
}

# The busybox init of the initramfs: mount the root and the modules,
# copy the payload, hand over to systemd.
write_system_init() {
	local nonce=$1
	cat > "$ROOT/init" <<EOF
#!/bin/busybox sh
fail() { echo "REVOKE-VM-$nonce-NO-ROOT \$*"; /bin/busybox poweroff -f; }
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for m in \$(cat /etc/revoke-vm/modules 2>/dev/null); do
	/bin/busybox insmod /lib/modules/\$(uname -r)/\$m.ko || echo "init: insmod \$m failed"
done
for i in \$(seq 1 100); do [ -b /dev/vdb ] && break; sleep 0.1; done
/bin/busybox mkdir -p /newroot
/bin/busybox mount -t ext4 /dev/vda /newroot || fail "cannot mount /dev/vda"
m=/newroot/usr/lib/modules/\$(uname -r)
/bin/busybox mkdir -p \$m
/bin/busybox mount -t ext4 -o ro /dev/vdb \$m || fail "cannot mount the modules (/dev/vdb)"
/bin/busybox cp -a /payload/. /newroot/ || fail "cannot copy the payload"
/bin/busybox umount /proc /sys /dev
exec /bin/busybox switch_root /newroot /lib/systemd/systemd
EOF
	chmod 0755 "$ROOT/init"
}

# The service that runs COMMAND in the booted system, and what it runs.
write_system_service() {
	local nonce=$1 dir=$ROOT/payload/etc/revoke-vm
	shift
	mkdir -p "$dir" "$ROOT/payload/etc/systemd/system/multi-user.target.wants" \
		"$ROOT/payload/etc/tmpfiles.d"
	# Debian's tmpfiles empty /tmp at boot ("D /tmp"): keep what --file
	# put there (a repository cloned under /tmp, say)
	echo 'd /tmp 1777 root root -' > "$ROOT/payload/etc/tmpfiles.d/tmp.conf"
	{
		echo 'cd /'
		printf '%q ' "$@"
		echo
	} > "$dir/command"
	cat > "$dir/service" <<EOF
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb REVOKE_VM=1 REVOKE_VM_SYSTEM=1
echo "REVOKE-VM-$nonce-BOOTED"
case ",\$(cat /sys/kernel/security/lsm)," in
*,bpf,*) ;;
*) echo "REVOKE-VM-$nonce-NO-BPF-LSM \$(cat /sys/kernel/security/lsm)"; systemctl poweroff -ff ;;
esac
/bin/bash /etc/revoke-vm/command </dev/null 2>&1
echo "REVOKE-VM-$nonce-EXIT \$?"
sync
systemctl poweroff -ff
EOF
	chmod 0755 "$dir/service"
	cat > "$ROOT/payload/etc/systemd/system/revoke-vm.service" <<EOF
[Unit]
Description=tests/vm/run --system: the command under test
After=multi-user.target

[Service]
Type=exec
ExecStart=/etc/revoke-vm/service
StandardInput=null
StandardOutput=file:/dev/ttyS0
StandardError=inherit
EOF
	ln -s ../revoke-vm.service "$ROOT/payload/etc/systemd/system/multi-user.target.wants/revoke-vm.service"
}

# build_initrd_system COMMAND...: the initramfs of a --system boot; sets
# INITRD, and DRIVES to the disks as qemu arguments.
build_initrd_system() {
	local f a
	ROOTIMG=$("$REPO/tests/vm/debian-root") || exit $EXIT_INITRD
	modules_image
	ROOT=$(mktemp -d)
	chmod 0755 "$ROOT"
	mkdir -p "$ROOT"/{usr/bin,usr/sbin,usr/lib,etc/revoke-vm,proc,sys,dev,payload}
	for a in bin sbin lib; do ln -s usr/$a "$ROOT/$a"; done
	cp /bin/busybox "$ROOT/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		[ -e "$ROOT/$a" ] || ln -s /bin/busybox "$ROOT/$a"
	done
	for f in "${files[@]}"; do
		[ -e "$f" ] || die $EXIT_INITRD "--file $f does not exist"
		f=$(readlink -f "$f")
		mkdir -p "$ROOT/payload$(dirname "$f")"
		cp -a "$f" "$ROOT/payload$f"
	done
	index_modules
	for f in virtio_pci virtio_blk ext4; do put_module "$f"; done
	write_system_init "$NONCE"
	write_system_service "$NONCE" "$@"
	INITRD=$(mktemp --suffix=.cpio.gz)
	(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD" ||
		die $EXIT_INITRD "cannot pack the initramfs"
	rm -rf "$ROOT"
	DRIVES=(-drive "file=$ROOTIMG,format=raw,if=virtio,snapshot=on"
		-drive "file=$MODIMG,format=raw,if=virtio,readonly=on")
}

