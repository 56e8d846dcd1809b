/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h - the daemon's engine: the work each host has waiting
 * (coalesce.h), one worker thread per host at a time and a bounded number
 * in all, the shared quirk database, retries of targets not reachable
 * yet, and cancellation. It reports through a log function the program
 * sets; the program owns the event sources and the main loop.
 */
#ifndef SCSI_SCAN_ENGINE_H
#define SCSI_SCAN_ENGINE_H

#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "coalesce.h"
#include "monitor.h"
#include "quirks.h"
#include "sysfs.h"

/**
 * engine_log_fn - where the engine's messages go
 * @data: what the program passed to engine_set_log_fn()
 * @priority: a syslog priority (LOG_ERR ... LOG_DEBUG)
 * @fmt: printf format of one line, without the newline
 * @ap: its arguments
 *
 * Called from the main thread and from worker threads.
 */
typedef void (*engine_log_fn)(void *data, int priority, const char *fmt, va_list ap);

/**
 * struct engine_options - how the engine works
 * @max_workers: hosts scanned at once
 * @remove: on "reported LUNs data has changed", delete the LUNs that
 *	target no longer reports (never those in use)
 * @refused_report_only: LUNs the lunmask policy refuses that others
 *	attached (iscsid, a "- - -" rescan) are reported, not deleted
 * @attach_ghosts: attach LUNs whose identity repeats another LUN's
 * @resize: on "capacity data has changed", have the kernel read the
 *	capacity again
 * @retry_ms: a host whose transport lists a target not reachable yet is
 *	scanned again after this long
 * @retry_max: that many times at most
 */
struct engine_options {
	unsigned int max_workers;
	bool remove;
	bool refused_report_only;
	bool attach_ghosts;
	bool resize;
	unsigned int retry_ms;
	unsigned int retry_max;
};

/**
 * struct engine_stats - what the engine has done, for the service status
 * @running: scans running now
 * @scans: scans done
 * @events: events handled
 * @waiting: hosts with work waiting (or a retry due)
 */
struct engine_stats {
	unsigned int running;
	unsigned long scans;
	unsigned long events;
	unsigned int waiting;
};

struct engine;

/**
 * engine_new() - make an engine
 * @sys: the path context (kept, not copied: it outlives the engine)
 * @opt: its options
 *
 * Return: the engine, or NULL with errno set.
 */
struct engine *engine_new(struct sysfs_ctx *sys, const struct engine_options *opt);

/**
 * engine_unref() - free the engine
 * @e: the engine, or NULL
 *
 * Call engine_stop() first; with scans still running (engine_stop()
 * returned non-zero) the engine is left to the process's exit.
 *
 * Return: NULL.
 */
struct engine *engine_unref(struct engine *e);

/**
 * engine_set_log_fn() - where the engine logs
 * @e: the engine
 * @fn: the function, or NULL for silence
 * @data: passed to @fn
 */
void engine_set_log_fn(struct engine *e, engine_log_fn fn, void *data);

/**
 * engine_load_db() - load the quirk database the next scans use
 * @e: the engine
 * @dirs: the directories, lowest precedence first
 * @ndirs: how many
 * @reload: an earlier database exists: a broken file keeps its last good
 *	version (quirk_db_load_cached()), and a failure keeps the whole
 *	earlier database
 *
 * Diagnostics are logged with file and line. Scans running keep the
 * database they started with (a reference each).
 *
 * Return: 0 or a negative errno.
 */
int engine_load_db(struct engine *e, const char *const *dirs, size_t ndirs, bool reload);

/**
 * engine_event() - act on one event: merge it into its host's waiting
 *	work, and start a worker if the host has none and a slot is free
 * @e: the engine
 * @ev: the event
 */
void engine_event(struct engine *e, const struct scsi_event *ev);

/**
 * engine_coldplug() - a host add event for every host present
 * @e: the engine
 *
 * Return: 0 or a negative errno.
 */
int engine_coldplug(struct engine *e);

/**
 * engine_wants_lun_adds() - whether LUNs' add events are of use
 * @e: the engine
 *
 * Return: true while the database has a lunmask policy, or a detached
 * volume is held out (either one to hold against other scanners).
 */
bool engine_wants_lun_adds(struct engine *e);

/**
 * engine_holdouts_changed() - look at the hold-outs again
 * @e: the engine
 *
 * Called at start and when HOLDOUT_DIR changes. Every scan reads the
 * hold-outs itself; this only says whether LUNs' add events are wanted.
 *
 * Return: true when there were none and now are, or the other way round.
 */
bool engine_holdouts_changed(struct engine *e);

/* Targets one poll scans at most; the rest wait for the next poll. */
#define ENGINE_POLL_TARGETS_MAX 64

/**
 * engine_poll_empty() - scan the targets that transports list and of which
 *	nothing is attached (the daemon's opt-in poll)
 * @e: the engine
 *
 * The first LUN mapped to such a target comes with no unit attention, and
 * no uevent says it is there. Hosts without a transport class are not
 * probed. At most ENGINE_POLL_TARGETS_MAX targets a call, taken in turn.
 *
 * Return: how many targets were handed to scans, or a negative errno.
 */
int engine_poll_empty(struct engine *e);

/**
 * engine_watch_paths() - look at the sessions and remote ports of every
 *	host, and bring back the targets whose path came back
 * @e: the engine
 *
 * No uevent says that an iSCSI session logged in again or that a blocked FC
 * remote port is online again. Each call compares what each host's
 * transport can reach with the last call: a target that was listed but not
 * reachable then and is reachable now gets SCSI_EVENT_PATH_BACK (its
 * offline LUNs set running, the others read again, then its scan). A
 * target seen unreachable for the first time is logged. The first call
 * only records. Hosts without a transport class, and hosts not added yet,
 * are left out.
 *
 * Return: how many targets came back, or a negative errno (the hosts
 * cannot be listed).
 */
int engine_watch_paths(struct engine *e);

/**
 * engine_pollfds() - the descriptors the main loop polls for the engine
 * @e: the engine
 * @p: two entries to fill (a worker's end, the retry timer)
 *
 * Return: how many were filled (2).
 */
size_t engine_pollfds(const struct engine *e, struct pollfd *p);

/**
 * engine_dispatch() - after poll(): take the ends of scans, start what
 *	waits, run the retries that are due
 * @e: the engine
 */
void engine_dispatch(struct engine *e);

/**
 * engine_idle() - whether no scan runs and nothing waits
 * @e: the engine
 *
 * Return: true when idle (a retry due later does not count).
 */
bool engine_idle(const struct engine *e);

/**
 * engine_stats() - counters for the service status
 * @e: the engine
 * @ret: the counters
 */
void engine_stats(const struct engine *e, struct engine_stats *ret);

/**
 * engine_stop() - cancel the scans (they stop at their next step) and wait
 *	for them
 * @e: the engine
 * @wait_ms: how long at most: a scan write the kernel is still executing
 *	cannot be interrupted
 *
 * Return: the number of scans still running after @wait_ms.
 */
unsigned int engine_stop(struct engine *e, unsigned int wait_ms);

#endif
