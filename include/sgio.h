/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sgio.h - the only place that issues SCSI commands (SG_IO via libsgutils2).
 */
#ifndef SCSI_SCAN_SGIO_H
#define SCSI_SCAN_SGIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sense.h"

/* Bounds on what a device may make us read. */
#define SGIO_REPORT_LUNS_MAX (1u << 20)

/**
 * struct sgio_error - why a command failed
 * @category: libsgutils2's SG_LIB_CAT_* value, 0 if none
 * @has_sense: @sense holds decoded sense data
 * @sense: the sense data
 * @text: the failure in words, with the sense decoded
 */
struct sgio_error {
	int category;
	bool has_sense;
	struct sense sense;
	char text[200];
};

/**
 * sgio_open() - open an sg or bsg node for commands
 * @path: e.g. "/dev/sg3" or "/dev/bsg/0:0:0:0"
 * @ret_fd: set to the file descriptor
 *
 * Return: 0 or a negative errno.
 */
int sgio_open(const char *path, int *ret_fd);

/**
 * sgio_close() - close what sgio_open() opened
 * @fd: the file descriptor
 */
void sgio_close(int fd);

/**
 * sgio_inquiry() - standard INQUIRY
 * @fd: from sgio_open()
 * @buf: response buffer
 * @len: allocation length, at most 255
 * @timeout: seconds
 * @ret_got: bytes received (allocation length minus residual)
 * @err: filled on failure
 *
 * UNIT ATTENTION, ABORTED COMMAND, BUSY and TASK SET FULL are retried up
 * to three times (four commands in all), as the kernel retries them; other
 * answers, timeouts and transport errors are returned at once.
 *
 * Return: 0, a positive SG_LIB_CAT_* category, or a negative errno.
 */
int sgio_inquiry(int fd, uint8_t *buf, size_t len, unsigned int timeout, size_t *ret_got,
		 struct sgio_error *err);

/**
 * sgio_inquiry_vpd() - INQUIRY for a VPD page (EVPD set)
 * @fd: from sgio_open()
 * @page: the page code (0x80, 0x83)
 * @buf: response buffer
 * @len: allocation length, at most 65535
 * @timeout: seconds
 * @ret_got: bytes received (allocation length minus residual)
 * @err: filled on failure
 *
 * Retried as sgio_inquiry() is.
 *
 * Return: 0, a positive SG_LIB_CAT_* category, or a negative errno.
 */
int sgio_inquiry_vpd(int fd, uint8_t page, uint8_t *buf, size_t len, unsigned int timeout,
		     size_t *ret_got, struct sgio_error *err);

/**
 * sgio_report_luns() - REPORT LUNS (SELECT REPORT 0), the whole list
 * @fd: from sgio_open()
 * @timeout: seconds
 * @ret_buf: set to a malloc'ed response on success
 * @ret_len: bytes in it
 * @err: filled on failure
 *
 * Starts with the kernel's 4096-byte buffer and grows it to the length the
 * device reports (at most SGIO_REPORT_LUNS_MAX), re-issuing the command. A
 * transfer shorter than the list its own header announces, in a buffer
 * that had room for it, is re-issued once with exactly the announced
 * length. At most four commands. What comes back may still be short of
 * the announced list (a device that keeps cutting its answer, or a list
 * past SGIO_REPORT_LUNS_MAX): report_luns_decode() says so, and nothing
 * may be removed on the account of such a list. Retried as sgio_inquiry()
 * (unit attentions such as "reported LUNs data has changed" among them).
 * Less than the 8-byte header is SG_LIB_CAT_MALFORMED.
 *
 * Return: 0, a positive SG_LIB_CAT_* category, or a negative errno.
 */
int sgio_report_luns(int fd, unsigned int timeout, uint8_t **ret_buf, size_t *ret_len,
		     struct sgio_error *err);

#endif
