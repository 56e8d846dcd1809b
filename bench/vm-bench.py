#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmarks on the real kernel: our scan against the kernel's own, on the
same emulated devices, printed as ratios.

usage: vm-bench.py BUILD_DIR [KERNEL_SERIES] [--rounds N]

Absolute times under QEMU's TCG are slow and noisy; the ratios, taken from
medians of alternating runs in the same boot, are what to quote, with the
spread of each side. Four boots: scan=manual (same-boot comparisons: one
target of 1 and 8 LUNs, one host of 1,024 LUNs, rescan-scsi-bus.sh on 256;
the daemon's hotplug and many hosts), scan=async and scan=sync (the
kernel's side of the daemon's rows: those cross boots), and scan=manual
again with a second guest spinning both its vCPUs on the same machine
(one host of 1,024 LUNs under load).
"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "vm"))
import vmlib  # noqa: E402

def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


args = [a for i, a in enumerate(sys.argv[1:], 1)
        if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
BUILD = args[0]
SERIES = args[1] if len(args) > 1 else "6.12"
ROUNDS = int(option("--rounds", 5))
# A build with -Dstatic_scan=true: its scsi-scan, as scsi-scan-static.
STATIC_BUILD = option("--static-build", None)
# Where the guests' whole output goes.
RAW_DIR = option("--raw-dir", tempfile.gettempdir())
# Which boots to run (all by default): manual,async,sync,loaded.
BOOTS = option("--boots", "manual,async,sync,loaded").split(",")
# Small scans are quick and noisy: many more rounds.
SMALL_ROUNDS = max(ROUNDS * 4, 21)
# rescan-scsi-bus.sh takes minutes under TCG.
PEER_ROUNDS = 3
# Comparisons across boots move more than same-boot ones: more rounds.
CROSS_ROUNDS = ROUNDS * 2 + 1
# A 1024-LUN round moves by up to 40 % under TCG while the targets are
# 5 and 10 %: 5 rounds cannot tell them apart, 15 can.
ONE_HOST_ROUNDS = max(ROUNDS * 3, 15)
# A hotplug of 8 LUNs takes about 0.1 s and is compared across boots,
# where its target asks for a spread that stays below 1.1: many rounds.
HOTPLUG_ROUNDS = max(CROSS_ROUNDS, 31)

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
count_luns() { ls -d /sys/bus/scsi/devices/$1:* 2>/dev/null | wc -l; }
# delete_luns HOST...: every LUN of the hosts gone, udev done with them
delete_luns() {
	for h in "$@"; do
		for d in /sys/bus/scsi/devices/$h:*; do [ -e $d/delete ] && echo 1 > $d/delete; done
	done
	udevadm settle -t 60
}
# kscan HOST VALUE / ours ARGS...: the two sides, timed the same way (us)
kscan() { monotonic write /sys/class/scsi_host/host$1/scan "$2"; }
ours() { monotonic run scsi-scan "$@"; }
# one_host NAME LUNS ROUNDS: two hosts of LUNS; the kernel's "- - -" on one,
# scsi-scan hostN on the other, order alternating, a fresh module each round
one_host() {
	name=$1 luns=$2 rounds=$3 i=0
	while [ $i -lt $rounds ]; do
		before=$(all_hosts)
		insmod /lib/test-modules/scsi_debug.ko add_host=2 delay=0 max_luns=$luns no_uld=1
		set -- $(new_hosts "$before"); ha=$1; hb=$2
		udevadm settle -t 30
		# udev done with one side's LUNs before the other side starts
		if [ $((i % 2)) -eq 0 ]; then
			k=$(kscan $ha "- - -"); udevadm settle -t 60; o=$(ours host$hb)
		else
			o=$(ours host$hb); udevadm settle -t 60; k=$(kscan $ha "- - -")
		fi
		echo "@@B $name round=$i kernel_us=$k ours_us=$o kluns=$(count_luns $ha) oluns=$(count_luns $hb)"
		udevadm settle -t 60
		rmmod_wait scsi_debug
		i=$((i + 1))
	done
}
# many_hosts WHO: 8 hosts of 128 LUNs, module load to the last LUN
many_hosts() {
	who=$1 i=0
	while [ $i -lt $CROSS_ROUNDS ]; do
		before=$(all_hosts)
		t0=$(now)
		insmod /lib/test-modules/scsi_debug.ko add_host=8 delay=0 max_luns=128 no_uld=1
		set -- $(new_hosts "$before")
		last=""; for h in "$@"; do last="$last /sys/bus/scsi/devices/$h:0:0:127"; done
		t1=$(wait_until $last)
		echo "@@B many-hosts round=$i ${who}_us=$((t1 - t0))"
		udevadm settle -t 60
		rmmod_wait scsi_debug
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
		rounds=$HOTPLUG_ROUNDS; [ $luns -gt 8 ] && rounds=$ROUNDS
		while [ $i -lt $rounds ]; do
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
# What the package does on installation: the compiled quirk database.
scsi-quirks --quiet compile
echo "@@I $(scsi-scan -v --dry-run host999 2>&1 | grep 'quirks:')"

# One target of 1 and of 8 LUNs: the kernel's "0 0 -" against
# scsi-scan H:0:0 (process start included, as at boot and on hotplug), as
# packaged (dynamic) and linked statically (-Dstatic_scan=true), same
# boot, order rotating, the LUNs deleted between rounds.
for luns in 1 8; do
	before=$(all_hosts)
	insmod /lib/test-modules/scsi_debug.ko add_host=3 delay=0 max_luns=$luns no_uld=1
	set -- $(new_hosts "$before"); ha=$1; hb=$2; hc=$3
	udevadm settle -t 30
	i=0
	while [ $i -lt $SMALL_ROUNDS ]; do
		delete_luns $ha $hb $hc
		case $((i % 3)) in 0) order="k o s" ;; 1) order="o s k" ;; *) order="s k o" ;; esac
		for side in $order; do
			case $side in
			k) k=$(kscan $ha "0 0 -") ;;
			o) o=$(ours $hb:0:0) ;;
			s) st=$(monotonic run scsi-scan-static $hc:0:0) ;;
			esac
			udevadm settle -t 60
		done
		echo "@@B target-$luns round=$i kernel_us=$k ours_us=$o static_us=$st kluns=$(count_luns $ha) oluns=$(count_luns $hb) sluns=$(count_luns $hc)"
		i=$((i + 1))
	done
	delete_luns $ha $hb $hc
	rmmod_wait scsi_debug
done
# Where the fixed cost goes: a program that does nothing, scsi-scan that
# only starts, and that only loads the database (no such host).
i=0
while [ $i -lt $SMALL_ROUNDS ]; do
	echo "@@B start round=$i true_us=$(monotonic run true) version_us=$(monotonic run scsi-scan --version) static_version_us=$(monotonic run scsi-scan-static --version) db_us=$(monotonic run scsi-scan --dry-run host999) static_db_us=$(monotonic run scsi-scan-static --dry-run host999) text_db_us=$(monotonic run scsi-scan --quirks-image /nonexistent --dry-run host999)"
	i=$((i + 1))
done

# One host, 1024 LUNs: the kernel's "- - -" against scsi-scan.
one_host one-host-1024 1024 $ONE_HOST_ROUNDS

# The peer: Debian's rescan-scsi-bus.sh (sg3-utils) on 256 LUNs, against
# scsi-scan and the kernel, same boot, order rotating. -a: in scan=manual
# no target exists yet, and without it the script looks only at those.
before=$(all_hosts)
insmod /lib/test-modules/scsi_debug.ko add_host=3 delay=0 max_luns=256 no_uld=1
set -- $(new_hosts "$before"); ha=$1; hb=$2; hc=$3
udevadm settle -t 30
i=0
while [ $i -lt $PEER_ROUNDS ]; do
	delete_luns $ha $hb $hc
	case $((i % 3)) in 0) order="k o p" ;; 1) order="o p k" ;; *) order="p k o" ;; esac
	for side in $order; do
		case $side in
		k) k=$(kscan $ha "- - -") ;;
		o) o=$(ours host$hb) ;;
		p) p=$(monotonic run rescan-scsi-bus.sh -a --hosts=$hc) ;;
		esac
		udevadm settle -t 60
	done
	echo "@@B peer-256 round=$i kernel_us=$k ours_us=$o peer_us=$p kluns=$(count_luns $ha) oluns=$(count_luns $hb) pluns=$(count_luns $hc)"
	i=$((i + 1))
done
delete_luns $ha $hb $hc
rmmod_wait scsi_debug

# System calls, sysfs writes and forks of one scan of 128 LUNs.
before=$(all_hosts)
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=128 no_uld=1
set -- $(new_hosts "$before")
strace -f -c -o /tmp/strace.txt scsi-scan host$1 > /dev/null
sed 's/^/@@S /' /tmp/strace.txt
udevadm settle -t 30
rmmod_wait scsi_debug
before=$(all_hosts)
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=128 no_uld=1
set -- $(new_hosts "$before")
strace -f -e trace=write -o /tmp/strace-w.txt scsi-scan host$1 > /dev/null 2>&1
echo "@@W writes=$(grep -c 'write(' /tmp/strace-w.txt) scanwrites=$(grep -c '"0 0 [0-9]*\\n"' /tmp/strace-w.txt) targetwrites=$(grep -c '"0 0 -\\n"' /tmp/strace-w.txt)"
udevadm settle -t 30
rmmod_wait scsi_debug

# Many hosts in the same boot: module load to the last LUN of 8 hosts x 128;
# the kernel scanning the 8 hosts at once (one "- - -" write per host, in
# parallel: what scan=async does, a scan per host at once) against the
# daemon, alternating; the daemon runs only in its own rounds.
i=0
while [ $i -lt $CROSS_ROUNDS ]; do
	who=kernel; [ $((i % 2)) -eq 1 ] && who=ours
	if [ $who = ours ]; then
		scsi-scand --foreground > /tmp/scand-mh.log 2>&1 &
		MH=$!
		n=0; while ! grep -q "coldplug done" /tmp/scand-mh.log && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	fi
	before=$(all_hosts)
	t0=$(now)
	insmod /lib/test-modules/scsi_debug.ko add_host=8 delay=0 max_luns=128 no_uld=1
	set -- $(new_hosts "$before")
	if [ $who = kernel ]; then
		for h in "$@"; do echo "- - -" > /sys/class/scsi_host/host$h/scan & done
	fi
	last=""; for h in "$@"; do last="$last /sys/bus/scsi/devices/$h:0:0:127"; done
	t1=$(wait_until $last)
	echo "@@B many-hosts-same round=$i ${who}_us=$((t1 - t0))"
	# the writes' jobs, or the daemon: the only background jobs of a round
	if [ $who = ours ]; then kill $MH; fi
	wait
	udevadm settle -t 60
	rmmod_wait scsi_debug
	udevadm settle -t 60
	i=$((i + 1))
done

# The daemon: hotplug latency, many hosts, memory.
scsi-scand --foreground > /tmp/scand.log 2>&1 &
PID=$!
sleep 1
echo "@@M idle $(grep VmRSS /proc/$PID/status | tr -s ' \t' ' ')"
insmod /lib/test-modules/scsi_debug.ko add_host=0 delay=0 max_luns=8 no_uld=1
hotplug_rounds ours
udevadm settle -t 60
rmmod_wait scsi_debug
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

# Boot 4: scan=manual while a second guest spins both its vCPUs.
LOADED = COMMON + r"""
scsi-quirks --quiet compile
one_host loaded-1024 1024 $ONE_HOST_ROUNDS
"""

# The second guest: a busy hypervisor's other tenant.
BURNER = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
echo "@@BURNING"
while :; do :; done &
while :; do :; done
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
    counts = (f"ROUNDS={ROUNDS}\nSMALL_ROUNDS={SMALL_ROUNDS}\nPEER_ROUNDS={PEER_ROUNDS}\n"
              f"CROSS_ROUNDS={CROSS_ROUNDS}\nONE_HOST_ROUNDS={ONE_HOST_ROUNDS}\n"
              f"HOTPLUG_ROUNDS={HOTPLUG_ROUNDS}\n")
    vmlib.build_initramfs(initrd, staging, modules,
                          init + counts + script + vmlib.INIT_TAIL,
                          programs=["/bin/udevadm", "/usr/bin/strace", "/bin/bash",
                                    "/usr/bin/rescan-scsi-bus.sh",
                                    os.path.join(BUILD, "bench", "monotonic")])
    vmlib.log(f"boot {name} (scan={scan_mode})")
    out = vmlib.boot(vmlinuz, initrd, timeout=3600, memory=2048, smp=2)
    # The guest's own lines, every round, for a second look.
    raw = os.path.join(RAW_DIR, f"vm-bench-{name}.log")
    with open(raw, "w") as f:
        f.write(out)
    vmlib.log(f"guest output in {raw}")
    return out


def run_loaded(vmlinuz, moddir, staging, tmp):
    """The LOADED boot while a second guest spins on the same machine."""
    burner = os.path.join(tmp, "initrd-burner.cpio")
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty, exist_ok=True)
    vmlib.build_initramfs(burner, empty, [], BURNER)
    load = subprocess.Popen(["qemu-system-x86_64", "-accel", "tcg", "-m", "256", "-smp", "2",
                             "-nographic", "-no-reboot", "-kernel", vmlinuz, "-initrd", burner,
                             "-append", "console=ttyS0 quiet panic=-1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(20)
        return run_boot("loaded", LOADED, "manual", vmlinuz, moddir, staging, tmp)
    finally:
        load.kill()
        load.wait()


def values(out, name, key):
    return [int(m.group(1)) for m in
            re.finditer(rf"^@@B {re.escape(name)} round=\d+ (?:.*? )?{key}=(\d+)", out, re.M)]


def med_ms(v):
    return statistics.median(v) / 1000 if v else float("nan")


def quartiles(v):
    """First and third quartile of at least two values."""
    q = statistics.quantiles(v, n=4)
    return q[0], q[2]


def ratio_spread(kernel, ours, same_boot):
    """Where the ratio ours/kernel lies, as an interquartile range: in one
    boot the quartiles of the per-round ratios (round i of each side ran
    back to back); across boots the rounds do not pair, so ours' quartiles
    against the kernel's (ours Q1 / kernel Q3 to ours Q3 / kernel Q1)."""
    if len(kernel) < 2 or len(ours) < 2:
        return float("nan"), float("nan")
    if same_boot and len(kernel) == len(ours):
        return quartiles([o / k for k, o in zip(kernel, ours)])
    k1, k3 = quartiles(kernel)
    o1, o3 = quartiles(ours)
    return o1 / k3, o3 / k1


def main():
    start = time.monotonic()
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_bench(BUILD, staging)
        shutil.copy2(os.path.join(STATIC_BUILD or BUILD, "scsi-scan"),
                     os.path.join(staging, "usr", "bin", "scsi-scan-static"))
        manual = asyn = sync = loaded = ""
        if "manual" in BOOTS:
            manual = run_boot("manual", MANUAL, "manual", vmlinuz, moddir, staging, tmp)
        if "async" in BOOTS:
            asyn = run_boot("async", ASYNC, "async", vmlinuz, moddir, staging, tmp)
        if "sync" in BOOTS:
            sync = run_boot("sync", SYNC, "sync", vmlinuz, moddir, staging, tmp)
        if "loaded" in BOOTS:
            loaded = run_loaded(vmlinuz, moddir, staging, tmp)

    rows = []

    def spread(v):
        if not v:
            return "-"
        return f"{med_ms(v):,.1f} ({min(v) / 1000:,.1f}-{max(v) / 1000:,.1f})"

    def row(name, kernel, ours, target, how):
        if not kernel and not ours:
            return
        k, o = med_ms(kernel), med_ms(ours)
        ratio = o / k if k else float("nan")
        # The ratio of each side's extremes: where the spread could put it.
        lo = min(ours) / max(kernel) if kernel and ours else float("nan")
        hi = max(ours) / min(kernel) if kernel and ours else float("nan")
        q1, q3 = ratio_spread(kernel, ours, how.startswith("same boot"))
        if ratio > target:
            verdict = "MISSED"
        elif q3 <= target:
            verdict = "met"
        else:
            verdict = "met, spread crosses"
        rows.append((name, spread(kernel), spread(ours), ratio, q1, q3, lo, hi, target, verdict,
                     len(ours), how))

    def same_luns(out, name):
        pairs = re.findall(rf"^@@B {re.escape(name)} .*kluns=(\d+) oluns=(\d+)", out, re.M)
        return bool(pairs) and all(a == b for a, b in pairs)

    for n in (1, 8):
        name = f"target-{n}"
        counts = re.findall(rf"^@@B {name} .*kluns=(\d+) oluns=(\d+) sluns=(\d+)", manual, re.M)
        same = bool(counts) and all(len(set(c)) == 1 for c in counts)
        for key, how in (("ours_us", "as packaged"), ("static_us", "-Dstatic_scan=true")):
            row(f"one target, {n} LUN{'s' if n > 1 else ''}: 'C T -' vs scsi-scan H:C:T, {how}",
                values(manual, name, "kernel_us"), values(manual, name, key),
                1.5 if n == 1 else 1.2, "same boot" + ("" if same else "; LUN COUNTS DIFFER"))
    row("1 host, 1024 LUNs: '- - -' vs scsi-scan", values(manual, "one-host-1024", "kernel_us"),
        values(manual, "one-host-1024", "ours_us"), 1.05,
        "same boot" + ("" if same_luns(manual, "one-host-1024") else "; LUN COUNTS DIFFER"))
    row("same, a second guest loading the machine", values(loaded, "loaded-1024", "kernel_us"),
        values(loaded, "loaded-1024", "ours_us"), 1.10,
        "same boot" + ("" if same_luns(loaded, "loaded-1024") else "; LUN COUNTS DIFFER"))
    row("8 hosts x 128 LUNs: 8 parallel '- - -' vs daemon",
        values(manual, "many-hosts-same", "kernel_us"),
        values(manual, "many-hosts-same", "ours_us"), 1.0, "same boot, alternating")
    row("8 hosts x 128 LUNs: async load vs daemon", values(asyn, "many-hosts", "kernel_us"),
        values(manual, "many-hosts", "ours_us"), 1.0, "across boots")
    for n in (8, 512):
        row(f"hotplug, {n} LUNs: sync scan vs daemon", values(sync, f"hotplug-{n}", "kernel_us"),
            values(manual, f"hotplug-{n}", "ours_us"), 1.1, "across boots")

    print(f"\nLinux {release}, QEMU TCG, 2 vCPUs; ms, median (min-max); ratio of the medians; "
          f"its spread as an interquartile range (same boot: of the per-round ratios; across "
          f"boots: ours Q1 / kernel Q3 - ours Q3 / kernel Q1); the extremes (ours min / kernel "
          f"max - ours max / kernel min); 'met' when the ratio and the spread's upper end are "
          f"within the target\n")
    if len(BOOTS) < 4:
        print(f"boots run: {', '.join(BOOTS)}; the rows of the others are left out\n")
    print("| benchmark | rounds | how | kernel | ours | ratio | spread | extremes | target | "
          "result |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, k, o, ratio, q1, q3, lo, hi, target, verdict, n, how in rows:
        print(f"| {name} | {n} | {how} | {k} | {o} | {ratio:.2f} | {q1:.2f}-{q3:.2f} | "
              f"{lo:.2f}-{hi:.2f} | {target:.2f} | {verdict} |")

    if not manual:
        print(f"\n(ran {time.monotonic() - start:.0f} s)")
        return 0
    peer = values(manual, "peer-256", "peer_us")
    ours256 = values(manual, "peer-256", "ours_us")
    kern256 = values(manual, "peer-256", "kernel_us")
    counts = re.findall(r"^@@B peer-256 .*kluns=(\d+) oluns=(\d+) pluns=(\d+)", manual, re.M)
    if peer and ours256:
        ratio = med_ms(peer) / med_ms(ours256)
        print(f"\npeer, 256 LUNs, same boot, {len(peer)} rounds, order rotating: "
              f"rescan-scsi-bus.sh -a {spread(peer)} ms, scsi-scan {spread(ours256)} ms, "
              f"the kernel's '- - -' {spread(kern256)} ms; rescan-scsi-bus.sh / scsi-scan = "
              f"{ratio:.1f} (target >= 20: {'met' if ratio >= 20 else 'MISSED'}); "
              f"LUNs attached (kernel, ours, peer) per round: {counts}")
    parts = [(key, what) for key, what in (
        ("true_us", "busybox true"), ("version_us", "scsi-scan --version"),
        ("static_version_us", "static --version"),
        ("db_us", "scsi-scan, compiled database, no host"),
        ("static_db_us", "static, compiled database, no host"),
        ("text_db_us", "scsi-scan, text database, no host"))]
    print("\nfixed cost, same boot, ms, median (min-max): " + "; ".join(
        f"{what} {spread(values(manual, 'start', key))}" for key, what in parts))
    img = re.search(r"^@@I (.*)$", manual, re.M)
    print(f"quirk database in the guest: {img.group(1).strip() if img else '?'}")

    # system calls of one 128-LUN scan
    calls = {}
    for m in re.finditer(r"^@@S\s+[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", manual, re.M):
        calls[m.group(2)] = calls.get(m.group(2), 0) + int(m.group(1))
    total = calls.pop("total", None)
    forks = sum(calls.get(c, 0) for c in ("fork", "vfork", "clone", "clone3", "execve"))
    w = re.search(r"@@W writes=(\d+) scanwrites=(\d+) targetwrites=(\d+)", manual)
    print("\nper attached LUN (one scan of 128 LUNs, strace -c):")
    if total:
        print(f"  system calls: {total / 128:.1f} per LUN ({total} per scan)")
    if w:
        print(f"  writes: {int(w.group(1)) / 128:.2f} per LUN, of which sysfs scan writes of "
              f"one LUN {int(w.group(2)) / 128:.2f}, and {w.group(3)} of a whole target")
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
