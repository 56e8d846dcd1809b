// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-report-luns - REPORT LUNS decoding and LUN conversion both ways.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t *luns = NULL;
	size_t n = 0, needed;
	bool complete;

	if (report_luns_decode(data, size, &luns, &n, &needed, &complete) == 0) {
		if (n > (size - 8) / 8 || complete != (needed <= size))
			__builtin_trap();
		for (size_t i = 0; i < n; i++) {
			uint8_t b[8];

			/* int_to_scsilun(scsilun_to_int(x)) == x for every entry */
			lun_to_scsilun(luns[i], b);
			if (lun_from_scsilun(b) != luns[i])
				__builtin_trap();
			for (size_t k = 0; k < i; k++)
				if (luns[k] == luns[i])
					__builtin_trap();
		}
		free(luns);
	}
	if (size >= 8) {
		uint8_t b[8];

		lun_to_scsilun(lun_from_scsilun(data), b);
		if (memcmp(b, data, 8) != 0)
			__builtin_trap();
	}
	return 0;
}
