// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blist.c - the kernel's BLIST_* flags as data.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blist.h"

#define F(n, b, w, m)                                                                              \
	{                                                                                          \
		.name = n, .bit = b, .when = BLIST_WHEN_##w, .meaning = m                          \
	}

static const struct blist_flag flags[] = {
	F("nolun", BLIST_NOLUN, SCAN, "only LUN 0 exists; never probe other LUNs"),
	F("forcelun", BLIST_FORCELUN, SCAN, "sequential scan up to the host's max_lun"),
	F("borken", BLIST_BORKEN, RUNTIME, "handshaking problems; LLDs slow down"),
	F("key", BLIST_KEY, BOTH, "needs a vendor unlock MODE SENSE after attach"),
	F("singlelun", BLIST_SINGLELUN, RUNTIME, "one LUN of the target busy at a time"),
	F("notq", BLIST_NOTQ, RUNTIME, "no tagged command queuing"),
	F("sparselun", BLIST_SPARSELUN, SCAN, "LUN numbers may have gaps"),
	F("max5lun", BLIST_MAX5LUN, SCAN, "LUNs 0-4 only"),
	F("isrom", BLIST_ISROM, BOTH, "treat as a removable CD-ROM"),
	F("largelun", BLIST_LARGELUN, SCAN, "SCSI-2 target may have LUNs above 7"),
	F("inquiry_36", BLIST_INQUIRY_36, SCAN, "never ask for more than 36 INQUIRY bytes"),
	F("ign_media_change", BLIST_IGN_MEDIA_CHANGE, RUNTIME, "ignore media change after resume"),
	F("nostartonadd", BLIST_NOSTARTONADD, RUNTIME, "do not spin up on attach"),
	F("no_vpd_size", BLIST_NO_VPD_SIZE, BOTH, "read VPD pages with a fixed length"),
	F("reportlun2", BLIST_REPORTLUN2, SCAN, "REPORT LUNS even at SCSI-2"),
	F("noreportlun", BLIST_NOREPORTLUN, SCAN, "never send REPORT LUNS"),
	F("not_lockable", BLIST_NOT_LOCKABLE, RUNTIME, "no PREVENT/ALLOW MEDIUM REMOVAL"),
	F("no_uld_attach", BLIST_NO_ULD_ATTACH, RUNTIME, "no upper-level driver (sd, sr, st)"),
	F("select_no_atn", BLIST_SELECT_NO_ATN, RUNTIME, "select without ATN (parallel SCSI)"),
	F("retry_hwerror", BLIST_RETRY_HWERROR, RUNTIME, "retry HARDWARE ERROR"),
	F("max_512", BLIST_MAX_512, RUNTIME, "transfers of at most 512 sectors"),
	F("no_dif", BLIST_NO_DIF, RUNTIME, "ignore T10 PI support"),
	F("skip_vpd_pages", BLIST_SKIP_VPD_PAGES, BOTH, "do not read VPD pages"),
	F("try_vpd_pages", BLIST_TRY_VPD_PAGES, BOTH, "read VPD pages below SPC-2"),
	F("no_rsoc", BLIST_NO_RSOC, RUNTIME, "no REPORT SUPPORTED OPERATION CODES"),
	F("max_1024", BLIST_MAX_1024, RUNTIME, "transfers of at most 1024 sectors"),
	F("unmap_limit_ws", BLIST_UNMAP_LIMIT_WS, RUNTIME, "UNMAP limit applies to WRITE SAME"),
	F("retry_itf", BLIST_RETRY_ITF, RUNTIME, "requeue internal target failures"),
	F("retry_asc_c1", BLIST_RETRY_ASC_C1, RUNTIME, "requeue ASC/ASCQ C1/01"),
	F("skip_io_hints", BLIST_SKIP_IO_HINTS, RUNTIME, "do not read the IO advice hints page"),
};

const struct blist_flag *blist_flag_table(size_t *ret_count)
{
	*ret_count = sizeof(flags) / sizeof(flags[0]);
	return flags;
}

const struct blist_flag *blist_flag_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(flags[i].name, name) == 0)
			return &flags[i];
	return NULL;
}

uint64_t blist_known_mask(void)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		mask |= flags[i].bit;
	return mask;
}

uint64_t blist_kernel_mask(void)
{
	uint64_t mask = BLIST_INQUIRY_36;

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i].when != BLIST_WHEN_SCAN)
			mask |= flags[i].bit;
	return mask;
}

int blist_flags_format(uint64_t value, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (unsigned int bit = 0; bit < 64; bit++) {
		uint64_t b = UINT64_C(1) << bit;
		const char *name = NULL;
		char tmp[8];
		int n;

		if (!(value & b))
			continue;
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (flags[i].bit == b)
				name = flags[i].name;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "bit%u", bit);
			name = tmp;
		}
		n = snprintf(buf + used, len - used, "%s%s", used ? sep : "", name);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += n;
	}
	return 0;
}
