/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scan.h - scanning hosts and targets: discover, probe, plan, apply.
 */
#ifndef SCSI_SCAN_SCAN_H
#define SCSI_SCAN_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inquiry.h"
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
 * @reason: why
 */
struct lun_report {
	uint64_t lun;
	enum lun_outcome outcome;
	char reason[PLAN_REASON_LEN];
};

/**
 * struct target_report - what happened to one target
 * @addr: host, channel, id (lun unused)
 * @failed: the scan of this target did not finish
 * @error: why, when @failed
 * @probe_lun: the LUN that commands went through (0, a W-LUN, or another)
 * @kernel_luns: LUNs the kernel's own scan of this target attached (only for a
 *	target without LUN 0 on a host whose LUN limit is below the REPORT LUNS
 *	well-known LUN)
 * @nkernel_luns: how many
 * @kernel_kept: per kernel LUN, whether the database agrees with it
 * @has_inquiry: @inq is valid
 * @inq: its INQUIRY data
 * @inquiry_source: "SG_IO" or the fallback used
 * @match: the quirk database's answer for the device
 * @method: how LUNs were found
 * @method_reason: why that way
 * @end_reason: why the scan of the target ended
 * @reported: REPORT LUNS list, if one was read
 * @nreported: its length
 * @luns: every LUN tried, skipped or removed, in order
 * @nluns: how many
 * @alloc: allocated entries of @luns
 */
struct target_report {
	struct scsi_addr addr;
	bool failed;
	char error[256];
	uint64_t probe_lun;
	uint64_t *kernel_luns;
	size_t nkernel_luns;
	bool *kernel_kept;
	bool has_inquiry;
	struct inquiry inq;
	const char *inquiry_source;
	struct quirk_match match;
	enum plan_method method;
	char method_reason[PLAN_REASON_LEN];
	char end_reason[PLAN_REASON_LEN];
	uint64_t *reported;
	size_t nreported;
	struct lun_report *luns;
	size_t nluns;
	size_t alloc;
};

/**
 * struct host_report - what happened on one host
 * @host: the host number
 * @failed: the host could not be scanned at all
 * @error: why
 * @notes: remarks about the discovery, e.g. how targets without LUN 0 were
 *	looked for
 * @targets: the targets found
 * @ntargets: how many
 */
struct host_report {
	unsigned int host;
	bool failed;
	char error[256];
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
 */
struct scan_options {
	bool dry_run;
	bool remove;
	bool force;
	unsigned int inquiry_timeout;
	unsigned int report_luns_timeout;
	bool lock_wait;
};

/**
 * struct scan_ctx - what a scan needs
 * @sys: the path context
 * @db: the quirk database, finalized
 * @opt: options
 */
struct scan_ctx {
	const struct sysfs_ctx *sys;
	const struct quirk_db *db;
	struct scan_options opt;
};

/**
 * scan_selected() - scan what a selector names
 * @ctx: the scan context
 * @sel: the selector
 * @rep: the report, appended to
 *
 * Per host: take the host lock, find targets (LUN 0 through the scan file;
 * targets without LUN 0 through the REPORT LUNS well-known LUN, or LUN 1
 * where the host's LUN limit is below it), then scan each target.
 *
 * Return: 0 (failures of single hosts or targets are in @rep), -ENODEV if
 * a selected host does not exist, -ENOMEM.
 */
int scan_selected(const struct scan_ctx *ctx, const struct selector *sel, struct scan_report *rep);

/**
 * scan_report_failures() - count hosts and targets that failed
 * @rep: the report
 *
 * Return: the count.
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
