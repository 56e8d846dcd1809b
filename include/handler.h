/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * handler.h - which device handler (scsi_dh) a LUN should have, and what to
 * do about the one it has. Pure: the caller reads and writes dh_state.
 */
#ifndef SCSI_SCAN_HANDLER_H
#define SCSI_SCAN_HANDLER_H

#include <stdbool.h>
#include <stddef.h>

#include "quirks.h"

/**
 * enum handler_why - where the handler a device should have comes from
 * @HANDLER_NONE: nothing names one
 * @HANDLER_LOCAL: an entry that is not the kernel's table names it
 * @HANDLER_TPGS: the device reports target port groups (TPGS bits in its
 *	INQUIRY): "alua", which the kernel's scsi_dh_find_driver() gives
 *	before it looks at its table
 * @HANDLER_TABLE: the kernel's device-handler table (scsi_dh_blist), as
 *	carried in the database
 */
enum handler_why {
	HANDLER_NONE,
	HANDLER_LOCAL,
	HANDLER_TPGS,
	HANDLER_TABLE,
};

/**
 * struct handler_choice - the handler a device should have
 * @name: its name, or NULL
 * @why: where it comes from
 * @entry: the entry that names it (HANDLER_LOCAL, HANDLER_TABLE), or NULL
 */
struct handler_choice {
	const char *name;
	enum handler_why why;
	const struct quirk_entry *entry;
};

/**
 * handler_choose() - the handler a device should have
 * @m: the database's match for the device
 * @tpgs: the TPGS field of its INQUIRY (0: no target port groups)
 * @ret: the choice
 *
 * An entry of an administrator's or distribution's file wins; then the
 * kernel's own rule: "alua" for a device that reports target port groups,
 * else its table.
 */
void handler_choose(const struct quirk_match *m, unsigned int tpgs, struct handler_choice *ret);

/**
 * handler_why_name() - the token of a choice's origin
 * @why: the origin
 *
 * Return: "none", "local", "tpgs" or "table".
 */
const char *handler_why_name(enum handler_why why);

/**
 * enum handler_step - what to do about the handler a LUN has
 * @HANDLER_KEEP: it has the one it should have, or should have none
 * @HANDLER_ATTACH: it has none: write the name to dh_state (the kernel
 *	loads the module and attaches it)
 * @HANDLER_CONFLICT: it has another, which dh_state cannot replace
 * @HANDLER_UNKNOWN: dh_state could not be read (no scsi_dh in the kernel)
 * @HANDLER_NOT_KERNEL: it has none, and the handler it should have is none
 *	of scsi_dh's (alua, emc, hp_sw, rdac): not written, since the kernel
 *	would load a module scsi_dh_NAME for whatever name dh_state is given
 */
enum handler_step {
	HANDLER_KEEP,
	HANDLER_ATTACH,
	HANDLER_CONFLICT,
	HANDLER_UNKNOWN,
	HANDLER_NOT_KERNEL,
};

/**
 * handler_step() - what to do about the handler a LUN has
 * @want: the handler it should have, or NULL
 * @dh_state: what its dh_state attribute reads ("detached" or a handler's
 *	name, a trailing newline allowed), or NULL if it could not be read
 *
 * Return: the step.
 */
enum handler_step handler_step(const char *want, const char *dh_state);

#endif
