// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine.c - the daemon's engine: per-host waiting work, the worker pool,
 * the shared quirk database, retries and cancellation.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "blist.h"
#include "engine.h"
#include "holdout.h"
#include "inquiry.h"
#include "output.h"
#include "paths.h"
#include "recover.h"
#include "resize.h"
#include "scan.h"
#include "sgio.h"
#include "topology.h"

/* A scan's deepest frames hold a few PATH_MAX buffers; 256 KiB is ample,
 * and smaller cached stacks keep the daemon's memory down. */
#define WORKER_STACK (256 * 1024)
/* Bound on multipathd's resize of a map. */
#define MAP_TOOL_TIMEOUT 30

struct host_state {
	unsigned int host;
	bool present;
	bool running;
	bool queued;
	struct host_work work;
	unsigned long scans;
	/* the LUNs its last scan attached: their add events are its own */
	struct scsi_addr *recent;
	size_t nrecent;
	uint64_t retry_at;
	bool retry_scan;
	unsigned int retries;
	/* the targets its transport listed but could not reach at the last
	 * watch (engine_watch_paths()) */
	struct scsi_addr *lost;
	size_t nlost;
	struct host_state *next;
};

/* What a worker tells the main thread when its scan ends. */
struct job_done {
	unsigned int host;
	bool retry;
	struct scsi_addr *attached;
	size_t nattached;
};

struct job {
	struct engine *e;
	unsigned int host;
	struct host_work work;
	struct quirk_db *db;
};

struct engine {
	struct sysfs_ctx *sys;
	struct engine_options opt;
	engine_log_fn log_fn;
	void *log_data;
	struct quirk_db *db;
	struct quirk_cache *cache;
	pthread_mutex_t db_lock;
	/* a detached volume is held out (under db_lock) */
	bool holdouts;
	/* LUNs that were offline when their path went away (under db_lock):
	 * the path's return leaves them so */
	struct scsi_addr *offline_before;
	size_t noffline_before;
	struct host_state *hosts;
	unsigned int running;
	int done_pipe[2];
	int timer_fd;
	atomic_bool stopping;
	unsigned long scans;
	unsigned long events;
	/* where the next poll of empty targets starts */
	size_t poll_next;
	bool poll_next_set;
};

static void elog(struct engine *e, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void elog(struct engine *e, int prio, const char *fmt, ...)
{
	va_list ap;

	if (!e->log_fn)
		return;
	va_start(ap, fmt);
	e->log_fn(e->log_data, prio, fmt, ap);
	va_end(ap);
}

struct engine *engine_new(struct sysfs_ctx *sys, const struct engine_options *opt)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->sys = sys;
	e->opt = *opt;
	e->done_pipe[0] = e->done_pipe[1] = e->timer_fd = -1;
	pthread_mutex_init(&e->db_lock, NULL);
	e->cache = quirk_cache_new();
	e->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!e->cache || e->timer_fd < 0 || pipe2(e->done_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		int err = errno ? errno : ENOMEM;

		engine_unref(e);
		errno = err;
		return NULL;
	}
	e->holdouts = holdout_any(sys);
	return e;
}

struct engine *engine_unref(struct engine *e)
{
	if (!e)
		return NULL;
	/* Workers still inside a kernel write use the engine: leave it. */
	if (e->running)
		return NULL;
	while (e->hosts) {
		struct host_state *h = e->hosts;

		e->hosts = h->next;
		free(h->recent);
		free(h->lost);
		free(h);
	}
	quirk_db_unref(e->db);
	quirk_cache_free(e->cache);
	free(e->offline_before);
	for (int i = 0; i < 2; i++)
		if (e->done_pipe[i] >= 0)
			close(e->done_pipe[i]);
	if (e->timer_fd >= 0)
		close(e->timer_fd);
	pthread_mutex_destroy(&e->db_lock);
	free(e);
	return NULL;
}

void engine_set_log_fn(struct engine *e, engine_log_fn fn, void *data)
{
	e->log_fn = fn;
	e->log_data = data;
}

int engine_load_db(struct engine *e, const char *const *dirs, size_t ndirs, bool reload)
{
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = NULL, *old;
	int r;

	r = quirk_db_load_cached(dirs, ndirs, e->cache, &diags, &db);
	for (size_t i = 0; i < diags.count; i++) {
		const struct quirk_diag *q = &diags.items[i];
		/* Warnings are for maintainers (scsi-quirks check shows them). */
		int prio = q->severity == QUIRK_ERROR	 ? LOG_ERR
			   : q->severity == QUIRK_NOTICE ? LOG_WARNING
							 : LOG_DEBUG;

		if (q->line)
			elog(e, prio, "quirks: %s:%u: %s", q->file, q->line, q->message);
		else
			elog(e, prio, "quirks: %s: %s", q->file, q->message);
	}
	quirk_diags_clear(&diags);
	if (r < 0) {
		elog(e, LOG_ERR, "quirks: cannot load the database (%s)%s", strerror(-r),
		     reload ? "; keeping the previous one" : "");
		return r;
	}
	pthread_mutex_lock(&e->db_lock);
	old = e->db;
	e->db = db;
	pthread_mutex_unlock(&e->db_lock);
	quirk_db_unref(old);
	elog(e, reload ? LOG_NOTICE : LOG_INFO, "quirks: %s %zu entries",
	     reload ? "reloaded" : "loaded", quirk_db_count(db));
	return 0;
}

static struct host_state *host_find(struct engine *e, unsigned int host)
{
	for (struct host_state *h = e->hosts; h; h = h->next)
		if (h->host == host)
			return h;
	return NULL;
}

static struct host_state *host_get(struct engine *e, unsigned int host)
{
	struct host_state *h = host_find(e, host);

	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->host = host;
	h->next = e->hosts;
	e->hosts = h;
	return h;
}

/* A host that went away keeps no state, unless a worker still runs for it
 * (then it goes when the worker ends). */
static void host_forget(struct engine *e, struct host_state *h)
{
	struct host_state **pp;

	if (h->running || h->present || host_work_pending(&h->work))
		return;
	for (pp = &e->hosts; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
			free(h->recent);
			free(h->lost);
			free(h);
			return;
		}
	}
}

static void quirk_text(const struct quirk_match *m, char *buf, size_t len)
{
	char flags[256];
	size_t used;

	if (!m->count) {
		snprintf(buf, len, "no quirks");
		return;
	}
	if (blist_flags_format(m->flags, ",", flags, sizeof(flags)) < 0 || !flags[0])
		snprintf(flags, sizeof(flags), "-");
	used = (size_t)snprintf(buf, len, "quirks %s%s%s from", flags,
				m->attach ? "" : ", attach=false",
				m->max_lun >= 0 ? ", max_lun" : "");
	for (size_t i = 0; i < m->count && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, " %s:%u", m->sources[i]->file,
					 m->sources[i]->line);
}

static void log_ghosts(struct engine *e, const struct target_report *t)
{
	for (size_t g = 0; g < t->nghosts; g++) {
		const struct ghost_report *gr = &t->ghosts[g];
		char kept[128] = "";

		if (t->ghost_stop)
			snprintf(kept, sizeof(kept),
				 "; only LUN %" PRIu64 " of the target kept (see scsi-quirks "
				 "suggest, or --attach-ghosts)",
				 t->ghost_kept);
		elog(e, t->ghost_stop ? LOG_ERR : LOG_WARNING,
		     "%u:%u:%u:%" PRIu64 ": %s LUN %" PRIu64 " (%s): %s%s", t->addr.host,
		     t->addr.channel, t->addr.id, gr->lun,
		     gr->evidence.verdict == GHOST_SAME ? "ghost of" : "same name as", gr->same_as,
		     gr->evidence.rule, gr->evidence.text, kept);
	}
}

/* One line per decision a person wants: per target what was attached, with
 * vendor, model and the quirk sources; failures with the sense decoded. */
static void log_report(struct engine *e, const struct scan_report *rep)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		const struct host_report *h = &rep->hosts[i];

		if (h->failed)
			elog(e, LOG_ERR, "host%u: scan failed: %s", h->host, h->error);
		if (h->notes[0])
			elog(e, LOG_DEBUG, "host%u: %s", h->host, h->notes);
		for (size_t k = 0; k < h->ntargets; k++) {
			const struct target_report *t = &h->targets[k];
			char v[64], m[80], q[1024], luns[512];

			if (t->failed) {
				elog(e, LOG_ERR, "%u:%u:%u: scan failed: %s", t->addr.host,
				     t->addr.channel, t->addr.id, t->error);
				continue;
			}
			quirk_text(&t->match, q, sizeof(q));
			output_lun_ranges(t, LUN_ATTACHED, luns, sizeof(luns));
			if (luns[0])
				elog(e, LOG_INFO, "%u:%u:%u: attached LUN %s of '%s' '%s' (%s, %s)",
				     t->addr.host, t->addr.channel, t->addr.id, luns,
				     output_escape(t->inq.vendor, v, sizeof(v)),
				     output_escape(t->inq.model, m, sizeof(m)),
				     t->method_reason[0] ? t->method_reason : "LUN 0 only", q);
			else
				elog(e, LOG_DEBUG, "%u:%u:%u: nothing new for '%s' '%s' (%s)",
				     t->addr.host, t->addr.channel, t->addr.id,
				     output_escape(t->inq.vendor, v, sizeof(v)),
				     output_escape(t->inq.model, m, sizeof(m)), q);
			for (size_t l = 0; l < t->nluns; l++) {
				const struct lun_report *lr = &t->luns[l];
				int prio;

				/* Another volume behind a LUN in use: writes to it
				 * reach that volume. */
				if (lr->code == SC_REMAPPED) {
					elog(e, lr->outcome == LUN_ATTACHED ? LOG_WARNING : LOG_ERR,
					     "%u:%u:%u:%" PRIu64 ": %s: %s", t->addr.host,
					     t->addr.channel, t->addr.id, lr->lun,
					     lun_outcome_name(lr->outcome), lr->reason);
					continue;
				}
				/* Attached behind the policy, left (report only). */
				if (lr->code == SC_MASKED && lr->outcome == LUN_PRESENT) {
					elog(e, LOG_WARNING, "%u:%u:%u:%" PRIu64 ": %s",
					     t->addr.host, t->addr.channel, t->addr.id, lr->lun,
					     lr->reason);
					continue;
				}
				switch (lr->outcome) {
				case LUN_REMOVED:
				case LUN_IN_USE:
				case LUN_SKIPPED:
					prio = LOG_NOTICE;
					break;
				case LUN_FAILED:
				case LUN_LIMIT:
					prio = LOG_WARNING;
					break;
				default:
					continue;
				}
				elog(e, prio, "%u:%u:%u:%" PRIu64 ": %s: %s", t->addr.host,
				     t->addr.channel, t->addr.id, lr->lun,
				     lun_outcome_name(lr->outcome), lr->reason);
			}
			if (!t->match.attach)
				elog(e, LOG_NOTICE, "%u:%u:%u: %s", t->addr.host, t->addr.channel,
				     t->addr.id, t->end_reason);
			if (t->removal_refused)
				elog(e, LOG_ERR,
				     "%u:%u:%u: REPORT LUNS answered %zu LUN(s), short of the list "
				     "its header announced, twice: no LUN removed on its account",
				     t->addr.host, t->addr.channel, t->addr.id, t->nreported);
			log_ghosts(e, t);
		}
	}
}

/* INQUIRY DATA HAS CHANGED: what the device says now, and its quirks. */
static void requery(struct job *j, const struct scsi_addr *a)
{
	struct engine *e = j->e;
	struct quirk_device dev;
	struct quirk_match m;
	struct sgio_error err;
	struct inquiry inq;
	uint8_t buf[INQUIRY_MAX_LEN];
	char node[512], name[32], v[64], md[80], q[1024], kernel[1024] = "";
	size_t got = 0;
	int fd, r;

	scsi_addr_format(a, name, sizeof(name));
	if (sysfs_device_node(e->sys, a, node, sizeof(node)) < 0 || sgio_open(node, &fd) < 0) {
		elog(e, LOG_WARNING, "%s: INQUIRY data changed, but the device has no sg node",
		     name);
		return;
	}
	r = sgio_inquiry(fd, buf, INQUIRY_MAX_LEN, SCAN_INQUIRY_TIMEOUT, &got, &err);
	sgio_close(fd);
	if (r != 0 || inquiry_decode(buf, got, &inq) < 0) {
		elog(e, LOG_WARNING, "%s: INQUIRY data changed; INQUIRY failed: %s", name,
		     r > 0 ? err.text : strerror(r < 0 ? -r : EIO));
		return;
	}
	dev = quirk_device_from_inquiry(&inq);
	if (quirk_db_match(j->db, &dev, &m) < 0)
		return;
	quirk_text(&m, q, sizeof(q));
	sysfs_device_attr(e->sys, a, "blacklist", kernel, sizeof(kernel));
	elog(e, LOG_NOTICE,
	     "%s: INQUIRY data changed: now '%s' '%s' '%s', %s; the kernel applied: %s", name,
	     output_escape(inq.vendor, v, sizeof(v)), output_escape(inq.model, md, sizeof(md)),
	     inq.revision, q, kernel[0] ? kernel : "no flags");
	quirk_match_clear(&m);
}

/* The map above a resized path takes the new size once every path has it
 * (multipathd refuses a map whose paths differ); each path's capacity
 * change comes on its own, so the last one resizes the map. */
static void resize_map(struct job *j, const struct scsi_addr *a, const char *name)
{
	struct engine *e = j->e;
	struct path_devices d;
	int64_t lo, hi;
	char why[256];
	int r;

	if (path_devices_read(e->sys, a, &d) < 0 || !d.map[0] || d.sectors <= 0 ||
	    d.map_sectors == d.sectors)
		return;
	if (!multipathd_running(e->sys)) {
		elog(e, LOG_NOTICE,
		     "%s: the multipath map %s above it keeps %" PRId64
		     " sectors: multipathd does not run (scsi-scan --resize --wwid %s resizes it)",
		     name, d.map, d.map_sectors, d.wwid);
		return;
	}
	if (map_paths_sectors(e->sys, d.map_dev, &lo, &hi) <= 0 || lo != hi) {
		elog(e, LOG_INFO, "%s: the map %s waits for its other paths' new size", name,
		     d.map);
		return;
	}
	r = map_resize(e->sys, d.map, d.sectors, MAP_TOOL_TIMEOUT, why, sizeof(why));
	if (r < 0)
		elog(e, LOG_ERR, "%s: multipathd resize map %s failed: %s", name, d.map,
		     why[0] ? why : strerror(-r));
	else
		elog(e, LOG_NOTICE,
		     "%s: the map %s resized from %" PRId64 " to %" PRId64 " sectors", name, d.map,
		     d.map_sectors, d.sectors);
}

/* CAPACITY DATA HAS CHANGED (the kernel only passes it on), or a path
 * back: a rescan makes sd read the capacity again. @why starts each line;
 * an unchanged size is worth a notice only when the array said it changed.
 * Return: true when the size changed. */
static bool resize(struct job *j, const struct scsi_addr *a, const char *why, int unchanged_prio)
{
	struct engine *e = j->e;
	struct resize_result rr;
	char name[32], before[32], after[32];

	scsi_addr_format(a, name, sizeof(name));
	if (lun_resize(e->sys, a, &rr) < 0) {
		elog(e, LOG_INFO, "%s: %s, but the LUN is gone", name, why);
		return false;
	}
	output_size(rr.before, before, sizeof(before));
	output_size(rr.after, after, sizeof(after));
	if (rr.error == -ESTALE)
		elog(e, LOG_ERR,
		     "%s: %s; remapped, another unit answers at it: %s; not rescanned (the scan "
		     "of its target replaces it unless it is in use)",
		     name, why, rr.remapped);
	else if (rr.error)
		elog(e, LOG_ERR, "%s: %s; the rescan failed: %s", name, why, strerror(-rr.error));
	else if (!rr.block[0])
		elog(e, unchanged_prio, "%s: %s; rescanned (no block device)", name, why);
	else if (resize_changed(&rr)) {
		elog(e, LOG_NOTICE,
		     "%s: %s: %s resized from %" PRId64 " to %" PRId64 " sectors (%s to %s)", name,
		     why, rr.block, rr.before, rr.after, before, after);
		resize_map(j, a, name);
	} else
		elog(e, unchanged_prio, "%s: %s; %s still %" PRId64 " sectors (%s)", name, why,
		     rr.block, rr.after, after);
	return !rr.error && resize_changed(&rr);
}

/* Whether @a was offline when its path went away. */
static bool was_offline(struct engine *e, const struct scsi_addr *a)
{
	bool found = false;

	pthread_mutex_lock(&e->db_lock);
	for (size_t i = 0; i < e->noffline_before && !found; i++)
		found = scsi_addr_cmp(&e->offline_before[i], a) == 0;
	pthread_mutex_unlock(&e->db_lock);
	return found;
}

/* The path of @host:@channel:@id went away: which of its LUNs are offline
 * now, replacing what was said of that target before. */
static void note_offline(struct engine *e, unsigned int host, unsigned int channel, unsigned int id)
{
	struct scsi_addr *luns = NULL;
	size_t n = 0, k = 0;

	if (sysfs_devices(e->sys, (int)host, &luns, &n) < 0)
		return;
	pthread_mutex_lock(&e->db_lock);
	for (size_t i = 0; i < e->noffline_before; i++) {
		const struct scsi_addr *o = &e->offline_before[i];

		if (o->host != host || o->channel != channel || o->id != id)
			e->offline_before[k++] = *o;
	}
	e->noffline_before = k;
	for (size_t i = 0; i < n; i++) {
		struct scsi_addr *p;
		char state[32];

		if (luns[i].channel != channel || luns[i].id != id ||
		    sysfs_device_attr(e->sys, &luns[i], "state", state, sizeof(state)) < 0 ||
		    strcmp(state, "offline") != 0)
			continue;
		p = realloc(e->offline_before, (e->noffline_before + 1) * sizeof(*p));
		if (!p)
			break;
		e->offline_before = p;
		e->offline_before[e->noffline_before++] = luns[i];
	}
	pthread_mutex_unlock(&e->db_lock);
	free(luns);
}

/* A target whose path came back: the transport's unblock set its blocked
 * LUNs running but read none of them again, and left the ones the error
 * handler set offline as they are. What the array changed meanwhile (a
 * volume grown; mapped LUNs, which the scan after this finds) came with
 * unit attentions to an I_T nexus that is gone. */
static void recover_target(struct job *j, const struct work_target *t)
{
	struct engine *e = j->e;
	struct scsi_addr *luns = NULL;
	size_t n = 0, online = 0, reread = 0, resized = 0;
	int r;

	r = sysfs_devices(e->sys, (int)j->host, &luns, &n);
	if (r < 0) {
		elog(e, LOG_ERR, "%u:%d:%d: its path is back, but its LUNs cannot be listed: %s",
		     j->host, t->channel, t->id, strerror(-r));
		return;
	}
	for (size_t i = 0; i < n && !e->stopping; i++) {
		char state[32], name[32];

		if ((int)luns[i].channel != t->channel || (int)luns[i].id != t->id ||
		    sysfs_device_attr(e->sys, &luns[i], "state", state, sizeof(state)) < 0)
			continue;
		scsi_addr_format(&luns[i], name, sizeof(name));
		switch (recover_lun_action(state, was_offline(e, &luns[i]))) {
		case RECOVER_SET_RUNNING:
			r = sysfs_device_write(e->sys, &luns[i], "state", "running");
			if (r < 0) {
				elog(e, LOG_ERR,
				     "%s: offline; its path is back, but it cannot be "
				     "set running: %s",
				     name, strerror(-r));
				break;
			}
			elog(e, LOG_NOTICE, "%s: offline; its path is back: set running", name);
			online++;
			break;
		case RECOVER_RESCAN:
			resized += resize(j, &luns[i], "its path is back", LOG_DEBUG);
			reread++;
			break;
		default:
			break;
		}
	}
	free(luns);
	elog(e, LOG_INFO,
	     "%u:%d:%d: its path is back: %zu LUN(s) set running, %zu read again (%zu "
	     "resized)",
	     j->host, t->channel, t->id, online, reread, resized);
}

static void scan_log(void *data, int prio, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void scan_log(void *data, int prio, const char *fmt, va_list ap)
{
	struct engine *e = data;

	if (e->log_fn)
		e->log_fn(e->log_data, prio, fmt, ap);
}

/* Whether the database has a lunmask policy: without one no LUN is
 * refused, and LUNs others attach need no look. */
static bool lunmask_policy(const struct quirk_db *db)
{
	size_t n = 0;

	quirk_db_lunmasks(db, &n);
	return n > 0;
}

/* The scans of one job: the whole host, or its targets; a target may lose
 * LUNs only if its own inventory changed. */
static int run_scans(struct job *j, struct scan_report *rep)
{
	struct engine *e = j->e;
	struct scan_ctx ctx = {
		.sys = e->sys,
		.db = j->db,
		.opt = { .inquiry_timeout = SCAN_INQUIRY_TIMEOUT,
			 .report_luns_timeout = SCAN_REPORT_LUNS_TIMEOUT,
			 .lock_wait = true,
			 .attach_ghosts = e->opt.attach_ghosts,
			 .host_timeout = SCAN_HOST_TIMEOUT_DEFAULT,
			 .target_timeout = SCAN_TARGET_TIMEOUT_DEFAULT },
		.cancel = &e->stopping,
		.log = scan_log,
		.log_data = e,
	};
	int r = 0;

	/* Every scan holds the policy and the hold-outs: a refused LUN
	 * someone else attached goes, unless in use (or only reported). */
	ctx.opt.remove_refused =
		!e->opt.refused_report_only && (lunmask_policy(j->db) || holdout_any(e->sys));
	if (j->work.full) {
		struct selector sel = { (int)j->host, SCAN_WILDCARD, SCAN_WILDCARD, false, 0 };

		r = scan_selected(&ctx, &sel, rep);
	}
	for (size_t i = 0; i < j->work.ntargets && r >= 0; i++) {
		const struct work_target *t = &j->work.targets[i];
		struct selector sel = { (int)j->host, t->channel, t->id, false, 0 };

		if (j->work.full && !(t->remove && e->opt.remove))
			continue;
		ctx.opt.remove = t->remove && e->opt.remove;
		r = scan_selected(&ctx, &sel, rep);
	}
	ctx.opt.remove = false;
	/* LUNs attached by others: their targets, once each. */
	for (size_t i = 0; i < j->work.nluns && r >= 0 && !j->work.full; i++) {
		const struct work_lun *l = &j->work.luns[i];
		struct selector sel = { (int)j->host, (int)l->addr.channel, (int)l->addr.id, false,
					0 };
		bool done = false;

		if (l->kind != SCSI_EVENT_LUN_ADDED)
			continue;
		for (size_t k = 0; k < j->work.ntargets && !done; k++)
			done = j->work.targets[k].channel == sel.channel &&
			       j->work.targets[k].id == sel.id;
		for (size_t k = 0; k < i && !done; k++)
			done = j->work.luns[k].kind == SCSI_EVENT_LUN_ADDED &&
			       j->work.luns[k].addr.channel == l->addr.channel &&
			       j->work.luns[k].addr.id == l->addr.id;
		if (done)
			continue;
		elog(e, LOG_INFO,
		     "%u:%u:%u:%" PRIu64 ": attached by another scanner: its target is "
		     "held to the lunmask policy",
		     j->host, l->addr.channel, l->addr.id, l->addr.lun);
		r = scan_selected(&ctx, &sel, rep);
	}
	return r;
}

/* The LUNs a scan attached, for the main thread: their add events are the
 * daemon's own. Out of memory, none are: their targets are scanned once
 * more, which is harmless. */
static void remember_attached(const struct scan_report *rep, size_t count, struct job_done *done)
{
	done->attached = count ? calloc(count, sizeof(*done->attached)) : NULL;
	if (!done->attached)
		return;
	for (size_t i = 0; i < rep->nhosts; i++)
		for (size_t k = 0; k < rep->hosts[i].ntargets; k++) {
			const struct target_report *t = &rep->hosts[i].targets[k];

			for (size_t l = 0; l < t->nluns && done->nattached < count; l++) {
				if (t->luns[l].outcome != LUN_ATTACHED)
					continue;
				done->attached[done->nattached] = t->addr;
				done->attached[done->nattached++].lun = t->luns[l].lun;
			}
		}
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct engine *e = j->e;
	struct scan_report rep = { 0 };
	struct job_done done = { .host = j->host };
	uint64_t t0 = scan_now_ms();
	size_t attached = 0;
	int r = 0;

	for (size_t i = 0; i < j->work.ntargets; i++)
		if (j->work.targets[i].recover)
			recover_target(j, &j->work.targets[i]);
	if (j->work.full || j->work.ntargets || j->work.nluns)
		r = run_scans(j, &rep);
	if (r == -ENODEV)
		elog(e, LOG_INFO, "host%u: gone before it could be scanned", j->host);
	else if (r == -ECANCELED)
		elog(e, LOG_INFO, "host%u: scan cancelled: the daemon is stopping", j->host);
	else if (r < 0)
		elog(e, LOG_ERR, "host%u: scan failed: %s", j->host, strerror(-r));
	log_report(e, &rep);
	for (size_t i = 0; i < rep.nhosts; i++)
		for (size_t k = 0; k < rep.hosts[i].ntargets; k++) {
			const struct target_report *t = &rep.hosts[i].targets[k];

			done.retry |= t->retry_later;
			for (size_t l = 0; l < t->nluns; l++)
				attached += t->luns[l].outcome == LUN_ATTACHED;
		}
	remember_attached(&rep, attached, &done);
	if (j->work.full || j->work.ntargets)
		elog(e, LOG_INFO,
		     "host%u: scanned%s in %" PRIu64 " ms: %zu LUN(s) attached, %zu "
		     "failure(s)",
		     j->host, j->work.full ? "" : " (targets)", scan_now_ms() - t0, attached,
		     scan_report_failures(&rep));
	scan_report_free(&rep);
	for (size_t i = 0; i < j->work.nluns; i++) {
		if (j->work.luns[i].kind == SCSI_EVENT_CAPACITY_CHANGED)
			resize(j, &j->work.luns[i].addr, "capacity data changed", LOG_NOTICE);
		else if (j->work.luns[i].kind == SCSI_EVENT_INQUIRY_CHANGED)
			requery(j, &j->work.luns[i].addr);
	}
	quirk_db_unref(j->db);
	if (write(e->done_pipe[1], &done, sizeof(done)) != sizeof(done))
		elog(e, LOG_ERR, "host%u: cannot report the end of a scan", j->host);
	free(j);
	return NULL;
}

/* Arms the retry timer for the earliest host that waits for one. */
static void arm_timer(struct engine *e)
{
	struct itimerspec its = { 0 };
	uint64_t first = 0;

	for (struct host_state *h = e->hosts; h; h = h->next)
		if (h->retry_at && (!first || h->retry_at < first))
			first = h->retry_at;
	its.it_value.tv_sec = (time_t)(first / 1000);
	its.it_value.tv_nsec = (long)(first % 1000) * 1000000;
	timerfd_settime(e->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Starts a worker for @h if it has work and a slot is free. A worker that
 * cannot start gives its work back, and the host tries again later. */
static void start(struct engine *e, struct host_state *h)
{
	pthread_attr_t attr;
	pthread_t tid;
	struct job *j;
	int r;

	if (h->running || !host_work_pending(&h->work))
		return;
	if (e->running >= e->opt.max_workers) {
		h->queued = true;
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		elog(e, LOG_ERR, "host%u: out of memory; the scan waits", h->host);
		h->queued = true;
		return;
	}
	j->e = e;
	j->host = h->host;
	host_work_take(&h->work, &j->work);
	pthread_mutex_lock(&e->db_lock);
	j->db = quirk_db_ref(e->db);
	pthread_mutex_unlock(&e->db_lock);
	h->queued = false;
	h->running = true;
	e->running++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	r = pthread_create(&tid, &attr, worker, j);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		elog(e, LOG_ERR,
		     "host%u: cannot start a worker (%s): its work waits, trying again "
		     "in %u ms",
		     h->host, strerror(r), e->opt.retry_ms);
		host_work_put_back(&h->work, &j->work);
		quirk_db_unref(j->db);
		free(j);
		h->running = false;
		e->running--;
		h->retry_at = scan_now_ms() + e->opt.retry_ms;
		arm_timer(e);
		return;
	}
	h->scans++;
}

static void start_queued(struct engine *e)
{
	for (struct host_state *h = e->hosts; h && e->running < e->opt.max_workers; h = h->next)
		if (h->queued)
			start(e, h);
}

/* After a scan: a listed target not reachable yet gets the host scanned
 * again, a bounded number of times. */
static void retry_later(struct engine *e, struct host_state *h, bool retry)
{
	if (!retry || !h->present) {
		h->retries = 0;
		return;
	}
	if (h->retries >= e->opt.retry_max) {
		if (h->retries++ == e->opt.retry_max)
			elog(e, LOG_WARNING,
			     "host%u: a target its transport lists is still not "
			     "reachable after %u scans; waiting for an event",
			     h->host, e->opt.retry_max);
		return;
	}
	h->retries++;
	h->retry_at = scan_now_ms() + e->opt.retry_ms;
	h->retry_scan = true;
	elog(e, LOG_INFO,
	     "host%u: a target its transport lists is not reachable yet; scanning "
	     "again in %u ms (%u of %u)",
	     h->host, e->opt.retry_ms, h->retries, e->opt.retry_max);
	arm_timer(e);
}

/* Whether a LUN's add event is the daemon's own attach (its last scan's),
 * or needs no look (no lunmask policy). */
static bool is_recent(struct engine *e, struct host_state *h, const struct scsi_event *ev)
{
	struct scsi_addr a = { ev->host, (unsigned int)ev->channel, (unsigned int)ev->id, ev->lun };

	if (!engine_wants_lun_adds(e))
		return true;
	for (size_t i = 0; i < h->nrecent; i++)
		if (scsi_addr_cmp(&h->recent[i], &a) == 0) {
			h->recent[i] = h->recent[--h->nrecent];
			return true;
		}
	return false;
}

void engine_event(struct engine *e, const struct scsi_event *ev)
{
	struct host_state *h;
	enum merge_result m;

	if (ev->kind == SCSI_EVENT_NONE)
		return;
	e->events++;
	if (ev->kind == SCSI_EVENT_CAPACITY_CHANGED && !e->opt.resize) {
		elog(e, LOG_INFO,
		     "%u:%d:%d:%" PRIu64 ": capacity data changed (not rescanned: "
		     "--no-resize)",
		     ev->host, ev->channel, ev->id, ev->lun);
		return;
	}
	h = host_get(e, ev->host);
	if (!h) {
		elog(e, LOG_ERR, "host%u: out of memory; event dropped", ev->host);
		return;
	}
	if (ev->kind == SCSI_EVENT_HOST_ADD)
		h->present = true;
	if (ev->kind == SCSI_EVENT_LUN_ADDED && is_recent(e, h, ev))
		return;
	if (ev->kind == SCSI_EVENT_LUNS_CHANGED)
		elog(e, LOG_INFO, "%u:%d:%d:%" PRIu64 ": reported LUNs data has changed", ev->host,
		     ev->channel, ev->id, ev->lun);
	m = host_work_merge(&h->work, ev);
	switch (m) {
	case MERGE_CANCELLED:
		elog(e, LOG_INFO, "host%u: removed", ev->host);
		h->present = false;
		h->queued = false;
		h->retry_at = 0;
		host_forget(e, h);
		return;
	case MERGE_DROPPED:
		elog(e, LOG_WARNING,
		     "%u:%d:%d:%" PRIu64 ": %s, but %d such events of host%u wait "
		     "already: dropped",
		     ev->host, ev->channel, ev->id, ev->lun,
		     ev->kind == SCSI_EVENT_CAPACITY_CHANGED ? "capacity data changed"
							     : "INQUIRY data changed",
		     WORK_LUNS_MAX, ev->host);
		return;
	case MERGE_WIDENED:
		elog(e, LOG_DEBUG,
		     "host%u: the whole host is scanned (a target without an id, or "
		     "more than %d waiting)",
		     ev->host, WORK_TARGETS_MAX);
		break;
	default:
		break;
	}
	start(e, h);
}

int engine_coldplug(struct engine *e)
{
	unsigned int *hosts = NULL;
	size_t n = 0;
	int r;

	r = sysfs_hosts(e->sys, &hosts, &n);
	if (r < 0) {
		elog(e, LOG_ERR, "coldplug: cannot list hosts: %s", strerror(-r));
		return r;
	}
	elog(e, LOG_INFO, "coldplug: %zu host(s)", n);
	for (size_t i = 0; i < n; i++) {
		struct scsi_event ev = { .kind = SCSI_EVENT_HOST_ADD, .host = hosts[i] };

		engine_event(e, &ev);
	}
	free(hosts);
	return 0;
}

bool engine_wants_lun_adds(struct engine *e)
{
	bool policy;

	pthread_mutex_lock(&e->db_lock);
	policy = e->holdouts || (e->db && lunmask_policy(e->db));
	pthread_mutex_unlock(&e->db_lock);
	return policy;
}

bool engine_holdouts_changed(struct engine *e)
{
	bool any = holdout_any(e->sys), changed;

	pthread_mutex_lock(&e->db_lock);
	changed = any != e->holdouts;
	e->holdouts = any;
	pthread_mutex_unlock(&e->db_lock);
	if (changed)
		elog(e, LOG_INFO, "hold-outs: %s",
		     any ? "a detached volume is held out" : "none left");
	return changed;
}

int engine_poll_empty(struct engine *e)
{
	unsigned int *hosts = NULL;
	size_t nhosts = 0, skipped = 0;
	int r, polled = 0;

	r = sysfs_hosts(e->sys, &hosts, &nhosts);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nhosts; i++) {
		/* Taken in turn: a host past the bound is first next time. */
		unsigned int host = hosts[(i + e->poll_next) % nhosts];
		enum discover_transport tr;
		struct discover_target *t = NULL;
		struct scsi_addr *attached = NULL, *empty = NULL;
		size_t nt = 0, na = 0, ne = 0;

		if (topology_read(e->sys, host, &tr, &t, &nt) < 0 || tr == DISCOVER_PROBE || !nt ||
		    sysfs_devices(e->sys, (int)host, &attached, &na) < 0 ||
		    !(empty = calloc(nt, sizeof(*empty)))) {
			free(t);
			free(attached);
			continue;
		}
		ne = discover_empty_targets(t, nt, attached, na, empty);
		for (size_t k = 0; k < ne; k++) {
			struct scsi_event ev = { .kind = SCSI_EVENT_TARGET_ADD,
						 .host = host,
						 .channel = (int)empty[k].channel,
						 .id = (int)empty[k].id };

			if (polled == ENGINE_POLL_TARGETS_MAX) {
				skipped++;
				continue;
			}
			elog(e, LOG_INFO, "poll: %u:%u:%u: listed, nothing of it attached: scanned",
			     host, empty[k].channel, empty[k].id);
			engine_event(e, &ev);
			polled++;
		}
		if (skipped && !e->poll_next_set) {
			e->poll_next = (e->poll_next + i) % nhosts;
			e->poll_next_set = true;
		}
		free(t);
		free(attached);
		free(empty);
	}
	if (skipped)
		elog(e, LOG_NOTICE,
		     "poll: %zu more empty target(s) wait for the next poll (%d a poll)", skipped,
		     ENGINE_POLL_TARGETS_MAX);
	e->poll_next_set = false;
	free(hosts);
	return polled;
}

static const struct discover_target *entry_of(const struct discover_target *t, size_t n,
					      const struct scsi_addr *a, bool reachable)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].channel == a->channel && t[i].id == a->id && t[i].reachable == reachable)
			return &t[i];
	return NULL;
}

/* One host's look: returns how many of its targets came back. */
static int watch_host(struct engine *e, struct host_state *h)
{
	enum discover_transport tr;
	struct discover_target *t = NULL;
	struct scsi_addr *back = NULL, *lost = NULL;
	size_t nt = 0, nback = 0, nlost = 0;
	int r;

	r = topology_read(e->sys, h->host, &tr, &t, &nt);
	if (r < 0 || tr == DISCOVER_PROBE)
		goto out;
	back = calloc(h->nlost + 1, sizeof(*back));
	lost = calloc(nt + 1, sizeof(*lost));
	if (!back || !lost) {
		r = -ENOMEM;
		goto out;
	}
	recover_paths_back(h->lost, h->nlost, t, nt, back, &nback, lost, &nlost);
	for (size_t i = 0; i < nlost; i++) {
		const struct discover_target *d = entry_of(t, nt, &lost[i], false);
		bool known = false;

		for (size_t k = 0; k < h->nlost && !known; k++)
			known = h->lost[k].channel == lost[i].channel &&
				h->lost[k].id == lost[i].id;
		if (!known)
			note_offline(e, h->host, lost[i].channel, lost[i].id);
		if (!known && d)
			elog(e, LOG_WARNING,
			     "%u:%u:%u: %s %s is %s: not reachable; its LUNs are brought back "
			     "when it is",
			     h->host, lost[i].channel, lost[i].id, d->name, d->address, d->state);
	}
	for (size_t i = 0; i < nback; i++) {
		const struct discover_target *d = entry_of(t, nt, &back[i], true);
		struct scsi_event ev = { .kind = SCSI_EVENT_PATH_BACK,
					 .host = h->host,
					 .channel = (int)back[i].channel,
					 .id = (int)back[i].id };

		elog(e, LOG_NOTICE, "%u:%u:%u: %s %s is %s again: its LUNs are brought back",
		     h->host, back[i].channel, back[i].id, d ? d->name : "?", d ? d->address : "?",
		     d ? d->state : "?");
		engine_event(e, &ev);
	}
	free(h->lost);
	h->lost = lost;
	h->nlost = nlost;
	lost = NULL;
	r = (int)nback;
out:
	free(t);
	free(back);
	free(lost);
	return r;
}

int engine_watch_paths(struct engine *e)
{
	unsigned int *hosts = NULL;
	size_t nhosts = 0;
	int r, n = 0;

	r = sysfs_hosts(e->sys, &hosts, &nhosts);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nhosts; i++) {
		struct host_state *h = host_find(e, hosts[i]);

		/* A host the daemon has not seen added yet is scanned whole
		 * when it is. */
		if (!h || !h->present)
			continue;
		r = watch_host(e, h);
		if (r > 0)
			n += r;
	}
	free(hosts);
	return n;
}

size_t engine_pollfds(const struct engine *e, struct pollfd *p)
{
	p[0] = (struct pollfd){ .fd = e->done_pipe[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = e->timer_fd, .events = POLLIN };
	return 2;
}

void engine_dispatch(struct engine *e)
{
	struct job_done done;
	uint64_t ticks;
	bool ended = false;

	while (read(e->done_pipe[0], &done, sizeof(done)) == sizeof(done)) {
		struct host_state *h = host_get(e, done.host);

		ended = true;
		e->running--;
		e->scans++;
		if (h) {
			host_work_forget_attached(&h->work, done.attached, done.nattached);
			free(h->recent);
			h->recent = done.attached;
			h->nrecent = done.nattached;
			done.attached = NULL;
		}
		free(done.attached);
		if (h) {
			h->running = false;
			retry_later(e, h, done.retry);
			start(e, h);
			host_forget(e, h);
		}
	}
	if (read(e->timer_fd, &ticks, sizeof(ticks)) == sizeof(ticks)) {
		uint64_t now = scan_now_ms();

		for (struct host_state *h = e->hosts; h; h = h->next) {
			if (!h->retry_at || h->retry_at > now)
				continue;
			h->retry_at = 0;
			if (h->retry_scan)
				host_work_merge(&h->work,
						&(struct scsi_event){ .kind = SCSI_EVENT_HOST_ADD,
								      .host = h->host });
			h->retry_scan = false;
			start(e, h);
		}
		arm_timer(e);
	}
	start_queued(e);
	/* Idle again: hand what the scans freed back to the system. */
	if (ended && e->running == 0)
		malloc_trim(0);
}

bool engine_idle(const struct engine *e)
{
	if (e->running)
		return false;
	/* A host waiting for its retry has work to do, even with nothing
	 * queued. */
	for (const struct host_state *h = e->hosts; h; h = h->next)
		if (h->queued || host_work_pending(&h->work) || h->retry_at)
			return false;
	return true;
}

void engine_stats(const struct engine *e, struct engine_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->running = e->running;
	ret->scans = e->scans;
	ret->events = e->events;
	for (const struct host_state *h = e->hosts; h; h = h->next)
		ret->waiting += h->queued || host_work_pending(&h->work) || h->retry_at;
}

unsigned int engine_stop(struct engine *e, unsigned int wait_ms)
{
	atomic_store(&e->stopping, true);
	for (uint64_t end = scan_now_ms() + wait_ms; e->running > 0;) {
		struct pollfd p = { .fd = e->done_pipe[0], .events = POLLIN };
		uint64_t now = scan_now_ms();
		struct job_done done;

		if (now >= end)
			break;
		if (poll(&p, 1, (int)(end - now)) > 0 &&
		    read(e->done_pipe[0], &done, sizeof(done)) == sizeof(done)) {
			free(done.attached);
			e->running--;
		}
	}
	return e->running;
}
