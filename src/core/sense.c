// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sense.c - decoding SCSI sense data. No I/O.
 */
#include <errno.h>
#include <scsi/sg_lib.h>
#include <stdio.h>
#include <string.h>

#include "sense.h"

int sense_decode(const uint8_t *buf, size_t len, struct sense *ret)
{
	struct sense s = { 0 };
	uint8_t code;

	if (!buf || len < 2)
		return -EINVAL;
	code = buf[0] & 0x7f;
	switch (code) {
	case 0x70:
	case 0x71:
		if (len < 3)
			return -EINVAL;
		s.key = buf[2] & 0x0f;
		/* ASC and ASCQ exist only if the additional length covers them. */
		if (len >= 14 && buf[7] >= 6) {
			s.asc = buf[12];
			s.ascq = buf[13];
		}
		s.deferred = code == 0x71;
		break;
	case 0x72:
	case 0x73:
		if (len < 4)
			return -EINVAL;
		s.key = buf[1] & 0x0f;
		s.asc = buf[2];
		s.ascq = buf[3];
		s.deferred = code == 0x73;
		break;
	default:
		return -EINVAL;
	}
	*ret = s;
	return 0;
}

char *sense_describe(const struct sense *s, char *buf, size_t len)
{
	char key[64], asc[128];

	sg_get_sense_key_str(s->key, sizeof(key), key);
	sg_get_asc_ascq_str(s->asc, s->ascq, sizeof(asc), asc);
	snprintf(buf, len, "%s%s: %s (%02x/%02x)", s->deferred ? "deferred " : "", key, asc, s->asc,
		 s->ascq);
	return buf;
}
