/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * volops.h - what is done to a volume on all its paths at once, after the
 * scan that attaches it: wait for its block devices and multipath map; take
 * it away top-down (map flushed, paths deleted, held out); bring it back;
 * resize it through the stack. Each operation reports its steps; nothing
 * is printed here.
 */
#ifndef SCSI_SCAN_VOLOPS_H
#define SCSI_SCAN_VOLOPS_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "paths.h"
#include "sysfs.h"
#include "volume.h"

/**
 * enum volume_step_kind - one step of an operation
 * @STEP_CHECK_MAP: the in-use check of a multipath map
 * @STEP_CHECK_PATH: the in-use check of a path no map holds
 * @STEP_HOLD_OUT: a hold-out written (or, for release, removed)
 * @STEP_FLUSH_MAP: a multipath map flushed
 * @STEP_DELETE_PATH: a path deleted
 * @STEP_RESIZE_PATH: a path read again for its size
 * @STEP_RESIZE_MAP: a map resized by multipathd
 */
enum volume_step_kind {
	STEP_CHECK_MAP,
	STEP_CHECK_PATH,
	STEP_HOLD_OUT,
	STEP_FLUSH_MAP,
	STEP_DELETE_PATH,
	STEP_RESIZE_PATH,
	STEP_RESIZE_MAP,
};

/**
 * enum volume_step_result - how a step ended
 * @STEP_DONE: done
 * @STEP_WOULD: a dry run: it would be done
 * @STEP_REFUSED: in use, and not forced: nothing after it was done
 * @STEP_FAILED: it failed (@error, @why)
 * @STEP_SKIPPED: nothing to do (a hold-out that was not there)
 */
enum volume_step_result {
	STEP_DONE,
	STEP_WOULD,
	STEP_REFUSED,
	STEP_FAILED,
	STEP_SKIPPED,
};

/**
 * struct volume_step - one step and how it ended
 * @kind: what
 * @result: how it ended
 * @error: with STEP_FAILED, the negative errno
 * @what: its object: a map ("mpatha (dm-3)"), a path ("5:0:0:2 sdc"), a
 *	hold-out file
 * @why: what holds it, what the tool said, or the sizes before and after
 * @before: for the resize steps, the size before, in 512-byte sectors, or -1
 * @after: the size after, or -1
 */
struct volume_step {
	enum volume_step_kind kind;
	enum volume_step_result result;
	int error;
	char what[PATH_MAX];
	char why[512];
	int64_t before;
	int64_t after;
};

/**
 * struct volume_steps - the steps of one operation, in order
 * @v: the steps
 * @count: how many
 */
struct volume_steps {
	struct volume_step *v;
	size_t count;
};

/**
 * volume_steps_free() - free the steps
 * @s: the steps (left empty)
 */
void volume_steps_free(struct volume_steps *s);

/**
 * volume_step_kind_name() - a step kind in words, for text and JSON
 * @k: the kind
 *
 * Return: "check map", "check path", "hold out", "flush map", "delete
 * path", "resize path" or "resize map".
 */
const char *volume_step_kind_name(enum volume_step_kind k);

/**
 * volume_step_result_name() - a step result in words
 * @r: the result
 *
 * Return: "done", "would", "refused", "failed" or "skipped".
 */
const char *volume_step_result_name(enum volume_step_result r);

/**
 * struct volume_detach_options - how a detach goes
 * @dry_run: check and report every step, do none
 * @force: go on past a map or path in use
 * @tool_timeout: bound on each multipath or dmsetup run, in seconds
 * @reason: the hold-out's reason, for people
 * @stop: set (by a signal handler) to stop before the next step, or NULL
 */
struct volume_detach_options {
	bool dry_run;
	bool force;
	unsigned int tool_timeout;
	const char *reason;
	volatile sig_atomic_t *stop;
};

/**
 * volume_detach() - take a volume away on every path, top-down
 * @sys: the path context
 * @paths: its paths (volume_resolve()); ones not attached are held out
 *	only
 * @keys: each path's hold-out key
 * @n: how many
 * @opt: how
 * @ret: the steps taken (volume_steps_free())
 *
 * First every map above the paths, and every path (one under a map for
 * a use past its map, device_in_use_beside_map()), is checked for use; one
 * in use stops the detach before anything is done, unless forced. Then
 * each path's target is held out (so that no scan, the daemon's included,
 * attaches the volume again, even one that waits for the host lock now),
 * each host of a path is locked, each map is flushed (map_flush()), and
 * each path is checked again and deleted. Every deletion is the removal
 * rule's (may_remove(), REMOVAL_DETACH). A map that cannot be flushed
 * leaves its paths in place. A detach that fails or stops before any path
 * is deleted takes its hold-outs back (steps "hold out", "taken back").
 * With no path attached, nothing is written: done already when every key
 * is held out, else -ENOENT.
 *
 * Return: 0 all done (or would be, or done before), -EBUSY refused or a
 * map not flushed, -EIO a path not deleted, -EINTR stopped (@opt->stop),
 * -ENOENT no path has the volume, or another negative errno.
 */
int volume_detach(const struct sysfs_ctx *sys, const struct volume_path *paths,
		  const struct holdout_key *keys, size_t n, const struct volume_detach_options *opt,
		  struct volume_steps *ret);

/**
 * volume_release() - take the hold-outs of a volume away
 * @sys: the path context
 * @keys: the keys, one per path (repeats are taken once)
 * @n: how many
 * @ret: the steps (STEP_HOLD_OUT, STEP_DONE or STEP_SKIPPED)
 *
 * Return: 0, -ENOENT (none was there), or a negative errno.
 */
int volume_release(const struct sysfs_ctx *sys, const struct holdout_key *keys, size_t n,
		   struct volume_steps *ret);

/**
 * volume_release_wwid() - take away the hold-outs that recorded a wwid
 * @sys: the path context
 * @a: the address (@a->wwid set)
 * @ret: the steps (one STEP_HOLD_OUT a file)
 *
 * A volume held out has no path attached: its hold-outs are found by the
 * wwid each records (holdout_text_wwid()).
 *
 * Return: 0, -ENOENT (none), or a negative errno.
 */
int volume_release_wwid(const struct sysfs_ctx *sys, const struct volume_address *a,
			struct volume_steps *ret);

/**
 * volume_wait_devices() - wait for each attached path's block device and,
 *	when multipathd runs, for a map that holds them
 * @sys: the path context
 * @paths: the paths
 * @n: how many
 * @timeout_ms: the bound for all of it
 * @ret: set to each path's devices, @n of them (free() it)
 * @ret_no_map: set to true when multipathd runs, two or more paths have
 *	their block device, and no map held them within the bound (the
 *	volume is blacklisted, or find_multipaths keeps it out): worth saying,
 *	not a failure of the attach
 *
 * Only LUNs whose type gets a block device are waited for.
 *
 * Return: 0 (every path's block device there), -ETIMEDOUT (one did not
 * come within the bound; @ret says what is there), or a negative errno.
 */
int volume_wait_devices(const struct sysfs_ctx *sys, const struct volume_path *paths, size_t n,
			unsigned int timeout_ms, struct path_devices **ret, bool *ret_no_map);

/**
 * volume_resize() - have every path read its size again, then the map above
 * @sys: the path context
 * @paths: the paths
 * @n: how many
 * @tool_timeout: bound on multipathd, in seconds
 * @ret: the steps: one STEP_RESIZE_PATH a path, one STEP_RESIZE_MAP a map
 *	(STEP_SKIPPED without multipathd), each with its sizes
 *
 * Return: 0, or -EIO when a step failed.
 */
int volume_resize(const struct sysfs_ctx *sys, const struct volume_path *paths, size_t n,
		  unsigned int tool_timeout, struct volume_steps *ret);

#endif
