/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recover.h - a path that comes back: which targets of a host became
 * reachable again since the last look, and what each of their LUNs needs.
 * Pure: the caller reads the topology and the LUN states.
 *
 * No uevent says that an iSCSI session logged in again or that a blocked FC
 * remote port is online again. While the path was away, the array may have
 * mapped LUNs (their unit attention went to the old I_T nexus), grown or
 * remapped volumes, and the error handler may have set LUNs offline, which
 * the transport's unblock leaves offline.
 */
#ifndef SCSI_SCAN_RECOVER_H
#define SCSI_SCAN_RECOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "discover.h"
#include "scsi-addr.h"

/**
 * recover_paths_back() - the targets that became reachable since the last look
 * @was_lost: the channel and id of each target that was listed but not
 *	reachable at the last look, any order
 * @nwas_lost: how many
 * @targets: the transport's list now (topology_read())
 * @ntargets: how many
 * @back: filled with each target of @was_lost that is reachable now, once
 *	each (room for @nwas_lost)
 * @nback: set to how many
 * @lost: filled with each listed target that no entry of @targets can reach
 *	now, once each: the next look's @was_lost (room for @ntargets)
 * @nlost: set to how many
 *
 * A target listed by several entries (two remote ports with one target id)
 * is reachable when one of them is. A lost target that is no longer listed
 * at all is forgotten: when it is listed again, it comes as a new session
 * or remote port, with its own uevent. Remote ports that are not SCSI
 * targets, and targets without an id, are left out.
 */
void recover_paths_back(const struct scsi_addr *was_lost, size_t nwas_lost,
			const struct discover_target *targets, size_t ntargets,
			struct scsi_addr *back, size_t *nback, struct scsi_addr *lost,
			size_t *nlost);

/**
 * enum recover_action - what a LUN of a target that came back needs
 * @RECOVER_LEAVE: nothing (being created or deleted, or still blocked:
 *	the path is not back for it yet)
 * @RECOVER_SET_RUNNING: offline: set it running, which also has the
 *	kernel read it again
 * @RECOVER_RESCAN: running: have the kernel read it again (capacity,
 *	VPD), which a transport's unblock does not do
 */
enum recover_action {
	RECOVER_LEAVE,
	RECOVER_SET_RUNNING,
	RECOVER_RESCAN,
};

/**
 * recover_lun_action() - what one LUN of a target that came back needs
 * @state: the LUN's sysfs state ("running", "offline",
 *	"transport-offline", "blocked", ...)
 * @offline_before: the LUN was offline already when its path went away
 *	(an administrator's "echo offline > state", or the error handler's
 *	before the outage): the path coming back is no reason to change that
 *
 * Return: the action.
 */
enum recover_action recover_lun_action(const char *state, bool offline_before);

/**
 * recover_action_name() - the action in words, for logs and tests
 * @a: the action
 *
 * Return: "leave", "set running" or "rescan".
 */
const char *recover_action_name(enum recover_action a);

#endif
