// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan.c - drives discover, probe, plan and apply for hosts and targets.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "blist.h"
#include "inuse.h"
#include "luns.h"
#include "scan.h"
#include "sgio.h"
#include "topology.h"

#define DEFAULT_MAX_LUNS 512

/* Two entries of a transport's list name one target, and the lunmask
 * entries that apply to their addresses differ. */
#define NOT_ONE_POLICY                                                                             \
	"not scanned: the transport lists this target id more than once, and the "                 \
	"lunmask entries that apply differ between its addresses: a LUN one of them refuses "      \
	"could be attached through another"

/* One host's scan in progress. */
struct host_scan {
	const struct scan_ctx *ctx;
	struct host_report *rep;
	unsigned int host;
	uint64_t max_luns;
	bool usb;
	char driver[64];
	char host_port_name[32];
	const struct discover_target *listed;
	size_t nlisted;
	bool wlun_impossible;
	long long max_lun_ok;
	int scan_fd;
	const struct scsi_addr *before;
	size_t nbefore;
	uint64_t start_ms;
	uint64_t target_start_ms;
	size_t writes;
	size_t target_writes;
	char stop_reason[160];
	struct pending_detach *detach;
	size_t ndetach;
};

/* A ghost LUN to detach when the host's scan is over: the report line it
 * updates, by index (the arrays grow while the host is scanned). */
struct pending_detach {
	size_t target;
	size_t line;
};

static void slog(const struct scan_ctx *ctx, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void slog(const struct scan_ctx *ctx, int prio, const char *fmt, ...)
{
	va_list ap;

	if (!ctx->log)
		return;
	va_start(ap, fmt);
	ctx->log(ctx->log_data, prio, fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Whether the scan must stop before its next step. Return: 0 go on,
 * -ETIMEDOUT the current target is past its bound (the host goes on with
 * the next), -ECANCELED the host is past its bound or the scan was
 * cancelled. @stop_reason says which.
 */
static int scan_bound(struct host_scan *hs)
{
	const struct scan_options *o = &hs->ctx->opt;
	uint64_t now = now_ms();

	if (hs->ctx->cancel && atomic_load(hs->ctx->cancel)) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "cancelled (the program is "
			 "stopping)");
		return -ECANCELED;
	}
	if (o->time_limit && now >= o->deadline_ms) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "stopped: the run reached its time limit of %u s", o->time_limit);
		return -ECANCELED;
	}
	if (o->host_timeout && now - hs->start_ms >= (uint64_t)o->host_timeout * 1000) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "stopped: the host's scan reached its time bound of %u s",
			 o->host_timeout);
		return -ECANCELED;
	}
	if (hs->writes >= SCAN_HOST_WRITES_MAX) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "stopped: the host's scan reached its bound of %d scan writes",
			 SCAN_HOST_WRITES_MAX);
		return -ECANCELED;
	}
	if (o->target_timeout && now - hs->target_start_ms >= (uint64_t)o->target_timeout * 1000) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "stopped: the target's scan reached its time bound of %u s",
			 o->target_timeout);
		return -ETIMEDOUT;
	}
	if (hs->target_writes >= SCAN_TARGET_WRITES_MAX) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "stopped: the target's scan reached its bound of %d scan writes",
			 SCAN_TARGET_WRITES_MAX);
		return -ETIMEDOUT;
	}
	return 0;
}

static bool is_stop(int r)
{
	return r == -ETIMEDOUT || r == -ECANCELED;
}

/* Whether a LUN was attached when this host's scan started. */
static bool attached_before(const struct host_scan *hs, const struct scsi_addr *a)
{
	size_t lo = 0, hi = hs->nbefore;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = scsi_addr_cmp(&hs->before[mid], a);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int host_scan_write(struct host_scan *hs, unsigned int channel, unsigned int id,
			   uint64_t lun)
{
	int r = scan_bound(hs);

	if (r < 0)
		return r;
	hs->writes++;
	hs->target_writes++;
	if (hs->scan_fd < 0) {
		hs->scan_fd = sysfs_scan_open(hs->ctx->sys, hs->host);
		if (hs->scan_fd < 0)
			return hs->scan_fd;
	}
	r = sysfs_scan_fd(hs->scan_fd, (int)channel, (int)id, lun);
	if (r == 0 && lun != UINT64_MAX && (long long)lun > hs->max_lun_ok)
		hs->max_lun_ok = (long long)lun;
	return r;
}

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

static int add_lun(struct target_report *t, uint64_t lun, enum lun_outcome o, const char *code,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add_lun(struct target_report *t, uint64_t lun, enum lun_outcome o, const char *code,
		   const char *fmt, ...)
{
	struct lun_report *l;
	va_list ap;

	if (t->nluns == t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 16;

		l = realloc(t->luns, n * sizeof(*l));
		if (!l)
			return -ENOMEM;
		t->luns = l;
		t->alloc = n;
	}
	l = &t->luns[t->nluns++];
	l->lun = lun;
	l->outcome = o;
	l->code = code;
	va_start(ap, fmt);
	vsnprintf(l->reason, sizeof(l->reason), fmt, ap);
	va_end(ap);
	return 0;
}

static void target_fail(struct target_report *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void target_fail(struct target_report *t, const char *fmt, ...)
{
	va_list ap;

	t->failed = true;
	va_start(ap, fmt);
	vsnprintf(t->error, sizeof(t->error), fmt, ap);
	va_end(ap);
}

static struct target_report *new_target(struct host_report *h, unsigned int channel,
					unsigned int id)
{
	struct target_report *p = realloc(h->targets, (h->ntargets + 1) * sizeof(*p));

	if (!p)
		return NULL;
	h->targets = p;
	p = &h->targets[h->ntargets++];
	memset(p, 0, sizeof(*p));
	p->addr.host = h->host;
	p->addr.channel = channel;
	p->addr.id = id;
	return p;
}

static struct scsi_addr addr_of(const struct target_report *t, uint64_t lun)
{
	struct scsi_addr a = t->addr;

	a.lun = lun;
	return a;
}

/* The INQUIRY data the kernel keeps in sysfs for an attached LUN. */
static int sysfs_inquiry(const struct scan_ctx *ctx, const struct scsi_addr *a, struct inquiry *ret)
{
	uint8_t buf[INQUIRY_MAX_LEN];
	char name[32];
	int n;

	n = sysfs_read_bin(ctx->sys, buf, sizeof(buf), "/sys/bus/scsi/devices/%s/inquiry",
			   scsi_addr_format(a, name, sizeof(name)));
	if (n < 0)
		return n;
	return inquiry_decode(buf, (size_t)n, ret) < 0 ? -EINVAL : 0;
}

/* The quirk database's answer for decoded INQUIRY data. */
static int match_inquiry(const struct quirk_db *db, const struct inquiry *inq,
			 struct quirk_match *ret)
{
	struct quirk_device dev = quirk_device_from_inquiry(inq);

	return quirk_db_match(db, &dev, ret);
}

/* The stable address of one entry of the transport's list. */
static void listed_address(const struct host_scan *hs, const struct discover_target *lt,
			   struct lunmask_target *mt, char *iqn, size_t len)
{
	char *comma;

	switch (hs->rep->transport) {
	case DISCOVER_FC:
		mt->port_name = lt->address;
		break;
	case DISCOVER_SAS:
		mt->sas_address = lt->address;
		break;
	case DISCOVER_ISCSI:
		/* topology.c gives "IQN,TPGT" */
		snprintf(iqn, len, "%s", lt->address);
		comma = strrchr(iqn, ',');
		if (comma) {
			*comma = '\0';
			mt->iscsi_tpgt = strtol(comma + 1, NULL, 10);
		}
		mt->iscsi_target = iqn;
		break;
	case DISCOVER_PROBE:
		break;
	}
}

static bool same_entries(const struct lunmask_set *a, const struct lunmask_set *b)
{
	return a->count == b->count &&
	       (!a->count || !memcmp(a->items, b->items, a->count * sizeof(*a->items)));
}

/* LUN 0's unit serial number from the copy of VPD page 0x80 in sysfs. */
static bool lun0_serial(const struct scan_ctx *ctx, const struct scsi_addr *a, char *buf,
			size_t len)
{
	uint8_t page[260];
	char name[32];
	int n;

	n = sysfs_read_bin(ctx->sys, page, sizeof(page), "/sys/bus/scsi/devices/%s/vpd_pg80",
			   scsi_addr_format(a, name, sizeof(name)));
	return n > 0 && inquiry_unit_serial(page, (size_t)n, buf, len) == 0;
}

/*
 * The lunmask entries that apply to target @c:@id. @identity: LUN 0 is
 * attached, so entries that match its wwid or serial can be looked at.
 */
static int select_mask(const struct host_scan *hs, unsigned int c, unsigned int id, bool identity,
		       struct lunmask_set *ret, char *summary, size_t len)
{
	struct lunmask_target mt = {
		.host = hs->host,
		.driver = hs->driver[0] ? hs->driver : NULL,
		.host_port_name = hs->host_port_name[0] ? hs->host_port_name : NULL,
		.channel = c,
		.id = id,
		.iscsi_tpgt = -1,
	};
	struct scsi_addr lun0 = { hs->host, c, id, 0 };
	char iqn[ISCSI_NAME_MAX + 16], wwid[SCSI_WWID_MAX + 1], serial[256];
	const struct lunmask_entry *masks;
	size_t n, used = 0, addresses = 0;
	int r = 0;

	lunmask_set_clear(ret);
	if (summary && len)
		summary[0] = '\0';
	masks = quirk_db_lunmasks(hs->ctx->db, &n);
	if (!n)
		return 0;
	if (identity && sysfs_device_attr(hs->ctx->sys, &lun0, "wwid", wwid, sizeof(wwid)) > 0)
		mt.wwid = wwid;
	if (identity && lun0_serial(hs->ctx, &lun0, serial, sizeof(serial)))
		mt.serial = serial;
	/* Every entry of the transport's list that names this target: the
	 * policy must be one for all of them, or the target is not scanned. */
	for (size_t i = 0; i < hs->nlisted && r == 0; i++) {
		const struct discover_target *lt = &hs->listed[i];
		struct lunmask_set other = { 0 };

		if (!lt->has_id || lt->channel != c || lt->id != id)
			continue;
		listed_address(hs, lt, &mt, iqn, sizeof(iqn));
		r = lunmask_select(masks, n, &mt, addresses++ ? &other : ret);
		if (r == 0 && addresses > 1 && !same_entries(ret, &other))
			r = -ENOTUNIQ;
		lunmask_set_clear(&other);
	}
	if (r == 0 && !addresses)
		r = lunmask_select(masks, n, &mt, ret);
	if (r < 0)
		lunmask_set_clear(ret);
	for (size_t i = 0; r == 0 && summary && i < ret->count && used < len; i++) {
		const struct lunmask_entry *e = ret->items[i];
		int k = snprintf(summary + used, len - used, "%s'%s' (%s:%u)", i ? ", " : "",
				 e->title, e->file, e->line);

		used += k > 0 ? (size_t)k : 0;
	}
	return r;
}

/* INQUIRY through SG_IO as the kernel's probe does it: 36 bytes, then the
 * length the device claims unless the quirks say inquiry_36. Falls back to
 * the copy the kernel keeps in sysfs. */
static int probe_inquiry(struct host_scan *hs, struct target_report *t, int fd)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct sgio_error err;
	uint8_t buf[INQUIRY_MAX_LEN];
	size_t got = 0;
	int r = -ENODEV;

	if (fd >= 0)
		r = sgio_inquiry(fd, buf, INQUIRY_MIN_LEN, ctx->opt.inquiry_timeout, &got, &err);
	if (r == 0 && inquiry_decode(buf, got, &t->inq) == 0) {
		t->inquiry_source = "SG_IO";
	} else {
		struct scsi_addr a = addr_of(t, t->probe_lun);

		if (sysfs_inquiry(ctx, &a, &t->inq) < 0) {
			target_fail(t, "INQUIRY failed: %s",
				    fd < 0  ? "no sg or bsg node"
				    : r > 0 ? err.text
					    : strerror(r < 0 ? -r : EIO));
			return -EIO;
		}
		t->inquiry_source = "sysfs inquiry attribute (INQUIRY failed)";
	}
	t->has_inquiry = true;
	r = match_inquiry(ctx->db, &t->inq, &t->match);
	if (r < 0)
		return r;
	t->target_attach = true;
	for (size_t i = 0; i < t->match.count; i++)
		if (t->match.sources[i]->type < 0 && t->match.sources[i]->attach >= 0)
			t->target_attach = t->match.sources[i]->attach;
	/* The whole length only from a device that answered the first: one
	 * that timed out would make the scan wait a second time. */
	if (strcmp(t->inquiry_source, "SG_IO") == 0 && !(t->match.flags & BLIST_INQUIRY_36) &&
	    t->inq.response_len > INQUIRY_MIN_LEN && t->inq.response_len <= INQUIRY_MAX_LEN &&
	    sgio_inquiry(fd, buf, t->inq.response_len, ctx->opt.inquiry_timeout, &got, &err) == 0 &&
	    got >= INQUIRY_MIN_LEN) {
		struct inquiry full;

		if (inquiry_decode(buf, got, &full) == 0)
			t->inq.len = full.len;
	}
	return 0;
}

static bool lun_listed(const struct target_report *t, uint64_t lun)
{
	for (size_t i = 0; i < t->nreported; i++)
		if (t->reported[i] == lun)
			return true;
	return false;
}

/* @kernel_luns is sorted (kernel_attached()). */
static ssize_t kernel_index(const struct target_report *t, uint64_t lun)
{
	size_t lo = 0, hi = t->nkernel_luns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->kernel_luns[mid] == lun)
			return (ssize_t)mid;
		if (t->kernel_luns[mid] < lun)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int detach(struct host_scan *hs, struct target_report *t, uint64_t lun, const char *code,
		  const char *why);

/* Why a LUN's own INQUIRY refuses it: the last entry that set attach. */
static void refusal_reason(char *why, size_t len, const struct inquiry *inq,
			   const struct quirk_match *m)
{
	const struct quirk_entry *e = NULL;

	for (size_t i = 0; i < m->count; i++)
		if (m->sources[i]->attach >= 0)
			e = m->sources[i];
	snprintf(why, len, "attach = false for this LUN's own INQUIRY (type %d) from %s:%u",
		 inq->pdt, e ? e->file : "?", e ? e->line : 0);
}

/*
 * Whether a LUN's own INQUIRY (the copy the kernel keeps in sysfs) makes
 * the quirk database refuse it: an entry with a type or revision that the
 * LUN the target was reached through does not share. Return: 1 refused
 * (@why says by what), 0 not, or a negative errno.
 */
static int refused_by_own_inquiry(struct host_scan *hs, const struct target_report *t, uint64_t lun,
				  char *why, size_t len)
{
	struct scsi_addr a = addr_of(t, lun);
	struct quirk_match m = { 0 };
	struct inquiry inq;
	int r;

	if (!quirk_db_refuses_per_lun(hs->ctx->db) || sysfs_inquiry(hs->ctx, &a, &inq) < 0)
		return 0;
	r = match_inquiry(hs->ctx->db, &inq, &m);
	if (r < 0)
		return r;
	r = !m.attach;
	if (r)
		refusal_reason(why, len, &inq, &m);
	quirk_match_clear(&m);
	return r;
}

/* One probe of the plan: attach @lun through the scan file and look. */
static int apply_probe(struct host_scan *hs, struct target_report *t, uint64_t lun,
		       const char *code, const char *why, struct plan_outcome *o)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct scsi_addr a = addr_of(t, lun);
	char own[PLAN_REASON_LEN];
	int r;

	/* This host's LUNs change only through this scan (it holds the host
	 * lock), so the list taken at its start tells what was there. */
	ssize_t k = kernel_index(t, lun);

	if (k >= 0) {
		o->kind = PLAN_OUT_PRESENT;
		t->kernel_kept[k] = true;
		r = refused_by_own_inquiry(hs, t, lun, own, sizeof(own));
		if (r != 0)
			return r < 0 ? r : detach(hs, t, lun, "refused-by-type", own);
		return add_lun(t, lun, LUN_ATTACHED, "kernel-scan",
			       "%s (attached by the kernel's scan of this target, as the database "
			       "agrees)",
			       why);
	}
	if (lun == t->probe_lun && t->probe_new) {
		o->kind = PLAN_OUT_PRESENT;
		return add_lun(t, lun, LUN_ATTACHED, "reached-through",
			       "%s (the target was reached through it)", why);
	}
	if (attached_before(hs, &a) || (lun == t->probe_lun && sysfs_device_exists(ctx->sys, &a))) {
		o->kind = PLAN_OUT_PRESENT;
		return add_lun(t, lun, LUN_PRESENT, "already-attached",
			       "already attached; left alone");
	}
	if (ctx->opt.dry_run) {
		/* Unknown until probed: a sequential plan goes on as if it were
		 * a gap, so the dry run shows where a real scan would stop. */
		o->kind = PLAN_OUT_ABSENT;
		return add_lun(t, lun, LUN_WOULD_PROBE, code, "%s", why);
	}
	if (!lun_scan_writable(lun)) {
		o->kind = PLAN_OUT_ABSENT;
		return add_lun(t, lun, LUN_FAILED, "not-writable",
			       "LUN 0x%" PRIx64 " cannot be named in the scan file", lun);
	}
	r = host_scan_write(hs, t->addr.channel, t->addr.id, lun);
	if (r == -EINVAL) {
		o->kind = PLAN_OUT_LIMIT;
		return add_lun(t, lun, LUN_LIMIT, "host-limit",
			       "the host refuses this LUN (EINVAL): past its LUN limit");
	}
	if (is_stop(r)) {
		o->kind = PLAN_OUT_ABSENT;
		return add_lun(t, lun, LUN_FAILED, "bound", "not tried: %s", hs->stop_reason);
	}
	if (r < 0) {
		o->kind = PLAN_OUT_ABSENT;
		return add_lun(t, lun, LUN_FAILED, "write-failed", "scan write failed: %s",
			       strerror(-r));
	}
	if (sysfs_device_exists(ctx->sys, &a)) {
		o->kind = PLAN_OUT_PRESENT;
		r = refused_by_own_inquiry(hs, t, lun, own, sizeof(own));
		if (r != 0)
			return r < 0 ? r : detach(hs, t, lun, "refused-by-type", own);
		return add_lun(t, lun, LUN_ATTACHED, code, "%s", why);
	}
	o->kind = PLAN_OUT_ABSENT;
	r = hs->rep->transport == DISCOVER_PROBE
		    ? 0
		    : topology_target_lost(ctx->sys, hs->host, t->addr.channel, t->addr.id, own,
					   sizeof(own));
	if (r == 1) {
		/* Every later write would go nowhere until it is back. */
		target_fail(t,
			    "the transport lost the target in the middle of its scan (%s): "
			    "LUN %" PRIu64 " and those after it were not attached",
			    own, lun);
		return -ENOTCONN;
	}
	return add_lun(t, lun, LUN_ABSENT, code, "%s; no logical unit answered", why);
}

static int apply_report_luns(struct host_scan *hs, struct target_report *t, int fd,
			     struct plan_outcome *o, char *why, size_t why_len)
{
	struct sgio_error err;
	uint8_t *buf = NULL;
	size_t len = 0, needed;
	int r;

	o->kind = PLAN_OUT_FAILED;
	o->why = why;
	if (fd < 0) {
		snprintf(why, why_len, "no sg or bsg node");
		return 0;
	}
	r = sgio_report_luns(fd, hs->ctx->opt.report_luns_timeout, &buf, &len, &err);
	if (r != 0 && t->nkernel_luns) {
		/* Only LUN 0 and the well-known LUN must answer REPORT LUNS; the
		 * kernel asked through a LUN 0 we cannot reach, so what it
		 * attached is the target's list. */
		free(t->reported);
		t->reported = malloc(t->nkernel_luns * sizeof(*t->reported));
		if (!t->reported)
			return -ENOMEM;
		memcpy(t->reported, t->kernel_luns, t->nkernel_luns * sizeof(*t->reported));
		t->nreported = t->nkernel_luns;
		t->report_read = true;
		t->report_complete = true;
		o->kind = PLAN_OUT_REPORT_LUNS;
		o->luns = t->reported;
		o->count = t->nreported;
		return 0;
	}
	/* No sense data from either command: nothing answered (the device is
	 * gone, or the transport lost it). Probing LUN by LUN would only add
	 * timeouts. */
	if (r != 0 && !(r > 0 && err.has_sense) && strcmp(t->inquiry_source, "SG_IO") != 0) {
		target_fail(t, "the device does not answer: INQUIRY and REPORT LUNS failed (%s)",
			    r > 0 ? err.text : strerror(-r));
		return -EIO;
	}
	if (r != 0) {
		snprintf(why, why_len, "%s", r > 0 ? err.text : strerror(-r));
		t->report_luns_failed = true;
		snprintf(t->report_luns_error, sizeof(t->report_luns_error), "%s", why);
		return 0;
	}
	free(t->reported);
	t->reported = NULL;
	r = report_luns_decode(buf, len, &t->reported, &t->nreported, &needed, &t->report_complete);
	free(buf);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		snprintf(why, why_len, "malformed response");
		t->report_luns_failed = true;
		snprintf(t->report_luns_error, sizeof(t->report_luns_error), "%s", why);
		return 0;
	}
	t->report_read = true;
	o->kind = PLAN_OUT_REPORT_LUNS;
	o->luns = t->reported;
	o->count = t->nreported;
	return 0;
}

/* --remove: attached LUNs that the device's own list no longer names. */
static int remove_unlisted(struct host_scan *hs, struct target_report *t)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct scsi_addr *addrs = NULL;
	size_t n = 0;
	int r;

	if (!t->report_complete) {
		/* LUNs missing from a cut list may be there all the same. */
		t->removal_refused = true;
		return 0;
	}
	r = sysfs_devices(ctx->sys, (int)hs->host, &addrs, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct scsi_addr *a = &addrs[i];
		char held[256];
		int use;

		if (a->channel != t->addr.channel || a->id != t->addr.id || a->lun == 0 ||
		    lun_is_wlun(a->lun) || lun_listed(t, a->lun))
			continue;
		use = ctx->opt.force ? 0 : device_in_use(ctx->sys, a, held, sizeof(held));
		if (use != 0) {
			r = add_lun(t, a->lun, LUN_IN_USE, "no-longer-reported",
				    "no longer reported, but %s: kept (--force deletes it)", held);
			continue;
		}
		if (ctx->opt.dry_run) {
			r = add_lun(t, a->lun, LUN_WOULD_REMOVE, "no-longer-reported",
				    "no longer reported");
			continue;
		}
		use = sysfs_delete(ctx->sys, a);
		if (use < 0)
			r = add_lun(t, a->lun, LUN_FAILED, "delete-failed", "delete failed: %s",
				    strerror(-use));
		else
			r = add_lun(t, a->lun, LUN_REMOVED, "no-longer-reported",
				    "no longer reported%s", ctx->opt.force ? " (--force)" : "");
	}
	free(addrs);
	return r;
}

/*
 * Deletes a LUN this scan attached for its own use. It was attached a
 * moment ago, but udev rules or an automounter may already hold it: an
 * error while checking keeps it too.
 */
static int detach(struct host_scan *hs, struct target_report *t, uint64_t lun, const char *code,
		  const char *why)
{
	struct scsi_addr a = addr_of(t, lun);
	char held[256];
	int r;

	if (hs->ctx->opt.dry_run || !sysfs_device_exists(hs->ctx->sys, &a))
		return 0;
	r = hs->ctx->opt.force ? 0 : device_in_use(hs->ctx->sys, &a, held, sizeof(held));
	if (r != 0)
		return add_lun(t, lun, LUN_IN_USE, code, "%s, but %s: kept (--force deletes it)",
			       why, held);
	r = sysfs_delete(hs->ctx->sys, &a);
	if (r < 0)
		return add_lun(t, lun, LUN_FAILED, "delete-failed", "could not delete it again: %s",
			       strerror(-r));
	return add_lun(t, lun, LUN_DETACHED, code, "%s", why);
}

/* LUNs the kernel's own scan of the target attached that the database
 * would not have: they were attached a moment ago, by us, so they go. */
static int undo_kernel_luns(struct host_scan *hs, struct target_report *t)
{
	int r = 0;

	for (size_t i = 0; i < t->nkernel_luns && r == 0; i++) {
		struct scsi_addr a = addr_of(t, t->kernel_luns[i]);

		if (t->kernel_kept[i])
			continue;
		r = detach(hs, t, a.lun, "kernel-scan-undone",
			   "attached by the kernel's scan of this target; the quirk database would "
			   "not attach it");
	}
	return r;
}

/*
 * A LUN the lunmask policy refuses: skipped; one attached now stays unless
 * --remove (and is not in use), so that a policy change takes effect only
 * when asked, and a dry run shows what it would do.
 */
static int masked_lun(struct host_scan *hs, struct target_report *t, uint64_t lun, const char *why)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct scsi_addr a = addr_of(t, lun);
	char held[256];
	int r;

	if (!sysfs_device_exists(ctx->sys, &a))
		return add_lun(t, lun, LUN_SKIPPED, "masked", "%s", why);
	if (!ctx->opt.remove)
		return add_lun(t, lun, LUN_PRESENT, "masked",
			       "attached, but %s: left alone (--remove detaches it)", why);
	r = ctx->opt.force ? 0 : device_in_use(ctx->sys, &a, held, sizeof(held));
	if (r != 0)
		return add_lun(t, lun, LUN_IN_USE, "masked",
			       "%s, but %s: kept (--force deletes it)", why, held);
	if (ctx->opt.dry_run)
		return add_lun(t, lun, LUN_WOULD_REMOVE, "masked", "%s", why);
	r = sysfs_delete(ctx->sys, &a);
	if (r < 0)
		return add_lun(t, lun, LUN_FAILED, "delete-failed", "delete failed: %s",
			       strerror(-r));
	return add_lun(t, lun, LUN_REMOVED, "masked", "%s%s", why,
		       ctx->opt.force ? " (--force)" : "");
}

/*
 * What the ghost check compares a new LUN with: the LUN the target was
 * reached through, and the LUN attached last (so that a target whose LUNs
 * 1-7 are one unit, or whose LUN numbers wrap, shows at once). An
 * investigation (@all) keeps every LUN it saw, so that each repeat is
 * found, not only the first.
 */
struct ghost_watch {
	struct lun_identity ref;
	struct lun_identity prev;
	uint64_t ref_lun;
	uint64_t prev_lun;
	bool has_ref;
	bool has_prev;
	bool prev_partial;
	bool all;
	struct lun_identity *seen;
	uint64_t *seen_lun;
	size_t nseen;
};

/* Investigations of targets with more LUNs compare with the first ones. */
#define GHOST_SEEN_MAX 4096

static int remember(struct ghost_watch *w, const struct lun_identity *id, uint64_t lun)
{
	struct lun_identity *s;
	uint64_t *l;

	if (!w->all || w->nseen == GHOST_SEEN_MAX)
		return 0;
	s = realloc(w->seen, (w->nseen + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	w->seen = s;
	l = realloc(w->seen_lun, (w->nseen + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	w->seen_lun = l;
	w->seen[w->nseen] = *id;
	w->seen_lun[w->nseen++] = lun;
	return 0;
}

/*
 * A LUN's identity from the copies of INQUIRY and VPD pages 0x80 and 0x83
 * the kernel keeps in sysfs (it reads the pages when it attaches a LUN
 * that has them): no command is sent. @pages: which to read (IDENTITY_*);
 * what is read already in @id is not read again.
 */
#define IDENTITY_INQUIRY 1u
#define IDENTITY_VPD80 2u
#define IDENTITY_VPD83 4u
#define IDENTITY_ALL (IDENTITY_INQUIRY | IDENTITY_VPD80 | IDENTITY_VPD83)

static int read_identity(const struct scan_ctx *ctx, const struct scsi_addr *a, unsigned int pages,
			 struct lun_identity *id)
{
	uint8_t *buf;
	char name[32];
	int n, r = 0;

	/* A page whole, however long: a designator past a cut would be missed,
	 * and two LUNs that differ only there taken for one unit. */
	buf = malloc(VPD_PAGE_MAX);
	if (!buf)
		return -ENOMEM;
	scsi_addr_format(a, name, sizeof(name));
	if ((pages & IDENTITY_INQUIRY) && !id->has_inquiry) {
		n = sysfs_read_bin(ctx->sys, buf, VPD_PAGE_MAX, "/sys/bus/scsi/devices/%s/inquiry",
				   name);
		if (n <= 0) {
			r = n < 0 ? n : -ENODATA;
			goto out;
		}
		identity_set_inquiry(id, buf, (size_t)n);
	}
	if ((pages & IDENTITY_VPD80) && !id->has_serial) {
		n = sysfs_read_bin(ctx->sys, buf, VPD_PAGE_MAX, "/sys/bus/scsi/devices/%s/vpd_pg80",
				   name);
		if (n > 0)
			identity_set_vpd80(id, buf, (size_t)n);
	}
	if ((pages & IDENTITY_VPD83) && !id->ndesignators) {
		n = sysfs_read_bin(ctx->sys, buf, VPD_PAGE_MAX, "/sys/bus/scsi/devices/%s/vpd_pg83",
				   name);
		if (n > 0)
			identity_set_vpd83(id, buf, (size_t)n);
	}
out:
	free(buf);
	return r;
}

static int add_ghost(struct target_report *t, uint64_t lun, uint64_t same_as,
		     const struct ghost_evidence *ev)
{
	struct ghost_report *g = realloc(t->ghosts, (t->nghosts + 1) * sizeof(*g));

	if (!g)
		return -ENOMEM;
	t->ghosts = g;
	g = &t->ghosts[t->nghosts++];
	g->lun = lun;
	g->same_as = same_as;
	g->evidence = *ev;
	return 0;
}

/*
 * Judges a LUN this scan has just attached: @o is marked as a ghost when
 * its identity repeats the reference LUN's or the last one's (or, in an
 * investigation, any earlier one's). An identity that cannot be read
 * tells nothing.
 */
/* Whether @id's INQUIRY data equals that of the reference or the last LUN:
 * otherwise its VPD pages cannot change the verdict. */
static bool inquiry_seen(const struct ghost_watch *w, const struct lun_identity *id)
{
	return (w->has_ref && id->inquiry_len == w->ref.inquiry_len &&
		!memcmp(id->inquiry, w->ref.inquiry, id->inquiry_len)) ||
	       (w->has_prev && id->inquiry_len == w->prev.inquiry_len &&
		!memcmp(id->inquiry, w->prev.inquiry, id->inquiry_len));
}

/* Reads of a LUN's identity as few as the verdict allows: VPD 0x83 first,
 * which alone tells apart the LUNs of an array (each its own designator);
 * then INQUIRY; the serial only when both leave a doubt. The last LUN's
 * identity may be partial so: before it is judged against, it is read
 * whole. Return: 1 when the identity read tells @id from both LUNs it is
 * compared with (nothing to judge), 0 when it must be judged, or -errno. */
static int watch_read(const struct scan_ctx *ctx, struct target_report *t, struct ghost_watch *w,
		      uint64_t lun, struct lun_identity *id)
{
	struct scsi_addr a = addr_of(t, lun);
	bool prev_counts = w->has_prev && w->prev_lun != w->ref_lun;
	int r;

	memset(id, 0, sizeof(*id));
	if (w->all || !w->has_ref)
		return read_identity(ctx, &a, IDENTITY_ALL, id);
	r = read_identity(ctx, &a, IDENTITY_VPD83, id);
	if (r < 0)
		return r;
	if (identity_designators_differ(&w->ref, id) &&
	    (!prev_counts || identity_designators_differ(&w->prev, id)))
		return 1;
	if (prev_counts && w->prev_partial) {
		struct scsi_addr pa = addr_of(t, w->prev_lun);

		if (read_identity(ctx, &pa, IDENTITY_ALL, &w->prev) == 0)
			w->prev_partial = false;
	}
	r = read_identity(ctx, &a, IDENTITY_INQUIRY, id);
	if (r < 0)
		return r;
	if (!inquiry_seen(w, id))
		return 1;
	return read_identity(ctx, &a, IDENTITY_VPD80, id);
}

static int watch_ghost(const struct scan_ctx *ctx, struct target_report *t, struct ghost_watch *w,
		       uint64_t lun, struct plan_outcome *o)
{
	struct ghost_evidence ev;
	struct lun_identity id;
	size_t n = w->all ? w->nseen : 2;
	int r;

	r = watch_read(ctx, t, w, lun, &id);
	if (r < 0)
		return 0;
	if (!w->has_ref) {
		w->ref = id;
		w->ref_lun = lun;
		w->has_ref = true;
		return remember(w, &id, lun);
	}
	if (r == 1)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct lun_identity *against = w->all ? &w->seen[i] : i ? &w->prev : &w->ref;
		uint64_t against_lun = w->all ? w->seen_lun[i] : i ? w->prev_lun : w->ref_lun;

		if (!w->all && i == 1 && (!w->has_prev || w->prev_lun == w->ref_lun))
			break;
		ghost_judge(against, &id, &ev);
		t->unknown_identity |= ev.verdict == GHOST_UNKNOWN;
		if (ev.verdict != GHOST_SAME && ev.verdict != GHOST_CONFLICT)
			continue;
		if (add_ghost(t, lun, against_lun, &ev) < 0)
			return -ENOMEM;
		o->ghost = ev.verdict == GHOST_SAME;
		o->ghost_of = against_lun;
		break;
	}
	w->prev = id;
	w->prev_lun = lun;
	w->has_prev = true;
	w->prev_partial = r == 1;
	return remember(w, &id, lun);
}

/*
 * The scan stopped on ghost LUNs: the LUNs it attached, but for the one
 * the target was reached through (@keep), go again when the host's scan
 * is over. Not at once: with one LUN left on the host, every later probe
 * of an empty id would make the kernel switch its tag set between one
 * queue and shared tags, a queue freeze and an RCU grace period each.
 */
static int undo_ghosts(struct host_scan *hs, struct target_report *t, uint64_t keep)
{
	const struct ghost_report *g = &t->ghosts[t->nghosts - 1];

	for (size_t i = 0; i < t->nluns; i++) {
		struct lun_report *l = &t->luns[i];
		struct pending_detach *p;

		if (l->outcome != LUN_ATTACHED || l->lun == keep)
			continue;
		p = realloc(hs->detach, (hs->ndetach + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		hs->detach = p;
		hs->detach[hs->ndetach++] = (struct pending_detach){ t - hs->rep->targets, i };
		l->outcome = LUN_DETACHED;
		l->code = l->lun == g->lun ? "ghost" : "ghost-target";
		if (l->lun == g->lun)
			snprintf(l->reason, sizeof(l->reason), "ghost of LUN %" PRIu64 ": %s",
				 g->same_as, g->evidence.text);
		else
			snprintf(l->reason, sizeof(l->reason),
				 "detached: the target shows ghost LUNs (LUN %" PRIu64
				 " repeats LUN %" PRIu64 ")",
				 g->lun, g->same_as);
	}
	return 0;
}

/*
 * An investigation leaves the host as it found it: what it attached goes
 * again when the host's scan is over.
 */
static int undo_investigation(struct host_scan *hs, struct target_report *t)
{
	for (size_t i = 0; i < t->nluns; i++) {
		struct lun_report *l = &t->luns[i];
		struct pending_detach *p;
		size_t used;

		if (l->outcome != LUN_ATTACHED)
			continue;
		p = realloc(hs->detach, (hs->ndetach + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		hs->detach = p;
		hs->detach[hs->ndetach++] = (struct pending_detach){ t - hs->rep->targets, i };
		l->outcome = LUN_DETACHED;
		used = strlen(l->reason);
		snprintf(l->reason + used, sizeof(l->reason) - used,
			 "%s; attached for the investigation, detached again",
			 used ? "" : "answered");
	}
	return 0;
}

/* The detaches undo_ghosts() and undo_investigation() left for the end of
 * the host's scan. */
static void finish_detaches(struct host_scan *hs)
{
	for (size_t i = 0; i < hs->ndetach; i++) {
		struct target_report *t = &hs->rep->targets[hs->detach[i].target];
		struct lun_report *l = &t->luns[hs->detach[i].line];
		struct scsi_addr a = addr_of(t, l->lun);
		char held[256];
		int r;

		r = hs->ctx->opt.force ? 0 : device_in_use(hs->ctx->sys, &a, held, sizeof(held));
		if (r != 0) {
			l->outcome = LUN_IN_USE;
			snprintf(l->reason, sizeof(l->reason),
				 "the target shows ghost LUNs, but %s: kept (--force deletes it)",
				 held);
			continue;
		}
		r = sysfs_delete(hs->ctx->sys, &a);
		if (r < 0) {
			l->outcome = LUN_FAILED;
			snprintf(l->reason, sizeof(l->reason), "could not detach it again: %s",
				 strerror(-r));
		}
	}
	free(hs->detach);
	hs->detach = NULL;
	hs->ndetach = 0;
}

/* Entries that match LUN 0's wwid or serial are looked at once LUN 0 is
 * attached; without any, its VPD pages are not read. */
static bool db_uses_identity(const struct quirk_db *db)
{
	const struct lunmask_entry *m;
	size_t n;

	m = quirk_db_lunmasks(db, &n);
	for (size_t i = 0; i < n; i++)
		if (lunmask_entry_uses_identity(&m[i]))
			return true;
	return false;
}

static int kernel_attached(struct host_scan *hs, unsigned int c, unsigned int t, uint64_t **ret,
			   size_t *ret_n, bool new_only);

/* What the scan's time bounds leave, in ms, or -1 for none. */
static long long ms_left(const struct host_scan *hs)
{
	const struct scan_options *o = &hs->ctx->opt;
	uint64_t now = now_ms(), end = UINT64_MAX;

	if (o->time_limit && o->deadline_ms < end)
		end = o->deadline_ms;
	if (o->host_timeout && hs->start_ms + (uint64_t)o->host_timeout * 1000 < end)
		end = hs->start_ms + (uint64_t)o->host_timeout * 1000;
	if (o->target_timeout && hs->target_start_ms + (uint64_t)o->target_timeout * 1000 < end)
		end = hs->target_start_ms + (uint64_t)o->target_timeout * 1000;
	if (end == UINT64_MAX)
		return -1;
	return end > now ? (long long)(end - now) : 0;
}

/* One kernel target scan for the rest of the list (plan_batch()): what it
 * attached is the kernel's, taken or undone LUN by LUN as the plan walks
 * the list. A write that fails leaves the walk to do it all. */
static int batch_write(struct host_scan *hs, struct target_report *t, const char *why)
{
	uint64_t *luns = NULL;
	size_t n = 0;
	int r;

	if (host_scan_write(hs, t->addr.channel, t->addr.id, UINT64_MAX) < 0)
		return 0;
	r = kernel_attached(hs, t->addr.channel, t->addr.id, &luns, &n, true);
	if (r < 0)
		return r;
	/* Only what the kernel's scan added: not what this scan attached. */
	for (size_t i = 0; i < n;) {
		bool ours = luns[i] == t->probe_lun;

		for (size_t k = 0; k < t->nluns && !ours; k++)
			ours = t->luns[k].lun == luns[i];
		if (ours)
			memmove(&luns[i], &luns[i + 1], (--n - i) * sizeof(*luns));
		else
			i++;
	}
	t->kernel_kept = calloc(n ? n : 1, sizeof(*t->kernel_kept));
	if (!t->kernel_kept) {
		free(luns);
		return -ENOMEM;
	}
	t->kernel_luns = luns;
	t->nkernel_luns = n;
	t->batched = true;
	snprintf(t->batch_reason, sizeof(t->batch_reason), "%s", why);
	slog(hs->ctx, LOG_DEBUG, "%u:%u:%u: %s: %zu attached", t->addr.host, t->addr.channel,
	     t->addr.id, why, n);
	return 0;
}

/* A probe of the plan; for a listed LUN, first whether the rest of the list
 * goes to one kernel target scan, and how long each probe takes. */
static int probe_listed(struct host_scan *hs, struct target_report *t, struct plan *p,
			const struct plan_action *a, struct plan_batch_input *batch,
			struct plan_outcome *o)
{
	char why[PLAN_REASON_LEN];
	size_t writes;
	uint64_t start;
	int r;

	if (strcmp(a->code, "listed") != 0)
		return apply_probe(hs, t, a->lun, a->code, a->reason, o);
	batch->ms_left = ms_left(hs);
	if (plan_batch(p, batch, why)) {
		r = batch_write(hs, t, why);
		if (r < 0)
			return r;
	}
	writes = hs->target_writes;
	start = now_ms();
	r = apply_probe(hs, t, a->lun, a->code, a->reason, o);
	if (r == 0 && hs->target_writes != writes && o->kind == PLAN_OUT_PRESENT) {
		uint64_t ms = now_ms() - start;

		batch->probed++;
		if (ms > batch->slowest_ms)
			batch->slowest_ms = ms;
	}
	return r;
}

/*
 * One target, whose LUN @probe_lun is attached. @temporary: this scan
 * attached @probe_lun only to reach the target (REPORT LUNS well-known
 * LUN) and deletes it at the end. @lun0_new: LUN 0 was attached by this
 * scan (so attach = false may take it away again).
 */
static int scan_target(struct host_scan *hs, struct target_report *t, const struct selector *sel,
		       bool temporary, bool lun0_new)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct scsi_addr pa = addr_of(t, t->probe_lun);
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_input in = { 0 };
	struct plan_action a;
	char node[PATH_MAX], why[PLAN_REASON_LEN];
	const char *method_reason;
	struct plan_reach_fate fate;
	char refusal[PLAN_REASON_LEN], mask_why[PLAN_REASON_LEN];
	struct lunmask_verdict v0;
	struct ghost_watch gw = { 0 };
	struct plan_batch_input batch = { 0 };
	struct plan p;
	int fd = -1, r;

	if (sysfs_device_node(ctx->sys, &pa, node, sizeof(node)) == 0 && sgio_open(node, &fd) < 0)
		fd = -1;
	r = probe_inquiry(hs, t, fd);
	if (r < 0)
		goto out;
	if (t->probe_lun == 0 && db_uses_identity(ctx->db)) {
		r = select_mask(hs, t->addr.channel, t->addr.id, true, &t->mask, t->policy,
				sizeof(t->policy));
		if (r == -ENOTUNIQ) {
			target_fail(t, "%s", NOT_ONE_POLICY);
			r = 0;
			goto out;
		}
		if (r < 0)
			goto out;
	}
	lunmask_decide(&t->mask, 0, &v0);
	if (!v0.allowed)
		lunmask_describe(&v0, 0, mask_why, sizeof(mask_why));
	in.mask = &t->mask;
	in.scsi_level = t->inq.scsi_level;
	in.flags = t->match.flags;
	in.max_lun = t->match.max_lun;
	in.attach = t->target_attach;
	in.max_luns = hs->max_luns;
	in.driver = hs->driver[0] ? hs->driver : NULL;
	in.has_only_lun = sel->lun_set;
	in.only_lun = sel->lun;
	in.probe_lun = t->probe_lun;
	in.attach_ghosts = ctx->opt.attach_ghosts || ctx->opt.investigate;
	in.investigate = ctx->opt.investigate;
	in.lun0_present =
		t->probe_lun == 0 ||
		sysfs_device_exists(ctx->sys, &(struct scsi_addr){ t->addr.host, t->addr.channel,
								   t->addr.id, 0 });

	if (!t->match.attach)
		refusal_reason(refusal, sizeof(refusal), &t->inq, &t->match);
	plan_reach_fate(&(struct plan_reach_input){ .probe_lun = t->probe_lun,
						    .temporary = temporary,
						    .lun0_new = lun0_new,
						    .attach = in.attach,
						    .lun0_attach = t->match.attach,
						    .refusal = refusal,
						    .has_only_lun = sel->lun_set,
						    .only_lun = sel->lun },
			&fate);
	if (!in.attach) {
		snprintf(t->end_reason, sizeof(t->end_reason),
			 "attach = false in the quirk database: no LUN is attached");
		t->end_code = "attach-false";
		if (fate.detach)
			r = detach(hs, t, t->probe_lun, fate.code, fate.reason);
		if (r == 0)
			r = undo_kernel_luns(hs, t);
		goto out;
	}
	if (in.lun0_present && t->probe_lun == 0 && !v0.allowed)
		r = masked_lun(hs, t, 0, mask_why);
	else if (in.lun0_present && t->probe_lun == 0 && !fate.detach)
		r = add_lun(t, 0, lun0_new ? LUN_ATTACHED : LUN_PRESENT,
			    lun0_new ? "lun0" : "already-attached", "%s",
			    lun0_new ? "LUN 0: the target answered"
				     : "already attached; left alone");
	if (r < 0)
		goto out;
	if (fate.reach[0])
		snprintf(t->reach_reason, sizeof(t->reach_reason), "%s", fate.reach);

	gw.all = ctx->opt.investigate;
	if (!temporary && !ctx->opt.dry_run &&
	    read_identity(ctx, &pa, IDENTITY_ALL, &gw.ref) == 0) {
		gw.ref_lun = t->probe_lun;
		gw.has_ref = true;
		r = remember(&gw, &gw.ref, gw.ref_lun);
		if (r < 0)
			goto out;
	}
	batch.through_lun0 =
		t->probe_lun == 0 && in.lun0_present && !fate.detach && !t->nkernel_luns;
	batch.dry_run = ctx->opt.dry_run;
	batch.per_lun_refusal = quirk_db_refuses_per_lun(ctx->db);
	plan_init(&p, &in);
	for (;;) {
		r = plan_step(&p, &o, &a);
		if (r < 0)
			break;
		memset(&o, 0, sizeof(o));
		if (a.kind == PLAN_DONE) {
			snprintf(t->end_reason, sizeof(t->end_reason), "%s", a.reason);
			t->end_code = a.code;
			if (a.ghosts) {
				t->ghost_stop = true;
				t->ghost_kept = gw.ref_lun;
				r = undo_ghosts(hs, t, gw.ref_lun);
			}
			break;
		}
		if (a.kind == PLAN_REPORT_LUNS)
			r = apply_report_luns(hs, t, fd, &o, why, sizeof(why));
		else if (a.kind == PLAN_SKIP && a.masked)
			r = masked_lun(hs, t, a.lun, a.reason);
		else if (a.kind == PLAN_SKIP)
			r = add_lun(t, a.lun, LUN_SKIPPED, a.code, "%s", a.reason);
		else if (fate.detach && a.lun == t->probe_lun)
			o.kind = PLAN_OUT_PRESENT;
		else
			r = probe_listed(hs, t, &p, &a, &batch, &o);
		if (r == 0 && o.kind == PLAN_OUT_PRESENT && t->nluns &&
		    t->luns[t->nluns - 1].lun == a.lun &&
		    (t->luns[t->nluns - 1].outcome == LUN_ATTACHED ||
		     (ctx->opt.investigate && t->luns[t->nluns - 1].outcome == LUN_PRESENT)))
			r = watch_ghost(ctx, t, &gw, a.lun, &o);
		if (r == -ENOTCONN) {
			r = 0;
			break;
		}
		if (r < 0)
			break;
		r = scan_bound(hs);
		if (r < 0) {
			target_fail(t, "%s", hs->stop_reason);
			r = r == -ECANCELED ? r : 0;
			break;
		}
	}
	t->method = plan_method(&p, &method_reason, &t->method_code);
	snprintf(t->method_reason, sizeof(t->method_reason), "%s", method_reason);
	plan_free(&p);
	if (r == 0 && ctx->opt.remove && t->method == PLAN_METHOD_REPORT_LUNS && t->report_read)
		r = remove_unlisted(hs, t);
	{
		/* Even a stopped scan takes back what the kernel attached against
		 * the database. */
		int r2 = undo_kernel_luns(hs, t);

		if (r == 0)
			r = r2;
	}
	if (ctx->opt.investigate && !ctx->opt.dry_run && r == 0)
		r = undo_investigation(hs, t);
	if (fate.detach) {
		int r2 = detach(hs, t, t->probe_lun, fate.code, fate.reason);

		if (r == 0)
			r = r2;
	}
out:
	free(gw.seen);
	free(gw.seen_lun);
	sgio_close(fd);
	return r == -ENOMEM || r == -ECANCELED ? r : 0;
}

static bool any_lun_of(const struct scsi_addr *addrs, size_t n, unsigned int channel,
		       unsigned int id, uint64_t *ret_lun)
{
	for (size_t i = 0; i < n; i++)
		if (addrs[i].channel == channel && addrs[i].id == id) {
			*ret_lun = addrs[i].lun;
			return true;
		}
	return false;
}

/* The LUNs of one target attached now, in LUN order. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The LUNs of @c, @t attached now, sorted; with @new_only, without those
 * attached when the host's scan started. */
static int kernel_attached(struct host_scan *hs, unsigned int c, unsigned int t, uint64_t **ret,
			   size_t *ret_n, bool new_only)
{
	struct scsi_addr *addrs = NULL;
	uint64_t *luns = NULL;
	size_t n = 0, count = 0;
	int r;

	r = sysfs_devices(hs->ctx->sys, (int)hs->host, &addrs, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		uint64_t *p;

		if (addrs[i].channel != c || addrs[i].id != t ||
		    (new_only && attached_before(hs, &addrs[i])))
			continue;
		p = realloc(luns, (count + 1) * sizeof(*p));
		if (!p) {
			free(luns);
			free(addrs);
			return -ENOMEM;
		}
		luns = p;
		luns[count++] = addrs[i].lun;
	}
	free(addrs);
	if (count > 1)
		qsort(luns, count, sizeof(*luns), cmp_u64);
	*ret = luns;
	*ret_n = count;
	return 0;
}

/* A target report for @c, @t with how discovery found it. */
static struct target_report *found_target(struct host_scan *hs, unsigned int c, unsigned int t,
					  const struct discover_action *why)
{
	struct target_report *tr = new_target(hs->rep, c, t);

	if (tr && why) {
		snprintf(tr->found_reason, sizeof(tr->found_reason), "%s", why->reason);
		tr->found_code = why->listed ? "listed" : "probed";
	}
	return tr;
}

/* One write of the reach machine, and what came of it. */
static void reach_write(struct host_scan *hs, unsigned int c, unsigned int t,
			const struct reach_action *ra, uint64_t **kluns, size_t *nkluns,
			struct reach_outcome *o)
{
	struct scsi_addr a = { hs->host, c, t, ra->lun };
	int r = host_scan_write(hs, c, t, ra->lun);

	memset(o, 0, sizeof(*o));
	o->max_lun_ok = hs->max_lun_ok;
	if (r == -EINVAL) {
		o->kind = REACH_OUT_EINVAL;
	} else if (r < 0) {
		o->kind = REACH_OUT_ERROR;
		o->error = r;
		o->stopped = is_stop(r);
	} else if (ra->kernel_scan) {
		o->kind = REACH_OUT_EMPTY;
		free(*kluns);
		*kluns = NULL;
		*nkluns = 0;
		r = kernel_attached(hs, c, t, kluns, nkluns, false);
		if (r < 0) {
			o->kind = REACH_OUT_ERROR;
			o->error = r;
		} else if (*nkluns) {
			o->kind = REACH_OUT_ATTACHED;
			o->lun = (*kluns)[0];
		}
	} else {
		o->kind = sysfs_device_exists(hs->ctx->sys, &a) ? REACH_OUT_ATTACHED
								: REACH_OUT_EMPTY;
	}
}

/* Finds one target and scans it: reach_step() decides how the target is
 * reached, this carries it out. Return: 1 found (or listed by the
 * topology, and reported either way), 0 nothing there, -EINVAL the id or
 * channel is past the host's limits, -ECANCELED the host's scan must
 * stop, other errors. */
static int try_target(struct host_scan *hs, const struct discover_action *da,
		      const struct selector *sel, const struct scsi_addr *before, size_t nbefore)
{
	const struct scan_ctx *ctx = hs->ctx;
	unsigned int c = da->channel, t = da->id;
	struct scsi_addr a = { hs->host, c, t, 0 };
	struct reach_input in = { .dry_run = ctx->opt.dry_run,
				  .listed = da->listed,
				  .wlun_impossible = hs->wlun_impossible };
	struct reach_outcome o = { .kind = REACH_OUT_NONE, .max_lun_ok = -1 };
	struct lunmask_verdict v0, vw, vs;
	struct lunmask_set mask = { 0 };
	struct target_report *tr;
	struct reach_action ra;
	char policy[sizeof(tr->policy)], lun0_why[PLAN_REASON_LEN] = "", why[PLAN_REASON_LEN];
	uint64_t *kluns = NULL;
	size_t nkluns = 0;
	struct reach rs;
	int r;

	hs->target_start_ms = now_ms();
	hs->target_writes = 0;
	r = select_mask(hs, c, t, false, &mask, policy, sizeof(policy));
	if (r == -ENOTUNIQ) {
		tr = found_target(hs, c, t, da);
		if (!tr)
			return -ENOMEM;
		target_fail(tr, "%s", NOT_ONE_POLICY);
		return 1;
	}
	if (r < 0)
		return r;
	in.other_attached = any_lun_of(before, nbefore, c, t, &in.other_lun);
	in.lun0_attached = sysfs_device_exists(ctx->sys, &a);
	lunmask_decide(&mask, 0, &v0);
	in.lun0_allowed = v0.allowed;
	if (!v0.allowed)
		lunmask_describe(&v0, 0, lun0_why, sizeof(lun0_why));
	in.lun0_why = lun0_why;
	in.allowed = lunmask_next_allowed(&mask, UINT64_MAX, &in.first_allowed);
	in.mask = &mask;
	in.restricts = lunmask_restricts(&mask);
	/* The well-known LUN is no unit an upper-level driver takes: allow
	 * lists do not keep it out, an explicit exclusion does. */
	lunmask_decide(&mask, LUN_WLUN_REPORT_LUNS, &vw);
	in.wlun_excluded = vw.rule == LUNMASK_EXCLUDED;
	if (sel->lun_set) {
		lunmask_decide(&mask, sel->lun, &vs);
		a.lun = sel->lun;
		in.selected_refused = !vs.allowed && !sysfs_device_exists(ctx->sys, &a);
	}
	reach_init(&rs, &in);
	for (;;) {
		reach_step(&rs, &o, &ra);
		if (ra.wlun_impossible && !hs->wlun_impossible) {
			hs->wlun_impossible = true;
			snprintf(hs->rep->notes, sizeof(hs->rep->notes),
				 "the host's LUN limit is below the REPORT LUNS well-known LUN "
				 "(49409): a target without LUN 0 is scanned by the kernel, then "
				 "the quirk database applied");
		}
		if (ra.kind != REACH_WRITE)
			break;
		reach_write(hs, c, t, &ra, &kluns, &nkluns, &o);
	}
	if (ra.kind != REACH_FOUND) {
		free(kluns);
		lunmask_set_clear(&mask);
	}
	switch (ra.kind) {
	case REACH_NONE:
		return 0;
	case REACH_LIMIT:
		return -EINVAL;
	case REACH_ABORT:
		return ra.error;
	case REACH_REPORT:
		tr = found_target(hs, c, t, da);
		if (!tr)
			return -ENOMEM;
		snprintf(tr->policy, sizeof(tr->policy), "%s", policy);
		tr->end_code = ra.code;
		if (strcmp(ra.code, "selected-refused") == 0) {
			lunmask_describe(&vs, sel->lun, why, sizeof(why));
			snprintf(tr->end_reason, sizeof(tr->end_reason),
				 "only LUN %" PRIu64 " selected, and the policy refuses it",
				 sel->lun);
			return add_lun(tr, sel->lun, LUN_SKIPPED, "masked", "%s", why) < 0 ? -ENOMEM
											   : 1;
		}
		if (strcmp(ra.code, "stopped") == 0)
			target_fail(tr, "%s", hs->stop_reason);
		else if (ra.failed)
			target_fail(tr, "%s", ra.reason);
		else
			snprintf(tr->end_reason, sizeof(tr->end_reason), "%s", ra.reason);
		return ra.error == -ECANCELED ? -ECANCELED : 1;
	default:
		break;
	}
	tr = found_target(hs, c, t, da);
	if (!tr) {
		free(kluns);
		lunmask_set_clear(&mask);
		return -ENOMEM;
	}
	tr->mask = mask;
	tr->probe_new = ra.probe_new;
	tr->reach_code = ra.code;
	snprintf(tr->policy, sizeof(tr->policy), "%s", policy);
	snprintf(tr->reach_reason, sizeof(tr->reach_reason), "%s", ra.reason);
	tr->probe_lun = ra.lun;
	if (ra.kernel_luns) {
		tr->kernel_luns = kluns;
		tr->nkernel_luns = nkluns;
		tr->kernel_kept = calloc(nkluns, sizeof(*tr->kernel_kept));
		if (!tr->kernel_kept)
			return -ENOMEM;
	} else {
		free(kluns);
	}
	r = scan_target(hs, tr, sel, ra.temporary, ra.lun0_new);
	slog(ctx, LOG_DEBUG, "%u:%u:%u: %s%s%s", hs->host, c, t,
	     tr->failed ? "failed: " : "scanned: ", tr->failed ? tr->error : tr->end_reason,
	     tr->reach_reason[0] ? " (reached: see explain)" : "");
	return r < 0 ? r : 1;
}

/* Dry run: only targets that have an attached LUN, and the topology's
 * unreachable ones, are looked at. */
static int dry_run_host(struct host_scan *hs, const struct selector *sel,
			const struct discover_target *listed, size_t nlisted)
{
	const struct scsi_addr *before = hs->before;
	int r = 0;

	for (size_t i = 0; i < hs->nbefore; i++) {
		struct discover_action da = { .kind = DISCOVER_TRY };
		struct target_report *tr;

		if (i > 0 && before[i].channel == before[i - 1].channel &&
		    before[i].id == before[i - 1].id)
			continue;
		if ((sel->channel != SCAN_WILDCARD &&
		     before[i].channel != (unsigned)sel->channel) ||
		    (sel->id != SCAN_WILDCARD && before[i].id != (unsigned)sel->id))
			continue;
		snprintf(da.reason, sizeof(da.reason), "a LUN of it is attached (dry run)");
		for (size_t k = 0; k < nlisted; k++)
			if (listed[k].has_id && listed[k].channel == before[i].channel &&
			    listed[k].id == before[i].id)
				snprintf(da.reason, sizeof(da.reason), "listed by %s %s (%s)",
					 listed[k].name, listed[k].address, listed[k].state);
		tr = found_target(hs, before[i].channel, before[i].id, &da);
		if (!tr)
			return -ENOMEM;
		tr->probe_lun = before[i].lun;
		r = select_mask(hs, tr->addr.channel, tr->addr.id, false, &tr->mask, tr->policy,
				sizeof(tr->policy));
		if (r == -ENOTUNIQ) {
			target_fail(tr, "%s", NOT_ONE_POLICY);
			continue;
		}
		if (r < 0)
			return r;
		hs->target_start_ms = now_ms();
		r = scan_target(hs, tr, sel, false, false);
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < nlisted; k++) {
		const struct discover_target *lt = &listed[k];
		struct target_report *tr;

		if (!lt->is_target || !lt->has_id || lt->reachable ||
		    (sel->channel != SCAN_WILDCARD && lt->channel != (unsigned)sel->channel) ||
		    (sel->id != SCAN_WILDCARD && lt->id != (unsigned)sel->id))
			continue;
		tr = new_target(hs->rep, lt->channel, lt->id);
		if (!tr)
			return -ENOMEM;
		target_fail(tr, "listed by %s %s, but its state is %s: not reachable", lt->name,
			    lt->address, lt->state);
	}
	return 0;
}

static int scan_host(const struct scan_ctx *ctx, unsigned int host, const struct selector *sel,
		     struct host_report *rep)
{
	struct host_scan hs = {
		.ctx = ctx, .rep = rep, .host = host, .scan_fd = -1, .max_lun_ok = -1
	};
	enum discover_outcome out = DISCOVER_OUT_NONE;
	struct discover_target *listed = NULL;
	struct scsi_addr *before = NULL;
	struct discover_action da;
	struct discover d;
	size_t nbefore = 0, nlisted = 0;
	char proc_name[64];
	int r;

	hs.start_ms = hs.target_start_ms = now_ms();
	if (sysfs_module_param(ctx->sys, "scsi_mod", "max_luns", &hs.max_luns) < 0)
		hs.max_luns = DEFAULT_MAX_LUNS;
	if (sysfs_read(ctx->sys, proc_name, sizeof(proc_name),
		       "/sys/class/scsi_host/host%u/proc_name", host) > 0) {
		hs.usb = strcmp(proc_name, "usb-storage") == 0 || strcmp(proc_name, "uas") == 0;
		snprintf(hs.driver, sizeof(hs.driver), "%s", proc_name);
	}
	if (sysfs_read(ctx->sys, hs.host_port_name, sizeof(hs.host_port_name),
		       "/sys/class/fc_host/host%u/port_name", host) < 0)
		hs.host_port_name[0] = '\0';
	r = topology_read(ctx->sys, host, &rep->transport, &listed, &nlisted);
	if (r < 0)
		return r;
	hs.listed = listed;
	hs.nlisted = nlisted;
	r = sysfs_devices(ctx->sys, (int)host, &before, &nbefore);
	if (r < 0)
		goto out;
	hs.before = before;
	hs.nbefore = nbefore;
	if (ctx->opt.dry_run) {
		snprintf(rep->discovery, sizeof(rep->discovery),
			 "transport %s; dry run: only targets with an attached LUN are looked at",
			 discover_transport_name(rep->transport));
		r = dry_run_host(&hs, sel, listed, nlisted);
		goto out;
	}
	discover_init(&d, &(struct discover_input){ .transport = rep->transport,
						    .targets = listed,
						    .ntargets = nlisted,
						    .channel = sel->channel,
						    .id = sel->id });
	for (;;) {
		discover_step(&d, out, &da);
		out = DISCOVER_OUT_NONE;
		if (da.kind == DISCOVER_DONE) {
			snprintf(rep->discovery, sizeof(rep->discovery), "%s", da.reason);
			slog(ctx, LOG_DEBUG, "host%u: targets: %s", host, da.reason);
			if (da.failed) {
				rep->failed = true;
				snprintf(rep->error, sizeof(rep->error), "%s", da.reason);
			}
			break;
		}
		r = scan_bound(&hs);
		if (r == -ECANCELED)
			break;
		r = 0;
		if (da.kind == DISCOVER_FAIL) {
			struct target_report *tr = found_target(&hs, da.channel, da.id, NULL);

			if (!tr) {
				r = -ENOMEM;
				break;
			}
			target_fail(tr, "%s", da.reason);
			tr->retry_later = true;
			continue;
		}
		r = try_target(&hs, &da, sel, before, nbefore);
		if (r == -EINVAL) {
			out = DISCOVER_OUT_LIMIT;
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		out = r ? DISCOVER_OUT_FOUND : DISCOVER_OUT_EMPTY;
		r = 0;
	}
	if (r == -ECANCELED) {
		rep->failed = true;
		snprintf(rep->error, sizeof(rep->error), "%s", hs.stop_reason);
		snprintf(rep->discovery, sizeof(rep->discovery), "%s", hs.stop_reason);
		/* Only a cancellation stops the other hosts too. */
		if (!ctx->cancel || !atomic_load(ctx->cancel))
			r = 0;
	}
out:
	finish_detaches(&hs);
	if (hs.scan_fd >= 0)
		close(hs.scan_fd);
	free(before);
	free(listed);
	return r;
}

/* --wait within the run's time limit: a host held past it fails. */
static int take_host_lock(const struct scan_ctx *ctx, unsigned int host, int *ret_fd)
{
	int r;

	if (!ctx->opt.lock_wait || !ctx->opt.time_limit)
		return host_lock(ctx->sys, host, ctx->opt.lock_wait, ret_fd);
	for (;;) {
		r = host_lock(ctx->sys, host, false, ret_fd);
		if (r != -EWOULDBLOCK || now_ms() >= ctx->opt.deadline_ms)
			return r;
		if (ctx->cancel && atomic_load(ctx->cancel))
			return r;
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
}

int scan_selected(const struct scan_ctx *ctx, const struct selector *sel, struct scan_report *rep)
{
	unsigned int *hosts = NULL;
	size_t n = 0;
	int r = 0;

	/* One host asked for: the others are not even listed. */
	if (sel->host != SCAN_WILDCARD) {
		if (!sysfs_host_exists(ctx->sys, (unsigned int)sel->host))
			return -ENODEV;
		hosts = malloc(sizeof(*hosts));
		if (!hosts)
			return -ENOMEM;
		hosts[0] = (unsigned int)sel->host;
		n = 1;
	} else {
		r = sysfs_hosts(ctx->sys, &hosts, &n);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < n; i++) {
		struct host_report *h = realloc(rep->hosts, (rep->nhosts + 1) * sizeof(*h));
		int lock = -1;

		if (!h) {
			r = -ENOMEM;
			break;
		}
		rep->hosts = h;
		h = &rep->hosts[rep->nhosts++];
		memset(h, 0, sizeof(*h));
		h->host = hosts[i];
		if (ctx->opt.time_limit && now_ms() >= ctx->opt.deadline_ms) {
			h->failed = true;
			snprintf(h->error, sizeof(h->error),
				 "not scanned: the run reached its time limit of %u s",
				 ctx->opt.time_limit);
			continue;
		}
		if (!ctx->opt.dry_run) {
			r = take_host_lock(ctx, hosts[i], &lock);
			if (r < 0) {
				h->failed = true;
				snprintf(
					h->error, sizeof(h->error), "%s",
					r == -EWOULDBLOCK
						? "another scan of this host is running (lock held)"
						: "cannot take the host lock");
				if (r != -EWOULDBLOCK)
					snprintf(h->error + strlen(h->error),
						 sizeof(h->error) - strlen(h->error), ": %s",
						 strerror(-r));
				r = 0;
				continue;
			}
		}
		r = scan_host(ctx, hosts[i], sel, h);
		if (lock >= 0)
			close(lock);
		if (r == -ENOMEM || r == -ECANCELED)
			break;
		if (r < 0) {
			h->failed = true;
			snprintf(h->error, sizeof(h->error), "%s", strerror(-r));
			r = 0;
		}
	}
	free(hosts);
	return r;
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
		return l->code && strcmp(l->code, "listed") == 0;
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

		for (size_t k = 0; k < h->ntargets; k++) {
			quirk_match_clear(&h->targets[k].match);
			lunmask_set_clear(&h->targets[k].mask);
			free(h->targets[k].luns);
			free(h->targets[k].reported);
			free(h->targets[k].kernel_luns);
			free(h->targets[k].kernel_kept);
			free(h->targets[k].ghosts);
		}
		free(h->targets);
	}
	free(rep->hosts);
	rep->hosts = NULL;
	rep->nhosts = 0;
}
