// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-sense - fixed and descriptor sense decoding, and its text.
 */
#include <stdint.h>
#include <string.h>

#include "sense.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sense s;
	char text[200];

	if (sense_decode(data, size, &s) == 0) {
		sense_describe(&s, text, sizeof(text));
		if (strlen(text) >= sizeof(text))
			__builtin_trap();
	}
	return 0;
}
