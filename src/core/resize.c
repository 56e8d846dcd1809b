// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * resize.c - a LUN's capacity read again through its rescan attribute.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "idrecord.h"
#include "resize.h"
#include "scan.h"
#include "sgio.h"

static int64_t block_size(const struct sysfs_ctx *sys, const struct scsi_addr *a, const char *block)
{
	char buf[32], name[32], *end;
	long long v;

	if (!block[0] || sysfs_read(sys, buf, sizeof(buf), "/sys/bus/scsi/devices/%s/block/%s/size",
				    scsi_addr_format(a, name, sizeof(name)), block) <= 0)
		return -1;
	v = strtoll(buf, &end, 10);
	return end == buf || v < 0 ? -1 : v;
}

/* Whether another unit answers at @a than the one recorded when it was
 * first seen attached: page 0x83 of the device against the record. No
 * record of the page, no node, no answer: not known, so not. */
static bool remapped(const struct sysfs_ctx *sys, const struct scsi_addr *a, char *what, size_t len)
{
	struct lun_identity *was = calloc(2, sizeof(*was)), *now = was + 1;
	struct id_record *rec = malloc(sizeof(*rec));
	uint8_t *page = malloc(VPD_PAGE_MAX);
	struct sgio_error err;
	bool changed = false;
	char node[512];
	size_t got = 0;
	int fd, r;

	if (!was || !rec || !page || id_record_get(sys, a, rec) < 0 || !rec->vpd83_len ||
	    identity_set_vpd83(was, rec->vpd83, rec->vpd83_len) < 0 || !was->ndesignators)
		goto out;
	if (sysfs_device_node(sys, a, node, sizeof(node)) < 0 || sgio_open(node, &fd) < 0)
		goto out;
	r = sgio_inquiry_vpd(fd, 0x83, page, VPD_PAGE_MAX - 4, SCAN_INQUIRY_TIMEOUT, &got, &err);
	sgio_close(fd);
	if (r == 0 && identity_set_vpd83(now, page, got) == 0)
		changed = remap_judge(was, now, what, len) == REMAP_CHANGED;
out:
	free(was);
	free(rec);
	free(page);
	return changed;
}

int lun_resize(const struct sysfs_ctx *sys, const struct scsi_addr *a, struct resize_result *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->addr = *a;
	if (!sysfs_device_exists(sys, a))
		return -ENODEV;
	if (sysfs_device_link(sys, a, "block", ret->block, sizeof(ret->block)) < 0)
		ret->block[0] = '\0';
	ret->before = block_size(sys, a, ret->block);
	if (remapped(sys, a, ret->remapped, sizeof(ret->remapped))) {
		ret->error = -ESTALE;
		ret->after = ret->before;
		return 0;
	}
	ret->error = sysfs_device_write(sys, a, "rescan", "1\n");
	ret->after = block_size(sys, a, ret->block);
	return 0;
}

bool resize_changed(const struct resize_result *r)
{
	return r->before >= 0 && r->after >= 0 && r->before != r->after;
}
