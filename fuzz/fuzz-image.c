// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-image - the compiled quirk database's decoder, on any bytes: a
 * broken image is refused whole; one that decodes indexes and answers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-match.h"
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
	int r;

	r = quirk_db_image_decode(data, size, dirs, 0, &db);
	if (r != 0 && r != -EINVAL && r != -ESTALE && r != -ENOMEM)
		__builtin_trap();
	if (r != 0)
		return 0;
	if (quirk_db_finalize(db, &diags) == 0)
		fuzz_match_every_entry(db, &dev);
	quirk_diags_clear(&diags);
	quirk_db_unref(db);
	return 0;
}
