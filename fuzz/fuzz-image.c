// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-image - the compiled quirk database's decoder, on any bytes: a
 * broken image is refused whole; one that decodes indexes and answers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	uint8_t *copy;
	uint64_t h;
	int r;

	/* As it is, and with its trailing hash made right, so that the
	 * decoder behind the hash is explored too. */
	r = quirk_db_image_decode(data, size, dirs, 0, &db);
	if (r != 0 && r != -EINVAL && r != -ESTALE && r != -ENOMEM)
		__builtin_trap();
	quirk_db_unref(db);
	db = NULL;
	if (size < 20)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	h = quirk_hash(QUIRK_HASH_INIT, copy, size - 8);
	for (size_t i = 0; i < 8; i++)
		copy[size - 8 + i] = (uint8_t)(h >> (8 * i));
	r = quirk_db_image_decode(copy, size, dirs, 0, &db);
	free(copy);
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
