#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How scsi-scan's cost grows with the LUNs of a target and with the hosts:
# CPU instructions of one run (callgrind, the fake kernel preloaded and its
# own write, ioctl and script load instructions subtracted), the compiled quirk database loaded. One target of 256, 1,024,
# 4,096 and 16,384 LUNs; 1, 8 and 64 hosts of one target of 256 LUNs each.
# Per row: instructions, per LUN, and per LUN past the run of one LUN
# (the fixed cost of starting, loading and reading sysfs taken out).
# Prints "growth:" rows and, with --svg FILE, draws them.
#
# The hosts are laid out as the kernel's sysfs has them: each LUN under its
# target in the host's device tree, linked from /sys/bus/scsi/devices
# (FLAT=1: every LUN in that one directory, as the older fake trees).
#
# usage: callgrind-growth.sh BUILD_DIR QUIRKS_DIR [--svg FILE] [--quick]
#        (--quick: to 4,096 LUNs and 8 hosts)
set -eu
build=$1 quirks=$2
shift 2
svg= quick=
while [ $# -gt 0 ]; do
	case "$1" in
	--svg) svg=$2; shift ;;
	--quick) quick=y ;;
	*) echo "usage: $0 BUILD_DIR QUIRKS_DIR [--svg FILE] [--quick]" >&2; exit 2 ;;
	esac
	shift
done
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
vg=$(command -v valgrind.bin || command -v valgrind)
"$build"/scsi-quirks --quirks-dir "$quirks" --output "$work"/quirks.bin --quiet compile

incl() {
	grep -E "$2" "$1" | head -1 | awk '{print $1}' | tr -d ,
}

# measure HOSTS LUNS: prints "HOSTS LUNS_ATTACHED INSTRUCTIONS"
measure() {
	local hosts=$1 luns=$2 root=$work/h$1-l$2 total fake=0 v n h
	mkdir -p "$root"/sys/bus/scsi/devices "$root"/sys/module/scsi_mod/parameters "$root"/dev \
		"$root"/run "$root"/proc/self
	echo 512 >"$root"/sys/module/scsi_mod/parameters/max_luns
	: >"$root"/proc/self/mountinfo
	for h in $(seq 0 $((hosts - 1))); do
		mkdir -p "$root"/sys/class/scsi_host/host$h "$root"/sys/devices/fake/host$h
		: >"$root"/sys/class/scsi_host/host$h/scan
		echo fake >"$root"/sys/class/scsi_host/host$h/proc_name
		# the host's device, where the fake kernel puts its targets and
		# LUNs (linked from sys/bus/scsi/devices), as sysfs has them
		[ -n "${FLAT:-}" ] ||
			ln -s ../../../devices/fake/host$h "$root"/sys/class/scsi_host/host$h/device
	done
	{
		for h in $(seq 0 $((hosts - 1))); do
			echo "host $h max_id 1 max_lun 49410"
			seq 0 $((luns - 1)) | sed "s/.*/lu $h:0:0:& version 6/"
		done
	} >"$root"/script
	FAKE_KERNEL_ROOT=$root FAKE_KERNEL_SCRIPT=$root/script \
		LD_PRELOAD=$build/tests/fake-kernel.so \
		"$vg" --tool=callgrind --callgrind-out-file="$root"/cg.out -q \
		"$build"/scsi-scan --sysroot "$root" --quirks-dir "$quirks" \
		--quirks-image "$work"/quirks.bin >/dev/null
	n=$(find "$root"/sys/bus/scsi/devices -mindepth 1 -maxdepth 1 | wc -l)
	if [ "$n" -ne $((hosts * luns)) ]; then
		echo "growth: $n LUNs attached of $((hosts * luns)): the fake kernel was not in effect" >&2
		exit 1
	fi
	callgrind_annotate --inclusive=yes --threshold=100 "$root"/cg.out 2>/dev/null >"$root"/cg.txt
	total=$(sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$root"/cg.txt | tr -d ,)
	for fn in write ioctl load; do
		v=$(incl "$root"/cg.txt "fake-kernel\.c:$fn ")
		fake=$((fake + ${v:-0}))
	done
	echo "$hosts $n $((total - fake))"
	[ -n "${KEEP:-}" ] || rm -rf "$root"
}

base=$(measure 1 1)
base_insn=${base##* }
rows=()
sizes="256 1024 4096 16384" hostcounts="1 8 64"
[ -z "$quick" ] || { sizes="256 1024 4096"; hostcounts="1 8"; }
for l in $sizes; do rows+=("target $(measure 1 "$l")"); done
for h in $hostcounts; do rows+=("hosts $(measure "$h" 256)"); done
printf 'growth: %-22s %8s %14s %10s %12s\n' "run" "LUNs" "instructions" "per LUN" "past 1 LUN"
for r in "${rows[@]}"; do
	set -- $r
	printf 'growth: %-22s %8d %14d %10d %12d\n' \
		"$([ "$1" = target ] && echo "1 target" || echo "$2 host(s) x 256")" "$3" "$4" \
		$(($4 / $3)) $((($4 - base_insn) / ($3 - 1)))
done
# flat: per LUN past one LUN, largest target against 1,024
first=$(printf '%s\n' "${rows[@]}" | awk '$1 == "target" && $3 == 1024 {print $4}')
last=$(printf '%s\n' "${rows[@]}" | awk '$1 == "target" {l = $3; i = $4} END {print l, i}')
awk -v b="$base_insn" -v f="$first" -v l="${last% *}" -v i="${last#* }" 'BEGIN {
	pf = (f - b) / 1023; pl = (i - b) / (l - 1)
	printf "growth: per LUN at %d LUNs against 1,024: %.3f (target: within 1.10)\n", l, pl / pf }'
if [ -n "$svg" ]; then
	printf '%s\n' "${rows[@]}" | python3 "$(dirname "$0")/growth-svg.py" "$base_insn" >"$svg"
	echo "growth: drawn in $svg"
fi
