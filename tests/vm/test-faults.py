#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fault injection on the real kernel with scsi_debug: commands that time
out (INQUIRY, REPORT LUNS), unit attentions before our commands, medium
errors. Each scan must end within a stated bound, say what went wrong,
leave other hosts unaffected, and not crash. A libata host (ata_piix) is
never written: its user_scan resets the port, as the kernel's own write
shows in the same guest. (Lying REPORT LUNS lists are
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

# 5. libata (ata_piix: the PIIX IDE controller, a disk on ata1, nothing on
#    ata2) attaches what its ports have, whatever scsi_mod.scan says, and
#    its user_scan resets the port: scsi-scan writes nothing to its hosts.
for m in $LATER_MODULES; do insmod /lib/test-modules/$m.ko; done
ata_hosts() { for h in /sys/class/scsi_host/host*; do
	[ -d $h/device/../ata_port ] && echo ${h##*/host}; done; }
ata_luns() { for H in $(ata_hosts); do ls /sys/bus/scsi/devices | grep "^$H:"; done | tr '\n' ' '; }
n=0; while [ -z "$(ata_luns)" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
# libata's own probe of both ports is over once its messages stop.
m0=$(dmesg | grep -c ' ata[0-9]'); n=0
while sleep 1; m1=$(dmesg | grep -c ' ata[0-9]'); [ $m1 != $m0 ] && [ $n -lt 30 ]; do
	m0=$m1; n=$((n + 1)); done
before=$(ata_luns); m0=$(dmesg | grep -c ' ata[0-9]')
t0=$(uptime_cs); rc=0
for H in $(ata_hosts); do scsi-scan -v host$H >> /tmp/ata.txt 2>&1 || rc=$?; done
echo "@@F libata hosts=$(ata_hosts | tr '\n' ,) rc=$rc t=$(( $(uptime_cs) - t0 )) msgs=$(( $(dmesg | grep -c ' ata[0-9]') - m0 )) luns=[$before] after=[$(ata_luns)]"
grep -m2 libata /tmp/ata.txt | sed 's/^/@@T /'
# The kernel's own scan of the disk's target, for the contrast.
H=$(ata_hosts | head -1); m1=$(dmesg | grep -c ' ata[0-9]'); t0=$(uptime_cs)
echo "0 0 0" > /sys/class/scsi_host/host$H/scan
echo "@@F libata-kernel t=$(( $(uptime_cs) - t0 )) msgs=$(( $(dmesg | grep -c ' ata[0-9]') - m1 )) after=[$(ata_luns)]"
dmesg | grep ' ata[0-9]' | tail -1 | sed 's/^/@@K /'
"""


def main():
    checks = vmlib.Checks(SERIES, "faults")
    ide = ["-blockdev", "driver=null-co,node-name=ide0,size=16777216",
           "-device", "ide-hd,drive=ide0,bus=ide.0"]
    _, out = vmlib.run_guest(BUILD, SERIES, vmlib.BASE_MODULES, GUEST,
                             what="fault injection with scsi_debug; libata",
                             later_modules=["ata_piix"], qemu_args=ide)
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
    ata, said = res.get("libata", ""), [line[4:] for line in out.splitlines()
                                        if line.startswith("@@T ")]
    ata_luns = re.search(r"luns=\[([^\]]*)\] after=\[([^\]]*)\]", ata)
    hosts = [h for h in re.sub(r".*hosts=(\S*).*", r"\1", ata).split(",") if h]
    check("libata", num("libata", "rc") == 0 and num("libata", "msgs") == 0 and
          ata_luns is not None and ata_luns.group(1).strip() != "" and
          ata_luns.group(1) == ata_luns.group(2) and len(hosts) == 2 and
          len([t for t in said if "libata attaches its devices itself" in t]) == 2,
          f"ata_piix's hosts {hosts}: scsi-scan exit {num('libata', 'rc')} in "
          f"{(num('libata', 't') or 0) * 10} ms, {num('libata', 'msgs')} libata messages "
          f"(no port reset), LUNs [{ata_luns.group(1).strip() if ata_luns else '?'}] before "
          f"and [{ata_luns.group(2).strip() if ata_luns else '?'}] after; "
          f"said: {said[:1]}")
    kernel = res.get("libata-kernel", "")
    check("libata-kernel", (num("libata-kernel", "msgs") or 0) >= 1,
          f"the kernel's own write of '0 0 0' to the disk's port, for the contrast: "
          f"{num('libata-kernel', 'msgs')} libata message(s) from the error handler it ran "
          f"({([line[4:] for line in out.splitlines() if line.startswith('@@K ')] or ['-'])[-1]})"
          f"{'' if kernel else ': no result'}")
    return checks.finish(out, tail=50)


if __name__ == "__main__":
    vmlib.main_guard(main)
