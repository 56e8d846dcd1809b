// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coalesce.c - how uevents merge into the work a host has waiting. No I/O.
 *
 * A host gets one worker at a time; what arrives meanwhile waits here and
 * runs as one job when the worker is done. The rules, each with the
 * sequence it collapses:
 *
 * - host add: the whole host is scanned. "add host3, add rport-3:0-1,
 *   add rport-3:0-2" is one scan of host3.
 * - a target (FC remote port, SAS end device, iSCSI session) appears: that
 *   target is scanned; the same target twice is one scan; a target
 *   without an id, or more than WORK_TARGETS_MAX of them, widen the job
 *   to the whole host.
 * - "reported LUNs data has changed" on any LUN of a target: that target
 *   is scanned, and only that target may lose LUNs it no longer reports.
 *   "change 3:0:1:0, change 3:0:1:4" is one scan of 3:0:1; a host add
 *   merged after it keeps 3:0:1's removal and no other.
 * - INQUIRY or capacity data changed: per LUN and kind, once; past
 *   WORK_LUNS_MAX the event is dropped and said so. Both also scan the
 *   LUN's target, as a target appearing does, before the LUN's own work:
 *   the scan finds a remapped LUN (a rescan for the capacity would
 *   refresh the kernel's copy of the old unit's identity). "change 3:0:1:2 (INQUIRY)" is a scan of
 * 3:0:1 and a look at 3:0:1:2's INQUIRY data.
 * - a LUN attached (by anyone): per LUN, once, so that the ones the
 *   daemon attached itself can be taken out again when its scan reports
 *   them (host_work_forget_attached()); what is left scans its target.
 *   Past WORK_LUNS_MAX, the target is scanned without that filter.
 * - a target's path back (the daemon's watch: a session logged in again, a
 *   remote port online again): that target is scanned, and its LUNs are
 *   brought back first; a host add merged after it keeps that.
 * - host remove: everything waiting for the host goes.
 */
#include <string.h>

#include "coalesce.h"

static struct work_target *find_target(struct host_work *w, int channel, int id)
{
	for (size_t i = 0; i < w->ntargets; i++)
		if (w->targets[i].channel == channel && w->targets[i].id == id)
			return &w->targets[i];
	return NULL;
}

/* A whole-host scan covers every target: only those that may lose LUNs or
 * whose path came back stay listed, for their removal or recovery. */
static void widen(struct host_work *w)
{
	size_t n = 0;

	w->full = true;
	for (size_t i = 0; i < w->ntargets; i++)
		if (w->targets[i].remove || w->targets[i].recover)
			w->targets[n++] = w->targets[i];
	w->ntargets = n;
}

static enum merge_result add_target(struct host_work *w, int channel, int id, bool remove,
				    bool recover)
{
	struct work_target *t;
	bool extra = remove || recover;

	if (channel < 0 || id < 0) {
		bool was = w->full;

		widen(w);
		return was ? MERGE_COALESCED : MERGE_WIDENED;
	}
	t = find_target(w, channel, id);
	if (t) {
		if ((remove && !t->remove) || (recover && !t->recover)) {
			t->remove |= remove;
			t->recover |= recover;
			return MERGE_QUEUED;
		}
		return MERGE_COALESCED;
	}
	if (w->full && !extra)
		return MERGE_COALESCED;
	if (w->ntargets == WORK_TARGETS_MAX) {
		widen(w);
		if (!extra || w->ntargets == WORK_TARGETS_MAX)
			return MERGE_WIDENED;
	}
	w->targets[w->ntargets++] = (struct work_target){ channel, id, remove, recover };
	return MERGE_QUEUED;
}

static enum merge_result add_lun(struct host_work *w, const struct scsi_event *ev)
{
	struct work_lun l = {
		{ ev->host, (unsigned int)ev->channel, (unsigned int)ev->id, ev->lun }, ev->kind
	};

	for (size_t i = 0; i < w->nluns; i++)
		if (w->luns[i].kind == l.kind && scsi_addr_cmp(&w->luns[i].addr, &l.addr) == 0)
			return MERGE_COALESCED;
	if (w->nluns == WORK_LUNS_MAX)
		return MERGE_DROPPED;
	w->luns[w->nluns++] = l;
	return MERGE_QUEUED;
}

enum merge_result host_work_merge(struct host_work *w, const struct scsi_event *ev)
{
	bool was;

	switch (ev->kind) {
	case SCSI_EVENT_HOST_ADD:
		was = w->full;
		widen(w);
		return was ? MERGE_COALESCED : MERGE_QUEUED;
	case SCSI_EVENT_HOST_REMOVE:
		memset(w, 0, sizeof(*w));
		return MERGE_CANCELLED;
	case SCSI_EVENT_TARGET_ADD:
		return add_target(w, ev->channel, ev->id, false, false);
	case SCSI_EVENT_LUNS_CHANGED:
		return add_target(w, ev->channel, ev->id, true, false);
	case SCSI_EVENT_PATH_BACK:
		return add_target(w, ev->channel, ev->id, false, true);
	case SCSI_EVENT_INQUIRY_CHANGED:
	case SCSI_EVENT_CAPACITY_CHANGED: {
		/* Another unit may answer at the LUN now (a remapped LUN often
		 * tells this way): its target's scan, with the remap check,
		 * runs before the LUN's own work. */
		enum merge_result t = add_target(w, ev->channel, ev->id, false, false);
		enum merge_result l = add_lun(w, ev);

		if (l == MERGE_DROPPED || t == MERGE_WIDENED)
			return l == MERGE_DROPPED ? l : t;
		return l == MERGE_QUEUED || t == MERGE_QUEUED ? MERGE_QUEUED : MERGE_COALESCED;
	}
	case SCSI_EVENT_LUN_ADDED: {
		enum merge_result l;

		if (w->full || find_target(w, ev->channel, ev->id))
			return MERGE_COALESCED;
		l = add_lun(w, ev);
		return l == MERGE_DROPPED ? add_target(w, ev->channel, ev->id, false, false) : l;
	}
	default:
		return MERGE_IGNORED;
	}
}

bool host_work_pending(const struct host_work *w)
{
	return w->full || w->ntargets || w->nluns;
}

void host_work_take(struct host_work *w, struct host_work *job)
{
	*job = *w;
	memset(w, 0, sizeof(*w));
}

void host_work_put_back(struct host_work *w, const struct host_work *job)
{
	if (job->full)
		widen(w);
	for (size_t i = 0; i < job->ntargets; i++)
		add_target(w, job->targets[i].channel, job->targets[i].id, job->targets[i].remove,
			   job->targets[i].recover);
	for (size_t i = 0; i < job->nluns; i++) {
		struct scsi_event ev = { .kind = job->luns[i].kind,
					 .host = job->luns[i].addr.host,
					 .channel = (int)job->luns[i].addr.channel,
					 .id = (int)job->luns[i].addr.id,
					 .lun = job->luns[i].addr.lun };

		add_lun(w, &ev);
	}
}

const char *merge_result_name(enum merge_result r)
{
	static const char *const names[] = {
		[MERGE_IGNORED] = "ignored",	 [MERGE_QUEUED] = "queued",
		[MERGE_COALESCED] = "coalesced", [MERGE_WIDENED] = "widened",
		[MERGE_DROPPED] = "dropped",	 [MERGE_CANCELLED] = "cancelled",
	};

	return (unsigned int)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

void host_work_forget_attached(struct host_work *w, const struct scsi_addr *attached, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < w->nluns; i++) {
		bool ours = false;

		for (size_t j = 0; j < n && w->luns[i].kind == SCSI_EVENT_LUN_ADDED && !ours; j++)
			ours = scsi_addr_cmp(&w->luns[i].addr, &attached[j]) == 0;
		if (!ours)
			w->luns[k++] = w->luns[i];
	}
	w->nluns = k;
}
