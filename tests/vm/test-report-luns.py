#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""REPORT LUNS at the limit, on the real kernel: one scsi_debug host of
16,383 LUNs (max_luns at its largest; no_uld=1, so no sd per LUN), scanned
by scsi-scan under scsi_mod.scan=manual. Linux 6.x has no max_report_luns
(it was 16,383 by default) and takes a list of any length; scsi-scan must
take the whole list too (about 131 KiB, past its first 4 KiB buffer) and
attach every LUN, the last one included. With no quirk in the way,
scsi-scan attaches the first LUNs itself and leaves the rest of the list to
one "C T -" write (scsi-scan(8), ONE WRITE FOR A TARGET), so the kernel's
own REPORT LUNS scan of the 16,383 runs in the same test.

usage: test-report-luns.py BUILD_DIR KERNEL_SERIES
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402

BUILD, SERIES = sys.argv[1], sys.argv[2]
LUNS = 16383

SCRIPT = f"""
insmod /lib/test-modules/scsi_debug.ko add_host=1 delay=0 max_luns={LUNS} no_uld=1 scsi_level=7
h=$(ls /sys/class/scsi_host | sed 's/host//' | head -1)
read t0 _ < /proc/uptime
scsi-scan -v host$h > /tmp/scan.txt 2>&1; rc=$?
read t1 _ < /proc/uptime
echo "@@R rc=$rc attached=$(ls -d /sys/bus/scsi/devices/$h:* | wc -l) s=$t0-$t1"
# scsi_debug numbers LUNs past 255 in the flat space (0x4000 | n): the last
# one of {LUNS} is 16384 + {LUNS - 1}
echo "@@R last=$(ls -d /sys/bus/scsi/devices/$h:0:0:{16384 + LUNS - 1} 2>/dev/null | wc -l)"
grep -E 'REPORT LUNS|buffer|bytes' /tmp/scan.txt | head -5 | sed 's/^/@@L /'
"""


def main():
    checks = vmlib.Checks(SERIES, "report-luns")
    _, out = vmlib.run_guest(BUILD, SERIES, vmlib.BASE_MODULES, SCRIPT, timeout=1500,
                             what=f"scsi_debug {LUNS} LUNs")
    r = re.search(r"^@@R rc=(\d+) attached=(\d+) s=([0-9.]+)-([0-9.]+)", out, re.M)
    last = re.search(r"^@@R last=(\d+)", out, re.M)
    said = "\n".join(re.findall(r"^@@L (.*)$", out, re.M))
    secs = float(r.group(4)) - float(r.group(3)) if r else -1
    checks.check("16383 LUNs", bool(r) and r.group(1) == "0" and r.group(2) == str(LUNS) and
                 bool(last) and last.group(1) == "1" and f"{LUNS} attached" in said,
                 f"scsi-scan exit {r.group(1) if r else '-'}, {r.group(2) if r else '-'} LUNs "
                 f"attached in {secs:.0f} s, the last LUN (0x{0x4000 + LUNS - 1:x}) "
                 f"{'there' if last and last.group(1) == '1' else 'missing'}: {said[:300]}")
    return checks.finish(out)


if __name__ == "__main__":
    vmlib.main_guard(main)
