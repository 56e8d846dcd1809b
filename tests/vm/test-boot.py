#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot safety: a real Debian initramfs (mkinitramfs) with our hook finds a
root file system on a virtio-scsi disk when the kernel runs with
scsi_mod.scan=manual; the same initramfs without the hook does not.

usage: test-boot.py BUILD_DIR KERNEL_SERIES

mkinitramfs needs /lib/modules/VERSION; it runs in a private mount
namespace (unshare) where the cached kernel's modules are bound there, so
nothing is written to the host's /lib/modules (a machine without one gets
an empty mount point for the run). Needs root (as CI runs).
"""

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
UUID = "5c5a5c5a-0000-4000-8000-0000000000aa"
MARKER = "SCSI-SCAN-ROOT-MOUNTED"

ROOT_INIT = f"""#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc 2>/dev/null
/bin/busybox mount -t sysfs sysfs /sys 2>/dev/null
echo "{MARKER} $(/bin/busybox cat /proc/cmdline)"
# the flags the kernel applied to each LUN, and whether sd took it
for d in /sys/bus/scsi/devices/*:*:*:*; do
	[ -e "$d/vendor" ] || continue
	v=$(/bin/busybox cat $d/vendor | /bin/busybox tr -d ' ')
	m=$(/bin/busybox cat $d/model | /bin/busybox tr -d ' ')
	b=$(/bin/busybox ls $d/block 2>/dev/null | /bin/busybox wc -l)
	echo "@@F $v/$m blacklist=[$(/bin/busybox cat $d/blacklist)] block=$b"
	echo "@@D ${{d##*/}}"
done
/bin/busybox poweroff -f
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


def fake_sysfs(path, devices):
    """The SCSI devices of the machine an image is made for, as the hook reads
    them (SCSI_SCAN_SYSROOT): (vendor, model) each."""
    for n, (vendor, model) in enumerate(devices):
        dev = os.path.join(path, f"sys/bus/scsi/devices/0:0:{n}:0")
        os.makedirs(dev)
        for name, value in (("vendor", f"{vendor:<8}"), ("model", f"{model:<16}"),
                            ("type", "0")):
            with open(os.path.join(dev, name), "w") as f:
                f.write(value + "\n")
    os.makedirs(os.path.join(path, "sys/bus/scsi/devices"), exist_ok=True)
    return path


def attached(out):
    """The H:C:T:L of each LUN attached when the root's init ran."""
    return sorted(re.findall(r"^@@D (\d+:\d+:\d+:\d+)", out, re.M))


def make_root(path, tmp):
    """A small ext4 image whose init prints the marker and powers off."""
    tree = os.path.join(tmp, "rootfs")
    for d in ("bin", "sbin", "proc", "sys", "dev", "run", "tmp"):
        os.makedirs(os.path.join(tree, d), exist_ok=True)
    shutil.copy2("/bin/busybox", os.path.join(tree, "bin", "busybox"))
    with open(os.path.join(tree, "sbin", "init"), "w") as f:
        f.write(ROOT_INIT)
    os.chmod(os.path.join(tree, "sbin", "init"), 0o755)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-U", UUID, "-d", tree, path, "16M"], check=True)


def make_initramfs(out, release, moddir, staging, with_hook, tmp, sysroot, name=None,
                   env="", drivers="virtio_pci\nvirtio_scsi\n"):
    """vmlib.mkinitramfs() with the virtio-scsi drivers unless told others."""
    vmlib.mkinitramfs(out, release, moddir, staging, with_hook, tmp, sysroot,
                      name or ("conf-hook" if with_hook else "conf-plain"), env=env,
                      drivers=drivers)


def disks(layout):
    """QEMU arguments for one virtio-scsi controller; layout: (id, lun, image)
    or (id, lun, image, vendor, product)."""
    args = ["-device", "virtio-scsi-pci,id=vs0"]
    for i, (sid, lun, img, *names) in enumerate(layout):
        dev = f"scsi-hd,drive=d{i},bus=vs0.0,scsi-id={sid},lun={lun}"
        if names:
            dev += f",vendor={names[0]},product={names[1]}"
        args += ["-drive", f"if=none,id=d{i},file={img},format=raw,snapshot=on",
                 "-device", dev]
    return args


# The root's end device behind the mptsas controller (target 1).
SAS_ROOT = "0x5000c500a1b20110"


def sas_disks(layout):
    """QEMU arguments for one mptsas1068 controller; layout: (id, lun, image);
    each disk's wwn, which QEMU gives its end device as SAS address, is
    0x5000c500a1b201TL."""
    args = ["-device", "mptsas1068,id=sas0"]
    for i, (sid, lun, img) in enumerate(layout):
        args += ["-drive", f"if=none,id=s{i},file={img},format=raw,snapshot=on",
                 "-device", f"scsi-hd,drive=s{i},bus=sas0.0,scsi-id={sid},lun={lun},"
                 f"wwn=0x5000c500a1b201{sid:01x}{lun:01x}"]
    return args


def flags_of(out):
    """vendor/model -> (blacklist, block devices) from the root's @@F lines."""
    return {m.group(1): (m.group(2), int(m.group(3)))
            for m in re.finditer(r"^@@F (\S+/\S+) blacklist=\[(.*)\] block=(\d+)", out, re.M)}


def main():
    if os.geteuid() != 0:
        print("test-boot needs root (unshare and mount for mkinitramfs)")
        return 77
    start = time.monotonic()
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    subprocess.run(["depmod", "-b", os.path.dirname(os.path.dirname(os.path.dirname(moddir))),
                    release], check=True)
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_project(BUILD, staging)
        root = os.path.join(tmp, "root.img")
        other = os.path.join(tmp, "other.img")
        other2 = os.path.join(tmp, "other2.img")
        make_root(root, tmp)
        subprocess.run(["truncate", "-s", "8M", other], check=True)
        subprocess.run(["truncate", "-s", "8M", other2], check=True)
        t0 = time.monotonic()
        hooked = os.path.join(tmp, "initrd-hook.img")
        plain = os.path.join(tmp, "initrd-plain.img")
        flagged = os.path.join(tmp, "initrd-flags.img")
        # The images are made for the test's guest, not this machine: the
        # hook reads no device here, or the guest's two (COMPAQ MSA1000,
        # ACME Ctl) under the local quirk file.
        nodev = fake_sysfs(os.path.join(tmp, "sys-none"), [])
        guest = fake_sysfs(os.path.join(tmp, "sys-guest"),
                           [("COMPAQ", "MSA1000"), ("ACME", "Ctl")])
        make_initramfs(hooked, release, moddir, staging, True, tmp, nodev)
        make_initramfs(plain, release, moddir, staging, False, tmp, nodev)
        staging2 = os.path.join(tmp, "staging-flags")
        shutil.copytree(staging, staging2, symlinks=True)
        os.makedirs(os.path.join(staging2, "etc", "scsi-scan", "quirks.d"), exist_ok=True)
        with open(os.path.join(staging2, "etc", "scsi-scan", "quirks.d", "50-flags.conf"),
                  "w") as f:
            f.write(FLAGS_QUIRKS)
        make_initramfs(flagged, release, moddir, staging2, True, tmp, guest, "conf-flags")
        # the boot policy of a host-only image made on a machine whose root
        # is LUN 3 of target 0 (sdb)
        policied = os.path.join(tmp, "initrd-policy.img")
        make_initramfs(policied, release, moddir, staging, True, tmp,
                       vmlib.policy_sysfs(os.path.join(tmp, "sys-policy"), "0:0:0:3", "sdb", "8:16"),
                       "conf-policy", env="SCSI_SCAN_BOOT_POLICY=yes")
        # dracut's rd.lunmask=sas on a root behind Debian's mptsas (QEMU's
        # mptsas1068: an end device's SAS address is its disk's wwn)
        sas = os.path.join(tmp, "initrd-sas.img")
        make_initramfs(sas, release, moddir, staging, True, tmp, nodev, "conf-sas",
                       drivers="mptsas\n")
        p = subprocess.run(["sh", "-c", f"unmkinitramfs {policied} {tmp}/y && "
                            f"cat {tmp}/y/etc/scsi-scan/boot-policy.conf "
                            f"{tmp}/y/main/etc/scsi-scan/boot-policy.conf 2>/dev/null"],
                           capture_output=True, text=True)
        policy = p.stdout
        vmlib.log("the boot policy image carries:\n" + policy)
        p = subprocess.run(["sh", "-c", f"unmkinitramfs {flagged} {tmp}/x && "
                            f"cat {tmp}/x/etc/modprobe.d/scsi-scan-dev-flags.conf "
                            f"{tmp}/x/main/etc/modprobe.d/scsi-scan-dev-flags.conf 2>/dev/null"],
                           capture_output=True, text=True)
        modprobe_line = p.stdout.strip()
        vmlib.log(f"three initramfs images built in {time.monotonic() - t0:.0f} s; "
                  f"the flags image carries: {modprobe_line}")
        two = [(1, 0, other, "COMPAQ", "MSA1000"), (2, 0, other2, "ACME", "Ctl")]
        three = [(0, 0, other), (0, 3, root), (1, 0, other2)]
        cases = [
            ("no boot policy: every LUN", hooked, three, True),
            ("boot policy: the root's LUN only", policied, three, True),
            ("boot policy, root moved: every LUN", policied, [(0, 0, other), (1, 2, root)],
             True),
            ("root at LUN 0", hooked, [(0, 0, root)], True),
            ("root at LUN 3", hooked, [(0, 0, other), (0, 3, root)], True),
            ("root on a target without LUN 0", hooked, [(1, 2, root)], True),
            ("no hook: root never found", plain, [(0, 0, root)], False),
            ("the kernel's own flags", hooked, [(0, 0, root)] + two, True),
            ("the database's flags", flagged, [(0, 0, root)] + two, True),
            ("mptsas, no mask: every LUN", sas, [(1, 0, root), (2, 0, other)], True),
            ("rd.lunmask=sas: the root's only", sas, [(1, 0, root), (2, 0, other)], True),
        ]
        outs = {}
        # BOOT_CASES=REGEX: only the boots whose names match (for a developer)
        only = os.environ.get("BOOT_CASES")
        for name, initrd, layout, expect in cases:
            if only and not re.search(only, name):
                continue
            t0 = time.monotonic()
            append = (f"root=UUID={UUID} rootwait scsi_mod.scan=manual panic=1 "
                      f"rootdelay=1")
            devices = disks(layout)
            if initrd == sas:
                devices = sas_disks(layout)
            if name.startswith("rd.lunmask=sas"):
                append += f" rd.lunmask=sas,{SAS_ROOT}"
            cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1024", "-nographic",
                   "-no-reboot", "-kernel", vmlinuz, "-initrd", initrd, "-append",
                   f"console=ttyS0 {append}", *devices]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                   timeout=600)
                out = p.stdout
            except subprocess.TimeoutExpired as e:
                out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
            outs[name] = out
            found = MARKER in out
            gave_up = "does not exist" in out or "Gave up waiting" in out
            ok = found if expect else (not found and gave_up)
            what = "root mounted, init ran" if found else (
                "initramfs gave up waiting for the root device" if gave_up else "no marker")
            print(f"{'ok' if ok else 'FAIL':4} {SERIES:5} {name:34} {what} "
                  f"({time.monotonic() - t0:.0f} s)")
            if not ok:
                failed.append(name)
                print("\n".join([line for line in out.splitlines()[:-40]
                                 if re.search(r"scsi-scan|scsi \d|sd \d|Running|Waiting", line)] +
                                out.splitlines()[-40:]))
    # the boot policy: what the root's init found attached, against the same
    # disks without a policy, and a root that moved
    every = attached(outs.get("no boot policy: every LUN", ""))
    only = attached(outs.get("boot policy: the root's LUN only", ""))
    moved_out = outs.get("boot policy, root moved: every LUN", "")
    moved = attached(moved_out)
    ok = ('driver = "virtio_scsi"\n\tchannel = 0\n\tid = 0\n\tluns = { "3" }' in policy and
          every == ["0:0:0:0", "0:0:0:3", "0:0:1:0"] and only == ["0:0:0:3"] and
          moved == ["0:0:0:0", "0:0:1:2"] and
          "the root is on none of the LUNs of the image's boot policy" in moved_out)
    # rd.lunmask=sas: the root's end device only, the other disk's not
    # (mptsas numbers the end devices' targets itself: one LUN attached,
    # the root's, since the root was reached)
    sas_out = outs.get("rd.lunmask=sas: the root's only", "")
    got = attached(sas_out)
    every_sas = attached(outs.get("mptsas, no mask: every LUN", ""))
    ok_sas = len(got) == 1 and MARKER in sas_out and len(every_sas) == 2
    if "rd.lunmask=sas: the root's only" in outs:
        print(f"{'ok' if ok_sas else 'FAIL':4} {SERIES:5} {'rd.lunmask=sas, mkinitramfs':34} "
              f"rd.lunmask=sas,{SAS_ROOT} on mptsas (the root's end device and one more): "
              f"attached before the root {got} (without the mask {every_sas}), the root "
              f"reached: {MARKER in sas_out}")
    if not ok_sas and "rd.lunmask=sas: the root's only" in outs:
        failed.append("rd.lunmask=sas")
    print(f"{'ok' if ok else 'FAIL':4} {SERIES:5} {'boot policy from the root':34} "
          f"attached before the root: without {every}, with {only}; root moved: {moved}")
    if not ok:
        failed.append("boot policy")
    # dev_flags from the image: a flag the database drops, one it adds to a
    # device no table knows (which sd then does not take)
    before, after = flags_of(outs.get("the kernel's own flags", "")), flags_of(
        outs.get("the database's flags", ""))
    want = {"COMPAQ/MSA1000": ("SPARSELUN", 1), "ACME/Ctl": ("NO_ULD_ATTACH", 0)}
    ok = (all(after.get(k) == v for k, v in want.items()) and
          before.get("COMPAQ/MSA1000", ("",))[0] == "SPARSELUN NOSTARTONADD" and
          before.get("ACME/Ctl", ("", 0))[1] == 1 and
          modprobe_line == 'options scsi_mod dev_flags=COMPAQ:MSA1000:0x40,ACME:Ctl:0x100000')
    print(f"{'ok' if ok else 'FAIL':4} {SERIES:5} {'dev_flags from the image':34} "
          f"{modprobe_line!r}; blacklist and sd before: {before}; after: {after}")
    if not ok:
        failed.append("dev_flags")
    print(f"{SERIES}: boot {len(cases) + 3 - len(failed)} passed, {len(failed)} failed, "
          f"in {time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    vmlib.main_guard(main)
