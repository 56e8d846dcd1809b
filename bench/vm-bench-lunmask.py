#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""LUN masking at boot, on the real kernel: one scsi_debug host of 2,048
LUNs with sd attached (no_uld=0, as on a real system), the root at LUN 0.

Per round, in one boot (scsi_mod.scan=manual), the order alternating:
- kernel: the host appears (insmod), then the kernel's own scan of every
  LUN ("- - -", what scan=sync does inside the driver's probe, which the
  boot waits for); the time from insmod to the end of that scan with LUN 0's
  block device present, and to the last LUN's block device;
- ours: the host appears, then scsi-scan with the policy the initramfs
  makes from scsi_scan.lunmask=scsi,scsi_debug,0:0,0 (--quirks-file, only
  the root LUN); the time from insmod to LUN 0's block device. Then
  scsi-scand starts (as the system does after the initramfs) and attaches
  the remaining LUNs with the full policy: the time to the last LUN's
  block device, when it is stopped (its check of the LUNs its one write
  handed over may still run: they stay attached). The LUNs attached then
  and once udev has settled.
The wait for the last LUN's block device looks every 20 ms, on both sides:
the daemon's attach runs beside it for some 50 s, and a look every
millisecond took 2.6 s of the one vCPU's time from it (perf in the guest).
systemd-udevd runs throughout, as on a real system. Medians with min-max.

usage: vm-bench-lunmask.py BUILD_DIR [KERNEL_SERIES] [--rounds N] [--luns N]
                             [--icount SHIFT] [--smp N]
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
LUNS = int(sys.argv[sys.argv.index("--luns") + 1]) if "--luns" in sys.argv else 2048

SCRIPT = r"""
# What the package does on installation: the compiled quirk database.
scsi-quirks --quiet compile
now() { monotonic; }
all_hosts() { for h in /sys/class/scsi_host/host*; do [ -e "$h" ] && echo ${h##*/host}; done | tr '\n' ' '; }
new_hosts() {
	for n in $(all_hosts); do case " $1 " in *" $n "*) ;; *) echo $n ;; esac; done | sort -n | tr '\n' ' '
}
mkdir -p /run/udev /lib/systemd /run/scsi-scan
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
scsi-quirks import --cmdline "scsi_scan.lunmask=scsi,scsi_debug,0:0,0" > /run/scsi-scan/boot-lunmask.conf
sed 's/^/@@P /' /run/scsi-scan/boot-lunmask.conf
# scsi_debug lists LUNs past 255 in the flat space (0x4000 | n), so the last
# LUN's number is what the kernel's first scan attached.
last=
load() { insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=$LUNS no_uld=0 \
	scsi_level=7 dev_size_mb=4; }
i=0
while [ $i -lt $ROUNDS ]; do
	for who in kernel ours; do
		[ $((i % 2)) = 1 ] && who=$([ $who = kernel ] && echo ours || echo kernel)
		before=$(all_hosts)
		t0=$(now)
		load
		set -- $(new_hosts "$before"); h=$1
		if [ $who = kernel ]; then
			echo "- - -" > /sys/class/scsi_host/host$h/scan
			t1=$(monotonic wait /sys/bus/scsi/devices/$h:0:0:0/block)
			[ -n "$last" ] || last=$(ls /sys/bus/scsi/devices | sed -n "s/^$h:0:0://p" |
				sort -n | tail -1)
			echo "@@LAST $last"
			t2=$(monotonic wait -p 20 /sys/bus/scsi/devices/$h:0:0:$last/block)
			echo "@@B kernel round=$i root_us=$((t1 - t0)) all_us=$((t2 - t0)) luns=$(ls -d /sys/bus/scsi/devices/$h:* | wc -l)"
		else
			scsi-scan --quirks-file /run/scsi-scan/boot-lunmask.conf host$h > /tmp/boot.txt 2>&1
			t1=$(monotonic wait /sys/bus/scsi/devices/$h:0:0:0/block)
			n1=$(ls -d /sys/bus/scsi/devices/$h:* | wc -l)
			scsi-scand --foreground > /tmp/scand.log 2>&1 &
			pid=$!
			t2=$(monotonic wait -p 20 /sys/bus/scsi/devices/$h:0:0:$last/block)
			kill $pid; wait $pid
			echo "@@B ours round=$i root_us=$((t1 - t0)) all_us=$((t2 - t0)) rest_us=$((t2 - t1)) root_luns=$n1 luns=$(ls -d /sys/bus/scsi/devices/$h:* | wc -l)"
			sed 's/^/@@L /' /tmp/boot.txt | head -3
		fi
		udevadm settle -t 300
		echo "@@E $who round=$i settled_luns=$(ls -d /sys/bus/scsi/devices/$h:* | wc -l)"
		[ $who = ours ] && sed 's/^/@@D /' /tmp/scand.log | tail -3
		for d in /sys/bus/scsi/devices/$h:*; do [ -e "$d" ] && echo 1 > $d/delete; done
		udevadm settle -t 300
		rmmod_wait scsi_debug
		udevadm settle -t 60
	done
	i=$((i + 1))
done
"""


def stats(v):
    m = statistics.median(v)
    return f"{m:.0f} ({min(v):.0f}-{max(v):.0f})"


def main():
    release, out = vmlib.run_guest(
        BUILD, SERIES, vmlib.BASE_MODULES, f"ROUNDS={ROUNDS}\nLUNS={LUNS}\n" + SCRIPT,
        programs=["/bin/udevadm"], timeout=3600,
        what=f"scsi_debug {LUNS} LUNs with sd, {ROUNDS} rounds", bench=True, memory=3072,
        smp=SMP, qemu_args=QEMU_ARGS)
    rows = {who: [m.groupdict() for m in re.finditer(
        rf"^@@B {who} round=(?P<r>\d+) root_us=(?P<root>\d+) all_us=(?P<all>\d+)"
        rf"(?: rest_us=(?P<rest>\d+) root_luns=(?P<rl>\d+))? luns=(?P<luns>\d+)", out, re.M)]
        for who in ("kernel", "ours")}
    if not rows["kernel"] or not rows["ours"]:
        print("no result from the guest")
        print("\n".join(line for line in out.splitlines() if line.startswith("@@"))[-3000:])
        return 1
    ms = {who: {k: [int(r[k]) / 1000 for r in rows[who] if r.get(k)] for k in
                ("root", "all", "rest")} for who in rows}
    luns = {who: sorted({int(r["luns"]) for r in rows[who]}) for who in rows}
    root_luns = sorted({int(r["rl"]) for r in rows["ours"]})
    kr = statistics.median(ms["kernel"]["all"])
    orr = statistics.median(ms["ours"]["root"])
    print(f"\nLinux {release}, {MACHINE}, one scsi_debug host of {LUNS} LUNs with sd, "
          f"{ROUNDS} rounds per side, order alternating, same boot; ms, median (min-max)\n")
    print("| step | kernel (scan of every LUN) | ours (policy: root LUN only) |")
    print("|---|---|---|")
    print(f"| host appears to root's block device | {stats(ms['kernel']['root'])} (the boot "
          f"waits for the whole scan: {stats(ms['kernel']['all'])}) | "
          f"{stats(ms['ours']['root'])} ({root_luns} LUN attached) |")
    print(f"| host appears to last LUN's block device | {stats(ms['kernel']['all'])} | "
          f"{stats(ms['ours']['all'])} (the daemon, after the root: "
          f"{stats(ms['ours']['rest'])}) |")
    settled = {who: sorted({int(m) for m in re.findall(
        rf"^@@E {who} round=\d+ settled_luns=(\d+)", out, re.M)}) for who in rows}
    print(f"| LUNs attached when the last LUN's block device appeared | {luns['kernel']} | "
          f"{luns['ours']} |")
    print(f"| LUNs attached once udev settled (the daemon stopped) | {settled['kernel']} | "
          f"{settled['ours']} |")
    # the daemon's last words per round, for a count that falls short
    for line in re.findall(r"^@@D (.*)$", out, re.M):
        vmlib.log(f"scsi-scand: {line}")
    print(f"\nroot available: ours / kernel's whole scan = {orr / kr:.3f} "
          f"({kr / orr:.0f}x sooner)")
    # Round i of each side ran back to back: the per-round ratios pair them.
    by_round = {who: {int(r["r"]): r for r in rows[who]} for who in rows}
    rounds = sorted(set(by_round["kernel"]) & set(by_round["ours"]))
    rest = [int(by_round["ours"][r]["rest"]) / 1000 for r in rounds]
    whole = [int(by_round["kernel"][r]["all"]) / 1000 for r in rounds]
    q1, q3 = vmlib.ratio_quartiles([rest[i] / whole[i] for i in range(len(rounds))])
    lo, hi = vmlib.median_ratio_interval(rest, whole)
    ratio = statistics.median(rest) / statistics.median(whole)
    verdict = ("met" if q3 <= 1.05 else "met, spread crosses" if ratio <= 1.05 else "missed")
    print(f"the daemon's attach after the root / the kernel's whole scan = {ratio:.3f}, "
          f"IQR of per-round ratios {q1:.3f}-{q3:.3f}, 95 % interval of the ratio "
          f"{lo:.3f}-{hi:.3f}; target <= 1.05: {verdict}")
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
