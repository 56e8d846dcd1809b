#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Nothing lost: on the real kernel, LUNs that disappear from REPORT LUNS
while a system holds them are never deleted by 'scsi-scand --remove' (on
the change event) or 'scsi-scan --remove', both run with the capability
bounding set of the shipped unit; once released, they are.

Nine scsi_debug hosts, each with its own store (per_host_store=1) and LUNs
0-3; max_luns then drops to 3, so LUN 3 of every host is no longer
reported. LUN 3 of each host is held one way:

  h0 ext2 mounted          h1 device-mapper linear   h2 open by uid 65534
  h3 active swap           h4 btrfs, mounted device  h5 btrfs, second device
  h6 mounted only in another mount namespace
  h7 ext4 external journal (of a file system on h8's LUN 1)
  h8 nothing: removed at once, in the same runs

usage: test-inuse.py BUILD_DIR KERNEL_SERIES
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]

# The unit's CapabilityBoundingSet=, and the one before CAP_DAC_READ_SEARCH.
UNIT_CAPS = "/usr/bin/setpriv --bounding-set=-all,+sys_ptrace,+dac_read_search"
OLD_CAPS = "/usr/bin/setpriv --bounding-set=-all,+sys_ptrace"

GUEST = r"""
SD=/sys/bus/pseudo/drivers/scsi_debug
insmod /lib/test-modules/scsi_debug.ko add_host=9 per_host_store=1 delay=0 max_luns=4 scsi_level=5 dev_size_mb=32
set -- $(for h in /sys/class/scsi_host/host*; do echo ${h##*/host}; done | sort -n | tail -9)
H0=$1 H1=$2 H2=$3 H3=$4 H4=$5 H5=$6 H6=$7 H7=$8 H8=$9
echo "@@H $*"
scsi-scan > /dev/null
blk() { ls /sys/bus/scsi/devices/$1:0:0:$2/block; }
mkdir -p /mnt/a /mnt/b /mnt/ns /mnt/j
d=$(blk $H0 3); mke2fs -q /dev/$d && mount -t ext2 /dev/$d /mnt/a && echo "@@I h0 mounted /dev/$d"
d=$(blk $H1 3); DM_DISABLE_UDEV=1 dmsetup create --noudevsync lin --table "0 $(cat /sys/class/block/$d/size) linear /dev/$d 0" && echo "@@I h1 dm on /dev/$d"
d=$(blk $H2 3); /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 < /dev/$d &
HOLDER=$!; sleep 0.5; echo "@@I h2 /dev/$d open by $HOLDER uid $(awk '/^Uid:/ {print $2}' /proc/$HOLDER/status)"
d=$(blk $H3 3); mkswap /dev/$d > /dev/null && swapon /dev/$d && echo "@@I h3 swap on /dev/$d"
b1=$(blk $H4 3); b2=$(blk $H5 3)
/usr/sbin/mkfs.btrfs -q -f -M /dev/$b1 /dev/$b2 > /dev/null && mount -t btrfs -o device=/dev/$b2 /dev/$b1 /mnt/b && echo "@@I h4 h5 btrfs on /dev/$b1 /dev/$b2"
d=$(blk $H6 3); mke2fs -q /dev/$d
unshare -m sh -c "mount -t ext2 /dev/$d /mnt/ns && echo ready > /tmp/ns-ready && exec sleep 600" &
NSPROC=$!
n=0; while [ ! -e /tmp/ns-ready ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
grep -q " /mnt/ns " /proc/self/mountinfo || echo "@@I h6 /dev/$d mounted in another namespace only"
j=$(blk $H7 3); f=$(blk $H8 1)
/usr/sbin/mke2fs -q -F -O journal_dev -b 4096 /dev/$j && /usr/sbin/mke2fs -q -F -t ext4 -b 4096 -J device=/dev/$j /dev/$f && mount -t ext4 /dev/$f /mnt/j && echo "@@I h7 journal /dev/$j of /dev/$f"
# The targets now report LUNs 0-2 only; a command to LUN 0 draws the unit
# attention, the kernel sends the change event to the daemon.
mkdir -p /run/udev /lib/systemd
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
@UNIT_CAPS@ scsi-scand --foreground --remove > /tmp/scand.log 2>&1 &
DPID=$!
sleep 2
echo 3 > $SD/max_luns
for h in $H0 $H1 $H2 $H3 $H4 $H5 $H6 $H7 $H8; do
	sg=$(ls /sys/bus/scsi/devices/$h:0:0:0/scsi_generic)
	sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
done
n=0; while [ "$(grep -c ': in-use' /tmp/scand.log)" -lt 8 ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
grep -E ": in-use|: removed" /tmp/scand.log | sed 's/^/@@D /'
echo "@@R daemon present=$(ls /sys/bus/scsi/devices | grep -c ':0:0:3$')"
kill $DPID; wait $DPID
# With the capabilities the unit had before: another user's open files
# cannot be read, which must count as in use.
@OLD_CAPS@ scsi-scan --remove --dry-run --json > /tmp/old.json 2>&1
echo "@@J0 $(tr -d '\n' < /tmp/old.json)"
@UNIT_CAPS@ scsi-scan --remove --json > /tmp/remove.json 2>&1
echo "@@R first rc=$? present=$(ls /sys/bus/scsi/devices | grep -c ':0:0:3$')"
echo "@@J1 $(tr -d '\n' < /tmp/remove.json)"
# Released: now they go.
umount /mnt/a
DM_DISABLE_UDEV=1 dmsetup remove --noudevsync lin
kill $HOLDER $NSPROC; wait $HOLDER $NSPROC 2>/dev/null
swapoff /dev/$(blk $H3 3)
umount /mnt/b /mnt/j
sleep 1
@UNIT_CAPS@ scsi-scan --remove --json > /tmp/remove2.json 2>&1
echo "@@R second rc=$? present=$(ls /sys/bus/scsi/devices | grep -c ':0:0:3$')"
echo "@@J2 $(tr -d '\n' < /tmp/remove2.json)"
""".replace("@UNIT_CAPS@", UNIT_CAPS).replace("@OLD_CAPS@", OLD_CAPS)

# What each held host's LUN 3 must be kept for.
EXPECT = [
    ("h0 mounted", "is mounted on /mnt/a (ext2)"),
    ("h1 device-mapper", "is held by dm-0"),
    ("h2 open by another user", "is open by pid"),
    ("h3 swap", "holds the active swap area"),
    ("h4 btrfs mounted", "is mounted on /mnt/b (btrfs)"),
    ("h5 btrfs second device", "is a device of the btrfs file system"),
    ("h6 other mount namespace", "in the mount namespace of pid"),
    ("h7 ext4 journal device", "is claimed exclusively by the kernel"),
]


def lun3(out, tag, hosts):
    """LUN 3's (outcome, reason) per host from the JSON printed after @tag."""
    m = re.search(rf"^{tag} (.*)$", out, re.M)
    res = {}
    try:
        report = json.loads(m.group(1)) if m else {}
    except ValueError:
        return res
    for h in report.get("hosts", []):
        for t in h.get("targets", []):
            for lu in t.get("luns", []):
                if lu["lun"] == 3 and h["host"] in hosts:
                    res[hosts.index(h["host"])] = (lu["outcome"], lu.get("reason") or "")
    return res


def main():
    checks = vmlib.Checks(SERIES, "in-use")
    _, out = vmlib.run_guest(BUILD, SERIES,
                             vmlib.BASE_MODULES + ["crc32c_generic", "ext4", "dm_mod",
                                                   "btrfs"], GUEST,
                             programs=["/usr/sbin/dmsetup", "/bin/udevadm", "/usr/bin/setpriv",
                                       "/usr/sbin/mkfs.btrfs", "/usr/sbin/mke2fs"],
                             what="LUNs held nine ways", timeout=900)
    check = checks.check
    hm = re.search(r"^@@H ([\d ]+)$", out, re.M)
    hosts = [int(x) for x in hm.group(1).split()] if hm else []
    setup = re.findall(r"^@@I (.*)$", out, re.M)
    check("setup", len(setup) == 7 and "uid 65534" in " ".join(setup), "; ".join(setup))
    first, second = lun3(out, "@@J1", hosts), lun3(out, "@@J2", hosts)
    for i, (name, why) in enumerate(EXPECT):
        outcome, reason = first.get(i, ("missing", ""))
        check(name, outcome == "in-use" and why in reason, f"{outcome}: {reason}", width=26)
    old = lun3(out, "@@J0", hosts).get(2, ("missing", ""))
    check("without DAC_READ_SEARCH", old[0] == "in-use" and "cannot read the open files" in old[1],
          f"h2 under the old bounding set: {old[0]}: {old[1]}", width=26)
    daemon = re.findall(r"^@@D (.*)$", out, re.M)
    kept = [d for d in daemon if ": in-use" in d]
    removed = [d for d in daemon if ": removed" in d]
    rd = re.search(r"@@R daemon present=(\d+)", out)
    free = f"{hosts[8]}:0:0:3" if len(hosts) == 9 else "?"
    check("daemon keeps them", len(kept) == 8 and len(removed) == 1 and free in removed[0] and rd and
          rd.group(1) == "8", f"scsi-scand --remove on the change events: {len(kept)} kept in "
          f"use, {len(removed)} removed, {rd.group(1) if rd else '?'} of 9 LUN 3s attached",
          width=26)
    r1 = re.search(r"@@R first rc=(\d+) present=(\d+)", out)
    check("nothing in use deleted", r1 and r1.group(2) == "8",
          f"LUN 3s still attached: {r1.group(2) if r1 else '?'} of 8 held", width=26)
    r2 = re.search(r"@@R second rc=(\d+) present=(\d+)", out)
    check("released, removed", r2 and r2.group(2) == "0" and
          all(second.get(i, ("",))[0] == "removed" for i in range(8)),
          f"after every holder let go: {sorted((i, o) for i, (o, _) in second.items())}",
          width=26)
    return checks.finish(out)


if __name__ == "__main__":
    vmlib.main_guard(main)
