// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-target.c - one target's machine (target.c) run against a simulated
 * world: a host and target whose LUNs answer or not, list themselves or
 * not, repeat another LUN's identity, are in use, or vanish with the
 * transport. Each row names the world, the options and the quirk
 * database, and states the exact actions the machine takes (a trace such
 * as "A0 I36 I96 RL A1 R1:vpd_pg83"), how the target ends, each LUN's line
 * and what is attached afterwards. No file, no device: the world answers
 * the actions as scan.c would carry them out on a real host.
 *
 * Trace tokens: A<lun> attach (AW the REPORT LUNS well-known LUN), K the
 * kernel's scan of the target, B<n> our writes of n LUNs in one hand-over,
 * I<len>[:<lun>] INQUIRY, RL[:<lun>] REPORT LUNS, R<lun>:<attr> a sysfs
 * attribute, L the target's LUNs, U<lun> in use?, D<lun> delete, X lost?,
 * and =found, =none, =limit or =abort at the end.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luns.h"
#include "quirks.h"
#include "target.h"

#define WORLD_LUNS 64
#define NO_LIMIT (-1)
/* libsgutils2's categories, as sgio.c returns them (sg_lib.h's PDT_ names
 * would clash with inquiry.h's); the machine only tells a positive category
 * from a negative errno, and sense from none. */
#define CAT_ILLEGAL_REQ 5
#define CAT_TIMEOUT 33

/**
 * struct world - the host and target the machine meets
 * @luns: the LUNs that answer, as "0-3,7" (none: "")
 * @report: what REPORT LUNS lists: NULL the LUNs that answer, "fail" the
 *	device refuses it (ILLEGAL REQUEST), "silent" no answer (no sense),
 *	"short" the first two of @luns with a header that promises more, or
 *	a list
 * @before: attached when the scan starts
 * @in_use: attached LUNs a user holds
 * @ghosts: LUNs that answer with LUN 0's identity
 * @mgmt: LUNs of type 12 (an array's management LUNs); the others are @pdt
 * @version: INQUIRY's version (5: SPC-3, 2: SCSI-2)
 * @pdt: the peripheral device type of every LUN
 * @wlun: the REPORT LUNS well-known LUN: 'a' answers, 'e' the host refuses
 *	it (EINVAL), 0 nothing answers
 * @inquiry_fails: INQUIRY through SG_IO times out (sysfs keeps its copy)
 * @no_node: no sg or bsg node
 * @lost_after: the transport loses the target after this many writes (0:
 *	never)
 * @lun_limit: the host refuses LUNs above this with EINVAL (NO_LIMIT: none)
 * @id_limit: the host refuses the target's id (EINVAL)
 * @tpgs: the TPGS field of every LUN's INQUIRY (target port groups)
 * @dh: what dh_state reads for a LUN the scan attaches: NULL "detached",
 *	"none" no such attribute (a kernel without scsi_dh), or a handler
 * @same_designator: LUNs whose VPD page 0x83 repeats LUN 0's, though
 *	their INQUIRY data is their own
 * @no_vpd83: LUNs without VPD page 0x83 in sysfs
 * @extra_listed: a LUN REPORT LUNS lists beyond @luns (0: none)
 * @fault_on: the action (its trace token) that fails instead of being done
 * @fault: its result (a negative errno, or a category for a command)
 * @bound_after: the action after which a time bound of the scan is reached
 * @bound: that bound: -ETIMEDOUT the target's, -ECANCELED the host's
 */
struct world {
	const char *luns;
	const char *report;
	const char *before;
	const char *in_use;
	const char *ghosts;
	const char *mgmt;
	uint8_t version;
	uint8_t pdt;
	char wlun;
	bool inquiry_fails;
	bool no_node;
	int lost_after;
	long long lun_limit;
	bool id_limit;
	unsigned int tpgs;
	const char *dh;
	const char *same_designator;
	const char *no_vpd83;
	const char *remapped;
	uint64_t extra_listed;
	const char *fault_on;
	int fault;
	const char *bound_after;
	int bound;
};

/**
 * struct options - what the scan is asked to do
 * @dry_run, @remove, @force, @investigate, @attach_ghosts: as scsi-scan's
 * @check_identity: compare attached LUNs with the device's answer now
 * @remove_refused: delete attached LUNs the policy refuses (the daemon)
 * @only_lun: one LUN selected (-1: none)
 * @listed: the transport lists the target
 * @transport: the host has a transport class
 * @quirks: quirk database text (NULL: empty)
 * @max_luns: scsi_mod's max_luns (0: 512)
 * @two_ports: the transport lists the target at two port names,
 *	0x500a and 0x500b
 */
struct options {
	bool dry_run;
	bool remove;
	bool force;
	bool investigate;
	bool attach_ghosts;
	bool check_identity;
	bool remove_refused;
	long long only_lun;
	bool listed;
	bool transport;
	const char *quirks;
	uint64_t max_luns;
	bool two_ports;
};

/**
 * struct target_case - one row
 * @what: the case, in words
 * @world: what the target is
 * @opt: what the scan is asked
 * @trace: the actions, in order
 * @end: how the machine ends
 * @lines: each LUN's line, "lun:outcome:code" (empty for none)
 * @after: the LUNs attached afterwards, "0,1,2"
 * @end_code: the target's end code token, or NULL to skip the check
 * @method_code: the target's method code token, or NULL to skip
 * @failed: the target's report says it failed
 * @error: with TARGET_END_ABORT, or a found target whose host must stop:
 *	the negative errno
 * @deferred: releases left for the end of the host's scan
 * @ghosts: LUNs the report names as ghosts
 * @unknown_identity: some LUN the watch compared could not be told apart
 *	from another nor matched to it (the report's unknown_identity)
 * @wlun_impossible: the machine found the host refusing the well-known LUN
 * @handlers: what became of each LUN's device handler, "lun:step" (keep,
 *	attach, conflict, unknown; ":error" if the write failed), or NULL for
 *	none
 */
struct target_case {
	const char *what;
	struct world world;
	struct options opt;
	const char *trace;
	enum target_end_kind end;
	const char *lines;
	const char *after;
	const char *end_code;
	const char *method_code;
	bool failed;
	int error;
	size_t deferred;
	size_t ghosts;
	bool unknown_identity;
	bool wlun_impossible;
	const char *handlers;
};

/* ---- the simulated world ------------------------------------------------- */

struct sim {
	const struct world *w;
	bool attached[WORLD_LUNS];
	bool wlun_attached;
	char handler[WORLD_LUNS][16];
	int writes;
	int bound;
	bool read_ahead;
	int read_aheads;
	long long max_lun_ok;
	char trace[2048];
	uint8_t buf[512];
	uint64_t luns[WORLD_LUNS + 1];
};

/* Whether @lun is in the list "0-3,7". */
static bool in_list(const char *list, uint64_t lun)
{
	const char *p = list;

	while (p && *p) {
		char *end;
		unsigned long long lo = strtoull(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtoull(end + 1, &end, 10);
		if (lun >= lo && lun <= hi)
			return true;
		p = *end == ',' ? end + 1 : NULL;
	}
	return false;
}

static bool answers(const struct world *w, uint64_t lun)
{
	return lun < WORLD_LUNS && in_list(w->luns, lun);
}

static void trace(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void trace(struct sim *s, const char *fmt, ...)
{
	size_t used = strlen(s->trace);
	va_list ap;

	if (used)
		snprintf(s->trace + used, sizeof(s->trace) - used, " ");
	used = strlen(s->trace);
	va_start(ap, fmt);
	vsnprintf(s->trace + used, sizeof(s->trace) - used, fmt, ap);
	va_end(ap);
}

static size_t attached_luns(const struct sim *s, uint64_t *out)
{
	size_t n = 0;

	for (uint64_t l = 0; l < WORLD_LUNS; l++)
		if (s->attached[l])
			out[n++] = l;
	if (s->wlun_attached)
		out[n++] = LUN_WLUN_REPORT_LUNS;
	return n;
}

static bool is_attached(const struct sim *s, uint64_t lun)
{
	if (lun == LUN_WLUN_REPORT_LUNS)
		return s->wlun_attached;
	return lun < WORLD_LUNS && s->attached[lun];
}

/* The identity a LUN answers with: a ghost answers with LUN 0's. */
static unsigned int identity_of(const struct world *w, uint64_t lun)
{
	return in_list(w->ghosts, lun) ? 0 : (unsigned int)lun;
}

/* What the device answers now through SG_IO: a remapped LUN is another
 * unit; the kernel's copies (TARGET_READ) keep the one it attached. */
static unsigned int device_identity(const struct world *w, uint64_t lun)
{
	return identity_of(w, lun) + (in_list(w->remapped, lun) ? 1000 : 0);
}

static size_t inquiry_data_of(const struct sim *s, uint64_t lun, unsigned int id, uint8_t *b,
			      size_t len)
{
	uint8_t d[96] = { 0 };

	d[0] = lun == LUN_WLUN_REPORT_LUNS ? 0x1e : in_list(s->w->mgmt, lun) ? 0x0c : s->w->pdt;
	d[2] = s->w->version;
	d[3] = 0x02;
	d[4] = s->w->version <= 2 ? 31 : 91;
	d[5] = (uint8_t)(s->w->tpgs << 4);
	memcpy(d + 8, "ACME    ", 8);
	memcpy(d + 16, "Disk            ", 16);
	snprintf((char *)d + 32, 5, "%04u", id);
	len = len < (size_t)d[4] + 5 ? len : (size_t)d[4] + 5;
	memcpy(b, d, len);
	return len;
}

static size_t inquiry_data(const struct sim *s, uint64_t lun, uint8_t *b, size_t len)
{
	return inquiry_data_of(s, lun, identity_of(s->w, lun), b, len);
}

static size_t vpd80_of(const struct sim *s, unsigned int id, uint8_t *b)
{
	int n = snprintf((char *)b + 4, 32, "SER%08u", id);

	b[0] = s->w->pdt;
	b[1] = 0x80;
	b[2] = 0;
	b[3] = (uint8_t)n;
	return 4 + (size_t)n;
}

static size_t vpd80(const struct sim *s, uint64_t lun, uint8_t *b)
{
	return vpd80_of(s, identity_of(s->w, lun), b);
}

/* One NAA 6 designator, unique to the LUN's identity. */
static size_t vpd83_of(const struct sim *s, uint64_t lun, unsigned int id, uint8_t *b)
{
	if (in_list(s->w->same_designator, lun))
		id = 0;

	memset(b, 0, 24);
	b[0] = s->w->pdt;
	b[1] = 0x83;
	b[3] = 20;
	b[4] = 0x01;
	b[5] = 0x03;
	b[7] = 16;
	b[8] = 0x60;
	b[9] = 0x01;
	b[22] = (uint8_t)(id >> 8);
	b[23] = (uint8_t)id;
	return 24;
}

static size_t vpd83(const struct sim *s, uint64_t lun, uint8_t *b)
{
	return vpd83_of(s, lun, identity_of(s->w, lun), b);
}

static size_t report(const struct sim *s, uint8_t *b)
{
	const struct world *w = s->w;
	const char *list = w->report && strcmp(w->report, "malformed") ? w->report : w->luns;
	size_t n = 0, max = w->report && !strcmp(w->report, "short") ? 2 : WORLD_LUNS;

	if (w->report && !strcmp(w->report, "short"))
		list = w->luns;
	memset(b, 0, 8);
	for (uint64_t l = 0; l < WORLD_LUNS && n < max; l++) {
		if (!in_list(list, l))
			continue;
		lun_to_scsilun(l, b + 8 + 8 * n);
		n++;
	}
	if (w->extra_listed)
		lun_to_scsilun(w->extra_listed, b + 8 + 8 * n++);
	b[3] = (uint8_t)(8 * n);
	if (max == 2)
		b[3] = 8 * 6;
	return 8 + 8 * n;
}

/* The trace token of an action. */
static void token(const struct target_action *a, char *t, size_t len)
{
	char l[24];

	if (a->lun == LUN_WLUN_REPORT_LUNS)
		snprintf(l, sizeof(l), "W");
	else
		snprintf(l, sizeof(l), "%" PRIu64, a->lun);
	switch (a->kind) {
	case TARGET_ATTACH:
		snprintf(t, len, "A%s", l);
		break;
	case TARGET_KERNEL_SCAN:
		snprintf(t, len, "K");
		break;
	case TARGET_ATTACH_LUNS:
		snprintf(t, len, "B%zu", a->nluns);
		break;
	case TARGET_INQUIRY:
		snprintf(t, len, a->lun ? "I%zu:%s" : "I%zu", a->len, l);
		break;
	case TARGET_VPD:
		snprintf(t, len, "V%s:%02x", l, a->page);
		break;
	case TARGET_REPORT_LUNS:
		snprintf(t, len, a->lun ? "RL:%s" : "RL", l);
		break;
	case TARGET_READ:
		snprintf(t, len, "R%s:%s", l, target_attr_name(a->attr));
		break;
	case TARGET_LIST:
		snprintf(t, len, "L");
		break;
	case TARGET_IN_USE:
		snprintf(t, len, "U%s", l);
		break;
	case TARGET_DELETE:
		snprintf(t, len, "D%s", l);
		break;
	case TARGET_LOST:
		snprintf(t, len, "X");
		break;
	case TARGET_SET_HANDLER:
		snprintf(t, len, "H%s:%s", l, a->text);
		break;
	case TARGET_DONE:
		snprintf(t, len, "=");
		break;
	}
}

static const char bound_why[] = "stopped: the target's scan reached its time bound of 1 s";

static void execute(struct sim *s, const struct target_action *a, struct target_obs *o)
{
	const struct world *w = s->w;
	uint64_t lun = a->lun;
	bool wlun = lun == LUN_WLUN_REPORT_LUNS;
	char tok[48];

	memset(o, 0, sizeof(*o));
	o->ms_left = -1;
	token(a, tok, sizeof(tok));
	trace(s, "%s", tok);
	if (w->fault_on && !strcmp(tok, w->fault_on)) {
		o->result = w->fault;
		/* scan.c words the failures of commands only */
		o->why = w->fault > 0 ? "injected fault" : NULL;
		o->max_lun_ok = s->max_lun_ok;
		goto out;
	}
	if (s->bound && (a->kind == TARGET_ATTACH || a->kind == TARGET_KERNEL_SCAN ||
			 a->kind == TARGET_ATTACH_LUNS)) {
		/* scan.c checks the bounds before every write */
		o->result = s->bound;
		o->why = bound_why;
		o->max_lun_ok = s->max_lun_ok;
		goto out;
	}
	switch (a->kind) {
	case TARGET_ATTACH:
		s->writes++;
		if (w->id_limit || (wlun && w->wlun == 'e') ||
		    (!wlun && w->lun_limit != NO_LIMIT && (long long)lun > w->lun_limit)) {
			o->result = -EINVAL;
		} else if (w->lost_after && s->writes > w->lost_after) {
			o->attached = false;
		} else if (wlun) {
			s->wlun_attached |= w->wlun == 'a';
			o->attached = s->wlun_attached;
		} else if (answers(w, lun)) {
			s->attached[lun] = true;
			o->attached = true;
		}
		if (o->result == 0 && !wlun && (long long)lun > s->max_lun_ok)
			s->max_lun_ok = (long long)lun;
		o->max_lun_ok = s->max_lun_ok;
		o->ms = 1;
		if (s->read_ahead && a->read_after && o->attached) {
			/* As scan.c does, the read right after the write; traced
			 * here, so a read the machine would not ask next shows
			 * as one read too many. */
			struct target_action read = { .kind = TARGET_READ,
						      .lun = lun,
						      .attr = a->attr };
			struct target_obs ro;

			execute(s, &read, &ro);
			o->read_result = ro.result;
			o->data = ro.data;
			o->len = ro.len;
			s->read_aheads++;
		}
		break;
	case TARGET_KERNEL_SCAN:
		s->writes++;
		if (w->id_limit) {
			o->result = -EINVAL;
			break;
		}
		if (!(w->lost_after && s->writes > w->lost_after))
			for (uint64_t k = 0; k < WORLD_LUNS; k++)
				if (answers(w, k) &&
				    (w->lun_limit == NO_LIMIT || (long long)k <= w->lun_limit))
					s->attached[k] = true;
		o->max_lun_ok = s->max_lun_ok;
		o->luns = s->luns;
		o->nluns = attached_luns(s, s->luns);
		break;
	case TARGET_ATTACH_LUNS:
		/* As scan.c's writers: each LUN its own write, until one fails;
		 * what is attached is listed either way. */
		for (size_t i = 0; i < a->nluns && !o->result; i++) {
			uint64_t k = a->luns[i];

			s->writes++;
			if (w->id_limit ||
			    (w->lun_limit != NO_LIMIT && (long long)k > w->lun_limit))
				o->result = -EINVAL;
			else if (w->lost_after && s->writes > w->lost_after)
				continue;
			else if (answers(w, k))
				s->attached[k] = true;
			if (!o->result && (long long)k > s->max_lun_ok)
				s->max_lun_ok = (long long)k;
		}
		o->max_lun_ok = s->max_lun_ok;
		o->luns = s->luns;
		o->nluns = attached_luns(s, s->luns);
		break;
	case TARGET_INQUIRY:
		if (w->no_node || !is_attached(s, lun)) {
			o->result = -ENOENT;
			break;
		}
		if (w->inquiry_fails) {
			o->result = CAT_TIMEOUT;
			o->why = "timed out after 20 s";
			break;
		}
		o->data = s->buf;
		o->len = inquiry_data_of(s, lun, device_identity(w, lun), s->buf, a->len);
		break;
	case TARGET_VPD:
		if (w->no_node || !is_attached(s, lun)) {
			o->result = -ENOENT;
			break;
		}
		o->data = s->buf;
		o->len = a->page == 0x83 ? vpd83_of(s, lun, device_identity(w, lun), s->buf)
					 : vpd80_of(s, device_identity(w, lun), s->buf);
		break;
	case TARGET_REPORT_LUNS:
		if (w->no_node || !is_attached(s, lun)) {
			o->result = -ENOENT;
			break;
		}
		if (w->report && !strcmp(w->report, "fail")) {
			o->result = CAT_ILLEGAL_REQ;
			o->has_sense = true;
			o->why = "ILLEGAL REQUEST: invalid command operation code";
			break;
		}
		if (w->report && !strcmp(w->report, "silent")) {
			o->result = CAT_TIMEOUT;
			o->why = "timed out after 30 s";
			break;
		}
		o->data = s->buf;
		o->len = report(s, s->buf);
		if (w->report && !strcmp(w->report, "malformed"))
			o->len = 7;
		break;
	case TARGET_READ:
		if (!is_attached(s, lun)) {
			o->result = -ENOENT;
			break;
		}
		o->data = s->buf;
		switch (a->attr) {
		case ATTR_INQUIRY:
		case ATTR_RECORDED_INQUIRY:
			o->len = inquiry_data(s, lun, s->buf, 96);
			break;
		case ATTR_VPD80:
		case ATTR_RECORDED_VPD80:
			o->len = vpd80(s, lun, s->buf);
			break;
		case ATTR_VPD83:
		case ATTR_RECORDED_VPD83:
			if (in_list(w->no_vpd83, lun)) {
				o->result = -ENOENT;
				o->data = NULL;
				goto out;
			}
			o->len = vpd83(s, lun, s->buf);
			break;
		case ATTR_WWID:
			o->len = (size_t)snprintf((char *)s->buf, sizeof(s->buf),
						  "naa.60010000000000000000000000%04x",
						  identity_of(w, lun));
			break;
		case ATTR_DH_STATE:
			if (w->dh && !strcmp(w->dh, "none")) {
				o->result = -ENOENT;
				o->data = NULL;
				goto out;
			}
			o->len = (size_t)snprintf((char *)s->buf, sizeof(s->buf), "%s\n",
						  s->handler[lun][0] ? s->handler[lun]
						  : w->dh	     ? w->dh
								     : "detached");
			break;
		}
		o->result = (int)o->len;
		break;
	case TARGET_LIST:
		o->luns = s->luns;
		o->nluns = attached_luns(s, s->luns);
		break;
	case TARGET_IN_USE:
		o->result = in_list(w->in_use, lun) ? 1 : 0;
		o->why = o->result ? "mounted on /srv" : "";
		break;
	case TARGET_DELETE:
		if (wlun)
			s->wlun_attached = false;
		else if (lun < WORLD_LUNS)
			s->attached[lun] = false;
		break;
	case TARGET_SET_HANDLER:
		snprintf(s->handler[lun], sizeof(s->handler[lun]), "%s", a->text);
		break;
	case TARGET_LOST:
		o->result = w->lost_after && s->writes > w->lost_after;
		o->why = o->result ? "rport-0:0-1 port_state Blocked" : "";
		break;
	case TARGET_DONE:
		break;
	}
out:
	if (w->bound_after && !strcmp(tok, w->bound_after))
		s->bound = w->bound;
	o->bound = s->bound;
	o->bound_why = s->bound ? bound_why : "";
}

static const char *const end_names[] = {
	[TARGET_END_NONE] = "none",
	[TARGET_END_FOUND] = "found",
	[TARGET_END_LIMIT] = "limit",
	[TARGET_END_ABORT] = "abort",
};

/* The result of running one row. */
struct run {
	struct sim sim;
	struct target_action done;
	struct target_report rep;
	bool has_report;
	char lines[2048];
	char after[512];
	char handlers[512];
	size_t steps;
	size_t ndeferred;
	bool wlun_impossible;
};

static struct quirk_db *database(const char *text)
{
	struct quirk_db *db = quirk_db_new();

	ck_assert_ptr_nonnull(db);
	if (text)
		ck_assert_int_eq(quirk_db_add_buffer(db, "test.conf", text, strlen(text), NULL), 0);
	ck_assert_int_eq(quirk_db_finalize(db, NULL), 0);
	return db;
}

static void run(const struct target_case *c, struct run *r, bool read_ahead)
{
	const struct world *w = &c->world;
	struct quirk_db *db = database(c->opt.quirks);
	struct lunmask_target address[2] = {
		{ .driver = "fake", .iscsi_tpgt = -1 },
		{ .driver = "fake", .iscsi_tpgt = -1 },
	};
	uint64_t before[WORLD_LUNS];
	size_t nbefore = 0;
	struct target_input in = { .addr = { 0, 0, 0, 0 },
				   .db = db,
				   .dry_run = c->opt.dry_run,
				   .remove = c->opt.remove,
				   .remove_refused = c->opt.remove_refused,
				   .force = c->opt.force,
				   .attach_ghosts = c->opt.attach_ghosts,
				   .investigate = c->opt.investigate,
				   .check_identity = c->opt.check_identity,
				   .has_only_lun = c->opt.only_lun >= 0,
				   .only_lun = c->opt.only_lun >= 0 ? (uint64_t)c->opt.only_lun : 0,
				   .listed = c->opt.listed,
				   .found_reason =
					   c->opt.listed ? "listed by the transport" : "probed",
				   .found_code = c->opt.listed ? SC_LISTED : SC_PROBED,
				   .transport = c->opt.transport,
				   .addresses = address,
				   .naddresses = c->opt.two_ports ? 2 : 1,
				   .max_luns = c->opt.max_luns ? c->opt.max_luns : 512,
				   .driver = "fake",
				   .max_lun_ok = -1 };
	struct target_machine m;
	struct target_action a;
	struct target_obs o;
	const struct target_obs *last = NULL;

	if (c->opt.two_ports) {
		address[0].port_name = "0x500a000000000001";
		address[1].port_name = "0x500b000000000001";
	}
	memset(r, 0, sizeof(*r));
	r->sim.w = w;
	r->sim.max_lun_ok = -1;
	r->sim.read_ahead = read_ahead;
	for (uint64_t l = 0; l < WORLD_LUNS; l++)
		if (in_list(w->before, l)) {
			r->sim.attached[l] = true;
			before[nbefore++] = l;
		}
	in.before = before;
	in.nbefore = nbefore;
	ck_assert_int_eq(target_init(&m, &in), 0);
	for (;;) {
		target_step(&m, last, &a);
		ck_assert_msg(++r->steps < 10000, "%s: the machine does not end", c->what);
		if (a.kind == TARGET_DONE)
			break;
		execute(&r->sim, &a, &o);
		last = &o;
	}
	/* A machine that is done stays done. */
	target_step(&m, NULL, &r->done);
	ck_assert_int_eq(r->done.kind, TARGET_DONE);
	ck_assert_int_eq(r->done.end, a.end);
	r->done = a;
	trace(&r->sim, "=%s", end_names[a.end]);
	target_deferred(&m, &r->ndeferred);
	r->wlun_impossible = target_wlun_impossible(&m);
	if (a.end == TARGET_END_FOUND) {
		target_take_report(&m, &r->rep);
		r->has_report = true;
		for (size_t i = 0; i < r->rep.nluns; i++) {
			const struct lun_report *l = &r->rep.luns[i];
			size_t used = strlen(r->lines);
			char num[24];

			if (l->lun == LUN_WLUN_REPORT_LUNS)
				snprintf(num, sizeof(num), "W");
			else
				snprintf(num, sizeof(num), "%" PRIu64, l->lun);
			snprintf(r->lines + used, sizeof(r->lines) - used, "%s%s:%s:%s",
				 i ? " " : "", num, lun_outcome_name(l->outcome),
				 scan_code_name(l->code));
		}
	}
	for (size_t i = 0; r->has_report && i < r->rep.nhandlers; i++) {
		static const char *const steps[] = { "keep", "attach", "conflict", "unknown" };
		const struct handler_result *h = &r->rep.handlers[i];
		size_t used = strlen(r->handlers);

		snprintf(r->handlers + used, sizeof(r->handlers) - used, "%s%" PRIu64 ":%s",
			 i ? " " : "", h->lun, steps[h->step]);
		if (h->error) {
			used = strlen(r->handlers);
			snprintf(r->handlers + used, sizeof(r->handlers) - used, ":%d", h->error);
		}
	}
	for (uint64_t l = 0; l < WORLD_LUNS; l++)
		if (r->sim.attached[l])
			snprintf(r->after + strlen(r->after), sizeof(r->after) - strlen(r->after),
				 "%s%" PRIu64, r->after[0] ? "," : "", l);
	if (r->sim.wlun_attached)
		snprintf(r->after + strlen(r->after), sizeof(r->after) - strlen(r->after), "%sW",
			 r->after[0] ? "," : "");
	target_free(&m);
	quirk_db_free(db);
}

static void run_free(struct run *r)
{
	if (r->has_report)
		report_target_free(&r->rep);
}

/* ---- the rows -------------------------------------------------------------- */

/* Each row overrides the defaults it does not share. */
#pragma GCC diagnostic ignored "-Woverride-init"
#define W(...)                                                                                     \
	(struct world)                                                                             \
	{                                                                                          \
		.version = 5, .lun_limit = NO_LIMIT, __VA_ARGS__                                   \
	}
#define O(...)                                                                                     \
	(struct options)                                                                           \
	{                                                                                          \
		.only_lun = -1, __VA_ARGS__                                                        \
	}

static const char acme_nolun[] = "device \"acme\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				 " flags = {\"nolun\"}\n}\n";
static const char acme_max_lun_1[] = "device \"acme\" {\n vendor = \"ACME\"\n"
				     " model = \"Disk\"\n max_lun = 1\n}\n";
static const char acme_never[] = "device \"acme\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				 " attach = false\n}\n";
static const char acme_mgmt[] = "device \"acme\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				" type = 12\n attach = false\n}\n";
static const char acme_inq36[] = "device \"acme\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				 " flags = {\"inquiry_36\"}\n}\n";
static const char acme_sparse[] = "device \"acme\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				  " flags = {\"sparselun\"}\n}\n";
static const char acme_rdac[] = "device \"acme\" {\n vendor = \"ACME*\"\n model = \"Disk\"\n"
				" handler = \"rdac\"\n builtin = true\n}\n";
static const char mask_0_2[] = "lunmask \"t\" {\n driver = \"fake\"\n channel = 0\n id = 0\n"
			       " luns = { 0, 2 }\n}\n";
static const char mask_0_1[] = "lunmask \"t\" {\n driver = \"fake\"\n channel = 0\n id = 0\n"
			       " luns = { 0-1 }\n}\n";
static const char mask_not_0[] = "lunmask \"t\" {\n driver = \"fake\"\n channel = 0\n id = 0\n"
				 " exclude_luns = { 0 }\n}\n";
static const char mask_port_a[] =
	"lunmask \"a\" {\n port_name = \"0x500a000000000001\"\n luns = { 0-1 }\n}\n";
static const char mask_1_2[] = "lunmask \"t\" {\n driver = \"fake\"\n channel = 0\n id = 0\n"
			       " luns = { 1-2 }\n}\n";
static const char mask_none[] = "lunmask \"t\" {\n driver = \"fake\"\n channel = 0\n id = 0\n"
				" luns = {}\n}\n";
static const char mask_by_wwid[] =
	"lunmask \"t\" {\n wwid = \"naa.600100000000000000000000000000\"\n"
	" luns = { 0-1 }\n}\n";

/* A target of 21 LUNs whose rest went to one kernel write, the scan
 * stopped once LUN 5 is checked: LUNs 6-20 stay attached, unchecked. */
static const char stopped_in_check_trace[] =
	"A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 K R2:vpd_pg83 R3:vpd_pg83 R4:vpd_pg83 R5:vpd_pg83 =found";
static const char stopped_in_check_lines[] =
	"0:attached:lun0 1:attached:listed 2:attached:kernel-scan 3:attached:kernel-scan 4:attached:kernel-scan 5:attached:kernel-scan 6:attached:kernel-scan-unchecked 7:attached:kernel-scan-unchecked 8:attached:kernel-scan-unchecked 9:attached:kernel-scan-unchecked 10:attached:kernel-scan-unchecked 11:attached:kernel-scan-unchecked 12:attached:kernel-scan-unchecked 13:attached:kernel-scan-unchecked 14:attached:kernel-scan-unchecked 15:attached:kernel-scan-unchecked 16:attached:kernel-scan-unchecked 17:attached:kernel-scan-unchecked 18:attached:kernel-scan-unchecked 19:attached:kernel-scan-unchecked 20:attached:kernel-scan-unchecked";

static const struct target_case cases[] = {
	{ .what = "SPC-3, LUNs 0-2, none attached",
	  .world = W(.luns = "0-2"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "SCSI-2: sequential up to the first gap",
	  .world = W(.luns = "0-1,3", .version = 2),
	  .opt = O(),
	  .trace = "A0 I36 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:sequential 2:absent:sequential",
	  .after = "0,1",
	  .end_code = "gap",
	  .method_code = "scsi-2" },
	{ .what = "REPORT LUNS refused: sequential instead",
	  .world = W(.luns = "0-1", .report = "fail"),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:sequential 2:absent:sequential",
	  .after = "0,1",
	  .end_code = "gap",
	  .method_code = "report-luns-failed" },
	{ .what = "REPORT LUNS unanswered but INQUIRY answered",
	  .world = W(.luns = "0-1", .report = "silent"),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:sequential 2:absent:sequential",
	  .after = "0,1",
	  .end_code = "gap",
	  .method_code = "report-luns-failed" },
	{ .what = "INQUIRY times out: the kernel's copy in sysfs",
	  .world = W(.luns = "0-1", .inquiry_fails = true),
	  .opt = O(),
	  .trace = "A0 I36 R0:inquiry R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "INQUIRY times out, REPORT LUNS unanswered: the device does not answer",
	  .world = W(.luns = "0-1", .inquiry_fails = true, .report = "silent"),
	  .opt = O(),
	  .trace = "A0 I36 R0:inquiry R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0",
	  .after = "0",
	  .method_code = "scsi-3",
	  .failed = true },
	{ .what = "no sg node: sysfs copy, no REPORT LUNS",
	  .world = W(.luns = "0-1", .no_node = true),
	  .opt = O(),
	  .trace =
		  "A0 I36 R0:inquiry R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:sequential 2:absent:sequential",
	  .after = "0,1",
	  .end_code = "gap",
	  .method_code = "report-luns-failed" },
	{ .what = "nothing answers",
	  .world = W(.luns = ""),
	  .opt = O(),
	  .trace = "A0 AW K =none",
	  .end = TARGET_END_NONE,
	  .lines = "",
	  .after = "" },
	{ .what = "the host refuses the id",
	  .world = W(.luns = "0", .id_limit = true),
	  .opt = O(),
	  .trace = "A0 =limit",
	  .end = TARGET_END_LIMIT,
	  .lines = "",
	  .after = "" },
	{ .what = "no LUN 0: reached through the well-known LUN",
	  .world = W(.luns = "3-4", .wlun = 'a'),
	  .opt = O(),
	  .trace =
		  "A0 AW I36:W I96:W RL:W A3 R3:inquiry R3:vpd_pg80 R3:vpd_pg83 A4 R4:vpd_pg83 UW DW =found",
	  .end = TARGET_END_FOUND,
	  .lines = "3:attached:listed 4:attached:listed W:detached:reach-only",
	  .after = "3,4",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "no LUN 0, the host refuses the well-known LUN: the kernel's scan",
	  .world = W(.luns = "3-4", .wlun = 'e'),
	  .opt = O(),
	  .trace = "A0 AW K I36:3 I96:3 R3:inquiry R3:vpd_pg80 R3:vpd_pg83 RL:3 R4:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "3:attached:kernel-scan 4:attached:kernel-scan",
	  .after = "3,4",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .wlun_impossible = true },
	{ .what = "listed, no LUN 0, no well-known LUN",
	  .world = W(.luns = "3-4"),
	  .opt = O(.listed = true, .transport = true),
	  .trace = "A0 AW K I36:3 I96:3 R3:inquiry R3:vpd_pg80 R3:vpd_pg83 RL:3 R4:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "3:attached:kernel-scan 4:attached:kernel-scan",
	  .after = "3,4",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "LUN 0 attached before",
	  .world = W(.luns = "0-2", .before = "0"),
	  .opt = O(),
	  .trace =
		  "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the policy allows LUNs 0 and 2",
	  .world = W(.luns = "0-3"),
	  .opt = O(.quirks = mask_0_2),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A2 R2:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:skipped:masked 2:attached:listed 3:skipped:masked",
	  .after = "0,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the policy excludes LUN 0",
	  .world = W(.luns = "0-2", .wlun = 'a'),
	  .opt = O(.quirks = mask_not_0),
	  .trace =
		  "AW I36:W I96:W RL:W A1 R1:inquiry R1:vpd_pg80 R1:vpd_pg83 A2 R2:vpd_pg83 UW DW =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:skipped:masked 1:attached:listed 2:attached:listed W:detached:reach-only",
	  .after = "1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the policy allows none",
	  .world = W(.luns = "0-2"),
	  .opt = O(.quirks = mask_none),
	  .trace = "=none",
	  .end = TARGET_END_NONE,
	  .lines = "",
	  .after = "" },
	{ .what = "listed, the policy allows none",
	  .world = W(.luns = "0-2"),
	  .opt = O(.quirks = mask_none, .listed = true, .transport = true),
	  .trace = "=found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "",
	  .end_code = "policy-allows-none" },
	{ .what = "the policy by wwid",
	  .world = W(.luns = "0-3"),
	  .opt = O(.quirks = mask_by_wwid),
	  .trace =
		  "A0 I36 I96 R0:wwid R0:vpd_pg80 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:skipped:masked 3:skipped:masked",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "refused LUN attached before: left alone",
	  .world = W(.luns = "0-3", .before = "0-1"),
	  .opt = O(.quirks = mask_0_2),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A2 R2:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:present:masked 2:attached:listed 3:skipped:masked",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "refused LUN attached before, --remove",
	  .world = W(.luns = "0-3", .before = "0-1"),
	  .opt = O(.quirks = mask_0_2, .remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL U1 D1 A2 R2:vpd_pg83 L =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:removed:masked 2:attached:listed 3:skipped:masked",
	  .after = "0,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "refused LUN in use, --remove",
	  .world = W(.luns = "0-3", .before = "0-1", .in_use = "1"),
	  .opt = O(.quirks = mask_0_2, .remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL U1 A2 R2:vpd_pg83 L =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:in-use:masked 2:attached:listed 3:skipped:masked",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the daemon holds the policy: a refused LUN someone attached goes",
	  .world = W(.luns = "0-3", .before = "0-3"),
	  .opt = O(.quirks = mask_0_2, .remove_refused = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL U1 D1 U3 D3 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:removed:masked 2:present:already-attached "
		   "3:removed:masked",
	  .after = "0,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the daemon holds the policy, but a LUN no longer listed stays",
	  .world = W(.luns = "0,2", .before = "0-2", .in_use = ""),
	  .opt = O(.quirks = mask_0_2, .remove_refused = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 2:present:already-attached",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the daemon holds the policy; a refused LUN in use is kept",
	  .world = W(.luns = "0-3", .before = "0-3", .in_use = "3"),
	  .opt = O(.quirks = mask_0_2, .remove_refused = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL U1 D1 U3 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:removed:masked 2:present:already-attached "
		   "3:in-use:masked",
	  .after = "0,2,3",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "refused LUN in use, --remove --force",
	  .world = W(.luns = "0-3", .before = "0-1", .in_use = "1"),
	  .opt = O(.quirks = mask_0_2, .remove = true, .force = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL D1 A2 R2:vpd_pg83 L =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:removed:masked 2:attached:listed 3:skipped:masked",
	  .after = "0,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "no longer reported, --remove",
	  .world = W(.luns = "0-1", .report = "0-1", .before = "0-1,5"),
	  .opt = O(.remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL L U5 D5 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:present:already-attached 1:present:already-attached 5:removed:no-longer-reported",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a cut list removes nothing",
	  .world = W(.luns = "0-3", .report = "short", .before = "0,5"),
	  .opt = O(.remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:attached:listed",
	  .after = "0,1,5",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "dry run, LUN 0 attached",
	  .world = W(.luns = "0-2", .before = "0"),
	  .opt = O(.dry_run = true),
	  .trace = "I36 I96 RL =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:would-probe:listed 2:would-probe:listed",
	  .after = "0",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "dry run, nothing attached",
	  .world = W(.luns = "0-2"),
	  .opt = O(.dry_run = true),
	  .trace = "=none",
	  .end = TARGET_END_NONE,
	  .lines = "",
	  .after = "" },
	{ .what = "ghosts: LUNs 1-3 repeat LUN 0",
	  .world = W(.luns = "0-3", .ghosts = "1-3"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R1:inquiry R1:vpd_pg80 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:detached:ghost",
	  .after = "0,1",
	  .end_code = "ghosts",
	  .method_code = "scsi-3",
	  .deferred = 1,
	  .ghosts = 1 },
	{ .what = "ghosts attached when asked",
	  .world = W(.luns = "0-3", .ghosts = "2"),
	  .opt = O(.attach_ghosts = true),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 R1:inquiry R1:vpd_pg80 R2:inquiry R2:vpd_pg80 A3 R3:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed 3:attached:listed",
	  .after = "0,1,2,3",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .ghosts = 1 },
	{ .what = "attach = false: LUN 0 detached again",
	  .world = W(.luns = "0-2"),
	  .opt = O(.quirks = acme_never),
	  .trace = "A0 I36 I96 U0 D0 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:detached:attach-false",
	  .after = "",
	  .end_code = "attach-false" },
	{ .what = "nolun: LUN 0 only",
	  .world = W(.luns = "0-2"),
	  .opt = O(.quirks = acme_nolun),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0",
	  .after = "0",
	  .end_code = "nolun",
	  .method_code = "nolun" },
	{ .what = "max_lun 1",
	  .world = W(.luns = "0-3"),
	  .opt = O(.quirks = acme_max_lun_1),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:skipped:max-lun 3:skipped:max-lun",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "management LUNs refused by their type",
	  .world = W(.luns = "0-3", .mgmt = "2"),
	  .opt = O(.quirks = acme_mgmt),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:inquiry R1:vpd_pg83 A2 R2:inquiry U2 D2 A3 R3:inquiry R3:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:detached:refused-by-type 3:attached:listed",
	  .after = "0,1,3",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "inquiry_36: no second INQUIRY",
	  .world = W(.luns = "0-1"),
	  .opt = O(.quirks = acme_inq36),
	  .trace = "A0 I36 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "SCSI-2, sparselun: past the gap",
	  .world = W(.luns = "0,2", .version = 2),
	  .opt = O(.quirks = acme_sparse),
	  .trace =
		  "A0 I36 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 A1 A2 R2:vpd_pg83 A3 A4 A5 A6 A7 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:attached:lun0 1:absent:sequential 2:attached:sequential 3:absent:sequential 4:absent:sequential 5:absent:sequential 6:absent:sequential 7:absent:sequential",
	  .after = "0,2",
	  .end_code = "sequential-end",
	  .method_code = "scsi-2" },
	{ .what = "only LUN 2",
	  .world = W(.luns = "0-3"),
	  .opt = O(.only_lun = 2),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 A2 R2:vpd_pg83 U0 D0 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "2:attached:selected 0:detached:reach-only",
	  .after = "2",
	  .end_code = "selected-only",
	  .method_code = "selected" },
	{ .what = "only LUN 2, the policy refuses it",
	  .world = W(.luns = "0-3"),
	  .opt = O(.only_lun = 2, .quirks = mask_0_1),
	  .trace = "=found",
	  .end = TARGET_END_FOUND,
	  .lines = "2:skipped:masked",
	  .after = "",
	  .end_code = "selected-refused" },
	{ .what = "listed LUN absent, transport still there",
	  .world = W(.luns = "0-1", .report = "0-2"),
	  .opt = O(.listed = true, .transport = true),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 X =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:absent:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the transport loses the target mid-scan",
	  .world = W(.luns = "0-5", .lost_after = 3),
	  .opt = O(.listed = true, .transport = true),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 A3 X =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .method_code = "scsi-3",
	  .failed = true },
	{ .what = "the host refuses LUNs above 1",
	  .world = W(.luns = "0-3", .lun_limit = 1),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 A3 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:attached:lun0 1:attached:listed 2:beyond-limit:host-limit 3:beyond-limit:host-limit",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "an investigation leaves the host as it was",
	  .world = W(.luns = "0-2"),
	  .opt = O(.investigate = true),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:inquiry R1:vpd_pg80 R1:vpd_pg83 A2 R2:inquiry R2:vpd_pg80 R2:vpd_pg83 A3 A4 A5 A6 A7 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:detached:lun0 1:detached:listed 2:detached:listed 3:absent:unlisted 4:absent:unlisted 5:absent:unlisted 6:absent:unlisted 7:absent:unlisted",
	  .after = "0,1,2",
	  .end_code = "unlisted-done",
	  .method_code = "scsi-3",
	  .deferred = 3 },
	{ .what = "a long list: the rest by one kernel target scan",
	  .world = W(.luns = "0-20"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 K R2:vpd_pg83 R3:vpd_pg83 R4:vpd_pg83 R5:vpd_pg83 R6:vpd_pg83 R7:vpd_pg83 R8:vpd_pg83 R9:vpd_pg83 R10:vpd_pg83 R11:vpd_pg83 R12:vpd_pg83 R13:vpd_pg83 R14:vpd_pg83 R15:vpd_pg83 R16:vpd_pg83 R17:vpd_pg83 R18:vpd_pg83 R19:vpd_pg83 R20:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:attached:lun0 1:attached:listed 2:attached:kernel-scan 3:attached:kernel-scan 4:attached:kernel-scan 5:attached:kernel-scan 6:attached:kernel-scan 7:attached:kernel-scan 8:attached:kernel-scan 9:attached:kernel-scan 10:attached:kernel-scan 11:attached:kernel-scan 12:attached:kernel-scan 13:attached:kernel-scan 14:attached:kernel-scan 15:attached:kernel-scan 16:attached:kernel-scan 17:attached:kernel-scan 18:attached:kernel-scan 19:attached:kernel-scan 20:attached:kernel-scan",
	  .after = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a long list, the host's scan stopped while the kernel's attaches are checked",
	  .world = W(.luns = "0-20", .bound_after = "R5:vpd_pg83", .bound = -ECANCELED),
	  .opt = O(),
	  .trace = stopped_in_check_trace,
	  .end = TARGET_END_FOUND,
	  .lines = stopped_in_check_lines,
	  .after = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
	  .method_code = "scsi-3",
	  .failed = true,
	  .error = -ECANCELED },
	{ .what = "a long list, the target's time bound while the kernel's attaches are checked",
	  .world = W(.luns = "0-20", .bound_after = "R5:vpd_pg83", .bound = -ETIMEDOUT),
	  .opt = O(),
	  .trace = stopped_in_check_trace,
	  .end = TARGET_END_FOUND,
	  .lines = stopped_in_check_lines,
	  .after = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
	  .method_code = "scsi-3",
	  .failed = true },
	{ .what = "a delete that fails",
	  .world = W(.luns = "0-3", .before = "0-1", .fault_on = "D1", .fault = -EIO),
	  .opt = O(.quirks = mask_0_2, .remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL U1 D1 A2 R2:vpd_pg83 L =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:present:already-attached 1:failed:delete-failed 2:attached:listed 3:skipped:masked",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "an in-use check that fails counts as in use",
	  .world = W(.luns = "0-3", .before = "0-1", .fault_on = "U1", .fault = -EACCES),
	  .opt = O(.quirks = mask_0_2, .remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL U1 A2 R2:vpd_pg83 L =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:in-use:masked 2:attached:listed 3:skipped:masked",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "dry run: what --remove would take",
	  .world = W(.luns = "0-3", .before = "0-1"),
	  .opt = O(.quirks = mask_0_2, .remove = true, .dry_run = true),
	  .trace = "I36 I96 RL U1 L =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:present:already-attached 1:would-remove:masked 2:would-probe:listed 3:skipped:masked",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a write that fails",
	  .world = W(.luns = "0-2", .fault_on = "A1", .fault = -EIO),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 A2 R2:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:failed:write-failed 2:attached:listed",
	  .after = "0,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the target's time bound after LUN 1",
	  .world = W(.luns = "0-3", .bound_after = "A1", .bound = -ETIMEDOUT),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .method_code = "scsi-3",
	  .failed = true },
	{ .what = "the host's time bound after LUN 1",
	  .world = W(.luns = "0-3", .bound_after = "A1", .bound = -ECANCELED),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .method_code = "scsi-3",
	  .failed = true,
	  .error = -ECANCELED },
	{ .what = "stopped before the first write",
	  .world = W(.luns = "0-3", .fault_on = "A0", .fault = -ECANCELED),
	  .opt = O(.listed = true, .transport = true),
	  .trace = "A0 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "",
	  .end_code = "stopped",
	  .failed = true,
	  .error = -ECANCELED },
	{ .what = "the first write fails on a probed target",
	  .world = W(.luns = "0-3", .fault_on = "A0", .fault = -EIO),
	  .opt = O(),
	  .trace = "A0 =abort",
	  .end = TARGET_END_ABORT,
	  .lines = "",
	  .after = "",
	  .error = -EIO },
	{ .what = "the first write fails on a listed target",
	  .world = W(.luns = "0-3", .fault_on = "A0", .fault = -EIO),
	  .opt = O(.listed = true, .transport = true),
	  .trace = "A0 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "",
	  .end_code = "write-failed",
	  .failed = true },
	{ .what = "a malformed REPORT LUNS answer",
	  .world = W(.luns = "0-1", .report = "malformed"),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:sequential 2:absent:sequential",
	  .after = "0,1",
	  .end_code = "gap",
	  .method_code = "report-luns-failed" },
	{ .what = "reached through the well-known LUN, INQUIRY fails both ways",
	  .world = W(.luns = "3", .wlun = 'a', .inquiry_fails = true, .fault_on = "RW:inquiry",
		     .fault = -ENOENT),
	  .opt = O(),
	  .trace = "A0 AW I36:W RW:inquiry UW DW =found",
	  .end = TARGET_END_FOUND,
	  .lines = "W:detached:reach-only",
	  .after = "",
	  .failed = true },
	{ .what = "the lost check fails: the LUN is absent",
	  .world = W(.luns = "0-1", .report = "0-2", .fault_on = "X", .fault = -EIO),
	  .opt = O(.listed = true, .transport = true),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 X =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:absent:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the LUN list fails after the scan, --remove",
	  .world = W(.luns = "0-1", .before = "0,5", .fault_on = "L", .fault = -EIO),
	  .opt = O(.remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 L =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:attached:listed",
	  .after = "0,1,5",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .failed = true },
	{ .what = "an investigation, dry run",
	  .world = W(.luns = "0-2", .before = "0"),
	  .opt = O(.investigate = true, .dry_run = true),
	  .trace = "I36 I96 RL =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:present:already-attached 1:would-probe:listed 2:would-probe:listed 3:would-probe:unlisted 4:would-probe:unlisted 5:would-probe:unlisted 6:would-probe:unlisted 7:would-probe:unlisted",
	  .after = "0",
	  .end_code = "unlisted-done",
	  .method_code = "scsi-3" },
	{ .what = "an investigation finds ghosts without stopping",
	  .world = W(.luns = "0-2", .ghosts = "2"),
	  .opt = O(.investigate = true),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:inquiry R1:vpd_pg80 R1:vpd_pg83 A2 R2:inquiry R2:vpd_pg80 R2:vpd_pg83 A3 A4 A5 A6 A7 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:detached:lun0 1:detached:listed 2:detached:listed 3:absent:unlisted 4:absent:unlisted 5:absent:unlisted 6:absent:unlisted 7:absent:unlisted",
	  .after = "0,1,2",
	  .end_code = "unlisted-done",
	  .method_code = "scsi-3",
	  .deferred = 3,
	  .ghosts = 1 },
	{ .what = "one target at two ports with different policies",
	  .world = W(.luns = "0-2"),
	  .opt = O(.quirks = mask_port_a, .two_ports = true, .listed = true, .transport = true),
	  .trace = "=found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "",
	  .failed = true },
	{ .what = "one target at two ports with different policies, dry run",
	  .world = W(.luns = "0-2", .before = "0"),
	  .opt = O(.quirks = mask_port_a, .two_ports = true, .listed = true, .transport = true,
		   .dry_run = true),
	  .trace = "=found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "0",
	  .failed = true },
	{ .what = "a LUN without VPD page 0x83 is read whole",
	  .world = W(.luns = "0-3", .no_vpd83 = "1-3"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R1:inquiry A2 R2:vpd_pg83 R1:vpd_pg80 R1:vpd_pg83 R2:inquiry A3 R3:vpd_pg83 R2:vpd_pg80 R2:vpd_pg83 R3:inquiry =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed 3:attached:listed",
	  .after = "0,1,2,3",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a LUN without VPD page 0x83 whose INQUIRY cannot be read",
	  .world = W(.luns = "0-2", .no_vpd83 = "1-2", .fault_on = "R2:inquiry", .fault = -EIO),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R1:inquiry A2 R2:vpd_pg83 R1:vpd_pg80 R1:vpd_pg83 R2:inquiry =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the last LUN's INQUIRY cannot be read again",
	  .world = W(.luns = "0-3", .no_vpd83 = "2", .same_designator = "2-3",
		     .fault_on = "R2:inquiry", .fault = -EIO),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 R1:inquiry R1:vpd_pg80 R2:inquiry A3 R3:vpd_pg83 R3:inquiry =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed 3:attached:listed",
	  .after = "0,1,2,3",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a designator repeated, INQUIRY its own",
	  .world = W(.luns = "0-2", .same_designator = "1-2"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R1:inquiry A2 R2:vpd_pg83 R1:vpd_pg80 R2:inquiry =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "ghosts after a good LUN: both go",
	  .world = W(.luns = "0-3", .ghosts = "2-3"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 R1:inquiry R1:vpd_pg80 R2:inquiry R2:vpd_pg80 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:detached:ghost-target 2:detached:ghost",
	  .after = "0,1,2",
	  .end_code = "ghosts",
	  .method_code = "scsi-3",
	  .deferred = 2,
	  .ghosts = 1 },
	{ .what = "attach = false, LUN 0 attached before: kept",
	  .world = W(.luns = "0-2", .before = "0"),
	  .opt = O(.quirks = acme_never),
	  .trace = "I36 I96 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "0",
	  .end_code = "attach-false" },
	{ .what = "attach = false, reached by the kernel's scan",
	  .world = W(.luns = "3-4", .wlun = 'e'),
	  .opt = O(.quirks = acme_never),
	  .trace = "A0 AW K I36:3 I96:3 U3 D3 U4 D4 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "3:detached:kernel-scan-undone 4:detached:kernel-scan-undone",
	  .after = "",
	  .end_code = "attach-false",
	  .wlun_impossible = true },
	{ .what = "management LUNs refused by type, reached by the kernel's scan",
	  .world = W(.luns = "3-5", .mgmt = "4", .wlun = 'e'),
	  .opt = O(.quirks = acme_mgmt),
	  .trace =
		  "A0 AW K I36:3 I96:3 R3:inquiry R3:vpd_pg80 R3:vpd_pg83 RL:3 R3:inquiry R4:inquiry U4 D4 R5:inquiry R5:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "3:attached:kernel-scan 4:detached:refused-by-type 5:attached:kernel-scan",
	  .after = "3,5",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .wlun_impossible = true },
	{ .what = "max_lun 1, reached by the kernel's scan",
	  .world = W(.luns = "1-3", .wlun = 'e'),
	  .opt = O(.quirks = acme_max_lun_1),
	  .trace = "A0 AW K I36:1 I96:1 R1:inquiry R1:vpd_pg80 R1:vpd_pg83 RL:1 U2 D2 U3 D3 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "1:attached:kernel-scan 2:skipped:max-lun 3:skipped:max-lun 2:detached:kernel-scan-undone 3:detached:kernel-scan-undone",
	  .after = "1",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .wlun_impossible = true },
	{ .what = "reached by the kernel's scan, REPORT LUNS refused",
	  .world = W(.luns = "3-4", .wlun = 'e', .report = "fail"),
	  .opt = O(),
	  .trace = "A0 AW K I36:3 I96:3 R3:inquiry R3:vpd_pg80 R3:vpd_pg83 RL:3 R4:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "3:attached:kernel-scan 4:attached:kernel-scan",
	  .after = "3,4",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .wlun_impossible = true },
	{ .what = "LUN 0 refused, no well-known LUN: the first LUN allowed",
	  .world = W(.luns = "0-3"),
	  .opt = O(.quirks = mask_1_2),
	  .trace =
		  "AW A1 I36:1 I96:1 R1:inquiry R1:vpd_pg80 R1:vpd_pg83 RL:1 A2 R2:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:skipped:masked 1:attached:reached-through 2:attached:listed 3:skipped:masked",
	  .after = "1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "LUN 0 excluded, no well-known LUN: unreachable",
	  .world = W(.luns = "0-2"),
	  .opt = O(.quirks = mask_not_0),
	  .trace = "AW =none",
	  .end = TARGET_END_NONE,
	  .lines = "",
	  .after = "" },
	{ .what = "LUN 0 attached before and excluded",
	  .world = W(.luns = "0-2", .before = "0-1"),
	  .opt = O(.quirks = mask_not_0, .remove = true),
	  .trace = "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A2 R2:vpd_pg83 L U0 D0 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "1:present:already-attached 2:attached:listed 0:removed:masked",
	  .after = "1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "an investigation of LUNs attached before",
	  .world = W(.luns = "0-2", .before = "0-2"),
	  .opt = O(.investigate = true),
	  .trace =
		  "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL R1:inquiry R1:vpd_pg80 R1:vpd_pg83 R2:inquiry R2:vpd_pg80 R2:vpd_pg83 A3 A4 A5 A6 A7 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:present:already-attached 1:present:already-attached 2:present:already-attached 3:absent:unlisted 4:absent:unlisted 5:absent:unlisted 6:absent:unlisted 7:absent:unlisted",
	  .after = "0,1,2",
	  .end_code = "unlisted-done",
	  .method_code = "scsi-3" },
	{ .what = "a listed LUN the scan file cannot name",
	  .world = W(.luns = "0-1", .extra_listed = 0xff00000000000000ULL),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 18374686479671623680:failed:not-writable",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a planned write stopped by a bound",
	  .world = W(.luns = "0-3", .fault_on = "A2", .fault = -ETIMEDOUT, .bound_after = "A2",
		     .bound = -ETIMEDOUT),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:failed:bound",
	  .after = "0,1",
	  .method_code = "scsi-3",
	  .failed = true },
	{ .what = "the kernel's scan for the rest of a long list fails",
	  .world = W(.luns = "0-20", .fault_on = "K", .fault = -EIO),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 K A2 R2:vpd_pg83 A3 R3:vpd_pg83 A4 R4:vpd_pg83 A5 R5:vpd_pg83 A6 R6:vpd_pg83 A7 R7:vpd_pg83 A8 R8:vpd_pg83 A9 R9:vpd_pg83 A10 R10:vpd_pg83 A11 R11:vpd_pg83 A12 R12:vpd_pg83 A13 R13:vpd_pg83 A14 R14:vpd_pg83 A15 R15:vpd_pg83 A16 R16:vpd_pg83 A17 R17:vpd_pg83 A18 R18:vpd_pg83 A19 R19:vpd_pg83 A20 R20:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:attached:lun0 1:attached:listed 2:attached:listed 3:attached:listed 4:attached:listed 5:attached:listed 6:attached:listed 7:attached:listed 8:attached:listed 9:attached:listed 10:attached:listed 11:attached:listed 12:attached:listed 13:attached:listed 14:attached:listed 15:attached:listed 16:attached:listed 17:attached:listed 18:attached:listed 19:attached:listed 20:attached:listed",
	  .after = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "the serial cannot be read for the policy by wwid",
	  .world = W(.luns = "0-3", .fault_on = "R0:vpd_pg80", .fault = -EIO),
	  .opt = O(.quirks = mask_by_wwid),
	  .trace =
		  "A0 I36 I96 R0:wwid R0:vpd_pg80 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:skipped:masked 3:skipped:masked",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "INQUIRY fails both ways through LUN 0",
	  .world = W(.luns = "0-1", .inquiry_fails = true, .fault_on = "R0:inquiry", .fault = -EIO),
	  .opt = O(),
	  .trace = "A0 I36 R0:inquiry =found",
	  .end = TARGET_END_FOUND,
	  .lines = "",
	  .after = "0",
	  .failed = true },
	{ .what = "REPORT LUNS fails without words",
	  .world = W(.luns = "0-1", .fault_on = "RL", .fault = -EIO),
	  .opt = O(),
	  .trace = "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:sequential 2:absent:sequential",
	  .after = "0,1",
	  .end_code = "gap",
	  .method_code = "report-luns-failed" },
	{ .what = "TPGS: alua on each LUN the scan attached",
	  .world = W(.luns = "0-2", .tpgs = 1),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 R0:dh_state H0:alua R1:dh_state H1:alua R2:dh_state H2:alua =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "0:attach 1:attach 2:attach" },
	{ .what = "TPGS, the kernel attached alua itself",
	  .world = W(.luns = "0-1", .tpgs = 1, .dh = "alua"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R0:dh_state R1:dh_state =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "0:keep 1:keep" },
	{ .what = "TPGS, but another handler attached",
	  .world = W(.luns = "0-1", .tpgs = 1, .dh = "rdac"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R0:dh_state R1:dh_state =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "0:conflict 1:conflict" },
	{ .what = "a kernel without scsi_dh",
	  .world = W(.luns = "0-1", .tpgs = 1, .dh = "none"),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R0:dh_state R1:dh_state =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "0:unknown 1:unknown" },
	{ .what = "the handler write fails",
	  .world = W(.luns = "0-1", .tpgs = 1, .fault_on = "H1:alua", .fault = -EINVAL),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R0:dh_state H0:alua R1:dh_state H1:alua =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "0:attach 1:attach:-22" },
	{ .what = "the kernel's handler table",
	  .world = W(.luns = "0-1"),
	  .opt = O(.quirks = acme_rdac),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R0:dh_state H0:rdac R1:dh_state H1:rdac =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:attached:listed",
	  .after = "0,1",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "0:attach 1:attach" },
	{ .what = "LUNs attached before keep what they have",
	  .world = W(.luns = "0-2", .before = "0", .tpgs = 1),
	  .opt = O(),
	  .trace =
		  "I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 A2 R2:vpd_pg83 R1:dh_state H1:alua R2:dh_state H2:alua =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:attached:listed 2:attached:listed",
	  .after = "0,1,2",
	  .end_code = "list-done",
	  .method_code = "scsi-3",
	  .handlers = "1:attach 2:attach" },
	{ .what = "a ghost stop: only the LUN kept",
	  .world = W(.luns = "0-3", .ghosts = "1-3", .tpgs = 1),
	  .opt = O(),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 R1:inquiry R1:vpd_pg80 R0:dh_state H0:alua =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:lun0 1:detached:ghost",
	  .after = "0,1",
	  .end_code = "ghosts",
	  .method_code = "scsi-3",
	  .deferred = 1,
	  .ghosts = 1,
	  .handlers = "0:attach" },
	{ .what = "a dry run touches no handler",
	  .world = W(.luns = "0-2", .before = "0", .tpgs = 1),
	  .opt = O(.dry_run = true),
	  .trace = "I36 I96 RL =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:would-probe:listed 2:would-probe:listed",
	  .after = "0",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
};

/* A remapped LUN: each LUN attached before held against its identity
 * record (the kernel's copies when it was first seen) and the device's
 * answer now. */
static const struct target_case remap_cases[] = {
	{ .what = "attached LUNs, the same units: one VPD page each, left alone",
	  .world = W(.luns = "0-2", .before = "0-2"),
	  .opt = O(.check_identity = true),
	  .trace = "I36 I96 R0:recorded_vpd_pg83 V0:83 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 "
		   "RL R1:recorded_vpd_pg83 V1:83 R2:recorded_vpd_pg83 V2:83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:present:already-attached "
		   "2:present:already-attached",
	  .after = "0,1,2" },
	{ .what = "a remapped LUN, unused: deleted and attached again",
	  .world = W(.luns = "0-2", .before = "0-2", .remapped = "1"),
	  .opt = O(.check_identity = true),
	  .trace = "I36 I96 R0:recorded_vpd_pg83 V0:83 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 "
		   "RL R1:recorded_vpd_pg83 V1:83 U1 D1 A1 R2:recorded_vpd_pg83 V2:83 "
		   "=found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:attached:remapped 2:present:already-attached",
	  .after = "0,1,2" },
	{ .what = "a remapped LUN in use: kept, and the target fails",
	  .world = W(.luns = "0-2", .before = "0-2", .remapped = "1", .in_use = "1"),
	  .opt = O(.check_identity = true),
	  .trace = "I36 I96 R0:recorded_vpd_pg83 V0:83 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 "
		   "RL R1:recorded_vpd_pg83 V1:83 U1 R2:recorded_vpd_pg83 V2:83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:in-use:remapped 2:present:already-attached",
	  .after = "0,1,2" },
	{ .what = "a remapped LUN in a dry run: said, nothing written",
	  .world = W(.luns = "0-2", .before = "0-2", .remapped = "1"),
	  .opt = O(.check_identity = true, .dry_run = true),
	  .trace = "I36 I96 R0:recorded_vpd_pg83 V0:83 RL R1:recorded_vpd_pg83 V1:83 "
		   "R2:recorded_vpd_pg83 V2:83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:would-remove:remapped 2:present:already-attached",
	  .after = "0,1,2" },
	{ .what = "LUN 0 remapped: deleted and attached again before REPORT LUNS goes through it",
	  .world = W(.luns = "0-1", .before = "0-1", .remapped = "0"),
	  .opt = O(.check_identity = true),
	  .trace = "I36 I96 R0:recorded_vpd_pg83 V0:83 U0 D0 A0 R0:inquiry R0:vpd_pg80 "
		   "R0:vpd_pg83 RL R1:recorded_vpd_pg83 V1:83 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:attached:remapped 1:present:already-attached",
	  .after = "0,1" },
	{ .what = "no kernel copy of page 0x83: the serials decide",
	  .world = W(.luns = "0-1", .before = "0-1", .remapped = "1", .no_vpd83 = "1"),
	  .opt = O(.check_identity = true),
	  .trace = "I36 I96 R0:recorded_vpd_pg83 V0:83 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 "
		   "RL R1:recorded_vpd_pg83 R1:recorded_vpd_pg80 V1:80 U1 D1 A1 =found",
	  .end = TARGET_END_FOUND,
	  .lines = "0:present:already-attached 1:attached:remapped",
	  .after = "0,1" },
};

/* Runs @c with an interpreter that does the reads asked with the writes, or
 * one that ignores them: the trace and the outcome are the same. */
static void check_run(const struct target_case *c, bool read_ahead)
{
	struct run r;

	run(c, &r, read_ahead);
	if (getenv("TARGET_TRACE")) {
		printf("%s\n  trace  %s\n  end %s\n  lines  %s\n  after  %s\n  codes  %s %s\n"
		       "  failed %d deferred %zu ghosts %zu error %d wlun %d\n  handlers %s\n",
		       c->what, r.sim.trace, end_names[r.done.end], r.lines, r.after,
		       r.has_report ? scan_code_name(r.rep.end_code) : "-",
		       r.has_report ? scan_code_name(r.rep.method_code) : "-",
		       r.has_report && r.rep.failed, r.ndeferred, r.has_report ? r.rep.nghosts : 0,
		       r.done.error, r.wlun_impossible, r.handlers);
		run_free(&r);
		return;
	}
	ck_assert_msg(c->trace, "%s: no trace stated", c->what);
	ck_assert_msg(!strcmp(r.sim.trace, c->trace), "%s:\n  trace    %s\n  expected %s", c->what,
		      r.sim.trace, c->trace);
	ck_assert_msg(r.done.end == c->end, "%s: ends %s", c->what, end_names[r.done.end]);
	if (c->lines)
		ck_assert_msg(!strcmp(r.lines, c->lines), "%s:\n  lines    %s\n  expected %s",
			      c->what, r.lines, c->lines);
	if (c->after)
		ck_assert_msg(!strcmp(r.after, c->after), "%s: attached after %s, expected %s",
			      c->what, r.after, c->after);
	if (c->end_code)
		ck_assert_str_eq(scan_code_name(r.rep.end_code), c->end_code);
	if (c->method_code)
		ck_assert_str_eq(scan_code_name(r.rep.method_code), c->method_code);
	if (r.has_report) {
		ck_assert_msg(r.rep.failed == c->failed, "%s: failed %d", c->what, r.rep.failed);
		ck_assert_msg(r.rep.nghosts == c->ghosts, "%s: %zu ghosts", c->what, r.rep.nghosts);
		ck_assert_msg(r.rep.unknown_identity == c->unknown_identity,
			      "%s: unknown identity %d", c->what, r.rep.unknown_identity);
	}
	ck_assert_msg(!strcmp(r.handlers, c->handlers ? c->handlers : ""),
		      "%s: handlers '%s', expected '%s'", c->what, r.handlers,
		      c->handlers ? c->handlers : "");
	ck_assert_msg(r.wlun_impossible == c->wlun_impossible, "%s: wlun_impossible %d", c->what,
		      r.wlun_impossible);
	ck_assert_msg(r.done.error == c->error, "%s: error %d", c->what, r.done.error);
	ck_assert_msg(r.ndeferred == c->deferred, "%s: %zu deferred", c->what, r.ndeferred);
	run_free(&r);
}

static void check_case(const struct target_case *c)
{
	check_run(c, false);
	check_run(c, true);
}

START_TEST(target_rows)
{
	check_case(&cases[_i]);
}
END_TEST

/* A lunmask entry on a long list: the LUNs it allows after the first
 * listed one are handed over at once, a refused one is never written. */
static const char mask_not_7[] = "lunmask \"t\" {\n driver = \"fake\"\n channel = 0\n id = 0\n"
				 " exclude_luns = { 7 }\n}\n";

static const struct target_case batch_luns_cases[] = {
	{ .what = "a long list the policy restricts: the rest by our writes, LUN 7 never written",
	  .world = W(.luns = "0-20"),
	  .opt = O(.quirks = mask_not_7),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 B18 R2:vpd_pg83 R3:vpd_pg83 R4:vpd_pg83 R5:vpd_pg83 R6:vpd_pg83 R8:vpd_pg83 R9:vpd_pg83 R10:vpd_pg83 R11:vpd_pg83 R12:vpd_pg83 R13:vpd_pg83 R14:vpd_pg83 R15:vpd_pg83 R16:vpd_pg83 R17:vpd_pg83 R18:vpd_pg83 R19:vpd_pg83 R20:vpd_pg83 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:attached:lun0 1:attached:listed 2:attached:listed 3:attached:listed 4:attached:listed 5:attached:listed 6:attached:listed 7:skipped:masked 8:attached:listed 9:attached:listed 10:attached:listed 11:attached:listed 12:attached:listed 13:attached:listed 14:attached:listed 15:attached:listed 16:attached:listed 17:attached:listed 18:attached:listed 19:attached:listed 20:attached:listed",
	  .after = "0,1,2,3,4,5,6,8,9,10,11,12,13,14,15,16,17,18,19,20",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
	{ .what = "a long list the policy restricts, the host takes LUNs up to 10: our writes "
		  "stop at LUN 11, the walk tries each LUN after it",
	  .world = W(.luns = "0-20", .lun_limit = 10),
	  .opt = O(.quirks = mask_not_7),
	  .trace =
		  "A0 I36 I96 R0:inquiry R0:vpd_pg80 R0:vpd_pg83 RL A1 R1:vpd_pg83 B18 R2:vpd_pg83 R3:vpd_pg83 R4:vpd_pg83 R5:vpd_pg83 R6:vpd_pg83 R8:vpd_pg83 R9:vpd_pg83 R10:vpd_pg83 A11 A12 A13 A14 A15 A16 A17 A18 A19 A20 =found",
	  .end = TARGET_END_FOUND,
	  .lines =
		  "0:attached:lun0 1:attached:listed 2:attached:listed 3:attached:listed 4:attached:listed 5:attached:listed 6:attached:listed 7:skipped:masked 8:attached:listed 9:attached:listed 10:attached:listed 11:beyond-limit:host-limit 12:beyond-limit:host-limit 13:beyond-limit:host-limit 14:beyond-limit:host-limit 15:beyond-limit:host-limit 16:beyond-limit:host-limit 17:beyond-limit:host-limit 18:beyond-limit:host-limit 19:beyond-limit:host-limit 20:beyond-limit:host-limit",
	  .after = "0,1,2,3,4,5,6,8,9,10",
	  .end_code = "list-done",
	  .method_code = "scsi-3" },
};

START_TEST(target_batch_luns_rows)
{
	check_case(&batch_luns_cases[_i]);
}
END_TEST

/* The rows that attach LUNs one by one do take their first read with the
 * write: the read-ahead is exercised, not only allowed. */
START_TEST(target_read_ahead_used)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);
	int total = 0, rows = 0;

	for (size_t i = 0; i < n; i++) {
		struct run r;

		run(&cases[i], &r, true);
		total += r.sim.read_aheads;
		rows += r.sim.read_aheads > 0;
		run_free(&r);
	}
	/* 96 reads in 57 rows when this was written */
	ck_assert_int_ge(rows, 50);
	ck_assert_int_ge(total, 90);
}
END_TEST

START_TEST(target_remap_rows)
{
	check_case(&remap_cases[_i]);
}
END_TEST

/* ---- one release ------------------------------------------------------------ */

/**
 * struct release_case - one release, its world and what it does
 * @what: the case, in words
 * @kind: why the LUN goes
 * @ev: the evidence for it; a zeroed one is the kind's trusted evidence
 * @dry_run, @force: the options
 * @in_use: what the in-use check answers (1, 0, or a negative errno)
 * @deleted: what the delete answers (0 or a negative errno)
 * @trace: the actions: U (in use?), D (delete)
 * @line: whether a line is written
 * @outcome: its outcome
 * @code: its code token
 * @reason: text its reason holds
 */
struct release_case {
	const char *what;
	enum release_kind kind;
	struct removal_evidence ev;
	bool dry_run;
	bool force;
	int in_use;
	int deleted;
	const char *trace;
	bool line;
	enum lun_outcome outcome;
	const char *code;
	const char *reason;
};

static const struct release_case release_cases[] = {
	{ .what = "ours, free",
	  .kind = RELEASE_OURS,
	  .trace = "U D",
	  .line = true,
	  .outcome = LUN_DETACHED,
	  .code = "reach-only",
	  .reason = "attached to reach" },
	{ .what = "ours, in use",
	  .kind = RELEASE_OURS,
	  .in_use = 1,
	  .trace = "U",
	  .line = true,
	  .outcome = LUN_IN_USE,
	  .code = "reach-only",
	  .reason = "attached to reach, but mounted on /srv: kept (--force deletes it)" },
	{ .what = "ours, the check fails: in use",
	  .kind = RELEASE_OURS,
	  .in_use = -EACCES,
	  .trace = "U",
	  .line = true,
	  .outcome = LUN_IN_USE,
	  .code = "reach-only",
	  .reason = "but in use: kept" },
	{ .what = "ours, the delete fails",
	  .kind = RELEASE_OURS,
	  .deleted = -EIO,
	  .trace = "U D",
	  .line = true,
	  .outcome = LUN_FAILED,
	  .code = "delete-failed",
	  .reason = "could not delete it again: Input/output error" },
	{ .what = "ours, dry run: nothing was attached",
	  .kind = RELEASE_OURS,
	  .dry_run = true,
	  .trace = "",
	  .line = false },
	{ .what = "ours, --force",
	  .kind = RELEASE_OURS,
	  .force = true,
	  .in_use = 1,
	  .trace = "D",
	  .line = true,
	  .outcome = LUN_DETACHED,
	  .code = "reach-only" },
	{ .what = "refused, free",
	  .kind = RELEASE_REFUSED,
	  .trace = "U D",
	  .line = true,
	  .outcome = LUN_REMOVED,
	  .code = "reach-only",
	  .reason = "attached to reach" },
	{ .what = "refused, --force",
	  .kind = RELEASE_REFUSED,
	  .force = true,
	  .in_use = 1,
	  .trace = "D",
	  .line = true,
	  .outcome = LUN_REMOVED,
	  .code = "reach-only",
	  .reason = "(--force)" },
	{ .what = "refused, dry run",
	  .kind = RELEASE_REFUSED,
	  .dry_run = true,
	  .trace = "U",
	  .line = true,
	  .outcome = LUN_WOULD_REMOVE,
	  .code = "reach-only" },
	{ .what = "refused, dry run, in use",
	  .kind = RELEASE_REFUSED,
	  .dry_run = true,
	  .in_use = 1,
	  .trace = "U",
	  .line = true,
	  .outcome = LUN_IN_USE,
	  .code = "reach-only" },
	{ .what = "refused, the delete fails",
	  .kind = RELEASE_REFUSED,
	  .deleted = -EIO,
	  .trace = "U D",
	  .line = true,
	  .outcome = LUN_FAILED,
	  .code = "delete-failed",
	  .reason = "delete failed: Input/output error" },
	{ .what = "remapped on an identity that could not be read: kept, nothing asked",
	  .kind = RELEASE_REMAPPED,
	  .ev = { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_UNREADABLE },
	  .trace = "",
	  .line = true,
	  .outcome = LUN_PRESENT,
	  .code = "reach-only",
	  .reason = "its identity could not be read whole: kept" },
	{ .what = "remapped, --force, the identity unreadable: kept all the same",
	  .kind = RELEASE_REMAPPED,
	  .ev = { .cause = REMOVAL_REMAPPED, .identity = IDENTITY_UNREADABLE },
	  .force = true,
	  .trace = "",
	  .line = true,
	  .outcome = LUN_PRESENT,
	  .code = "reach-only" },
	{ .what = "no longer in a list cut short: kept",
	  .kind = RELEASE_REFUSED,
	  .ev = { .cause = REMOVAL_GONE, .list = LIST_PARTIAL },
	  .trace = "",
	  .line = true,
	  .outcome = LUN_PRESENT,
	  .code = "reach-only" },
	{ .what = "a hold-out that may be another host's: kept",
	  .kind = RELEASE_REFUSED,
	  .ev = { .cause = REMOVAL_REFUSED, .holdout = HOLDOUT_OTHER_HOST },
	  .trace = "",
	  .line = true,
	  .outcome = LUN_PRESENT,
	  .code = "reach-only" },
	{ .what = "this host's hold-out: checked, deleted",
	  .kind = RELEASE_REFUSED,
	  .ev = { .cause = REMOVAL_REFUSED, .holdout = HOLDOUT_THIS_HOST },
	  .trace = "U D",
	  .line = true,
	  .outcome = LUN_REMOVED,
	  .code = "reach-only" },
	{ .what = "deferred, free: its line stands",
	  .kind = RELEASE_DEFERRED,
	  .trace = "U D",
	  .line = false },
	{ .what = "deferred, in use",
	  .kind = RELEASE_DEFERRED,
	  .in_use = 1,
	  .trace = "U",
	  .line = true,
	  .outcome = LUN_IN_USE,
	  .code = "reach-only",
	  .reason = "the target shows ghost LUNs, but mounted on /srv: kept" },
	{ .what = "deferred, the delete fails",
	  .kind = RELEASE_DEFERRED,
	  .deleted = -EIO,
	  .trace = "U D",
	  .line = true,
	  .outcome = LUN_FAILED,
	  .code = "reach-only",
	  .reason = "could not detach it again: Input/output error" },
};

START_TEST(release_rows)
{
	const struct release_case *c = &release_cases[_i];
	struct target_action a;
	struct release_line line;
	struct target_obs o;
	const struct target_obs *last = NULL;
	struct release r;
	char trace[32] = "";

	struct removal_evidence ev = c->ev;

	if (!c->ev.cause && !c->ev.identity && !c->ev.list && !c->ev.holdout) {
		/* The kind's own trusted evidence. */
		memset(&ev, 0, sizeof(ev));
		ev.cause = c->kind == RELEASE_REMAPPED	? REMOVAL_REMAPPED
			   : c->kind == RELEASE_REFUSED ? REMOVAL_REFUSED
							: REMOVAL_OURS;
		ev.identity = IDENTITY_DIFFERENT;
		ev.policy_refuses = true;
	}
	release_init(&r, c->kind, &ev, 7, SC_REACH_ONLY, "attached to reach", c->dry_run, c->force);
	for (int steps = 0;; steps++) {
		ck_assert_int_lt(steps, 4);
		release_step(&r, last, &a, &line);
		if (a.kind == TARGET_DONE)
			break;
		ck_assert_uint_eq(a.lun, 7);
		memset(&o, 0, sizeof(o));
		if (a.kind == TARGET_IN_USE) {
			o.result = c->in_use;
			o.why = c->in_use == 1 ? "mounted on /srv" : NULL;
		} else {
			ck_assert_int_eq(a.kind, TARGET_DELETE);
			o.result = c->deleted;
		}
		snprintf(trace + strlen(trace), sizeof(trace) - strlen(trace), "%s%s",
			 trace[0] ? " " : "", a.kind == TARGET_IN_USE ? "U" : "D");
		last = &o;
	}
	ck_assert_msg(!strcmp(trace, c->trace), "%s: trace '%s'", c->what, trace);
	ck_assert_msg(line.set == c->line, "%s: line %d", c->what, line.set);
	if (!c->line)
		return;
	ck_assert_msg(line.outcome == c->outcome, "%s: %s", c->what,
		      lun_outcome_name(line.outcome));
	ck_assert_str_eq(scan_code_name(line.code), c->code);
	if (c->reason)
		ck_assert_msg(strstr(line.reason, c->reason), "%s: '%s'", c->what, line.reason);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("target");
	TCase *tc = tcase_create("machine");

	tcase_add_loop_test(tc, target_rows, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, target_batch_luns_rows, 0,
			    sizeof(batch_luns_cases) / sizeof(batch_luns_cases[0]));
	tcase_add_loop_test(tc, target_remap_rows, 0, sizeof(remap_cases) / sizeof(remap_cases[0]));
	tcase_add_test(tc, target_read_ahead_used);
	tcase_add_loop_test(tc, release_rows, 0, sizeof(release_cases) / sizeof(release_cases[0]));
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
