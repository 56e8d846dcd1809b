#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A host hotplugged with many LUNs, on the real kernel, in one boot: a
scsi_debug host of 512 and of 2,048 LUNs (no_uld=1, delay=0) added through
/sys/bus/pseudo/drivers/scsi_debug/add_host, systemd-udevd running.

Per round, the order alternating, scsi_mod's scan parameter switched at
run time:
- kernel: scan=sync, the kernel's own scan inside add_host (monotonic
  write: the write returns when the scan is done);
- ours: scan=manual, scsi-scand running (started for the round, its
  coldplug done), from just before the add_host write to the host's last
  LUN attached (monotonic wait).
The host is removed again (add_host=-1) after each side. Medians with
min-max, the ratio of the medians and the interquartile range of the
per-round ratios. Target: <= 1.10 with the spread inside.

usage: vm-bench-hotplug.py BUILD_DIR [KERNEL_SERIES] [--rounds N] [--sizes 512,2048]
                            [--icount SHIFT] [--smp N]
"""

import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

BUILD, SERIES, ROUNDS = vmlib.bench_args(7)
SMP, QEMU_ARGS, MACHINE = vmlib.bench_machine()
SIZES = tuple(int(n) for n in (sys.argv[sys.argv.index("--sizes") + 1].split(",")
                               if "--sizes" in sys.argv else ("512", "2048")))

SCRIPT = r"""
# What the package does on installation: the compiled quirk database.
scsi-quirks --quiet compile
SD=/sys/bus/pseudo/drivers/scsi_debug
P=/sys/module/scsi_mod/parameters
all_hosts() { for h in /sys/class/scsi_host/host*; do [ -e "$h" ] && echo ${h##*/host}; done | tr '\n' ' '; }
new_host() {
	for n in $(all_hosts); do case " $1 " in *" $n "*) ;; *) echo $n ;; esac; done | head -1
}
count() { ls -d /sys/bus/scsi/devices/$1:* 2>/dev/null | wc -l; }
mkdir -p /run/udev /lib/systemd /run/scsi-scan
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
for n in $SIZES; do
	# A host takes max_luns when the module loads: one load per size.
	insmod /lib/test-modules/scsi_debug.ko add_host=0 delay=0 max_luns=$n no_uld=1 scsi_level=7
	# The host's last LUN, as the kernel names it.
	echo sync > $P/scan
	before=$(all_hosts); echo 1 > $SD/add_host; h=$(new_host "$before")
	last=$(ls /sys/bus/scsi/devices | sed -n "s/^$h:0:0://p" | sort -n | tail -1)
	echo -1 > $SD/add_host; udevadm settle -t 300
	i=0
	while [ $i -lt $ROUNDS ]; do
		for who in kernel ours; do
			[ $((i % 2)) = 1 ] && who=$([ $who = kernel ] && echo ours || echo kernel)
			before=$(all_hosts)
			if [ $who = kernel ]; then
				echo sync > $P/scan
				us=$(monotonic write $SD/add_host 1)
				h=$(new_host "$before")
			else
				echo manual > $P/scan
				scsi-scand --foreground > /tmp/scand.log 2>&1 &
				pid=$!
				w=0
				until grep -q "coldplug done" /tmp/scand.log || [ $w -gt 1200 ]; do
					usleep 50000; w=$((w + 1))
				done
				t0=$(monotonic)
				echo 1 > $SD/add_host
				h=$(new_host "$before")
				t1=$(monotonic wait /sys/bus/scsi/devices/$h:0:0:$last)
				us=$((t1 - t0))
			fi
			echo "@@H n=$n who=$who round=$i us=$us luns=$(count $h)"
			[ $who = ours ] && { kill $pid; wait $pid; }
			echo -1 > $SD/add_host
			udevadm settle -t 300
		done
		i=$((i + 1))
	done
	rmmod_wait scsi_debug
done
"""


def main():
    release, out = vmlib.run_guest(
        BUILD, SERIES, vmlib.BASE_MODULES,
        f"ROUNDS={ROUNDS}\nSIZES='" + " ".join(map(str, SIZES)) + "'\n" + SCRIPT,
        programs=["/bin/udevadm"], timeout=7200,
        what=f"hotplug of {SIZES} LUNs, {ROUNDS} rounds", bench=True, memory=3072, smp=SMP,
        qemu_args=QEMU_ARGS)
    rows = [m.groupdict() for m in re.finditer(
        r"^@@H n=(?P<n>\d+) who=(?P<who>\w+) round=(?P<r>\d+) us=(?P<us>\d+) luns=(?P<luns>\d+)",
        out, re.M)]
    print(f"\nLinux {release}, {MACHINE}, one scsi_debug host added per side, "
          f"systemd-udevd running, {ROUNDS} rounds, same boot, order alternating; ms, "
          "median (min-max)\n")
    print("| LUNs | kernel (scan=sync, in add_host) | scsi-scand (scan=manual) | ratio | "
          "IQR of per-round ratios | 95 % interval of the ratio | target | "
          "LUNs attached (kernel, ours) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    failed = False
    for n in SIZES:
        side = {w: {int(r["r"]): (int(r["us"]) / 1000, int(r["luns"])) for r in rows
                    if int(r["n"]) == n and r["who"] == w} for w in ("kernel", "ours")}
        rounds = sorted(set(side["kernel"]) & set(side["ours"]))
        if not rounds:
            print(f"| {n} | no result |")
            failed = True
            continue
        k = [side["kernel"][r][0] for r in rounds]
        o = [side["ours"][r][0] for r in rounds]
        q1, q3 = vmlib.ratio_quartiles([o[i] / k[i] for i in range(len(rounds))])
        ratio = statistics.median(o) / statistics.median(k)
        lo, hi = vmlib.median_ratio_interval(o, k)
        verdict = ("met" if q3 <= 1.10 else "met, spread crosses" if ratio <= 1.10
                   else "missed")
        print(f"| {n} | {statistics.median(k):,.0f} ({min(k):,.0f}-{max(k):,.0f}) | "
              f"{statistics.median(o):,.0f} ({min(o):,.0f}-{max(o):,.0f}) | {ratio:.3f} | "
              f"{q1:.3f}-{q3:.3f} | {lo:.3f}-{hi:.3f} | <= 1.10: {verdict} | "
              f"{sorted({side['kernel'][r][1] for r in rounds})}, "
              f"{sorted({side['ours'][r][1] for r in rounds})} |")
    return 1 if failed else 0


if __name__ == "__main__":
    vmlib.main_guard(main)
