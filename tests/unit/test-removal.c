// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-removal.c - the removal rule: a row per case, then every world of
 * evidence and request held against the invariant, written here apart
 * from removal.c.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "holdout.h"
#include "removal.h"

/*
 * One case: the evidence, what was asked, the verdict.
 */
static const struct removal_row {
	const char *what;
	struct removal_evidence ev;
	struct removal_request rq;
	enum removal_verdict verdict;
} rows[] = {
	{ "remapped: another unit read whole, free",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_DIFFERENT, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_DELETE },
	{ "remapped: the holders are asked first",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_DIFFERENT },
	  { .asked = true },
	  REMOVAL_ASK_HOLDERS },
	{ "remapped on a short or blank answer: kept",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_UNREADABLE, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "remapped on an unreadable answer, --force: kept",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_UNREADABLE },
	  { .asked = true, .force = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "remapped, same unit: kept",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_SAME, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "remapped, mounted: kept",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_DIFFERENT, .holders = HOLDERS_IN_USE },
	  { .asked = true },
	  REMOVAL_KEEP_IN_USE },
	{ "remapped, the in-use check failed: kept",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_DIFFERENT, .holders = HOLDERS_UNKNOWN },
	  { .asked = true },
	  REMOVAL_KEEP_IN_USE },
	{ "remapped, mounted, --force: deleted",
	  { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_DIFFERENT, .holders = HOLDERS_IN_USE },
	  { .asked = true, .force = true },
	  REMOVAL_DELETE },
	{ "gone from a complete list, free, --remove",
	  { .cause = REMOVAL_GONE, .list = LIST_COMPLETE, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_DELETE },
	{ "gone from a complete list, without --remove: kept",
	  { .cause = REMOVAL_GONE, .list = LIST_COMPLETE, .holders = HOLDERS_NONE },
	  { .asked = false },
	  REMOVAL_KEEP_NOT_ASKED },
	{ "gone from a list cut short: kept",
	  { .cause = REMOVAL_GONE, .list = LIST_PARTIAL, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "no list read: kept",
	  { .cause = REMOVAL_GONE, .list = LIST_NOT_READ, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "still listed: kept",
	  { .cause = REMOVAL_GONE, .list = LIST_COMPLETE, .listed = true, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "refused by the database's policy, dry run",
	  { .cause = REMOVAL_REFUSED, .policy_refuses = true, .holders = HOLDERS_NONE },
	  { .asked = true, .dry_run = true },
	  REMOVAL_WOULD_DELETE },
	{ "refused by this host's hold-out",
	  { .cause = REMOVAL_REFUSED, .holdout = HOLDOUT_THIS_HOST, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_DELETE },
	{ "refused by a hold-out that may be another host's: kept",
	  { .cause = REMOVAL_REFUSED, .holdout = HOLDOUT_OTHER_HOST, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "a ghost: the same unit as another LUN",
	  { .cause = REMOVAL_GHOST, .identity = IDENTITY_SAME, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_DELETE },
	{ "a ghost on identities that could not be read: kept",
	  { .cause = REMOVAL_GHOST, .identity = IDENTITY_UNREADABLE, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_KEEP_UNTRUSTED },
	{ "ours, in use: kept",
	  { .cause = REMOVAL_OURS, .holders = HOLDERS_IN_USE },
	  { .asked = true },
	  REMOVAL_KEEP_IN_USE },
	{ "a detach, free",
	  { .cause = REMOVAL_DETACH, .holders = HOLDERS_NONE },
	  { .asked = true },
	  REMOVAL_DELETE },
	{ "a detach, its path open: kept",
	  { .cause = REMOVAL_DETACH, .holders = HOLDERS_IN_USE },
	  { .asked = true },
	  REMOVAL_KEEP_IN_USE },
};

START_TEST(removal_rows)
{
	const struct removal_row *r = &rows[_i];
	enum removal_verdict v = may_remove(&r->ev, &r->rq);

	ck_assert_msg(v == r->verdict, "%s: %s, expected %s", r->what, removal_verdict_name(v),
		      removal_verdict_name(r->verdict));
}
END_TEST

/* The invariant, said again apart from removal.c: a reason read whole. */
static bool reason_read_whole(const struct removal_evidence *ev)
{
	if (ev->cause == REMOVAL_REMAPPED)
		return ev->identity == IDENTITY_DIFFERENT;
	if (ev->cause == REMOVAL_GHOST)
		return ev->identity == IDENTITY_SAME;
	if (ev->cause == REMOVAL_GONE)
		return ev->list == LIST_COMPLETE && !ev->listed;
	if (ev->cause == REMOVAL_REFUSED)
		return ev->policy_refuses || ev->holdout == HOLDOUT_THIS_HOST;
	return ev->cause == REMOVAL_OURS || ev->cause == REMOVAL_DETACH;
}

/*
 * Every world of evidence and request (6 causes, 4 identities, 3 lists,
 * listed or not, policy or not, 3 hold-outs, 4 holder states, and 8
 * requests: 27,648): no deletion unless asked, on a reason read whole,
 * with nothing holding the LUN or --force; a dry run deletes nothing; the
 * holders are asked only when they are all that is left to decide.
 */
START_TEST(removal_every_world)
{
	unsigned int worlds = 0, deletes = 0;

	for (int cause = REMOVAL_OURS; cause <= REMOVAL_DETACH; cause++)
		for (int id = IDENTITY_NOT_ASKED; id <= IDENTITY_UNREADABLE; id++)
			for (int list = LIST_NOT_READ; list <= LIST_PARTIAL; list++)
				for (int bits = 0; bits < 4; bits++)
					for (int held = HOLDOUT_NONE; held <= HOLDOUT_OTHER_HOST;
					     held++)
						for (int holders = HOLDERS_NOT_CHECKED;
						     holders <= HOLDERS_UNKNOWN; holders++)
							for (int req = 0; req < 8; req++) {
								struct removal_evidence ev = {
									.cause = cause,
									.identity = id,
									.list = list,
									.listed = bits & 1,
									.policy_refuses = bits & 2,
									.holdout = held,
									.holders = holders,
								};
								struct removal_request rq = {
									.asked = req & 1,
									.force = req & 2,
									.dry_run = req & 4
								};
								enum removal_verdict v =
									may_remove(&ev, &rq);
								bool free_or_forced =
									holders == HOLDERS_NONE ||
									rq.force;

								worlds++;
								if (v == REMOVAL_DELETE) {
									deletes++;
									ck_assert(rq.asked &&
										  !rq.dry_run &&
										  reason_read_whole(
											  &ev) &&
										  free_or_forced);
								}
								if (v == REMOVAL_WOULD_DELETE)
									ck_assert(rq.asked &&
										  rq.dry_run &&
										  reason_read_whole(
											  &ev) &&
										  free_or_forced);
								if (v == REMOVAL_ASK_HOLDERS)
									ck_assert(
										rq.asked &&
										reason_read_whole(
											&ev) &&
										!rq.force &&
										holders ==
											HOLDERS_NOT_CHECKED);
								if (rq.asked &&
								    reason_read_whole(&ev) &&
								    free_or_forced)
									ck_assert(
										v ==
										(rq.dry_run
											 ? REMOVAL_WOULD_DELETE
											 : REMOVAL_DELETE));
								ck_assert(removal_trusted(&ev) ==
									  reason_read_whole(&ev));
							}
	ck_assert_uint_eq(worlds, 27648);
	ck_assert_uint_gt(deletes, 0);
}
END_TEST

/* A hold-out is retired on a whole list that does not name its LUN, and
 * only when it names its host (the second audit: a driver-keyed one was
 * retired by another HBA's scan, and the detached volume came back). */
START_TEST(holdout_retire_rows)
{
	static const struct lun_range three = { 3, 3 };
	static const uint64_t without[] = { 0, 1, 2 }, with[] = { 0, 3 };
	static char iqn[] = "iqn.x:t", path[] = "pci0000:00/0000:00:04.0", drv[] = "drv";
	struct lunmask_entry by_name = { .iscsi_target = iqn,
					 .exclude = (struct lun_range *)&three,
					 .nexclude = 1 };
	struct lunmask_entry by_path = { .host_path = path,
					 .driver = drv,
					 .exclude = (struct lun_range *)&three,
					 .nexclude = 1 };
	struct lunmask_entry by_driver = { .driver = drv,
					   .exclude = (struct lun_range *)&three,
					   .nexclude = 1 };

	ck_assert(holdout_names_host(&by_name));
	ck_assert(holdout_names_host(&by_path));
	ck_assert(!holdout_names_host(&by_driver));
	ck_assert(holdout_retired(&by_name, without, 3, true));
	ck_assert(holdout_retired(&by_path, without, 3, true));
	ck_assert(!holdout_retired(&by_name, without, 3, false));
	ck_assert(!holdout_retired(&by_name, with, 2, true));
	ck_assert(!holdout_retired(&by_driver, without, 3, true));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("removal");
	TCase *tc = tcase_create("rule");

	tcase_add_loop_test(tc, removal_rows, 0, sizeof(rows) / sizeof(rows[0]));
	tcase_add_test(tc, removal_every_world);
	tcase_add_test(tc, holdout_retire_rows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
