// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scsi-scand - scan SCSI hosts and targets when udev says they appeared or
 * changed; one worker per host at a time, events coalesced, quirk database
 * reloaded on SIGHUP and on changes to its directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "blist.h"
#include "inquiry.h"
#include "monitor.h"
#include "output.h"
#include "quirks.h"
#include "resize.h"
#include "scan.h"
#include "sgio.h"
#include "sysfs.h"

#define EXIT_USAGE 2
#define MAX_PENDING_TARGETS 64
#define MAX_PENDING_LUNS 64
/* A scan's deepest frames hold a few PATH_MAX buffers; 256 KiB is ample,
 * and smaller cached stacks keep the daemon's memory down. */
#define WORKER_STACK (256 * 1024)
/* SIGTERM to exit: under systemd's and the brief's 5 s. */
#define STOP_WAIT_MS 4000
/* A target the transport lists before it can be reached (an iSCSI session
 * is added before its login ends, and no uevent follows the login): the
 * host is scanned again this often, this many times. */
#define RETRY_MS 1000
#define RETRY_MAX 30

enum { LOG_TO_STDERR, LOG_TO_JOURNAL, LOG_TO_SYSLOG };

static int log_target = LOG_TO_STDERR;
static int log_level = LOG_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio > log_level)
		return;
	va_start(ap, fmt);
	if (log_target == LOG_TO_SYSLOG) {
		vsyslog(prio, fmt, ap);
	} else {
		pthread_mutex_lock(&log_lock);
		/* journald reads the priority from a "<N>" prefix. */
		if (log_target == LOG_TO_JOURNAL)
			fprintf(stderr, "<%d>", prio);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		pthread_mutex_unlock(&log_lock);
	}
	va_end(ap);
}

/* A database shared by the workers that started with it. */
struct db_ref {
	struct quirk_db *db;
	int refs;
};

/* A unit attention of one LUN that asks for work other than a scan. */
struct pending_lun {
	struct scsi_addr addr;
	enum scsi_event_kind kind;
};

struct host_state {
	unsigned int host;
	bool present;
	bool running;
	bool queued;
	bool want_full;
	bool want_remove;
	struct { int channel, id; } targets[MAX_PENDING_TARGETS];
	size_t ntargets;
	struct pending_lun luns[MAX_PENDING_LUNS];
	size_t nluns;
	unsigned long scans;
	uint64_t retry_at;
	unsigned int retries;
	struct host_state *next;
};

/* What a worker tells the main loop when its scan ends. */
struct job_done {
	unsigned int host;
	bool retry;
};

struct job {
	struct daemon *d;
	unsigned int host;
	bool full;
	bool remove;
	struct { int channel, id; } targets[MAX_PENDING_TARGETS];
	size_t ntargets;
	struct pending_lun luns[MAX_PENDING_LUNS];
	size_t nluns;
	struct db_ref *db;
};

struct daemon {
	struct sysfs_ctx *sys;
	const char **dirs;
	size_t ndirs;
	char **search_path;
	struct quirk_cache *cache;
	struct db_ref *db;
	pthread_mutex_t db_lock;
	struct host_state *hosts;
	unsigned int running;
	unsigned int max_workers;
	int done_pipe[2];
	bool remove;
	bool attach_ghosts;
	bool no_resize;
	bool notify;
	bool coldplug_done;
	atomic_bool stopping;
	unsigned long scans;
	unsigned long events;
};

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct db_ref *db_get(struct daemon *d)
{
	struct db_ref *r;

	pthread_mutex_lock(&d->db_lock);
	r = d->db;
	r->refs++;
	pthread_mutex_unlock(&d->db_lock);
	return r;
}

static void db_put(struct daemon *d, struct db_ref *r)
{
	bool last;

	pthread_mutex_lock(&d->db_lock);
	last = --r->refs == 0;
	pthread_mutex_unlock(&d->db_lock);
	if (last) {
		quirk_db_free(r->db);
		free(r);
	}
}

static void notify(struct daemon *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void notify(struct daemon *d, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!d->notify)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sd_notify(0, msg);
}

static void status(struct daemon *d)
{
	notify(d, "STATUS=%s: %u scan(s) running, %lu done, %lu events", d->coldplug_done ?
		  "Watching" : "Coldplug", d->running, d->scans, d->events);
}

/* Loads the database; on reload, errors are logged and each broken file
 * keeps its last good version. */
static int load_db(struct daemon *d, bool reload)
{
	struct quirk_diags diags = { 0 };
	const char *const *dirs = d->ndirs ? d->dirs : (const char *const *)d->search_path;
	size_t n = d->ndirs;
	struct quirk_db *db = NULL;
	struct db_ref *ref, *old;
	int r;

	if (!d->ndirs)
		for (n = 0; d->search_path[n]; n++)
			;
	r = quirk_db_load_cached(dirs, n, d->cache, &diags, &db);
	for (size_t i = 0; i < diags.count; i++) {
		const struct quirk_diag *q = &diags.items[i];
		/* Warnings are for maintainers (scsi-quirks check shows them). */
		int prio = q->severity == QUIRK_ERROR	? LOG_ERR :
			   q->severity == QUIRK_NOTICE ? LOG_WARNING :
							  LOG_DEBUG;

		if (q->line)
			say(prio, "quirks: %s:%u: %s", q->file, q->line, q->message);
		else
			say(prio, "quirks: %s: %s", q->file, q->message);
	}
	quirk_diags_clear(&diags);
	if (r < 0) {
		say(LOG_ERR, "quirks: cannot load the database (%s)%s", strerror(-r),
		    reload ? "; keeping the previous one" : "");
		return r;
	}
	ref = calloc(1, sizeof(*ref));
	if (!ref) {
		quirk_db_free(db);
		return -ENOMEM;
	}
	ref->db = db;
	ref->refs = 1;
	pthread_mutex_lock(&d->db_lock);
	old = d->db;
	d->db = ref;
	pthread_mutex_unlock(&d->db_lock);
	if (old)
		db_put(d, old);
	say(reload ? LOG_NOTICE : LOG_INFO, "quirks: %s %zu entries", reload ? "reloaded" : "loaded",
	    quirk_db_count(db));
	return 0;
}

static struct host_state *host_get(struct daemon *d, unsigned int host)
{
	struct host_state *h;

	for (h = d->hosts; h; h = h->next)
		if (h->host == host)
			return h;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->host = host;
	h->next = d->hosts;
	d->hosts = h;
	return h;
}

static bool has_work(const struct host_state *h)
{
	return h->want_full || h->ntargets || h->nluns;
}

/* A host that went away keeps no state, unless a worker still runs for it
 * (then it goes when the worker ends). */
static void host_forget(struct daemon *d, struct host_state *h)
{
	struct host_state **pp;

	if (h->running || h->present || has_work(h))
		return;
	for (pp = &d->hosts; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
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
	used = snprintf(buf, len, "quirks %s%s%s from", flags, m->attach ? "" : ", attach=false",
			m->max_lun >= 0 ? ", max_lun" : "");
	for (size_t i = 0; i < m->count && used < len; i++)
		used += snprintf(buf + used, len - used, " %s:%u", m->sources[i]->file,
				 m->sources[i]->line);
}

/* One line per decision a person wants: per target what was attached, with
 * vendor, model and the quirk sources; failures with the sense decoded. */
static void log_report(const struct scan_report *rep)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		const struct host_report *h = &rep->hosts[i];

		if (h->failed)
			say(LOG_ERR, "host%u: scan failed: %s", h->host, h->error);
		if (h->notes[0])
			say(LOG_DEBUG, "host%u: %s", h->host, h->notes);
		for (size_t k = 0; k < h->ntargets; k++) {
			const struct target_report *t = &h->targets[k];
			char v[64], m[80], q[1024], luns[512];

			if (t->failed) {
				say(LOG_ERR, "%u:%u:%u: scan failed: %s", t->addr.host,
				    t->addr.channel, t->addr.id, t->error);
				continue;
			}
			quirk_text(&t->match, q, sizeof(q));
			output_lun_ranges(t, LUN_ATTACHED, luns, sizeof(luns));
			if (luns[0])
				say(LOG_INFO, "%u:%u:%u: attached LUN %s of '%s' '%s' (%s, %s)",
				    t->addr.host, t->addr.channel, t->addr.id, luns,
				    output_escape(t->inq.vendor, v, sizeof(v)),
				    output_escape(t->inq.model, m, sizeof(m)),
				    t->method_reason[0] ? t->method_reason : "LUN 0 only", q);
			else
				say(LOG_DEBUG, "%u:%u:%u: nothing new for '%s' '%s' (%s)", t->addr.host,
				    t->addr.channel, t->addr.id,
				    output_escape(t->inq.vendor, v, sizeof(v)),
				    output_escape(t->inq.model, m, sizeof(m)), q);
			for (size_t l = 0; l < t->nluns; l++) {
				const struct lun_report *lr = &t->luns[l];
				int prio;

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
				say(prio, "%u:%u:%u:%" PRIu64 ": %s: %s", t->addr.host,
				    t->addr.channel, t->addr.id, lr->lun,
				    lun_outcome_name(lr->outcome), lr->reason);
			}
			if (!t->match.attach)
				say(LOG_NOTICE, "%u:%u:%u: %s", t->addr.host, t->addr.channel,
				    t->addr.id, t->end_reason);
			for (size_t g = 0; g < t->nghosts; g++) {
				const struct ghost_report *gr = &t->ghosts[g];
				char kept[128] = "";

				if (t->ghost_stop)
					snprintf(kept, sizeof(kept), "; only LUN %" PRIu64 " of the "
						 "target kept (see scsi-quirks suggest, or "
						 "--attach-ghosts)", t->ghost_kept);
				say(t->ghost_stop ? LOG_ERR : LOG_WARNING,
				    "%u:%u:%u:%" PRIu64 ": %s LUN %" PRIu64 " (%s): %s%s", t->addr.host,
				    t->addr.channel, t->addr.id, gr->lun,
				    gr->evidence.verdict == GHOST_SAME ? "ghost of" : "same name as",
				    gr->same_as, gr->evidence.rule, gr->evidence.text, kept);
			}
		}
	}
}

/* INQUIRY DATA HAS CHANGED: what the device says now, and its quirks. */
static void requery(struct job *j, const struct scsi_addr *a)
{
	struct sysfs_ctx *sys = j->d->sys;
	struct quirk_device dev;
	struct quirk_match m;
	struct sgio_error err;
	struct inquiry inq;
	uint8_t buf[INQUIRY_MAX_LEN];
	char node[512], name[32], v[64], md[80], q[1024], kernel[256] = "";
	size_t got = 0;
	int fd, r;

	scsi_addr_format(a, name, sizeof(name));
	if (sysfs_device_node(sys, a, node, sizeof(node)) < 0 || sgio_open(node, &fd) < 0) {
		say(LOG_WARNING, "%s: INQUIRY data changed, but the device has no sg node", name);
		return;
	}
	r = sgio_inquiry(fd, buf, INQUIRY_MAX_LEN, 20, &got, &err);
	sgio_close(fd);
	if (r != 0 || inquiry_decode(buf, got, &inq) < 0) {
		say(LOG_WARNING, "%s: INQUIRY data changed; INQUIRY failed: %s", name,
		    r > 0 ? err.text : strerror(r < 0 ? -r : EIO));
		return;
	}
	dev.vendor = inq.vendor;
	dev.model = inq.model;
	dev.revision = inq.revision;
	dev.type = inq.pdt;
	if (quirk_db_match(j->db->db, &dev, &m) < 0)
		return;
	quirk_text(&m, q, sizeof(q));
	sysfs_device_attr(sys, a, "blacklist", kernel, sizeof(kernel));
	say(LOG_NOTICE, "%s: INQUIRY data changed: now '%s' '%s' '%s', %s; the kernel applied: %s",
	    name, output_escape(inq.vendor, v, sizeof(v)), output_escape(inq.model, md, sizeof(md)),
	    inq.revision, q, kernel[0] ? kernel : "no flags");
	quirk_match_clear(&m);
}

/* CAPACITY DATA HAS CHANGED: the kernel only passes it on; a rescan makes
 * sd read the capacity again. */
static void resize(struct job *j, const struct scsi_addr *a)
{
	struct resize_result rr;
	char name[32], before[32], after[32];

	scsi_addr_format(a, name, sizeof(name));
	if (lun_resize(j->d->sys, a, &rr) < 0) {
		say(LOG_INFO, "%s: capacity data changed, but the LUN is gone", name);
		return;
	}
	output_size(rr.before, before, sizeof(before));
	output_size(rr.after, after, sizeof(after));
	if (rr.error)
		say(LOG_ERR, "%s: capacity data changed; the rescan failed: %s", name,
		    strerror(-rr.error));
	else if (!rr.block[0])
		say(LOG_NOTICE, "%s: capacity data changed; rescanned (no block device)", name);
	else if (resize_changed(&rr))
		say(LOG_NOTICE, "%s: capacity data changed: %s resized from %" PRId64 " to %" PRId64
				" sectors (%s to %s)",
		    name, rr.block, rr.before, rr.after, before, after);
	else
		say(LOG_NOTICE, "%s: capacity data changed; %s still %" PRId64 " sectors (%s)", name,
		    rr.block, rr.after, after);
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct scan_ctx ctx = {
		.sys = j->d->sys,
		.db = j->db->db,
		.opt = { .inquiry_timeout = 20, .report_luns_timeout = 30, .lock_wait = true,
			 .remove = j->remove, .attach_ghosts = j->d->attach_ghosts,
			 .host_timeout = SCAN_HOST_TIMEOUT_DEFAULT,
			 .target_timeout = SCAN_TARGET_TIMEOUT_DEFAULT },
		.cancel = &j->d->stopping,
	};
	struct scan_report rep = { 0 };
	struct job_done done = { .host = j->host };
	struct timespec t0, t1;
	size_t attached = 0;
	int r = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (j->full) {
		struct selector sel = { (int)j->host, SCAN_WILDCARD, SCAN_WILDCARD, false, 0 };

		r = scan_selected(&ctx, &sel, &rep);
	} else {
		for (size_t i = 0; i < j->ntargets && r >= 0; i++) {
			struct selector sel = { (int)j->host, j->targets[i].channel, j->targets[i].id,
						false, 0 };

			r = scan_selected(&ctx, &sel, &rep);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r == -ENODEV)
		say(LOG_INFO, "host%u: gone before it could be scanned", j->host);
	else if (r == -ECANCELED)
		say(LOG_INFO, "host%u: scan cancelled: the daemon is stopping", j->host);
	else if (r < 0)
		say(LOG_ERR, "host%u: scan failed: %s", j->host, strerror(-r));
	log_report(&rep);
	for (size_t i = 0; i < rep.nhosts; i++)
		for (size_t k = 0; k < rep.hosts[i].ntargets; k++)
			for (size_t l = 0; l < rep.hosts[i].targets[k].nluns; l++)
				attached += rep.hosts[i].targets[k].luns[l].outcome == LUN_ATTACHED;
	if (j->full || j->ntargets)
		say(LOG_INFO, "host%u: scanned%s in %ld ms: %zu LUN(s) attached, %zu failure(s)",
		    j->host, j->full ? "" : " (targets)",
		    (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000),
		    attached, scan_report_failures(&rep));
	for (size_t i = 0; i < rep.nhosts; i++)
		for (size_t k = 0; k < rep.hosts[i].ntargets; k++)
			done.retry |= rep.hosts[i].targets[k].retry_later;
	scan_report_free(&rep);
	for (size_t i = 0; i < j->nluns; i++) {
		if (j->luns[i].kind == SCSI_EVENT_CAPACITY_CHANGED)
			resize(j, &j->luns[i].addr);
		else
			requery(j, &j->luns[i].addr);
	}
	db_put(j->d, j->db);
	if (write(j->d->done_pipe[1], &done, sizeof(done)) != sizeof(done))
		say(LOG_ERR, "host%u: cannot report the end of a scan", j->host);
	free(j);
	return NULL;
}

/* Arms the retry timer for the earliest host that waits for one. */
static void arm_retry(struct daemon *d, int rfd)
{
	struct itimerspec its = { 0 };
	uint64_t first = 0;

	for (struct host_state *h = d->hosts; h; h = h->next)
		if (h->retry_at && (!first || h->retry_at < first))
			first = h->retry_at;
	its.it_value.tv_sec = (time_t)(first / 1000);
	its.it_value.tv_nsec = (long)(first % 1000) * 1000000;
	timerfd_settime(rfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* After a scan: a listed target not reachable yet gets the host scanned
 * again, a bounded number of times. */
static void retry_later(struct daemon *d, struct host_state *h, bool retry, int rfd)
{
	if (!retry || !h->present) {
		h->retries = 0;
		return;
	}
	if (h->retries >= RETRY_MAX) {
		if (h->retries++ == RETRY_MAX)
			say(LOG_WARNING, "host%u: a target its transport lists is still not "
					 "reachable after %u scans; waiting for an event", h->host,
			    RETRY_MAX);
		return;
	}
	h->retries++;
	h->retry_at = monotonic_ms() + RETRY_MS;
	say(LOG_INFO, "host%u: a target its transport lists is not reachable yet; scanning "
		      "again in %u ms (%u of %u)", h->host, RETRY_MS, h->retries, RETRY_MAX);
	arm_retry(d, rfd);
}

/* Starts a worker for @h if it has work and a slot is free. */
static void start(struct daemon *d, struct host_state *h)
{
	pthread_attr_t attr;
	pthread_t tid;
	struct job *j;

	if (h->running || !has_work(h))
		return;
	if (d->running >= d->max_workers) {
		h->queued = true;
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		say(LOG_ERR, "host%u: out of memory", h->host);
		return;
	}
	j->d = d;
	j->host = h->host;
	j->full = h->want_full;
	j->remove = h->want_remove && d->remove;
	if (!j->full) {
		memcpy(j->targets, h->targets, h->ntargets * sizeof(h->targets[0]));
		j->ntargets = h->ntargets;
	}
	memcpy(j->luns, h->luns, h->nluns * sizeof(h->luns[0]));
	j->nluns = h->nluns;
	j->db = db_get(d);
	h->want_full = h->want_remove = false;
	h->ntargets = h->nluns = 0;
	h->queued = false;
	h->running = true;
	h->scans++;
	d->running++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	if (pthread_create(&tid, &attr, worker, j) != 0) {
		say(LOG_ERR, "host%u: cannot start a worker", h->host);
		db_put(d, j->db);
		free(j);
		h->running = false;
		d->running--;
	}
	pthread_attr_destroy(&attr);
	status(d);
}

static void start_queued(struct daemon *d)
{
	for (struct host_state *h = d->hosts; h && d->running < d->max_workers; h = h->next)
		if (h->queued)
			start(d, h);
}

static void want_target(struct host_state *h, int channel, int id)
{
	if (h->want_full)
		return;
	if (channel < 0 || id < 0 || h->ntargets == MAX_PENDING_TARGETS) {
		h->want_full = true;
		h->ntargets = 0;
		return;
	}
	for (size_t i = 0; i < h->ntargets; i++)
		if (h->targets[i].channel == channel && h->targets[i].id == id)
			return;
	h->targets[h->ntargets].channel = channel;
	h->targets[h->ntargets].id = id;
	h->ntargets++;
}

static void handle_event(struct daemon *d, const struct scsi_event *ev)
{
	struct host_state *h;

	if (ev->kind == SCSI_EVENT_NONE)
		return;
	d->events++;
	h = host_get(d, ev->host);
	if (!h)
		return;
	switch (ev->kind) {
	case SCSI_EVENT_HOST_ADD:
		h->present = true;
		h->want_full = true;
		h->ntargets = 0;
		break;
	case SCSI_EVENT_HOST_REMOVE:
		say(LOG_INFO, "host%u: removed", ev->host);
		h->present = false;
		h->want_full = h->want_remove = h->queued = false;
		h->ntargets = h->nluns = 0;
		host_forget(d, h);
		return;
	case SCSI_EVENT_TARGET_ADD:
		want_target(h, ev->channel, ev->id);
		break;
	case SCSI_EVENT_LUNS_CHANGED:
		say(LOG_INFO, "%u:%d:%d:%" PRIu64 ": reported LUNs data has changed", ev->host,
		    ev->channel, ev->id, ev->lun);
		want_target(h, ev->channel, ev->id);
		h->want_remove = true;
		break;
	case SCSI_EVENT_CAPACITY_CHANGED:
		if (d->no_resize) {
			say(LOG_INFO, "%u:%d:%d:%" PRIu64 ": capacity data changed (not rescanned: "
				      "--no-resize)", ev->host, ev->channel, ev->id, ev->lun);
			return;
		}
		/* fall through */
	case SCSI_EVENT_INQUIRY_CHANGED: {
		struct pending_lun p = { { ev->host, (unsigned int)ev->channel, (unsigned int)ev->id,
					   ev->lun }, ev->kind };
		bool dup = false;

		for (size_t i = 0; i < h->nluns && !dup; i++)
			dup = h->luns[i].kind == p.kind && !scsi_addr_cmp(&h->luns[i].addr, &p.addr);
		if (dup)
			break;
		if (h->nluns == MAX_PENDING_LUNS) {
			say(LOG_WARNING, "%u:%d:%d:%" PRIu64 ": %s, but %d such events of host%u wait "
					 "already: dropped", ev->host, ev->channel, ev->id, ev->lun,
			    ev->kind == SCSI_EVENT_CAPACITY_CHANGED ? "capacity data changed" :
								       "INQUIRY data changed",
			    MAX_PENDING_LUNS, ev->host);
			break;
		}
		h->luns[h->nluns++] = p;
		break;
	}
	default:
		return;
	}
	start(d, h);
}

static void coldplug(struct daemon *d)
{
	unsigned int *hosts = NULL;
	size_t n = 0;
	int r;

	r = sysfs_hosts(d->sys, &hosts, &n);
	if (r < 0) {
		say(LOG_ERR, "coldplug: cannot list hosts: %s", strerror(-r));
		return;
	}
	say(LOG_INFO, "coldplug: %zu host(s)", n);
	for (size_t i = 0; i < n; i++) {
		struct scsi_event ev = { .kind = SCSI_EVENT_HOST_ADD, .host = hosts[i] };

		handle_event(d, &ev);
	}
	free(hosts);
}

static int watch_dirs(struct daemon *d)
{
	const char *const *dirs = d->ndirs ? d->dirs : (const char *const *)d->search_path;
	size_t n = d->ndirs;
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (!d->ndirs)
		for (n = 0; d->search_path[n]; n++)
			;
	for (size_t i = 0; i < n; i++)
		if (inotify_add_watch(fd, dirs[i], IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
							   IN_CREATE | IN_DELETE | IN_ONLYDIR) < 0)
			say(LOG_DEBUG, "quirks: not watching %s: %s", dirs[i], strerror(errno));
	return fd;
}

static void reload(struct daemon *d, const char *why)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	notify(d, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=Reloading the quirk database",
	       (unsigned long long)ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000);
	say(LOG_INFO, "quirks: reloading (%s)", why);
	load_db(d, true);
	notify(d, "READY=1");
	status(d);
}

static void usage(FILE *f)
{
	fputs("Usage: scsi-scand [OPTIONS]\n"
	      "\n"
	      "Scan SCSI hosts and targets as udev reports them: new hosts, iSCSI sessions,\n"
	      "FC remote ports and SAS end devices, and targets whose LUN inventory\n"
	      "changed. Hosts present at start are scanned too.\n"
	      "\n"
	      "Options:\n"
	      "  -f, --foreground       stay in the foreground and log to stderr\n"
	      "      --remove           on a LUN inventory change, delete LUNs the target no\n"
	      "                         longer reports (never ones in use)\n"
	      "      --attach-ghosts    attach LUNs that repeat another LUN's identity\n"
	      "                         (by default the target keeps LUN 0 only)\n"
	      "      --no-resize        on \"capacity data has changed\", log it but do not\n"
	      "                         have the kernel read the capacity again\n"
	      "      --max-workers N    hosts scanned at once, 1-1024 (default 16)\n"
	      "      --quirks-dir DIR   quirk directory instead of the search path (repeatable)\n"
	      "      --sysfs DIR        root of every /sys, /dev, /proc and /run path (tests)\n"
	      "      --no-monitor       do not listen to udev (tests)\n"
	      "      --once             scan what is there, wait for the scans, exit\n"
	      "  -v, --verbose          also log every event, and targets where nothing\n"
	      "                         changed\n"
	      "  -h, --help             this text\n"
	      "      --version          the version\n"
	      "\n"
	      "SIGHUP, and any change in a quirk directory, reload the quirk database.\n"
	      "See scsi-scand(8).\n",
	      f);
}

int main(int argc, char **argv)
{
	enum { OPT_REMOVE = 256, OPT_ATTACH_GHOSTS, OPT_NO_RESIZE, OPT_MAX_WORKERS, OPT_QUIRKS_DIR, OPT_SYSFS, OPT_NO_MONITOR,
	       OPT_ONCE, OPT_VERSION };
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "attach-ghosts", no_argument, NULL, OPT_ATTACH_GHOSTS },
		{ "no-resize", no_argument, NULL, OPT_NO_RESIZE },
		{ "max-workers", required_argument, NULL, OPT_MAX_WORKERS },
		{ "quirks-dir", required_argument, NULL, OPT_QUIRKS_DIR },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "no-monitor", no_argument, NULL, OPT_NO_MONITOR },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	char scan_mode[32];
	struct daemon d = { .max_workers = 16,
			    .db_lock = PTHREAD_MUTEX_INITIALIZER,
			    .done_pipe = { -1, -1 } };
	bool foreground = false, use_monitor = true, once = false;
	const char *sysroot = NULL;
	struct monitor *mon = NULL;
	int c, r, sfd = -1, ifd = -1, tfd = -1, rfd = -1, ret = EXIT_FAILURE;
	size_t n;
	sigset_t mask;

	while ((c = getopt_long(argc, argv, "fvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			foreground = true;
			break;
		case OPT_REMOVE:
			d.remove = true;
			break;
		case OPT_ATTACH_GHOSTS:
			d.attach_ghosts = true;
			break;
		case OPT_NO_RESIZE:
			d.no_resize = true;
			break;
		case OPT_MAX_WORKERS: {
			unsigned long v;
			char *end;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			/* Checked before narrowing: 4294967297 is not 1. */
			if (*optarg < '0' || *optarg > '9' || *end || errno || v < 1 || v > 1024) {
				fputs("scsi-scand: --max-workers takes 1-1024\n", stderr);
				free(d.dirs);
				return EXIT_USAGE;
			}
			d.max_workers = (unsigned int)v;
			break;
		}
		case OPT_QUIRKS_DIR: {
			const char **p = realloc(d.dirs, (d.ndirs + 1) * sizeof(*p));

			if (!p)
				return EXIT_FAILURE;
			d.dirs = p;
			d.dirs[d.ndirs++] = optarg;
			r = quirk_dir_check(optarg);
			if (r < 0) {
				fprintf(stderr, "scsi-scand: --quirks-dir %s: %s\n", optarg,
					strerror(-r));
				free(d.dirs);
				return EXIT_FAILURE;
			}
			break;
		}
		case OPT_SYSFS:
			sysroot = optarg;
			break;
		case OPT_NO_MONITOR:
			use_monitor = false;
			break;
		case OPT_ONCE:
			once = true;
			break;
		case 'v':
			log_level = LOG_DEBUG;
			break;
		case 'h':
			usage(stdout);
			free(d.dirs);
			return EXIT_SUCCESS;
		case OPT_VERSION:
			puts("scsi-scand " PROJECT_VERSION);
			free(d.dirs);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			free(d.dirs);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		free(d.dirs);
		return EXIT_USAGE;
	}
	/* One malloc arena per worker thread would keep their pages. */
	mallopt(M_ARENA_MAX, 2);
	d.notify = getenv("NOTIFY_SOCKET") != NULL;
	if (getenv("JOURNAL_STREAM") && !foreground)
		log_target = LOG_TO_JOURNAL;
	else if (!foreground && !d.notify && !once) {
		if (daemon(0, 0) < 0) {
			perror("scsi-scand: daemon");
			return EXIT_FAILURE;
		}
		openlog("scsi-scand", LOG_PID, LOG_DAEMON);
		log_target = LOG_TO_SYSLOG;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);

	d.sys = sysfs_new(sysroot);
	d.cache = quirk_cache_new();
	if (!d.sys || !d.cache || pipe2(d.done_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		goto out;
	/* Installed is not switched on: while the kernel scans by itself, the
	 * database must not change what it attaches. Without scsi_mod loaded
	 * yet (no parameter), the hosts may still come under scan=manual. */
	if (sysfs_read(d.sys, scan_mode, sizeof(scan_mode),
		       "/sys/module/scsi_mod/parameters/scan") > 0 &&
	    strcmp(scan_mode, "manual") != 0) {
		say(LOG_NOTICE, "the kernel scans by itself (scsi_mod.scan=%s): nothing to do "
				"(see \"Switching scanning to user space\" in scsi-scand(8))",
		    scan_mode);
		/* A Type=notify unit that exits before READY=1 has failed. */
		notify(&d, "READY=1\nSTATUS=The kernel scans by itself (scsi_mod.scan=%s)",
		       scan_mode);
		ret = EXIT_SUCCESS;
		goto out;
	}
	if (!d.ndirs && quirk_search_path(NULL, &d.search_path, &n) < 0)
		goto out;
	if (load_db(&d, false) < 0)
		goto out;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	ifd = watch_dirs(&d);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	rfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (sfd < 0 || ifd < 0 || tfd < 0 || rfd < 0) {
		say(LOG_ERR, "cannot set up signals, inotify or timers: %s", strerror(errno));
		goto out;
	}
	/* Listen before coldplug, so nothing that appears meanwhile is lost. */
	if (use_monitor && !once) {
		mon = monitor_new();
		if (!mon) {
			say(LOG_ERR, "cannot listen to udev: %s", strerror(errno));
			goto out;
		}
	}
	say(LOG_INFO, "started (%u workers at most%s)", d.max_workers,
	    d.remove ? ", removing LUNs no longer reported" : "");
	coldplug(&d);
	/*
	 * Ready once listening, with the coldplug running: the initramfs
	 * already attached the root disk, and systemd waits for the device
	 * units that fstab needs itself, so nothing has to wait for every
	 * host's scan (which can take tens of seconds on a large HBA).
	 * STATUS= says when the coldplug is done.
	 */
	notify(&d, "READY=1");
	status(&d);

	for (;;) {
		struct pollfd p[6] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = d.done_pipe[0], .events = POLLIN },
			{ .fd = ifd, .events = POLLIN },
			{ .fd = tfd, .events = POLLIN },
			{ .fd = mon ? monitor_fd(mon) : -1, .events = POLLIN },
			{ .fd = rfd, .events = POLLIN },
		};

		if (!d.coldplug_done && d.running == 0) {
			bool busy = false;

			for (struct host_state *h = d.hosts; h; h = h->next)
				busy |= h->queued || has_work(h);
			if (!busy) {
				d.coldplug_done = true;
				say(LOG_INFO, "coldplug done");
				status(&d);
				if (once) {
					ret = EXIT_SUCCESS;
					break;
				}
			}
		}
		if (poll(p, 6, -1) < 0) {
			if (errno == EINTR)
				continue;
			say(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload(&d, "SIGHUP");
				} else {
					say(LOG_INFO, "stopping (signal %u)", si.ssi_signo);
					notify(&d, "STOPPING=1");
					ret = EXIT_SUCCESS;
					break;
				}
			}
		}
		if (p[1].revents & POLLIN) {
			struct job_done done;

			while (read(d.done_pipe[0], &done, sizeof(done)) == sizeof(done)) {
				struct host_state *h = host_get(&d, done.host);

				d.running--;
				d.scans++;
				if (h) {
					h->running = false;
					retry_later(&d, h, done.retry, rfd);
					start(&d, h);
					host_forget(&d, h);
				}
				start_queued(&d);
				status(&d);
			}
			/* Idle again: hand what the scans freed back to the system. */
			if (d.running == 0)
				malloc_trim(0);
		}
		if (p[2].revents & POLLIN) {
			char buf[4096];
			struct itimerspec its = { .it_value = { .tv_nsec = 300 * 1000000 } };

			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			/* Editors write in steps: reload once things settle. */
			timerfd_settime(tfd, 0, &its, NULL);
		}
		if (p[3].revents & POLLIN) {
			uint64_t ticks;

			if (read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks))
				reload(&d, "a quirk directory changed");
		}
		if (p[5].revents & POLLIN) {
			uint64_t ticks, now = monotonic_ms();

			if (read(rfd, &ticks, sizeof(ticks)) == sizeof(ticks)) {
				for (struct host_state *h = d.hosts; h; h = h->next) {
					if (!h->retry_at || h->retry_at > now)
						continue;
					h->retry_at = 0;
					h->want_full = true;
					start(&d, h);
				}
				arm_retry(&d, rfd);
			}
		}
		if (mon && (p[4].revents & POLLIN)) {
			struct scsi_event ev;
			char what[256];

			while ((r = monitor_receive(mon, &ev, what, sizeof(what))) > 0) {
				say(LOG_DEBUG, "event: %s", what);
				handle_event(&d, &ev);
			}
			if (r < 0)
				say(LOG_WARNING, "udev: %s", strerror(-r));
		}
	}
	/* Scans stop at their next step; a scan write in the kernel cannot be
	 * interrupted, so wait for it, but not past the stop bound. */
	atomic_store(&d.stopping, true);
	for (uint64_t end = monotonic_ms() + STOP_WAIT_MS; d.running > 0;) {
		struct pollfd p = { .fd = d.done_pipe[0], .events = POLLIN };
		uint64_t now = monotonic_ms();
		struct job_done done;

		if (now >= end)
			break;
		if (poll(&p, 1, (int)(end - now)) > 0 &&
		    read(d.done_pipe[0], &done, sizeof(done)) == sizeof(done))
			d.running--;
	}
	if (d.running > 0) {
		/* The workers still use the daemon's state: leave it to exit(). */
		say(LOG_WARNING, "stopping with %u scan(s) still inside a kernel write", d.running);
		exit(ret);
	}
out:
	monitor_free(mon);
	while (d.hosts) {
		struct host_state *h = d.hosts;

		d.hosts = h->next;
		free(h);
	}
	if (d.db)
		db_put(&d, d.db);
	quirk_cache_free(d.cache);
	quirk_search_path_free(d.search_path);
	sysfs_free(d.sys);
	free(d.dirs);
	if (sfd >= 0)
		close(sfd);
	if (ifd >= 0)
		close(ifd);
	if (tfd >= 0)
		close(tfd);
	if (rfd >= 0)
		close(rfd);
	for (int i = 0; i < 2; i++)
		if (d.done_pipe[i] >= 0)
			close(d.done_pipe[i]);
	return ret;
}
