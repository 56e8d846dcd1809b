/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sense.h - decoding SCSI sense data.
 */
#ifndef SCSI_SCAN_SENSE_H
#define SCSI_SCAN_SENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SENSE_KEY_NO_SENSE 0x0
#define SENSE_KEY_RECOVERED_ERROR 0x1
#define SENSE_KEY_NOT_READY 0x2
#define SENSE_KEY_MEDIUM_ERROR 0x3
#define SENSE_KEY_HARDWARE_ERROR 0x4
#define SENSE_KEY_ILLEGAL_REQUEST 0x5
#define SENSE_KEY_UNIT_ATTENTION 0x6
#define SENSE_KEY_ABORTED_COMMAND 0xb

/**
 * struct sense - the parts of sense data a scanner acts on
 * @key: sense key
 * @asc: additional sense code
 * @ascq: additional sense code qualifier
 * @deferred: the error belongs to an earlier command
 */
struct sense {
	uint8_t key;
	uint8_t asc;
	uint8_t ascq;
	bool deferred;
};

/**
 * sense_decode() - decode fixed (70h/71h) or descriptor (72h/73h) sense
 * @buf: the sense bytes
 * @len: how many were returned
 * @ret: the result, written only on success
 *
 * Return: 0, or -EINVAL if the bytes are too short or not sense data.
 */
int sense_decode(const uint8_t *buf, size_t len, struct sense *ret);

/**
 * sense_describe() - sense in words, e.g. "Unit Attention: Reported luns
 * data has changed (3f/0e)"
 * @s: decoded sense
 * @buf: output
 * @len: size of @buf
 *
 * Return: @buf.
 */
char *sense_describe(const struct sense *s, char *buf, size_t len);

#endif
