/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-addr.h - SCSI device addresses (H:C:T:L) and the names the kernel
 * gives its SCSI objects in sysfs (hostN, H:C:T:L, rport-H:C-N,
 * end_device-H:...), read strictly. Pure: no I/O.
 */
#ifndef SCSI_SCAN_SCSI_ADDR_H
#define SCSI_SCAN_SCSI_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCAN_WILDCARD (-1)

/* The largest host, channel or target id taken from a name: the scan file
 * is written with signed numbers, and the kernel reads ~0 (4294967295) for
 * a channel or id as its wildcard. */
#define SCSI_ADDR_NUMBER_MAX 0x7fffffffu

/**
 * struct scsi_addr - a SCSI device address H:C:T:L
 * @host: host number
 * @channel: channel
 * @id: target id
 * @lun: LUN as the Linux integer
 */
struct scsi_addr {
	unsigned int host;
	unsigned int channel;
	unsigned int id;
	uint64_t lun;
};

/**
 * scsi_put_decimal() - a number in decimal, without a terminating NUL
 * @p: where it goes: room for 20 characters
 * @v: the number
 *
 * Return: the end of what was written.
 */
char *scsi_put_decimal(char *p, uint64_t v);

/**
 * scsi_addr_format() - "H:C:T:L"
 * @a: the address
 * @buf: output
 * @len: size of @buf; the name is cut to it as snprintf() would (64 holds
 *	any address, 32 any whose host, channel and id are below 100)
 *
 * Return: @buf.
 */
char *scsi_addr_format(const struct scsi_addr *a, char *buf, size_t len);

/**
 * scsi_addr_cmp() - order addresses as H, C, T, L
 * @a: one
 * @b: the other
 *
 * Return: negative, 0 or positive.
 */
int scsi_addr_cmp(const struct scsi_addr *a, const struct scsi_addr *b);

/**
 * scsi_addr_sort() - sort addresses as scsi_addr_cmp() orders them
 * @v: the addresses, sorted in place
 * @n: how many
 *
 * A radix sort by the bytes in which the addresses differ (the low bytes
 * of the LUN, mostly), least significant first: its cost grows with @n
 * and not with @n log @n, which at 16,384 LUNs was most of what qsort()
 * added per LUN.
 *
 * Return: 0, or -ENOMEM (@v is left as it was).
 */
int scsi_addr_sort(struct scsi_addr *v, size_t n);

/**
 * scsi_name_number() - a decimal number at the start of a name
 * @s: where it starts; on success, moved past it
 * @max: the largest value taken
 * @ret: the value, written only on success
 *
 * Digits only, as the kernel prints them: no sign, no space, no leading
 * zero (but "0" itself), nothing above @max.
 *
 * Return: 0 or -EINVAL.
 */
int scsi_name_number(const char **s, uint64_t max, uint64_t *ret);

/**
 * scsi_name_host() - the host number of "hostN"
 * @name: the name, whole
 * @ret: the number (at most SCSI_ADDR_NUMBER_MAX), written only on success
 *
 * Return: 0, or -EINVAL for anything else ("host-1", "host4294967296",
 * "host1x").
 */
int scsi_name_host(const char *name, unsigned int *ret);

/**
 * scsi_name_hctl() - the address of a device named "H:C:T:L"
 * @name: the name, whole
 * @ret: the address, written only on success
 *
 * Return: 0 or -EINVAL.
 */
int scsi_name_hctl(const char *name, struct scsi_addr *ret);

/**
 * scsi_name_rport() - host and channel of an FC remote port "rport-H:C-N"
 * @name: the name, whole
 * @ret_host: the host
 * @ret_channel: the channel (the rport's bus)
 *
 * Return: 0 or -EINVAL.
 */
int scsi_name_rport(const char *name, unsigned int *ret_host, unsigned int *ret_channel);

/**
 * scsi_name_end_device() - the host of a SAS end device "end_device-H:..."
 * @name: the name, whole ("end_device-H:P" or "end_device-H:E:P")
 * @ret_host: the host
 *
 * Return: 0 or -EINVAL.
 */
int scsi_name_end_device(const char *name, unsigned int *ret_host);

/**
 * scsi_name_target() - the target of "targetH:C:T"
 * @name: the name, whole
 * @ret: host, channel and id (lun 0), written only on success
 *
 * Return: 0 or -EINVAL.
 */
int scsi_name_target(const char *name, struct scsi_addr *ret);

/**
 * scsi_path_session_host() - the host of an iSCSI session, from its path
 * @path: a devpath or link that runs through .../hostH/sessionN/...
 * @ret: H, written only on success
 *
 * Return: 0, or -EINVAL if no "/hostH/sessionN" is in @path.
 */
int scsi_path_session_host(const char *path, unsigned int *ret);

#endif
