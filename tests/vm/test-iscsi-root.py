#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Root on iSCSI under scsi_mod.scan=manual: real Debian initramfs images
(mkinitramfs with open-iscsi's hook and local-top script, which log in
with iscsistart; dracut with its 95iscsi, systemd and iscsid inside) boot
a root file system that is LUN 1 of a target served by a user-space iSCSI
target on this machine (tgtd, listening in a network namespace of its
own, where QEMU runs too: the guest reaches it through QEMU's user
network). The target has four LUNs: 0 (tgt's controller), 1 (the root),
2 and 3.

Boots, each with the kernel's log of what was attached before the root's
init ran:
- open-iscsi's files alone (no scsi-scan): iscsistart writes "- - -"
  itself, so the root is reached and every LUN is attached;
- ours, no policy: the session is scanned by scsi-scan as soon as
  iscsistart has logged in; every LUN, root reached;
- ours, root=iscsi:... (open-iscsi's own form, whose script looks for the
  disk once, right after the login): root reached;
- ours, the image's boot policy (derived from a machine whose root is that
  LUN, the target given in /etc/iscsi/iscsi.initramfs): only LUN 1 before
  the root; then scsi-scand, started in the root, attaches LUNs 0, 2 and 3
  and a LUN 4 mapped on the target while it runs;
- dracut's files alone (netroot=iscsi:, rd.iscsi.initiator): iscsid scans
  the session itself, every LUN, root reached;
- dracut with ours and the boot policy: only LUN 1 before the root, though
  DHCP and the login come many main-loop passes after the first; then
  scsi-scand takes over as above.
The boot policy scsi-quirks derives in the guest on the real kernel (the
root's init runs 'scsi-quirks boot-policy /') must be the one the hook
wrote from the machine it was made for. In the same root, once the daemon
has attached a virtio-scsi disk (target 2, LUN 3): ext2 on an LVM logical
volume on it, and the policy for a root there names that LUN alone.

usage: test-iscsi-root.py BUILD_DIR KERNEL_SERIES   (needs root, tgtd, ip netns; dracut
       with its iscsi module for the dracut boots)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]
UUID = "5c5a5c5a-0000-4000-8000-0000000000bb"
TARGET = "iqn.2026-12.org.example.scsi-scan:root"
INITIATOR = "iqn.2026-12.org.example.scsi-scan:guest"
MARKER = "SCSI-SCAN-ISCSI-ROOT-MOUNTED"

# The root's init: what the kernel attached before it ran (its own log and
# sysfs), the boot policy derived here, then, in the "daemon" boot,
# scsi-scand with systemd-udevd taking over the session.
# Shell of the guests here and in test-system-iscsi.py: HOST's LUNs in LUN
# order, how many, and a wait of up to SECONDS for COUNT of them (prints the
# ms it took).
LUN_HELPERS = r"""luns() { ls /sys/bus/scsi/devices | grep -E "^$1:[0-9]+:[0-9]+:[0-9]+$" | sort -t: -k4n | tr '\n' ' '; }
count() { set -- $(luns $1); echo $#; }
wait_count() { # HOST COUNT SECONDS
	n=0; while [ "$(count $1)" -lt $2 ] && [ $n -lt $(($3 * 10)) ]; do sleep 0.1; n=$((n + 1)); done
	echo $((n * 100))
}
"""

# The host tells "@@MAP-LUN-4" (the test maps LUN 4 on the target), then
# prompts the unit attention with TEST UNIT READY on LUN 1 until host $h has
# 5 LUNs, for up to 60 s; $n counts the tenths of a second.
MAP_LUN_4 = r"""echo "@@MAP-LUN-4"
sg=$(ls /sys/bus/scsi/devices/$h:0:0:1/scsi_generic)
n=0
while [ "$(count $h)" -lt 5 ] && [ $n -lt 600 ]; do
	sg_turs /dev/$sg > /dev/null 2>&1; sleep 0.1; n=$((n + 1))
done
"""

ROOT_INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sysfs /sys 2>/dev/null
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -o remount,rw /
mkdir -p /run /tmp; mount -t tmpfs tmpfs /tmp
echo "@@MARKER@@ $(cat /proc/cmdline)"
echo "@@EARLY $(dmesg | sed -n 's/.*scsi \([0-9]*:[0-9]*:[0-9]*:[0-9]*\): [A-Z].*/\1/p' | sort -u | tr '\n' ' ')"
echo "@@UPTIME $(cat /proc/uptime)"
dmesg | grep -E 'iSCSI Initiator over TCP|Attached SCSI disk' | sed 's/^/@@K /'
echo "@@ISCSIHOST $(ls /sys/class/iscsi_host | sed 's/host//' | head -1)"
echo "@@PING $(cat /sys/class/iscsi_connection/*/recv_tmo 2>/dev/null | head -1)"
echo "@@SYSFS $(ls /sys/bus/scsi/devices | grep -E '^[0-9]+:[0-9]+:[0-9]+:[0-9]+$' | sort | tr '\n' ' ')"
sed 's/^/@@LOG /' /run/scsi-scan.log 2>/dev/null | head -20
scsi-quirks boot-policy / 2>&1 | sed 's/^/@@POLICY /'
""" + LUN_HELPERS + r"""if grep -q iscsitest=daemon /proc/cmdline; then
	h=$(ls /sys/class/iscsi_host | sed 's/host//' | head -1)
	mkdir -p /run/udev /etc/udev /lib/systemd
	ln -sf /bin/udevadm /lib/systemd/systemd-udevd
	/lib/systemd/systemd-udevd --daemon
	udevadm settle -t 10
	scsi-scand --foreground -v > /tmp/scand.log 2>&1 &
	echo "@@T rest ms=$(wait_count $h 4 120) luns=[$(luns $h)]"
""" + MAP_LUN_4 + r"""	echo "@@T added ms=$((n * 100)) luns=[$(luns $h)]"
fi
if grep -q iscsilvm=1 /proc/cmdline; then
	# The boot policy of a root through LVM on a virtio-scsi disk (target
	# 2, LUN 3), which the daemon attaches once its host appears: what the
	# hook would write for a machine whose root that is.
	for m in $(cat /lib/test-modules/order); do insmod /lib/test-modules/$m.ko 2>/dev/null; done
	v=$(for x in /sys/class/scsi_host/host*; do
		[ "$(cat $x/proc_name)" = virtio_scsi ] && echo ${x##*/host}; done | head -1)
	echo "@@T virtio ms=$(wait_count ${v:-none} 1 120) luns=[$(luns ${v:-none})]"
	disk=$(ls /sys/bus/scsi/devices/$v:0:2:3/block 2>/dev/null)
	lvmc='activation { udev_sync = 0 udev_rules = 0 } devices { obtain_device_list_from_udev = 0 }'
	mkdir -p /run/lvm /etc/lvm /mnt/lv
	{ lvm pvcreate -y --config "$lvmc" /dev/$disk && lvm vgcreate --config "$lvmc" vg0 /dev/$disk &&
	  lvm lvcreate -y -Zn --config "$lvmc" -L 8M -n root vg0 &&
	  mke2fs /dev/vg0/root && mount -t ext2 /dev/vg0/root /mnt/lv; } > /tmp/lvm.log 2>&1
	echo "@@T lvm rc=$? slaves=$(ls /sys/block/dm-0/slaves 2>/dev/null | tr '\n' ' ')"
	sed 's/^/@@LVMLOG /' /tmp/lvm.log | tail -5
	scsi-quirks boot-policy /mnt/lv 2>&1 | sed 's/^/@@LVMPOLICY /'
	umount /mnt/lv
fi
if grep -q iscsitest=daemon /proc/cmdline; then
	sed 's/^/@@D /' /tmp/scand.log | grep -v "^@@D $" | tail -15
fi
echo "@@DONE"
sync
poweroff -f
"""


# The target's portal: an address of a private network namespace's
# loopback, where tgtd listens and QEMU runs. The guest reaches it through
# QEMU's user network as the same address (slirp connects to it from that
# namespace), so the portal a SendTargets discovery returns (tgtd answers
# with the address the initiator reached) is one the guest can log in to,
# as dracut's iscsiroot needs. 10.0.2.2, slirp's alias for 127.0.0.1,
# would be answered with 127.0.0.1.
PORTAL_IP = "192.168.77.1"
PORTAL_PORT = 3260


class Target:
    """tgtd in a network namespace of its own, listening on
    PORTAL_IP:PORTAL_PORT with its own control port, serving one target of
    image files; stopped by close()."""

    def __init__(self, tmp, luns):
        self.port = PORTAL_PORT
        self.netns = f"scsi-scan-iscsi-{os.getpid()}"
        subprocess.run(["ip", "netns", "add", self.netns], check=True)
        self.proc = None
        try:
            for cmd in (["link", "set", "lo", "up"],
                        ["addr", "add", f"{PORTAL_IP}/32", "dev", "lo"]):
                subprocess.run(["ip", "-n", self.netns, *cmd], check=True)
            # tgtadm takes control ports up to 32767; one per test run
            self.ctl = str(os.getpid() % 30000 + 100)
            self.proc = subprocess.Popen(["ip", "netns", "exec", self.netns, "tgtd", "-f",
                                          "-C", self.ctl, "--iscsi",
                                          f"portal={PORTAL_IP}:{self.port}"],
                                         stdout=open(os.path.join(tmp, "tgtd.log"), "w"),
                                         stderr=subprocess.STDOUT)
            for _ in range(100):
                if self.adm("--op", "show", "--mode", "system", check=False).returncode == 0:
                    break
                time.sleep(0.1)
            self.adm("--op", "new", "--mode", "target", "--tid", "1", "-T", TARGET)
            for lun, path in luns:
                self.map(lun, path)
            self.adm("--op", "bind", "--mode", "target", "--tid", "1", "-I", "ALL")
        except BaseException:
            self.close()
            raise

    def adm(self, *args, check=True):
        return subprocess.run(["tgtadm", "-C", self.ctl, "--lld", "iscsi", *args],
                              capture_output=True, text=True, check=check)

    def map(self, lun, path):
        self.adm("--op", "new", "--mode", "logicalunit", "--tid", "1", "--lun", str(lun),
                 "-b", path)

    def unmap(self, lun):
        self.adm("--op", "delete", "--mode", "logicalunit", "--tid", "1", "--lun", str(lun),
                 check=False)

    def close(self):
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        subprocess.run(["ip", "netns", "del", self.netns])


def make_root(path, tmp, staging, modules=()):
    """An ext4 image holding busybox, the installed project with its
    libraries, systemd-udevd, sg_turs, LVM, @modules (loaded by
    the daemon boot) and ROOT_INIT as /init."""
    cpio = os.path.join(tmp, "root.cpio")
    vmlib.build_initramfs(cpio, staging, modules, ROOT_INIT.replace("@@MARKER@@", MARKER),
                          programs=["/bin/udevadm", "/sbin/lvm"])
    tree = os.path.join(tmp, "rootfs")
    os.makedirs(tree)
    with open(cpio, "rb") as f:
        subprocess.run(["cpio", "-id", "--quiet"], cwd=tree, stdin=f, check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-U", UUID, "-d", tree, path, "96M"], check=True)


def iscsi_sysfs(path, lun, disk, devt):
    """The machine an image is made for: its root file system on @disk, LUN
    @lun of the iSCSI session to TARGET (host 2), laid out as the kernel's
    sysfs has it (the session under the host, the target under the
    session), as scsi-quirks boot-policy reads it (SCSI_SCAN_SYSROOT)."""
    hctl = f"2:0:0:{lun}"
    session = "sys/devices/platform/host2/session1"
    dev = os.path.join(path, session, "target2:0:0", hctl)
    os.makedirs(os.path.join(dev, "block", disk))
    for name, value in (("vendor", "IET     "), ("model", "VIRTUAL-DISK    "), ("type", "0")):
        with open(os.path.join(dev, name), "w") as f:
            f.write(value + "\n")
    with open(os.path.join(dev, "block", disk, "dev"), "w") as f:
        f.write(devt + "\n")
    os.makedirs(os.path.join(path, "sys/bus/scsi/devices"))
    os.symlink(os.path.join("../../..", session, "target2:0:0", hctl),
               os.path.join(path, "sys/bus/scsi/devices", hctl))
    for cls in ("scsi_host", "iscsi_host"):
        os.makedirs(os.path.join(path, f"sys/class/{cls}/host2"))
    with open(os.path.join(path, "sys/class/scsi_host/host2/proc_name"), "w") as f:
        f.write("iscsi_tcp\n")
    sess = os.path.join(path, session, "iscsi_session", "session1")
    os.makedirs(os.path.join(sess, "device"))
    for name, value in (("targetname", TARGET), ("tpgt", "1"), ("state", "LOGGED_IN"),
                        ("target_id", "0")):
        with open(os.path.join(sess, name), "w") as f:
            f.write(value + "\n")
    os.makedirs(os.path.join(path, "sys/class/iscsi_session"))
    os.symlink("../../devices/platform/host2/session1/iscsi_session/session1",
               os.path.join(path, "sys/class/iscsi_session/session1"))
    os.makedirs(os.path.join(sess, "device", "target2:0:0"))
    os.makedirs(os.path.join(path, "sys/class/block"))
    os.symlink(os.path.join("../../..", session, "target2:0:0", hctl, "block", disk),
               os.path.join(path, "sys/class/block", disk))
    os.makedirs(os.path.join(path, "proc/self"))
    with open(os.path.join(path, "proc/self/mountinfo"), "w") as f:
        f.write(f"22 1 {devt} / / rw,relatime - ext4 /dev/{disk} rw\n")
    return path


def make_initramfs(out, release, moddir, staging, ours, tmp, name, sysroot=None,
                   iscsi_initramfs=None, env=""):
    """vmlib.mkinitramfs() with virtio_net, open-iscsi's hook and scripts
    (this machine's package) and, if @ours, the project's; open-iscsi's
    hook copies the machine's /etc/iscsi/initiatorname.iscsi and
    @iscsi_initramfs, the text of /etc/iscsi/iscsi.initramfs: the guest's,
    here."""
    etc = os.path.join(tmp, f"etc-iscsi-{name}")
    os.makedirs(etc)
    with open(os.path.join(etc, "initiatorname.iscsi"), "w") as f:
        f.write(f"InitiatorName={INITIATOR}\n")
    if iscsi_initramfs:
        with open(os.path.join(etc, "iscsi.initramfs"), "w") as f:
            f.write(iscsi_initramfs)
    sysroot = sysroot or os.path.join(tmp, "sys-none")
    os.makedirs(os.path.join(sysroot, "sys/bus/scsi/devices"), exist_ok=True)
    vmlib.mkinitramfs(out, release, moddir, staging, ours, tmp, sysroot, name, env=env,
                      drivers="virtio_pci\nvirtio_net\n", extra_binds=[(etc, "/etc/iscsi")])


def make_dracut_image(out, release, moddir, staging, ours, tmp, name, sysroot=None, env=""):
    """This machine's dracut (systemd, network-legacy and 95iscsi inside)
    for the kernel of @moddir, with the project's 95scsi-scan from
    @staging if @ours; none a package put on this machine either way.
    95scsi-scan reads the machine's devices under @sysroot; @env: more of
    its environment."""
    base = os.path.join(tmp, f"dracut-{name}")
    vmlib.without_project("/usr/lib/dracut", base, ("modules.d/95scsi-scan",))
    if ours:
        shutil.copytree(os.path.join(staging, "usr", "lib", "dracut", "modules.d",
                                     "95scsi-scan"),
                        os.path.join(base, "modules.d", "95scsi-scan"))
    sysroot = sysroot or os.path.join(tmp, "sys-none")
    os.makedirs(os.path.join(sysroot, "sys/bus/scsi/devices"), exist_ok=True)
    add = "iscsi network-legacy" + (" scsi-scan" if ours else "")
    script = (f"{env} SCSI_SCAN_SYSROOT={sysroot} dracutbasedir={base} dracut --no-hostonly "
              f"--no-hostonly-cmdline --kver {release} --kmoddir {moddir} --add '{add}' "
              f"--omit 'plymouth crypt lvm mdraid dm dmraid multipath nfs ifcfg "
              f"network-manager systemd-networkd' "
              f"--drivers 'virtio_pci virtio_net sd_mod sg ext4 iscsi_tcp' "
              f"--install '/lib/open-iscsi/startup-checks.sh /usr/bin/grep' --force {out}\n")
    p = vmlib.run_private(script, vmlib.hermetic_binds(tmp, staging) +
                          [vmlib.modules_bind(tmp, release, moddir)])
    if p.returncode != 0:
        raise vmlib.VMError(f"dracut failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")


def boot(vmlinuz, initrd, append, target, timeout=600, qemu_args=(), memory=1024, smp=1):
    """Boots with a virtio-net NIC on QEMU's user network; maps LUN 4 on
    @target when the guest asks (@@MAP-LUN-4). Returns the console output,
    or what came before the timeout."""
    cmd = ["ip", "netns", "exec", target.netns, "qemu-system-x86_64", "-accel", "tcg",
           "-m", str(memory), "-smp", str(smp), "-nographic", "-no-reboot",
           "-kernel", vmlinuz, "-initrd", initrd, "-append",
           f"console=ttyS0 panic=1 {append}", "-netdev", "user,id=n0",
           "-device", "virtio-net-pci,netdev=n0", *qemu_args]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace")
    lines = []
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    try:
        for line in p.stdout:
            lines.append(line)
            if line.startswith("@@MAP-LUN-4"):
                target.map(4, target.extra)
        p.wait()
    finally:
        timer.cancel()
    return "".join(lines)


def hctls(text):
    return sorted(text.split(), key=lambda s: [int(x) for x in s.split(":")])


def main():
    if os.geteuid() != 0:
        print("test-iscsi-root needs root (unshare and mount for mkinitramfs)")
        return 77
    for prog, pkg in (("tgtd", "tgt"), ("iscsistart", "open-iscsi")):
        if not shutil.which(prog):
            print(f"test-iscsi-root needs {prog} (Debian package {pkg})")
            return 77
    start = time.monotonic()
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    subprocess.run(["depmod", "-b", os.path.dirname(os.path.dirname(os.path.dirname(moddir))),
                    release], check=True)
    checks = vmlib.Checks(SERIES, "iscsi-root")
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_project(BUILD, staging)
        root = os.path.join(tmp, "root.img")
        make_root(root, tmp, staging, vmlib.module_order(moddir, ["dm_mod", "virtio_scsi"]))
        luns = [(1, root)]
        for n in (2, 3):
            img = os.path.join(tmp, f"lun{n}.img")
            subprocess.run(["truncate", "-s", "8M", img], check=True)
            luns.append((n, img))
        target = Target(tmp, luns)
        target.extra = os.path.join(tmp, "lun4.img")
        subprocess.run(["truncate", "-s", "8M", target.extra], check=True)
        try:
            return run_boots(checks, tmp, staging, vmlinuz, moddir, release, target, start)
        finally:
            target.close()


def image_file(image, path):
    """The text of @path in the initramfs @image (lsinitrd reads both
    mkinitramfs's and dracut's), or ""."""
    p = subprocess.run(["lsinitrd", "-f", path, image], capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else ""


def run_boots(checks, tmp, staging, vmlinuz, moddir, release, target, start):
    t0 = time.monotonic()
    plain = os.path.join(tmp, "initrd-open-iscsi.img")
    ours = os.path.join(tmp, "initrd-ours.img")
    policied = os.path.join(tmp, "initrd-policy.img")
    dracut_plain = os.path.join(tmp, "initrd-dracut-plain.img")
    dracut_policied = os.path.join(tmp, "initrd-dracut-policy.img")
    make_initramfs(plain, release, moddir, staging, False, tmp, "conf-plain")
    make_initramfs(ours, release, moddir, staging, True, tmp, "conf-ours")
    # made on a machine whose root is LUN 1 of the session to TARGET, the
    # target named in open-iscsi's iscsi.initramfs
    sysroot = iscsi_sysfs(os.path.join(tmp, "sys-iscsi"), 1, "sda", "8:0")
    make_initramfs(policied, release, moddir, staging, True, tmp, "conf-policy", sysroot,
                   iscsi_initramfs=(f"ISCSI_INITIATOR={INITIATOR}\nISCSI_TARGET_NAME={TARGET}\n"
                                    f"ISCSI_TARGET_IP={PORTAL_IP}\n"
                                    f"ISCSI_TARGET_PORT={target.port}\n"),
                   env="SCSI_SCAN_BOOT_POLICY=yes")
    with_dracut = shutil.which("dracut") and os.path.isdir("/usr/lib/dracut/modules.d/95iscsi")
    if with_dracut:
        make_dracut_image(dracut_plain, release, moddir, staging, False, tmp, "plain")
        make_dracut_image(dracut_policied, release, moddir, staging, True, tmp, "policy",
                          sysroot, env="SCSI_SCAN_BOOT_POLICY=yes")
    policies = {"initramfs-tools": image_file(policied, "etc/scsi-scan/boot-policy.conf")}
    if with_dracut:
        policies["dracut"] = image_file(dracut_policied, "etc/scsi-scan/boot-policy.conf")
    vmlib.log(f"initramfs images built in {time.monotonic() - t0:.0f} s; the policy "
              f"images carry:\n" + "\n".join(f"{k}:\n{v}" for k, v in policies.items()))
    params = (f"iscsi_initiator={INITIATOR} iscsi_target_name={TARGET} "
              f"iscsi_target_ip={PORTAL_IP} iscsi_target_port={target.port}")
    base = "ip=dhcp scsi_mod.scan=manual rootdelay=1 init=/init"
    # dracut's forms (netroot=iscsi:, rd.iscsi.initiator); a failed boot
    # powers off instead of waiting in an emergency shell. No NOP-Out pings:
    # a guest starved of CPU under TCG (CI on a busy machine) misses their
    # 5 s answers, the connection is dropped, and the busybox root has no
    # iscsid to log in again, so the session would end FAILED.
    netroot = (f"netroot=iscsi:{PORTAL_IP}::{target.port}:1:{TARGET} "
               f"rd.iscsi.initiator={INITIATOR} ip=dhcp rd.neednet=1 "
               f"rd.iscsi.param=node.conn[0].timeo.noop_out_interval=0 "
               f"rd.iscsi.param=node.conn[0].timeo.noop_out_timeout=0")
    dbase = (f"root=UUID={UUID} {netroot} scsi_mod.scan=manual init=/init rd.shell=0 "
             f"rd.emergency=poweroff rd.timeout=300")
    cases = [
        ("open-iscsi alone", plain, f"root=UUID={UUID} {base} {params}"),
        ("ours, no policy", ours, f"root=UUID={UUID} {base} {params}"),
        ("ours, root=iscsi:", ours,
         f"root=iscsi:{PORTAL_IP}::{target.port}:1:{TARGET} {base} "
         f"iscsi_initiator={INITIATOR}"),
        ("ours, boot policy", policied,
         f"root=UUID={UUID} {base} iscsitest=daemon iscsilvm=1"),
    ]
    if with_dracut:
        cases += [
            ("dracut alone", dracut_plain, dbase),
            ("dracut, boot policy", dracut_policied, f"{dbase} iscsitest=daemon"),
        ]
    lvdisk = os.path.join(tmp, "lvm.img")
    subprocess.run(["truncate", "-s", "32M", lvdisk], check=True)
    virtio = ["-device", "virtio-scsi-pci,id=vs0", "-drive",
              f"if=none,id=lv,file={lvdisk},format=raw", "-device",
              "scsi-hd,drive=lv,bus=vs0.0,scsi-id=2,lun=3"]
    outs = {}
    only = os.environ.get("BOOT_CASES")
    for name, initrd, append in cases:
        if only and not re.search(only, name):
            continue
        t1 = time.monotonic()
        # LUN 4 is mapped during the boots that ask for it, not before
        target.unmap(4)
        out = boot(vmlinuz, initrd, append, target,
                   qemu_args=virtio if "iscsilvm=1" in append else ())
        outs[name] = out
        # SCSI_SCAN_KEEP_CONSOLE=DIR: each boot's whole console there
        keep = os.environ.get("SCSI_SCAN_KEEP_CONSOLE")
        if keep:
            os.makedirs(keep, exist_ok=True)
            with open(os.path.join(keep, re.sub(r"\W+", "-", name) + ".log"), "w") as f:
                f.write(out)
        early = re.search(r"^@@EARLY (.*)$", out, re.M)
        found = MARKER in out
        vmlib.log(f"{name}: {'root reached' if found else 'no root'} in "
                  f"{time.monotonic() - t1:.0f} s; attached before the root: "
                  f"{early.group(1) if early else '-'}")
        if not found:
            print("\n".join(out.splitlines()[-60:]))

    def host(name):
        m = re.search(r"^@@ISCSIHOST (\d+)$", outs.get(name, ""), re.M)
        return m.group(1) if m else None

    def of_session(name, text):
        """The session's LUNs among the H:C:T:L of @text (the guest's
        other hosts, dracut's ata_piix, left out)."""
        h = host(name)
        return [int(x.split(":")[3]) for x in hctls(text) if x.split(":")[0] == h]

    def early(name):
        m = re.search(r"^@@EARLY (.*)$", outs.get(name, ""), re.M)
        return of_session(name, m.group(1)) if m else None

    def sysfs(name):
        m = re.search(r"^@@SYSFS (.*)$", outs.get(name, ""), re.M)
        return of_session(name, m.group(1)) if m else None

    def login_to_root(name):
        """Seconds from the session's host (the login) to the root's LUN
        in the kernel's log, or None."""
        out = outs.get(name, "")
        login = re.search(r"^\[ *(\d+\.\d+)\] scsi host(\d+): iSCSI Initiator", out, re.M)
        if not login:
            return None
        lun = re.search(rf"^\[ *(\d+\.\d+)\] scsi {login.group(2)}:0:0:1: ", out, re.M)
        return float(lun.group(1)) - float(login.group(1)) if lun else None

    every = [0, 1, 2, 3]
    for name, want, what in (
            ("open-iscsi alone", every, "iscsistart's own '- - -' attaches every LUN"),
            ("ours, no policy", every, "scsi-scan after iscsistart's login, no policy"),
            ("ours, root=iscsi:", every, "open-iscsi's script finds root=iscsi:'s LUN"),
            ("ours, boot policy", [1], "only the root's LUN before the root"),
            ("dracut alone", every, "dracut's iscsid login scans every LUN itself"),
            ("dracut, boot policy", [1], "dracut: only the root's LUN before the root")):
        if name not in outs:
            continue
        got, seen, delay = early(name), sysfs(name), login_to_root(name)
        checks.check(name, MARKER in outs[name] and got == want and seen == want,
                     f"{what}: root {'reached' if MARKER in outs[name] else 'NOT reached'}"
                     f"; the session's LUNs in the kernel's log before the root: {got}; "
                     f"in sysfs: {seen}; the root's LUN "
                     f"{'-' if delay is None else f'{delay:.2f} s'} after the login")
    for name, builder in (("ours, boot policy", "initramfs-tools"),
                          ("dracut, boot policy", "dracut")):
        if name not in outs:
            continue
        out = outs[name]
        derived = "\n".join(re.findall(r"^@@POLICY (.*)$", out, re.M))
        policy = policies.get(builder, "")
        want_policy = f'iscsi_target = "{TARGET}"'
        checks.check(f"policy derived, {builder}",
                     want_policy in policy and 'luns = { "1" }' in policy and
                     want_policy in derived and 'luns = { "1" }' in derived,
                     f"the {builder} hook's policy (from the image) and scsi-quirks "
                     f"boot-policy on the booted root both name {TARGET} LUN 1:\n{derived}")
        ping = re.search(r"^@@PING (\S+)", out, re.M)
        rest = re.search(r"^@@T rest ms=(\d+) luns=\[(.*)\]$", out, re.M)
        added = re.search(r"^@@T added ms=(\d+) luns=\[(.*)\]$", out, re.M)
        checks.check(f"daemon takes over, {builder}",
                     bool(rest) and of_session(name, rest.group(2)) == every and
                     bool(added) and of_session(name, added.group(2)) == every + [4],
                     f"scsi-scand in the root: the rest of the target "
                     f"{rest.group(2) if rest else '-'} after {rest.group(1) if rest else '-'} ms; "
                     f"LUN 4 mapped on the target: {added.group(2) if added else '-'} after "
                     f"{added.group(1) if added else '-'} ms; the connection's NOP-Out "
                     f"interval {ping.group(1) if ping else '-'} s" +
                     ("" if added else "\n" + "\n".join(re.findall(r"^@@D .*$", out, re.M))))
    if "ours, boot policy" in outs:
        out = outs["ours, boot policy"]
        lv = re.search(r"^@@T lvm rc=(\d+) slaves=(.*)$", out, re.M)
        lvpolicy = "\n".join(re.findall(r"^@@LVMPOLICY (.*)$", out, re.M))
        checks.check("policy through LVM",
                     bool(lv) and lv.group(1) == "0" and lv.group(2).strip().startswith("sd") and
                     re.search(r'driver = "virtio_scsi"\s+channel = 0\s+id = 2\s+'
                               r'luns = \{ "3" \}', lvpolicy) is not None and
                     lvpolicy.count("lunmask ") == 2,
                     f"ext2 on an LVM logical volume (slaves {lv.group(2) if lv else '-'}) on "
                     f"virtio-scsi target 2 LUN 3: scsi-quirks boot-policy:\n{lvpolicy}" +
                     ("" if lv and lv.group(1) == "0" else "\n" + "\n".join(
                         re.findall(r"^@@LVMLOG .*$", out, re.M))))
    if not with_dracut:
        print("     dracut: not installed with its iscsi module here, its boots skipped")
    return checks.finish(outs.get("dracut, boot policy", outs.get("ours, boot policy", "")))


if __name__ == "__main__":
    vmlib.main_guard(main)
