#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A volume on two paths, attached and detached: scsi-scan against the
same steps done by hand with the kernel's scan file, os-brick's way.

The guest of tests/vm/test-transports.py (an LIO target and open-iscsi,
node.session.scan = manual) with multipathd running (find_multipaths yes):
target t9 through two portals (two sessions), LUNs 0, 1 and 2; the volume is
LUN 2. Per round, order alternating, in the same boot:

  by hand (os-brick's iSCSI connector): "0 0 2" written to each session's
  host's scan file; wait for both block devices and for the multipath map
  that holds them. Detach: multipath -f the map, then for each path
  blockdev --flushbufs and a write of 1 to its delete file; wait for both
  to go.
  scsi-scan: scsi-scan --iscsi-target t9 --lun 2 (which waits for the
  block devices and the map itself). Detach: scsi-scan detach
  --iscsi-target t9 --lun 2 (in-use checks, the hold-out, multipath -f,
  the deletes); its release for the next round is not timed.

Prints the medians with min-max and the interquartile range of the
per-round ratios.

usage: vm-bench-volume.py BUILD_DIR [KERNEL_SERIES] [--rounds N]
"""

import glob
import os
import re
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

BUILD, SERIES, ROUNDS = vmlib.bench_args(5)

transports = vmlib.load_transports(BUILD, SERIES)
# The target helpers and iscsid, without the test's targets and logins.
SETUP = transports.SCRIPT.split("mkdir -p $C/iscsi/$T1/tpgt_1")[0]
LOGIN = re.search(r"^login\(\) \{.*?^\}\n", transports.SCRIPT, re.M | re.S).group(0)

ROUNDS_SCRIPT = LOGIN + r"""
echo "root:x:0:0:root:/root:/bin/sh" > /etc/passwd
mkdir -p /etc/iscsi /run/lock/iscsi /var/lock /var/lib/iscsi /etc/multipath /run/udev
echo "InitiatorName=$INIT" > /etc/iscsi/initiatorname.iscsi
printf 'node.startup = manual\nnode.session.scan = manual\n' > /etc/iscsi/iscsid.conf
iscsid
mkdir -p /etc/udev/rules.d /lib/systemd
cp /etc/test-udev/*.rules /etc/udev/rules.d/
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
multipathd -d -s -v2 > /tmp/mpd.log 2>&1 &
i=0; while [ $i -lt 100 ] && ! [ -s /run/multipathd.pid ]; do sleep 0.1; i=$((i + 1)); done
[ -s /run/multipathd.pid ] || { echo "@@NO-MULTIPATHD"; sed 's/^/@@MPL /' /tmp/mpd.log | head -40; }
T9=iqn.2003-01.org.linux-iscsi.test:t9
mkdir -p $C/iscsi/$T9/tpgt_1
for l in 0 1 2; do lun $T9 $l $(backstore_rd v$l); done
target $T9
iscsiadm -m discovery -t st -p 127.0.0.1 >/dev/null 2>&1
iscsiadm -m discovery -t st -p 127.0.0.2 >/dev/null 2>&1
a=$(login $T9 127.0.0.1); b=$(login $T9 127.0.0.2)
udevadm settle -t 10
now() { monotonic; }
blk() { ls /sys/bus/scsi/devices/$1:0:0:2/block 2>/dev/null; }
holder() { ls /sys/class/block/$1/holders 2>/dev/null; }
mapped() { # both paths have a block device, held by one map
	pa=$(blk $a); pb=$(blk $b)
	[ -n "$pa" ] && [ -n "$pb" ] && [ -n "$(holder $pa)" ] && [ "$(holder $pa)" = "$(holder $pb)" ]
}
state() { echo "paths=$(blk $a),$(blk $b) map=$(holder $(blk $a))"; }
by_hand_attach() {
	echo "0 0 2" > /sys/class/scsi_host/host$a/scan
	echo "0 0 2" > /sys/class/scsi_host/host$b/scan
	i=0; while [ $i -lt 600 ] && ! mapped; do sleep 0.05; i=$((i + 1)); done
}
by_hand_detach() {
	pa=$(blk $a); pb=$(blk $b); dm=$(holder $pa)
	multipath -f $(cat /sys/class/block/$dm/dm/name) > /dev/null 2>&1
	for p in $pa $pb; do
		blockdev --flushbufs /dev/$p
		echo 1 > /sys/class/block/$p/device/delete
	done
	i=0; while [ $i -lt 600 ] && { [ -e /sys/bus/scsi/devices/$a:0:0:2 ] ||
		[ -e /sys/bus/scsi/devices/$b:0:0:2 ]; }; do sleep 0.05; i=$((i + 1)); done
}
ours_attach() { scsi-scan --iscsi-target $T9 --lun 2 > /tmp/o.out 2>&1 || cat /tmp/o.out; }
ours_detach() { scsi-scan detach --iscsi-target $T9 --lun 2 > /tmp/o.out 2>&1 || cat /tmp/o.out; }
# the helpers' loops count with $i: the rounds with $round
round=0
while [ $round -lt $ROUNDS ]; do
	for who in hand ours; do
		[ $((round % 2)) = 1 ] && who=$([ $who = hand ] && echo ours || echo hand)
		[ $who = ours ] && scsi-scan release --iscsi-target $T9 --lun 2 > /dev/null 2>&1
		t0=$(now)
		if [ $who = hand ]; then by_hand_attach; else ours_attach; fi
		t1=$(now); s1=$(state)
		if [ $who = hand ]; then by_hand_detach; else ours_detach; fi
		t2=$(now)
		echo "@@V round=$round who=$who attach_us=$((t1 - t0)) detach_us=$((t2 - t1)) $s1 after=$(ls -d /sys/bus/scsi/devices/$a:0:0:2 /sys/bus/scsi/devices/$b:0:0:2 2>/dev/null | wc -l)"
	done
	round=$((round + 1))
done
tail -40 /tmp/mpd.log | sed 's/^/@@MPL /'
"""


def quartiles(v):
    if len(v) < 2:
        return v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[2]


def main():
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_bench(BUILD, staging)
        initrd = os.path.join(tmp, "initrd.cpio")
        # dm-multipath's "1 alua" handler for LIO, loaded when asked for
        on_demand = [m for m in vmlib.module_order(moddir, ["scsi_dh_alua"])
                     if m[0] == "scsi_dh_alua"]
        vmlib.build_initramfs(
            initrd, staging, vmlib.module_order(moddir, transports.MODULES),
            vmlib.INIT_HEAD + vmlib.COMPARE_LIB + vmlib.WAIT_LIB + f"ROUNDS={ROUNDS}\n" +
            SETUP + ROUNDS_SCRIPT + vmlib.INIT_TAIL,
            {"/etc/multipath.conf": transports.MULTIPATH_CONF,
             **transports.multipath_udev_rules()},
            programs=["/sbin/iscsid", "/sbin/iscsiadm", "/bin/udevadm", "/sbin/dmsetup",
                      "/lib/udev/scsi_id", "/sbin/multipathd", "/sbin/multipath",
                      "/sbin/blockdev", *glob.glob("/lib/multipath/*.so"),
                      "/lib/x86_64-linux-gnu/libgcc_s.so.1"],
            on_demand=on_demand)
        vmlib.log(f"boot {release}: LIO + open-iscsi + multipathd, {ROUNDS} rounds")
        out = vmlib.boot(vmlinuz, initrd, timeout=1800, memory=1024, smp=2)
    rows = [dict(kv.split("=", 1) for kv in m.group(1).split())
            for m in re.finditer(r"^@@V (.*)$", out, re.M)]
    bad = [r for r in rows if not r.get("map") or "," not in r.get("paths", ",")
           or r["paths"].startswith(",") or r["paths"].endswith(",") or r.get("after") != "0"]
    print(f"\nLinux {release}, QEMU TCG, iSCSI on 127.0.0.1/127.0.0.2 (two sessions), "
          f"multipathd, {ROUNDS} rounds, order alternating, same boot\n")
    if not rows or bad:
        print("\n".join(line for line in out.splitlines() if line.startswith("@@MPL")))
        print("rounds that did not reach both paths and the map, or left a path behind:")
        for r in bad or [{"none": "no result from the guest"}]:
            print("  ", r)
        print("\n".join(line for line in out.splitlines()[-40:]))
        return 1
    print(f"| {'operation':8} | {'by hand ms (min-max)':22} | {'scsi-scan ms (min-max)':22} "
          f"| ratio | ratio IQR   |")
    print(f"|{'-' * 10}|{'-' * 24}|{'-' * 24}|-------|-------------|")
    for op in ("attach", "detach"):
        hand = [int(r[f"{op}_us"]) / 1000 for r in rows if r["who"] == "hand"]
        ours = [int(r[f"{op}_us"]) / 1000 for r in rows if r["who"] == "ours"]
        hm, om = statistics.median(hand), statistics.median(ours)
        q1, q3 = quartiles([o / h for h, o in zip(hand, ours)])
        ht = f"{hm:.0f} ({min(hand):.0f}-{max(hand):.0f})"
        ot = f"{om:.0f} ({min(ours):.0f}-{max(ours):.0f})"
        print(f"| {op:8} | {ht:22} | {ot:22} | {om / hm:5.2f} | {q1:.2f}-{q3:.2f}   |")
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
