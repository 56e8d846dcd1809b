#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CPU instructions of one scsi-scan run, counted with callgrind (stable
# where wall-clock times are not), on a fake sysfs tree with the fake kernel
# preloaded; the fake kernel's own instructions (its write and ioctl,
# inclusive) are subtracted. Three runs: one LUN with the quirk database
# read as text, one LUN with it loaded from its compiled image (what the
# initramfs and a hotplug pay), and 1024 LUNs. For each, where the
# instructions go: the dynamic loader, the database load, the rest.
set -eu
build=$1 quirks=$2
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT; [ -n "${KEEP:-}" ] && echo "work: $work"
# Debian's valgrind is a shell script that execs valgrind.bin; the shell
# would take the preload for itself (the fake kernel drops LD_PRELOAD for
# every program but valgrind's launcher), so the launcher is run directly.
vg=$(command -v valgrind.bin || command -v valgrind)
"$build"/scsi-quirks --quirks-dir "$quirks" --output "$work"/quirks.bin --quiet compile

# inclusive instructions of the first function matching a pattern
incl() {
	grep -E "$2" "$1" | head -1 | awk '{print $1}' | tr -d ,
}

measure() { # NAME LUNS IMAGE
	local name=$1 luns=$2 image=$3 root=$work/$1 total fake=0 v n ours ld db
	mkdir -p "$root"/sys/bus/scsi/devices "$root"/sys/module/scsi_mod/parameters "$root"/dev \
		"$root"/run "$root"/proc/self "$root"/sys/class/scsi_host/host0
	: >"$root"/sys/class/scsi_host/host0/scan
	echo fake >"$root"/sys/class/scsi_host/host0/proc_name
	echo 512 >"$root"/sys/module/scsi_mod/parameters/max_luns
	: >"$root"/proc/self/mountinfo
	{
		echo "host 0 max_id 1 max_lun 49410"
		for l in $(seq 0 $((luns - 1))); do echo "lu 0:0:0:$l version 6"; done
	} >"$root"/script
	FAKE_KERNEL_ROOT=$root FAKE_KERNEL_SCRIPT=$root/script \
		LD_PRELOAD=$build/tests/fake-kernel.so \
		"$vg" --tool=callgrind --callgrind-out-file="$root"/cg.out -q \
		"$build"/scsi-scan --sysroot "$root" --quirks-dir "$quirks" \
		${image:+--quirks-image "$image"} >/dev/null
	n=$(find "$root"/sys/bus/scsi/devices -mindepth 1 -maxdepth 1 | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "callgrind: no LUN attached: the fake kernel was not in effect" >&2
		exit 1
	fi
	callgrind_annotate --inclusive=yes --threshold=100 "$root"/cg.out 2>/dev/null >"$root"/cg.txt
	total=$(sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$root"/cg.txt | tr -d ,)
	for fn in write ioctl; do
		v=$(incl "$root"/cg.txt "fake-kernel\.c:$fn ")
		fake=$((fake + ${v:-0}))
	done
	ours=$((total - fake))
	# _dl_start: the loader's relocation of the program and its libraries
	ld=$(incl "$root"/cg.txt " (/[^ ]*/)?ld-linux[^ ]*:_dl_start |rtld\.c:_dl_start ")
	db=$(incl "$root"/cg.txt "quirks-image\.c:quirk_db_open ")
	printf 'callgrind: %-28s %5d LUNs %11d instructions (%d per LUN); loader %d, database %d\n' \
		"$name" "$n" "$ours" $((ours / n)) "${ld:-0}" "${db:-0}"
}

measure "1 LUN, text database" 1 ""
measure "1 LUN, compiled database" 1 "$work"/quirks.bin
measure "1024 LUNs, compiled database" 1024 "$work"/quirks.bin
