/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - a host's targets as its SCSI transport class lists them in
 * sysfs: iSCSI sessions, FC remote ports, SAS end devices.
 */
#ifndef SCSI_SCAN_TOPOLOGY_H
#define SCSI_SCAN_TOPOLOGY_H

#include <stddef.h>

#include "discover.h"
#include "sysfs.h"

/**
 * topology_read() - find a host's transport and the targets it lists
 * @sys: the path context
 * @host: the host number
 * @ret_transport: DISCOVER_PROBE if the host has none of the three
 *	transport classes (iscsi_host, fc_host, sas_host)
 * @ret_targets: the listed targets in channel and id order (free() it);
 *	NULL when there are none
 * @ret_count: how many
 *
 * Reads /sys/class/iscsi_session/session* (the host from the session's
 * place under /sys/devices, target_id, targetname, tpgt, state),
 * /sys/class/fc_remote_ports/rport-H:C-N (scsi_target_id, roles,
 * port_state, port_name) and /sys/class/sas_device/end_device-H:*
 * (scsi_target_id, device_type, sas_address).
 *
 * Return: 0, or a negative errno (-ENOMEM, or a class directory that
 * cannot be read).
 */
int topology_read(const struct sysfs_ctx *sys, unsigned int host,
		  enum discover_transport *ret_transport, struct discover_target **ret_targets,
		  size_t *ret_count);

/**
 * topology_target_lost() - whether the transport lost a target it listed
 * @sys: the path context
 * @host: the host number
 * @channel: the target's channel
 * @id: the target's id
 * @why: set to the entry and its state when lost ("session3
 *	iqn...,1 is FAILED"), or to what went wrong
 * @len: size of @why
 *
 * A session that failed, a remote port that is blocked or gone: commands
 * and scan writes to the target go nowhere until it comes back, and a
 * scan of it can stop at once.
 *
 * Return: 1 lost (no entry of the list that names the target can be
 * reached, or none names it any more), 0 reachable or no transport, or a
 * negative errno.
 */
int topology_target_lost(const struct sysfs_ctx *sys, unsigned int host, unsigned int channel,
			 unsigned int id, char *why, size_t len);

/**
 * topology_ata_port() - the libata port a host stands for
 * @sys: the path context
 * @host: the host number
 * @name: set to the port's name ("ata2") for a libata host
 * @len: size of @name
 *
 * libata makes one SCSI host per ATA port, as a child of the port's device,
 * which also carries the port's entry of the ata_port class
 * (/sys/class/scsi_host/hostN/device/../ata_port/ataM). A host of libsas
 * (SATA behind SAS) is not one: its parent is the controller.
 *
 * Return: 1 for a libata host, 0 for any other or when sysfs cannot say.
 */
int topology_ata_port(const struct sysfs_ctx *sys, unsigned int host, char *name, size_t len);

#endif
