// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-inquiry - standard INQUIRY decoding of any bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "inquiry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inquiry inq;

	if (inquiry_decode(data, size, &inq) == 0) {
		/* The strings must be clean and bounded whatever came in. */
		if (strlen(inq.vendor) > 8 || strlen(inq.model) > 16 || strlen(inq.revision) > 4)
			__builtin_trap();
		for (const char *p = inq.vendor; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				__builtin_trap();
		(void)pdt_name(inq.pdt);
		(void)scsi_level_name(inq.scsi_level);
	}
	return 0;
}
