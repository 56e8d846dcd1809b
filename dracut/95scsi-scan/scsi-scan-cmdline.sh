#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut cmdline hook: a boot LUN mask (scsi_scan.lunmask=, or dracut's
# rd.lunmask=) means the kernel attaches nothing by itself, as dracut's
# 95lunmask makes it: scsi_mod.scan=manual before udev loads the host
# drivers. The settled hook then attaches what the mask names.
# Sourced by dracut (dracut-lib.sh loaded): no exit here.

if getarg rd.lunmask= >/dev/null || getarg scsi_scan.lunmask= >/dev/null; then
	if [ -w /sys/module/scsi_mod/parameters/scan ]; then
		printf manual >/sys/module/scsi_mod/parameters/scan
	elif [ ! -d /sys/module/scsi_mod ]; then
		mkdir -p /etc/modprobe.d
		echo "options scsi_mod scan=manual" >/etc/modprobe.d/scsi-scan-lunmask.conf
	fi
fi

# Root on iSCSI (dracut's 95iscsi logs in with iscsiadm and iscsid): with
# node.session.scan = auto, open-iscsi's default, iscsid writes "- - -" to
# the new session's host itself and every LUN of the target is attached,
# whatever the boot policy says. With a manual scan, the records the
# discovery makes here take node.session.scan = manual from the
# initramfs's iscsid.conf (the last value read wins), and the settled hook
# scans the session with the boot's policy.
scsi_scan_mode=$(cat /sys/module/scsi_mod/parameters/scan 2>/dev/null)
[ -n "$scsi_scan_mode" ] || scsi_scan_mode=$(getarg scsi_mod.scan=)
if [ -z "$scsi_scan_mode" ]; then
	for f in /etc/modprobe.d/*.conf /run/modprobe.d/*.conf /lib/modprobe.d/*.conf; do
		[ -r "$f" ] || continue
		while read -r scsi_scan_w1 scsi_scan_w2 scsi_scan_rest; do
			[ "$scsi_scan_w1 $scsi_scan_w2" = "options scsi_mod" ] || continue
			case " $scsi_scan_rest " in
			*" scan=manual "*) scsi_scan_mode=manual ;;
			esac
		done <"$f"
	done
fi
if [ "$scsi_scan_mode" = manual ] && [ -d /etc/iscsi ]; then
	echo "node.session.scan = manual" >>/etc/iscsi/iscsid.conf
fi
