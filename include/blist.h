/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blist.h - the kernel's BLIST_* device flags: bits, names and when they act.
 */
#ifndef SCSI_SCAN_BLIST_H
#define SCSI_SCAN_BLIST_H

#include <stddef.h>
#include <stdint.h>

#define BLIST_NOLUN (UINT64_C(1) << 0)
#define BLIST_FORCELUN (UINT64_C(1) << 1)
#define BLIST_BORKEN (UINT64_C(1) << 2)
#define BLIST_KEY (UINT64_C(1) << 3)
#define BLIST_SINGLELUN (UINT64_C(1) << 4)
#define BLIST_NOTQ (UINT64_C(1) << 5)
#define BLIST_SPARSELUN (UINT64_C(1) << 6)
#define BLIST_MAX5LUN (UINT64_C(1) << 7)
#define BLIST_ISROM (UINT64_C(1) << 8)
#define BLIST_LARGELUN (UINT64_C(1) << 9)
#define BLIST_INQUIRY_36 (UINT64_C(1) << 10)
#define BLIST_IGN_MEDIA_CHANGE (UINT64_C(1) << 11)
#define BLIST_NOSTARTONADD (UINT64_C(1) << 12)
#define BLIST_NO_VPD_SIZE (UINT64_C(1) << 13)
#define BLIST_REPORTLUN2 (UINT64_C(1) << 17)
#define BLIST_NOREPORTLUN (UINT64_C(1) << 18)
#define BLIST_NOT_LOCKABLE (UINT64_C(1) << 19)
#define BLIST_NO_ULD_ATTACH (UINT64_C(1) << 20)
#define BLIST_SELECT_NO_ATN (UINT64_C(1) << 21)
#define BLIST_RETRY_HWERROR (UINT64_C(1) << 22)
#define BLIST_MAX_512 (UINT64_C(1) << 23)
#define BLIST_NO_DIF (UINT64_C(1) << 25)
#define BLIST_SKIP_VPD_PAGES (UINT64_C(1) << 26)
#define BLIST_TRY_VPD_PAGES (UINT64_C(1) << 28)
#define BLIST_NO_RSOC (UINT64_C(1) << 29)
#define BLIST_MAX_1024 (UINT64_C(1) << 30)
#define BLIST_UNMAP_LIMIT_WS (UINT64_C(1) << 31)
#define BLIST_RETRY_ITF (UINT64_C(1) << 32)
#define BLIST_RETRY_ASC_C1 (UINT64_C(1) << 33)
#define BLIST_SKIP_IO_HINTS (UINT64_C(1) << 34)

/**
 * enum blist_when - where the kernel acts on a flag
 * @BLIST_WHEN_SCAN: only while scanning a target (this project's job once
 *	the kernel runs with scan=manual)
 * @BLIST_WHEN_RUNTIME: while the device is in use
 * @BLIST_WHEN_BOTH: at attach time and while in use
 */
enum blist_when {
	BLIST_WHEN_SCAN,
	BLIST_WHEN_RUNTIME,
	BLIST_WHEN_BOTH,
};

/**
 * struct blist_flag - one known flag
 * @name: lower-case name without the BLIST_ prefix, as in quirk files
 * @bit: the flag's value in the kernel's blist_flags_t
 * @when: where the kernel acts on it
 * @meaning: one line for people
 */
struct blist_flag {
	const char *name;
	uint64_t bit;
	enum blist_when when;
	const char *meaning;
};

/**
 * blist_flag_table() - the table of every known flag, in bit order
 * @ret_count: set to the number of entries
 *
 * Return: a static array of *@ret_count entries.
 */
const struct blist_flag *blist_flag_table(size_t *ret_count);

/**
 * blist_flag_by_name() - look a flag up by its quirk-file name
 * @name: lower-case name without prefix, e.g. "sparselun"
 *
 * Return: the flag, or NULL if no flag has that name.
 */
const struct blist_flag *blist_flag_by_name(const char *name);

/**
 * blist_known_mask() - every bit that names a flag
 *
 * Return: the OR of all bits in the table; bits outside it are rejected by
 * the kernel as "unsupported flags".
 */
uint64_t blist_known_mask(void);

/**
 * blist_kernel_mask() - the bits the kernel must still know under scan=manual
 *
 * Runtime and both-time flags, plus INQUIRY_36: the kernel itself sends the
 * INQUIRY of every LUN that user space asks it to attach.
 *
 * Return: the mask of those bits.
 */
uint64_t blist_kernel_mask(void);

/**
 * blist_flags_format() - write the names of the set bits
 * @flags: the flag word
 * @sep: separator between names, e.g. " " or ","
 * @buf: output buffer
 * @len: size of @buf
 *
 * Unknown bits are written as "bitN".
 *
 * Return: 0, or -ENOSPC if @buf is too small (it then holds a truncated,
 * NUL-terminated prefix).
 */
int blist_flags_format(uint64_t flags, const char *sep, char *buf, size_t len);

#endif
