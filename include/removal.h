/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * removal.h - the one rule that says whether an attached LUN may be deleted.
 * Every deletion in the tree asks it: a release of the per-target machine
 * (policy, hold-out, --remove, remap, ghost, a LUN attached only to reach
 * a target), and each path of a detach. Pure: typed evidence in, a verdict
 * out.
 */
#ifndef SCSI_SCAN_REMOVAL_H
#define SCSI_SCAN_REMOVAL_H

#include <stdbool.h>

/**
 * enum removal_cause - why a deletion is asked
 * @REMOVAL_OURS: this scan attached the LUN for its own use (to reach the
 *	target, to look at it in a dry run, a kernel target scan's LUN the
 *	database refuses): taking it back needs no other evidence
 * @REMOVAL_REFUSED: a lunmask policy or a hold-out refuses the LUN
 * @REMOVAL_GONE: the target's LUN list no longer names the LUN
 * @REMOVAL_REMAPPED: another unit answers at the LUN
 * @REMOVAL_GHOST: the LUN repeats the unit of another LUN of its target
 * @REMOVAL_DETACH: the user detaches the volume the LUN is a path of
 */
enum removal_cause {
	REMOVAL_OURS,
	REMOVAL_REFUSED,
	REMOVAL_GONE,
	REMOVAL_REMAPPED,
	REMOVAL_GHOST,
	REMOVAL_DETACH,
};

/**
 * enum evidence_identity - what the unit at the LUN was found to be
 * @IDENTITY_NOT_ASKED: not compared
 * @IDENTITY_SAME: the same unit as the one compared with (for a ghost:
 *	the other LUN's; for a remap: the one first attached)
 * @IDENTITY_DIFFERENT: another unit, from answers read whole
 * @IDENTITY_UNREADABLE: an answer was short, blank, failed or said no
 *	unit is there: nothing can be concluded
 */
enum evidence_identity {
	IDENTITY_NOT_ASKED,
	IDENTITY_SAME,
	IDENTITY_DIFFERENT,
	IDENTITY_UNREADABLE,
};

/**
 * enum evidence_list - the target's LUN list the LUN was looked up in
 * @LIST_NOT_READ: none was read (or it failed)
 * @LIST_COMPLETE: the whole list, as long as the device says it is
 * @LIST_PARTIAL: cut short: a LUN missing from it may be there
 */
enum evidence_list {
	LIST_NOT_READ,
	LIST_COMPLETE,
	LIST_PARTIAL,
};

/**
 * enum evidence_holdout - the hold-out that refuses the LUN
 * @HOLDOUT_NONE: none does
 * @HOLDOUT_THIS_HOST: one keyed to this LUN's own target on its own host
 * @HOLDOUT_OTHER_HOST: one whose key could be another host's LUN (the same
 *	numbers on another HBA): not evidence about this LUN
 */
enum evidence_holdout {
	HOLDOUT_NONE,
	HOLDOUT_THIS_HOST,
	HOLDOUT_OTHER_HOST,
};

/**
 * enum evidence_holders - whether something holds the LUN
 * @HOLDERS_NOT_CHECKED: not looked at yet
 * @HOLDERS_NONE: nothing does
 * @HOLDERS_IN_USE: mounted, held by dm or md, swap, open
 * @HOLDERS_UNKNOWN: the check failed: taken as in use
 */
enum evidence_holders {
	HOLDERS_NOT_CHECKED,
	HOLDERS_NONE,
	HOLDERS_IN_USE,
	HOLDERS_UNKNOWN,
};

/**
 * struct removal_evidence - what is known of one attached LUN
 * @cause: why its deletion is asked
 * @identity: for REMOVAL_REMAPPED and REMOVAL_GHOST
 * @list: for REMOVAL_GONE
 * @listed: the list names the LUN
 * @policy_refuses: a lunmask entry of the database refuses it
 * @holdout: for a refusal by a hold-out
 * @holders: whether something holds it
 */
struct removal_evidence {
	enum removal_cause cause;
	enum evidence_identity identity;
	enum evidence_list list;
	bool listed;
	bool policy_refuses;
	enum evidence_holdout holdout;
	enum evidence_holders holders;
};

/**
 * struct removal_request - what the program was asked to do
 * @asked: the user or the policy asks for deletions of this cause
 *	(--remove, the daemon's remove_refused, a detach, a remap or a
 *	ghost found by the scan, a LUN of its own)
 * @force: delete even what is held (--force)
 * @dry_run: delete nothing; say what would be
 */
struct removal_request {
	bool asked;
	bool force;
	bool dry_run;
};

/**
 * enum removal_verdict - what may be done
 * @REMOVAL_KEEP_NOT_ASKED: nobody asked for this deletion
 * @REMOVAL_KEEP_UNTRUSTED: the evidence does not show that the LUN changed,
 *	went, or is refused here: it stays
 * @REMOVAL_ASK_HOLDERS: the in-use check comes first
 * @REMOVAL_KEEP_IN_USE: something holds it (or the check failed)
 * @REMOVAL_WOULD_DELETE: a dry run would delete it
 * @REMOVAL_DELETE: delete it
 */
enum removal_verdict {
	REMOVAL_KEEP_NOT_ASKED,
	REMOVAL_KEEP_UNTRUSTED,
	REMOVAL_ASK_HOLDERS,
	REMOVAL_KEEP_IN_USE,
	REMOVAL_WOULD_DELETE,
	REMOVAL_DELETE,
};

/**
 * removal_trusted() - whether the evidence is a reason for the deletion
 * @ev: the evidence
 *
 * Each cause needs its own evidence, read whole: a remap an identity read
 * as another unit, a ghost one read as the same unit, a LUN gone a complete
 * list that does not name it, a refusal a database entry or a hold-out of
 * this host. Nothing that could not be read is a reason.
 *
 * Return: true if it is.
 */
bool removal_trusted(const struct removal_evidence *ev);

/**
 * may_remove() - the removal rule: whether an attached LUN may be deleted
 * @ev: what is known of it
 * @rq: what was asked
 *
 * A LUN is deleted only when asked, on trusted evidence (removal_trusted()),
 * and when nothing holds it or --force says so; the holders are asked only
 * once the rest allows it.
 *
 * Return: the verdict.
 */
enum removal_verdict may_remove(const struct removal_evidence *ev,
				const struct removal_request *rq);

/**
 * removal_untrusted_why() - why evidence removal_trusted() refuses is no
 *	reason, in words for a report line
 * @ev: the evidence
 *
 * Return: a constant phrase ("its identity could not be read whole").
 */
const char *removal_untrusted_why(const struct removal_evidence *ev);

/**
 * removal_verdict_name() - a verdict's token, for JSON and tests
 * @v: the verdict
 *
 * Return: "keep-not-asked", "keep-untrusted", "ask-holders", "keep-in-use",
 * "would-delete" or "delete".
 */
const char *removal_verdict_name(enum removal_verdict v);

#endif
