// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-text - the small text parsers: selectors, dev_flags strings, LUN
 * ranges, the scsi_scan.lunmask= command line (whose quirk text must load
 * without an error), uevent properties (split at newlines: action,
 * subsystem, devtype, sysname, ua), and the hold-out text with the input as
 * its target, host path and reason (it must parse back to the same
 * strings).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lunmask.h"
#include "monitor.h"
#include "quirks.h"
#include "scan.h"
#include "volume.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The hold-out of a key built from @s parses back to @s. */
static void holdout_round_trip(const char *s)
{
	struct holdout_key k = { .transport = DISCOVER_ISCSI, .tpgt = -1, .lun = 3 };
	const struct lunmask_entry *e;
	struct quirk_db *db;
	char text[8192];
	size_t n;

	/* iscsi_target is taken in lower case; a NUL ends the string. */
	snprintf(k.target, sizeof(k.target), "%s", s);
	for (char *p = k.target; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	if (!k.target[0])
		return;
	for (int probe = 0; probe < 2; probe++) {
		if (probe) {
			k.transport = DISCOVER_PROBE;
			snprintf(k.host_path, sizeof(k.host_path), "%s", s);
			snprintf(k.driver, sizeof(k.driver), "%s", s);
		}
		if (holdout_text(&k, s, text, sizeof(text)) < 0)
			continue;
		db = quirk_db_new();
		if (!db)
			return;
		if (quirk_db_add_buffer(db, "holdout", text, strlen(text), NULL) != 0)
			__builtin_trap();
		e = quirk_db_lunmasks(db, &n);
		if (n != 1 || !e->reason || strncmp(e->reason, s, 255) != 0)
			__builtin_trap();
		if (!probe && (!e->iscsi_target || strcmp(e->iscsi_target, k.target) != 0))
			__builtin_trap();
		if (probe && (!e->host_path || strcmp(e->host_path, k.host_path) != 0 ||
			      !e->driver || strcmp(e->driver, k.driver) != 0))
			__builtin_trap();
		quirk_db_free(db);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *fields[6] = { NULL }, *p;
	struct quirk_dev_flag *items;
	struct scsi_event ev;
	struct selector sel;
	struct lun_range range;
	const char *err, *bad;
	char *config = NULL;
	size_t n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (selector_parse(text, &sel) == 0 && sel.host < -1)
		__builtin_trap();
	if (quirk_dev_flags_parse(text, &items, &n, &err) == 0)
		quirk_dev_flags_free(items, n);
	if (lun_range_parse(text, &range) == 0 && range.first > range.last)
		__builtin_trap();
	if (lunmask_cmdline_config(text, &config, &err, &bad) == 0 && config) {
		struct quirk_db *db = quirk_db_new();

		if (db && quirk_db_add_buffer(db, "cmdline", config, strlen(config), NULL) != 0)
			__builtin_trap();
		quirk_db_free(db);
		free(config);
	}
	holdout_round_trip(text);
	p = text;
	for (int i = 0; i < 6 && p; i++) {
		fields[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	scsi_event_classify(fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], &ev);
	free(text);
	return 0;
}
