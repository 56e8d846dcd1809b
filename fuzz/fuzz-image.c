// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-image - the compiled quirk database's decoder, on any bytes: a
 * broken image is refused whole; one that decodes indexes and answers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "quirks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* No directory: an image that records none is current, and the
	 * decoder never reads the file system for the fuzzer. */
	static const char *const *dirs;
	struct quirk_device dev = { .vendor = "ACME", .model = "Disk", .type = 0 };
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = NULL;
	struct quirk_match m;
	int r;

	r = quirk_db_image_decode(data, size, dirs, 0, &db);
	if (r != 0 && r != -EINVAL && r != -ESTALE && r != -ENOMEM)
		__builtin_trap();
	if (r != 0)
		return 0;
	if (quirk_db_finalize(db, &diags) == 0) {
		for (size_t i = 0; i < quirk_db_count(db); i++) {
			const struct quirk_entry *e = quirk_db_entry(db, i);

			dev.vendor = e->vendor;
			dev.model = e->model;
			if (quirk_db_match(db, &dev, &m) == 0)
				quirk_match_clear(&m);
		}
	}
	quirk_diags_clear(&diags);
	quirk_db_unref(db);
	return 0;
}
