// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-quirks - the quirk file parser, the index and a lookup, on any text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-match.h"
#include "quirks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct quirk_device dev = {
		.vendor = "ACME", .model = "Disk", .revision = "1.0", .type = 0
	};
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = quirk_db_new();
	char *s;

	if (!db)
		return 0;
	quirk_db_add_buffer(db, "fuzz.conf", (const char *)data, size, &diags);
	if (quirk_db_finalize(db, &diags) == 0) {
		fuzz_match_every_entry(db, &dev);
		if (quirk_dev_flags_export(db, &s, &diags) == 0)
			free(s);
	}
	/* every error names a line inside the text, or the whole file */
	for (size_t i = 0; i < diags.count; i++)
		if (!diags.items[i].message || strcmp(diags.items[i].file, "fuzz.conf") != 0)
			__builtin_trap();
	quirk_diags_clear(&diags);
	quirk_db_free(db);
	return 0;
}
