// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-discover.c - target discovery (discover.h), table-driven: simulated
 * hosts answer each try, the trace of tries and the end are compared.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "reach.h"
#include "luns.h"

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
	const char *reason;   /* a part of the end reason */
	const char *ata_port; /* a libata host's port */
} probe_cases[] = {
	{ "spi: ids until EINVAL, then channel 1 refused",
	  NONE,
	  NONE,
	  { 0, 8, " 0:0 0:3 " },
	  "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 0:8 1:0",
	  10,
	  false,
	  "channel 1 refused" },
	{ "megasas: three channels, the first two empty",
	  NONE,
	  NONE,
	  { 2, 3, " 2:1 " },
	  "0:0 0:1 0:2 0:3 1:0 1:1 1:2 1:3 2:0 2:1 2:2 2:3 3:0",
	  13,
	  false,
	  "channel 3 refused" },
	{ "no limits, nothing there: the empty run ends it",
	  NONE,
	  NONE,
	  { NONE, NONE, "" },
	  NULL,
	  DISCOVER_EMPTY_IDS_MAX,
	  false,
	  "checks no limits" },
	{ "a target resets the empty run",
	  NONE,
	  NONE,
	  { NONE, NONE, " 0:500 " },
	  NULL,
	  501 + DISCOVER_EMPTY_IDS_MAX,
	  false,
	  "1 target" },
	{ "ids refused, channels never: the channel bound ends it, as a failure",
	  NONE,
	  NONE,
	  { NONE, 2, "" },
	  NULL,
	  DISCOVER_CHANNELS_MAX * 3,
	  true,
	  "bound of 64 channels" },
	{ "selector past the limits fails",
	  0,
	  5,
	  { 0, 4, "" },
	  "0:5",
	  1,
	  true,
	  "past the host's limits" },
	{ "id selected on every channel",
	  NONE,
	  1,
	  { 1, 4, " 1:1 " },
	  "0:1 1:1 2:1",
	  3,
	  false,
	  "channel 2 refused" },
	{ "one channel selected",
	  1,
	  NONE,
	  { 1, 3, " 1:0 " },
	  "1:0 1:1 1:2 1:3",
	  4,
	  false,
	  "refused" },
	{ "one target selected", 0, 2, { 0, 8, " 0:2 " }, "0:2", 1, false, "only id 2" },
	{ "the host refuses channel 0 itself",
	  NONE,
	  NONE,
	  { 0, 0, "" },
	  "0:0",
	  1,
	  false,
	  "refused channel 0" },
	{ "a libata port: nothing tried, whatever the port would answer",
	  NONE,
	  NONE,
	  { 0, 2, " 0:0 " },
	  "",
	  0,
	  false,
	  "libata port ata2: libata attaches its devices itself",
	  "ata2" },
	{ "a libata port, its target selected: not tried either",
	  0,
	  0,
	  { 0, 2, " 0:0 " },
	  "",
	  0,
	  false,
	  "a scan write would reset the port",
	  "ata2" },
};

START_TEST(discover_probing)
{
	const typeof(probe_cases[0]) *c = &probe_cases[_i];
	struct discover_input in = { .transport = DISCOVER_PROBE,
				     .channel = c->channel,
				     .id = c->id,
				     .ata_port = c->ata_port };
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
	struct discover_target x = { .channel = c,
				     .id = t,
				     .has_id = has_id,
				     .is_target = is_target,
				     .reachable = reachable };

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
	struct discover_input in = { DISCOVER_ISCSI, t, 2, NONE, NONE };
	/* A transport refuses nothing: only the list may end discovery. */
	struct sim anything = { NONE, NONE, " 0:0 " };
	struct result res;

	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "0:0 F0:1");
	ck_assert(!res.failed);
	ck_assert_ptr_nonnull(strstr(res.reason, "iSCSI transport: targets taken from its "
						 "topology (2 listed)"));
}
END_TEST

/*
 * A dry run: the targets with an attached LUN, the one selected when it
 * has none and may be looked at ("L": tried through a LUN attached for the
 * look), the listed ones that cannot be reached ("F").
 */
static const struct look_case {
	const char *what;
	enum discover_transport transport;
	int ntargets; /* of: 0:0 logged in, 0:1 failed */
	int channel, id;
	bool look;
	int nattached; /* of: 0:0:0:0, 0:0:2:1 */
	const char *trace;
	const char *ata_port; /* a libata host's port */
} look_cases[] = {
	{ "probed, one target named, nothing of it attached", DISCOVER_PROBE, 0, 0, 3, true, 2,
	  "L0:3" },
	{ "probed, the named target has a LUN attached", DISCOVER_PROBE, 0, 0, 2, true, 2, "0:2" },
	{ "no look (a whole host)", DISCOVER_PROBE, 0, NONE, NONE, false, 2, "0:0 0:2" },
	{ "no look asked for", DISCOVER_PROBE, 0, 0, 3, false, 2, "" },
	{ "listed and logged in, nothing attached", DISCOVER_ISCSI, 2, 0, 0, true, 0, "L0:0" },
	{ "listed, not reachable: reported, not looked at", DISCOVER_ISCSI, 2, 0, 1, true, 0,
	  "F0:1" },
	{ "not listed by the transport: nothing to look at", DISCOVER_ISCSI, 2, 0, 5, true, 0, "" },
	{ "a libata port, its target named, nothing attached: no look (a port reset)",
	  DISCOVER_PROBE, 0, 0, 3, true, 2, "", "ata1" },
	{ "a libata port, the whole host: its attached LUNs are read", DISCOVER_PROBE, 0, NONE,
	  NONE, false, 2, "0:0 0:2", "ata1" },
};

START_TEST(discover_dry_run_look)
{
	const struct look_case *c = &look_cases[_i];
	struct discover_target t[] = {
		listed(0, 0, true, true, true, "session1", "LOGGED_IN"),
		listed(0, 1, true, true, false, "session2", "FAILED"),
	};
	const struct scsi_addr attached[] = { { 0, 0, 0, 0 }, { 0, 0, 2, 1 } };
	struct discover_input in = { .transport = c->transport,
				     .targets = t,
				     .ntargets = (size_t)c->ntargets,
				     .channel = c->channel,
				     .id = c->id,
				     .dry_run = true,
				     .look = c->look,
				     .attached = attached,
				     .nattached = (size_t)c->nattached,
				     .ata_port = c->ata_port };
	struct discover_action a;
	struct discover d;
	char trace[64] = "";

	discover_init(&d, &in);
	for (int steps = 0;; steps++) {
		ck_assert_int_lt(steps, 10);
		discover_step(&d, DISCOVER_OUT_FOUND, &a);
		if (a.kind == DISCOVER_DONE)
			break;
		ck_assert_msg(a.look == (a.kind == DISCOVER_TRY && strstr(a.reason, "look")),
			      "%s: %s", c->what, a.reason);
		snprintf(trace + strlen(trace), sizeof(trace) - strlen(trace), "%s%s%u:%u",
			 trace[0] ? " " : "",
			 a.kind == DISCOVER_FAIL ? "F"
			 : a.look		 ? "L"
						 : "",
			 a.channel, a.id);
	}
	ck_assert_msg(strcmp(trace, c->trace) == 0, "%s: '%s', expected '%s'", c->what, trace,
		      c->trace);
}
END_TEST

/* The daemon's poll: listed, reachable targets of which nothing is
 * attached, once each. */
START_TEST(discover_empty_targets_for_the_poll)
{
	struct discover_target t[] = {
		listed(0, 0, true, true, true, "session1", "LOGGED_IN"),
		listed(0, 1, true, true, true, "session2", "LOGGED_IN"),
		listed(0, 1, true, true, true, "session3", "LOGGED_IN"),
		listed(0, 2, true, true, false, "session4", "FAILED"),
		listed(0, 3, false, true, true, "session5", "LOGGED_IN"),
		listed(0, 4, true, false, true, "rport-0:0-4", "Online"),
		listed(1, 0, true, true, true, "rport-0:1-0", "Online"),
	};
	const struct scsi_addr attached[] = { { 0, 0, 0, 3 }, { 0, 1, 1, 0 } };
	struct scsi_addr out[7];
	size_t n = discover_empty_targets(t, 7, attached, 2, out);

	/* 0:0 has a LUN; 0:1 twice listed, once; 0:2 not reachable; 0:3 no id;
	 * 0:4 not a target (an initiator port); 1:0 listed, but 1:1:0 attached
	 * is another target */
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(out[0].channel, 0);
	ck_assert_uint_eq(out[0].id, 1);
	ck_assert_uint_eq(out[1].channel, 1);
	ck_assert_uint_eq(out[1].id, 0);
	ck_assert_uint_eq(discover_empty_targets(t, 7, NULL, 0, out), 3);
	ck_assert_uint_eq(discover_empty_targets(NULL, 0, attached, 2, out), 0);
}
END_TEST

/* Two entries of the list for one channel and id (the audit's fake trees;
 * sessions of a multi-session HBA): the target is tried once. */
START_TEST(discover_one_target_listed_twice)
{
	struct discover_target t[] = {
		listed(0, 0, true, true, true, "session1", "LOGGED_IN"),
		listed(0, 0, true, true, true, "session2", "LOGGED_IN"),
		listed(0, 1, true, true, false, "session3", "FAILED"),
		listed(0, 1, true, true, true, "session4", "LOGGED_IN"),
		listed(0, 2, true, true, true, "session5", "LOGGED_IN"),
	};
	struct discover_input in = { DISCOVER_ISCSI, t, 5, NONE, NONE };
	struct sim anything = { NONE, NONE, " 0:0 0:2 " };
	struct discover_action a;
	struct discover d;
	struct result res;

	/* 0:1: session3 failed, session4 logged in: reachable. */
	struct sim answers = { NONE, NONE, " 0:0 0:1 0:2 " };

	run(&in, &answers, &res);
	ck_assert_str_eq(res.trace, "0:0 0:1 0:2");
	t[3].reachable = false;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "0:0 F0:1 0:2");
	discover_init(&d, &in);
	discover_step(&d, DISCOVER_OUT_NONE, &a);
	ck_assert_int_eq(a.kind, DISCOVER_TRY);
	ck_assert_uint_eq(a.also_listed, 1);
	ck_assert_ptr_nonnull(strstr(a.reason, "and by 1 more with the same target id"));
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
	struct discover_input in = { DISCOVER_FC, t, 5, NONE, NONE };
	struct sim anything = { NONE, NONE, " 0:3 1:0 " };
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
	struct discover_input in = { DISCOVER_SAS, t, 2, NONE, NONE };
	struct sim anything = { NONE, NONE, "" };
	struct result res;

	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "0:0 0:2");

	in.ntargets = 0;
	run(&in, &anything, &res);
	ck_assert_str_eq(res.trace, "");
	ck_assert_ptr_nonnull(strstr(res.reason, "0 listed"));
}
END_TEST

/*
 * Reaching one target: a simulated device answers each write (LUNs that
 * are units attach, the well-known LUN attaches, is refused with EINVAL or
 * attaches nothing, the kernel's "C T -" attaches its LUNs or nothing);
 * the trace lists the writes ("0", "W" for 49409, "-", or a number).
 */
struct reach_sim {
	const char *units; /* LUNs that attach when written, e.g. "0 3" */
	char wlun;	   /* 'a' attaches, 'e' EINVAL, 'n' nothing */
	int kernel_first;  /* first LUN "C T -" attaches, or -1 */
	int einval_lun;	   /* a LUN whose write gives EINVAL, or -1 */
	int error_lun;	   /* a LUN whose write fails with EIO, or -1 */
	bool stop;	   /* that failure is a bound of the scan */
};

static const struct reach_case {
	const char *what;
	struct reach_input in;
	bool allow_4_5; /* the policy's luns = { 4, 5 } */
	struct reach_sim sim;
	long long max_lun_ok;
	const char *trace;
	enum reach_action_kind kind;
	const char *code;
	long long lun;
} reach_cases[] = {
	{ "LUN 0 answers",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "0", 'a', -1, -1, -1 },
	  -1,
	  "0",
	  REACH_FOUND,
	  "lun0",
	  0 },
	{ "LUN 0 attached before",
	  { .lun0_attached = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "0", 'a', -1, -1, -1 },
	  -1,
	  "",
	  REACH_FOUND,
	  "lun0-attached",
	  0 },
	{ "another LUN attached before",
	  { .other_attached = true, .other_lun = 7, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "7", 'a', -1, -1, -1 },
	  -1,
	  "0",
	  REACH_FOUND,
	  "attached-before",
	  7 },
	{ "no LUN 0: the well-known LUN",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "3", 'a', -1, -1, -1 },
	  -1,
	  "0 W",
	  REACH_FOUND,
	  "wlun",
	  49409 },
	{ "the well-known LUN past the host's limit: the kernel's scan",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "3", 'e', 3, -1, -1 },
	  3,
	  "0 W -",
	  REACH_FOUND,
	  "kernel-scan",
	  3 },
	{ "known before that the host refuses it",
	  { .lun0_allowed = true, .allowed = -1, .wlun_impossible = true },
	  false,
	  { "3", 'e', 3, -1, -1 },
	  3,
	  "0 -",
	  REACH_FOUND,
	  "kernel-scan",
	  3 },
	{ "the well-known LUN refused with CHECK CONDITION (LIO)",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "1", 'n', 1, -1, -1 },
	  1,
	  "0 W -",
	  REACH_FOUND,
	  "kernel-scan",
	  1 },
	{ "nothing at all, unlisted",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "", 'n', -1, -1, -1 },
	  -1,
	  "0 W -",
	  REACH_NONE,
	  "none",
	  -1 },
	{ "nothing at all, listed",
	  { .listed = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "", 'n', -1, -1, -1 },
	  -1,
	  "0 W -",
	  REACH_REPORT,
	  "no-lun-answered",
	  -1 },
	{ "LUN 0 past the limit: the id is",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "", 'n', -1, 0, -1 },
	  -1,
	  "0",
	  REACH_LIMIT,
	  "limit",
	  -1 },
	{ "a dry run writes nothing",
	  { .dry_run = true, .listed = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "0", 'a', -1, -1, -1 },
	  -1,
	  "",
	  REACH_REPORT,
	  "no-lun-answered",
	  -1 },
	{ "a dry run's look: through LUN 0",
	  { .dry_run = true, .look = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "0 1", 'a', -1, -1, -1 },
	  -1,
	  "0",
	  REACH_FOUND,
	  "lun0",
	  0 },
	{ "a dry run's look: no LUN 0, the well-known LUN",
	  { .dry_run = true, .look = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "3", 'a', -1, -1, -1 },
	  -1,
	  "0 W",
	  REACH_FOUND,
	  "wlun",
	  49409 },
	{ "a dry run's look: never the kernel's scan",
	  { .dry_run = true, .look = true, .listed = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "3", 'n', 3, -1, -1 },
	  -1,
	  "0 W",
	  REACH_REPORT,
	  "no-lun-answered",
	  -1 },
	{ "a dry run's look: LUN 0 refused, through a LUN the policy names",
	  { .dry_run = true,
	    .look = true,
	    .allowed = 1,
	    .first_allowed = 4,
	    .restricts = true,
	    .lun0_why = "not in the luns" },
	  true,
	  { "5", 'n', -1, -1, -1 },
	  -1,
	  "W 4 5",
	  REACH_FOUND,
	  "policy-lun",
	  5 },
	{ "EINVAL on a listed target is a failure",
	  { .listed = true, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "", 'n', -1, 0, -1 },
	  -1,
	  "0",
	  REACH_REPORT,
	  "write-failed",
	  -1 },
	{ "EINVAL on LUN 0, another LUN attached before",
	  { .other_attached = true, .other_lun = 2, .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "2", 'n', -1, 0, -1 },
	  -1,
	  "0",
	  REACH_FOUND,
	  "attached-before",
	  2 },
	{ "a write error on an unlisted target",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "", 'n', -1, -1, 0 },
	  -1,
	  "0",
	  REACH_ABORT,
	  "write-failed",
	  -1 },
	{ "a bound stops it",
	  { .lun0_allowed = true, .allowed = -1 },
	  false,
	  { "", 'n', -1, -1, 0, true },
	  -1,
	  "0",
	  REACH_REPORT,
	  "stopped",
	  -1 },
	{ "LUN 0 refused: through a LUN the policy names",
	  { .allowed = 1, .first_allowed = 4, .lun0_why = "not in the luns" },
	  true,
	  { "5", 'n', -1, -1, -1 },
	  -1,
	  "W 4 5",
	  REACH_FOUND,
	  "policy-lun",
	  5 },
	{ "LUN 0 refused, nothing answers, listed: never the kernel's scan",
	  { .listed = true,
	    .allowed = 1,
	    .first_allowed = 4,
	    .restricts = true,
	    .lun0_why = "not in the luns" },
	  true,
	  { "", 'n', 3, -1, -1 },
	  -1,
	  "W 4 5",
	  REACH_REPORT,
	  "unreachable-restricted",
	  -1 },
	{ "LUN 0 refused, the well-known LUN excluded too",
	  { .allowed = 1,
	    .first_allowed = 4,
	    .wlun_excluded = true,
	    .restricts = true,
	    .lun0_why = "excluded" },
	  true,
	  { "4", 'a', -1, -1, -1 },
	  -1,
	  "4",
	  REACH_FOUND,
	  "policy-lun",
	  4 },
	{ "LUN 0 refused, EINVAL for the well-known LUN the host took before",
	  { .allowed = 1, .first_allowed = 4, .restricts = true, .lun0_why = "x" },
	  true,
	  { "", 'e', -1, -1, -1 },
	  50000,
	  "W",
	  REACH_LIMIT,
	  "limit",
	  -1 },
	{ "the policy allows nothing, listed",
	  { .listed = true, .allowed = 0, .lun0_why = "x" },
	  false,
	  { "0", 'a', -1, -1, -1 },
	  -1,
	  "",
	  REACH_REPORT,
	  "policy-allows-none",
	  -1 },
	{ "the policy allows nothing, unlisted",
	  { .allowed = 0, .lun0_why = "x" },
	  false,
	  { "0", 'a', -1, -1, -1 },
	  -1,
	  "",
	  REACH_NONE,
	  "none",
	  -1 },
	{ "the LUN asked for is refused",
	  { .lun0_allowed = true, .allowed = -1, .selected_refused = true },
	  false,
	  { "0", 'a', -1, -1, -1 },
	  -1,
	  "",
	  REACH_REPORT,
	  "selected-refused",
	  -1 },
};

static bool is_unit(const char *units, uint64_t lun)
{
	char want[24];
	const char *p = units;

	snprintf(want, sizeof(want), "%llu", (unsigned long long)lun);
	while ((p = strstr(p, want))) {
		size_t n = strlen(want);

		if ((p == units || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static const struct iscsi_address_case {
	const char *address;
	size_t iqn_len;
	long tpgt;
} iscsi_address_cases[] = {
	{ "iqn.2003-01.org.linux-iscsi.test:t1,1", 35, 1 },
	{ "iqn.2003-01.x:t1,65535", 16, 65535 },
	{ "iqn.2003-01.x:t1", 16, -1 },
	{ "?", 1, -1 },
	{ "", 0, -1 },
};

START_TEST(discover_iscsi_address_split)
{
	const struct iscsi_address_case *c = &iscsi_address_cases[_i];
	size_t n = 99;

	ck_assert_int_eq(discover_iscsi_address(c->address, &n), c->tpgt);
	ck_assert_uint_eq(n, c->iqn_len);
}
END_TEST

/* Each row: a host's list, the target asked for, and what the lunmask
 * policy sees of it, one "port_name|sas_address|iqn,tpgt" per address. */
static const struct lunmask_targets_case {
	const char *name;
	enum discover_transport transport;
	struct discover_target listed[3];
	size_t nlisted;
	unsigned int channel, id;
	const char *want[3];
	size_t nwant;
} lunmask_targets_cases[] = {
	{ .name = "probed host: the target alone",
	  .transport = DISCOVER_PROBE,
	  .channel = 0,
	  .id = 3,
	  .want = { "-|-|-,-1" },
	  .nwant = 1 },
	{ .name = "iSCSI: two sessions to one target id, each its IQN and tag",
	  .transport = DISCOVER_ISCSI,
	  .listed = { { .channel = 0, .id = 0, .has_id = true, .address = "iqn.x:t1,1" },
		      { .channel = 0, .id = 0, .has_id = true, .address = "iqn.x:t1,2" },
		      { .channel = 0, .id = 1, .has_id = true, .address = "iqn.x:t2,1" } },
	  .nlisted = 3,
	  .channel = 0,
	  .id = 0,
	  .want = { "-|-|iqn.x:t1,1", "-|-|iqn.x:t1,2" },
	  .nwant = 2 },
	{ .name = "FC: the remote port of the id asked for",
	  .transport = DISCOVER_FC,
	  .listed = { { .channel = 0, .id = 0, .has_id = true, .address = "0x5001" },
		      { .channel = 0, .id = 2, .has_id = true, .address = "0x5002" } },
	  .nlisted = 2,
	  .channel = 0,
	  .id = 2,
	  .want = { "0x5002|-|-,-1" },
	  .nwant = 1 },
	{ .name = "SAS: an entry without a target id names nothing",
	  .transport = DISCOVER_SAS,
	  .listed = { { .channel = 0, .id = 0, .has_id = false, .address = "0x5000c5" },
		      { .channel = 1, .id = 0, .has_id = true, .address = "0x5000c6" } },
	  .nlisted = 2,
	  .channel = 0,
	  .id = 0,
	  .want = { "-|-|-,-1" },
	  .nwant = 1 },
	{ .name = "SAS: the channel counts",
	  .transport = DISCOVER_SAS,
	  .listed = { { .channel = 1, .id = 0, .has_id = true, .address = "0x5000c6" } },
	  .nlisted = 1,
	  .channel = 1,
	  .id = 0,
	  .want = { "-|0x5000c6|-,-1" },
	  .nwant = 1 },
};

START_TEST(discover_lunmask_targets_of_a_target)
{
	const struct lunmask_targets_case *c = &lunmask_targets_cases[_i];
	const struct lunmask_target base = {
		.host = 4, .driver = "drv", .channel = c->channel, .id = c->id, .iscsi_tpgt = -1
	};
	char(*iqns)[ISCSI_NAME_MAX + 16];
	struct lunmask_target *t;
	ssize_t n;

	n = discover_lunmask_targets(c->listed, c->nlisted, c->transport, &base, &t, &iqns);
	ck_assert_msg(n == (ssize_t)c->nwant, "%s: %zd targets", c->name, n);
	for (size_t i = 0; i < c->nwant; i++) {
		char got[512];

		snprintf(got, sizeof(got), "%s|%s|%s,%ld", t[i].port_name ? t[i].port_name : "-",
			 t[i].sas_address ? t[i].sas_address : "-",
			 t[i].iscsi_target ? t[i].iscsi_target : "-", t[i].iscsi_tpgt);
		ck_assert_msg(strcmp(got, c->want[i]) == 0, "%s: [%zu] %s, not %s", c->name, i, got,
			      c->want[i]);
		ck_assert_uint_eq(t[i].host, 4);
		ck_assert_str_eq(t[i].driver, "drv");
		ck_assert_uint_eq(t[i].channel, c->channel);
		ck_assert_uint_eq(t[i].id, c->id);
	}
	free(t);
	free(iqns);
}
END_TEST

START_TEST(reach_rules)
{
	const struct reach_case *c = &reach_cases[_i];
	struct lun_range r45 = { 4, 5 };
	struct lunmask_entry e = { .file = "f",
				   .title = "t",
				   .iscsi_tpgt = -1,
				   .channel = -1,
				   .id = -1,
				   .has_luns = true,
				   .luns = &r45,
				   .nluns = 1 };
	const struct lunmask_entry *items[] = { &e };
	struct lunmask_set mask = { items, 1 };
	struct reach_input in = c->in;
	struct reach_outcome o = { .kind = REACH_OUT_NONE, .max_lun_ok = -1 };
	struct reach_action a;
	struct reach r;
	char trace[128] = "";

	if (c->allow_4_5)
		in.mask = &mask;
	if (!in.lun0_why)
		in.lun0_why = "";
	reach_init(&r, &in);
	for (int steps = 0;; steps++) {
		ck_assert_int_lt(steps, 100);
		reach_step(&r, &o, &a);
		if (a.kind != REACH_WRITE)
			break;
		if (a.kernel_scan)
			strcat(trace, *trace ? " -" : "-");
		else if (a.lun == LUN_WLUN_REPORT_LUNS)
			strcat(trace, *trace ? " W" : "W");
		else
			snprintf(trace + strlen(trace), sizeof(trace) - strlen(trace), "%s%llu",
				 *trace ? " " : "", (unsigned long long)a.lun);
		memset(&o, 0, sizeof(o));
		o.max_lun_ok = c->max_lun_ok;
		if (!a.kernel_scan && (long long)a.lun == c->sim.error_lun) {
			o.kind = REACH_OUT_ERROR;
			o.error = c->sim.stop ? -ETIMEDOUT : -EIO;
			o.stopped = c->sim.stop;
		} else if (!a.kernel_scan && (long long)a.lun == c->sim.einval_lun) {
			o.kind = REACH_OUT_EINVAL;
		} else if (a.kernel_scan) {
			o.kind = c->sim.kernel_first >= 0 ? REACH_OUT_ATTACHED : REACH_OUT_EMPTY;
			o.lun = (uint64_t)c->sim.kernel_first;
		} else if (a.lun == LUN_WLUN_REPORT_LUNS) {
			o.kind = c->sim.wlun == 'a'   ? REACH_OUT_ATTACHED
				 : c->sim.wlun == 'e' ? REACH_OUT_EINVAL
						      : REACH_OUT_EMPTY;
		} else {
			o.kind =
				is_unit(c->sim.units, a.lun) ? REACH_OUT_ATTACHED : REACH_OUT_EMPTY;
		}
	}
	ck_assert_msg(strcmp(trace, c->trace) == 0, "%s: writes '%s', expected '%s'", c->what,
		      trace, c->trace);
	ck_assert_msg(a.kind == c->kind, "%s: action %d, expected %d (%s)", c->what, a.kind,
		      c->kind, a.reason);
	ck_assert_msg(strcmp(scan_code_name(a.code), c->code) == 0, "%s: code %s, expected %s",
		      c->what, scan_code_name(a.code), c->code);
	if (c->lun >= 0)
		ck_assert_uint_eq(a.lun, (uint64_t)c->lun);
	if (a.kind == REACH_FOUND) {
		ck_assert(a.temporary == (a.lun == LUN_WLUN_REPORT_LUNS));
		ck_assert(a.lun0_new == (a.code == SC_LUN0));
		ck_assert(a.probe_new == (a.code == SC_POLICY_LUN));
		ck_assert(a.kernel_luns == (a.code == SC_KERNEL_SCAN));
	}
	/* The host refusing the well-known LUN is news once, for the host. */
	ck_assert(a.wlun_impossible == (c->sim.wlun == 'e' && in.lun0_allowed &&
					!in.wlun_impossible && strstr(trace, "W")));
	if (a.kind == REACH_REPORT && a.failed && a.code != SC_STOPPED)
		ck_assert_msg(a.reason[0], "%s: a failure without words", c->what);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, discover_probing, 0, sizeof(probe_cases) / sizeof(probe_cases[0]));
	tcase_add_test(tc, discover_iscsi_sessions);
	tcase_add_test(tc, discover_fc_rports);
	tcase_add_test(tc, discover_one_target_listed_twice);
	tcase_add_test(tc, discover_sas_never_probes);
	tcase_add_test(tc, discover_empty_targets_for_the_poll);
	tcase_add_loop_test(tc, discover_iscsi_address_split, 0,
			    sizeof(iscsi_address_cases) / sizeof(iscsi_address_cases[0]));
	tcase_add_loop_test(tc, discover_dry_run_look, 0,
			    sizeof(look_cases) / sizeof(look_cases[0]));
	tcase_add_loop_test(tc, discover_lunmask_targets_of_a_target, 0,
			    sizeof(lunmask_targets_cases) / sizeof(lunmask_targets_cases[0]));
	tcase_add_loop_test(tc, reach_rules, 0, sizeof(reach_cases) / sizeof(reach_cases[0]));
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
