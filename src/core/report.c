// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - building a scan's report, and what counts as a failure in it.
 * No I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *lun_outcome_name(enum lun_outcome o)
{
	static const char *const names[] = {
		[LUN_ATTACHED] = "attached",
		[LUN_PRESENT] = "present",
		[LUN_ABSENT] = "absent",
		[LUN_SKIPPED] = "skipped",
		[LUN_LIMIT] = "beyond-limit",
		[LUN_FAILED] = "failed",
		[LUN_WOULD_PROBE] = "would-probe",
		[LUN_REMOVED] = "removed",
		[LUN_WOULD_REMOVE] = "would-remove",
		[LUN_IN_USE] = "in-use",
		[LUN_DETACHED] = "detached",
	};

	return (unsigned int)o < sizeof(names) / sizeof(names[0]) ? names[o] : "?";
}

const char *inquiry_source_text(enum inquiry_source s)
{
	return s == INQUIRY_FROM_SGIO ? "SG_IO" : "sysfs inquiry attribute (INQUIRY failed)";
}

/* Blocks of texts, each filled before the next is taken; a text never
 * moves, so lines point into them. */
struct report_text_block {
	struct report_text_block *next;
	size_t used;
	char text[];
};

/* Texts are cut at PLAN_REASON_LEN: every one fits in a block. */
#define TEXT_BLOCK_SIZE 4096
_Static_assert(PLAN_REASON_LEN <= TEXT_BLOCK_SIZE, "a reason fits in a text block");

/* @text kept in @t's texts: a recent one that says the same, or a copy. */
static const char *keep_text(struct target_report *t, const char *text)
{
	struct report_text_block *b = t->texts;
	size_t n = strlen(text) + 1;
	char *copy;

	for (size_t i = 0; i < REPORT_RECENT_TEXTS; i++)
		if (t->recent[i] && strcmp(t->recent[i], text) == 0)
			return t->recent[i];
	if (!b || TEXT_BLOCK_SIZE - b->used < n) {
		b = malloc(sizeof(*b) + TEXT_BLOCK_SIZE);
		if (!b)
			return NULL;
		b->next = t->texts;
		b->used = 0;
		t->texts = b;
	}
	copy = memcpy(b->text + b->used, text, n);
	b->used += n;
	memmove(&t->recent[1], &t->recent[0], (REPORT_RECENT_TEXTS - 1) * sizeof(t->recent[0]));
	t->recent[0] = copy;
	return copy;
}

/* keep_text() of what @fmt and @ap make, cut at PLAN_REASON_LEN. */
static __attribute__((format(printf, 2, 0))) const char *keep_vtext(struct target_report *t,
								    const char *fmt, va_list ap)
{
	char text[PLAN_REASON_LEN];
	const char *made = NULL;
	va_list aq;

	/* A line mostly takes a reason made before, or a fixed text: kept as
	 * it is, without a pass through vsnprintf() for each LUN. */
	if (strcmp(fmt, "%s") == 0) {
		va_copy(aq, ap);
		made = va_arg(aq, const char *);
		va_end(aq);
	} else if (!strchr(fmt, '%')) {
		made = fmt;
	}
	if (made && strnlen(made, sizeof(text)) < sizeof(text))
		return keep_text(t, made);
	vsnprintf(text, sizeof(text), fmt, ap);
	return keep_text(t, text);
}

int report_add_lunv(struct target_report *t, uint64_t lun, enum lun_outcome o, enum scan_code code,
		    const char *fmt, va_list ap)
{
	struct lun_report *l;
	const char *kept;

	if (t->nluns == t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 16;

		l = realloc(t->luns, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		t->luns = l;
		t->alloc = n;
	}
	kept = keep_vtext(t, fmt, ap);
	if (!kept)
		return -ENOMEM;
	l = &t->luns[t->nluns++];
	l->lun = lun;
	l->outcome = o;
	l->code = code;
	l->reason = kept;
	return 0;
}

int report_set_reason(struct target_report *t, struct lun_report *l, const char *fmt, ...)
{
	const char *kept;
	va_list ap;

	va_start(ap, fmt);
	kept = keep_vtext(t, fmt, ap);
	va_end(ap);
	l->reason = kept ? kept : "(no memory left for this line's reason)";
	return kept ? 0 : -ENOMEM;
}

int report_add_lun(struct target_report *t, uint64_t lun, enum lun_outcome o, enum scan_code code,
		   const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = report_add_lunv(t, lun, o, code, fmt, ap);
	va_end(ap);
	return r;
}

void report_fail(struct target_report *t, const char *fmt, ...)
{
	va_list ap;

	t->failed = true;
	va_start(ap, fmt);
	vsnprintf(t->error, sizeof(t->error), fmt, ap);
	va_end(ap);
}

void report_target_free(struct target_report *t)
{
	quirk_match_clear(&t->match);
	lunmask_set_clear(&t->mask);
	free(t->luns);
	while (t->texts) {
		struct report_text_block *next = t->texts->next;

		free(t->texts);
		t->texts = next;
	}
	free(t->reported);
	free(t->kernel_luns);
	free(t->kernel_kept);
	free(t->ghosts);
	free(t->handlers);
	memset(t, 0, sizeof(*t));
}

struct target_report *report_add_target(struct host_report *h, struct target_report *t)
{
	struct target_report *p = realloc(h->targets, (h->ntargets + 1) * sizeof(*p));

	if (!p) {
		report_target_free(t);
		return NULL;
	}
	h->targets = p;
	p = &h->targets[h->ntargets++];
	*p = *t;
	memset(t, 0, sizeof(*t));
	return p;
}

bool lun_report_failed(const struct target_report *t, const struct lun_report *l)
{
	switch (l->outcome) {
	case LUN_FAILED:
	case LUN_IN_USE:
		return true;
	case LUN_ABSENT:
		/* The device listed it, and nothing answered there: its list
		 * changed under the scan, or it lies. */
		return l->code == SC_LISTED;
	case LUN_LIMIT:
		return t->method != PLAN_METHOD_SEQUENTIAL;
	default:
		return false;
	}
}

size_t scan_report_failures(const struct scan_report *rep)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nhosts; i++) {
		n += rep->hosts[i].failed;
		for (size_t k = 0; k < rep->hosts[i].ntargets; k++) {
			const struct target_report *t = &rep->hosts[i].targets[k];

			n += t->failed + t->ghost_stop + t->removal_refused;
			for (size_t j = 0; j < t->nluns; j++)
				n += lun_report_failed(t, &t->luns[j]);
		}
	}
	return n;
}

void scan_report_free(struct scan_report *rep)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		struct host_report *h = &rep->hosts[i];

		for (size_t k = 0; k < h->ntargets; k++)
			report_target_free(&h->targets[k]);
		free(h->targets);
		quirk_db_unref(h->holdouts);
		quirk_diags_clear(&h->holdout_errors);
	}
	free(rep->hosts);
	rep->hosts = NULL;
	rep->nhosts = 0;
}
