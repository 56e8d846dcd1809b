/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * resize.h - a LUN whose capacity changed: the kernel reads it again when
 * its rescan attribute is written, and the block device takes the size.
 */
#ifndef SCSI_SCAN_RESIZE_H
#define SCSI_SCAN_RESIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "identity.h"
#include "sysfs.h"

/**
 * struct resize_result - what a rescan did to one LUN
 * @addr: the LUN
 * @block: its block device ("sdc"), or "" when it has none (a tape, a
 *	changer, a LUN without an upper-level driver)
 * @before: the block device's size in 512-byte sectors before, or -1
 * @after: after the rescan, or -1
 * @error: 0, or the negative errno of the rescan write; -ESTALE: not
 *	rescanned, another unit answers at the LUN (@remapped says how)
 * @remapped: with -ESTALE, the identities compared, in words
 */
struct resize_result {
	struct scsi_addr addr;
	char block[32];
	int64_t before;
	int64_t after;
	int error;
	char remapped[IDENTITY_EVIDENCE_LEN];
};

/**
 * lun_resize() - have the kernel read a LUN's capacity again
 * @sys: the path context
 * @a: the LUN
 * @ret: what changed
 *
 * Writes 1 to the LUN's rescan attribute (scsi_rescan_device(): INQUIRY
 * and VPD again, then sd revalidates the disk and sets the new capacity),
 * reading the block device's size before and after. The write returns
 * once the kernel is done, as the device's command timeouts bound it.
 *
 * Not when another unit answers at the LUN (a remapped LUN: its VPD page
 * 0x83 against the kernel's copy, remap_judge()): the rescan would refresh
 * the kernel's copy and hide the remap from every later scan, while the
 * device stays the old volume's. @ret->error is then -ESTALE.
 *
 * Return: 0 (the outcome is in @ret, @ret->error included), or -ENODEV if
 * the LUN is not attached.
 */
int lun_resize(const struct sysfs_ctx *sys, const struct scsi_addr *a, struct resize_result *ret);

/**
 * resize_changed() - whether a rescan changed the size
 * @r: the result
 *
 * Return: true when both sizes are known and differ.
 */
bool resize_changed(const struct resize_result *r);

#endif
