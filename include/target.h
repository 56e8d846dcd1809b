/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * target.h - one target as one pure machine: how it is reached, what it
 * is, which LUNs it lists, which to try, whether they are one unit
 * answering twice, and what to take back. target_step() takes what came of
 * the last action and gives the next, from a closed set; scan.c carries the
 * actions out and feeds back what it saw. The machine composes reach_step(),
 * plan_step(), plan_batch(), plan_reach_fate(), ghost_judge() and the
 * lunmask decisions, and fills the target's report as it goes. Its
 * decisions read only its own state: the report is written (a line it
 * wrote is amended by its index), never consulted; what the machine knows
 * of the target goes into it as the machine ends.
 *
 * A release (taking a LUN away: the policy refuses it, the device no longer
 * lists it, the scan attached it for its own use) is one small machine too,
 * release_step(): in-use check, dry run, delete, and the report line, in
 * that order, wherever a LUN goes.
 */
#ifndef SCSI_SCAN_TARGET_H
#define SCSI_SCAN_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codes.h"
#include "handler.h"
#include "identity.h"
#include "lunmask.h"
#include "plan.h"
#include "quirks.h"
#include "reach.h"
#include "removal.h"
#include "report.h"

/**
 * enum target_act - what the machine asks the interpreter to do
 * @TARGET_ATTACH: write "C T @lun" to the host's scan file, then look
 *	whether @lun is attached (result, attached, max_lun_ok, ms); with
 *	@read_after, by reading its attribute @attr (read_result, data, len)
 * @TARGET_KERNEL_SCAN: write "C T -", the kernel's own scan of the target
 *	(result, max_lun_ok, and luns: the target's LUNs attached now)
 * @TARGET_ATTACH_LUNS: write "C T L" for each of the @nluns LUNs of @luns,
 *	all of them handed over at once, in any order or from several
 *	threads, stopping at the first write that fails; then list the
 *	target's LUNs (result: 0 or that write's negative errno; max_lun_ok;
 *	luns: the target's LUNs attached now, even after a failure). With
 *	@read_after, each LUN's attribute @attr may be read right after its
 *	write, and a later TARGET_READ of it served from that read, once.
 * @TARGET_INQUIRY: standard INQUIRY of @len bytes through the sg or bsg
 *	node of @lun (result, data, has_sense, why)
 * @TARGET_VPD: INQUIRY for VPD page @page of @lun, through its sg or bsg
 *	node (result as TARGET_INQUIRY)
 * @TARGET_REPORT_LUNS: REPORT LUNS through the node of @lun (result, data,
 *	has_sense, why)
 * @TARGET_READ: the sysfs attribute @attr of @lun (result: bytes or a
 *	negative errno, data)
 * @TARGET_LIST: the target's LUNs attached now (result, luns)
 * @TARGET_IN_USE: whether deleting @lun takes it from a user (result 1, 0,
 *	or a negative errno; why)
 * @TARGET_DELETE: delete @lun (result)
 * @TARGET_LOST: whether the transport lost the target (result 1, 0, or a
 *	negative errno; why)
 * @TARGET_SET_HANDLER: write @text (a device handler's name) to the
 *	dh_state attribute of @lun (result 0 or a negative errno)
 * @TARGET_DONE: the target is finished (see struct target_end)
 */
enum target_act {
	TARGET_ATTACH,
	TARGET_KERNEL_SCAN,
	TARGET_ATTACH_LUNS,
	TARGET_INQUIRY,
	TARGET_VPD,
	TARGET_REPORT_LUNS,
	TARGET_READ,
	TARGET_LIST,
	TARGET_IN_USE,
	TARGET_DELETE,
	TARGET_LOST,
	TARGET_SET_HANDLER,
	TARGET_DONE,
};

/**
 * enum target_attr - the attributes of a LUN the machine reads
 * @ATTR_INQUIRY: the kernel's copy of the standard INQUIRY data
 * @ATTR_VPD80: its copy of VPD page 0x80 (unit serial number)
 * @ATTR_VPD83: its copy of VPD page 0x83 (device identification)
 * @ATTR_WWID: the wwid it derives from page 0x83 (text)
 * @ATTR_DH_STATE: its device handler, or "detached" (text)
 * @ATTR_RECORDED_INQUIRY: the INQUIRY data recorded when the LUN was first
 *	seen attached (/run/scsi-scan/identity; made from the kernel's copy
 *	then), which no rescan refreshes
 * @ATTR_RECORDED_VPD80: the same of VPD page 0x80
 * @ATTR_RECORDED_VPD83: the same of VPD page 0x83
 */
enum target_attr {
	ATTR_INQUIRY,
	ATTR_VPD80,
	ATTR_VPD83,
	ATTR_WWID,
	ATTR_DH_STATE,
	ATTR_RECORDED_INQUIRY,
	ATTR_RECORDED_VPD80,
	ATTR_RECORDED_VPD83,
};

/**
 * target_attr_name() - the sysfs name of an attribute
 * @a: the attribute
 *
 * Return: "inquiry", "vpd_pg80", "vpd_pg83", "wwid", "dh_state", or for
 * the recorded ones "recorded_inquiry", "recorded_vpd_pg80",
 * "recorded_vpd_pg83".
 */
const char *target_attr_name(enum target_attr a);

/**
 * enum target_end_kind - how a target's machine ended, for discovery
 * @TARGET_END_NONE: nothing is there (discovery goes on: empty)
 * @TARGET_END_FOUND: a target, with a report
 * @TARGET_END_LIMIT: the channel or id is past the host's limits (EINVAL)
 * @TARGET_END_ABORT: the host's scan must end (@error: a write failed on
 *	a target nobody listed, a bound or cancellation, or -ENOMEM)
 */
enum target_end_kind {
	TARGET_END_NONE,
	TARGET_END_FOUND,
	TARGET_END_LIMIT,
	TARGET_END_ABORT,
};

/**
 * struct target_action - one step
 * @kind: what to do
 * @lun: the LUN it is about
 * @len: TARGET_INQUIRY: the allocation length
 * @page: TARGET_VPD: the page code
 * @attr: TARGET_READ: which attribute; TARGET_ATTACH and TARGET_ATTACH_LUNS
 *	with @read_after: the attribute to read once the write is done
 * @read_after: TARGET_ATTACH: read @attr of @lun after the write, the read
 *	the machine asks first when the LUN is attached; what looks whether
 *	it is attached then (a read that works needs no other look).
 *	TARGET_ATTACH_LUNS: see there. An interpreter may ignore it: the
 *	machine asks the read again.
 * @text: TARGET_SET_HANDLER: the handler's name
 * @luns: TARGET_ATTACH_LUNS: the LUNs to write, owned by the machine
 * @nluns: how many
 * @end: TARGET_DONE: how the target ended
 * @error: TARGET_DONE with TARGET_END_ABORT: the negative errno
 */
struct target_action {
	enum target_act kind;
	uint64_t lun;
	size_t len;
	uint8_t page;
	enum target_attr attr;
	bool read_after;
	const char *text;
	const uint64_t *luns;
	size_t nluns;
	enum target_end_kind end;
	int error;
};

/**
 * struct target_obs - what came of the last action
 * @result: TARGET_ATTACH, TARGET_KERNEL_SCAN, TARGET_ATTACH_LUNS,
 *	TARGET_DELETE: 0 or a negative errno (-EINVAL: past the host's
 *	limits; -ETIMEDOUT or -ECANCELED: a bound stopped the scan before the
 *	write);
 *	TARGET_INQUIRY, TARGET_REPORT_LUNS: 0, a positive SG_LIB_CAT_*
 *	category or a negative errno (-ENOENT: no sg or bsg node);
 *	TARGET_READ: the bytes read, or a negative errno; TARGET_LIST: 0 or a
 *	negative errno; TARGET_IN_USE, TARGET_LOST: 1, 0 or a negative errno
 * @attached: TARGET_ATTACH: the LUN is attached afterwards
 * @max_lun_ok: TARGET_ATTACH, TARGET_KERNEL_SCAN, TARGET_ATTACH_LUNS: the
 *	highest LUN this host has taken so far, or -1
 * @ms: TARGET_ATTACH: how long the write took
 * @read_result: TARGET_ATTACH with read_after: the bytes the read gave, a
 *	negative errno, or 0 when it was not done (its data in @data, @len)
 * @data: TARGET_INQUIRY, TARGET_REPORT_LUNS, TARGET_READ, and TARGET_ATTACH
 *	with read_after: what was read
 * @len: its length
 * @has_sense: TARGET_INQUIRY, TARGET_REPORT_LUNS: the failure came with
 *	sense data (the device answered)
 * @luns: TARGET_KERNEL_SCAN, TARGET_ATTACH_LUNS, TARGET_LIST: the target's
 *	LUNs attached now, sorted
 * @nluns: how many
 * @why: the failure, the holder (TARGET_IN_USE), the transport's entry
 *	(TARGET_LOST), or the bound that stopped the scan, in words
 * @bound: after the action, the scan's bounds: 0, -ETIMEDOUT (the
 *	target's), -ECANCELED (the host's, the run's, or a cancellation)
 * @bound_why: that bound in words
 * @ms_left: what the bounds leave, in ms, or -1 for none
 */
struct target_obs {
	int result;
	bool attached;
	long long max_lun_ok;
	uint64_t ms;
	int read_result;
	const uint8_t *data;
	size_t len;
	bool has_sense;
	const uint64_t *luns;
	size_t nluns;
	const char *why;
	int bound;
	const char *bound_why;
	long long ms_left;
};

/**
 * enum release_kind - why a LUN is taken away
 * @RELEASE_OURS: this scan attached it for its own use (to reach the
 *	target, a kernel target scan's LUN the database refuses, LUN 0 of an
 *	attach = false device): its line says "detached"
 * @RELEASE_REFUSED: attached before; the policy refuses it or the device
 *	no longer lists it (--remove): its line says "removed"
 * @RELEASE_REMAPPED: attached before, and another unit answers at it now:
 *	deleted (no line; the machine attaches it again) unless in use
 * @RELEASE_DEFERRED: its line was written already ("detached": a ghost,
 *	or an investigation's LUN); taken at the end of the host's scan
 */
enum release_kind {
	RELEASE_OURS,
	RELEASE_REFUSED,
	RELEASE_REMAPPED,
	RELEASE_DEFERRED,
};

/**
 * struct release - one LUN taken away; fields are private
 */
struct release {
	enum release_kind kind;
	struct removal_evidence ev;
	uint64_t lun;
	enum scan_code code;
	bool dry_run;
	bool force;
	int state;
	bool deleted;
	char reason[PLAN_REASON_LEN];
};

/**
 * struct release_line - what the report says of the LUN once released
 * @set: a line is written (none for RELEASE_OURS in a dry run, or
 *	RELEASE_DEFERRED when the delete worked: its line stands)
 * @outcome: the line's outcome
 * @code: its code
 * @reason: its reason
 */
struct release_line {
	bool set;
	enum lun_outcome outcome;
	enum scan_code code;
	char reason[PLAN_REASON_LEN];
};

/**
 * release_init() - start taking a LUN away
 * @r: the release
 * @kind: why
 * @ev: the evidence for it (its holders are found by release_step()); the
 *	removal rule, may_remove(), decides
 * @lun: the LUN
 * @code: the code of its line
 * @reason: the reason of its line, and what its other lines say
 * @dry_run: write nothing
 * @force: delete it even when in use
 */
void release_init(struct release *r, enum release_kind kind, const struct removal_evidence *ev,
		  uint64_t lun, enum scan_code code, const char *reason, bool dry_run, bool force);

/**
 * release_step() - the next step of a release
 * @r: the release
 * @last: what came of the last action (NULL at first)
 * @next: TARGET_IN_USE, TARGET_DELETE, or TARGET_DONE
 * @line: with TARGET_DONE, the report line
 *
 * Every release asks may_remove(): evidence that is not a reason keeps the
 * LUN (its line says so); otherwise the LUN is checked not in use (an
 * error while checking counts as in use; --force skips the check), then,
 * unless in a dry run, deleted.
 */
void release_step(struct release *r, const struct target_obs *last, struct target_action *next,
		  struct release_line *line);

/**
 * struct target_input - what the machine knows of a target before it starts
 * @addr: host, channel, id
 * @db: the quirk database, finalized
 * @holdouts: the volumes held out (scsi-scan detach: lunmask entries under
 *	/run/scsi-scan/holdout, read when the host's scan starts), or NULL;
 *	applied as the database's lunmask entries are
 * @dry_run: write nothing
 * @look: with @dry_run and nothing of the target attached, one LUN may be
 *	attached to read it, and is deleted again (struct reach_input)
 * @known: LUNs of the target seen attached earlier this boot (identity
 *	records), ascending, or NULL: ways in for a target the policy
 *	restricts (struct reach_input)
 * @nknown: how many
 * @remove: delete attached LUNs the device no longer lists or the policy
 *	refuses
 * @remove_refused: delete attached LUNs the policy refuses (unless in use)
 * @force: with @remove, even when in use
 * @attach_ghosts: attach LUNs that repeat another LUN's identity
 * @investigate: gather evidence (scsi-quirks suggest)
 * @check_identity: compare each attached LUN's unit with the one the kernel
 *	attached (a remapped LUN is deleted and attached again, unless in use)
 * @has_only_lun: one LUN was selected
 * @only_lun: that LUN
 * @listed: the transport lists the target
 * @found_reason: how discovery came to it, in words
 * @found_code: SC_LISTED or SC_PROBED
 * @transport: whether the host has a transport class (a write that
 *	attaches nothing may then mean the transport lost the target)
 * @addresses: every entry of the transport's list that names the target,
 *	as lunmask targets (driver, host port name, channel and id, and the
 *	entry's address); one, without an address, for a host without a
 *	transport
 * @naddresses: how many
 * @before: the LUNs of the target attached when the host's scan started,
 *	sorted
 * @nbefore: how many
 * @max_luns: scsi_mod's max_luns
 * @driver: the host's driver (proc_name), or NULL
 * @wlun_impossible: the host refused the REPORT LUNS well-known LUN before
 * @max_lun_ok: the highest LUN the host has taken so far, or -1
 */
struct target_input {
	struct scsi_addr addr;
	const struct quirk_db *db;
	const struct quirk_db *holdouts;
	bool dry_run;
	bool look;
	const uint64_t *known;
	size_t nknown;
	bool remove;
	bool remove_refused;
	bool force;
	bool attach_ghosts;
	bool investigate;
	bool check_identity;
	bool has_only_lun;
	uint64_t only_lun;
	bool listed;
	const char *found_reason;
	enum scan_code found_code;
	bool transport;
	const struct lunmask_target *addresses;
	size_t naddresses;
	const uint64_t *before;
	size_t nbefore;
	uint64_t max_luns;
	const char *driver;
	bool wlun_impossible;
	long long max_lun_ok;
};

/**
 * struct target_deferred - a release left for the end of the host's scan
 * @lun: the LUN
 * @line: the index of its line in the report
 */
struct target_deferred {
	uint64_t lun;
	size_t line;
};

/* A line of the report that says this scan attached a LUN; private. */
struct own_line {
	uint64_t lun;
	size_t line;
	bool undone;
};

/* What the ghost check compares a new LUN with; private to target.c. */
struct ghost_watch {
	struct lun_identity ref;
	/* prev and cur point into slots, and trade places after each LUN */
	struct lun_identity slots[2];
	struct lun_identity *prev;
	struct lun_identity *cur;
	uint64_t ref_lun;
	uint64_t prev_lun;
	bool has_ref;
	bool has_prev;
	bool prev_partial;
	bool all;
	struct lun_identity *seen;
	uint64_t *seen_lun;
	size_t nseen;
};

/* A read done with the last write, served when the machine asks it next;
 * its data lives as long as the observation it came with. Private. */
struct read_ahead {
	bool asked;
	bool valid;
	uint64_t lun;
	enum target_attr attr;
	int result;
	const uint8_t *data;
	size_t len;
};

/**
 * struct target_machine - one target's machine; fields are private, but
 *	for @rep, the target's report, which target_take_report() hands over
 */
struct remap_check;

struct target_machine {
	struct target_input in;
	int phase;
	int sub;
	struct target_report rep;
	bool has_report;
	/* how the target is reached: the policy's entries for it */
	struct lunmask_set mask;
	struct reach reach;
	struct reach_input reach_in;
	struct lunmask_verdict v0;
	struct lunmask_verdict vsel;
	char lun0_why[PLAN_REASON_LEN];
	bool temporary;
	bool lun0_new;
	bool lun0_refused;
	bool wlun_impossible;
	long long max_lun_ok;
	/* what it is */
	uint64_t probe_lun;
	bool probe_new;
	struct inquiry inq;
	enum inquiry_source inquiry_source;
	uint8_t probe_inquiry[INQUIRY_MIN_LEN];
	size_t probe_inquiry_len;
	struct quirk_match match;
	bool target_attach;
	char wwid[SCSI_WWID_MAX + 1];
	char serial[256];
	/* its LUNs */
	uint64_t *kernel_luns;
	size_t nkernel_luns;
	bool *kernel_kept;
	uint64_t *reported;
	size_t nreported;
	bool report_read;
	bool report_complete;
	enum plan_method method;
	struct own_line *lines;
	size_t nlines;
	size_t lines_alloc;
	/* the device handler */
	struct handler_choice handler;
	size_t hi;
	char dh_state[32];
	struct plan plan;
	bool has_plan;
	struct plan_input plan_in;
	struct plan_outcome out;
	struct plan_action act;
	struct plan_reach_fate fate;
	struct plan_batch_input batch;
	enum plan_batch_kind batch_kind;
	uint64_t *batch_luns;
	uint64_t *attached;
	size_t nattached;
	size_t attached_alloc;
	uint64_t *list;
	size_t nlist;
	size_t ki;
	bool wrote;
	uint64_t probe_ms;
	int error;
	/* ghosts */
	struct ghost_report last_ghost;
	struct ghost_watch *watch;
	int watch_state;
	int watch_verdict;
	/* a remapped LUN */
	struct remap_check *remap;
	/* the read done with the last attach */
	struct read_ahead ahead;
	/* releases */
	struct release release;
	bool releasing;
	int after_release;
	struct target_deferred *deferred;
	size_t ndeferred;
	/* the last observation's bounds */
	int bound;
	char bound_why[160];
	long long ms_left;
	char stop_why[160];
	char inq_why[PLAN_REASON_LEN];
	char out_why[PLAN_REASON_LEN];
	int ref_state;
	bool finished;
	bool published;
	struct target_action done;
};

/**
 * target_init() - start a target's machine
 * @m: the machine
 * @in: what is known; its pointers must outlive @m
 *
 * Return: 0 or -ENOMEM.
 */
int target_init(struct target_machine *m, const struct target_input *in);

/**
 * target_step() - the next action
 * @m: the machine
 * @last: what came of the last action (NULL at first)
 * @next: the action to take
 *
 * Reach the target (reach_step()), identify it (INQUIRY, the quirk
 * database, the policy by LUN 0's identity), plan its LUNs (plan_step(),
 * plan_batch()), judge each LUN attached against the others (ghost_judge()),
 * and take back what the scan attached only for its own use or what the
 * policy and --remove refuse. Every path ends in TARGET_DONE.
 */
void target_step(struct target_machine *m, const struct target_obs *last,
		 struct target_action *next);

/**
 * target_take_report() - hand the target's report over
 * @m: a machine that is done with TARGET_END_FOUND
 * @ret: filled with the report, which the caller then owns
 */
void target_take_report(struct target_machine *m, struct target_report *ret);

/**
 * target_deferred() - releases the machine left for the end of the host
 * @m: a machine that is done
 * @ret_count: how many
 *
 * Return: the releases (RELEASE_DEFERRED), owned by @m.
 */
const struct target_deferred *target_deferred(const struct target_machine *m, size_t *ret_count);

/**
 * target_wlun_impossible() - whether this target found the host refusing
 *	the REPORT LUNS well-known LUN (a note for the host's report)
 * @m: the machine
 *
 * Return: true if so, and the host did not know it before.
 */
bool target_wlun_impossible(const struct target_machine *m);

/**
 * target_free() - free what a machine holds
 * @m: the machine
 */
void target_free(struct target_machine *m);

#endif
