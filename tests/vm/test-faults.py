#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fault injection on the real kernel with scsi_debug: commands that time
out (INQUIRY, REPORT LUNS), unit attentions before our commands, medium
errors. Each scan must end within a stated bound, say what went wrong,
leave other hosts unaffected, and not crash. (Lying REPORT LUNS lists are
tested with the fake kernel: scsi_debug cannot send one.)

usage: test-faults.py BUILD_DIR KERNEL_SERIES
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]

GUEST = r"""
SD=/sys/bus/pseudo/drivers/scsi_debug
P=/sys/module/scsi_debug/parameters
# The kernel's INQUIRY timeout bounds a probe that never answers.
echo 2 > /sys/module/scsi_mod/parameters/inq_timeout
uptime_cs() { read a b < /proc/uptime; echo ${a%.*}${a#*.}; }
luns() { ls /sys/bus/scsi/devices | grep -c "^$1:"; }
insmod /lib/test-modules/scsi_debug.ko add_host=3 delay=0 max_luns=4 scsi_level=5
set -- $(for h in /sys/class/scsi_host/host*; do echo ${h##*/host}; done | sort -n)
HA=$1; HB=$2; HC=$3

# 1. Every command times out while host A is scanned; host B is scanned
#    meanwhile, once the fault is lifted.
echo 1 > $P/every_nth; echo 4 > $P/opts
t0=$(uptime_cs)
( scsi-scan --timeout 3 --json host$HA > /tmp/a.json 2>&1; echo "rc=$? t=$(( $(uptime_cs) - t0 ))" > /tmp/a.done ) &
sleep 1
echo 0 > $P/opts; echo 0 > $P/every_nth
tb0=$(uptime_cs); scsi-scan host$HB > /dev/null; tb1=$(uptime_cs)
echo "@@F other-host luns=$(luns $HB) cs=$((tb1 - tb0))"
n=0; while [ ! -e /tmp/a.done ] && [ $n -lt 1800 ]; do sleep 0.1; n=$((n + 1)); done
echo "@@F inquiry-timeout $(cat /tmp/a.done 2>/dev/null || echo rc=none t=-1) luns=$(luns $HA)"

# 2. LUN 0 attached, then every command times out: our INQUIRY and
#    REPORT LUNS through SG_IO time out after 3 s. Nothing answers: the
#    target fails (exit 1) instead of being probed LUN by LUN.
scsi-scan $HC:0:0:0 > /dev/null
echo 1 > $P/every_nth; echo 4 > $P/opts
t0=$(uptime_cs)
scsi-scan -v --timeout 3 host$HC > /tmp/c.txt 2>&1; rc=$?
t1=$(uptime_cs)
echo 0 > $P/opts; echo 0 > $P/every_nth
echo "@@F report-luns-timeout rc=$rc t=$((t1 - t0)) luns=$(luns $HC)"
grep -iE "how:|FAILED" /tmp/c.txt | sed 's/^/@@M /'

# 3. A unit attention waits for our first command (LUN inventory changed).
scsi-scan $HB:0:0:0 > /dev/null
echo 6 > $SD/max_luns
t0=$(uptime_cs)
scsi-scan -v host$HB > /tmp/b.txt 2>&1; rc=$?
echo "@@F unit-attention rc=$rc t=$(( $(uptime_cs) - t0 )) luns=$(luns $HB)"

# 4. Medium errors on every read: scanning reads no medium; it goes on.
rmmod_wait scsi_debug
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns=4 scsi_level=5 every_nth=1 opts=2
H=$(for h in /sys/class/scsi_host/host*; do echo ${h##*/host}; done | sort -n | tail -1)
t0=$(uptime_cs)
scsi-scan host$H > /dev/null 2>&1; rc=$?
echo "@@F medium-error rc=$rc t=$(( $(uptime_cs) - t0 )) luns=$(luns $H)"
cat /tmp/a.json | tr -d '\n' | head -c 600 | sed 's/^/@@A /'
echo
"""


def main():
    checks = vmlib.Checks(SERIES, "faults")
    _, out = vmlib.run_guest(BUILD, SERIES, vmlib.BASE_MODULES, GUEST,
                             what="fault injection with scsi_debug")
    res = {m.group(1): m.group(2) for m in re.finditer(r"^@@F (\S+) (.*)$", out, re.M)}
    check = checks.check

    def num(name, key):
        m = re.search(rf"{key}=(-?\d+)", res.get(name, ""))
        return int(m.group(1)) if m else None

    t = num("inquiry-timeout", "t")
    check("inquiry-timeout", num("inquiry-timeout", "rc") in (0, 1) and t is not None and
          0 <= t <= 18000,
          f"every command timed out while host A was scanned: scsi-scan ended in "
          f"{t * 10 if t is not None else '?'} ms (bound 180 s), exit "
          f"{num('inquiry-timeout', 'rc')}, {num('inquiry-timeout', 'luns')} LUNs attached")
    check("other-host", num("other-host", "luns") == 4 and (num("other-host", "cs") or 999) <= 500,
          f"host B, scanned meanwhile: {num('other-host', 'luns')} LUNs in "
          f"{(num('other-host', 'cs') or 0) * 10} ms (bound 5 s)")
    how = [line[4:] for line in out.splitlines() if line.startswith("@@M ")]
    t = num("report-luns-timeout", "t")
    check("report-luns-timeout", t is not None and t <= 18000 and
          num("report-luns-timeout", "rc") == 1 and
          any("does not answer" in h and "timed out" in h for h in how),
          f"SG_IO INQUIRY and REPORT LUNS timed out (3 s): ended in "
          f"{t * 10 if t is not None else '?'} ms (bound 180 s), exit "
          f"{num('report-luns-timeout', 'rc')}, said: "
          f"{[h for h in how if 'does not answer' in h][:1] or how[:1]}")
    check("unit-attention", num("unit-attention", "rc") == 0 and
          num("unit-attention", "luns") == 6,
          f"'reported LUNs data has changed' before our commands: retried, "
          f"{num('unit-attention', 'luns')} of 6 LUNs attached")
    check("medium-error", num("medium-error", "rc") == 0 and num("medium-error", "luns") == 4,
          f"medium errors on every read: {num('medium-error', 'luns')} of 4 LUNs attached, "
          f"exit {num('medium-error', 'rc')}")
    return checks.finish(out, tail=50)


if __name__ == "__main__":
    vmlib.main_guard(main)
