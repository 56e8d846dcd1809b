/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idrecord.h - the identity a LUN had when it was first seen attached, kept
 * in /run/scsi-scan/identity/H:C:T:L for the remap check: the kernel's own
 * copy is refreshed by every rescan write (anyone's), the record is not.
 */
#ifndef SCSI_SCAN_IDRECORD_H
#define SCSI_SCAN_IDRECORD_H

#include <stddef.h>
#include <stdint.h>

#include "identity.h"
#include "scsi-addr.h"
#include "sysroot.h"

/* The longest page a record keeps; a longer one is not recorded (the
 * kernel's copy is compared then). */
#define ID_RECORD_PAGE_MAX 1024

/**
 * struct id_record - a LUN's identity as first seen attached
 * @instance: the kernel device it belongs to (its sysfs directory's inode:
 *	a LUN deleted and attached again is another instance)
 * @inquiry: the kernel's copy of the standard INQUIRY data
 * @inquiry_len: its length (0: none)
 * @vpd80: of VPD page 0x80
 * @vpd80_len: its length (0: none)
 * @vpd83: of VPD page 0x83
 * @vpd83_len: its length (0: none)
 */
struct id_record {
	uint64_t instance;
	uint8_t inquiry[ID_RECORD_PAGE_MAX];
	size_t inquiry_len;
	uint8_t vpd80[ID_RECORD_PAGE_MAX];
	size_t vpd80_len;
	uint8_t vpd83[ID_RECORD_PAGE_MAX];
	size_t vpd83_len;
};

/**
 * id_record_format() - the text of a record
 * @r: the record
 * @buf: output
 * @len: size of @buf (ID_RECORD_TEXT_MAX is always enough)
 *
 * Return: the text's length, or -ENOSPC.
 */
int id_record_format(const struct id_record *r, char *buf, size_t len);

/* Room for the text of any record. */
#define ID_RECORD_TEXT_MAX (64 + 3 * (16 + 2 * ID_RECORD_PAGE_MAX))

/**
 * id_record_parse() - read the text of a record, strictly
 * @text: NUL-terminated
 * @r: filled on success
 *
 * Return: 0, or -EINVAL for anything that is not a record this program
 * wrote (a missing or unknown key, a bad hex digit, an odd length, a page
 * longer than ID_RECORD_PAGE_MAX): such a record is rebuilt, never trusted.
 */
int id_record_parse(const char *text, struct id_record *r);

/**
 * id_record_get() - the record of an attached LUN, made from the kernel's
 *	copies when there is none, it is broken, or it is another instance's
 * @ctx: the path context
 * @a: the LUN
 * @r: filled on success
 *
 * Return: 0, or a negative errno (-ENODEV: the LUN is not attached).
 */
int id_record_get(const struct sysfs_ctx *ctx, const struct scsi_addr *a, struct id_record *r);

/**
 * id_record_peek() - the record of an attached LUN, if there is a good one;
 *	nothing is written
 * @ctx: the path context
 * @a: the LUN
 * @r: filled on success
 *
 * Return: 0, -ENOENT when there is no record (or a broken one, or another
 * instance's), or another negative errno.
 */
int id_record_peek(const struct sysfs_ctx *ctx, const struct scsi_addr *a, struct id_record *r);

/**
 * id_record_kernel() - the kernel's copies of a LUN's identity now
 * @ctx: the path context
 * @a: the LUN
 * @r: filled on success
 *
 * Return: 0, or a negative errno (-ENODEV: the LUN is not attached).
 */
int id_record_kernel(const struct sysfs_ctx *ctx, const struct scsi_addr *a, struct id_record *r);

/**
 * id_record_identity() - a record as an identity to compare
 * @r: the record
 * @id: filled (pages that do not decode are left out)
 */
void id_record_identity(const struct id_record *r, struct lun_identity *id);

/**
 * id_record_luns() - the LUNs of one target that have an identity record
 * @ctx: the path context
 * @host: the host
 * @channel: the channel
 * @id: the target id
 * @ret: set to the LUNs, ascending (free() it), or NULL when none
 * @ret_n: set to how many
 *
 * The LUNs seen attached earlier this boot (the records live in /run).
 *
 * Return: 0 or a negative errno.
 */
int id_record_luns(const struct sysfs_ctx *ctx, unsigned int host, unsigned int channel,
		   unsigned int id, uint64_t **ret, size_t *ret_n);

/**
 * id_record_forget() - remove a LUN's record (it was deleted)
 * @ctx: the path context
 * @a: the LUN
 */
void id_record_forget(const struct sysfs_ctx *ctx, const struct scsi_addr *a);

#endif
