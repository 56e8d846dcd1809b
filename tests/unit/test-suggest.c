// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-suggest.c - quirk_suggest() rule by rule on hand-made investigation
 * reports, and the text it writes read back by the quirk parser.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "quirks.h"
#include "suggest.h"

/* One LUN line of a made-up report: "a" answered (attached by the
 * investigation), "p" present before, "-" absent. */
struct lun_line {
	uint64_t lun;
	char what;
};

struct ghost_line {
	uint64_t lun, same_as;
	enum ghost_verdict verdict;
};

static const struct suggest_case {
	const char *what;
	int scsi_level;
	uint64_t db_flags;
	enum plan_method method;
	bool report_fails;
	const uint64_t *reported;
	size_t nreported;
	uint64_t probe_lun;
	bool unknown_identity;
	struct lun_line luns[20];
	struct ghost_line ghosts[8];
	/* expected */
	uint64_t flags;
	long long max_lun;
	const char *rules;
} cases[] = {
	{ .what = "every LUN is LUN 0",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .luns = { { 0, 'p' }, { 1, 'a' }, { 2, 'a' }, { 3, 'a' } },
	  .ghosts = { { 1, 0, GHOST_SAME }, { 2, 0, GHOST_SAME }, { 3, 0, GHOST_SAME } },
	  .flags = BLIST_NOLUN,
	  .max_lun = -1,
	  .rules = "ghost-luns" },
	{ .what = "nolun already in the database: nothing more",
	  .scsi_level = SCSI_LEVEL_2,
	  .db_flags = BLIST_NOLUN,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .luns = { { 0, 'p' }, { 1, 'a' } },
	  .ghosts = { { 1, 0, GHOST_SAME } },
	  .max_lun = -1,
	  .rules = "ghost-luns" },
	{ .what = "LUNs 4-7 wrap to 0-3",
	  .scsi_level = SCSI_LEVEL_2,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .luns = { { 0, 'a' },
		    { 1, 'a' },
		    { 2, 'a' },
		    { 3, 'a' },
		    { 4, 'a' },
		    { 5, 'a' },
		    { 6, 'a' },
		    { 7, 'a' },
		    { 8, '-' } },
	  .ghosts = { { 4, 0, GHOST_SAME },
		      { 5, 1, GHOST_SAME },
		      { 6, 2, GHOST_SAME },
		      { 7, 3, GHOST_SAME } },
	  .max_lun = 3,
	  .rules = "ghost-wrap" },
	{ .what = "a ghost between distinct LUNs",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .luns = { { 0, 'a' }, { 1, 'a' }, { 2, 'a' } },
	  .ghosts = { { 1, 0, GHOST_SAME } },
	  .max_lun = -1,
	  .rules = "ghosts-mixed" },
	{ .what = "one name for two units",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .luns = { { 0, 'a' }, { 1, 'a' } },
	  .ghosts = { { 1, 0, GHOST_CONFLICT } },
	  .max_lun = -1,
	  .rules = "name-conflict" },
	{ .what = "REPORT LUNS fails",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .report_fails = true,
	  .luns = { { 0, 'a' }, { 1, 'a' }, { 2, '-' }, { 3, '-' } },
	  .ghosts = { { 0 } },
	  .flags = BLIST_NOREPORTLUN,
	  .max_lun = -1,
	  .rules = "report-luns-fails" },
	{ .what = "REPORT LUNS fails, gaps",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .report_fails = true,
	  .luns = { { 0, 'a' }, { 1, '-' }, { 2, 'a' }, { 3, '-' } },
	  .ghosts = { { 0 } },
	  .flags = BLIST_NOREPORTLUN | BLIST_SPARSELUN,
	  .max_lun = -1,
	  .rules = "report-luns-fails gaps" },
	{ .what = "REPORT LUNS leaves out LUN 3",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .reported = (const uint64_t[]){ 0, 1 },
	  .nreported = 2,
	  .luns = { { 0, 'a' }, { 1, 'a' }, { 2, '-' }, { 3, 'a' }, { 4, '-' } },
	  .ghosts = { { 0 } },
	  .flags = BLIST_NOREPORTLUN | BLIST_SPARSELUN,
	  .max_lun = -1,
	  .rules = "report-luns-lies gaps" },
	{ .what = "REPORT LUNS right",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .reported = (const uint64_t[]){ 0, 1, 3 },
	  .nreported = 3,
	  .luns = { { 0, 'a' }, { 1, 'a' }, { 3, 'a' }, { 2, '-' }, { 4, '-' } },
	  .ghosts = { { 0 } },
	  .max_lun = -1,
	  .rules = "" },
	{ .what = "SCSI-2 with a gap",
	  .scsi_level = SCSI_LEVEL_2,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .luns = { { 0, 'a' }, { 1, 'a' }, { 2, '-' }, { 3, 'a' } },
	  .ghosts = { { 0 } },
	  .flags = BLIST_SPARSELUN,
	  .max_lun = -1,
	  .rules = "gaps" },
	{ .what = "SCSI-2, sparselun already",
	  .scsi_level = SCSI_LEVEL_2,
	  .db_flags = BLIST_SPARSELUN,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .luns = { { 0, 'a' }, { 2, '-' }, { 3, 'a' } },
	  .ghosts = { { 0 } },
	  .max_lun = -1,
	  .rules = "gaps" },
	{ .what = "LUN 0 absent, LUNs behind",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .reported = (const uint64_t[]){ 1, 2 },
	  .nreported = 2,
	  .probe_lun = 49409,
	  .luns = { { 1, 'a' }, { 2, 'a' } },
	  .ghosts = { { 0 } },
	  .max_lun = -1,
	  .rules = "lun0-absent" },
	{ .what = "SCSI-2 LUNs 8-9",
	  .scsi_level = SCSI_LEVEL_2,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .luns = { { 0, 'p' },
		    { 1, 'p' },
		    { 2, 'p' },
		    { 3, 'p' },
		    { 4, 'p' },
		    { 5, 'p' },
		    { 6, 'p' },
		    { 7, 'p' },
		    { 8, 'a' },
		    { 9, 'a' },
		    { 10, '-' } },
	  .ghosts = { { 0 } },
	  .flags = BLIST_LARGELUN,
	  .max_lun = -1,
	  .rules = "scsi2-beyond-7" },
	{ .what = "SCSI-2 LUNs 8-9 are 0-1 again",
	  .scsi_level = SCSI_LEVEL_2,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .luns = { { 0, 'p' },
		    { 1, 'p' },
		    { 2, 'p' },
		    { 3, 'p' },
		    { 4, 'p' },
		    { 5, 'p' },
		    { 6, 'p' },
		    { 7, 'p' },
		    { 8, 'a' },
		    { 9, 'a' } },
	  .ghosts = { { 8, 0, GHOST_SAME }, { 9, 1, GHOST_SAME } },
	  .max_lun = 7,
	  .rules = "ghost-wrap scsi2-limit-right" },
	{ .what = "no identity to compare",
	  .scsi_level = SCSI_LEVEL_2,
	  .method = PLAN_METHOD_SEQUENTIAL,
	  .unknown_identity = true,
	  .luns = { { 0, 'a' }, { 1, 'a' }, { 2, 'a' }, { 3, '-' } },
	  .ghosts = { { 0 } },
	  .max_lun = -1,
	  .rules = "no-identity" },
	{ .what = "a plain array",
	  .scsi_level = SCSI_LEVEL_SPC_3,
	  .method = PLAN_METHOD_REPORT_LUNS,
	  .reported = (const uint64_t[]){ 0, 1 },
	  .nreported = 2,
	  .luns = { { 0, 'a' }, { 1, 'a' } },
	  .ghosts = { { 0 } },
	  .max_lun = -1,
	  .rules = "" },
};

static void build(const struct suggest_case *c, struct target_report *t)
{
	memset(t, 0, sizeof(*t));
	t->has_inquiry = true;
	snprintf(t->inq.vendor, sizeof(t->inq.vendor), "ACME");
	snprintf(t->inq.model, sizeof(t->inq.model), "Odd \"Disk\"");
	snprintf(t->inq.revision, sizeof(t->inq.revision), "1.0");
	t->inq.scsi_level = c->scsi_level;
	t->match.flags = c->db_flags;
	t->method = c->method;
	t->report_luns_failed = c->report_fails;
	snprintf(t->report_luns_error, sizeof(t->report_luns_error), "ILLEGAL REQUEST");
	t->reported = (uint64_t *)c->reported;
	t->nreported = c->nreported;
	t->probe_lun = c->probe_lun;
	t->unknown_identity = c->unknown_identity;
	t->luns = calloc(20, sizeof(*t->luns));
	t->ghosts = calloc(8, sizeof(*t->ghosts));
	ck_assert(t->luns && t->ghosts);
	for (size_t i = 0; i < 20 && c->luns[i].what; i++) {
		t->luns[t->nluns].lun = c->luns[i].lun;
		t->luns[t->nluns++].outcome = c->luns[i].what == 'a'   ? LUN_DETACHED
					      : c->luns[i].what == 'p' ? LUN_PRESENT
								       : LUN_ABSENT;
	}
	for (size_t i = 0; i < 8 && c->ghosts[i].lun; i++) {
		struct ghost_report *g = &t->ghosts[t->nghosts++];

		g->lun = c->ghosts[i].lun;
		g->same_as = c->ghosts[i].same_as;
		g->evidence.verdict = c->ghosts[i].verdict;
		g->evidence.rule = "all-identical";
		snprintf(g->evidence.text, sizeof(g->evidence.text), "INQUIRY identical");
	}
}

START_TEST(suggest_rules)
{
	const struct suggest_case *c = &cases[_i];
	struct quirk_suggestion s;
	struct target_report t;
	char rules[256] = "";

	build(c, &t);
	ck_assert_int_eq(quirk_suggest(&t, &s), 0);
	for (size_t i = 0; i < s.nevidence; i++)
		snprintf(rules + strlen(rules), sizeof(rules) - strlen(rules), "%s%s", i ? " " : "",
			 s.evidence[i].rule);
	ck_assert_msg(s.flags == c->flags, "%s: flags 0x%llx, expected 0x%llx", c->what,
		      (unsigned long long)s.flags, (unsigned long long)c->flags);
	ck_assert_msg(s.max_lun == c->max_lun, "%s: max_lun %lld", c->what, s.max_lun);
	ck_assert_msg(strcmp(rules, c->rules) == 0, "%s: rules '%s', expected '%s'", c->what, rules,
		      c->rules);
	ck_assert(quirk_suggestion_proposes(&s) == (c->flags || c->max_lun >= 0));
	if (quirk_suggestion_proposes(&s)) {
		/* The entry parses, and the device then gets what was proposed. */
		struct quirk_device dev = { .vendor = "ACME",
					    .model = "Odd \"Disk\" 2",
					    .type = 0 };
		struct quirk_diags diags = { 0 };
		struct quirk_db *db = quirk_db_new();
		struct quirk_match m;
		char *text = NULL;

		ck_assert_int_eq(quirk_suggestion_text(&s, "3:0:1", "2026-12-04", &text), 0);
		ck_assert_ptr_nonnull(strstr(text, "scsi-quirks suggest 3:0:1, 2026-12-04:"));
		ck_assert_msg(quirk_db_add_buffer(db, "suggested.conf", text, strlen(text),
						  &diags) == 0 &&
				      diags.count == 0,
			      "%s: %s", c->what, diags.count ? diags.items[0].message : text);
		ck_assert_int_eq(quirk_db_finalize(db, &diags), 0);
		ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
		ck_assert_uint_eq(m.flags, s.flags);
		ck_assert_int_eq(m.max_lun, s.max_lun);
		quirk_match_clear(&m);
		quirk_diags_clear(&diags);
		quirk_db_free(db);
		free(text);
	}
	t.reported = NULL;
	t.nreported = 0;
	free(t.luns);
	free(t.ghosts);
}
END_TEST

START_TEST(suggest_needs_inquiry)
{
	struct quirk_suggestion s;
	struct target_report t = { 0 };

	ck_assert_int_eq(quirk_suggest(&t, &s), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("suggest");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, suggest_rules, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, suggest_needs_inquiry);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
