/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inquiry.h - decoding standard INQUIRY data.
 */
#ifndef SCSI_SCAN_INQUIRY_H
#define SCSI_SCAN_INQUIRY_H

#include <stddef.h>
#include <stdint.h>

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

#endif
