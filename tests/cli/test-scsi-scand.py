#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scsi-scand against a fake sysfs tree and the fake kernel: coldplug, the
sd_notify protocol, reloads with a broken quirk file, and the unit file."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

SCAND, FAKE, QUIRKS, UNIT, SCAN, SETTLE_UNIT = sys.argv[1:7]

SCRIPT = ("host 0 max_id 2 max_lun 49410\n"
          "host 1 max_id 1 max_lun 49410\n"
          "lu 0:0:0:0 vendor ACME model Disk version 5\n"
          "lu 0:0:0:1 vendor ACME model Disk version 5\n"
          "lu 0:0:1:0 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n"
          "lu 0:0:1:1 vendor CHINON model CD-ROM_CDS-431 version 2 pdt 5\n"
          "lu 1:0:0:0 vendor ACME model Other version 6\n")


class Daemon(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="scsi-scand-tree-")
        self.addCleanup(shutil.rmtree, self.root)
        for d in ["sys/bus/scsi/devices", "sys/module/scsi_mod/parameters", "dev", "run",
                  "proc/self", "etc"]:
            os.makedirs(os.path.join(self.root, d))
        for h in (0, 1):
            hd = os.path.join(self.root, f"sys/class/scsi_host/host{h}")
            os.makedirs(hd)
            open(os.path.join(hd, "scan"), "w").close()
        self.script = os.path.join(self.root, "script")
        with open(self.script, "w") as f:
            f.write(SCRIPT)
        self.etc = os.path.join(self.root, "etc")
        self.env = dict(os.environ, FAKE_KERNEL_ROOT=self.root, FAKE_KERNEL_SCRIPT=self.script,
                        LD_PRELOAD=FAKE)
        self.env.pop("NOTIFY_SOCKET", None)
        self.env.pop("JOURNAL_STREAM", None)

    def args(self, *extra):
        return [SCAND, "--foreground", "--no-monitor", "--sysroot", self.root, "--quirks-dir",
                QUIRKS, "--quirks-dir", self.etc, *extra]

    def devices(self):
        return sorted(os.listdir(os.path.join(self.root, "sys/bus/scsi/devices")))

    def iscsi_session(self, state):
        """Session 1 of host 0 to target t1, in @state; returns its directory."""
        os.makedirs(os.path.join(self.root, "sys/class/iscsi_host/host0"))
        sess = os.path.join(self.root, "sys/devices/platform/host0/session1/iscsi_session/session1")
        os.makedirs(sess)
        for k, v in (("target_id", "0"), ("targetname", "iqn.2003-01.org.example:t1"),
                     ("tpgt", "1"), ("state", state)):
            with open(os.path.join(sess, k), "w") as f:
                f.write(v + "\n")
        os.makedirs(os.path.join(self.root, "sys/class/iscsi_session"))
        os.symlink("../../devices/platform/host0/session1/iscsi_session/session1",
                   os.path.join(self.root, "sys/class/iscsi_session/session1"))
        return sess

    def state(self):
        with open(os.path.join(self.root, "run/scsi-scan/state")) as f:
            return f.read()

    def wait(self, timeout="0"):
        return subprocess.run([SCAN, "wait", "-v", "--sysroot", self.root, "--timeout", timeout],
                              capture_output=True, text=True, timeout=60)

    def test_once_coldplug(self):
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "1:0:0:0"])
        err = p.stderr
        self.assertIn("coldplug: 2 host(s)", err)
        self.assertIn("0:0:1: attached LUN 0 of 'CHINON' 'CD-ROM CDS-431' (nolun: LUN 0 only, "
                      "quirks nolun from", err)
        self.assertIn("10-linux-nolun.conf:18", err)
        # the settle point: reached; but the daemon has gone, and "scsi-scan
        # wait" does not trust a dead daemon's record (the second audit)
        self.assertRegex(self.state(), r"^phase=settled\npid=[1-9][0-9]*\n$")
        w = self.wait()
        self.assertEqual(w.returncode, 1, w.stderr)
        self.assertIn("scsi-scand no longer runs", w.stderr)
        self.assertEqual(err.count("host0: scanned"), 1)
        self.assertEqual(err.count("host1: scanned"), 1)
        # the shipped database's warnings are for maintainers, not the log
        self.assertNotIn("only by case", err)

    def test_lunmask_applies_to_the_coldplug(self):
        with open(os.path.join(self.etc, "50-mask.conf"), "w") as f:
            f.write('lunmask "no lun 1" {\n\tchannel = 0\n\tid = 0\n'
                    '\texclude_luns = { 1 }\n}\n')
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:1:0", "1:0:0:0"])
        self.assertIn("0:0:0:1: skipped: excluded by lunmask 'no lun 1' (", p.stderr)
        self.assertIn("50-mask.conf:1)", p.stderr)

    def test_refused_luns_takes_remove_or_report(self):
        p = subprocess.run(self.args("--once", "--refused-luns", "forget"), env=self.env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--refused-luns takes remove or report", p.stderr)
        # a policy refuses LUN 1 of 0:0:0, which is attached (by someone
        # else): the daemon's coldplug deletes it; with report, it stays
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0:0:0:1", self.devices())
        with open(os.path.join(self.etc, "50-mask.conf"), "w") as f:
            f.write('lunmask "no lun 1" {\n\tchannel = 0\n\tid = 0\n'
                    '\texclude_luns = { 1 }\n}\n')
        p = subprocess.run(self.args("--once", "--refused-luns", "report"), env=self.env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0:0:0:1", self.devices())
        self.assertIn("0:0:0:1: attached, but excluded by lunmask 'no lun 1'", p.stderr)
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("0:0:0:1", self.devices())
        self.assertIn("0:0:0:1: removed: excluded by lunmask 'no lun 1'", p.stderr)

    def host_paths(self):
        """Each host a place of its own in the device tree (two HBAs of one
        driver, drv): host 0 at pci0000:00/0000:00:04.0, host 1 at
        0000:00:05.0; the fake kernel attaches under them."""
        for h in (0, 1):
            parent = os.path.join(self.root, f"sys/devices/pci0000:00/0000:00:0{4 + h}.0")
            os.makedirs(os.path.join(parent, f"host{h}"))
            os.makedirs(os.path.join(self.root, "sys/devices/fake"), exist_ok=True)
            os.symlink(f"../pci0000:00/0000:00:0{4 + h}.0/host{h}",
                       os.path.join(self.root, f"sys/devices/fake/host{h}"))
            os.symlink(f"../../../devices/fake/host{h}",
                       os.path.join(self.root, f"sys/class/scsi_host/host{h}/device"))
            with open(os.path.join(self.root, f"sys/class/scsi_host/host{h}/proc_name"),
                      "w") as f:
                f.write("drv\n")
        with open(self.script, "a") as f:
            f.write("lu 1:0:0:1 vendor ACME model Other version 6\n")

    def test_holdouts_are_held_against_other_scanners(self):
        # LUN 1 of 0:0:0 is attached (by someone else) while a detached
        # volume's hold-out names it, and no lunmask policy is loaded: the
        # coldplug deletes it, or with report says so and leaves it. The
        # hold-out names the host's place in the device tree, as scsi-scan
        # detach writes it for a host without a transport class.
        self.host_paths()
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0:0:0:1", self.devices())
        self.assertIn("1:0:0:1", self.devices())
        held = os.path.join(self.root, "run/scsi-scan/holdout")
        self.assertTrue(os.path.isdir(held), "the daemon makes the directory it watches")
        with open(os.path.join(held, "host-pci0000:00!0000:00:04.0-0-0-lun-1.conf"), "w") as f:
            f.write('lunmask "held out" {\n\thost_path = "pci0000:00/0000:00:04.0"\n'
                    '\tdriver = "drv"\n\tchannel = 0\n\tid = 0\n'
                    '\texclude_luns = { 1 }\n\treason = "detached"\n}\n')
        p = subprocess.run(self.args("--once", "--refused-luns", "report"), env=self.env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0:0:0:1", self.devices())
        self.assertIn("0:0:0:1: attached, but excluded by lunmask 'held out'", p.stderr)
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0:0:0:1: removed: excluded by lunmask 'held out'", p.stderr)
        # the other HBA of the driver, at the same numbers, is not touched
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:1:0", "1:0:0:0", "1:0:0:1"])

    def test_a_holdout_that_names_no_host_deletes_nothing(self):
        """A hold-out keyed by driver, channel, id and LUN alone (the second
        audit: the daemon deleted the same numbers on another HBA of the
        driver): it keeps the LUNs out of a scan, but is no reason to
        delete one, on either HBA."""
        self.host_paths()
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        held = os.path.join(self.root, "run/scsi-scan/holdout")
        with open(os.path.join(held, "driver-drv-0-0-lun-1.conf"), "w") as f:
            f.write('lunmask "held out" {\n\tdriver = "drv"\n\tchannel = 0\n\tid = 0\n'
                    '\texclude_luns = { 1 }\n\treason = "detached"\n}\n')
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("0:0:0:1", self.devices())
        self.assertIn("1:0:0:1", self.devices())
        self.assertIn("may be another HBA's: kept", p.stderr)

    def test_a_holdout_written_while_running_is_seen(self):
        p = subprocess.Popen(self.args("-v"), env=self.env, stderr=subprocess.PIPE, text=True)
        try:
            held = os.path.join(self.root, "run/scsi-scan/holdout")
            for _ in range(300):
                if os.path.isdir(held):
                    break
                time.sleep(0.1)
            tmp = os.path.join(held, "driver-x-0-0-lun-1.conf.tmp")
            with open(tmp, "w") as f:
                f.write('lunmask "held out" {\n\tchannel = 0\n\tid = 0\n'
                        '\texclude_luns = { 1 }\n}\n')
            os.rename(tmp, tmp[:-4])
            time.sleep(1)
            os.unlink(tmp[:-4])
            time.sleep(1)
        finally:
            p.send_signal(signal.SIGTERM)
            err = p.communicate(timeout=60)[1]
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("hold-outs: a detached volume is held out", err)
        self.assertIn("hold-outs: none left", err)
        # a hold-out needs no reload of the database
        self.assertNotIn("quirks: reloading", err)

    def test_max_workers_range(self):
        for bad in ("0", "1025", "4294967297", "-1", "4x", ""):
            p = subprocess.run(self.args("--once", "--max-workers", bad), env=self.env,
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, f"--max-workers {bad!r}: {p.stderr}")
            self.assertIn("--max-workers takes 1-1024", p.stderr)
        p = subprocess.run(self.args("--once", "--max-workers", "1024"), env=self.env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("1024 workers at most", p.stderr)

    def test_kernel_scanning_by_itself_is_left_alone(self):
        # installed is not switched on: with scan=sync the daemon does nothing
        with open(os.path.join(self.root, "sys/module/scsi_mod/parameters/scan"), "w") as f:
            f.write("sync\n")
        p = subprocess.run(self.args(), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("the kernel scans by itself (scsi_mod.scan=sync): nothing to do", p.stderr)
        self.assertEqual(self.devices(), [])
        # nothing for a unit ordered after the settle point to wait for
        self.assertRegex(self.state(), r"^phase=kernel\npid=[1-9][0-9]*\n$")
        self.assertEqual(self.wait().returncode, 0)
        with open(os.path.join(self.root, "sys/module/scsi_mod/parameters/scan"), "w") as f:
            f.write("manual\n")
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(self.devices()), 4)

    def test_fifo_quirk_file_and_missing_quirks_dir(self):
        os.mkfifo(os.path.join(self.etc, "50-fifo.conf"))
        p = subprocess.run(self.args("--once"), env=self.env, capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("50-fifo.conf", p.stderr)
        self.assertIn("not a regular file", p.stderr)
        p = subprocess.run([SCAND, "--foreground", "--no-monitor", "--once", "--sysfs",
                            self.root, "--quirks-dir", "/nonexistent/q"], env=self.env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("--quirks-dir /nonexistent/q: No such file or directory", p.stderr)

    def test_sighup_while_the_database_loads(self):
        """SIGHUPs while a large database loads (the second audit: one
        during the load killed the daemon, and Restart=on-failure does not
        restart a SIGHUP death): it lives, and SIGTERM still ends it."""
        with open(os.path.join(self.etc, "50-many.conf"), "w") as f:
            for i in range(100000):
                f.write(f'device "d{i}" {{\n\tvendor = "V{i % 97}"\n\tmodel = "M{i}"\n'
                        '\tflags = {"nolun"}\n}\n')
        p = subprocess.Popen(self.args(), env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        # 100 ms of CPU time: past exec and the dynamic loader, into the
        # load (which takes several times that)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            with open(f"/proc/{p.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[11]) + int(fields[12]) >= os.sysconf("SC_CLK_TCK") // 10:
                break
            time.sleep(0.001)
        for _ in range(100):
            if p.poll() is not None:
                break
            p.send_signal(signal.SIGHUP)
            time.sleep(0.005)
        self.assertIsNone(p.poll(), "scsi-scand died of a SIGHUP")
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)

    def test_notify_reload_and_stop(self):
        sock_path = os.path.join(self.root, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(sock_path)
        sock.settimeout(20)
        env = dict(self.env, NOTIFY_SOCKET=sock_path)
        with open(os.path.join(self.etc, "50-local.conf"), "w") as f:
            f.write('device "other" {\n\tvendor = "ACME"\n\tmodel = "Other"\n\tmax_lun = 0\n}\n')
        log = open(os.path.join(self.root, "log"), "w+")
        p = subprocess.Popen(self.args(), env=env, stdout=log, stderr=log, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())

        def wait_for(word):
            seen = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                msg = sock.recv(4096).decode()
                seen.append(msg)
                if word in msg:
                    return msg
            self.fail(f"no {word} from the daemon: {seen}")

        # ready at once, with the coldplug running; STATUS says when it ends
        wait_for("READY=1")
        wait_for("STATUS=Watching")
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:0:1", "0:0:1:0", "1:0:0:0"])
        # an administrator breaks a file: the daemon reloads by itself, logs
        # file:line, keeps the file's last good version and keeps running
        with open(os.path.join(self.etc, "50-local.conf"), "w") as f:
            f.write('device "other" {\n\tvendor = "ACME"\n\tmax_lunn = 0\n}\n')
        wait_for("RELOADING=1")
        wait_for("READY=1")
        p.send_signal(signal.SIGHUP)
        wait_for("RELOADING=1")
        wait_for("READY=1")
        self.assertIsNone(p.poll())
        p.send_signal(signal.SIGTERM)
        wait_for("STOPPING=1")
        self.assertEqual(p.wait(timeout=20), 0)
        log.seek(0)
        text = log.read()
        self.assertIn("50-local.conf:3: no such option 'max_lunn'", text)
        self.assertIn("keeping the version that last loaded", text)
        self.assertIn("quirks: reloading (a quirk directory changed)", text)
        self.assertIn("quirks: reloading (SIGHUP)", text)
        # the kept version still holds max_lun 0 for ACME Other: the 183
        # entries of the kernel's device table, its 39 device-handler
        # entries and that one
        self.assertEqual(text.count("quirks: reloaded 223 entries"), 2)


    def test_sigterm_ends_a_runaway_scan_and_other_hosts_go_on(self):
        # host0 acts as a transport that accepts every id, slowly; host1 is
        # quick. Without bounds host0's scan would run for minutes
        with open(self.script, "w") as f:
            f.write("host 0 transport unknown delay_ms 100\nlu 0:0:0:0\n"
                    "host 1 max_id 1\nlu 1:0:0:0\n")
        log = open(os.path.join(self.root, "log"), "w+")
        self.addCleanup(log.close)
        p = subprocess.Popen(self.args("--max-workers", "2"), env=self.env, stdout=log,
                             stderr=log, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "1:0:0:0" not in self.devices():
            time.sleep(0.1)
        self.assertIn("1:0:0:0", self.devices(), "host1 waited for host0's scan")
        time.sleep(1)
        self.assertIsNone(p.poll())
        start = time.monotonic()
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 0)
        self.assertLess(time.monotonic() - start, 5)
        log.seek(0)
        text = log.read()
        self.assertIn("host1: scanned", text)
        self.assertIn("host0: scan cancelled: the daemon is stopping", text)

    def test_settle_point_waits_for_the_slowest_host(self):
        # host0 answers slowly: the point is reached only when its scan ends,
        # and a daemon killed before then leaves it unreached
        with open(self.script, "w") as f:
            f.write("host 0 max_id 3 delay_ms 300\nlu 0:0:0:0\nlu 0:0:1:0\nlu 0:0:2:0\n"
                    "host 1 max_id 1\nlu 1:0:0:0\n")
        w = self.wait()
        self.assertEqual(w.returncode, 1)
        self.assertIn("not settled after 0 s: scsi-scand has not started", w.stderr)
        log = open(os.path.join(self.root, "log"), "w+")
        self.addCleanup(log.close)
        p = subprocess.Popen(self.args(), env=self.env, stdout=log, stderr=log, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "1:0:0:0" not in self.devices():
            time.sleep(0.05)
        w = self.wait()
        self.assertEqual(w.returncode, 1, w.stdout)
        self.assertIn("still scanning its hosts for the first time", w.stderr)
        # "wait" returns when the slow host is done, with all its LUNs there
        w = self.wait("60")
        self.assertEqual(w.returncode, 0, w.stderr)
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:1:0", "0:0:2:0", "1:0:0:0"])
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 0)
        # a daemon killed in its coldplug: waiters keep waiting for a restart
        p = subprocess.Popen(self.args(), env=self.env, stdout=log, stderr=log, text=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and f"pid={p.pid}" not in self.state():
            time.sleep(0.05)
        p.kill()
        p.wait(timeout=10)
        self.assertEqual(self.state(), f"phase=coldplug\npid={p.pid}\n")
        w = self.wait("1")
        self.assertEqual(w.returncode, 1)
        self.assertIn("not settled after 1 s: scsi-scand no longer runs", w.stderr)


    def test_a_lun_set_offline_before_the_outage_stays_offline(self):
        """The path watch sets running a LUN the error handler took offline
        while its path was away, but not one an administrator set offline
        before (the second audit: both were set running)."""
        with open(self.script, "w") as f:
            f.write("host 0 transport iscsi\nlu 0:0:0:0\nlu 0:0:0:3\nhost 1 max_id 1\n")
        sess = self.iscsi_session("LOGGED_IN")

        def state(hctl, value=None):
            path = os.path.join(self.root, f"sys/bus/scsi/devices/{hctl}/state")
            if value is None:
                with open(path) as f:
                    return f.read().strip()
            with open(path, "w") as f:
                f.write(value + "\n")

        def session(value):
            with open(os.path.join(sess, "state"), "w") as f:
                f.write(value + "\n")

        log = open(os.path.join(self.root, "log"), "w+")
        self.addCleanup(log.close)
        p = subprocess.Popen(self.args("--watch-paths", "1"), env=self.env, stdout=log,
                             stderr=log, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(self.devices()) < 2:
            time.sleep(0.1)
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:0:3"])
        state("0:0:0:3", "offline")
        time.sleep(1.5)
        session("FAILED")
        time.sleep(2.5)
        state("0:0:0:0", "offline")
        session("LOGGED_IN")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and state("0:0:0:0") != "running":
            time.sleep(0.1)
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 0)
        log.seek(0)
        text = log.read()
        self.assertEqual(state("0:0:0:0"), "running", text)
        self.assertEqual(state("0:0:0:3"), "offline", text)
        self.assertIn("0:0:0:0: offline; its path is back: set running", text)
        self.assertNotIn("0:0:0:3: offline; its path is back", text)

    def test_iscsi_session_still_logging_in_is_scanned_again(self):
        # A session is added before its login ends and no uevent follows the
        # login: the daemon scans the host again until the session is up
        with open(self.script, "w") as f:
            f.write("host 0 transport iscsi\nlu 0:0:0:0\nlu 0:0:0:3\nhost 1 max_id 1\n")
        sess = self.iscsi_session("FREE")
        log = open(os.path.join(self.root, "log"), "w+")
        self.addCleanup(log.close)
        p = subprocess.Popen(self.args(), env=self.env, stdout=log, stderr=log, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        time.sleep(1.5)
        self.assertEqual(self.devices(), [])
        # the host waits for its retry: the settle point is not reached (the
        # second audit: it was, with the session's LUNs still to come)
        self.assertRegex(self.state(), r"^phase=coldplug\n")
        self.assertEqual(self.wait().returncode, 1)
        with open(os.path.join(sess, "state"), "w") as f:
            f.write("LOGGED_IN\n")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(self.devices()) < 2:
            time.sleep(0.1)
        self.assertEqual(self.devices(), ["0:0:0:0", "0:0:0:3"])
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 0)
        log.seek(0)
        text = log.read()
        self.assertIn("its state is FREE: not reachable", text)
        self.assertIn("host0: a target its transport lists is not reachable yet; scanning "
                      "again in 1000 ms (1 of 30)", text)


class Unit(unittest.TestCase):
    def test_systemd_analyze_verify(self):
        tool = shutil.which("systemd-analyze")
        if not tool:
            self.skipTest("systemd-analyze is not installed")
        with tempfile.TemporaryDirectory() as d:
            with open(UNIT) as f:
                text = f.read()
            start = [ln for ln in text.splitlines() if ln.startswith("ExecStart=")][0]
            text = text.replace(start, f"ExecStart={os.path.abspath(SCAND)}")
            path = os.path.join(d, "scsi-scand.service")
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([tool, "verify", "--man=no", path], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            p = subprocess.run([tool, "security", "--offline=yes", path], capture_output=True,
                               text=True)
            print(p.stdout.strip().splitlines()[-1] if p.stdout else p.stderr)

    def test_settle_unit_verify(self):
        tool = shutil.which("systemd-analyze")
        if not tool:
            self.skipTest("systemd-analyze is not installed")
        with tempfile.TemporaryDirectory() as d:
            with open(SETTLE_UNIT) as f:
                text = f.read()
            self.assertIn("ExecStart=", text)
            start = [ln for ln in text.splitlines() if ln.startswith("ExecStart=")][0]
            self.assertTrue(start.endswith("scsi-scan wait --timeout 180"), start)
            text = text.replace(start, f"ExecStart={os.path.abspath(SCAN)} wait --timeout 180")
            path = os.path.join(d, "scsi-scan-settle.service")
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([tool, "verify", "--man=no", path], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
