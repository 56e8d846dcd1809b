/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devinfo.h - the database's flags into the kernel's device list at run
 * time, where the kernel has /proc/scsi/device_info (CONFIG_SCSI_PROC_FS;
 * Debian's kernels do not).
 */
#ifndef SCSI_SCAN_DEVINFO_H
#define SCSI_SCAN_DEVINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "quirks.h"
#include "sysroot.h"

/**
 * devinfo_listed() - whether the kernel's device list already gives a
 *	device an item's flags
 * @proc_text: what /proc/scsi/device_info reads: lines "'VENDOR' 'MODEL'
 *	0xFLAGS", the first match first
 * @item: "VENDOR:MODEL:0xFLAGS"
 *
 * Return: true if the first line for the item's vendor and model (blanks
 * at the end ignored) has its flags.
 */
bool devinfo_listed(const char *proc_text, const char *item);

/**
 * devinfo_proc_sync() - write the database's entries the kernel's list does
 *	not have yet to /proc/scsi/device_info
 * @sys: the path context
 * @db: the database
 * @ret_written: how many entries were written
 *
 * The kernel puts each at the head of its list, so it applies to every LUN
 * attached afterwards; LUNs attached before keep their flags. Nothing is
 * written twice: what the list reads is compared first.
 *
 * Return: 0, -ENOENT if the kernel has no /proc/scsi/device_info, or a
 * negative errno.
 */
int devinfo_proc_sync(const struct sysfs_ctx *sys, const struct quirk_db *db, size_t *ret_written);

#endif
