/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quirks-internal.h - shared between the quirk database's source files.
 */
#ifndef SCSI_SCAN_QUIRKS_INTERNAL_H
#define SCSI_SCAN_QUIRKS_INTERNAL_H

#include <stdatomic.h>

#include "lunmask.h"
#include "quirks.h"

struct vendor_bucket {
	const char *vendor;
	size_t *idx;
	size_t count;
};

/**
 * struct quirk_source - a directory or file the database was loaded from,
 * as it was then (a compiled image is current while every one is the same;
 * by content, so that a copy, as in an initramfs, is current too)
 * @path: its path
 * @is_dir: a directory of the search path (else a file in one)
 * @exists: it was there
 * @hash: FNV-1a of the file's bytes, or of the directory's sorted *.conf
 *	names
 */
struct quirk_source {
	char *path;
	bool is_dir;
	bool exists;
	uint64_t hash;
};

struct quirk_db {
	atomic_int refs;
	struct quirk_source *sources;
	size_t nsources;
	struct quirk_entry *entries;
	size_t count;
	size_t alloc;
	bool finalized;
	bool refuses_by_type;
	struct vendor_bucket *buckets;
	size_t nbuckets;
	size_t *glob_idx;
	size_t nglob;
	struct lunmask_entry *masks;
	size_t nmasks;
	size_t masks_alloc;
};

/**
 * struct quirk_parsed - the entries of one quirk text
 * @entries: device sections, in text order
 * @count: how many
 * @masks: lunmask sections, in text order
 * @nmasks: how many
 */
struct quirk_parsed {
	struct quirk_entry *entries;
	size_t count;
	struct lunmask_entry *masks;
	size_t nmasks;
};

/**
 * quirk_diag_add() - append a diagnostic
 * @diags: the list, or NULL to drop it
 * @severity: warning or error
 * @file: file name
 * @line: line, or 0
 * @fmt: printf format of the message
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_diag_add(struct quirk_diags *diags, enum quirk_severity severity, const char *file,
		   unsigned int line, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/**
 * quirk_entry_free() - free the strings of one entry
 * @e: the entry
 */
void quirk_entry_free(struct quirk_entry *e);

/**
 * quirk_parse_buffer() - parse quirk text into entries
 * @name: file name for entries and diagnostics
 * @buf: the text
 * @len: its length
 * @diags: where problems are appended
 * @ret: set to malloc'ed arrays of both kinds of entry on success
 *
 * Return: 0, -EINVAL if the text had an error, -ENOMEM.
 */
int quirk_parse_buffer(const char *name, const char *buf, size_t len, struct quirk_diags *diags,
		       struct quirk_parsed *ret);

/**
 * quirk_db_bucket() - the entries with one literal vendor
 * @db: a finalized database
 * @vendor: the vendor, compared exactly
 *
 * Return: the bucket (entry indices in database order), or NULL.
 */
const struct vendor_bucket *quirk_db_bucket(const struct quirk_db *db, const char *vendor);

/**
 * quirk_has_glob() - whether a value is matched as a shell glob
 * @s: the value
 *
 * Return: true if it holds '*', '?' or '['.
 */
bool quirk_has_glob(const char *s);

/**
 * quirk_db_append() - add parsed entries to a database not yet finalized
 * @db: the database
 * @p: the entries; taken over (freed) whatever the result
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_db_append(struct quirk_db *db, struct quirk_parsed *p);

/**
 * quirk_source_look() - what a source is now
 * @path: its path
 * @is_dir: a directory of the search path, or a file in one (a mask, a
 *	symlink to /dev/null, reads as empty)
 * @ret: the record (@ret->path is not set)
 *
 * Return: 0, or -ENOMEM.
 */
int quirk_source_look(const char *path, bool is_dir, struct quirk_source *ret);

#endif
