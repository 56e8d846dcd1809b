#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scsi-scand's memory through 10,000 events, on the real kernel: one
scsi_debug host of 64 LUNs (--luns N: N, up to scsi_debug's 16,383;
no_uld=1) attached by the daemon's coldplug,
then 10,000 "reported LUNs data has changed" uevents on its LUN 0 in five
bursts of 2,000 (the kernel's synthetic uevents, given the SDEV_UA a unit
attention carries by a udev rule of the guest's own), systemd-udevd
running. VmRSS and VmHWM after the coldplug and after each burst, and the
scans the events caused.

usage: vm-bench-events.py BUILD_DIR [KERNEL_SERIES] [--luns N]
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

LUNS = 64
if "--luns" in sys.argv:
    i = sys.argv.index("--luns")
    LUNS = int(sys.argv[i + 1])
    del sys.argv[i:i + 2]
BUILD, SERIES, _ = vmlib.bench_args(1)

SCRIPT = r"""
mkdir -p /run/udev /etc/udev/rules.d /lib/systemd
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
printf '%s\n' 'ACTION=="change", SUBSYSTEM=="scsi", ENV{SYNTH_ARG_UA}=="luns", ENV{SDEV_UA}="REPORTED_LUNS_DATA_HAS_CHANGED"' > /etc/udev/rules.d/59-bench-synthetic-ua.rules
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=@LUNS@ no_uld=1 scsi_level=7
udevadm settle -t 30
h=$(ls /sys/class/scsi_host | sed 's/host//' | head -1)
scsi-scand --foreground > /tmp/d.log 2>&1 &
PID=$!
scsi-scan wait --timeout 3000 > /dev/null 2>&1
sleep 2
mem() { echo "$(awk '/^VmRSS/ {r = $2} /^VmHWM/ {w = $2} END {print "rss=" r " hwm=" w}' /proc/$PID/status)"; }
luns() { ls /sys/bus/scsi/devices | grep -c "^$h:"; }
echo "@@M events=0 $(mem) scans=$(grep -c 'scanned' /tmp/d.log) luns=$(luns)"
u=/sys/bus/scsi/devices/$h:0:0:0/uevent
n=0
while [ $n -lt 10000 ]; do
	i=0
	while [ $i -lt 2000 ]; do echo "change 6d1e0e6c-0b4f-4d8e-9d0e-1d2c3b4a5f60 UA=luns" > $u; i=$((i + 1)); done
	n=$((n + 2000))
	udevadm settle -t 600; sleep 3
	echo "@@M events=$n $(mem) scans=$(grep -c 'scanned' /tmp/d.log) luns=$(luns)"
done
kill $PID
"""


def main():
    release, out = vmlib.run_guest(BUILD, SERIES, vmlib.BASE_MODULES,
                                   SCRIPT.replace("@LUNS@", str(LUNS)),
                                   programs=["/bin/udevadm"], timeout=3000 + LUNS // 2,
                                   what=f"scsi-scand through 10,000 events, {LUNS} LUNs",
                                   memory=1024 if LUNS <= 1024 else 3072)
    rows = re.findall(r"^@@M events=(\d+) rss=(\d+) hwm=(\d+) scans=(\d+) luns=(\d+)", out, re.M)
    if not rows:
        print("no result from the guest")
        return 1
    print(f"\nLinux {release}, QEMU TCG: scsi-scand, one scsi_debug host of {LUNS:,} LUNs\n")
    print("| events | VmRSS | VmHWM | scans | LUNs |")
    print("| --- | --- | --- | --- | --- |")
    for ev, rss, hwm, scans, luns in rows:
        print(f"| {int(ev):,} | {int(rss) / 1024:.2f} MiB | {int(hwm) / 1024:.2f} MiB | {scans} | "
              f"{luns} |")
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
