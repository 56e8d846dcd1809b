// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * identity.c - a LUN's identity from INQUIRY and VPD pages 0x80 and 0x83,
 * and the ghost-LUN judgement. No I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "identity.h"

void identity_reset(struct lun_identity *id)
{
	id->has_inquiry = false;
	id->inquiry_len = 0;
	id->has_serial = false;
	id->serial[0] = '\0';
	id->ndesignators = 0;
	memset(id->type_count, 0, sizeof(id->type_count));
	memset(id->type_digest, 0, sizeof(id->type_digest));
}

void identity_set_inquiry(struct lun_identity *id, const uint8_t *buf, size_t len)
{
	if (len > sizeof(id->inquiry))
		len = sizeof(id->inquiry);
	memcpy(id->inquiry, buf, len);
	id->inquiry_len = len;
	id->has_inquiry = len > 0;
}

int identity_set_vpd80(struct lun_identity *id, const uint8_t *page, size_t len)
{
	char serial[sizeof(id->serial)];

	if (len < 4 || (page[0] >> 5) != 0 ||
	    inquiry_unit_serial(page, len, serial, sizeof(serial)) < 0)
		return -EINVAL;
	memcpy(id->serial, serial, sizeof(serial));
	id->has_serial = true;
	return 0;
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A 64-bit finalizer (splitmix64's): summed over a set, hashes that differ
 * in few bits do not cancel out. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* @prefix at the head of @dst, its length returned: the prefixes are short
 * constants ("naa.", "vendor."), far below IDENTITY_TEXT_LEN. */
static size_t put_prefix(char *dst, const char *prefix)
{
	size_t n = strlen(prefix);

	memcpy(dst, prefix, n + 1);
	return n;
}

/* Two digits a byte by table: the scan names every designator of every
 * LUN it attaches, and a snprintf() per byte was a third of its own
 * instructions per LUN. */
static void hex(char *dst, size_t size, const char *prefix, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t used = put_prefix(dst, prefix);

	for (size_t i = 0; i < n && used + 3 <= size; i++) {
		dst[used++] = digits[p[i] >> 4];
		dst[used++] = digits[p[i] & 0xf];
	}
	if (used < size)
		dst[used] = '\0';
}

static void ascii(char *dst, size_t size, const char *prefix, const uint8_t *p, size_t n)
{
	size_t used = put_prefix(dst, prefix);

	for (size_t i = 0; i < n && used + 1 < size; i++)
		dst[used++] = p[i] >= 0x20 && p[i] <= 0x7e ? (char)p[i] : '.';
	dst[used < size ? used : size - 1] = '\0';
}

static void designator_text(struct designator *d, uint8_t code_set, const uint8_t *p, size_t n)
{
	switch (d->type) {
	case DESIGNATOR_NAA:
		hex(d->text, sizeof(d->text), "naa.", p, n);
		break;
	case DESIGNATOR_EUI64:
		hex(d->text, sizeof(d->text), "eui.", p, n);
		break;
	case DESIGNATOR_UUID:
		/* Two bytes (the locally-assigned bit, reserved), then the UUID. */
		hex(d->text, sizeof(d->text), "uuid.", n > 2 ? p + 2 : p, n > 2 ? n - 2 : n);
		break;
	case DESIGNATOR_T10:
		ascii(d->text, sizeof(d->text), "t10.", p, n);
		break;
	case DESIGNATOR_NAME:
		ascii(d->text, sizeof(d->text), "", p, strnlen((const char *)p, n));
		break;
	default:
		if (code_set == 2 || code_set == 3)
			ascii(d->text, sizeof(d->text), "vendor.", p, n);
		else
			hex(d->text, sizeof(d->text), "vendor.", p, n);
		break;
	}
}

bool designator_well_formed(uint8_t type, const uint8_t *p, size_t n)
{
	switch (type) {
	case DESIGNATOR_NAA:
		return n == 8 || n == 16;
	case DESIGNATOR_EUI64:
		return n == 8 || n == 12 || n == 16;
	case DESIGNATOR_UUID:
		return n == 18;
	case DESIGNATOR_NAME:
		return n >= 4 && p[0] != '\0';
	default:
		/* Not unique, so never what tells units apart on its own. */
		return true;
	}
}

int identity_set_vpd83(struct lun_identity *id, const uint8_t *page, size_t len)
{
	size_t end, off = 4;

	/* A qualifier other than 0 says no unit answers at this LUN: the page
	 * names nothing. */
	if (len < 4 || page[1] != 0x83 || (page[0] >> 5) != 0)
		return -EINVAL;
	end = 4 + ((size_t)page[2] << 8 | page[3]);
	if (end > len)
		end = len;
	id->ndesignators = 0;
	memset(id->type_count, 0, sizeof(id->type_count));
	memset(id->type_digest, 0, sizeof(id->type_digest));
	while (off + 4 <= end) {
		const uint8_t *dp = page + off;
		size_t n = dp[3];
		uint8_t code_set = dp[0] & 0x0f, assoc = (dp[1] >> 4) & 0x3, type = dp[1] & 0x0f;
		struct designator *d;
		uint8_t key[3];
		uint64_t hash;

		if (off + 4 + n > end)
			break;
		off += 4 + n;
		/* Target port and target device designators are the same for
		 * every LUN of a target; one that does not fit its own type
		 * names nothing. */
		if (assoc != 0 || !designator_well_formed(type, dp + 4, n))
			continue;
		key[0] = type;
		key[1] = code_set;
		key[2] = (uint8_t)n;
		hash = fnv1a(fnv1a(0xcbf29ce484222325ULL, key, sizeof(key)), dp + 4, n);
		id->type_count[type]++;
		id->type_digest[type] += mix(hash);
		if (id->ndesignators == IDENTITY_MAX_DESIGNATORS)
			continue;
		d = &id->designators[id->ndesignators++];
		d->type = type;
		d->len = (uint8_t)n;
		d->hash = hash;
		designator_text(d, code_set, dp + 4, n);
	}
	return 0;
}

bool designator_unique(uint8_t type)
{
	return type == DESIGNATOR_NAA || type == DESIGNATOR_EUI64 || type == DESIGNATOR_UUID ||
	       type == DESIGNATOR_NAME;
}

const char *ghost_verdict_name(enum ghost_verdict v)
{
	static const char *const names[] = {
		[GHOST_DISTINCT] = "distinct",
		[GHOST_UNKNOWN] = "unknown",
		[GHOST_SAME] = "same-unit",
		[GHOST_CONFLICT] = "name-conflict",
	};

	return (unsigned int)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

static void say(struct ghost_evidence *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Adds to @ev's words; NULL when only the verdict is asked. */
static void say(struct ghost_evidence *ev, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!ev)
		return;
	used = strlen(ev->text);
	if (used + 3 >= sizeof(ev->text))
		return;
	if (used) {
		memcpy(ev->text + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(ev->text + used, sizeof(ev->text) - used, fmt, ap);
	va_end(ap);
}

/* Whether @id reports a designator equal to @d (type, length and bytes). */
static bool has_designator(const struct lun_identity *id, const struct designator *d)
{
	for (size_t i = 0; i < id->ndesignators; i++)
		if (id->designators[i].type == d->type && id->designators[i].hash == d->hash &&
		    id->designators[i].len == d->len)
			return true;
	return false;
}

/* A designator of @id of type @type that @other does not report among those
 * it keeps whole, or NULL. */
static const struct designator *lacking(const struct lun_identity *id,
					const struct lun_identity *other, uint8_t type)
{
	for (size_t i = 0; i < id->ndesignators; i++)
		if (id->designators[i].type == type && !has_designator(other, &id->designators[i]))
			return &id->designators[i];
	return NULL;
}

static bool has_type(const struct lun_identity *id, uint8_t type)
{
	return id->type_count[type & 0xf] > 0;
}

/* Whether both report the same set of designators of @type, all of them. */
static bool same_set(const struct lun_identity *a, const struct lun_identity *b, uint8_t type)
{
	return a->type_count[type] == b->type_count[type] &&
	       a->type_digest[type] == b->type_digest[type];
}

bool identity_designators_differ(const struct lun_identity *a, const struct lun_identity *b)
{
	bool common = false;

	for (uint8_t type = 0; type < IDENTITY_DESIGNATOR_TYPES; type++) {
		if (!has_type(a, type) || !has_type(b, type))
			continue;
		common = true;
		if (same_set(a, b, type))
			return false;
	}
	return common;
}

static const char *type_name(uint8_t type)
{
	switch (type) {
	case DESIGNATOR_NAA:
		return "NAA";
	case DESIGNATOR_EUI64:
		return "EUI-64";
	case DESIGNATOR_UUID:
		return "UUID";
	case DESIGNATOR_T10:
		return "T10";
	case DESIGNATOR_NAME:
		return "SCSI name";
	default:
		return "vendor";
	}
}

/* The first designator of @type @id keeps, for the evidence. */
static const struct designator *first_of(const struct lun_identity *id, uint8_t type)
{
	for (size_t i = 0; i < id->ndesignators; i++)
		if (id->designators[i].type == type)
			return &id->designators[i];
	return NULL;
}

static void inquiry_words(const struct lun_identity *id, char *buf, size_t len)
{
	struct inquiry inq;

	if (inquiry_decode(id->inquiry, id->inquiry_len, &inq) < 0) {
		snprintf(buf, len, "(short)");
		return;
	}
	snprintf(buf, len, "'%s' '%s' '%s', type %u", inq.vendor, inq.model, inq.revision, inq.pdt);
}

/* The verdict and rule in @ret, the words in @words (@ret, or NULL for
 * none: the scan's watch asks only the verdict of each LUN). */
static void judge(const struct lun_identity *a, const struct lun_identity *b,
		  struct ghost_evidence *ret, struct ghost_evidence *words)
{
	bool unique_same = false, differs = false, weak_same = false, serial_same, serial_differs;
	char inq_words[96];

	if (!a->has_inquiry || !b->has_inquiry) {
		ret->verdict = GHOST_UNKNOWN;
		ret->rule = "no-identity";
		say(words, "no INQUIRY data to compare");
		return;
	}
	if (a->inquiry_len != b->inquiry_len || memcmp(a->inquiry, b->inquiry, a->inquiry_len)) {
		ret->verdict = GHOST_DISTINCT;
		ret->rule = "inquiry-differs";
		say(words, "INQUIRY data differs");
		return;
	}
	if (words) {
		inquiry_words(a, inq_words, sizeof(inq_words));
		say(words, "INQUIRY identical (%s)", inq_words);
	}
	/* Per designator type both report: the same set on both sides, or not. */
	for (uint8_t type = 0; type < IDENTITY_DESIGNATOR_TYPES; type++) {
		const struct designator *d, *x, *y;
		bool same;

		if (!has_type(a, type) || !has_type(b, type))
			continue;
		same = same_set(a, b, type);
		differs |= !same;
		unique_same |= same && designator_unique(type);
		weak_same |= same && type == DESIGNATOR_T10;
		if (!words)
			continue;
		d = first_of(a, type);
		if (same) {
			if (d)
				say(words, "VPD 0x83 %s identical", d->text);
			else
				say(words, "VPD 0x83 %s designators identical", type_name(type));
			continue;
		}
		x = lacking(a, b, type);
		y = lacking(b, a, type);
		if (d && (x || y))
			say(words, "VPD 0x83 %s differs from %s", (x ? x : d)->text,
			    (y ? y : d)->text);
		else
			say(words, "VPD 0x83 %s designators differ (%u against %u)",
			    type_name(type), a->type_count[type], b->type_count[type]);
	}
	serial_same = a->has_serial && b->has_serial && strcmp(a->serial, b->serial) == 0;
	serial_differs = (a->has_serial || b->has_serial) && !serial_same;
	if (serial_same)
		say(words, "VPD 0x80 serial '%s' identical", a->serial);
	else if (a->has_serial && b->has_serial)
		say(words, "VPD 0x80 serial '%s' differs from '%s'", a->serial, b->serial);
	else if (serial_differs)
		say(words, "VPD 0x80 serial reported by one LUN only");

	/* A name meant to be unique, shared by units that differ elsewhere. */
	if (unique_same && (differs || serial_differs)) {
		ret->verdict = GHOST_CONFLICT;
		ret->rule = "name-conflict";
		return;
	}
	if (differs || serial_differs) {
		ret->verdict = GHOST_DISTINCT;
		ret->rule = differs ? "designator-differs" : "serial-differs";
		return;
	}
	if (unique_same || serial_same || weak_same) {
		ret->verdict = GHOST_SAME;
		ret->rule = "all-identical";
		return;
	}
	ret->verdict = GHOST_UNKNOWN;
	ret->rule = "no-identity";
	say(words, "no serial or designator to tell the units apart");
}

void ghost_judge(const struct lun_identity *a, const struct lun_identity *b,
		 struct ghost_evidence *ret)
{
	memset(ret, 0, sizeof(*ret));
	judge(a, b, ret, ret);
}

enum ghost_verdict ghost_verdict(const struct lun_identity *a, const struct lun_identity *b)
{
	struct ghost_evidence v;

	v.text[0] = '\0';
	judge(a, b, &v, NULL);
	return v.verdict;
}

/* The text of @id's first designator of a unique type both report. */
static const struct designator *first_unique(const struct lun_identity *id,
					     const struct lun_identity *other)
{
	for (size_t i = 0; i < id->ndesignators; i++)
		if (designator_unique(id->designators[i].type) &&
		    has_type(other, id->designators[i].type))
			return &id->designators[i];
	return NULL;
}

bool identity_inquiry_readable(const uint8_t *buf, size_t len)
{
	struct inquiry inq;

	if (len < INQUIRY_MIN_LEN || inquiry_decode(buf, len, &inq) < 0)
		return false;
	if (inq.pq != 0 || inq.pdt == 0x1f)
		return false;
	return inq.vendor[0] && inq.model[0];
}

enum remap_verdict remap_judge(const struct lun_identity *was, const struct lun_identity *now,
			       char *what, size_t len)
{
	bool common = false;
	struct inquiry a, b;

	what[0] = '\0';
	for (uint8_t type = 0; type < IDENTITY_DESIGNATOR_TYPES; type++) {
		if (!designator_unique(type) || !has_type(was, type) || !has_type(now, type))
			continue;
		common = true;
		if (same_set(was, now, type)) {
			snprintf(what, len, "VPD 0x83 %s designators identical", type_name(type));
			return REMAP_SAME;
		}
	}
	if (common) {
		const struct designator *x = first_unique(was, now), *y = first_unique(now, was);

		snprintf(what, len, "VPD 0x83 %s became %s", x ? x->text : "?", y ? y->text : "?");
		return REMAP_CHANGED;
	}
	if (was->has_serial && now->has_serial) {
		if (strcmp(was->serial, now->serial) == 0) {
			snprintf(what, len, "VPD 0x80 serial '%s' identical", was->serial);
			return REMAP_SAME;
		}
		snprintf(what, len, "VPD 0x80 serial '%s' became '%s'", was->serial, now->serial);
		return REMAP_CHANGED;
	}
	if (was->has_inquiry && now->has_inquiry &&
	    (!identity_inquiry_readable(was->inquiry, was->inquiry_len) ||
	     !identity_inquiry_readable(now->inquiry, now->inquiry_len))) {
		snprintf(what, len,
			 "INQUIRY of %zu byte(s) against %zu that names no unit (short, blank, or "
			 "no unit at the LUN): could not be read",
			 was->inquiry_len, now->inquiry_len);
		return REMAP_UNKNOWN;
	}
	if (was->has_inquiry && now->has_inquiry &&
	    inquiry_decode(was->inquiry, was->inquiry_len, &a) == 0 &&
	    inquiry_decode(now->inquiry, now->inquiry_len, &b) == 0) {
		if (strcmp(a.vendor, b.vendor) || strcmp(a.model, b.model) || a.pdt != b.pdt) {
			snprintf(what, len, "INQUIRY '%s' '%s' type %u became '%s' '%s' type %u",
				 a.vendor, a.model, a.pdt, b.vendor, b.model, b.pdt);
			return REMAP_CHANGED;
		}
		snprintf(what, len,
			 "INQUIRY '%s' '%s' identical, and no serial or unique designator on both "
			 "sides",
			 a.vendor, a.model);
		return REMAP_UNKNOWN;
	}
	snprintf(what, len, "no identity to compare");
	return REMAP_UNKNOWN;
}

void identity_name(const struct lun_identity *id, char *buf, size_t len)
{
	struct inquiry inq;

	for (size_t i = 0; i < id->ndesignators; i++)
		if (designator_unique(id->designators[i].type)) {
			snprintf(buf, len, "%s", id->designators[i].text);
			return;
		}
	if (id->has_serial)
		snprintf(buf, len, "serial '%s'", id->serial);
	else if (id->has_inquiry && inquiry_decode(id->inquiry, id->inquiry_len, &inq) == 0)
		snprintf(buf, len, "'%s' '%s'", inq.vendor, inq.model);
	else
		snprintf(buf, len, "-");
}
