// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-settle.c - the settle point's record: parsing as table rows, the
 * waiter's verdict for every phase, and a write read back.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settle.h"

static const struct parse_case {
	const char *text;
	int ret;
	enum settle_phase phase;
	pid_t pid;
} parse_cases[] = {
	{ "phase=coldplug\npid=42\n", 0, SETTLE_PHASE_COLDPLUG, 42 },
	{ "phase=settled\npid=1\n", 0, SETTLE_PHASE_SETTLED, 1 },
	{ "pid=7\nphase=kernel", 0, SETTLE_PHASE_KERNEL, 7 },
	{ "phase=settled\n\npid=9\n", 0, SETTLE_PHASE_SETTLED, 9 },
	{ "", -EINVAL },
	{ "phase=settled\n", -EINVAL },
	{ "pid=3\n", -EINVAL },
	{ "phase=done\npid=3\n", -EINVAL },
	{ "phase=settledx\npid=3\n", -EINVAL },
	{ "phase=settled\npid=0\n", -EINVAL },
	{ "phase=settled\npid=-4\n", -EINVAL },
	{ "phase=settled\npid=12a\n", -EINVAL },
	{ "phase=settled\npid=99999999999\n", -EINVAL },
	{ "phase=settled\npid=3\nnext=1\n", -EINVAL },
	{ "phase=\npid=3\n", -EINVAL },
};

START_TEST(test_parse)
{
	const struct parse_case *c = &parse_cases[_i];
	struct settle_record rec = { 0 };
	int r = settle_parse(c->text, &rec);

	ck_assert_msg(r == c->ret, "\"%s\": %d, expected %d", c->text, r, c->ret);
	if (r == 0) {
		ck_assert_int_eq(rec.phase, c->phase);
		ck_assert_int_eq(rec.pid, c->pid);
	}
}
END_TEST

static const struct decide_case {
	const char *what;
	bool has_record, broken, alive;
	enum settle_phase phase;
	enum settle_verdict verdict;
} decide_cases[] = {
	{ "no record: not started", false, false, false, 0, SETTLE_WAIT_START },
	{ "no record, a live pid means nothing", false, false, true, 0, SETTLE_WAIT_START },
	{ "broken record", true, true, true, SETTLE_PHASE_SETTLED, SETTLE_WAIT_BROKEN },
	{ "coldplug running", true, false, true, SETTLE_PHASE_COLDPLUG, SETTLE_WAIT_COLDPLUG },
	{ "died in coldplug", true, false, false, SETTLE_PHASE_COLDPLUG, SETTLE_WAIT_RESTART },
	{ "settled", true, false, true, SETTLE_PHASE_SETTLED, SETTLE_DONE },
	/* The second audit: a dead daemon's "settled" was trusted. */
	{ "settled, then died: nothing scans what comes now", true, false, false,
	  SETTLE_PHASE_SETTLED, SETTLE_WAIT_RESTART },
	{ "kernel scans", true, false, false, SETTLE_PHASE_KERNEL, SETTLE_DONE },
};

START_TEST(test_decide)
{
	const struct decide_case *c = &decide_cases[_i];
	struct settle_record rec = { .phase = c->phase, .pid = 5 };
	enum settle_verdict v = settle_decide(c->has_record ? &rec : NULL, c->broken, c->alive);

	ck_assert_msg(v == c->verdict, "%s: %d, expected %d", c->what, v, c->verdict);
	ck_assert_ptr_nonnull(settle_verdict_text(v));
}
END_TEST

START_TEST(test_write_read)
{
	char root[] = "/tmp/test-settle-XXXXXX", path[512];
	struct settle_record rec;
	struct sysfs_ctx *ctx;
	struct stat st;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/run", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ctx = sysfs_new(root);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(settle_read(ctx, &rec), -ENOENT);
	ck_assert_int_eq(settle_write(ctx, SETTLE_PHASE_COLDPLUG, 1234), 0);
	ck_assert_int_eq(settle_read(ctx, &rec), 0);
	ck_assert_int_eq(rec.phase, SETTLE_PHASE_COLDPLUG);
	ck_assert_int_eq(rec.pid, 1234);
	ck_assert_int_eq(settle_write(ctx, SETTLE_PHASE_SETTLED, 1234), 0);
	ck_assert_int_eq(settle_read(ctx, &rec), 0);
	ck_assert_int_eq(rec.phase, SETTLE_PHASE_SETTLED);

	snprintf(path, sizeof(path), "%s" SETTLE_STATE_PATH, root);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	snprintf(path, sizeof(path), "%s" SETTLE_STATE_PATH ".new", root);
	ck_assert_int_eq(access(path, F_OK), -1);

	snprintf(path, sizeof(path), "%s" SETTLE_STATE_PATH, root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("phase=half", f);
	fclose(f);
	ck_assert_int_eq(settle_read(ctx, &rec), -EINVAL);

	unlink(path);
	snprintf(path, sizeof(path), "%s/run/scsi-scan", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/run", root);
	rmdir(path);
	rmdir(root);
	sysfs_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("settle");
	TCase *tc = tcase_create("settle");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse_cases) / sizeof(parse_cases[0]));
	tcase_add_loop_test(tc, test_decide, 0, sizeof(decide_cases) / sizeof(decide_cases[0]));
	tcase_add_test(tc, test_write_read);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
