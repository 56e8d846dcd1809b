/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hostlock.h - the per-host lock shared by scsi-scan and scsi-scand.
 */
#ifndef SCSI_SCAN_HOSTLOCK_H
#define SCSI_SCAN_HOSTLOCK_H

#include <stdbool.h>

#include "sysroot.h"

/**
 * host_lock() - take the per-host lock shared by scsi-scan and scsi-scand
 * @ctx: the context (the lock lives in /run/scsi-scan/lock/)
 * @host: the host
 * @wait: block until it is free; otherwise fail with -EWOULDBLOCK
 * @ret_fd: set to the lock's file descriptor; close it to unlock
 *
 * Return: 0 or a negative errno.
 */
int host_lock(const struct sysfs_ctx *ctx, unsigned int host, bool wait, int *ret_fd);

#endif
