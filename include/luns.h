/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * luns.h - LUN numbers (SAM 8-byte form and Linux integers) and REPORT LUNS.
 */
#ifndef SCSI_SCAN_LUNS_H
#define SCSI_SCAN_LUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Linux integer form of the well-known LUNs (scsi.h SCSI_W_LUN_*). */
#define LUN_WLUN_BASE 0xc100
#define LUN_WLUN_REPORT_LUNS 0xc101

/* The kernel's first REPORT LUNS buffer: 511 entries and the header. */
#define REPORT_LUNS_INITIAL_LEN (512 * 8)

/**
 * lun_from_scsilun() - the Linux integer of an 8-byte SAM LUN
 * @b: the 8 bytes, first level first
 *
 * Same as the kernel's scsilun_to_int(): level k, big-endian, lands in
 * bits 16k..16k+15; addressing-method bits are kept.
 *
 * Return: the integer, as used in H:C:T:L names and the sysfs scan file.
 */
uint64_t lun_from_scsilun(const uint8_t b[8]);

/**
 * lun_to_scsilun() - the 8-byte SAM LUN of a Linux integer
 * @lun: the integer
 * @b: the 8 bytes written
 *
 * Inverse of lun_from_scsilun(), as the kernel's int_to_scsilun().
 */
void lun_to_scsilun(uint64_t lun, uint8_t b[8]);

/**
 * lun_is_wlun() - whether a Linux LUN integer is a well-known LUN
 * @lun: the integer
 *
 * Return: true for 0xc1xx, as the kernel's scsi_is_wlun().
 */
bool lun_is_wlun(uint64_t lun);

/**
 * lun_scan_writable() - whether a LUN can be typed into the sysfs scan file
 * @lun: the integer
 *
 * The scan file takes at most 16 characters parsed as a number; hex can
 * give 56 bits, so a LUN whose top byte is set cannot be named there.
 *
 * Return: true if it can be written.
 */
bool lun_scan_writable(uint64_t lun);

/**
 * report_luns_decode() - the LUN list of a REPORT LUNS response
 * @buf: the response
 * @len: bytes received
 * @ret_luns: set to a malloc'ed array of Linux integers in list order (NULL
 *	if empty), on success
 * @ret_count: entries in it
 * @ret_needed: the buffer length the device's list needs (header + list
 *	length), to re-issue the command with a larger buffer
 * @ret_complete: set to whether @len held the whole list the header
 *	announces; a list that is not whole names only some of the target's
 *	LUNs, so no LUN may be taken as gone for its absence from it
 *
 * Only whole entries inside @len are decoded, whatever the list length
 * field claims. Duplicates are removed, keeping the first.
 *
 * Return: 0, -EINVAL if @len is below the 8-byte header, -ENOMEM.
 */
int report_luns_decode(const uint8_t *buf, size_t len, uint64_t **ret_luns, size_t *ret_count,
		       size_t *ret_needed, bool *ret_complete);

#endif
