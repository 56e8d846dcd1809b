// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plan.c - the scan plan of one target: every kernel rule about which LUNs
 * to try, with the quirk database in place of the kernel's table. No I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "inquiry.h"
#include "plan.h"

enum state {
	ST_START,
	ST_REPORT_WAIT,
	ST_REPORT_LIST,
	ST_SEQUENTIAL,
	ST_UNLISTED,
	ST_SELECTED,
	ST_DONE,
};

static void say(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(char *buf, const char *fmt, ...)
{
	size_t n = strnlen(fmt, PLAN_REASON_LEN);
	va_list ap;

	/* Most reasons are one fixed text per LUN: copied, not formatted. */
	if (n < PLAN_REASON_LEN && !memchr(fmt, '%', n)) {
		memcpy(buf, fmt, n + 1);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, PLAN_REASON_LEN, fmt, ap);
	va_end(ap);
}

void plan_init(struct plan *p, const struct plan_input *in)
{
	memset(p, 0, sizeof(*p));
	p->in = *in;
	p->state = ST_START;
}

void plan_free(struct plan *p)
{
	free(p->luns);
	p->luns = NULL;
	p->count = 0;
}

enum plan_method plan_method(const struct plan *p, const char **ret_reason,
			     enum scan_code *ret_code)
{
	if (ret_reason)
		*ret_reason = p->method_reason;
	if (ret_code)
		*ret_code = p->method_code;
	return p->method;
}

bool plan_driver_takes_report_luns(const char *driver)
{
	return !driver || (strcmp(driver, "usb-storage") != 0 && strcmp(driver, "uas") != 0);
}

static void done(struct plan *p, struct plan_action *a, enum scan_code code, const char *why)
{
	p->state = ST_DONE;
	a->kind = PLAN_DONE;
	a->lun = 0;
	a->code = code;
	say(a->reason, "%s", why);
}

static void method(struct plan *p, enum plan_method m, enum scan_code code, const char *why)
{
	p->method = m;
	p->method_code = code;
	say(p->method_reason, "%s", why);
}

/* scsi_sequential_lun_scan(): the limit, then LUNs 1 .. limit-1. */
static void start_sequential(struct plan *p, enum scan_code code, const char *why)
{
	const struct plan_input *in = &p->in;
	uint64_t limit = in->max_luns;
	const char *what = "scsi_mod.max_luns";

	method(p, PLAN_METHOD_SEQUENTIAL, code, why);
	if (in->flags & (BLIST_SPARSELUN | BLIST_FORCELUN)) {
		/* The host's max_lun, which user space cannot read: a scan
		 * write past it fails with EINVAL and ends the scan there. */
		limit = UINT64_MAX;
		what = in->flags & BLIST_SPARSELUN ? "sparselun: the host's LUN limit"
						   : "forcelun: the host's LUN limit";
	}
	if ((in->flags & BLIST_MAX5LUN) && limit > 5) {
		limit = 5;
		what = "max5lun";
	}
	if (in->scsi_level < SCSI_LEVEL_3 && !(in->flags & BLIST_LARGELUN) && in->investigate) {
		if (limit > 16) {
			limit = 16;
			what = "investigation: LUNs 8-15 of a SCSI-2 target too, past the kernel's 7";
		}
	} else if (in->scsi_level < SCSI_LEVEL_3 && !(in->flags & BLIST_LARGELUN)) {
		if (limit > 8) {
			limit = 8;
			what = "a SCSI-2 or older target without largelun has LUNs 0-7";
		}
	} else if (limit > 256) {
		limit = 256;
		what = "a sequential scan never goes past LUN 255";
	}
	if (in->max_lun >= 0 && (uint64_t)in->max_lun + 1 < limit) {
		limit = (uint64_t)in->max_lun + 1;
		what = "max_lun from the quirk database";
	}
	p->seq_limit = limit;
	p->seq_next = 1;
	say(p->limit_reason, "%s", what);
	p->state = ST_SEQUENTIAL;
}

static bool masked(const struct plan *p, uint64_t lun, struct plan_action *a);

/* One LUN asked for: the policy and the database may still refuse it. */
static void select_one(struct plan *p, struct plan_action *a)
{
	const struct plan_input *in = &p->in;
	uint64_t lun = in->only_lun;
	char why[64];

	method(p, PLAN_METHOD_SELECTED, SC_SELECTED, "only the LUN asked for");
	snprintf(why, sizeof(why), "only LUN %llu selected", (unsigned long long)lun);
	p->state = ST_SELECTED;
	if (masked(p, lun, a)) {
		/* LUN 0's line is written when the target is reached. */
		if (lun == 0)
			done(p, a, SC_SELECTED_ONLY, why);
		return;
	}
	if (lun == 0 || lun == in->probe_lun) {
		done(p, a, SC_SELECTED_ONLY, why);
		return;
	}
	a->lun = lun;
	if (in->flags & BLIST_NOLUN) {
		a->kind = PLAN_SKIP;
		a->code = SC_NOLUN;
		say(a->reason, "nolun: LUN 0 only");
	} else if (in->max_lun >= 0 && lun > (uint64_t)in->max_lun) {
		a->kind = PLAN_SKIP;
		a->code = SC_MAX_LUN;
		say(a->reason, "above max_lun %lld from the quirk database", in->max_lun);
	} else {
		a->kind = PLAN_PROBE;
		a->code = SC_SELECTED;
		say(a->reason, "selected");
	}
}

static void decide(struct plan *p, struct plan_action *a)
{
	const struct plan_input *in = &p->in;

	if (!in->attach) {
		done(p, a, SC_ATTACH_FALSE,
		     "attach = false in the quirk database: no LUN is attached");
		return;
	}
	if (in->has_only_lun) {
		select_one(p, a);
		return;
	}
	if (in->flags & BLIST_NOLUN) {
		method(p, PLAN_METHOD_NONE, SC_NOLUN, "nolun: LUN 0 only");
		done(p, a, SC_NOLUN,
		     in->scsi_level < SCSI_LEVEL_3
			     ? "nolun: LUN 0 only (the kernel would still probe "
			       "LUNs 1-7 of this SCSI-2 target)"
			     : "nolun: LUN 0 only");
		return;
	}
	if (in->max_lun == 0) {
		method(p, PLAN_METHOD_NONE, SC_MAX_LUN_0, "max_lun = 0");
		done(p, a, SC_MAX_LUN_0, "max_lun = 0 in the quirk database: LUN 0 only");
		return;
	}
	if (in->flags & BLIST_NOREPORTLUN) {
		start_sequential(p, SC_NOREPORTLUN,
				 "noreportlun: REPORT LUNS is never sent to this device");
		return;
	}
	if (in->scsi_level == SCSI_LEVEL_1 || in->scsi_level == SCSI_LEVEL_1_CCS) {
		start_sequential(p, SC_SCSI_1, "a SCSI-1 target does not take REPORT LUNS");
		return;
	}
	if (in->scsi_level < SCSI_LEVEL_3 && !(in->flags & BLIST_REPORTLUN2)) {
		start_sequential(
			p, SC_SCSI_2,
			"a SCSI-2 target is scanned sequentially unless it has reportlun2");
		return;
	}
	if (!plan_driver_takes_report_luns(in->driver)) {
		start_sequential(p, SC_USB, "the host's driver does not take REPORT LUNS (USB)");
		return;
	}
	if (in->scsi_level < SCSI_LEVEL_3)
		method(p, PLAN_METHOD_REPORT_LUNS, SC_REPORTLUN2,
		       "reportlun2: REPORT LUNS although SCSI-2");
	else
		method(p, PLAN_METHOD_REPORT_LUNS, SC_SCSI_3, "SCSI-3 or later: REPORT LUNS");
	p->state = ST_REPORT_WAIT;
	a->kind = PLAN_REPORT_LUNS;
	a->lun = 0;
	a->code = SC_REPORT_LUNS;
	say(a->reason, "%s", p->method_reason);
}

static int take_list(struct plan *p, const struct plan_outcome *last)
{
	free(p->luns);
	p->luns = NULL;
	p->count = 0;
	p->next = 0;
	if (!last->count)
		return 0;
	p->luns = malloc(last->count * sizeof(*p->luns));
	if (!p->luns)
		return -ENOMEM;
	memcpy(p->luns, last->luns, last->count * sizeof(*p->luns));
	p->count = last->count;
	return 0;
}

/* The administrator's policy comes first: a refused LUN is never tried. */
static bool masked(const struct plan *p, uint64_t lun, struct plan_action *a)
{
	struct lunmask_verdict v;

	if (!p->in.mask)
		return false;
	lunmask_decide(p->in.mask, lun, &v);
	if (v.allowed)
		return false;
	a->kind = PLAN_SKIP;
	a->lun = lun;
	a->masked = true;
	a->code = SC_MASKED;
	lunmask_describe(&v, lun, a->reason, PLAN_REASON_LEN);
	return true;
}

static bool listed(const struct plan *p, uint64_t lun)
{
	for (size_t i = 0; i < p->count; i++)
		if (p->luns[i] == lun)
			return true;
	return false;
}

/* Investigation: LUNs 1-7 that REPORT LUNS left out, to see whether it lies. */
static void next_unlisted(struct plan *p, struct plan_action *a)
{
	while (p->seq_next < 8) {
		uint64_t lun = p->seq_next++;

		if (listed(p, lun))
			continue;
		if (masked(p, lun, a))
			return;
		a->kind = PLAN_PROBE;
		a->lun = lun;
		a->code = SC_UNLISTED;
		say(a->reason, "investigation: LUN %llu, which REPORT LUNS did not list",
		    (unsigned long long)lun);
		return;
	}
	done(p, a, SC_UNLISTED_DONE,
	     "every LUN REPORT LUNS listed was tried, and LUNs 1-7 it did not list "
	     "(investigation)");
}

static void next_listed(struct plan *p, struct plan_action *a)
{
	while (p->next < p->count) {
		uint64_t lun = p->luns[p->next++];

		if (lun == 0 && p->in.lun0_present)
			continue;
		if (masked(p, lun, a))
			return;
		a->lun = lun;
		if (p->in.max_lun >= 0 && lun > (uint64_t)p->in.max_lun) {
			a->kind = PLAN_SKIP;
			a->code = SC_MAX_LUN;
			say(a->reason, "listed, but above max_lun %lld from the quirk database",
			    p->in.max_lun);
			return;
		}
		a->kind = PLAN_PROBE;
		a->code = SC_LISTED;
		say(a->reason, "listed by REPORT LUNS");
		return;
	}
	if (p->in.investigate) {
		p->state = ST_UNLISTED;
		p->seq_next = 1;
		next_unlisted(p, a);
		return;
	}
	done(p, a, SC_LIST_DONE, "every LUN REPORT LUNS listed was tried");
}

static void next_sequential(struct plan *p, const struct plan_outcome *last, struct plan_action *a)
{
	bool sparse = (p->in.flags & BLIST_SPARSELUN) || p->in.investigate;

	if (p->seq_next > 1 || last->kind != PLAN_OUT_NONE) {
		if (last->kind == PLAN_OUT_LIMIT) {
			done(p, a, SC_HOST_LIMIT, "");
			say(a->reason, "LUN %llu is past the host's LUN limit: the scan ends",
			    (unsigned long long)(p->seq_next - 1));
			return;
		}
		if (last->kind == PLAN_OUT_ABSENT && !sparse) {
			done(p, a, SC_GAP, "");
			say(a->reason, "no LUN %llu: a sequential scan stops at the first gap",
			    (unsigned long long)(p->seq_next - 1));
			return;
		}
	}
	if (p->seq_next >= p->seq_limit) {
		done(p, a, SC_SEQUENTIAL_END, "");
		say(a->reason, "sequential scan ends at LUN %llu: %s",
		    (unsigned long long)(p->seq_limit ? p->seq_limit - 1 : 0), p->limit_reason);
		return;
	}
	if (masked(p, p->seq_next, a)) {
		p->seq_next++;
		return;
	}
	a->kind = PLAN_PROBE;
	a->lun = p->seq_next++;
	a->code = SC_SEQUENTIAL;
	say(a->reason, "sequential scan%s",
	    !sparse		? ""
	    : p->in.investigate ? " (investigation: past gaps)"
				: " (sparselun: gaps allowed)");
}

/*
 * A target that answers a LUN with a unit it already showed (the lie
 * behind BLIST_NOLUN) would be attached 8 or 256 times over: the scan
 * stops at the first such LUN.
 */
static bool ghost_stop(struct plan *p, const struct plan_outcome *last, struct plan_action *a)
{
	if (last->kind != PLAN_OUT_PRESENT || !last->ghost || p->in.attach_ghosts)
		return false;
	done(p, a, SC_GHOSTS, "");
	say(a->reason,
	    "LUN %llu is LUN %llu answering again (ghost LUNs): the scan stops, "
	    "and only the LUN the target was reached through stays attached",
	    (unsigned long long)p->last_probe, (unsigned long long)last->ghost_of);
	a->ghosts = true;
	return true;
}

static int step(struct plan *p, const struct plan_outcome *last, struct plan_action *next)
{
	static const struct plan_outcome none = { .kind = PLAN_OUT_NONE };
	int r;

	if (!last)
		last = &none;
	memset(next, 0, sizeof(*next));
	if ((p->state == ST_REPORT_LIST || p->state == ST_SEQUENTIAL || p->state == ST_UNLISTED) &&
	    ghost_stop(p, last, next))
		return 0;
	switch (p->state) {
	case ST_START:
		decide(p, next);
		if (p->state == ST_SEQUENTIAL)
			next_sequential(p, &none, next);
		return 0;
	case ST_REPORT_WAIT:
		if (last->kind != PLAN_OUT_REPORT_LUNS) {
			char why[PLAN_REASON_LEN];

			snprintf(why, sizeof(why), "REPORT LUNS failed (%s): sequential scan",
				 last->why ? last->why : "no answer");
			start_sequential(p, SC_REPORT_LUNS_FAILED, why);
			next_sequential(p, &none, next);
			return 0;
		}
		r = take_list(p, last);
		if (r < 0)
			return r;
		p->state = ST_REPORT_LIST;
		next_listed(p, next);
		return 0;
	case ST_REPORT_LIST:
		next_listed(p, next);
		return 0;
	case ST_SEQUENTIAL:
		next_sequential(p, last, next);
		return 0;
	case ST_UNLISTED:
		next_unlisted(p, next);
		return 0;
	case ST_SELECTED: {
		char why[64];

		snprintf(why, sizeof(why), "only LUN %llu selected",
			 (unsigned long long)p->in.only_lun);
		done(p, next, SC_SELECTED_ONLY, why);
		return 0;
	}
	default:
		done(p, next, SC_DONE, "done");
		return 0;
	}
}

int plan_step(struct plan *p, const struct plan_outcome *last, struct plan_action *next)
{
	int r = step(p, last, next);

	if (r == 0 && next->kind == PLAN_PROBE)
		p->last_probe = next->lun;
	return r;
}

void plan_reach_fate(const struct plan_reach_input *in, struct plan_reach_fate *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->code = SC_KEEP;
	if (in->look && (in->temporary || in->lun0_new || in->probe_new)) {
		struct plan_reach_input scan = *in;
		char would[PLAN_REASON_LEN];

		/* A dry run leaves the target as it found it; its line says
		 * what a scan would do with the LUN. */
		scan.look = false;
		plan_reach_fate(&scan, ret);
		if (ret->detach)
			snprintf(would, sizeof(would), "a scan would detach it too (%s)",
				 ret->reason);
		else
			snprintf(would, sizeof(would), "a scan would keep it");
		ret->detach = true;
		ret->code = SC_LOOK_ONLY;
		say(ret->reason,
		    "attached only for this dry run's look at the target and deleted "
		    "again; %s",
		    would);
		return;
	}
	if (in->temporary) {
		ret->detach = true;
		ret->code = SC_REACH_ONLY;
		say(ret->reason,
		    "the REPORT LUNS well-known LUN, attached only to reach the target");
		return;
	}
	if (in->probe_lun != 0 || !in->lun0_new)
		return;
	ret->detach = true;
	if (!in->attach) {
		ret->code = SC_ATTACH_FALSE;
		say(ret->reason, "attach = false in the quirk database");
	} else if (!in->lun0_attach) {
		/* An array's management LUN: the way in to the others. */
		ret->code = SC_REFUSED_BY_TYPE;
		say(ret->reason, "%s; the target's other LUNs were reached through it",
		    in->refusal ? in->refusal : "refused by the quirk database");
	} else if (in->has_only_lun && in->only_lun != 0) {
		ret->code = SC_REACH_ONLY;
		say(ret->reason, "LUN 0, attached only to reach the target for the selected LUN");
		say(ret->reach,
		    "through LUN 0, attached for this scan and detached after it (only "
		    "LUN %llu was selected)",
		    (unsigned long long)in->only_lun);
	} else {
		ret->detach = false;
		ret->code = SC_KEEP;
	}
}

/* The listed LUN being probed and those after it that the policy allows,
 * into @luns unless NULL. Return: how many. */
static size_t batch_luns(const struct plan *p, uint64_t *luns)
{
	struct lunmask_verdict v;
	size_t n = 0;

	for (size_t i = p->next ? p->next - 1 : 0; i < p->count; i++) {
		uint64_t lun = p->luns[i];

		if (lun == 0 && p->in.lun0_present)
			continue;
		if (p->in.mask) {
			lunmask_decide(p->in.mask, lun, &v);
			if (!v.allowed)
				continue;
		}
		if (luns)
			luns[n] = lun;
		n++;
	}
	return n;
}

enum plan_batch_kind plan_batch(struct plan *p, const struct plan_batch_input *in, char *why)
{
	const struct plan_input *pi = &p->in;
	size_t left = p->count - p->next + 1;
	bool by_lun = pi->mask && pi->mask->count;
	const char *no = NULL;

	why[0] = '\0';
	if (p->batch_decided || p->state != ST_REPORT_LIST)
		return PLAN_BATCH_NONE;
	if (in->dry_run)
		no = "a dry run writes nothing";
	else if (pi->flags || pi->max_lun >= 0 || !pi->attach)
		no = "the quirk database has an entry for the device";
	else if (pi->has_only_lun || pi->investigate)
		no = "not every listed LUN is wanted";
	else if (in->per_lun_refusal)
		no = "the quirk database could refuse single LUNs by their INQUIRY data";
	else if (!in->through_lun0)
		no = "the target was not reached through LUN 0";
	else if (left < PLAN_BATCH_MIN)
		return PLAN_BATCH_NONE;
	else if (!in->probed)
		return PLAN_BATCH_NONE;
	p->batch_decided = true;
	if (no) {
		say(why, "LUN by LUN: %s", no);
		return PLAN_BATCH_NONE;
	}
	if (in->ms_left >= 0 &&
	    (uint64_t)left * (in->slowest_ms ? in->slowest_ms : 1) > (uint64_t)in->ms_left) {
		say(why,
		    "LUN by LUN: %zu LUNs at up to %llu ms each may not fit the %lld ms the "
		    "scan's time bounds leave",
		    left, (unsigned long long)in->slowest_ms, in->ms_left);
		return PLAN_BATCH_NONE;
	}
	if (by_lun) {
		size_t allowed = batch_luns(p, NULL);

		say(why,
		    "the %zu LUNs left of the list that the policy allows (of %zu), one scan "
		    "write each, handed over at once: lunmask entries apply to the target, and "
		    "the kernel's target scan would attach a LUN they refuse",
		    allowed, left);
		return PLAN_BATCH_LUNS;
	}
	say(why,
	    "the %zu LUNs left of the list by one kernel target scan: nothing of the "
	    "database or the policy refuses any of them",
	    left);
	return PLAN_BATCH_TARGET;
}

size_t plan_batch_luns(const struct plan *p, uint64_t *luns)
{
	return batch_luns(p, luns);
}
