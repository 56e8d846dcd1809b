#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scsi-quirks as a maintainer uses it: check, query, list, export, import."""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

TOOL, SHIPPED, FIXTURES = sys.argv[1:4]


def run(*args, check_rc=None):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True)
    if check_rc is not None and p.returncode != check_rc:
        raise AssertionError(f"scsi-quirks {' '.join(args)}: exit {p.returncode}, "
                             f"expected {check_rc}\nstdout: {p.stdout}\nstderr: {p.stderr}")
    return p


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Check(unittest.TestCase):
    def test_shipped_is_clean(self):
        p = run("check", SHIPPED, check_rc=0)
        self.assertIn("222 entries loaded, 0 errors", p.stdout)

    def test_every_bad_file_reported_with_line(self):
        p = run("check", FIXTURES, check_rc=1)
        err = p.stderr
        expect = [
            ("20-bad-unknown-flag.conf:4: error", "unknown flag 'sparse_lun'"),
            ("21-bad-unknown-key.conf:4: error", "no such option 'modle'"),
            ("22-bad-missing-vendor.conf:2: error", "no vendor"),
            ("23-bad-unterminated-quote.conf:3: error", "never closed"),
            ("24-bad-duplicate-title.conf:7: error", "duplicate title"),
            ("30-empty.conf: warning", "no device or lunmask entries"),
            ("40-warn-long-vendor.conf:3: warning", "longer than the 8 bytes"),
        ]
        for where, what in expect:
            lines = [ln for ln in err.splitlines() if where in ln and what in ln]
            self.assertTrue(lines, f"missing '{where} ... {what}' in:\n{err}")
        # the good file still loads, and only it
        self.assertIn("2 entries loaded, 5 errors", p.stdout)

    def test_check_json(self):
        p = run("--json", "check", FIXTURES, check_rc=1)
        j = json.loads(p.stdout)
        self.assertEqual(j["errors"], 5)
        files = {os.path.basename(d["file"]) for d in j["diagnostics"] if d["severity"] == "error"}
        self.assertEqual(len(files), 5)
        self.assertTrue(all(d["line"] > 0 for d in j["diagnostics"] if d["severity"] == "error"))

    def test_binary_file(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "50-bin.conf"), "wb") as f:
                f.write(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)))
            p = run("check", d, check_rc=1)
            self.assertIn("50-bin.conf:1: error: NUL byte", p.stderr)


    def test_fifo_and_missing_directory(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "10-good.conf"), 'device "a" {\n\tvendor = "ACME"\n}\n')
            os.mkfifo(os.path.join(d, "20-fifo.conf"))
            p = subprocess.run([TOOL, "check", d], capture_output=True, text=True, timeout=20)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("20-fifo.conf: error: file refused: not a regular file", p.stderr)
            p = subprocess.run([TOOL, "--quirks-dir", d, "list"], capture_output=True,
                               text=True, timeout=20)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("ACME", p.stdout)
        p = run("--quirks-dir", "/nonexistent/q", "list", check_rc=1)
        self.assertIn("--quirks-dir /nonexistent/q: No such file or directory", p.stderr)

    def test_unsafe_files_and_directories_refused(self):
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "10-good.conf")
            bad = os.path.join(d, "20-anyone.conf")
            write(good, 'device "a" {\n\tvendor = "ACME"\n\tflags = {"notq"}\n}\n')
            write(bad, 'device "b" {\n\tvendor = "EVIL"\n\tflags = {"nolun"}\n}\n')
            os.chmod(bad, 0o666)
            p = run("check", d, check_rc=1)
            self.assertIn("20-anyone.conf: error: file refused", p.stderr)
            self.assertIn("1 entries loaded", p.stdout)
            os.chmod(d, 0o777)
            p = run("check", d, check_rc=1)
            self.assertIn("directory refused: writable by anyone", p.stderr)
            os.chmod(d, 0o700)

    def test_huge_file(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "50-huge.conf"), "w") as f:
                for i in range(100000):
                    f.write(f'device "d{i}" {{\n\tvendor = "V{i % 5000:04d}"\n'
                            f'\tmodel = "M{i}"\n\tflags = {{"notq"}}\n}}\n')
            t0 = time.monotonic()
            p = run("check", d, check_rc=0)
            took = time.monotonic() - t0
            self.assertIn("100000 entries loaded, 0 errors", p.stdout)
            print(f"100,000 entries checked in {took:.2f} s", file=sys.stderr)
            self.assertLess(took, 60)


class Query(unittest.TestCase):
    def query(self, *args):
        return json.loads(run("--quirks-dir", SHIPPED, "query", "--json", *args,
                              check_rc=0).stdout)

    def test_nolun_device(self):
        j = self.query("--vendor", "CHINON", "--model", "CD-ROM CDS-431")
        self.assertEqual(j["flags"], ["nolun"])
        self.assertIsNone(j["max_lun"])
        self.assertTrue(j["attach"])
        self.assertEqual(len(j["sources"]), 1)
        src = j["sources"][0]
        self.assertTrue(src["file"].endswith("10-linux-nolun.conf"))
        with open(src["file"], encoding="utf-8") as f:
            line = f.read().splitlines()[src["line"] - 1]
        self.assertIn('device "chinon-cd-rom-cds-431"', line)

    def test_eight_character_vendor_matches(self):
        j = self.query("--vendor", "3PARdata", "--model", "VV")
        self.assertEqual(j["flags"], ["reportlun2"])

    def test_padded_strings_as_read_from_sysfs(self):
        j = self.query("--vendor", "CHINON  ", "--model", "CD-ROM CDS-431  ")
        self.assertEqual(j["flags"], ["nolun"])

    def test_unknown_device(self):
        j = self.query("--vendor", "NOBODY", "--model", "Nothing")
        self.assertEqual(j["flags"], [])
        self.assertEqual(j["sources"], [])

    def test_text_output(self):
        p = run("--quirks-dir", SHIPPED, "query", "--vendor", "Promise", "--model",
                "VTrak E310", check_rc=0)
        self.assertIn("flags:   sparselun no_rsoc (0x20000040)", p.stdout)
        self.assertIn("20-linux-lun-scan.conf:", p.stdout)

    def test_usage_errors(self):
        run("query", "--vendor", "X", check_rc=2)
        run("query", "--vendor", "WAYTOOLONGVENDOR", "--model", "M", check_rc=2)
        run("query", "--vendor", "X", "--model", "M", "--type", "40", check_rc=2)
        run("frobnicate", check_rc=2)
        run(check_rc=2)
        self.assertIn("Usage:", run("--help", check_rc=0).stdout)


class Precedence(unittest.TestCase):
    def test_admin_drops_one_flag(self):
        with tempfile.TemporaryDirectory() as etc:
            write(os.path.join(etc, "50-local.conf"),
                  'device "compaq-no-nostartonadd" {\n'
                  '\tvendor = "COMPAQ"\n\tmodel = "MSA1000"\n'
                  '\tdrop_flags = {"nostartonadd"}\n\tmax_lun = 31\n}\n')
            j = json.loads(run("--quirks-dir", SHIPPED, "--quirks-dir", etc, "query",
                               "--json", "--vendor", "COMPAQ", "--model", "MSA1000",
                               check_rc=0).stdout)
            self.assertEqual(j["flags"], ["sparselun"])
            self.assertEqual(j["max_lun"], 31)
            self.assertEqual([os.path.basename(s["file"]) for s in j["sources"]],
                             ["20-linux-lun-scan.conf", "50-local.conf"])
            self.assertEqual(j["sources"][1]["line"], 1)

    def test_root_and_masking(self):
        with tempfile.TemporaryDirectory() as root:
            etc = os.path.join(root, "etc/scsi-scan/quirks.d")
            run_dir = os.path.join(root, "run/scsi-scan/quirks.d")
            os.makedirs(etc)
            os.makedirs(run_dir)
            write(os.path.join(etc, "60-a.conf"),
                  'device "a" {\n\tvendor = "ACME"\n\tflags = {"nolun"}\n}\n')
            write(os.path.join(etc, "61-b.conf"),
                  'device "b" {\n\tvendor = "ACME"\n\tadd_flags = {"notq"}\n}\n')
            os.symlink("/dev/null", os.path.join(run_dir, "61-b.conf"))
            j = json.loads(run("--root", root, "query", "--json", "--vendor", "ACME",
                               "--model", "X", check_rc=0).stdout)
            self.assertEqual(j["flags"], ["nolun"])
            self.assertEqual(len(j["sources"]), 1)
            self.assertTrue(j["sources"][0]["file"].startswith(root + "/etc/"))


class ListExportImport(unittest.TestCase):
    def test_list_json(self):
        j = json.loads(run("--quirks-dir", SHIPPED, "list", "--json", check_rc=0).stdout)
        self.assertEqual(len(j), 183 + 39)
        self.assertTrue(all(e["builtin"] for e in j))
        chinon = [e for e in j if e["vendor"] == "CHINON"]
        self.assertEqual(chinon[0]["flags"], ["nolun"])

    def test_json_with_a_file_name_that_is_not_utf8(self):
        with tempfile.TemporaryDirectory() as d:
            sub = os.path.join(os.fsencode(d), b"caf\xe9")
            os.mkdir(sub)
            with open(os.path.join(sub, b"50-x.conf"), "w") as f:
                f.write('device "a" {\n\tvendor = "ACME"\n\tflags = {"nolun"}\n}\n')
            p = subprocess.run([os.fsencode(TOOL), b"--quirks-dir", sub, b"list", b"--json"],
                               capture_output=True, timeout=20)
            self.assertEqual(p.returncode, 0, p.stderr)
            j = json.loads(p.stdout.decode("utf-8"))  # strict: fails on raw 0xe9
            self.assertTrue(j[0]["file"].endswith("caf\\xe9/50-x.conf"), j[0]["file"])

    def test_list_text(self):
        p = run("--quirks-dir", SHIPPED, "list", check_rc=0)
        self.assertEqual(len(p.stdout.splitlines()), 183 + 39)

    def test_export_import_round_trip(self):
        """A database's dev_flags value, imported, checks and exports the
        same value again."""
        with tempfile.TemporaryDirectory() as src:
            write(os.path.join(src, "50-local.conf"),
                  'device "a" {\n\tvendor = "ACME"\n\tmodel = "Ctl"\n'
                  '\tflags = {"no_uld_attach"}\n}\n'
                  'device "s" {\n\tvendor = "SYNOLOGY"\n\tmodel = "iSCSI Storage"\n'
                  '\tflags = {"unmap_limit_ws"}\n}\n')
            s = run("--quirks-dir", src, "export", "--dev-flags", check_rc=0).stdout.strip()
        self.assertEqual(s, "ACME:Ctl:0x100000,SYNOLOGY:iSCSI Storage:0x80000000")
        text = run("import", "--dev-flags", s, check_rc=0).stdout
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "90-imported.conf"), text)
            run("check", d, check_rc=0)
            again = run("--quirks-dir", d, "export", "--dev-flags",
                        check_rc=0).stdout.strip()
        self.assertEqual(again, s)

    def test_shipped_does_not_fit_whole(self):
        """The shipped table's entries that 6.x no longer matches (their
        8-character vendors), each with its whole value, take more than the
        kernel's 255 characters: export says which do not fit, and the boot
        image carries only the devices of the machine (--host-only)."""
        p = run("--quirks-dir", SHIPPED, "export", "--dev-flags", check_rc=1)
        self.assertIn("does not fit", p.stderr)
        self.assertIn("the kernel takes 255", p.stderr)

    def test_modprobe_line_host_only(self):
        """The MSA1000 example of scsi-quirks.d(5): nostartonadd dropped, the
        value whole (sparselun stays), for the device attached, by its own
        name; a QEMU disk and an unknown disk need nothing."""
        with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as etc:
            for n, (vendor, model) in enumerate([("COMPAQ", "MSA1000"),
                                                 ("QEMU", "QEMU HARDDISK"),
                                                 ("ACME", "Disk")]):
                dev = os.path.join(root, f"sys/bus/scsi/devices/0:0:{n}:0")
                os.makedirs(dev)
                write(os.path.join(dev, "vendor"), f"{vendor:<8}\n")
                write(os.path.join(dev, "model"), f"{model:<16}\n")
                write(os.path.join(dev, "type"), "0\n")
            args = ["--quirks-dir", SHIPPED, "--quirks-dir", etc, "export", "--modprobe",
                    "--host-only", "--sysroot", root]
            self.assertEqual(run(*args, check_rc=0).stdout.strip(),
                             "# no device needs flags other than the kernel's own")
            write(os.path.join(etc, "50-msa.conf"),
                  'device "msa" {\n\tvendor = "COMPAQ"\n\tmodel = "MSA1000"\n'
                  '\tdrop_flags = {"nostartonadd"}\n}\n')
            self.assertEqual(run(*args, check_rc=0).stdout.strip(),
                             "options scsi_mod dev_flags=COMPAQ:MSA1000:0x40")

    def test_export_too_long(self):
        with tempfile.TemporaryDirectory() as d:
            text = "".join(f'device "d{i}" {{\n\tvendor = "VENDOR{i:02d}"\n'
                           f'\tmodel = "Model number {i:02d}"\n\tflags = {{"no_rsoc"}}\n}}\n'
                           for i in range(20))
            write(os.path.join(d, "50-many.conf"), text)
            p = run("--quirks-dir", d, "export", "--dev-flags", check_rc=1)
            self.assertIn("50-many.conf:96: error: 'VENDOR19:Model number 19:0x20000000' "
                          "(device 'd19') does not fit", p.stderr)
            self.assertIn("'VENDOR07:", p.stderr)
            self.assertNotIn("'VENDOR06:", p.stderr)

    def test_export_what_the_kernel_cannot_take(self):
        """A vendor over 8 or a model over 16 characters (the kernel cuts
        them, so the entry matched others and was written to
        /proc/scsi/device_info on every scan), bytes past ASCII, and a
        newline and a tab (a modprobe.d line of their own, a split option):
        refused with file and line, never written (the second audit)."""
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "50-bad.conf"),
                  'device "long" {\n\tvendor = "ABCDEFGHIJ"\n\tmodel = "M"\n'
                  '\tflags = {"nolun"}\n}\n'
                  'device "long-model" {\n\tvendor = "V"\n\tmodel = "0123456789ABCDEFG"\n'
                  '\tflags = {"nolun"}\n}\n'
                  'device "controls" {\n\tvendor = "AB\\nC"\n\tmodel = "M\\tX"\n'
                  '\tflags = {"nolun"}\n}\n'
                  'device "latin1" {\n\tvendor = "AC\\xe9ME"\n\tmodel = "M"\n'
                  '\tflags = {"nolun"}\n}\n'
                  'device "fine" {\n\tvendor = "GOOD"\n\tmodel = "ONE TWO"\n'
                  '\tflags = {"nolun"}\n}\n')
            for how in ("--modprobe", "--dev-flags"):
                p = run("--quirks-dir", d, "export", how, check_rc=1)
                self.assertEqual(p.stdout, "")
                for line, title in ((1, "long"), (6, "long-model"), (11, "controls"),
                                    (16, "latin1")):
                    self.assertIn(f"50-bad.conf:{line}: error: device '{title}' cannot be "
                                  "written as dev_flags", p.stderr)
                self.assertNotIn("'fine'", p.stderr)

    def test_a_root_that_is_not_there_and_a_tpgt_past_16_bits(self):
        """export --host-only with a --sysroot that does not exist read as
        a machine without devices and exited 0; --iscsi-tpgt 70000 was
        taken (the second audit)."""
        p = run("export", "--dev-flags", "--host-only", "--sysroot", "/nonexistent/root",
                check_rc=2)
        self.assertIn("--sysroot /nonexistent/root: No such file or directory", p.stderr)
        p = run("query", "--iscsi-target", "iqn.2003-01.x:t", "--iscsi-tpgt", "70000",
                check_rc=2)
        self.assertIn("--iscsi-tpgt takes a number from 0 to 65535, not '70000'", p.stderr)
        run("query", "--iscsi-target", "iqn.2003-01.x:t", "--iscsi-tpgt", "65535", check_rc=0)

    def test_import_errors(self):
        p = run("import", "--dev-flags", "ACME:Disk", check_rc=1)
        self.assertIn("VENDOR:MODEL:FLAGS", p.stderr)
        p = run("import", "--dev-flags", "ACME:Disk:0x1000240", check_rc=1)
        self.assertIn("unsupported", p.stderr)
        run("import", check_rc=2)
        # 256 characters: the kernel refuses the whole parameter, so does import
        last = ",VVVVVVVVVV:MMMMMMMMMM:0x1"
        long = ",".join(f"V{i:03d}:M:0x1" for i in range(21)) + last
        self.assertEqual(len(long), 256)
        p = run("import", "--dev-flags", long, check_rc=1)
        self.assertIn("255 characters", p.stderr)
        run("import", "--dev-flags", long.replace("MMMMMMMMMM:", "MMMMMMMMM:"), check_rc=0)

    def test_import_writes_what_check_takes(self):
        """Bytes past ASCII and a ${...} in a vendor or model: the text
        import writes is ASCII and names them literally, and check takes
        it (it refused the raw bytes, and libconfuse expanded ${...})."""
        value = b"AC\xe9ME:D${HOME}isk:0x1,\"Q\\:x:0x240"
        p = subprocess.run([TOOL, "import", "--dev-flags", value], capture_output=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = p.stdout.decode("ascii")
        self.assertIn('vendor = "AC\\xe9ME"', text)
        self.assertIn('model = "D\\${HOME}isk"', text)
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "50-imported.conf"), text)
            run("check", d, check_rc=0)
            j = json.loads(run("--quirks-dir", d, "--json", "list", check_rc=0).stdout)
            models = [e["model"] for e in j]
            self.assertIn("D${HOME}isk", models)

    def test_import_kernel_hint_value(self):
        text = run("import", "--dev-flags", "ACME:Disk:0x240", check_rc=0).stdout
        self.assertIn('flags = {"sparselun", "largelun"}', text)

class Lunmask(unittest.TestCase):
    POLICY = ('lunmask "array-a" {\n\tport_name = "50:05:07:68:0B:21:56:60"\n'
              '\tluns = { 0, 12, 20-29 }\n}\n'
              'lunmask "vm" {\n\tdriver = "virtio_scsi"\n\tchannel = 0\n\tid = 1\n'
              '\texclude_luns = { 255 }\n}\n')

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        write(os.path.join(self.dir.name, "50-mask.conf"), self.POLICY)

    def q(self, *args, rc=0):
        return run("--quirks-dir", self.dir.name, *args, check_rc=rc)

    def test_check_counts_and_errors(self):
        p = self.q("check")
        self.assertIn("(and 2 lunmask)", p.stdout)
        write(os.path.join(self.dir.name, "60-bad.conf"),
              'lunmask "x" {\n\tport_name = "0x12"\n\tluns = { 1-0 }\n}\n'
              'lunmask "y" {\n\tsas_address = "zz"\n\tluns = { 0 }\n}\n')
        p = self.q("check", rc=1)
        path = os.path.join(self.dir.name, "60-bad.conf")
        for where, what in ((2, "port_name '0x12' is not a 64-bit"), (3, "'1-0' in 'luns'"),
                            (6, "sas_address 'zz'")):
            self.assertIn(f"{path}:{where}: error: {what}", p.stderr)

    def test_query_by_address(self):
        p = self.q("query", "--port-name", "0x500507680b215660", "--lun", "13")
        self.assertIn("50-mask.conf:1  array-a", p.stdout)
        self.assertIn("LUN 13: refused: not in the luns of lunmask 'array-a'", p.stdout)
        j = json.loads(self.q("query", "--json", "--driver", "virtio_scsi", "--channel", "0",
                              "--id", "1", "--lun", "255").stdout)
        self.assertEqual([e["title"] for e in j["lunmask"]], ["vm"])
        self.assertEqual(j["decision"]["rule"], "excluded")
        self.assertFalse(j["decision"]["allowed"])
        # Without a channel and id, the entry that names them does not apply
        j = json.loads(self.q("query", "--json", "--driver", "virtio_scsi").stdout)
        self.assertEqual(j["lunmask"], [])
        self.q("query", "--driver", "x", "--id", "1", rc=2)

    def test_list(self):
        p = self.q("list")
        self.assertIn("array-a\tlunmask (port_name 500507680b215660)\tluns = 0, 12, 20-29",
                      p.stdout)
        j = json.loads(self.q("list", "--json").stdout)
        self.assertEqual([e.get("kind") for e in j], ["lunmask", "lunmask"])

    def test_import_cmdline(self):
        p = run("import", "--cmdline",
                "ro scsi_scan.lunmask=iscsi,iqn.2003-01.org.linux-iscsi.x:root,0+3 quiet",
                check_rc=0)
        self.assertIn('iscsi_target = "iqn.2003-01.org.linux-iscsi.x:root"', p.stdout)
        self.assertIn("nothing else", p.stdout)
        path = os.path.join(self.dir.name, "00-cmdline.conf")
        write(path, p.stdout)
        c = run("check", path, check_rc=0)
        self.assertIn("0 errors, 0 warnings", c.stdout)
        p = run("import", "--cmdline", "scsi_scan.lunmask=fc,0x12,0", check_rc=1)
        self.assertIn("scsi_scan.lunmask=fc,0x12,0: the address is not 16 hex digits",
                      p.stderr)
        run("import", "--cmdline", "root=/dev/sda", check_rc=1)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
