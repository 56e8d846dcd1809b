/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sgio-script.h - an ordered script of the SG_IO commands a unit test
 * expects, with what the device answers to each. Linked into a test, it
 * takes every SG_IO ioctl on the script's file descriptor: a command that
 * differs from the next expected one, or one more than the script holds,
 * fails the test, and sgio_script_end() fails it if any are left.
 */
#ifndef SCSI_SCAN_SGIO_SCRIPT_H
#define SCSI_SCAN_SGIO_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SCSI status and the midlayer's host byte (DID_*) values a script uses. */
#define SCRIPT_GOOD 0x00
#define SCRIPT_CHECK_CONDITION 0x02
#define SCRIPT_BUSY 0x08
#define SCRIPT_TASK_SET_FULL 0x28
#define SCRIPT_DID_NO_CONNECT 0x01
#define SCRIPT_DID_TIME_OUT 0x03

/**
 * struct sgio_step - one command expected, and the answer
 * @cdb: the CDB the command must carry
 * @cdb_len: its length
 * @timeout_ms: the timeout it must ask for (0: any)
 * @data: what the device sends; more than the allocation length is cut
 *	to it (an oversized response), less leaves a residual
 * @data_len: how much
 * @resid: with @lie_resid, the residual reported instead of the true one
 * @lie_resid: report @resid
 * @status: SCSI status
 * @sense: sense data for CHECK CONDITION, or NULL
 * @sense_len: its length
 * @host_status: the HBA's DID_* status (a transport error, a timeout)
 * @ioctl_errno: the ioctl itself fails with this errno (0: it works)
 */
struct sgio_step {
	const uint8_t *cdb;
	size_t cdb_len;
	unsigned int timeout_ms;
	const uint8_t *data;
	size_t data_len;
	int resid;
	bool lie_resid;
	uint8_t status;
	const uint8_t *sense;
	size_t sense_len;
	uint16_t host_status;
	int ioctl_errno;
};

/**
 * sgio_script_begin() - start a script
 * @steps: the commands expected, in order (kept, not copied)
 * @n: how many
 *
 * Return: the file descriptor to send them through (an open temporary
 * file, which libsgutils2 drives with the sg v3 interface).
 */
int sgio_script_begin(const struct sgio_step *steps, size_t n);

/**
 * sgio_script_begin_path() - start a script for the node at @path: every
 *	descriptor the code under test opens on it takes the script's commands
 *	(the code opens the node itself, as a scan opens a LUN's sg node)
 * @steps: the commands expected, in order (kept, not copied)
 * @n: how many
 * @path: the node (an existing file)
 */
void sgio_script_begin_path(const struct sgio_step *steps, size_t n, const char *path);

/**
 * sgio_script_end() - end the script; fails the test if a command the
 * script expects was not sent
 */
void sgio_script_end(void);

/**
 * sgio_script_sent() - how many commands were sent so far
 *
 * Return: the count.
 */
size_t sgio_script_sent(void);

#endif
