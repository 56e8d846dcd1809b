#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut module: scsi-scan and the quirk database in the initramfs, so that
# SCSI disks appear when the kernel runs with scsi_mod.scan=manual.
# dracut provides moddir and dracutsysrootdir.
# shellcheck disable=SC2154

# called by dracut
check() {
	[[ -x "$dracutsysrootdir@bindir@/scsi-scan" ]] || return 1
	return 0
}

# called by dracut
depends() {
	echo udev-rules
	return 0
}

# called by dracut
installkernel() {
	hostonly='' instmods sg
}

# called by dracut
install() {
	local dir f

	# meson fills in where this build installs them; the settled hook
	# finds scsi-scan in the initramfs's PATH.
	inst_binary "@bindir@/scsi-scan" /usr/bin/scsi-scan
	# turns scsi_scan.lunmask= and rd.lunmask= into the boot's policy
	inst_binary "@bindir@/scsi-quirks" /usr/bin/scsi-quirks ||
		dwarn "scsi-scan: @bindir@/scsi-quirks is missing: scsi_scan.lunmask= will be ignored"
	for dir in @shipped_quirks_dir@ @etc_quirks_dir@; do
		[[ -d "$dracutsysrootdir$dir" ]] || continue
		inst_dir "$dir"
		for f in "$dracutsysrootdir$dir"/*.conf; do
			[[ -e "$f" || -L "$f" ]] || continue
			inst "${f#"$dracutsysrootdir"}"
		done
	done
	# The compiled database, made from the copies just installed and with
	# the paths they have at boot: scsi-scan loads it instead of the text.
	inst_dir "@image_dir@"
	"$dracutsysrootdir@bindir@/scsi-quirks" --root "$initdir" --quiet compile ||
		dwarn "scsi-scan: no compiled quirk database in the initramfs; the text is read"
	# The database's flags for the devices of this machine, by their own
	# names, in the form scsi_mod reads when it loads here
	# (scsi_mod.dev_flags). A value longer than the kernel takes fails the
	# image: the kernel would refuse the whole parameter.
	# SCSI_SCAN_SYSROOT: where the devices are read, for packaging tests.
	mkdir -p "$initdir/etc/modprobe.d"
	if ! "$dracutsysrootdir@bindir@/scsi-quirks" --root "$initdir" export --modprobe \
		--host-only ${SCSI_SCAN_SYSROOT:+--sysroot "$SCSI_SCAN_SYSROOT"} \
		>"$initdir/etc/modprobe.d/scsi-scan-dev-flags.conf"; then
		dfatal "scsi-scan: the quirk database's device flags cannot reach scsi_mod (see above)"
		return 1
	fi
	# The boot policy of a host-only image: only the root file system's
	# SCSI LUNs are attached before the root is mounted (scsi-quirks
	# boot-policy names them by stable address). BOOT_POLICY in
	# /etc/scsi-scan/initramfs.conf: auto (the default: with --hostonly),
	# yes or no; SCSI_SCAN_BOOT_POLICY overrides it (tests).
	local BOOT_POLICY=auto boot_policy
	if [[ -r "$dracutsysrootdir/etc/scsi-scan/initramfs.conf" ]]; then
		# shellcheck disable=SC1091
		. "$dracutsysrootdir/etc/scsi-scan/initramfs.conf"
	fi
	boot_policy=${SCSI_SCAN_BOOT_POLICY:-${BOOT_POLICY:-auto}}
	if [[ $boot_policy == auto ]]; then
		boot_policy=no
		[[ $hostonly ]] && boot_policy=yes
	fi
	if [[ $boot_policy == yes ]]; then
		mkdir -p "$initdir/etc/scsi-scan"
		if ! "$dracutsysrootdir@bindir@/scsi-quirks" boot-policy \
			${SCSI_SCAN_SYSROOT:+--sysroot "$SCSI_SCAN_SYSROOT"} \
			>"$initdir/etc/scsi-scan/boot-policy.conf"; then
			dwarn "scsi-scan: no boot policy (see above): every LUN is attached at boot"
			: >"$initdir/etc/scsi-scan/boot-policy.conf"
		fi
		[[ -s "$initdir/etc/scsi-scan/boot-policy.conf" ]] ||
			rm -f "$initdir/etc/scsi-scan/boot-policy.conf"
	fi
	# A boot LUN mask makes the scan manual, as dracut's 95lunmask does.
	inst_hook cmdline 30 "$moddir/scsi-scan-cmdline.sh"
	# The wait for the root with the boot policy, which the settled hook
	# sources.
	inst_simple "@pkglibdir@/boot-policy.sh" /usr/lib/scsi-scan/boot-policy.sh
	# Runs on every pass of the main loop until the root device appears.
	inst_hook initqueue/settled 10 "$moddir/scsi-scan-settled.sh"
}
