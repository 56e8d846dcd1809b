/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reach.h - how one target is reached, a pure state machine.
 */
#ifndef SCSI_SCAN_REACH_H
#define SCSI_SCAN_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codes.h"
#include "lunmask.h"

/*
 * How one target is reached: the LUN that carries INQUIRY and REPORT LUNS.
 * In order: LUN 0 (attached before, or by a "C T 0" write), another LUN
 * attached before, the REPORT LUNS well-known LUN (49409, attached for the
 * scan and detached after it), the LUNs a lunmask allow list names (when
 * the policy refuses LUN 0), and last the kernel's own scan of the one
 * target ("C T -", never on a target the policy restricts). A pure state
 * machine: the scan writes and looks, and feeds back what it saw.
 */

#define REACH_REASON_LEN 352

/**
 * struct reach_input - what is known before a target is touched
 * @dry_run: nothing is written: only LUNs attached now count
 * @look: with @dry_run, a target with nothing attached may still be read:
 *	LUN 0, the REPORT LUNS well-known LUN or a LUN the policy names is
 *	attached for the look (the target's machine deletes it again); never
 *	the kernel's scan of the target, which would attach every LUN
 * @listed: the transport's topology lists the target (one that answers
 *	nothing is reported, not passed over)
 * @lun0_attached: LUN 0 is attached now
 * @other_attached: another LUN of the target is attached now
 * @other_lun: that LUN
 * @lun0_allowed: the lunmask policy lets LUN 0 attach
 * @lun0_why: when not, why, in words
 * @wlun_excluded: the policy excludes the well-known LUN explicitly
 * @wlun_impossible: this host refused the well-known LUN before (its LUN
 *	limit is below 49409)
 * @allowed: 1 the policy names a short list of LUNs (first_allowed on,
 *	through @mask), 0 it allows no LUN at all, -1 it names no list
 * @first_allowed: with @allowed 1, the first LUN of the list
 * @mask: the policy's entries for the target (lunmask_next_allowed())
 * @restricts: the policy restricts the target (lunmask_restricts())
 * @known: LUNs of the target seen attached earlier this boot (their
 *	identity records), ascending: on a target the policy restricts, where
 *	neither LUN 0 nor the well-known LUN answers, the ones the policy
 *	allows are tried before the target is given up (a hold-out of one LUN
 *	must not take the rest of its target away)
 * @nknown: how many
 * @selected_refused: only one LUN was asked for, the policy refuses it and
 *	it is not attached: reaching the target would be for nothing
 */
struct reach_input {
	bool dry_run;
	bool look;
	bool listed;
	bool lun0_attached;
	bool other_attached;
	uint64_t other_lun;
	bool lun0_allowed;
	const char *lun0_why;
	bool wlun_excluded;
	bool wlun_impossible;
	int allowed;
	uint64_t first_allowed;
	const struct lunmask_set *mask;
	bool restricts;
	const uint64_t *known;
	size_t nknown;
	bool selected_refused;
};

/**
 * enum reach_action_kind - what the scan does next for the target
 * @REACH_WRITE: write "C T @lun" to the host's scan file (with
 *	@kernel_scan, "C T -") and answer with what came of it
 * @REACH_FOUND: the target is reached through @lun: scan it
 * @REACH_NONE: nothing is there: not a target
 * @REACH_REPORT: report the target without scanning it (@failed: as a
 *	failure; code "stopped": with the bound that stopped the scan)
 * @REACH_LIMIT: the channel or id is past the host's limits (EINVAL):
 *	discovery moves on
 * @REACH_ABORT: a write failed on a target nobody listed: the host's scan
 *	ends with @error
 */
enum reach_action_kind {
	REACH_WRITE,
	REACH_FOUND,
	REACH_NONE,
	REACH_REPORT,
	REACH_LIMIT,
	REACH_ABORT,
};

/**
 * struct reach_action - one step
 * @kind: what to do
 * @lun: the LUN to write (REACH_WRITE), or the target is reached through
 *	(REACH_FOUND)
 * @kernel_scan: REACH_WRITE of "C T -": answer with the first LUN the
 *	kernel attached
 * @temporary: REACH_FOUND through the well-known LUN: detach it at the end
 * @lun0_new: REACH_FOUND: LUN 0 was attached by this scan
 * @probe_new: REACH_FOUND through a LUN the policy names, attached now
 * @kernel_luns: REACH_FOUND after the kernel's scan of the target
 * @failed: REACH_REPORT as a failure
 * @wlun_impossible: the host refused the well-known LUN: true for every
 *	later target of the host (a note for the host's report)
 * @error: REACH_ABORT, and REACH_REPORT of a failed write: the errno
 * @code: why: SC_LUN0_ATTACHED, SC_LUN0, SC_ATTACHED_BEFORE, SC_WLUN,
 *	SC_POLICY_LUN, SC_KNOWN_LUN, SC_KERNEL_SCAN (found); SC_SELECTED_REFUSED,
 *	SC_POLICY_ALLOWS_NONE, SC_UNREACHABLE_RESTRICTED, SC_NO_LUN_ANSWERED,
 *	SC_WRITE_FAILED, SC_STOPPED (reports); SC_NOT_A_TARGET, SC_LIMIT
 * @reason: why, in words (REACH_FOUND: how it was reached, or ""; REACH_REPORT:
 *	the target's end reason or failure)
 */
struct reach_action {
	enum reach_action_kind kind;
	uint64_t lun;
	bool kernel_scan;
	bool temporary;
	bool lun0_new;
	bool probe_new;
	bool kernel_luns;
	bool failed;
	bool wlun_impossible;
	int error;
	enum scan_code code;
	char reason[REACH_REASON_LEN];
};

/**
 * enum reach_outcome_kind - what came of the last REACH_WRITE
 * @REACH_OUT_NONE: no outcome (first step)
 * @REACH_OUT_ATTACHED: the LUN written is attached now (for "C T -": the
 *	kernel attached at least one LUN of the target, @lun the first)
 * @REACH_OUT_EMPTY: the write worked, nothing is attached
 * @REACH_OUT_EINVAL: the host refused the write with EINVAL
 * @REACH_OUT_ERROR: another error (@error), or a bound stopped the scan
 *	(@stopped)
 */
enum reach_outcome_kind {
	REACH_OUT_NONE,
	REACH_OUT_ATTACHED,
	REACH_OUT_EMPTY,
	REACH_OUT_EINVAL,
	REACH_OUT_ERROR,
};

/**
 * struct reach_outcome - fed back to reach_step()
 * @kind: what happened
 * @lun: REACH_OUT_ATTACHED of the kernel's scan: the first LUN it attached
 * @error: REACH_OUT_ERROR: the negative errno
 * @stopped: REACH_OUT_ERROR: a bound of the scan, not the kernel
 * @max_lun_ok: the highest LUN this host has taken so far, or -1: EINVAL
 *	for a LUN at or below it means the channel or id is past the limits
 */
struct reach_outcome {
	enum reach_outcome_kind kind;
	uint64_t lun;
	int error;
	bool stopped;
	long long max_lun_ok;
};

/**
 * struct reach - the state of reaching one target; fields are private
 */
struct reach {
	struct reach_input in;
	int state;
	uint64_t lun;
	size_t known;
	bool wlun_impossible;
	const char *wlun_result;
};

/**
 * reach_init() - start reaching a target
 * @r: the state
 * @in: what is known; its pointers must outlive @r
 */
void reach_init(struct reach *r, const struct reach_input *in);

/**
 * reach_step() - the next step
 * @r: the state
 * @last: what came of the last REACH_WRITE (REACH_OUT_NONE at first)
 * @next: what to do
 */
void reach_step(struct reach *r, const struct reach_outcome *last, struct reach_action *next);

#endif
