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

#include "lunmask.h"

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
 */
struct discover_input {
	enum discover_transport transport;
	const struct discover_target *targets;
	size_t ntargets;
	int channel;
	int id;
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
 * @also_listed: for TRY, how many more entries of the transport's list
 *	(sessions, remote ports, end devices) name the same channel and id;
 *	the target is tried once, and the policy must hold for every one
 * @failed: for DONE, the host's scan did not cover what was asked
 * @reason: why, for people (explain, logs)
 */
struct discover_action {
	enum discover_action_kind kind;
	unsigned int channel;
	unsigned int id;
	bool listed;
	unsigned int also_listed;
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
	unsigned int channel;
	unsigned int id;
	unsigned int empty;
	unsigned int found;
	unsigned int acted;
	bool started;
	bool channel_accepted;
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

/*
 * How one target is reached: the LUN that carries INQUIRY and REPORT LUNS.
 * In order: LUN 0 (attached before, or by a "C T 0" write), another LUN
 * attached before, the REPORT LUNS well-known LUN (49409, attached for the
 * scan and detached after it), the LUNs a lunmask allow list names (when
 * the policy refuses LUN 0), and last the kernel's own scan of the one
 * target ("C T -", never on a target the policy restricts). A pure state
 * machine: the scan writes and looks, and feeds back what it saw.
 */

#define REACH_REASON_LEN 352

/**
 * struct reach_input - what is known before a target is touched
 * @dry_run: nothing is written: only LUNs attached now count
 * @listed: the transport's topology lists the target (one that answers
 *	nothing is reported, not passed over)
 * @lun0_attached: LUN 0 is attached now
 * @other_attached: another LUN of the target is attached now
 * @other_lun: that LUN
 * @lun0_allowed: the lunmask policy lets LUN 0 attach
 * @lun0_why: when not, why, in words
 * @wlun_excluded: the policy excludes the well-known LUN explicitly
 * @wlun_impossible: this host refused the well-known LUN before (its LUN
 *	limit is below 49409)
 * @allowed: 1 the policy names a short list of LUNs (first_allowed on,
 *	through @mask), 0 it allows no LUN at all, -1 it names no list
 * @first_allowed: with @allowed 1, the first LUN of the list
 * @mask: the policy's entries for the target (lunmask_next_allowed())
 * @restricts: the policy restricts the target (lunmask_restricts())
 * @selected_refused: only one LUN was asked for, the policy refuses it and
 *	it is not attached: reaching the target would be for nothing
 */
struct reach_input {
	bool dry_run;
	bool listed;
	bool lun0_attached;
	bool other_attached;
	uint64_t other_lun;
	bool lun0_allowed;
	const char *lun0_why;
	bool wlun_excluded;
	bool wlun_impossible;
	int allowed;
	uint64_t first_allowed;
	const struct lunmask_set *mask;
	bool restricts;
	bool selected_refused;
};

/**
 * enum reach_action_kind - what the scan does next for the target
 * @REACH_WRITE: write "C T @lun" to the host's scan file (with
 *	@kernel_scan, "C T -") and answer with what came of it
 * @REACH_FOUND: the target is reached through @lun: scan it
 * @REACH_NONE: nothing is there: not a target
 * @REACH_REPORT: report the target without scanning it (@failed: as a
 *	failure; code "stopped": with the bound that stopped the scan)
 * @REACH_LIMIT: the channel or id is past the host's limits (EINVAL):
 *	discovery moves on
 * @REACH_ABORT: a write failed on a target nobody listed: the host's scan
 *	ends with @error
 */
enum reach_action_kind {
	REACH_WRITE,
	REACH_FOUND,
	REACH_NONE,
	REACH_REPORT,
	REACH_LIMIT,
	REACH_ABORT,
};

/**
 * struct reach_action - one step
 * @kind: what to do
 * @lun: the LUN to write (REACH_WRITE), or the target is reached through
 *	(REACH_FOUND)
 * @kernel_scan: REACH_WRITE of "C T -": answer with the first LUN the
 *	kernel attached
 * @temporary: REACH_FOUND through the well-known LUN: detach it at the end
 * @lun0_new: REACH_FOUND: LUN 0 was attached by this scan
 * @probe_new: REACH_FOUND through a LUN the policy names, attached now
 * @kernel_luns: REACH_FOUND after the kernel's scan of the target
 * @failed: REACH_REPORT as a failure
 * @wlun_impossible: the host refused the well-known LUN: true for every
 *	later target of the host (a note for the host's report)
 * @error: REACH_ABORT, and REACH_REPORT of a failed write: the errno
 * @code: why, as a token: "lun0-attached", "lun0", "attached-before",
 *	"wlun", "policy-lun", "kernel-scan" (found); "selected-refused",
 *	"policy-allows-none", "unreachable-restricted", "no-lun-answered",
 *	"write-failed", "stopped" (reports)
 * @reason: why, in words (REACH_FOUND: how it was reached, or ""; REACH_REPORT:
 *	the target's end reason or failure)
 */
struct reach_action {
	enum reach_action_kind kind;
	uint64_t lun;
	bool kernel_scan;
	bool temporary;
	bool lun0_new;
	bool probe_new;
	bool kernel_luns;
	bool failed;
	bool wlun_impossible;
	int error;
	const char *code;
	char reason[REACH_REASON_LEN];
};

/**
 * enum reach_outcome_kind - what came of the last REACH_WRITE
 * @REACH_OUT_NONE: no outcome (first step)
 * @REACH_OUT_ATTACHED: the LUN written is attached now (for "C T -": the
 *	kernel attached at least one LUN of the target, @lun the first)
 * @REACH_OUT_EMPTY: the write worked, nothing is attached
 * @REACH_OUT_EINVAL: the host refused the write with EINVAL
 * @REACH_OUT_ERROR: another error (@error), or a bound stopped the scan
 *	(@stopped)
 */
enum reach_outcome_kind {
	REACH_OUT_NONE,
	REACH_OUT_ATTACHED,
	REACH_OUT_EMPTY,
	REACH_OUT_EINVAL,
	REACH_OUT_ERROR,
};

/**
 * struct reach_outcome - fed back to reach_step()
 * @kind: what happened
 * @lun: REACH_OUT_ATTACHED of the kernel's scan: the first LUN it attached
 * @error: REACH_OUT_ERROR: the negative errno
 * @stopped: REACH_OUT_ERROR: a bound of the scan, not the kernel
 * @max_lun_ok: the highest LUN this host has taken so far, or -1: EINVAL
 *	for a LUN at or below it means the channel or id is past the limits
 */
struct reach_outcome {
	enum reach_outcome_kind kind;
	uint64_t lun;
	int error;
	bool stopped;
	long long max_lun_ok;
};

/**
 * struct reach - the state of reaching one target; fields are private
 */
struct reach {
	struct reach_input in;
	int state;
	uint64_t lun;
	bool wlun_impossible;
	const char *wlun_result;
};

/**
 * reach_init() - start reaching a target
 * @r: the state
 * @in: what is known; its pointers must outlive @r
 */
void reach_init(struct reach *r, const struct reach_input *in);

/**
 * reach_step() - the next step
 * @r: the state
 * @last: what came of the last REACH_WRITE (REACH_OUT_NONE at first)
 * @next: what to do
 */
void reach_step(struct reach *r, const struct reach_outcome *last, struct reach_action *next);

#endif
