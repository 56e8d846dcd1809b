/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.h - text and JSON printers for scan reports and device listings.
 */
#ifndef SCSI_SCAN_OUTPUT_H
#define SCSI_SCAN_OUTPUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "handler.h"
#include "kflags.h"
#include "paths.h"
#include "scan.h"
#include "volops.h"

/* The version of the JSON that scsi-scan prints (scsi-scan(8), JSON
 * OUTPUT): raised when a field changes meaning or goes away, not when one
 * is added. */
#define OUTPUT_JSON_VERSION 1

/**
 * struct device_info - one attached device, as listed
 * @addr: H:C:T:L
 * @type: peripheral device type from sysfs, or -1
 * @scsi_level: Linux scsi_level from sysfs, or -1
 * @vendor: vendor, trimmed
 * @model: model, trimmed
 * @rev: revision, trimmed
 * @block: block node name (e.g. "sdb"), or ""
 * @sg: sg node name (e.g. "sg2"), or ""
 * @kernel_flags: the kernel's blacklist attribute (the flags it applied)
 * @state: device state
 * @match: the quirk database's answer for the device
 * @kflags: the kernel's flags held against the database's
 * @id_kernel: the identity of the kernel's copy, in words
 * @id_recorded: the identity recorded when the LUN was first seen
 * @id_changed: the two name different units
 * @id_what: the comparison, in words
 * @transport: the target's transport address as lsscsi -t prints it
 *	("IQN,t,0x1", "fc:0x5006...", "sas:0x5000..."), or ""
 * @dev: its wwid, size and the multipath map above it (paths.h)
 */
struct device_info {
	struct scsi_addr addr;
	int type;
	int scsi_level;
	char vendor[64];
	char model[64];
	char rev[32];
	char block[32];
	char sg[32];
	char kernel_flags[1024];
	char state[32];
	struct quirk_match match;
	struct kflags_check kflags;
	char id_kernel[IDENTITY_TEXT_LEN + 32];
	char id_recorded[IDENTITY_TEXT_LEN + 32];
	bool id_changed;
	char id_what[IDENTITY_EVIDENCE_LEN];
	char transport[ISCSI_NAME_MAX + 48];
	struct path_devices dev;
};

/**
 * device_list() - the attached devices a selector names, with their quirks
 * @sys: the path context
 * @db: the quirk database
 * @sel: the selector
 * @ret: set to a malloc'ed array; free with device_list_free()
 * @ret_count: how many
 *
 * Return: 0 or a negative errno.
 */
int device_list(const struct sysfs_ctx *sys, const struct quirk_db *db, const struct selector *sel,
		struct device_info **ret, size_t *ret_count);

/**
 * device_list_free() - free what device_list() returned
 * @list: the array
 * @count: its length
 */
void device_list_free(struct device_info *list, size_t count);

/**
 * utf8_valid_prefix() - how many leading bytes form valid UTF-8
 * @s: the bytes
 * @len: how many
 *
 * Overlong forms, surrogates and code points past U+10FFFF are invalid.
 *
 * Return: the length of the valid prefix (@len if all of it is valid).
 */
size_t utf8_valid_prefix(const char *s, size_t len);

/**
 * output_json_string() - a JSON string for text that may not be UTF-8
 * @s: the text (file names, mount points, device strings), or NULL
 *
 * JSON must be UTF-8; a byte that is not part of a valid sequence becomes
 * the four characters \xNN (and a backslash stays itself), so nothing is
 * lost and the output stays valid.
 *
 * Return: a new json-c string, or NULL (JSON null) for NULL.
 */
json_object *output_json_string(const char *s);

/**
 * output_escape() - a device-provided string made safe to print
 * @s: the string
 * @buf: output; control bytes, DEL, bytes above 0x7e and backslashes
 *	become \\xNN
 * @len: size of @buf
 *
 * Return: @buf.
 */
char *output_escape(const char *s, char *buf, size_t len);

/**
 * output_flags_json() - BLIST flags as a JSON array of their names
 * @flags: the flag word
 *
 * Return: a new JSON array, e.g. ["nolun", "notq"].
 */
json_object *output_flags_json(uint64_t flags);

/**
 * output_sources_json() - the entries behind a quirk match, as JSON
 * @m: the match
 *
 * Return: a new JSON array of {file, line, title}.
 */
json_object *output_sources_json(const struct quirk_match *m);

/**
 * output_handler_json() - a device-handler choice as JSON
 * @h: the choice
 *
 * Return: {"name", "origin", "source"}, or NULL for none.
 */
json_object *output_handler_json(const struct handler_choice *h);

/**
 * output_handler_text() - a device-handler choice in words
 * @h: the choice
 * @buf: where to write
 * @len: its size
 */
void output_handler_text(const struct handler_choice *h, char *buf, size_t len);

/**
 * output_lun_ranges() - the LUNs of one outcome, runs folded: "0-7,9"
 * @t: the target's report
 * @o: the outcome
 * @buf: output ("" if none)
 * @len: size of @buf
 */
void output_lun_ranges(const struct target_report *t, enum lun_outcome o, char *buf, size_t len);

/**
 * output_size() - a size in 512-byte sectors for people
 * @sectors: the size, or negative for unknown
 * @buf: output, e.g. "8.00 GiB" or "?"
 * @len: size of @buf
 *
 * Return: @buf.
 */
char *output_size(int64_t sectors, char *buf, size_t len);

/**
 * output_list_text() - an lsscsi-like listing
 * @f: where to print
 * @list: the devices
 * @count: how many
 * @verbose: also every quirk source
 */
void output_list_text(FILE *f, const struct device_info *list, size_t count, bool verbose);

/**
 * output_kflags_text() - the LUNs whose kernel flags differ from the
 *	database's, in words ("explain")
 * @f: where to print
 * @list: the devices
 * @count: how many
 */
void output_kflags_text(FILE *f, const struct device_info *list, size_t count);

/**
 * output_list_json() - the listing as JSON
 * @list: the devices
 * @count: how many
 *
 * Return: a new JSON array (the caller puts it), or NULL if out of memory.
 */
json_object *output_list_json(const struct device_info *list, size_t count);

/**
 * output_scan_text() - a scan report for people
 * @f: where to print
 * @rep: the report
 * @verbose: one line per LUN
 */
void output_scan_text(FILE *f, const struct scan_report *rep, bool verbose);

/**
 * output_explain_text() - the whole decision trail of each target
 * @f: where to print
 * @rep: the report of a dry run
 */
void output_explain_text(FILE *f, const struct scan_report *rep);

/**
 * output_json_document() - the top of a JSON document scsi-scan prints
 * @kind: "scan", "list" or "resize"
 * @member: the name of @value, or NULL
 * @value: a JSON value it takes over, or NULL
 *
 * Return: a new object {"version": OUTPUT_JSON_VERSION, "kind": @kind,
 * @member: @value}.
 */
json_object *output_json_document(const char *kind, const char *member, json_object *value);

/**
 * output_volume_text() - a volume's paths as they are: one line a path with
 *	its H:C:T:L, sd and sg nodes, state and transport entry, then its wwid
 *	and map
 * @f: where to print
 * @address: the volume's address in words (volume_address_text())
 * @paths: the paths
 * @dev: each path's devices
 * @n: how many
 */
void output_volume_text(FILE *f, const char *address, const struct volume_path *paths,
			const struct path_devices *dev, size_t n);

/**
 * output_volume_json() - a volume's paths as JSON
 * @address: the volume's address in words
 * @paths: the paths
 * @dev: each path's devices
 * @n: how many
 *
 * Return: {"address", "paths": [{"hctl", "lun_hex", "attached", "state",
 * "transport_entry", "transport_state", "block", "sg", "wwid", "sectors",
 * "map", "map_device"}], "attached": N}.
 */
json_object *output_volume_json(const char *address, const struct volume_path *paths,
				const struct path_devices *dev, size_t n);

/**
 * output_steps_text() - an operation's steps, one line each
 * @f: where to print
 * @s: the steps
 */
void output_steps_text(FILE *f, const struct volume_steps *s);

/**
 * output_steps_json() - an operation's steps as a JSON array
 * @s: the steps
 *
 * Return: [{"step", "object", "result", "why", "sectors_before",
 * "sectors_after"}].
 */
json_object *output_steps_json(const struct volume_steps *s);

/**
 * output_scan_json() - a scan report as JSON
 * @rep: the report
 *
 * Return: a new JSON object (the caller puts it), or NULL if out of memory.
 */
json_object *output_scan_json(const struct scan_report *rep);

struct lunmask_entry;
struct resize_result;
struct quirk_suggestion;

/**
 * output_suggestion_json() - a quirk entry proposed by scsi-quirks suggest
 * @s: the proposal
 * @target: the H:C:T it came from
 * @entry: its quirks.d text, or NULL when nothing is proposed
 * Return: a new object: version, kind "suggest", target, vendor, model,
 * revision, flags, max_lun, evidence (rule, proposes, text) and entry.
 */
json_object *output_suggestion_json(const struct quirk_suggestion *s, const char *target,
				    const char *entry);

/**
 * output_resize_text() - one line for a LUN rescanned for its capacity
 * @f: where to print
 * @r: the result
 */
void output_resize_text(FILE *f, const struct resize_result *r);

/**
 * output_resize_json() - a rescanned LUN as JSON
 * @r: the result
 * Return: an object with hctl, block, sectors_before, sectors_after,
 * changed and error.
 */
json_object *output_resize_json(const struct resize_result *r);

/**
 * output_lunmask_match() - what a lunmask entry matches, in words
 * @e: the entry
 * @buf: where the text goes, e.g. "port_name 500507680b215660, id 3"
 * @len: its size
 */
void output_lunmask_match(const struct lunmask_entry *e, char *buf, size_t len);

/**
 * output_lunmask_effect() - what a lunmask entry decides, in words
 * @e: the entry
 * @buf: where the text goes, e.g. "luns = 0, 12, 20-29; exclude_luns = 255"
 * @len: its size
 */
void output_lunmask_effect(const struct lunmask_entry *e, char *buf, size_t len);

/**
 * output_lunmask_json() - a lunmask entry as JSON
 * @e: the entry
 *
 * Return: an object with file, line, title, every match key (null when not
 * given), luns (null when not given), exclude_luns and reason.
 */
json_object *output_lunmask_json(const struct lunmask_entry *e);

#endif
