// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-recover.c - a path that comes back: which targets count as back, and
 * what each LUN state needs, as table rows.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recover.h"

#define TMAX 6

/* One entry of a transport's list: channel, id, reachable. */
struct entry {
	unsigned int channel, id;
	bool reachable, is_target, no_id;
};

/* Targets as "C:T" strings, space separated, in the order written. */
static const struct back_case {
	const char *what;
	struct scsi_addr was[TMAX];
	size_t nwas;
	struct entry now[TMAX];
	size_t nnow;
	const char *back;
	const char *lost;
} back_cases[] = {
	{ "first look: nothing was lost, one is lost now",
	  { { 0 } },
	  0,
	  { { 0, 0, true, true }, { 0, 1, false, true } },
	  2,
	  "",
	  "0:1" },
	{ "a session logged in again",
	  { { 0, 0, 1, 0 } },
	  1,
	  { { 0, 0, true, true }, { 0, 1, true, true } },
	  2,
	  "0:1",
	  "" },
	{ "still down: not back, still lost",
	  { { 0, 0, 1, 0 } },
	  1,
	  { { 0, 1, false, true } },
	  1,
	  "",
	  "0:1" },
	{ "gone from the list: forgotten (it comes back with its own uevent)",
	  { { 0, 0, 1, 0 } },
	  1,
	  { { 0, 0, true, true } },
	  1,
	  "",
	  "" },
	{ "two remote ports, one target id: one online is enough",
	  { { 0, 0, 2, 0 } },
	  1,
	  { { 0, 2, false, true }, { 0, 2, true, true } },
	  2,
	  "0:2",
	  "" },
	{ "two remote ports, both blocked: lost once",
	  { { 0 } },
	  0,
	  { { 0, 2, false, true }, { 0, 2, false, true } },
	  2,
	  "",
	  "0:2" },
	{ "an initiator port is no target: never lost",
	  { { 0 } },
	  0,
	  { { 0, 3, false, false } },
	  1,
	  "",
	  "" },
	{ "a remote port without a target id: never lost",
	  { { 0 } },
	  0,
	  { { 0, 4, false, true, true } },
	  1,
	  "",
	  "" },
	{ "the same lost target twice in the old list: back once",
	  { { 0, 1, 5, 0 }, { 0, 1, 5, 0 } },
	  2,
	  { { 1, 5, true, true } },
	  1,
	  "1:5",
	  "" },
	{ "channels differ: 1:5 back, 0:5 lost",
	  { { 0, 1, 5, 0 } },
	  1,
	  { { 0, 5, false, true }, { 1, 5, true, true } },
	  2,
	  "1:5",
	  "0:5" },
};

static void format(const struct scsi_addr *a, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u:%u", i ? " " : "", a[i].channel,
					a[i].id);
}

START_TEST(test_paths_back)
{
	const struct back_case *c = &back_cases[_i];
	struct discover_target t[TMAX] = { 0 };
	struct scsi_addr back[TMAX], lost[TMAX];
	size_t nback = 99, nlost = 99;
	char got_back[64], got_lost[64];

	for (size_t i = 0; i < c->nnow; i++) {
		t[i].channel = c->now[i].channel;
		t[i].id = c->now[i].id;
		t[i].reachable = c->now[i].reachable;
		t[i].is_target = c->now[i].is_target;
		t[i].has_id = !c->now[i].no_id;
	}
	recover_paths_back(c->was, c->nwas, t, c->nnow, back, &nback, lost, &nlost);
	format(back, nback, got_back, sizeof(got_back));
	format(lost, nlost, got_lost, sizeof(got_lost));
	ck_assert_msg(strcmp(got_back, c->back) == 0, "%s: back \"%s\", expected \"%s\"", c->what,
		      got_back, c->back);
	ck_assert_msg(strcmp(got_lost, c->lost) == 0, "%s: lost \"%s\", expected \"%s\"", c->what,
		      got_lost, c->lost);
}
END_TEST

static const struct action_case {
	const char *state;
	enum recover_action action;
} action_cases[] = {
	{ "running", RECOVER_RESCAN },
	{ "offline", RECOVER_SET_RUNNING },
	{ "transport-offline", RECOVER_LEAVE },
	{ "blocked", RECOVER_LEAVE },
	{ "created", RECOVER_LEAVE },
	{ "created-blocked", RECOVER_LEAVE },
	{ "cancel", RECOVER_LEAVE },
	{ "deleted", RECOVER_LEAVE },
	{ "quiesce", RECOVER_LEAVE },
	{ "", RECOVER_LEAVE },
	{ "Running", RECOVER_LEAVE },
	{ "offline ", RECOVER_LEAVE },
};

START_TEST(test_lun_action)
{
	const struct action_case *c = &action_cases[_i];
	enum recover_action a = recover_lun_action(c->state, false);

	ck_assert_msg(a == c->action, "\"%s\": %s, expected %s", c->state, recover_action_name(a),
		      recover_action_name(c->action));
}
END_TEST

/* The second audit: a LUN an administrator set offline was set running
 * when its path came back. */
START_TEST(test_offline_before_the_outage)
{
	ck_assert_int_eq(recover_lun_action("offline", true), RECOVER_LEAVE);
	ck_assert_int_eq(recover_lun_action("offline", false), RECOVER_SET_RUNNING);
	ck_assert_int_eq(recover_lun_action("running", true), RECOVER_RESCAN);
}
END_TEST

START_TEST(test_action_names)
{
	ck_assert_str_eq(recover_action_name(RECOVER_LEAVE), "leave");
	ck_assert_str_eq(recover_action_name(RECOVER_SET_RUNNING), "set running");
	ck_assert_str_eq(recover_action_name(RECOVER_RESCAN), "rescan");
	ck_assert_str_eq(recover_action_name((enum recover_action)7), "?");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recover");
	TCase *tc = tcase_create("recover");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_paths_back, 0, sizeof(back_cases) / sizeof(back_cases[0]));
	tcase_add_loop_test(tc, test_lun_action, 0, sizeof(action_cases) / sizeof(action_cases[0]));
	tcase_add_test(tc, test_action_names);
	tcase_add_test(tc, test_offline_before_the_outage);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
