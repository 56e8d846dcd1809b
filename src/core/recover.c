// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recover.c - which targets came back, and what their LUNs need. No I/O.
 */
#include <string.h>

#include "recover.h"

static bool listed_in(const struct scsi_addr *set, size_t n, unsigned int channel, unsigned int id)
{
	for (size_t i = 0; i < n; i++)
		if (set[i].channel == channel && set[i].id == id)
			return true;
	return false;
}

static bool reachable(const struct discover_target *targets, size_t ntargets, unsigned int channel,
		      unsigned int id)
{
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].channel == channel && targets[i].id == id && targets[i].reachable)
			return true;
	return false;
}

void recover_paths_back(const struct scsi_addr *was_lost, size_t nwas_lost,
			const struct discover_target *targets, size_t ntargets,
			struct scsi_addr *back, size_t *nback, struct scsi_addr *lost,
			size_t *nlost)
{
	*nback = 0;
	*nlost = 0;
	for (size_t i = 0; i < ntargets; i++) {
		const struct discover_target *t = &targets[i];

		if (!t->is_target || !t->has_id || listed_in(lost, *nlost, t->channel, t->id) ||
		    reachable(targets, ntargets, t->channel, t->id))
			continue;
		lost[(*nlost)++] = (struct scsi_addr){ 0, t->channel, t->id, 0 };
	}
	for (size_t i = 0; i < nwas_lost; i++) {
		const struct scsi_addr *w = &was_lost[i];

		if (listed_in(back, *nback, w->channel, w->id) ||
		    !reachable(targets, ntargets, w->channel, w->id))
			continue;
		back[(*nback)++] = (struct scsi_addr){ 0, w->channel, w->id, 0 };
	}
}

enum recover_action recover_lun_action(const char *state, bool offline_before)
{
	if (strcmp(state, "running") == 0)
		return RECOVER_RESCAN;
	/* The transport's unblock moves blocked and transport-offline LUNs
	 * to running itself; an offline one (the error handler gave up on
	 * it while the path was away) stays offline until someone says. */
	if (strcmp(state, "offline") == 0)
		return offline_before ? RECOVER_LEAVE : RECOVER_SET_RUNNING;
	return RECOVER_LEAVE;
}

const char *recover_action_name(enum recover_action a)
{
	static const char *const names[] = {
		[RECOVER_LEAVE] = "leave",
		[RECOVER_SET_RUNNING] = "set running",
		[RECOVER_RESCAN] = "rescan",
	};

	return (unsigned int)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}
