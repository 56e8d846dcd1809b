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
echo "{MARKER} $(/bin/busybox cat /proc/cmdline)"
/bin/busybox poweroff -f
"""


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


def make_initramfs(out, release, moddir, staging, with_hook, tmp):
    """mkinitramfs with a configuration of our own (MODULES=list)."""
    conf = os.path.join(tmp, "conf-hook" if with_hook else "conf-plain")
    os.makedirs(os.path.join(conf, "hooks"))
    os.makedirs(os.path.join(conf, "scripts"))
    os.makedirs(os.path.join(conf, "conf.d"))
    with open(os.path.join(conf, "initramfs.conf"), "w") as f:
        f.write("MODULES=list\nBUSYBOX=y\nKEYMAP=n\nCOMPRESS=gzip\nDEVICE=\nNFSROOT=auto\n"
                "RUNSIZE=10%\nFSTYPE=ext4\n")
    with open(os.path.join(conf, "modules"), "w") as f:
        f.write("virtio_pci\nvirtio_scsi\nsd_mod\nsg\next4\n")
    if with_hook:
        # as installed: meson fills in the hook's paths
        it = os.path.join(staging, "usr", "share", "initramfs-tools")
        shutil.copy2(os.path.join(it, "hooks", "scsi-scan"), os.path.join(conf, "hooks"))
        shutil.copytree(os.path.join(it, "scripts"), os.path.join(conf, "scripts"),
                        dirs_exist_ok=True)
    # the kernel's modules at /lib/modules/VERSION, in a private namespace
    fake = os.path.join(tmp, "lib-modules")
    os.makedirs(fake, exist_ok=True)
    if not os.path.exists(os.path.join(fake, release)):
        os.symlink(moddir, os.path.join(fake, release))
    # and its /boot (mkinitramfs reads the kernel's config there)
    boot = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(moddir))), "boot")
    # Only the tree under test's hook and scripts, never a copy of the
    # project installed on this machine (/usr/share/initramfs-tools).
    binds = vmlib.hermetic_binds(tmp, staging) + [(fake, "/lib/modules"), (boot, "/boot")]
    p = vmlib.run_private(f"SCSI_SCAN_ROOT={staging} mkinitramfs -d {conf} -o {out} {release}\n",
                          binds)
    if p.returncode != 0:
        raise vmlib.VMError(f"mkinitramfs failed:\n{p.stdout}\n{p.stderr}")


def disks(layout):
    """QEMU arguments for one virtio-scsi controller; layout: (id, lun, image)."""
    args = ["-device", "virtio-scsi-pci,id=vs0"]
    for i, (sid, lun, img) in enumerate(layout):
        args += ["-drive", f"if=none,id=d{i},file={img},format=raw,snapshot=on",
                 "-device", f"scsi-hd,drive=d{i},bus=vs0.0,scsi-id={sid},lun={lun}"]
    return args


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
        make_root(root, tmp)
        subprocess.run(["truncate", "-s", "8M", other], check=True)
        t0 = time.monotonic()
        hooked = os.path.join(tmp, "initrd-hook.img")
        plain = os.path.join(tmp, "initrd-plain.img")
        make_initramfs(hooked, release, moddir, staging, True, tmp)
        make_initramfs(plain, release, moddir, staging, False, tmp)
        vmlib.log(f"two initramfs images built in {time.monotonic() - t0:.0f} s")
        cases = [
            ("root at LUN 0", hooked, [(0, 0, root)], True),
            ("root at LUN 3", hooked, [(0, 0, other), (0, 3, root)], True),
            ("root on a target without LUN 0", hooked, [(1, 2, root)], True),
            ("no hook: root never found", plain, [(0, 0, root)], False),
        ]
        for name, initrd, layout, expect in cases:
            t0 = time.monotonic()
            append = (f"root=UUID={UUID} rootwait scsi_mod.scan=manual panic=1 "
                      f"rootdelay=1")
            cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1024", "-nographic",
                   "-no-reboot", "-kernel", vmlinuz, "-initrd", initrd, "-append",
                   f"console=ttyS0 {append}", *disks(layout)]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                   timeout=600)
                out = p.stdout
            except subprocess.TimeoutExpired as e:
                out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
            found = MARKER in out
            gave_up = "does not exist" in out or "Gave up waiting" in out
            ok = found if expect else (not found and gave_up)
            what = "root mounted, init ran" if found else (
                "initramfs gave up waiting for the root device" if gave_up else "no marker")
            print(f"{'ok' if ok else 'FAIL':4} {SERIES:5} {name:34} {what} "
                  f"({time.monotonic() - t0:.0f} s)")
            if not ok:
                failed.append(name)
                print("\n".join(out.splitlines()[-40:]))
    print(f"{SERIES}: boot {len(cases) - len(failed)} passed, {len(failed)} failed, "
          f"in {time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    vmlib.main_guard(main)
