// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-engine.c - the daemon's engine: how events merge into a host's
 * waiting work (a table of event sequences), and the engine itself on a
 * fake tree: coldplug, workers, LUN events, a full queue, host removal,
 * the database shared with running scans.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "coalesce.h"
#include "engine.h"
#include "holdout.h"

#define ADD(h)                                                                                     \
	{                                                                                          \
		SCSI_EVENT_HOST_ADD, (h), -1, -1, 0                                                \
	}
#define GONE(h)                                                                                    \
	{                                                                                          \
		SCSI_EVENT_HOST_REMOVE, (h), -1, -1, 0                                             \
	}
#define TGT(h, c, t)                                                                               \
	{                                                                                          \
		SCSI_EVENT_TARGET_ADD, (h), (c), (t), 0                                            \
	}
#define LUNS(h, c, t, l)                                                                           \
	{                                                                                          \
		SCSI_EVENT_LUNS_CHANGED, (h), (c), (t), (l)                                        \
	}
#define INQ(h, c, t, l)                                                                            \
	{                                                                                          \
		SCSI_EVENT_INQUIRY_CHANGED, (h), (c), (t), (l)                                     \
	}
#define NEW(h, c, t, l)                                                                            \
	{                                                                                          \
		SCSI_EVENT_LUN_ADDED, (h), (c), (t), (l)                                           \
	}
#define CAP(h, c, t, l)                                                                            \
	{                                                                                          \
		SCSI_EVENT_CAPACITY_CHANGED, (h), (c), (t), (l)                                    \
	}
#define BACK(h, c, t)                                                                              \
	{                                                                                          \
		SCSI_EVENT_PATH_BACK, (h), (c), (t), 0                                             \
	}

static const struct merge_case {
	const char *what;
	struct scsi_event events[8];
	size_t n;
	/* the last event's result, then the work that waits */
	enum merge_result last;
	bool full;
	const char *targets; /* "C:T", "!" for removal, "^" for recovery: "0:1! 0:2^" */
	size_t nluns;
} merge_cases[] = {
	{ "a host add scans the host", { ADD(3) }, 1, MERGE_QUEUED, true, "", 0 },
	{ "a second host add", { ADD(3), ADD(3) }, 2, MERGE_COALESCED, true, "", 0 },
	{ "targets after a host add are covered",
	  { ADD(3), TGT(3, 0, 1), TGT(3, 0, 2) },
	  3,
	  MERGE_COALESCED,
	  true,
	  "",
	  0 },
	{ "two targets", { TGT(3, 0, 1), TGT(3, 0, 2) }, 2, MERGE_QUEUED, false, "0:1 0:2", 0 },
	{ "one target twice", { TGT(3, 0, 1), TGT(3, 0, 1) }, 2, MERGE_COALESCED, false, "0:1", 0 },
	{ "a target without an id widens",
	  { TGT(3, 0, 1), TGT(3, -1, -1) },
	  2,
	  MERGE_WIDENED,
	  true,
	  "",
	  0 },
	{ "LUNs changed: that target only may lose LUNs",
	  { LUNS(3, 0, 1, 0), LUNS(3, 0, 1, 4), TGT(3, 0, 2) },
	  3,
	  MERGE_QUEUED,
	  false,
	  "0:1! 0:2",
	  0 },
	{ "removal kept through a host add",
	  { LUNS(3, 0, 1, 0), ADD(3), TGT(3, 0, 2) },
	  3,
	  MERGE_COALESCED,
	  true,
	  "0:1!",
	  0 },
	{ "LUNs changed after a host add",
	  { ADD(3), LUNS(3, 0, 5, 2) },
	  2,
	  MERGE_QUEUED,
	  true,
	  "0:5!",
	  0 },
	{ "a target then its LUNs changed",
	  { TGT(3, 0, 1), LUNS(3, 0, 1, 3) },
	  2,
	  MERGE_QUEUED,
	  false,
	  "0:1!",
	  0 },
	{ "LUN events, each once per kind; INQUIRY changed scans the target",
	  { INQ(3, 0, 1, 2), INQ(3, 0, 1, 2), CAP(3, 0, 1, 2), CAP(3, 0, 1, 3) },
	  4,
	  MERGE_QUEUED,
	  false,
	  "0:1",
	  3 },
	{ "INQUIRY changed twice: one target scan, one look",
	  { INQ(3, 0, 1, 2), INQ(3, 0, 1, 2) },
	  2,
	  MERGE_COALESCED,
	  false,
	  "0:1",
	  1 },
	{ "INQUIRY changed on a target whose LUNs changed: one scan, with removal",
	  { LUNS(3, 0, 1, 0), INQ(3, 0, 1, 2) },
	  2,
	  MERGE_QUEUED,
	  false,
	  "0:1!",
	  1 },
	{ "a host remove drops all",
	  { ADD(3), LUNS(3, 0, 1, 0), INQ(3, 0, 1, 2), GONE(3) },
	  4,
	  MERGE_CANCELLED,
	  false,
	  "",
	  0 },
	{ "LUNs attached by anyone: each once, for the daemon to pass over its own",
	  { NEW(3, 0, 1, 0), NEW(3, 0, 1, 1), NEW(3, 0, 1, 1) },
	  3,
	  MERGE_COALESCED,
	  false,
	  "",
	  2 },
	{ "a LUN attached on a target that waits for a scan: covered",
	  { TGT(3, 0, 1), NEW(3, 0, 1, 4) },
	  2,
	  MERGE_COALESCED,
	  false,
	  "0:1",
	  0 },
	{ "a LUN attached while the host waits for a whole scan: covered",
	  { ADD(3), NEW(3, 0, 2, 4) },
	  2,
	  MERGE_COALESCED,
	  true,
	  "",
	  0 },
	{ "nothing to do", { { SCSI_EVENT_NONE, 3, -1, -1, 0 } }, 1, MERGE_IGNORED, false, "", 0 },
	{ "a path back: its target, recovered",
	  { BACK(3, 0, 1) },
	  1,
	  MERGE_QUEUED,
	  false,
	  "0:1^",
	  0 },
	{ "a path back after the target's scan waits: recovery added",
	  { TGT(3, 0, 1), BACK(3, 0, 1) },
	  2,
	  MERGE_QUEUED,
	  false,
	  "0:1^",
	  0 },
	{ "a path back twice",
	  { BACK(3, 0, 1), BACK(3, 0, 1) },
	  2,
	  MERGE_COALESCED,
	  false,
	  "0:1^",
	  0 },
	{ "a path back, then a host add: the recovery is kept",
	  { BACK(3, 0, 1), ADD(3) },
	  2,
	  MERGE_QUEUED,
	  true,
	  "0:1^",
	  0 },
	{ "a host add, then a path back: listed for its recovery",
	  { ADD(3), BACK(3, 0, 2) },
	  2,
	  MERGE_QUEUED,
	  true,
	  "0:2^",
	  0 },
	{ "a path back and a LUN change on one target: both kept",
	  { BACK(3, 0, 1), LUNS(3, 0, 1, 4) },
	  2,
	  MERGE_QUEUED,
	  false,
	  "0:1!^",
	  0 },
	{ "a host remove drops the recovery",
	  { BACK(3, 0, 1), GONE(3) },
	  2,
	  MERGE_CANCELLED,
	  false,
	  "",
	  0 },
};

static void targets_text(const struct host_work *w, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->ntargets; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d:%d%s%s", i ? " " : "",
					 w->targets[i].channel, w->targets[i].id,
					 w->targets[i].remove ? "!" : "",
					 w->targets[i].recover ? "^" : "");
}

START_TEST(merge_rules)
{
	const struct merge_case *c = &merge_cases[_i];
	struct host_work w = { 0 };
	enum merge_result r = MERGE_IGNORED;
	char t[256];

	for (size_t i = 0; i < c->n; i++)
		r = host_work_merge(&w, &c->events[i]);
	targets_text(&w, t, sizeof(t));
	ck_assert_msg(r == c->last, "%s: %s, expected %s", c->what, merge_result_name(r),
		      merge_result_name(c->last));
	ck_assert_msg(w.full == c->full, "%s: full %d", c->what, w.full);
	ck_assert_msg(strcmp(t, c->targets) == 0, "%s: targets '%s', expected '%s'", c->what, t,
		      c->targets);
	ck_assert_msg(w.nluns == c->nluns, "%s: %zu LUN events", c->what, w.nluns);
	ck_assert(host_work_pending(&w) == (c->full || c->targets[0] || c->nluns));
}
END_TEST

START_TEST(merge_limits)
{
	struct host_work w = { 0 };
	struct scsi_event ev = INQ(3, 0, 1, 0);

	/* 64 LUN events wait; the 65th is dropped, and said so */
	for (int i = 0; i < WORK_LUNS_MAX; i++) {
		ev.lun = (uint64_t)i;
		ck_assert_int_eq(host_work_merge(&w, &ev), MERGE_QUEUED);
	}
	ev.lun = 999;
	ck_assert_int_eq(host_work_merge(&w, &ev), MERGE_DROPPED);
	ck_assert_uint_eq(w.nluns, WORK_LUNS_MAX);
	/* 64 targets; the 65th makes it a scan of the whole host */
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < WORK_TARGETS_MAX; i++) {
		struct scsi_event t = TGT(3, 0, i);

		ck_assert_int_eq(host_work_merge(&w, &t), MERGE_QUEUED);
	}
	ck_assert_int_eq(host_work_merge(&w, &(struct scsi_event)TGT(3, 1, 0)), MERGE_WIDENED);
	ck_assert(w.full);
	ck_assert_uint_eq(w.ntargets, 0);
	/* widened, a target whose LUNs changed is still kept for its removal */
	ck_assert_int_eq(host_work_merge(&w, &(struct scsi_event)LUNS(3, 1, 7, 0)), MERGE_QUEUED);
	ck_assert_uint_eq(w.ntargets, 1);
	ck_assert(w.targets[0].remove);
}
END_TEST

/* The add events of LUNs the daemon's own scan attached are taken out when
 * the scan reports them; others' stay, and so does every other event. */
START_TEST(forget_own_attaches)
{
	struct host_work w = { 0 };
	const struct scsi_addr ours[] = { { 3, 0, 1, 0 }, { 3, 0, 1, 2 } };

	host_work_merge(&w, &(struct scsi_event)NEW(3, 0, 1, 0));
	host_work_merge(&w, &(struct scsi_event)NEW(3, 0, 1, 1));
	host_work_merge(&w, &(struct scsi_event)NEW(3, 0, 1, 2));
	host_work_merge(&w, &(struct scsi_event)INQ(3, 0, 1, 0));
	host_work_forget_attached(&w, ours, 2);
	ck_assert_uint_eq(w.nluns, 2);
	ck_assert_int_eq(w.luns[0].kind, SCSI_EVENT_LUN_ADDED);
	ck_assert_uint_eq(w.luns[0].addr.lun, 1);
	ck_assert_int_eq(w.luns[1].kind, SCSI_EVENT_INQUIRY_CHANGED);
	ck_assert_uint_eq(w.luns[1].addr.lun, 0);
	host_work_forget_attached(&w, NULL, 0);
	ck_assert_uint_eq(w.nluns, 2);
	/* past WORK_LUNS_MAX the target is scanned, unfiltered */
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < WORK_LUNS_MAX; i++)
		host_work_merge(&w, &(struct scsi_event)NEW(3, 0, 1, (uint64_t)i));
	ck_assert_int_eq(host_work_merge(&w, &(struct scsi_event)NEW(3, 0, 1, 999)), MERGE_QUEUED);
	ck_assert_uint_eq(w.ntargets, 1);
}
END_TEST

START_TEST(put_back)
{
	struct host_work w = { 0 }, job;

	/* a job taken; events arrive; its worker does not start: nothing is
	 * lost and nothing doubled */
	host_work_merge(&w, &(struct scsi_event)LUNS(3, 0, 1, 0));
	host_work_merge(&w, &(struct scsi_event)INQ(3, 0, 1, 2));
	host_work_take(&w, &job);
	ck_assert(!host_work_pending(&w));
	host_work_merge(&w, &(struct scsi_event)TGT(3, 0, 2));
	host_work_merge(&w, &(struct scsi_event)INQ(3, 0, 1, 2));
	host_work_put_back(&w, &job);
	ck_assert_uint_eq(w.ntargets, 2);
	ck_assert_int_eq(w.targets[0].id, 2);
	ck_assert(!w.targets[0].remove);
	ck_assert_int_eq(w.targets[1].id, 1);
	ck_assert(w.targets[1].remove);
	ck_assert_uint_eq(w.nluns, 1);
	/* a whole-host job put back stays a whole-host scan */
	memset(&job, 0, sizeof(job));
	job.full = true;
	host_work_put_back(&w, &job);
	ck_assert(w.full);
	ck_assert_uint_eq(w.ntargets, 1);
	ck_assert_str_eq(merge_result_name(MERGE_DROPPED), "dropped");
	/* a recovery put back is still a recovery */
	memset(&w, 0, sizeof(w));
	host_work_merge(&w, &(struct scsi_event)BACK(3, 0, 4));
	host_work_take(&w, &job);
	host_work_merge(&w, &(struct scsi_event)TGT(3, 0, 4));
	host_work_put_back(&w, &job);
	ck_assert_uint_eq(w.ntargets, 1);
	ck_assert(w.targets[0].recover);
	ck_assert(!w.targets[0].remove);
}
END_TEST

/* The engine on a fake tree: hosts whose scan files are plain files (a
 * write attaches nothing, no id is refused) and no devices. */
static char root[64], log_text[1 << 20];
static size_t log_used;

static void capture(void *data, int prio, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Workers log from their own threads. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void capture(void *data, int prio, const char *fmt, va_list ap)
{
	int n;

	(void)data;
	pthread_mutex_lock(&log_lock);
	if (log_used + 256 >= sizeof(log_text)) {
		pthread_mutex_unlock(&log_lock);
		return;
	}
	n = snprintf(log_text + log_used, sizeof(log_text) - log_used, "<%d>", prio);
	log_used += (size_t)n;
	n = vsnprintf(log_text + log_used, sizeof(log_text) - log_used, fmt, ap);
	log_used += n > 0 ? (size_t)n : 0;
	if (log_used + 1 < sizeof(log_text))
		log_text[log_used++] = '\n';
	log_text[log_used] = '\0';
	pthread_mutex_unlock(&log_lock);
}

static void mkpath(const char *rel)
{
	char path[256], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void touch(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static struct engine *make_engine(struct sysfs_ctx **ret_sys, const struct engine_options *opt)
{
	const char *quirks = getenv("QUIRKS_DIR");
	const char *dirs[] = { quirks ? quirks : "quirks.d" };
	struct engine *e;

	snprintf(root, sizeof(root), "/tmp/test-engine-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkpath("sys/bus/scsi/devices");
	mkpath("sys/module/scsi_mod/parameters");
	mkpath("run");
	mkpath("dev");
	for (int h = 0; h < 2; h++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "sys/class/scsi_host/host%d", h);
		mkpath(rel);
		snprintf(rel, sizeof(rel), "sys/class/scsi_host/host%d/scan", h);
		touch(rel, "");
	}
	touch("sys/module/scsi_mod/parameters/max_luns", "512\n");
	*ret_sys = sysfs_new(root);
	ck_assert_ptr_nonnull(*ret_sys);
	e = engine_new(*ret_sys, opt);
	ck_assert_ptr_nonnull(e);
	log_used = 0;
	log_text[0] = '\0';
	engine_set_log_fn(e, capture, NULL);
	ck_assert_int_eq(engine_load_db(e, dirs, 1, false), 0);
	return e;
}

/* Runs the engine's side of the main loop until it is idle. */
static void run_until_idle(struct engine *e)
{
	for (int i = 0; i < 2000 && !engine_idle(e); i++) {
		struct pollfd p[2];
		size_t n = engine_pollfds(e, p);

		poll(p, n, 50);
		engine_dispatch(e);
	}
	ck_assert(engine_idle(e));
}

static void drop_tree(struct engine *e, struct sysfs_ctx *sys)
{
	char cmd[128];

	ck_assert_uint_eq(engine_stop(e, 1000), 0);
	ck_assert_ptr_null(engine_unref(e));
	sysfs_free(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static const struct engine_options defaults = {
	.max_workers = 1, .resize = true, .retry_ms = 100, .retry_max = 2
};

START_TEST(engine_coldplug_and_events)
{
	struct sysfs_ctx *sys;
	struct engine *e = make_engine(&sys, &defaults);
	struct engine_stats st;

	ck_assert(strstr(log_text, "<6>quirks: loaded "));
	ck_assert_int_eq(engine_coldplug(e), 0);
	/* one worker at most: host1 waits for host0 */
	engine_stats(e, &st);
	ck_assert_uint_eq(st.running, 1);
	ck_assert_uint_eq(st.waiting, 1);
	ck_assert(!engine_idle(e));
	run_until_idle(e);
	ck_assert(strstr(log_text, "coldplug: 2 host(s)"));
	ck_assert(strstr(log_text, "host0: scanned in "));
	ck_assert(strstr(log_text, "host1: scanned in "));
	/* the library's own progress, through the same log */
	ck_assert(strstr(log_text, "<7>host0: targets: probed channel 0 up to id"));
	/* LUN events of LUNs that are not there */
	engine_event(e, &(struct scsi_event)INQ(0, 0, 1, 2));
	engine_event(e, &(struct scsi_event)CAP(0, 0, 1, 3));
	run_until_idle(e);
	ck_assert(strstr(log_text, "0:0:1:2: INQUIRY data changed, but the device has no sg node"));
	ck_assert(strstr(log_text, "0:0:1:3: capacity data changed, but the LUN is gone"));
	/* jobs: the two hosts, the INQUIRY event, and the capacity event that
	 * came while its worker ran */
	engine_stats(e, &st);
	ck_assert_uint_eq(st.scans, 4);
	ck_assert_uint_eq(st.events, 4);
	drop_tree(e, sys);
}
END_TEST

START_TEST(engine_full_queue_and_remove)
{
	struct engine_options opt = defaults;
	struct sysfs_ctx *sys;
	struct engine *e;

	opt.resize = false;
	e = make_engine(&sys, &opt);
	/* the first event starts a worker with it; 64 wait; the next is
	 * dropped, with a line that says so */
	for (int i = 0; i < WORK_LUNS_MAX + 2; i++)
		engine_event(e, &(struct scsi_event)INQ(1, 0, 0, (uint64_t)i));
	ck_assert(strstr(log_text, "<4>1:0:0:65: INQUIRY data changed, but 64 such events of host1 "
				   "wait already: dropped"));
	/* the host goes: what waits goes with it */
	engine_event(e, &(struct scsi_event)GONE(1));
	ck_assert(strstr(log_text, "host1: removed"));
	run_until_idle(e);
	/* capacity changes only logged with resize off */
	engine_event(e, &(struct scsi_event)CAP(0, 0, 1, 3));
	ck_assert(strstr(log_text, "0:0:1:3: capacity data changed (not rescanned: --no-resize)"));
	ck_assert(engine_idle(e));
	drop_tree(e, sys);
}
END_TEST

START_TEST(engine_reload_keeps_old_db)
{
	struct sysfs_ctx *sys;
	struct engine *e = make_engine(&sys, &defaults);
	const char *missing[] = { "/nonexistent/quirks.d" };
	char dir[128], file[160];
	const char *broken[] = { dir };
	FILE *f;

	/* a directory that does not exist is an empty one */
	ck_assert_int_eq(engine_load_db(e, missing, 1, true), 0);
	ck_assert(strstr(log_text, "<5>quirks: reloaded 0 entries"));
	/* a broken file names file and line, and loads nothing of itself */
	snprintf(dir, sizeof(dir), "%s/quirks", root);
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/10-bad.conf", dir);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("device \"x\" {\n\tvendor = \"A\"\n\tflags = { \"nolunn\" }\n}\n", f);
	fclose(f);
	engine_load_db(e, broken, 1, true);
	ck_assert(strstr(log_text, "10-bad.conf:3: unknown flag 'nolunn'"));
	drop_tree(e, sys);
}
END_TEST

static void read_back(const char *rel, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

START_TEST(engine_holdouts_want_lun_adds)
{
	struct sysfs_ctx *sys;
	struct engine *e = make_engine(&sys, &defaults);
	char dir[256], file[300];

	/* the shipped database has no lunmask policy: nothing to hold */
	ck_assert(!engine_wants_lun_adds(e));
	ck_assert(!engine_holdouts_changed(e));
	ck_assert_int_eq(holdout_dir_make(sys, dir, sizeof(dir)), 0);
	ck_assert(!engine_holdouts_changed(e));
	/* a file that is not a hold-out's is none */
	touch("run/scsi-scan/holdout/x.conf.tmp", "");
	ck_assert(!engine_holdouts_changed(e));
	ck_assert(!engine_wants_lun_adds(e));
	touch("run/scsi-scan/holdout/driver-x-0-0-lun-1.conf",
	      "lunmask \"held out\" {\n\tchannel = 0\n\tid = 0\n"
	      "\texclude_luns = { 1 }\n}\n");
	ck_assert(engine_holdouts_changed(e));
	ck_assert(strstr(log_text, "<6>hold-outs: a detached volume is held out"));
	ck_assert(engine_wants_lun_adds(e));
	ck_assert(!engine_holdouts_changed(e));
	snprintf(file, sizeof(file), "%s/driver-x-0-0-lun-1.conf", dir);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert(engine_holdouts_changed(e));
	ck_assert(strstr(log_text, "<6>hold-outs: none left"));
	ck_assert(!engine_wants_lun_adds(e));
	drop_tree(e, sys);
}
END_TEST

START_TEST(engine_path_back)
{
	const char *sess = "sys/devices/platform/host1/session3/iscsi_session/session3";
	struct sysfs_ctx *sys;
	struct engine *e = make_engine(&sys, &defaults);
	char target[256], link[256], rel[128], state[32];

	mkpath(sess);
	mkpath("sys/class/iscsi_host/host1");
	mkpath("sys/class/iscsi_session");
	snprintf(target, sizeof(target), "%s/%s", root, sess);
	snprintf(link, sizeof(link), "%s/sys/class/iscsi_session/session3", root);
	ck_assert_int_eq(symlink(target, link), 0);
	snprintf(rel, sizeof(rel), "%s/target_id", sess);
	touch(rel, "0\n");
	snprintf(rel, sizeof(rel), "%s/targetname", sess);
	touch(rel, "iqn.2003-01.org.example:t\n");
	snprintf(rel, sizeof(rel), "%s/tpgt", sess);
	touch(rel, "1\n");
	snprintf(rel, sizeof(rel), "%s/state", sess);
	touch(rel, "FREE\n");
	mkpath("sys/bus/scsi/devices/1:0:0:0");
	touch("sys/bus/scsi/devices/1:0:0:0/state", "running\n");
	mkpath("sys/bus/scsi/devices/1:0:0:1");
	touch("sys/bus/scsi/devices/1:0:0:1/state", "running\n");
	mkpath("sys/bus/scsi/devices/1:0:0:2");
	touch("sys/bus/scsi/devices/1:0:0:2/state", "offline\n");
	ck_assert_int_eq(engine_coldplug(e), 0);
	run_until_idle(e);
	/* the first look records the lost session, and says so once; LUN 2
	 * was offline already (an administrator's), LUN 0 goes offline
	 * during the outage (the error handler's) */
	ck_assert_int_eq(engine_watch_paths(e), 0);
	touch("sys/bus/scsi/devices/1:0:0:0/state", "offline\n");
	ck_assert_int_eq(engine_watch_paths(e), 0);
	ck_assert_msg(strstr(log_text,
			     "<4>1:0:0: session3 iqn.2003-01.org.example:t,1 is FREE: not "
			     "reachable"),
		      "%s", log_text);
	ck_assert_ptr_eq(
		strstr(strstr(log_text, "brought back when it is") + 1, "brought back when it is"),
		NULL);
	/* logged in again: the offline LUN is set running, the other read
	 * again, the target scanned; once */
	touch(rel, "LOGGED_IN\n");
	ck_assert_int_eq(engine_watch_paths(e), 1);
	run_until_idle(e);
	ck_assert_int_eq(engine_watch_paths(e), 0);
	read_back("sys/bus/scsi/devices/1:0:0:0/state", state, sizeof(state));
	ck_assert_str_eq(state, "running");
	read_back("sys/bus/scsi/devices/1:0:0:2/state", state, sizeof(state));
	ck_assert_str_eq(state, "offline");
	ck_assert_msg(strstr(log_text,
			     "<5>1:0:0: session3 iqn.2003-01.org.example:t,1 is LOGGED_IN "
			     "again: its LUNs are brought back"),
		      "%s", log_text);
	ck_assert(strstr(log_text, "<5>1:0:0:0: offline; its path is back: set running"));
	ck_assert_msg(
		strstr(log_text, "1:0:0: its path is back: 1 LUN(s) set running, 1 read again"),
		"%s", log_text);
	drop_tree(e, sys);
}
END_TEST

START_TEST(engine_parses_from_many_threads)
{
	struct engine_options opt = defaults;
	const char *quirks = getenv("QUIRKS_DIR");
	const char *dirs[] = { quirks ? quirks : "quirks.d" };
	struct sysfs_ctx *sys;
	struct engine *e;
	int reloads = 0;

	opt.max_workers = 8;
	e = make_engine(&sys, &opt);
	for (int h = 2; h < 8; h++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "sys/class/scsi_host/host%d", h);
		mkpath(rel);
		snprintf(rel, sizeof(rel), "sys/class/scsi_host/host%d/scan", h);
		touch(rel, "");
	}
	/* every host's scan parses the hold-outs, while the main thread
	 * reloads the database: libconfuse parses one at a time */
	mkpath("run/scsi-scan/holdout");
	touch("run/scsi-scan/holdout/fc-5001438002a3b4c1-lun-2.conf",
	      "lunmask \"held out\" {\n\tport_name = \"0x5001438002a3b4c1\"\n"
	      "\texclude_luns = { 2 }\n}\n");
	ck_assert_int_eq(engine_coldplug(e), 0);
	while (!engine_idle(e) && reloads < 200) {
		struct pollfd p[2];
		size_t n = engine_pollfds(e, p);

		ck_assert_int_eq(engine_load_db(e, dirs, 1, true), 0);
		reloads++;
		poll(p, n, 0);
		engine_dispatch(e);
	}
	run_until_idle(e);
	for (int h = 0; h < 8; h++) {
		char want[32];

		snprintf(want, sizeof(want), "host%d: scanned in ", h);
		ck_assert_msg(strstr(log_text, want), "%s", want);
	}
	drop_tree(e, sys);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("coalesce");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, merge_rules, 0, sizeof(merge_cases) / sizeof(merge_cases[0]));
	tcase_add_test(tc, merge_limits);
	tcase_add_test(tc, forget_own_attaches);
	tcase_add_test(tc, put_back);
	suite_add_tcase(s, tc);
	tc = tcase_create("engine");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, engine_coldplug_and_events);
	tcase_add_test(tc, engine_full_queue_and_remove);
	tcase_add_test(tc, engine_reload_keeps_old_db);
	tcase_add_test(tc, engine_holdouts_want_lun_adds);
	tcase_add_test(tc, engine_path_back);
	tcase_add_test(tc, engine_parses_from_many_threads);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
