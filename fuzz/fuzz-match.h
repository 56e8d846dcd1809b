/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-match.h - what the database fuzzers do with a database that indexed.
 */
#ifndef SCSI_SCAN_FUZZ_MATCH_H
#define SCSI_SCAN_FUZZ_MATCH_H

#include "quirks.h"

/**
 * fuzz_match_every_entry() - look up each entry's own vendor and model
 * @db: a finalized database
 * @dev: the device to look up, its other fields as the caller set them
 *
 * Every entry must be reachable by lookup without a crash or a leak; what
 * matches is not checked (a later entry may shadow an earlier one).
 */
static inline void fuzz_match_every_entry(const struct quirk_db *db, struct quirk_device *dev)
{
	struct quirk_match m;

	for (size_t i = 0; i < quirk_db_count(db); i++) {
		const struct quirk_entry *e = quirk_db_entry(db, i);

		dev->vendor = e->vendor;
		dev->model = e->model;
		if (quirk_db_match(db, dev, &m) == 0)
			quirk_match_clear(&m);
	}
}

#endif
