/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - what a scan did: per host, target and LUN, with the reasons,
 * for the printers (output.h), the daemon's log and the exit status.
 */
#ifndef SCSI_SCAN_REPORT_H
#define SCSI_SCAN_REPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codes.h"
#include "discover.h"
#include "handler.h"
#include "identity.h"
#include "inquiry.h"
#include "lunmask.h"
#include "plan.h"
#include "quirks.h"
#include "reach.h"
#include "scsi-addr.h"

/**
 * enum lun_outcome - what happened to one LUN
 * @LUN_ATTACHED: attached now, and seen in sysfs afterwards
 * @LUN_PRESENT: was attached already; left alone
 * @LUN_ABSENT: probed, nothing attached (no LU there)
 * @LUN_SKIPPED: not probed, on purpose (quirk database)
 * @LUN_LIMIT: past the host's LUN limit (scan write gave EINVAL)
 * @LUN_FAILED: the attempt failed
 * @LUN_WOULD_PROBE: dry run: would be probed
 * @LUN_REMOVED: no longer reported, deleted (--remove)
 * @LUN_WOULD_REMOVE: dry run: would be deleted
 * @LUN_IN_USE: no longer reported, but in use: kept
 * @LUN_DETACHED: attached by this scan only to probe the target, removed
 *	again (the REPORT LUNS well-known LUN, or LUN 0 of attach = false)
 */
enum lun_outcome {
	LUN_ATTACHED,
	LUN_PRESENT,
	LUN_ABSENT,
	LUN_SKIPPED,
	LUN_LIMIT,
	LUN_FAILED,
	LUN_WOULD_PROBE,
	LUN_REMOVED,
	LUN_WOULD_REMOVE,
	LUN_IN_USE,
	LUN_DETACHED,
};

/**
 * struct lun_report - one LUN's line in a target's report
 * @lun: the LUN
 * @outcome: what happened
 * @code: why, as a code (codes.h; JSON gives its token)
 * @reason: why, for people: a text of its target's report (@texts of
 *	struct target_report), shared by lines that say the same
 *
 * A target of 16,384 LUNs has as many lines, mostly with one of a few
 * reasons: each line keeps a pointer, not its own copy.
 */
struct lun_report {
	uint64_t lun;
	enum lun_outcome outcome;
	enum scan_code code;
	const char *reason;
};

struct report_text_block;

/* Texts of LUN lines the report remembers, to share a repeated one. */
#define REPORT_RECENT_TEXTS 4

/**
 * enum inquiry_source - where a target's INQUIRY data came from
 * @INQUIRY_FROM_SGIO: the device answered INQUIRY through SG_IO
 * @INQUIRY_FROM_SYSFS: INQUIRY failed; the copy the kernel keeps in sysfs
 */
enum inquiry_source {
	INQUIRY_FROM_SGIO,
	INQUIRY_FROM_SYSFS,
};

/**
 * inquiry_source_text() - where INQUIRY data came from, in words
 * @s: the source
 *
 * Return: "SG_IO" or "sysfs inquiry attribute (INQUIRY failed)".
 */
const char *inquiry_source_text(enum inquiry_source s);

/**
 * struct ghost_report - a LUN whose identity repeats another LUN's
 * @lun: the LUN
 * @same_as: the LUN of the same target it repeats
 * @evidence: the judgement (GHOST_SAME or GHOST_CONFLICT) and the fields
 *	compared
 */
struct ghost_report {
	uint64_t lun;
	uint64_t same_as;
	struct ghost_evidence evidence;
};

/**
 * struct handler_result - the device handler of one LUN this scan attached
 * @lun: the LUN
 * @step: what its dh_state called for (handler_step())
 * @had: what dh_state read before, or empty if it could not be read
 * @error: with HANDLER_ATTACH, 0 or the negative errno of the write
 */
struct handler_result {
	uint64_t lun;
	enum handler_step step;
	char had[32];
	int error;
};

/**
 * struct target_report - what happened to one target
 * @addr: host, channel, id (lun unused)
 * @failed: the scan of this target did not finish
 * @error: why, when @failed
 * @retry_later: the transport lists the target but it cannot be reached
 *	yet (an iSCSI session still logging in, an FC port blocked or without
 *	a target id): a later scan may reach it
 * @found_reason: how discovery came to this target (listed by the
 *	transport's topology, or probed)
 * @found_code: the same as a code: SC_LISTED or SC_PROBED
 * @reach_reason: how its LUNs were reached when LUN 0 is absent, or empty
 * @reach_code: how it was reached (reach_step()), or SC_NONE
 * @probe_lun: the LUN that commands went through (0, a W-LUN, or another)
 * @probe_new: @probe_lun is a LUN the policy names, attached by this scan
 *	to reach the target (LUN 0 being refused)
 * @kernel_luns: LUNs the kernel's own scan of this target attached, sorted:
 *	for a target without LUN 0 whose REPORT LUNS well-known LUN could not
 *	be used (refused with EINVAL, or nothing attached), or the rest of a
 *	REPORT LUNS list left to one kernel target scan (@batched)
 * @nkernel_luns: how many
 * @kernel_kept: per kernel LUN, whether the database agrees with it
 * @has_inquiry: @inq is valid
 * @inq: its INQUIRY data
 * @inquiry_source: where @inq came from (inquiry_source_text() in words)
 * @match: the quirk database's answer for the device, from the INQUIRY of
 *	the LUN it was reached through (the target's scan rules)
 * @target_attach: @match's attach from entries without a type: false skips
 *	the whole target; entries with a type decide per LUN, from each LUN's
 *	own INQUIRY
 * @mask: the lunmask entries that apply to the target (pointers into the
 *	quirk database)
 * @policy: those entries in words (title, file:line), or empty
 * @method: how LUNs were found
 * @method_code: why that way (plan_method())
 * @method_reason: why that way
 * @end_code: why the scan of the target ended (plan.h, reach.h)
 * @end_reason: why the scan of the target ended
 * @report_read: a REPORT LUNS list was read (@reported may be empty)
 * @reported: REPORT LUNS list, if one was read
 * @nreported: its length
 * @report_complete: @reported is the whole list its header announced (a
 *	transfer cut short twice is not: no LUN is removed on its account)
 * @removal_refused: --remove was asked, but @reported was not whole:
 *	nothing was removed (a failure of the target)
 * @report_luns_failed: REPORT LUNS was sent and failed
 * @report_luns_error: how, in words
 * @luns: every LUN tried, skipped or removed, in order
 * @nluns: how many
 * @alloc: allocated entries of @luns
 * @texts: where the lines' reasons are kept, until report_target_free()
 * @recent: the last distinct reasons kept, shared by a line that says the
 *	same
 * @ghosts: LUNs attached by this scan whose identity repeats another LUN
 *	of the target (ghost LUNs), or names another unit's name (conflicts)
 * @nghosts: how many
 * @ghost_stop: the scan stopped on a ghost LUN and detached what it had
 *	attached besides the LUN the target was reached through: a failure
 *	until the database or --attach-ghosts says how to scan the device
 * @ghost_kept: with @ghost_stop, the LUN kept
 * @unknown_identity: some LUNs compared had identical INQUIRY data and no
 *	serial or designator (GHOST_UNKNOWN): nothing told them apart
 * @batched: the rest of the REPORT LUNS list was attached by one kernel
 *	target scan (plan_batch())
 * @batch_reason: why, in words
 * @handler: the device handler the LUNs this scan attached should have
 * @handlers: what became of each one's handler (dh_state)
 * @nhandlers: how many
 */
struct target_report {
	struct scsi_addr addr;
	bool failed;
	char error[256];
	bool retry_later;
	char found_reason[DISCOVER_REASON_LEN];
	enum scan_code found_code;
	char reach_reason[REACH_REASON_LEN];
	enum scan_code reach_code;
	uint64_t probe_lun;
	bool probe_new;
	uint64_t *kernel_luns;
	size_t nkernel_luns;
	bool *kernel_kept;
	bool has_inquiry;
	struct inquiry inq;
	enum inquiry_source inquiry_source;
	struct quirk_match match;
	bool target_attach;
	struct lunmask_set mask;
	char policy[PLAN_REASON_LEN];
	enum plan_method method;
	enum scan_code method_code;
	char method_reason[PLAN_REASON_LEN];
	enum scan_code end_code;
	char end_reason[PLAN_REASON_LEN];
	bool report_read;
	uint64_t *reported;
	size_t nreported;
	bool report_complete;
	bool removal_refused;
	bool report_luns_failed;
	char report_luns_error[PLAN_REASON_LEN];
	struct lun_report *luns;
	size_t nluns;
	size_t alloc;
	struct report_text_block *texts;
	const char *recent[REPORT_RECENT_TEXTS];
	struct ghost_report *ghosts;
	size_t nghosts;
	bool ghost_stop;
	uint64_t ghost_kept;
	bool unknown_identity;
	bool batched;
	char batch_reason[PLAN_REASON_LEN];
	struct handler_choice handler;
	struct handler_result *handlers;
	size_t nhandlers;
};

/**
 * struct host_report - what happened on one host
 * @host: the host number
 * @failed: the host could not be scanned at all
 * @error: why
 * @transport: where its targets came from
 * @discovery: how discovery went and why it ended
 * @notes: remarks about the discovery, e.g. how targets without LUN 0 were
 *	looked for
 * @targets: the targets found
 * @ntargets: how many
 * @holdout_errors: what made a hold-out file fail to load (file, line,
 *	message): the volume it was to keep out is not held out
 * @holdouts: the hold-outs the scan read (holdout.h), or NULL: the
 *	targets' @mask may point into it, so it lives as long as the report
 */
struct host_report {
	unsigned int host;
	bool failed;
	char error[256];
	enum discover_transport transport;
	char discovery[DISCOVER_REASON_LEN];
	char notes[256];
	struct target_report *targets;
	size_t ntargets;
	struct quirk_diags holdout_errors;
	struct quirk_db *holdouts;
};

/**
 * struct scan_report - the result of a scan
 * @hosts: per host
 * @nhosts: how many
 */
struct scan_report {
	struct host_report *hosts;
	size_t nhosts;
};

/**
 * lun_report_failed() - whether a LUN's outcome means the scan fell short
 * @t: its target
 * @l: the LUN's line
 *
 * Failed writes and deletions, LUNs kept because in use (the scan meant to
 * delete them), and a LUN the host refused (EINVAL) that the device listed
 * or the user selected; not the host's limit that ends a sequential scan.
 *
 * Return: true if it counts as a failure.
 */
bool lun_report_failed(const struct target_report *t, const struct lun_report *l);

/**
 * scan_report_failures() - count hosts, targets and LUNs that failed
 * @rep: the report
 *
 * Return: the count; exit status 1 when it is not 0.
 */
size_t scan_report_failures(const struct scan_report *rep);

/**
 * scan_report_free() - free a report's contents
 * @rep: the report; left empty
 */
void scan_report_free(struct scan_report *rep);

/**
 * lun_outcome_name() - short name of an outcome, for output
 * @o: the outcome
 *
 * Return: a static string such as "attached" or "in-use".
 */
const char *lun_outcome_name(enum lun_outcome o);

/**
 * report_add_lun() - append a LUN's line to a target's report
 * @t: the target's report
 * @lun: the LUN
 * @o: what happened
 * @code: why, as a code
 * @fmt: why, for people (printf)
 *
 * Return: 0 or -ENOMEM.
 */
int report_add_lun(struct target_report *t, uint64_t lun, enum lun_outcome o, enum scan_code code,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/**
 * report_add_lunv() - report_add_lun() with a va_list
 * @t: the target's report
 * @lun: the LUN
 * @o: what happened
 * @code: why, as a code
 * @fmt: why, for people (printf)
 * @ap: its arguments
 *
 * Return: 0 or -ENOMEM.
 */
int report_add_lunv(struct target_report *t, uint64_t lun, enum lun_outcome o, enum scan_code code,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/**
 * report_set_reason() - say something else of a LUN's line
 * @t: the target's report
 * @l: the line, one of @t's
 * @fmt: why, for people (printf); the line's old reason may be among its
 *	arguments
 *
 * Return: 0, or -ENOMEM: the line says it has no reason for that.
 */
int report_set_reason(struct target_report *t, struct lun_report *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * report_fail() - mark a target's scan as not finished, and why
 * @t: the target's report
 * @fmt: why (printf)
 */
void report_fail(struct target_report *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * report_add_target() - append a target to a host's report
 * @h: the host's report
 * @t: the target's report, taken over (its pointers with it)
 *
 * Return: the target's place in @h, or NULL (-ENOMEM; @t is freed).
 */
struct target_report *report_add_target(struct host_report *h, struct target_report *t);

/**
 * report_target_free() - free what a target's report holds
 * @t: the report; left empty
 */
void report_target_free(struct target_report *t);

#endif
