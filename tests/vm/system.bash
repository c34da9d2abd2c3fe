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
# the root at its own path (at the first boot), adds the service that runs COMMAND, and
# switch_roots to systemd.  The service prints the same markers as the
# busybox guest's init, so that run relays and judges both alike.
#
# Reboots: COMMAND may be several commands joined by the word ::reboot::
# (tests/system/suite puts one after a bats file that asks for it).  The
# service runs one a boot: command.N at stage N (kept in
# /var/lib/revoke-vm/stage on the root disk, whose snapshot lives as long
# as the qemu process, so a guest reboot keeps it), then prints
# REVOKE-VM-...-REBOOT N+1 and runs "systemctl reboot" while a command
# is left, and the EXIT marker after the last, with the first non-zero
# status of them all.  Only then does run drop qemu's -no-reboot; and
# the initramfs counts boots on the root disk and powers off at one more
# than the commands (REBOOT-LOOP: a crash under panic=-1, or a reboot
# nobody asked for), while run's --timeout ends a guest that never comes
# back.  Each command's output is relayed as it comes.

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
	local nonce=$1 boots=$2
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
# one boot per command (::reboot::), no more; the payload copied at the
# first (a reboot keeps the root disk's changes)
/bin/busybox mkdir -p /newroot/var/lib/revoke-vm
b=\$(( \$(/bin/busybox cat /newroot/var/lib/revoke-vm/boots 2>/dev/null || echo 0) + 1 ))
echo \$b > /newroot/var/lib/revoke-vm/boots
if [ \$b -gt $boots ]; then
	echo "REVOKE-VM-$nonce-REBOOT-LOOP \$b"
	/bin/busybox umount \$m /newroot
	/bin/busybox poweroff -f
fi
[ \$b -gt 1 ] || /bin/busybox cp -a /payload/. /newroot/ || fail "cannot copy the payload"
/bin/busybox umount /proc /sys /dev
exec /bin/busybox switch_root /newroot /lib/systemd/systemd
EOF
	chmod 0755 "$ROOT/init"
}

# The service that runs COMMAND (command.N for each N-th of the commands
# joined by ::reboot::), and what it runs.  Sets REBOOTS.
write_system_service() {
	local nonce=$1 dir=$ROOT/payload/etc/revoke-vm a
	shift
	mkdir -p "$dir" "$ROOT/payload/etc/systemd/system/multi-user.target.wants" \
		"$ROOT/payload/etc/tmpfiles.d"
	# Debian's tmpfiles empty /tmp at boot ("D /tmp"): keep what --file
	# put there (a repository cloned under /tmp, say)
	echo 'd /tmp 1777 root root -' > "$ROOT/payload/etc/tmpfiles.d/tmp.conf"
	REBOOTS=0
	echo 'cd /' > "$dir/command.0"
	for a; do
		if [ "$a" = ::reboot:: ]; then
			echo >> "$dir/command.$REBOOTS"
			REBOOTS=$((REBOOTS + 1))
			echo 'cd /' > "$dir/command.$REBOOTS"
		else
			printf '%q ' "$a" >> "$dir/command.$REBOOTS"
		fi
	done
	echo >> "$dir/command.$REBOOTS"
	cat > "$dir/service" <<EOF
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb REVOKE_VM=1 REVOKE_VM_SYSTEM=1
state=/var/lib/revoke-vm
stage=\$(cat \$state/stage 2>/dev/null || echo 0)
echo "REVOKE-VM-$nonce-BOOTED"
case ",\$(cat /sys/kernel/security/lsm)," in
*,bpf,*) ;;
*) echo "REVOKE-VM-$nonce-NO-BPF-LSM \$(cat /sys/kernel/security/lsm)"; systemctl poweroff -ff ;;
esac
/bin/bash /etc/revoke-vm/command.\$stage </dev/null 2>&1
rc=\$?
[ \$rc -eq 0 ] || [ -s \$state/rc ] || echo \$rc > \$state/rc
if [ -e /etc/revoke-vm/command.\$((stage + 1)) ]; then
	echo \$((stage + 1)) > \$state/stage
	sync
	echo "REVOKE-VM-$nonce-REBOOT \$((stage + 1))"
	systemctl reboot
	exit 0
fi
echo "REVOKE-VM-$nonce-EXIT \$(cat \$state/rc 2>/dev/null || echo 0)"
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
# INITRD, DRIVES to the disks as qemu arguments, and REBOOTS.
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
	write_system_service "$NONCE" "$@"
	write_system_init "$NONCE" $((REBOOTS + 1))
	INITRD=$(mktemp --suffix=.cpio.gz)
	(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD" ||
		die $EXIT_INITRD "cannot pack the initramfs"
	rm -rf "$ROOT"
	DRIVES=(-drive "file=$ROOTIMG,format=raw,if=virtio,snapshot=on"
		-drive "file=$MODIMG,format=raw,if=virtio,readonly=on")
}

