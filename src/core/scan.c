// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scan.c - the interpreter: the host loop, the host lock, the time bounds,
 * and one execute() that carries out the actions of each target's machine
 * (target.c) and of the releases left for the end of a host's scan.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
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
#include "devinfo.h"
#include "holdout.h"
#include "inuse.h"
#include "kflags.h"
#include "luns.h"
#include "idrecord.h"
#include "scan.h"
#include "sgio.h"
#include "target.h"
#include "topology.h"

#define DEFAULT_MAX_LUNS 512

/* A release left for the end of the host's scan: the report line it
 * updates, by index (the arrays grow while the host is scanned). */
struct pending_release {
	size_t target;
	size_t line;
	uint64_t lun;
};

/* A target's directory, opened once for the reads of its LUNs' attributes:
 * a path through /sys/bus/scsi/devices resolves a link and a dozen names
 * again for every LUN (2,047 reads: 778 ms of guest time by the path, 433
 * ms from the target's directory; BENCHMARKS.md). */
struct target_dir {
	int fd;
	unsigned int channel, id;
};

/* One host's scan in progress. */
struct host_scan {
	const struct scan_ctx *ctx;
	struct host_report *rep;
	unsigned int host;
	uint64_t max_luns;
	char driver[64];
	char host_port_name[32];
	char host_path[PATH_MAX];
	const struct discover_target *listed;
	size_t nlisted;
	const struct scsi_addr *before;
	size_t nbefore;
	bool wlun_impossible;
	long long max_lun_ok;
	int scan_fd;
	uint64_t start_ms;
	uint64_t target_start_ms;
	size_t writes;
	size_t target_writes;
	char stop_reason[160];
	/* the executor's buffers, and the node commands went through last */
	uint8_t *buf;
	uint8_t *report;
	uint64_t *luns;
	char why[512];
	int node_fd;
	uint64_t node_lun;
	struct target_dir dir;
	/* the identity record read last, for the pages asked of it in turn */
	struct id_record *record;
	struct scsi_addr record_addr;
	bool has_record;
	struct pending_release *pending;
	size_t npending;
	/* the volumes held out, read once the host is locked (the host's
	 * report owns them) */
	const struct quirk_db *holdouts;
	/* what the writers of the last TARGET_ATTACH_LUNS read right after
	 * each write, until the machine asks it */
	struct batch_reads *reads;
};

/* The reads a TARGET_ATTACH_LUNS with read_after did with its writes:
 * attribute @attr of each of @luns (its result: the bytes, a negative
 * errno, or 0 when there is none or it was served), the bytes in @data at
 * @off. */
struct batch_reads {
	enum target_attr attr;
	uint64_t *luns;
	int *result;
	size_t *off;
	size_t n;
	size_t hint;
	uint8_t *data;
	size_t used;
	size_t alloc;
};

static void batch_reads_free(struct host_scan *hs)
{
	struct batch_reads *br = hs->reads;

	if (!br)
		return;
	free(br->luns);
	free(br->result);
	free(br->off);
	free(br->data);
	free(br);
	hs->reads = NULL;
}

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

uint64_t scan_now_ms(void)
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
	uint64_t now = scan_now_ms();

	if (hs->ctx->cancel && atomic_load(hs->ctx->cancel)) {
		snprintf(hs->stop_reason, sizeof(hs->stop_reason),
			 "cancelled (the program is stopping)");
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

/* What the scan's time bounds leave, in ms, or -1 for none. */
static long long ms_left(const struct host_scan *hs)
{
	const struct scan_options *o = &hs->ctx->opt;
	uint64_t now = scan_now_ms(), end = UINT64_MAX;

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

/* Writers of a TARGET_ATTACH_LUNS hand-over. The kernel takes one scan
 * write of a host at a time (scan_mutex); a second writer makes its way
 * into the kernel while the first one's LUN is probed. */
#define SCAN_BATCH_WRITERS 2

/* One TARGET_ATTACH_LUNS, shared by its writers. */
struct batch_writes {
	struct host_scan *hs;
	unsigned int channel, id;
	const uint64_t *luns;
	size_t nluns;
	struct batch_reads *reads;
	pthread_mutex_t lock;
	size_t next;
	int error;
};

static int read_attr_bin(const struct scan_ctx *ctx, struct target_dir *dir,
			 const struct scsi_addr *lun, enum target_attr attr, uint8_t *buf);

static void target_dir_close(struct target_dir *dir)
{
	if (dir->fd >= 0)
		close(dir->fd);
	dir->fd = -1;
}

/* Keeps what the read after the write of LUN @i gave (under the lock). */
static void batch_keep(struct batch_reads *br, size_t i, int r, const uint8_t *page)
{
	if (r > 0 && br->alloc - br->used < (size_t)r) {
		size_t alloc = br->alloc ? br->alloc : 16384;
		uint8_t *data;

		while (alloc - br->used < (size_t)r)
			alloc *= 2;
		data = realloc(br->data, alloc);
		if (!data)
			return;
		br->data = data;
		br->alloc = alloc;
	}
	if (r > 0) {
		memcpy(br->data + br->used, page, (size_t)r);
		br->off[i] = br->used;
		br->used += (size_t)r;
	}
	br->result[i] = r;
}

/* Writes the hand-over's LUNs in turn with the other writers, through @fd,
 * until they are done or one write fails; with @page, reads what the
 * machine asks first of each LUN attached right after its write, while
 * the other writer's LUN is probed. */
static void batch_write(struct batch_writes *b, int fd, struct target_dir *dir, uint8_t *page)
{
	struct host_scan *hs = b->hs;

	for (;;) {
		struct scsi_addr a = { hs->host, b->channel, b->id, 0 };
		size_t i = 0;
		uint64_t lun = 0;
		int r;

		pthread_mutex_lock(&b->lock);
		r = b->error || b->next >= b->nluns ? 1 : scan_bound(hs);
		if (r == 0) {
			i = b->next++;
			lun = b->luns[i];
			hs->writes++;
			hs->target_writes++;
		} else if (r < 0) {
			b->error = r;
		}
		pthread_mutex_unlock(&b->lock);
		if (r != 0)
			return;
		r = sysfs_scan_fd(fd, (int)b->channel, (int)b->id, lun);
		pthread_mutex_lock(&b->lock);
		if (r < 0 && !b->error)
			b->error = r;
		else if (r == 0 && (long long)lun > hs->max_lun_ok)
			hs->max_lun_ok = (long long)lun;
		pthread_mutex_unlock(&b->lock);
		if (r < 0 || !b->reads || !page)
			continue;
		a.lun = lun;
		r = read_attr_bin(hs->ctx, dir, &a, b->reads->attr, page);
		pthread_mutex_lock(&b->lock);
		batch_keep(b->reads, i, r, page);
		pthread_mutex_unlock(&b->lock);
	}
}

static void *batch_writer(void *arg)
{
	struct batch_writes *b = arg;
	int fd = sysfs_scan_open(b->hs->ctx->sys, b->hs->host);
	uint8_t *page = b->reads ? malloc(VPD_PAGE_MAX) : NULL;
	struct target_dir dir = { .fd = -1 };

	if (fd >= 0) {
		batch_write(b, fd, &dir, page);
		close(fd);
	}
	target_dir_close(&dir);
	free(page);
	return NULL;
}

/* The room for the reads a hand-over does with its writes, or NULL (they
 * are then read when the machine asks). */
static struct batch_reads *batch_reads_new(const struct target_action *a)
{
	struct batch_reads *br = calloc(1, sizeof(*br));

	if (!br)
		return NULL;
	br->attr = a->attr;
	br->n = a->nluns;
	br->luns = malloc(a->nluns * sizeof(*br->luns));
	br->result = calloc(a->nluns, sizeof(*br->result));
	br->off = calloc(a->nluns, sizeof(*br->off));
	if (!br->luns || !br->result || !br->off) {
		free(br->luns);
		free(br->result);
		free(br->off);
		free(br);
		return NULL;
	}
	memcpy(br->luns, a->luns, a->nluns * sizeof(*br->luns));
	return br;
}

/* The writers of a hand-over: one where this process runs on one CPU only,
 * where a second writer has no probe to overlap and costs the switches
 * between the two (2 % of a restricted target's scan of 2,047 LUNs with
 * one vCPU; BENCHMARKS.md). */
static size_t batch_writers(void)
{
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) == 1)
		return 1;
	return SCAN_BATCH_WRITERS;
}

/* Writes "C T L" for each LUN of @a (see TARGET_ATTACH_LUNS), reading what
 * it asks with each. Return: 0, or the first failure's negative errno. */
static int host_scan_write_luns(struct host_scan *hs, unsigned int channel, unsigned int id,
				const struct target_action *a)
{
	struct batch_writes b = {
		.hs = hs, .channel = channel, .id = id, .luns = a->luns, .nluns = a->nluns
	};
	pthread_t tid[SCAN_BATCH_WRITERS - 1];
	bool started[SCAN_BATCH_WRITERS - 1] = { false };
	size_t writers = batch_writers();

	batch_reads_free(hs);
	if (hs->scan_fd < 0) {
		hs->scan_fd = sysfs_scan_open(hs->ctx->sys, hs->host);
		if (hs->scan_fd < 0)
			return hs->scan_fd;
	}
	if (a->read_after && a->nluns)
		b.reads = batch_reads_new(a);
	pthread_mutex_init(&b.lock, NULL);
	/* Without another thread, this one writes them all. */
	for (size_t k = 0; k + 1 < writers && a->nluns > 1; k++)
		started[k] = pthread_create(&tid[k], NULL, batch_writer, &b) == 0;
	batch_write(&b, hs->scan_fd, &hs->dir, b.reads ? hs->buf : NULL);
	for (size_t k = 0; k + 1 < SCAN_BATCH_WRITERS; k++)
		if (started[k])
			pthread_join(tid[k], NULL);
	pthread_mutex_destroy(&b.lock);
	hs->reads = b.reads;
	return b.error;
}

/* Serves a read of @lun's @attr from the hand-over's reads, once. Return:
 * true with @o filled. */
static bool batch_read(struct host_scan *hs, uint64_t lun, enum target_attr attr,
		       struct target_obs *o)
{
	struct batch_reads *br = hs->reads;
	size_t i;

	if (!br || br->attr != attr)
		return false;
	/* The machine asks in the hand-over's order: one look, mostly. */
	for (i = br->hint; i < br->n && br->luns[i] != lun; i++)
		;
	if (i == br->n)
		for (i = 0; i < br->hint && br->luns[i] != lun; i++)
			;
	if (i >= br->n || br->luns[i] != lun || br->result[i] == 0)
		return false;
	o->result = br->result[i];
	o->data = br->result[i] > 0 ? br->data + br->off[i] : hs->buf;
	o->len = br->result[i] > 0 ? (size_t)br->result[i] : 0;
	br->result[i] = 0;
	br->hint = i + 1;
	return true;
}

/* The LUNs of one target attached now, sorted: sysfs_devices() lists
 * them in order. */
static int target_luns(struct host_scan *hs, const struct scsi_addr *t, struct target_obs *o)
{
	struct scsi_addr *addrs = NULL;
	uint64_t *luns;
	size_t n = 0, count = 0;
	int r;

	r = sysfs_devices(hs->ctx->sys, (int)hs->host, &addrs, &n);
	if (r < 0)
		return r;
	luns = realloc(hs->luns, (n ? n : 1) * sizeof(*luns));
	if (!luns) {
		free(addrs);
		return -ENOMEM;
	}
	hs->luns = luns;
	for (size_t i = 0; i < n; i++)
		if (addrs[i].channel == t->channel && addrs[i].id == t->id)
			luns[count++] = addrs[i].lun;
	free(addrs);
	o->luns = luns;
	o->nluns = count;
	return 0;
}

/* The node of @lun for commands, opened once while commands go to it. */
static int node_of(struct host_scan *hs, const struct scsi_addr *a)
{
	char node[PATH_MAX];

	if (hs->node_fd >= 0 && hs->node_lun == a->lun)
		return hs->node_fd;
	sgio_close(hs->node_fd);
	hs->node_fd = -1;
	if (sysfs_device_node(hs->ctx->sys, a, node, sizeof(node)) < 0 ||
	    sgio_open(node, &hs->node_fd) < 0) {
		hs->node_fd = -1;
		return -ENOENT;
	}
	hs->node_lun = a->lun;
	return hs->node_fd;
}

/* The file of a binary attribute the scan reads for every LUN, or NULL. */
static const char *attr_file(enum target_attr attr)
{
	switch (attr) {
	case ATTR_INQUIRY:
		return "inquiry";
	case ATTR_VPD80:
		return "vpd_pg80";
	case ATTR_VPD83:
		return "vpd_pg83";
	case ATTR_WWID:
	case ATTR_DH_STATE:
	case ATTR_RECORDED_INQUIRY:
	case ATTR_RECORDED_VPD80:
	case ATTR_RECORDED_VPD83:
		break;
	}
	return NULL;
}

/* A LUN's binary attribute, at most VPD_PAGE_MAX bytes, read from its
 * target's directory (@dir, opened through the LUN when it is another
 * target's or none). A target whose last LUN went is a new directory when
 * it comes back: a read through a directory opened before that does not
 * find the LUN there is tried once more through a fresh one. */
static int read_attr_bin(const struct scan_ctx *ctx, struct target_dir *dir,
			 const struct scsi_addr *lun, enum target_attr attr, uint8_t *buf)
{
	const char *file = attr_file(attr);
	bool fresh = false;
	char name[32], rel[64];
	size_t n, f;
	int r;

	if (!file)
		return -EINVAL;
	scsi_addr_format(lun, name, sizeof(name));
	/* "H:C:T:L/file", put together once per LUN read without a printf. */
	n = strlen(name);
	f = strlen(file);
	if (n + 1 + f >= sizeof(rel))
		return -ENAMETOOLONG;
	memcpy(rel, name, n);
	rel[n] = '/';
	memcpy(rel + n + 1, file, f + 1);
	for (;;) {
		if (dir->fd < 0 || dir->channel != lun->channel || dir->id != lun->id) {
			target_dir_close(dir);
			r = sysfs_dir_fd(ctx->sys, "/sys/bus/scsi/devices/%s/..", name);
			if (r == -ENOENT)
				return r;
			if (r < 0)
				return sysfs_read_bin(ctx->sys, buf, VPD_PAGE_MAX,
						      "/sys/bus/scsi/devices/%s/%s", name, file);
			dir->fd = r;
			dir->channel = lun->channel;
			dir->id = lun->id;
			fresh = true;
		}
		r = sysfs_read_bin_at(dir->fd, rel, buf, VPD_PAGE_MAX);
		/* Nothing there: the LUN lacks the attribute, unless the LUN
		 * itself is not found through that directory. */
		if (r != -ENOENT || fresh || faccessat(dir->fd, name, F_OK, 0) == 0)
			return r;
		target_dir_close(dir);
	}
}

/* A page of a LUN's identity record (read once for the pages asked in
 * turn): its length, -ENOENT when the record lacks it, or an errno. */
static int read_record(struct host_scan *hs, const struct scsi_addr *lun, enum target_attr attr)
{
	const uint8_t *page;
	size_t len;
	int r;

	if (!hs->record) {
		hs->record = malloc(sizeof(*hs->record));
		if (!hs->record)
			return -ENOMEM;
	}
	if (!hs->has_record || scsi_addr_cmp(&hs->record_addr, lun) != 0) {
		hs->has_record = false;
		/* A dry run writes no record either: without one, the kernel's
		 * copies stand in. */
		if (hs->ctx->opt.dry_run) {
			r = id_record_peek(hs->ctx->sys, lun, hs->record);
			if (r == -ENOENT)
				r = id_record_kernel(hs->ctx->sys, lun, hs->record);
		} else {
			r = id_record_get(hs->ctx->sys, lun, hs->record);
		}
		if (r < 0)
			return r;
		hs->record_addr = *lun;
		hs->has_record = true;
	}
	page = attr == ATTR_RECORDED_INQUIRY ? hs->record->inquiry
	       : attr == ATTR_RECORDED_VPD80 ? hs->record->vpd80
					     : hs->record->vpd83;
	len = attr == ATTR_RECORDED_INQUIRY ? hs->record->inquiry_len
	      : attr == ATTR_RECORDED_VPD80 ? hs->record->vpd80_len
					    : hs->record->vpd83_len;
	if (!len)
		return -ENOENT;
	memcpy(hs->buf, page, len);
	return (int)len;
}

static void command(struct host_scan *hs, int r, const struct sgio_error *err, struct target_obs *o)
{
	o->result = r;
	o->has_sense = r > 0 && err->has_sense;
	if (r != 0) {
		snprintf(hs->why, sizeof(hs->why), "%s", r > 0 ? err->text : strerror(-r));
		o->why = hs->why;
	}
}

/* Carries out one action of a machine on target @t (H:C:T). */
static void execute(struct host_scan *hs, const struct scsi_addr *t, const struct target_action *a,
		    struct target_obs *o)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct scsi_addr lun = *t;
	struct sgio_error err;
	uint64_t start;
	size_t got = 0;
	int fd, r;

	memset(o, 0, sizeof(*o));
	lun.lun = a->lun;
	/* The reads done with the hand-over's writes say what the kernel
	 * attached then; another write may change that. Commands through a
	 * node leave the kernel's copies as they are. */
	if (a->kind == TARGET_ATTACH || a->kind == TARGET_KERNEL_SCAN || a->kind == TARGET_DELETE ||
	    a->kind == TARGET_SET_HANDLER)
		batch_reads_free(hs);
	switch (a->kind) {
	case TARGET_ATTACH:
		start = scan_now_ms();
		o->result = host_scan_write(hs, t->channel, t->id, a->lun);
		o->ms = scan_now_ms() - start;
		if (o->result != 0)
			break;
		if (a->read_after) {
			/* The read the machine asks next tells it is attached:
			 * one open and one read per LUN, no stat. */
			r = read_attr_bin(ctx, &hs->dir, &lun, a->attr, hs->buf);
			o->read_result = r;
			o->data = hs->buf;
			o->len = r > 0 ? (size_t)r : 0;
		}
		o->attached = o->read_result > 0 || sysfs_device_exists(ctx->sys, &lun);
		break;
	case TARGET_KERNEL_SCAN:
		o->result = host_scan_write(hs, t->channel, t->id, UINT64_MAX);
		if (o->result == 0)
			o->result = target_luns(hs, t, o);
		break;
	case TARGET_ATTACH_LUNS:
		o->result = host_scan_write_luns(hs, t->channel, t->id, a);
		r = target_luns(hs, t, o);
		if (o->result == 0)
			o->result = r;
		break;
	case TARGET_INQUIRY:
		fd = node_of(hs, &lun);
		if (fd < 0) {
			o->result = fd;
			break;
		}
		r = sgio_inquiry(fd, hs->buf, a->len, ctx->opt.inquiry_timeout, &got, &err);
		command(hs, r, &err, o);
		o->data = hs->buf;
		o->len = got;
		break;
	case TARGET_VPD:
		fd = node_of(hs, &lun);
		if (fd < 0) {
			o->result = fd;
			break;
		}
		r = sgio_inquiry_vpd(fd, a->page, hs->buf, a->len, ctx->opt.inquiry_timeout, &got,
				     &err);
		command(hs, r, &err, o);
		o->data = hs->buf;
		o->len = got;
		break;
	case TARGET_REPORT_LUNS:
		fd = node_of(hs, &lun);
		if (fd < 0) {
			o->result = fd;
			break;
		}
		free(hs->report);
		hs->report = NULL;
		r = sgio_report_luns(fd, ctx->opt.report_luns_timeout, &hs->report, &got, &err);
		command(hs, r, &err, o);
		o->data = hs->report;
		o->len = got;
		break;
	case TARGET_READ:
		if (batch_read(hs, a->lun, a->attr, o))
			break;
		if (a->attr == ATTR_WWID) {
			r = sysfs_device_attr(ctx->sys, &lun, "wwid", (char *)hs->buf,
					      SCSI_WWID_MAX + 1);
		} else if (a->attr == ATTR_DH_STATE) {
			r = sysfs_device_attr(ctx->sys, &lun, "dh_state", (char *)hs->buf, 32);
		} else if (a->attr >= ATTR_RECORDED_INQUIRY) {
			r = read_record(hs, &lun, a->attr);
		} else {
			r = read_attr_bin(ctx, &hs->dir, &lun, a->attr, hs->buf);
		}
		o->result = r;
		o->data = hs->buf;
		o->len = r > 0 ? (size_t)r : 0;
		break;
	case TARGET_LIST:
		o->result = target_luns(hs, t, o);
		break;
	case TARGET_IN_USE:
		o->result = device_in_use(ctx->sys, &lun, hs->why, sizeof(hs->why));
		o->why = hs->why;
		break;
	case TARGET_DELETE:
		if (hs->node_lun == a->lun) {
			sgio_close(hs->node_fd);
			hs->node_fd = -1;
		}
		o->result = sysfs_delete(ctx->sys, &lun);
		if (o->result == 0) {
			id_record_forget(ctx->sys, &lun);
			hs->has_record = false;
		}
		break;
	case TARGET_SET_HANDLER:
		o->result = sysfs_device_write(ctx->sys, &lun, "dh_state", a->text);
		break;
	case TARGET_LOST:
		o->result = topology_target_lost(ctx->sys, hs->host, t->channel, t->id, hs->why,
						 sizeof(hs->why));
		o->why = hs->why;
		break;
	case TARGET_DONE:
		break;
	}
	if (a->kind == TARGET_ATTACH || a->kind == TARGET_KERNEL_SCAN ||
	    a->kind == TARGET_ATTACH_LUNS) {
		o->max_lun_ok = hs->max_lun_ok;
		if (o->result == -ETIMEDOUT || o->result == -ECANCELED)
			o->why = hs->stop_reason;
	}
	o->bound = scan_bound(hs);
	o->bound_why = hs->stop_reason;
	o->ms_left = ms_left(hs);
}

/* The lunmask targets of @c:@id: one per entry of the transport's list. */
static ssize_t addresses(const struct host_scan *hs, unsigned int c, unsigned int id,
			 struct lunmask_target **ret, char (**iqns)[ISCSI_NAME_MAX + 16])
{
	const struct lunmask_target base = {
		.host = hs->host,
		.driver = hs->driver[0] ? hs->driver : NULL,
		.host_port_name = hs->host_port_name[0] ? hs->host_port_name : NULL,
		.host_path = hs->host_path[0] ? hs->host_path : NULL,
		.channel = c,
		.id = id,
		.iscsi_tpgt = -1,
	};

	return discover_lunmask_targets(hs->listed, hs->nlisted, hs->rep->transport, &base, ret,
					iqns);
}

/* The LUNs of @c:@id attached when the host's scan started. */
static int before_of(const struct host_scan *hs, unsigned int c, unsigned int id, uint64_t **ret,
		     size_t *ret_n)
{
	uint64_t *v = malloc((hs->nbefore ? hs->nbefore : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < hs->nbefore; i++)
		if (hs->before[i].channel == c && hs->before[i].id == id)
			v[n++] = hs->before[i].lun;
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The flags the kernel applied to the first LUN this scan attached, held
 * against the database's: a difference is logged once, when it attaches. */
static void log_kflags(const struct scan_ctx *ctx, const struct target_report *t)
{
	struct kflags_check c;
	bool names = false;
	char name[40], text[1024], a[512], b[512], why[512];
	struct scsi_addr lun = t->addr;
	size_t i;
	int r;

	if (!ctx->log || !t->has_inquiry)
		return;
	for (i = 0; i < t->nluns && t->luns[i].outcome != LUN_ATTACHED; i++)
		;
	if (i == t->nluns)
		return;
	lun.lun = t->luns[i].lun;
	for (size_t k = 0; k < t->match.count; k++)
		names |= t->match.sources[k]->sets_flags || t->match.sources[k]->add_flags ||
			 t->match.sources[k]->drop_flags;
	r = sysfs_device_attr(ctx->sys, &lun, "blacklist", text, sizeof(text));
	kflags_check(t->match.flags, names, t->inq.pdt, r >= 0 ? text : NULL, t->inq.vendor,
		     t->inq.model, &c);
	if (!kflags_differ(&c))
		return;
	if (blist_flags_format(c.database, ",", a, sizeof(a)) < 0 || !a[0])
		snprintf(a, sizeof(a), "-");
	if (blist_flags_format(c.kernel, ",", b, sizeof(b)) < 0 || !b[0])
		snprintf(b, sizeof(b), "-");
	kflags_delivery(&c, why, sizeof(why));
	slog(ctx, LOG_WARNING, "%s: the kernel applied flags %s, the database gives %s: %s",
	     scsi_addr_format(&lun, name, sizeof(name)), b, a, why);
}

/* What the scan did about the device handlers of the LUNs it attached. */
static void log_handlers(const struct scan_ctx *ctx, const struct target_report *t)
{
	for (size_t i = 0; i < t->nhandlers; i++) {
		const struct handler_result *h = &t->handlers[i];
		char name[40];
		struct scsi_addr a = t->addr;

		a.lun = h->lun;
		scsi_addr_format(&a, name, sizeof(name));
		if (h->step == HANDLER_ATTACH && !h->error)
			slog(ctx, LOG_INFO, "%s: device handler %s attached (dh_state)", name,
			     t->handler.name);
		else if (h->step == HANDLER_ATTACH)
			slog(ctx, LOG_WARNING, "%s: device handler %s: writing dh_state failed: %s",
			     name, t->handler.name, strerror(-h->error));
		else if (h->step == HANDLER_NOT_KERNEL)
			slog(ctx, LOG_WARNING,
			     "%s: device handler %s is none of scsi_dh's: dh_state not written",
			     name, t->handler.name);
		else if (h->step == HANDLER_CONFLICT)
			slog(ctx, LOG_WARNING,
			     "%s: has device handler %s, the database gives %s (dh_state cannot "
			     "replace it)",
			     name, h->had, t->handler.name);
	}
}

/*
 * One target, from discovery's action to its machine's end. Return: the
 * machine's end, with the target's report appended to the host's for
 * TARGET_END_FOUND; @ret_error: its error.
 */
static enum target_end_kind run_target(struct host_scan *hs, const struct discover_action *da,
				       const struct selector *sel, int *ret_error)
{
	const struct scan_ctx *ctx = hs->ctx;
	struct scsi_addr addr = { hs->host, da->channel, da->id, 0 };
	char(*iqns)[ISCSI_NAME_MAX + 16] = NULL;
	struct target_input in = { 0 };
	struct lunmask_target *addrs = NULL;
	struct target_report tr;
	struct target_machine m;
	struct target_action a;
	struct target_obs o;
	uint64_t *before = NULL, *known = NULL;
	ssize_t naddrs;
	size_t nbefore = 0, nknown = 0, nmasks = 0;
	const struct target_deferred *d;
	size_t nd;

	*ret_error = 0;
	hs->target_start_ms = scan_now_ms();
	hs->target_writes = 0;
	naddrs = addresses(hs, da->channel, da->id, &addrs, &iqns);
	if (naddrs < 0 || before_of(hs, da->channel, da->id, &before, &nbefore) < 0) {
		free(addrs);
		free(iqns);
		*ret_error = -ENOMEM;
		return TARGET_END_ABORT;
	}
	in.addr = addr;
	in.db = ctx->db;
	in.holdouts = hs->holdouts;
	in.dry_run = ctx->opt.dry_run;
	in.remove = ctx->opt.remove;
	in.remove_refused = ctx->opt.remove_refused;
	in.force = ctx->opt.force;
	in.attach_ghosts = ctx->opt.attach_ghosts;
	in.investigate = ctx->opt.investigate;
	in.check_identity = !ctx->opt.investigate;
	in.has_only_lun = sel->lun_set;
	in.only_lun = sel->lun;
	in.look = da->look;
	in.listed = da->listed;
	in.found_reason = da->reason;
	in.found_code = da->listed ? SC_LISTED : SC_PROBED;
	in.transport = hs->rep->transport != DISCOVER_PROBE;
	in.addresses = addrs;
	in.naddresses = (size_t)naddrs;
	in.before = before;
	in.nbefore = nbefore;
	/* A target with nothing attached under a policy may be reachable
	 * only through a LUN it had earlier (struct reach_input's known). */
	quirk_db_lunmasks(ctx->db, &nmasks);
	if (!nbefore && (hs->holdouts || nmasks) &&
	    id_record_luns(ctx->sys, hs->host, da->channel, da->id, &known, &nknown) == 0) {
		in.known = known;
		in.nknown = nknown;
	}
	in.max_luns = hs->max_luns;
	in.driver = hs->driver[0] ? hs->driver : NULL;
	in.wlun_impossible = hs->wlun_impossible;
	in.max_lun_ok = hs->max_lun_ok;
	target_init(&m, &in);
	for (target_step(&m, NULL, &a); a.kind != TARGET_DONE; target_step(&m, &o, &a))
		execute(hs, &addr, &a, &o);
	if (target_wlun_impossible(&m) && !hs->wlun_impossible) {
		hs->wlun_impossible = true;
		snprintf(hs->rep->notes, sizeof(hs->rep->notes),
			 "the host's LUN limit is below the REPORT LUNS well-known LUN "
			 "(49409): a target without LUN 0 is scanned by the kernel, then "
			 "the quirk database applied");
	}
	sgio_close(hs->node_fd);
	hs->node_fd = -1;
	*ret_error = a.error;
	if (a.end == TARGET_END_FOUND) {
		struct target_report *t;

		target_take_report(&m, &tr);
		t = report_add_target(hs->rep, &tr);
		if (!t) {
			*ret_error = -ENOMEM;
			a.end = TARGET_END_ABORT;
		} else {
			d = target_deferred(&m, &nd);
			for (size_t i = 0; i < nd; i++) {
				struct pending_release *p =
					realloc(hs->pending, (hs->npending + 1) * sizeof(*p));

				if (!p) {
					*ret_error = -ENOMEM;
					break;
				}
				hs->pending = p;
				hs->pending[hs->npending++] =
					(struct pending_release){ (size_t)(t - hs->rep->targets),
								  d[i].line, d[i].lun };
			}
			log_handlers(ctx, t);
			log_kflags(ctx, t);
			slog(ctx, LOG_DEBUG, "%u:%u:%u: %s%s%s", hs->host, da->channel, da->id,
			     t->failed ? "failed: " : "scanned: ",
			     t->failed ? t->error : t->end_reason,
			     t->reach_reason[0] ? " (reached: see explain)" : "");
		}
	}
	batch_reads_free(hs);
	target_free(&m);
	free(addrs);
	free(iqns);
	free(before);
	free(known);
	return a.end;
}

/* The releases the machines left for the end of the host's scan: with one
 * LUN left on a host, every later probe of an empty id would cost the
 * kernel a switch of the host's tag set. */
static void finish_releases(struct host_scan *hs)
{
	static const struct removal_evidence ours = { .cause = REMOVAL_OURS };

	for (size_t i = 0; i < hs->npending; i++) {
		struct target_report *t = &hs->rep->targets[hs->pending[i].target];
		struct lun_report *l = &t->luns[hs->pending[i].line];
		struct release_line rl;
		struct release rel;
		struct target_action a;
		struct target_obs o;

		/* This scan attached them: ghosts past the first, an
		 * investigation's LUNs. */
		release_init(&rel, RELEASE_DEFERRED, &ours, l->lun, l->code, l->reason, false,
			     hs->ctx->opt.force);
		release_step(&rel, NULL, &a, &rl);
		while (a.kind != TARGET_DONE) {
			execute(hs, &t->addr, &a, &o);
			release_step(&rel, &o, &a, &rl);
		}
		if (rl.set) {
			l->outcome = rl.outcome;
			l->code = rl.code;
			report_set_reason(t, l, "%s", rl.reason);
		}
	}
	free(hs->pending);
	hs->pending = NULL;
	hs->npending = 0;
}

/*
 * A dry run of one named target may attach one LUN of it, when nothing of
 * it is attached, to read it, and deletes it again: the question "why is
 * my new LUN not there?" is asked of exactly such targets.
 */
static bool dry_run_looks(const struct scan_ctx *ctx, const struct selector *sel)
{
	return ctx->opt.dry_run && !ctx->opt.investigate && sel->channel != SCAN_WILDCARD &&
	       sel->id != SCAN_WILDCARD;
}

/* Whether a dry run's look may write to @host: its one named target has
 * nothing attached. Only then is the host lock taken, so that explain of
 * an attached target does not wait for, or fail on, a running scan. */
static bool look_may_write(const struct scan_ctx *ctx, unsigned int host,
			   const struct selector *sel)
{
	struct scsi_addr *addrs = NULL;
	bool attached = false;
	size_t n = 0;

	if (!dry_run_looks(ctx, sel))
		return false;
	if (sysfs_devices(ctx->sys, (int)host, &addrs, &n) < 0)
		return true;
	for (size_t i = 0; i < n && !attached; i++)
		attached = addrs[i].channel == (unsigned int)sel->channel &&
			   addrs[i].id == (unsigned int)sel->id;
	free(addrs);
	return !attached;
}

/* A hold-out whose LUN the target's whole REPORT LUNS no longer lists is
 * done with: the array took the volume away, and a volume mapped at that
 * number later is another one. */
static void holdouts_unlisted(const struct host_scan *hs, const struct target_report *t)
{
	const struct lunmask_entry *held;
	size_t nheld;

	if (!hs->holdouts || hs->ctx->opt.dry_run || !t->report_read || !t->report_complete)
		return;
	held = quirk_db_lunmasks(hs->holdouts, &nheld);
	for (size_t i = 0; i < t->mask.count; i++) {
		const struct lunmask_entry *e = t->mask.items[i];

		if (e < held || e >= held + nheld ||
		    !holdout_retired(e, t->reported, t->nreported, t->report_complete) ||
		    holdout_unlink(e) < 0)
			continue;
		slog(hs->ctx, LOG_NOTICE,
		     "%u:%u:%u: LUN %" PRIu64 " is no longer listed: its hold-out %s is taken away",
		     t->addr.host, t->addr.channel, t->addr.id, e->exclude[0].first, e->file);
	}
}

static int scan_host(const struct scan_ctx *ctx, unsigned int host, const struct selector *sel,
		     struct host_report *rep)
{
	struct host_scan hs = {
		.ctx = ctx,
		.rep = rep,
		.host = host,
		.scan_fd = -1,
		.max_lun_ok = -1,
		.node_fd = -1,
		.dir = { .fd = -1 },
	};
	enum discover_outcome out = DISCOVER_OUT_NONE;
	struct discover_target *listed = NULL;
	struct scsi_addr *before = NULL;
	struct discover_action da;
	struct discover d;
	size_t nbefore = 0, nlisted = 0;
	char proc_name[64], ata_port[32];
	int r, ata;

	hs.start_ms = hs.target_start_ms = scan_now_ms();
	hs.buf = malloc(VPD_PAGE_MAX);
	if (!hs.buf)
		return -ENOMEM;
	if (sysfs_module_param(ctx->sys, "scsi_mod", "max_luns", &hs.max_luns) < 0)
		hs.max_luns = DEFAULT_MAX_LUNS;
	if (sysfs_read(ctx->sys, proc_name, sizeof(proc_name),
		       "/sys/class/scsi_host/host%u/proc_name", host) > 0)
		snprintf(hs.driver, sizeof(hs.driver), "%s", proc_name);
	if (sysfs_read(ctx->sys, hs.host_port_name, sizeof(hs.host_port_name),
		       "/sys/class/fc_host/host%u/port_name", host) < 0)
		hs.host_port_name[0] = '\0';
	if (sysfs_host_path(ctx->sys, host, hs.host_path, sizeof(hs.host_path)) < 0)
		hs.host_path[0] = '\0';
	/* A hold-out that does not load keeps nothing out: the report says
	 * so, and the log. */
	r = holdout_load(ctx->sys, &rep->holdouts, &rep->holdout_errors);
	for (size_t i = 0; i < rep->holdout_errors.count; i++)
		slog(ctx, LOG_WARNING, "host%u: hold-out %s:%u: %s: it is not in force", host,
		     rep->holdout_errors.items[i].file, rep->holdout_errors.items[i].line,
		     rep->holdout_errors.items[i].message);
	if (r < 0)
		goto out;
	hs.holdouts = rep->holdouts;
	r = topology_read(ctx->sys, host, &rep->transport, &listed, &nlisted);
	if (r < 0)
		goto out;
	hs.listed = listed;
	hs.nlisted = nlisted;
	r = sysfs_devices(ctx->sys, (int)host, &before, &nbefore);
	if (r < 0)
		goto out;
	hs.before = before;
	hs.nbefore = nbefore;
	ata = topology_ata_port(ctx->sys, host, ata_port, sizeof(ata_port));
	discover_init(&d, &(struct discover_input){ .transport = rep->transport,
						    .targets = listed,
						    .ntargets = nlisted,
						    .channel = sel->channel,
						    .id = sel->id,
						    .dry_run = ctx->opt.dry_run,
						    .look = dry_run_looks(ctx, sel),
						    .attached = before,
						    .nattached = nbefore,
						    .ata_port = ata ? ata_port : NULL });
	for (;;) {
		enum target_end_kind end;
		int error;

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
			struct target_report tr = { .addr = { host, da.channel, da.id, 0 } };
			struct target_report *t;

			report_fail(&tr, "%s", da.reason);
			tr.retry_later = true;
			t = report_add_target(rep, &tr);
			if (!t) {
				r = -ENOMEM;
				break;
			}
			continue;
		}
		end = run_target(&hs, &da, sel, &error);
		if (rep->ntargets && rep->targets[rep->ntargets - 1].addr.channel == da.channel &&
		    rep->targets[rep->ntargets - 1].addr.id == da.id)
			holdouts_unlisted(&hs, &rep->targets[rep->ntargets - 1]);
		if (end == TARGET_END_LIMIT) {
			out = DISCOVER_OUT_LIMIT;
			continue;
		}
		if (end == TARGET_END_ABORT || error == -ECANCELED || error == -ENOMEM) {
			r = error ? error : -EIO;
			break;
		}
		out = end == TARGET_END_FOUND ? DISCOVER_OUT_FOUND : DISCOVER_OUT_EMPTY;
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
	finish_releases(&hs);
	if (hs.scan_fd >= 0)
		close(hs.scan_fd);
	target_dir_close(&hs.dir);
	free(hs.buf);
	free(hs.record);
	free(hs.report);
	free(hs.luns);
	free(hs.pending);
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
		if (r != -EWOULDBLOCK || scan_now_ms() >= ctx->opt.deadline_ms)
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

	/* Where the kernel takes device entries at run time, the LUNs this
	 * scan attaches get the database's flags. */
	if (!ctx->opt.dry_run && !ctx->opt.investigate) {
		size_t written;

		r = devinfo_proc_sync(ctx->sys, ctx->db, &written);
		if (r < 0 && r != -ENOENT)
			slog(ctx, LOG_WARNING, "quirks: cannot write /proc/scsi/device_info: %s",
			     strerror(-r));
		else if (written)
			slog(ctx, LOG_INFO, "quirks: %zu entries written to /proc/scsi/device_info",
			     written);
		r = 0;
	}

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
		if (ctx->opt.time_limit && scan_now_ms() >= ctx->opt.deadline_ms) {
			h->failed = true;
			snprintf(h->error, sizeof(h->error),
				 "not scanned: the run reached its time limit of %u s",
				 ctx->opt.time_limit);
			continue;
		}
		if (!ctx->opt.dry_run || look_may_write(ctx, hosts[i], sel)) {
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

/* One host's share of scan_selected_hosts(). */
struct host_thread {
	const struct scan_ctx *ctx;
	const struct selector *sel;
	size_t n;
	int host;
	struct scan_report rep;
	int ret;
};

static void *scan_host_thread(void *arg)
{
	struct host_thread *t = arg;

	for (size_t i = 0; i < t->n && t->ret >= 0; i++)
		if (t->sel[i].host == t->host) {
			int r = scan_selected(t->ctx, &t->sel[i], &t->rep);

			if (r < 0 && t->ret == 0)
				t->ret = r;
			if (r == -ENOMEM || r == -ECANCELED)
				break;
		}
	return NULL;
}

/* Moves @from's hosts to the end of @to. */
static int report_append(struct scan_report *to, struct scan_report *from)
{
	struct host_report *h;

	if (!from->nhosts)
		return 0;
	h = realloc(to->hosts, (to->nhosts + from->nhosts) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	memcpy(h + to->nhosts, from->hosts, from->nhosts * sizeof(*h));
	to->hosts = h;
	to->nhosts += from->nhosts;
	free(from->hosts);
	from->hosts = NULL;
	from->nhosts = 0;
	return 0;
}

int scan_selected_hosts(const struct scan_ctx *ctx, const struct selector *sel, size_t n,
			struct scan_report *rep)
{
	struct host_thread *t = calloc(n + 1, sizeof(*t));
	pthread_t *tid = calloc(n + 1, sizeof(*tid));
	bool *started = calloc(n + 1, sizeof(*started));
	size_t nt = 0;
	int r = 0;

	if (!t || !tid || !started) {
		free(t);
		free(tid);
		free(started);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t k = 0; k < nt && !seen; k++)
			seen = t[k].host == sel[i].host;
		if (!seen)
			t[nt++] = (struct host_thread){ ctx, sel, n, sel[i].host, { 0 }, 0 };
	}
	for (size_t k = 0; k < nt; k++) {
		started[k] = pthread_create(&tid[k], NULL, scan_host_thread, &t[k]) == 0;
		/* Without a thread, the host is scanned here, in turn. */
		if (!started[k])
			scan_host_thread(&t[k]);
	}
	for (size_t k = 0; k < nt; k++) {
		if (started[k])
			pthread_join(tid[k], NULL);
		if (t[k].ret < 0 && r == 0)
			r = t[k].ret;
		if (report_append(rep, &t[k].rep) < 0 && r == 0)
			r = -ENOMEM;
		scan_report_free(&t[k].rep);
	}
	free(t);
	free(tid);
	free(started);
	return r;
}
