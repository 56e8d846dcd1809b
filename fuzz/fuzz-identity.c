// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-identity - VPD page 0x80 and 0x83 decoding and the ghost-LUN
 * judgement of any bytes. The input is two LUNs' data, split at the
 * offset its first byte names; each is up to 36 bytes of INQUIRY data, a
 * length byte, that many bytes of page 0x80, and page 0x83.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "identity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lun(const uint8_t *p, size_t n, struct lun_identity *id)
{
	size_t inq = n < INQUIRY_MIN_LEN ? n : INQUIRY_MIN_LEN, pg80;

	memset(id, 0, sizeof(*id));
	identity_set_inquiry(id, p, inq);
	p += inq;
	n -= inq;
	if (!n)
		return;
	pg80 = p[0] < n - 1 ? p[0] : n - 1;
	identity_set_vpd80(id, p + 1, pg80);
	identity_set_vpd83(id, p + 1 + pg80, n - 1 - pg80);
	if (id->ndesignators > IDENTITY_MAX_DESIGNATORS)
		__builtin_trap();
	for (size_t i = 0; i < id->ndesignators; i++)
		if (strnlen(id->designators[i].text, IDENTITY_TEXT_LEN) == IDENTITY_TEXT_LEN)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lun_identity a, b;
	struct ghost_evidence ab, ba, aa;
	size_t split;

	if (size < 1)
		return 0;
	split = data[0] < size - 1 ? data[0] : size - 1;
	lun(data + 1, split, &a);
	lun(data + 1 + split, size - 1 - split, &b);
	ghost_judge(&a, &b, &ab);
	ghost_judge(&b, &a, &ba);
	ghost_judge(&a, &a, &aa);
	/* The verdict does not depend on the order, and a LUN is never told
	 * apart from itself. */
	if (ab.verdict != ba.verdict || aa.verdict == GHOST_DISTINCT ||
	    aa.verdict == GHOST_CONFLICT || strnlen(ab.text, sizeof(ab.text)) == sizeof(ab.text))
		__builtin_trap();
	return 0;
}
