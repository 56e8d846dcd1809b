// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inquiry.c - decoding standard INQUIRY data. No I/O.
 */
#include <stdbool.h>
#include <string.h>

#include "inquiry.h"

void inquiry_field_clean(char *dst, const uint8_t *src, size_t len)
{
	size_t start = 0, end;
	bool after_nul = false;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = src[i];

		if (c == 0)
			after_nul = true;
		dst[i] = (after_nul || c < 0x20 || c > 0x7e) ? ' ' : (char)c;
	}
	end = len;
	while (start < end && dst[start] == ' ')
		start++;
	while (end > start && dst[end - 1] == ' ')
		end--;
	memmove(dst, dst + start, end - start);
	dst[end - start] = '\0';
}
