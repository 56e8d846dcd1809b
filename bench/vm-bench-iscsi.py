#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iSCSI target discovery against the kernel's own, on the real kernel.

The guest of tests/vm/test-transports.py (an LIO target and open-iscsi,
two sessions per target through two portals, node.session.scan = manual):
per round, the kernel's "- - -" scan of one session's host and scsi-scan
of the other's, order alternating, every LUN deleted again after each.
Target 1 has LUNs 0, 2, 5; target 2 LUNs 1, 4 and no LUN 0 (reached
through the REPORT LUNS well-known LUN). Prints medians with min-max.

usage: vm-bench-iscsi.py BUILD_DIR [KERNEL_SERIES] [--rounds N]
"""

import os
import re
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

BUILD, SERIES, ROUNDS = vmlib.bench_args(7)

# The LIO target and the logins, as the transport test sets them up.
transports = vmlib.load_transports(BUILD, SERIES)
SETUP = transports.SCRIPT.split('echo "@@HOSTS')[0]

ROUNDS_SCRIPT = r"""
now() { monotonic; }
drop() { for d in /sys/bus/scsi/devices/$1:*; do [ -e "$d" ] && echo 1 > $d/delete; done; }
count() { ls -d /sys/bus/scsi/devices/$1:* 2>/dev/null | wc -l; }
kernel_scan() { t0=$(now); echo "- - -" > /sys/class/scsi_host/host$1/scan; t1=$(now); }
ours_scan() { t0=$(now); scsi-scan host$1 > /dev/null 2>&1; t1=$(now); }
bench() { # name kernel-host our-host
	i=0
	while [ $i -lt $ROUNDS ]; do
		for who in kernel ours; do
			[ $((i % 2)) = 1 ] && who=$([ $who = kernel ] && echo ours || echo kernel)
			if [ $who = kernel ]; then h=$2; kernel_scan $h; else h=$3; ours_scan $h; fi
			echo "@@B $1 round=$i ${who}_us=$((t1 - t0)) luns=$(count $h)"
			drop $h
		done
		i=$((i + 1))
	done
}
bench target-with-lun-0 $k1 $o1
bench target-without-lun-0 $k2 $o2
"""


def main():
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_bench(BUILD, staging)
        initrd = os.path.join(tmp, "initrd.cpio")
        vmlib.build_initramfs(initrd, staging, vmlib.module_order(moddir, transports.MODULES),
                              vmlib.INIT_HEAD + vmlib.COMPARE_LIB + vmlib.WAIT_LIB +
                              f"ROUNDS={ROUNDS}\n" + SETUP + ROUNDS_SCRIPT + vmlib.INIT_TAIL,
                              programs=["/sbin/iscsid", "/sbin/iscsiadm"])
        vmlib.log(f"boot {release}: LIO + open-iscsi, {ROUNDS} rounds")
        out = vmlib.boot(vmlinuz, initrd, timeout=1800, memory=1024, smp=2)
    print(f"\nLinux {release}, QEMU TCG, iSCSI on 127.0.0.1/127.0.0.2, {ROUNDS} rounds, "
          f"order alternating, same boot\n")
    print(f"| {'target':22} | LUNs | {'kernel ms (min-max)':22} | {'ours ms (min-max)':22} "
          f"| ratio |")
    print(f"|{'-' * 24}|------|{'-' * 24}|{'-' * 24}|-------|")
    for name in ("target-with-lun-0", "target-without-lun-0"):
        rows = [m.groups() for m in re.finditer(
            rf"^@@B {name} round=\d+ (kernel|ours)_us=(\d+) luns=(\d+)", out, re.M)]
        k = [int(us) / 1000 for who, us, _ in rows if who == "kernel"]
        o = [int(us) / 1000 for who, us, _ in rows if who == "ours"]
        luns = sorted({int(n) for _, _, n in rows})
        if not k or not o:
            print(f"| {name:22} | no result from the guest")
            continue
        km, om = statistics.median(k), statistics.median(o)
        kt = f"{km:.1f} ({min(k):.1f}-{max(k):.1f})"
        ot = f"{om:.1f} ({min(o):.1f}-{max(o):.1f})"
        print(f"| {name:22} | {','.join(map(str, luns)):4} | {kt:22} | {ot:22} | {om / km:5.2f} |")
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
