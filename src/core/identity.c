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

	if (inquiry_unit_serial(page, len, serial, sizeof(serial)) < 0)
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

static void hex(char *dst, size_t size, const char *prefix, const uint8_t *p, size_t n)
{
	size_t used = (size_t)snprintf(dst, size, "%s", prefix);

	for (size_t i = 0; i < n && used + 3 <= size; i++)
		used += (size_t)snprintf(dst + used, size - used, "%02x", p[i]);
}

static void ascii(char *dst, size_t size, const char *prefix, const uint8_t *p, size_t n)
{
	size_t used = (size_t)snprintf(dst, size, "%s", prefix);

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

int identity_set_vpd83(struct lun_identity *id, const uint8_t *page, size_t len)
{
	size_t end, off = 4;

	if (len < 4 || page[1] != 0x83)
		return -EINVAL;
	end = 4 + ((size_t)page[2] << 8 | page[3]);
	if (end > len)
		end = len;
	id->ndesignators = 0;
	while (off + 4 <= end) {
		const uint8_t *dp = page + off;
		size_t n = dp[3];
		uint8_t code_set = dp[0] & 0x0f, assoc = (dp[1] >> 4) & 0x3;
		struct designator *d;
		uint8_t key[2];

		if (off + 4 + n > end)
			break;
		off += 4 + n;
		if (assoc != 0 || id->ndesignators == IDENTITY_MAX_DESIGNATORS)
			continue;
		d = &id->designators[id->ndesignators++];
		d->type = dp[1] & 0x0f;
		d->len = (uint8_t)n;
		key[0] = d->type;
		key[1] = code_set;
		d->hash = fnv1a(fnv1a(0xcbf29ce484222325ULL, key, sizeof(key)), dp + 4, n);
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

static void say(struct ghost_evidence *ev, const char *fmt, ...)
{
	size_t used = strlen(ev->text);
	va_list ap;

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

/* A designator of @id of type @type that @other does not report, or NULL. */
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
	for (size_t i = 0; i < id->ndesignators; i++)
		if (id->designators[i].type == type)
			return true;
	return false;
}

bool identity_designators_differ(const struct lun_identity *a, const struct lun_identity *b)
{
	bool common = false;

	for (size_t i = 0; i < a->ndesignators; i++) {
		uint8_t type = a->designators[i].type;

		if (!has_type(b, type))
			continue;
		common = true;
		if (!lacking(a, b, type) && !lacking(b, a, type))
			return false;
	}
	return common;
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

void ghost_judge(const struct lun_identity *a, const struct lun_identity *b,
		 struct ghost_evidence *ret)
{
	bool unique_same = false, differs = false, weak_same = false, serial_same, serial_differs;
	char words[96];

	memset(ret, 0, sizeof(*ret));
	if (!a->has_inquiry || !b->has_inquiry) {
		ret->verdict = GHOST_UNKNOWN;
		ret->rule = "no-identity";
		say(ret, "no INQUIRY data to compare");
		return;
	}
	inquiry_words(a, words, sizeof(words));
	if (a->inquiry_len != b->inquiry_len || memcmp(a->inquiry, b->inquiry, a->inquiry_len)) {
		ret->verdict = GHOST_DISTINCT;
		ret->rule = "inquiry-differs";
		say(ret, "INQUIRY data differs");
		return;
	}
	say(ret, "INQUIRY identical (%s)", words);
	/* Per designator type both report: the same set on both sides, or not. */
	for (size_t i = 0; i < a->ndesignators; i++) {
		const struct designator *d = &a->designators[i], *x, *y;
		bool first = true;

		for (size_t k = 0; k < i; k++)
			first &= a->designators[k].type != d->type;
		if (!first || !has_type(b, d->type))
			continue;
		x = lacking(a, b, d->type);
		y = lacking(b, a, d->type);
		if (x || y) {
			differs = true;
			say(ret, "VPD 0x83 %s differs from %s", (x ? x : d)->text,
			    (y ? y : d)->text);
			continue;
		}
		unique_same |= designator_unique(d->type);
		weak_same |= d->type == DESIGNATOR_T10;
		say(ret, "VPD 0x83 %s identical", d->text);
	}
	serial_same = a->has_serial && b->has_serial && strcmp(a->serial, b->serial) == 0;
	serial_differs = (a->has_serial || b->has_serial) && !serial_same;
	if (serial_same)
		say(ret, "VPD 0x80 serial '%s' identical", a->serial);
	else if (a->has_serial && b->has_serial)
		say(ret, "VPD 0x80 serial '%s' differs from '%s'", a->serial, b->serial);
	else if (serial_differs)
		say(ret, "VPD 0x80 serial reported by one LUN only");

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
	say(ret, "no serial or designator to tell the units apart");
}
