// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * volops.c - a volume taken away, brought back, waited for and resized on
 * all its paths.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "holdout.h"
#include "hostlock.h"
#include "idrecord.h"
#include "inuse.h"
#include "removal.h"
#include "resize.h"
#include "scan.h"
#include "volops.h"

void volume_steps_free(struct volume_steps *s)
{
	free(s->v);
	s->v = NULL;
	s->count = 0;
}

const char *volume_step_kind_name(enum volume_step_kind k)
{
	static const char *const names[] = {
		[STEP_CHECK_MAP] = "check map",	    [STEP_CHECK_PATH] = "check path",
		[STEP_HOLD_OUT] = "hold out",	    [STEP_FLUSH_MAP] = "flush map",
		[STEP_DELETE_PATH] = "delete path", [STEP_RESIZE_PATH] = "resize path",
		[STEP_RESIZE_MAP] = "resize map",
	};

	return (unsigned int)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *volume_step_result_name(enum volume_step_result r)
{
	static const char *const names[] = {
		[STEP_DONE] = "done",	  [STEP_WOULD] = "would",     [STEP_REFUSED] = "refused",
		[STEP_FAILED] = "failed", [STEP_SKIPPED] = "skipped",
	};

	return (unsigned int)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

static struct volume_step *step_add(struct volume_steps *s, enum volume_step_kind kind,
				    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static struct volume_step *step_add(struct volume_steps *s, enum volume_step_kind kind,
				    const char *fmt, ...)
{
	struct volume_step *v = realloc(s->v, (s->count + 1) * sizeof(*v)), *st;
	va_list ap;

	if (!v)
		return NULL;
	s->v = v;
	st = &v[s->count++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->before = st->after = -1;
	va_start(ap, fmt);
	vsnprintf(st->what, sizeof(st->what), fmt, ap);
	va_end(ap);
	return st;
}

/* A step on one path, named "H:C:T:L sdX". */
static struct volume_step *path_step(struct volume_steps *s, enum volume_step_kind kind,
				     const struct path_devices *d)
{
	return step_add(s, kind, "%u:%u:%u:%llu%s%s", d->addr.host, d->addr.channel, d->addr.id,
			(unsigned long long)d->addr.lun, d->block[0] ? " " : "", d->block);
}

static void step_end(struct volume_step *st, int r, const char *why)
{
	st->result = r == 0 ? STEP_DONE : STEP_FAILED;
	st->error = r;
	if (why && why[0])
		snprintf(st->why, sizeof(st->why), "%s", why);
	else if (r < 0)
		snprintf(st->why, sizeof(st->why), "%s", strerror(-r));
}

static bool same_key(const struct holdout_key *a, const struct holdout_key *b)
{
	return a->transport == b->transport && strcmp(a->target, b->target) == 0 &&
	       a->tpgt == b->tpgt && strcmp(a->driver, b->driver) == 0 &&
	       strcmp(a->host_path, b->host_path) == 0 && a->channel == b->channel &&
	       a->id == b->id && a->lun == b->lun;
}

/* Whether an earlier entry of @keys is the same as entry @i. */
static bool key_repeats(const struct holdout_key *keys, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (same_key(&keys[k], &keys[i]))
			return true;
	return false;
}

/* Whether the map of @dev[i] came earlier in @dev. */
static bool map_repeats(const struct path_devices *dev, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (dev[k].map[0] && strcmp(dev[k].map, dev[i].map) == 0)
			return true;
	return false;
}

static void unlock_all(int *locks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (locks[i] >= 0)
			close(locks[i]);
}

/* What the removal rule says of one path, with what holds it. */
static enum removal_verdict path_verdict(const struct volume_detach_options *opt,
					 enum evidence_holders holders)
{
	struct removal_evidence ev = { .cause = REMOVAL_DETACH, .holders = holders };
	struct removal_request rq = { .asked = true, .force = opt->force, .dry_run = opt->dry_run };

	return may_remove(&ev, &rq);
}

static enum evidence_holders holders_of(int in_use)
{
	return in_use == 0 ? HOLDERS_NONE : in_use > 0 ? HOLDERS_IN_USE : HOLDERS_UNKNOWN;
}

/* The in-use checks that come before anything is done: every map above
 * the paths, and every path, a path under a map for a use past its map (a
 * dd on /dev/sdX). Return: 0 go on, -EBUSY refused, -ENOMEM. */
static int check_in_use(const struct sysfs_ctx *sys, const struct path_devices *dev, size_t n,
			const struct volume_detach_options *opt, struct volume_steps *ret)
{
	int verdict = 0;

	for (size_t i = 0; i < n; i++) {
		for (int map = 1; map >= 0; map--) {
			struct volume_step *st;
			char why[512];
			int r;

			if (!dev[i].attached || (map && (!dev[i].map[0] || map_repeats(dev, i))))
				continue;
			if (map) {
				st = step_add(ret, STEP_CHECK_MAP, "%s (%s)", dev[i].map,
					      dev[i].map_dev);
				r = map_in_use(sys, dev[i].map_dev, why, sizeof(why));
			} else {
				st = path_step(ret, STEP_CHECK_PATH, &dev[i]);
				r = dev[i].map[0]
					    ? device_in_use_beside_map(sys, &dev[i].addr, why,
								       sizeof(why))
					    : device_in_use(sys, &dev[i].addr, why, sizeof(why));
			}
			if (!st)
				return -ENOMEM;
			if (r == 0) {
				st->result = STEP_DONE;
				snprintf(st->why, sizeof(st->why), "not in use");
				continue;
			}
			snprintf(st->why, sizeof(st->why), "%s%s", why,
				 opt->force ? "; forced" : "");
			if (path_verdict(opt, holders_of(r)) == REMOVAL_KEEP_IN_USE) {
				st->result = STEP_REFUSED;
				verdict = -EBUSY;
			} else {
				st->result = STEP_DONE;
			}
		}
	}
	return verdict;
}

/* Takes back the hold-outs this detach wrote: it did not finish, and a
 * hold-out left behind would have the daemon delete the paths later. */
static int take_back(const struct sysfs_ctx *sys, const struct holdout_key *keys,
		     const bool *written, size_t n, struct volume_steps *ret)
{
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct volume_step *st;
		int r;

		if (!written[i])
			continue;
		r = holdout_remove(sys, &keys[i], path);
		st = step_add(ret, STEP_HOLD_OUT, "%s", path);
		if (!st)
			return -ENOMEM;
		step_end(st, r, NULL);
		if (r == 0)
			snprintf(st->why, sizeof(st->why), "taken back: the detach did not finish");
	}
	return 0;
}

/* Whether the detach was asked to stop (a signal). */
static bool stopped(const struct volume_detach_options *opt)
{
	return opt->stop && *opt->stop;
}

/* Whether every key of a volume no path has is held out already (by a
 * file of any portal group, for an iSCSI key without one). */
static bool held_out_already(const struct sysfs_ctx *sys, const struct holdout_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char(*files)[PATH_MAX] = NULL;
		size_t nfiles = 0;
		int r = holdout_files(sys, &keys[i], &files, &nfiles);

		free(files);
		if (r < 0 || !nfiles)
			return false;
	}
	return n > 0;
}

int volume_detach(const struct sysfs_ctx *sys, const struct volume_path *paths,
		  const struct holdout_key *keys, size_t n, const struct volume_detach_options *opt,
		  struct volume_steps *ret)
{
	struct path_devices *dev = calloc(n + 1, sizeof(*dev));
	int *locks = malloc((n + 1) * sizeof(*locks));
	bool *written = calloc(n + 1, sizeof(*written));
	size_t nlocks = 0, attached = 0, deleted = 0;
	bool map_failed = false;
	int r = 0, verdict = 0;

	ret->v = NULL;
	ret->count = 0;
	if (!dev || !locks || !written) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		r = path_devices_read(sys, &paths[i].addr, &dev[i]);
		attached += dev[i].attached;
	}
	if (r < 0)
		goto out;
	/* Nothing to take away: done before if it is held out, else there is
	 * nothing by that address to detach, and no hold-out is made for it. */
	if (!attached) {
		r = held_out_already(sys, keys, n) ? 0 : -ENOENT;
		goto out;
	}
	r = check_in_use(sys, dev, n, opt, ret);
	if (r < 0)
		goto out;
	/* Held out first: a unit attention during the removal, or a scan
	 * that waits for the host lock now, does not bring it back. */
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], name[NAME_MAX + 1];
		struct holdout_key k = keys[i];
		struct volume_step *st;

		if (key_repeats(keys, i))
			continue;
		/* Recorded, so that a release by wwid finds it. */
		if (!k.wwid[0])
			snprintf(k.wwid, sizeof(k.wwid), "%s", dev[i].wwid);
		if (holdout_file_name(&keys[i], name, sizeof(name)) < 0)
			snprintf(name, sizeof(name), "?");
		st = step_add(ret, STEP_HOLD_OUT, "%s/%s", HOLDOUT_DIR, name);
		if (!st) {
			r = -ENOMEM;
			goto undo;
		}
		if (opt->dry_run) {
			st->result = STEP_WOULD;
			continue;
		}
		r = holdout_write(sys, &k, opt->reason, path);
		step_end(st, r, NULL);
		if (r < 0)
			goto undo;
		written[i] = true;
	}
	for (size_t i = 0; i < n && !opt->dry_run; i++) {
		bool locked = false;

		for (size_t k = 0; k < i; k++)
			locked |= paths[k].addr.host == paths[i].addr.host;
		if (locked)
			continue;
		r = host_lock(sys, paths[i].addr.host, true, &locks[nlocks]);
		if (r < 0)
			goto undo;
		nlocks++;
	}
	for (size_t i = 0; i < n && !stopped(opt); i++) {
		struct volume_step *st;
		char why[512];

		if (!dev[i].map[0] || map_repeats(dev, i))
			continue;
		st = step_add(ret, STEP_FLUSH_MAP, "%s (%s)", dev[i].map, dev[i].map_dev);
		if (!st) {
			r = -ENOMEM;
			goto undo;
		}
		if (opt->dry_run) {
			st->result = STEP_WOULD;
			continue;
		}
		r = map_flush(dev[i].map, opt->tool_timeout, why, sizeof(why));
		step_end(st, r, why);
		if (r < 0) {
			map_failed = true;
			verdict = -EBUSY;
		}
	}
	r = 0;
	for (size_t i = 0; i < n && !stopped(opt); i++) {
		enum removal_verdict v;
		struct volume_step *st;
		char why[512] = "";
		int u;

		if (!dev[i].attached)
			continue;
		st = path_step(ret, STEP_DELETE_PATH, &dev[i]);
		if (!st) {
			r = -ENOMEM;
			goto undo;
		}
		if (dev[i].map[0] && map_failed) {
			st->result = STEP_SKIPPED;
			snprintf(st->why, sizeof(st->why), "its map %s is still there", dev[i].map);
			continue;
		}
		/* Checked again: its map is gone now, and so is the claim. */
		u = opt->force || opt->dry_run ? 0
					       : device_in_use(sys, &dev[i].addr, why, sizeof(why));
		v = path_verdict(opt, opt->force || opt->dry_run ? HOLDERS_NONE : holders_of(u));
		if (v == REMOVAL_WOULD_DELETE) {
			st->result = STEP_WOULD;
			continue;
		}
		if (v != REMOVAL_DELETE) {
			st->result = STEP_REFUSED;
			snprintf(st->why, sizeof(st->why), "%s", why);
			verdict = verdict ? verdict : -EIO;
			continue;
		}
		u = sysfs_delete(sys, &dev[i].addr);
		step_end(st, u, NULL);
		if (u == 0) {
			id_record_forget(sys, &dev[i].addr);
			deleted++;
		} else {
			verdict = verdict ? verdict : -EIO;
		}
	}
	/* Stopped, but with every path taken already: done. */
	if (stopped(opt) && deleted < attached)
		verdict = -EINTR;
	/* Nothing was taken away: the volume is as it was, and so is its
	 * policy. A detach that took some paths keeps its hold-outs, so that
	 * they do not come back before it is run again. */
	if (verdict < 0 && !deleted)
		take_back(sys, keys, written, n, ret);
	goto out;
undo:
	if (!deleted)
		take_back(sys, keys, written, n, ret);
out:
	if (locks)
		unlock_all(locks, nlocks);
	free(locks);
	free(dev);
	free(written);
	return r < 0 ? r : verdict;
}

int volume_release(const struct sysfs_ctx *sys, const struct holdout_key *keys, size_t n,
		   struct volume_steps *ret)
{
	bool any = false;

	ret->v = NULL;
	ret->count = 0;
	for (size_t i = 0; i < n; i++) {
		char(*files)[PATH_MAX] = NULL;
		char path[PATH_MAX];
		struct volume_step *st;
		size_t nfiles = 0;
		int r;

		if (key_repeats(keys, i))
			continue;
		r = holdout_files(sys, &keys[i], &files, &nfiles);
		if (r < 0)
			return r;
		if (!nfiles) {
			char name[NAME_MAX + 1];

			if (holdout_file_name(&keys[i], name, sizeof(name)) < 0 ||
			    sysfs_path(sys, path, sizeof(path), HOLDOUT_DIR "/%s", name) < 0)
				snprintf(path, sizeof(path), "?");
			st = step_add(ret, STEP_HOLD_OUT, "%s", path);
			if (!st)
				return -ENOMEM;
			st->result = STEP_SKIPPED;
			snprintf(st->why, sizeof(st->why), "not held out");
			continue;
		}
		for (size_t f = 0; f < nfiles; f++) {
			st = step_add(ret, STEP_HOLD_OUT, "%s", files[f]);
			if (!st) {
				free(files);
				return -ENOMEM;
			}
			r = unlink(files[f]) < 0 ? -errno : 0;
			step_end(st, r, NULL);
			if (r < 0) {
				free(files);
				return r;
			}
			any = true;
		}
		free(files);
	}
	return any ? 0 : -ENOENT;
}

int volume_release_wwid(const struct sysfs_ctx *sys, const struct volume_address *a,
			struct volume_steps *ret)
{
	char(*files)[PATH_MAX] = NULL;
	size_t n = 0;
	int r;

	ret->v = NULL;
	ret->count = 0;
	r = holdout_files_wwid(sys, a, &files, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct volume_step *st = step_add(ret, STEP_HOLD_OUT, "%s", files[i]);

		if (!st) {
			r = -ENOMEM;
			break;
		}
		r = unlink(files[i]) < 0 ? -errno : 0;
		step_end(st, r, NULL);
	}
	free(files);
	if (r < 0)
		return r;
	return n ? 0 : -ENOENT;
}

/* Whether each path that gets a block device has it (@want_map: and a map
 * above it); @nblock is set to how many have one. */
static bool devices_ready(const struct path_devices *dev, size_t n, bool want_map, size_t *nblock)
{
	bool ready = true;

	*nblock = 0;
	for (size_t i = 0; i < n; i++) {
		if (!dev[i].attached || !dev[i].has_block)
			continue;
		*nblock += dev[i].block[0] != '\0';
		if (!dev[i].block[0] || (want_map && !dev[i].map[0]))
			ready = false;
	}
	return ready;
}

int volume_wait_devices(const struct sysfs_ctx *sys, const struct volume_path *paths, size_t n,
			unsigned int timeout_ms, struct path_devices **ret, bool *ret_no_map)
{
	const struct timespec step = { .tv_nsec = 50 * 1000000L };
	struct path_devices *dev = calloc(n + 1, sizeof(*dev));
	uint64_t end = scan_now_ms() + timeout_ms;
	bool multipathd = multipathd_running(sys), blocks = false;
	size_t nblock;
	int r = 0;

	*ret = NULL;
	*ret_no_map = false;
	if (!dev)
		return -ENOMEM;
	for (;;) {
		for (size_t i = 0; i < n && r == 0; i++)
			r = path_devices_read(sys, &paths[i].addr, &dev[i]);
		if (r < 0) {
			free(dev);
			return r;
		}
		blocks = devices_ready(dev, n, false, &nblock);
		/* A map is looked for over two paths or more, as multipathd's
		 * find_multipaths does by default. */
		if (blocks && (!multipathd || nblock < 2 || devices_ready(dev, n, true, &nblock)))
			break;
		if (scan_now_ms() >= end) {
			if (!blocks)
				r = -ETIMEDOUT;
			else
				*ret_no_map = true;
			break;
		}
		nanosleep(&step, NULL);
	}
	*ret = dev;
	return r;
}

int volume_resize(const struct sysfs_ctx *sys, const struct volume_path *paths, size_t n,
		  unsigned int tool_timeout, struct volume_steps *ret)
{
	struct path_devices *dev = calloc(n + 1, sizeof(*dev));
	bool multipathd = multipathd_running(sys);
	int verdict = 0, r = 0;

	ret->v = NULL;
	ret->count = 0;
	if (!dev)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct resize_result rr;
		struct volume_step *st;

		r = path_devices_read(sys, &paths[i].addr, &dev[i]);
		if (r < 0 || !dev[i].attached)
			continue;
		st = path_step(ret, STEP_RESIZE_PATH, &dev[i]);
		if (!st) {
			r = -ENOMEM;
			break;
		}
		if (lun_resize(sys, &paths[i].addr, &rr) < 0) {
			step_end(st, -ENODEV, "gone");
			verdict = -EIO;
			continue;
		}
		st->before = rr.before;
		st->after = rr.after;
		if (rr.error == -ESTALE)
			snprintf(st->why, sizeof(st->why), "remapped: %s", rr.remapped);
		step_end(st, rr.error, st->why);
		if (rr.error)
			verdict = -EIO;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		struct volume_step *st;
		int64_t sectors = -1;
		char why[512];
		int m;

		if (!dev[i].map[0] || map_repeats(dev, i))
			continue;
		st = step_add(ret, STEP_RESIZE_MAP, "%s (%s)", dev[i].map, dev[i].map_dev);
		if (!st) {
			r = -ENOMEM;
			break;
		}
		st->before = dev[i].map_sectors;
		/* The map can be as large as its smallest path. */
		for (size_t k = 0; k < n; k++) {
			struct path_devices now;

			if (strcmp(dev[k].map, dev[i].map) != 0 ||
			    path_devices_read(sys, &paths[k].addr, &now) < 0 || now.sectors < 0)
				continue;
			if (sectors < 0 || now.sectors < sectors)
				sectors = now.sectors;
		}
		if (sectors <= 0 || sectors == dev[i].map_sectors) {
			st->result = STEP_SKIPPED;
			st->after = dev[i].map_sectors;
			snprintf(st->why, sizeof(st->why), "%s",
				 sectors <= 0 ? "the paths' size is not known"
					      : "the paths' size is the map's already");
			continue;
		}
		m = map_resize(sys, dev[i].map, sectors, tool_timeout, why, sizeof(why));
		step_end(st, m, why);
		if (m < 0)
			verdict = -EIO;
		else
			snprintf(st->why, sizeof(st->why), "%s",
				 multipathd
					 ? "multipathd resize map"
					 : "its table loaded again with the paths' size (dmsetup; "
					   "multipathd does not run)");
		path_devices_read(sys, &paths[i].addr, &dev[i]);
		st->after = dev[i].map_sectors;
		/* The tool's word is not the map's size: read back. */
		if (m == 0 && st->after != sectors) {
			st->result = STEP_FAILED;
			st->error = -EIO;
			snprintf(st->why, sizeof(st->why),
				 "%s said it was done, but the map is %" PRId64
				 " sectors, not the paths' %" PRId64,
				 multipathd ? "multipathd resize map" : "dmsetup", st->after,
				 sectors);
			verdict = -EIO;
		}
	}
	free(dev);
	return r < 0 ? r : verdict;
}
