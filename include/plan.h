/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plan.h - which LUNs of a target to try, and why: a pure state machine.
 */
#ifndef SCSI_SCAN_PLAN_H
#define SCSI_SCAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codes.h"
#include "lunmask.h"

#define PLAN_REASON_LEN 256

/**
 * struct plan_input - what is known about a target before its LUNs
 * @scsi_level: Linux scsi_level of the LUN that answered (LUN 0, or the
 *	REPORT LUNS well-known LUN when there is no LUN 0)
 * @flags: BLIST_* flags from the quirk database
 * @max_lun: highest LUN to attach from the quirk database, or -1
 * @attach: false if the quirk database forbids attaching any LUN
 * @max_luns: the scsi_mod max_luns parameter (sequential scan bound)
 * @driver: the host's driver (proc_name), or NULL: usb-storage and uas
 *	never take REPORT LUNS (they set starget->no_report_luns)
 * @lun0_present: LUN 0 answered as a device
 * @has_only_lun: only one LUN was asked for (a selector with a LUN)
 * @only_lun: that LUN
 * @probe_lun: the LUN the target was reached through, attached already
 * @mask: the lunmask entries that apply to the target, or NULL: a LUN
 *	they refuse is skipped, whatever the method
 * @attach_ghosts: a LUN that is another LUN of the target answering again
 *	(ghost_judge()) does not end the scan
 * @investigate: gather evidence about the device (scsi-quirks suggest): a
 *	sequential scan goes on past gaps, and on a SCSI-2 target without
 *	largelun to LUN 15, past the kernel's LUN 7
 */
struct plan_input {
	int scsi_level;
	uint64_t flags;
	long long max_lun;
	bool attach;
	uint64_t max_luns;
	const char *driver;
	bool lun0_present;
	bool has_only_lun;
	uint64_t only_lun;
	uint64_t probe_lun;
	const struct lunmask_set *mask;
	bool attach_ghosts;
	bool investigate;
};

/**
 * enum plan_action_kind - what the apply loop does next
 * @PLAN_REPORT_LUNS: send REPORT LUNS, answer with PLAN_OUT_REPORT_LUNS or
 *	PLAN_OUT_FAILED
 * @PLAN_PROBE: attach this LUN, answer with PLAN_OUT_PRESENT,
 *	PLAN_OUT_ABSENT or PLAN_OUT_LIMIT
 * @PLAN_SKIP: record that this LUN is left alone; no outcome is needed
 * @PLAN_DONE: the target is finished
 */
enum plan_action_kind {
	PLAN_REPORT_LUNS,
	PLAN_PROBE,
	PLAN_SKIP,
	PLAN_DONE,
};

/**
 * struct plan_action - one step
 * @kind: what to do
 * @lun: the LUN for PLAN_PROBE and PLAN_SKIP
 * @masked: for PLAN_SKIP, the lunmask policy refused the LUN (the apply
 *	loop also looks whether it is attached now)
 * @ghosts: for PLAN_DONE, the scan ends on ghost LUNs: the apply loop
 *	detaches what it attached besides the LUN the target was reached
 *	through
 * @code: why: SC_REPORT_LUNS, SC_LISTED, SC_SEQUENTIAL, SC_SELECTED,
 *	SC_UNLISTED (actions); SC_MASKED, SC_MAX_LUN, SC_NOLUN (skips);
 *	SC_ATTACH_FALSE, SC_NOLUN, SC_MAX_LUN_0, SC_LIST_DONE,
 *	SC_UNLISTED_DONE, SC_GAP, SC_HOST_LIMIT, SC_SEQUENTIAL_END,
 *	SC_SELECTED_ONLY, SC_GHOSTS (ends)
 * @reason: why, for people (explain, logs)
 */
struct plan_action {
	enum plan_action_kind kind;
	uint64_t lun;
	bool masked;
	bool ghosts;
	enum scan_code code;
	char reason[PLAN_REASON_LEN];
};

/**
 * enum plan_outcome_kind - what came of the last action
 * @PLAN_OUT_NONE: no outcome (first step, or after PLAN_SKIP)
 * @PLAN_OUT_PRESENT: the LUN is attached (now or before)
 * @PLAN_OUT_ABSENT: the kernel attached nothing at that LUN
 * @PLAN_OUT_LIMIT: the scan write failed with EINVAL: past the host's limit
 * @PLAN_OUT_REPORT_LUNS: REPORT LUNS answered; see @luns
 * @PLAN_OUT_FAILED: REPORT LUNS failed
 */
enum plan_outcome_kind {
	PLAN_OUT_NONE,
	PLAN_OUT_PRESENT,
	PLAN_OUT_ABSENT,
	PLAN_OUT_LIMIT,
	PLAN_OUT_REPORT_LUNS,
	PLAN_OUT_FAILED,
};

/**
 * struct plan_outcome - the result fed back to plan_step()
 * @kind: what happened
 * @luns: for PLAN_OUT_REPORT_LUNS, the listed LUNs (Linux integers)
 * @count: how many
 * @why: for PLAN_OUT_FAILED, the error in words
 * @ghost: for PLAN_OUT_PRESENT, the LUN was attached now and is another LUN
 *	of the target answering again
 * @ghost_of: that other LUN
 */
struct plan_outcome {
	enum plan_outcome_kind kind;
	const uint64_t *luns;
	size_t count;
	const char *why;
	bool ghost;
	uint64_t ghost_of;
};

/**
 * enum plan_method - how the target's LUNs are found
 * @PLAN_METHOD_NONE: no LUN beyond the first is tried
 * @PLAN_METHOD_REPORT_LUNS: the device lists them
 * @PLAN_METHOD_SEQUENTIAL: LUN 1, 2, ... are tried in turn
 * @PLAN_METHOD_SELECTED: only the LUN asked for
 */
enum plan_method {
	PLAN_METHOD_NONE,
	PLAN_METHOD_REPORT_LUNS,
	PLAN_METHOD_SEQUENTIAL,
	PLAN_METHOD_SELECTED,
};

/**
 * struct plan - the state of one target's plan; fields are private
 */
struct plan {
	struct plan_input in;
	int state;
	enum plan_method method;
	enum scan_code method_code;
	char method_reason[PLAN_REASON_LEN];
	uint64_t *luns;
	size_t count;
	size_t next;
	uint64_t seq_next;
	uint64_t seq_limit;
	char limit_reason[PLAN_REASON_LEN];
	uint64_t last_probe;
	bool batch_decided;
};

/**
 * plan_init() - start a plan
 * @p: the plan
 * @in: what is known about the target
 */
void plan_init(struct plan *p, const struct plan_input *in);

/**
 * plan_step() - the next action
 * @p: the plan
 * @last: the outcome of the previous action (PLAN_OUT_NONE at first)
 * @next: the action to take
 *
 * Mirrors scsi_report_lun_scan() and scsi_sequential_lun_scan(), with the
 * quirk database instead of the kernel's table, and three differences on
 * purpose: nolun keeps a target at LUN 0 at every SCSI level, max_lun /
 * attach from the database are honoured, a LUN the lunmask policy
 * refuses is skipped (before any quirk rule is looked at), and a LUN that
 * turns out to be another one answering again (a ghost) ends the scan of
 * the target, which then keeps only the LUN it was reached through,
 * unless @attach_ghosts.
 *
 * Return: 0, or -ENOMEM (copying a REPORT LUNS list).
 */
int plan_step(struct plan *p, const struct plan_outcome *last, struct plan_action *next);

/**
 * plan_method() - how the plan finds LUNs, once decided
 * @p: the plan
 * @ret_reason: set to the reason in words
 * @ret_code: set to the reason as a code (SC_NOREPORTLUN, SC_SCSI_1,
 *	SC_SCSI_2, SC_USB, SC_SCSI_3, SC_REPORTLUN2, SC_REPORT_LUNS_FAILED,
 *	SC_NOLUN, SC_MAX_LUN_0, SC_SELECTED), or SC_NONE
 *
 * Return: the method (PLAN_METHOD_NONE until the first step).
 */
enum plan_method plan_method(const struct plan *p, const char **ret_reason,
			     enum scan_code *ret_code);

/**
 * plan_driver_takes_report_luns() - whether a host's driver passes REPORT
 *	LUNS on
 * @driver: the host's proc_name, or NULL
 *
 * Return: false for usb-storage and uas (the kernel sets
 * starget->no_report_luns for them), true otherwise.
 */
bool plan_driver_takes_report_luns(const char *driver);

/**
 * struct plan_reach_input - the LUN a target was reached through
 * @probe_lun: that LUN
 * @temporary: it is the REPORT LUNS well-known LUN, attached for the scan
 * @lun0_new: it is LUN 0, attached by this scan
 * @probe_new: it is a LUN the policy names, attached by this scan
 * @look: a dry run attached it to read a target with nothing attached
 * @attach: the target's entries let its LUNs attach (attach = false: not)
 * @lun0_attach: LUN 0's own entries let it attach (an entry with a type
 *	refuses an array's management LUN)
 * @refusal: when not, the entry that refuses it, in words
 * @has_only_lun: only one LUN was asked for
 * @only_lun: that LUN
 */
struct plan_reach_input {
	uint64_t probe_lun;
	bool temporary;
	bool lun0_new;
	bool probe_new;
	bool look;
	bool attach;
	bool lun0_attach;
	const char *refusal;
	bool has_only_lun;
	uint64_t only_lun;
};

/**
 * struct plan_reach_fate - what becomes of that LUN
 * @detach: it was attached only to reach the target: it goes when the
 *	target is done (it is no line of the report before then)
 * @code: why: SC_REACH_ONLY, SC_LOOK_ONLY, SC_REFUSED_BY_TYPE,
 *	SC_ATTACH_FALSE or SC_KEEP
 * @reason: why, in words, for the report's line of the LUN
 * @reach: for the target's "reached:", or ""
 */
struct plan_reach_fate {
	bool detach;
	enum scan_code code;
	char reason[PLAN_REASON_LEN];
	char reach[PLAN_REASON_LEN];
};

/**
 * plan_reach_fate() - whether the LUN a target was reached through stays
 * @in: what is known about it
 * @ret: the decision
 *
 * The well-known LUN always goes; LUN 0 attached by this scan goes when the
 * target's entries say attach = false, when its own entries refuse it (it
 * was the way in to the target's other LUNs), and when one other LUN was
 * asked for. A LUN attached before the scan stays.
 */
void plan_reach_fate(const struct plan_reach_input *in, struct plan_reach_fate *ret);

/* Listed LUNs left below which one kernel target scan is not worth it. */
#define PLAN_BATCH_MIN 16

/**
 * struct plan_batch_input - what the apply loop knows when the rest of a
 *	REPORT LUNS list could be left to one kernel target scan
 * @through_lun0: the target was reached through LUN 0 and keeps it (the
 *	kernel's target scan starts at LUN 0 and gives up without it)
 * @dry_run: nothing is written
 * @per_lun_refusal: the database has entries that could refuse single
 *	LUNs by their own INQUIRY data (type, revision)
 * @probed: listed LUNs attached one by one so far, beyond LUN 0
 * @slowest_ms: the longest of those probes took, in ms
 * @ms_left: what the scan's time bounds leave, in ms, or -1 for none
 */
struct plan_batch_input {
	bool through_lun0;
	bool dry_run;
	bool per_lun_refusal;
	unsigned int probed;
	uint64_t slowest_ms;
	long long ms_left;
};

/**
 * enum plan_batch_kind - how the rest of a REPORT LUNS list is attached
 * @PLAN_BATCH_NONE: LUN by LUN, each write asked by the plan in turn
 * @PLAN_BATCH_TARGET: one kernel target scan ("C T -" in the scan file)
 * @PLAN_BATCH_LUNS: one write per LUN the policy allows, all handed over
 *	at once (plan_batch_luns()); a LUN it refuses is never written
 */
enum plan_batch_kind {
	PLAN_BATCH_NONE,
	PLAN_BATCH_TARGET,
	PLAN_BATCH_LUNS,
};

/**
 * plan_batch() - whether the rest of the list is attached in one go
 *	instead of one write per LUN asked in turn
 * @p: the plan; its last action is a probe of a listed LUN
 * @in: what the apply loop knows
 * @why: set to the reason either way (PLAN_REASON_LEN bytes)
 *
 * Only when nothing of ours could refuse a listed LUN by what it answers
 * (no quirk flag, max_lun or per-LUN entry, no selected LUN, no
 * investigation). Without a lunmask entry for the target, the kernel's scan
 * of the target then attaches the listed LUNs that answer, as our writes
 * one by one would, in one write instead of one per LUN, and gives up at
 * the first LUN that does not respond. With one, the policy decides by the
 * LUN's number alone: the LUNs it allows are written one by one, in one
 * hand-over, and the kernel's target scan is never used, since it would
 * attach a refused LUN for a moment. One listed LUN is first attached on
 * its own, so that a target answering with ghosts is caught before the
 * rest are attached, and its time, times the LUNs left, must fit the time
 * the scan's bounds leave. The plan still walks the list: a LUN the batch
 * left out is tried on its own, a ghost still ends the scan. Decided once
 * per plan.
 *
 * Return: how the LUNs left are attached before the next probe.
 */
enum plan_batch_kind plan_batch(struct plan *p, const struct plan_batch_input *in, char *why);

/**
 * plan_batch_luns() - the LUNs a PLAN_BATCH_LUNS hand-over writes
 * @p: the plan, right after plan_batch() chose PLAN_BATCH_LUNS
 * @luns: filled with them in the list's order (room for the list's count)
 *
 * The listed LUN being probed and those after it, less LUN 0 when present
 * and the LUNs the policy refuses.
 *
 * Return: how many.
 */
size_t plan_batch_luns(const struct plan *p, uint64_t *luns);

/**
 * plan_free() - free what a plan holds
 * @p: the plan
 */
void plan_free(struct plan *p);

#endif
