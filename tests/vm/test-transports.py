#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scsi-scan on hosts with a SCSI transport, against the kernel's own scan in
the same guest.

One boot per kernel carries:
- iSCSI: an LIO target inside the guest (configfs by hand) and open-iscsi
  (iscsid, iscsiadm, node.session.scan = manual) logged in twice to each of
  three targets, through 127.0.0.1 and 127.0.0.2: the kernel scans the
  sessions of one portal ("- - -"), scsi-scan those of the other. Target 1
  has LUNs 0, 2, 5; target 2 LUNs 1, 4 and no LUN 0; target 3 (a fileio
  backstore) LUNs 0, 1, 3 with a local quirk max_lun = 1. Then LUN 7 is
  mapped on target 1 while both sessions run (REPORTED LUNS DATA HAS
  CHANGED) and both sides scan again.
- SPI: two QEMU lsi53c895a controllers (sym53c8xx, SPI transport class) with
  disks at targets 0, 2 and 5 (QEMU's lsi takes LUN 0 only).
- SAS: two QEMU mptsas1068 controllers (Debian's mptsas, SAS transport
  class): end devices at targets 0 (LUNs 0, 1), 2 (LUN 0) and 3 (LUN 1
  only). QEMU gives an end device the SAS address of its disk's wwn=
  property (without one it is 0, and mptsas registers no end device).
  Then LUN masking by SAS address on scsi-scan's controller.

usage: test-transports.py BUILD_DIR KERNEL_SERIES   (6.1 or 6.12)
"""

import glob
import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1:3]

MODULES = vmlib.BASE_MODULES + ["configfs", "crc32c_generic", "libcrc32c", "target_core_mod",
                                "target_core_file", "target_core_iblock", "iscsi_target_mod",
                                "iscsi_tcp", "sym53c8xx", "mptsas", "brd", "dm_mod",
                                "dm_multipath", "dm_round_robin", "ext4"]

# multipathd in the guest: Debian's own defaults but find_multipaths yes
# (a map once two paths share a wwid), round-robin (no dm_service_time),
# and no foreign (NVMe) library.
MULTIPATH_CONF = """defaults {
	find_multipaths yes
	user_friendly_names yes
	path_selector "round-robin 0"
	enable_foreign "^$"
}
"""



def multipath_udev_rules():
    """The machine's udev rules that multipathd relies on, for /etc/test-udev:
    the paths' ID_SERIAL (persistent-storage), and device-mapper's own
    (DM_ACTIVATION on a new map, which multipathd waits for, and the
    cookies libdevmapper waits for)."""
    rules = {}
    for name in ("60-persistent-storage.rules", "55-dm.rules", "95-dm-notify.rules"):
        with open(os.path.join("/lib/udev/rules.d", name)) as f:
            rules[f"/etc/test-udev/{name}"] = f.read()
    return rules


# The kernel's synthetic uevents take only letters and digits as SYNTH_ARG_*
# variables: this rule gives one the SDEV_UA a real capacity change carries.
CAPACITY_UA_RULE = ('ACTION=="change", SUBSYSTEM=="scsi", ENV{SYNTH_ARG_UA}=="capacity", '
                    'ENV{SDEV_UA}="CAPACITY_DATA_HAS_CHANGED"\n')

QUIRKS = """# SPDX-License-Identifier: GPL-2.0-or-later
device "lio-fileio" {
	vendor = "LIO-ORG"
	model = "FILEIO"
	max_lun = 1
	reason = "VM test: only LUNs 0-1 of the fileio target are ours"
}
"""

SCRIPT = r"""
ip link set lo up
ip addr add 127.0.0.2/8 dev lo 2>/dev/null
mount -t configfs configfs /sys/kernel/config
C=/sys/kernel/config/target
INIT=iqn.2026-12.org.example.scsi-scan:guest
T1=iqn.2003-01.org.linux-iscsi.test:t1
T2=iqn.2003-01.org.linux-iscsi.test:t2
T3=iqn.2003-01.org.linux-iscsi.test:t3
# A unit serial, as targetcli sets one: without it LIO lists no VPD page
# (and so no device identification, which the alua handler needs).
serial() { echo "scsi-scan-test-$2" > $1/wwn/vpd_unit_serial; echo $1; }
backstore_rd() { mkdir -p $C/core/rd_mcp_0/$1; echo rd_pages=64 > $C/core/rd_mcp_0/$1/control
	echo 1 > $C/core/rd_mcp_0/$1/enable; serial $C/core/rd_mcp_0/$1 $1; }
backstore_file() { mkdir -p $C/core/fileio_1/$1
	echo fd_dev_name=/tmp/$1.img,fd_dev_size=4194304 > $C/core/fileio_1/$1/control
	echo 1 > $C/core/fileio_1/$1/enable; serial $C/core/fileio_1/$1 $1; }
lun() { # target lun backstore-dir
	mkdir -p $C/iscsi/$1/tpgt_1/lun/lun_$2 $C/iscsi/$1/tpgt_1/acls/$INIT/lun_$2
	ln -s $3 $C/iscsi/$1/tpgt_1/lun/lun_$2/port
	ln -s $C/iscsi/$1/tpgt_1/lun/lun_$2 $C/iscsi/$1/tpgt_1/acls/$INIT/lun_$2/map
}
target() {
	mkdir -p $C/iscsi/$1/tpgt_1/np/127.0.0.1:3260 $C/iscsi/$1/tpgt_1/np/127.0.0.2:3260
	echo 0 > $C/iscsi/$1/tpgt_1/attrib/authentication
	echo 1 > $C/iscsi/$1/tpgt_1/enable
}
mkdir -p $C/iscsi/$T1/tpgt_1 $C/iscsi/$T2/tpgt_1 $C/iscsi/$T3/tpgt_1
for l in 0 2 5; do lun $T1 $l $(backstore_rd a$l); done
for l in 1 4; do lun $T2 $l $(backstore_rd b$l); done
for l in 0 1 3; do lun $T3 $l $(backstore_file c$l); done
target $T1; target $T2; target $T3
echo "root:x:0:0:root:/root:/bin/sh" > /etc/passwd
mkdir -p /etc/iscsi /run/lock/iscsi /var/lock /var/lib/iscsi
echo "InitiatorName=$INIT" > /etc/iscsi/initiatorname.iscsi
printf 'node.startup = manual\nnode.session.scan = manual\n' > /etc/iscsi/iscsid.conf
iscsid
iscsiadm -m discovery -t st -p 127.0.0.1 >/dev/null 2>&1
iscsiadm -m discovery -t st -p 127.0.0.2 >/dev/null 2>&1
login() { # target portal -> the new host's number
	before=$(all_hosts)
	iscsiadm -m node -T $1 -p $2 --login >/dev/null 2>&1 || echo "@@LOGIN-FAILED $1 $2"
	set -- $(new_hosts "$before"); echo $1
}
for t in 1 2 3; do
	eval k$t=\$\(login \$T$t 127.0.0.1\)
	eval o$t=\$\(login \$T$t 127.0.0.2\)
done
echo "@@HOSTS k1=$k1 o1=$o1 k2=$k2 o2=$o2 k3=$k3 o3=$o3"
for h in $k1 $o1; do echo "0 9 0" > /sys/class/scsi_host/host$h/scan && echo "@@ANY-ID-ACCEPTED $h"; done
compare iscsi-sparse-luns $k1 $o1
# LIO reports target port groups: its LUNs want the alua handler, which the
# kernel attaches at add time only if scsi_dh_alua is loaded (it is not:
# only the kernel's request_module() can load it here). scsi-scan writes it
# to dh_state.
dh() { for d in /sys/bus/scsi/devices/$1:*; do cat $d/dh_state; done | sort | uniq -c | tr -s ' \n' ' '; }
echo "@@DH scan kernel=[$(dh $k1)] ours=[$(dh $o1)] module=$(grep -c '^scsi_dh_alua ' /proc/modules)"
compare iscsi-no-lun-0 $k2 $o2
compare iscsi-fileio-quirk $k3 $o3
scsi-scan explain $o2:0:0 2>&1 | sed 's/^/@@X /'
# A LUN mapped while the sessions run: the next command to the target gets
# REPORTED LUNS DATA HAS CHANGED
lun $T1 7 $(backstore_rd a7)
compare iscsi-lun-mapped-at-run-time $k1 $o1
set -- $(for h in /sys/class/scsi_host/host*; do
	[ "$(cat $h/proc_name)" = sym53c8xx ] && echo ${h##*/host}; done | sort -n)
compare spi-lsi53c895a $1 $2

# LUN masking by IQN: the LUNs of the other portal's sessions are deleted
# and scanned again with a lunmask policy; the kernel's log shows every LUN
# the midlayer attached during the run, even for a moment.
masked() { # name host policy-file
	for d in /sys/bus/scsi/devices/$2:*; do [ -e "$d" ] && echo 1 > $d/delete; done
	dmesg -c > /dev/null
	t1=$(uptime_cs)
	scsi-scan -v --quirks-file $3 host$2 > /tmp/out.txt 2>&1; rc=$?
	t2=$(uptime_cs)
	seen=$(dmesg | sed -n "s/.*scsi $2:\([0-9]*:[0-9]*:[0-9]*\): .*/\1/p" | sort -u |
		tr '\n' ',' | sed 's/,$//')
	echo "@@M $1 rc=$rc ours=[$(luns_of_host $2)] seen=[$seen] ocs=$((t2-t1))"
	sed 's/^/@@L /' /tmp/out.txt | head -20
}
masked lunmask-iqn-luns $o1 /etc/lunmask-t1.conf
masked lunmask-iqn-no-lun-0 $o2 /etc/lunmask-t2.conf
masked lunmask-iqn-exclude $o3 /etc/lunmask-t3.conf
# explain of a target with nothing attached ("why is my new LUN not
# there?"): read through LUN 0 attached for the look and deleted again;
# then the policy's LUNs back, as the masked run left them.
for d in /sys/bus/scsi/devices/$o3:*; do [ -e "$d" ] && echo 1 > $d/delete; done
dmesg -c > /dev/null
scsi-scan explain $o3:0:0 > /tmp/xe.out 2>&1; rc=$?
seen=$(dmesg | sed -n "s/.*scsi $o3:\([0-9]*:[0-9]*:[0-9]*\): .*/\1/p" | sort -u |
	tr '\n' ',' | sed 's/,$//')
echo "@@XE rc=$rc after=[$(luns_of_host $o3)] seen=[$seen]"
sed 's/^/@@XEL /' /tmp/xe.out | head -30
scsi-scan --quirks-file /etc/lunmask-t3.conf host$o3 > /dev/null 2>&1
# A LUN remapped: another backstore behind T1's LUN 5, attached on both
# portals' hosts. The kernel's own rescan keeps the old unit; scsi-scan
# deletes it and attaches it again; held open, it is kept and said so.
remap() { # target lun backstore-dir
	rm $C/iscsi/$1/tpgt_1/acls/$INIT/lun_$2/map
	rmdir $C/iscsi/$1/tpgt_1/acls/$INIT/lun_$2
	rm $C/iscsi/$1/tpgt_1/lun/lun_$2/port
	rmdir $C/iscsi/$1/tpgt_1/lun/lun_$2
	lun $1 $2 $3
}
wwid_of() { cat /sys/bus/scsi/devices/$1/wwid 2>/dev/null; }
w0=$(wwid_of $o1:0:0:5)
remap $T1 5 $(backstore_rd a5b)
echo "- - -" > /sys/class/scsi_host/host$k1/scan
echo "@@RM kernel before=$w0 after=$(wwid_of $k1:0:0:5)"
scsi-scan -n $k1:0:0 2>&1 | grep 'LUN 5 ' | sed 's/^/@@RMK /'
scsi-scan -v --quirks-file /etc/lunmask-t1.conf host$o1 > /tmp/rm.out 2>&1; rc=$?
echo "@@RM ours rc=$rc before=$w0 after=$(wwid_of $o1:0:0:5) luns=[$(luns_of_host $o1)]"
grep 'LUN 5 ' /tmp/rm.out | sed 's/^/@@RML /'
w1=$(wwid_of $o1:0:0:5)
blk=$(ls /sys/bus/scsi/devices/$o1:0:0:5/block 2>/dev/null)
sleep 600 < /dev/$blk &
HOLD=$!
remap $T1 5 $(backstore_rd a5c)
scsi-scan -v --quirks-file /etc/lunmask-t1.conf host$o1 > /tmp/rm.out 2>&1; rc=$?
echo "@@RM held rc=$rc before=$w1 after=$(wwid_of $o1:0:0:5) dev=$blk"
grep 'LUN 5 ' /tmp/rm.out | sed 's/^/@@RMH /'
kill $HOLD; wait $HOLD 2>/dev/null
scsi-scan explain --quirks-file /etc/lunmask-t1.conf $o1:0:0 2>&1 | sed 's/^/@@XM /'
# sg3_utils' rescan-scsi-bus.sh -u, "look for existing disks that have been
# remapped", on the kernel's host, whose LUN 5 still has the first unit's wwid
w0=$(wwid_of $k1:0:0:5)
t0=$(uptime_cs)
timeout 300 rescan-scsi-bus.sh -u --hosts=$k1 > /tmp/rsb.out 2>&1; rc=$?
echo "@@RSB remap rc=$rc cs=$(( $(uptime_cs) - t0 )) before=$w0 after=$(wwid_of $k1:0:0:5) luns=[$(luns_of_host $k1)]"
tail -3 /tmp/rsb.out | sed 's/^/@@RSBL /'

# SAS: mptsas registers the end devices when it loads.
i=0; while [ $i -lt 100 ] && [ $(ls /sys/class/sas_end_device 2>/dev/null | wc -l) -lt 6 ]; do
	sleep 0.1; i=$((i + 1)); done
set -- $(for h in /sys/class/scsi_host/host*; do
	[ "$(cat $h/proc_name)" = mptsas ] && echo ${h##*/host}; done | sort -n)
SK=$1; SO=$2
echo "@@SAS hosts=$SK,$SO end_devices=$(ls /sys/class/sas_end_device | wc -l) address=$(cat /sys/class/sas_device/end_device-$SO:*/sas_address | tr '\n' ',')"
compare sas-mptsas1068 $SK $SO
capture_tree iscsi-spi-sas
identity_oracle iscsi-spi-sas
masked lunmask-sas-address $SO /etc/lunmask-sas.conf
# dracut's spelling, as the boot scripts turn it into the boot's policy: one
# LUN in hex of one end device, every LUN of another.
scsi-quirks import --cmdline "ro rd.lunmask=sas,0x5000c500a1b20100,0x1 rd.lunmask=sas,0x5000c500a1b20120 quiet" > /tmp/rd-lunmask.conf
masked rd-lunmask-sas $SO /tmp/rd-lunmask.conf
scsi-quirks --quirks-dir /etc/scsi-scan/quirks.d --quirks-dir /etc/sasq query --sas-address 0x5000c500a1b20100 --lun 0 2>&1 | sed 's/^/@@QS /'

# A volume by stable address on two paths: t7 through both portals (two
# sessions), LUNs 0, 1 and 6; LUN 6 an iblock backstore on a dm-linear
# device over /dev/ram0, so that it can grow. The multipath map is made with
# dmsetup as multipathd would make it (the guest has no multipathd).
export DM_DISABLE_UDEV=1
# growable NAME RAMDEV HBA SERIAL: an iblock backstore on a dm-linear device
# of 2048 sectors over RAMDEV (the test's own: no udev, bounded), which can
# grow; prints its configfs directory.
growable() {
	DM_DISABLE_UDEV=1 timeout 60 dmsetup create $1 --table "0 2048 linear $2 0"
	mkdir -p $C/core/$3/$1
	echo udev_path=/dev/mapper/$1 > $C/core/$3/$1/control
	echo 1 > $C/core/$3/$1/enable
	serial $C/core/$3/$1 $4 > /dev/null
	echo $C/core/$3/$1
}
# both_portals T: T discovered and logged in through both portals; prints
# the two sessions' hosts.
both_portals() {
	target $1
	iscsiadm -m discovery -t st -p 127.0.0.1 >/dev/null 2>&1
	iscsiadm -m discovery -t st -p 127.0.0.2 >/dev/null 2>&1
	echo "$(login $1 127.0.0.1) $(login $1 127.0.0.2)"
}
T7=iqn.2003-01.org.linux-iscsi.test:t7
grow=$(growable grow /dev/ram0 iblock_0 v6)
mkdir -p $C/iscsi/$T7/tpgt_1
for l in 0 1; do lun $T7 $l $(backstore_rd v$l); done
lun $T7 6 $grow
hosts=$(both_portals $T7); a7=${hosts% *}; b7=${hosts#* }
vluns() { echo "$(luns_of_host $a7)|$(luns_of_host $b7)"; }
t0=$(uptime_cs)
scsi-scan --json --iscsi-target $T7 --lun 6 > /tmp/v.json 2> /tmp/v.err; rc=$?
echo "@@Y attach rc=$rc cs=$(( $(uptime_cs) - t0 )) hosts=$a7,$b7 luns=[$(vluns)]"
sed 's/^/@@YE /' /tmp/v.err | head -3
tr -d ' \n' < /tmp/v.json | grep -o '"volume":.*' | sed 's/^/@@YJ /'
mkmap() { # the paths of LUN 6, one map over both
	sa=$(ls /sys/bus/scsi/devices/$a7:0:0:6/block); sb=$(ls /sys/bus/scsi/devices/$b7:0:0:6/block)
	w=$(cat /sys/bus/scsi/devices/$a7:0:0:6/wwid)
	dmsetup create mpathv -u "mpath-3${w#naa.}" --table "0 $(cat /sys/class/block/$sa/size) multipath 0 0 1 1 round-robin 0 2 1 $(cat /sys/class/block/$sa/dev) 1000 $(cat /sys/class/block/$sb/dev) 1000"
	echo "@@Y map rc=$? paths=$sa,$sb holders=$(ls /sys/class/block/$sa/holders)"
}
mkmap
scsi-scan list --iscsi-target $T7 --lun 6 | sed 's/^/@@YL /'
# list against Debian's lsscsi (not busybox's applet), field by field: transport (-t), LUN in hex
# (-x), size in blocks (-S), kernel name (-k), LU name (-UU)
for h in $a7 $b7; do
	/usr/bin/lsscsi -t -x -S -k "$h:*:*:*" 2>&1 | sed 's/^/@@LST /'
	/usr/bin/lsscsi -UU -x -k "$h:*:*:*" 2>&1 | sed 's/^/@@LSU /'
done
echo "@@LSJ $(scsi-scan list --json host$a7 host$b7 | tr -d '\n')"
sleep 600 < /dev/mapper/mpathv &
HOLD=$!
scsi-scan detach --iscsi-target $T7 --lun 6 > /tmp/v.out 2>&1; rc=$?
echo "@@Y detach-held rc=$rc luns=[$(vluns)] map=$(dmsetup ls | grep -c mpathv) holdouts=$(ls /run/scsi-scan/holdout 2>/dev/null | wc -l)"
sed 's/^/@@YD1 /' /tmp/v.out
kill $HOLD; wait $HOLD 2>/dev/null
t0=$(uptime_cs)
scsi-scan detach --iscsi-target $T7 --lun 6 > /tmp/v.out 2>&1; rc=$?
echo "@@Y detach rc=$rc cs=$(( $(uptime_cs) - t0 )) luns=[$(vluns)] map=$(dmsetup ls | grep -c mpathv) holdouts=$(ls /run/scsi-scan/holdout | tr '\n' ' ')"
sed 's/^/@@YD2 /' /tmp/v.out
# Held out: the daemon's coldplug and a unit attention (LUN 1 attached,
# LUN 4 mapped) attach everything of t7 but LUN 6.
timeout 120 scsi-scand --foreground --once > /tmp/v.log 2>&1; rc=$?
echo "@@Y coldplug rc=$rc"
tail -5 /tmp/v.log | sed 's/^/@@YC /'
lun $T7 4 $(backstore_rd v4)
timeout 120 scsi-scan host$a7 host$b7 2> /dev/null > /dev/null; rc=$?
echo "@@Y held rc=$rc luns=[$(vluns)]"
grep -E "$a7:0:0:6|$a7:0:0.*held out" /tmp/v.log | head -2 | sed 's/^/@@YH /'
scsi-scan release --iscsi-target $T7 --lun 6 > /tmp/v.out 2>&1; rc=$?
scsi-scan --iscsi-target $T7 --lun 6 > /dev/null 2>&1; rc2=$?
echo "@@Y release rc=$rc attach_rc=$rc2 luns=[$(vluns)] holdouts=$(ls /run/scsi-scan/holdout | wc -l)"
# Grown on the array: the paths, then the map, take the new size.
mkmap
dmsetup reload grow --table "0 4096 linear /dev/ram0 0" && dmsetup resume grow
scsi-scan --resize --iscsi-target $T7 --lun 6 > /tmp/v.out 2>&1; rc=$?
echo "@@Y resize rc=$rc paths=$(cat /sys/class/block/$sa/size),$(cat /sys/class/block/$sb/size) map=$(cat /sys/class/block/$(ls /sys/class/block/$sa/holders)/size)"
sed 's/^/@@YR /' /tmp/v.out
dmsetup remove mpathv
unset DM_DISABLE_UDEV

# The daemon, with systemd-udevd: a session logged in while it runs, a LUN
# mapped on that target, then SIGTERM.
count_luns() { ls -d /sys/bus/scsi/devices/$1:* 2>/dev/null | wc -l; }
mkdir -p /run/udev /etc/udev /lib/systemd
ln -sf /bin/udevadm /lib/systemd/systemd-udevd
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 10
scsi-scand --foreground > /tmp/scand.log 2>&1 &
PID=$!
sleep 3
T4=iqn.2003-01.org.linux-iscsi.test:t4
mkdir -p $C/iscsi/$T4/tpgt_1
for l in 0 3; do lun $T4 $l $(backstore_rd d$l); done
target $T4
iscsiadm -m discovery -t st -p 127.0.0.1 >/dev/null 2>&1
h4=$(login $T4 127.0.0.1)
t=$(wait_luns $h4 2 3000)
echo "@@D session-login host=$h4 time=$t luns=[$(luns_of_host $h4)]"
lun $T4 6 $(backstore_rd d6)
sg=$(ls /sys/bus/scsi/devices/$h4:0:0:0/scsi_generic 2>/dev/null)
sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
t=$(wait_luns $h4 3 3000)
echo "@@D lun-mapped host=$h4 time=$t luns=[$(luns_of_host $h4)]"
echo "@@DH daemon host=$h4 [$(dh $h4)] logged=$(grep -c 'device handler alua' /tmp/scand.log)"
# LUN 3 remapped while the daemon runs: the unit attention (reported LUNs
# data has changed) makes it scan the target, which replaces the device.
w0=$(wwid_of $h4:0:0:3)
remap $T4 3 $(backstore_rd d3b)
sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
# Deleted and attached again: between the two the LUN has no wwid at all.
i=0; while [ $i -lt 100 ] && { w=$(wwid_of $h4:0:0:3); [ -z "$w" ] || [ "$w" = "$w0" ]; }; do
	sleep 0.1; i=$((i + 1)); done
echo "@@RM daemon before=$w0 after=$(wwid_of $h4:0:0:3) ms=$((i * 100)) luns=[$(luns_of_host $h4)]"
grep "$h4:0:0:3" /tmp/scand.log | grep -i remapped | tail -2 | sed 's/^/@@RMD /'
# Others attach behind the policy. A lunmask for t4 that refuses LUN 6 (the
# daemon reloads it); the kernel's "- - -" scan (rescan-scsi-bus.sh, an
# administrator) attaches LUN 6 again; then iscsid logs in again with
# node.session.scan = auto, which scans the new session's host itself.
gone_within() { # hctl tenths
	i=0; while [ $i -lt $2 ] && [ -e /sys/bus/scsi/devices/$1 ]; do sleep 0.1; i=$((i + 1)); done
	echo $((i * 100))
}
printf 'lunmask "t4" {\n\tiscsi_target = "%s"\n\texclude_luns = { 6 }\n}\n' $T4 \
	> /etc/scsi-scan/quirks.d/60-t4.conf
i=0; while [ $i -lt 50 ] && ! grep -q 'reloading (a quirk directory changed)' /tmp/scand.log; do
	sleep 0.1; i=$((i + 1)); done
echo 1 > /sys/bus/scsi/devices/$h4:0:0:6/delete
dmesg -c > /dev/null
echo "- - -" > /sys/class/scsi_host/host$h4/scan
seen=$(dmesg | grep -c "scsi $h4:0:0:6: ")
t=$(gone_within $h4:0:0:6 100)
echo "@@P rescan seen=$seen gone_ms=$t luns=[$(luns_of_host $h4)]"
iscsiadm -m node -T $T4 -p 127.0.0.1 --logout > /dev/null 2>&1
iscsiadm -m node -T $T4 -p 127.0.0.1 -o update -n node.session.scan -v auto > /dev/null 2>&1
dmesg -c > /dev/null
h4b=$(login $T4 127.0.0.1)
i=0; while [ $i -lt 100 ] && ! dmesg | grep -q "scsi $h4b:0:0:6: "; do sleep 0.1; i=$((i + 1)); done
seen=$(dmesg | grep -c "scsi $h4b:0:0:6: ")
t=$(gone_within $h4b:0:0:6 100)
wait_luns $h4b 2 3000 > /dev/null
echo "@@P iscsid-auto host=$h4b seen=$seen gone_ms=$t luns=[$(luns_of_host $h4b)]"
grep -E "attached by another scanner|t4" /tmp/scand.log | tail -4 | sed 's/^/@@PL /'
rm /etc/scsi-scan/quirks.d/60-t4.conf
sleep 1
t0=$(uptime_cs)
kill -TERM $PID; wait $PID; rc=$?
echo "@@D stop rc=$rc time=$(( $(uptime_cs) - t0 ))"
echo "@@D retries=$(grep -c 'not reachable yet' /tmp/scand.log)"
sed 's/^/@@S /' /tmp/scand.log | grep -v 'attached LUN' | tail -40
# The first LUN mapped to a target with nothing attached: no unit
# attention (no LUN carries it), no uevent. scsi-scand --poll-empty finds it.
T6=iqn.2003-01.org.linux-iscsi.test:t6
mkdir -p $C/iscsi/$T6/tpgt_1/acls/$INIT
target $T6
iscsiadm -m discovery -t st -p 127.0.0.1 > /dev/null 2>&1
scsi-scand --foreground --poll-empty 2 > /tmp/poll.log 2>&1 &
PID=$!
sleep 1
h6=$(login $T6 127.0.0.1)
sleep 3
n0=$(count_luns $h6)
lun $T6 0 $(backstore_rd g0)
i=0; while [ $i -lt 150 ] && [ $(count_luns $h6) -lt 1 ]; do sleep 0.1; i=$((i + 1)); done
echo "@@PO host=$h6 before=$n0 after=$(count_luns $h6) ms=$((i * 100)) polled=$(grep -c "poll: $h6:" /tmp/poll.log)"
kill -TERM $PID; wait $PID
grep -E "poll" /tmp/poll.log | tail -3 | sed 's/^/@@POL /'

# A volume with multipathd itself (Debian's multipath-tools, find_multipaths
# yes): t8 through both portals; LUN 2 an iblock backstore on a dm-linear
# device over /dev/ram1 that can grow. udev runs Debian's rules for the
# paths' ID_SERIAL and for device-mapper, as multipathd expects.
unset DM_DISABLE_UDEV
mkdir -p /etc/udev/rules.d
cp /etc/test-udev/*.rules /etc/udev/rules.d/ && udevadm control --reload
mkdir -p /etc/multipath /mnt/m
multipathd -d -s -v3 > /tmp/mpd.log 2>&1 &
MPD=$!
i=0; while [ $i -lt 100 ] && ! [ -s /run/multipathd.pid ]; do sleep 0.1; i=$((i + 1)); done
echo "@@MP multipathd pid=$(cat /run/multipathd.pid 2>/dev/null) ms=$((i * 100))"
[ -s /run/multipathd.pid ] || sed 's/^/@@MPL /' /tmp/mpd.log | head -20
T8=iqn.2003-01.org.linux-iscsi.test:t8
grow8=$(growable grow8 /dev/ram1 iblock_1 m2)
mkdir -p $C/iscsi/$T8/tpgt_1
lun $T8 0 $(backstore_rd m0)
lun $T8 2 $grow8
hosts=$(both_portals $T8); a8=${hosts% *}; b8=${hosts#* }
mluns() { echo "$(luns_of_host $a8)|$(luns_of_host $b8)"; }
mmaps() { # the maps of LUN 2 (the daemon's coldplug gives LUN 0 its own)
	for m in /sys/block/dm-*; do [ "$(cat $m/dm/uuid 2>/dev/null)" = "mpath-$W" ] && cat $m/dm/name; done |
		tr -s ' \n' ' '; }
msizes() { # the two paths' sizes, then the map's, in sectors
	{ for d in /sys/bus/scsi/devices/$a8:0:0:2 /sys/bus/scsi/devices/$b8:0:0:2; do
		cat $d/block/*/size 2>/dev/null || echo -; done
	for m in /sys/block/dm-*; do [ "$(cat $m/dm/uuid)" = "mpath-$W" ] && cat $m/size; done; } |
		tr -s '\n' ',' | sed 's/,$//'; }
t0=$(uptime_cs)
scsi-scan --json --iscsi-target $T8 --lun 2 > /tmp/m.json 2> /tmp/m.err; rc=$?
W=$(sed -n 's/.*"wwid": *"naa\.\([0-9a-f]*\)".*/3\1/p' /tmp/m.json | head -1)
echo "@@MP attach rc=$rc cs=$(( $(uptime_cs) - t0 )) hosts=$a8,$b8 luns=[$(mluns)] maps=[$(mmaps)] wwid=$W"
tr -d ' \n' < /tmp/m.json | grep -o '"map":[^,}]*' | head -1 | sed 's/^/@@MPJ /'
sed 's/^/@@MPE /' /tmp/m.err | head -3
# multipathd counts a path it added a moment after the kernel's table holds
# it (seen on a loaded machine): its own view, given up to 5 s to agree
i=0; while [ $i -lt 50 ] && [ "$(multipathd show maps raw format "%N" 2>/dev/null)" != 2 ]; do
	sleep 0.1; i=$((i + 1)); done
multipathd show maps raw format "%n %w %N" 2>&1 | sed 's/^/@@MPM /'
echo "@@MP multipathd-view ms=$((i * 100))"
MAP=$(mmaps | tr -d ' ')
mke2fs -q /dev/mapper/$MAP && mount -t ext2 /dev/mapper/$MAP /mnt/m
scsi-scan detach --wwid $W > /tmp/m.out 2>&1; rc=$?
echo "@@MP detach-mounted rc=$rc luns=[$(mluns)] maps=[$(mmaps)] holdouts=$(ls /run/scsi-scan/holdout 2>/dev/null | wc -l)"
sed 's/^/@@MPD1 /' /tmp/m.out | head -4
umount /mnt/m
# The boot policy of a root on this volume through a logical volume (LVM's
# are dm-linear devices) on the map: the target on both sessions, LUN 2.
DM_DISABLE_UDEV=1 timeout 60 dmsetup create lv8 \
	--table "0 $(blockdev --getsz /dev/mapper/$MAP) linear /dev/mapper/$MAP 0"
mke2fs -q /dev/mapper/lv8 && mount -t ext2 /dev/mapper/lv8 /mnt/m
scsi-quirks boot-policy /mnt/m > /tmp/bp.conf 2> /tmp/bp.err; rc=$?
echo "@@MP boot-policy rc=$rc entries=$(grep -c '^lunmask' /tmp/bp.conf) slaves=$(for m in /sys/block/dm-*; do [ "$(cat $m/dm/name)" = lv8 ] && ls $m/slaves; done | tr '\n' ',')"
sed 's/^/@@MPB /' /tmp/bp.conf /tmp/bp.err
umount /mnt/m
DM_DISABLE_UDEV=1 timeout 60 dmsetup remove lv8
# The daemon runs from here on: it holds the hold-out against others.
scsi-scand --foreground > /tmp/m.log 2>&1 &
SPID=$!
scsi-scan wait --timeout 300 > /dev/null 2>&1
t0=$(uptime_cs)
scsi-scan detach --wwid $W > /tmp/m.out 2>&1; rc=$?
echo "@@MP detach rc=$rc cs=$(( $(uptime_cs) - t0 )) luns=[$(mluns)] maps=[$(mmaps)] holdouts=$(ls /run/scsi-scan/holdout | tr '\n' ' ')"
sed 's/^/@@MPD2 /' /tmp/m.out
grep -E "$a8:0:0:0|$b8:0:0:0|coldplug|host$a8|host$b8" /tmp/m.log | head -20 | sed 's/^/@@MPX /'
# Others attach it again: the kernel's "- - -" scan of one session's host;
# then a unit attention (LUN 4 mapped) that the daemon answers.
sleep 1
echo "- - -" > /sys/class/scsi_host/host$a8/scan
i=0; while [ $i -lt 150 ] && [ -e /sys/bus/scsi/devices/$a8:0:0:2 ]; do sleep 0.1; i=$((i + 1)); done
echo "@@MP others luns=[$(mluns)] ms=$((i * 100)) maps=[$(mmaps)]"
grep -E "$a8:0:0:2|hold-outs" /tmp/m.log | tail -4 | sed 's/^/@@MPO /'
lun $T8 4 $(backstore_rd m4)
sg=$(ls /sys/bus/scsi/devices/$a8:0:0:0/scsi_generic)
sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
# LIO keeps one unit attention for both sessions (one initiator name): the
# first command on either path takes it (multipathd's checker or the TURs
# above), and the daemon scans the target of the path that heard it.
i=0; while [ $i -lt 150 ] && ! [ -e /sys/bus/scsi/devices/$a8:0:0:4 ] && ! [ -e /sys/bus/scsi/devices/$b8:0:0:4 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2
echo "@@MP held luns=[$(mluns)] maps=[$(mmaps)] ms=$((i * 100))"
grep -E "reported LUNs data has changed" /tmp/m.log | tail -3 | sed 's/^/@@MPU /'
scsi-scan release --wwid $W > /tmp/m.out 2>&1; rc=$?
scsi-scan --iscsi-target $T8 --lun 2 > /tmp/m.out2 2>&1; rc2=$?
echo "@@MP release rc=$rc attach_rc=$rc2 luns=[$(mluns)] maps=[$(mmaps)] holdouts=$(ls /run/scsi-scan/holdout | wc -l)"
# Grown on the array: the daemon rescans each path on its capacity unit
# attention, then has multipathd resize the map.
s0=$(msizes)
DM_DISABLE_UDEV=1 timeout 60 dmsetup reload grow8 --table "0 4096 linear /dev/ram1 0" &&
	DM_DISABLE_UDEV=1 timeout 60 dmsetup resume grow8
for h in $a8 $b8; do sg=$(ls /sys/bus/scsi/devices/$h:0:0:2/scsi_generic)
	sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1; done
i=0; while [ $i -lt 50 ] && ! grep -q "capacity data changed" /tmp/m.log; do sleep 0.1; i=$((i + 1)); done
via=ua
if ! grep -q "capacity data changed" /tmp/m.log; then
	# LIO sends no unit attention when its backstore grows: the kernel's
	# synthetic uevent, as the real one reads (a rule of the test's own).
	via=synthetic
	for h in $a8 $b8; do
		echo "change 6d1e0e6c-0b4f-4d8e-9d0e-1d2c3b4a5f60 UA=capacity" > /sys/bus/scsi/devices/$h:0:0:2/uevent
	done
fi
i=0; while [ $i -lt 150 ] && ! grep -q "the map .* resized from" /tmp/m.log; do sleep 0.1; i=$((i + 1)); done
echo "@@MP daemon-resize via=$via before=[$s0] after=[$(msizes)] ms=$((i * 100))"
grep -E "capacity|the map" /tmp/m.log | tail -4 | sed 's/^/@@MPR /'
kill -TERM $SPID; wait $SPID
multipath -F > /dev/null 2>&1
kill -TERM $MPD; wait $MPD
for f in /etc/test-udev/*.rules; do rm /etc/udev/rules.d/${f##*/}; done
udevadm control --reload

# Faults on the transport in the middle of a scan: target t5, 256 LUNs
# behind a portal of its own (127.0.0.3); its session gives up on a lost
# connection after 10 s (replacement_timeout), as an administrator sets it
# for a path that multipath covers.
T5=iqn.2003-01.org.linux-iscsi.test:t5
backstore_small() { mkdir -p $C/core/rd_mcp_0/$1; echo rd_pages=4 > $C/core/rd_mcp_0/$1/control
	echo 1 > $C/core/rd_mcp_0/$1/enable; echo $C/core/rd_mcp_0/$1; }
mkdir -p $C/iscsi/$T5/tpgt_1/np/127.0.0.3:3260
i=0; while [ $i -lt 256 ]; do lun $T5 $i $(backstore_small f$i); i=$((i + 1)); done
echo 0 > $C/iscsi/$T5/tpgt_1/attrib/authentication
echo 1 > $C/iscsi/$T5/tpgt_1/enable
iscsiadm -m discovery -t st -p 127.0.0.3 >/dev/null 2>&1
iscsiadm -m node -T $T5 -p 127.0.0.3 -o update -n node.session.timeo.replacement_timeout -v 10 >/dev/null 2>&1
h5=$(login $T5 127.0.0.3)
wluns() { ls /sys/bus/scsi/devices | grep -c "^$1:.*:49409$"; }
state5() { cat /sys/class/iscsi_session/*/state 2>/dev/null | sort | uniq -c | tr -s ' \n' ' '; }
# 1. The target goes away (its portal group disabled) while scsi-scan
#    attaches its LUNs.
scsi-scan host$h5 > /tmp/f1.out 2> /tmp/f1.err &
SP=$!
wait_luns $h5 8 6000 > /dev/null
t0=$(uptime_cs)
echo 0 > $C/iscsi/$T5/tpgt_1/enable
wait $SP; rc=$?
echo "@@F session-dropped host=$h5 rc=$rc cs=$(( $(uptime_cs) - t0 )) luns=$(count_luns $h5) wluns=$(wluns $h5) states=[$(state5)]"
sed 's/^/@@FE /' /tmp/f1.err | head -4
# 2. A scan of the host while its target is gone.
t0=$(uptime_cs)
scsi-scan host$h5 > /tmp/f2.out 2> /tmp/f2.err; rc=$?
echo "@@F portal-gone rc=$rc cs=$(( $(uptime_cs) - t0 )) luns=$(count_luns $h5) wluns=$(wluns $h5)"
sed 's/^/@@FE /' /tmp/f2.err | head -4
# 3. The target comes back with one LUN fewer (100, which the scan had not
#    reached: LIO lists its LUNs highest first, unmapped while the target
#    was away): the daemon, started while the session was down, attaches
#    what the target lists once the session logs in again.
rm -f $C/iscsi/$T5/tpgt_1/acls/$INIT/lun_100/map
rmdir $C/iscsi/$T5/tpgt_1/acls/$INIT/lun_100
scsi-scand --foreground > /tmp/f3.log 2>&1 &
PID=$!
sleep 2
t0=$(uptime_cs)
echo 1 > $C/iscsi/$T5/tpgt_1/enable
t=$(wait_luns $h5 255 9000)
sleep 1
echo "@@F session-back time=$t luns=$(count_luns $h5) wluns=$(wluns $h5) lun100=$(ls /sys/bus/scsi/devices | grep -c "^$h5:0:0:100$") states=[$(state5)]"
kill -TERM $PID; wait $PID
grep -E "host$h5|$h5:" /tmp/f3.log | grep -v 'attached LUN' | tail -12 | sed 's/^/@@FS /'
# 4. The path goes away and comes back, first without the daemon, then
#    with it. Meanwhile LUN 0 is offline (as the error handler leaves a LUN
#    whose commands failed while the path was away; here set by hand) and
#    the array maps another LUN, whose unit attention goes to a connection
#    that is gone.
sess5() { cat /sys/class/scsi_host/host$h5/device/session*/iscsi_session/session*/state; }
outage() { # LUN-to-map -> wait for the session to fail, map, come back
	echo offline > /sys/bus/scsi/devices/$h5:0:0:0/state
	echo 0 > $C/iscsi/$T5/tpgt_1/enable
	i=0; while [ $i -lt 200 ] && [ "$(sess5)" = LOGGED_IN ]; do sleep 0.05; i=$((i + 1)); done
	lun $T5 $1 $(backstore_small f$1)
	sleep 1
	t0=$(uptime_cs)
	echo 1 > $C/iscsi/$T5/tpgt_1/enable
	i=0; while [ $i -lt 600 ] && [ "$(sess5)" != LOGGED_IN ]; do sleep 0.05; i=$((i + 1)); done
}
lun_there() { [ -e /sys/bus/scsi/devices/$h5:0:0:$1 ] && echo 1 || echo 0; }
zero_size() { cat /sys/bus/scsi/devices/$h5:0:0:*/block/*/size | grep -c '^0$'; }
outage 300
sleep 5
echo "@@B kernel login_cs=$(( $(uptime_cs) - t0 )) lun0=$(cat /sys/bus/scsi/devices/$h5:0:0:0/state) lun300=$(lun_there 300) luns=$(count_luns $h5) zero=$(zero_size)"
echo running > /sys/bus/scsi/devices/$h5:0:0:0/state
scsi-scand --foreground --watch-paths 1 > /tmp/f4.log 2>&1 &
PID=$!
i=0; while [ $i -lt 600 ] && ! grep -q 'coldplug done' /tmp/f4.log; do sleep 0.1; i=$((i + 1)); done
outage 301
i=0; while [ $i -lt 900 ] && { [ $(lun_there 301) = 0 ] ||
	[ "$(cat /sys/bus/scsi/devices/$h5:0:0:0/state)" != running ]; }; do sleep 0.1; i=$((i + 1)); done
ms=$(( ($(uptime_cs) - t0) * 10 ))
i=0; while [ $i -lt 600 ] && ! grep -q "$h5:0:0: its path is back: .* read again" /tmp/f4.log; do
	sleep 0.1; i=$((i + 1)); done
echo "@@B daemon ms=$ms lun0=$(cat /sys/bus/scsi/devices/$h5:0:0:0/state) lun300=$(lun_there 300) lun301=$(lun_there 301) luns=$(count_luns $h5) zero=$(zero_size)"
kill -TERM $PID; wait $PID
grep -E "$h5:0:0: .*not reachable" /tmp/f4.log | head -1 | sed 's/^/@@BL /'
grep -E "$h5:0:0: .*again|$h5:0:0:0: (offline|its path)|resized|$h5:0:0: its path" /tmp/f4.log |
	tail -6 | sed 's/^/@@BL /'
grep -E "$h5:0:0:301" /tmp/f4.log | head -2 | sed 's/^/@@BL /'
"""


LUNMASK = {
    "/etc/lunmask-t1.conf": 'lunmask "t1" {\n\tiscsi_target = "iqn.2003-01.org.linux-iscsi.test:t1"\n'
                            '\tluns = { 0, 5 }\n}\n',
    "/etc/lunmask-t2.conf": 'lunmask "t2" {\n\tiscsi_target = "iqn.2003-01.org.linux-iscsi.test:t2"\n'
                            '\tiscsi_tpgt = 1\n\tluns = { 4 }\n}\n',
    "/etc/lunmask-t3.conf": 'lunmask "t3" {\n\tiscsi_target = "iqn.2003-01.org.linux-iscsi.test:t3"\n'
                            '\texclude_luns = { 1 }\n}\n',
    # scsi-scan's mptsas controller: its disks' wwn are 0x5000c500a1b201TL
    "/etc/lunmask-sas.conf": 'lunmask "bay 0" {\n\tsas_address = "0x5000c500a1b20100"\n'
                             '\tluns = { 1 }\n}\n'
                             'lunmask "bay 2" {\n\tsas_address = "50:00:c5:00:a1:b2:01:20"\n'
                             '\tluns = {}\n}\n',
    "/etc/sasq/50-sas.conf": 'lunmask "bay 0" {\n\tsas_address = "0x5000c500a1b20100"\n'
                             '\tluns = { 1 }\n}\n',
}

# name: (LUNs attached, why); the kernel has no masking: what it attached
# for the same target is in the scenarios above.
MASKED = {
    "lunmask-iqn-luns": ({"0:0:0", "0:0:5"}, "luns = { 0, 5 } of target t1 (it has 0, 2, 5, 7)"),
    "lunmask-iqn-no-lun-0": ({"0:0:4"}, "luns = { 4 } of t2, which has no LUN 0 and refuses "
                             "the well-known LUN: reached through LUN 4"),
    "lunmask-iqn-exclude": ({"0:0:0"}, "exclude_luns = { 1 } of t3 (LUNs 0, 1, 3; the quirk "
                            "max_lun = 1 keeps 3 out)"),
    # The SAS transport numbers targets as it registers them: QEMU's scsi-ids
    # 0, 2 and 3 are targets 0, 1 and 2.
    "lunmask-sas-address": ({"0:0:1", "0:2:1"}, "by SAS address: luns = { 1 } of end device "
                            "0x5000c500a1b20100 (target 0, LUNs 0 and 1), luns = {} of "
                            "0x5000c500a1b20120 (target 1), target 2 (LUN 1 only) unnamed"),
    "rd-lunmask-sas": ({"0:0:1", "0:1:0"}, "dracut's rd.lunmask=sas,0x5000c500a1b20100,0x1 "
                       "rd.lunmask=sas,0x5000c500a1b20120 through scsi-quirks import --cmdline: "
                       "LUN 1 of target 0, every LUN of target 1, nothing of target 2"),
}


class Scenario:
    def __init__(self, name, ours=None, kernel=None, why=None):
        self.name, self.ours, self.kernel, self.why = name, ours, kernel, why


SCENARIOS = [
    Scenario("iscsi-sparse-luns"),
    Scenario("iscsi-no-lun-0"),
    Scenario("iscsi-fileio-quirk", ours={"0:0:0", "0:0:1"}, kernel={"0:0:0", "0:0:1", "0:0:3"},
             why="the local quirk for LIO-ORG FILEIO sets max_lun = 1"),
    Scenario("iscsi-lun-mapped-at-run-time"),
    Scenario("spi-lsi53c895a"),
    Scenario("sas-mptsas1068"),
]


def qemu_args():
    args = []
    for side in range(2):
        ctrl = f"lsi{side}"
        args += ["-device", f"lsi53c895a,id={ctrl}"]
        for sid in (0, 2, 5):
            node = f"{ctrl}d{sid}"
            args += ["-blockdev", f"driver=null-co,node-name={node},size=16777216",
                     "-device", f"scsi-hd,drive={node},bus={ctrl}.0,scsi-id={sid},lun=0"]
    for side in range(2):
        ctrl = f"sas{side}"
        args += ["-device", f"mptsas1068,id={ctrl}"]
        for sid, lun in ((0, 0), (0, 1), (2, 0), (3, 1)):
            node = f"{ctrl}d{sid}{lun}"
            args += ["-blockdev", f"driver=null-co,node-name={node},size=16777216",
                     "-device", f"scsi-hd,drive={node},bus={ctrl}.0,scsi-id={sid},lun={lun},"
                                f"wwn=0x5000c500a1b2{side:02x}{sid:01x}{lun:01x}"]
    return args


def check_multipathd(checks, out):
    """The volume of t8 with multipathd running: attach, detach refused while
    mounted, detach, held against the kernel's scan and a unit attention,
    release, and the daemon's resize of the map."""
    mp = {m.group(1): dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
          for m in re.finditer(r"^@@MP (\S+) (.*)$", out, re.M)}
    text = {k: " | ".join(line[len(k) + 3:].strip() for line in out.splitlines()
                          if line.startswith(f"@@{k} "))
            for k in ("MPJ", "MPE", "MPM", "MPD1", "MPD2", "MPO", "MPR", "MPL", "MPB", "MPU", "MPX")}
    at, dm, dt = mp.get("attach", {}), mp.get("detach-mounted", {}), mp.get("detach", {})
    ot, hd, rl, rz = mp.get("others", {}), mp.get("held", {}), mp.get("release", {}), \
        mp.get("daemon-resize", {})
    maps = at.get("maps", "").strip("[] ")
    checks.check("multipathd-attach",
                 at.get("rc") == "0" and at.get("luns") == "[0:0:2|0:0:2]" and
                 len(maps.split()) == 1 and f'"{maps}"' in text["MPJ"] and
                 re.search(rf"\b{maps} 3\w+ 2\b", text["MPM"]) is not None,
                 f"multipathd {mp.get('multipathd', {}).get('pid')} running; scsi-scan "
                 f"--iscsi-target t8 --lun 2: rc {at.get('rc')} in "
                 f"{int(at.get('cs', '-1')) * 10} ms, paths {at.get('luns')}, multipathd's "
                 f"map [{maps}] ({text['MPM'][:200]}), JSON {text['MPJ'][:100]} "
                 f"{text['MPE'][:200]} {text['MPL'][:600]}", width=30)
    checks.check("multipathd-detach-mounted",
                 dm.get("rc") == "1" and dm.get("luns") == "[0:0:2|0:0:2]" and
                 dm.get("maps") == at.get("maps") and dm.get("holdouts") == "0" and
                 "mounted" in text["MPD1"],
                 f"ext2 on the map mounted, detach --wwid: rc {dm.get('rc')}, paths "
                 f"{dm.get('luns')}, maps {dm.get('maps')}, hold-outs {dm.get('holdouts')}: "
                 f"{text['MPD1'][:300]}", width=30)
    bp = mp.get("boot-policy", {})
    checks.check("multipathd-boot-policy",
                 bp.get("rc") == "0" and bp.get("entries") == "2" and
                 re.search(r'iscsi_target = "iqn\.2003-01\.org\.linux-iscsi\.test:t8"[\s|]+'
                           r'luns = \{ "2" \}', text["MPB"]) is not None,
                 f"ext2 on a dm-linear device (as LVM makes one; slaves {bp.get('slaves')}) "
                 f"on the map: scsi-quirks boot-policy rc {bp.get('rc')}, "
                 f"{bp.get('entries')} entries: {text['MPB'][:400]}", width=30)
    checks.check("multipathd-detach",
                 dt.get("rc") == "0" and dt.get("luns") == "[0:0:0|0:0:0]" and
                 dt.get("maps") == "[]" and "lun-2.conf" in dt.get("holdouts", "") and
                 "multipath -f" in text["MPD2"],
                 f"unmounted, detach --wwid (the daemon running): rc {dt.get('rc')} in "
                 f"{int(dt.get('cs', '-1')) * 10} ms, paths {dt.get('luns')}, maps "
                 f"{dt.get('maps')}, hold-out {dt.get('holdouts')}: {text['MPD2'][:500]}" +
                 ("" if dt.get("luns") == "[0:0:0|0:0:0]" else f"; the daemon: {text['MPX']}"),
                 width=30)
    # The session LUN 4 came on: its host must be the one that heard the
    # unit attention (LIO gives one per initiator name, to one session).
    ua_host = mp.get("attach", {}).get("hosts", ",").split(",")[
        0 if hd.get("luns", "").startswith("[0:0:0,0:0:4") else 1]
    checks.check("multipathd-held-out",
                 ot.get("luns") == "[0:0:0|0:0:0]" and ot.get("maps") == "[]" and
                 "0:0:2: removed: excluded by lunmask 'held out'" in text["MPO"] and
                 hd.get("luns") in ("[0:0:0,0:0:4|0:0:0]", "[0:0:0|0:0:0,0:0:4]") and
                 hd.get("maps") == "[]" and
                 f"{ua_host}:0:0:" in text["MPU"],
                 f"the daemon's coldplug attached LUN 0 of both paths; the kernel's '- - -' "
                 f"scan of one path's host attached LUN 2 again; the daemon deleted it in "
                 f"{ot.get('ms')} ms: {ot.get('luns')}, maps {ot.get('maps')}; its log: "
                 f"{text['MPO'][:400]}; LUN 4 mapped, one unit attention for both sessions, "
                 f"LUN 4 on the path that heard it: "
                 f"in {hd.get('ms')} ms {hd.get('luns')}, maps {hd.get('maps')}; "
                 f"{text['MPU'][:400]}", width=30)
    rluns = rl.get("luns", "").strip("[]").split("|")
    checks.check("multipathd-release",
                 rl.get("rc") == "0" and rl.get("attach_rc") == "0" and
                 rl.get("holdouts") == "0" and len(rluns) == 2 and
                 all("0:0:2" in side.split(",") for side in rluns) and
                 len(rl.get("maps", "").strip("[] ").split()) == 1,
                 f"release --wwid: rc {rl.get('rc')}; attach again: rc "
                 f"{rl.get('attach_rc')}, {rl.get('luns')}, maps {rl.get('maps')}", width=30)
    checks.check("multipathd-daemon-resize",
                 rz.get("before") == "[2048,2048,2048]" and
                 rz.get("after") == "[4096,4096,4096]" and
                 "resized from 2048 to 4096 sectors" in text["MPR"] and
                 re.search(r"the map \S+ resized from 2048 to 4096", text["MPR"]) is not None,
                 f"the backstore grown to 4096 sectors, capacity change by {rz.get('via')}: "
                 f"paths and map {rz.get('before')} -> {rz.get('after')} in {rz.get('ms')} "
                 f"ms; the daemon's log: {text['MPR'][:500]}", width=30)


def main():
    if not os.path.exists("/usr/bin/qemu-system-x86_64"):
        print("qemu-system-x86 is not installed")
        return 1
    for prog, pkg in (("/sbin/iscsid", "open-iscsi"), ("/sbin/iscsiadm", "open-iscsi"),
                      ("/sbin/multipathd", "multipath-tools")):
        if not os.path.exists(prog):
            print(f"{prog} is missing: apt-get install {pkg}")
            return 1

    start = time.monotonic()
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    checks = vmlib.Checks(SERIES, "transports")
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_project(BUILD, staging)
        initrd = os.path.join(tmp, "initrd.cpio")
        on_demand = [m for m in vmlib.module_order(moddir, ["scsi_dh_alua"])
                     if m[0] == "scsi_dh_alua"]
        vmlib.build_initramfs(initrd, staging, vmlib.module_order(moddir, MODULES),
                              vmlib.INIT_HEAD + vmlib.COMPARE_LIB + vmlib.WAIT_LIB +
                              vmlib.CAPTURE_LIB + vmlib.IDENTITY_LIB + SCRIPT +
                              vmlib.INIT_TAIL,
                              {"/etc/scsi-scan/quirks.d/50-local.conf": QUIRKS, **LUNMASK,
                               "/etc/multipath.conf": MULTIPATH_CONF,
                               "/etc/test-udev/59-test-capacity-ua.rules": CAPACITY_UA_RULE,
                               **multipath_udev_rules()},
                              programs=["/sbin/iscsid", "/sbin/iscsiadm", "/bin/udevadm",
                                        "/usr/sbin/dmsetup", "/sbin/dmsetup", "/bin/bash",
                                        "/usr/bin/lsscsi",
                                        "/usr/bin/rescan-scsi-bus.sh",
                                        "/lib/udev/scsi_id", "/sbin/multipathd",
                                        "/sbin/multipath",
                                        # dlopen()ed: multipathd's plugins, and libgcc_s for
                                        # pthread_cancel()
                                        *glob.glob("/lib/multipath/*.so"),
                                        "/lib/x86_64-linux-gnu/libgcc_s.so.1"],
                              on_demand=on_demand)
        vmlib.log(f"booting {release}: iSCSI (LIO and open-iscsi in the guest) and SPI")
        out = vmlib.boot(vmlinuz, initrd, qemu_args(), timeout=900)
        vmlib.save_trees(out)
    checks.check("iscsi-login", "@@LOGIN-FAILED" not in out and "@@HOSTS" in out,
                 next((line for line in out.splitlines() if line.startswith("@@HOSTS")),
                      "no sessions"), width=30)
    checks.check("iscsi-user-scan-any-id", out.count("@@ANY-ID-ACCEPTED") == 2,
                 "the transport accepts a scan of target id 9, which no session has "
                 "(why probing cannot end there)", width=30)
    scan = re.search(r"^@@DH scan kernel=\[(.*)\] ours=\[(.*)\] module=(\d+)", out, re.M)
    daemon = re.search(r"^@@DH daemon host=\d+ \[(.*)\] logged=(\d+)", out, re.M)
    checks.check("alua-by-scsi-scan", bool(scan) and "alua" not in scan.group(1) and
                 "detached" not in scan.group(2) and "alua" in scan.group(2) and
                 scan.group(3) == "1",
                 f"LIO LUNs (TPGS), scsi_dh_alua not loaded: dh_state after the kernel's own "
                 f"scan [{scan.group(1) if scan else '?'}], after scsi-scan's "
                 f"[{scan.group(2) if scan else '?'}] (it wrote alua; the kernel loaded "
                 f"the module: {scan.group(3) if scan else '?'})", width=30)
    checks.check("alua-by-daemon", bool(daemon) and "alua" in daemon.group(1) and
                 "detached" not in daemon.group(1),
                 f"LUNs the daemon attached: dh_state [{daemon.group(1) if daemon else '?'}], "
                 f"its log names alua {daemon.group(2) if daemon else '?'} time(s)", width=30)
    n, problems, said = vmlib.check_identities(out, os.path.join(BUILD, "tests", "decode-dump"))
    checks.check("identity-oracle", n > 0 and not problems,
                 f"{n} LUNs (LIO over iSCSI, SPI, SAS): our VPD 0x80 and 0x83 decoding "
                 f"against udev's scsi_id ({said})" + "".join(f"; {p}" for p in problems),
                 width=30)
    results = {m.group(1): m for m in vmlib.COMPARE_RESULT.finditer(out)}
    for s in SCENARIOS:
        m = results.get(s.name)
        if not m:
            checks.check(s.name, False, "no result from the guest", width=30)
            continue
        rc = int(m.group(2))
        kernel = set(filter(None, m.group(3).split(",")))
        ours = set(filter(None, m.group(4).split(",")))
        kcs, ocs = int(m.group(6)), int(m.group(7))
        ratio = f"{ocs / kcs:.2f}" if kcs > 0 else "-"
        timing = f"kernel {kcs * 10} ms, scsi-scan {ocs * 10} ms, ratio {ratio}"
        if s.ours is None:
            ok = rc == 0 and ours == kernel and ours
            text = (f"same as the kernel: {' '.join(sorted(ours))} ({timing})" if ok else
                    f"rc {rc}, kernel {sorted(kernel)}, ours {sorted(ours)}")
        else:
            ok = rc == 0 and ours == s.ours and kernel == s.kernel
            text = (f"differs on purpose: kernel {' '.join(sorted(kernel))}, we "
                    f"{' '.join(sorted(ours))}: {s.why} ({timing})" if ok else
                    f"rc {rc}, kernel {sorted(kernel)}, ours {sorted(ours)}, expected "
                    f"{sorted(s.ours)} and {sorted(s.kernel)}")
        checks.check(s.name, ok, text, width=30)
    for name, (want, why) in MASKED.items():
        m = re.search(rf"^@@M {name} rc=(\d+) ours=\[([^]]*)\] seen=\[([^]]*)\] ocs=(\d+)",
                      out, re.M)
        if not m:
            checks.check(name, False, "no result from the guest", width=30)
            continue
        ours, seen = set(filter(None, m.group(2).split(","))), set(filter(None, m.group(3).split(",")))
        # The REPORT LUNS well-known LUN (no upper-level driver takes it)
        # may carry the commands to a target whose LUN 0 is refused.
        wluns = {x for x in seen if x.endswith(":49409")}
        seen -= wluns
        wl = f"; the well-known LUN of {len(wluns)} target(s) carried REPORT LUNS" if wluns else ""
        checks.check(name, m.group(1) == "0" and ours == want and seen == want,
                     f"attached {' '.join(sorted(ours)) or 'nothing'}, and the kernel's log "
                     f"shows no other LUN attached even for a moment ({' '.join(sorted(seen))}"
                     f"{wl}): {why}; {int(m.group(4)) * 10} ms"
                     if ours == want and seen == want else
                     f"rc {m.group(1)}, attached {sorted(ours)}, seen in the kernel log "
                     f"{sorted(seen)}, expected {sorted(want)}", width=30)
    sas = next((line for line in out.splitlines() if line.startswith("@@SAS ")), "")
    checks.check("sas-end-devices", "end_devices=6" in sas and
                 "0x5000c500a1b20100,0x5000c500a1b20120,0x5000c500a1b20131" in sas,
                 f"mptsas registered the end devices of both controllers: {sas[6:]}", width=30)
    qs = "\n".join(line[5:] for line in out.splitlines() if line.startswith("@@QS "))
    checks.check("sas-query", "bay 0" in qs and "/etc/sasq/50-sas.conf:1" in qs,
                 "scsi-quirks query --sas-address names the entry and its file:line", width=30)
    xm = "\n".join(line[5:] for line in out.splitlines() if line.startswith("@@XM "))
    checks.check("lunmask-explain", "lunmask: 't1' (/etc/lunmask-t1.conf:1)" in xm and
                 "not in the luns of lunmask 't1'" in xm,
                 "explain names the lunmask entry (file:line) for each LUN it kept out",
                 width=30)
    xe = re.search(r"^@@XE rc=(\d+) after=\[(.*)\] seen=\[(.*)\]$", out, re.M)
    xel = "\n".join(line[6:] for line in out.splitlines() if line.startswith("@@XEL "))
    checks.check("explain-empty-target",
                 bool(xe) and xe.group(1) == "0" and xe.group(2) == "" and
                 xe.group(3) == "0:0:0" and
                 "reached through LUN 0, attached for this dry run" in xel and
                 re.search(r"LUN 0 +detached +attached only for this dry run's look", xel) and
                 re.search(r"LUN 1 +would-probe", xel) and
                 re.search(r"LUN 3 +skipped +listed, but above max_lun 1", xel),
                 f"explain of an iSCSI target with nothing attached: rc "
                 f"{xe.group(1) if xe else '?'}, attached after [{xe.group(2) if xe else '?'}], "
                 f"the kernel's log saw [{xe.group(3) if xe else '?'}] for the look",
                 width=30)
    rm = {m.group(1): dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
          for m in re.finditer(r"^@@RM (\w+) (.*)$", out, re.M)}
    rml = " | ".join(line[6:].strip() for line in out.splitlines() if line.startswith("@@RML "))
    rmk = " | ".join(line[6:].strip() for line in out.splitlines() if line.startswith("@@RMK "))
    rmh = " | ".join(line[6:].strip() for line in out.splitlines() if line.startswith("@@RMH "))
    kern, ours, held = rm.get("kernel", {}), rm.get("ours", {}), rm.get("held", {})
    rsb = re.search(r"^@@RSB remap (.*)$", out, re.M)
    rsb = dict(kv.split("=", 1) for kv in rsb.group(1).split() if "=" in kv) if rsb else {}
    rsbl = " | ".join(line[8:].strip() for line in out.splitlines() if line.startswith("@@RSBL "))
    checks.check("remap-kernel-keeps-old",
                 kern.get("before") and kern.get("after") == kern.get("before") and
                 "would-remove" in rmk and "remapped" in rmk,
                 f"LUN 5 of t1 remapped to another backstore: after the kernel's own rescan "
                 f"(- - -) its device still has wwid {kern.get('after')}; scsi-scan -n: {rmk}; "
                 f"at the end, rescan-scsi-bus.sh -u on that host: rc {rsb.get('rc')} in "
                 f"{int(rsb.get('cs', '-1')) * 10} ms, wwid {rsb.get('before')} -> "
                 f"{rsb.get('after')}, LUNs {rsb.get('luns')} ({rsbl[:200]})", width=30)
    checks.check("remap-replaced",
                 ours.get("rc") == "0" and ours.get("after") and
                 ours.get("after") != ours.get("before") and
                 ours.get("luns") == "[0:0:0,0:0:5]" and "remapped" in rml,
                 f"scsi-scan: rc {ours.get('rc')}, wwid {ours.get('before')} -> "
                 f"{ours.get('after')}; {rml}", width=30)
    checks.check("remap-held-kept",
                 held.get("rc") == "1" and held.get("after") == held.get("before") and
                 "in-use" in rmh and "became" in rmh,
                 f"remapped again while /dev/{held.get('dev')} is held open: rc "
                 f"{held.get('rc')}, wwid kept {held.get('after')}; {rmh}", width=30)
    dm = rm.get("daemon", {})
    rmd = " | ".join(line[6:].strip() for line in out.splitlines() if line.startswith("@@RMD "))
    checks.check("remap-by-daemon",
                 dm.get("after") and dm.get("after") != dm.get("before") and
                 dm.get("luns") == "[0:0:0,0:0:3,0:0:6]" and "remapped" in rmd,
                 f"LUN 3 of t4 remapped while scsi-scand runs: wwid {dm.get('before')} -> "
                 f"{dm.get('after')} in {dm.get('ms')} ms; its log: {rmd[:300]}", width=30)
    pol = {m.group(1): dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
           for m in re.finditer(r"^@@P (\S+) (.*)$", out, re.M)}
    pl = " | ".join(line[5:].strip() for line in out.splitlines() if line.startswith("@@PL "))
    rs, ia = pol.get("rescan", {}), pol.get("iscsid-auto", {})
    checks.check("policy-vs-rescan",
                 rs.get("seen", "0") != "0" and rs.get("gone_ms") not in (None, "10000") and
                 rs.get("luns") == "[0:0:0,0:0:3]",
                 f"lunmask refuses LUN 6 of t4; the kernel's - - - scan attached it "
                 f"(its log: {rs.get('seen')} line(s)); the daemon deleted it after "
                 f"{rs.get('gone_ms')} ms; left {rs.get('luns')}", width=30)
    checks.check("policy-vs-iscsid-auto",
                 ia.get("seen", "0") != "0" and ia.get("gone_ms") not in (None, "10000") and
                 ia.get("luns") == "[0:0:0,0:0:3]",
                 f"iscsid logged in again with node.session.scan = auto and attached LUN 6 "
                 f"(the kernel's log: {ia.get('seen')}); the daemon deleted it after "
                 f"{ia.get('gone_ms')} ms; left {ia.get('luns')}; its log: {pl[:300]}", width=30)
    po = re.search(r"^@@PO (.*)$", out, re.M)
    po = dict(kv.split("=", 1) for kv in po.group(1).split() if "=" in kv) if po else {}
    pol_log = " | ".join(line[6:].strip() for line in out.splitlines()
                         if line.startswith("@@POL "))
    checks.check("poll-empty-target",
                 po.get("before") == "0" and po.get("after") == "1" and
                 po.get("polled", "0") != "0",
                 f"LUN 0 mapped to t6, logged in with nothing mapped: {po.get('before')} LUN(s) "
                 f"before, {po.get('after')} {po.get('ms')} ms after, found by the poll "
                 f"(--poll-empty 2; {po.get('polled')} poll scan(s) of it): {pol_log[:200]}",
                 width=30)
    explain = "\n".join(line[4:] for line in out.splitlines() if line.startswith("@@X "))
    checks.check("iscsi-explain-no-lun-0",
                 "listed by session" in explain and "transport iSCSI" in explain,
                 "explain names the session and target IQN that listed the target",
                 width=30)
    daemon = {}
    for line in out.splitlines():
        if line.startswith("@@D "):
            key, _, rest = line[4:].partition(" ")
            daemon[key] = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
            if key.startswith("retries="):
                daemon["retries"] = key.split("=", 1)[1]
    login = daemon.get("session-login", {})
    checks.check("daemon-session-login", login.get("luns") == "[0:0:0,0:0:3]" and
                 login.get("time") != "-1",
                 f"a session logged in while scsi-scand runs: LUNs {login.get('luns')} in "
                 f"{int(login.get('time', '-1')) * 10} ms (rescans while the session was not yet "
                 f"logged in: {daemon.get('retries', '?')})", width=30)
    mapped = daemon.get("lun-mapped", {})
    checks.check("daemon-lun-mapped", mapped.get("luns") == "[0:0:0,0:0:3,0:0:6]",
                 f"LUN 6 mapped on the target: REPORTED LUNS DATA HAS CHANGED, LUNs "
                 f"{mapped.get('luns')} in {int(mapped.get('time', '-1')) * 10} ms", width=30)
    stop = daemon.get("stop", {})
    checks.check("daemon-sigterm", stop.get("rc") == "0" and int(stop.get("time", "999")) < 500,
                 f"SIGTERM: exit {stop.get('rc')} after {int(stop.get('time', '-1')) * 10} ms",
                 width=30)
    faults = {}
    for line in out.splitlines():
        if line.startswith("@@F "):
            key, _, rest = line[4:].partition(" ")
            faults[key] = dict(kv.split("=", 1) for kv in re.findall(r"\w+=\S+", rest))
    errs = "\n".join(line[5:] for line in out.splitlines() if line.startswith("@@FE "))
    f = faults.get("session-dropped", {})
    h5 = f.get("host", "?")
    checks.check("fault-session-dropped",
                 f.get("rc") == "1" and int(f.get("cs", "99999")) <= 6000 and
                 f.get("wluns") == "0" and 0 < int(f.get("luns", "0")) < 256 and
                 "the transport lost the target in the middle of its scan" in errs and
                 f"{h5}:0:0" in errs,
                 f"t5's portal group disabled while scsi-scan attached its 256 LUNs: exit "
                 f"{f.get('rc')} {int(f.get('cs', '-1')) * 10} ms later (replacement timeout "
                 f"10 s), {f.get('luns')} attached, no well-known LUN, the failure named "
                 f"with its H:C:T ({errs.splitlines()[0][:110] if errs else 'nothing said'})",
                 width=30)
    f = faults.get("portal-gone", {})
    checks.check("fault-portal-gone",
                 f.get("rc") == "1" and int(f.get("cs", "99999")) <= 1000 and
                 f.get("wluns") == "0" and "not reachable" in errs,
                 f"scsi-scan of the host while its target is gone: exit {f.get('rc')} in "
                 f"{int(f.get('cs', '-1')) * 10} ms, the session named as not reachable",
                 width=30)
    f = faults.get("session-back", {})
    checks.check("fault-session-back",
                 f.get("luns") == "255" and f.get("lun100") == "0" and f.get("wluns") == "0" and
                 f.get("time") != "-1",
                 f"the target back with LUN 100 unmapped while it was away: the daemon, "
                 f"started while the session was down, attached {f.get('luns')} LUNs "
                 f"{int(f.get('time', '-1')) * 10} ms after the portal group was enabled "
                 f"again ({f.get('states', '')})", width=30)
    vol = {m.group(1): dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
           for m in re.finditer(r"^@@Y (\S+) (.*)$", out, re.M)}
    vtext = {tag: " | ".join(line[len(tag) + 4:].strip() for line in out.splitlines()
                             if line.startswith(f"@@Y{tag} "))
             for tag in ("E", "J", "L", "D1", "D2", "H", "R", "C")}
    va, vm = vol.get("attach", {}), vol.get("map", {})
    checks.check("volume-attach-two-paths",
                 va.get("rc") == "0" and va.get("luns") == "[0:0:6|0:0:6]" and
                 '"attached":2' in vtext["J"] and vm.get("rc") == "0",
                 f"scsi-scan --iscsi-target t7 --lun 6: rc {va.get('rc')} in "
                 f"{int(va.get('cs', '-1')) * 10} ms, LUNs of the two sessions' hosts "
                 f"{va.get('luns')} (nothing else of t7); a map over both made with dmsetup "
                 f"({vm.get('paths')}, holder {vm.get('holders')}); list: {vtext['L'][:300]}",
                 width=30)
    vh = vol.get("detach-held", {})
    checks.check("volume-detach-in-use",
                 vh.get("rc") == "1" and vh.get("luns") == "[0:0:6|0:0:6]" and
                 vh.get("map") == "1" and vh.get("holdouts") == "0" and
                 "refused" in vtext["D1"],
                 f"detach while the map is open: rc {vh.get('rc')}, paths {vh.get('luns')}, "
                 f"map still there: {vh.get('map')}, hold-outs {vh.get('holdouts')}: "
                 f"{vtext['D1'][:300]}", width=30)
    lst = [line.split()[1:] for line in out.splitlines() if line.startswith("@@LST ")]
    lsu = [line.split()[1:] for line in out.splitlines() if line.startswith("@@LSU ")]
    lsj = re.search(r"^@@LSJ (.*)$", out, re.M)
    ours = json.loads(lsj.group(1))["devices"] if lsj and lsj.group(1).strip() else []
    compared, differ = 0, []
    for d in ours:
        h, c, t, _ = d["hctl"].split(":")
        tup = f"[{h}:{c}:{t}:{d['lun_hex']}]"
        lt = next((x for x in lst if x and x[0] == tup), None)
        lu = next((x for x in lsu if x and x[0] == tup), None)
        if not lt or not lu:
            differ.append(f"{tup}: not in lsscsi's output ({' | '.join(' '.join(x) for x in lst[:3])})")
            continue
        theirs = {"transport": next((x for x in lt if x.startswith(("iqn.", "fc:", "sas:"))),
                                    None),
                  "block": next((x.split("/")[-1] for x in lt[2:] if "sd" in x), None),
                  "sectors": lt[-1].split(",")[0],
                  "wwid": next((x for x in lu if x.startswith(("naa.", "eui.", "t10."))),
                               None)}
        mine = {"transport": d["transport"], "block": d["block"],
                "sectors": str(d["sectors"]), "wwid": d["wwid"]}
        compared += 1
        differ += [f"{tup} {k}: lsscsi {theirs[k]}, ours {mine[k]}" for k in mine
                   if theirs[k] != mine[k]]
    checks.check("list-against-lsscsi", compared >= 2 and not differ,
                 f"{compared} LUN(s) of t7's two sessions: transport, LUN in hex, size in "
                 f"blocks, kernel name and LU name as Debian's lsscsi -t -x -S -k and -UU "
                 f"print them{': ' + '; '.join(differ[:4]) if differ else ''}", width=30)
    vd, vhe, vr = vol.get("detach", {}), vol.get("held", {}), vol.get("release", {})
    vc = vol.get("coldplug", {})
    checks.check("volume-detach",
                 vd.get("rc") == "0" and vd.get("luns") == "[|]" and vd.get("map") == "0" and
                 "flush map" in vtext["D2"] and vc.get("rc") == "0" and vhe.get("rc") == "0" and
                 vhe.get("luns") == "[0:0:0,0:0:1,0:0:4|0:0:0,0:0:1,0:0:4]",
                 f"detach: rc {vd.get('rc')} in {int(vd.get('cs', '-1')) * 10} ms, paths "
                 f"{vd.get('luns')}, map left {vd.get('map')}, hold-out {vd.get('holdouts')}; "
                 f"{vtext['D2'][:400]}; after the daemon's coldplug (scsi-scand --once: rc "
                 f"{vc.get('rc')}), LUN 4 mapped and a rescan of both hosts (rc "
                 f"{vhe.get('rc')}): {vhe.get('luns')}; {vtext['C'][:300]}", width=30)
    checks.check("volume-release",
                 vr.get("rc") == "0" and vr.get("attach_rc") == "0" and
                 vr.get("holdouts") == "0" and
                 vr.get("luns") == "[0:0:0,0:0:1,0:0:4,0:0:6|0:0:0,0:0:1,0:0:4,0:0:6]",
                 f"release: rc {vr.get('rc')}, attach again: rc {vr.get('attach_rc')}, "
                 f"{vr.get('luns')}", width=30)
    vz = vol.get("resize", {})
    checks.check("volume-resize",
                 vz.get("rc") == "0" and vz.get("paths") == "4096,4096" and
                 vz.get("map") == "4096",
                 f"the backstore grown from 2048 to 4096 sectors, scsi-scan --resize "
                 f"--iscsi-target t7 --lun 6: rc {vz.get('rc')}, paths {vz.get('paths')}, map "
                 f"{vz.get('map')}: {vtext['R'][:400]}", width=30)
    check_multipathd(checks, out)
    back = {m.group(1): dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
            for m in re.finditer(r"^@@B (\S+) (.*)$", out, re.M)}
    bk, bd = back.get("kernel", {}), back.get("daemon", {})
    bl = " | ".join(line[6:].strip() for line in out.splitlines() if line.startswith("@@BL "))
    checks.check("path-back-by-daemon",
                 bd.get("lun0") == "running" and bd.get("lun301") == "1" and
                 "is FAILED: not reachable" in bl and "is LOGGED_IN again" in bl and
                 "its path is back: " in bl,
                 f"t5's portal group disabled and enabled again, LUN 0 offline and a LUN "
                 f"mapped meanwhile. The kernel with iscsid alone: session back after "
                 f"{int(bk.get('login_cs', '-1')) * 10} ms, 5 s later LUN 0 "
                 f"{bk.get('lun0')}, the new LUN attached: {bk.get('lun300')}, "
                 f"{bk.get('zero')} block device(s) of size 0. "
                 f"scsi-scand --watch-paths 1: {bd.get('ms')} ms after the enable, LUN 0 "
                 f"{bd.get('lun0')}, the new LUN attached: {bd.get('lun301')} "
                 f"({bd.get('luns')} LUNs), {bd.get('zero')} of size 0; its log: {bl[:900]}",
                 width=30)
    if checks.failed:
        print("\n".join(line for line in out.splitlines()
                        if line.startswith(("@@L", "@@X", "@@S", "@@M", "@@F", "@@B", "@@Y"))))
    print(f"guest and checks took {time.monotonic() - start:.0f} s")
    return checks.finish(out)


if __name__ == "__main__":
    vmlib.main_guard(main)
