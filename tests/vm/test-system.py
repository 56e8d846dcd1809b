#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An installed system: a Debian 12 root file system (mmdebstrap, the
machine's apt mirror, cached outside the tree) with the package built from
this tree installed by 'apt-get install ./scsi-scan_*.deb' and switched to
user-space scanning as README.md says (the modprobe.d link, 'systemctl
enable scsi-scand', 'update-initramfs -u'), booted under QEMU from a
virtio-scsi root with systemd as PID 1.

Boot 1 (scan=manual): the boot reaches "running" with no failed unit and no
ordering cycle, the daemon runs as the installed unit (its sandbox
included), the second controller's LUNs are what the kernel's own scan
attaches in the same guest, hosts hotplugged at run time are scanned, a LUN
added to a running target is attached, a new quirk file and 'systemctl
reload' take effect, 'systemctl stop' ends it within 5 s, and the journal
carries its messages with their priorities. The compiled quirk database
the package and the initramfs hook made is current, and loaded, where
each is used; a new quirk file makes scsi-scan read the text instead.
Boot 2 (scsi_mod.scan=sync on the command line, the same image): the
kernel scans, the daemon does nothing; the boot time to "running" of both.

usage: test-system.py BUILD_DIR KERNEL_SERIES   (needs root: chroot, mount)
"""

import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ["systemd-sysv", "udev", "linux-image-amd64", "initramfs-tools", "kmod", "sg3-utils",
            "e2fsprogs", "procps", "lsscsi", "libconfuse2", "libjson-c5", "libsgutils2-1.46-2",
            "open-iscsi"]
LABEL = "sysroot"
# The root disk, and only it, for the initramfs: target 0 of a virtio-scsi
# host (the second controller's target 0 matches too, by the same address).
LUNMASK = "scsi_scan.lunmask=scsi,virtio_scsi,0:0,0"

# Runs in the guest as a unit of its own once the boot is done; prints
# @@ lines on the serial console and powers off.
GUEST = r"""#!/bin/sh
exec > /dev/ttyS0 2>&1
mode=$(sed -n 's/.*systest=\([a-z]*\).*/\1/p' /proc/cmdline)
echo "@@UP $mode"
state=$(systemctl is-system-running --wait)
echo "@@R state=$state"
echo "@@R failed=$(systemctl --failed --no-legend --plain | wc -l)"
systemctl --failed --no-legend --plain | sed 's/^/@@FAILED /'
echo "@@R cycles=$(journalctl -b --no-pager | grep -ci 'ordering cycle')"
journalctl -b --no-pager | grep -i 'ordering cycle' | head -3 | sed 's/^/@@CYCLE /'
echo "@@R scan=$(cat /sys/module/scsi_mod/parameters/scan)"
echo "@@R active=$(systemctl is-active scsi-scand)"
systemd-analyze | head -1 | sed 's/^/@@TIME /'
# The settle point: what a unit ordered after it saw, against what is
# attached now that the boot is done.
lunlist() { ls /sys/bus/scsi/devices | grep -E '^[0-9]+:[0-9]+:[0-9]+:[0-9]+$' | sort | tr '\n' ' '; }
echo "@@R settle-probe=$(cat /run/settle-probe 2>/dev/null)"
echo "@@R settle-now=$(lunlist)"
echo "@@R settle-unit=$(systemctl is-active scsi-scan-settle.service) $(tr '\n' ' ' < /run/scsi-scan/state)"
systemctl is-active -q scsi-scan-settle.service ||
	journalctl -b -o short-monotonic -u scsi-scan-settle.service --no-pager | tail -8 | sed 's/^/@@SETTLELOG /'
systemd-analyze blame --no-pager | head -3 | sed 's/^/@@BLAME /'
luns() { ls /sys/bus/scsi/devices | grep -c "^$1:"; }
# The flags the kernel applied to the second controller's COMPAQ MSA1000
# and ACME Ctl (targets 4 and 5), and whether sd took each.
flags() { for t in 4 5; do d=/sys/bus/scsi/devices/$ctl2:0:$t:0; [ -e $d ] || continue
	echo "@@F $1 $(tr -d ' ' < $d/vendor)/$(tr -d ' ' < $d/model) blacklist=[$(cat $d/blacklist)] block=$(ls $d/block 2>/dev/null | wc -l)"
	done; }
wait_luns() { # HOST COUNT SECONDS
	n=0; while [ "$(luns $1)" -lt $2 ] && [ $n -lt $(($3 * 10)) ]; do sleep 0.1; n=$((n + 1)); done
	echo $((n * 100))
}
ctl2=$(for h in /sys/class/scsi_host/host*; do
	[ "$(cat $h/proc_name)" = virtio_scsi ] && echo ${h##*/host}; done | sort -n | sed -n 2p)
ctl1=$(for h in /sys/class/scsi_host/host*; do
	[ "$(cat $h/proc_name)" = virtio_scsi ] && echo ${h##*/host}; done | sort -n | sed -n 1p)
# scsi_scan.lunmask= on the command line: what the midlayer attached before
# the real root's PID 1 started (the kernel's log up to its banner), what
# the initramfs's scan said, and the root's target once the daemon ran.
pid1=$(journalctl -b -o short-monotonic --no-pager | grep 'running in system mode' | tail -1 |
	sed 's/^\[ *\([0-9.]*\)\].*/\1/')
echo "@@R early=$(journalctl -b -k -o short-monotonic --no-pager |
	sed -n 's/^\[ *\([0-9.]*\)\] [^ ]* kernel: scsi \([0-9]*:[0-9]*:[0-9]*:[0-9]*\): .*/\1 \2/p' |
	awk -v t="$pid1" '$1 < t { print $2 }' | sort -u | tr '\n' ' ')"
echo "@@R boot-policy=$(grep -c '^lunmask' /run/scsi-scan/boot-lunmask.conf 2>/dev/null)"
sed 's/^/@@IL /' /run/scsi-scan.log 2>/dev/null | head -20
# The compiled database postinst made: current, so scsi-scan loads it.
echo "@@R image=$(scsi-scan -v --dry-run $ctl1:0:0 2>&1 | grep -c 'quirks: the compiled image /etc/scsi-scan/quirks.bin')"
if [ "$mode" = manual ]; then
	n=0; while ! journalctl -u scsi-scand --no-pager | grep -q "coldplug done" && [ $n -lt 900 ]; do
		sleep 0.2; n=$((n + 1)); done
	echo "@@R coldplug=$(journalctl -u scsi-scand --no-pager | grep -c 'coldplug done')"
	echo "@@R ctl2-ours=$(ls /sys/bus/scsi/devices | grep "^$ctl2:" | sort | tr '\n' ' ')"
	# The local quirk file (50-flags.conf) is not in the kernel yet: the
	# image was made in a chroot that saw none of these devices. list,
	# explain and the daemon's log say so; update-initramfs, here, puts the
	# database's flags for them into the image.
	flags manual
	echo "@@R differ list=$(scsi-scan list | grep -c kernel-flags-differ) explain=$(scsi-scan explain $ctl2:0:5 | grep -c "the kernel's flags differ") daemon=$(journalctl -b -u scsi-scand --no-pager | grep -c 'the kernel applied flags')"
	journalctl -b -u scsi-scand --no-pager | grep 'the kernel applied flags' | head -3 | sed 's/^/@@KF /'
	# Only the modules this machine needs (its root's): under TCG the
	# whole set takes minutes to copy and compress.
	sed -i 's/^MODULES=.*/MODULES=dep/' /etc/initramfs-tools/initramfs.conf
	t0=$(date +%s)
	update-initramfs -u > /dev/null 2>&1
	echo "@@R update-initramfs-s=$(( $(date +%s) - t0 ))"
	rm -rf /tmp/ird; unmkinitramfs /boot/initrd.img-$(uname -r) /tmp/ird
	echo "@@R devflags=$(cat /tmp/ird/etc/modprobe.d/scsi-scan-dev-flags.conf /tmp/ird/main/etc/modprobe.d/scsi-scan-dev-flags.conf 2>/dev/null)"
	echo "@@R root-target=$(ls /sys/bus/scsi/devices | grep "^$ctl1:0:0:" | sort | tr '\n' ' ')"
	# The kernel's own scan of the same host, in the same guest.
	for d in /sys/bus/scsi/devices/$ctl2:*; do echo 1 > $d/delete; done
	echo "- - -" > /sys/class/scsi_host/host$ctl2/scan
	echo "@@R ctl2-kernel=$(ls /sys/bus/scsi/devices | grep "^$ctl2:" | sort | tr '\n' ' ')"
	# Hotplug: a new host, then a LUN added to its running target.
	modprobe scsi_debug add_host=1 max_luns=4 scsi_level=5 delay=0 dev_size_mb=8
	H=$(ls -d /sys/class/scsi_host/host* | sed 's/.*host//' | sort -n | tail -1)
	echo "@@R hotplug-host ms=$(wait_luns $H 4 60) luns=$(luns $H) by-daemon=$(journalctl -u scsi-scand --no-pager | grep -c "host$H: scanned")"
	echo 6 > /sys/bus/pseudo/drivers/scsi_debug/max_luns
	sg=$(ls /sys/bus/scsi/devices/$H:0:0:0/scsi_generic)
	sg_turs /dev/$sg > /dev/null 2>&1; sg_turs /dev/$sg > /dev/null 2>&1
	echo "@@R lun-added ms=$(wait_luns $H 6 60) luns=$(luns $H)"
	# A new quirk file reloads the database by itself; it applies to the
	# next host.
	printf 'device "dbg" {\n\tvendor = "Linux"\n\tmodel = "scsi_debug"\n\tmax_lun = 1\n}\n' \
		> /etc/scsi-scan/quirks.d/50-systest.conf
	n=0; while ! journalctl -u scsi-scand --no-pager | grep -q "reloading (a quirk directory changed)" && [ $n -lt 300 ]; do
		sleep 0.1; n=$((n + 1)); done
	echo 1 > /sys/bus/pseudo/drivers/scsi_debug/add_host
	H2=$(ls -d /sys/class/scsi_host/host* | sed 's/.*host//' | sort -n | tail -1)
	wait_luns $H2 2 60 > /dev/null; sleep 2
	echo "@@R quirk-file host=$H2 luns=$(luns $H2)"
	echo "@@R image-stale=$(scsi-scan -v --dry-run $ctl1:0:0 2>&1 | grep -c 'quirks.bin is out of date')"
	systemctl reload scsi-scand
	sleep 1
	echo "@@R reload=$(journalctl -u scsi-scand --no-pager | grep -c 'reloading (SIGHUP)') active=$(systemctl is-active scsi-scand)"
	journalctl -u scsi-scand -o json --no-pager | grep -o '"PRIORITY":"[0-9]"' | sort | uniq -c | tr '\n' ' ' | sed 's/^/@@PRIO /'
	echo
	journalctl -u scsi-scand --no-pager -p notice | tail -3 | sed 's/^/@@NOTICE /'
	t0=$(date +%s%N)
	systemctl stop scsi-scand
	t1=$(date +%s%N)
	echo "@@R stop ms=$(( (t1 - t0) / 1000000 )) state=$(systemctl is-active scsi-scand)"
	systemd-analyze security scsi-scand --no-pager | tail -1 | sed 's/^/@@SECURITY /'
elif [ "$mode" = dracut ]; then
	echo "@@R root=$(findmnt -n -o SOURCE /) initrd-log=$(grep -c '' /run/scsi-scan.log 2>/dev/null)"
	n=0; while ! journalctl -u scsi-scand --no-pager | grep -q "coldplug done" && [ $n -lt 900 ]; do
		sleep 0.2; n=$((n + 1)); done
	echo "@@R root-target=$(ls /sys/bus/scsi/devices | grep "^$ctl1:0:0:" | sort | tr '\n' ' ')"
	echo "@@R ctl2-ours=$(ls /sys/bus/scsi/devices | grep "^$ctl2:" | sort | tr '\n' ' ')"
	flags dracut
	echo "@@R differ-dracut daemon=$(journalctl -b -u scsi-scand --no-pager | grep -c 'the kernel applied flags')"
else
	echo "@@R ctl2-kernel=$(ls /sys/bus/scsi/devices | grep "^$ctl2:" | sort | tr '\n' ' ')"
	flags sync
	journalctl -u scsi-scand --no-pager | grep -E "nothing to do|Deactivated|Failed" | sed 's/^/@@DAEMON /'
fi
echo "@@DONE"
systemctl poweroff -f
"""

# A local quirk file: nostartonadd dropped from a device the kernel's table
# names (scsi-quirks.d(5)'s example), no_uld_attach for one no table knows.
FLAGS_QUIRKS = """device "msa" {
	vendor = "COMPAQ"
	model = "MSA1000"
	drop_flags = {"nostartonadd"}
}
device "ctl" {
	vendor = "ACME"
	model = "Ctl"
	flags = {"no_uld_attach"}
}
"""
DEVFLAGS = 'options scsi_mod dev_flags=COMPAQ:MSA1000:0x40,ACME:Ctl:0x100000'

# A unit that needs the boot's disks, ordered after the settle point as
# scsi-scand(8) tells LVM, ZFS and multipathd users to order theirs.
PROBE_UNIT = """[Unit]
Description=What a unit ordered after the settle point sees
DefaultDependencies=no
Wants=scsi-scan-settle.service
After=scsi-scan-settle.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/settle-probe

[Install]
WantedBy=sysinit.target
"""
PROBE = r"""#!/bin/sh
ls /sys/bus/scsi/devices | grep -E '^[0-9]+:[0-9]+:[0-9]+:[0-9]+$' | sort | tr '\n' ' ' > /run/settle-probe
"""

UNIT = """[Unit]
Description=scsi-scan system test
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/systest

[Install]
WantedBy=multi-user.target
"""


def mirrors():
    """deb lines for Debian's suites, from this machine's apt configuration."""
    lines = []
    for path in glob.glob("/etc/apt/sources.list.d/*.sources"):
        with open(path) as f:
            for stanza in f.read().split("\n\n"):
                fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
                if "deb" not in fields.get("Types", "").split():
                    continue
                for uri in fields.get("URIs", "").split():
                    for suite in fields.get("Suites", "").split():
                        if suite.startswith("bookworm"):
                            lines.append(f"deb {uri} {suite} main")
    for path in ["/etc/apt/sources.list"] + glob.glob("/etc/apt/sources.list.d/*.list"):
        if os.path.exists(path):
            with open(path) as f:
                for ln in f:
                    m = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(bookworm\S*)\s", ln)
                    if m:
                        lines.append(f"deb {m.group(1)} {m.group(2)} main")
    return sorted(set(lines)) or ["deb http://deb.debian.org/debian bookworm main"]


def base_tarball():
    """The Debian root file system without our package, cached by content."""
    deb_lines = mirrors()
    key = hashlib.sha256(("\n".join(PACKAGES + deb_lines)).encode()).hexdigest()[:16]
    path = os.path.join(vmlib.CACHE, f"system-bookworm-{key}.tar")
    if os.path.exists(path):
        return path
    os.makedirs(vmlib.CACHE, exist_ok=True)
    # test-system-iscsi.py starts at the same time and wants the same one:
    # one builds it, the other waits for it.
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            return path
        vmlib.log(f"mmdebstrap bookworm from {deb_lines[0].split()[1]} (once; cached in {path})")
        t0 = time.monotonic()
        subprocess.run(["mmdebstrap", "--variant=minbase", "--format=tar",
                        "--include=" + ",".join(PACKAGES),
                        "bookworm", path + ".part", *deb_lines], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.rename(path + ".part", path)
        vmlib.log(f"root file system built in {time.monotonic() - t0:.0f} s")
    return path


def build_deb(tmp):
    """The package from the files git knows, as ./dev.sh package builds it."""
    out = os.path.join(tmp, "deb")
    env = dict(os.environ, PKG_DIR=out, DEB_BUILD_OPTIONS="nocheck")
    t0 = time.monotonic()
    p = subprocess.run([os.path.join(SRC, "dev.sh"), "package"], env=env, capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise vmlib.VMError(f"./dev.sh package failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    debs = [d for d in glob.glob(os.path.join(out, "scsi-scan_*.deb"))]
    vmlib.log(f"package built in {time.monotonic() - t0:.0f} s: {os.path.basename(debs[0])}")
    return debs[0]


TRIGGER_LINES = ""


def quirk_data_deb(tmp):
    """A package of another maintainer that ships one quirk file."""
    root = os.path.join(tmp, "quirk-data")
    os.makedirs(os.path.join(root, "DEBIAN"))
    os.makedirs(os.path.join(root, "usr", "lib", "scsi-scan", "quirks.d"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write("Package: systest-quirks\nVersion: 1\nArchitecture: all\n"
                "Maintainer: test <test@example.org>\nDepends: scsi-scan\n"
                "Description: one quirk file, for the trigger test\n")
    with open(os.path.join(root, "usr", "lib", "scsi-scan", "quirks.d", "60-systest.conf"),
              "w") as f:
        f.write('device "systest" {\n\tvendor = "SYSTEST"\n\tflags = {"nolun"}\n}\n')
    out = os.path.join(tmp, "systest-quirks_1_all.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", root, out], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def prepare_root(tmp, tarball, deb, fstab_options, files):
    """Unpacks the root into TMP/root with the package in its /tmp, an fstab
    that mounts the root by label with FSTAB_OPTIONS, and FILES, a list of
    (path in the root, text, mode). Returns the root's path."""
    root = os.path.join(tmp, "root")
    os.makedirs(root)
    subprocess.run(["tar", "-C", root, "-xf", tarball], check=True)
    shutil.copy(deb, os.path.join(root, "tmp"))
    files = [("etc/fstab", f"LABEL={LABEL} / ext4 {fstab_options} 0 1\n", 0o644),
             ("etc/hostname", "systest\n", 0o644)] + files
    for rel, text, mode in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
    return root


def install_script(root, deb, switch_on, units):
    """The shell that installs the package in ROOT (from its /tmp) as
    apt would, runs SWITCH_ON (the lines README.md asks of the machine),
    enables UNITS and makes the initramfs once."""
    return f"""set -e
R={root}
mount -t proc proc $R/proc
mount --rbind /sys $R/sys
mount --rbind /dev $R/dev
export DEBIAN_FRONTEND=noninteractive
# The images are made here for the guest, not for this machine: the hooks
# read no device of it.
mkdir -p $R/tmp/nosys
export SCSI_SCAN_SYSROOT=/tmp/nosys
# The image is made once, below, with the package switched on: not also
# by initramfs-tools' trigger during the install.
sed -i 's/^update_initramfs=.*/update_initramfs=no/' $R/etc/initramfs-tools/update-initramfs.conf
chroot $R apt-get install -y -q /tmp/{os.path.basename(deb)} >/dev/null
sed -i 's/^update_initramfs=.*/update_initramfs=yes/' $R/etc/initramfs-tools/update-initramfs.conf
# README.md, "Switching scanning to user space": the package's files are in
# place; the modprobe.d switch, the daemon, the initramfs.
ln -s /usr/share/scsi-scan/scsi-scan-manual.conf $R/etc/modprobe.d/
{switch_on}
chroot $R systemctl enable scsi-scand.service {" ".join(units)}
chroot $R systemctl mask serial-getty@ttyS0.service
chroot $R update-initramfs -u -k all >/dev/null 2>&1
"""


def install_system(tmp, tarball, deb):
    """Unpacks the root, installs the package, switches as README.md says,
    and makes the disk image. Returns (image, vmlinuz, initrd)."""
    root = prepare_root(tmp, tarball, deb, "defaults", [
        ("usr/local/sbin/systest", GUEST, 0o755),
        ("etc/systemd/system/systest.service", UNIT, 0o644),
        ("usr/local/sbin/settle-probe", PROBE, 0o755),
        ("etc/systemd/system/settle-probe.service", PROBE_UNIT, 0o644)])
    quirks_deb = quirk_data_deb(tmp)
    flags_conf = os.path.join(tmp, "50-flags.conf")
    with open(flags_conf, "w") as f:
        f.write(FLAGS_QUIRKS)
    script = install_script(root, deb, f"""mkdir -p $R/etc/scsi-scan/quirks.d
cp {flags_conf} $R/etc/scsi-scan/quirks.d/50-flags.conf""", ["systest.service",
                                                            "settle-probe.service"])
    script += f"""# Another package adds a quirk file: the interest trigger rebuilds the
# initramfs, which then carries the file.
cp {quirks_deb} $R/tmp/
chroot $R dpkg -i /tmp/{os.path.basename(quirks_deb)} > $R/tmp/trigger.log 2>&1
grep -E "Processing triggers for (scsi-scan|initramfs-tools)|update-initramfs: Generating" $R/tmp/trigger.log | sed 's/^/@@TRIGGER /'
chroot $R lsinitramfs /boot/initrd.img-$(ls $R/usr/lib/modules) | grep 60-systest | sed 's/^/@@INITRAMFS /'
# The compiled database: the package's postinst made one for the root, the
# hook one for the initramfs; each is current where it is used (scsi-scan
# run inside the unpacked initramfs says which database it loaded).
echo "@@IMAGE root=$(test -s $R/etc/scsi-scan/quirks.bin && echo yes || echo no)"
chroot $R unmkinitramfs /boot/initrd.img-$(ls $R/usr/lib/modules) /tmp/ird
ird=$R/tmp/ird; [ -d $ird/main ] && ird=$ird/main
chroot $ird /usr/bin/scsi-scan -v --dry-run 2>&1 | grep 'quirks:' | sed 's/^/@@IMAGE initramfs: /'
rm -rf $R/tmp/ird
"""
    t0 = time.monotonic()
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    if p.returncode != 0:
        raise vmlib.VMError(f"installing the package failed:\n{p.stdout}\n{p.stderr}")
    vmlib.log(f"package installed and switched on in {time.monotonic() - t0:.0f} s")
    global TRIGGER_LINES
    TRIGGER_LINES = p.stdout
    vmlinuz = glob.glob(os.path.join(root, "boot", "vmlinuz-*"))[0]
    initrd = glob.glob(os.path.join(root, "boot", "initrd.img-*"))[0]
    kernel = os.path.join(tmp, "vmlinuz")
    ramdisk = os.path.join(tmp, "initrd.img")
    shutil.copy(vmlinuz, kernel)
    shutil.copy(initrd, ramdisk)
    dracut_image = make_dracut(tmp, root, deb)
    image = os.path.join(tmp, "root.img")
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", LABEL, "-d", root, image, "2G"], check=True)
    shutil.rmtree(root)
    return image, kernel, ramdisk, dracut_image


def make_dracut(tmp, root, deb):
    """Debian's dracut (this machine's, systemd inside) with the package's
    95scsi-scan module, for the image's kernel."""
    if not shutil.which("dracut"):
        return None
    release = os.path.basename(glob.glob(os.path.join(root, "usr", "lib", "modules", "*"))[0])
    pkg = os.path.join(tmp, "pkg")
    subprocess.run(["dpkg-deb", "-x", deb, pkg], check=True)
    # the root's local quirk file, which dracut copies from /etc/scsi-scan
    os.makedirs(os.path.join(pkg, "etc", "scsi-scan", "quirks.d"), exist_ok=True)
    with open(os.path.join(pkg, "etc", "scsi-scan", "quirks.d", "50-flags.conf"), "w") as f:
        f.write(FLAGS_QUIRKS)
    base = os.path.join(tmp, "dracut-base")
    # this machine's dracut, without a 95scsi-scan a package put there
    vmlib.without_project("/usr/lib/dracut", base, ("modules.d/95scsi-scan",))
    shutil.copytree(os.path.join(pkg, "usr", "lib", "dracut", "modules.d", "95scsi-scan"),
                    os.path.join(base, "modules.d", "95scsi-scan"))
    out = os.path.join(tmp, "initrd-dracut.img")
    kmod = os.path.join(root, "usr", "lib", "modules", release)
    # made for the guest: its two devices the local quirk file names
    guest = os.path.join(tmp, "sys-guest")
    for n, (vendor, model) in enumerate([("COMPAQ", "MSA1000"), ("ACME", "Ctl")]):
        dev = os.path.join(guest, f"sys/bus/scsi/devices/0:0:{n}:0")
        os.makedirs(dev)
        for attr, value in (("vendor", f"{vendor:<8}"), ("model", f"{model:<16}"),
                            ("type", "0")):
            with open(os.path.join(dev, attr), "w") as f:
                f.write(value + "\n")
    script = f"""SCSI_SCAN_SYSROOT={guest} dracutbasedir={base} dracut --no-hostonly --no-hostonly-cmdline --kver {release} \
	--kmoddir {kmod} --add scsi-scan \
	--omit "plymouth crypt lvm mdraid dm multipath nfs iscsi network network-legacy ifcfg" \
	--add-drivers "virtio_pci virtio_scsi sd_mod sg ext4" --force {out}
"""
    t0 = time.monotonic()
    p = vmlib.run_private(script, vmlib.hermetic_binds(tmp, pkg))
    if p.returncode != 0:
        raise vmlib.VMError(f"dracut failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    vmlib.log(f"dracut image built in {time.monotonic() - t0:.0f} s")
    return out


def disks(tmp, image):
    """The root on a virtio-scsi controller; a second one with sparse LUNs,
    a target without LUN 0 and a nolun CD-ROM with a LUN behind it."""
    args = ["-device", "virtio-scsi-pci,id=s0", "-device", "virtio-scsi-pci,id=s1",
            "-drive", f"file={image},if=none,id=root,format=raw",
            "-device", "scsi-hd,drive=root,bus=s0.0,scsi-id=0,lun=0"]
    # Two more LUNs behind the root's target: scsi_scan.lunmask= keeps them
    # out of the initramfs.
    for lun in (1, 2):
        path = os.path.join(tmp, f"r{lun}.img")
        subprocess.run(["truncate", "-s", "8M", path], check=True)
        args += ["-drive", f"file={path},if=none,id=r{lun},format=raw",
                 "-device", f"scsi-hd,drive=r{lun},bus=s0.0,scsi-id=0,lun={lun}"]
    layout = [("hd", 0, 0), ("hd", 0, 3), ("hd", 0, 7), ("hd", 2, 5), ("cd", 3, 0), ("hd", 3, 1),
              ("hd", 4, 0), ("hd", 5, 0)]
    for i, (kind, target, lun) in enumerate(layout):
        path = os.path.join(tmp, f"d{i}.img")
        subprocess.run(["truncate", "-s", "8M", path], check=True)
        args += ["-drive", f"file={path},if=none,id=d{i},format=raw"]
        dev = f"scsi-{kind},drive=d{i},bus=s1.0,scsi-id={target},lun={lun}"
        if kind == "cd":
            dev += ",vendor=CHINON,product=CD-ROM CDS-431"
        elif target == 4:
            dev += ",vendor=COMPAQ,product=MSA1000"
        elif target == 5:
            dev += ",vendor=ACME,product=Ctl"
        args += ["-device", dev]
    return args


def boot(kernel, initrd, qemu_disks, append, what, timeout=900):
    vmlib.log(f"booting the installed system: {what}")
    # One vCPU: with the other system test's guest beside it on two cores
    # (TCG), a second one cost more than it gave: the two tests took
    # 619 s and 609 s with two vCPUs each, 544 s and 540 s with one.
    return vmlib.boot(kernel, initrd, qemu_disks,
                      append=f"root=LABEL={LABEL} systemd.show_status=false {append}",
                      timeout=timeout, memory=2048)


def field(out, name):
    m = re.search(rf"^@@R {re.escape(name)}[= ](.*)$", out, re.M)
    return m.group(1).strip() if m else ""


def num(text, key):
    m = re.search(rf"{key}=(-?\d+)", text)
    return int(m.group(1)) if m else None


def kernel_release(image):
    """The kernel release whose modules the root image carries."""
    p = subprocess.run(["debugfs", "-R", "ls -p /usr/lib/modules", image], capture_output=True,
                       text=True, check=True)
    names = [f.split("/")[5] for f in p.stdout.splitlines() if f.count("/") >= 6]
    return next(n for n in names if n not in (".", ".."))


def flags_of(out, boot):
    """vendor/model -> (blacklist, block devices) from a boot's @@F lines."""
    return {m.group(1): (m.group(2), int(m.group(3)))
            for m in re.finditer(rf"^@@F {boot} (\S+/\S+) blacklist=\[(.*)\] block=(\d+)",
                                 out, re.M)}


def main():
    if os.geteuid() != 0:
        print("test-system needs root (chroot and mounts to install the package)")
        return 77
    checks = vmlib.Checks(SERIES, "system")
    check = checks.check
    t_start = time.monotonic()
    with tempfile.TemporaryDirectory(dir=vmlib.CACHE if os.path.isdir(vmlib.CACHE) else None) as tmp:
        tarball = base_tarball()
        deb = build_deb(tmp)
        image, kernel, initrd, dracut_initrd = install_system(tmp, tarball, deb)
        qd = disks(tmp, image)
        # Boot 1 also runs update-initramfs in the guest: a longer bound.
        out = boot(kernel, initrd, qd, f"systest=manual {LUNMASK}",
                   "scan=manual, the package switched on, the root LUN named by "
                   "scsi_scan.lunmask=", timeout=1800)
        # Boot 1 ran update-initramfs with the guest's devices: boot 2 uses
        # that image, read back from the root disk.
        initrd2 = os.path.join(tmp, "initrd-updated.img")
        release = os.path.basename(kernel_release(image))
        subprocess.run(["debugfs", "-R", f"dump /boot/initrd.img-{release} {initrd2}", image],
                       check=True, capture_output=True)
        out2 = boot(kernel, initrd2, qd, "systest=sync scsi_mod.scan=sync",
                    "scsi_mod.scan=sync on the command line: the kernel scans, with the "
                    "image update-initramfs made in boot 1")
        out3 = ""
        if dracut_initrd:
            out3 = boot(kernel, dracut_initrd, qd,
                        f"systest=dracut scsi_mod.scan=manual {LUNMASK}",
                        "a dracut initramfs (systemd inside), scan=manual, "
                        "scsi_scan.lunmask=")
    width = 18

    def luns_of(text):
        """H:C:T:L without the host number, which differs between boots."""
        return sorted(a.split(":", 1)[1] for a in text.split())

    failed = re.findall(r"^@@FAILED (.*)$", out, re.M)
    check("running", field(out, "state") == "running" and field(out, "failed") == "0",
          f"is-system-running: {field(out, 'state')}, failed units: {failed or 'none'}", width)
    cycles = re.findall(r"^@@CYCLE (.*)$", out, re.M)
    check("no cycle", field(out, "cycles") == "0", f"ordering cycles in the journal: "
          f"{field(out, 'cycles')} {cycles[:1]}", width)
    check("scan=manual", field(out, "scan") == "manual" and field(out, "active") == "active",
          f"scsi_mod.scan={field(out, 'scan')} (modprobe.d link, in the initramfs), "
          f"scsi-scand {field(out, 'active')}", width)
    ours, kern = field(out, "ctl2-ours"), field(out, "ctl2-kernel")
    check("same as kernel", ours and ours == kern,
          f"second controller: ours [{ours}] kernel's [{kern}]", width)
    def early_check(text, what):
        early = field(text, "early").split()
        il = [line for line in re.findall(r"^@@IL (.*)$", text, re.M) if "skipped" in line]
        root = field(text, "root-target").split()
        ok = (len(early) == 2 and all(a.endswith(":0:0:0") for a in early) and
              field(text, "boot-policy") == "2" and len(root) == 3 and
              any("1 attached" in line and "2 skipped" in line for line in il))
        check(f"lunmask {what}", ok,
              f"{LUNMASK}: before PID 1 of the root the kernel attached only [{' '.join(early)}] "
              f"(the root and target 0 of the other controller); the initramfs's scan: "
              f"{il[0].strip() if il else '?'}; the root's target once the daemon ran: "
              f"[{' '.join(root)}]", width)
    early_check(out, "initramfs-tools")
    hp = field(out, "hotplug-host")
    check("hotplug", num(hp, "luns") == 4 and (num(hp, "by-daemon") or 0) >= 1,
          f"scsi_debug host added at run time: {num(hp, 'luns')} of 4 LUNs after "
          f"{num(hp, 'ms')} ms (after modprobe returned), the daemon's scan logged "
          f"{num(hp, 'by-daemon')} time(s)", width)
    la = field(out, "lun-added")
    check("LUN added", num(la, "luns") == 6, f"LUNs 4 and 5 mapped on the running target: "
          f"{num(la, 'luns')} of 6 after {num(la, 'ms')} ms", width)
    qf = field(out, "quirk-file")
    check("quirk file", num(qf, "luns") == 2, f"new file with max_lun = 1, then a new host: "
          f"{num(qf, 'luns')} LUNs (2 wanted)", width)
    rl = field(out, "reload")
    check("reload", rl.startswith("1") and "active=active" in rl,
          f"systemctl reload: {rl}", width)
    st = field(out, "stop")
    check("stop", (num(st, "ms") or 99999) <= 5000 and "state=inactive" in st,
          f"systemctl stop: {st}", width)
    prio = re.search(r"^@@PRIO (.*)$", out, re.M)
    prios = set(re.findall(r'"PRIORITY":"(\d)"', prio.group(1))) if prio else set()
    check("journal", len(prios) >= 2, f"scsi-scand's journal priorities: "
          f"{prio.group(1).strip() if prio else 'none'}", width)
    trig = re.findall(r"^@@TRIGGER (.*)$", TRIGGER_LINES, re.M)
    inrd = re.findall(r"^@@INITRAMFS (.*)$", TRIGGER_LINES, re.M)
    check("quirk trigger", any("triggers for scsi-scan" in t for t in trig) and
          any("update-initramfs: Generating" in t for t in trig) and inrd,
          f"a package adding a quirk file: {'; '.join(trig)}; in the initramfs: {inrd}", width)
    img = re.findall(r"^@@IMAGE (.*)$", TRIGGER_LINES, re.M)
    check("compiled db", "root=yes" in img and
          any("initramfs: scsi-scan: quirks: the compiled image /etc/scsi-scan/quirks.bin" in i
              for i in img) and field(out, "image") == "1" and field(out, "image-stale") == "1",
          f"postinst and the initramfs hook: {'; '.join(img)}; in the booted system "
          f"scsi-scan loaded the image: {field(out, 'image')}, and the text once a quirk file "
          f"was added: {field(out, 'image-stale')}", width)
    kern2 = field(out2, "ctl2-kernel")
    daemon2 = " | ".join(re.findall(r"^@@DAEMON (.*)$", out2, re.M))
    check("scan=sync", field(out2, "scan") == "sync" and luns_of(kern2) == luns_of(kern) and
          "nothing to do" in daemon2 and "Failed" not in daemon2 and
          field(out2, "state") == "running",
          f"the kernel scanned [{kern2}]; daemon: {daemon2[-220:]}", width)
    if out3:
        check("dracut", field(out3, "state") == "running" and field(out3, "scan") == "manual" and
              luns_of(field(out3, "ctl2-ours")) == luns_of(ours) and
              (num(field(out3, "root"), "initrd-log") or 0) > 0,
              f"booted through dracut's initramfs: {field(out3, 'state')}, "
              f"{field(out3, 'root')}; second controller [{field(out3, 'ctl2-ours')}]", width)
        early_check(out3, "dracut")
    else:
        print("     dracut: not installed on this machine, its boot skipped")
    # The database's flags in the kernel: boot 1 with the image the chroot
    # made (no device of the guest known: the kernel's own flags), boot 2
    # with the one update-initramfs made in boot 1, boot 3 through dracut.
    before, after = flags_of(out, "manual"), flags_of(out2, "sync")
    want = {"COMPAQ/MSA1000": ("SPARSELUN", 1), "ACME/Ctl": ("NO_ULD_ATTACH", 0)}
    differ = field(out, "differ")
    check("kernel flags before", before.get("COMPAQ/MSA1000", ("",))[0] ==
          "SPARSELUN NOSTARTONADD" and before.get("ACME/Ctl", ("", 0))[1] == 1 and
          num(differ, "list") == 2 and num(differ, "explain") == 1 and
          (num(differ, "daemon") or 0) >= 2,
          f"the kernel's own: {before}; list names {num(differ, 'list')} LUNs, explain "
          f"{num(differ, 'explain')}, the daemon's log {num(differ, 'daemon')} "
          f"({' | '.join(re.findall(r'^@@KF .*?scsi-scand.*?: (.*)$', out, re.M))[:300]})",
          width)
    check("update-initramfs", field(out, "devflags") == DEVFLAGS,
          f"in the guest, after the quirk file ({field(out, 'update-initramfs-s')} s): "
          f"{field(out, 'devflags')!r}", width)
    check("kernel flags after", all(after.get(k) == v for k, v in want.items()),
          f"boot 2, that image: {after}", width)
    if out3:
        dr = flags_of(out3, "dracut")
        check("dracut flags", all(dr.get(k) == v for k, v in want.items()) and
              num(field(out3, "differ-dracut"), "daemon") == 0,
              f"boot 3, dracut's image: {dr}; the daemon logged "
              f"{num(field(out3, 'differ-dracut'), 'daemon')} difference(s)", width)
    # The settle point: a unit ordered after it saw every LUN of the boot,
    # the second controller's too, which only the daemon's coldplug attaches.
    for text, what, phase in ((out, "manual", "settled"), (out2, "sync", "kernel"),
                              (out3, "dracut", "settled")):
        if not text:
            continue
        probe, now = field(text, "settle-probe"), field(text, "settle-now")
        unit = field(text, "settle-unit") or ""
        ctl2 = field(text, "ctl2-ours") or field(text, "ctl2-kernel") or ""
        check(f"settle {what}", probe and probe.split() == now.split() and
              unit.startswith(f"active phase={phase} ") and
              (what == "sync" or set(ctl2.split()) <= set(probe.split())),
              f"scsi-scan-settle.service {unit}; the unit after it saw "
              f"{len(probe.split()) if probe else 0} LUNs, "
              f"{len(now.split()) if now else 0} attached at the end of the boot" +
              "".join(f"\n       {x}" for x in re.findall(r"^@@SETTLELOG (.*)$", text, re.M)),
              width)
    t1 = re.search(r"^@@TIME (.*)$", out, re.M)
    t2 = re.search(r"^@@TIME (.*)$", out2, re.M)
    blame = re.findall(r"^@@BLAME (.*)$", out, re.M)
    sec = re.search(r"^@@SECURITY (.*)$", out, re.M)
    print(f"     boot to running, scan=manual with the package: "
          f"{t1.group(1) if t1 else '?'}")
    print(f"     boot to running, scan=sync (the kernel scans):  "
          f"{t2.group(1) if t2 else '?'}")
    print(f"     slowest units (scan=manual): {'; '.join(b.strip() for b in blame)}")
    print(f"     systemd-analyze security in the guest: {sec.group(1) if sec else '?'}")
    print(f"     test took {time.monotonic() - t_start:.0f} s")
    return checks.finish(out + out2 + out3)


if __name__ == "__main__":
    vmlib.main_guard(main)
