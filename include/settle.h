/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * settle.h - the settle point: scsi-scand records in /run/scsi-scan/state
 * whether its first scan of every host (the coldplug) is done, and
 * "scsi-scan wait" reads it.
 */
#ifndef SCSI_SCAN_SETTLE_H
#define SCSI_SCAN_SETTLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "sysroot.h"

/* Where the record lives, under the context's root. */
#define SETTLE_STATE_PATH "/run/scsi-scan/state"

/**
 * enum settle_phase - what the daemon that wrote the record was doing
 * @SETTLE_PHASE_COLDPLUG: scanning every host for the first time
 * @SETTLE_PHASE_SETTLED: the coldplug is done; events are handled as they come
 * @SETTLE_PHASE_KERNEL: the kernel scans by itself (scsi_mod.scan is not
 *	manual) and the daemon has nothing to do
 */
enum settle_phase {
	SETTLE_PHASE_COLDPLUG,
	SETTLE_PHASE_SETTLED,
	SETTLE_PHASE_KERNEL,
};

/**
 * struct settle_record - the content of the state file
 * @phase: what the daemon was doing
 * @pid: the daemon's process id
 */
struct settle_record {
	enum settle_phase phase;
	pid_t pid;
};

/**
 * enum settle_verdict - what a waiter makes of the record
 * @SETTLE_DONE: settled; nothing more to wait for
 * @SETTLE_WAIT_START: no record yet: the daemon has not started
 * @SETTLE_WAIT_COLDPLUG: the daemon is running its coldplug
 * @SETTLE_WAIT_RESTART: the daemon that wrote the record no longer runs; a
 *	restart writes a new record
 * @SETTLE_WAIT_BROKEN: the record cannot be read; the daemon rewrites it
 *	at its next phase
 */
enum settle_verdict {
	SETTLE_DONE,
	SETTLE_WAIT_START,
	SETTLE_WAIT_COLDPLUG,
	SETTLE_WAIT_RESTART,
	SETTLE_WAIT_BROKEN,
};

/**
 * settle_phase_name() - the word for a phase in the state file
 * @phase: the phase
 *
 * Return: "coldplug", "settled" or "kernel".
 */
const char *settle_phase_name(enum settle_phase phase);

/**
 * settle_parse() - read the text of a state file
 * @text: the file's content, NUL-terminated ("phase=WORD\npid=N\n")
 * @rec: filled on success
 *
 * Return: 0, or -EINVAL if a line is unknown, a value does not parse or
 * either key is missing.
 */
int settle_parse(const char *text, struct settle_record *rec);

/**
 * settle_decide() - whether a waiter is done, and if not, why
 * @rec: the record, or NULL when there is none
 * @broken: the record exists but does not parse (@rec is then ignored)
 * @daemon_alive: the record's process still runs
 *
 * A record of a daemon that no longer runs is not trusted, whatever its
 * phase but SETTLE_PHASE_KERNEL (written by a daemon that exits at once
 * by design): nothing scans what comes after it died.
 *
 * Return: the verdict.
 */
enum settle_verdict settle_decide(const struct settle_record *rec, bool broken, bool daemon_alive);

/**
 * settle_verdict_text() - one line for a user on why a waiter waits
 * @verdict: the verdict
 *
 * Return: a static string.
 */
const char *settle_verdict_text(enum settle_verdict verdict);

/**
 * settle_write() - record the daemon's phase, atomically (write and rename)
 * @ctx: the path context
 * @phase: the phase
 * @pid: the daemon's process id
 *
 * Return: 0 or a negative errno.
 */
int settle_write(const struct sysfs_ctx *ctx, enum settle_phase phase, pid_t pid);

/**
 * settle_read() - read and parse the state file
 * @ctx: the path context
 * @rec: filled on success
 *
 * Return: 0, -ENOENT when there is no record, -EINVAL when it does not
 * parse, or another negative errno.
 */
int settle_read(const struct sysfs_ctx *ctx, struct settle_record *rec);

#endif
