// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-plan.c - the scan planner rule by rule: which LUNs it probes and
 * skips and why, how a target's scan ends, what becomes of the LUN a
 * target was reached through, and when the rest of a list goes to one
 * kernel target scan.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "inquiry.h"
#include "luns.h"
#include "plan.h"

/* Runs a plan against a fake target: @present[] says which LUNs exist,
 * @report the REPORT LUNS answer (NULL: the command fails), @limit the
 * host's LUN limit. Returns the attached LUNs as a string "0,1,2". */
struct fake_target {
	const uint64_t *present;
	size_t npresent;
	const uint64_t *report;
	size_t nreport;
	uint64_t limit;
};

static bool is_present(const struct fake_target *t, uint64_t lun)
{
	for (size_t i = 0; i < t->npresent; i++)
		if (t->present[i] == lun)
			return true;
	return false;
}

static char *run_plan(const struct plan_input *in, const struct fake_target *t,
		      enum plan_method *ret_method, char *skipped)
{
	static char out[4096];
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_action a;
	struct plan p;
	size_t used = 0, steps = 0;

	out[0] = '\0';
	if (skipped)
		skipped[0] = '\0';
	if (in->lun0_present)
		used += snprintf(out, sizeof(out), "0");
	plan_init(&p, in);
	for (;;) {
		ck_assert_int_eq(plan_step(&p, &o, &a), 0);
		ck_assert_uint_lt(++steps, 100000);
		memset(&o, 0, sizeof(o));
		if (a.kind == PLAN_DONE)
			break;
		if (a.kind == PLAN_REPORT_LUNS) {
			o.kind = t->report ? PLAN_OUT_REPORT_LUNS : PLAN_OUT_FAILED;
			o.luns = t->report;
			o.count = t->nreport;
			o.why = "ILLEGAL REQUEST";
		} else if (a.kind == PLAN_SKIP) {
			if (skipped)
				sprintf(skipped + strlen(skipped), "%s%llu", *skipped ? "," : "",
					(unsigned long long)a.lun);
		} else if (a.lun >= t->limit) {
			o.kind = PLAN_OUT_LIMIT;
		} else if (is_present(t, a.lun)) {
			o.kind = PLAN_OUT_PRESENT;
			used += snprintf(out + used, sizeof(out) - used, "%s%llu", used ? "," : "",
					 (unsigned long long)a.lun);
		} else {
			o.kind = PLAN_OUT_ABSENT;
		}
	}
	if (ret_method)
		*ret_method = plan_method(&p, NULL, NULL);
	plan_free(&p);
	return out;
}

static const uint64_t lun_0_to_11[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
static const uint64_t gap_at_2[] = { 0, 1, 3, 4 };

static struct plan_input base(int level)
{
	struct plan_input in = {
		.scsi_level = level,
		.max_lun = -1,
		.attach = true,
		.max_luns = 512,
		.lun0_present = true,
	};
	return in;
}

START_TEST(plan_spc_uses_report_luns)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	enum plan_method m;

	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert_int_eq(m, PLAN_METHOD_REPORT_LUNS);
	/* REPORT LUNS fails: sequential, up to 255 */
	t.report = NULL;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
}
END_TEST

START_TEST(plan_scsi2_sequential_and_gaps)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_2);
	enum plan_method m;

	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
	t.present = gap_at_2;
	t.npresent = 4;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1");
	in.flags = BLIST_SPARSELUN;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,3,4");
	/* unknown level counts as below SCSI-3 */
	in = base(SCSI_LEVEL_UNKNOWN);
	t.present = lun_0_to_11;
	t.npresent = 12;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5,6,7");
	in = base(SCSI_LEVEL_1);
	in.flags = BLIST_REPORTLUN2;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
}
END_TEST

/**
 * struct flag_case - a quirk flag (or the host's driver) against a target
 * @what: the case, in words
 * @level: the device's SCSI level
 * @flags: BLIST_* flags
 * @max_luns: scsi_mod's max_luns (0: 512)
 * @driver: the host's driver, or NULL
 * @gap: LUN 2 is missing (LUNs 0, 1, 3, 4), else LUNs 0-11 answer and list
 * @attached: the LUNs attached
 * @method: how the plan found them
 */
struct flag_case {
	const char *what;
	int level;
	uint64_t flags;
	uint64_t max_luns;
	const char *driver;
	bool gap;
	const char *attached;
	enum plan_method method;
};

static const struct flag_case flag_cases[] = {
	{ .what = "nolun, SCSI-2",
	  .level = SCSI_LEVEL_2,
	  .flags = BLIST_NOLUN,
	  .attached = "0",
	  .method = PLAN_METHOD_NONE },
	{ .what = "nolun, SPC-3",
	  .level = SCSI_LEVEL_SPC_3,
	  .flags = BLIST_NOLUN,
	  .attached = "0",
	  .method = PLAN_METHOD_NONE },
	{ .what = "largelun: past 7 at SCSI-2",
	  .level = SCSI_LEVEL_2,
	  .flags = BLIST_LARGELUN,
	  .attached = "0,1,2,3,4,5,6,7,8,9,10,11",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "max5lun",
	  .level = SCSI_LEVEL_2,
	  .flags = BLIST_MAX5LUN,
	  .attached = "0,1,2,3,4",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "reportlun2: REPORT LUNS at SCSI-2",
	  .level = SCSI_LEVEL_2,
	  .flags = BLIST_REPORTLUN2,
	  .attached = "0,1,2,3,4,5,6,7,8,9,10,11",
	  .method = PLAN_METHOD_REPORT_LUNS },
	{ .what = "max_luns bounds a SCSI-2 scan",
	  .level = SCSI_LEVEL_2,
	  .max_luns = 4,
	  .attached = "0,1,2,3",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "forcelun lifts max_luns, not the SCSI-2 bound",
	  .level = SCSI_LEVEL_2,
	  .flags = BLIST_FORCELUN,
	  .max_luns = 4,
	  .attached = "0,1,2,3,4,5,6,7",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "forcelun and largelun",
	  .level = SCSI_LEVEL_2,
	  .flags = BLIST_FORCELUN | BLIST_LARGELUN,
	  .max_luns = 4,
	  .attached = "0,1,2,3,4,5,6,7,8,9,10,11",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "noreportlun: sequential even at SPC-3",
	  .level = SCSI_LEVEL_SPC_3,
	  .flags = BLIST_NOREPORTLUN,
	  .gap = true,
	  .attached = "0,1",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "SPC-3 without flags: the list, past the gap",
	  .level = SCSI_LEVEL_SPC_3,
	  .gap = true,
	  .attached = "0,1,3,4",
	  .method = PLAN_METHOD_REPORT_LUNS },
	{ .what = "usb-storage: no REPORT LUNS",
	  .level = SCSI_LEVEL_SPC_3,
	  .driver = "usb-storage",
	  .gap = true,
	  .attached = "0,1",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "uas: no REPORT LUNS",
	  .level = SCSI_LEVEL_SPC_3,
	  .driver = "uas",
	  .gap = true,
	  .attached = "0,1",
	  .method = PLAN_METHOD_SEQUENTIAL },
	{ .what = "another driver: the list",
	  .level = SCSI_LEVEL_SPC_3,
	  .driver = "mpt3sas",
	  .gap = true,
	  .attached = "0,1,3,4",
	  .method = PLAN_METHOD_REPORT_LUNS },
};

START_TEST(plan_flags)
{
	const struct flag_case *c = &flag_cases[_i];
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(c->level);
	enum plan_method m;

	if (c->gap)
		t = (struct fake_target){ gap_at_2, 4, gap_at_2, 4, 49410 };
	in.flags = c->flags;
	if (c->max_luns)
		in.max_luns = c->max_luns;
	in.driver = c->driver;
	ck_assert_msg(!strcmp(run_plan(&in, &t, &m, NULL), c->attached), "%s: %s", c->what,
		      run_plan(&in, &t, NULL, NULL));
	ck_assert_msg(m == c->method, "%s: method %d", c->what, m);
}
END_TEST

START_TEST(plan_host_limit_and_sparse)
{
	struct fake_target t = { lun_0_to_11, 12, NULL, 0, 6 };
	struct plan_input in = base(SCSI_LEVEL_2);

	in.flags = BLIST_SPARSELUN | BLIST_LARGELUN;
	/* EINVAL at the host's limit ends even a sparse scan */
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5");
	t.limit = 49410;
	t.present = gap_at_2;
	t.npresent = 4;
	/* sparse goes on to 255 past gaps */
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,3,4");
}
END_TEST

START_TEST(plan_database_settings)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	char skipped[256];

	in.max_lun = 3;
	ck_assert_str_eq(run_plan(&in, &t, NULL, skipped), "0,1,2,3");
	ck_assert_str_eq(skipped, "4,5,6,7,8,9,10,11");
	in.scsi_level = SCSI_LEVEL_2;
	ck_assert_str_eq(run_plan(&in, &t, NULL, skipped), "0,1,2,3");
	ck_assert_str_eq(skipped, "");
	in.max_lun = 0;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0");
	in = base(SCSI_LEVEL_SPC_5);
	in.attach = false;
	in.lun0_present = false;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "");
}
END_TEST

START_TEST(plan_no_lun0)
{
	static const uint64_t listed[] = { 1, 2, 300 };
	struct fake_target t = { listed, 3, listed, 3, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);

	in.lun0_present = false;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "1,2,300");
	/* REPORT LUNS fails: sequential from LUN 1 */
	t.report = NULL;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "1,2");
}
END_TEST

/*
 * Ghost LUNs: LUNs from @ghost_from on are LUN 0 answering again; the plan
 * ends at the first one unless attach_ghosts. Returns the LUNs attached and
 * whether the end was a ghost stop.
 */
static char *run_ghost_plan(const struct plan_input *in, const struct fake_target *t,
			    uint64_t ghost_from, bool *ret_stopped, char *ret_reason)
{
	static char out[256];
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_action a;
	struct plan p;
	size_t used = snprintf(out, sizeof(out), "0");

	plan_init(&p, in);
	for (;;) {
		ck_assert_int_eq(plan_step(&p, &o, &a), 0);
		memset(&o, 0, sizeof(o));
		if (a.kind == PLAN_DONE)
			break;
		if (a.kind == PLAN_REPORT_LUNS) {
			o.kind = PLAN_OUT_REPORT_LUNS;
			o.luns = t->report;
			o.count = t->nreport;
		} else if (a.kind == PLAN_PROBE && is_present(t, a.lun)) {
			o.kind = PLAN_OUT_PRESENT;
			o.ghost = a.lun >= ghost_from;
			o.ghost_of = 0;
			used += snprintf(out + used, sizeof(out) - used, ",%llu",
					 (unsigned long long)a.lun);
		} else if (a.kind == PLAN_PROBE) {
			o.kind = PLAN_OUT_ABSENT;
		}
	}
	*ret_stopped = a.ghosts;
	snprintf(ret_reason, PLAN_REASON_LEN, "%s", a.reason);
	plan_free(&p);
	return out;
}

START_TEST(plan_ghosts)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	char why[PLAN_REASON_LEN];
	bool stopped;

	/* REPORT LUNS lists 12; LUN 3 is LUN 0 again: nothing after it. */
	ck_assert_str_eq(run_ghost_plan(&in, &t, 3, &stopped, why), "0,1,2,3");
	ck_assert(stopped);
	ck_assert_str_eq(why, "LUN 3 is LUN 0 answering again (ghost LUNs): the scan stops, "
			      "and only the LUN the target was reached through stays attached");
	/* sequential (SCSI-2): the same at LUN 1 */
	in = base(SCSI_LEVEL_2);
	ck_assert_str_eq(run_ghost_plan(&in, &t, 1, &stopped, why), "0,1");
	ck_assert(stopped);
	/* no ghost: the plan ends as always */
	ck_assert_str_eq(run_ghost_plan(&in, &t, 100, &stopped, why), "0,1,2,3,4,5,6,7");
	ck_assert(!stopped);
	/* attach_ghosts: every LUN, whatever they repeat */
	in = base(SCSI_LEVEL_SPC_5);
	in.attach_ghosts = true;
	ck_assert_str_eq(run_ghost_plan(&in, &t, 1, &stopped, why), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert(!stopped);
}
END_TEST

START_TEST(plan_reasons)
{
	struct plan_input in = base(SCSI_LEVEL_2);
	struct plan_action a;
	struct plan p;
	const char *why;
	enum scan_code code;

	in.flags = BLIST_NOLUN;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, NULL, &a), 0);
	ck_assert_int_eq(a.kind, PLAN_DONE);
	ck_assert_ptr_nonnull(strstr(a.reason, "kernel would still probe LUNs 1-7"));
	ck_assert_str_eq(scan_code_name(a.code), "nolun");
	plan_free(&p);
	in.flags = 0;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, NULL, &a), 0);
	ck_assert_int_eq(plan_method(&p, &why, &code), PLAN_METHOD_SEQUENTIAL);
	ck_assert_str_eq(scan_code_name(code), "scsi-2");
	ck_assert_ptr_nonnull(strstr(why, "SCSI-2"));
	ck_assert_int_eq(a.kind, PLAN_PROBE);
	ck_assert_uint_eq(a.lun, 1);
	ck_assert_str_eq(scan_code_name(a.code), "sequential");
	plan_free(&p);
}
END_TEST

/* One LUN asked for: what the plan does with it, and why, in codes. */
static const struct select_case {
	const char *what;
	uint64_t flags;
	long long max_lun;
	bool attach;
	uint64_t lun, probe_lun;
	bool masked;
	enum plan_action_kind first;
	const char *first_code, *end_code;
} select_cases[] = {
	{ "a LUN to probe", 0, -1, true, 5, 0, false, PLAN_PROBE, "selected", "selected-only" },
	{ "LUN 0 itself", 0, -1, true, 0, 0, false, PLAN_DONE, "selected-only", NULL },
	{ "the LUN the target came through", 0, -1, true, 4, 4, false, PLAN_DONE, "selected-only",
	  NULL },
	{ "nolun", BLIST_NOLUN, -1, true, 3, 0, false, PLAN_SKIP, "nolun", "selected-only" },
	{ "above max_lun", 0, 2, true, 3, 0, false, PLAN_SKIP, "max-lun", "selected-only" },
	{ "the policy refuses it", 0, -1, true, 3, 0, true, PLAN_SKIP, "masked", "selected-only" },
	{ "the policy refuses LUN 0", 0, -1, true, 0, 0, true, PLAN_DONE, "selected-only", NULL },
	{ "attach = false first", 0, -1, false, 3, 0, false, PLAN_DONE, "attach-false", NULL },
};

START_TEST(plan_selected_lun)
{
	const struct select_case *c = &select_cases[_i];
	struct plan_input in = base(SCSI_LEVEL_SPC_3);
	struct lun_range excluded = { 0, 3 };
	struct lunmask_entry e = { .file = "f",
				   .title = "t",
				   .iscsi_tpgt = -1,
				   .channel = -1,
				   .id = -1,
				   .exclude = &excluded,
				   .nexclude = 1 };
	const struct lunmask_entry *items[] = { &e };
	struct lunmask_set mask = { .items = items, .count = 1 };
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_action a;
	struct plan p;
	enum scan_code code;

	in.flags = c->flags;
	in.max_lun = c->max_lun;
	in.attach = c->attach;
	in.has_only_lun = true;
	in.only_lun = c->lun;
	in.probe_lun = c->probe_lun;
	if (c->masked)
		in.mask = &mask;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_msg(a.kind == c->first, "%s: action %d", c->what, a.kind);
	ck_assert_msg(strcmp(scan_code_name(a.code), c->first_code) == 0, "%s: code %s", c->what,
		      scan_code_name(a.code));
	if (c->first == PLAN_PROBE || c->first == PLAN_SKIP) {
		ck_assert_uint_eq(a.lun, c->lun);
		o.kind = PLAN_OUT_PRESENT;
		ck_assert_int_eq(plan_step(&p, &o, &a), 0);
		ck_assert_int_eq(a.kind, PLAN_DONE);
		ck_assert_str_eq(scan_code_name(a.code), c->end_code);
	}
	if (c->attach)
		ck_assert_int_eq(plan_method(&p, NULL, &code), PLAN_METHOD_SELECTED);
	plan_free(&p);
}
END_TEST

/* What becomes of the LUN a target was reached through. */
static const struct fate_case {
	const char *what;
	struct plan_reach_input in;
	bool detach;
	const char *code, *reason, *reach;
} fate_cases[] = {
	{ "the well-known LUN",
	  { .probe_lun = 49409, .temporary = true, .attach = true, .lun0_attach = true },
	  true,
	  "reach-only",
	  "the REPORT LUNS well-known LUN, attached only to reach the target",
	  "" },
	{ "the well-known LUN of an attach = false device",
	  { .probe_lun = 49409, .temporary = true },
	  true,
	  "reach-only",
	  "the REPORT LUNS well-known LUN",
	  "" },
	{ "LUN 0 attached now",
	  { .lun0_new = true, .attach = true, .lun0_attach = true },
	  false,
	  "keep",
	  "",
	  "" },
	{ "LUN 0 attached before",
	  { .attach = false, .lun0_attach = false },
	  false,
	  "keep",
	  "",
	  "" },
	{ "LUN 0 of attach = false",
	  { .lun0_new = true, .lun0_attach = true },
	  true,
	  "attach-false",
	  "attach = false in the quirk database",
	  "" },
	{ "LUN 0 refused by its type",
	  { .lun0_new = true,
	    .attach = true,
	    .refusal = "attach = false for this LUN's own INQUIRY" },
	  true,
	  "refused-by-type",
	  "; the target's other LUNs were reached through it",
	  "" },
	{ "LUN 0 to reach a selected LUN",
	  { .lun0_new = true,
	    .attach = true,
	    .lun0_attach = true,
	    .has_only_lun = true,
	    .only_lun = 5 },
	  true,
	  "reach-only",
	  "LUN 0, attached only to reach the target for the selected LUN",
	  "only LUN 5 was selected" },
	{ "LUN 0 selected itself",
	  { .lun0_new = true,
	    .attach = true,
	    .lun0_attach = true,
	    .has_only_lun = true,
	    .only_lun = 0 },
	  false,
	  "keep",
	  "",
	  "" },
	{ "another LUN the target came through",
	  { .probe_lun = 3, .attach = true, .lun0_attach = true },
	  false,
	  "keep",
	  "",
	  "" },
	{ "a dry run's look through LUN 0, which a scan keeps",
	  { .lun0_new = true, .look = true, .attach = true, .lun0_attach = true },
	  true,
	  "look-only",
	  "attached only for this dry run's look at the target and deleted again; a scan "
	  "would keep it",
	  "" },
	{ "a dry run's look through the well-known LUN",
	  { .probe_lun = 49409, .temporary = true, .look = true, .attach = true },
	  true,
	  "look-only",
	  "a scan would detach it too (the REPORT LUNS well-known LUN, attached only to "
	  "reach the target)",
	  "" },
	{ "a dry run's look through LUN 0 of a management type",
	  { .lun0_new = true, .look = true, .attach = true, .refusal = "type 0xc" },
	  true,
	  "look-only",
	  "a scan would detach it too (type 0xc; the target's other LUNs",
	  "" },
	{ "a dry run's look through a LUN the policy names",
	  { .probe_lun = 4, .probe_new = true, .look = true, .attach = true, .lun0_attach = true },
	  true,
	  "look-only",
	  "a scan would keep it",
	  "" },
	{ "a dry run through LUN 0 attached before: nothing to undo",
	  { .look = true, .attach = true, .lun0_attach = true },
	  false,
	  "keep",
	  "",
	  "" },
};

START_TEST(plan_reach_fates)
{
	const struct fate_case *c = &fate_cases[_i];
	struct plan_reach_fate f;

	plan_reach_fate(&c->in, &f);
	ck_assert_msg(f.detach == c->detach, "%s", c->what);
	ck_assert_str_eq(scan_code_name(f.code), c->code);
	ck_assert_msg(strstr(f.reason, c->reason), "%s: '%s'", c->what, f.reason);
	ck_assert_msg(strstr(f.reach, c->reach), "%s: '%s'", c->what, f.reach);
}
END_TEST

/* plan_batch() after REPORT LUNS listed LUNs 0 to @listed - 1 and LUN 1
 * was attached on its own: asked before the probe of LUN 2. */
struct batch_case {
	const char *what;
	size_t listed;
	uint64_t flags;
	long long max_lun;
	bool masked;
	bool refuses_5;
	bool investigate;
	struct plan_batch_input in;
	enum plan_batch_kind batch;
	const char *reason;
	size_t nluns;
};

static const struct batch_case batch_cases[] = {
	{ .what = "nothing refuses: the kernel takes the rest",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = -1 },
	  .batch = PLAN_BATCH_TARGET,
	  .reason = "the 62 LUNs left of the list by one kernel target scan" },
	{ .what = "it fits the time left",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = 620 },
	  .batch = PLAN_BATCH_TARGET,
	  .reason = "one kernel target scan" },
	{ .what = "it may not fit the time left",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = 619 },
	  .reason = "62 LUNs at up to 10 ms each may not fit the 619 ms" },
	{ .what = "a quirk flag",
	  .listed = 64,
	  .flags = BLIST_SPARSELUN,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: the quirk database has an entry" },
	{ .what = "max_lun",
	  .listed = 64,
	  .max_lun = 100,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: the quirk database has an entry" },
	{ .what = "a lunmask entry that allows them all: our writes, no target scan",
	  .listed = 64,
	  .max_lun = -1,
	  .masked = true,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .batch = PLAN_BATCH_LUNS,
	  .reason = "the 62 LUNs left of the list that the policy allows (of 62), one scan "
		    "write each",
	  .nluns = 62 },
	{ .what = "a lunmask entry that refuses LUN 5: the others, by our writes",
	  .listed = 64,
	  .max_lun = -1,
	  .masked = true,
	  .refuses_5 = true,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .batch = PLAN_BATCH_LUNS,
	  .reason = "the 61 LUNs left of the list that the policy allows (of 62)",
	  .nluns = 61 },
	{ .what = "a lunmask entry, and it may not fit the time left",
	  .listed = 64,
	  .max_lun = -1,
	  .masked = true,
	  .in = { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = 619 },
	  .reason = "62 LUNs at up to 10 ms each may not fit the 619 ms" },
	{ .what = "a lunmask entry and a quirk flag",
	  .listed = 64,
	  .flags = BLIST_SPARSELUN,
	  .max_lun = -1,
	  .masked = true,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: the quirk database has an entry" },
	{ .what = "investigation",
	  .listed = 64,
	  .max_lun = -1,
	  .investigate = true,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: not every listed LUN is wanted" },
	{ .what = "per-LUN entries",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .per_lun_refusal = true, .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: the quirk database could refuse single LUNs" },
	{ .what = "reached through another LUN",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: the target was not reached" },
	{ .what = "dry run",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .dry_run = true, .probed = 1, .ms_left = -1 },
	  .reason = "LUN by LUN: a dry run" },
	{ .what = "too few left to be worth it",
	  .listed = 16,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  .reason = "" },
	{ .what = "no LUN attached on its own yet",
	  .listed = 64,
	  .max_lun = -1,
	  .in = { .through_lun0 = true, .ms_left = -1 },
	  .reason = "" },
};

START_TEST(plan_batches)
{
	const struct batch_case *c = &batch_cases[_i];
	/* An entry for the target that lets every LUN through, or all but 5. */
	static struct lun_range five = { 5, 5 };
	static const struct lunmask_entry allows_all = {
		.file = "t.conf", .line = 1, .title = "t", .iscsi_tpgt = -1, .channel = -1, .id = -1
	};
	static const struct lunmask_entry refuses_5 = { .file = "t.conf",
							.line = 1,
							.title = "t",
							.iscsi_tpgt = -1,
							.channel = -1,
							.id = -1,
							.exclude = &five,
							.nexclude = 1 };
	const struct lunmask_entry *entry = c->refuses_5 ? &refuses_5 : &allows_all;
	uint64_t batch[64];
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	struct lunmask_set set = { &entry, c->masked ? 1 : 0 };
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_batch_input later = c->in;
	uint64_t luns[64];
	char why[PLAN_REASON_LEN];
	struct plan_action a;
	struct plan p;

	for (size_t i = 0; i < c->listed; i++)
		luns[i] = i;
	in.flags = c->flags;
	in.max_lun = c->max_lun;
	in.mask = &set;
	in.investigate = c->investigate;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_int_eq(a.kind, PLAN_REPORT_LUNS);
	o.kind = PLAN_OUT_REPORT_LUNS;
	o.luns = luns;
	o.count = c->listed;
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_uint_eq(a.lun, 1);
	o.kind = PLAN_OUT_PRESENT;
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_uint_eq(a.lun, 2);
	ck_assert_msg(plan_batch(&p, &c->in, why) == c->batch, "%s: '%s'", c->what, why);
	ck_assert_msg(strstr(why, c->reason) && (*c->reason || !*why), "%s: '%s'", c->what, why);
	if (c->batch == PLAN_BATCH_LUNS) {
		size_t n = plan_batch_luns(&p, batch);

		/* From the LUN being probed on, in the list's order, less 5. */
		ck_assert_uint_eq(n, c->nluns);
		ck_assert_uint_eq(batch[0], 2);
		ck_assert_uint_eq(batch[n - 1], 63);
		for (size_t i = 1; i < n; i++)
			ck_assert(batch[i] > batch[i - 1] && (!c->refuses_5 || batch[i] != 5));
	}
	/* Decided once: not asked again. Not yet decided: a later probe may. */
	later.probed = 1;
	if (*why)
		ck_assert(plan_batch(&p, &later, why) == PLAN_BATCH_NONE);
	else if (c->listed == 64)
		ck_assert_msg(plan_batch(&p, &later, why) == PLAN_BATCH_TARGET, "%s, later: '%s'",
			      c->what, why);
	/* The plan goes on through the list either way. */
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_int_eq(a.kind, PLAN_PROBE);
	ck_assert_uint_eq(a.lun, 3);
	plan_free(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("planner");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, plan_spc_uses_report_luns);
	tcase_add_test(tc, plan_scsi2_sequential_and_gaps);
	tcase_add_loop_test(tc, plan_flags, 0, sizeof(flag_cases) / sizeof(flag_cases[0]));
	tcase_add_test(tc, plan_host_limit_and_sparse);
	tcase_add_test(tc, plan_database_settings);
	tcase_add_test(tc, plan_no_lun0);
	tcase_add_test(tc, plan_reasons);
	tcase_add_test(tc, plan_ghosts);
	tcase_add_loop_test(tc, plan_reach_fates, 0, sizeof(fate_cases) / sizeof(fate_cases[0]));
	tcase_add_loop_test(tc, plan_batches, 0, sizeof(batch_cases) / sizeof(batch_cases[0]));
	tcase_add_loop_test(tc, plan_selected_lun, 0,
			    sizeof(select_cases) / sizeof(select_cases[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
