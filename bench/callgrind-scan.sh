#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# CPU instructions of one scan of 1024 LUNs, counted with callgrind (stable
# where wall-clock times are not): scsi-scan on a fake sysfs tree with the
# fake kernel preloaded; the fake kernel's own instructions (its write and
# ioctl, inclusive) are subtracted.
set -eu
build=$1 quirks=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/sys/bus/scsi/devices "$root"/sys/module/scsi_mod/parameters "$root"/dev \
	"$root"/run "$root"/proc/self "$root"/sys/class/scsi_host/host0
: > "$root"/sys/class/scsi_host/host0/scan
echo fake > "$root"/sys/class/scsi_host/host0/proc_name
echo 512 > "$root"/sys/module/scsi_mod/parameters/max_luns
: > "$root"/proc/self/mountinfo
{
	echo "host 0 max_id 1 max_lun 49410"
	for l in $(seq 0 1023); do echo "lu 0:0:0:$l version 6"; done
} > "$root"/script
# Debian's valgrind is a shell script that execs valgrind.bin; the shell
# would take the preload for itself (the fake kernel drops LD_PRELOAD for
# every program but valgrind's launcher), so the launcher is run directly.
vg=$(command -v valgrind.bin || command -v valgrind)
FAKE_KERNEL_ROOT=$root FAKE_KERNEL_SCRIPT=$root/script LD_PRELOAD=$build/tests/fake-kernel.so \
	"$vg" --tool=callgrind --callgrind-out-file="$root"/cg.out -q \
	"$build"/scsi-scan --sysfs "$root" --quirks-dir "$quirks" >/dev/null
n=$(ls "$root"/sys/bus/scsi/devices | wc -l)
if [ "$n" -eq 0 ]; then
	echo "callgrind: no LUN attached: the fake kernel was not in effect" >&2
	exit 1
fi
callgrind_annotate --inclusive=yes "$root"/cg.out 2>/dev/null > "$root"/cg.txt
total=$(sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$root"/cg.txt | tr -d ,)
fake=0
for fn in write ioctl; do
	v=$(grep -E "fake-kernel\.c:$fn " "$root"/cg.txt | head -1 | awk '{print $1}' | tr -d ,)
	fake=$((fake + ${v:-0}))
done
ours=$((total - fake))
echo "callgrind: $n LUNs attached; $total instructions in all, $fake in the fake kernel"
echo "callgrind: scsi-scan's own: $ours instructions per scan, $((ours / n)) per LUN"
