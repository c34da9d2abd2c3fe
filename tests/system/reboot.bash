# SPDX-License-Identifier: GPL-2.0
# What tests/system/reboot-1.bats leaves for reboot-2.bats, which runs
# after a reboot of the guest: files on the root disk, which the reboot
# keeps (tests/vm/system.bash).

DIR=/var/lib/revoke-reboot
SECRET=$DIR/secret		# revoked by a line of $DECLARED
HAND=$DIR/hand			# revoked by revoke-bpf add
DECLARED=/etc/revoke-bpf/revoked.d/test.conf
PROBE=revoke-reboot-probe.service	# reads $SECRET as nobody at boot, into $DIR/probe
