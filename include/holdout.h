/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * holdout.h - volumes held out after a detach: lunmask entries under
 * /run/scsi-scan/holdout that every scan reads when it starts a host
 * (under the host lock), so that a scan that was waiting for the lock, or a
 * daemon that has not reloaded its database yet, does not attach the volume
 * again. scsi-scan release takes them away; a reboot forgets them.
 */
#ifndef SCSI_SCAN_HOLDOUT_H
#define SCSI_SCAN_HOLDOUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quirks.h"
#include "sysfs.h"
#include "volume.h"

#define HOLDOUT_DIR "/run/scsi-scan/holdout"

/**
 * holdout_names_host() - whether a hold-out names its target's host
 * @e: the hold-out's lunmask entry
 *
 * By the target's transport name (iSCSI name, FC port, SAS address) or the
 * host's place in the device tree (host_path). One keyed by driver,
 * channel and id alone (written for a host without either) may name the
 * same numbers on another HBA of the driver: it keeps them out of a scan,
 * but is no reason to delete or retire anything (the removal rule's
 * HOLDOUT_OTHER_HOST).
 *
 * Return: true if it does.
 */
bool holdout_names_host(const struct lunmask_entry *e);

/**
 * holdout_retired() - whether a hold-out is done with: its target's whole
 *	LUN list no longer names its LUN
 * @e: the hold-out's lunmask entry (one excluded LUN)
 * @reported: the target's REPORT LUNS list
 * @n: its length
 * @complete: the list was read whole
 *
 * The array took the volume away, and a volume mapped at that number
 * later is another one. A list cut short, or a hold-out that does not name
 * its host (holdout_names_host()), retires nothing.
 *
 * Return: true if so.
 */
bool holdout_retired(const struct lunmask_entry *e, const uint64_t *reported, size_t n,
		     bool complete);

/**
 * holdout_files() - the hold-out files of a key
 * @sys: the path context
 * @k: the key; an iSCSI key without a portal group (@k->tpgt -1) also
 *	finds the files of every portal group of its target and LUN (a
 *	detach by wwid keys each path by its session's group)
 * @ret: set to the files' paths (PATH_MAX each, free() it)
 * @ret_n: set to how many
 *
 * Return: 0 (none found is 0 with *@ret_n 0), or a negative errno.
 */
int holdout_files(const struct sysfs_ctx *sys, const struct holdout_key *k, char (**ret)[PATH_MAX],
		  size_t *ret_n);

/**
 * holdout_files_wwid() - the hold-out files that recorded a wwid
 * @sys: the path context
 * @a: the address (@a->wwid set)
 * @ret: set to the files' paths (PATH_MAX each, free() it)
 * @ret_n: set to how many
 *
 * A volume held out has no path attached: its hold-outs are found by the
 * wwid each records (holdout_text_wwid()).
 *
 * Return: 0 (none found is 0 with *@ret_n 0), or a negative errno.
 */
int holdout_files_wwid(const struct sysfs_ctx *sys, const struct volume_address *a,
		       char (**ret)[PATH_MAX], size_t *ret_n);

/**
 * holdout_unlink() - take away a hold-out file found by its entry
 * @e: the entry (its file is under HOLDOUT_DIR)
 *
 * Return: 0 or a negative errno.
 */
int holdout_unlink(const struct lunmask_entry *e);

/**
 * holdout_load() - the hold-outs as a database of lunmask entries
 * @sys: the path context (its root moves HOLDOUT_DIR)
 * @ret: set to the finalized database, or NULL when there is none (no
 *	directory, no file); quirk_db_unref() it
 * @ret_diags: where a broken file's errors (file and line) are appended,
 *	or NULL
 *
 * A broken file is skipped, as a broken quirk file is, and said in @diags:
 * the volume it was to keep out is not held out (@ret_diags).
 *
 * Return: 0 or a negative errno (-ENOMEM, or the directory cannot be read).
 */
int holdout_load(const struct sysfs_ctx *sys, struct quirk_db **ret, struct quirk_diags *ret_diags);

/**
 * holdout_any() - whether a hold-out is in force
 * @sys: the path context
 *
 * Return: true when HOLDOUT_DIR holds a hold-out file.
 */
bool holdout_any(const struct sysfs_ctx *sys);

/**
 * holdout_dir_make() - make HOLDOUT_DIR (and /run/scsi-scan) if missing
 * @sys: the path context
 * @path: set to the directory's path under the context's root
 * @len: size of @path
 *
 * For a watch of the directory before any hold-out is written.
 *
 * Return: 0 or a negative errno.
 */
int holdout_dir_make(const struct sysfs_ctx *sys, char *path, size_t len);

/**
 * holdout_write() - hold a LUN out
 * @sys: the path context
 * @k: what to hold out
 * @reason: why, for people
 * @ret_path: set to the file written (size PATH_MAX), or NULL
 *
 * Written whole under a temporary name, then renamed.
 *
 * Return: 0 or a negative errno.
 */
int holdout_write(const struct sysfs_ctx *sys, const struct holdout_key *k, const char *reason,
		  char *ret_path);

/**
 * holdout_remove() - take a hold-out away
 * @sys: the path context
 * @k: the key
 * @ret_path: set to the file (size PATH_MAX), or NULL
 *
 * Return: 0, -ENOENT (there was none), or a negative errno.
 */
int holdout_remove(const struct sysfs_ctx *sys, const struct holdout_key *k, char *ret_path);

#endif
