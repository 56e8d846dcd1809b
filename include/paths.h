/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * paths.h - a volume's paths on this machine and what sits above them:
 * every session, remote port or end device that reaches its target (or
 * every attached LUN with its wwid), each path's sd and sg nodes, and the
 * multipath map that claims them; flushing and resizing that map through
 * multipath-tools or dmsetup.
 */
#ifndef SCSI_SCAN_PATHS_H
#define SCSI_SCAN_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysfs.h"
#include "volume.h"

/**
 * volume_resolve() - every path to a volume
 * @sys: the path context
 * @a: the address: a target address (every host's transport list is read)
 *	or a wwid (every attached LUN's wwid is)
 * @ret: set to the paths in H:C:T:L order (free() it); NULL when none
 * @ret_count: how many
 * @ret_keys: with a target address, NULL; with a wwid, set to each path's
 *	hold-out key (its target's stable address, or its driver, channel and
 *	id), one per path (free() it)
 *
 * Return: 0 or a negative errno.
 */
int volume_resolve(const struct sysfs_ctx *sys, const struct volume_address *a,
		   struct volume_path **ret, size_t *ret_count, struct holdout_key **ret_keys);

/**
 * volume_holdout_key() - the hold-out key of one path of a target address
 * @a: the address (a target address with a LUN)
 * @k: filled in
 */
void volume_holdout_key(const struct volume_address *a, struct holdout_key *k);

/**
 * struct path_devices - one path of a volume as the system has it now
 * @addr: the LUN
 * @attached: the kernel has it
 * @state: its sysfs state ("running", "offline", ...)
 * @type: its peripheral device type, or -1
 * @has_block: its type gets a block device (disk, CD/DVD, optical, RBC)
 * @block: its block device ("sdc"), or empty
 * @sg: its sg node ("sg3"), or empty
 * @wwid: its sysfs wwid, or empty
 * @sectors: the block device's size in 512-byte sectors, or -1
 * @map: the name of the multipath map that holds it ("mpatha"), or empty
 * @map_dev: that map's block device ("dm-3"), or empty
 * @map_sectors: the map's size, or -1
 */
struct path_devices {
	struct scsi_addr addr;
	bool attached;
	char state[32];
	int type;
	bool has_block;
	char block[32];
	char sg[32];
	char wwid[SCSI_WWID_MAX + 1];
	int64_t sectors;
	char map[128];
	char map_dev[32];
	int64_t map_sectors;
};

/**
 * path_devices_read() - what one path is now
 * @sys: the path context
 * @a: the LUN
 * @ret: filled in (@ret->attached false when the kernel has no such LUN)
 *
 * A holder whose dm/uuid starts with "mpath-" is a multipath map.
 *
 * Return: 0 or a negative errno (-ENOMEM).
 */
int path_devices_read(const struct sysfs_ctx *sys, const struct scsi_addr *a,
		      struct path_devices *ret);

/**
 * map_paths_sectors() - the smallest and largest size of a map's paths
 * @sys: the path context
 * @map_dev: the map's block device ("dm-3")
 * @ret_min: set to the smallest, in 512-byte sectors
 * @ret_max: set to the largest
 *
 * Return: how many paths (entries of its slaves/), or a negative errno.
 */
int map_paths_sectors(const struct sysfs_ctx *sys, const char *map_dev, int64_t *ret_min,
		      int64_t *ret_max);

/**
 * multipathd_running() - whether multipathd runs (its pid file names a
 *	live process)
 * @sys: the path context
 *
 * Return: true when it does.
 */
bool multipathd_running(const struct sysfs_ctx *sys);

/**
 * map_in_use() - whether anything uses a multipath map: holders
 *	(partitions, LVM), mounts, swap, open files, an exclusive open
 * @sys: the path context
 * @map_dev: the map's block device ("dm-3")
 * @why: set to what holds it
 * @len: size of @why
 *
 * Return: 1 in use, 0 not, or a negative errno (treat as in use).
 */
int map_in_use(const struct sysfs_ctx *sys, const char *map_dev, char *why, size_t len);

/**
 * map_flush() - remove a multipath map, as multipath-tools documents it
 * @map: the map's name
 * @timeout_s: bound on each try
 * @why: set to the tool's words when it fails, and to the tool that
 *	removed it ("multipath -f") when it did
 * @len: size of @why
 *
 * "multipath -f MAP" when multipath is installed, else "dmsetup remove
 * --retry MAP"; three tries one second apart (a map that udev still has
 * open for a moment is busy).
 *
 * Return: 0, or a negative errno (-EBUSY, -ETIMEDOUT, -ENOENT without
 * either tool).
 */
int map_flush(const char *map, unsigned int timeout_s, char *why, size_t len);

/**
 * map_resize() - take the paths' new size into the multipath map above them
 * @sys: the path context
 * @map: the map's name
 * @sectors: the paths' size now
 * @timeout_s: bound on each tool run
 * @why: set to the tool's words when it fails, and to the tool that
 *	removed it ("multipath -f") when it did
 * @len: size of @why
 *
 * "multipathd resize map MAP" when multipathd runs; otherwise the map's
 * table is loaded again with the new length ("dmsetup table", "dmsetup
 * reload", "dmsetup resume"), as multipathd would.
 *
 * Return: 0 or a negative errno.
 */
int map_resize(const struct sysfs_ctx *sys, const char *map, int64_t sectors,
	       unsigned int timeout_s, char *why, size_t len);

#endif
