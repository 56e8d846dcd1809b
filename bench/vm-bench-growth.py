#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How the real kernel's scan and ours grow with a target's LUNs: for 256,
1,024 and 4,096 LUNs, two scsi_debug hosts of that many (no_uld=1,
delay=0) in one boot (scsi_mod.scan=manual); per round the kernel's
"- - -" on one (monotonic write) and "scsi-scan hostN" on the other
(monotonic run), the order alternating, every LUN deleted after each.
Medians with min-max, the ratio of the medians and the interquartile range
of the per-round ratios; the ratio must not grow with the count.

usage: vm-bench-growth.py BUILD_DIR [KERNEL_SERIES] [--rounds N] [--icount SHIFT] [--smp N]
"""

import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

BUILD, SERIES, ROUNDS = vmlib.bench_args(3)
SMP, QEMU_ARGS, MACHINE = vmlib.bench_machine()
SIZES = (256, 1024, 4096)

SCRIPT = r"""
# What the package does on installation: the compiled quirk database.
scsi-quirks --quiet compile
all_hosts() { for h in /sys/class/scsi_host/host*; do [ -e "$h" ] && echo ${h##*/host}; done | tr '\n' ' '; }
count() { ls -d /sys/bus/scsi/devices/$1:* 2>/dev/null | wc -l; }
for n in $SIZES; do
	insmod /lib/test-modules/scsi_debug.ko add_host=2 delay=0 max_luns=$n no_uld=1 scsi_level=7
	set -- $(all_hosts); a=$1; b=$2
	i=0
	while [ $i -lt $ROUNDS ]; do
		for who in kernel ours; do
			[ $((i % 2)) = 1 ] && who=$([ $who = kernel ] && echo ours || echo kernel)
			if [ $who = kernel ]; then
				us=$(monotonic write /sys/class/scsi_host/host$a/scan "- - -"); h=$a
			else
				us=$(monotonic run scsi-scan host$b); h=$b
			fi
			echo "@@G n=$n who=$who round=$i us=$us luns=$(count $h)"
			for d in /sys/bus/scsi/devices/$h:*; do [ -e "$d" ] && echo 1 > $d/delete; done
		done
		i=$((i + 1))
	done
	rmmod scsi_debug
done
"""


def main():
    release, out = vmlib.run_guest(
        BUILD, SERIES, vmlib.BASE_MODULES,
        f"ROUNDS={ROUNDS}\nSIZES='" + " ".join(map(str, SIZES)) + "'\n" + SCRIPT,
        timeout=5400, what=f"{SIZES} LUNs, {ROUNDS} rounds", bench=True, memory=3072, smp=SMP,
        qemu_args=QEMU_ARGS)
    rows = [m.groupdict() for m in re.finditer(
        r"^@@G n=(?P<n>\d+) who=(?P<who>\w+) round=(?P<r>\d+) us=(?P<us>\d+) luns=(?P<luns>\d+)",
        out, re.M)]
    print(f"\nLinux {release}, {MACHINE}, one scsi_debug host per side, {ROUNDS} rounds, "
          "same boot, order alternating; ms, median (min-max)\n")
    print("| LUNs | kernel's - - - | scsi-scan | ratio | IQR of per-round ratios | "
          "LUNs attached (kernel, ours) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in SIZES:
        side = {w: {int(r["r"]): (int(r["us"]) / 1000, int(r["luns"])) for r in rows
                    if int(r["n"]) == n and r["who"] == w} for w in ("kernel", "ours")}
        rounds = sorted(set(side["kernel"]) & set(side["ours"]))
        if not rounds:
            print(f"| {n} | no result |")
            continue
        k = [side["kernel"][r][0] for r in rounds]
        o = [side["ours"][r][0] for r in rounds]
        q1, q3 = vmlib.ratio_quartiles([o[i] / k[i] for i in range(len(rounds))])
        print(f"| {n} | {statistics.median(k):.0f} ({min(k):.0f}-{max(k):.0f}) | "
              f"{statistics.median(o):.0f} ({min(o):.0f}-{max(o):.0f}) | "
              f"{statistics.median(o) / statistics.median(k):.2f} | {q1:.2f}-{q3:.2f} | "
              f"{sorted({side['kernel'][r][1] for r in rounds})}, "
              f"{sorted({side['ours'][r][1] for r in rounds})} |")
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
