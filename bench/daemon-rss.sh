#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scsi-scand's memory with many LUNs attached: a fake sysfs tree of one host
# whose target reports LUNS LUNs (default 16,384), the fake kernel
# preloaded; the daemon's coldplug attaches them all. Its VmRSS once the
# coldplug is done (scsi-scan wait), less the resident pages of the fake
# kernel's own tables (the mappings it lists in .fake-kernel-tables, read
# in /proc/PID/smaps), which live in the daemon's process; and VmHWM, the
# peak on the way, as it is.
#
# usage: daemon-rss.sh BUILD_DIR QUIRKS_DIR [LUNS]
set -eu
build=$1 quirks=$2 luns=${3:-16384}
root=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$root"' EXIT
mkdir -p "$root"/sys/bus/scsi/devices "$root"/sys/module/scsi_mod/parameters "$root"/dev \
	"$root"/run "$root"/proc/self "$root"/sys/class/scsi_host/host0 "$root"/etc \
	"$root"/sys/devices/fake/host0
ln -s ../../../devices/fake/host0 "$root"/sys/class/scsi_host/host0/device
: >"$root"/sys/class/scsi_host/host0/scan
echo fake >"$root"/sys/class/scsi_host/host0/proc_name
echo 512 >"$root"/sys/module/scsi_mod/parameters/max_luns
: >"$root"/proc/self/mountinfo
{
	echo "host 0 max_id 1 max_lun 49410"
	seq 0 $((luns - 1)) | sed "s/.*/lu 0:0:0:& version 6/"
} >"$root"/script
FAKE_KERNEL_ROOT=$root FAKE_KERNEL_SCRIPT=$root/script LD_PRELOAD=$build/tests/fake-kernel.so \
	"$build"/scsi-scand --foreground --no-monitor --sysroot "$root" --quirks-dir "$quirks" \
	--quirks-dir "$root"/etc 2>"$root"/scand.log &
pid=$!
"$build"/scsi-scan wait --sysroot "$root" --timeout 900 >/dev/null
n=$(find "$root"/sys/bus/scsi/devices -mindepth 1 -maxdepth 1 | wc -l)
rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
fake=$(awk 'NR == FNR { start[$1] = 1; next }
	/^[0-9a-f]+-[0-9a-f]+ / { split($1, a, "-"); sub(/^0+/, "", a[1]); on = (a[1] in start) }
	on && /^Rss:/ { kb += $2 } END { print kb + 0 }' "$root"/.fake-kernel-tables /proc/$pid/smaps)
hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
mib() { echo "$1 / 1024" | bc -l; }
printf 'daemon-rss: %d LUNs attached by the coldplug: VmRSS %.2f MiB, of which the fake kernel'"'"'s tables %.2f MiB: %.2f MiB the daemon'"'"'s own (target: below 8 MiB); peak (VmHWM) %.2f MiB, %.2f MiB less the tables\n' \
	"$n" "$(mib "$rss")" "$(mib "$fake")" "$(mib $((rss - fake)))" "$(mib "$hwm")" \
	"$(mib $((hwm - fake)))"
[ "$n" -eq "$luns" ] || { echo "daemon-rss: $n of $luns LUNs attached" >&2; exit 1; }
