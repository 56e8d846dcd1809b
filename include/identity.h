/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * identity.h - what a logical unit says it is (standard INQUIRY, VPD pages
 * 0x80 and 0x83), and whether two LUNs of a target are one unit answering
 * twice (ghost LUNs). Pure: decoders and a judgement over byte buffers.
 */
#ifndef SCSI_SCAN_IDENTITY_H
#define SCSI_SCAN_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inquiry.h"

/* Logical-unit designators kept whole per LUN (for their text); every one
 * of the page counts in the per-type digests all the same. */
#define IDENTITY_MAX_DESIGNATORS 8
/* Designator types: a 4-bit field. */
#define IDENTITY_DESIGNATOR_TYPES 16
/* The longest VPD page: its 2-byte length and the 4-byte header. */
#define VPD_PAGE_MAX (4 + 65535)
#define IDENTITY_TEXT_LEN 72
#define IDENTITY_EVIDENCE_LEN 512

/* VPD page 0x83 designator types (SPC-4 table 459). */
#define DESIGNATOR_VENDOR 0x0
#define DESIGNATOR_T10 0x1
#define DESIGNATOR_EUI64 0x2
#define DESIGNATOR_NAA 0x3
#define DESIGNATOR_NAME 0x8
#define DESIGNATOR_UUID 0xa

/**
 * struct designator - one logical-unit designator of VPD page 0x83
 * @type: the designator type (DESIGNATOR_*)
 * @len: its length in bytes
 * @hash: FNV-1a of its bytes (with type and code set), what is compared
 * @text: a readable form as the kernel's wwid writes it ("naa.6001405...",
 *	"eui.", "t10.", "uuid.", or the SCSI name), cut to fit
 */
struct designator {
	uint8_t type;
	uint8_t len;
	uint64_t hash;
	char text[IDENTITY_TEXT_LEN];
};

/**
 * struct lun_identity - what one LUN reports about itself
 * @has_inquiry: @inquiry holds the first bytes of its standard INQUIRY
 * @inquiry: those bytes (up to 36: type, version, vendor, model, revision)
 * @inquiry_len: how many
 * @has_serial: VPD page 0x80 gave a non-empty unit serial number
 * @serial: that serial, cleaned as inquiry_field_clean() does
 * @designators: the first IDENTITY_MAX_DESIGNATORS designators of VPD page
 *	0x83 whose association is the logical unit (target port and target
 *	device ones are the same for every LUN of a target, so they tell
 *	nothing)
 * @ndesignators: how many
 * @type_count: per designator type, how many logical-unit designators the
 *	page reports, all of them
 * @type_digest: per type, an order-insensitive digest of all of them: two
 *	LUNs report the same set of a type when count and digest agree
 */
struct lun_identity {
	bool has_inquiry;
	uint8_t inquiry[INQUIRY_MIN_LEN];
	size_t inquiry_len;
	bool has_serial;
	char serial[256];
	struct designator designators[IDENTITY_MAX_DESIGNATORS];
	size_t ndesignators;
	uint32_t type_count[IDENTITY_DESIGNATOR_TYPES];
	uint64_t type_digest[IDENTITY_DESIGNATOR_TYPES];
};

/**
 * identity_reset() - make @id say nothing, as a zeroed one does
 * @id: the identity
 *
 * Clears what says which parts were recorded, not the bytes behind them: a
 * watch resets one identity per LUN.
 */
void identity_reset(struct lun_identity *id);

/**
 * identity_set_inquiry() - record a LUN's standard INQUIRY data
 * @id: the identity
 * @buf: the response
 * @len: its length; at most 36 bytes are kept
 */
void identity_set_inquiry(struct lun_identity *id, const uint8_t *buf, size_t len);

/**
 * identity_set_vpd80() - record a LUN's unit serial number page
 * @id: the identity
 * @page: VPD page 0x80 as read (header and all)
 * @len: its length
 *
 * Return: 0, or -EINVAL if it is not a page 0x80 with a non-empty serial
 * about a unit at the LUN (qualifier 0)
 * (@id is left as it was).
 */
int identity_set_vpd80(struct lun_identity *id, const uint8_t *page, size_t len);

/**
 * identity_set_vpd83() - record a LUN's device identification page
 * @id: the identity
 * @page: VPD page 0x83 as read (header and all)
 * @len: its length
 *
 * Keeps the logical-unit designators (every one of them in the per-type
 * digests, whatever the page's length); a descriptor that runs past @len
 * or the page's own length ends the walk.
 *
 * Return: 0, or -EINVAL if it is not a page 0x83.
 */
int identity_set_vpd83(struct lun_identity *id, const uint8_t *page, size_t len);

/**
 * identity_designators_differ() - whether VPD 0x83 alone tells two LUNs apart
 * @a: one identity (its designators at least)
 * @b: the other
 *
 * True when both report a designator of some type, and for every type both
 * report the sets differ: ghost_judge() then says GHOST_DISTINCT whatever
 * the INQUIRY data and serials, so they need not be read.
 *
 * Return: true if they differ so.
 */
bool identity_designators_differ(const struct lun_identity *a, const struct lun_identity *b);

/**
 * designator_unique() - whether a designator type names one logical unit
 *	worldwide
 * @type: DESIGNATOR_*
 *
 * NAA, EUI-64, UUID and SCSI name strings are assigned to be unique; a T10
 * vendor ID or a vendor-specific designator need not be.
 *
 * Return: true for the unique kinds.
 */
bool designator_unique(uint8_t type);

/**
 * enum ghost_verdict - what two LUNs' identities say about each other
 * @GHOST_DISTINCT: they differ in something that tells units apart (the
 *	INQUIRY data, a designator both report, or the serial)
 * @GHOST_UNKNOWN: INQUIRY data identical, and neither reports a serial or
 *	a designator to tell them apart: the evidence cannot decide
 * @GHOST_SAME: the same unit answers both LUNs: INQUIRY identical, every
 *	serial and designator both report identical, and at least one of
 *	them a unique designator or a serial
 * @GHOST_CONFLICT: a unique designator identical, but another designator
 *	or the serial differs: not one unit, but a device that gives two units
 *	one name (multipath would take them for paths to one unit)
 */
enum ghost_verdict {
	GHOST_DISTINCT,
	GHOST_UNKNOWN,
	GHOST_SAME,
	GHOST_CONFLICT,
};

/**
 * struct ghost_evidence - the judgement and the fields behind it
 * @verdict: the verdict
 * @rule: a stable token for JSON ("designator-differs", "inquiry-differs",
 *	"serial-differs", "all-identical", "no-identity", "name-conflict")
 * @text: the fields compared, in words, e.g. "INQUIRY identical ('LIO-ORG'
 *	'disk' '4.0'); VPD 0x80 serial 'ABC' identical; VPD 0x83 naa.6001...
 *	identical"
 */
struct ghost_evidence {
	enum ghost_verdict verdict;
	const char *rule;
	char text[IDENTITY_EVIDENCE_LEN];
};

/**
 * ghost_judge() - whether LUN @b is LUN @a answering again
 * @a: the first LUN's identity (usually LUN 0)
 * @b: the other's
 * @ret: the verdict and its evidence
 *
 * Decides from all the evidence, never one field: a shared serial alone
 * is normal on some arrays (their designators differ); identical INQUIRY
 * data alone is normal for LUNs of one array; identical unique
 * designators with identical INQUIRY data are not.
 */
void ghost_judge(const struct lun_identity *a, const struct lun_identity *b,
		 struct ghost_evidence *ret);

/**
 * ghost_verdict() - ghost_judge()'s verdict alone, without its words
 * @a: the first LUN's identity
 * @b: the other's
 *
 * What a scan asks of every LUN it attaches; the words are wanted only for
 * a verdict that ends the target.
 *
 * Return: the verdict ghost_judge() gives.
 */
enum ghost_verdict ghost_verdict(const struct lun_identity *a, const struct lun_identity *b);

/**
 * enum remap_verdict - whether an attached LUN is still the unit it was
 * @REMAP_SAME: a unique designator, the serial or the INQUIRY data agree
 * @REMAP_UNKNOWN: nothing that names a unit is there on both sides
 * @REMAP_CHANGED: another unit answers at the LUN (a remapped LUN)
 */
enum remap_verdict {
	REMAP_SAME,
	REMAP_UNKNOWN,
	REMAP_CHANGED,
};

/**
 * designator_well_formed() - whether a designator fits its own type
 * @type: DESIGNATOR_*
 * @p: its bytes (after the 4-byte descriptor header)
 * @n: how many
 *
 * For the unique kinds (designator_unique()): an NAA designator is 8 or 16
 * bytes, an EUI-64 8, 12 or 16, a UUID 18, a SCSI name string at least 4
 * and not empty. One that does not fit names no unit: a device that answers
 * with it has not been read. The other kinds always fit.
 *
 * Return: true if it fits.
 */
bool designator_well_formed(uint8_t type, const uint8_t *p, size_t n);

/**
 * identity_inquiry_readable() - whether a standard INQUIRY answer names a
 *	unit at all
 * @buf: the answer
 * @len: its length
 *
 * Not when shorter than 36 bytes (vendor, model and revision are not all
 * there), when its qualifier is not 0 or its type is 0x1f (no unit at the
 * LUN), or when vendor or model are blank or NUL.
 *
 * Return: true if it can tell one unit from another.
 */
bool identity_inquiry_readable(const uint8_t *buf, size_t len);

/**
 * remap_judge() - whether the unit behind an attached LUN changed
 * @was: its identity when it was attached (the kernel's copy: its inquiry,
 *	vpd_pg80 and vpd_pg83 attributes)
 * @now: what the LUN answers now
 * @what: set to the fields compared and how they differ, in words
 * @len: size of @what
 *
 * The strongest evidence both sides have decides: the unique designators
 * of page 0x83 (NAA, EUI-64, UUID, SCSI name), then the page 0x80 serial,
 * then the INQUIRY vendor, model and type. A new revision (firmware)
 * alone is the same unit. An answer that could not be read (an INQUIRY
 * identity_inquiry_readable() refuses, a page 0x83 whose qualifier says no
 * unit, designators that do not fit their type) is never REMAP_CHANGED:
 * it is REMAP_UNKNOWN.
 *
 * Return: the verdict.
 */
enum remap_verdict remap_judge(const struct lun_identity *was, const struct lun_identity *now,
			       char *what, size_t len);

/**
 * identity_name() - the strongest name an identity has, for people
 * @id: the identity
 * @buf: output: its first unique designator ("naa.6001405..."), else its
 *	serial ("serial 'ABC'"), else its vendor and model, else "-"
 * @len: size of @buf
 */
void identity_name(const struct lun_identity *id, char *buf, size_t len);

/**
 * ghost_verdict_name() - short name of a verdict, for output
 * @v: the verdict
 *
 * Return: "distinct", "unknown", "same-unit" or "name-conflict".
 */
const char *ghost_verdict_name(enum ghost_verdict v);

#endif
