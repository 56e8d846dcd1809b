/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * suggest.h - a quirk entry proposed from what an investigation scan of one
 * target saw (scsi-quirks suggest). Pure: a report in, a proposal out.
 */
#ifndef SCSI_SCAN_SUGGEST_H
#define SCSI_SCAN_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scan.h"

#define SUGGEST_EVIDENCE_MAX 8
#define SUGGEST_TEXT_LEN (IDENTITY_EVIDENCE_LEN + 192)

/**
 * struct suggest_evidence - one thing the investigation found
 * @rule: a stable token: "ghost-luns", "ghost-wrap", "ghosts-mixed",
 *	"name-conflict", "report-luns-fails", "report-luns-lies", "gaps",
 *	"lun0-absent", "scsi2-beyond-7", "scsi2-limit-right", "no-identity"
 * @proposes: the rule sets a flag or max_lun in the proposal
 * @text: what was seen, in words (LUNs, fields, errors)
 */
struct suggest_evidence {
	const char *rule;
	bool proposes;
	char text[SUGGEST_TEXT_LEN];
};

/**
 * struct quirk_suggestion - a proposed quirks.d entry and why
 * @vendor: the device's vendor, as matched
 * @model: its model
 * @revision: its revision (not put in the entry: the quirk holds for the
 *	model)
 * @flags: BLIST_* flags to set (those the database sets already are left
 *	out)
 * @max_lun: the highest LUN to attach, or -1
 * @evidence: the findings, proposing or not
 * @nevidence: how many
 */
struct quirk_suggestion {
	char vendor[9];
	char model[17];
	char revision[5];
	uint64_t flags;
	long long max_lun;
	struct suggest_evidence evidence[SUGGEST_EVIDENCE_MAX];
	size_t nevidence;
};

/**
 * quirk_suggest() - what an entry for the device should say
 * @t: the report of an investigation scan of the target
 *	(scan_options.investigate)
 * @ret: the proposal
 *
 * Rules: every other LUN a ghost of the LUN the target was reached through:
 * nolun; ghosts only above the distinct LUNs: max_lun; REPORT LUNS that
 * fails: noreportlun; REPORT LUNS that leaves out LUNs which answer:
 * noreportlun (and sparselun when they have gaps); a sequential scan with
 * gaps: sparselun; LUNs past 7 of a SCSI-2 target that are not ghosts:
 * largelun. Name conflicts, LUN 0 absent and identical INQUIRY data
 * without any identity are reported as evidence only.
 *
 * Return: 0, or -EINVAL if @t has no INQUIRY data (nothing to name the
 * device by).
 */
int quirk_suggest(const struct target_report *t, struct quirk_suggestion *ret);

/**
 * quirk_suggestion_proposes() - whether the proposal sets anything
 * @s: the proposal
 *
 * Return: true if it has flags or a max_lun.
 */
bool quirk_suggestion_proposes(const struct quirk_suggestion *s);

/**
 * quirk_suggestion_text() - the proposal as a quirks.d entry
 * @s: the proposal (quirk_suggestion_proposes())
 * @target: the H:C:T it came from, for the comment
 * @date: the day, e.g. "2026-12-04"
 * @ret: set to a malloc'ed text: a comment with every finding, then one
 *	device section whose reason quotes the evidence and the date
 *
 * Return: 0 or -ENOMEM.
 */
int quirk_suggestion_text(const struct quirk_suggestion *s, const char *target, const char *date,
			  char **ret);

#endif
