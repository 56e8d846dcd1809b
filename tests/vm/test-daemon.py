#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The real-kernel test of scsi-scand, with Debian's systemd-udevd running in
the guest and the daemon and its udev rule taken from the installed files.

usage: test-daemon.py BUILD_DIR KERNEL_SERIES
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
uptime_cs() { read a b < /proc/uptime; echo ${a%.*}${a#*.}; }
luns_of_host() {
	for d in /sys/bus/scsi/devices/$1:*; do [ -e "$d" ] && echo "${d##*/}"; done | tr '\n' ' '
}
count_luns() { set -- $(luns_of_host $1); echo $#; }
all_hosts() { for h in /sys/class/scsi_host/host*; do [ -e "$h" ] && echo ${h##*/host}; done | tr '\n' ' '; }
new_hosts() {
	for n in $(all_hosts); do case " $1 " in *" $n "*) ;; *) echo $n ;; esac; done | sort -n | tr '\n' ' '
}
result() { echo "@@T $*"; }

mkdir -p /run/udev /etc/udev /lib/systemd
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10

# Coldplug: two hosts exist before the daemon starts.
insmod /lib/test-modules/scsi_debug.ko add_host=2 delay=0 max_luns=4 scsi_level=5
udevadm settle -t 10
set -- $(all_hosts); HA=$1; HB=$2
scsi-scand --foreground -v > /tmp/scand.log 2>&1 &
PID=$!
ta=$(wait_luns $HA 4 3000); tb=$(wait_luns $HB 4 3000)
result coldplug "host$HA=$ta host$HB=$tb luns=$(count_luns $HA),$(count_luns $HB)"

# Hotplug of a quirky device: nolun.
before=$(all_hosts)
echo CHINON > $P/inq_vendor; echo "CD-ROM CDS-431" > $P/inq_product
echo 1 > $SD/add_host
set -- $(new_hosts "$before"); HC=$1
tc=$(wait_luns $HC 1 3000); sleep 1
result hotplug-nolun "host$HC time=$tc luns=[$(luns_of_host $HC)]"
echo Linux > $P/inq_vendor; echo scsi_debug > $P/inq_product

# A LUN inventory change: 4 -> 6 LUNs, seen through a unit attention.
echo 6 > $SD/max_luns
sg=$(ls /sys/bus/scsi/devices/$HA:0:0:0/scsi_generic)
t0=$(uptime_cs)
sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
td=$(wait_luns $HA 6 3000)
result luns-changed "host$HA time=$td luns=$(count_luns $HA)"

# A host whose device times out on every command, then a good host.
before=$(all_hosts)
echo 1 > $P/every_nth; echo 4 > $P/opts
echo 1 > $SD/add_host
set -- $(new_hosts "$before"); HD=$1
sleep 2
echo 0 > $P/opts; echo 0 > $P/every_nth
before=$(all_hosts)
t0=$(uptime_cs)
echo 1 > $SD/add_host
set -- $(new_hosts "$before"); HE=$1
te=$(wait_luns $HE 6 3000)
result hung-host "hung host$HD luns=$(count_luns $HD); next host$HE time=$te luns=$(count_luns $HE)"

# A broken quirk file and SIGHUP.
printf 'device "broken" {\n\tvendor = "ACME"\n\tflags = {"nolunn"}\n}\n' > /etc/scsi-scan/quirks.d/60-broken.conf
kill -HUP $PID; sleep 2
alive=no; kill -0 $PID 2>/dev/null && alive=yes
result broken-quirks "alive=$alive"

# 32 hosts in a burst.
before=$(all_hosts)
t0=$(uptime_cs)
echo 32 > $SD/add_host
burst=$(new_hosts "$before")
missing=0
for h in $burst; do [ "$(wait_luns $h 6 12000)" = -1 ] && missing=$((missing + 1)); done
t1=$(uptime_cs)
sleep 1
scans=""
for h in $burst; do scans="$scans $(grep -c "host$h: scanned" /tmp/scand.log)"; done
result burst "hosts=$(echo $burst | wc -w) missing=$missing time=$((t1 - t0)) scans=[$scans ]"

# The burst's hosts go again: the daemon forgets them and stays up.
echo -32 > $SD/add_host
udevadm settle -t 60; sleep 1
alive=no; kill -0 $PID 2>/dev/null && alive=yes
result remove-burst "alive=$alive removed=$(grep -c ': removed$' /tmp/scand.log)"

# What woke the daemon: only the events it acts on (the rule's tag), not
# the add events of the hundreds of LUNs it attached.
result events "received=$(grep -c 'event: ' /tmp/scand.log) lun-adds=$(grep -c 'event: add scsi [0-9]' /tmp/scand.log) luns=$(ls /sys/bus/scsi/devices | wc -l)"

capture_tree scsi-debug

# RSS of the daemon after all that.
result rss "$(grep VmRSS /proc/$PID/status | tr -s ' ')"

# A LUN grows (scsi_debug's virtual_gb, 8 MiB -> 1 GiB): "capacity data has
# changed" reaches the daemon through a unit attention, and it rescans.
size_of() { cat /sys/bus/scsi/devices/$1/block/*/size 2>/dev/null; }
wait_size() { # H:C:T:L size centiseconds
	t0=$(uptime_cs)
	while [ $(( $(uptime_cs) - t0 )) -lt $3 ]; do
		[ "$(size_of $1)" = "$2" ] && { echo $(( $(uptime_cs) - t0 )); return; }
		sleep 0.05
	done
	echo -1
}
L1=$HA:0:0:1; L2=$HA:0:0:2
s0=$(size_of $L1)
echo 1 > $SD/virtual_gb
sg_turs /dev/$(ls /sys/bus/scsi/devices/$L1/scsi_generic) > /dev/null 2>&1
t=$(wait_size $L1 2097152 1000)
result capacity-daemon "before=$s0 after=$(size_of $L1) time=$t"
grep 'capacity data changed' /tmp/scand.log | sed 's/^/@@C /'
# The kernel alone: the daemon stopped, the unit attention changes nothing.
kill $PID; wait $PID
echo 2 > $SD/virtual_gb
s0=$(size_of $L2)
sg_turs /dev/$(ls /sys/bus/scsi/devices/$L2/scsi_generic) > /dev/null 2>&1
udevadm settle -t 10; sleep 2
result capacity-kernel "before=$s0 after=$(size_of $L2)"
scsi-scan --resize $L2 > /tmp/resize.txt 2>&1; rc=$?
result capacity-cli "rc=$rc after=$(size_of $L2) says=[$(grep $L2 /tmp/resize.txt)]"
sed 's/^/@@L /' /tmp/scand.log | grep -v 'attached LUN' | head -120

# An event storm: 10,000 "reported LUNs data has changed" on one LUN (the
# kernel's synthetic uevents carry SDEV_UA as a real one does) while the
# daemon is stopped, its receive buffer small: the socket overflows, and
# the daemon must scan again rather than lose what the events said. udev
# is restarted in the middle of it.
# The kernel's synthetic uevents take only letters and digits in their
# variables, as SYNTH_ARG_*: a rule of the test's own gives such an event
# the SDEV_UA a unit attention has, before 60-scsi-scand.rules tags it.
printf '%s\n' 'ACTION=="change", SUBSYSTEM=="scsi", ENV{SYNTH_ARG_UA}=="luns", ENV{SDEV_UA}="REPORTED_LUNS_DATA_HAS_CHANGED"' > /etc/udev/rules.d/59-test-synthetic-ua.rules
udevadm control --reload
scsi-scand --foreground -v --event-buffer 65536 > /tmp/storm.log 2>&1 &
PID=$!
udevadm settle -t 30; sleep 2
echo 9 > $SD/max_luns
kill -STOP $PID
u=/sys/bus/scsi/devices/$HA:0:0:0/uevent
t0=$(uptime_cs)
i=0
while [ $i -lt 10000 ]; do
	echo "change 6d1e0e6c-0b4f-4d8e-9d0e-1d2c3b4a5f60 UA=luns" > $u || break
	i=$((i + 1))
	if [ $i = 5000 ]; then
		udevadm control --exit; sleep 1
		/lib/systemd/systemd-udevd --daemon
	fi
done
udevadm settle -t 600
t1=$(uptime_cs)
kill -CONT $PID
ts=$(wait_luns $HA 9 6000)
sleep 2
alive=no; kill -0 $PID 2>/dev/null && alive=yes
result storm "alive=$alive time=$ts luns=$(count_luns $HA) events=$i send_cs=$((t1 - t0)) overflow=$(grep -c 'event buffer overflowed' /tmp/storm.log) scans=$(grep -c "host$HA: scanned" /tmp/storm.log) received=$(grep -c 'event: change scsi' /tmp/storm.log)"
# After the udev restart, events still arrive: the next change is seen.
echo 10 > $SD/max_luns
sg_turs /dev/$(ls /sys/bus/scsi/devices/$HA:0:0:0/scsi_generic) > /dev/null 2>&1
sg_turs /dev/$(ls /sys/bus/scsi/devices/$HA:0:0:0/scsi_generic) > /dev/null 2>&1
ta=$(wait_luns $HA 10 3000)
result after-restart "time=$ta luns=$(count_luns $HA)"
kill $PID; wait $PID

# Killed mid-scan (SIGKILL, no cleanup of its own) and started again: the
# coldplug reaches what the scan would have, and leaves no REPORT LUNS
# well-known LUN behind.
# LUN by LUN (the policy keeps LUN 199 out, so no single kernel target
# scan attaches the rest at once), for the kill to land in the middle.
printf 'lunmask "kill test" {\n\tdriver = "scsi_debug"\n\texclude_luns = { 199 }\n}\n' > /etc/scsi-scan/quirks.d/70-kill.conf
echo 200 > $SD/max_luns
scsi-scand --foreground -v > /tmp/kill.log 2>&1 &
PID=$!
before=$(all_hosts)
echo 1 > $SD/add_host
set -- $(new_hosts "$before"); HK=$1
wait_luns $HK 20 3000 > /dev/null
kill -9 $PID; wait $PID 2>/dev/null
mid=$(count_luns $HK)
scsi-scand --foreground -v > /tmp/kill2.log 2>&1 &
PID=$!
tk=$(wait_luns $HK 199 12000)
sleep 1
wluns=$(ls /sys/bus/scsi/devices | grep -c ':49409$')
result sigkill "mid=$mid after=$(count_luns $HK) time=$tk wluns=$wluns excluded=$(ls /sys/bus/scsi/devices | grep -c "^$HK:0:0:199$") lock=$(grep -c 'lock' /tmp/kill2.log)"
kill $PID; wait $PID
grep -E 'overflow|coldplug|scanned' /tmp/storm.log | head -20 | sed 's/^/@@S /'
"""


def main():
    checks = vmlib.Checks(SERIES, "daemon")
    _, out = vmlib.run_guest(BUILD, SERIES, vmlib.BASE_MODULES,
                             vmlib.WAIT_LIB + vmlib.CAPTURE_LIB + GUEST,
                             programs=["/bin/udevadm"], what="systemd-udevd and scsi-scand")
    vmlib.save_trees(out)
    check = checks.check
    res = {m.group(1): m.group(2) for m in re.finditer(r"^@@T (\S+) (.*)$", out, re.M)}
    def field(name, key):
        m = re.search(rf"{key}=(\S+)", res.get(name, ""))
        return m.group(1) if m else None

    def cs(v):
        return int(v) * 10 if v and v.lstrip("-").isdigit() else -1

    r = res.get("coldplug", "")
    check("coldplug", "luns=4,4" in r and "=-1" not in r,
          f"hosts present before the daemon started were scanned: {r}")
    t = cs(field("hotplug-nolun", "time"))
    luns = re.search(r"luns=\[([^\]]*)\]", res.get("hotplug-nolun", ""))
    got = luns.group(1).split() if luns else []
    check("hotplug-nolun", t >= 0 and len(got) == 1 and got[0].endswith(":0:0:0"),
          f"new host scanned by itself in {t} ms after add_host; attached {got} "
          f"(CHINON CD-ROM CDS-431 is nolun: LUN 0 only, as scsi-scan attaches)")
    t = cs(field("luns-changed", "time"))
    check("luns-changed", t >= 0 and field("luns-changed", "luns") == "6",
          f"max_luns 4 -> 6 and a unit attention: new LUNs attached in {t} ms "
          f"({res.get('luns-changed')})")
    t = cs(field("hung-host", "time"))
    check("hung-host", 0 <= t <= 10000 and "next" in res.get("hung-host", ""),
          f"a host added after one whose device times out on every command was scanned in "
          f"{t} ms, bound 10000 ms ({res.get('hung-host')})")
    check("broken-quirks", field("broken-quirks", "alive") == "yes" and
          "60-broken.conf:3: unknown flag 'nolunn'" in out,
          "SIGHUP with a broken file: still running, logged 60-broken.conf:3")
    scans = re.search(r"scans=\[([^\]]*)\]", res.get("burst", ""))
    counts = scans.group(1).split() if scans else []
    check("burst", field("burst", "hosts") == "32" and field("burst", "missing") == "0" and
          counts == ["1"] * 32,
          f"32 hosts added at once: all scanned, one scan each, in "
          f"{cs(field('burst', 'time'))} ms ({res.get('burst', '')[:60]})")
    check("remove-burst", field("remove-burst", "alive") == "yes" and
          int(field("remove-burst", "removed") or 0) >= 32,
          f"32 hosts removed at once: {res.get('remove-burst')}")
    received = int(field("events", "received") or -1)
    check("events", 0 < received <= 120 and field("events", "lun-adds") == "0",
          f"events the daemon received: {res.get('events')} (the rule tags hosts, "
          f"transport targets and unit attentions; about 70 of those happen here)")
    cap = res.get("capacity-daemon", "")
    t = cs(field("capacity-daemon", "time"))
    check("capacity-daemon", t >= 0 and field("capacity-daemon", "after") == "2097152" and
          re.search(r"^@@C .*:0:0:1: capacity data changed: sd\w+ resized from 16384 to "
                    r"2097152 sectors \(8\.00 MiB to 1\.00 GiB\)", out, re.M),
          f"virtual_gb 1 and a unit attention: the daemon had the kernel read the capacity "
          f"again in {t} ms ({cap})")
    k = res.get("capacity-kernel", "")
    check("capacity-kernel", field("capacity-kernel", "before") ==
          field("capacity-kernel", "after") == "16384",
          f"virtual_gb 2, daemon stopped: the kernel alone keeps the old size ({k})")
    c = res.get("capacity-cli", "")
    check("capacity-cli", field("capacity-cli", "rc") == "0" and
          field("capacity-cli", "after") == "4194304" and
          "resized: 16384 -> 4194304 sectors (8.00 MiB -> 2.00 GiB)" in c,
          f"scsi-scan --resize: {c}")
    st = res.get("storm", "")
    check("event-storm", field("storm", "alive") == "yes" and field("storm", "luns") == "9" and
          cs(field("storm", "time")) >= 0 and field("storm", "events") == "10000",
          f"10,000 synthetic 'reported LUNs data has changed' events while the daemon was "
          f"stopped with a 64 KiB buffer, udev restarted half-way: alive, the new LUNs "
          f"attached ({st})")
    check("event-overflow", int(field("storm", "overflow") or 0) >= 1,
          f"the buffer overflowed and the daemon said so and scanned every host again ({st})")
    ar = res.get("after-restart", "")
    check("udev-restart", field("after-restart", "luns") == "10" and
          cs(field("after-restart", "time")) >= 0,
          f"after udev's restart a real unit attention is still acted on ({ar})")
    k = res.get("sigkill", "")
    check("sigkill-restart", field("sigkill", "after") == "199" and
          field("sigkill", "excluded") == "0" and
          field("sigkill", "wluns") == "0" and cs(field("sigkill", "time")) >= 0 and
          int(field("sigkill", "mid") or 0) < 199,
          f"killed with SIGKILL in the middle of a scan of 200 LUNs (one kept out by the "
          f"policy) and started again: the coldplug attached the 199 the policy allows, "
          f"not LUN 199, no well-known LUN left ({k})")
    print(f"       daemon {res.get('rss', '?')}")
    return checks.finish(out, tail=200)


if __name__ == "__main__":
    vmlib.main_guard(main)
