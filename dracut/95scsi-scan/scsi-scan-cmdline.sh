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
