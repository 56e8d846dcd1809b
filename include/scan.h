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

#include "report.h"
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
 * struct scan_options - how to scan
 * @dry_run: write nothing; only targets with an attached LUN are looked at
 * @remove: delete attached LUNs that REPORT LUNS no longer lists
 * @remove_refused: delete attached LUNs the lunmask policy refuses (unless
 *	in use), without @remove: the daemon holds the policy against other
 *	scanners
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
	bool remove_refused;
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
 * scan_selected_hosts() - scan several selectors, the hosts in parallel
 * @ctx: the scan context (shared by the threads: its log function must be
 *	safe to call from several)
 * @sel: the selectors, each naming one host (a volume's paths)
 * @n: how many
 * @rep: the report, appended to in the order of the first selector of
 *	each host
 *
 * One thread a host runs that host's selectors in order, as
 * scan_selected() does; a slow or hanging path delays only its own host.
 *
 * Return: as scan_selected(): the first error of any host, after every
 * thread has ended (-ENODEV: a host that does not exist, whose report
 * says so; the others are still scanned).
 */
int scan_selected_hosts(const struct scan_ctx *ctx, const struct selector *sel, size_t n,
			struct scan_report *rep);

/**
 * scan_now_ms() - the monotonic clock in milliseconds, the one the scan's
 *	bounds (struct scan_options, @deadline_ms) are measured on
 *
 * Return: milliseconds since an arbitrary start.
 */
uint64_t scan_now_ms(void);

#endif
