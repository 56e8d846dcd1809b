// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * handler.c - which device handler a LUN should have. No I/O.
 */
#include <string.h>

#include "handler.h"

bool quirk_handler_known(const char *name)
{
	static const char *const known[] = { "alua", "emc", "hp_sw", "rdac" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(name, known[i]) == 0)
			return true;
	return false;
}

void handler_choose(const struct quirk_match *m, unsigned int tpgs, struct handler_choice *ret)
{
	const struct quirk_entry *e = m->handler ? m->handler_source : NULL;

	memset(ret, 0, sizeof(*ret));
	if (e && !e->builtin) {
		ret->name = m->handler;
		ret->why = HANDLER_LOCAL;
		ret->entry = e;
	} else if (tpgs) {
		ret->name = "alua";
		ret->why = HANDLER_TPGS;
	} else if (e) {
		ret->name = m->handler;
		ret->why = HANDLER_TABLE;
		ret->entry = e;
	}
}

const char *handler_why_name(enum handler_why why)
{
	switch (why) {
	case HANDLER_LOCAL:
		return "local";
	case HANDLER_TPGS:
		return "tpgs";
	case HANDLER_TABLE:
		return "table";
	case HANDLER_NONE:
		break;
	}
	return "none";
}

enum handler_step handler_step(const char *want, const char *dh_state)
{
	size_t n;

	if (!want)
		return HANDLER_KEEP;
	if (!dh_state)
		return HANDLER_UNKNOWN;
	n = strcspn(dh_state, "\n");
	if (n == strlen("detached") && strncmp(dh_state, "detached", n) == 0)
		return quirk_handler_known(want) ? HANDLER_ATTACH : HANDLER_NOT_KERNEL;
	if (n == strlen(want) && strncmp(dh_state, want, n) == 0)
		return HANDLER_KEEP;
	return HANDLER_CONFLICT;
}
