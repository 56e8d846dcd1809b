#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A restricted target on the real kernel: one scsi_debug host of 2,048
LUNs (no_uld=1, delay=0) in one boot (scsi_mod.scan=manual), and a policy
that refuses one LUN the target lists (exclude_luns, its 101st LUN). The kernel's
"- - -" cannot be used then: a refused LUN would be attached for a moment.

Per round, the order rotating, every LUN deleted after each side (and what
the deletes leave to the next look-up and to RCU done with it):
- kernel: "- - -" (monotonic write), what the policy does not allow;
- floor: one "0 0 L" write per LUN the kernel attached but the refused
  one, from one process (monotonic writes): the least any per-LUN scan
  costs;
- floor2: the same from two threads (monotonic writes -j 2): whether
  writes in parallel gain anything;
- ours: scsi-scan --quirks-file POLICY hostN (monotonic run).
Each side's median gap between two LUNs' attach messages in the kernel
log says where the time goes. Medians with min-max, the ratio of the
medians against the kernel, the interquartile range of the per-round
ratios (how much one round moves) and the 95 % bootstrap interval of the
ratio of the medians (how well the rounds pin it). Target: ours <= 1.05
with the spread inside.

usage: vm-bench-restricted.py BUILD_DIR [KERNEL_SERIES] [--rounds N] [--luns N]
                               [--icount SHIFT] [--smp N]
"""

import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

BUILD, SERIES, ROUNDS = vmlib.bench_args(4)
SMP, QEMU_ARGS, MACHINE = vmlib.bench_machine()
LUNS = int(sys.argv[sys.argv.index("--luns") + 1]) if "--luns" in sys.argv else 2048
REFUSED = 100
SIDES = ("kernel", "floor", "floor2", "ours")

SCRIPT = r"""
# What the package does on installation: the compiled quirk database.
scsi-quirks --quiet compile
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=$LUNS no_uld=1 scsi_level=7
h=$(for x in /sys/class/scsi_host/host*; do echo ${x##*/host}; done | tail -1)
scan=/sys/class/scsi_host/host$h/scan
# The LUNs the kernel attaches, as the scan file names them.
echo "- - -" > $scan
# The refused LUN: the target's LUN $REFUSED (scsi_debug numbers its LUNs
# in the flat space, 0x4000 | n, once it has more than 256).
REFUSED=$(ls /sys/bus/scsi/devices | sed -n "s/^$h:0:0://p" | sort -n | sed -n "$((REFUSED + 1))p")
echo "@@REFUSED $REFUSED"
luns=$(ls /sys/bus/scsi/devices | sed -n "s/^$h:0:0://p" | sort -n | grep -vx $REFUSED |
	sed 's/^/0 0 /' | tr '\n' '|')
cat > /tmp/policy.conf <<EOF
lunmask "bench" {
	driver = "scsi_debug"
	channel = 0
	id = 0
	exclude_luns = { $REFUSED }
}
EOF
scsi-quirks check /tmp/policy.conf >/dev/null || echo "@@ERROR policy"
# The target's directory, by its path under /sys/devices.
tgt=$(readlink -f /sys/bus/scsi/devices/target$h:0:0)
# Every LUN deleted through its directory, whose look-up leaves a dentry
# of each LUN and of its delete file behind the removed target; the
# target's path looked up once more drops them now, where the next side to
# read a LUN would have paid for them (110 ms of 2,047 LUNs); then a second
# for the frees the kernel leaves to RCU, which would land in the next side.
clear() {
	for d in /sys/bus/scsi/devices/$h:*; do [ -e "$d" ] && echo 1 > $d/delete; done
	[ -e "$tgt" ] && echo "@@ERROR target left"
	sleep 1
}
# The median gap, in microseconds, between two attach messages in the log.
gap() {
	dmesg | sed -n "s/^\[ *\([0-9.]*\)\] scsi $h:0:0:[0-9]*: Direct-Access.*/\1/p" |
		awk 'NR > 1 { printf "%d\n", ($1 - p) * 1000000 } { p = $1 }' | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
# Where a side's time went, from the kernel log: start mark to the first
# attach, first to last attach, last attach to the end mark (microseconds).
phases() {
	dmesg | awk -v h=$h '
		{ t = substr($0, 2, index($0, "]") - 2) + 0 }
		/scsi-bench: start/ { s = t }
		/scsi-bench: end/ { e = t }
		$0 ~ "scsi " h ":0:0:[0-9]*: Direct-Access" { if (!f) f = t; l = t }
		END { printf "pre_us=%d span_us=%d post_us=%d", (f - s) * 1e6, (l - f) * 1e6, (e - l) * 1e6 }'
}
clear
i=0
while [ $i -lt $ROUNDS ]; do
	set -- kernel floor floor2 ours
	r=0
	while [ $r -lt $((i % 4)) ]; do first=$1; shift; set -- "$@" $first; r=$((r + 1)); done
	for who in "$@"; do
		dmesg -c > /dev/null
		echo "scsi-bench: start" > /dev/kmsg
		case $who in
		kernel) us=$(monotonic write $scan "- - -") ;;
		floor) us=$(IFS='|'; monotonic writes $scan $luns) ;;
		floor2) us=$(IFS='|'; monotonic writes -j 2 $scan $luns) ;;
		ours) us=$(monotonic run scsi-scan --quirks-file /tmp/policy.conf host$h) ;;
		esac
		echo "scsi-bench: end" > /dev/kmsg
		refused=no
		[ -e /sys/bus/scsi/devices/$h:0:0:$REFUSED ] && refused=yes
		echo "@@S who=$who round=$i us=$us luns=$(ls -d /sys/bus/scsi/devices/$h:* | wc -l) refused_attached=$refused gap_us=$(gap) $(phases)"
		clear
	done
	i=$((i + 1))
done
rmmod_wait scsi_debug
"""


def stats(v):
    return f"{statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})"


def main():
    release, out = vmlib.run_guest(
        BUILD, SERIES, vmlib.BASE_MODULES,
        f"ROUNDS={ROUNDS}\nLUNS={LUNS}\nREFUSED={REFUSED}\n" + SCRIPT, timeout=7200,
        what=f"one target of {LUNS} LUNs, one refused, {ROUNDS} rounds", bench=True,
        memory=3072, smp=SMP, qemu_args=QEMU_ARGS,
        # Every side's attach messages and marks, from the first on.
        append="log_buf_len=16M")
    rows = [m.groupdict() for m in re.finditer(
        r"^@@S who=(?P<who>\w+) round=(?P<r>\d+) us=(?P<us>\d+) luns=(?P<luns>\d+) "
        r"refused_attached=(?P<ref>\w+) gap_us=(?P<gap>\d+) "
        r"pre_us=(?P<pre>-?\d+) span_us=(?P<span>-?\d+) post_us=(?P<post>-?\d+)", out, re.M)]
    m = re.search(r"^@@REFUSED (\d+)", out, re.M)
    refused = f"LUN {m.group(1)} (the {REFUSED + 1}st listed)" if m else "one LUN"
    side = {w: {int(r["r"]): r for r in rows if r["who"] == w} for w in SIDES}
    rounds = sorted(set.intersection(*(set(side[w]) for w in SIDES)))
    if not rounds or "@@ERROR" in out:
        print("no result from the guest")
        print("\n".join(line for line in out.splitlines() if line.startswith("@@"))[-3000:])
        return 1
    ms = {w: [int(side[w][r]["us"]) / 1000 for r in rounds] for w in SIDES}
    print(f"\nLinux {release}, {MACHINE}, one scsi_debug target of {LUNS} LUNs, "
          f"{refused} refused by the policy, {len(rounds)} rounds, same boot, order "
          "rotating; ms, median (min-max)\n")
    print("| side | time | ratio to the kernel's - - - | IQR of per-round ratios | "
          "95 % interval of the ratio | LUNs attached | refused LUN attached | "
          "median gap between attaches (µs) | before the first attach | first to last attach "
          "| after the last |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    k = ms["kernel"]
    for w in SIDES:
        q1, q3 = vmlib.ratio_quartiles([ms[w][i] / k[i] for i in range(len(rounds))])
        lo, hi = vmlib.median_ratio_interval(ms[w], k)
        luns = sorted({int(side[w][r]["luns"]) for r in rounds})
        refused = sorted({side[w][r]["ref"] for r in rounds})
        gaps = [int(side[w][r]["gap"]) for r in rounds]
        print(f"| {w} | {stats(ms[w])} | {statistics.median(ms[w]) / statistics.median(k):.3f}"
              f" | {q1:.3f}-{q3:.3f} | {lo:.3f}-{hi:.3f} | {luns} | {','.join(refused)} | "
              f"{statistics.median(gaps):,.0f} | " +
              " | ".join(stats([int(side[w][r][p]) / 1000 for r in rounds])
                         for p in ("pre", "span", "post")) + " |")
    bad = [r for r in rounds if side["ours"][r]["ref"] != "no"]
    if bad:
        print(f"\nFAIL: the refused LUN was attached by ours in rounds {bad}")
        return 1
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
