#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut initqueue/settled hook: attach SCSI devices when the kernel does not
# (scsi_mod.scan=manual). Attached LUNs are left alone, so running on every
# pass of the main loop is cheap, and hosts that come up late are found.
# The initqueue sources this file (dracut-lib.sh loaded): no exit here.

if [ "$(cat /sys/module/scsi_mod/parameters/scan 2>/dev/null)" = manual ] &&
	command -v scsi-scan >/dev/null; then
	# The bound on one run, from scsi_scan.timeout= on the kernel command
	# line (seconds; 0 for none): a device that hangs must not hang the boot.
	scsi_scan_limit=$(getarg scsi_scan.timeout=)
	[ -n "$scsi_scan_limit" ] || scsi_scan_limit=120
	# LUN masking for the boot (scsi_scan.lunmask=, or dracut's
	# rd.lunmask=), written once: only the
	# LUNs named there are attached; the daemon loads the full policy later.
	# A value that does not parse is reported once and ignored. grep and rm
	# need not be in the initramfs.
	scsi_scan_policy=/run/scsi-scan/boot-lunmask.conf
	if [ ! -e "$scsi_scan_policy" ] && { getarg scsi_scan.lunmask= >/dev/null ||
		getarg rd.lunmask= >/dev/null; }; then
		mkdir -p /run/scsi-scan
		scsi-quirks import --cmdline "$(cat /proc/cmdline)" >"$scsi_scan_policy" \
			2>/run/scsi-scan-lunmask.err ||
			warn "$(cat /run/scsi-scan-lunmask.err); every LUN is attached"
	fi
	scsi_scan_files=
	[ -s "$scsi_scan_policy" ] && scsi_scan_files=$scsi_scan_policy
	modprobe -q sg
	scsi-scan --wait --time-limit "$scsi_scan_limit" \
		${scsi_scan_files:+--quirks-file "$scsi_scan_files"} >>/run/scsi-scan.log 2>&1
	scsi_scan_rc=$?
	if [ $scsi_scan_rc -ne 0 ]; then
		while read -r line; do
			case "$line" in
			"scsi-scan: "*) warn "$line" ;;
			esac
		done </run/scsi-scan.log
		warn "scsi-scan: exit $scsi_scan_rc (time limit $scsi_scan_limit s); see /run/scsi-scan.log"
	fi
fi
