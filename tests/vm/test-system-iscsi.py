#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An installed Debian 12 whose root is an iSCSI LUN: test-system's root
file system (mmdebstrap, open-iscsi among its packages) with the package
built from this tree installed and switched on as README.md says (the
modprobe.d link, 'systemctl enable scsi-scand', node.session.scan =
manual in iscsid.conf), open-iscsi's initramfs integration as its
documentation describes it (/etc/iscsi/iscsi.initramfs), written as an
ext4 image that is LUN 1 of a target served by tgtd in a network
namespace of this machine (test-iscsi-root's Target: LUN 0 is tgt's
controller, 2 and 3 are data). Booted under QEMU with systemd as PID 1.

Boot 1, initramfs-tools, the image update-initramfs made in the chroot
(no device known there: no boot policy): the root is reached, every LUN
of the target is attached before it; the system runs, scsi-scand attaches
a LUN mapped on the target at run time. Then, in the guest, the machine is
made host-only (MODULES=dep, virtio_net in /etc/initramfs-tools/modules)
and update-initramfs -u derives the boot policy from the running root.
Boot 2, that image (read back from the LUN): only the root's LUN before
the switch to the root; scsi-scand attaches the rest of the target and a
LUN mapped at run time.
Boot 3, dracut (this machine's, 95iscsi and systemd inside, netroot=iscsi:)
with the package's 95scsi-scan and a boot policy for a machine whose root
is that LUN: only the root's LUN before the switch; the daemon takes over.

usage: test-system-iscsi.py BUILD_DIR KERNEL_SERIES   (needs root, tgtd, ip netns)
"""

import glob
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
system = vmlib.load_test("test-system.py", BUILD, SERIES)
iroot = vmlib.load_test("test-iscsi-root.py", BUILD, SERIES)

# Runs in the guest once the boot is done (a unit after multi-user.target);
# prints @@ lines on the serial console and powers off.
GUEST = r"""#!/bin/sh
exec > /dev/ttyS0 2>&1
mode=$(sed -n 's/.*systest=\([a-z]*\).*/\1/p' /proc/cmdline)
echo "@@UP $mode"
echo "@@R state=$(systemctl is-system-running --wait)"
systemctl --failed --no-legend --plain | sed 's/^/@@FAILED /'
for u in $(systemctl --failed --no-legend --plain | awk '{print $1}'); do
	journalctl -b -u $u --no-pager -o short-monotonic | tail -8 | sed "s/^/@@FAILLOG /"
done
echo "@@R scan=$(cat /sys/module/scsi_mod/parameters/scan)"
echo "@@R active=$(systemctl is-active scsi-scand)"
h=$(ls /sys/class/iscsi_host | sed 's/host//' | head -1)
echo "@@R iscsihost=$h"
root=$(findmnt -n -o SOURCE /)
echo "@@R root=$root $(readlink -f /sys/class/block/${root#/dev/}/device | sed 's/.*\///')"
# What the midlayer attached before the root's PID 1 started: the kernel's
# log up to systemd's banner in the root (dracut's systemd logs one first).
pid1=$(journalctl -b -o short-monotonic --no-pager | grep 'running in system mode' | tail -1 |
	sed 's/^\[ *\([0-9.]*\)\].*/\1/')
echo "@@R early=$(journalctl -b -k -o short-monotonic --no-pager |
	sed -n 's/^\[ *\([0-9.]*\)\] [^ ]* kernel: scsi \([0-9]*:[0-9]*:[0-9]*:[0-9]*\): .*/\1 \2/p' |
	awk -v t="$pid1" '$1 < t { print $2 }' | sort -u | tr '\n' ' ')"
journalctl -b -k -o short-monotonic --no-pager | grep -E "scsi host$h: iSCSI|scsi $h:0:0:1: " |
	head -2 | sed 's/^/@@K /'
sed 's/^/@@IL /' /run/scsi-scan.log 2>/dev/null | head -12
""" + iroot.LUN_HELPERS + r"""n=0; while ! journalctl -u scsi-scand --no-pager | grep -q "coldplug done" && [ $n -lt 900 ]; do
	sleep 0.2; n=$((n + 1)); done
echo "@@R rest ms=$(wait_count $h 4 120) luns=[$(luns $h)]"
echo "@@R iscsid scan=$(sed -n 's/^node.session.scan *= *//p' /etc/iscsi/iscsid.conf)"
journalctl -b -u iscsid --no-pager -o short-monotonic | tail -4 | sed 's/^/@@ISCSID /'
""" + iroot.MAP_LUN_4 + r"""echo "@@R added ms=$((n * 100)) luns=[$(luns $h)]"
journalctl -b -u scsi-scand --no-pager -o cat | grep -E "host$h: scanned|coldplug" | sed 's/^/@@D /'
scsi-quirks boot-policy / 2>&1 | sed 's/^/@@POLICY /'
if [ "$mode" = tools ]; then
	# Host-only, as an administrator makes it: the modules of this
	# machine's root, and the network driver its session needs.
	sed -i 's/^MODULES=.*/MODULES=dep/' /etc/initramfs-tools/initramfs.conf
	echo virtio_net >> /etc/initramfs-tools/modules
	t0=$(date +%s)
	update-initramfs -u > /tmp/update.log 2>&1
	echo "@@R update-initramfs rc=$? s=$(( $(date +%s) - t0 ))"
	tail -5 /tmp/update.log | sed 's/^/@@U /'
	rm -rf /tmp/ird; unmkinitramfs /boot/initrd.img-$(uname -r) /tmp/ird
	cat /tmp/ird/etc/scsi-scan/boot-policy.conf /tmp/ird/main/etc/scsi-scan/boot-policy.conf \
		2>/dev/null | sed 's/^/@@IMGPOLICY /'
fi
echo "@@DONE"
sync
systemctl poweroff -f
"""

UNIT = """[Unit]
Description=scsi-scan system test, root on iSCSI
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/systest

[Install]
WantedBy=multi-user.target
"""


def install_system(tmp, tarball, deb, target_port):
    """Unpacks the root, installs the package, switches it on and sets up
    open-iscsi's initramfs integration as a machine booting from TARGET
    has it. Returns (root.img, vmlinuz, initrd, release, dracut's image or
    None)."""
    root = system.prepare_root(tmp, tarball, deb, "defaults,_netdev", [
        ("usr/local/sbin/systest", GUEST, 0o755),
        ("etc/systemd/system/systest.service", UNIT, 0o644),
        ("etc/iscsi/initiatorname.iscsi", f"InitiatorName={iroot.INITIATOR}\n", 0o644),
        ("etc/iscsi/iscsi.initramfs",
         f"ISCSI_INITIATOR={iroot.INITIATOR}\nISCSI_TARGET_NAME={iroot.TARGET}\n"
         f"ISCSI_TARGET_IP={iroot.PORTAL_IP}\nISCSI_TARGET_PORT={target_port}\n", 0o644)])
    script = system.install_script(root, deb, """# README.md: iscsid leaves new sessions' LUNs to scsi-scand
sed -i 's/^node.session.scan *=.*/node.session.scan = manual/' $R/etc/iscsi/iscsid.conf""",
                                   ["systest.service"])
    t0 = time.monotonic()
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    if p.returncode != 0:
        raise vmlib.VMError(f"installing the package failed:\n{p.stdout}\n{p.stderr}")
    vmlib.log(f"package installed and switched on in {time.monotonic() - t0:.0f} s")
    release = os.path.basename(glob.glob(os.path.join(root, "usr", "lib", "modules", "*"))[0])
    kernel = os.path.join(tmp, "vmlinuz")
    initrd = os.path.join(tmp, "initrd.img")
    shutil.copy(os.path.join(root, "boot", f"vmlinuz-{release}"), kernel)
    shutil.copy(os.path.join(root, "boot", f"initrd.img-{release}"), initrd)
    dracut_initrd = make_dracut(tmp, deb, release,
                                os.path.join(root, "usr", "lib", "modules", release))
    image = os.path.join(tmp, "root.img")
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", system.LABEL, "-d", root, image, "2G"],
                   check=True)
    shutil.rmtree(root)
    return image, kernel, initrd, release, dracut_initrd


def make_dracut(tmp, deb, release, moddir):
    """This machine's dracut (95iscsi, systemd inside) with the package's
    95scsi-scan, for the image's kernel (@moddir), made for a machine whose
    root is LUN 1 of the session to TARGET (its boot policy names that
    LUN). None without dracut's iscsi module here."""
    if not (shutil.which("dracut") and os.path.isdir("/usr/lib/dracut/modules.d/95iscsi")):
        return None
    pkg = os.path.join(tmp, "pkg")
    subprocess.run(["dpkg-deb", "-x", deb, pkg], check=True)
    out = os.path.join(tmp, "initrd-dracut.img")
    t0 = time.monotonic()
    sysroot = iroot.iscsi_sysfs(os.path.join(tmp, "sys-iscsi"), 1, "sda", "8:0")
    iroot.make_dracut_image(out, release, moddir, pkg, True, tmp, "system", sysroot,
                            env="SCSI_SCAN_BOOT_POLICY=yes")
    vmlib.log(f"dracut image built in {time.monotonic() - t0:.0f} s")
    return out


def field(out, name):
    m = re.search(rf"^@@R {re.escape(name)}[= ](.*)$", out, re.M)
    return m.group(1).strip() if m else ""


def session_luns(out, text):
    """The LUNs of the guest's iSCSI host among the H:C:T:L of @text."""
    h = field(out, "iscsihost")
    return sorted(int(a.split(":")[3]) for a in text.split() if a.split(":")[0] == h)


def main():
    if os.geteuid() != 0:
        print("test-system-iscsi needs root (chroot, mounts, ip netns)")
        return 77
    for prog, pkg in (("tgtd", "tgt"), ("mmdebstrap", "mmdebstrap")):
        if not shutil.which(prog):
            print(f"test-system-iscsi needs {prog} (Debian package {pkg})")
            return 77
    checks = vmlib.Checks(SERIES, "system-iscsi")
    t_start = time.monotonic()
    with tempfile.TemporaryDirectory(dir=vmlib.CACHE if os.path.isdir(vmlib.CACHE) else None) as tmp:
        tarball = system.base_tarball()
        deb = system.build_deb(tmp)
        image, kernel, initrd, release, dracut_initrd = install_system(tmp, tarball, deb,
                                                                       iroot.PORTAL_PORT)
        luns = [(1, image)]
        for n in (2, 3):
            path = os.path.join(tmp, f"lun{n}.img")
            subprocess.run(["truncate", "-s", "8M", path], check=True)
            luns.append((n, path))
        target = iroot.Target(tmp, luns)
        target.extra = os.path.join(tmp, "lun4.img")
        subprocess.run(["truncate", "-s", "8M", target.extra], check=True)
        try:
            outs = run_boots(tmp, target, image, kernel, initrd, release, dracut_initrd)
        finally:
            target.close()
        dracut_policy = iroot.image_file(dracut_initrd, "etc/scsi-scan/boot-policy.conf") \
            if dracut_initrd else ""
    report(checks, outs, dracut_policy)
    print(f"     test took {time.monotonic() - t_start:.0f} s")
    return checks.finish("".join(outs.values()))


def run_boots(tmp, target, image, kernel, initrd, release, dracut_initrd):
    """The three boots' console output, by name."""
    base = f"root=LABEL={system.LABEL} ip=dhcp quiet systemd.show_status=false"
    # No NOP-Out pings on dracut's session, as in test-iscsi-root: a guest
    # starved of CPU under TCG (CI on a busy machine) misses their 5 s
    # answers and the connection drops; twice in CI the root's
    # iscsid.service had failed after the switch from dracut, nothing
    # logged in again, and the root's I/O failed 120 s later.
    netroot = (f"netroot=iscsi:{iroot.PORTAL_IP}::{target.port}:1:{iroot.TARGET} "
               f"rd.iscsi.initiator={iroot.INITIATOR} rd.neednet=1 rd.shell=0 "
               f"rd.emergency=poweroff rd.timeout=300 scsi_mod.scan=manual "
               f"rd.iscsi.param=node.conn[0].timeo.noop_out_interval=0 "
               f"rd.iscsi.param=node.conn[0].timeo.noop_out_timeout=0")
    outs = {}

    def one(name, ramdisk, append):
        target.unmap(4)
        vmlib.log(f"booting the installed system, root on iSCSI: {name}")
        t0 = time.monotonic()
        # One vCPU: with the other system test's guest beside it on two cores
        # (TCG), a second one cost more than it gave: the two tests took
        # 619 s and 609 s with two vCPUs each, 544 s and 540 s with one.
        out = iroot.boot(kernel, ramdisk, f"{base} {append}", target, timeout=1500,
                         memory=2048)
        vmlib.log(f"{name}: {'done' if '@@DONE' in out else 'NOT done'} in "
                  f"{time.monotonic() - t0:.0f} s")
        if "@@DONE" not in out:
            lines = out.splitlines()
            print("\n".join([ln for ln in lines[:-60]
                             if re.search(r"iscsi|connection|session", ln, re.I)][-40:] +
                            lines[-60:]))
        outs[name] = out
        # SCSI_SCAN_KEEP_CONSOLE=DIR: each boot's whole console there
        keep = os.environ.get("SCSI_SCAN_KEEP_CONSOLE")
        if keep:
            os.makedirs(keep, exist_ok=True)
            with open(os.path.join(keep, re.sub(r"\W+", "-", name) + ".log"), "w") as f:
                f.write(out)

    one("initramfs-tools", initrd, "systest=tools")
    # the image update-initramfs made in the guest, host-only, read back
    # from the root LUN
    derived = os.path.join(tmp, "initrd-derived.img")
    subprocess.run(["debugfs", "-R", f"dump /boot/initrd.img-{release} {derived}", image],
                   check=True, capture_output=True)
    one("initramfs-tools, derived policy", derived, "systest=derived")
    if dracut_initrd:
        one("dracut, boot policy", dracut_initrd, f"systest=dracut {netroot}")
    else:
        print("     dracut: not installed with its iscsi module here, its boot skipped")
    return outs


def report(checks, outs, dracut_policy):
    """The checks of each boot's console output; @dracut_policy: the boot
    policy dracut's hook put in its image."""
    width = 24
    every = [0, 1, 2, 3]
    want_policy = f'iscsi_target = "{iroot.TARGET}"'
    for name, early_want in (("initramfs-tools", every),
                             ("initramfs-tools, derived policy", [1]),
                             ("dracut, boot policy", [1])):
        if name not in outs:
            continue
        out = outs[name]
        failed = re.findall(r"^@@FAILED (.*)$", out, re.M)
        early = session_luns(out, field(out, "early"))
        root = field(out, "root").split()
        login = re.findall(r"^@@K \[ *(\d+\.\d+)\]", out, re.M)
        delay = (f"{float(login[1]) - float(login[0]):.2f} s" if len(login) == 2 else "-")
        checks.check(f"{name}", field(out, "state") == "running" and not failed and
                     field(out, "scan") == "manual" and field(out, "active") == "active" and
                     len(root) == 2 and root[1].endswith(":0:0:1") and early == early_want,
                     f"root {' on '.join(root) or 'NOT reached'}; {field(out, 'state')}, "
                     f"failed units {failed or 'none'}; scan={field(out, 'scan')}, scsi-scand "
                     f"{field(out, 'active')}; the session's LUNs attached before the root's "
                     f"PID 1: {early} (want {early_want}); the root's LUN {delay} after "
                     f"the login" + ("" if early == early_want else "".join(
                         f"\n       {x}" for x in re.findall(r"^@@IL (.*)$", out, re.M))) +
                     "".join(f"\n       {x}" for x in re.findall(r"^@@FAILLOG (.*)$", out, re.M)),
                     width)
        rest = re.search(r"ms=(\d+) luns=\[(.*)\]", field(out, "rest"))
        added = re.search(r"ms=(\d+) luns=\[(.*)\]", field(out, "added"))
        daemon = re.findall(r"^@@D (.*)$", out, re.M)
        # what the daemon's scans attached: the LUNs the initramfs left
        # out, then LUN 4
        by_daemon = sum(int(n) for n in re.findall(r"scanned.*: (\d+) LUN\(s\) attached",
                                                   "\n".join(daemon)))
        want_daemon = len(every) - len(early_want) + 1
        checks.check(f"daemon, {name}",
                     bool(rest) and session_luns(out, rest.group(2)) == every and
                     bool(added) and session_luns(out, added.group(2)) == every + [4] and
                     field(out, "iscsid scan") == "manual" and by_daemon == want_daemon,
                     f"scsi-scand (iscsid's node.session.scan = {field(out, 'iscsid scan')}): "
                     f"the target {session_luns(out, rest.group(2)) if rest else '-'} after "
                     f"{rest.group(1) if rest else '-'} ms; LUN 4 mapped at run time: "
                     f"{session_luns(out, added.group(2)) if added else '-'} after "
                     f"{added.group(1) if added else '-'} ms; the daemon's scans attached "
                     f"{by_daemon} (want {want_daemon})" +
                     "".join(f"\n       {d}" for d in daemon[-6:]), width)
    out = outs.get("dracut, boot policy", "")
    if out:
        derived = "\n".join(re.findall(r"^@@POLICY (.*)$", out, re.M))
        checks.check("policy, dracut", want_policy in dracut_policy and
                     'luns = { "1" }' in dracut_policy and
                     derived.strip() == dracut_policy.strip(),
                     f"the policy dracut's hook wrote (made for a machine whose root is LUN 1) "
                     f"is what scsi-quirks boot-policy / prints in the booted system:\n"
                     f"{dracut_policy or derived}", width)
    out = outs.get("initramfs-tools", "")
    if out:
        derived = "\n".join(re.findall(r"^@@POLICY (.*)$", out, re.M))
        image = "\n".join(re.findall(r"^@@IMGPOLICY (.*)$", out, re.M))
        upd = field(out, "update-initramfs")
        checks.check("policy derived", upd.startswith("rc=0") and
                     want_policy in image and 'luns = { "1" }' in image and
                     derived.strip() == image.strip(),
                     f"update-initramfs -u in the guest, MODULES=dep ({upd}): the image's "
                     f"boot policy names the root's LUN, as scsi-quirks boot-policy / "
                     f"does:\n{image or derived}" +
                     "".join(f"\n       {u}" for u in re.findall(r"^@@U (.*)$", out, re.M)),
                     width)


if __name__ == "__main__":
    vmlib.main_guard(main)
