// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * codes.c - the tokens of the scan's reason codes. No I/O.
 */
#include <stddef.h>

#include "codes.h"

const char *scan_code_name(enum scan_code c)
{
	static const char *const names[SC_COUNT] = {
		[SC_REPORT_LUNS] = "report-luns",
		[SC_LISTED] = "listed",
		[SC_SEQUENTIAL] = "sequential",
		[SC_SELECTED] = "selected",
		[SC_UNLISTED] = "unlisted",
		[SC_MASKED] = "masked",
		[SC_MAX_LUN] = "max-lun",
		[SC_NOLUN] = "nolun",
		[SC_ATTACH_FALSE] = "attach-false",
		[SC_MAX_LUN_0] = "max-lun-0",
		[SC_LIST_DONE] = "list-done",
		[SC_UNLISTED_DONE] = "unlisted-done",
		[SC_GAP] = "gap",
		[SC_HOST_LIMIT] = "host-limit",
		[SC_SEQUENTIAL_END] = "sequential-end",
		[SC_SELECTED_ONLY] = "selected-only",
		[SC_GHOSTS] = "ghosts",
		[SC_DONE] = "done",
		[SC_NOREPORTLUN] = "noreportlun",
		[SC_SCSI_1] = "scsi-1",
		[SC_SCSI_2] = "scsi-2",
		[SC_USB] = "usb",
		[SC_REPORTLUN2] = "reportlun2",
		[SC_SCSI_3] = "scsi-3",
		[SC_REPORT_LUNS_FAILED] = "report-luns-failed",
		[SC_LUN0_ATTACHED] = "lun0-attached",
		[SC_LUN0] = "lun0",
		[SC_ATTACHED_BEFORE] = "attached-before",
		[SC_WLUN] = "wlun",
		[SC_POLICY_LUN] = "policy-lun",
		[SC_KNOWN_LUN] = "known-lun",
		[SC_KERNEL_SCAN] = "kernel-scan",
		[SC_SELECTED_REFUSED] = "selected-refused",
		[SC_POLICY_ALLOWS_NONE] = "policy-allows-none",
		[SC_UNREACHABLE_RESTRICTED] = "unreachable-restricted",
		[SC_NO_LUN_ANSWERED] = "no-lun-answered",
		[SC_WRITE_FAILED] = "write-failed",
		[SC_STOPPED] = "stopped",
		[SC_NOT_A_TARGET] = "none",
		[SC_LIMIT] = "limit",
		[SC_REACH_ONLY] = "reach-only",
		[SC_LOOK_ONLY] = "look-only",
		[SC_REFUSED_BY_TYPE] = "refused-by-type",
		[SC_KEEP] = "keep",
		[SC_ALREADY_ATTACHED] = "already-attached",
		[SC_REACHED_THROUGH] = "reached-through",
		[SC_KERNEL_SCAN_UNDONE] = "kernel-scan-undone",
		[SC_KERNEL_SCAN_UNCHECKED] = "kernel-scan-unchecked",
		[SC_NO_LONGER_REPORTED] = "no-longer-reported",
		[SC_REMAPPED] = "remapped",
		[SC_BOUND] = "bound",
		[SC_NOT_WRITABLE] = "not-writable",
		[SC_DELETE_FAILED] = "delete-failed",
		[SC_GHOST] = "ghost",
		[SC_GHOST_TARGET] = "ghost-target",
		[SC_PROBED] = "probed",
	};

	return (unsigned int)c < SC_COUNT ? names[c] : NULL;
}
