/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codes.h - why the scan did what it did, as one closed set of codes: the
 * planner's actions and ends, how a target was reached and found, what
 * became of each LUN. Reports and JSON carry their names (stable tokens for
 * scripts); decisions compare the codes, never their text.
 */
#ifndef SCSI_SCAN_CODES_H
#define SCSI_SCAN_CODES_H

/**
 * enum scan_code - a reason, as a code; scan_code_name() gives its token
 * @SC_NONE: no reason (JSON null)
 */
enum scan_code {
	SC_NONE,
	/* the planner's actions and skips */
	SC_REPORT_LUNS,
	SC_LISTED,
	SC_SEQUENTIAL,
	SC_SELECTED,
	SC_UNLISTED,
	SC_MASKED,
	SC_MAX_LUN,
	SC_NOLUN,
	/* how the planner's scan of a target ends */
	SC_ATTACH_FALSE,
	SC_MAX_LUN_0,
	SC_LIST_DONE,
	SC_UNLISTED_DONE,
	SC_GAP,
	SC_HOST_LIMIT,
	SC_SEQUENTIAL_END,
	SC_SELECTED_ONLY,
	SC_GHOSTS,
	SC_DONE,
	/* how the planner finds LUNs */
	SC_NOREPORTLUN,
	SC_SCSI_1,
	SC_SCSI_2,
	SC_USB,
	SC_REPORTLUN2,
	SC_SCSI_3,
	SC_REPORT_LUNS_FAILED,
	/* how a target is reached, or why it is reported without a scan */
	SC_LUN0_ATTACHED,
	SC_LUN0,
	SC_ATTACHED_BEFORE,
	SC_WLUN,
	SC_POLICY_LUN,
	SC_KNOWN_LUN,
	SC_KERNEL_SCAN,
	SC_SELECTED_REFUSED,
	SC_POLICY_ALLOWS_NONE,
	SC_UNREACHABLE_RESTRICTED,
	SC_NO_LUN_ANSWERED,
	SC_WRITE_FAILED,
	SC_STOPPED,
	SC_NOT_A_TARGET,
	SC_LIMIT,
	/* what becomes of the LUN a target was reached through */
	SC_REACH_ONLY,
	SC_LOOK_ONLY,
	SC_REFUSED_BY_TYPE,
	SC_KEEP,
	/* what became of a LUN */
	SC_ALREADY_ATTACHED,
	SC_REACHED_THROUGH,
	SC_KERNEL_SCAN_UNDONE,
	SC_KERNEL_SCAN_UNCHECKED,
	SC_NO_LONGER_REPORTED,
	SC_REMAPPED,
	SC_BOUND,
	SC_NOT_WRITABLE,
	SC_DELETE_FAILED,
	SC_GHOST,
	SC_GHOST_TARGET,
	/* how discovery came to a target */
	SC_PROBED,
	SC_COUNT
};

/**
 * scan_code_name() - the stable token of a code
 * @c: the code
 *
 * Return: a static string such as "list-done", or NULL for SC_NONE.
 */
const char *scan_code_name(enum scan_code c);

#endif
