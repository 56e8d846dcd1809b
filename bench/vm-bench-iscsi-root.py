#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Booting from an iSCSI target of 256 LUNs, on the real kernel: the root at
LUN 1 of a target served by tgtd in a network namespace of this machine
(the setup of tests/vm/test-iscsi-root.py), one mkinitramfs image with open-iscsi's files,
the project's and the boot policy of a machine whose root is that LUN.

Per round, the order alternating, two boots of the same image:
- kernel: scsi_mod.scan=sync; the project's files stay out, iscsistart
  writes "- - -" after its login and the kernel scans all 256 LUNs;
- ours: scsi_mod.scan=manual; the login is made with node.session.scan =
  manual and scsi-scan attaches the root's LUN only (the boot policy).
From the kernel's log: the session's host appearing (the login), the
root's block device ("sd H:C:T:1: Attached SCSI disk"), and the root's
init running (its /proc/uptime). Medians with min-max.

--dracut: a dracut image instead (netroot=iscsi:, iscsid and systemd
inside, the project's module and the same boot policy); under scan=sync
iscsid scans the session itself, under scan=manual the main loop's
scsi-scan with the boot policy.

usage: vm-bench-iscsi-root.py BUILD_DIR [KERNEL_SERIES] [--rounds N] [--luns N] [--dracut]
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vm"))
import vmlib  # noqa: E402

BUILD, SERIES, ROUNDS = vmlib.bench_args(3)
LUNS = int(sys.argv[sys.argv.index("--luns") + 1]) if "--luns" in sys.argv else 256
DRACUT = "--dracut" in sys.argv


def times(out):
    """(login, root block device, root init) in seconds of uptime, and the
    session's host number."""
    login = re.search(r"^@@K \[\s*([0-9.]+)\] scsi host(\d+): iSCSI Initiator over TCP", out,
                      re.M)
    dev = re.search(r"^@@K \[\s*([0-9.]+)\] sd \d+:\d+:\d+:1: \[sd\w+\] Attached SCSI disk",
                    out, re.M)
    up = re.search(r"^@@UPTIME ([0-9.]+)", out, re.M)
    if not (login and dev and up):
        raise vmlib.VMError(f"no times in the boot's output:\n{out[-3000:]}")
    return float(login.group(1)), float(dev.group(1)), float(up.group(1)), login.group(2)


def spread(values):
    return f"{statistics.median(values):6.2f} s ({min(values):.2f}-{max(values):.2f})"


def main():
    if os.geteuid() != 0:
        print("needs root")
        return 77
    t = vmlib.load_test("test-iscsi-root.py", BUILD, SERIES)
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    subprocess.run(["depmod", "-b", os.path.dirname(os.path.dirname(os.path.dirname(moddir))),
                    release], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_project(BUILD, staging)
        root = os.path.join(tmp, "root.img")
        t.make_root(root, tmp, staging)
        luns = [(1, root)]
        for n in range(2, LUNS):
            img = os.path.join(tmp, f"lun{n}.img")
            subprocess.run(["truncate", "-s", "1M", img], check=True)
            luns.append((n, img))
        target = t.Target(tmp, luns)
        target.extra = None
        try:
            sysroot = t.iscsi_sysfs(os.path.join(tmp, "sys-iscsi"), 1, "sda", "8:0")
            image = os.path.join(tmp, "initrd.img")
            if DRACUT:
                t.make_dracut_image(image, release, moddir, staging, True, tmp, "policy",
                                    sysroot, env="SCSI_SCAN_BOOT_POLICY=yes")
                append = (f"root=UUID={t.UUID} netroot=iscsi:{t.PORTAL_IP}::{target.port}:1:"
                          f"{t.TARGET} rd.iscsi.initiator={t.INITIATOR} ip=dhcp rd.neednet=1 "
                          f"init=/init rd.shell=0 rd.emergency=poweroff rd.timeout=300")
            else:
                t.make_initramfs(image, release, moddir, staging, True, tmp, "conf", sysroot,
                                 iscsi_initramfs=(f"ISCSI_INITIATOR={t.INITIATOR}\n"
                                                  f"ISCSI_TARGET_NAME={t.TARGET}\n"
                                                  f"ISCSI_TARGET_IP={t.PORTAL_IP}\n"
                                                  f"ISCSI_TARGET_PORT={target.port}\n"),
                                 env="SCSI_SCAN_BOOT_POLICY=yes")
                append = f"root=UUID={t.UUID} ip=dhcp rootdelay=1 init=/init"
            result = {"kernel": [], "ours": []}
            for i in range(ROUNDS):
                order = ["kernel", "ours"] if i % 2 == 0 else ["ours", "kernel"]
                for who in order:
                    mode = "sync" if who == "kernel" else "manual"
                    out = t.boot(vmlinuz, image, f"{append} scsi_mod.scan={mode} quiet "
                                 f"log_buf_len=8M", target)
                    login, dev, init, host = times(out)
                    # the session's LUNs (dracut's image brings ata_piix too)
                    early = [x for x in re.search(r"^@@EARLY (.*)$", out, re.M).group(1).split()
                             if x.split(":")[0] == host]
                    result[who].append((dev - login, init - login, len(early)))
                    vmlib.log(f"round {i + 1} {who}: login to the root's disk "
                              f"{dev - login:.2f} s, to its init {init - login:.2f} s, "
                              f"{len(early)} LUNs attached before the root")
        finally:
            target.close()
    print(f"\niSCSI root, {'dracut' if DRACUT else 'initramfs-tools'}, target of {LUNS} LUNs, "
          f"Linux {release} (TCG), {ROUNDS} rounds; median (min-max)")
    print(f"{'':28} {'kernel (scan=sync)':26} {'ours (manual, boot policy)':26} ratio")
    for k, what in ((0, "login to the root's disk"), (1, "login to the root's init")):
        kv = [r[k] for r in result["kernel"]]
        ov = [r[k] for r in result["ours"]]
        print(f"{what:28} {spread(kv):26} {spread(ov):26} "
              f"{statistics.median(ov) / statistics.median(kv):.2f}")
    print(f"{'LUNs attached before root':28} {result['kernel'][0][2]:<26} "
          f"{result['ours'][0][2]:<26}")
    return 0


if __name__ == "__main__":
    vmlib.main_guard(main)
