// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reach.c - how one target is reached: the LUN that carries INQUIRY and
 * REPORT LUNS. No I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "luns.h"
#include "reach.h"

enum reach_state {
	RS_START,
	RS_LUN0,
	RS_WLUN,
	RS_ALLOWED,
	RS_KNOWN,
	RS_KERNEL,
	RS_DONE,
};

static void reach_act(struct reach_action *a, enum reach_action_kind kind, uint64_t lun,
		      enum scan_code code)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->lun = lun;
	a->code = code;
}

static void reach_say(struct reach_action *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reach_say(struct reach_action *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->reason, sizeof(a->reason), fmt, ap);
	va_end(ap);
}

void reach_init(struct reach *r, const struct reach_input *in)
{
	memset(r, 0, sizeof(*r));
	r->in = *in;
	r->wlun_impossible = in->wlun_impossible;
	r->state = RS_START;
}

/* Whether one LUN may be attached to reach the target: a scan, or a dry
 * run's look at a target with nothing attached. */
static bool may_attach(const struct reach_input *in)
{
	return !in->dry_run || in->look;
}

/* Found through @lun; where LUN 0 is refused, the reason says so. */
static void found(struct reach *r, struct reach_action *a, uint64_t lun, enum scan_code code)
{
	reach_act(a, REACH_FOUND, lun, code);
	r->state = RS_DONE;
	if (!r->in.lun0_allowed && lun != 0)
		reach_say(a, "LUN 0 is %s", r->in.lun0_why);
}

/* A write failed: a listed target (or a bound) is reported, EINVAL of an
 * unlisted one is the host's limit, other errors end the host's scan. */
static void write_failed(struct reach *r, const struct reach_outcome *o, struct reach_action *a)
{
	r->state = RS_DONE;
	if (o->kind == REACH_OUT_EINVAL && !r->in.listed) {
		reach_act(a, REACH_LIMIT, 0, SC_LIMIT);
		return;
	}
	if (!r->in.listed && !o->stopped) {
		reach_act(a, REACH_ABORT, 0, SC_WRITE_FAILED);
		a->error = o->error;
		return;
	}
	reach_act(a, REACH_REPORT, 0, o->stopped ? SC_STOPPED : SC_WRITE_FAILED);
	a->failed = true;
	a->error = o->kind == REACH_OUT_EINVAL ? -EINVAL : o->error;
	if (!o->stopped)
		reach_say(a, "listed by the topology, but the scan write failed: %s",
			  strerror(-a->error));
}

/*
 * EINVAL from a scan write is the host's channel, id or LUN limit. Where
 * LUN 0 was not written (the policy refuses it), the host taking a LUN at
 * least this high before means the channel or id is past its limit.
 */
static bool limit_is_target(const struct reach_outcome *o, uint64_t lun)
{
	return o->max_lun_ok >= 0 && lun <= (uint64_t)o->max_lun_ok;
}

/* The next LUN seen attached earlier this boot that the policy allows,
 * after index @from; 1 with r->known set, 0 when none is left. */
static int next_known(struct reach *r, size_t from)
{
	const struct reach_input *in = &r->in;

	for (size_t i = from; i < in->nknown; i++) {
		struct lunmask_verdict v;

		lunmask_decide(in->mask, in->known[i], &v);
		if (v.allowed && in->known[i] != 0 && in->known[i] != LUN_WLUN_REPORT_LUNS) {
			r->known = i;
			return 1;
		}
	}
	return 0;
}

static void after_allowed(struct reach *r, struct reach_action *a)
{
	const struct reach_input *in = &r->in;

	if (!in->dry_run && in->restricts && r->state != RS_KNOWN && next_known(r, 0)) {
		/* A LUN this target had, and the policy allows: a way in that
		 * attaches nothing the policy refuses. */
		r->lun = in->known[r->known];
		reach_act(a, REACH_WRITE, r->lun, SC_KNOWN_LUN);
		r->state = RS_KNOWN;
		return;
	}
	if (!in->dry_run && in->restricts) {
		/* The kernel's scan of the target would attach every LUN. */
		r->state = RS_DONE;
		if (!in->listed) {
			reach_act(a, REACH_NONE, 0, SC_NOT_A_TARGET);
			return;
		}
		reach_act(a, REACH_REPORT, 0, SC_UNREACHABLE_RESTRICTED);
		a->failed = true;
		if (in->lun0_allowed)
			reach_say(
				a,
				"not reached: no LUN 0 and the REPORT LUNS well-known LUN (49409) "
				"%s; the kernel's scan of the target would attach LUNs the lunmask "
				"policy refuses (name the LUNs to attach in a luns list to reach "
				"it through them)",
				r->wlun_result ? r->wlun_result : "did not answer");
		else
			reach_say(
				a,
				"not reached: LUN 0 is %s, the REPORT LUNS well-known LUN (49409) "
				"%s, and %s",
				in->lun0_why, r->wlun_result ? r->wlun_result : "did not answer",
				in->allowed == 1 ? "no LUN the policy names answered"
						 : "the policy names no short list of LUNs to try");
		return;
	}
	if (!in->dry_run) {
		/* No way in without the kernel: let it scan this one target
		 * ("C T -"), then apply the database. */
		reach_act(a, REACH_WRITE, UINT64_MAX, SC_KERNEL_SCAN);
		a->kernel_scan = true;
		r->state = RS_KERNEL;
		return;
	}
	r->state = RS_DONE;
	if (!in->listed) {
		reach_act(a, REACH_NONE, 0, SC_NOT_A_TARGET);
		return;
	}
	reach_act(a, REACH_REPORT, 0, SC_NO_LUN_ANSWERED);
	if (in->look)
		reach_say(a, "dry run, nothing attached: no LUN answered (not LUN 0, not the "
			     "REPORT LUNS well-known LUN; the kernel's scan of the target, which "
			     "would attach every LUN, is not tried in a dry run)");
	else
		reach_say(a, "dry run, nothing attached: no LUN answered (not LUN 0, not the "
			     "REPORT LUNS well-known LUN, not the kernel's scan of the target)");
}

static void after_wlun(struct reach *r, struct reach_action *a)
{
	const struct reach_input *in = &r->in;

	if (r->wlun_impossible)
		r->wlun_result = "is past the host's LUN limit (EINVAL)";
	if (may_attach(in) && !in->lun0_allowed && in->allowed == 1) {
		/* LUN 0 is refused and there is no well-known LUN: the LUNs the
		 * policy names are the only way in, and harmless to try. */
		r->lun = in->first_allowed;
		reach_act(a, REACH_WRITE, r->lun, SC_POLICY_LUN);
		r->state = RS_ALLOWED;
		return;
	}
	after_allowed(r, a);
}

static void after_lun0(struct reach *r, struct reach_action *a)
{
	const struct reach_input *in = &r->in;

	if (in->other_attached) {
		found(r, a, in->other_lun, SC_ATTACHED_BEFORE);
		reach_say(a,
			  "LUN 0 absent: commands go through LUN %" PRIu64
			  ", attached before this scan",
			  in->other_lun);
		return;
	}
	if (may_attach(in) && !r->wlun_impossible && !in->wlun_excluded) {
		reach_act(a, REACH_WRITE, LUN_WLUN_REPORT_LUNS, SC_WLUN);
		r->state = RS_WLUN;
		return;
	}
	after_wlun(r, a);
}

static void step(struct reach *r, const struct reach_outcome *last, struct reach_action *next)
{
	const struct reach_input *in = &r->in;

	switch (r->state) {
	case RS_START:
		if (in->selected_refused) {
			/* Reaching the target would be for nothing. */
			reach_act(next, REACH_REPORT, 0, SC_SELECTED_REFUSED);
			r->state = RS_DONE;
			return;
		}
		if (!in->lun0_attached && !in->other_attached && in->allowed == 0) {
			/* Nothing is written, so nothing can appear, not even
			 * for a moment. */
			r->state = RS_DONE;
			if (!in->listed) {
				reach_act(next, REACH_NONE, 0, SC_NOT_A_TARGET);
				return;
			}
			reach_act(next, REACH_REPORT, 0, SC_POLICY_ALLOWS_NONE);
			reach_say(next,
				  "the lunmask policy allows no LUN of this target (%s): not "
				  "scanned",
				  in->lun0_why);
			return;
		}
		if (in->lun0_attached) {
			found(r, next, 0, SC_LUN0_ATTACHED);
			return;
		}
		if (may_attach(in) && in->lun0_allowed) {
			/* LUN 0 first, as the kernel's target scan does. */
			reach_act(next, REACH_WRITE, 0, SC_LUN0);
			r->state = RS_LUN0;
			return;
		}
		after_lun0(r, next);
		return;
	case RS_LUN0:
		if (last->kind == REACH_OUT_ATTACHED) {
			found(r, next, 0, SC_LUN0);
			next->lun0_new = true;
			if (in->dry_run)
				reach_say(next, "nothing attached: reached through LUN 0, attached "
						"for this dry run and deleted again");
			return;
		}
		if (last->kind == REACH_OUT_ERROR ||
		    (last->kind == REACH_OUT_EINVAL && !in->other_attached)) {
			write_failed(r, last, next);
			return;
		}
		after_lun0(r, next);
		return;
	case RS_WLUN:
		if (last->kind == REACH_OUT_EINVAL && !in->lun0_allowed &&
		    limit_is_target(last, LUN_WLUN_REPORT_LUNS)) {
			reach_act(next, REACH_LIMIT, 0, SC_LIMIT);
			r->state = RS_DONE;
			return;
		}
		if (last->kind == REACH_OUT_EINVAL && !in->lun0_allowed) {
			/* Without a LUN 0 write before it, EINVAL may mean an
			 * id past the host's limit as well as a LUN limit. */
			r->wlun_result = "was refused with EINVAL";
		} else if (last->kind == REACH_OUT_EINVAL) {
			r->wlun_impossible = true;
		} else if (last->kind == REACH_OUT_ERROR) {
			write_failed(r, last, next);
			return;
		} else if (last->kind == REACH_OUT_ATTACHED) {
			found(r, next, LUN_WLUN_REPORT_LUNS, SC_WLUN);
			next->temporary = true;
			reach_say(next,
				  "LUN 0 absent: reached through the REPORT LUNS well-known "
				  "LUN (49409), attached for this %s and detached after it",
				  in->dry_run ? "dry run" : "scan");
			return;
		} else {
			r->wlun_result = "attached nothing (the device refused it, e.g. with "
					 "CHECK CONDITION)";
		}
		after_wlun(r, next);
		return;
	case RS_ALLOWED:
		if (last->kind == REACH_OUT_EINVAL && limit_is_target(last, r->lun) &&
		    !in->listed) {
			reach_act(next, REACH_LIMIT, 0, SC_LIMIT);
			r->state = RS_DONE;
			return;
		}
		if (last->kind == REACH_OUT_ERROR) {
			write_failed(r, last, next);
			return;
		}
		if (last->kind == REACH_OUT_ATTACHED) {
			uint64_t lun = r->lun;

			found(r, next, lun, SC_POLICY_LUN);
			next->probe_new = true;
			reach_say(next,
				  "LUN 0 is %s: reached through LUN %" PRIu64
				  ", which the policy names",
				  in->lun0_why, lun);
			return;
		}
		if (lunmask_next_allowed(in->mask, r->lun, &r->lun) == 1) {
			reach_act(next, REACH_WRITE, r->lun, SC_POLICY_LUN);
			return;
		}
		after_allowed(r, next);
		return;
	case RS_KNOWN:
		if (last->kind == REACH_OUT_ERROR) {
			write_failed(r, last, next);
			return;
		}
		if (last->kind == REACH_OUT_ATTACHED) {
			uint64_t lun = r->lun;

			found(r, next, lun, SC_KNOWN_LUN);
			next->probe_new = true;
			reach_say(next,
				  "LUN 0 %s and the REPORT LUNS well-known LUN %s: reached through "
				  "LUN %" PRIu64
				  ", seen attached earlier this boot, which the policy "
				  "allows",
				  in->lun0_allowed ? "is absent" : "is refused",
				  r->wlun_result ? r->wlun_result : "did not answer", lun);
			return;
		}
		if (next_known(r, r->known + 1)) {
			r->lun = in->known[r->known];
			reach_act(next, REACH_WRITE, r->lun, SC_KNOWN_LUN);
			return;
		}
		after_allowed(r, next);
		return;
	case RS_KERNEL:
		if (last->kind == REACH_OUT_ERROR) {
			write_failed(r, last, next);
			return;
		}
		if (last->kind == REACH_OUT_ATTACHED) {
			found(r, next, last->lun, SC_KERNEL_SCAN);
			next->kernel_luns = true;
			reach_say(next,
				  "LUN 0 absent and the REPORT LUNS well-known LUN %s: the kernel "
				  "scanned this one target (C T -), then the quirk database was "
				  "applied to what it attached",
				  r->wlun_result ? r->wlun_result : "unusable");
			return;
		}
		r->state = RS_DONE;
		if (!in->listed) {
			reach_act(next, REACH_NONE, 0, SC_NOT_A_TARGET);
			return;
		}
		reach_act(next, REACH_REPORT, 0, SC_NO_LUN_ANSWERED);
		reach_say(next,
			  "listed by the topology: no LUN answered (not LUN 0, not the REPORT LUNS "
			  "well-known LUN, not the kernel's scan of the target)");
		return;
	default:
		reach_act(next, REACH_NONE, 0, SC_NOT_A_TARGET);
		return;
	}
}

void reach_step(struct reach *r, const struct reach_outcome *last, struct reach_action *next)
{
	static const struct reach_outcome none = { .kind = REACH_OUT_NONE, .max_lun_ok = -1 };

	step(r, last ? last : &none, next);
	next->wlun_impossible = r->wlun_impossible && !r->in.wlun_impossible;
}
