/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * discover.h - which targets of a host to scan, and why: a pure state
 * machine fed by the outcome of each try, as plan.h is for LUNs.
 *
 * A host with a SCSI transport class (iSCSI, FC, SAS) lists its targets in
 * sysfs, and its user_scan answers any other channel or id with success: its
 * targets come from that list and nothing else is tried. A host without one
 * (SPI, virtio-scsi, megasas, scsi_debug, ...) refuses ids and channels past
 * its limits with EINVAL: ids are probed until it does, within stated bounds.
 */
#ifndef SCSI_SCAN_DISCOVER_H
#define SCSI_SCAN_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lunmask.h"
#include "scsi-addr.h"

#define DISCOVER_REASON_LEN 200

/* Probing: a channel ends after this many ids in a row without a target
 * when the host never refuses an id. */
#define DISCOVER_EMPTY_IDS_MAX 512
/* Probing: no host is probed past this many channels. */
#define DISCOVER_CHANNELS_MAX 64
/* Probing: no channel is probed past this many ids. */
#define DISCOVER_IDS_MAX 65536

/**
 * enum discover_transport - where a host's targets come from
 * @DISCOVER_PROBE: no transport class: probe ids and channels
 * @DISCOVER_ISCSI: iSCSI sessions (/sys/class/iscsi_session)
 * @DISCOVER_FC: FC remote ports (/sys/class/fc_remote_ports)
 * @DISCOVER_SAS: SAS end devices (/sys/class/sas_device)
 */
enum discover_transport {
	DISCOVER_PROBE,
	DISCOVER_ISCSI,
	DISCOVER_FC,
	DISCOVER_SAS,
};

/**
 * struct discover_target - one target as the transport's topology lists it
 * @channel: its channel
 * @id: its SCSI target id
 * @has_id: the transport has given it a target id (FC: scsi_target_id is
 *	not -1); a target without one cannot be scanned
 * @is_target: it is a SCSI target (FC: roles name "FCP Target"); other
 *	remote ports (initiators, name servers) are left out quietly
 * @reachable: its state lets commands through (iSCSI LOGGED_IN, FC Online
 *	or Marginal; SAS end devices always)
 * @name: the transport's device name: session3, rport-2:0-1, end_device-0:1
 * @address: the stable address: target IQN and portal group, WWPN, SAS
 *	address
 * @state: the state as sysfs says it
 */
struct discover_target {
	unsigned int channel;
	unsigned int id;
	bool has_id;
	bool is_target;
	bool reachable;
	char name[48];
	char address[ISCSI_NAME_MAX + 16];
	char state[32];
};

/**
 * struct discover_input - what is known about a host before its targets
 * @transport: where targets come from
 * @targets: for a transport, its targets in channel and id order
 * @ntargets: how many
 * @channel: the selector's channel, or -1 for all
 * @id: the selector's target id, or -1 for all
 * @dry_run: nothing is written: only the targets with an attached LUN
 *	(@attached) are looked at, then the listed ones that cannot be reached
 * @look: with @dry_run and one target selected (@channel and @id), that
 *	target is tried even with nothing of it attached (struct reach_input)
 * @attached: with @dry_run, the host's attached LUNs, sorted by address
 * @nattached: how many
 * @ata_port: the libata port the host stands for ("ata2"), or NULL. libata
 *	attaches its ports' devices itself, whatever scsi_mod.scan says, and
 *	its user_scan resets the port and waits for its error handler: such a
 *	host is never probed, nor looked at through a LUN attached for the look
 */
struct discover_input {
	enum discover_transport transport;
	const struct discover_target *targets;
	size_t ntargets;
	int channel;
	int id;
	bool dry_run;
	bool look;
	const struct scsi_addr *attached;
	size_t nattached;
	const char *ata_port;
};

/**
 * enum discover_action_kind - what the scan does next
 * @DISCOVER_TRY: find the target at channel and id and scan it; answer
 *	with DISCOVER_OUT_FOUND, DISCOVER_OUT_EMPTY or DISCOVER_OUT_LIMIT
 * @DISCOVER_FAIL: the topology lists a target that cannot be scanned:
 *	record it as failed with the reason; no outcome is needed
 * @DISCOVER_DONE: the host is finished; @failed says whether a bound ended
 *	it or the selector named what the host refuses
 */
enum discover_action_kind {
	DISCOVER_TRY,
	DISCOVER_FAIL,
	DISCOVER_DONE,
};

/**
 * struct discover_action - one step
 * @kind: what to do
 * @channel: the target's channel (TRY, FAIL)
 * @id: the target's id (TRY, FAIL)
 * @listed: the target was listed by the transport (TRY, FAIL): a target
 *	that answers nothing is then reported, not passed over
 * @probe_lun: in a dry run, TRY: the first LUN of the target attached now,
 *	which its commands go through
 * @also_listed: for TRY, how many more entries of the transport's list
 *	(sessions, remote ports, end devices) name the same channel and id;
 *	the target is tried once, and the policy must hold for every one
 * @look: for TRY in a dry run: nothing of the target is attached; it is
 *	read through a LUN attached for the look and deleted again
 * @failed: for DONE, the host's scan did not cover what was asked
 * @reason: why, for people (explain, logs)
 */
struct discover_action {
	enum discover_action_kind kind;
	unsigned int channel;
	unsigned int id;
	bool listed;
	uint64_t probe_lun;
	unsigned int also_listed;
	bool look;
	bool failed;
	char reason[DISCOVER_REASON_LEN];
};

/**
 * enum discover_outcome - what came of the last DISCOVER_TRY
 * @DISCOVER_OUT_NONE: no outcome (first step, or after DISCOVER_FAIL)
 * @DISCOVER_OUT_FOUND: a target answered
 * @DISCOVER_OUT_EMPTY: nothing answered at that id
 * @DISCOVER_OUT_LIMIT: the host refused the channel or id (EINVAL)
 */
enum discover_outcome {
	DISCOVER_OUT_NONE,
	DISCOVER_OUT_FOUND,
	DISCOVER_OUT_EMPTY,
	DISCOVER_OUT_LIMIT,
};

/**
 * struct discover - the state of one host's discovery; fields are private
 */
struct discover {
	struct discover_input in;
	size_t next;
	size_t listed_next;
	unsigned int channel;
	unsigned int id;
	unsigned int empty;
	unsigned int found;
	unsigned int acted;
	bool started;
	bool channel_accepted;
	bool looked;
};

/**
 * discover_init() - start a host's discovery
 * @d: the state
 * @in: what is known; @in->targets must outlive @d
 */
void discover_init(struct discover *d, const struct discover_input *in);

/**
 * discover_step() - the next action
 * @d: the state
 * @last: the outcome of the previous DISCOVER_TRY (DISCOVER_OUT_NONE at
 *	first and after DISCOVER_FAIL)
 * @next: the action to take
 *
 * A libata host (@in->ata_port) is done at once, unless in a dry run.
 * Every path ends: a transport's list is finite; probing ends a channel at
 * the first refused id, after DISCOVER_EMPTY_IDS_MAX empty ids in a row or
 * at DISCOVER_IDS_MAX, and the host at the first refused channel, after a
 * channel whose ids were never refused, or at DISCOVER_CHANNELS_MAX.
 */
void discover_step(struct discover *d, enum discover_outcome last, struct discover_action *next);

/**
 * discover_transport_name() - the transport in words
 * @t: the transport
 *
 * Return: a static string such as "iSCSI" or "none (probed)".
 */
const char *discover_transport_name(enum discover_transport t);

/**
 * discover_iscsi_address() - split an iSCSI session's address, which
 *	topology.c gives as "IQN,TPGT"
 * @address: the entry's @address
 * @iqn_len: set to the length of the IQN part (all of @address without a
 *	comma)
 *
 * Return: the portal group tag, or -1 when there is none.
 */
long discover_iscsi_address(const char *address, size_t *iqn_len);

/**
 * discover_lunmask_targets() - what the lunmask policy sees of one target:
 *	one lunmask target per entry of the transport's list that names it
 *	(each session, remote port or end device), or @base alone when none
 *	does (a probed host, or a target the list misses)
 * @listed: the host's list (topology_read())
 * @n: its length
 * @transport: whose list it is
 * @base: host, driver, host port name, channel and id of the target, with
 *	every transport field unset (iscsi_tpgt -1)
 * @ret: set to the targets; free() it
 * @ret_iqns: set to the IQNs the iSCSI targets point into; free() it after
 *	@ret is no longer used
 *
 * Return: how many targets (at least 1), or -ENOMEM.
 */
ssize_t discover_lunmask_targets(const struct discover_target *listed, size_t n,
				 enum discover_transport transport,
				 const struct lunmask_target *base, struct lunmask_target **ret,
				 char (**ret_iqns)[ISCSI_NAME_MAX + 16]);

/**
 * discover_empty_targets() - the listed targets of which nothing is attached
 * @targets: a transport's list (topology_read())
 * @ntargets: how many
 * @attached: the host's attached LUNs, any order
 * @nattached: how many
 * @out: filled with the channel and id of each such target, once each
 *	(room for @ntargets)
 *
 * What the daemon's poll looks at: the first LUN mapped to an empty target
 * comes with no unit attention (no LUN of it is attached to carry one).
 * Only reachable targets count (one not logged in answers nothing).
 *
 * Return: how many were written to @out.
 */
size_t discover_empty_targets(const struct discover_target *targets, size_t ntargets,
			      const struct scsi_addr *attached, size_t nattached,
			      struct scsi_addr *out);

#endif
