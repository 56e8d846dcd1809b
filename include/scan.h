/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan.h - scanning hosts and targets: discover, probe, plan, apply.
 */
#ifndef SCSI_SCAN_SCAN_H
#define SCSI_SCAN_SCAN_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "discover.h"
#include "reach.h"
#include "identity.h"
#include "inquiry.h"
#include "lunmask.h"
#include "plan.h"
#include "quirks.h"
#include "sysfs.h"

/**
 * struct selector - which hosts, channels, targets and LUN to scan
 * @host: host number, or SCAN_WILDCARD
 * @channel: channel, or SCAN_WILDCARD
 * @id: target id, or SCAN_WILDCARD
 * @lun_set: a single LUN is selected
 * @lun: that LUN
 */
struct selector {
	int host;
	int channel;
	int id;
	bool lun_set;
	uint64_t lun;
};

/**
 * selector_parse() - parse "hostN" or "H[:C[:T[:L]]]", any field "-"
 * @s: the text
 * @ret: the selector, written only on success
 *
 * Return: 0, or -EINVAL if the text is not a selector.
 */
int selector_parse(const char *s, struct selector *ret);

/**
 * selector_match() - whether a selector names a device
 * @sel: the selector
 * @a: the device's H:C:T:L
 *
 * Return: true if every field of @sel is a wildcard or equals @a's.
 */
bool selector_match(const struct selector *sel, const struct scsi_addr *a);

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
 * @code: why, as a stable token (the planner's action codes, plan.h, or
 *	"lun0", "already-attached", "reached-through", "kernel-scan",
 *	"kernel-scan-undone", "refused-by-type", "reach-only",
 *	"attach-false", "no-longer-reported", "host-limit", "bound",
 *	"not-writable", "write-failed", "delete-failed", "ghost",
 *	"ghost-target"), or NULL
 * @reason: why, for people
 */
struct lun_report {
	uint64_t lun;
	enum lun_outcome outcome;
	const char *code;
	char reason[PLAN_REASON_LEN];
};

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
 * struct target_report - what happened to one target
 * @addr: host, channel, id (lun unused)
 * @failed: the scan of this target did not finish
 * @error: why, when @failed
 * @retry_later: the transport lists the target but it cannot be reached
 *	yet (an iSCSI session still logging in, an FC port blocked or without
 *	a target id): a later scan may reach it
 * @found_reason: how discovery came to this target (listed by the
 *	transport's topology, or probed)
 * @found_code: the same as a token: "listed" or "probed"
 * @reach_reason: how its LUNs were reached when LUN 0 is absent, or empty
 * @reach_code: how it was reached, as a token (reach_step()), or NULL
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
 * @inquiry_source: "SG_IO" or the fallback used
 * @match: the quirk database's answer for the device, from the INQUIRY of
 *	the LUN it was reached through (the target's scan rules)
 * @target_attach: @match's attach from entries without a type: false skips
 *	the whole target; entries with a type decide per LUN, from each LUN's
 *	own INQUIRY
 * @mask: the lunmask entries that apply to the target (pointers into the
 *	quirk database)
 * @policy: those entries in words (title, file:line), or empty
 * @method: how LUNs were found
 * @method_code: why that way, as a token (plan_method())
 * @method_reason: why that way
 * @end_code: why the scan of the target ended, as a token (plan.h)
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
 */
struct target_report {
	struct scsi_addr addr;
	bool failed;
	char error[256];
	bool retry_later;
	char found_reason[DISCOVER_REASON_LEN];
	const char *found_code;
	char reach_reason[REACH_REASON_LEN];
	const char *reach_code;
	uint64_t probe_lun;
	bool probe_new;
	uint64_t *kernel_luns;
	size_t nkernel_luns;
	bool *kernel_kept;
	bool has_inquiry;
	struct inquiry inq;
	const char *inquiry_source;
	struct quirk_match match;
	bool target_attach;
	struct lunmask_set mask;
	char policy[PLAN_REASON_LEN];
	enum plan_method method;
	const char *method_code;
	char method_reason[PLAN_REASON_LEN];
	const char *end_code;
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
	struct ghost_report *ghosts;
	size_t nghosts;
	bool ghost_stop;
	uint64_t ghost_kept;
	bool unknown_identity;
	bool batched;
	char batch_reason[PLAN_REASON_LEN];
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
 * struct scan_options - how to scan
 * @dry_run: write nothing; only targets with an attached LUN are looked at
 * @remove: delete attached LUNs that REPORT LUNS no longer lists
 * @force: with @remove, delete them even when in use
 * @inquiry_timeout: seconds for INQUIRY
 * @report_luns_timeout: seconds for REPORT LUNS
 * @lock_wait: wait for the host lock instead of failing
 * @host_timeout: seconds one host's scan may take; past it the target being
 *	scanned and the host fail (0: no bound)
 * @target_timeout: seconds one target's scan may take; past it the target
 *	fails and the next one is scanned (0: no bound)
 * @time_limit: seconds the whole run may take, from @deadline_ms on
 *	CLOCK_MONOTONIC (0: no bound); past it the host being scanned and
 *	every host after it fail
 * @deadline_ms: when @time_limit ends, in CLOCK_MONOTONIC milliseconds
 * @attach_ghosts: attach LUNs whose identity repeats another LUN's (they
 *	are still reported)
 * @investigate: gather evidence for scsi-quirks suggest: ghosts do not
 *	stop the scan, LUNs attached before are compared too, sequential
 *	scans go past gaps and past LUN 7 of SCSI-2 targets (plan_input), and
 *	every LUN the scan attached is detached again when the host is done
 */
struct scan_options {
	bool dry_run;
	bool remove;
	bool force;
	unsigned int inquiry_timeout;
	unsigned int report_luns_timeout;
	bool lock_wait;
	unsigned int host_timeout;
	unsigned int target_timeout;
	unsigned int time_limit;
	uint64_t deadline_ms;
	bool attach_ghosts;
	bool investigate;
};

/* Scan writes one target's scan may issue, and one host's. */
#define SCAN_TARGET_WRITES_MAX 65536
#define SCAN_HOST_WRITES_MAX 262144

/* Default bounds on time, in seconds. */
#define SCAN_HOST_TIMEOUT_DEFAULT 900
#define SCAN_TARGET_TIMEOUT_DEFAULT 300

/* Default command timeouts, in seconds (the kernel's scan uses 20 s and
 * 30 s: SCSI_TIMEOUT + 4 HZ and scsi_report_lun_scan()). */
#define SCAN_INQUIRY_TIMEOUT 20
#define SCAN_REPORT_LUNS_TIMEOUT 30

/**
 * struct scan_ctx - what a scan needs
 * @sys: the path context
 * @db: the quirk database, finalized
 * @opt: options
 * @cancel: if set and true, the scan stops at its next step: the target
 *	being scanned and its host are reported as cancelled
 * @log: if set, progress while the scan runs (debug priority: each host's
 *	discovery, each target found and how its scan ended), from the
 *	thread that scans
 * @log_data: passed to @log
 */
struct scan_ctx {
	const struct sysfs_ctx *sys;
	const struct quirk_db *db;
	struct scan_options opt;
	const atomic_bool *cancel;
	void (*log)(void *data, int priority, const char *fmt, va_list ap);
	void *log_data;
};

/**
 * scan_selected() - scan what a selector names
 * @ctx: the scan context
 * @sel: the selector
 * @rep: the report, appended to
 *
 * Per host: take the host lock, find targets (from the transport's
 * topology, or by probing ids: discover.h), reach each (LUN 0 through the
 * scan file; without LUN 0, the REPORT LUNS well-known LUN; where that
 * attaches nothing, the kernel's scan of that one target), then scan it.
 * Every scan ends: writes and time per host and target are bounded.
 *
 * Return: 0 (failures of single hosts or targets are in @rep), -ENODEV if
 * a selected host does not exist, -ECANCELED if @ctx->cancel was set (the
 * hosts scanned so far are in @rep), -ENOMEM.
 */
int scan_selected(const struct scan_ctx *ctx, const struct selector *sel, struct scan_report *rep);

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

#endif
