// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-discover.c - target discovery (discover.h), table-driven: simulated
 * hosts answer each try, the trace of tries and the end are compared.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

#define NONE -1
#define STEPS_MAX 100000

/* A simulated host: what it refuses and where targets answer. */
struct sim {
	int max_channel;     /* NONE: refuses no channel (a transport) */
	int max_id;	     /* NONE: refuses no id */
	const char *present; /* " C:T C:T " */
};

struct result {
	char trace[1024];
	size_t tries;
	bool failed;
	char reason[DISCOVER_REASON_LEN];
};

static bool present(const struct sim *s, unsigned int c, unsigned int t)
{
	char key[32];

	snprintf(key, sizeof(key), " %u:%u ", c, t);
	return s->present && strstr(s->present, key);
}

static void run(const struct discover_input *in, const struct sim *s, struct result *res)
{
	enum discover_outcome out = DISCOVER_OUT_NONE;
	struct discover_action a;
	struct discover d;
	int steps = 0;

	memset(res, 0, sizeof(*res));
	discover_init(&d, in);
	for (;;) {
		ck_assert_int_lt(steps++, STEPS_MAX);
		discover_step(&d, out, &a);
		out = DISCOVER_OUT_NONE;
		if (a.kind == DISCOVER_DONE) {
			res->failed = a.failed;
			snprintf(res->reason, sizeof(res->reason), "%s", a.reason);
			return;
		}
		ck_assert_msg(a.reason[0], "every action has a reason");
		if (strlen(res->trace) < sizeof(res->trace) - 16)
			snprintf(res->trace + strlen(res->trace),
				 sizeof(res->trace) - strlen(res->trace), "%s%s%u:%u",
				 res->trace[0] ? " " : "", a.kind == DISCOVER_FAIL ? "F" : "",
				 a.channel, a.id);
		if (a.kind == DISCOVER_FAIL)
			continue;
		res->tries++;
		if ((s->max_channel != NONE && a.channel > (unsigned int)s->max_channel) ||
		    (s->max_id != NONE && a.id >= (unsigned int)s->max_id))
			out = DISCOVER_OUT_LIMIT;
		else
			out = present(s, a.channel, a.id) ? DISCOVER_OUT_FOUND : DISCOVER_OUT_EMPTY;
	}
}

static const struct {
	const char *name;
	int channel, id;
	struct sim sim;
	const char *trace; /* NULL: not compared, see tries */
	size_t tries;
	bool failed;
	const char *reason; /* a part of the end reason */
} probe_cases[] = {
    {"spi: ids until EINVAL, then channel 1 refused",
     NONE,
     NONE,
     {0, 8, " 0:0 0:3 "},
     "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 0:8 1:0",
     10,
     false,
     "channel 1 refused"},
    {"megasas: three channels, the first two empty",
     NONE,
     NONE,
     {2, 3, " 2:1 "},
     "0:0 0:1 0:2 0:3 1:0 1:1 1:2 1:3 2:0 2:1 2:2 2:3 3:0",
     13,
     false,
     "channel 3 refused"},
    {"no limits, nothing there: the empty run ends it",
     NONE,
     NONE,
     {NONE, NONE, ""},
     NULL,
     DISCOVER_EMPTY_IDS_MAX,
     false,
     "checks no limits"},
    {"a target resets the empty run",
     NONE,
     NONE,
     {NONE, NONE, " 0:500 "},
     NULL,
     501 + DISCOVER_EMPTY_IDS_MAX,
     false,
     "1 target"},
    {"ids refused, channels never: the channel bound ends it, as a failure",
     NONE,
     NONE,
     {NONE, 2, ""},
     NULL,
     DISCOVER_CHANNELS_MAX * 3,
     true,
     "bound of 64 channels"},
    {"selector past the limits fails", 0, 5, {0, 4, ""}, "0:5", 1, true, "past the host's limits"},
    {"id selected on every channel",
     NONE,
     1,
     {1, 4, " 1:1 "},
     "0:1 1:1 2:1",
     3,
     false,
     "channel 2 refused"},
    {"one channel selected", 1, NONE, {1, 3, " 1:0 "}, "1:0 1:1 1:2 1:3", 4, false, "refused"},
    {"one target selected", 0, 2, {0, 8, " 0:2 "}, "0:2", 1, false, "only id 2"},
    {"the host refuses channel 0 itself",
     NONE,
     NONE,
     {0, 0, ""},
     "0:0",
     1,
     false,
     "refused channel 0"},
};

START_TEST(discover_probing)
{
	const typeof(probe_cases[0]) *c = &probe_cases[_i];
	struct discover_input in = {
	    .transport = DISCOVER_PROBE, .channel = c->channel, .id = c->id};
	struct result res;

	run(&in, &c->sim, &res);
	if (c->trace)
		ck_assert_msg(strcmp(res.trace, c->trace) == 0, "%s: tried %s, expected %s",
			      c->name, res.trace, c->trace);
	ck_assert_msg(res.tries == c->tries, "%s: %zu tries, expected %zu", c->name, res.tries,
		      c->tries);
	ck_assert_msg(res.failed == c->failed, "%s: failed %d", c->name, res.failed);
	ck_assert_msg(strstr(res.reason, c->reason), "%s: reason '%s' lacks '%s'", c->name,
		      res.reason, c->reason);
}
END_TEST

static struct discover_target listed(unsigned int c, unsigned int t, bool has_id, bool is_target,
				     bool reachable, const char *name, const char *state)
{
	struct discover_target x = {.channel = c,
				    .id = t,
				    .has_id = has_id,
				    .is_target = is_target,
				    .reachable = reachable};

	snprintf(x.name, sizeof(x.name), "%s", name);
	snprintf(x.address, sizeof(x.address), "addr-%s", name);
	snprintf(x.state, sizeof(x.state), "%s", state);
	return x;
}

START_TEST(discover_iscsi_sessions)
{
	struct discover_target t[] = {
	    listed(0, 0, true, true, true, "session1", "LOGGED_IN"),
	    listed(0, 1, true, true, false, "session2", "FAILED"),
	};
	struct discover_input in = {DISCOVER_ISCSI, t, 2, NONE, NONE};
	/* A transport refuses nothing: only the list may end discovery. */
	struct sim anything = {NONE, NONE, " 0:0 "};
	struct result res;

	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "0:0 F0:1");
	ck_assert(!res.failed);
	ck_assert_ptr_nonnull(strstr(res.reason, "iSCSI transport: targets taken from its "
						 "topology (2 listed)"));
}
END_TEST

START_TEST(discover_fc_rports)
{
	struct discover_target t[] = {
	    listed(0, 0, false, false, true, "rport-2:0-0", "Online"), /* initiator */
	    listed(0, 0, false, true, true, "rport-2:0-1", "Online"),  /* no id yet */
	    listed(0, 3, true, true, true, "rport-2:0-2", "Online"),
	    listed(0, 4, true, true, false, "rport-2:0-3", "Blocked"),
	    listed(1, 0, true, true, true, "rport-2:1-4", "Marginal"),
	};
	struct discover_input in = {DISCOVER_FC, t, 5, NONE, NONE};
	struct sim anything = {NONE, NONE, " 0:3 1:0 "};
	struct result res;

	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "F0:0 0:3 F0:4 1:0");
	ck_assert_uint_eq(res.tries, 2);

	/* A selected id: only that target; one not listed is never tried. */
	in.id = 3;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "0:3");
	in.id = 4;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "F0:4");
	ck_assert_ptr_null(strstr(res.reason, "no target"));
	in.id = 7;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "");
	ck_assert(!res.failed);
	ck_assert_ptr_nonnull(strstr(res.reason, "no target 0:7"));
	in.channel = 1;
	in.id = NONE;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "1:0");
}
END_TEST

START_TEST(discover_sas_never_probes)
{
	struct discover_target t[] = {
	    listed(0, 0, true, true, true, "end_device-1:0", "end device"),
	    listed(0, 2, true, true, true, "end_device-1:2", "end device"),
	};
	struct discover_input in = {DISCOVER_SAS, t, 2, NONE, NONE};
	struct sim anything = {NONE, NONE, ""};
	struct result res;

	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "0:0 0:2");

	in.ntargets = 0;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "");
	ck_assert_ptr_nonnull(strstr(res.reason, "0 listed"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, discover_probing, 0, sizeof(probe_cases) / sizeof(probe_cases[0]));
	tcase_add_test(tc, discover_iscsi_sessions);
	tcase_add_test(tc, discover_fc_rports);
	tcase_add_test(tc, discover_sas_never_probes);
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
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
