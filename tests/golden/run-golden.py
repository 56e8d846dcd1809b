#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Golden tests: scsi-scan on sysfs trees captured from real guests.

Each tests/data/trees/NAME.tar.gz is a tree the VM suites captured
(vmlib.CAPTURE_LIB): the sysfs scsi-scan reads, with each device's raw
INQUIRY and REPORT LUNS answers, which the fake kernel replays. For each
tree, scsi-scan --sysroot runs `list -v`, `list --json`, `--dry-run --json`
and `explain` of every target, and the output must equal
tests/golden/NAME/*. With GOLDEN_UPDATE=1 the expected files are written
instead (review the diff before committing them).

usage: run-golden.py SCSI_SCAN FAKE_KERNEL QUIRKS_DIR TREES_DIR GOLDEN_DIR
"""

import difflib
import os
import subprocess
import sys
import tarfile
import tempfile

SCAN, FAKE, QUIRKS, TREES, GOLDEN = sys.argv[1:6]
QUIRKS = os.path.abspath(QUIRKS)
UPDATE = os.environ.get("GOLDEN_UPDATE") == "1"


def targets(root):
    devs = os.listdir(os.path.join(root, "sys/bus/scsi/devices"))
    return sorted({d.rsplit(":", 1)[0] for d in devs},
                  key=lambda t: [int(x) for x in t.split(":")])


def run(root, *args):
    env = dict(os.environ, FAKE_KERNEL_ROOT=root, LD_PRELOAD=FAKE)
    env.pop("FAKE_KERNEL_SCRIPT", None)
    p = subprocess.run([SCAN, "--sysroot", root, "--quirks-dir", QUIRKS, *args], env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode < 0 or "fake-kernel:" in p.stderr:
        raise SystemExit(f"scsi-scan {' '.join(args)} crashed or sent an unexpected "
                         f"command:\n{p.stderr}")
    out = p.stdout + "".join(f"stderr: {line}\n" for line in p.stderr.splitlines())
    return out.replace(root, "<ROOT>").replace(QUIRKS, "<QUIRKS>") + f"exit: {p.returncode}\n"


def outputs(root):
    yield "list.txt", run(root, "list", "-v")
    yield "list.json", run(root, "list", "--json")
    yield "dry-run.json", run(root, "--dry-run", "--json")
    yield "explain.txt", "".join(f"== explain {t}\n" + run(root, "explain", t)
                                 for t in targets(root))


def main():
    failed, checked = [], 0
    trees = sorted(f[:-7] for f in os.listdir(TREES) if f.endswith(".tar.gz"))
    if not trees:
        print(f"no trees in {TREES}")
        return 1
    for name in trees:
        with tempfile.TemporaryDirectory(prefix=f"golden-{name}-") as root:
            with tarfile.open(os.path.join(TREES, name + ".tar.gz")) as tar:
                tar.extractall(root)
            for what, got in outputs(root):
                path = os.path.join(GOLDEN, name, what)
                checked += 1
                if UPDATE:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w") as f:
                        f.write(got)
                    continue
                try:
                    with open(path) as f:
                        want = f.read()
                except FileNotFoundError:
                    want = ""
                if got != want:
                    failed.append(f"{name}/{what}")
                    sys.stdout.writelines(difflib.unified_diff(
                        want.splitlines(True), got.splitlines(True), f"expected {name}/{what}",
                        f"scsi-scan on {name}", n=2))
    print(f"golden: {len(trees)} trees, {checked - len(failed)} of {checked} outputs as "
          f"expected{' (written)' if UPDATE else ''}")
    for f in failed:
        print(f"FAIL {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
