// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode-dump - what the project's decoders make of one SCSI response in a
 * file, one "key=value" per line, for test-oracles.py to hold against
 * sg3-utils' decoding of the same bytes.
 *
 *   decode-dump inquiry FILE...   standard INQUIRY
 *   decode-dump vpd80 FILE...     unit serial number page
 *   decode-dump vpd83 FILE...     device identification page (LU designators)
 *   decode-dump luns FILE...      REPORT LUNS response
 *
 * Each file's lines follow a line "file=PATH".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "inquiry.h"
#include "luns.h"

static size_t slurp(const char *path, uint8_t *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

static int dump(const char *kind, const char *path)
{
	static uint8_t buf[1 << 20];
	size_t len = slurp(path, buf, sizeof(buf));

	printf("file=%s\n", path);
	if (strcmp(kind, "inquiry") == 0) {
		struct inquiry inq;

		if (inquiry_decode(buf, len, &inq) < 0) {
			puts("error=EINVAL");
			return 0;
		}
		printf("pq=%u\npdt=%u\nrmb=%d\nversion=0x%02x\nformat=%u\ntpgs=%u\nlength=%zu\n"
		       "vendor=%s\nproduct=%s\nrevision=%s\n",
		       inq.pq, inq.pdt, inq.removable, inq.version, inq.response_format, inq.tpgs,
		       inq.response_len, inq.vendor, inq.model, inq.revision);
	} else if (strcmp(kind, "vpd80") == 0) {
		char serial[512];

		if (inquiry_unit_serial(buf, len, serial, sizeof(serial)) < 0)
			puts("error=EINVAL");
		else
			printf("serial=%s\n", serial);
	} else if (strcmp(kind, "vpd83") == 0) {
		struct lun_identity id = { 0 };

		if (identity_set_vpd83(&id, buf, len) < 0) {
			puts("error=EINVAL");
			return 0;
		}
		for (unsigned int t = 0; t < IDENTITY_DESIGNATOR_TYPES; t++)
			if (id.type_count[t])
				printf("count.%u=%u\n", t, id.type_count[t]);
		for (size_t i = 0; i < id.ndesignators; i++)
			printf("designator=%u %s\n", id.designators[i].type,
			       id.designators[i].text);
	} else if (strcmp(kind, "luns") == 0) {
		uint64_t *luns = NULL;
		size_t n = 0, needed;
		bool complete;

		if (report_luns_decode(buf, len, &luns, &n, &needed, &complete) < 0) {
			puts("error=EINVAL");
			return 0;
		}
		printf("complete=%d\n", complete);
		for (size_t i = 0; i < n; i++) {
			uint8_t b[8];

			lun_to_scsilun(luns[i], b);
			printf("lun=%llu %02x%02x%02x%02x%02x%02x%02x%02x\n",
			       (unsigned long long)luns[i], b[0], b[1], b[2], b[3], b[4], b[5],
			       b[6], b[7]);
		}
		free(luns);
	} else {
		fprintf(stderr, "decode-dump: unknown kind %s\n", kind);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: decode-dump inquiry|vpd80|vpd83|luns FILE...\n", stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (dump(argv[1], argv[i]))
			return 2;
	return 0;
}
