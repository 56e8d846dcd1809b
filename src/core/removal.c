// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * removal.c - the one rule that says whether an attached LUN may be
 * deleted. No I/O.
 */
#include "removal.h"

bool removal_trusted(const struct removal_evidence *ev)
{
	switch (ev->cause) {
	case REMOVAL_OURS:
	case REMOVAL_DETACH:
		return true;
	case REMOVAL_REFUSED:
		return ev->policy_refuses || ev->holdout == HOLDOUT_THIS_HOST;
	case REMOVAL_GONE:
		return ev->list == LIST_COMPLETE && !ev->listed;
	case REMOVAL_REMAPPED:
		return ev->identity == IDENTITY_DIFFERENT;
	case REMOVAL_GHOST:
		return ev->identity == IDENTITY_SAME;
	}
	return false;
}

enum removal_verdict may_remove(const struct removal_evidence *ev, const struct removal_request *rq)
{
	if (!rq->asked)
		return REMOVAL_KEEP_NOT_ASKED;
	if (!removal_trusted(ev))
		return REMOVAL_KEEP_UNTRUSTED;
	if (!rq->force) {
		switch (ev->holders) {
		case HOLDERS_NOT_CHECKED:
			return REMOVAL_ASK_HOLDERS;
		case HOLDERS_IN_USE:
		case HOLDERS_UNKNOWN:
			return REMOVAL_KEEP_IN_USE;
		case HOLDERS_NONE:
			break;
		}
	}
	return rq->dry_run ? REMOVAL_WOULD_DELETE : REMOVAL_DELETE;
}

const char *removal_untrusted_why(const struct removal_evidence *ev)
{
	switch (ev->cause) {
	case REMOVAL_REFUSED:
		return ev->holdout == HOLDOUT_OTHER_HOST
			       ? "the hold-out that refuses it names no host, and may be another "
				 "HBA's"
			       : "nothing refuses it";
	case REMOVAL_GONE:
		return ev->listed ? "the target still lists it"
				  : "the target's LUN list was not read whole";
	case REMOVAL_REMAPPED:
	case REMOVAL_GHOST:
		return "its identity could not be read whole";
	default:
		return "the evidence is not a reason";
	}
}

const char *removal_verdict_name(enum removal_verdict v)
{
	static const char *const names[] = {
		[REMOVAL_KEEP_NOT_ASKED] = "keep-not-asked",
		[REMOVAL_KEEP_UNTRUSTED] = "keep-untrusted",
		[REMOVAL_ASK_HOLDERS] = "ask-holders",
		[REMOVAL_KEEP_IN_USE] = "keep-in-use",
		[REMOVAL_WOULD_DELETE] = "would-delete",
		[REMOVAL_DELETE] = "delete",
	};

	return (unsigned int)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
