/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quirks.h - the quirk database: quirks.d files, precedence, lookup.
 */
#ifndef SCSI_SCAN_QUIRKS_H
#define SCSI_SCAN_QUIRKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inquiry.h"

/* INQUIRY field widths: a longer literal can never match. */
#define QUIRK_VENDOR_LEN 8
#define QUIRK_MODEL_LEN 16
/* A device handler's name, with its NUL (the kernel's are 5 at most). */
#define QUIRK_HANDLER_LEN 16
#define QUIRK_REVISION_LEN 4

/**
 * enum quirk_severity - how bad a diagnostic is
 * @QUIRK_NOTICE: what was done about a problem (a last good version kept)
 * @QUIRK_WARNING: the entry or file still loads
 * @QUIRK_ERROR: the whole file is skipped
 */
enum quirk_severity {
	QUIRK_NOTICE,
	QUIRK_WARNING,
	QUIRK_ERROR,
};

/**
 * struct quirk_diag - one problem found in a quirk file
 * @severity: warning or error
 * @file: path of the file as it was opened
 * @line: 1-based line, or 0 if the problem concerns the whole file
 * @message: what is wrong, in words
 */
struct quirk_diag {
	enum quirk_severity severity;
	char *file;
	unsigned int line;
	char *message;
};

/**
 * struct quirk_diags - a growing list of diagnostics
 * @items: the diagnostics in the order found
 * @count: number of items
 * @alloc: allocated slots
 */
struct quirk_diags {
	struct quirk_diag *items;
	size_t count;
	size_t alloc;
};

/**
 * quirk_diags_clear() - free every diagnostic and empty the list
 * @diags: the list; may be reused afterwards
 */
void quirk_diags_clear(struct quirk_diags *diags);

/**
 * quirk_diags_count() - count diagnostics of one severity
 * @diags: the list
 * @severity: which kind to count
 *
 * Return: the number of matching items.
 */
size_t quirk_diags_count(const struct quirk_diags *diags, enum quirk_severity severity);

/**
 * struct quirk_entry - one device section of a quirk file
 * @file: path of the file it came from
 * @line: line of its "device" keyword
 * @title: the section title
 * @vendor: vendor pattern; "" matches a blank vendor field
 * @model: model pattern; a literal is a prefix, "" matches every model
 * @revision: revision pattern, or NULL for any revision
 * @type: peripheral device type 0-31, or -1 for any
 * @vendor_glob: @vendor holds one of '*', '?', '[' and is matched with fnmatch
 * @model_glob: same for @model
 * @revision_glob: same for @revision
 * @sets_flags: the entry gives the whole flag set (key "flags")
 * @flags: the flag set given by "flags"
 * @add_flags: flags added to what earlier entries gave ("add_flags")
 * @drop_flags: flags removed from what earlier entries gave ("drop_flags")
 * @max_lun: highest LUN ever attached, or -1 if the entry does not say
 * @attach: 1 or 0 if the entry says, -1 if it does not
 * @builtin: one of the kernel's compiled-in tables holds this entry: its
 *	device table (scsi_devinfo) with these flags, or its device-handler
 *	table (scsi_dh) with this handler
 * @handler: the device handler (scsi_dh) to attach, or NULL if the entry
 *	does not say
 * @reason: free text, may be NULL
 * @seq: position in the merged database (files by name, then line)
 */
struct quirk_entry {
	char *file;
	unsigned int line;
	char *title;
	char *vendor;
	char *model;
	char *revision;
	int type;
	bool vendor_glob;
	bool model_glob;
	bool revision_glob;
	bool sets_flags;
	uint64_t flags;
	uint64_t add_flags;
	uint64_t drop_flags;
	long long max_lun;
	int attach;
	bool builtin;
	char *handler;
	char *reason;
	size_t seq;
};

/**
 * struct quirk_device - the identity a lookup matches against
 * @vendor: INQUIRY vendor, cleaned with inquiry_field_clean()
 * @model: INQUIRY product, cleaned
 * @revision: INQUIRY revision, cleaned; NULL matches only entries without one
 * @type: peripheral device type, or -1 if unknown (then only entries
 *	without a type match)
 */
struct quirk_device {
	const char *vendor;
	const char *model;
	const char *revision;
	int type;
};

/**
 * struct quirk_match - the merged result of every entry that matched
 * @flags: resulting BLIST_* flags
 * @max_lun: highest LUN to attach, or -1 for no limit
 * @attach: false if no LUN of the device may be attached
 * @handler: the device handler the last entry that names one gives, or NULL
 * @handler_source: that entry
 * @count: number of contributing entries
 * @sources: the contributing entries, in the order they were applied
 */
struct quirk_match {
	uint64_t flags;
	long long max_lun;
	bool attach;
	const char *handler;
	const struct quirk_entry *handler_source;
	size_t count;
	const struct quirk_entry **sources;
};

/**
 * quirk_match_clear() - free what a lookup allocated
 * @match: the result; it is left empty and may be reused
 */
void quirk_match_clear(struct quirk_match *match);

/**
 * quirk_handler_known() - whether a name is one of the kernel's device
 *	handlers
 * @name: the name
 *
 * Return: true for alua, emc, hp_sw and rdac.
 */
bool quirk_handler_known(const char *name);

struct quirk_db;

/**
 * quirk_db_new() - make an empty database
 *
 * Return: the database, or NULL if out of memory.
 */
struct quirk_db *quirk_db_new(void);

/**
 * quirk_db_ref() - take a reference to a database (a worker scanning with
 *	it while the daemon loads a new one)
 * @db: the database, or NULL
 *
 * Return: @db.
 */
struct quirk_db *quirk_db_ref(struct quirk_db *db);

/**
 * quirk_db_unref() - drop a reference; the last frees the database
 * @db: the database, or NULL
 *
 * Return: NULL.
 */
struct quirk_db *quirk_db_unref(struct quirk_db *db);

/**
 * quirk_db_free() - drop the one reference of a database that has a single
 *	owner (quirk_db_unref())
 * @db: the database, or NULL
 */
void quirk_db_free(struct quirk_db *db);

/**
 * quirk_db_add_buffer() - parse quirk text and append its entries
 * @db: the database, not yet finalized
 * @name: file name used in entries and diagnostics
 * @buf: the text
 * @len: its length in bytes
 * @diags: where problems are appended
 *
 * A text with any error adds no entry at all; warnings do not stop it.
 *
 * Return: 0 if the entries were added, -EINVAL if the text had errors,
 * -EBUSY if @db is already finalized, -ENOMEM.
 */
int quirk_db_add_buffer(struct quirk_db *db, const char *name, const char *buf, size_t len,
			struct quirk_diags *diags);

/**
 * quirk_db_add_file() - read one quirk file and append its entries
 * @db: the database, not yet finalized
 * @path: the file
 * @diags: where problems are appended
 *
 * Return: as quirk_db_add_buffer(), or a negative errno from reading.
 */
int quirk_db_add_file(struct quirk_db *db, const char *path, struct quirk_diags *diags);

/**
 * quirk_db_add_dirs() - load quirks.d directories with precedence
 * @db: the database, not yet finalized
 * @dirs: directories, lowest precedence first; missing ones are skipped
 * @ndirs: number of @dirs
 * @diags: where problems are appended
 *
 * Every "*.conf" file of every directory takes part, ordered by file name
 * across all directories. A file in a later directory replaces a file of
 * the same name in an earlier one; a symlink to /dev/null masks it.
 *
 * Return: 0 (problems of single files are only in @diags), or a negative
 * errno if a directory could not be read for another reason than absence.
 */
int quirk_db_add_dirs(struct quirk_db *db, const char *const *dirs, size_t ndirs,
		      struct quirk_diags *diags);

/**
 * quirk_db_finalize() - index the database and look for suspicious entries
 * @db: the database
 * @diags: where warnings are appended (shadowed entries, vendors that
 *	differ only by case)
 *
 * After this, quirk_db_match() may be called and no entry may be added.
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_db_finalize(struct quirk_db *db, struct quirk_diags *diags);

/**
 * quirk_db_count() - number of entries
 * @db: the database
 *
 * Return: the number of entries loaded.
 */
size_t quirk_db_count(const struct quirk_db *db);

/**
 * quirk_db_entry() - one entry by position
 * @db: the database
 * @i: position, below quirk_db_count()
 *
 * Return: the entry, owned by @db.
 */
const struct quirk_entry *quirk_db_entry(const struct quirk_db *db, size_t i);

struct lunmask_entry;

/**
 * quirk_db_lunmasks() - the lunmask entries, in database order
 * @db: the database
 * @ret_count: set to how many
 *
 * Return: the array, owned by @db (NULL when there are none).
 */
const struct lunmask_entry *quirk_db_lunmasks(const struct quirk_db *db, size_t *ret_count);

/**
 * quirk_entry_matches() - whether one entry applies to a device
 * @e: the entry
 * @dev: the device
 *
 * Vendor: exact, model: prefix, revision and type: exact; a value holding
 * a glob character is matched whole with fnmatch(3). All case-sensitive.
 *
 * Return: true if it applies.
 */
bool quirk_entry_matches(const struct quirk_entry *e, const struct quirk_device *dev);

/**
 * quirk_device_from_inquiry() - the device a decoded INQUIRY describes
 * @inq: the INQUIRY data; its strings must outlive the result
 *
 * Return: vendor, model, revision and peripheral device type, as matched.
 */
struct quirk_device quirk_device_from_inquiry(const struct inquiry *inq);

/**
 * quirk_db_match() - look a device up
 * @db: a finalized database
 * @dev: the device
 * @ret: the merged result; set only on success
 *
 * Every matching entry is applied in database order: "flags" replaces the
 * flag set, "add_flags" and "drop_flags" change it, "max_lun" and "attach"
 * replace earlier values.
 *
 * Return: 0, -EINVAL if @db is not finalized, -ENOMEM.
 */
int quirk_db_match(const struct quirk_db *db, const struct quirk_device *dev,
		   struct quirk_match *ret);

/**
 * quirk_search_path() - the default quirks.d directories
 * @root: prefix for every directory, or NULL for "/"
 * @ret_dirs: set to a NULL-terminated array of strings; free with
 *	quirk_search_path_free()
 * @ret_count: number of directories
 *
 * Shipped (under the install prefix), then /etc, then /run.
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_search_path(const char *root, char ***ret_dirs, size_t *ret_count);

/**
 * quirk_search_path_free() - free a search path
 * @dirs: as returned by quirk_search_path(), or NULL
 */
void quirk_search_path_free(char **dirs);

/**
 * quirk_db_refuses_per_lun() - whether an entry could refuse single LUNs
 * @db: a finalized database
 *
 * True when some entry says attach = false and names a type or a revision:
 * only then can a LUN's own INQUIRY refuse it where the LUN the target was
 * reached through did not, so only then is each LUN's INQUIRY looked up.
 *
 * Return: true or false.
 */
bool quirk_db_refuses_per_lun(const struct quirk_db *db);

/**
 * quirk_dir_add() - take a quirk directory named on a command line
 * @dirs: the directories so far (a malloc'ed array, or NULL); grown
 * @ndirs: how many; incremented on success
 * @dir: the directory (not copied: it must outlive @dirs)
 *
 * The search path's directories may be missing; one given on a command line
 * (--quirks-dir) must exist, or the database would silently be empty. Every
 * program takes its --quirks-dir options through this.
 *
 * Return: 0, -ENOTDIR, the errno of stat(), or -ENOMEM.
 */
int quirk_dir_add(const char ***dirs, size_t *ndirs, const char *dir);

/**
 * quirk_db_load() - load and finalize a database from directories
 * @dirs: as for quirk_db_add_dirs()
 * @ndirs: number of @dirs
 * @diags: where problems are appended
 * @ret_db: set to the new database on success
 *
 * Used for reloads too: the caller keeps its old database until this
 * returns 0, then frees it.
 *
 * Return: 0 or a negative errno.
 */
int quirk_db_load(const char *const *dirs, size_t ndirs, struct quirk_diags *diags,
		  struct quirk_db **ret_db);

struct quirk_cache;

/**
 * quirk_cache_new() - remember the last version of each file that loaded
 *
 * Return: the cache, or NULL if out of memory.
 */
struct quirk_cache *quirk_cache_new(void);

/**
 * quirk_cache_free() - free a cache
 * @cache: the cache, or NULL
 */
void quirk_cache_free(struct quirk_cache *cache);

/**
 * quirk_db_load_cached() - quirk_db_load() that keeps last good versions
 * @dirs: as for quirk_db_add_dirs()
 * @ndirs: number of @dirs
 * @cache: the text of every file as it last loaded without error
 * @diags: where problems are appended
 * @ret_db: set to the new database on success
 *
 * A file that now has an error is reported and its last good version used
 * instead (a warning says so), so a daemon that reloads keeps what it had
 * for that file while the others' changes apply.
 *
 * Return: 0 or a negative errno.
 */
int quirk_db_load_cached(const char *const *dirs, size_t ndirs, struct quirk_cache *cache,
			 struct quirk_diags *diags, struct quirk_db **ret_db);

/**
 * quirk_dev_flags_export() - the kernel's dev_flags string for a database
 * @db: a finalized database
 * @ret_str: set to a malloc'ed "VENDOR:MODEL:0xFLAGS,..." string on success
 * @diags: entries that cannot be expressed, or do not fit, are reported
 *	here (as errors)
 *
 * Selects the literal entries whose merged flags (every flag the kernel
 * knows, scan flags included: its own target scans read them too) differ
 * from what the kernel's compiled-in table gives the same device under 6.x
 * matching rules (entries marked builtin; 8-character vendors never match
 * there). A dev_flags entry replaces the table's whole value for the
 * device, and the flags a driver sets for its devices (virtio_scsi's
 * try_vpd_pages).
 *
 * Return: 0, -EINVAL if some selected entry cannot be written (glob, ':'
 * or ',' in a string), -ENOSPC if the value would be longer than
 * QUIRK_DEV_FLAGS_MAX (every entry that does not fit is named), -ENOMEM.
 */
int quirk_dev_flags_export(const struct quirk_db *db, char **ret_str, struct quirk_diags *diags);

/**
 * quirk_dev_flags_items() - the items quirk_dev_flags_export() selects, one
 *	string each, without its length limit (for /proc/scsi/device_info)
 * @db: a finalized database
 * @ret_items: set to a malloc'ed, NULL-terminated array of malloc'ed
 *	"VENDOR:MODEL:0xFLAGS" strings; entries that cannot be written are left
 *	out
 * @ret_count: how many
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_dev_flags_items(const struct quirk_db *db, char ***ret_items, size_t *ret_count);

/**
 * quirk_dev_flags_export_devices() - the dev_flags string for the devices of
 *	a machine (host-only, as dracut's host-only images)
 * @db: a finalized database
 * @devs: the devices (vendor, model, revision and type as attached)
 * @count: how many
 * @ret_str: set to a malloc'ed string on success
 * @diags: devices that cannot be named, or do not fit, are reported here
 *
 * One item per distinct vendor and model, with the device's own strings
 * (dev_flags entries match whole strings), for each device an entry of the
 * database gives flags that differ from the kernel's table. Entries with
 * globs reach the kernel this way.
 *
 * Return: 0, -ENOSPC if the value would be longer than QUIRK_DEV_FLAGS_MAX
 * (every item that does not fit is named), -ENOMEM.
 */
int quirk_dev_flags_export_devices(const struct quirk_db *db, const struct quirk_device *devs,
				   size_t count, char **ret_str, struct quirk_diags *diags);

/**
 * quirk_dev_flags_check() - warn about entries whose flags cannot reach the
 *	kernel whole
 * @db: a finalized database
 * @diags: a warning per entry: a glob (reaches the kernel only through the
 *	devices of the machine, host-only), or strings dev_flags cannot name
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_dev_flags_check(const struct quirk_db *db, struct quirk_diags *diags);

/* The longest scsi_mod.dev_flags value: module_param_string(dev_flags, ...,
 * 256, 0) holds 255 characters and refuses a longer one whole. */
#define QUIRK_DEV_FLAGS_MAX 255

/**
 * struct quirk_dev_flag - one VENDOR:MODEL:FLAGS item of a dev_flags string
 * @vendor: vendor as written
 * @model: model as written
 * @flags: the flag value
 */
struct quirk_dev_flag {
	char *vendor;
	char *model;
	uint64_t flags;
};

/**
 * quirk_dev_flags_parse() - split a dev_flags string as the kernel does
 * @str: the value of scsi_mod.dev_flags
 * @ret_items: set to a malloc'ed array on success
 * @ret_count: number of items
 * @ret_error: on -EINVAL, set to a static description of the problem
 *
 * Follows scsi_dev_info_list_add_str(): an optional leading quote, parsing
 * ends at the first empty vendor, flags in base 0.
 *
 * Return: 0, -EINVAL (longer than QUIRK_DEV_FLAGS_MAX, missing ':', bad
 * number, unsupported bits), -ENOMEM.
 */
int quirk_dev_flags_parse(const char *str, struct quirk_dev_flag **ret_items, size_t *ret_count,
			  const char **ret_error);

/**
 * quirk_dev_flags_free() - free the result of quirk_dev_flags_parse()
 * @items: the array, or NULL
 * @count: its length
 */
void quirk_dev_flags_free(struct quirk_dev_flag *items, size_t count);

/**
 * quirk_db_image() - the database compiled into a byte image
 * @db: a database loaded from directories (its sources are recorded)
 * @root: a staging tree the directories were read under (its prefix is
 *	taken off every path the image records), or NULL
 * @ret: set to a malloc'ed image
 * @ret_len: its length
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_db_image(const struct quirk_db *db, const char *root, uint8_t **ret, size_t *ret_len);

/**
 * quirk_db_image_decode() - a database from an image, if it is current
 * @buf: the image
 * @len: its length
 * @dirs: the search path the caller would read, lowest precedence first
 * @ndirs: how many
 * @ret: the database, not finalized (more files may be added); written
 *	only on success
 *
 * The image is current when it was made from exactly @dirs, every
 * directory still holds the same *.conf names (none added, removed or
 * masked) and every file the same bytes.
 *
 * Return: 0, -ESTALE (made from other directories, or one changed),
 * -EINVAL (not an image of this version, or broken), -ENOMEM.
 */
int quirk_db_image_decode(const uint8_t *buf, size_t len, const char *const *dirs, size_t ndirs,
			  struct quirk_db **ret);

/**
 * quirk_db_image_load() - quirk_db_image_decode() of a file
 * @path: the image file
 * @dirs: the search path
 * @ndirs: how many
 * @ret: the database, not finalized
 *
 * Return: 0, -ENOENT (no image), or as quirk_db_image_decode().
 */
int quirk_db_image_load(const char *path, const char *const *dirs, size_t ndirs,
			struct quirk_db **ret);

/**
 * quirk_db_open() - the database of a search path: from its compiled image
 *	when that is current, else from the text
 * @dirs: the search path, lowest precedence first
 * @ndirs: how many
 * @image: the image file, or NULL for none
 * @diags: problems of the text (none come from an image)
 * @ret: the database, not finalized (files may be added)
 * @ret_image: 0 if the image was used, else why not (-ENOENT, -ESTALE,
 *	-EINVAL)
 *
 * Return: 0 or a negative errno.
 */
int quirk_db_open(const char *const *dirs, size_t ndirs, const char *image,
		  struct quirk_diags *diags, struct quirk_db **ret, int *ret_image);

/* The starting value of quirk_hash(). */
#define QUIRK_HASH_INIT 0xcbf29ce484222325ULL

/**
 * quirk_hash() - 64-bit FNV-1a over bytes, continued from @h
 * @h: QUIRK_HASH_INIT, or the hash of what came before
 * @p: the bytes
 * @n: how many
 *
 * Each step is a bijection of the 64-bit state, so two inputs of one length
 * that differ in a single byte (every single-bit flip) never hash alike.
 *
 * The compiled image ends with this hash of its other bytes, and records
 * each source file by it.
 *
 * Return: the hash.
 */
uint64_t quirk_hash(uint64_t h, const void *p, size_t n);

/**
 * quirk_db_image_save() - write a database's image, atomically
 * @db: the database
 * @root: as for quirk_db_image(), or NULL
 * @path: the file (replaced by a rename, so readers see a whole image); a
 *	symlink is followed, and only a regular file is ever replaced
 *
 * Return: 0, -EINVAL if @path exists and is not a regular file (a device
 * node, a directory, a FIFO), or another negative errno.
 */
int quirk_db_image_save(const struct quirk_db *db, const char *root, const char *path);

#endif
