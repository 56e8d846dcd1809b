/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inquiry.h - decoding standard INQUIRY data.
 */
#ifndef SCSI_SCAN_INQUIRY_H
#define SCSI_SCAN_INQUIRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Linux scsi_level values (include/scsi/scsi.h). */
#define SCSI_LEVEL_UNKNOWN 0
#define SCSI_LEVEL_1 1
#define SCSI_LEVEL_1_CCS 2
#define SCSI_LEVEL_2 3
#define SCSI_LEVEL_3 4
#define SCSI_LEVEL_SPC_2 5
#define SCSI_LEVEL_SPC_3 6
#define SCSI_LEVEL_SPC_4 7
#define SCSI_LEVEL_SPC_5 8

/* Peripheral qualifiers and the device types the scan cares about. */
#define INQ_PQ_CONNECTED 0
#define INQ_PQ_NOT_CONNECTED 1
#define INQ_PQ_NO_LUN 3
#define PDT_DISK 0x00
#define PDT_ROM 0x05
#define PDT_RBC 0x0e
#define PDT_WLUN 0x1e
#define PDT_NO_DEVICE 0x1f

/* The kernel's first INQUIRY asks for this much; it is also the least a
 * standard INQUIRY response must hold for the strings. */
#define INQUIRY_MIN_LEN 36
#define INQUIRY_MAX_LEN 255

/**
 * struct inquiry - a decoded standard INQUIRY response
 * @pq: peripheral qualifier (byte 0 bits 7-5)
 * @pdt: peripheral device type (byte 0 bits 4-0)
 * @removable: RMB (byte 1 bit 7)
 * @version: VERSION (byte 2)
 * @response_format: RESPONSE DATA FORMAT (byte 3 bits 3-0)
 * @tpgs: TARGET PORT GROUP SUPPORT (byte 5 bits 5-4): implicit (1), explicit
 *	(2) or both (3) asymmetric access, what the kernel's scsi_dh attaches
 *	"alua" for; 0 when the response ends before byte 5
 * @scsi_level: the Linux scsi_level derived from @version
 * @response_len: additional length + 5, as the device claims it
 * @len: bytes of the buffer that were decoded
 * @vendor: T10 vendor, cleaned as by inquiry_field_clean()
 * @model: product identification, cleaned
 * @revision: product revision, cleaned
 */
struct inquiry {
	uint8_t pq;
	uint8_t pdt;
	bool removable;
	uint8_t version;
	uint8_t response_format;
	uint8_t tpgs;
	int scsi_level;
	size_t response_len;
	size_t len;
	char vendor[9];
	char model[17];
	char revision[5];
};

/**
 * inquiry_field_clean() - an INQUIRY string field as the kernel matches it
 * @dst: output buffer of at least @len + 1 bytes
 * @src: the raw field bytes
 * @len: the field's width (8 vendor, 16 product, 4 revision)
 *
 * Like scsi_sanitize_inquiry_string() followed by the trimming of
 * scsi_dev_info_list_find(): every byte below 0x20 or above 0x7e, and every
 * byte after the first NUL, becomes a space; then leading and trailing
 * spaces are removed. @dst is NUL-terminated.
 */
void inquiry_field_clean(char *dst, const uint8_t *src, size_t len);

/**
 * inquiry_scsi_level() - the Linux scsi_level for an INQUIRY version
 * @version: byte 2 of the response
 * @response_format: byte 3 bits 3-0
 *
 * As scsi_probe_lun(), from the low nibble of @version: 0 unknown;
 * 1 SCSI-1, or SCSI-1-CCS when the response format is 1; otherwise
 * that nibble + 1.
 *
 * Return: the level.
 */
int inquiry_scsi_level(uint8_t version, uint8_t response_format);

/**
 * inquiry_decode() - decode a standard INQUIRY response
 * @buf: the bytes the device returned
 * @len: how many (the transfer length minus the residual)
 * @ret: the result, written only on success
 *
 * A response shorter than 36 bytes still decodes: missing string bytes
 * read as blanks, as the kernel pads them. The device's additional length
 * is reported, not trusted: only @len bytes are read.
 *
 * Return: 0, or -EINVAL if @len is below 5 (no header).
 */
int inquiry_decode(const uint8_t *buf, size_t len, struct inquiry *ret);

/**
 * inquiry_unit_serial() - the serial number of a VPD page 0x80 response
 * @page: the page as read (header and all)
 * @len: its length
 * @buf: output, NUL-terminated, cleaned as inquiry_field_clean() does
 * @size: size of @buf
 *
 * Return: 0, or -EINVAL if @page is not page 0x80, is truncated, or holds
 * an empty serial, or -ENOSPC if @buf is too small.
 */
int inquiry_unit_serial(const uint8_t *page, size_t len, char *buf, size_t size);

/**
 * pdt_name() - lsscsi's short name of a peripheral device type
 * @pdt: the type, 0-31
 *
 * Return: a static string such as "disk", "cd/dvd", "wlun", "no dev".
 */
const char *pdt_name(int pdt);

/**
 * scsi_level_name() - a readable name of a Linux scsi_level
 * @level: the level
 *
 * Return: a static string such as "SCSI-2" or "SPC-5".
 */
const char *scsi_level_name(int level);

#endif
