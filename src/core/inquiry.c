// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inquiry.c - decoding standard INQUIRY data. No I/O.
 */
#include <errno.h>
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

int inquiry_unit_serial(const uint8_t *page, size_t len, char *buf, size_t size)
{
	size_t n;

	if (len < 4 || page[1] != 0x80)
		return -EINVAL;
	n = (size_t)page[2] << 8 | page[3];
	if (n == 0 || 4 + n > len)
		return -EINVAL;
	if (n + 1 > size)
		return -ENOSPC;
	inquiry_field_clean(buf, page + 4, n);
	return buf[0] ? 0 : -EINVAL;
}

int inquiry_scsi_level(uint8_t version, uint8_t response_format)
{
	/* scsi_probe_lun() reads only the low nibble: the high one held the
	 * old ECMA and ISO version fields. */
	uint8_t v = version & 0x0f;

	if (v == 0)
		return SCSI_LEVEL_UNKNOWN;
	if (v == 1)
		return (response_format & 0x0f) == 1 ? SCSI_LEVEL_1_CCS : SCSI_LEVEL_1;
	return v + 1;
}

/* Copies a field that may lie partly or wholly beyond @len as blanks. */
static void field(char *dst, const uint8_t *buf, size_t len, size_t off, size_t width)
{
	uint8_t raw[16];

	memset(raw, ' ', sizeof(raw));
	if (off < len)
		memcpy(raw, buf + off, len - off < width ? len - off : width);
	inquiry_field_clean(dst, raw, width);
}

int inquiry_decode(const uint8_t *buf, size_t len, struct inquiry *ret)
{
	struct inquiry inq;

	if (!buf || len < 5)
		return -EINVAL;
	memset(&inq, 0, sizeof(inq));
	inq.pq = buf[0] >> 5;
	inq.pdt = buf[0] & 0x1f;
	inq.removable = buf[1] & 0x80;
	inq.version = buf[2];
	inq.response_format = buf[3] & 0x0f;
	inq.tpgs = len > 5 ? (buf[5] >> 4) & 0x3 : 0;
	inq.scsi_level = inquiry_scsi_level(inq.version, inq.response_format);
	inq.response_len = (size_t)buf[4] + 5;
	inq.len = len;
	field(inq.vendor, buf, len, 8, 8);
	field(inq.model, buf, len, 16, 16);
	field(inq.revision, buf, len, 32, 4);
	*ret = inq;
	return 0;
}

const char *pdt_name(int pdt)
{
	static const char *const names[32] = {
		"disk",	   "tape",    "printer", "process", "worm",   "cd/dvd",	 "scanner",
		"optical", "mediumx", "comms",	 "(0xa)",   "(0xb)",  "storage", "enclosu",
		"sim dsk", "opti rd", "bridge",	 "osd",	    "adi",    "sec man", "zbc",
		"(0x15)",  "(0x16)",  "(0x17)",	 "(0x18)",  "(0x19)", "(0x1a)",	 "(0x1b)",
		"(0x1c)",  "(0x1d)",  "wlun",	 "no dev",
	};

	if (pdt < 0 || pdt > 31)
		return "(?)";
	return names[pdt];
}

const char *scsi_level_name(int level)
{
	static const char *const names[] = {
		"unknown", "SCSI-1", "SCSI-1-CCS", "SCSI-2", "SPC",
		"SPC-2",   "SPC-3",  "SPC-4",	   "SPC-5",
	};

	if (level < 0 || level >= (int)(sizeof(names) / sizeof(names[0])))
		return "SPC-6+";
	return names[level];
}
