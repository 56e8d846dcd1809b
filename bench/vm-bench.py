#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmarks on the real kernel: our scan against the kernel's own, on the
same emulated devices, printed as ratios.

usage: vm-bench.py BUILD_DIR [KERNEL_SERIES] [--rounds N]

Absolute times under QEMU's TCG are slow and noisy; the ratios, taken from
medians of alternating runs in the same boot, are what to quote.
"""

import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "vm"))
import vmlib  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
BUILD = args[0]
SERIES = args[1] if len(args) > 1 else "6.12"
ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5

COMMON = r"""
SD=/sys/bus/pseudo/drivers/scsi_debug
P=/sys/module/scsi_debug/parameters
now() { monotonic; }
all_hosts() { for h in /sys/class/scsi_host/host*; do [ -e "$h" ] && echo ${h##*/host}; done | tr '\n' ' '; }
new_hosts() {
	for n in $(all_hosts); do case " $1 " in *" $n "*) ;; *) echo $n ;; esac; done | sort -n | tr '\n' ' '
}
# wait_until PATH...: the time at which all exist (a C loop, no forks)
wait_until() { monotonic wait "$@"; }
# many_hosts WHO: 8 hosts of 128 LUNs, module load to the last LUN, 3 rounds
many_hosts() {
	who=$1 i=0
	while [ $i -lt 3 ]; do
		before=$(all_hosts)
		t0=$(now)
		insmod /lib/test-modules/scsi_debug.ko add_host=8 delay=0 max_luns=128 no_uld=1
		set -- $(new_hosts "$before")
		last=""; for h in "$@"; do last="$last /sys/bus/scsi/devices/$h:0:0:127"; done
		t1=$(wait_until $last)
		echo "@@B many-hosts round=$i ${who}_us=$((t1 - t0))"
		udevadm settle -t 60
		rmmod scsi_debug
		udevadm settle -t 60
		i=$((i + 1))
	done
}
# hotplug_rounds WHO: add_host of 8, then 512 LUNs, to the last LUN attached
hotplug_rounds() {
	who=$1
	for luns in 8 512; do
		echo $luns > $P/max_luns
		i=0
		while [ $i -lt $ROUNDS ]; do
			before=$(all_hosts)
			t0=$(now); echo 1 > $SD/add_host
			set -- $(new_hosts "$before")
			t1=$(wait_until /sys/bus/scsi/devices/$1:0:0:$((luns - 1)))
			echo "@@B hotplug-$luns round=$i ${who}_us=$((t1 - t0))"
			i=$((i + 1))
		done
	done
}
mkdir -p /run/udev /lib/systemd
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
"""

# Boot 1: scan=manual.
MANUAL = COMMON + r"""
# One host, 1024 LUNs: the kernel's "- - -" against scsi-scan, same boot,
# order alternating, ROUNDS rounds.
i=0
while [ $i -lt $ROUNDS ]; do
	before=$(all_hosts)
	insmod /lib/test-modules/scsi_debug.ko add_host=2 delay=0 max_luns=1024 no_uld=1
	set -- $(new_hosts "$before"); ha=$1; hb=$2
	udevadm settle -t 30
	if [ $((i % 2)) -eq 0 ]; then
		t0=$(now); echo "- - -" > /sys/class/scsi_host/host$ha/scan; t1=$(now)
		scsi-scan host$hb > /dev/null; t2=$(now)
		k=$((t1 - t0)); o=$((t2 - t1))
	else
		t0=$(now); scsi-scan host$hb > /dev/null; t1=$(now)
		echo "- - -" > /sys/class/scsi_host/host$ha/scan; t2=$(now)
		o=$((t1 - t0)); k=$((t2 - t1))
	fi
	echo "@@B one-host-1024 round=$i kernel_us=$k ours_us=$o kluns=$(ls -d /sys/bus/scsi/devices/$ha:* | wc -l) oluns=$(ls -d /sys/bus/scsi/devices/$hb:* | wc -l)"
	udevadm settle -t 60
	rmmod scsi_debug
	i=$((i + 1))
done

# System calls, sysfs writes and forks of one scan of 128 LUNs.
before=$(all_hosts)
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=128 no_uld=1
set -- $(new_hosts "$before")
strace -f -c -o /tmp/strace.txt scsi-scan host$1 > /dev/null
sed 's/^/@@S /' /tmp/strace.txt
udevadm settle -t 30
rmmod scsi_debug
before=$(all_hosts)
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=128 no_uld=1
set -- $(new_hosts "$before")
strace -f -e trace=write -o /tmp/strace-w.txt scsi-scan host$1 > /dev/null 2>&1
echo "@@W writes=$(grep -c 'write(' /tmp/strace-w.txt) scanwrites=$(grep -c '"0 0 [0-9]*\\n"' /tmp/strace-w.txt)"
udevadm settle -t 30
rmmod scsi_debug

# The daemon: hotplug latency, many hosts, memory.
scsi-scand --foreground > /tmp/scand.log 2>&1 &
PID=$!
sleep 1
echo "@@M idle $(grep VmRSS /proc/$PID/status | tr -s ' \t' ' ')"
insmod /lib/test-modules/scsi_debug.ko add_host=0 delay=0 max_luns=8 no_uld=1
hotplug_rounds ours
udevadm settle -t 60
rmmod scsi_debug
udevadm settle -t 60

# Many hosts: 8 hosts of 128 LUNs, module load to the last LUN.
many_hosts ours

# 1,000 events: host add uevents, each a real (idempotent) rescan.
insmod /lib/test-modules/scsi_debug.ko add_host=4 delay=0 max_luns=8 no_uld=1
sleep 2
n=0
while [ $n -lt 1000 ]; do
	for h in /sys/class/scsi_host/host*; do echo add > $h/uevent; n=$((n + 1)); done
done
udevadm settle -t 120
sleep 3
echo "@@M after-1000-events $(grep VmRSS /proc/$PID/status | tr -s ' \t' ' ') scans=$(grep -c ': scanned' /tmp/scand.log)"
kill $PID
"""

# Boot 2: scan=async, the kernel scans at module load.
ASYNC = COMMON + r"""
many_hosts kernel
"""

# Boot 3: scan=sync, the kernel scans inside add_host.
SYNC = COMMON + r"""
insmod /lib/test-modules/scsi_debug.ko add_host=0 delay=0 max_luns=8 no_uld=1
hotplug_rounds kernel
"""


def run_boot(name, script, scan_mode, vmlinuz, moddir, staging, tmp):
    modules = vmlib.module_order(moddir, vmlib.BASE_MODULES)
    initrd = os.path.join(tmp, f"initrd-{name}.cpio")
    init = vmlib.INIT_HEAD.replace("${SCSI_SCAN_MODE:-manual}", scan_mode)
    vmlib.build_initramfs(initrd, staging, modules,
                          init + f"ROUNDS={ROUNDS}\n" + script + vmlib.INIT_TAIL,
                          programs=["/bin/udevadm", "/usr/bin/strace",
                                    os.path.join(BUILD, "bench", "monotonic")])
    vmlib.log(f"boot {name} (scan={scan_mode})")
    return vmlib.boot(vmlinuz, initrd, timeout=1800, memory=2048, smp=2)


def values(out, name, key):
    return [int(m.group(1)) for m in
            re.finditer(rf"^@@B {re.escape(name)} round=\d+ .*?{key}=(\d+)", out, re.M)]


def med_ms(v):
    return statistics.median(v) / 1000 if v else float("nan")


def main():
    start = time.monotonic()
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_bench(BUILD, staging)
        manual = run_boot("manual", MANUAL, "manual", vmlinuz, moddir, staging, tmp)
        asyn = run_boot("async", ASYNC, "async", vmlinuz, moddir, staging, tmp)
        sync = run_boot("sync", SYNC, "sync", vmlinuz, moddir, staging, tmp)

    rows = []

    def row(name, kernel, ours, target, note=""):
        k, o = med_ms(kernel), med_ms(ours)
        ratio = o / k if k else float("nan")
        verdict = "met" if ratio <= target else "MISSED"
        rows.append((name, k, o, ratio, target, verdict, len(ours), note))

    k = values(manual, "one-host-1024", "kernel_us")
    o = values(manual, "one-host-1024", "ours_us")
    luns = re.findall(r"kluns=(\d+) oluns=(\d+)", manual)
    same = all(a == b for a, b in luns)
    row("1 host, 1024 LUNs: '- - -' vs scsi-scan", k, o, 1.05,
        "same boot, alternating order" + ("" if same else "; LUN COUNTS DIFFER"))
    row("8 hosts x 128 LUNs: async load vs daemon", values(asyn, "many-hosts", "kernel_us"),
        values(manual, "many-hosts", "ours_us"), 1.0, "module load to last LUN")
    for n in (8, 512):
        row(f"hotplug, {n} LUNs: sync scan vs daemon", values(sync, f"hotplug-{n}", "kernel_us"),
            values(manual, f"hotplug-{n}", "ours_us"), 1.1, "add_host to last LUN")

    print(f"\nLinux {release}, QEMU TCG, medians of {ROUNDS} rounds (3 for many hosts)\n")
    print(f"| {'benchmark':44} | kernel ms | ours ms | ratio | target | result |")
    print(f"|{'-' * 46}|-----------|---------|-------|--------|--------|")
    for name, k, o, ratio, target, verdict, n, note in rows:
        print(f"| {name:44} | {k:9.1f} | {o:7.1f} | {ratio:5.2f} | {target:6.2f} | {verdict:6} |")

    # system calls of one 128-LUN scan
    calls = {}
    for m in re.finditer(r"^@@S\s+[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", manual, re.M):
        calls[m.group(2)] = calls.get(m.group(2), 0) + int(m.group(1))
    total = calls.pop("total", None)
    forks = sum(calls.get(c, 0) for c in ("fork", "vfork", "clone", "clone3", "execve"))
    w = re.search(r"@@W writes=(\d+) scanwrites=(\d+)", manual)
    print("\nper attached LUN (one scan of 128 LUNs, strace -c):")
    if total:
        print(f"  system calls: {total / 128:.1f} per LUN ({total} per scan)")
    if w:
        print(f"  writes: {int(w.group(1)) / 128:.2f} per LUN, of which sysfs scan writes "
              f"{int(w.group(2)) / 128:.2f}")
    print(f"  forks and execs per scan: {max(forks - 1, 0)} (the one execve is strace starting "
          f"scsi-scan)")
    for label in ("idle", "after-1000-events"):
        m = re.search(rf"@@M {label} VmRSS: (\d+) kB(.*)", manual)
        if m:
            print(f"  daemon RSS {label}: {int(m.group(1)) / 1024:.2f} MiB{m.group(2)}")
    print(f"\n(ran {time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
