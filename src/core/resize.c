// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * resize.c - a LUN's capacity read again through its rescan attribute.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "resize.h"

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

int lun_resize(const struct sysfs_ctx *sys, const struct scsi_addr *a, struct resize_result *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->addr = *a;
	if (!sysfs_device_exists(sys, a))
		return -ENODEV;
	if (sysfs_device_link(sys, a, "block", ret->block, sizeof(ret->block)) < 0)
		ret->block[0] = '\0';
	ret->before = block_size(sys, a, ret->block);
	ret->error = sysfs_device_write(sys, a, "rescan", "1\n");
	ret->after = block_size(sys, a, ret->block);
	return 0;
}

bool resize_changed(const struct resize_result *r)
{
	return r->before >= 0 && r->after >= 0 && r->before != r->after;
}
