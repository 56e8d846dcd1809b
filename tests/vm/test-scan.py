#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The real-kernel test of scsi-scan.

Boots a Debian kernel with scsi_mod.scan=manual and, for each scenario, puts
the same emulated devices on two hosts in the same boot: the kernel scans one
with its own wildcard scan (echo "- - -" > scan), scsi-scan scans the other.
The LUNs attached must be the same, except where this project differs from
the kernel on purpose; there the test asserts our result, checks that the
kernel really does what the notes say it does, and prints why.

usage: test-scan.py [--demo] BUILD_DIR KERNEL_SERIES   (6.1 or 6.12)

--demo runs a few scenarios and shows, side by side, what the kernel's own
scan and scsi-scan attached, and scsi-scan's explanation of each target.
"""

import os
import re
import shlex
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

DEMO = "--demo" in sys.argv[1:]
BUILD, SERIES = [a for a in sys.argv[1:] if a != "--demo"][:2]


def luns(spec):
    """'0:0:0-3,0:1:0' -> the set of 'C:T:L' strings."""
    out = set()
    for part in filter(None, spec.split(",")):
        c, t, l = part.split(":")
        if "-" in l:
            a, b = l.split("-")
            out |= {f"{c}:{t}:{n}" for n in range(int(a), int(b) + 1)}
        else:
            out.add(f"{c}:{t}:{l}")
    return out


class Scenario:
    """One device layout. ours=None: must equal the kernel's own scan.
    Otherwise ours is what scsi-scan must attach, kernel what the kernel
    is known to attach instead (proving the difference is real), and why
    says why we differ on purpose."""

    def __init__(self, name, sd=None, pairs=None, ours=None, kernel=None, why=None,
                 pre="", post="", only=None, hba="virtio-scsi-pci", rc=0, says=(),
                 suggest=None):
        self.name, self.sd, self.pairs, self.hba = name, sd, pairs, hba
        self.ours, self.kernel, self.why = ours, kernel, why
        self.pre, self.post, self.only = pre, post, only
        # scsi-scan's exit status, and what its -v output must say
        self.rc, self.says = rc, says
        # (what the proposed entry must say, the LUNs a scan with it attaches)
        self.suggest = suggest


def q(s):
    return shlex.quote(s)


SD = [
    Scenario("spc5-multi-lun", sd="max_luns=8"),
    Scenario("scsi2-8-luns", sd="scsi_level=2 max_luns=8"),
    Scenario("scsi2-12-luns-stops-at-7", sd="scsi_level=2 max_luns=12",
             suggest=('flags = { "largelun" }', luns("0:0:0-11"))),
    Scenario("spc3-several-targets", sd="scsi_level=5 num_tgts=3 max_luns=3"),
    Scenario("nolun-scsi2", sd="scsi_level=2 max_luns=4 ptype=5 inq_vendor=CHINON "
                               "'inq_product=\"CD-ROM CDS-431\"'",
             ours=luns("0:0:0"), kernel=luns("0:0:0-3"),
             why="nolun means LUN 0 only; the kernel honours it only on its REPORT LUNS "
                 "path and still probes LUNs 1-7 of a SCSI-2 target"),
    Scenario("nolun-spc3", sd="scsi_level=5 max_luns=4 ptype=5 inq_vendor=CHINON "
                              "'inq_product=\"CD-ROM CDS-431\"'"),
    Scenario("sparselun", sd="scsi_level=2 max_luns=8 inq_vendor=DELL inq_product=PV530F"),
    Scenario("largelun", sd="scsi_level=2 max_luns=12 inq_vendor=HP inq_product=A6189A"),
    Scenario("max5lun", sd="scsi_level=2 max_luns=8 ptype=5 inq_vendor=REGAL "
                           "inq_product=CDC-4X"),
    Scenario("forcelun-max-luns-4", sd="scsi_level=2 max_luns=8 inq_vendor=ADAPTEC "
                                       "inq_product=AACRAID",
             pre="echo 4 > /sys/module/scsi_mod/parameters/max_luns",
             post="echo 512 > /sys/module/scsi_mod/parameters/max_luns"),
    Scenario("no-forcelun-max-luns-4", sd="scsi_level=2 max_luns=8",
             pre="echo 4 > /sys/module/scsi_mod/parameters/max_luns",
             post="echo 512 > /sys/module/scsi_mod/parameters/max_luns"),
    Scenario("reportlun2", sd="scsi_level=2 max_luns=12 inq_vendor=HITACHI inq_product=DF400"),
    Scenario("reportlun2-8-char-vendor", sd="scsi_level=2 max_luns=12 inq_vendor=3PARdata "
                                            "inq_product=VV",
             ours=luns("0:0:0-11"),
             kernel={"6.1": luns("0:0:0-11"), "6.12": luns("0:0:0-7")},
             why="Linux 6.12 stores 8-character vendors of its table as 7 characters and "
                 "no longer matches 3PARdata's reportlun2; 6.1 did, as we do"),
    Scenario("noreportlun-spc3", sd="scsi_level=5 max_luns=260 no_uld=1 inq_vendor=HP "
                                    "inq_product=C5713A"),
    Scenario("no-lun-0", sd="scsi_level=5 no_lun_0=1 max_luns=4"),
    # Nothing refuses a LUN: after LUN 1 on its own, the rest in one write.
    Scenario("300-luns-past-255", sd="scsi_level=7 max_luns=300 no_uld=1",
             says=("attached: the 298 LUNs left of the list by one kernel target scan",)),
    # A lunmask entry refuses LUN 40: never "- - -", which would attach it
    # for a moment; the other LUNs left after LUN 1 handed over at once.
    Scenario("restricted-64-luns", sd="scsi_level=7 max_luns=64 no_uld=1",
             pre="printf 'lunmask \"restricted\" {\\n\\tdriver = \"scsi_debug\"\\n"
                 "\\texclude_luns = { 40 }\\n}\\n' > /etc/scsi-scan/quirks.d/60-restricted.conf",
             post="rm /etc/scsi-scan/quirks.d/60-restricted.conf",
             ours=luns("0:0:0-39,0:0:41-63"), kernel=luns("0:0:0-63"),
             why="a lunmask entry refuses LUN 40; the 61 LUNs it allows after LUN 1 are "
                 "written one by one in one hand-over, LUN 40 never",
             says=("attached: the 61 LUNs left of the list that the policy allows (of 62), "
                   "one scan write each, handed over at once",
                   "skipped      excluded by lunmask 'restricted'")),
    Scenario("flat-addressing", sd="scsi_level=7 max_luns=4 lun_format=1"),
    Scenario("local-override-max-lun", sd="scsi_level=5 max_luns=6 inq_vendor=ACME "
                                          "inq_product=LOCALDISK",
             ours=luns("0:0:0-2"), kernel=luns("0:0:0-5"),
             why="/etc/scsi-scan/quirks.d/50-local.conf sets max_lun = 2 for this device, "
                 "which the kernel's table does not know"),
    Scenario("local-override-no-attach", sd="scsi_level=5 max_luns=3 inq_vendor=ACME "
                                            "inq_product=NOATTACH",
             ours=set(), kernel=luns("0:0:0-2"),
             why="/etc/scsi-scan/quirks.d/50-local.conf sets attach = false"),
    # scsi_debug cannot make LUNs indistinguishable (its serial and T10
    # designator carry the LUN); uuid_ctl=2 gives every LUN one UUID.
    Scenario("uuid-ctl-2-name-conflict", sd="scsi_level=5 max_luns=3 uuid_ctl=2",
             says=("name conflict: LUN 1 and LUN 0 (name-conflict)",
                   "VPD 0x80 serial '4000' differs from '4001'")),
]


def virtio_pair(devices):
    """Two identical virtio-scsi controllers with @devices:
    (scsi_id, lun, vendor, product, scsi_version)."""
    return devices


QEMU = [
    Scenario("qemu-scsi2-gap", pairs=[(0, 0, "QEMU", "GAPDISK", 2), (0, 1, "QEMU", "GAPDISK", 2),
                                      (0, 3, "QEMU", "GAPDISK", 2)]),
    Scenario("qemu-sparselun-gap", pairs=[(0, 0, "DELL", "PV530F", 2), (0, 1, "DELL", "PV530F", 2),
                                          (0, 3, "DELL", "PV530F", 2), (0, 5, "DELL", "PV530F", 2)]),
    Scenario("qemu-no-lun-0", pairs=[(0, 1, "QEMU", "NOLUN0", 5), (0, 2, "QEMU", "NOLUN0", 5)]),
    Scenario("qemu-only-lun-3-and-5", pairs=[(1, 3, "QEMU", "ONLY35", 5), (1, 5, "QEMU", "ONLY35", 5)]),
    Scenario("qemu-megasas-channel-2", hba="megasas",
             pairs=[(0, 0, "QEMU", "LD0", 5), (1, 0, "QEMU", "LD1", 5)]),
    Scenario("qemu-several-targets", pairs=[(0, 0, "QEMU", "T0", 5), (2, 0, "QEMU", "T2", 5),
                                            (2, 1, "QEMU", "T2", 5), (5, 3, "QEMU", "T5", 5),
                                            (5, 0, "QEMU", "T5", 5)]),
    # One unit answering four LUNs: the same INQUIRY, serial and NAA.
    Scenario("qemu-ghost-luns",
             pairs=[(0, n, "QEMU", "GHOST", 5, "serial=GH0001,wwn=0x5000c500deadbe01")
                    for n in range(4)],
             ours=luns("0:0:0"), kernel=luns("0:0:0-3"), rc=1,
             why="LUNs 1-3 repeat LUN 0's INQUIRY, VPD 0x80 serial and VPD 0x83 NAA "
                 "(ghost LUNs): scsi-scan keeps LUN 0 and exits 1",
             says=("and LUN 0 (all-identical)",
                   "VPD 0x83 naa.5000c500deadbe01 identical",
                   "VPD 0x80 serial 'GH0001' identical",
                   "detached     ghost of LUN 0: INQUIRY identical"),
             suggest=('flags = { "nolun" }', luns("0:0:0"))),
    # One serial, distinct NAA designators: an array's LUNs, all attached.
    Scenario("qemu-shared-serial",
             pairs=[(0, n, "QEMU", "SHARED", 5, f"serial=SHARED01,wwn=0x5000c5000000be{n:02x}")
                    for n in range(3)]),
]

LOCAL_QUIRKS = """# SPDX-License-Identifier: GPL-2.0-or-later
# Devices only this machine knows (VM test).
device "acme-localdisk" {
	vendor = "ACME"
	model = "LOCALDISK"
	max_lun = 2
	reason = "only LUNs 0-2 are ours on this machine"
}

device "acme-noattach" {
	vendor = "ACME"
	model = "NOATTACH"
	attach = false
	reason = "belongs to another host"
}
"""

# scsi-quirks suggest on the target of scsi-scan's host, the entry checked,
# the host emptied and scanned again with the entry: one @@S line, the
# entry as @@Q lines.
SUGGEST_LIB = r"""
suggest_check() {
	name=$1; h=$2
	t=$(ls /sys/bus/scsi/devices | grep "^$h:" | head -1 | cut -d: -f1-3)
	scsi-quirks suggest $t > /tmp/sug.conf 2> /tmp/sug.err; src=$?
	sed "s/^/@@Q $name /" /tmp/sug.conf /tmp/sug.err
	scsi-quirks check /tmp/sug.conf > /dev/null 2>&1; crc=$?
	for d in /sys/bus/scsi/devices/$h:*; do [ -e "$d" ] && echo 1 > $d/delete; done
	scsi-scan --quirks-file /tmp/sug.conf host$h > /dev/null 2>&1; rrc=$?
	echo "@@S $name suggest=$src check=$crc rescan=$rrc luns=[$(luns_of_host $h)]"
}
"""


def sd_script(scenarios):
    lines = [vmlib.COMPARE_LIB, SUGGEST_LIB, vmlib.IDENTITY_LIB, "DEMO=1" if DEMO else ""]
    for s in scenarios:
        lines.append("before=$(all_hosts)")
        lines.append(f"insmod /lib/test-modules/scsi_debug.ko add_host=2 delay=0 {s.sd}")
        lines.append("set -- $(new_hosts \"$before\")")
        lines.append("hk=$1; ho=$2")
        if s.pre:
            lines.append(s.pre)
        lines.append(f"compare {q(s.name)} $hk $ho")
        if s.suggest:
            lines.append(f"suggest_check {q(s.name)} $ho")
        if s.post:
            lines.append(s.post)
        lines.append(f"identity_oracle {q(s.name)}")
        lines.append("rmmod_wait scsi_debug")
    return "\n".join(lines) + "\n"


def qemu_args(scenarios):
    args, n = [], 0
    for s in scenarios:
        for side in range(2):
            ctrl = f"vs{n}"
            args += ["-device", f"{s.hba},id={ctrl}"]
            for i, (sid, lun, vendor, product, ver, *extra) in enumerate(s.pairs):
                node = f"{ctrl}d{i}"
                args += ["-blockdev", f"driver=null-co,node-name={node},size=16777216",
                         "-device", f"scsi-hd,drive={node},bus={ctrl}.0,scsi-id={sid},lun={lun},"
                                    f"vendor={vendor},product={product},scsi_version={ver}" +
                                    "".join("," + e for e in extra)]
            n += 1
    return args


def qemu_script(scenarios):
    lines = [vmlib.COMPARE_LIB, SUGGEST_LIB, vmlib.CAPTURE_LIB, vmlib.IDENTITY_LIB,
             "DEMO=1" if DEMO else ""]
    for s in scenarios:
        drv = {"megasas": "megaraid_sas"}.get(s.hba, "virtio_scsi")
        lines.append(f"set -- $(for h in /sys/class/scsi_host/host*; do "
                     f"[ \"$(cat $h/proc_name)\" = {drv} ] && [ ! -e /tmp/used.${{h##*/host}} ] "
                     f"&& echo ${{h##*/host}}; done | sort -n)")
        lines.append("touch /tmp/used.$1 /tmp/used.$2")
        lines.append(f"compare {q(s.name)} $1 $2")
        if s.suggest:
            lines.append(f"suggest_check {q(s.name)} $2")
    lines.append("capture_tree virtio-megasas")
    lines.append("identity_oracle virtio-megasas")
    return "\n".join(lines) + "\n"


def check(scenarios, out):
    results = {m.group(1): m for m in vmlib.COMPARE_RESULT.finditer(out)}
    # scsi-scan's -v output follows each scenario's @@R line
    logs, current = {}, None
    for line in out.splitlines():
        m = vmlib.COMPARE_RESULT.match(line)
        if m:
            current = m.group(1)
        elif line.startswith("@@L ") and current:
            logs.setdefault(current, []).append(line[4:])
    failed = []
    for s in scenarios:
        m = results.get(s.name)
        if not m:
            failed.append(f"{s.name}: no result from the guest")
            continue
        rc = int(m.group(2))
        kernel = set(filter(None, m.group(3).split(",")))
        ours = set(filter(None, m.group(4).split(",")))
        kflags = m.group(5).replace("+", " ")
        timing = f"kernel {int(m.group(6)) * 10} ms, scsi-scan {int(m.group(7)) * 10} ms"
        problems = []
        if rc != s.rc:
            problems.append(f"scsi-scan exited {rc}, expected {s.rc}")
        text = "\n".join(logs.get(s.name, []))
        for want in s.says:
            if want not in text:
                problems.append(f"scsi-scan -v does not say '{want}':\n{text}")
        if s.ours is None:
            if ours != kernel:
                problems.append(f"kernel attached {sorted(kernel)}, we attached {sorted(ours)}")
            verdict = f"same as the kernel: {len(ours)} LUNs"
            if 0 < len(ours) <= 6:
                verdict += " (" + " ".join(sorted(ours)) + ")"
        else:
            want_kernel = s.kernel.get(SERIES) if isinstance(s.kernel, dict) else s.kernel
            if ours != s.ours:
                problems.append(f"we attached {sorted(ours)}, expected {sorted(s.ours)}")
            if want_kernel is not None and kernel != want_kernel:
                problems.append(f"the kernel attached {sorted(kernel)}, the notes say "
                                f"{sorted(want_kernel)}")
            if kernel == ours:
                verdict = f"same as the kernel: {len(ours)} LUNs"
            else:
                verdict = (f"differs on purpose: kernel {len(kernel)} LUNs, we {len(ours)}: "
                           f"{s.why}")
        if s.suggest:
            want_text, want_luns = s.suggest
            sm = re.search(rf"^@@S {re.escape(s.name)} suggest=(\d+) check=(\d+) rescan=(\d+) "
                           r"luns=\[([^\]]*)\]", out, re.M)
            entry = "\n".join(line.split(" ", 2)[2] for line in out.splitlines()
                              if line.startswith(f"@@Q {s.name} "))
            if not sm:
                problems.append("no result from scsi-quirks suggest")
            else:
                got = set(filter(None, sm.group(4).split(",")))
                if sm.group(1, 2, 3) != ("0", "0", "0") or want_text not in entry or \
                        got != want_luns:
                    problems.append(f"suggest/check/rescan exited {sm.group(1, 2, 3)}, "
                                    f"attached {sorted(got)}:\n{entry}")
                else:
                    verdict += (f"; scsi-quirks suggest proposed {want_text}, which "
                                f"scsi-quirks check accepts, and a scan with it attached "
                                f"{len(got)} LUN(s)")
        status = "FAIL" if problems else "ok"
        print(f"{status:4} {SERIES:5} {s.name:28} {verdict} ({timing}; kernel flags: "
              f"{kflags or '-'})")
        for p in problems:
            print(f"       {p}")
        if problems:
            failed.append(s.name)
    return failed


DEMO_SCENARIOS = ["spc5-multi-lun", "scsi2-12-luns-stops-at-7", "nolun-scsi2",
                  "reportlun2-8-char-vendor", "no-lun-0", "local-override-max-lun",
                  "qemu-sparselun-gap", "qemu-no-lun-0"]


def show_demo(scenarios, out):
    def short(luns):
        if not luns:
            return "nothing"
        return f"{len(luns)} LUNs: " + " ".join(sorted(luns, key=lambda x: [int(n) for n in
                                                                             x.split(":")]))[:60]
    print()
    for s in scenarios:
        m = next((m for m in vmlib.COMPARE_RESULT.finditer(out) if m.group(1) == s.name), None)
        if not m:
            continue
        kernel = set(filter(None, m.group(3).split(",")))
        ours = set(filter(None, m.group(4).split(",")))
        print(f"== {s.name}")
        print(f"   the kernel's own scan:  {short(kernel)}")
        print(f"   scsi-scan:              {short(ours)}")
        if kernel != ours and s.why:
            print(f"   why they differ:        {s.why}")
        for line in out.splitlines():
            if line.startswith(f"@@E {s.name} "):
                print("   | " + line[len(f"@@E {s.name} "):])
        print()


def main():
    if not os.path.exists("/usr/bin/qemu-system-x86_64"):
        print("qemu-system-x86 is not installed")
        return 1
    start = time.monotonic()
    vmlinuz, moddir, release = vmlib.prepare_kernel(SERIES)
    failed = []
    decode_dump = os.path.join(BUILD, "tests", "decode-dump")
    identities, identity_problems, identity_said = 0, [], []
    with tempfile.TemporaryDirectory() as tmp:
        staging = os.path.join(tmp, "staging")
        vmlib.install_project(BUILD, staging)
        extra = {"/etc/scsi-scan/quirks.d/50-local.conf": LOCAL_QUIRKS}
        groups = (("scsi_debug", SD), ("virtio-scsi", QEMU))
        if DEMO:
            groups = tuple((k, [x for x in sc if x.name in DEMO_SCENARIOS]) for k, sc in groups)
        for kind, scenarios in groups:
            wanted = vmlib.BASE_MODULES + (vmlib.VIRTIO_MODULES + ["megaraid_sas"] if kind != "scsi_debug" else [])
            modules = vmlib.module_order(moddir, wanted)
            body = sd_script(scenarios) if kind == "scsi_debug" else qemu_script(scenarios)
            initrd = os.path.join(tmp, f"initrd-{kind}.cpio")
            vmlib.build_initramfs(initrd, staging, modules,
                                  vmlib.INIT_HEAD + body + vmlib.INIT_TAIL, extra,
                                  programs=["/lib/udev/scsi_id"])
            vmlib.log(f"booting {release} for the {kind} scenarios")
            out = vmlib.boot(vmlinuz, initrd,
                             qemu_args(scenarios) if kind != "scsi_debug" else ())
            failed += check(scenarios, out)
            n, problems, said = vmlib.check_identities(out, decode_dump)
            identities += n
            identity_problems += problems
            identity_said.append(f"{kind}: {said}")
            vmlib.save_trees(out)
            if DEMO:
                show_demo(scenarios, out)
            if failed:
                print("\n".join(line for line in out.splitlines() if line.startswith("@@L")))
    # udev's scsi_id as an oracle of our VPD 0x80 and 0x83 decoders
    # (vmlib.check_identities() says where they overlap).
    if not DEMO:
        ok = identities > 0 and not identity_problems
        print(f"{'ok  ' if ok else 'FAIL'} identity-oracle: {identities} LUNs, our VPD 0x80 "
              f"and 0x83 decoding against udev's scsi_id ({'; '.join(identity_said)})"
              + "".join(f"\n     {p}" for p in identity_problems))
        if not ok:
            failed.append("identity-oracle")
    total = sum(len(sc) for _, sc in groups)
    print(f"{SERIES}: {total - len(failed)} scenarios passed, {len(failed)} "
          f"failed, in {time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    vmlib.main_guard(main)
