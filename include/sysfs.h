/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs.h - the kernel's SCSI objects in sysfs: hosts, devices, their
 * attributes and nodes, and the writes that attach, delete and rescan.
 */
#ifndef SCSI_SCAN_SYSFS_H
#define SCSI_SCAN_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostlock.h"
#include "scsi-addr.h"
#include "sysroot.h"

/**
 * sysfs_hosts() - the SCSI hosts, from /sys/class/scsi_host
 * @ctx: the context
 * @ret_hosts: set to a malloc'ed, sorted array of host numbers
 * @ret_count: how many
 *
 * Return: 0 or a negative errno.
 */
int sysfs_hosts(const struct sysfs_ctx *ctx, unsigned int **ret_hosts, size_t *ret_count);

/**
 * sysfs_host_exists() - whether a SCSI host is there
 * @ctx: the context
 * @host: the host number
 *
 * Return: true if /sys/class/scsi_host/hostN exists.
 */
bool sysfs_host_exists(const struct sysfs_ctx *ctx, unsigned int host);

/**
 * sysfs_host_path() - a host's place in the device tree, which its number
 *	is not: the path of its device under /sys/devices without the final
 *	"hostN" ("pci0000:00/0000:00:04.0/virtio1")
 * @ctx: the context
 * @host: the host number
 * @buf: set to the path
 * @len: size of @buf
 *
 * Host numbers are given out again when a host goes (a module reloaded, a
 * hot-unplug), so a record that outlives a host names it by this path.
 *
 * Return: 0, -ENOENT (no device link: a captured tree), -ENAMETOOLONG, or
 * a negative errno.
 */
int sysfs_host_path(const struct sysfs_ctx *ctx, unsigned int host, char *buf, size_t len);

/**
 * sysfs_devices() - the attached SCSI devices of a host
 * @ctx: the context
 * @host: the host, or SCAN_WILDCARD for every host
 * @ret_addrs: set to a malloc'ed array sorted by H:C:T:L
 * @ret_count: how many
 *
 * One host's are read from its own part of the device tree (its
 * /sys/class/scsi_host/hostN/device and the objects below it), every
 * host's from /sys/bus/scsi/devices, as are one host's in a tree without
 * that link.
 *
 * Return: 0 or a negative errno.
 */
int sysfs_devices(const struct sysfs_ctx *ctx, int host, struct scsi_addr **ret_addrs,
		  size_t *ret_count);

/**
 * sysfs_device_exists() - whether a device is attached
 * @ctx: the context
 * @a: its address
 *
 * Return: true if /sys/bus/scsi/devices/H:C:T:L exists.
 */
bool sysfs_device_exists(const struct sysfs_ctx *ctx, const struct scsi_addr *a);

/**
 * sysfs_scan_open() - open a host's scan file for several writes
 * @ctx: the context
 * @host: the host
 *
 * A scan of many LUNs writes once per LUN; keeping the file open saves an
 * open and a close (a path walk) for each.
 *
 * Return: a file descriptor, or a negative errno.
 */
int sysfs_scan_open(const struct sysfs_ctx *ctx, unsigned int host);

/**
 * sysfs_scan_fd() - write "C T L" to an open scan file
 * @fd: from sysfs_scan_open()
 * @channel: channel or SCAN_WILDCARD
 * @id: target id or SCAN_WILDCARD
 * @lun: LUN, or UINT64_MAX for the wildcard
 *
 * Return: as sysfs_scan().
 */
int sysfs_scan_fd(int fd, int channel, int id, uint64_t lun);

/**
 * sysfs_device_write() - write one attribute of a device
 * @ctx: the context
 * @a: the device
 * @attr: attribute name, e.g. "rescan"
 * @value: what to write, e.g. "1\n"
 *
 * Return: 0 or a negative errno (the kernel's answer to the write).
 */
int sysfs_device_write(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const char *attr,
		       const char *value);

/**
 * sysfs_delete() - write to a device's delete file
 * @ctx: the context
 * @a: the device
 *
 * Return: 0 or a negative errno.
 */
int sysfs_delete(const struct sysfs_ctx *ctx, const struct scsi_addr *a);

/**
 * sysfs_device_attr() - read one attribute of a device
 * @ctx: the context
 * @a: the device
 * @attr: attribute name, e.g. "vendor"
 * @buf: output, trimmed of trailing blanks and newline
 * @len: size of @buf
 *
 * Return: bytes read, or a negative errno.
 */
int sysfs_device_attr(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const char *attr,
		      char *buf, size_t len);

/**
 * sysfs_device_link() - the name of the single entry of a device's
 *	subdirectory, e.g. "sg3" in scsi_generic/ or "sdb" in block/
 * @ctx: the context
 * @a: the device
 * @subdir: "scsi_generic", "block" or "bsg"
 * @buf: output
 * @len: size of @buf
 *
 * Return: 0, -ENOENT if there is none, or another negative errno.
 */
int sysfs_device_link(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const char *subdir,
		      char *buf, size_t len);

/**
 * sysfs_device_node() - the /dev node to send commands through
 * @ctx: the context
 * @a: the device
 * @buf: output, e.g. "/dev/sg3" or "/dev/bsg/0:0:0:0" under the root
 * @len: size of @buf
 *
 * Prefers the sg node, then bsg.
 *
 * Return: 0, -ENOENT if the device has neither, or another negative errno.
 */
int sysfs_device_node(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *buf,
		      size_t len);

#endif
