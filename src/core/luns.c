// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * luns.c - LUN conversion and REPORT LUNS decoding. No I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luns.h"

uint64_t lun_from_scsilun(const uint8_t b[8])
{
	uint64_t lun = 0;

	for (int i = 0; i < 8; i += 2)
		lun |= (uint64_t)((b[i] << 8) | b[i + 1]) << (i * 8);
	return lun;
}

void lun_to_scsilun(uint64_t lun, uint8_t b[8])
{
	for (int i = 0; i < 8; i += 2) {
		b[i] = (lun >> 8) & 0xff;
		b[i + 1] = lun & 0xff;
		lun >>= 16;
	}
}

bool lun_is_wlun(uint64_t lun)
{
	return (lun & 0xff00) == LUN_WLUN_BASE;
}

bool lun_scan_writable(uint64_t lun)
{
	return lun <= UINT64_C(0x00ffffffffffffff);
}

struct lun_pos {
	uint64_t lun;
	size_t pos;
};

static int cmp_lun_pos(const void *a, const void *b)
{
	const struct lun_pos *x = a, *y = b;

	if (x->lun != y->lun)
		return x->lun < y->lun ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int report_luns_decode(const uint8_t *buf, size_t len, uint64_t **ret_luns, size_t *ret_count,
		       size_t *ret_needed, bool *ret_complete)
{
	struct lun_pos *sorted = NULL;
	uint64_t *luns = NULL;
	uint32_t list_len;
	bool *dup = NULL, ascending = true;
	size_t n, count = 0;

	if (!buf || len < 8)
		return -EINVAL;
	list_len = (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
	n = list_len / 8;
	if (n > (len - 8) / 8)
		n = (len - 8) / 8;
	if (n) {
		luns = malloc(n * sizeof(*luns));
		sorted = malloc(n * sizeof(*sorted));
		dup = calloc(n, sizeof(*dup));
		if (!luns || !sorted || !dup) {
			free(luns);
			free(sorted);
			free(dup);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++) {
		sorted[i].lun = lun_from_scsilun(buf + 8 + 8 * i);
		sorted[i].pos = i;
		ascending &= i == 0 || sorted[i].lun > sorted[i - 1].lun;
	}
	/* A lying device may repeat entries: keep the first of each. A list
	 * in ascending order, as devices mostly send it, repeats none and
	 * is not sorted again (n log n, at 16,384 LUNs). */
	if (n && !ascending)
		qsort(sorted, n, sizeof(*sorted), cmp_lun_pos);
	for (size_t i = 1; i < n; i++)
		if (sorted[i].lun == sorted[i - 1].lun)
			dup[sorted[i].pos] = true;
	for (size_t i = 0; i < n; i++)
		if (!dup[i])
			luns[count++] = lun_from_scsilun(buf + 8 + 8 * i);
	free(sorted);
	free(dup);
	*ret_luns = luns;
	*ret_count = count;
	*ret_needed = (size_t)list_len + 8;
	*ret_complete = len >= (size_t)list_len + 8;
	return 0;
}
