/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inuse.h - whether deleting a SCSI device would take something from a
 * user: its nodes by device number, and every way the system holds them.
 */
#ifndef SCSI_SCAN_INUSE_H
#define SCSI_SCAN_INUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sysfs.h"

#define INUSE_NAME_LEN 64

/**
 * struct inuse_node - one device node of a SCSI device
 * @name: its name under /dev ("sdb1", "nst0", "bsg/2:0:0:1")
 * @devt: its device number
 * @block: a block device (otherwise a character device)
 * @whole: a whole disk, not a partition (the exclusive-open check)
 */
struct inuse_node {
	char name[INUSE_NAME_LEN];
	dev_t devt;
	bool block;
	bool whole;
};

/**
 * struct inuse_nodes - every node of one SCSI device
 * @v: the nodes
 * @count: how many
 */
struct inuse_nodes {
	struct inuse_node *v;
	size_t count;
};

/**
 * struct mountinfo_entry - the fields of one /proc/PID/mountinfo line
 * @devt: the st_dev of the mounted file system (0:N for btrfs and others)
 * @mount_point: where it is mounted, unescaped
 * @fstype: the file system type
 * @source: the mount source, unescaped ("/dev/sdb1", "none")
 * @super_options: the super block options ("rw,logdev=/dev/sdc")
 *
 * The strings point into the line that was parsed.
 */
struct mountinfo_entry {
	dev_t devt;
	const char *mount_point;
	const char *fstype;
	const char *source;
	const char *super_options;
};

/**
 * mountinfo_parse() - split one mountinfo line
 * @line: the line, modified in place (fields ended, octal escapes decoded)
 * @ret: set to the fields
 *
 * Return: 0, or -EINVAL if the line does not have the kernel's layout.
 */
int mountinfo_parse(char *line, struct mountinfo_entry *ret);

/**
 * mount_option_devices() - the device paths a mount names in its options
 * @super_options: the super block options of a mountinfo line
 * @ret: set to up to @max paths (XFS logdev= and rtdev=, ext4 journal_path=),
 *	 each pointing into @super_options, which is modified
 * @max: room in @ret
 *
 * Return: how many were found.
 */
size_t mount_option_devices(char *super_options, const char **ret, size_t max);

/**
 * proc_swaps_parse() - the file name of one /proc/swaps line
 * @line: the line, modified in place (escapes decoded)
 * @ret_path: set to the swap device or file, or NULL for the header
 * @ret_partition: set to true when the area is a block device
 *
 * Return: 0, or -EINVAL for a line without a type.
 */
int proc_swaps_parse(char *line, const char **ret_path, bool *ret_partition);

/**
 * inuse_nodes_collect() - every node of a SCSI device
 * @ctx: the context
 * @a: the device
 * @ret: set to its block device and all its partitions, its sg, bsg, tape
 *	 and changer nodes; free with inuse_nodes_free()
 *
 * Return: 0 or a negative errno.
 */
int inuse_nodes_collect(const struct sysfs_ctx *ctx, const struct scsi_addr *a,
			struct inuse_nodes *ret);

/**
 * inuse_block_collect() - a block device and its partitions, by name
 * @ctx: the context
 * @disk: the name in /sys/class/block ("dm-3")
 * @ret: set to its nodes; free with inuse_nodes_free()
 *
 * Return: 0 or a negative errno.
 */
int inuse_block_collect(const struct sysfs_ctx *ctx, const char *disk, struct inuse_nodes *ret);

/**
 * inuse_nodes_free() - free what inuse_nodes_collect() returned
 * @n: the nodes (may be empty)
 */
void inuse_nodes_free(struct inuse_nodes *n);

/**
 * inuse_check() - whether any of some nodes is in use
 * @ctx: the context
 * @nodes: the nodes
 * @why: set to what holds one ("/dev/sdb1 is mounted on /srv")
 * @len: size of @why
 *
 * Looks, by device number, at: holders (dm, md, bcache), mounts in every
 * mount namespace on the system, file systems' external log and journal
 * devices, btrfs member devices, swap, the open files of every process,
 * and last an exclusive open of the whole disk, which fails while any
 * kernel user claims it.
 *
 * Return: 1 if in use, 0 if not, or a negative errno if it could not tell
 * (@why says what failed); callers must treat that as in use.
 */
int inuse_check(const struct sysfs_ctx *ctx, const struct inuse_nodes *nodes, char *why,
		size_t len);

/**
 * device_in_use_beside_map() - whether a path of a multipath map is used
 *	directly, past its map
 * @ctx: the context
 * @a: the path's SCSI device
 * @why: set to what uses it, or to what could not be checked
 * @len: size of @why
 *
 * The map above the path holds and claims it; that is the map's in-use
 * check. This one looks at the path's own nodes: mounts, external
 * journals, btrfs members, swap, and open files (a dd or a backup agent
 * on /dev/sdX).
 *
 * Return: 1 if used, 0 if not, or a negative errno (treat as used).
 */
int device_in_use_beside_map(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *why,
			     size_t len);

/**
 * device_in_use() - whether deleting a SCSI device would take it from a user
 * @ctx: the context
 * @a: the device
 * @why: set to what holds it, or to what could not be checked
 * @len: size of @why
 *
 * inuse_nodes_collect() followed by inuse_check().
 *
 * Return: 1 if in use, 0 if not, or a negative errno (treat as in use).
 */
int device_in_use(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *why, size_t len);

#endif
