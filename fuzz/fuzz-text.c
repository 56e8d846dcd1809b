// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-text - the small text parsers: selectors, dev_flags strings, LUN
 * ranges, the scsi_scan.lunmask= command line (whose quirk text must load
 * without an error), uevent properties (split at newlines: action,
 * subsystem, devtype, sysname, ua).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lunmask.h"
#include "monitor.h"
#include "quirks.h"
#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
