// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * target.c - one target as one pure machine: reach, identify, list, plan,
 * watch for ghosts, clean up. No I/O: every read, write and command is an
 * action for the interpreter (scan.c), and what came of it an observation.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "holdout.h"
#include "luns.h"
#include "target.h"

/* Investigations of targets with more LUNs compare with the first ones. */
#define GHOST_SEEN_MAX 4096

enum phase {
	P_START,
	P_REACH,
	P_INQUIRY,
	P_INQUIRY_SYSFS,
	P_INQUIRY_FULL,
	P_IDENTITY_WWID,
	P_IDENTITY_SERIAL,
	P_FATE,
	P_FATE_UNDO,
	P_LUN0,
	P_REF,
	P_PLAN,
	P_REPORT_LUNS,
	P_PROBE,
	P_BATCH,
	P_ATTACH,
	P_LOST,
	P_OWN_INQUIRY,
	P_REMAP,
	P_REMAP_ATTACH,
	P_REMAP_ATTACHED,
	P_WATCH,
	P_NEXT,
	P_AFTER,
	P_AFTER_LIST,
	P_AFTER_UNDO,
	P_HANDLERS,
	P_AFTER_FATE,
	P_DONE,
};

/* What a probe of the plan is, once its LUN is attached. */
enum probe_kind {
	PROBE_KERNEL, /* the kernel's target scan attached it */
	PROBE_WRITE,  /* this scan's write attached it */
};

const char *target_attr_name(enum target_attr a)
{
	static const char *const names[] = {
		[ATTR_INQUIRY] = "inquiry",
		[ATTR_VPD80] = "vpd_pg80",
		[ATTR_VPD83] = "vpd_pg83",
		[ATTR_WWID] = "wwid",
		[ATTR_DH_STATE] = "dh_state",
		[ATTR_RECORDED_INQUIRY] = "recorded_inquiry",
		[ATTR_RECORDED_VPD80] = "recorded_vpd_pg80",
		[ATTR_RECORDED_VPD83] = "recorded_vpd_pg83",
	};

	return (unsigned int)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

static bool is_stop(int r)
{
	return r == -ETIMEDOUT || r == -ECANCELED;
}

static const char *errtext(int r, const struct target_obs *o)
{
	if (r > 0 && o->why)
		return o->why;
	return strerror(r < 0 ? -r : EIO);
}

/* Sorted LUN lists. */
static bool in_sorted(const uint64_t *v, size_t n, uint64_t lun)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] == lun)
			return true;
		if (v[mid] < lun)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static ssize_t index_sorted(const uint64_t *v, size_t n, uint64_t lun)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] == lun)
			return (ssize_t)mid;
		if (v[mid] < lun)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- releases ---------------------------------------------------------- */

enum release_state {
	RS_BEGIN,
	RS_IN_USE,
	RS_DELETE,
	RS_END,
};

void release_init(struct release *r, enum release_kind kind, const struct removal_evidence *ev,
		  uint64_t lun, enum scan_code code, const char *reason, bool dry_run, bool force)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->ev = *ev;
	r->ev.holders = HOLDERS_NOT_CHECKED;
	r->lun = lun;
	r->code = code;
	r->dry_run = dry_run;
	r->force = force;
	r->state = RS_BEGIN;
	snprintf(r->reason, sizeof(r->reason), "%s", reason);
}

static void rel_line(struct release_line *line, enum lun_outcome o, enum scan_code code,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void rel_line(struct release_line *line, enum lun_outcome o, enum scan_code code,
		     const char *fmt, ...)
{
	va_list ap;

	line->set = true;
	line->outcome = o;
	line->code = code;
	va_start(ap, fmt);
	vsnprintf(line->reason, sizeof(line->reason), fmt, ap);
	va_end(ap);
}

static void rel_act(struct target_action *a, enum target_act kind, uint64_t lun)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->lun = lun;
}

/* The removal rule's verdict on @r with what is known of it now. */
static enum removal_verdict release_verdict(const struct release *r)
{
	struct removal_request rq = { .asked = true, .force = r->force, .dry_run = r->dry_run };

	return may_remove(&r->ev, &rq);
}

void release_step(struct release *r, const struct target_obs *last, struct target_action *next,
		  struct release_line *line)
{
	enum removal_verdict v;

	memset(line, 0, sizeof(*line));
	switch (r->state) {
	case RS_BEGIN:
		/* Not a LUN this scan attached in a dry run: nothing is. */
		if (r->kind == RELEASE_OURS && r->dry_run)
			break;
		v = release_verdict(r);
		if (v == REMOVAL_KEEP_UNTRUSTED) {
			rel_line(line, LUN_PRESENT, r->code, "%s, but %s: kept", r->reason,
				 removal_untrusted_why(&r->ev));
			break;
		}
		if (v == REMOVAL_ASK_HOLDERS) {
			r->state = RS_IN_USE;
			rel_act(next, TARGET_IN_USE, r->lun);
			return;
		}
		goto check_done;
	case RS_IN_USE:
		/* An error while checking is taken as in use. */
		r->ev.holders = last->result == 0  ? HOLDERS_NONE
				: last->result > 0 ? HOLDERS_IN_USE
						   : HOLDERS_UNKNOWN;
		if (release_verdict(r) == REMOVAL_KEEP_IN_USE) {
			const char *held = last->why ? last->why : "in use";

			if (r->kind == RELEASE_DEFERRED)
				rel_line(line, LUN_IN_USE, r->code,
					 "the target shows ghost LUNs, but %s: kept (--force "
					 "deletes it)",
					 held);
			else
				rel_line(line, LUN_IN_USE, r->code,
					 "%s, but %s: kept (--force deletes it)", r->reason, held);
			break;
		}
	check_done:
		if (release_verdict(r) == REMOVAL_WOULD_DELETE) {
			if (r->kind == RELEASE_REFUSED)
				rel_line(line, LUN_WOULD_REMOVE, r->code, "%s", r->reason);
			break;
		}
		r->state = RS_DELETE;
		rel_act(next, TARGET_DELETE, r->lun);
		return;
	case RS_DELETE:
		if (last->result < 0) {
			const char *e = strerror(-last->result);

			if (r->kind == RELEASE_OURS)
				rel_line(line, LUN_FAILED, SC_DELETE_FAILED,
					 "could not delete it again: %s", e);
			else if (r->kind == RELEASE_DEFERRED)
				rel_line(line, LUN_FAILED, r->code, "could not detach it again: %s",
					 e);
			else
				rel_line(line, LUN_FAILED, SC_DELETE_FAILED, "delete failed: %s",
					 e);
			break;
		}
		r->deleted = true;
		if (r->kind == RELEASE_OURS)
			rel_line(line, LUN_DETACHED, r->code, "%s", r->reason);
		else if (r->kind == RELEASE_REFUSED)
			rel_line(line, LUN_REMOVED, r->code, "%s%s", r->reason,
				 r->force ? " (--force)" : "");
		break;
	default:
		break;
	}
	r->state = RS_END;
	rel_act(next, TARGET_DONE, r->lun);
}

/* ---- the machine's own bookkeeping ------------------------------------- */

static int own_add(struct target_machine *m, uint64_t lun)
{
	size_t i;

	if (m->nattached == m->attached_alloc) {
		size_t n = m->attached_alloc ? m->attached_alloc * 2 : 16;
		uint64_t *p = realloc(m->attached, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->attached = p;
		m->attached_alloc = n;
	}
	/* Kept sorted; the plan attaches in ascending order, so this is
	 * mostly an append. */
	i = m->nattached;
	while (i && m->attached[i - 1] > lun)
		i--;
	if (i && m->attached[i - 1] == lun)
		return 0;
	memmove(m->attached + i + 1, m->attached + i, (m->nattached - i) * sizeof(*m->attached));
	m->attached[i] = lun;
	m->nattached++;
	return 0;
}

/* Whether a LUN is attached: before the host's scan, or by this scan. */
static bool exists(const struct target_machine *m, uint64_t lun)
{
	return in_sorted(m->in.before, m->in.nbefore, lun) ||
	       in_sorted(m->attached, m->nattached, lun);
}

static void act(struct target_action *a, enum target_act kind, uint64_t lun)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->lun = lun;
}

static void read_attr(struct target_action *a, uint64_t lun, enum target_attr attr)
{
	act(a, TARGET_READ, lun);
	a->attr = attr;
}

static int line(struct target_machine *m, uint64_t lun, enum lun_outcome o, enum scan_code code,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int line(struct target_machine *m, uint64_t lun, enum lun_outcome o, enum scan_code code,
		const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = report_add_lunv(&m->rep, lun, o, code, fmt, ap);
	va_end(ap);
	if (r < 0 || o != LUN_ATTACHED)
		return r;
	/* What undo_ghosts() and undo_investigation() take back. */
	if (m->nlines == m->lines_alloc) {
		size_t n = m->lines_alloc ? m->lines_alloc * 2 : 16;
		struct own_line *l = realloc(m->lines, n * sizeof(*l));

		if (!l)
			return -ENOMEM;
		m->lines = l;
		m->lines_alloc = n;
	}
	m->lines[m->nlines++] = (struct own_line){ lun, m->rep.nluns - 1, false };
	return 0;
}

/* What the machine knows of the target goes into its report, once, as it
 * ends; until then the report is written, never read. */
static void publish(struct target_machine *m)
{
	struct target_report *t = &m->rep;

	if (m->published || !m->has_report)
		return;
	m->published = true;
	t->probe_lun = m->probe_lun;
	t->probe_new = m->probe_new;
	t->inq = m->inq;
	t->target_attach = m->target_attach;
	t->inquiry_source = m->inquiry_source;
	t->handler = m->handler;
	t->match = m->match;
	memset(&m->match, 0, sizeof(m->match));
	t->mask = m->mask;
	memset(&m->mask, 0, sizeof(m->mask));
	t->kernel_luns = m->kernel_luns;
	t->nkernel_luns = m->nkernel_luns;
	t->kernel_kept = m->kernel_kept;
	m->kernel_luns = NULL;
	m->kernel_kept = NULL;
	t->reported = m->reported;
	t->nreported = m->nreported;
	t->report_read = m->report_read;
	t->report_complete = m->report_complete;
	m->reported = NULL;
}

static void finish(struct target_machine *m, enum target_end_kind end, int error)
{
	publish(m);
	m->phase = P_DONE;
	m->finished = true;
	act(&m->done, TARGET_DONE, 0);
	m->done.end = end;
	m->done.error = error;
}

/* Starts a release on the evidence @ev; when it is done, the machine goes
 * on at @then. */
static void release_on(struct target_machine *m, enum release_kind kind,
		       const struct removal_evidence *ev, uint64_t lun, enum scan_code code,
		       const char *reason, int then)
{
	/* What a dry run attached to look at the target is deleted for real. */
	bool look_undo = kind == RELEASE_OURS && m->in.dry_run && m->reach_in.look &&
			 lun == m->probe_lun && (m->lun0_new || m->temporary || m->probe_new);

	release_init(&m->release, kind, ev, lun, code, reason, m->in.dry_run && !look_undo,
		     m->in.force);
	m->releasing = true;
	m->after_release = then;
}

/* Takes back a LUN this scan attached for its own use. */
static void release(struct target_machine *m, uint64_t lun, enum scan_code code, const char *reason,
		    int then)
{
	static const struct removal_evidence ours = { .cause = REMOVAL_OURS };

	release_on(m, RELEASE_OURS, &ours, lun, code, reason, then);
}

/* Whether @e is one of the hold-outs' entries. */
static bool from_holdouts(const struct target_machine *m, const struct lunmask_entry *e)
{
	const struct lunmask_entry *held;
	size_t n = 0;

	if (!e || !m->in.holdouts)
		return false;
	held = quirk_db_lunmasks(m->in.holdouts, &n);
	return n && e >= held && e < held + n;
}

/* A refused LUN: the policy's entry that decided, or the hold-out's. A
 * hold-out names this target only by its transport's name or its host's
 * stable path; one keyed by driver, channel and id alone could be another
 * HBA's. */
static void release_refused(struct target_machine *m, uint64_t lun, const char *why, int then)
{
	struct removal_evidence ev = { .cause = REMOVAL_REFUSED };
	struct lunmask_verdict v;

	lunmask_decide(&m->mask, lun, &v);
	if (from_holdouts(m, v.entry))
		ev.holdout = holdout_names_host(v.entry) ? HOLDOUT_THIS_HOST : HOLDOUT_OTHER_HOST;
	else
		ev.policy_refuses = !v.allowed;
	release_on(m, RELEASE_REFUSED, &ev, lun, SC_MASKED, why, then);
}

/* ---- the policy -------------------------------------------------------- */

static bool same_entries(const struct lunmask_set *a, const struct lunmask_set *b)
{
	return a->count == b->count &&
	       (!a->count || !memcmp(a->items, b->items, a->count * sizeof(*a->items)));
}

/*
 * The lunmask entries that apply to the target: those of every address
 * that names it, which must be the same. @identity: LUN 0's wwid and
 * serial are known. Return: 0, -ENOTUNIQ, -ENOMEM.
 */
/* The entries of the database, then the hold-outs, that apply to @t. */
static int select_both(const struct target_machine *m, const struct lunmask_target *t,
		       struct lunmask_set *ret)
{
	const struct lunmask_entry *masks, *held;
	struct lunmask_set extra = { 0 };
	const struct lunmask_entry **items;
	size_t n, nheld = 0;
	int r;

	masks = quirk_db_lunmasks(m->in.db, &n);
	held = m->in.holdouts ? quirk_db_lunmasks(m->in.holdouts, &nheld) : NULL;
	r = lunmask_select(masks, n, t, ret);
	if (r < 0 || !nheld)
		return r;
	r = lunmask_select(held, nheld, t, &extra);
	if (r < 0 || !extra.count) {
		lunmask_set_clear(&extra);
		if (r < 0)
			lunmask_set_clear(ret);
		return r;
	}
	items = realloc(ret->items, (ret->count + extra.count) * sizeof(*items));
	if (!items) {
		lunmask_set_clear(&extra);
		lunmask_set_clear(ret);
		return -ENOMEM;
	}
	memcpy(items + ret->count, extra.items, extra.count * sizeof(*items));
	ret->items = items;
	ret->count += extra.count;
	lunmask_set_clear(&extra);
	return 0;
}

static int select_mask(struct target_machine *m, bool identity)
{
	size_t n, nheld = 0, used = 0;
	int r = 0;

	lunmask_set_clear(&m->mask);
	m->rep.policy[0] = '\0';
	quirk_db_lunmasks(m->in.db, &n);
	if (m->in.holdouts)
		quirk_db_lunmasks(m->in.holdouts, &nheld);
	if (!n && !nheld)
		return 0;
	for (size_t i = 0; i < m->in.naddresses && r == 0; i++) {
		struct lunmask_target t = m->in.addresses[i];
		struct lunmask_set other = { 0 };

		if (identity) {
			t.wwid = m->wwid[0] ? m->wwid : NULL;
			t.serial = m->serial[0] ? m->serial : NULL;
		}
		r = select_both(m, &t, i ? &other : &m->mask);
		if (r == 0 && i && !same_entries(&m->mask, &other))
			r = -ENOTUNIQ;
		lunmask_set_clear(&other);
	}
	if (r < 0) {
		lunmask_set_clear(&m->mask);
		return r;
	}
	for (size_t i = 0; i < m->mask.count && used < sizeof(m->rep.policy); i++) {
		const struct lunmask_entry *e = m->mask.items[i];
		int k = snprintf(m->rep.policy + used, sizeof(m->rep.policy) - used,
				 "%s'%s' (%s:%u)", i ? ", " : "", e->title, e->file, e->line);

		used += k > 0 ? (size_t)k : 0;
	}
	return 0;
}

static bool db_uses_identity(const struct quirk_db *db)
{
	const struct lunmask_entry *m;
	size_t n;

	m = quirk_db_lunmasks(db, &n);
	for (size_t i = 0; i < n; i++)
		if (lunmask_entry_uses_identity(&m[i]))
			return true;
	return false;
}

#define NOT_ONE_POLICY                                                                             \
	"not scanned: the transport lists this target id more than once, and the "                 \
	"lunmask entries that apply differ between its addresses: a LUN one of them refuses "      \
	"could be attached through another"

/* Why a LUN's own INQUIRY refuses it: the last entry that set attach. */
static void refusal_reason(char *why, size_t len, const struct inquiry *inq,
			   const struct quirk_match *qm)
{
	const struct quirk_entry *e = NULL;

	for (size_t i = 0; i < qm->count; i++)
		if (qm->sources[i]->attach >= 0)
			e = qm->sources[i];
	snprintf(why, len, "attach = false for this LUN's own INQUIRY (type %d) from %s:%u",
		 inq->pdt, e ? e->file : "?", e ? e->line : 0);
}

/*
 * Whether a LUN's own INQUIRY data refuses it (an entry with a type or
 * revision the LUN the target was reached through does not share).
 * Return: 1 refused (@why says by what), 0 not, or -ENOMEM.
 */
static int refused_by_own(const struct target_machine *m, const uint8_t *data, size_t len,
			  char *why, size_t why_len)
{
	struct quirk_match qm = { 0 };
	struct quirk_device dev;
	struct inquiry inq;
	int r;

	if (inquiry_decode(data, len, &inq) < 0)
		return 0;
	dev = quirk_device_from_inquiry(&inq);
	r = quirk_db_match(m->in.db, &dev, &qm);
	if (r < 0)
		return r;
	r = !qm.attach;
	if (r)
		refusal_reason(why, why_len, &inq, &qm);
	quirk_match_clear(&qm);
	return r;
}

/* ---- reaching the target ----------------------------------------------- */

static int start(struct target_machine *m)
{
	struct reach_input *in = &m->reach_in;
	uint64_t lun0 = 0;
	int r;

	r = select_mask(m, false);
	if (r == -ENOTUNIQ) {
		m->has_report = true;
		report_fail(&m->rep, "%s", NOT_ONE_POLICY);
		finish(m, TARGET_END_FOUND, 0);
		return 0;
	}
	if (r < 0)
		return r;
	memset(in, 0, sizeof(*in));
	in->dry_run = m->in.dry_run;
	in->look = m->in.dry_run && m->in.look;
	in->listed = m->in.listed;
	in->wlun_impossible = m->in.wlun_impossible;
	if (m->in.nbefore) {
		in->other_attached = true;
		in->other_lun = m->in.before[0];
	}
	in->lun0_attached = in_sorted(m->in.before, m->in.nbefore, lun0);
	lunmask_decide(&m->mask, 0, &m->v0);
	in->lun0_allowed = m->v0.allowed;
	if (!m->v0.allowed)
		lunmask_describe(&m->v0, 0, m->lun0_why, sizeof(m->lun0_why));
	in->lun0_why = m->lun0_why;
	in->allowed = lunmask_next_allowed(&m->mask, UINT64_MAX, &in->first_allowed);
	in->mask = &m->mask;
	in->restricts = lunmask_restricts(&m->mask);
	in->known = m->in.known;
	in->nknown = m->in.nknown;
	{
		struct lunmask_verdict vw;

		/* The well-known LUN is no unit an upper-level driver takes:
		 * allow lists do not keep it out, an explicit exclusion does. */
		lunmask_decide(&m->mask, LUN_WLUN_REPORT_LUNS, &vw);
		in->wlun_excluded = vw.rule == LUNMASK_EXCLUDED;
	}
	if (m->in.has_only_lun) {
		lunmask_decide(&m->mask, m->in.only_lun, &m->vsel);
		in->selected_refused = !m->vsel.allowed && !exists(m, m->in.only_lun);
	}
	reach_init(&m->reach, in);
	m->phase = P_REACH;
	return 0;
}

static void found_report(struct target_machine *m)
{
	m->has_report = true;
	m->rep.addr = m->in.addr;
	m->rep.addr.lun = 0;
	if (m->in.found_reason) {
		snprintf(m->rep.found_reason, sizeof(m->rep.found_reason), "%s",
			 m->in.found_reason);
		m->rep.found_code = m->in.found_code;
	}
}

/* The reach machine's next step, from what came of its last write. */
static int reach(struct target_machine *m, const struct target_obs *o, struct target_action *next)
{
	struct reach_outcome ro = { .kind = REACH_OUT_NONE, .max_lun_ok = m->max_lun_ok };
	struct reach_action ra;

	if (o) {
		m->max_lun_ok = o->max_lun_ok;
		ro.max_lun_ok = o->max_lun_ok;
		if (o->result == -EINVAL) {
			ro.kind = REACH_OUT_EINVAL;
		} else if (o->result < 0) {
			ro.kind = REACH_OUT_ERROR;
			ro.error = o->result;
			ro.stopped = is_stop(o->result);
			if (ro.stopped)
				snprintf(m->stop_why, sizeof(m->stop_why), "%s",
					 o->why ? o->why : "");
		} else if (m->sub == TARGET_KERNEL_SCAN) {
			ro.kind = o->nluns ? REACH_OUT_ATTACHED : REACH_OUT_EMPTY;
			if (o->nluns) {
				ro.lun = o->luns[0];
				free(m->kernel_luns);
				m->kernel_luns = malloc(o->nluns * sizeof(uint64_t));
				if (!m->kernel_luns)
					return -ENOMEM;
				memcpy(m->kernel_luns, o->luns, o->nluns * sizeof(uint64_t));
				m->nkernel_luns = o->nluns;
			}
		} else {
			ro.kind = o->attached ? REACH_OUT_ATTACHED : REACH_OUT_EMPTY;
		}
	}
	reach_step(&m->reach, o ? &ro : NULL, &ra);
	if (ra.wlun_impossible)
		m->wlun_impossible = true;
	switch (ra.kind) {
	case REACH_WRITE:
		m->sub = ra.kernel_scan ? TARGET_KERNEL_SCAN : TARGET_ATTACH;
		act(next, m->sub, ra.lun);
		return 1;
	case REACH_NONE:
		finish(m, TARGET_END_NONE, 0);
		return 0;
	case REACH_LIMIT:
		finish(m, TARGET_END_LIMIT, 0);
		return 0;
	case REACH_ABORT:
		finish(m, TARGET_END_ABORT, ra.error);
		return 0;
	case REACH_REPORT:
		/* Reported without a scan: the policy's entries are in words. */
		lunmask_set_clear(&m->mask);
		found_report(m);
		m->rep.end_code = ra.code;
		if (ra.code == SC_SELECTED_REFUSED) {
			char why[PLAN_REASON_LEN];

			lunmask_describe(&m->vsel, m->in.only_lun, why, sizeof(why));
			snprintf(m->rep.end_reason, sizeof(m->rep.end_reason),
				 "only LUN %" PRIu64 " selected, and the policy refuses it",
				 m->in.only_lun);
			if (line(m, m->in.only_lun, LUN_SKIPPED, SC_MASKED, "%s", why) < 0)
				return -ENOMEM;
			finish(m, TARGET_END_FOUND, 0);
			return 0;
		}
		if (ra.code == SC_STOPPED)
			report_fail(&m->rep, "%s", m->stop_why);
		else if (ra.failed)
			report_fail(&m->rep, "%s", ra.reason);
		else
			snprintf(m->rep.end_reason, sizeof(m->rep.end_reason), "%s", ra.reason);
		finish(m, TARGET_END_FOUND, ra.error == -ECANCELED ? -ECANCELED : 0);
		return 0;
	case REACH_FOUND:
		break;
	}
	found_report(m);
	m->probe_new = ra.probe_new;
	m->rep.reach_code = ra.code;
	snprintf(m->rep.reach_reason, sizeof(m->rep.reach_reason), "%s", ra.reason);
	m->probe_lun = ra.lun;
	m->temporary = ra.temporary;
	m->lun0_new = ra.lun0_new;
	if (!ra.kernel_luns) {
		free(m->kernel_luns);
		m->kernel_luns = NULL;
		m->nkernel_luns = 0;
	} else {
		m->kernel_kept = calloc(m->nkernel_luns, sizeof(bool));
		if (!m->kernel_kept)
			return -ENOMEM;
	}
	/* What this scan attached to reach it is its own to take back. */
	if ((ra.lun0_new || ra.temporary || ra.probe_new) && own_add(m, ra.lun) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m->nkernel_luns; i++)
		if (!in_sorted(m->in.before, m->in.nbefore, m->kernel_luns[i]) &&
		    own_add(m, m->kernel_luns[i]) < 0)
			return -ENOMEM;
	m->phase = P_INQUIRY;
	return 0;
}

/* ---- identifying it ---------------------------------------------------- */

static int matched(struct target_machine *m)
{
	struct quirk_device dev = quirk_device_from_inquiry(&m->inq);
	int r;

	m->rep.has_inquiry = true;
	r = quirk_db_match(m->in.db, &dev, &m->match);
	if (r < 0)
		return r;
	m->target_attach = true;
	for (size_t i = 0; i < m->match.count; i++)
		if (m->match.sources[i]->type < 0 && m->match.sources[i]->attach >= 0)
			m->target_attach = m->match.sources[i]->attach;
	handler_choose(&m->match, m->inq.tpgs, &m->handler);
	return 0;
}

/* INQUIRY failed both ways: the target fails; what this scan attached
 * only to reach it goes again. */
static void inquiry_failed(struct target_machine *m, const char *why)
{
	report_fail(&m->rep, "INQUIRY failed: %s", why);
	m->error = -EIO;
	if (m->reach_in.look && m->in.dry_run && (m->lun0_new || m->probe_new)) {
		release(m, m->probe_lun, SC_LOOK_ONLY,
			"attached only for this dry run's look at the target", P_DONE);
		return;
	}
	if (m->temporary) {
		release(m, m->probe_lun, SC_REACH_ONLY,
			"the REPORT LUNS well-known LUN, attached only to reach the target",
			P_DONE);
		return;
	}
	m->phase = P_DONE;
}

/* ---- a remapped LUN ---------------------------------------------------- */

/*
 * An attached LUN held against the unit the kernel attached: the identity
 * recorded when the LUN was first seen attached (made from the kernel's
 * copies, which any rescan write refreshes) against the device's answer
 * now. A page is asked of the device only where the record holds it (the
 * kernel asked that device for it already, quirks and all); the strongest
 * evidence both sides have decides (remap_judge()). The evidence, strongest
 * first: the record's page, and the device's.
 */
static const struct remap_level {
	enum target_attr recorded;
	uint8_t page; /* 0: the standard INQUIRY data */
} remap_levels[] = {
	{ ATTR_RECORDED_VPD83, 0x83 },
	{ ATTR_RECORDED_VPD80, 0x80 },
	{ ATTR_RECORDED_INQUIRY, 0 },
};

#define REMAP_LEVELS (sizeof(remap_levels) / sizeof(remap_levels[0]))

struct remap_check {
	uint64_t lun;
	int then;
	size_t level;
	bool asked_device;
	enum remap_verdict verdict;
	struct lun_identity was;
	struct lun_identity now;
	char what[IDENTITY_EVIDENCE_LEN];
};

/* Whether @lun, attached before this scan, is checked for another unit:
 * not the LUN the target was reached through when its INQUIRY failed (a
 * device that timed out once is not asked again). */
static bool checks_identity(const struct target_machine *m, uint64_t lun)
{
	if (!m->in.check_identity || !in_sorted(m->in.before, m->in.nbefore, lun))
		return false;
	return lun != m->probe_lun || m->inquiry_source == INQUIRY_FROM_SGIO;
}

/* Starts the check of @lun; the machine goes on at @then (P_NEXT: a probe
 * of the plan, with the ghost watch; P_REF: LUN 0, before the plan). */
static int remap_start(struct target_machine *m, uint64_t lun, int then)
{
	if (!m->remap) {
		m->remap = malloc(sizeof(*m->remap));
		if (!m->remap)
			return -ENOMEM;
	}
	memset(m->remap, 0, sizeof(*m->remap));
	m->remap->lun = lun;
	m->remap->then = then;
	/* What the target's INQUIRY through this LUN answered is its answer
	 * now: not asked twice. */
	if (lun == m->probe_lun && m->probe_inquiry_len)
		identity_set_inquiry(&m->remap->now, m->probe_inquiry, m->probe_inquiry_len);
	m->phase = P_REMAP;
	return 0;
}

static void vpd(struct target_action *a, uint64_t lun, uint8_t page)
{
	act(a, TARGET_VPD, lun);
	a->page = page;
	a->len = VPD_PAGE_MAX - 4;
}

/* Sets one page of @id; 0, or -EINVAL when it does not decode. */
static int set_page(struct lun_identity *id, uint8_t page, const uint8_t *data, size_t len)
{
	if (page == 0x83)
		return identity_set_vpd83(id, data, len);
	if (page == 0x80)
		return identity_set_vpd80(id, data, len);
	identity_set_inquiry(id, data, len);
	return 0;
}

static bool has_page(const struct lun_identity *id, uint8_t page)
{
	return page == 0x83   ? id->ndesignators > 0
	       : page == 0x80 ? id->has_serial
			      : id->has_inquiry;
}

/* The record's page of the next level, or judged when none is left. */
static int next_level(struct remap_check *c, struct target_action *next)
{
	if (++c->level == REMAP_LEVELS) {
		c->verdict = REMAP_UNKNOWN;
		return 0;
	}
	c->asked_device = false;
	read_attr(next, c->lun, remap_levels[c->level].recorded);
	return 1;
}

/* One step of the check (@o answers the last action, NULL at first).
 * Return: 1 with an action in @next, 0 judged. */
static int remap_next(struct remap_check *c, const struct target_obs *o, struct target_action *next)
{
	const struct remap_level *l = &remap_levels[c->level];

	if (!o) {
		read_attr(next, c->lun, l->recorded);
		return 1;
	}
	if (!c->asked_device) {
		/* No record of this page: the next, weaker, evidence. */
		if (o->result <= 0 || set_page(&c->was, l->page, o->data, o->len) < 0)
			return next_level(c, next);
		/* The target's INQUIRY through this LUN is its answer now. */
		if (!l->page && c->now.has_inquiry) {
			c->verdict = remap_judge(&c->was, &c->now, c->what, sizeof(c->what));
			return 0;
		}
		c->asked_device = true;
		if (l->page) {
			vpd(next, c->lun, l->page);
		} else {
			act(next, TARGET_INQUIRY, c->lun);
			next->len = INQUIRY_MIN_LEN;
		}
		return 1;
	}
	if (o->result == 0)
		set_page(&c->now, l->page, o->data, o->len);
	c->verdict = remap_judge(&c->was, &c->now, c->what, sizeof(c->what));
	/* Decided, or the device did not answer a page the record says it
	 * has: no more commands to it. */
	if (c->verdict != REMAP_UNKNOWN || !has_page(&c->now, l->page))
		return 0;
	return next_level(c, next);
}

/* ---- the ghost watch --------------------------------------------------- */

enum watch_state {
	W_ALL_INQUIRY,
	W_ALL_VPD80,
	W_ALL_VPD83,
	W_VPD83,
	W_PREV_INQUIRY,
	W_PREV_VPD80,
	W_PREV_VPD83,
	W_INQUIRY,
	W_VPD80,
	W_JUDGE,
	W_NONE,
};

static int remember(struct ghost_watch *w, const struct lun_identity *id, uint64_t lun)
{
	struct lun_identity *s;
	uint64_t *l;

	if (!w->all || w->nseen == GHOST_SEEN_MAX)
		return 0;
	s = realloc(w->seen, (w->nseen + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	w->seen = s;
	l = realloc(w->seen_lun, (w->nseen + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	w->seen_lun = l;
	w->seen[w->nseen] = *id;
	w->seen_lun[w->nseen++] = lun;
	return 0;
}

/* Whether @id's INQUIRY data equals the reference's or the last LUN's:
 * otherwise its VPD pages cannot change the verdict. */
static bool inquiry_seen(const struct ghost_watch *w, const struct lun_identity *id)
{
	return (w->has_ref && id->inquiry_len == w->ref.inquiry_len &&
		!memcmp(id->inquiry, w->ref.inquiry, id->inquiry_len)) ||
	       (w->has_prev && id->inquiry_len == w->prev->inquiry_len &&
		!memcmp(id->inquiry, w->prev->inquiry, id->inquiry_len));
}

/* The reads of the last LUN's identity that it lacks: INQUIRY (without it,
 * the rest is not read and it stays partial), VPD 0x80, VPD 0x83. */
static int watch_prev(struct target_machine *m, const struct target_obs *o,
		      struct target_action *next)
{
	struct ghost_watch *w = m->watch;
	struct lun_identity *prev = w->prev;

	switch (m->watch_state) {
	case W_PREV_INQUIRY:
		if (o) {
			if (o->result <= 0)
				goto cur;
			identity_set_inquiry(prev, o->data, o->len);
		}
		if (!prev->has_serial) {
			m->watch_state = W_PREV_VPD80;
			read_attr(next, w->prev_lun, ATTR_VPD80);
			return 1;
		}
		o = NULL;
		/* fall through */
	case W_PREV_VPD80:
		if (o && o->result > 0)
			identity_set_vpd80(prev, o->data, o->len);
		if (!prev->ndesignators) {
			m->watch_state = W_PREV_VPD83;
			read_attr(next, w->prev_lun, ATTR_VPD83);
			return 1;
		}
		o = NULL;
		/* fall through */
	case W_PREV_VPD83:
		if (o && o->result > 0)
			identity_set_vpd83(prev, o->data, o->len);
		w->prev_partial = false;
		break;
	default:
		break;
	}
cur:
	m->watch_state = W_INQUIRY;
	read_attr(next, m->act.lun, ATTR_INQUIRY);
	return 1;
}

/*
 * The next read of the watch over LUN @m->act.lun, from the last one:
 * VPD 0x83 first, which alone tells apart the LUNs of an array; then
 * INQUIRY; the serial only when both leave a doubt. The last LUN's
 * identity may be partial so: before it is judged against, it is read
 * whole. Return: 1 with a read in @next, 0 when the reads are done
 * (m->watch_state W_JUDGE, or W_NONE when the identity could not be read).
 */
static int watch_next(struct target_machine *m, const struct target_obs *o,
		      struct target_action *next)
{
	struct ghost_watch *w = m->watch;
	struct lun_identity *cur = w->cur;
	uint64_t lun = m->act.lun;
	bool prev_counts = w->has_prev && w->prev_lun != w->ref_lun;

	switch (m->watch_state) {
	case W_ALL_INQUIRY:
		if (!o) {
			read_attr(next, lun, ATTR_INQUIRY);
			return 1;
		}
		if (o->result <= 0) {
			m->watch_state = W_NONE;
			return 0;
		}
		identity_set_inquiry(cur, o->data, o->len);
		m->watch_state = W_ALL_VPD80;
		read_attr(next, lun, ATTR_VPD80);
		return 1;
	case W_ALL_VPD80:
		if (o->result > 0)
			identity_set_vpd80(cur, o->data, o->len);
		m->watch_state = W_ALL_VPD83;
		read_attr(next, lun, ATTR_VPD83);
		return 1;
	case W_ALL_VPD83:
		if (o->result > 0)
			identity_set_vpd83(cur, o->data, o->len);
		m->watch_verdict = 0;
		m->watch_state = W_JUDGE;
		return 0;
	case W_VPD83:
		if (!o) {
			read_attr(next, lun, ATTR_VPD83);
			return 1;
		}
		if (o->result > 0)
			identity_set_vpd83(cur, o->data, o->len);
		if (identity_designators_differ(&w->ref, cur) &&
		    (!prev_counts || identity_designators_differ(w->prev, cur))) {
			m->watch_verdict = 1;
			m->watch_state = W_JUDGE;
			return 0;
		}
		if (prev_counts && w->prev_partial) {
			/* The last LUN, read whole before it is judged against. */
			if (!w->prev->has_inquiry) {
				m->watch_state = W_PREV_INQUIRY;
				read_attr(next, w->prev_lun, ATTR_INQUIRY);
				return 1;
			}
			m->watch_state = W_PREV_INQUIRY;
			return watch_prev(m, NULL, next);
		}
		m->watch_state = W_INQUIRY;
		read_attr(next, lun, ATTR_INQUIRY);
		return 1;
	case W_PREV_INQUIRY:
	case W_PREV_VPD80:
	case W_PREV_VPD83:
		return watch_prev(m, o, next);
	case W_INQUIRY:
		if (o->result <= 0) {
			m->watch_state = W_NONE;
			return 0;
		}
		identity_set_inquiry(cur, o->data, o->len);
		if (!inquiry_seen(w, cur)) {
			m->watch_verdict = 1;
			m->watch_state = W_JUDGE;
			return 0;
		}
		m->watch_state = W_VPD80;
		read_attr(next, lun, ATTR_VPD80);
		return 1;
	case W_VPD80:
		if (o->result > 0)
			identity_set_vpd80(cur, o->data, o->len);
		m->watch_verdict = 0;
		m->watch_state = W_JUDGE;
		return 0;
	default:
		return 0;
	}
}

static int add_ghost(struct target_machine *m, uint64_t lun, uint64_t same_as,
		     const struct ghost_evidence *ev)
{
	struct target_report *t = &m->rep;
	struct ghost_report *g = realloc(t->ghosts, (t->nghosts + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	t->ghosts = g;
	g = &t->ghosts[t->nghosts++];
	g->lun = lun;
	g->same_as = same_as;
	g->evidence = *ev;
	m->last_ghost = *g;
	return 0;
}

/* Judges the LUN just read against the reference and the last LUN (or, in
 * an investigation, every earlier one): @m->out is marked as a ghost when
 * its identity repeats one of theirs. */
static int watch_judge(struct target_machine *m)
{
	struct ghost_watch *w = m->watch;
	struct lun_identity *older;
	enum ghost_verdict verdict;
	struct ghost_evidence ev;
	uint64_t lun = m->act.lun;
	size_t n = w->all ? w->nseen : 2;
	int r;

	if (!w->has_ref) {
		w->ref = *w->cur;
		w->ref_lun = lun;
		w->has_ref = true;
		return remember(w, w->cur, lun);
	}
	if (m->watch_verdict == 1)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct lun_identity *against = w->all ? &w->seen[i] : i ? w->prev : &w->ref;
		uint64_t against_lun = w->all ? w->seen_lun[i] : i ? w->prev_lun : w->ref_lun;

		if (!w->all && i == 1 && (!w->has_prev || w->prev_lun == w->ref_lun))
			break;
		verdict = ghost_verdict(against, w->cur);
		m->rep.unknown_identity |= verdict == GHOST_UNKNOWN;
		if (verdict != GHOST_SAME && verdict != GHOST_CONFLICT)
			continue;
		ghost_judge(against, w->cur, &ev);
		if (add_ghost(m, lun, against_lun, &ev) < 0)
			return -ENOMEM;
		m->out.ghost = ev.verdict == GHOST_SAME;
		m->out.ghost_of = against_lun;
		break;
	}
	r = remember(w, w->cur, lun);
	/* The LUN just judged becomes the last one, without a copy. */
	older = w->prev;
	w->prev = w->cur;
	w->cur = older;
	w->prev_lun = lun;
	w->has_prev = true;
	w->prev_partial = m->watch_verdict == 1;
	return r;
}

/* Starts watching the LUN of the probe just done. */
static void watch_start(struct target_machine *m)
{
	struct ghost_watch *w = m->watch;

	identity_reset(w->cur);
	m->watch_state = w->all || !w->has_ref ? W_ALL_INQUIRY : W_VPD83;
	m->phase = P_WATCH;
}

/* ---- the plan ---------------------------------------------------------- */

/* A LUN the lunmask policy refuses: skipped; one attached now stays unless
 * --remove (and is not in use). Return: 1 a release was started. */
static int masked(struct target_machine *m, uint64_t lun, const char *why, int then)
{
	if (!exists(m, lun))
		return line(m, lun, LUN_SKIPPED, SC_MASKED, "%s", why) < 0 ? -ENOMEM : 0;
	if (!m->in.remove && !m->in.remove_refused)
		return line(m, lun, LUN_PRESENT, SC_MASKED,
			    "attached, but %s: left alone (--remove detaches it)", why) < 0
			       ? -ENOMEM
			       : 0;
	release_refused(m, lun, why, then);
	return 1;
}

static int fate_and_plan(struct target_machine *m)
{
	struct target_report *t = &m->rep;
	struct plan_input *in = &m->plan_in;
	char refusal[PLAN_REASON_LEN] = "";

	lunmask_decide(&m->mask, 0, &m->v0);
	if (!m->v0.allowed)
		lunmask_describe(&m->v0, 0, m->lun0_why, sizeof(m->lun0_why));
	memset(in, 0, sizeof(*in));
	in->mask = &m->mask;
	in->scsi_level = m->inq.scsi_level;
	in->flags = m->match.flags;
	in->max_lun = m->match.max_lun;
	in->attach = m->target_attach;
	in->max_luns = m->in.max_luns;
	in->driver = m->in.driver;
	in->has_only_lun = m->in.has_only_lun;
	in->only_lun = m->in.only_lun;
	in->probe_lun = m->probe_lun;
	in->attach_ghosts = m->in.attach_ghosts || m->in.investigate;
	in->investigate = m->in.investigate;
	in->lun0_present = m->probe_lun == 0 || exists(m, 0);
	if (!m->match.attach)
		refusal_reason(refusal, sizeof(refusal), &m->inq, &m->match);
	plan_reach_fate(&(struct plan_reach_input){ .probe_lun = m->probe_lun,
						    .temporary = m->temporary,
						    .lun0_new = m->lun0_new,
						    .probe_new = m->probe_new,
						    .look = m->in.dry_run && m->reach_in.look,
						    .attach = in->attach,
						    .lun0_attach = m->match.attach,
						    .refusal = refusal,
						    .has_only_lun = m->in.has_only_lun,
						    .only_lun = m->in.only_lun },
			&m->fate);
	if (!in->attach) {
		snprintf(t->end_reason, sizeof(t->end_reason),
			 "attach = false in the quirk database: no LUN is attached");
		t->end_code = SC_ATTACH_FALSE;
		m->ki = 0;
		if (m->fate.detach)
			release(m, m->probe_lun, m->fate.code, m->fate.reason, P_FATE_UNDO);
		else
			m->phase = P_FATE_UNDO;
		return 0;
	}
	m->phase = P_LUN0;
	return 0;
}

static void lun_done(struct target_machine *m, enum plan_outcome_kind kind)
{
	m->out.kind = kind;
	m->phase = P_NEXT;
}

/* Whether the LUN of the probe just done is watched for ghosts. */
static bool watched(const struct target_machine *m, enum lun_outcome last)
{
	/* The reference itself (a target reached through a LUN the kernel's
	 * target scan attached, which the plan lists again) is no ghost of
	 * itself. */
	if (m->watch->has_ref && m->act.lun == m->watch->ref_lun)
		return false;
	return m->out.kind == PLAN_OUT_PRESENT &&
	       (last == LUN_ATTACHED || (m->in.investigate && last == LUN_PRESENT));
}

/* A probe of a LUN the kernel's target scan attached (@k its index). */
static int probe_kernel_lun(struct target_machine *m, ssize_t k)
{
	m->kernel_kept[k] = true;
	m->out.kind = PLAN_OUT_PRESENT;
	if (quirk_db_refuses_per_lun(m->in.db)) {
		m->sub = PROBE_KERNEL;
		m->phase = P_OWN_INQUIRY;
		return 0;
	}
	/* Our own writes of the policy's LUNs say what writes one by one say. */
	if (m->batch_kind == PLAN_BATCH_LUNS
		    ? line(m, m->act.lun, LUN_ATTACHED, m->act.code, "%s", m->act.reason) < 0
		    : line(m, m->act.lun, LUN_ATTACHED, SC_KERNEL_SCAN,
			   "%s (attached by the kernel's scan of this target, as the database "
			   "agrees)",
			   m->act.reason) < 0)
		return -ENOMEM;
	if (watched(m, LUN_ATTACHED))
		watch_start(m);
	else
		m->phase = P_NEXT;
	return 0;
}

/* A LUN attached before, left as it is; the machine goes on at @then (a
 * probe of the plan, P_NEXT, with the ghost watch). */
static int present(struct target_machine *m, uint64_t lun, int then)
{
	if (line(m, lun, LUN_PRESENT, SC_ALREADY_ATTACHED, "already attached; left alone") < 0)
		return -ENOMEM;
	if (then == P_NEXT && watched(m, LUN_PRESENT))
		watch_start(m);
	else
		m->phase = then;
	return 0;
}

/* The check of an attached LUN is judged: another unit answers at it is
 * deleted and attached again, unless in use; anything else is present. */
static int remap_judged(struct target_machine *m)
{
	struct remap_check *c = m->remap;
	char reason[PLAN_REASON_LEN];

	if (c->verdict != REMAP_CHANGED)
		return present(m, c->lun, c->then);
	snprintf(reason, sizeof(reason), "remapped, another unit answers at it: %s", c->what);
	if (m->in.dry_run) {
		m->phase = c->then;
		return line(m, c->lun, LUN_WOULD_REMOVE, SC_REMAPPED,
			    "%s; a scan deletes it and attaches it again", reason) < 0
			       ? -ENOMEM
			       : 0;
	}
	release_on(m, RELEASE_REMAPPED,
		   &(struct removal_evidence){ .cause = REMOVAL_REMAPPED,
					       .identity = IDENTITY_DIFFERENT },
		   c->lun, SC_REMAPPED, reason, P_REMAP_ATTACH);
	return 0;
}

/* The read asked first once the LUN of @next is attached, for the
 * interpreter to do with the write: its own INQUIRY when the database
 * refuses by type (P_OWN_INQUIRY), else the ghost watch's first read
 * (watch_start()). */
static void read_after_attach(struct target_machine *m, struct target_action *next)
{
	const struct ghost_watch *w = m->watch;

	if (quirk_db_refuses_per_lun(m->in.db))
		next->attr = ATTR_INQUIRY;
	else if (w->has_ref && next->lun == w->ref_lun)
		return;
	else
		next->attr = w->all || !w->has_ref ? ATTR_INQUIRY : ATTR_VPD83;
	next->read_after = true;
	m->ahead.asked = true;
	m->ahead.lun = next->lun;
	m->ahead.attr = next->attr;
}

/* A probe of the plan: the LUN attached already, or one to write. Return:
 * 1 with an action in @next. */
static int probe(struct target_machine *m, struct target_action *next)
{
	const struct plan_action *a = &m->act;
	ssize_t k = index_sorted(m->kernel_luns, m->nkernel_luns, a->lun);

	m->wrote = false;
	if (k >= 0)
		return probe_kernel_lun(m, k);
	if (a->lun == m->probe_lun && m->probe_new) {
		m->out.kind = PLAN_OUT_PRESENT;
		if (line(m, a->lun, LUN_ATTACHED, SC_REACHED_THROUGH,
			 "%s (the target was reached through it)", a->reason) < 0)
			return -ENOMEM;
		if (watched(m, LUN_ATTACHED))
			watch_start(m);
		else
			m->phase = P_NEXT;
		return 0;
	}
	if (in_sorted(m->in.before, m->in.nbefore, a->lun) || a->lun == m->probe_lun) {
		m->out.kind = PLAN_OUT_PRESENT;
		/* Attached before this scan: still the unit the kernel has? */
		if (checks_identity(m, a->lun))
			return remap_start(m, a->lun, P_NEXT);
		return present(m, a->lun, P_NEXT);
	}
	if (m->in.dry_run) {
		/* Unknown until probed: a sequential plan goes on as if it were
		 * a gap, so the dry run shows where a real scan would stop. */
		lun_done(m, PLAN_OUT_ABSENT);
		return line(m, a->lun, LUN_WOULD_PROBE, a->code, "%s", a->reason) < 0 ? -ENOMEM : 0;
	}
	if (!lun_scan_writable(a->lun)) {
		lun_done(m, PLAN_OUT_ABSENT);
		return line(m, a->lun, LUN_FAILED, SC_NOT_WRITABLE,
			    "LUN 0x%" PRIx64 " cannot be named in the scan file", a->lun) < 0
			       ? -ENOMEM
			       : 0;
	}
	m->wrote = true;
	m->phase = P_ATTACH;
	act(next, TARGET_ATTACH, a->lun);
	read_after_attach(m, next);
	return 1;
}

/* What came of the write of a planned LUN. */
static int attached(struct target_machine *m, const struct target_obs *o,
		    struct target_action *next)
{
	const struct plan_action *a = &m->act;

	m->max_lun_ok = o->max_lun_ok;
	m->probe_ms = o->ms;
	if (o->result == -EINVAL) {
		lun_done(m, PLAN_OUT_LIMIT);
		return line(m, a->lun, LUN_LIMIT, SC_HOST_LIMIT,
			    "the host refuses this LUN (EINVAL): past its LUN limit") < 0
			       ? -ENOMEM
			       : 0;
	}
	if (is_stop(o->result)) {
		lun_done(m, PLAN_OUT_ABSENT);
		return line(m, a->lun, LUN_FAILED, SC_BOUND, "not tried: %s",
			    o->why ? o->why : "") < 0
			       ? -ENOMEM
			       : 0;
	}
	if (o->result < 0) {
		lun_done(m, PLAN_OUT_ABSENT);
		return line(m, a->lun, LUN_FAILED, SC_WRITE_FAILED, "scan write failed: %s",
			    strerror(-o->result)) < 0
			       ? -ENOMEM
			       : 0;
	}
	if (o->attached) {
		if (m->ahead.asked && o->read_result != 0) {
			m->ahead.valid = true;
			m->ahead.result = o->read_result;
			m->ahead.data = o->data;
			m->ahead.len = o->len;
		}
		if (own_add(m, a->lun) < 0)
			return -ENOMEM;
		m->out.kind = PLAN_OUT_PRESENT;
		if (quirk_db_refuses_per_lun(m->in.db)) {
			m->sub = PROBE_WRITE;
			m->phase = P_OWN_INQUIRY;
			return 0;
		}
		if (line(m, a->lun, LUN_ATTACHED, a->code, "%s", a->reason) < 0)
			return -ENOMEM;
		if (watched(m, LUN_ATTACHED))
			watch_start(m);
		else
			m->phase = P_NEXT;
		return 0;
	}
	m->out.kind = PLAN_OUT_ABSENT;
	if (m->in.transport) {
		/* Nothing answered: the transport may have lost the target, and
		 * every later write would go nowhere until it is back. */
		m->phase = P_LOST;
		act(next, TARGET_LOST, a->lun);
		return 1;
	}
	m->phase = P_NEXT;
	return line(m, a->lun, LUN_ABSENT, a->code, "%s; no logical unit answered", a->reason) < 0
		       ? -ENOMEM
		       : 0;
}

/* What came of REPORT LUNS. */
static int report_luns(struct target_machine *m, const struct target_obs *o)
{
	struct target_report *t = &m->rep;
	char *why = m->out_why;
	size_t needed;
	int r;

	memset(&m->out, 0, sizeof(m->out));
	m->out.kind = PLAN_OUT_FAILED;
	m->out.why = why;
	m->phase = P_NEXT;
	if (o->result == -ENOENT && !o->data) {
		snprintf(why, PLAN_REASON_LEN, "no sg or bsg node");
		return 0;
	}
	if (o->result != 0 && m->nkernel_luns) {
		/* Only LUN 0 and the well-known LUN must answer REPORT LUNS; the
		 * kernel asked through a LUN 0 we cannot reach, so what it
		 * attached is the target's list. */
		free(m->reported);
		m->reported = malloc(m->nkernel_luns * sizeof(*m->reported));
		if (!m->reported)
			return -ENOMEM;
		memcpy(m->reported, m->kernel_luns, m->nkernel_luns * sizeof(*m->reported));
		m->nreported = m->nkernel_luns;
		m->report_read = true;
		m->report_complete = true;
		m->out.kind = PLAN_OUT_REPORT_LUNS;
		m->out.luns = m->reported;
		m->out.count = m->nreported;
		return 0;
	}
	/* No sense data from either command: nothing answered (the device is
	 * gone, or the transport lost it). Probing LUN by LUN would only add
	 * timeouts. */
	if (o->result != 0 && !(o->result > 0 && o->has_sense) &&
	    m->inquiry_source != INQUIRY_FROM_SGIO) {
		report_fail(t, "the device does not answer: INQUIRY and REPORT LUNS failed (%s)",
			    errtext(o->result, o));
		m->error = -EIO;
		m->phase = P_AFTER;
		return 0;
	}
	if (o->result != 0) {
		snprintf(why, PLAN_REASON_LEN, "%s", errtext(o->result, o));
		t->report_luns_failed = true;
		snprintf(t->report_luns_error, sizeof(t->report_luns_error), "%s", why);
		return 0;
	}
	free(m->reported);
	m->reported = NULL;
	r = report_luns_decode(o->data, o->len, &m->reported, &m->nreported, &needed,
			       &m->report_complete);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		snprintf(why, PLAN_REASON_LEN, "malformed response");
		t->report_luns_failed = true;
		snprintf(t->report_luns_error, sizeof(t->report_luns_error), "%s", why);
		return 0;
	}
	m->report_read = true;
	m->out.kind = PLAN_OUT_REPORT_LUNS;
	m->out.luns = m->reported;
	m->out.count = m->nreported;
	return 0;
}

/* The ghosts end the scan: the LUNs it attached, but for the one the target
 * was reached through, go again when the host's scan is over (with one LUN
 * left on the host, every later probe of an empty id would make the
 * kernel switch its tag set between one queue and shared tags). */
static int defer(struct target_machine *m, struct own_line *line)
{
	struct target_deferred *d = realloc(m->deferred, (m->ndeferred + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	m->deferred = d;
	m->deferred[m->ndeferred++] = (struct target_deferred){ line->lun, line->line };
	line->undone = true;
	return 0;
}

static int undo_ghosts(struct target_machine *m)
{
	struct target_report *t = &m->rep;
	const struct ghost_report *g = &m->last_ghost;
	uint64_t keep = m->watch->ref_lun;

	t->ghost_stop = true;
	t->ghost_kept = keep;
	for (size_t i = 0; i < m->nlines; i++) {
		struct lun_report *l = &t->luns[m->lines[i].line];

		if (m->lines[i].lun == keep)
			continue;
		if (defer(m, &m->lines[i]) < 0)
			return -ENOMEM;
		l->outcome = LUN_DETACHED;
		l->code = m->lines[i].lun == g->lun ? SC_GHOST : SC_GHOST_TARGET;
		if (m->lines[i].lun == g->lun)
			report_set_reason(t, l, "ghost of LUN %" PRIu64 ": %s", g->same_as,
					  g->evidence.text);
		else
			report_set_reason(t, l,
					  "detached: the target shows ghost LUNs (LUN %" PRIu64
					  " repeats LUN %" PRIu64 ")",
					  g->lun, g->same_as);
	}
	return 0;
}

/* An investigation leaves the host as it found it. */
static int undo_investigation(struct target_machine *m)
{
	struct target_report *t = &m->rep;

	for (size_t i = 0; i < m->nlines; i++) {
		struct lun_report *l = &t->luns[m->lines[i].line];

		if (defer(m, &m->lines[i]) < 0)
			return -ENOMEM;
		l->outcome = LUN_DETACHED;
		report_set_reason(t, l, "%s; attached for the investigation, detached again",
				  l->reason);
	}
	return 0;
}

/* The next step of the plan, from what came of the last action. */
static int plan_next(struct target_machine *m, struct target_action *next)
{
	struct target_report *t = &m->rep;
	struct plan_action *a = &m->act;
	int r;

	r = plan_step(&m->plan, &m->out, a);
	if (r < 0)
		return r;
	memset(&m->out, 0, sizeof(m->out));
	switch (a->kind) {
	case PLAN_DONE:
		snprintf(t->end_reason, sizeof(t->end_reason), "%s", a->reason);
		t->end_code = a->code;
		m->phase = P_AFTER;
		if (a->ghosts)
			return undo_ghosts(m);
		return 0;
	case PLAN_REPORT_LUNS:
		m->phase = P_REPORT_LUNS;
		act(next, TARGET_REPORT_LUNS, m->probe_lun);
		return 1;
	case PLAN_SKIP:
		m->phase = P_NEXT;
		if (a->masked)
			return masked(m, a->lun, a->reason, P_NEXT) < 0 ? -ENOMEM : 0;
		return line(m, a->lun, LUN_SKIPPED, a->code, "%s", a->reason) < 0 ? -ENOMEM : 0;
	case PLAN_PROBE:
		if (m->fate.detach && a->lun == m->probe_lun) {
			lun_done(m, PLAN_OUT_PRESENT);
			return 0;
		}
		m->phase = a->code == SC_LISTED ? P_BATCH : P_PROBE;
		return 0;
	}
	return 0;
}

/* Who attached the LUNs of a batch, in words. */
static const char *attached_by(const struct target_machine *m)
{
	return m->batch_kind == PLAN_BATCH_LUNS ? "this scan's writes of the LUNs the policy allows"
						: "the kernel's scan of this target";
}

/* Before a listed LUN: whether the rest of the list is attached in one go,
 * by the kernel's target scan or by our writes of the LUNs the policy
 * allows. */
static int batch(struct target_machine *m, struct target_action *next)
{
	char why[PLAN_REASON_LEN];
	enum plan_batch_kind kind;
	size_t n, count = 0;

	m->batch.ms_left = m->ms_left;
	kind = plan_batch(&m->plan, &m->batch, why);
	if (kind == PLAN_BATCH_NONE) {
		m->phase = P_PROBE;
		return 0;
	}
	m->batch_kind = kind;
	m->sub = 0;
	if (m->batch_kind == PLAN_BATCH_TARGET) {
		snprintf(m->rep.batch_reason, sizeof(m->rep.batch_reason), "%s", why);
		act(next, TARGET_KERNEL_SCAN, UINT64_MAX);
		return 1;
	}
	free(m->batch_luns);
	m->batch_luns = malloc((m->plan.count ? m->plan.count : 1) * sizeof(uint64_t));
	if (!m->batch_luns)
		return -ENOMEM;
	n = plan_batch_luns(&m->plan, m->batch_luns);
	/* What is attached already gets its own look, and what the scan file
	 * cannot name its own line, on the walk. */
	for (size_t i = 0; i < n; i++) {
		uint64_t lun = m->batch_luns[i];

		if (lun != m->probe_lun && !exists(m, lun) && lun_scan_writable(lun))
			m->batch_luns[count++] = lun;
	}
	if (!count) {
		m->phase = P_PROBE;
		return 0;
	}
	snprintf(m->rep.batch_reason, sizeof(m->rep.batch_reason), "%s", why);
	act(next, TARGET_ATTACH_LUNS, UINT64_MAX);
	next->luns = m->batch_luns;
	next->nluns = count;
	/* The ghost watch's first read of each, done with its write. */
	next->read_after = true;
	next->attr = m->watch->all || !m->watch->has_ref ? ATTR_INQUIRY : ATTR_VPD83;
	return 1;
}

/* What the batch attached: only what it added, not what this scan or
 * anyone before attached. */
static int batched(struct target_machine *m, const struct target_obs *o)
{
	struct target_report *t = &m->rep;
	uint64_t *luns;
	size_t n = 0;

	m->phase = P_PROBE;
	m->max_lun_ok = o->max_lun_ok;
	/* A kernel target scan that fails leaves the walk to do it all. Our
	 * writes stop at the first that fails; what they attached before it is
	 * listed, and the walk writes the rest on its own. */
	if (o->result < 0 && (m->batch_kind == PLAN_BATCH_TARGET || !o->luns)) {
		t->batch_reason[0] = '\0';
		return 0;
	}
	luns = malloc((o->nluns ? o->nluns : 1) * sizeof(*luns));
	m->kernel_kept = calloc(o->nluns ? o->nluns : 1, sizeof(*m->kernel_kept));
	if (!luns || !m->kernel_kept) {
		free(luns);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->nluns; i++) {
		uint64_t lun = o->luns[i];

		if (lun == m->probe_lun || exists(m, lun))
			continue;
		luns[n++] = lun;
		if (own_add(m, lun) < 0) {
			free(luns);
			return -ENOMEM;
		}
	}
	free(m->kernel_luns);
	m->kernel_luns = luns;
	m->nkernel_luns = n;
	t->batched = true;
	return 0;
}

/* ---- the device handler ---------------------------------------------- */

static int handler_result(struct target_machine *m, uint64_t lun, enum handler_step step,
			  const char *had, int error)
{
	struct target_report *t = &m->rep;
	struct handler_result *h = realloc(t->handlers, (t->nhandlers + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	t->handlers = h;
	h = &t->handlers[t->nhandlers++];
	memset(h, 0, sizeof(*h));
	h->lun = lun;
	h->step = step;
	h->error = error;
	snprintf(h->had, sizeof(h->had), "%s", had ? had : "");
	return 0;
}

/*
 * Each LUN this scan attached and kept gets the handler the device should
 * have: the kernel attaches one at add time only if its module is loaded
 * already, a write to dh_state loads it. One LUN at a time: read dh_state,
 * then write the name if it has none. Return: 1 with an action in @next.
 */
static int handlers(struct target_machine *m, const struct target_obs *o,
		    struct target_action *next)
{
	struct own_line *l = m->hi < m->nlines ? &m->lines[m->hi] : NULL;

	if (o && m->sub == TARGET_READ) {
		const char *state = NULL;
		enum handler_step step;

		if (o->result > 0) {
			snprintf(m->dh_state, sizeof(m->dh_state), "%.*s", (int)o->len,
				 (const char *)o->data);
			state = m->dh_state;
		}
		step = handler_step(m->handler.name, state);
		if (step == HANDLER_ATTACH) {
			m->sub = TARGET_SET_HANDLER;
			act(next, TARGET_SET_HANDLER, l->lun);
			next->text = m->handler.name;
			return 1;
		}
		if (handler_result(m, l->lun, step, state, 0) < 0)
			return -ENOMEM;
		m->hi++;
	} else if (o && m->sub == TARGET_SET_HANDLER) {
		if (handler_result(m, l->lun, HANDLER_ATTACH, "detached", o->result) < 0)
			return -ENOMEM;
		m->hi++;
	}
	while (m->hi < m->nlines && m->lines[m->hi].undone)
		m->hi++;
	if (!m->handler.name || m->in.dry_run || m->hi >= m->nlines) {
		m->phase = P_AFTER_FATE;
		return 0;
	}
	m->sub = TARGET_READ;
	read_attr(next, m->lines[m->hi].lun, ATTR_DH_STATE);
	return 1;
}

/* ---- the machine ------------------------------------------------------- */

int target_init(struct target_machine *m, const struct target_input *in)
{
	memset(m, 0, sizeof(*m));
	m->in = *in;
	m->max_lun_ok = in->max_lun_ok;
	m->phase = P_START;
	m->ms_left = -1;
	return 0;
}

void target_free(struct target_machine *m)
{
	if (m->has_plan)
		plan_free(&m->plan);
	report_target_free(&m->rep);
	free(m->attached);
	free(m->list);
	free(m->deferred);
	quirk_match_clear(&m->match);
	lunmask_set_clear(&m->mask);
	free(m->kernel_luns);
	free(m->kernel_kept);
	free(m->batch_luns);
	free(m->reported);
	free(m->lines);
	free(m->remap);
	if (m->watch) {
		free(m->watch->seen);
		free(m->watch->seen_lun);
		free(m->watch);
	}
	m->has_plan = false;
	m->attached = NULL;
	m->list = NULL;
	m->deferred = NULL;
	m->watch = NULL;
}

void target_take_report(struct target_machine *m, struct target_report *ret)
{
	*ret = m->rep;
	memset(&m->rep, 0, sizeof(m->rep));
	m->has_report = false;
}

const struct target_deferred *target_deferred(const struct target_machine *m, size_t *ret_count)
{
	*ret_count = m->ndeferred;
	return m->deferred;
}

bool target_wlun_impossible(const struct target_machine *m)
{
	return m->wlun_impossible;
}

/* Drives the release in progress. Return: 1 with an action in @next, 0
 * when it is done (the machine goes on), or -ENOMEM. */
static int releasing(struct target_machine *m, const struct target_obs *o,
		     struct target_action *next)
{
	struct release_line l;

	release_step(&m->release, o, next, &l);
	if (next->kind != TARGET_DONE)
		return 1;
	m->releasing = false;
	m->phase = m->after_release;
	if (l.set && line(m, m->release.lun, l.outcome, l.code, "%s", l.reason) < 0)
		return -ENOMEM;
	return 0;
}

/* One step; 1 with an action in @next, 0 to go on at the new phase. */
static int step(struct target_machine *m, const struct target_obs *o, struct target_action *next)
{
	struct target_report *t = &m->rep;
	char why[PLAN_REASON_LEN];
	int r;

	switch (m->phase) {
	case P_START:
		if (m->in.dry_run && m->in.nbefore) {
			/* A dry run writes nothing: the target is looked at
			 * through the first LUN attached now. */
			found_report(m);
			m->probe_lun = m->in.before[0];
			r = select_mask(m, false);
			if (r == -ENOTUNIQ) {
				report_fail(t, "%s", NOT_ONE_POLICY);
				finish(m, TARGET_END_FOUND, 0);
				return 0;
			}
			if (r < 0)
				return r;
			m->phase = P_INQUIRY;
			return 0;
		}
		return start(m);
	case P_REACH:
		return reach(m, o, next);
	case P_INQUIRY:
		if (!o) {
			act(next, TARGET_INQUIRY, m->probe_lun);
			next->len = INQUIRY_MIN_LEN;
			return 1;
		}
		if (o->result == 0 && inquiry_decode(o->data, o->len, &m->inq) == 0) {
			m->inquiry_source = INQUIRY_FROM_SGIO;
			m->probe_inquiry_len = o->len < sizeof(m->probe_inquiry)
						       ? o->len
						       : sizeof(m->probe_inquiry);
			memcpy(m->probe_inquiry, o->data, m->probe_inquiry_len);
			r = matched(m);
			if (r < 0)
				return r;
			m->phase = P_INQUIRY_FULL;
			return 0;
		}
		snprintf(m->inq_why, sizeof(m->inq_why), "%s",
			 o->result == -ENOENT && !o->data ? "no sg or bsg node"
							  : errtext(o->result, o));
		m->phase = P_INQUIRY_SYSFS;
		read_attr(next, m->probe_lun, ATTR_INQUIRY);
		return 1;
	case P_INQUIRY_SYSFS:
		if (o->result < 0 || inquiry_decode(o->data, o->len, &m->inq) < 0) {
			inquiry_failed(m, m->inq_why);
			return 0;
		}
		m->inquiry_source = INQUIRY_FROM_SYSFS;
		r = matched(m);
		if (r < 0)
			return r;
		m->phase = P_IDENTITY_WWID;
		return 0;
	case P_INQUIRY_FULL:
		/* The whole length only from a device that answered the first:
		 * one that timed out would make the scan wait a second time. */
		if (!o && !(m->match.flags & BLIST_INQUIRY_36) &&
		    m->inq.response_len > INQUIRY_MIN_LEN &&
		    m->inq.response_len <= INQUIRY_MAX_LEN) {
			act(next, TARGET_INQUIRY, m->probe_lun);
			next->len = m->inq.response_len;
			return 1;
		}
		if (o && o->result == 0 && o->len >= INQUIRY_MIN_LEN) {
			struct inquiry full;

			if (inquiry_decode(o->data, o->len, &full) == 0)
				m->inq.len = full.len;
		}
		m->phase = P_IDENTITY_WWID;
		return 0;
	case P_IDENTITY_WWID:
		if (!(m->probe_lun == 0 && db_uses_identity(m->in.db))) {
			m->phase = P_FATE;
			return 0;
		}
		if (!o) {
			read_attr(next, 0, ATTR_WWID);
			return 1;
		}
		/* A longer wwid is no standard one: cut, it would match an
		 * entry for its first SCSI_WWID_MAX characters. */
		if (o->result > 0 && o->len <= SCSI_WWID_MAX)
			snprintf(m->wwid, sizeof(m->wwid), "%.*s", (int)o->len,
				 (const char *)o->data);
		m->phase = P_IDENTITY_SERIAL;
		read_attr(next, 0, ATTR_VPD80);
		return 1;
	case P_IDENTITY_SERIAL:
		if (o->result <= 0 ||
		    inquiry_unit_serial(o->data, o->len, m->serial, sizeof(m->serial)) < 0)
			m->serial[0] = '\0';
		r = select_mask(m, true);
		if (r == -ENOTUNIQ) {
			report_fail(t, "%s", NOT_ONE_POLICY);
			m->phase = P_DONE;
			return 0;
		}
		if (r < 0)
			return r;
		m->phase = P_FATE;
		return 0;
	case P_FATE:
		return fate_and_plan(m);
	case P_FATE_UNDO:
		/* attach = false: what the kernel's scan of the target attached
		 * goes too. */
		while (m->ki < m->nkernel_luns) {
			size_t k = m->ki++;

			if (m->kernel_kept[k])
				continue;
			release(m, m->kernel_luns[k], SC_KERNEL_SCAN_UNDONE,
				"attached by the kernel's scan of this target; the quirk database "
				"would not attach it",
				P_FATE_UNDO);
			return 0;
		}
		m->phase = P_DONE;
		return 0;
	case P_LUN0:
		m->phase = P_REF;
		if (m->plan_in.lun0_present && m->probe_lun == 0 && !m->v0.allowed) {
			/* --remove takes it at the end: REPORT LUNS and the
			 * identity reads go through it first. */
			if ((m->in.remove || m->in.remove_refused) && exists(m, 0)) {
				m->lun0_refused = true;
				return 0;
			}
			r = masked(m, 0, m->lun0_why, P_REF);
			return r < 0 ? r : 0;
		}
		if (m->plan_in.lun0_present && m->probe_lun == 0 && !m->fate.detach &&
		    !m->lun0_new && checks_identity(m, 0))
			return remap_start(m, 0, P_REF);
		if (m->plan_in.lun0_present && m->probe_lun == 0 && !m->fate.detach)
			return line(m, 0, m->lun0_new ? LUN_ATTACHED : LUN_PRESENT,
				    m->lun0_new ? SC_LUN0 : SC_ALREADY_ATTACHED, "%s",
				    m->lun0_new ? "LUN 0: the target answered"
						: "already attached; left alone") < 0
				       ? -ENOMEM
				       : 0;
		return 0;
	case P_REF:
		/* What the ghost check compares the first LUN with: the LUN
		 * the target was reached through, read whole. */
		switch (m->ref_state) {
		case 0:
			/* Only a target that is found has its LUNs watched: the
			 * watch (three identities) is not paid for every id
			 * probed. */
			m->watch = calloc(1, sizeof(*m->watch));
			if (!m->watch)
				return -ENOMEM;
			m->watch->prev = &m->watch->slots[0];
			m->watch->cur = &m->watch->slots[1];
			m->watch->all = m->in.investigate;
			if (m->fate.reach[0])
				snprintf(t->reach_reason, sizeof(t->reach_reason), "%s",
					 m->fate.reach);
			if (m->temporary || m->in.dry_run)
				break;
			m->ref_state = 1;
			read_attr(next, m->probe_lun, ATTR_INQUIRY);
			return 1;
		case 1:
			if (o->result <= 0)
				break;
			identity_set_inquiry(&m->watch->ref, o->data, o->len);
			m->ref_state = 2;
			read_attr(next, m->probe_lun, ATTR_VPD80);
			return 1;
		case 2:
			if (o->result > 0)
				identity_set_vpd80(&m->watch->ref, o->data, o->len);
			m->ref_state = 3;
			read_attr(next, m->probe_lun, ATTR_VPD83);
			return 1;
		case 3:
			if (o->result > 0)
				identity_set_vpd83(&m->watch->ref, o->data, o->len);
			m->watch->ref_lun = m->probe_lun;
			m->watch->has_ref = true;
			if (remember(m->watch, &m->watch->ref, m->watch->ref_lun) < 0)
				return -ENOMEM;
			break;
		}
		m->batch.through_lun0 = m->probe_lun == 0 && m->plan_in.lun0_present &&
					!m->fate.detach && !m->nkernel_luns;
		m->batch.dry_run = m->in.dry_run;
		m->batch.per_lun_refusal = quirk_db_refuses_per_lun(m->in.db);
		plan_init(&m->plan, &m->plan_in);
		m->has_plan = true;
		memset(&m->out, 0, sizeof(m->out));
		m->out.kind = PLAN_OUT_NONE;
		m->phase = P_PLAN;
		return 0;
	case P_PLAN:
		return plan_next(m, next);
	case P_REPORT_LUNS:
		return report_luns(m, o);
	case P_BATCH:
		if (!o)
			return batch(m, next);
		return batched(m, o);
	case P_PROBE:
		return probe(m, next);
	case P_ATTACH:
		return attached(m, o, next);
	case P_LOST:
		if (o->result == 1) {
			report_fail(t,
				    "the transport lost the target in the middle of its scan (%s): "
				    "LUN %" PRIu64 " and those after it were not attached",
				    o->why ? o->why : "", m->act.lun);
			m->phase = P_AFTER;
			return 0;
		}
		m->phase = P_NEXT;
		return line(m, m->act.lun, LUN_ABSENT, m->act.code, "%s; no logical unit answered",
			    m->act.reason) < 0
			       ? -ENOMEM
			       : 0;
	case P_OWN_INQUIRY:
		if (!o) {
			read_attr(next, m->act.lun, ATTR_INQUIRY);
			return 1;
		}
		r = o->result > 0 ? refused_by_own(m, o->data, o->len, why, sizeof(why)) : 0;
		if (r < 0)
			return r;
		if (r) {
			release(m, m->act.lun, SC_REFUSED_BY_TYPE, why, P_NEXT);
			return 0;
		}
		if (m->sub == PROBE_KERNEL)
			r = line(m, m->act.lun, LUN_ATTACHED, SC_KERNEL_SCAN,
				 "%s (attached by the kernel's scan of this target, as the "
				 "database agrees)",
				 m->act.reason);
		else
			r = line(m, m->act.lun, LUN_ATTACHED, m->act.code, "%s", m->act.reason);
		if (r < 0)
			return -ENOMEM;
		if (watched(m, LUN_ATTACHED))
			watch_start(m);
		else
			m->phase = P_NEXT;
		return 0;
	case P_REMAP:
		if (remap_next(m->remap, o, next))
			return 1;
		return remap_judged(m);
	case P_REMAP_ATTACH:
		m->phase = m->remap->then;
		if (!m->release.deleted)
			return 0;
		m->phase = P_REMAP_ATTACHED;
		act(next, TARGET_ATTACH, m->remap->lun);
		return 1;
	case P_REMAP_ATTACHED:
		m->phase = m->remap->then;
		if (o->result == 0 && o->attached)
			return line(m, m->remap->lun, LUN_ATTACHED, SC_REMAPPED,
				    "remapped, another unit answers at it: %s; deleted and "
				    "attached again as that unit",
				    m->remap->what) < 0
				       ? -ENOMEM
				       : 0;
		return line(m, m->remap->lun, LUN_FAILED, SC_REMAPPED,
			    "remapped (%s): deleted, but attaching it again failed: %s",
			    m->remap->what,
			    o->result < 0 ? strerror(-o->result) : "no logical unit answered") < 0
			       ? -ENOMEM
			       : 0;
	case P_WATCH:
		if (watch_next(m, o, next))
			return 1;
		if (m->watch_state == W_JUDGE && watch_judge(m) < 0)
			return -ENOMEM;
		m->phase = P_NEXT;
		return 0;
	case P_NEXT:
		/* A probe that wrote and found its LUN: how long the writes of
		 * a kernel target scan for the rest would take. */
		if (m->wrote && m->out.kind == PLAN_OUT_PRESENT) {
			m->batch.probed++;
			if (m->probe_ms > m->batch.slowest_ms)
				m->batch.slowest_ms = m->probe_ms;
		}
		m->wrote = false;
		if (m->bound) {
			report_fail(t, "%s", m->bound_why);
			if (m->bound == -ECANCELED)
				m->error = -ECANCELED;
			m->phase = P_AFTER;
			return 0;
		}
		m->phase = P_PLAN;
		return 0;
	case P_AFTER: {
		const char *method_reason;

		m->method = plan_method(&m->plan, &method_reason, &t->method_code);
		t->method = m->method;
		snprintf(t->method_reason, sizeof(t->method_reason), "%s", method_reason);
	}
		m->phase = P_AFTER_UNDO;
		m->ki = 0;
		if (m->error == 0 && m->in.remove && m->method == PLAN_METHOD_REPORT_LUNS &&
		    m->report_read) {
			if (!m->report_complete) {
				/* LUNs missing from a cut list may be there all the
				 * same. */
				t->removal_refused = true;
				return 0;
			}
			m->phase = P_AFTER_LIST;
			act(next, TARGET_LIST, 0);
			return 1;
		}
		return 0;
	case P_AFTER_LIST:
		/* --remove: attached LUNs the device's own list no longer names. */
		if (o) {
			if (o->result < 0) {
				report_fail(t,
					    "the target's LUNs could not be listed (%s): nothing "
					    "removed",
					    strerror(-o->result));
				m->phase = P_AFTER_UNDO;
				return 0;
			}
			free(m->list);
			m->list = malloc((o->nluns ? o->nluns : 1) * sizeof(*m->list));
			if (!m->list)
				return -ENOMEM;
			memcpy(m->list, o->luns, o->nluns * sizeof(*m->list));
			m->nlist = o->nluns;
			m->ki = 0;
		}
		while (m->ki < m->nlist) {
			uint64_t lun = m->list[m->ki++];
			bool listed = false;

			if (lun == 0 || lun_is_wlun(lun))
				continue;
			for (size_t i = 0; i < m->nreported && !listed; i++)
				listed = m->reported[i] == lun;
			if (listed)
				continue;
			release_on(m, RELEASE_REFUSED,
				   &(struct removal_evidence){ .cause = REMOVAL_GONE,
							       .list = m->report_complete
									       ? LIST_COMPLETE
									       : LIST_PARTIAL },
				   lun, SC_NO_LONGER_REPORTED, "no longer reported", P_AFTER_LIST);
			return 0;
		}
		m->ki = 0;
		m->phase = P_AFTER_UNDO;
		return 0;
	case P_AFTER_UNDO:
		/* Even a stopped scan takes back what the kernel attached
		 * against the database. But the rest of a list handed over in
		 * one write was handed over because nothing refuses any of it:
		 * what a stopped scan has not checked yet stays, as the
		 * kernel's own scan would leave it. */
		while (m->ki < m->nkernel_luns) {
			size_t k = m->ki++;

			if (m->kernel_kept[k])
				continue;
			if (m->bound && t->batched) {
				if (line(m, m->kernel_luns[k], LUN_ATTACHED,
					 SC_KERNEL_SCAN_UNCHECKED,
					 "attached by %s, not checked for ghosts: %s",
					 attached_by(m), m->bound_why) < 0)
					return -ENOMEM;
				continue;
			}
			snprintf(why, sizeof(why),
				 "attached by %s; the quirk database would not attach it",
				 attached_by(m));
			release(m, m->kernel_luns[k], SC_KERNEL_SCAN_UNDONE, why, P_AFTER_UNDO);
			return 0;
		}
		if (m->in.investigate && !m->in.dry_run && m->error == 0) {
			r = undo_investigation(m);
			if (r < 0)
				return r;
		}
		m->hi = 0;
		m->phase = P_HANDLERS;
		return 0;
	case P_HANDLERS:
		return handlers(m, o, next);
	case P_AFTER_FATE:
		m->phase = P_DONE;
		if (m->fate.detach)
			release(m, m->probe_lun, m->fate.code, m->fate.reason, P_DONE);
		else if (m->lun0_refused)
			release_refused(m, 0, m->lun0_why, P_DONE);
		return 0;
	default:
		m->phase = P_DONE;
		return 0;
	}
}

/* Serves @next from the read done with the last attach when it is that
 * read; any other action drops it. Return: true with @served filled. */
static bool read_ahead(struct target_machine *m, const struct target_action *next,
		       struct target_obs *served)
{
	struct read_ahead *ra = &m->ahead;
	bool match = ra->valid && next->kind == TARGET_READ && next->lun == ra->lun &&
		     next->attr == ra->attr;

	if (next->kind == TARGET_ATTACH && next->read_after)
		return false;
	ra->valid = false;
	ra->asked = false;
	if (!match)
		return false;
	memset(served, 0, sizeof(*served));
	served->result = ra->result;
	served->data = ra->result > 0 ? ra->data : NULL;
	served->len = ra->result > 0 ? ra->len : 0;
	served->bound = m->bound;
	served->bound_why = m->bound_why;
	served->ms_left = m->ms_left;
	return true;
}

void target_step(struct target_machine *m, const struct target_obs *last,
		 struct target_action *next)
{
	const struct target_obs *o = last;
	struct target_obs served;
	int r;

	if (o) {
		m->bound = o->bound;
		if (o->bound)
			snprintf(m->bound_why, sizeof(m->bound_why), "%s",
				 o->bound_why ? o->bound_why : "");
		m->ms_left = o->ms_left;
	}
	for (;;) {
		if (m->finished) {
			*next = m->done;
			return;
		}
		if (m->releasing)
			r = releasing(m, o, next);
		else if (m->phase == P_DONE)
			r = (finish(m, m->has_report ? TARGET_END_FOUND : TARGET_END_NONE,
				    m->error == -ECANCELED ? -ECANCELED : 0),
			     0);
		else
			r = step(m, o, next);
		o = NULL;
		if (r == 1 && read_ahead(m, next, &served)) {
			o = &served;
			continue;
		}
		if (r == 1)
			return;
		if (r < 0)
			break;
	}
	finish(m, TARGET_END_ABORT, r);
	*next = m->done;
}
