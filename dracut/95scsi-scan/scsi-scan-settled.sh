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
	mkdir -p /run/scsi-scan
	# shellcheck disable=SC1091 # the image's copy of boot/boot-policy.sh
	[ -r /usr/lib/scsi-scan/boot-policy.sh ] && . /usr/lib/scsi-scan/boot-policy.sh &&
		scsi_scan_limit=$(scsi_scan_limit_of "$scsi_scan_limit" 2>>/run/scsi-scan.log)
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
	# Otherwise the boot policy of a host-only image (scsi-quirks
	# boot-policy): the root's LUNs only, unless scsi_scan.bootpolicy=0;
	# dropped once the root has not appeared within 5 s of passes
	# (boot-policy.sh says how they count): it may have moved to a LUN the
	# policy does not name.
	if [ ! -e "$scsi_scan_policy" ] && [ -s /etc/scsi-scan/boot-policy.conf ] &&
		[ "$(getarg scsi_scan.bootpolicy=)" != 0 ]; then
		mkdir -p /run/scsi-scan
		cat /etc/scsi-scan/boot-policy.conf >"$scsi_scan_policy"
		: >/run/scsi-scan/boot-policy.since
	fi
	if [ -e /run/scsi-scan/boot-policy.since ] && [ -s "$scsi_scan_policy" ]; then
		# shellcheck disable=SC1091 # the image's copy of boot/boot-policy.sh
		. /usr/lib/scsi-scan/boot-policy.sh
		scsi_scan_policy_waited && warn "$(scsi_scan_policy_drop "dracut -f")"
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
