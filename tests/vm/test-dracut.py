#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The dracut module in a real dracut image: Debian's dracut-core builds an
initramfs for the test kernel with the 95scsi-scan module, and the image
must carry scsi-scan, the quirk database, sg and the initqueue hook, and the boot policy of the machine it is made for.

usage: test-dracut.py BUILD_DIR KERNEL_SERIES

Runs in a private mount namespace: the installed project is bound over
/usr/bin/scsi-scan and /usr/lib/scsi-scan, the kernel's modules over
/lib/modules, and dracut reads its modules from a copy that has ours.
Needs root. (Booting the image is left to initramfs-tools' test: under
TCG, dracut's generic image did not reach the root within 10 minutes.)
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    if os.geteuid() != 0 or not shutil.which("dracut"):
        print("needs root and dracut (Debian package dracut-core)")
        return 77
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    subprocess.run(["depmod", "-b", os.path.dirname(os.path.dirname(os.path.dirname(moddir))),
                    release], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_project(BUILD, staging)
        base = os.path.join(tmp, "dracut")
        # this machine's dracut, without a 95scsi-scan a package put there
        vmlib.without_project("/usr/lib/dracut", base, ("modules.d/95scsi-scan",))
        shutil.copytree(os.path.join(staging, "usr", "lib", "dracut", "modules.d", "95scsi-scan"),
                        os.path.join(base, "modules.d", "95scsi-scan"))
        fake = os.path.join(tmp, "lib-modules")
        os.makedirs(fake)
        os.symlink(moddir, os.path.join(fake, release))
        image = os.path.join(tmp, "initrd.img")
        # made for a machine whose root is LUN 3 of a virtio-scsi target:
        # the image carries its boot policy
        sysroot = vmlib.policy_sysfs(os.path.join(tmp, "sys-policy"), "0:0:2:3", "sdc", "8:32")
        script = f"""SCSI_SCAN_BOOT_POLICY=yes SCSI_SCAN_SYSROOT={sysroot} \\
dracutbasedir={base} dracut --no-hostonly --no-hostonly-cmdline --kver {release} \\
	--kmoddir {moddir} --add scsi-scan --omit "plymouth crypt lvm mdraid dm multipath nfs iscsi network network-legacy ifcfg" \\
	--add-drivers "virtio_pci virtio_scsi sd_mod ext4" --force --no-compress {image}
"""
        p = vmlib.run_private(script, vmlib.hermetic_binds(tmp, staging) +
                              [(fake, "/lib/modules")])
        if p.returncode != 0:
            print(f"dracut failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
            return 1
        with open(image, "rb") as f:
            listing = subprocess.run(["cpio", "-it", "--quiet"], stdin=f, capture_output=True,
                                     text=True).stdout.splitlines()
        with open(image, "rb") as f:
            policy = subprocess.run(["cpio", "-i", "--quiet", "--to-stdout",
                                     "etc/scsi-scan/boot-policy.conf"], stdin=f,
                                    capture_output=True, text=True).stdout
    want = ["usr/bin/scsi-scan", "usr/lib/scsi-scan/quirks.d/10-linux-nolun.conf",
            "usr/lib/scsi-scan/quirks.d/20-linux-lun-scan.conf",
            "usr/lib/scsi-scan/quirks.d/30-linux-runtime.conf",
            "usr/lib/dracut/hooks/initqueue/settled/10-scsi-scan-settled.sh",
            "usr/lib/scsi-scan/boot-policy.sh"]
    missing = [w for w in want if w not in listing]
    if not any(line.endswith("/sg.ko") or "/sg.ko." in line for line in listing):
        missing.append("sg.ko")
    if not any(line.endswith("libconfuse.so.2") or "libconfuse.so" in line for line in listing):
        missing.append("libconfuse")
    if 'driver = "virtio_scsi"\n\tchannel = 0\n\tid = 2\n\tluns = { "3" }' not in policy:
        missing.append("the boot policy")
        print(f"the image's etc/scsi-scan/boot-policy.conf:\n{policy}")
    for w in want + ["sg.ko", "libconfuse", "the boot policy"]:
        print(f"{'FAIL' if w in missing else 'ok':4} {SERIES:5} dracut image carries {w}")
    print(f"{SERIES}: dracut {len(want) + 3 - len(missing)} passed, {len(missing)} failed")
    return 1 if missing else 0


if __name__ == "__main__":
    vmlib.main_guard(main)
