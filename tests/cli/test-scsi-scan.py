#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scsi-scan against fake sysfs trees, with the fake-kernel preload standing
in for the midlayer: scan writes attach LUNs, SG_IO answers from a script."""

import errno
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

SCAN, FAKE, QUIRKS, QUIRKS_TOOL = sys.argv[1:5]


class Tree:
    def __init__(self, script, hosts=(0,), proc_name="fake", device_tree=False):
        self.root = tempfile.mkdtemp(prefix="scsi-scan-tree-")
        self.log = os.path.join(self.root, "fake-kernel.log")
        self.script = os.path.join(self.root, "script")
        with open(self.script, "w") as f:
            f.write(script)
        for d in ["sys/bus/scsi/devices", "sys/module/scsi_mod/parameters", "sys/class/block",
                  "dev", "run", "proc/self"]:
            os.makedirs(os.path.join(self.root, d))
        for h in hosts:
            hd = os.path.join(self.root, f"sys/class/scsi_host/host{h}")
            os.makedirs(hd)
            open(os.path.join(hd, "scan"), "w").close()
            with open(os.path.join(hd, "proc_name"), "w") as f:
                f.write(proc_name + "\n")
            if device_tree:
                # the host's device, where the kernel's sysfs puts its
                # targets and LUNs (the fake kernel attaches them there)
                os.makedirs(os.path.join(self.root, f"sys/devices/fake/host{h}"))
                os.symlink(f"../../../devices/fake/host{h}", os.path.join(hd, "device"))
        self.write("sys/module/scsi_mod/parameters/max_luns", "512\n")
        self.write("proc/self/mountinfo", "")

    def host_parents(self, hosts):
        """Each host its own place in the device tree (a PCI function
        each, 0000:00:04.0 on), before anything is attached: the fake
        kernel attaches under sys/devices/fake/hostH, linked there."""
        for i, h in enumerate(hosts):
            rel = f"sys/devices/pci0000:00/0000:00:{4 + i:02x}.0/host{h}"
            os.makedirs(os.path.join(self.root, rel))
            os.makedirs(os.path.join(self.root, "sys/devices/fake"), exist_ok=True)
            os.symlink(f"../pci0000:00/0000:00:{4 + i:02x}.0/host{h}",
                       os.path.join(self.root, f"sys/devices/fake/host{h}"))
            os.symlink(f"../../../devices/fake/host{h}",
                       os.path.join(self.root, f"sys/class/scsi_host/host{h}/device"))

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def attrs(self, rel, **attrs):
        for k, v in attrs.items():
            self.write(f"{rel}/{k}", f"{v}\n")

    # Transport classes as the kernel lays them out in sysfs.
    def iscsi_session(self, host, n, target_id, iqn, state="LOGGED_IN", tpgt=1):
        os.makedirs(os.path.join(self.root, f"sys/class/iscsi_host/host{host}"), exist_ok=True)
        rel = f"sys/devices/platform/host{host}/session{n}/iscsi_session/session{n}"
        self.attrs(rel, target_id=target_id, targetname=iqn, tpgt=tpgt, state=state)
        os.makedirs(os.path.join(self.root, "sys/class/iscsi_session"), exist_ok=True)
        os.symlink(f"../../devices/platform/host{host}/session{n}/iscsi_session/session{n}",
                   os.path.join(self.root, f"sys/class/iscsi_session/session{n}"))

    def fc_rport(self, host, channel, n, target_id, roles="FCP Target", state="Online",
                 wwpn=None):
        os.makedirs(os.path.join(self.root, f"sys/class/fc_host/host{host}"), exist_ok=True)
        self.attrs(f"sys/class/fc_remote_ports/rport-{host}:{channel}-{n}",
                   scsi_target_id=target_id, roles=roles, port_state=state,
                   port_name=wwpn or f"0x5000000000000{n:03x}")

    def sas_end_device(self, host, n, target_id, address=None):
        os.makedirs(os.path.join(self.root, f"sys/class/sas_host/host{host}"), exist_ok=True)
        self.attrs(f"sys/class/sas_device/end_device-{host}:{n}", scsi_target_id=target_id,
                   device_type="end device", sas_address=address or f"0x5000c5000000{n:04x}")

    def run(self, *args, quirks=(QUIRKS,), rc=None, timeout=120, cpus=None):
        """scsi-scan on the tree, on the CPUs @cpus (a set) if given; the
        threads of its scan writes of one LUN go to self.writers."""
        self.writers = os.path.join(self.root, "writers")
        env = dict(os.environ, FAKE_KERNEL_ROOT=self.root, FAKE_KERNEL_SCRIPT=self.script,
                   FAKE_KERNEL_LOG=self.log, LD_PRELOAD=FAKE, FAKE_KERNEL_WRITERS=self.writers)
        qargs = []
        for q in quirks:
            qargs += ["--quirks-dir", q]
        p = subprocess.run([SCAN, "--sysroot", self.root, *qargs, *args], env=env,
                           capture_output=True, text=True, timeout=timeout,
                           preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        if p.returncode < 0 or "fake-kernel:" in p.stderr:
            raise AssertionError(f"crashed or unexpected command: {p.stderr}")
        if rc is not None and p.returncode != rc:
            raise AssertionError(f"exit {p.returncode}, expected {rc}\n{p.stdout}\n{p.stderr}")
        return p

    def json(self, *args, **kw):
        return json.loads(self.run("--json", *args, **kw).stdout)

    def quirks(self, *args, rc=None, quirks=(QUIRKS,)):
        """scsi-quirks on the tree (suggest scans through the fake kernel)."""
        env = dict(os.environ, FAKE_KERNEL_ROOT=self.root, FAKE_KERNEL_SCRIPT=self.script,
                   FAKE_KERNEL_LOG=self.log, LD_PRELOAD=FAKE, SOURCE_DATE_EPOCH="1764806400")
        qargs = []
        for q in quirks:
            qargs += ["--quirks-dir", q]
        p = subprocess.run([QUIRKS_TOOL, "--sysroot", self.root, *qargs, *args], env=env,
                           capture_output=True, text=True, timeout=60)
        if p.returncode < 0 or "fake-kernel:" in p.stderr:
            raise AssertionError(f"crashed or unexpected command: {p.stderr}")
        if rc is not None and p.returncode != rc:
            raise AssertionError(f"exit {p.returncode}, expected {rc}\n{p.stdout}\n{p.stderr}")
        return p

    def devices(self):
        return sorted(os.listdir(os.path.join(self.root, "sys/bus/scsi/devices")),
                      key=lambda s: [int(x) for x in s.split(":")])

    def commands(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def cleanup(self):
        shutil.rmtree(self.root)


class ScanTest(unittest.TestCase):
    def tree(self, script, **kw):
        t = Tree(script, **kw)
        self.addCleanup(t.cleanup)
        return t

    def lun_outcomes(self, report, target):
        for h in report["hosts"]:
            for t in h["targets"]:
                if t["target"] == target:
                    return {lu["lun"]: lu["outcome"] for lu in t["luns"]}, t
        raise AssertionError(f"no target {target} in {report}")


class Discovery(ScanTest):
    def test_report_luns_and_nolun(self):
        t = self.tree("host 0 max_id 2 max_lun 49410\n"
                      "lu 0:0:0:0 vendor ACME model Disk version 5\n"
                      "lu 0:0:0:1 vendor ACME model Disk version 5\n"
                      "lu 0:0:0:300 vendor ACME model Disk version 5\n"
                      "lu 0:0:1:0 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n"
                      "lu 0:0:1:1 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n")
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:0:300", "0:0:1:0"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached", 1: "attached", 300: "attached"})
        self.assertEqual(tgt["method"], "REPORT LUNS")
        self.assertEqual(tgt["report_luns"], [0, 1, 300])
        self.assertEqual(tgt["inquiry"]["scsi_level"], 6)
        luns, tgt = self.lun_outcomes(r, "0:0:1")
        self.assertEqual(luns, {0: "attached"})
        self.assertEqual(tgt["quirks"]["flags"], ["nolun"])
        src = tgt["quirks"]["sources"][0]
        self.assertTrue(src["file"].endswith("10-linux-nolun.conf"))
        self.assertIn("kernel would still probe LUNs 1-7", tgt["end_reason"])
        # every probe went through the scan file, LUN by LUN, after INQUIRY
        cmds = t.commands()
        self.assertIn("INQUIRY 0:0:0:0 len 36", cmds)
        self.assertIn("REPORT LUNS 0:0:0 len 4096", cmds)
        self.assertNotIn("scan host0 0 1 1", cmds)

    def test_a_libata_port_is_never_written(self):
        # libata attaches its ports' devices itself, scsi_mod.scan=manual or
        # not, and its user_scan resets the port: host 1 stands for ata2
        t = self.tree("host 0 max_id 1 max_lun 49410\nhost 1 max_id 2 max_lun 1\n"
                      "lu 0:0:0:0 version 5\nlu 1:0:0:0 pdt 5 version 5\n", hosts=(0, 1))
        port = "sys/devices/pci0000:00/0000:00:01.1/ata2"
        os.makedirs(os.path.join(t.root, port, "ata_port", "ata2"))
        os.makedirs(os.path.join(t.root, port, "host1"))
        os.symlink(f"../../../{port[4:]}/host1",
                   os.path.join(t.root, "sys/class/scsi_host/host1/device"))
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0"])
        self.assertFalse([c for c in t.commands() if c.startswith("scan host1")], t.commands())
        self.assertIn("scan host0 0 0 0", t.commands())
        h1 = [h for h in r["hosts"] if h["host"] == 1][0]
        self.assertIn("libata port ata2: libata attaches its devices itself", h1["discovery"])
        self.assertEqual(h1["targets"], [])
        # Named on the command line, or looked at in a dry run: still nothing
        p = t.run("-v", "1:0:0", rc=0)
        self.assertIn("a scan write would reset the port: nothing written", p.stdout)
        t.run("--dry-run", "1:0:1", rc=0)
        self.assertFalse([c for c in t.commands() if c.startswith("scan host1")], t.commands())

    def test_rescan_leaves_attached_luns_alone(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5\nlu 0:0:0:1 version 5\n")
        t.run(rc=0)
        before = len(t.commands())
        r = t.json(rc=0)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "present", 1: "present"})
        new = t.commands()[before:]
        self.assertFalse([c for c in new if c.startswith("attach")], new)
        self.assertNotIn("scan host0 0 0 0", new)

    def test_scsi2_gap_and_sparse(self):
        script = ("host 0 max_id 2 max_lun 49410\n"
                  "lu 0:0:0:0 version 2\nlu 0:0:0:1 version 2\nlu 0:0:0:3 version 2\n"
                  "lu 0:0:1:0 vendor DELL model PV530F version 2\n"
                  "lu 0:0:1:1 vendor DELL model PV530F version 2\n"
                  "lu 0:0:1:3 vendor DELL model PV530F version 2\n")
        t = self.tree(script)
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "0:0:1:1", "0:0:1:3"])
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["method"], "sequential")
        self.assertIn("first gap", tgt["end_reason"])
        _, tgt = self.lun_outcomes(r, "0:0:1")
        self.assertIn("sparselun", " ".join(lu["reason"] for lu in tgt["luns"]))
        # sparse and SCSI-2: LUNs 1-7 probed, never 8
        self.assertIn("scan host0 0 1 7", t.commands())
        self.assertNotIn("scan host0 0 1 8", t.commands())

    def test_no_lun_0_through_the_well_known_lun(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 pq 3 version 5\n"
                      "lu 0:0:0:2 version 5\nlu 0:0:0:7 version 5\n")
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:2", "0:0:0:7"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {2: "attached", 7: "attached", 49409: "detached"})
        self.assertEqual(tgt["inquiry"]["probe_lun"], 49409)
        self.assertIn("delete 0:0:0:49409", t.commands())

    def test_no_lun_0_below_the_well_known_lun_limit(self):
        t = self.tree("host 0 max_id 2 max_lun 16384\n"
                      "lu 0:0:1:0 pq 3 version 5\n"
                      "lu 0:0:1:1 version 5\nlu 0:0:1:4 version 5\n")
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:1:1", "0:0:1:4"])
        self.assertIn("below the REPORT LUNS well-known LUN", r["hosts"][0]["notes"])
        self.assertIn("scan host0 0 1 -", t.commands())
        luns, tgt = self.lun_outcomes(r, "0:0:1")
        self.assertEqual(luns, {1: "attached", 4: "attached"})
        self.assertIn("kernel's scan of this target", tgt["luns"][0]["reason"])

    def test_kernel_list_stands_in_for_report_luns(self):
        # REPORT LUNS through LUN 3 fails (only LUN 0 must answer it): what
        # the kernel's scan of the target attached is the list
        t = self.tree("host 0 max_id 1 max_lun 16384\n"
                      "lu 0:0:0:0 pq 3 version 5\n"
                      "lu 0:0:0:3 version 5\nlu 0:0:0:5 version 5\n"
                      "report 0:0:0 fail\n")
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:3", "0:0:0:5"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["method"], "REPORT LUNS")
        self.assertEqual(tgt["report_luns"], [3, 5])
        self.assertEqual(luns, {3: "attached", 5: "attached"})

    def test_kernel_target_scan_then_database(self):
        # the kernel's own scan attaches what the database forbids: undone
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "x" {\n\tvendor = "ACME"\n\tmax_lun = 3\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 16384\n"
                          "lu 0:0:0:0 pq 3 vendor ACME version 5\n"
                          "lu 0:0:0:2 vendor ACME version 5\nlu 0:0:0:6 vendor ACME version 5\n")
            r = t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:2"])
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {2: "attached", 6: "detached"})

    def test_channels_and_limits(self):
        t = self.tree("host 0 max_channel 2 max_id 3 max_lun 8\n"
                      "lu 0:2:1:0 version 5\n")
        t.run(rc=0)
        self.assertEqual(t.devices(), ["0:2:1:0"])
        cmds = t.commands()
        self.assertIn("scan host0 3 0 0", cmds)   # past max_channel: EINVAL ends it
        # a host whose LUN limit is 8 refuses the well-known LUN, and a
        # target without LUN 0 is left to the kernel's scan of that target
        self.assertIn("scan host0 0 0 49409", cmds)
        self.assertIn("scan host0 0 0 -", cmds)

    def test_usb_host_never_gets_report_luns(self):
        t = self.tree("host 0 max_id 1 max_lun 8\n"
                      "lu 0:0:0:0 version 6\nlu 0:0:0:1 version 6\n", proc_name="usb-storage")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["method"], "sequential")
        self.assertFalse([c for c in t.commands() if c.startswith("REPORT LUNS")])


class Failures(ScanTest):
    def test_report_luns_fails_falls_back(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5\nlu 0:0:0:1 version 5\nlu 0:0:0:2 version 5\n"
                      "report 0:0:0 fail\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["method"], "sequential")
        self.assertIn("REPORT LUNS failed (Illegal Request", tgt["method_reason"])
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:0:2"])

    def test_unit_attention_retried(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5\nlu 0:0:0:4 version 5\nreport 0:0:0 ua 2\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["method"], "REPORT LUNS")
        self.assertEqual(len([c for c in t.commands() if c.startswith("REPORT LUNS")]), 3)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:4"])

    def test_lying_report_luns(self):
        # duplicates and a LUN that is not there
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5\nlu 0:0:0:1 version 5\n"
                      "report 0:0:0 list 0,1,1,0,9,1\n")
        # a LUN the device lists and nothing answers at: named, exit 1 (the
        # list changed under the scan, or the device lies)
        r = t.json(rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["report_luns"], [0, 1, 9])
        self.assertEqual(luns, {0: "attached", 1: "attached", 9: "absent"})
        p = t.run(rc=1)
        self.assertIn("0:0:0:9: absent: listed by REPORT LUNS; no logical unit answered",
                      p.stderr)

    def test_inquiry_fails_uses_sysfs_copy(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor CHINON model CD-ROM_CDS-431 version 2\n"
                      "lu 0:0:0:1 version 2\ninquiry 0:0:0:0 fail\n")
        r = t.json(rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["quirks"]["flags"], ["nolun"])
        self.assertEqual(luns, {0: "attached"})

    def test_selector_past_limits(self):
        t = self.tree("host 0 max_id 2 max_lun 8\nlu 0:0:0:0 version 5\n")
        p = t.run("0:0:5", rc=1)
        self.assertIn("past the host's limits", p.stdout)

    def test_lock_held(self):
        t = self.tree("host 0 max_id 1 max_lun 8\nlu 0:0:0:0 version 5\n")
        os.makedirs(os.path.join(t.root, "run/scsi-scan/lock"))
        with open(os.path.join(t.root, "run/scsi-scan/lock/host0"), "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            p = t.run(rc=1)
        self.assertIn("another scan of this host is running", p.stdout)
        self.assertEqual(t.devices(), [])

    def test_lock_and_the_look(self):
        """explain of an attached target writes nothing and needs no host
        lock; of a target with nothing attached (a look), it does."""
        t = self.tree("host 0 max_id 2 max_lun 8\nlu 0:0:0:0 version 5\nlu 0:0:1:0 version 5\n")
        t.run("0:0:0", rc=0)
        with open(os.path.join(t.root, "run/scsi-scan/lock/host0"), "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            p = t.run("explain", "0:0:0", rc=0)
            self.assertIn("LUN 0", p.stdout)
            p = t.run("explain", "0:0:1", rc=1)
        self.assertIn("another scan of this host is running", p.stdout)
        self.assertEqual(t.devices(), ["0:0:0:0"])

    def test_usage(self):
        t = self.tree("host 0\n")
        t.run("0:x", rc=2)
        t.run("--force", rc=2)
        t.run("explain", rc=2)
        p = t.run("host7", rc=1)
        self.assertIn("host7 does not exist", p.stderr)
        self.assertIn("Usage:", t.run("--help", rc=0).stdout)


class ExitStatus(ScanTest):
    """0 only when everything asked for was done."""

    def test_a_sysroot_that_is_not_there(self):
        """Exit 0 with no output before: nothing was scanned and nothing
        said so."""
        p = subprocess.run([SCAN, "--sysroot", "/nonexistent/tree", "--quirks-dir", QUIRKS],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("--sysroot /nonexistent/tree: No such file or directory", p.stderr)
        p = subprocess.run([SCAN, "--sysroot", QUIRKS + "/10-linux-nolun.conf", "list"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("Not a directory", p.stderr)

    def test_options_that_do_not_apply(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n")
        for args, what in ((("list", "--remove"), "--remove does not apply to list"),
                           (("list", "--dry-run"), "--dry-run does not apply to list"),
                           (("explain", "0:0:0", "--wait"), "--wait does not apply to explain"),
                           (("explain", "0:0:0", "--attach-ghosts"),
                            "--attach-ghosts does not apply to explain"),
                           (("list", "--time-limit", "5"), "--time-limit does not apply to list"),
                           (("--timeout", "0"), "--timeout takes 1-3600 seconds"),
                           # the second audit: the last of two was kept
                           (("detach", "--iscsi-target", "iqn.2003-01.x:a", "--iscsi-target",
                             "iqn.2003-01.x:b", "--lun", "1"), "--iscsi-target is given twice"),
                           (("release", "--wwid", "naa.6001405000000001", "--wwid",
                             "naa.6001405000000002"), "--wwid is given twice"),
                           (("--sas-address", "5000c500a1b20100", "--lun", "1", "--lun", "2"),
                            "--lun is given twice")):
            p = t.run(*args, rc=2)
            self.assertIn(what, p.stderr)
        for args, what in ((("wait", "--remove"), "--remove does not apply to wait"),
                           (("wait", "--quirks-dir", QUIRKS), "--quirks-dir does not apply to wait"),
                           (("wait", "0:0"), "wait takes no selector"),
                           (("wait", "--timeout", "86401"), "wait --timeout takes 0-86400")):
            p = subprocess.run([SCAN, *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(what, p.stderr)
        self.assertFalse([c for c in t.commands() if c.startswith("scan")])

    def test_many_any_host_selectors(self):
        """More than 4,096 "-:..." words: exit 1 with no message before."""
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n")
        t.run(rc=0)
        words = [f"-:0:0:{n}" for n in range(5000)]
        p = t.run("list", *words, rc=0, timeout=300)
        self.assertEqual(p.stdout.count("0:0:0:0"), 1, p.stdout[:500])

    def test_listed_lun_the_host_refuses(self):
        t = self.tree("host 0 max_id 1 max_lun 4\n"
                      "lu 0:0:0:0 version 5\nlu 0:0:0:1 version 5\n"
                      "report 0:0:0 list 0,1,9\n")
        p = t.run(rc=1)
        self.assertIn("0:0:0:9: beyond-limit: the host refuses this LUN", p.stderr)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])

    def test_sequential_scan_ending_at_the_limit_is_fine(self):
        t = self.tree("host 0 max_id 1 max_lun 3\n"
                      "lu 0:0:0:0 version 2\nlu 0:0:0:1 version 2\nlu 0:0:0:2 version 2\n")
        t.run(rc=0)
        self.assertEqual(len(t.devices()), 3)

    def test_device_gone(self):
        # LUN 0 attached, then every command gets DID_NO_CONNECT
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n"
                      "lu 0:0:0:1 version 5\ngone 0:0:0\n")
        r = t.json(rc=1)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertTrue(tgt["failed"])
        self.assertIn("does not answer", tgt["error"])
        # no LUN-by-LUN probing of a target that answers nothing
        self.assertFalse([c for c in t.commands() if c.startswith("scan 0 0 1")], t.commands())

    def test_residual_past_the_buffer_is_not_trusted(self):
        # an HBA driver reporting more residual than the buffer: no data
        t = self.tree("host 0 max_id 1 max_lun 8\nlu 0:0:0:0 version 5\n"
                      "lu 0:0:0:1 version 5\nreport 0:0:0 resid 100000\n")
        r = t.json("-v", rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["method"], "sequential")
        self.assertIn("less than its header", json.dumps(tgt))
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])
        # a negative one: the whole buffer
        t = self.tree("host 0 max_id 1 max_lun 8\nlu 0:0:0:0 version 5\n"
                      "lu 0:0:0:3 version 5\nreport 0:0:0 resid -50\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["report_luns"], [0, 3])

    def test_missing_host_after_work_done(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n")
        p = t.run("host0", "host9", rc=1)
        self.assertIn("0:0:0", p.stdout)
        self.assertIn("host9 does not exist", p.stderr)
        self.assertEqual(t.devices(), ["0:0:0:0"])
        p = t.run("list", "host9", rc=1)
        self.assertIn("host9 does not exist", p.stderr)
        t.run("list", "host0", rc=0)

    def test_quirks_dir_that_does_not_exist(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n")
        p = t.run(quirks=(QUIRKS, "/nonexistent/quirks.d"), rc=1)
        self.assertIn("--quirks-dir /nonexistent/quirks.d: No such file or directory", p.stderr)
        self.assertEqual(t.devices(), [])

    def test_fifo_in_quirk_dir_does_not_hang(self):
        with tempfile.TemporaryDirectory() as etc:
            os.mkfifo(os.path.join(etc, "50-fifo.conf"))
            t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n")
            p = t.run(quirks=(QUIRKS, etc), rc=0, timeout=20)
        self.assertIn("50-fifo.conf:0: file refused: not a regular file", p.stderr)
        self.assertEqual(t.devices(), ["0:0:0:0"])


class Selectors(ScanTest):
    """Selectors as the kernel's scan file reads numbers."""

    SCRIPT = ("host 0 max_id 2 max_lun 100000000000000000\n"
              "lu 0:0:0:0 version 5\nlu 0:0:0:16 version 5\nlu 0:0:0:17 version 5\n"
              "lu 0:0:1:0 version 5\nlu 0:0:1:1 version 5\n"
              "lu 0:0:1:10000000000000000 version 5\n")

    def test_any_host_is_not_an_option(self):
        t = self.tree(self.SCRIPT)
        t.run("-:0:1", rc=0)
        self.assertEqual(t.devices(), ["0:0:1:0", "0:0:1:1", "0:0:1:10000000000000000"])
        t2 = self.tree(self.SCRIPT)
        t2.run("-v", "--", "-:-:1", rc=0)
        self.assertEqual(len(t2.devices()), 3)

    def test_one_lun_in_hex_attaches_only_that_lun(self):
        t = self.tree(self.SCRIPT)
        r = t.json("0:0:0:0x10", rc=0)
        self.assertEqual(t.devices(), ["0:0:0:16"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {16: "attached", 0: "detached"})
        self.assertIn("through LUN 0, attached for this scan and detached", tgt["reached"])
        # octal, as the kernel reads a leading 0
        t.run("0:0:0:021", rc=0)
        self.assertEqual(t.devices(), ["0:0:0:16", "0:0:0:17"])

    def test_lun_0_attached_before_stays(self):
        t = self.tree(self.SCRIPT)
        t.run("0:0:0:0", rc=0)
        t.run("0:0:0:17", rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:17"])

    def test_luns_past_16_decimal_digits_are_written_in_hex(self):
        t = self.tree(self.SCRIPT)
        t.run("0:0:1", rc=0)
        self.assertIn("0:0:1:10000000000000000", t.devices())
        self.assertIn("scan host0 0 1 10000000000000000", t.commands())

    def test_kernel_range(self):
        t = self.tree(self.SCRIPT)
        p = t.run("0:0:0:0x100000000000000", rc=2)
        self.assertIn("at most 0xffffffffffffff", p.stderr)
        p = t.run("0:0:0:08", rc=2)
        self.assertIn("not a selector", p.stderr)


class Database(ScanTest):
    def test_attach_false_detaches_lun0(self):
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "x" {\n\tvendor = "ACME"\n\tattach = false\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:0 vendor ACME version 5\nlu 0:0:0:1 vendor ACME version 5\n")
            r = t.json(quirks=(QUIRKS, etc), rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "detached"})
        self.assertEqual(t.devices(), [])
        self.assertIn("attach = false", tgt["end_reason"])

    def test_attach_false_keeps_lun0_in_use(self):
        # mounted the moment it appeared: the scan attached it, but it is
        # not taken away from the user
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "x" {\n\tvendor = "ACME"\n\tattach = false\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:0 vendor ACME version 5 mounted /media/x\n")
            r = t.json(quirks=(QUIRKS, etc), rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "in-use"})
        self.assertIn("is mounted on /media/x", tgt["luns"][0]["reason"])
        self.assertEqual(t.devices(), ["0:0:0:0"])

    def test_check_error_is_in_use(self):
        # /proc/swaps unreadable: the removal is refused, never guessed
        t = self.tree(Remove.SCRIPT)
        t.run(rc=0)
        os.makedirs(os.path.join(t.root, "proc/swaps"))
        with open(t.script, "a") as f:
            f.write("report 0:0:0 list 0\n")
        r = t.json("--remove", rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "present", 1: "in-use", 2: "in-use"})
        self.assertIn("cannot read /proc/swaps", tgt["luns"][1]["reason"])
        self.assertEqual(len(t.devices()), 3)

    def test_per_lun_type_entry_hides_management_luns(self):
        # the man page's example: LUN 0 and LUN 3 are the array's
        # controller (type 12), LUNs 1 and 2 its disks
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "acme-mgmt" {\n\tvendor = "ACME"\n\tmodel = "Array"\n'
                        '\ttype = 12\n\tattach = false\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:0 vendor ACME model Array version 5 pdt 12\n"
                          "lu 0:0:0:1 vendor ACME model Array version 5\n"
                          "lu 0:0:0:2 vendor ACME model Array version 5\n"
                          "lu 0:0:0:3 vendor ACME model Array version 5 pdt 12\n")
            r = t.json(quirks=(QUIRKS, etc), rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {1: "attached", 2: "attached", 3: "detached", 0: "detached"})
        self.assertEqual([lu["lun"] for lu in tgt["luns"]].count(0), 1, tgt["luns"])
        reasons = {lu["lun"]: lu["reason"] for lu in tgt["luns"]}
        self.assertIn("type 12) from", reasons[3])
        self.assertIn("50-local.conf:1", reasons[0])
        self.assertEqual(t.devices(), ["0:0:0:1", "0:0:0:2"])

    def test_type_entry_applies_without_lun_0(self):
        # reached through the W-LUN (type 30): a type 0 entry still applies
        # to the disks, per LUN
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "no-disks" {\n\tvendor = "ACME"\n\ttype = 0\n'
                        '\tattach = false\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:1 vendor ACME version 5\n"
                          "lu 0:0:0:2 vendor ACME version 5 pdt 8\n")
            r = t.json(quirks=(QUIRKS, etc), rc=0)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[1], "detached")
        self.assertEqual(luns[2], "attached")
        self.assertEqual(t.devices(), ["0:0:0:2"])

    def test_max_lun_and_single_lun_selector(self):
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "x" {\n\tvendor = "ACME"\n\tmax_lun = 1\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                          "".join(f"lu 0:0:0:{n} vendor ACME version 5\n" for n in range(4)))
            r = t.json(quirks=(QUIRKS, etc), rc=0)
            luns, _ = self.lun_outcomes(r, "0:0:0")
            self.assertEqual(luns, {0: "attached", 1: "attached", 2: "skipped", 3: "skipped"})
            r = t.json("0:0:0:3", quirks=(QUIRKS, etc), rc=0)
            luns, _ = self.lun_outcomes(r, "0:0:0")
            self.assertEqual(luns[3], "skipped")
        t2 = self.tree("host 0 max_id 1 max_lun 49410\n" +
                       "".join(f"lu 0:0:0:{n} version 5\n" for n in range(4)))
        # only the LUN asked for: LUN 0 was only the way in
        t2.run("0:0:0:3", rc=0)
        self.assertEqual(t2.devices(), ["0:0:0:3"])

    def test_broken_quirk_file_reported_rest_used(self):
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-broken.conf"), "w") as f:
                f.write('device "x" {\n\tvendor = "ACME"\n\tflags = {"nolunn"}\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:0 vendor CHINON model CD-ROM_CDS-431 version 2\n"
                          "lu 0:0:0:1 vendor CHINON model CD-ROM_CDS-431 version 2\n")
            p = t.run(quirks=(QUIRKS, etc), rc=0)
        self.assertIn("50-broken.conf:3: unknown flag 'nolunn'", p.stderr)
        self.assertEqual(t.devices(), ["0:0:0:0"])


class OneWriteForATarget(ScanTest):
    """When nothing refuses any listed LUN, the rest of a REPORT LUNS list
    after the first listed LUN goes to one "C T -" write (the kernel's
    target scan); each LUN is still looked at afterwards."""

    def script(self, luns=40, extra="", host_extra=""):
        return (f"host 0 max_id 1 max_lun 49410{host_extra}\n" +
                "".join(f"lu 0:0:0:{n} vendor ACME model Big version 6 serial S{n} "
                        f"naa 5000c5000000{n:04x}\n" for n in range(luns)) + extra)

    def scans(self, t):
        """The scan writes for target 0:0 (discovery also looks past it)."""
        return [c for c in t.commands() if c.startswith("scan host0 0 0 ")]

    def test_the_rest_of_the_list_in_one_write(self):
        t = self.tree(self.script())
        r = t.json(rc=0)
        self.assertEqual(t.devices(), [f"0:0:0:{n}" for n in range(40)])
        self.assertEqual(self.scans(t), ["scan host0 0 0 0", "scan host0 0 0 1",
                                         "scan host0 0 0 -"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {n: "attached" for n in range(40)})
        self.assertTrue(tgt["batched"])
        self.assertIn("the 38 LUNs left of the list by one kernel target scan",
                      tgt["batch_reason"])
        self.assertEqual({lu["reason_code"] for lu in tgt["luns"][2:]}, {"kernel-scan"})
        t = self.tree(self.script())
        p = t.run("-v", rc=0)
        self.assertIn("    attached: the 38 LUNs left of the list by one kernel target scan",
                      p.stdout)

    def test_a_listed_lun_the_kernel_left_out_is_tried_on_its_own(self):
        # LUN 20 answers with qualifier 3: the kernel's target scan leaves it
        t = self.tree(self.script(extra="lu 0:0:0:40 pq 3 version 6\n"
                                        "report 0:0:0 list " +
                                        ",".join(str(n) for n in range(41)) + "\n"))
        r = t.json(rc=1)
        scans = self.scans(t)
        self.assertEqual(scans[:3], ["scan host0 0 0 0", "scan host0 0 0 1",
                                     "scan host0 0 0 -"])
        self.assertEqual(scans[3:], ["scan host0 0 0 40"])
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[40], "absent")

    def test_few_luns_are_written_one_by_one(self):
        t = self.tree(self.script(luns=17))
        r = t.json(rc=0)
        self.assertNotIn("scan host0 0 0 -", self.scans(t))
        self.assertEqual(len(self.scans(t)), 17)
        self.assertFalse(self.lun_outcomes(r, "0:0:0")[1]["batched"])

    def test_ghosts_are_caught_before_the_kernel_attaches_them(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      "".join(f"lu 0:0:0:{n} vendor ACME model Ghost version 6 serial G "
                              f"naa 5000c500deadbe01\n" for n in range(40)))
        t.run(rc=1)
        self.assertEqual(self.scans(t), ["scan host0 0 0 0", "scan host0 0 0 1"])
        self.assertEqual(t.devices(), ["0:0:0:0"])

    def test_a_policy_gets_our_writes_of_its_luns_not_a_target_scan(self):
        etc = tempfile.mkdtemp(prefix="scsi-scan-policy-")
        self.addCleanup(shutil.rmtree, etc)
        with open(os.path.join(etc, "50-mask.conf"), "w") as f:
            f.write('lunmask "m" {\n\tdriver = "fake"\n\texclude_luns = { 30 }\n}\n')
        t = self.tree(self.script())
        r = t.json(quirks=(QUIRKS, etc), rc=0)
        scans = self.scans(t)
        # LUN 30 is never written, not even by a "- - -": the other 37 of
        # the list's rest are, each once, by the hand-over's writers.
        self.assertNotIn("scan host0 0 0 -", scans)
        self.assertNotIn("scan host0 0 0 30", scans)
        self.assertEqual(scans[:2], ["scan host0 0 0 0", "scan host0 0 0 1"])
        self.assertEqual(sorted(scans[2:]), sorted(f"scan host0 0 0 {n}" for n in range(2, 40)
                                                   if n != 30))
        self.assertEqual(t.devices(), [f"0:0:0:{n}" for n in range(40) if n != 30])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[30], "skipped")
        self.assertEqual({lu["reason_code"] for lu in tgt["luns"] if lu["lun"] >= 2
                          and lu["lun"] != 30}, {"listed"})
        self.assertTrue(tgt["batched"])
        self.assertIn("the 37 LUNs left of the list that the policy allows (of 38), one scan "
                      "write each", tgt["batch_reason"])
        # Where the scan may run on one CPU only, one writer: in the list's
        # order, the same LUNs attached.
        t = self.tree(self.script())
        r = t.json(quirks=(QUIRKS, etc), rc=0, cpus={min(os.sched_getaffinity(0))})
        self.assertEqual(self.scans(t), [f"scan host0 0 0 {n}" for n in range(40) if n != 30])
        with open(t.writers) as f:
            self.assertEqual(len(set(f.read().split())), 1)
        self.assertEqual(t.devices(), [f"0:0:0:{n}" for n in range(40) if n != 30])
        self.assertEqual(self.lun_outcomes(r, "0:0:0")[0][30], "skipped")
        # A host that takes LUNs below 20 only: the writes stop at the first
        # refusal, the walk tries each LUN after it on its own.
        t = self.tree(self.script(host_extra=" max_lun 20"))
        r = t.json(quirks=(QUIRKS, etc), rc=1)
        self.assertEqual(t.devices(), [f"0:0:0:{n}" for n in range(20)])
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual({luns[n] for n in range(20, 40) if n != 30}, {"beyond-limit"})
        self.assertNotIn("scan host0 0 0 30", self.scans(t))
        # 40 LUNs at 100 ms a write cannot fit a 2 s bound: LUN by LUN
        t = self.tree(self.script(host_extra=" delay_ms 100"))
        r = t.json("--target-timeout", "2", quirks=(QUIRKS, etc), rc=1)
        self.assertFalse(self.lun_outcomes(r, "0:0:0")[1]["batched"])
        self.assertNotIn("scan host0 0 0 30", self.scans(t))

    def test_quirk_and_bounds_keep_it_lun_by_lun(self):
        etc = tempfile.mkdtemp(prefix="scsi-scan-policy-")
        self.addCleanup(shutil.rmtree, etc)
        with open(os.path.join(etc, "50-mask.conf"), "w") as f:
            f.write('device "big" {\n\tvendor = "ACME"\n\tmodel = "Big"\n'
                    '\tmax_lun = 35\n}\n')
        t = self.tree(self.script())
        t.run(quirks=(QUIRKS, etc), rc=0)
        self.assertNotIn("scan host0 0 0 -", self.scans(t))
        self.assertEqual(len(t.devices()), 36)
        # 40 LUNs at 100 ms a write cannot fit a 2 s bound: one write could
        # not be stopped when the bound is reached
        t = self.tree(self.script(host_extra=" delay_ms 100"))
        r = t.json("--target-timeout", "2", rc=1)
        self.assertNotIn("scan host0 0 0 -", self.scans(t))
        self.assertFalse(self.lun_outcomes(r, "0:0:0")[1]["batched"])
        t = self.tree(self.script())
        t.run("--dry-run", rc=0)
        self.assertEqual(self.scans(t), [])


class DeviceHandlers(ScanTest):
    """The device handler (scsi_dh) of each LUN the scan attaches: alua for a
    device that reports target port groups, the kernel's table otherwise,
    a local entry over both; written to dh_state when the kernel attached
    none, as scsi_dh_add_device() does only when the module is loaded."""

    def test_tpgs_gets_alua(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor LIO-ORG model IBLOCK tpgs 1\n"
                      "lu 0:0:0:1 vendor LIO-ORG model IBLOCK tpgs 1 dh alua\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["handler"]["name"], "alua")
        self.assertEqual(tgt["handler"]["origin"], "tpgs")
        self.assertEqual([(h["lun"], h["step"]) for h in tgt["handler"]["luns"]],
                         [(0, "attach"), (1, "keep")])
        self.assertIn("dh_state 0:0:0:0 alua", t.commands())
        self.assertNotIn("dh_state 0:0:0:1 alua", t.commands())
        with open(os.path.join(t.root, "sys/bus/scsi/devices/0:0:0:0/dh_state")) as f:
            self.assertEqual(f.read(), "alua\n")

    def test_table_and_local_entry(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor DGC model RAID_5 version 4\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["handler"]["name"], "emc")
        self.assertEqual(tgt["handler"]["origin"], "table")
        self.assertTrue(tgt["handler"]["source"]["file"].endswith(
            "40-linux-device-handlers.conf"))
        self.assertIn("dh_state 0:0:0:0 emc", t.commands())
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "mine" {\n\tvendor = "DGC"\n\tmodel = "RAID 5"\n'
                        '\thandler = "alua"\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:0 vendor DGC model RAID_5 version 4\n")
            r = t.json(quirks=(QUIRKS, etc), rc=0)
            out = t.run("explain", "0:0:0", quirks=(QUIRKS, etc), rc=0).stdout
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual((tgt["handler"]["name"], tgt["handler"]["origin"]), ("alua", "local"))
        self.assertIn("device handler: alua (", out)
        self.assertIn("50-local.conf:1, mine)", out)

    def test_a_handler_scsi_dh_does_not_have_is_not_written(self):
        """The second audit: a local entry's handler name went to dh_state
        whatever it was, and the kernel loads scsi_dh_NAME for it."""
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "mine" {\n\tvendor = "DGC"\n\tmodel = "RAID 5"\n'
                        '\thandler = "mydh"\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\n"
                          "lu 0:0:0:0 vendor DGC model RAID_5 version 4\n")
            r = t.json(quirks=(QUIRKS, etc), rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["handler"]["name"], "mydh")
        self.assertEqual(tgt["handler"]["luns"][0]["step"], "not-kernel")
        self.assertFalse([c for c in t.commands() if c.startswith("dh_state")])

    def test_conflict_and_no_scsi_dh(self):
        t = self.tree("host 0 max_id 2 max_lun 49410\n"
                      "lu 0:0:0:0 vendor LIO-ORG model IBLOCK tpgs 1 dh rdac\n"
                      "lu 0:0:1:0 vendor LIO-ORG model IBLOCK tpgs 1 dh none\n")
        r = t.json(rc=0)
        _, t0 = self.lun_outcomes(r, "0:0:0")
        _, t1 = self.lun_outcomes(r, "0:0:1")
        self.assertEqual(t0["handler"]["luns"][0]["step"], "conflict")
        self.assertEqual(t0["handler"]["luns"][0]["had"], "rdac")
        self.assertEqual(t1["handler"]["luns"][0]["step"], "unknown")
        self.assertFalse([c for c in t.commands() if c.startswith("dh_state")])

    def test_dry_run_and_plain_disks_write_nothing(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor ACME model Disk\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertIsNone(tgt["handler"])
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor LIO-ORG model IBLOCK tpgs 1\n")
        t.run(rc=0)
        os.remove(t.log)
        t.run("--dry-run", rc=0)
        self.assertFalse([c for c in t.commands() if c.startswith("dh_state")])


class ProcDeviceInfo(ScanTest):
    def test_entries_written_once(self):
        """A kernel with /proc/scsi/device_info takes the database's entries at
        run time, before the scan attaches anything; an entry the list has
        already is not written again."""
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "msa" {\n\tvendor = "COMPAQ"\n\tmodel = "MSA1000"\n'
                        '\tdrop_flags = {"nostartonadd"}\n}\n')
            t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0\n")
            t.write("proc/scsi/device_info", "[scsi_devinfo_global]:\n'COMPAQ' 'MSA1000' 0x1040\n")
            t.run(quirks=(QUIRKS, etc), rc=0)
            self.assertIn("device_info COMPAQ:MSA1000:0x40", t.commands())
            with open(os.path.join(t.root, "proc/scsi/device_info")) as f:
                first = next(line for line in f
                             if line.startswith("'COMPAQ  ' 'MSA1000         '"))
            self.assertEqual(first, "'COMPAQ  ' 'MSA1000         ' 0x40\n")
            n = len([c for c in t.commands() if c.startswith("device_info")])
            t.run(quirks=(QUIRKS, etc), rc=0)
            t.run("--dry-run", quirks=(QUIRKS, etc), rc=0)
            self.assertEqual(len([c for c in t.commands() if c.startswith("device_info")]), n)


class CompiledImage(ScanTest):
    """scsi-quirks compile: scsi-scan loads the image while every file and
    directory it was made from is unchanged, and the text otherwise."""
    SCRIPT = ("host 0 max_id 1 max_lun 49410\n"
              "lu 0:0:0:0 vendor ACME model Disk version 5\n"
              "lu 0:0:0:1 vendor ACME model Disk version 5\n")
    NOLUN = 'device "acme" {\n\tvendor = "ACME"\n\tmodel = "Disk"\n\tflags = {"nolun"}\n}\n'

    def setUp(self):
        self.etc = tempfile.mkdtemp(prefix="scsi-scan-etc-")
        self.addCleanup(shutil.rmtree, self.etc)
        self.conf = os.path.join(self.etc, "50-acme.conf")
        with open(self.conf, "w") as f:
            f.write(self.NOLUN)
        self.image = os.path.join(self.etc, "quirks.bin")
        p = subprocess.run([QUIRKS_TOOL, "--quirks-dir", QUIRKS, "--quirks-dir", self.etc,
                            "--output", self.image, "compile"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^\d+ entries compiled into ")

    def scan(self, expect_source, quirks=None):
        t = self.tree(self.SCRIPT)
        p = t.run("-v", "--quirks-image", self.image, quirks=quirks or (QUIRKS, self.etc), rc=0)
        self.assertIn(expect_source, p.stderr)
        return t

    def test_current_image_is_used_and_gives_the_same_scan(self):
        t = self.scan("quirks: the compiled image")
        self.assertEqual(t.devices(), ["0:0:0:0"])
        r = t.json("--dry-run", "--quirks-image", self.image, quirks=(QUIRKS, self.etc))
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        src = tgt["quirks"]["sources"][0]
        self.assertEqual((src["file"], src["line"]), (self.conf, 1))

    def test_edited_file_makes_it_stale(self):
        with open(self.conf, "w") as f:
            f.write("# no entry\n")
        t = self.scan("the image %s is out of date" % self.image)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])

    def test_added_removed_or_masked_file_makes_it_stale(self):
        with open(os.path.join(self.etc, "60-other.conf"), "w") as f:
            f.write("")
        self.scan("is out of date")
        os.unlink(os.path.join(self.etc, "60-other.conf"))
        self.scan("quirks: the compiled image")
        os.unlink(self.conf)
        os.symlink("/dev/null", self.conf)
        t = self.scan("is out of date")
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])

    def test_other_search_path_makes_it_stale(self):
        t = self.scan("is out of date", quirks=(QUIRKS,))
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])

    def test_broken_image_falls_back_to_the_text(self):
        with open(self.image, "r+b") as f:
            f.truncate(100)
        t = self.scan("the image %s is not usable" % self.image)
        self.assertEqual(t.devices(), ["0:0:0:0"])

    def test_compile_into_a_staging_root(self):
        root = tempfile.mkdtemp(prefix="scsi-scan-root-")
        self.addCleanup(shutil.rmtree, root)
        os.makedirs(os.path.join(root, "etc/scsi-scan/quirks.d"))
        shutil.copy(self.conf, os.path.join(root, "etc/scsi-scan/quirks.d"))
        p = subprocess.run([QUIRKS_TOOL, "--root", root, "compile"], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        image = os.path.join(root, "etc/scsi-scan/quirks.bin")
        self.assertIn("compiled into " + image, p.stdout)
        with open(image, "rb") as f:
            data = f.read()
        # the paths the files have once the tree is the root
        self.assertIn(b"/etc/scsi-scan/quirks.d/50-acme.conf", data)
        self.assertNotIn(root.encode(), data)
        p = subprocess.run([QUIRKS_TOOL, "--root", "/nonexistent", "compile"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot compile the database into /nonexistent/etc/scsi-scan/quirks.bin",
                      p.stderr)


class DeviceTree(ScanTest):
    """Hosts with their device links, as the kernel's sysfs has them: a
    host's LUNs are listed from its own part of the device tree."""

    SCRIPT = ("host 0 max_id 2 max_lun 49410\n"
              "lu 0:0:0:0 version 5\nlu 0:0:0:1 version 5\nlu 0:0:1:0 version 5\n"
              "host 1 max_id 1 max_lun 49410\n"
              "lu 1:0:0:0 version 5\nlu 1:0:0:3 version 5\n")

    def test_luns_found_under_their_host(self):
        t = self.tree(self.SCRIPT, hosts=(0, 1), device_tree=True)
        # A LUN already attached below a transport's object between the
        # host and its target (an iSCSI session's, an FC remote port's).
        rel = "sys/devices/fake/host0/session1/target0:0:1/0:0:1:0"
        t.attrs(rel, vendor="Linux   ", model="scsi_debug      ", type=0, state="running")
        os.makedirs(os.path.join(t.root, rel, "scsi_generic/sg9"))
        t.write("dev/sg9", "")
        os.symlink("../../../devices/fake/host0/session1/target0:0:1/0:0:1:0",
                   os.path.join(t.root, "sys/bus/scsi/devices/0:0:1:0"))
        r = t.json(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "1:0:0:0", "1:0:0:3"])
        for hctl in ("0:0:0:1", "1:0:0:3"):
            link = os.path.join(t.root, "sys/bus/scsi/devices", hctl)
            host = hctl.split(":")[0]
            self.assertTrue(os.path.islink(link))
            self.assertEqual(os.path.realpath(link), os.path.realpath(os.path.join(
                t.root, f"sys/devices/fake/host{host}/target{hctl.rsplit(':', 1)[0]}/{hctl}")))
        self.assertEqual(self.lun_outcomes(r, "0:0:1")[0], {0: "present"})
        self.assertEqual(self.lun_outcomes(r, "1:0:0")[0], {0: "attached", 3: "attached"})
        listed = [d["hctl"] for d in json.loads(t.run("list", "host0", "--json",
                                                      rc=0).stdout)["devices"]]
        self.assertEqual(listed, ["0:0:0:0", "0:0:0:1", "0:0:1:0"])
        # a second scan finds the target's LUNs attached: none probed again
        before = len(t.commands())
        r = t.json("host1", rc=0)
        self.assertEqual(self.lun_outcomes(r, "1:0:0")[0], {0: "present", 3: "present"})
        new = t.commands()[before:]
        self.assertFalse([c for c in new if c.startswith(("attach", "scan host1 0 0 "))], new)
        # a LUN the target stops listing is deleted from under its target
        with open(t.script, "a") as f:
            f.write("report 1:0:0 list 0\n")
        r = t.json("--remove", "host1", rc=0)
        self.assertEqual(self.lun_outcomes(r, "1:0:0")[0][3], "removed")
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "1:0:0:0"])
        self.assertFalse(os.path.exists(os.path.join(t.root,
                                                     "sys/devices/fake/host1/target1:0:0/1:0:0:3")))


class Remove(ScanTest):
    SCRIPT = ("host 0 max_id 1 max_lun 49410\n"
              "lu 0:0:0:0 version 5\nlu 0:0:0:1 version 5\nlu 0:0:0:2 version 5\n")

    def gone(self, t, luns):
        """The device stops listing @luns: the script's REPORT LUNS changes."""
        with open(t.script, "a") as f:
            f.write("report 0:0:0 list " + ",".join(str(n) for n in luns) + "\n")

    def block(self, t, hctl, disk, devt):
        os.makedirs(os.path.join(t.root, f"sys/bus/scsi/devices/{hctl}/block/{disk}"))
        os.makedirs(os.path.join(t.root, f"sys/class/block/{disk}/holders"))
        t.write(f"sys/class/block/{disk}/dev", devt + "\n")

    def test_remove_unlisted(self):
        t = self.tree(self.SCRIPT)
        t.run(rc=0)
        self.gone(t, [0, 1])
        r = t.json("--remove", rc=0)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[2], "removed")
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])

    def test_short_report_luns_removes_nothing(self):
        """A REPORT LUNS answer that moves fewer bytes than its header
        announces, twice: the one LUN it carries is no reason to delete the
        others (the audit's data loss: LUNs 1-3 deleted, exit 0)."""
        t = self.tree(self.SCRIPT + "lu 0:0:0:3 version 5\n")
        t.run(rc=0)
        self.assertEqual(len(t.devices()), 4)
        with open(t.script, "a") as f:
            f.write("report 0:0:0 short 16\n")
        p = t.run("--remove", "--json", rc=1)
        r = json.loads(p.stdout)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:0:2", "0:0:0:3"])
        self.assertNotIn("removed", luns.values())
        self.assertFalse(tgt["report_luns_complete"])
        self.assertTrue(tgt["removal_refused"])
        self.assertEqual(tgt["report_luns"], [0])
        # asked again with exactly the announced length, then given up
        lens = [c for c in t.commands() if c.startswith("REPORT LUNS")][-2:]
        self.assertEqual(lens, ["REPORT LUNS 0:0:0 len 4096", "REPORT LUNS 0:0:0 len 40"])
        self.assertFalse([c for c in t.commands() if c.startswith("delete")])
        p = t.run("--remove", rc=1)
        self.assertIn("short of the list its header announced", p.stderr)

    def test_short_report_luns_reissued(self):
        """Cut short once: the command again with the announced length
        gives the whole list, and --remove works from it."""
        t = self.tree(self.SCRIPT + "lu 0:0:0:3 version 5\n")
        t.run(rc=0)
        with open(t.script, "a") as f:
            f.write("report 0:0:0 short 16 times 1\n")
        r = t.json("--remove", rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertTrue(tgt["report_luns_complete"])
        self.assertEqual(tgt["report_luns"], [0, 1, 2, 3])
        self.assertEqual(len(t.devices()), 4)

    def test_report_luns_past_the_old_limit(self):
        """A target that reports 16,390 LUNs: Linux 6.x has no
        max_report_luns (it was 16,383 by default) and takes a REPORT LUNS
        list of any length, growing its buffer to what the header
        announces. So does scsi-scan: every LUN attached, the list whole,
        the command re-issued with the announced length."""
        n = 16390
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      "".join(f"lu 0:0:0:{lun} version 6\n" for lun in range(n)))
        r = t.json(rc=0, timeout=600)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertTrue(tgt["report_luns_complete"])
        self.assertEqual(len(tgt["report_luns"]), n)
        self.assertEqual(len(t.devices()), n)
        self.assertIn("0:0:0:16389", t.devices())
        lens = [int(c.rsplit(" ", 1)[1]) for c in t.commands() if c.startswith("REPORT LUNS")]
        self.assertEqual(lens[-1], 8 + 8 * n, lens)

    def test_empty_report_luns_in_json(self):
        """An empty list is a list: --json keeps report_luns = []."""
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5\nreport 0:0:0 list\n")
        r = t.json(rc=0)
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(tgt["report_luns"], [])
        self.assertTrue(tgt["report_luns_complete"])

    def test_without_remove_nothing_goes(self):
        t = self.tree(self.SCRIPT)
        t.run(rc=0)
        self.gone(t, [0])
        t.run(rc=0)
        self.assertEqual(len(t.devices()), 3)

    def test_mounted_kept_unless_forced(self):
        t = self.tree(self.SCRIPT)
        t.run(rc=0)
        self.block(t, "0:0:0:2", "sdc", "8:32")
        t.write("proc/self/mountinfo", "36 25 8:32 / /mnt rw,relatime - ext4 /dev/sdc rw\n")
        self.gone(t, [0, 1])
        # kept, so not everything asked for was done: exit 1
        r = t.json("--remove", rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[2], "in-use")
        reason = [lu["reason"] for lu in tgt["luns"] if lu["lun"] == 2][0]
        self.assertIn("/dev/sdc is mounted on /mnt", reason)
        self.assertIn("0:0:0:2", t.devices())
        r = t.json("--remove", "--force", rc=0)
        self.assertNotIn("0:0:0:2", t.devices())

    def test_a_remapped_target_of_one_lun_comes_back_as_a_new_directory(self):
        """As sysfs has it: the target's directory goes with its last LUN
        and a new one comes with the attach. The scan's reads from the
        target's directory follow it there."""
        script = ("host 0 max_id 1 max_lun 49410\n"
                  "lu 0:0:0:0 version 5 naa 6001405000000001 serial A0\n")
        t = self.tree(script, device_tree=True)
        t.run(rc=0)
        with open(t.script, "w") as f:
            f.write(script.replace("6001405000000001 serial A0", "6001405000000009 serial B0"))
        before = len(t.commands())
        r = t.json(rc=0)
        new = [c for c in t.commands()[before:] if c.startswith(("scan", "delete"))]
        self.assertEqual(new[:2], ["delete 0:0:0:0", "scan host0 0 0 0"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached"})
        self.assertEqual([lu["reason_code"] for lu in tgt["luns"]], ["remapped"])
        # what the new directory holds was read: the new unit is left alone
        self.assertEqual(self.lun_outcomes(t.json(rc=0), "0:0:0")[0], {0: "present"})

    def test_remapped_lun(self):
        """Another volume behind an attached LUN number (the script edited
        after the attach, as an array remaps the LUN): deleted and attached
        again when unused; kept and exit 1 when mounted; said in a dry
        run; the same unit is left alone."""
        script = ("host 0 max_id 1 max_lun 49410\n"
                  "lu 0:0:0:0 version 5 naa 6001405000000001 serial A0\n"
                  "lu 0:0:0:1 version 5 naa 6001405000000002 serial A1\n"
                  "lu 0:0:0:2 version 5 naa 6001405000000003 serial A2 {m}\n")
        t = self.tree(script.format(m=""))
        t.run(rc=0)
        before = len(t.commands())
        r = t.json(rc=0)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "present", 1: "present", 2: "present"})
        self.assertEqual([c for c in t.commands()[before:] if c.startswith("INQUIRY VPD")],
                         ["INQUIRY VPD 0x83 0:0:0:0", "INQUIRY VPD 0x83 0:0:0:1",
                          "INQUIRY VPD 0x83 0:0:0:2"])
        with open(t.script, "w") as f:
            f.write(script.format(m="").replace("6001405000000002 serial A1",
                                                "6001405000000009 serial B1"))
        p = t.run("-n", rc=0)
        self.assertIn("would-remove", p.stdout)
        self.assertIn("remapped, another unit answers at it: VPD 0x83 naa.6001405000000002 "
                      "became naa.6001405000000009", p.stdout)
        before = len(t.commands())
        r = t.json(rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "present", 1: "attached", 2: "present"})
        self.assertEqual([lu["reason_code"] for lu in tgt["luns"] if lu["lun"] == 1],
                         ["remapped"])
        new = [c for c in t.commands()[before:] if c.startswith(("scan", "delete"))]
        self.assertEqual(new[:2], ["delete 0:0:0:1", "scan host0 0 0 1"], new)
        # the kernel's copy is the new unit's now: left alone next time
        self.assertEqual(self.lun_outcomes(t.json(rc=0), "0:0:0")[0][1], "present")
        # remapped while mounted: kept, both identities and the holder said
        t2 = self.tree(script.format(m="mounted /srv"))
        t2.run(rc=0)
        with open(t2.script, "w") as f:
            f.write(script.format(m="mounted /srv").replace("6001405000000003 serial A2",
                                                            "600140500000000a serial B2"))
        r = t2.json(rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[2], "in-use")
        reason = [lu["reason"] for lu in tgt["luns"] if lu["lun"] == 2][0]
        self.assertIn("naa.6001405000000003 became naa.600140500000000a", reason)
        self.assertIn("mounted on /srv", reason)
        self.assertIn("0:0:0:2", t2.devices())

    def test_identity_record(self):
        """The identity a LUN had when first seen is kept in
        /run/scsi-scan/identity: a rescan by someone else refreshes the
        kernel's copy, not the record, so the remap is still found; a
        broken record is rebuilt from the kernel's copy, never trusted."""
        script = ("host 0 max_id 1 max_lun 49410\n"
                  "lu 0:0:0:0 version 5 naa 6001405000000001\n"
                  "lu 0:0:0:1 version 5 naa 6001405000000002\n")
        t = self.tree(script)
        t.run(rc=0)
        rec = os.path.join(t.root, "run/scsi-scan/identity/0:0:0:1")
        # a dry run writes no record
        t.run("-n", rc=0)
        self.assertFalse(os.path.exists(rec))
        t.run(rc=0)
        with open(rec) as f:
            text = f.read()
        self.assertRegex(text, r"^instance=\d+\ninquiry=[0-9a-f]+\nvpd80=\nvpd83=[0-9a-f]+\n$")
        self.assertIn("6001405000000002", text)
        # remapped, and someone's rescan refreshed the kernel's copy
        with open(t.script, "w") as f:
            f.write(script.replace("6001405000000002", "6001405000000077"))
        vpd = os.path.join(t.root, "sys/bus/scsi/devices/0:0:0:1/vpd_pg83")
        with open(vpd, "rb") as f:
            page = bytearray(f.read())
        page[15] = 0x77
        with open(vpd, "wb") as f:
            f.write(bytes(page))
        p = t.run("-n", rc=0)
        self.assertIn("would-remove", p.stdout)
        self.assertIn("naa.6001405000000002 became naa.6001405000000077", p.stdout)
        # list sends no command: the record against the kernel's copy
        p = t.run("list", rc=0)
        self.assertEqual(p.stdout.count("identity-changed"), 1, p.stdout)
        self.assertIn("identity: when first seen naa.6001405000000002; the kernel's copy now "
                      "naa.6001405000000077", p.stdout)
        doc = {d["hctl"]: d["identity"] for d in json.loads(t.run("list", "--json",
                                                                   rc=0).stdout)["devices"]}
        self.assertEqual(doc["0:0:0:1"]["recorded"], "naa.6001405000000002")
        self.assertEqual(doc["0:0:0:1"]["kernel"], "naa.6001405000000077")
        self.assertTrue(doc["0:0:0:1"]["changed"])
        self.assertEqual((doc["0:0:0:0"]["kernel"], doc["0:0:0:0"]["changed"]),
                         ("naa.6001405000000001", False))
        # a broken record: rebuilt from the kernel's copy (now the new
        # unit's), not trusted, nothing deleted on its account
        with open(rec, "w") as f:
            f.write("instance=1\nvpd83=zz\n")
        p = t.json(rc=0)
        self.assertEqual(self.lun_outcomes(p, "0:0:0")[0][1], "present")
        with open(rec) as f:
            self.assertIn("6001405000000077", f.read())
        # a LUN the scan deletes loses its record
        with open(t.script, "w") as f:
            f.write(script.replace("lu 0:0:0:1 version 5 naa 6001405000000002\n", ""))
        t.run("--remove", rc=0)
        self.assertNotIn("0:0:0:1", t.devices())
        self.assertFalse(os.path.exists(rec))

    def test_held_by_dm_kept(self):
        t = self.tree(self.SCRIPT)
        t.run(rc=0)
        self.block(t, "0:0:0:1", "sdb", "8:16")
        os.makedirs(os.path.join(t.root, "sys/class/block/sdb/holders/dm-0"))
        self.gone(t, [0])
        r = t.json("--remove", rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "present", 1: "in-use", 2: "removed"})
        self.assertIn("held by dm-0", [lu["reason"] for lu in tgt["luns"] if lu["lun"] == 1][0])

    def test_dry_run_writes_nothing(self):
        t = self.tree(self.SCRIPT)
        t.run("0:0:0:0", rc=0)
        before = len(t.commands())
        p = t.run("--dry-run", rc=0)
        self.assertIn("would-probe", p.stdout)
        new = t.commands()[before:]
        self.assertFalse([c for c in new if c.startswith(("scan", "attach", "delete"))], new)
        self.assertEqual(t.devices(), ["0:0:0:0"])


class Ghosts(ScanTest):
    """LUNs whose INQUIRY, VPD 0x80 and 0x83 repeat another LUN's: the scan
    of the target stops and keeps the LUN it came through."""

    def lus(self, target, luns, serial=None, naa=None, version=5):
        out = ""
        for n in luns:
            extra = f" serial {serial(n) if callable(serial) else serial}" if serial else ""
            extra += f" naa {naa(n) if callable(naa) else naa}" if naa else ""
            out += f"lu 0:0:{target}:{n} vendor ACME model Ghost version {version}{extra}\n"
        return out

    def test_ghosts_stop_the_target(self):
        t = self.tree("host 0 max_id 2 max_lun 49410\n" +
                      self.lus(0, range(4), "GH01", "5000c500deadbe01") +
                      self.lus(1, range(3), "SHARED", lambda n: f"5000c500000000{n:02x}"))
        p = t.run("--json", rc=1)
        r = json.loads(p.stdout)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached", 1: "detached"})
        self.assertTrue(tgt["ghost_stop"])
        g = tgt["ghosts"][0]
        self.assertEqual((g["lun"], g["same_as"], g["verdict"], g["rule"]),
                         (1, 0, "same-unit", "all-identical"))
        self.assertIn("VPD 0x80 serial 'GH01' identical", g["evidence"])
        self.assertIn("VPD 0x83 naa.5000c500deadbe01 identical", g["evidence"])
        self.assertIn("ghost LUNs", tgt["end_reason"])
        # the same decisions as stable tokens
        self.assertEqual((tgt["method_code"], tgt["end_code"]), ("scsi-3", "ghosts"))
        self.assertEqual([(lu["lun"], lu["reason_code"]) for lu in tgt["luns"]],
                         [(0, "lun0"), (1, "ghost")])
        # one serial, distinct NAA designators: an array's LUNs, all attached
        luns, tgt = self.lun_outcomes(r, "0:0:1")
        self.assertEqual(luns, {0: "attached", 1: "attached", 2: "attached"})
        self.assertFalse(tgt["ghost_stop"])
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:1:0", "0:0:1:1", "0:0:1:2"])
        # LUNs 2 and 3 were never tried
        self.assertNotIn("scan host0 0 0 2", t.commands())
        p = t.run("0:0:0", rc=1)
        self.assertIn("0:0:0: ghost LUNs: LUN 1 repeats LUN 0", p.stderr)
        self.assertIn("scsi-quirks suggest 0:0:0", p.stderr)
        self.assertIn("GHOST LUNs", p.stdout)

    def test_ghost_of_a_lun_unlike_lun_0(self):
        # LUN 2 repeats LUN 1, whose INQUIRY differs from LUN 0's: LUN 1's
        # identity must be whole when LUN 2 is judged against it
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor ACME model Ctl version 5 serial C0 naa 5000c50000000c00\n"
                      "lu 0:0:0:1 vendor ACME model Disk version 5 serial D1 naa 5000c50000000d01\n"
                      "lu 0:0:0:2 vendor ACME model Disk version 5 serial D1 naa 5000c50000000d01\n")
        r = t.json(rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached", 1: "detached", 2: "detached"})
        g = tgt["ghosts"][0]
        self.assertEqual((g["lun"], g["same_as"], g["rule"]), (2, 1, "all-identical"))

    def test_attach_ghosts(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      self.lus(0, range(4), "GH01", "5000c500deadbe01"))
        r = t.json("--attach-ghosts", rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {n: "attached" for n in range(4)})
        self.assertFalse(tgt["ghost_stop"])
        self.assertEqual([(g["lun"], g["same_as"]) for g in tgt["ghosts"]],
                         [(1, 0), (2, 0), (3, 0)])

    def test_sequential_wrap_and_each_other(self):
        # SCSI-2, sequential: LUNs 1-3 are one unit, LUN 0 another
        t = self.tree("host 0 max_id 1 max_lun 7\n" +
                      self.lus(0, [0], "U0", "5000c50000000a00", version=2) +
                      self.lus(0, [1, 2, 3], "U1", "5000c50000000a01", version=2))
        r = t.json(rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached", 1: "detached", 2: "detached"})
        self.assertEqual((tgt["ghosts"][0]["lun"], tgt["ghosts"][0]["same_as"]), (2, 1))
        self.assertEqual(tgt["method"], "sequential")
        self.assertEqual(t.devices(), ["0:0:0:0"])

    def test_name_conflict_is_reported_not_stopped(self):
        # one NAA for two units whose serials differ (multipath would merge them)
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      self.lus(0, range(2), lambda n: f"S{n}", "5000c500deadbe01"))
        r = t.json(rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached", 1: "attached"})
        self.assertEqual(tgt["ghosts"][0]["verdict"], "name-conflict")
        self.assertFalse(tgt["ghost_stop"])

    def test_no_identity_decides_nothing(self):
        # identical INQUIRY and nothing else: not enough evidence
        t = self.tree("host 0 max_id 1 max_lun 49410\n" + self.lus(0, range(3)))
        r = t.json(rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(len(luns), 3)
        self.assertNotIn("ghosts", tgt)

    def test_explain_shows_evidence(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      self.lus(0, range(2), "GH01", "5000c500deadbe01"))
        t.run(rc=1)
        p = t.run("-v", "--attach-ghosts", rc=0)
        self.assertIn("ghost: LUN 1 and LUN 0 (all-identical)", p.stdout)


class Sysroot(ScanTest):
    def test_old_option_name_still_works(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5\n")
        t.run(rc=0)
        env = dict(os.environ, FAKE_KERNEL_ROOT=t.root, FAKE_KERNEL_SCRIPT=t.script,
                   LD_PRELOAD=FAKE)
        p = subprocess.run([SCAN, "--sysfs", t.root, "--quirks-dir", QUIRKS, "list"], env=env,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("[0:0:0:0]", p.stdout)


class Resize(ScanTest):
    """--resize: the rescan file of each attached LUN, sizes before and after."""

    def test_resize_reports_changes(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5 sectors 8192 grows 16384\n"
                      "lu 0:0:0:1 version 5 sectors 8192\n"
                      "lu 0:0:0:2 version 5 pdt 1\n")
        t.run(rc=0)
        p = t.run("--resize", rc=0, quirks=())
        self.assertIn("0:0:0:0", p.stdout)
        self.assertRegex(p.stdout, r"0:0:0:0 +sd\w +resized: 8192 -> 16384 sectors "
                                   r"\(4\.00 MiB -> 8\.00 MiB\)")
        self.assertRegex(p.stdout, r"0:0:0:1 +sd\w +unchanged: 8192 sectors")
        self.assertRegex(p.stdout, r"0:0:0:2 +- +rescanned \(no block device\)")
        self.assertIn("3 LUN(s) rescanned, 1 changed size, 0 failed", p.stderr)
        self.assertEqual([c for c in t.commands() if c.startswith("rescan")],
                         ["rescan 0:0:0:0", "rescan 0:0:0:1", "rescan 0:0:0:2"])
        # nothing attached or detached by it
        self.assertFalse([c for c in t.commands()[-3:] if c.startswith(("scan", "delete"))])

    def test_resize_selector_and_json(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 version 5 sectors 100\nlu 0:0:0:1 version 5 sectors 100 grows 300\n")
        t.run(rc=0)
        doc = json.loads(t.run("--resize", "--json", "0:0:0:1", rc=0, quirks=()).stdout)
        self.assertEqual((doc["version"], doc["kind"]), (1, "resize"))
        r = doc["luns"]
        self.assertEqual(len(r), 1)
        self.assertEqual((r[0]["hctl"], r[0]["sectors_before"], r[0]["sectors_after"],
                          r[0]["changed"], r[0]["error"]), ("0:0:0:1", 100, 300, True, None))
        t.run("--resize", "host7", rc=1, quirks=())
        t.run("--resize", "--dry-run", rc=2, quirks=())
        t.run("--resize", "list", rc=2, quirks=())
        # the database plays no part in a resize
        p = t.run("--resize", rc=2)
        self.assertIn("--quirks-dir does not apply to --resize", p.stderr)


    def test_resize_refuses_a_remapped_lun(self):
        """A rescan would refresh the kernel's copy of the old unit's
        identity and hide the remap: not written, the LUN named."""
        script = ("host 0 max_id 1 max_lun 49410\n"
                  "lu 0:0:0:0 version 5 sectors 100 naa 6001405000000001\n"
                  "lu 0:0:0:1 version 5 sectors 100 grows 300 naa 6001405000000002\n")
        t = self.tree(script)
        t.run(rc=0)
        with open(t.script, "w") as f:
            f.write(script.replace("6001405000000002", "60014050000000ff"))
        doc = json.loads(t.run("--resize", "--json", rc=1, quirks=()).stdout)
        r = {lu["hctl"]: lu for lu in doc["luns"]}
        self.assertEqual((r["0:0:0:0"]["error"], r["0:0:0:0"]["remapped"]), (None, None))
        self.assertEqual(r["0:0:0:1"]["error"], os.strerror(errno.ESTALE))
        self.assertIn("naa.6001405000000002 became naa.60014050000000ff",
                      r["0:0:0:1"]["remapped"])
        self.assertEqual([c for c in t.commands() if c.startswith("rescan")], ["rescan 0:0:0:0"])
        p = t.run("--resize", "0:0:0:1", rc=1, quirks=())
        self.assertIn("FAILED: remapped, another unit answers at it", p.stdout)
        self.assertEqual([c for c in t.commands() if c.startswith("rescan")], ["rescan 0:0:0:0"])


class Suggest(ScanTest):
    """scsi-quirks suggest: an investigation of one target, and an entry
    that scsi-quirks check accepts and that makes the next scan right."""

    def lus(self, luns, serial=None, naa=None, version=5, target=0):
        return Ghosts.lus(self, target, luns, serial, naa, version)

    def apply(self, t, entry, target="0:0:0"):
        """The proposal checked, then used for a fresh scan of the target."""
        d = tempfile.mkdtemp(prefix="suggested-")
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "60-suggested.conf"), "w") as f:
            f.write(entry)
        p = subprocess.run([QUIRKS_TOOL, "check", d], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr + entry)
        for dev in t.devices():
            shutil.rmtree(os.path.join(t.root, "sys/bus/scsi/devices", dev))
        return t.json(target, quirks=(QUIRKS, d))

    def test_ghosts_propose_nolun(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      self.lus(range(4), "GH01", "5000c500deadbe01"))
        t.run(rc=1)
        self.assertEqual(t.devices(), ["0:0:0:0"])
        p = t.quirks("suggest", "0:0:0", rc=0)
        entry = p.stdout
        self.assertIn('vendor = "ACME"', entry)
        self.assertIn('model = "Ghost"', entry)
        self.assertIn('flags = { "nolun" }', entry)
        self.assertIn("#   ghost-luns: LUNs 1-3 answer as LUN 0 again", entry)
        self.assertIn("scsi-quirks suggest 0:0:0, 2025-12-04: ghost-luns:", entry)
        self.assertIn("VPD 0x83 naa.5000c500deadbe01 identical", entry)
        # the investigation left the host as it found it
        self.assertEqual(t.devices(), ["0:0:0:0"])
        r = self.apply(t, entry)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {0: "attached"})
        self.assertEqual(tgt["quirks"]["flags"], ["nolun"])
        self.assertFalse(tgt["ghost_stop"])

    def test_wrap_proposes_max_lun(self):
        # a SCSI-2 device that decodes two bits of the LUN: 4-7 are 0-3 again
        t = self.tree("host 0 max_id 1 max_lun 15\n" + "".join(
            f"lu 0:0:0:{n} vendor ACME model Wrap version 2 serial W{n % 4} "
            f"naa 5000c5000000aa{n % 4:02x}\n" for n in range(8)))
        entry = t.quirks("suggest", "0:0:0", rc=0).stdout
        self.assertIn("max_lun = 3", entry)
        self.assertIn("ghost-wrap: LUNs 0-3 are distinct, LUNs 4-7 repeat them", entry)
        self.assertEqual(t.devices(), [])
        r = self.apply(t, entry)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(sorted(luns), [0, 1, 2, 3])

    def test_report_luns_fails(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\nreport 0:0:0 fail\n" +
                      self.lus(range(3)))
        entry = t.quirks("suggest", "0:0:0", rc=0).stdout
        self.assertIn('flags = { "noreportlun" }', entry)
        self.assertIn("report-luns-fails: REPORT LUNS failed (", entry)
        self.assertIn("on a device that claims SPC-3", entry)

    def test_report_luns_lies_and_gaps(self):
        # REPORT LUNS names 0 and 1; 3 answers too, 2 does not
        t = self.tree("host 0 max_id 1 max_lun 49410\nreport 0:0:0 list 0,1\n" +
                      self.lus([0, 1, 3]))
        entry = t.quirks("suggest", "0:0:0", rc=0).stdout
        self.assertIn('flags = { "sparselun", "noreportlun" }', entry)
        self.assertIn("report-luns-lies: REPORT LUNS listed 2 LUN(s), but LUNs 3", entry)
        self.assertIn("gaps: LUNs up to 3 answer with gaps", entry)
        r = self.apply(t, entry)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual({k for k, v in luns.items() if v == "attached"}, {0, 1, 3})
        self.assertEqual(tgt["method"], "sequential")

    def test_scsi2_beyond_7(self):
        t = self.tree("host 0 max_id 1 max_lun 15\n" +
                      self.lus(range(10), lambda n: f"S{n}", lambda n: f"5000c500000000{n:02x}",
                               version=2))
        t.run(rc=0)
        self.assertEqual(len(t.devices()), 8)
        entry = t.quirks("suggest", "0:0:0", rc=0).stdout
        self.assertIn('flags = { "largelun" }', entry)
        self.assertIn("scsi2-beyond-7: LUNs 8-9 answer on a SCSI-2 target", entry)
        self.assertEqual(len(t.devices()), 8)
        r = self.apply(t, entry)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(sorted(luns)[:10], list(range(10)))

    def test_nothing_to_propose_and_json(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n" +
                      self.lus(range(3), lambda n: f"S{n}", lambda n: f"5000c500000000{n:02x}"))
        p = t.quirks("suggest", "0:0:0", rc=1)
        self.assertIn("# scsi-quirks suggest 0:0:0: nothing to propose for 'ACME' 'Ghost'",
                      p.stdout)
        t.quirks("suggest", "0:0", rc=2)
        t.quirks("suggest", "0:0:0:1", rc=2)
        t.quirks("suggest", "9:0:0", rc=1)
        t2 = self.tree("host 0 max_id 1 max_lun 49410\n" +
                       self.lus(range(3), "GH01", "5000c500deadbe01"))
        j = json.loads(t2.quirks("suggest", "--json", "0:0:0", rc=0).stdout)
        self.assertEqual((j["target"], j["vendor"], j["flags"], j["max_lun"]),
                         ("0:0:0", "ACME", ["nolun"], None))
        self.assertEqual(j["evidence"][0]["rule"], "ghost-luns")
        self.assertTrue(j["evidence"][0]["proposes"])
        self.assertIn('flags = { "nolun" }', j["entry"])

    def test_no_identity_is_evidence_only(self):
        t = self.tree("host 0 max_id 1 max_lun 7\n" + self.lus(range(4), version=2))
        p = t.quirks("suggest", "0:0:0", rc=1)
        self.assertIn("no-identity: LUNs 0-3 give identical INQUIRY data", p.stdout)


class Transports(ScanTest):
    """Hosts whose user_scan says yes to any channel and id, as FC, SAS and
    iSCSI do: targets come from the topology, and every scan ends."""

    def scans(self, t):
        return [c for c in t.commands() if c.startswith("scan ")]

    def test_iscsi_two_sessions_sparse_luns_and_no_lun_0(self):
        # As LIO on 127.0.0.1 answers: LUN 0 of the second target is "not
        # connected" (PQ 3) and its REPORT LUNS well-known LUN attaches nothing
        t = self.tree("host 0 transport iscsi wlun refused max_lun 65536\n"
                      "host 1 transport iscsi wlun refused max_lun 65536\n"
                      "lu 0:0:0:0 vendor LIO-ORG model ramdisk0\nlu 0:0:0:2 vendor LIO-ORG\n"
                      "lu 0:0:0:5 vendor LIO-ORG\n"
                      "lu 1:0:0:0 pq 3 vendor LIO-ORG\nlu 1:0:0:1 vendor LIO-ORG\n"
                      "lu 1:0:0:4 vendor LIO-ORG\n", hosts=(0, 1))
        t.iscsi_session(0, 1, 0, "iqn.2003-01.org.linux-iscsi:t1")
        t.iscsi_session(1, 2, 0, "iqn.2003-01.org.linux-iscsi:t2")
        r = t.json(rc=0, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:2", "0:0:0:5", "1:0:0:1", "1:0:0:4"])
        # No id or channel the sessions do not list was written
        self.assertEqual({c.split()[1:4][1] + ":" + c.split()[3] for c in self.scans(t)},
                         {"0:0"})
        for h in r["hosts"]:
            self.assertEqual(h["transport"], "iSCSI")
            self.assertIn("taken from its topology", h["discovery"])
        luns, tgt = self.lun_outcomes(r, "1:0:0")
        self.assertEqual(luns, {1: "attached", 4: "attached"})
        self.assertIn("listed by session2 iqn.2003-01.org.linux-iscsi:t2,1", tgt["found"])
        self.assertIn("attached nothing", tgt["reached"])
        self.assertIn("kernel scanned this one target (C T -)", tgt["reached"])
        self.assertIn("scan host1 0 0 -", t.commands())

    def test_iscsi_target_without_lun_0_selected(self):
        t = self.tree("host 1 transport iscsi wlun refused max_lun 65536\n"
                      "lu 1:0:0:0 pq 3\nlu 1:0:0:1\nlu 1:0:0:4\n", hosts=(1,))
        t.iscsi_session(1, 2, 0, "iqn.2003-01.org.linux-iscsi:t2")
        p = t.run("-v", "1:0:0", rc=0, timeout=30)
        self.assertEqual(t.devices(), ["1:0:0:1", "1:0:0:4"])
        self.assertNotIn("no targets", p.stdout)
        self.assertIn("reached: LUN 0 absent", p.stdout)

    def test_iscsi_session_not_logged_in_is_a_failure(self):
        t = self.tree("host 0 transport iscsi\nlu 0:0:0:0\n")
        t.iscsi_session(0, 4, 0, "iqn.2003-01.org.example:gone", state="FAILED")
        r = t.json(rc=1, timeout=30)
        tgt = r["hosts"][0]["targets"][0]
        self.assertTrue(tgt["failed"])
        self.assertIn("its state is FAILED", tgt["error"])
        self.assertEqual(self.scans(t), [])

    def test_fc_remote_ports(self):
        t = self.tree("host 0 transport fc max_lun 65536\n"
                      "lu 0:0:0:0\nlu 0:0:0:1\nlu 0:0:2:0\nlu 0:0:2:3\nlu 0:0:5:0\n")
        t.fc_rport(0, 0, 0, -1, roles="FCP Initiator")
        t.fc_rport(0, 0, 1, 0)
        t.fc_rport(0, 0, 2, 1, state="Blocked")
        t.fc_rport(0, 0, 3, 2, roles="FCP Target, FCP Initiator", wwpn="0x50060e8010000000")
        r = t.json(rc=1, timeout=30)
        # Target 5 answers but no rport lists it: fc_user_scan would not reach it
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:2:0", "0:0:2:3"])
        self.assertEqual(sorted({c.split()[3] for c in self.scans(t)}), ["0", "2"])
        h = r["hosts"][0]
        self.assertEqual(h["transport"], "FC")
        self.assertFalse(h["failed"])
        by = {x["target"]: x for x in h["targets"]}
        self.assertTrue(by["0:0:1"]["failed"])
        self.assertIn("rport-0:0-2", by["0:0:1"]["error"])
        self.assertIn("Blocked", by["0:0:1"]["error"])
        self.assertIn("0x50060e8010000000", by["0:0:2"]["found"])
        self.assertEqual(r["failures"], 1)

    def test_sas_end_devices_and_an_empty_one(self):
        t = self.tree("host 0 transport sas max_lun 65536\nlu 0:0:0:0\nlu 0:0:0:1\n"
                      "lu 0:0:3:0\n")
        t.sas_end_device(0, 0, 0)
        t.sas_end_device(0, 1, 1)
        r = t.json(rc=0, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1"])
        self.assertEqual(sorted({c.split()[3] for c in self.scans(t)}), ["0", "1"])
        by = {x["target"]: x for x in r["hosts"][0]["targets"]}
        self.assertIn("end_device-0:1", by["0:0:1"]["found"])
        self.assertIn("no LUN answered", by["0:0:1"]["end_reason"])

    def test_a_host_that_refuses_nothing_still_ends(self):
        # No transport class in sysfs, yet every id is accepted: the empty
        # run bounds the probing
        t = self.tree("host 0 transport unknown\nlu 0:0:0:0\nlu 0:0:3:0\n")
        p = t.run("-v", rc=0, timeout=60)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:3:0"])
        self.assertIn("checks no limits", p.stdout)
        self.assertLess(len(self.scans(t)), 4 * 520)

    def test_time_bounds(self):
        t = self.tree("host 0 max_id 40 delay_ms 50\nlu 0:0:0:0 version 2\n")
        start = time.monotonic()
        r = t.json("--host-timeout", "1", rc=1, timeout=60)
        self.assertLess(time.monotonic() - start, 15)
        h = r["hosts"][0]
        self.assertTrue(h["failed"])
        self.assertIn("time bound of 1 s", h["error"])

        # A slow target fails alone; the next target is still scanned
        t = self.tree("host 0 max_id 2 max_lun 65536 delay_ms 200\n"
                      "lu 0:0:0:0 version 2\nlu 0:0:1:0\nlu 0:0:1:1\n" +
                      "".join(f"lu 0:0:0:{n} version 2\n" for n in range(1, 8)))
        r = t.json("--target-timeout", "1", rc=1, timeout=60)
        by = {x["target"]: x for x in r["hosts"][0]["targets"]}
        self.assertFalse(r["hosts"][0]["failed"])
        self.assertIn("target's scan reached its time bound of 1 s", by["0:0:0"]["error"])
        self.assertFalse(by["0:0:1"]["failed"])
        self.assertIn("0:0:1:1", t.devices())

    def test_time_limit_of_the_run(self):
        # what the boot scripts rely on: the run ends, the hosts not reached
        # are named
        t = self.tree("host 0 max_id 40 delay_ms 50\nlu 0:0:0:0 version 2\n"
                      "host 1 max_id 1\nlu 1:0:0:0 version 5\n", hosts=(0, 1))
        start = time.monotonic()
        p = t.run("--time-limit", "1", rc=1, timeout=60)
        self.assertLess(time.monotonic() - start, 15)
        self.assertIn("host0: FAILED: stopped: the run reached its time limit of 1 s", p.stdout)
        self.assertIn("host1: FAILED: not scanned: the run reached its time limit", p.stdout)
        self.assertNotIn("1:0:0:0", t.devices())
        t.run("--time-limit", "x", rc=2)


class Volumes(ScanTest):
    """A volume named by its target's stable address and LUN, or by wwid:
    attached on every path and nothing else, listed, detached top-down and
    held out, released."""

    IQN = "iqn.2003-01.org.linux-iscsi.test:t1"

    def two_paths(self, extra=""):
        # t1 through two sessions (hosts 0 and 1), t2 on host 1 as target 1
        lus = "".join(f"lu {h}:0:0:{n} vendor LIO-ORG wwid naa.60014050000000{n} sectors 2048\n"
                      for h in (0, 1) for n in (0, 2, 5))
        t = self.tree("host 0 transport iscsi wlun refused max_lun 65536\n"
                      "host 1 transport iscsi wlun refused max_lun 65536\n" + lus +
                      "lu 1:0:1:2 vendor LIO-ORG wwid naa.6001405000000099 sectors 2048\n" +
                      extra, hosts=(0, 1))
        t.iscsi_session(0, 1, 0, self.IQN)
        t.iscsi_session(1, 2, 0, self.IQN.upper().replace("IQN.", "iqn."), tpgt=1)
        t.iscsi_session(1, 3, 1, "iqn.2003-01.org.linux-iscsi.test:t2")
        return t

    def test_attach_on_every_path_and_nothing_else(self):
        t = self.two_paths()
        r = t.json("--iscsi-target", self.IQN, "--lun", "2", "--device-timeout", "5", rc=0)
        self.assertEqual(t.devices(), ["0:0:0:2", "1:0:0:2"])
        v = r["volume"]
        self.assertEqual(v["attached"], 2)
        self.assertEqual(v["address"], f"iSCSI target {self.IQN} LUN 2")
        self.assertEqual([p["hctl"] for p in v["paths"]], ["0:0:0:2", "1:0:0:2"])
        self.assertEqual({p["wwid"] for p in v["paths"]}, {"naa.600140500000002"})
        self.assertEqual([p["transport_entry"] for p in v["paths"]], ["session1", "session2"])
        self.assertTrue(all(p["block"] and p["sg"] and p["sectors"] == 2048
                            for p in v["paths"]))
        self.assertEqual(v["paths"][0]["lun_hex"], "0x0002")
        # text: one line a path, then the wwid
        t2 = self.two_paths()
        p = t2.run("--iscsi-target", self.IQN, "--lun", "5", rc=0)
        self.assertRegex(p.stdout, r"2 of 2 path\(s\) attached")
        self.assertRegex(p.stdout, r"0:0:0:5 +sd\w +sg\d+ +running .* session1 LOGGED_IN")
        self.assertIn("wwid naa.600140500000005", p.stdout)

    def test_the_policy_still_applies(self):
        t = self.two_paths()
        d = os.path.join(t.root, "policy")
        os.makedirs(d)
        with open(os.path.join(d, "60-t1.conf"), "w") as f:
            f.write(f'lunmask "t1" {{\n\tiscsi_target = "{self.IQN}"\n\texclude_luns = {{ 2 }}\n}}\n')
        p = t.run("-v", "--iscsi-target", self.IQN, "--lun", "2", quirks=(QUIRKS, d), rc=1)
        self.assertIn("excluded by lunmask 't1'", p.stdout)
        self.assertIn("attached on none of its 2 path(s)", p.stderr)
        self.assertEqual(t.devices(), [])

    def test_multipathd_runs_but_claims_nothing(self):
        # a live pid in multipathd's pid file, and no map over the paths:
        # said, and the attach still succeeds
        t = self.two_paths()
        t.write("run/multipathd.pid", f"{os.getpid()}\n")
        p = t.run("--iscsi-target", self.IQN, "--lun", "2", "--device-timeout", "1", rc=0)
        self.assertIn("multipathd runs, but after 1 s no map holds the paths", p.stderr)
        self.assertEqual(t.devices(), ["0:0:0:2", "1:0:0:2"])

    def test_portal_group_and_unknown_target(self):
        t = self.two_paths()
        p = t.run("--iscsi-target", self.IQN, "--tpgt", "2", "--lun", "2", rc=1)
        self.assertIn("no host reaches that target", p.stderr)
        self.assertEqual(t.devices(), [])
        t.run("--iscsi-target", "target1", "--lun", "2", rc=2)
        t.run("--tpgt", "1", rc=2)
        t.run("--iscsi-target", self.IQN, "--wwid", "naa.1", rc=2)
        t.run("--iscsi-target", self.IQN, "0:0:0", rc=2)
        t.run("detach", "--iscsi-target", self.IQN, quirks=(), rc=2)
        t.run("--wwid", "naa.1", "--lun", "2", rc=2)

    def test_some_paths_missing(self):
        # the second session failed: exit 3, the path named
        t = self.two_paths()
        t.write("sys/devices/platform/host1/session2/iscsi_session/session2/state", "FAILED\n")
        r = t.run("--json", "--iscsi-target", self.IQN, "--lun", "2", "--device-timeout", "1",
                  rc=3)
        v = json.loads(r.stdout)["volume"]
        self.assertEqual(v["attached"], 1)
        self.assertEqual(v["paths"][1]["transport_state"], "FAILED")
        self.assertIn("attached on 1 of its 2 path(s)", r.stderr)

    def test_list_and_explain_by_address(self):
        t = self.two_paths()
        t.run(rc=0)
        r = t.json("list", "--iscsi-target", self.IQN, "--lun", "5", rc=0)
        self.assertEqual([d["hctl"] for d in r["devices"]], ["0:0:0:5", "1:0:0:5"])
        r = t.json("list", "--wwid", "NAA.600140500000002", rc=0)
        self.assertEqual([d["hctl"] for d in r["devices"]], ["0:0:0:2", "1:0:0:2"])
        r = t.json("list", "--iscsi-target", "iqn.2003-01.org.linux-iscsi.test:t2", rc=0)
        self.assertEqual([d["hctl"] for d in r["devices"]], ["1:0:1:2"])
        r = t.json("explain", "--iscsi-target", self.IQN, rc=0)
        self.assertEqual([x["target"] for h in r["hosts"] for x in h["targets"]],
                         ["0:0:0", "1:0:0"])

    def holdout_files(self, t):
        d = os.path.join(t.root, "run/scsi-scan/holdout")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def test_detach_holds_out_and_release_brings_back(self):
        t = self.two_paths()
        t.run("--iscsi-target", self.IQN, "--lun", "2", rc=0)
        r = t.json("detach", "-n", "--iscsi-target", self.IQN, "--lun", "2", quirks=(), rc=0)
        self.assertEqual([(s["step"], s["result"]) for s in r["steps"]],
                         [("check path", "done"), ("check path", "done"),
                          ("hold out", "would"), ("delete path", "would"),
                          ("delete path", "would")])
        self.assertEqual(t.devices(), ["0:0:0:2", "1:0:0:2"])
        self.assertEqual(self.holdout_files(t), [])
        p = t.run("detach", "--iscsi-target", self.IQN, "--lun", "2", quirks=(), rc=0)
        self.assertRegex(p.stdout, r"delete path +done +0:0:0:2 sd\w")
        self.assertEqual(t.devices(), [])
        name = f"iscsi-{self.IQN}-lun-2.conf"
        self.assertEqual(self.holdout_files(t), [name])
        with open(os.path.join(t.root, "run/scsi-scan/holdout", name)) as f:
            text = f.read()
        self.assertIn(f'iscsi_target = "{self.IQN}"', text)
        self.assertIn("exclude_luns = { 2 }", text)
        # held out: no scan attaches it, whole-host ones included; LUN 5 is free
        p = t.run("-v", rc=0)
        self.assertIn("held out", p.stdout)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:5", "1:0:0:0", "1:0:0:5", "1:0:1:2"])
        p = t.run("--iscsi-target", self.IQN, "--lun", "2", rc=1)
        self.assertIn("attached on none of its 2 path(s)", p.stderr)
        # released: it comes back
        p = t.run("release", "--iscsi-target", self.IQN, "--lun", "2", quirks=(), rc=0)
        self.assertRegex(p.stdout, r"hold out +done")
        self.assertEqual(self.holdout_files(t), [])
        t.run("release", "--iscsi-target", self.IQN, "--lun", "2", quirks=(), rc=1)
        t.run("--iscsi-target", self.IQN, "--lun", "2", rc=0)
        self.assertIn("1:0:0:2", t.devices())

    def test_holdout_ends_when_the_array_stops_listing_it(self):
        t = self.two_paths()
        t.run("--iscsi-target", self.IQN, "--lun", "2", rc=0)
        t.run("detach", "--iscsi-target", self.IQN, "--lun", "2", quirks=(), rc=0)
        t.run(rc=0)
        self.assertEqual(len(self.holdout_files(t)), 1)
        # unmapped on the array: the next scan of the target drops the hold-out
        with open(t.script) as f:
            lines = [ln for ln in f if not ln.startswith(("lu 0:0:0:2 ", "lu 1:0:0:2 "))]
        with open(t.script, "w") as f:
            f.writelines(lines)
        p = t.run("-v", "host0", rc=0)
        self.assertEqual(self.holdout_files(t), [])
        self.assertNotIn("held out", p.stdout)

    def test_detach_by_wwid_and_in_use(self):
        t = self.two_paths("lu 0:0:0:7 vendor LIO-ORG wwid naa.600140500000007 mounted /srv\n"
                           "lu 1:0:0:7 vendor LIO-ORG wwid naa.600140500000007 sectors 8\n")
        t.run(rc=0)
        # in use on one path: refused before anything is done
        p = t.run("detach", "--wwid", "naa.600140500000007", quirks=(), rc=1)
        self.assertRegex(p.stdout, r"check path +refused +0:0:0:7 sd\w: /dev/sd\w is mounted")
        self.assertIn("--force goes on anyway", p.stderr)
        self.assertIn("0:0:0:7", t.devices())
        self.assertIn("1:0:0:7", t.devices())
        self.assertEqual(self.holdout_files(t), [])
        # by wwid: every path, held out by the target's address
        p = t.run("detach", "--wwid", "naa.600140500000005", quirks=(), rc=0)
        self.assertNotIn("0:0:0:5", t.devices())
        self.assertNotIn("1:0:0:5", t.devices())
        self.assertEqual(self.holdout_files(t), [f"iscsi-{self.IQN},1-lun-5.conf"])
        # released by the same wwid, as multipath spells it, with no path attached
        t.run("release", "--wwid", "naa.600140500000099", quirks=(), rc=1)
        r = t.json("release", "--wwid", "3600140500000005", quirks=(), rc=0)
        self.assertEqual([(s["step"], s["result"]) for s in r["steps"]], [("hold out", "done")])
        self.assertEqual(self.holdout_files(t), [])
        t.run("release", "--wwid", "3600140500000005", quirks=(), rc=1)
        # held out by wwid (each path keyed by its session's portal group),
        # released by the target's address without one (the second audit:
        # "not held out")
        t.run("--iscsi-target", self.IQN, "--lun", "5", rc=0)
        t.run("detach", "--wwid", "naa.600140500000005", quirks=(), rc=0)
        # detached already, by its address without a portal group: exit 0
        t.run("detach", "--iscsi-target", self.IQN, "--lun", "5", quirks=(), rc=0)
        # list says it is held out, by address and by wwid (the second
        # audit: it printed nothing)
        held = f"held out by {t.root}/run/scsi-scan/holdout/iscsi-{self.IQN},1-lun-5.conf"
        p = t.run("list", "--iscsi-target", self.IQN, "--lun", "5", rc=0)
        self.assertIn(held, p.stdout)
        p = t.run("list", "--wwid", "naa.600140500000005", rc=0)
        self.assertIn(held, p.stdout)
        self.assertEqual(self.holdout_files(t), [f"iscsi-{self.IQN},1-lun-5.conf"])
        r = t.json("release", "--iscsi-target", self.IQN, "--lun", "5", quirks=(), rc=0)
        self.assertEqual([(s["step"], s["result"]) for s in r["steps"]], [("hold out", "done")])
        self.assertEqual(self.holdout_files(t), [])

    def mapped(self, multipath, extra=""):
        """LUN 2 of two_paths() attached on both paths under the map mpatha
        (dm-3), and a multipath command whose shell text is @multipath
        (FLUSH in it: what takes the map away). Returns the tree and the
        directory to put first in PATH."""
        t = self.two_paths(extra)
        t.run("--iscsi-target", self.IQN, "--lun", "2", rc=0)
        bindir = os.path.join(t.root, "bin")
        os.makedirs(bindir)
        flush = (f"rm -rf {t.root}/sys/class/block/dm-3 "
                 f"{t.root}/sys/bus/scsi/devices/*/block/*/holders/dm-3")
        with open(os.path.join(bindir, "multipath"), "w") as f:
            f.write(f"#!/bin/sh\necho \"$@\" >> {t.root}/multipath.log\n" +
                    multipath.replace("FLUSH", flush) + "\n")
        os.chmod(os.path.join(bindir, "multipath"), 0o755)
        t.attrs("sys/class/block/dm-3", dev="253:3", size="2048")
        t.attrs("sys/class/block/dm-3/dm", uuid="mpath-3600140500000002", name="mpatha")
        for hctl in ("0:0:0:2", "1:0:0:2"):
            blk = os.listdir(os.path.join(t.root, f"sys/bus/scsi/devices/{hctl}/block"))[0]
            os.makedirs(os.path.join(t.root, f"sys/bus/scsi/devices/{hctl}/block/{blk}/"
                                     "holders/dm-3"))
        return t, bindir

    def with_path(self, bindir, fn):
        old = os.environ["PATH"]
        os.environ["PATH"] = bindir + ":" + old
        try:
            return fn()
        finally:
            os.environ["PATH"] = old

    def test_detach_flushes_the_map_first(self):
        t, bindir = self.mapped("FLUSH")
        r = t.json("list", "--iscsi-target", self.IQN, "--lun", "2", rc=0)
        self.assertEqual(len(r["devices"]), 2)
        r = self.with_path(bindir, lambda: t.json("detach", "--iscsi-target", self.IQN,
                                                  "--lun", "2", quirks=(), rc=0))
        # every path is checked too, for a use past its map
        self.assertEqual([(s["step"], s["result"], s["object"].split()[0])
                          for s in r["steps"]],
                         [("check map", "done", "mpatha"), ("check path", "done", "0:0:0:2"),
                          ("check path", "done", "1:0:0:2"),
                          ("hold out", "done", "/run/scsi-scan"
                                               "/holdout/iscsi-" + self.IQN + "-lun-2.conf"),
                          ("flush map", "done", "mpatha"), ("delete path", "done", "0:0:0:2"),
                          ("delete path", "done", "1:0:0:2")])
        with open(os.path.join(t.root, "multipath.log")) as f:
            self.assertEqual(f.read(), "-f mpatha\n")
        self.assertEqual(t.devices(), [])

    def test_detach_checks_a_path_under_its_map(self):
        """One path of the map mounted directly (the second audit: only the
        map was checked, and the map was flushed): refused before any
        step, nothing held out."""
        t, bindir = self.mapped("FLUSH")
        blk = os.listdir(os.path.join(t.root, "sys/bus/scsi/devices/0:0:0:2/block"))[0]
        with open(os.path.join(t.root, f"sys/class/block/{blk}/dev")) as f:
            devt = f.read().strip()
        with open(os.path.join(t.root, "proc/self/mountinfo"), "a") as f:
            f.write(f"200 22 {devt} / /mnt rw - ext4 /dev/{blk} rw\n")
        p = self.with_path(bindir, lambda: t.run("detach", "--iscsi-target", self.IQN,
                                                 "--lun", "2", quirks=(), rc=1))
        self.assertRegex(p.stdout, r"check path +refused +0:0:0:2 sd\w: /dev/sd\w is mounted")
        self.assertNotIn("flush map", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(t.root, "multipath.log")))
        self.assertEqual(self.holdout_files(t), [])
        self.assertEqual(t.devices(), ["0:0:0:2", "1:0:0:2"])

    def test_a_detach_that_does_not_finish_takes_its_hold_out_back(self):
        """The map cannot be flushed (the second audit: the hold-out stayed,
        and the daemon deleted both paths once the admin took the map down
        by hand)."""
        t, bindir = self.mapped("echo 'map in use' >&2; exit 1")
        p = self.with_path(bindir, lambda: t.run("detach", "--iscsi-target", self.IQN,
                                                 "--lun", "2", quirks=(), rc=1))
        self.assertRegex(p.stdout, r"flush map +failed")
        self.assertRegex(p.stdout, r"hold out +done .*taken back")
        self.assertEqual(self.holdout_files(t), [])
        self.assertIn("0:0:0:2", t.devices())
        self.assertIn("1:0:0:2", t.devices())

    def test_a_detach_stopped_by_a_signal_takes_its_hold_out_back(self):
        t, bindir = self.mapped(f"touch {{root}}/flushing; sleep 3; exit 1")
        with open(os.path.join(bindir, "multipath")) as f:
            text = f.read().replace("{root}", t.root)
        with open(os.path.join(bindir, "multipath"), "w") as f:
            f.write(text)
        env = dict(os.environ, FAKE_KERNEL_ROOT=t.root, FAKE_KERNEL_SCRIPT=t.script,
                   FAKE_KERNEL_LOG=t.log, LD_PRELOAD=FAKE,
                   PATH=bindir + ":" + os.environ["PATH"])
        proc = subprocess.Popen([SCAN, "--sysroot", t.root, "detach", "--iscsi-target", self.IQN,
                                 "--lun", "2"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        for _ in range(200):
            if os.path.exists(os.path.join(t.root, "flushing")):
                break
            time.sleep(0.05)
        self.assertEqual(self.holdout_files(t), [f"iscsi-{self.IQN}-lun-2.conf"])
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 1, out + err)
        self.assertIn("stopped by a signal", err)
        self.assertEqual(self.holdout_files(t), [])
        self.assertIn("0:0:0:2", t.devices())
        self.assertIn("1:0:0:2", t.devices())

    def test_detach_of_a_lun_no_path_has(self):
        """Nothing by that address is attached and nothing is held out: no
        hold-out is written, exit 1 (the second audit: a hold-out and exit
        0). Detached before: exit 0, as it is."""
        t = self.two_paths()
        t.run(rc=0)
        p = t.run("detach", "--iscsi-target", self.IQN, "--lun", "9", quirks=(), rc=1)
        self.assertIn("nothing detached", p.stderr)
        self.assertEqual(self.holdout_files(t), [])
        t.run("detach", "--iscsi-target", self.IQN, "--lun", "5", quirks=(), rc=0)
        t.run("detach", "--iscsi-target", self.IQN, "--lun", "5", quirks=(), rc=0)
        self.assertEqual(self.holdout_files(t), [f"iscsi-{self.IQN}-lun-5.conf"])

    def test_a_hold_out_without_a_transport_names_its_host(self):
        """Two HBAs of one driver, no transport class, the same numbers: the
        detach of one's LUN holds out that LUN on that host alone (the
        second audit: keyed by driver, channel, id and LUN, the daemon then
        deleted the other HBA's LUN, and the other HBA's scan retired the
        hold-out)."""
        t = self.tree("host 0 max_id 1 max_lun 8\nhost 1 max_id 1 max_lun 8\n"
                      "lu 0:0:0:0 version 5 wwid naa.6001405000000a00\n"
                      "lu 0:0:0:3 version 5 wwid naa.6001405000000a03 sectors 8\n"
                      "lu 1:0:0:0 version 5 wwid naa.6001405000000b00\n"
                      "lu 1:0:0:3 version 5 wwid naa.6001405000000b03 sectors 8\n",
                      hosts=(0, 1))
        t.host_parents((0, 1))
        t.run(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:3", "1:0:0:0", "1:0:0:3"])
        t.run("detach", "--wwid", "naa.6001405000000a03", quirks=(), rc=0)
        self.assertEqual(self.holdout_files(t),
                         ["host-pci0000:00!0000:00:04.0-0-0-lun-3.conf"])
        with open(os.path.join(t.root, "run/scsi-scan/holdout",
                               self.holdout_files(t)[0])) as f:
            self.assertIn('host_path = "pci0000:00/0000:00:04.0"', f.read())
        # every host scanned, with --remove: the other HBA's LUN 3 stays
        t.run("--remove", rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "1:0:0:0", "1:0:0:3"])
        self.assertEqual(len(self.holdout_files(t)), 1)
        t.run("release", "--wwid", "naa.6001405000000a03", quirks=(), rc=0)
        t.run(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:3", "1:0:0:0", "1:0:0:3"])

    def test_a_hold_out_that_does_not_load_is_said(self):
        """The second audit: a broken hold-out was dropped without a word,
        and the volume it was to keep out came back."""
        t = self.two_paths()
        t.run(rc=0)
        d = os.path.join(t.root, "run/scsi-scan/holdout")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "iscsi-broken-lun-2.conf"), "w") as f:
            f.write('lunmask "held out" {\n\tiscsi_target = "iqn.2003-01.x:t1\n}\n')
        p = t.run(rc=0)
        self.assertRegex(p.stderr, r"hold-out .*iscsi-broken-lun-2\.conf:\d+: .*: it is not "
                                   r"in force")

    def test_resize_reads_the_map_back(self):
        """multipathd says "ok" and the map keeps its size (the second
        audit: "done"): the step failed, with both sizes, exit 1."""
        t, bindir = self.mapped("FLUSH")
        with open(os.path.join(bindir, "multipathd"), "w") as f:
            f.write("#!/bin/sh\necho ok\n")
        os.chmod(os.path.join(bindir, "multipathd"), 0o755)
        t.write("run/multipathd.pid", f"{os.getpid()}\n")
        t.attrs("sys/class/block/dm-3", size="1024")
        r = self.with_path(bindir, lambda: t.json("--resize", "--iscsi-target", self.IQN,
                                                  "--lun", "2", quirks=(), rc=1))
        step = [s for s in r["steps"] if s["step"] == "resize map"][0]
        self.assertEqual(step["result"], "failed", step)
        self.assertIn("said it was done, but the map is 1024 sectors, not the paths' 2048",
                      step["why"])

    def test_a_hold_out_on_a_target_without_lun_0(self):
        """A target with LUNs 3, 7 and 9, no LUN 0, the REPORT LUNS
        well-known LUN refused, LUN 7 held out: the next scan after its
        other LUNs went reaches it through one of them, seen attached
        earlier this boot (the second audit: nothing of the target was
        attached until the release)."""
        iqn = "iqn.2003-01.org.example:n0"
        t = self.tree("host 0 transport iscsi wlun refused max_lun 65536\n" +
                      "".join(f"lu 0:0:0:{n} vendor LIO-ORG naa 60014050000000{n:02x} "
                              f"sectors 8\n" for n in (3, 7, 9)))
        t.iscsi_session(0, 1, 0, iqn)
        t.run(rc=0)
        t.run(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:3", "0:0:0:7", "0:0:0:9"])
        t.run("detach", "--iscsi-target", iqn, "--lun", "7", quirks=(), rc=0)
        for n in (3, 9):
            shutil.rmtree(os.path.join(t.root, f"sys/bus/scsi/devices/0:0:0:{n}"))
        p = t.run("-v", rc=0)
        self.assertEqual(t.devices(), ["0:0:0:3", "0:0:0:9"], p.stdout + p.stderr)
        self.assertIn("reached through LUN 3, seen attached earlier this boot", p.stdout)
        self.assertNotIn("scan host0 0 0 7", t.commands()[-40:])

    def test_detach_bounds_the_tool_on_its_exit(self):
        """A multipath that exits 0 but leaves a child holding its output
        (the second audit: reported timed out after a good flush, 30 s
        later): the flush is done when the tool exits."""
        t = self.two_paths()
        t.run("--iscsi-target", self.IQN, "--lun", "2", rc=0)
        bindir = os.path.join(t.root, "bin")
        os.makedirs(bindir)
        with open(os.path.join(bindir, "multipath"), "w") as f:
            f.write(f"#!/bin/sh\nrm -rf {t.root}/sys/class/block/dm-3 "
                    f"{t.root}/sys/bus/scsi/devices/*/block/*/holders/dm-3\n"
                    "sleep 60 &\necho flushed\nexit 0\n")
        os.chmod(os.path.join(bindir, "multipath"), 0o755)
        t.attrs("sys/class/block/dm-3", dev="253:3", size="2048")
        t.attrs("sys/class/block/dm-3/dm", uuid="mpath-3600140500000002", name="mpatha")
        for hctl in ("0:0:0:2", "1:0:0:2"):
            blk = os.listdir(os.path.join(t.root, f"sys/bus/scsi/devices/{hctl}/block"))[0]
            os.makedirs(os.path.join(t.root, f"sys/bus/scsi/devices/{hctl}/block/{blk}/"
                                     "holders/dm-3"))
        old = os.environ["PATH"]
        os.environ["PATH"] = bindir + ":" + old
        start = time.monotonic()
        try:
            r = t.json("detach", "--iscsi-target", self.IQN, "--lun", "2", quirks=(), rc=0)
        finally:
            os.environ["PATH"] = old
        self.assertLess(time.monotonic() - start, 20)
        self.assertIn(("flush map", "done"), [(s["step"], s["result"]) for s in r["steps"]])
        self.assertEqual(t.devices(), [])

    def test_fc_and_sas_addresses_on_several_hosts(self):
        wwpn = "0x50060e8010000001"
        t = self.tree("host 0 transport fc max_lun 65536\nhost 1 transport fc max_lun 65536\n"
                      "lu 0:0:1:0\nlu 0:0:1:3\nlu 1:0:4:0\nlu 1:0:4:3\nlu 0:0:2:3\n",
                      hosts=(0, 1))
        # host 0 sees the array's port twice (two remote ports, one target id)
        t.fc_rport(0, 0, 1, 1, state="Blocked", wwpn=wwpn)
        t.fc_rport(0, 0, 2, 1, wwpn=wwpn)
        t.fc_rport(0, 0, 3, 2, wwpn="0x50060e8010000002")
        t.fc_rport(1, 0, 1, 4, wwpn="50:06:0e:80:10:00:00:01")
        r = t.json("--port-name", "50:06:0E:80:10:00:00:01", "--lun", "3", "--device-timeout",
                   "0", rc=1)
        self.assertEqual(t.devices(), ["0:0:1:3", "1:0:4:3"])
        self.assertEqual([(p["hctl"], p["transport_entry"]) for p in r["volume"]["paths"]],
                         [("0:0:1:3", "rport-0:0-2"), ("1:0:4:3", "rport-1:0-1")])
        t = self.tree("host 2 transport sas max_lun 65536\nhost 3 transport sas max_lun 65536\n"
                      "lu 2:0:0:1 sectors 8\nlu 3:0:1:1 sectors 8\nlu 3:0:0:1 sectors 8\n",
                      hosts=(2, 3))
        t.sas_end_device(2, 0, 0, address="0x5000c500a1b20100")
        t.sas_end_device(3, 0, 0, address="0x5000c500a1b20120")
        t.sas_end_device(3, 1, 1, address="0x5000c500a1b20100")
        r = t.json("--sas-address", "5000C500A1B20100", "--lun", "1", rc=0)
        self.assertEqual(t.devices(), ["2:0:0:1", "3:0:1:1"])
        self.assertEqual(r["volume"]["attached"], 2)
        # a tape has no block device to wait for
        t = self.tree("host 2 transport sas max_lun 65536\nlu 2:0:0:2 pdt 1\n", hosts=(2,))
        t.sas_end_device(2, 0, 0, address="0x5000c500a1b20100")
        start = time.monotonic()
        r = t.json("--sas-address", "0x5000c500a1b20100", "--lun", "2", rc=0)
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(r["volume"]["paths"][0]["block"], None)


class BootPolicy(ScanTest):
    """scsi-quirks boot-policy: the root file system's SCSI disks, found
    through partitions and stacked devices, named by stable address; the
    policy it prints attaches only them."""
    IQN = "iqn.2003-01.org.linux-iscsi.test:t1"

    def disk(self, t, hctl):
        return os.listdir(os.path.join(t.root, f"sys/bus/scsi/devices/{hctl}/block"))[0]

    def stacked(self, t, name, devt, slaves):
        t.attrs(f"sys/class/block/{name}", dev=devt)
        for s in slaves:
            os.makedirs(os.path.join(t.root, f"sys/class/block/{name}/slaves/{s}"))

    def mount_root(self, t, devt, source, fstype="ext4"):
        t.write("proc/self/mountinfo",
                f"21 1 0:20 / /proc rw - proc proc rw\n"
                f"22 1 {devt} / / rw,relatime - {fstype} {source} rw\n")

    def policy_attaches(self, t, policy):
        """Every LUN deleted, then a scan with @policy: what it attaches."""
        path = os.path.join(t.root, "boot-lunmask.conf")
        with open(path, "w") as f:
            f.write(policy)
        devs = os.path.join(t.root, "sys/bus/scsi/devices")
        for d in os.listdir(devs):
            shutil.rmtree(os.path.join(devs, d))
        t.run("--quirks-file", path, rc=0)
        return t.devices()

    def test_a_partition_of_a_virtio_disk(self):
        t = self.tree("host 0 max_id 3 max_lun 8\n"
                      "lu 0:0:1:0 version 5 sectors 2048\nlu 0:0:1:1 version 5 sectors 2048\n"
                      "lu 0:0:2:0 version 5 sectors 2048\n", proc_name="virtio_scsi")
        t.run(rc=0)
        self.assertEqual(t.devices(), ["0:0:1:0", "0:0:1:1", "0:0:2:0"])
        sd = self.disk(t, "0:0:1:0")
        part = f"sys/bus/scsi/devices/0:0:1:0/block/{sd}/{sd}2"
        t.attrs(part, partition="2", dev="240:2")
        os.symlink(os.path.join(t.root, part), os.path.join(t.root, f"sys/class/block/{sd}2"))
        self.mount_root(t, "240:2", f"/dev/{sd}2")
        p = t.quirks("boot-policy", quirks=(), rc=0)
        self.assertIn('lunmask "root file system 1" {\n\tdriver = "virtio_scsi"\n'
                      '\tchannel = 0\n\tid = 1\n\tluns = { "0" }\n}\n', p.stdout)
        self.assertIn('lunmask "root file system: nothing else"', p.stdout)
        self.assertEqual(p.stderr, "")
        # what check says of it, and what it does
        path = os.path.join(t.root, "check.conf")
        with open(path, "w") as f:
            f.write(p.stdout)
        c = subprocess.run([QUIRKS_TOOL, "check", path], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.assertEqual(self.policy_attaches(t, p.stdout), ["0:0:1:0"])

    def test_lvm_on_multipath_over_two_sessions(self):
        lus = "".join(f"lu {h}:0:0:{n} vendor LIO-ORG wwid naa.60014050000000{n} sectors 2048\n"
                      for h in (0, 1) for n in (0, 2, 5))
        t = self.tree("host 0 transport iscsi wlun refused max_lun 65536\n"
                      "host 1 transport iscsi wlun refused max_lun 65536\n" + lus +
                      "lu 1:0:1:2 vendor LIO-ORG wwid naa.6001405000000099 sectors 2048\n",
                      hosts=(0, 1), proc_name="iscsi_tcp")
        t.iscsi_session(0, 1, 0, self.IQN)
        t.iscsi_session(1, 2, 0, self.IQN.upper().replace("IQN.", "iqn."), tpgt=2)
        t.iscsi_session(1, 3, 1, "iqn.2003-01.org.linux-iscsi.test:t2")
        t.run(rc=0)
        self.assertEqual(len(t.devices()), 7)
        self.stacked(t, "dm-0", "254:0", [self.disk(t, "0:0:0:2"), self.disk(t, "1:0:0:2")])
        self.stacked(t, "dm-1", "254:1", ["dm-0"])
        self.mount_root(t, "254:1", "/dev/mapper/vg-root")
        p = t.quirks("boot-policy", quirks=(), rc=0)
        entries = p.stdout.count('lunmask "root file system')
        self.assertEqual(entries, 2, p.stdout)  # the target's, and nothing else
        self.assertIn(f'\tiscsi_target = "{self.IQN}"\n\tluns = {{ "2" }}\n', p.stdout)
        self.assertEqual(self.policy_attaches(t, p.stdout), ["0:0:0:2", "1:0:0:2"])

    def test_btrfs_on_dm_crypt_and_md_over_sas_and_fc_and_a_second_disk(self):
        t = self.tree("host 0 transport sas max_lun 8\nhost 1 transport fc max_lun 8\n"
                      "lu 0:0:0:0 version 5 sectors 2048\nlu 0:0:1:0 version 5 sectors 2048\n"
                      "lu 1:0:0:3 version 5 sectors 2048\nlu 1:0:0:4 version 5 sectors 2048\n",
                      hosts=(0, 1))
        t.sas_end_device(0, 1, 0, address="0x5000c500a1b2c3d4")
        t.sas_end_device(0, 2, 1, address="0x5000c500a1b2c3d5")
        t.fc_rport(1, 0, 1, 0, wwpn="0x500507680b215660")
        t.run(rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:1:0", "1:0:0:3", "1:0:0:4"])
        self.stacked(t, "md0", "9:0", [self.disk(t, "0:0:0:0"), self.disk(t, "1:0:0:3")])
        self.stacked(t, "dm-0", "254:0", ["md0"])
        t.write("dev/dm-0", "")
        os.makedirs(os.path.join(t.root, "dev/mapper"))
        os.symlink("../dm-0", os.path.join(t.root, "dev/mapper/root"))
        self.mount_root(t, "0:31", "/dev/mapper/root", fstype="btrfs")
        p = t.quirks("boot-policy", quirks=(), rc=0)
        self.assertIn('lunmask "root file system 1" {\n\tport_name = "0x500507680b215660"\n'
                      '\tluns = { "3" }\n}\nlunmask "root file system 2" {\n'
                      '\tsas_address = "0x5000c500a1b2c3d4"\n\tluns = { "0" }\n}\n', p.stdout)
        self.assertEqual(p.stdout.count('lunmask "root file system'), 3)
        # a second device of the same btrfs, which the mount does not name
        t.attrs("sys/fs/btrfs/5c5a-uuid/devices/dm-0", dev="254:0")
        t.attrs(f"sys/fs/btrfs/5c5a-uuid/devices/{self.disk(t, '0:0:1:0')}", dev="240:16")
        p = t.quirks("boot-policy", quirks=(), rc=0)
        self.assertIn('\tsas_address = "0x5000c500a1b2c3d5"\n\tluns = { "0" }\n', p.stdout)
        self.assertEqual(p.stdout.count('lunmask "root file system'), 4)
        self.assertEqual(self.policy_attaches(t, p.stdout), ["0:0:0:0", "0:0:1:0", "1:0:0:3"])

    def test_no_scsi_disk_and_errors(self):
        t = self.tree("host 0 max_id 1 max_lun 8\n")
        t.attrs("sys/class/block/vda", dev="253:0")
        self.mount_root(t, "253:0", "/dev/vda")
        p = t.quirks("boot-policy", quirks=(), rc=0)
        self.assertEqual(p.stdout, "")
        self.assertIn("no boot policy: / lies on vda, no SCSI disk", p.stderr)
        p = t.quirks("boot-policy", "--quiet", quirks=(), rc=0)
        self.assertEqual((p.stdout, p.stderr), ("", ""))
        p = t.quirks("boot-policy", "/srv", quirks=(), rc=1)
        self.assertIn("nothing is mounted on /srv", p.stderr)
        t.quirks("boot-policy", "/", "/srv", quirks=(), rc=2)
        t.quirks("boot-policy", "--json", quirks=(), rc=2)
        # a device the mount names that sysfs does not have
        self.mount_root(t, "8:1", "/dev/sdz1")
        p = t.quirks("boot-policy", quirks=(), rc=1)
        self.assertIn("is no block device in sysfs", p.stderr)
        # slaves that lead round in a circle
        self.stacked(t, "dm-0", "254:0", ["dm-1"])
        self.stacked(t, "dm-1", "254:1", ["dm-0"])
        self.mount_root(t, "254:0", "/dev/dm-0")
        p = t.quirks("boot-policy", quirks=(), rc=1)
        self.assertIn("stacked deeper than 16 levels", p.stderr)


class Hostile(ScanTest):
    def test_control_bytes_and_invalid_utf8(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor AC\\x1b[2JME model D\\xffisk\\x07\\x0a version 5\n")
        outputs = [t.run("-v", rc=0).stdout, t.run("list", "-v", rc=0).stdout,
                   t.run("list", "--json", rc=0).stdout, t.run("explain", "0:0:0", rc=0).stdout,
                   t.run("--json", rc=0).stdout]
        for out in outputs:
            for ch in out:
                self.assertFalse(ord(ch) < 0x20 and ch not in "\n" or ord(ch) >= 0x7f,
                                 f"raw byte {ord(ch):#x} in output:\n{out}")
        j = json.loads(outputs[2])["devices"]
        self.assertEqual(j[0]["vendor"], "AC [2JME")
        self.assertEqual(j[0]["model"], "D isk")

    def test_fifos_where_records_belong(self):
        """A FIFO as a LUN's identity record, and as the settle point's
        state file (the second audit: the scan and "wait" blocked for
        ever): the record is rebuilt, "wait" times out with a reason."""
        t = self.tree("host 0 max_id 1 max_lun 49410\nlu 0:0:0:0 version 5 naa 6001405000000001\n"
                      "lu 0:0:0:1 version 5 naa 6001405000000002\n")
        t.run(rc=0)
        ident = os.path.join(t.root, "run/scsi-scan/identity")
        os.makedirs(ident, exist_ok=True)
        for name in os.listdir(ident):
            os.unlink(os.path.join(ident, name))
        os.mkfifo(os.path.join(ident, "0:0:0:1"))
        os.mkfifo(os.path.join(t.root, "run/scsi-scan/state"))
        start = time.monotonic()
        t.run(rc=0, timeout=60)
        p = t.run("wait", "--timeout", "1", quirks=(), rc=1, timeout=60)
        self.assertIn("does not parse", p.stderr)
        self.assertLess(time.monotonic() - start, 30)


class Lunmask(ScanTest):
    """lunmask entries: the only LUNs to attach, LUNs never to attach, by
    stable address; a refused LUN is never written to the scan file."""

    def policy(self, text):
        d = tempfile.mkdtemp(prefix="scsi-scan-policy-")
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "50-mask.conf"), "w") as f:
            f.write(text)
        return d

    def scans(self, t):
        return [c for c in t.commands() if c.startswith("scan ")]

    TARGETS = ("host 0 max_id 2 max_lun 49410\n" +
               "".join(f"lu 0:0:0:{n} version 5\n" for n in range(8)) +
               "lu 0:0:1:0 version 5\nlu 0:0:1:1 version 5\n")

    def test_allow_list_by_driver_channel_id(self):
        etc = self.policy('lunmask "vm" {\n\tdriver = "fake"\n\tchannel = 0\n\tid = 0\n'
                          '\tluns = { 0, 3 }\n}\n')
        t = self.tree(self.TARGETS)
        r = t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:3", "0:0:1:0", "0:0:1:1"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[1], "skipped")
        self.assertIn("not in the luns of lunmask 'vm' (" + etc + "/50-mask.conf:1)",
                      tgt["luns"][1]["reason"])
        self.assertEqual([m["line"] for m in tgt["lunmask"]], [1])
        for n in (1, 2, 4, 5, 6, 7):
            self.assertNotIn(f"scan host0 0 0 {n}", self.scans(t))
        p = t.run("explain", "0:0:0", quirks=(QUIRKS, etc), rc=0)
        self.assertIn(f"lunmask: 'vm' ({etc}/50-mask.conf:1)", p.stdout)

    def test_lun0_excluded_is_reached_through_the_wlun(self):
        etc = self.policy('lunmask "no lun 0" {\n\tdriver = "fake"\n\tid = 0\n'
                          '\texclude_luns = { 0, 5-6 }\n}\n')
        t = self.tree(self.TARGETS)
        r = t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:1", "0:0:0:2", "0:0:0:3", "0:0:0:4", "0:0:0:7",
                                       "0:0:1:0", "0:0:1:1"])
        self.assertNotIn("scan host0 0 0 0", self.scans(t))
        self.assertIn("scan host0 0 0 49409", self.scans(t))
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[5], "skipped")
        self.assertIn("well-known LUN", tgt["reached"])

    def test_lun0_excluded_without_wlun_goes_through_a_named_lun(self):
        etc = self.policy('lunmask "two" {\n\tdriver = "fake"\n\tid = 0\n'
                          '\tluns = { 2, 5 }\n}\n')
        t = self.tree(self.TARGETS.replace("max_lun 49410", "max_lun 49410 wlun refused"))
        r = t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:2", "0:0:0:5", "0:0:1:0", "0:0:1:1"])
        target0 = [c for c in self.scans(t) if c.startswith("scan host0 0 0 ")]
        self.assertEqual(target0, ["scan host0 0 0 49409", "scan host0 0 0 2",
                                   "scan host0 0 0 5"])
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertIn("reached through LUN 2, which the policy names", tgt["reached"])
        self.assertEqual(luns[2], "attached")
        self.assertEqual(luns[0], "skipped")

    def test_an_excluded_wlun_is_not_written(self):
        etc = self.policy('lunmask "x" {\n\tdriver = "fake"\n\tid = 0\n'
                          '\tluns = { 3 }\n\texclude_luns = { 49409 }\n}\n')
        t = self.tree(self.TARGETS)
        r = t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertNotIn("scan host0 0 0 49409", self.scans(t))
        self.assertIn("0:0:0:3", t.devices())
        _, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertIn("reached through LUN 3", tgt["reached"])

    def test_nothing_unless_named(self):
        etc = self.policy('lunmask "host default" {\n\tdriver = "fake"\n\tluns = {}\n}\n'
                          'lunmask "the one" {\n\tdriver = "fake"\n\tid = 1\n'
                          '\tluns = { 1 }\n}\n')
        t = self.tree(self.TARGETS.replace("max_lun 49410", "max_lun 49410 wlun refused"))
        t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:1:1"])
        self.assertEqual([c for c in self.scans(t) if " 0 0 " in c], [])

    def test_iscsi_by_target_name(self):
        etc = self.policy('lunmask "t1" {\n'
                          '\tiscsi_target = "iqn.2003-01.org.linux-iscsi:T1"\n'
                          '\tluns = { 0, 5 }\n}\n'
                          'lunmask "t2" {\n\tiscsi_target = "iqn.2003-01.org.linux-iscsi:t2"\n'
                          '\texclude_luns = { 4 }\n}\n')
        t = self.tree("host 0 transport iscsi wlun refused max_lun 65536\n"
                      "host 1 transport iscsi wlun refused max_lun 65536\n"
                      "lu 0:0:0:0\nlu 0:0:0:2\nlu 0:0:0:5\n"
                      "lu 1:0:0:0 pq 3\nlu 1:0:0:1\nlu 1:0:0:4\n", hosts=(0, 1))
        t.iscsi_session(0, 1, 0, "iqn.2003-01.org.linux-iscsi:t1")
        t.iscsi_session(1, 2, 0, "iqn.2003-01.org.linux-iscsi:t2")
        r = t.json(quirks=(QUIRKS, etc), rc=1, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:5"])
        # The kernel's own scan of t2 would have attached LUN 4 as well
        self.assertNotIn("scan host1 0 0 -", t.commands())
        _, tgt = self.lun_outcomes(r, "1:0:0")
        self.assertTrue(tgt["failed"])
        self.assertIn("would attach LUNs the lunmask policy refuses", tgt["error"])

    def test_iscsi_names_at_the_standard_length(self):
        """An iSCSI name may be 223 bytes: matched whole. One of 224 (no
        iSCSI name) never matches an entry for its first 223 bytes; it
        was cut at 199 once, and such entries never matched."""
        long223 = "iqn.2003-01.org.linux-iscsi:" + "x" * (223 - 28)
        self.assertEqual(len(long223), 223)
        etc = self.policy(f'lunmask "long" {{\n\tiscsi_target = "{long223}"\n'
                          '\tluns = { 0, 5 }\n}\n')
        t = self.tree("host 0 transport iscsi max_lun 65536\n"
                      "host 1 transport iscsi max_lun 65536\n"
                      "lu 0:0:0:0\nlu 0:0:0:2\nlu 0:0:0:5\n"
                      "lu 1:0:0:0\nlu 1:0:0:2\nlu 1:0:0:5\n", hosts=(0, 1))
        t.iscsi_session(0, 1, 0, long223)
        t.iscsi_session(1, 2, 0, long223 + "y")
        t.json(quirks=(QUIRKS, etc), rc=0, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:5",
                                       "1:0:0:0", "1:0:0:2", "1:0:0:5"])
        p = subprocess.run([QUIRKS_TOOL, "check", etc], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        too_long = self.policy(f'lunmask "too long" {{\n\tiscsi_target = "{long223}y"\n'
                               '\tluns = { 0 }\n}\n')
        p = subprocess.run([QUIRKS_TOOL, "check", too_long], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("50-mask.conf:2", p.stdout + p.stderr)
        self.assertIn("223", p.stdout + p.stderr)

    def test_wwid_at_the_standard_length(self):
        """A T10 wwid of 259 characters (t10. and 255 bytes) matched whole;
        one of 260 is not cut to match an entry for its first 259."""
        w259 = "t10." + "A" * 255
        etc = self.policy(f'lunmask "by wwid" {{\n\twwid = "{w259}"\n'
                          '\tluns = { 0-1 }\n}\n')
        t = self.tree(self.TARGETS.replace("lu 0:0:0:0 version 5",
                                           f"lu 0:0:0:0 version 5 wwid {w259}")
                      .replace("lu 0:0:1:0 version 5", f"lu 0:0:1:0 version 5 wwid {w259}B")
                      + "lu 0:0:1:2 version 5\n")
        t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "0:0:1:1", "0:0:1:2"])

    def test_names_the_kernel_never_gives(self):
        """An rport named with channel 4294967295 (the scan file's wildcard
        as the kernel reads it) is not a target: nothing like "- 0 0" is
        written; host directories "host-1" and "host4294967296" are no
        hosts (sscanf's %u took them for 4294967295)."""
        t = self.tree("host 0 transport fc max_lun 65536\nlu 0:0:0:0\nlu 0:0:0:1\n")
        t.fc_rport(0, 0, 1, 0)
        self.assertEqual(t.run("--json", rc=0, timeout=30).returncode, 0)
        os.makedirs(os.path.join(t.root, "sys/class/fc_remote_ports/rport-0:4294967295-2"))
        t.attrs("sys/class/fc_remote_ports/rport-0:4294967295-2", scsi_target_id=0,
                roles="FCP Target", port_state="Online", port_name="0x5000000000000002")
        for bad in ("host-1", "host4294967296"):
            os.makedirs(os.path.join(t.root, "sys/class/scsi_host", bad))
            open(os.path.join(t.root, "sys/class/scsi_host", bad, "scan"), "w").close()
        r = t.json(rc=0, timeout=30)
        self.assertEqual([h["host"] for h in r["hosts"]], [0])
        scans = self.scans(t)
        self.assertFalse([c for c in scans if c.startswith("scan host0 -")], scans)
        with open(os.path.join(t.root, "sys/class/scsi_host/host-1/scan")) as f:
            self.assertEqual(f.read(), "")
        r = t.json("list", rc=0)
        self.assertEqual(sorted(d["hctl"] for d in r["devices"]), ["0:0:0:0", "0:0:0:1"])

    def test_one_target_id_listed_twice(self):
        """Two sessions with one target id on one host: the target is
        scanned once, and only when the policy is the same for both
        addresses (it was scanned twice, with the first address's policy)."""
        etc = self.policy('lunmask "a" {\n\tiscsi_target = "iqn.2003-01.x:a"\n'
                          '\tluns = { 0, 5 }\n}\n')
        script = ("host 0 transport iscsi wlun refused max_lun 65536\n"
                  "lu 0:0:0:0\nlu 0:0:0:2\nlu 0:0:0:5\n")
        t = self.tree(script)
        t.iscsi_session(0, 1, 0, "iqn.2003-01.x:a")
        t.iscsi_session(0, 2, 0, "iqn.2003-01.x:b")
        r = t.json(quirks=(QUIRKS, etc), rc=1, timeout=30)
        self.assertEqual(t.devices(), [])
        self.assertEqual(self.scans(t), [])
        tgts = [tg for h in r["hosts"] for tg in h["targets"]]
        self.assertEqual(len(tgts), 1)
        self.assertIn("lunmask entries that apply differ", tgts[0]["error"])
        # the same name twice: one policy, one scan
        t = self.tree(script)
        t.iscsi_session(0, 1, 0, "iqn.2003-01.x:a")
        t.iscsi_session(0, 2, 0, "iqn.2003-01.x:a")
        r = t.json(quirks=(QUIRKS, etc), rc=0, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:5"])
        self.assertEqual(self.scans(t).count("scan host0 0 0 0"), 1)
        tgts = [tg for h in r["hosts"] for tg in h["targets"]]
        self.assertEqual(len(tgts), 1)
        self.assertIn("1 more with the same target id", tgts[0]["found"])

    def test_the_session_fails_in_the_middle_of_a_scan(self):
        """The transport loses the target after a few LUNs: the scan of it
        stops at once, names the session and the LUN, exits 1, and leaves
        nothing half done (no well-known LUN)."""
        t = self.tree("host 0 transport iscsi wlun refused max_lun 65536 lost_after 4\n" +
                      "".join(f"lu 0:0:0:{n}\n" for n in range(10)))
        t.iscsi_session(0, 1, 0, "iqn.2003-01.x:a")
        r = t.json(rc=1, timeout=30)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertTrue(tgt["failed"])
        self.assertIn("the transport lost the target in the middle of its scan "
                      "(session1 iqn.2003-01.x:a,1 is FAILED): LUN 3", tgt["error"])
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:0:2"])
        self.assertLessEqual(len(self.scans(t)), 4)

    def test_fc_by_port_name(self):
        etc = self.policy('lunmask "array" {\n\tport_name = "50:06:0e:80:10:00:00:00"\n'
                          '\tluns = { 3 }\n}\n')
        t = self.tree("host 0 transport fc max_lun 65536\n"
                      "lu 0:0:0:0\nlu 0:0:0:1\nlu 0:0:2:0\nlu 0:0:2:3\n")
        t.fc_rport(0, 0, 1, 0)
        t.fc_rport(0, 0, 3, 2, wwpn="0x50060e8010000000")
        t.json(quirks=(QUIRKS, etc), rc=0, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:2:3"])
        self.assertNotIn("scan host0 0 2 0", self.scans(t))

    def test_sas_by_address(self):
        etc = self.policy('lunmask "shelf" {\n\tsas_address = "0x5000c50000000001"\n'
                          '\texclude_luns = { 1 }\n}\n')
        t = self.tree("host 0 transport sas max_lun 65536\nlu 0:0:0:0\nlu 0:0:0:1\n"
                      "lu 0:0:1:0\nlu 0:0:1:1\n")
        t.sas_end_device(0, 0, 0)
        t.sas_end_device(0, 1, 1)
        t.json(quirks=(QUIRKS, etc), rc=0, timeout=30)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0"])

    def test_by_lun0_identity(self):
        etc = self.policy('lunmask "by wwid" {\n\twwid = "naa.600140500000001"\n'
                          '\tluns = { 0-1 }\n}\n')
        t = self.tree(self.TARGETS.replace("lu 0:0:0:0 version 5",
                                           "lu 0:0:0:0 version 5 wwid naa.600140500000001"))
        t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "0:0:1:1"])

    def test_by_lun0_serial(self):
        etc = self.policy('lunmask "by serial" {\n\tserial = "SN-0042"\n'
                          '\texclude_luns = { 2-7 }\n}\n')
        t = self.tree(self.TARGETS.replace("lu 0:0:1:0 version 5",
                                           "lu 0:0:1:0 version 5 serial SN-0042"))
        t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(len(t.devices()), 10)
        with open(t.script, "a") as f:
            f.write("".join(f"lu 0:0:1:{n} version 5\n" for n in range(2, 5)))
        t.json(quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(len(t.devices()), 10)

    def test_a_selected_lun_the_policy_refuses(self):
        etc = self.policy('lunmask "no 3" {\n\tdriver = "fake"\n\texclude_luns = { 3 }\n}\n')
        t = self.tree(self.TARGETS)
        r = t.json("0:0:0:3", quirks=(QUIRKS, etc), rc=0)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns, {3: "skipped"})
        self.assertNotIn("scan host0 0 0 3", self.scans(t))

    def test_dry_run_shows_what_a_policy_change_does(self):
        t = self.tree(self.TARGETS)
        t.run(rc=0)
        self.assertEqual(len(t.devices()), 10)
        etc = self.policy('lunmask "fewer" {\n\tdriver = "fake"\n\tid = 0\n'
                          '\tluns = { 0-1 }\n}\n')
        r = t.json("--dry-run", quirks=(QUIRKS, etc), rc=0)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[5], "present")
        self.assertIn("left alone (--remove detaches it)", tgt["luns"][5]["reason"])
        r = t.json("--dry-run", "--remove", quirks=(QUIRKS, etc), rc=0)
        luns, _ = self.lun_outcomes(r, "0:0:0")
        self.assertEqual([luns[n] for n in range(8)], ["present", "present"] +
                         ["would-remove"] * 6)
        self.assertEqual(len(t.devices()), 10)
        t.run("--remove", quirks=(QUIRKS, etc), rc=0)
        self.assertEqual(t.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "0:0:1:1"])

    def test_quirks_file_from_the_kernel_command_line(self):
        # What the boot scripts write: scsi-quirks import --cmdline
        d = tempfile.mkdtemp(prefix="scsi-scan-run-")
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "lunmask.conf")
        with open(path, "w") as f:
            f.write('lunmask "kernel command line 1" {\n\tdriver = "fake"\n\tchannel = 0\n'
                    '\tid = 1\n\tluns = { "0" }\n}\n'
                    'lunmask "kernel command line: nothing else" {\n\tluns = {}\n}\n')
        t = self.tree(self.TARGETS)
        t.run("--quirks-file", path, rc=0)
        self.assertEqual(t.devices(), ["0:0:1:0"])
        self.assertEqual([c for c in self.scans(t) if " 0 0 " in c], [])
        p = t.run("--quirks-file", os.path.join(d, "missing.conf"), rc=1)
        self.assertIn("--quirks-file", p.stderr)
        p = t.run("--quirks-file", d, rc=1)
        self.assertIn("not a regular file", p.stderr)

    def test_an_excluded_lun_in_use_is_kept(self):
        t = self.tree(self.TARGETS.replace("lu 0:0:0:4 version 5",
                                           "lu 0:0:0:4 version 5 mounted /srv"))
        t.run(rc=0)
        etc = self.policy('lunmask "no 4" {\n\tdriver = "fake"\n\texclude_luns = { 4 }\n}\n')
        r = t.json("--remove", quirks=(QUIRKS, etc), rc=1)
        luns, tgt = self.lun_outcomes(r, "0:0:0")
        self.assertEqual(luns[4], "in-use")
        self.assertIn("mounted on /srv", tgt["luns"][4]["reason"])


class ListExplain(ScanTest):
    def test_list(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n")
        t.run(rc=0)
        doc = json.loads(t.run("list", "--json", rc=0).stdout)
        self.assertEqual((doc["version"], doc["kind"]), (1, "list"))
        j = doc["devices"]
        self.assertEqual(len(j), 1)
        self.assertEqual(j[0]["hctl"], "0:0:0:0")
        self.assertEqual(j[0]["vendor"], "CHINON")
        self.assertEqual(j[0]["type_name"], "cd/dvd")
        self.assertEqual(j[0]["sg"], "sg0")
        self.assertEqual(j[0]["quirks"]["flags"], ["nolun"])
        text = t.run("list", rc=0).stdout
        self.assertIn("[0:0:0:0]", text)
        self.assertIn("quirks=nolun", text)

    def test_explain(self):
        t = self.tree("host 0 max_id 1 max_lun 49410\n"
                      "lu 0:0:0:0 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n"
                      "lu 0:0:0:1 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n")
        t.run(rc=0)
        before = len(t.commands())
        out = t.run("explain", "0:0:0", rc=0).stdout
        self.assertIn("vendor 'CHINON' model 'CD-ROM CDS-431'", out)
        self.assertIn("10-linux-nolun.conf:", out)
        self.assertIn("nolun: LUN 0 only", out)
        self.assertIn("SCSI-2", out)
        self.assertFalse([c for c in t.commands()[before:] if c.startswith("scan")])

    def test_explain_and_dry_run_of_an_empty_target(self):
        """A target with nothing attached ("why don't I see my new LUN?"):
        read through LUN 0 attached for the look, deleted again; through
        the well-known LUN where there is no LUN 0; never the kernel's
        scan; a host as a whole still writes nothing."""
        t = self.tree("host 0 max_id 3 max_lun 49410\n"
                      "lu 0:0:0:0 vendor ACME model Disk version 5\n"
                      "lu 0:0:0:3 vendor ACME model Disk version 5\n"
                      "lu 0:0:1:2 vendor ACME model Disk version 5\n")
        out = t.run("explain", "0:0:0", rc=0).stdout
        self.assertIn("reached: nothing attached: reached through LUN 0, attached for this "
                      "dry run and deleted again", out)
        self.assertIn("REPORT LUNS listed 2: 0 3", out)
        self.assertIn("LUN 3         would-probe", out)
        self.assertIn("LUN 0         detached     attached only for this dry run's look at "
                      "the target and deleted again; a scan would keep it", out)
        self.assertEqual(t.devices(), [])
        self.assertEqual([c for c in t.commands() if c.startswith(("scan", "delete"))],
                         ["scan host0 0 0 0", "delete 0:0:0:0"], t.commands())
        # no LUN 0: through the well-known LUN; JSON says look-only
        before = len(t.commands())
        doc = json.loads(t.run("-n", "--json", "0:0:1", rc=0).stdout)
        luns, tgt = self.lun_outcomes(doc, "0:0:1")
        self.assertEqual(luns, {2: "would-probe", 49409: "detached"})
        self.assertEqual([lu["reason_code"] for lu in tgt["luns"] if lu["lun"] == 49409],
                         ["look-only"])
        self.assertEqual(t.devices(), [])
        new = [c for c in t.commands()[before:] if c.startswith(("scan", "delete"))]
        self.assertEqual(new, ["scan host0 0 1 0", "scan host0 0 1 49409", "delete 0:0:1:49409"], new)
        # nothing there: one write, nothing left, said so
        p = t.run("explain", "0:0:2", rc=0)
        self.assertIn("nothing answered at that target", p.stderr)
        self.assertEqual(t.devices(), [])
        # a host or a channel as a whole: only what is attached, no write
        before = len(t.commands())
        p = t.run("-n", "0:0", rc=0)
        self.assertIn("dry run: only targets with an attached LUN are looked at", p.stdout)
        self.assertFalse([c for c in t.commands()[before:] if c.startswith(("scan", "delete"))])
        # a target with a LUN attached is read through it, as before
        t.run("0:0:0:3", rc=0)
        before = len(t.commands())
        out = t.run("explain", "0:0:0", rc=0).stdout
        self.assertNotIn("detached", out)
        self.assertFalse([c for c in t.commands()[before:] if c.startswith(("scan", "delete"))])
        self.assertEqual(t.devices(), ["0:0:0:3"])

    def test_kernel_flags_against_the_database(self):
        """The flags the kernel applied (blacklist) against the database's:
        a local entry that drops nostartonadd from the MSA1000, one that
        adds no_uld_attach to a device no table names, and a QEMU disk whose
        driver's try_vpd_pages is no difference."""
        with tempfile.TemporaryDirectory() as etc:
            with open(os.path.join(etc, "50-local.conf"), "w") as f:
                f.write('device "msa" {\n\tvendor = "COMPAQ"\n\tmodel = "MSA1000"\n'
                        '\tdrop_flags = {"nostartonadd"}\n}\n'
                        'device "mgmt" {\n\tvendor = "ACME"\n\tmodel = "Ctl"\n'
                        '\tflags = {"no_uld_attach"}\n}\n')
            t = self.tree("host 0 max_id 3 max_lun 49410\n"
                          "lu 0:0:0:0 vendor COMPAQ model MSA1000 version 4 "
                          "blacklist SPARSELUN_NOSTARTONADD\n"
                          "lu 0:0:1:0 vendor ACME model Ctl version 5\n"
                          "lu 0:0:2:0 vendor QEMU model QEMU_HARDDISK version 5 "
                          "blacklist TRY_VPD_PAGES\n")
            t.run(quirks=(QUIRKS, etc), rc=0)
            j = json.loads(t.run("list", "--json", quirks=(QUIRKS, etc), rc=0).stdout)["devices"]
            text = t.run("list", quirks=(QUIRKS, etc), rc=0).stdout
            out = t.run("explain", "0:0:1", quirks=(QUIRKS, etc), rc=0).stdout
            ej = json.loads(t.run("explain", "0:0:0", "--json", quirks=(QUIRKS, etc),
                                  rc=0).stdout)
        checks = {d["hctl"]: d["kernel_flags_check"] for d in j}
        self.assertEqual((checks["0:0:0:0"]["differ"], checks["0:0:0:0"]["extra"]),
                         (True, ["nostartonadd"]))
        self.assertEqual((checks["0:0:1:0"]["differ"], checks["0:0:1:0"]["missing"]),
                         (True, ["no_uld_attach"]))
        self.assertEqual((checks["0:0:2:0"]["differ"], checks["0:0:2:0"]["database_names_device"]),
                         (False, False))
        self.assertIn("when scsi_mod loads", checks["0:0:1:0"]["delivery"])
        self.assertEqual(text.count("kernel-flags-differ"), 2)
        self.assertIn("the database gives no_uld_attach, the kernel applied -", text)
        self.assertIn("LUN 0:0:1:0: the kernel's flags differ from the database's", out)
        self.assertEqual([d["hctl"] for d in ej["devices"]], ["0:0:0:0"])
        self.assertTrue(ej["devices"][0]["kernel_flags_check"]["differ"])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1] + sys.argv[5:], verbosity=2)
