/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rootdevs.h - the SCSI devices a mounted file system lies on, found
 * through partitions and every stacked block device (dm-crypt, LVM, md,
 * multipath) by their slaves in sysfs.
 */
#ifndef SCSI_SCAN_ROOTDEVS_H
#define SCSI_SCAN_ROOTDEVS_H

#include <stdbool.h>
#include <stddef.h>

#include "scsi-addr.h"
#include "sysroot.h"

#define ROOTDEVS_NAME_LEN 64

/**
 * struct rootdev - one block device at the bottom of the stack
 * @name: its kernel name ("sda", "nvme0n1", "vda")
 * @scsi: whether it is a SCSI disk
 * @addr: for a SCSI disk, its H:C:T:L
 */
struct rootdev {
	char name[ROOTDEVS_NAME_LEN];
	bool scsi;
	struct scsi_addr addr;
};

/**
 * rootdevs_of_mount() - the whole disks a mounted file system lies on
 * @sys: the path context (its /proc/self/mountinfo and /sys)
 * @mount_point: the mount point ("/")
 * @ret: set to the disks, each once, in the order found (free() it)
 * @ret_count: how many
 * @why: on failure, set to what could not be found or read
 * @len: size of @why
 *
 * The mount is the last mountinfo line for @mount_point (the one on top).
 * Its device is found by number, or by its source for file systems that
 * report an anonymous 0:N (btrfs, whose other devices sysfs lists under
 * /sys/fs/btrfs/UUID/devices, are all taken); a partition stands for its
 * disk, and a device with slaves for each of them, down to disks that have
 * none.
 *
 * Return: 0, -ENOENT (@mount_point is not mounted, or its device is not
 * in sysfs), -ELOOP (slaves deeper than 16 levels), -ENOMEM, or another
 * negative errno from reading.
 */
int rootdevs_of_mount(const struct sysfs_ctx *sys, const char *mount_point, struct rootdev **ret,
		      size_t *ret_count, char *why, size_t len);

/**
 * rootdevs_boot_config() - the boot policy that attaches only the SCSI
 *	disks given: lunmask_boot_config() over every path to each, named by
 *	the address its transport lists (each iSCSI session, FC remote port or
 *	SAS end device), or by driver, channel and id
 * @sys: the path context
 * @devs: the disks (rootdevs_of_mount()); those not SCSI are passed over
 * @n: how many
 * @ret_text: set to the malloc'ed quirks.d text
 * @why: on failure, set to the reason
 * @len: size of @why
 *
 * Return: 0, -ENODEV (none of @devs is a SCSI disk: @why names them),
 * -EINVAL or -E2BIG
 * (lunmask_boot_config()), -ENOMEM, or a negative errno from reading a
 * host's transport class.
 */
int rootdevs_boot_config(const struct sysfs_ctx *sys, const struct rootdev *devs, size_t n,
			 char **ret_text, char *why, size_t len);

#endif
