/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * coalesce.h - the work a host has waiting in the daemon, and how each
 * uevent merges into it. Pure: what merges with what, and what a remove
 * cancels, decided without I/O.
 */
#ifndef SCSI_SCAN_COALESCE_H
#define SCSI_SCAN_COALESCE_H

#include <stdbool.h>
#include <stddef.h>

#include "monitor.h"
#include "sysfs.h"

/* Targets and LUN events one host keeps waiting. */
#define WORK_TARGETS_MAX 64
#define WORK_LUNS_MAX 64

/**
 * struct work_target - a target to scan
 * @channel: its channel
 * @id: its id
 * @remove: its LUN inventory changed: LUNs it no longer reports may go
 *	(with the daemon's --remove); only this target's
 * @recover: its path came back (SCSI_EVENT_PATH_BACK): its offline LUNs
 *	are set running and the others read again, before its scan
 */
struct work_target {
	int channel;
	int id;
	bool remove;
	bool recover;
};

/**
 * struct work_lun - a unit attention of one LUN that asks for work other
 *	than a scan
 * @addr: the LUN
 * @kind: SCSI_EVENT_INQUIRY_CHANGED, SCSI_EVENT_CAPACITY_CHANGED, or
 *	SCSI_EVENT_LUN_ADDED (its target is scanned, to hold the policy)
 */
struct work_lun {
	struct scsi_addr addr;
	enum scsi_event_kind kind;
};

/**
 * struct host_work - what one host has waiting, or what one job does
 * @full: scan every target of the host
 * @targets: targets to scan (with @full: only those whose LUN inventory
 *	changed, for their @remove, or whose path came back, for their
 *	@recover)
 * @ntargets: how many
 * @luns: LUN events
 * @nluns: how many
 */
struct host_work {
	bool full;
	struct work_target targets[WORK_TARGETS_MAX];
	size_t ntargets;
	struct work_lun luns[WORK_LUNS_MAX];
	size_t nluns;
};

/**
 * enum merge_result - what an event did to the waiting work
 * @MERGE_IGNORED: nothing for this host to do (SCSI_EVENT_NONE)
 * @MERGE_QUEUED: new work
 * @MERGE_COALESCED: the work waiting already covers it
 * @MERGE_WIDENED: too many targets, or one without an id: the host is
 *	scanned whole instead
 * @MERGE_DROPPED: the LUN events of the host are at WORK_LUNS_MAX: this
 *	one is lost (the caller logs it)
 * @MERGE_CANCELLED: the host went away: its waiting work is dropped
 */
enum merge_result {
	MERGE_IGNORED,
	MERGE_QUEUED,
	MERGE_COALESCED,
	MERGE_WIDENED,
	MERGE_DROPPED,
	MERGE_CANCELLED,
};

/**
 * host_work_merge() - merge one event of the host into its waiting work
 * @w: the waiting work
 * @ev: the event (its host is @w's)
 *
 * Return: what happened.
 */
enum merge_result host_work_merge(struct host_work *w, const struct scsi_event *ev);

/**
 * host_work_pending() - whether anything waits
 * @w: the work
 *
 * Return: true if a scan or a LUN event waits.
 */
bool host_work_pending(const struct host_work *w);

/**
 * host_work_take() - move the waiting work into a job
 * @w: the waiting work; left empty
 * @job: the job's work
 */
void host_work_take(struct host_work *w, struct host_work *job);

/**
 * host_work_put_back() - return a job's work that could not run (its
 *	worker did not start) to the host, merged with what came since
 * @w: the waiting work
 * @job: the job's work
 */
void host_work_put_back(struct host_work *w, const struct host_work *job);

/**
 * merge_result_name() - short name of a merge result, for logs and tests
 * @r: the result
 *
 * Return: "ignored", "queued", "coalesced", "widened", "dropped" or
 * "cancelled".
 */
const char *merge_result_name(enum merge_result r);

/**
 * host_work_forget_attached() - take out the LUN-attached events of LUNs the
 *	daemon's own scan attached
 * @w: the work waiting
 * @attached: the LUNs a scan of the host attached
 * @n: how many
 */
void host_work_forget_attached(struct host_work *w, const struct scsi_addr *attached, size_t n);

#endif
