// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * suggest.c - a quirk entry proposed from an investigation scan. No I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "luns.h"
#include "suggest.h"

/* LUNs of a target, sorted, without repeats. */
struct lun_set {
	uint64_t *v;
	size_t n;
};

static int set_add(struct lun_set *s, uint64_t lun)
{
	size_t i = 0;
	uint64_t *p;

	while (i < s->n && s->v[i] < lun)
		i++;
	if (i < s->n && s->v[i] == lun)
		return 0;
	p = realloc(s->v, (s->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->v = p;
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
	s->v[i] = lun;
	s->n++;
	return 0;
}

static bool set_has(const struct lun_set *s, uint64_t lun)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == lun)
			return true;
	return false;
}

/* "1-7,9": runs folded. */
static void set_text(const struct lun_set *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n && used < len; i++) {
		size_t e = i;
		int k;

		while (e + 1 < s->n && s->v[e + 1] == s->v[e] + 1)
			e++;
		k = e == i ? snprintf(buf + used, len - used, "%s%" PRIu64, used ? "," : "",
				      s->v[i])
			   : snprintf(buf + used, len - used, "%s%" PRIu64 "-%" PRIu64,
				      used ? "," : "", s->v[i], s->v[e]);
		used += k > 0 ? (size_t)k : 0;
		i = e;
	}
}

static void add(struct quirk_suggestion *s, const char *rule, bool proposes, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct quirk_suggestion *s, const char *rule, bool proposes, const char *fmt, ...)
{
	struct suggest_evidence *e;
	va_list ap;

	if (s->nevidence == SUGGEST_EVIDENCE_MAX)
		return;
	e = &s->evidence[s->nevidence++];
	e->rule = rule;
	e->proposes = proposes;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

static const struct ghost_report *ghost_of(const struct target_report *t, uint64_t lun)
{
	for (size_t i = 0; i < t->nghosts; i++)
		if (t->ghosts[i].lun == lun && t->ghosts[i].evidence.verdict == GHOST_SAME)
			return &t->ghosts[i];
	return NULL;
}

/* The set flags the database does not already give the device. */
static void want(struct quirk_suggestion *s, const struct target_report *t, uint64_t flags)
{
	s->flags |= flags & ~t->match.flags;
}

static void judge_ghosts(const struct target_report *t, const struct lun_set *answered,
			 struct quirk_suggestion *s)
{
	struct lun_set ghosts = { 0 }, distinct = { 0 };
	const struct ghost_report *first = NULL;
	char g[128], d[128];

	for (size_t i = 0; i < answered->n; i++) {
		const struct ghost_report *gr = ghost_of(t, answered->v[i]);

		if (set_add(gr ? &ghosts : &distinct, answered->v[i]) < 0)
			goto out;
		if (gr && !first)
			first = gr;
	}
	for (size_t i = 0; i < t->nghosts; i++)
		if (t->ghosts[i].evidence.verdict == GHOST_CONFLICT)
			add(s, "name-conflict", false,
			    "LUN %" PRIu64 " and LUN %" PRIu64 " share a name meant for one unit "
			    "but differ elsewhere: %s (multipath would take them for paths to "
			    "one unit; no scan quirk mends that)",
			    t->ghosts[i].lun, t->ghosts[i].same_as, t->ghosts[i].evidence.text);
	if (!first)
		goto out;
	set_text(&ghosts, g, sizeof(g));
	set_text(&distinct, d, sizeof(d));
	if (distinct.n == 1) {
		want(s, t, BLIST_NOLUN);
		add(s, "ghost-luns", true, "LUNs %s answer as LUN %s again (ghost LUNs): %s", g, d,
		    first->evidence.text);
	} else if (ghosts.v[0] > distinct.v[distinct.n - 1]) {
		s->max_lun = (long long)distinct.v[distinct.n - 1];
		add(s, "ghost-wrap", true,
		    "LUNs %s are distinct, LUNs %s repeat them (LUN %" PRIu64 " is LUN %" PRIu64
		    " again: the device decodes only part of the LUN): %s",
		    d, g, first->lun, first->same_as, first->evidence.text);
	} else {
		add(s, "ghosts-mixed", false,
		    "LUNs %s repeat others among distinct LUNs %s: no flag describes this "
		    "device (first: LUN %" PRIu64 " repeats LUN %" PRIu64 ": %s)",
		    g, d, first->lun, first->same_as, first->evidence.text);
	}
out:
	free(ghosts.v);
	free(distinct.v);
}

/* Every answered LUN with INQUIRY data like the others' and no identity
 * at all: the judgement had nothing to go on. */
static void judge_no_identity(const struct target_report *t, const struct lun_set *answered,
			      struct quirk_suggestion *s)
{
	char a[128];

	if (answered->n < 2 || t->nghosts || !t->unknown_identity)
		return;
	set_text(answered, a, sizeof(a));
	add(s, "no-identity", false,
	    "LUNs %s give identical INQUIRY data and report neither a serial number nor a "
	    "designator, so they cannot be told apart: if the device has one unit, its entry is "
	    "flags = { \"nolun\" }",
	    a);
}

static void judge_report_luns(const struct target_report *t, const struct lun_set *answered,
			      struct quirk_suggestion *s)
{
	struct lun_set unlisted = { 0 };
	char u[128];

	if (t->report_luns_failed) {
		want(s, t, BLIST_NOREPORTLUN);
		add(s, "report-luns-fails", true,
		    "REPORT LUNS failed (%s) on a device that claims %s; its LUNs were found by a "
		    "sequential scan",
		    t->report_luns_error, scsi_level_name(t->inq.scsi_level));
		return;
	}
	if (t->method != PLAN_METHOD_REPORT_LUNS || !t->reported)
		return;
	for (size_t i = 0; i < answered->n; i++) {
		bool listed = false;

		for (size_t k = 0; k < t->nreported; k++)
			listed |= t->reported[k] == answered->v[i];
		if (!listed && answered->v[i] != t->probe_lun &&
		    set_add(&unlisted, answered->v[i]) < 0)
			break;
	}
	if (unlisted.n) {
		set_text(&unlisted, u, sizeof(u));
		want(s, t, BLIST_NOREPORTLUN);
		add(s, "report-luns-lies", true,
		    "REPORT LUNS listed %zu LUN(s), but LUNs %s, which it left out, answer too: a "
		    "sequential scan finds them",
		    t->nreported, u);
	}
	free(unlisted.v);
}

/* Sequential scans: gaps, LUN 0 absent, LUNs past 7 of a SCSI-2 target. */
static void judge_sequential(const struct target_report *t, const struct lun_set *answered,
			     const struct lun_set *absent, struct quirk_suggestion *s)
{
	struct lun_set high = { 0 }, high_ghosts = { 0 };
	uint64_t top = answered->n ? answered->v[answered->n - 1] : 0;
	char h[128];
	bool gap = false;

	if (answered->n && !set_has(answered, 0))
		add(s, "lun0-absent", false,
		    "LUN 0 is no unit (peripheral qualifier 3, or nothing there), LUNs behind it "
		    "answer");
	for (size_t i = 0; i < absent->n; i++)
		gap |= absent->v[i] > 0 && absent->v[i] < top;
	if (gap && (t->method == PLAN_METHOD_SEQUENTIAL || s->flags & BLIST_NOREPORTLUN)) {
		want(s, t, BLIST_SPARSELUN);
		add(s, "gaps", true,
		    "LUNs up to %" PRIu64
		    " answer with gaps between them: a sequential scan stops at "
		    "the first gap",
		    top);
	}
	if (t->inq.scsi_level >= SCSI_LEVEL_3 || (t->match.flags & BLIST_LARGELUN))
		return;
	for (size_t i = 0; i < answered->n; i++)
		if (answered->v[i] >= 8 &&
		    set_add(ghost_of(t, answered->v[i]) ? &high_ghosts : &high, answered->v[i]) < 0)
			goto out;
	if (high.n) {
		set_text(&high, h, sizeof(h));
		want(s, t, BLIST_LARGELUN);
		add(s, "scsi2-beyond-7", true,
		    "LUNs %s answer on a SCSI-2 target (the kernel stops at LUN 7)%s", h,
		    t->unknown_identity
			    ? "; their identity could not be compared with LUNs 0-7 (no "
			      "VPD pages): make sure they are not those LUNs again"
			    : "");
	} else if (high_ghosts.n) {
		set_text(&high_ghosts, h, sizeof(h));
		add(s, "scsi2-limit-right", false,
		    "LUNs %s answer on a SCSI-2 target, but as LUNs 0-7 again: the kernel's limit "
		    "of "
		    "LUN 7 is right for it",
		    h);
	}
out:
	free(high.v);
	free(high_ghosts.v);
}

int quirk_suggest(const struct target_report *t, struct quirk_suggestion *ret)
{
	struct lun_set answered = { 0 }, absent = { 0 };
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	ret->max_lun = -1;
	if (!t->has_inquiry)
		return -EINVAL;
	snprintf(ret->vendor, sizeof(ret->vendor), "%s", t->inq.vendor);
	snprintf(ret->model, sizeof(ret->model), "%s", t->inq.model);
	snprintf(ret->revision, sizeof(ret->revision), "%s", t->inq.revision);
	for (size_t i = 0; i < t->nluns && r == 0; i++) {
		const struct lun_report *l = &t->luns[i];

		if (lun_is_wlun(l->lun))
			continue;
		if (l->outcome == LUN_ATTACHED || l->outcome == LUN_PRESENT ||
		    l->outcome == LUN_DETACHED)
			r = set_add(&answered, l->lun);
		else if (l->outcome == LUN_ABSENT)
			r = set_add(&absent, l->lun);
	}
	if (r == 0) {
		judge_ghosts(t, &answered, ret);
		judge_no_identity(t, &answered, ret);
		judge_report_luns(t, &answered, ret);
		judge_sequential(t, &answered, &absent, ret);
	}
	free(answered.v);
	free(absent.v);
	return r;
}

bool quirk_suggestion_proposes(const struct quirk_suggestion *s)
{
	return s->flags || s->max_lun >= 0;
}

/* Text growing in a malloc'ed buffer. */
struct text {
	char *buf;
	size_t len;
	size_t size;
	bool failed;
};

static void put(struct text *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (x->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(x->buf ? x->buf + x->len : NULL, x->buf ? x->size - x->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		x->failed = true;
		return;
	}
	if (!x->buf || x->len + (size_t)n >= x->size) {
		size_t size = (x->size ? x->size : 256) * 2 + (size_t)n;
		char *p = realloc(x->buf, size);

		if (!p) {
			x->failed = true;
			return;
		}
		x->buf = p;
		x->size = size;
		va_start(ap, fmt);
		vsnprintf(x->buf + x->len, x->size - x->len, fmt, ap);
		va_end(ap);
	}
	x->len += (size_t)n;
}

/* A libconfuse string: backslash and quote escaped. */
static void put_quoted(struct text *x, const char *s)
{
	put(x, "\"");
	for (; *s; s++)
		put(x, "%s%c", *s == '"' || *s == '\\' ? "\\" : "", *s);
	put(x, "\"");
}

int quirk_suggestion_text(const struct quirk_suggestion *s, const char *target, const char *date,
			  char **ret)
{
	struct text x = { 0 };
	char title[64], reason[SUGGEST_TEXT_LEN + 128], flags[256];
	size_t k = 0;

	snprintf(title, sizeof(title), "suggested-%s-%s", s->vendor, s->model);
	for (char *p = title; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	put(&x, "# Proposed by scsi-quirks suggest %s on %s for '%s' '%s' (revision '%s').\n",
	    target, date, s->vendor, s->model, s->revision);
	put(&x, "# What the investigation of the target saw:\n");
	for (size_t i = 0; i < s->nevidence; i++)
		put(&x, "#   %s: %s\n", s->evidence[i].rule, s->evidence[i].text);
	put(&x, "device \"%s\" {\n\tvendor = ", title);
	put_quoted(&x, s->vendor);
	put(&x, "\n\tmodel = ");
	put_quoted(&x, s->model);
	put(&x, "\n");
	if (s->flags) {
		blist_flags_format(s->flags, "\", \"", flags, sizeof(flags));
		put(&x, "\tflags = { \"%s\" }\n", flags);
	}
	if (s->max_lun >= 0)
		put(&x, "\tmax_lun = %lld\n", s->max_lun);
	k = (size_t)snprintf(reason, sizeof(reason), "scsi-quirks suggest %s, %s:", target, date);
	for (size_t i = 0; i < s->nevidence && k < sizeof(reason); i++)
		if (s->evidence[i].proposes)
			k += (size_t)snprintf(reason + k, sizeof(reason) - k, " %s: %s;",
					      s->evidence[i].rule, s->evidence[i].text);
	if (k && k < sizeof(reason) && reason[k - 1] == ';')
		reason[k - 1] = '\0';
	put(&x, "\treason = ");
	put_quoted(&x, reason);
	put(&x, "\n}\n");
	if (x.failed) {
		free(x.buf);
		return -ENOMEM;
	}
	*ret = x.buf;
	return 0;
}
