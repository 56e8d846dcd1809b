#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut initqueue/settled hook: attach SCSI devices when the kernel does not
# (scsi_mod.scan=manual). Attached LUNs are left alone, so running on every
# pass of the main loop is cheap, and hosts that come up late are found.

[ "$(cat /sys/module/scsi_mod/parameters/scan 2>/dev/null)" = manual ] || exit 0
command -v scsi-scan >/dev/null || exit 0
modprobe -q sg
scsi-scan --wait >>/run/scsi-scan.log 2>&1
exit 0
