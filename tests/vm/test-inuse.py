#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Nothing lost: on the real kernel, LUNs that disappear from REPORT LUNS
while mounted, held by a device-mapper linear device, or open by a process
are never deleted by 'scsi-scand --remove' (on the change event) or
'scsi-scan --remove'; once released, they are.

usage: test-inuse.py BUILD_DIR KERNEL_SERIES
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]

GUEST = r"""
SD=/sys/bus/pseudo/drivers/scsi_debug
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=6 scsi_level=5 dev_size_mb=16
H=$(for h in /sys/class/scsi_host/host*; do echo ${h##*/host}; done | sort -n | tail -1)
scsi-scan host$H > /dev/null
blk() { ls /sys/bus/scsi/devices/$H:0:0:$1/block; }
d3=$(blk 3); d4=$(blk 4); d5=$(blk 5)
mkdir -p /mnt
mke2fs -q /dev/$d3 && mount -t ext2 /dev/$d3 /mnt && echo "@@I mounted /dev/$d3"
sectors=$(cat /sys/class/block/$d4/size)
DM_DISABLE_UDEV=1 dmsetup create --noudevsync lin --table "0 $sectors linear /dev/$d4 0" && echo "@@I dm on /dev/$d4"
sleep 600 < /dev/$d5 &
HOLDER=$!
echo "@@I /dev/$d5 open by $HOLDER"
# The daemon, with --remove, hears the target's LUN inventory change.
mkdir -p /run/udev /lib/systemd
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
scsi-scand --foreground --remove > /tmp/scand.log 2>&1 &
DPID=$!
sleep 2
# The target now reports LUNs 0-2 only; a command to LUN 0 draws the unit
# attention, the kernel sends the change event.
echo 3 > $SD/max_luns
sg=$(ls /sys/bus/scsi/devices/$H:0:0:0/scsi_generic)
sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
n=0; while ! grep -q "$H:0:0:5: in-use" /tmp/scand.log && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
grep -E ": in-use|: removed|LUNs data" /tmp/scand.log | sed 's/^/@@D /'
echo "@@R daemon present=$(ls /sys/bus/scsi/devices | grep -c "^$H:0:0:")"
kill $DPID
scsi-scan --remove --json host$H > /tmp/remove.json 2>&1
echo "@@R first rc=$? present=$(ls /sys/bus/scsi/devices | grep -c "^$H:0:0:")"
tr -d '\n' < /tmp/remove.json | grep -o '{ *"lun":[0-9]*, *"outcome":"[a-z-]*", *"reason":"[^"]*" *}' | sed 's/^/@@J /'
# Released: now they go.
umount /mnt
DM_DISABLE_UDEV=1 dmsetup remove --noudevsync lin
kill $HOLDER; wait $HOLDER 2>/dev/null
scsi-scan --remove --json host$H > /tmp/remove2.json 2>&1
echo "@@R second rc=$? present=$(ls /sys/bus/scsi/devices | grep -c "^$H:0:0:")"
tr -d '\n' < /tmp/remove2.json | grep -o '{ *"lun":[0-9]*, *"outcome":"[a-z-]*", *"reason":"[^"]*" *}' | sed 's/^/@@K /'
"""


def main():
    checks = vmlib.Checks(SERIES, "in-use")
    _, out = vmlib.run_guest(BUILD, SERIES,
                             vmlib.BASE_MODULES + ["crc32c_generic", "ext4", "dm_mod"], GUEST,
                             programs=["/usr/sbin/dmsetup", "/bin/udevadm"],
                             what="mounted, dm-held and open LUNs", timeout=600)
    check = checks.check
    first = {int(m.group(1)): (m.group(2), m.group(3)) for m in
             re.finditer(r'^@@J \{\s*"lun":(\d+),\s*"outcome":"([a-z-]+)",\s*"reason":"([^"]*)"', out,
                         re.M)}
    second = {int(m.group(1)): m.group(2) for m in
              re.finditer(r'^@@K \{\s*"lun":(\d+),\s*"outcome":"([a-z-]+)"', out, re.M)}
    setup = re.findall(r"^@@I (.*)$", out, re.M)
    check("setup", len(setup) == 3, "; ".join(setup))
    for lun, what in ((3, "is mounted on /mnt"), (4, "is held by dm-"), (5, "is open by pid")):
        outcome, reason = first.get(lun, ("missing", ""))
        check(f"LUN {lun} kept", outcome == "in-use" and what in reason, f"{outcome}: {reason}")
    daemon = re.findall(r"^@@D (.*)$", out, re.M)
    kept = [d for d in daemon if ": in-use:" in d]
    rd = re.search(r"@@R daemon present=(\d+)", out)
    check("daemon keeps them", len(kept) == 3 and rd and rd.group(1) == "6" and
          not [d for d in daemon if ": removed:" in d],
          f"scsi-scand --remove on the change event: {len(kept)} kept in use, "
          f"{rd.group(1) if rd else '?'} of 6 still attached")
    r1 = re.search(r"@@R first rc=(\d+) present=(\d+)", out)
    check("nothing deleted", r1 and r1.group(2) == "6", f"LUNs still attached: "
          f"{r1.group(2) if r1 else '?'} of 6")
    r2 = re.search(r"@@R second rc=(\d+) present=(\d+)", out)
    check("released, removed", r2 and r2.group(2) == "3" and
          all(second.get(n) == "removed" for n in (3, 4, 5)),
          f"after umount, dmsetup remove and kill: {second}")
    return checks.finish(out)


if __name__ == "__main__":
    vmlib.main_guard(main)
