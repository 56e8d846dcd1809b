// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-identity.c - a LUN's identity from INQUIRY and VPD pages 0x80 and
 * 0x83, and the ghost-LUN judgement, on layouts captured from the real
 * kernel (tests/data/vpd-captures.txt) and on made-up broken ones.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "idrecord.h"

/* Reads one LUN's captured pages into an identity, over what it holds. */
static void captured_over(const char *tag, const char *hctl, struct lun_identity *id)
{
	char path[4096], line[2048], t[64], h[64], attr[64], hex[1600];
	const char *dir = getenv("TEST_DATA_DIR");
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/vpd-captures.txt", dir ? dir : "tests/data");
	f = fopen(path, "r");
	ck_assert_msg(f, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		uint8_t buf[800];
		size_t n = 0;

		if (line[0] == '#' || sscanf(line, "%63s %63s %63s %1599s", t, h, attr, hex) != 4 ||
		    strcmp(t, tag) || strcmp(h, hctl))
			continue;
		for (; hex[2 * n] && hex[2 * n + 1] && n < sizeof(buf); n++)
			sscanf(hex + 2 * n, "%2hhx", &buf[n]);
		found = true;
		if (strcmp(attr, "inquiry") == 0)
			identity_set_inquiry(id, buf, n);
		else if (strcmp(attr, "vpd_pg80") == 0)
			ck_assert_int_eq(identity_set_vpd80(id, buf, n), 0);
		else if (strcmp(attr, "vpd_pg83") == 0)
			ck_assert_int_eq(identity_set_vpd83(id, buf, n), 0);
	}
	fclose(f);
	ck_assert_msg(found, "no capture %s %s", tag, hctl);
}

/* Reads one LUN's captured pages into a zeroed identity. */
static void captured(const char *tag, const char *hctl, struct lun_identity *id)
{
	memset(id, 0, sizeof(*id));
	captured_over(tag, hctl, id);
}

static const struct judge_case {
	const char *what;
	const char *tag_a, *lun_a, *tag_b, *lun_b;
	enum ghost_verdict verdict;
	const char *rule;
	const char *evidence;
	/* VPD 0x83 alone decides (identity_designators_differ()); QEMU's
	 * T10 designator is the same for LUNs of one serial, so it does not */
	bool designators_decide;
} judge_cases[] = {
	{ "QEMU: one serial and one wwn on LUNs 0 and 1", "qemu-0", "0:0:0:0", "qemu-0", "0:0:0:1",
	  GHOST_SAME, "all-identical", "VPD 0x83 naa.5000c500deadbe01 identical", false },
	{ "QEMU: one serial, two wwns (an array's shared serial)", "qemu-0", "0:0:1:0", "qemu-0",
	  "0:0:1:1", GHOST_DISTINCT, "designator-differs",
	  "naa.5000c500deadbe10 differs from naa.5000c500deadbe11", false },
	{ "QEMU: neither serial nor wwn", "qemu-0", "0:0:2:0", "qemu-0", "0:0:2:1", GHOST_UNKNOWN,
	  "no-identity", "no serial or designator", false },
	{ "scsi_debug: NAA per LUN", "sd-default", "1:0:0:0", "sd-default", "1:0:0:1",
	  GHOST_DISTINCT, "designator-differs", "VPD 0x80 serial '4000' differs from '4001'",
	  true },
	{ "scsi_debug uuid_ctl=1: a UUID per LUN", "sd-uuid1", "1:0:0:0", "sd-uuid1", "1:0:0:1",
	  GHOST_DISTINCT, "designator-differs", "uuid.", true },
	{ "scsi_debug uuid_ctl=2: one UUID, serials differ", "sd-uuid2", "1:0:0:0", "sd-uuid2",
	  "1:0:0:1", GHOST_CONFLICT, "name-conflict",
	  "VPD 0x83 uuid.cc6ee07de3c440ff8dfe68106bf48c98 identical", false },
	{ "scsi_debug SCSI-2: no VPD at all", "sd-scsi2", "1:0:0:0", "sd-scsi2", "1:0:0:1",
	  GHOST_UNKNOWN, "no-identity", "INQUIRY identical ('CHINON' 'CDROM' '0191', type 5)",
	  false },
	{ "different devices", "qemu-0", "0:0:0:0", "sd-default", "1:0:0:0", GHOST_DISTINCT,
	  "inquiry-differs", "INQUIRY data differs", true },
	{ "a LUN against itself", "sd-default", "1:0:0:1", "sd-default", "1:0:0:1", GHOST_SAME,
	  "all-identical", "VPD 0x83 naa.3333333000000fa1 identical", false },
};

START_TEST(judge_captured)
{
	const struct judge_case *c = &judge_cases[_i];
	struct lun_identity a, b, reused;
	struct ghost_evidence ev, ev_reused;

	captured(c->tag_a, c->lun_a, &a);
	captured(c->tag_b, c->lun_b, &b);
	ghost_judge(&a, &b, &ev);
	ck_assert_msg(ev.verdict == c->verdict, "%s: %s, expected %s (%s)", c->what,
		      ghost_verdict_name(ev.verdict), ghost_verdict_name(c->verdict), ev.text);
	/* The watch resets an identity that held another LUN's (every page
	 * of both, the scsi_debug SCSI-2 one's none) instead of zeroing it:
	 * the same judgement, in the same words. */
	captured(c->tag_a, c->lun_a, &reused);
	captured_over("qemu-0", "0:0:1:1", &reused);
	identity_reset(&reused);
	captured_over(c->tag_b, c->lun_b, &reused);
	ghost_judge(&a, &reused, &ev_reused);
	ck_assert_int_eq(ev_reused.verdict, ev.verdict);
	ck_assert_str_eq(ev_reused.text, ev.text);
	ck_assert_str_eq(ev.rule, c->rule);
	/* Without the words, the same verdict. */
	ck_assert_int_eq(ghost_verdict(&a, &b), c->verdict);
	ck_assert_int_eq(ghost_verdict(&b, &a), c->verdict);
	ck_assert_msg(strstr(ev.text, c->evidence), "%s: evidence '%s' lacks '%s'", c->what,
		      ev.text, c->evidence);
	/* The judgement does not depend on the order. */
	ghost_judge(&b, &a, &ev);
	ck_assert_int_eq(ev.verdict, c->verdict);
	/* Where VPD 0x83 alone decides, the scan reads nothing more: it must
	 * be the verdict the whole identity gives. */
	ck_assert_msg(identity_designators_differ(&a, &b) == c->designators_decide, "%s", c->what);
	ck_assert_int_eq(identity_designators_differ(&b, &a), c->designators_decide);
	if (c->designators_decide)
		ck_assert_int_eq(c->verdict, GHOST_DISTINCT);
}
END_TEST

START_TEST(vpd83_decoding)
{
	struct lun_identity id = { 0 };

	captured("sd-default", "1:0:0:0", &id);
	/* T10 vendor ID and NAA of the LU; target port, port group and
	 * target device designators are not kept. */
	ck_assert_uint_eq(id.ndesignators, 2);
	ck_assert_uint_eq(id.designators[0].type, DESIGNATOR_T10);
	ck_assert_str_eq(id.designators[0].text, "t10.Linux   scsi_debug      4000");
	ck_assert_uint_eq(id.designators[1].type, DESIGNATOR_NAA);
	ck_assert_str_eq(id.designators[1].text, "naa.3333333000000fa0");
	ck_assert(id.has_serial);
	ck_assert_str_eq(id.serial, "4000");
	ck_assert(designator_unique(DESIGNATOR_NAA));
	ck_assert(designator_unique(DESIGNATOR_UUID));
	ck_assert(!designator_unique(DESIGNATOR_T10));
	ck_assert(!designator_unique(DESIGNATOR_VENDOR));
}
END_TEST

START_TEST(vpd_pages_broken)
{
	/* A descriptor claims 8 bytes, the page ends after 4 of them. */
	static const uint8_t cut[] = { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03,
				       0x00, 0x08, 0x50, 0x00, 0xc5, 0x00 };
	/* The page length says 4, the buffer holds more: only 4 are read. */
	static const uint8_t lying[] = { 0x00, 0x83, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00, 0x01, 0x03,
					 0x00, 0x08, 1,	   2,	 3,    4,    5,	   6,	 7,    8 };
	/* Target port NAA (association 1) and an ASCII vendor-specific LU one. */
	static const uint8_t mixed[] = { 0x00, 0x83, 0x00, 0x13, 0x01, 0x13, 0x00, 0x08,
					 1,    2,    3,	   4,	 5,    6,    7,	   8,
					 0x02, 0x00, 0x00, 0x03, 'a',  'b',  'c' };
	static const uint8_t not83[] = { 0x00, 0x80, 0x00, 0x00 };
	static const uint8_t empty80[] = { 0x00, 0x80, 0x00, 0x00 };
	static const uint8_t blank80[] = { 0x00, 0x80, 0x00, 0x02, ' ', ' ' };
	struct lun_identity id = { 0 };

	ck_assert_int_eq(identity_set_vpd83(&id, cut, sizeof(cut)), 0);
	ck_assert_uint_eq(id.ndesignators, 0);
	ck_assert_int_eq(identity_set_vpd83(&id, lying, sizeof(lying)), 0);
	ck_assert_uint_eq(id.ndesignators, 1);
	ck_assert_uint_eq(id.designators[0].len, 0);
	ck_assert_int_eq(identity_set_vpd83(&id, mixed, sizeof(mixed)), 0);
	ck_assert_uint_eq(id.ndesignators, 1);
	ck_assert_str_eq(id.designators[0].text, "vendor.abc");
	ck_assert_int_eq(identity_set_vpd83(&id, not83, sizeof(not83)), -EINVAL);
	ck_assert_int_eq(identity_set_vpd83(&id, not83, 2), -EINVAL);
	ck_assert_int_eq(identity_set_vpd80(&id, empty80, sizeof(empty80)), -EINVAL);
	ck_assert_int_eq(identity_set_vpd80(&id, blank80, sizeof(blank80)), -EINVAL);
	ck_assert(!id.has_serial);
}
END_TEST

START_TEST(designator_sets)
{
	/* Found by fuzz-identity: b reports one more vendor designator of the
	 * same type; the verdict was DISTINCT one way and SAME the other. */
	static const uint8_t extra[] = { 0x00, 0x83, 0x00, 0x1d, 0x02, 0x00, 0x00, 0x09, 'G',
					 'H',  'O',  'S',  'T',	 '0',  '0',  '0',  '1',	 0x00,
					 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x08, 0x50, 0x00,
					 0xc5, 0x00, 0xde, 0xad, 0xbe, 0x01 };
	struct lun_identity a, b;
	struct ghost_evidence ab, ba;

	captured("qemu-0", "0:0:0:0", &a);
	captured("qemu-0", "0:0:0:1", &b);
	ck_assert_int_eq(identity_set_vpd83(&b, extra, sizeof(extra)), 0);
	ck_assert_uint_eq(b.ndesignators, 3);
	ghost_judge(&a, &b, &ab);
	ghost_judge(&b, &a, &ba);
	ck_assert_int_eq(ab.verdict, ba.verdict);
	ck_assert_int_eq(ab.verdict, GHOST_CONFLICT);
	ck_assert_int_eq(ghost_verdict(&a, &b), GHOST_CONFLICT);
}
END_TEST

/* A VPD 0x83 page of @nvendor vendor-specific LU designators "vNNN" and,
 * last, an NAA designator ending in @naa_last. Return: its length. */
static size_t page_with_naa_last(uint8_t *p, unsigned int nvendor, uint8_t naa_last)
{
	size_t off = 4;

	for (unsigned int i = 0; i < nvendor; i++) {
		p[off++] = 0x02;
		p[off++] = 0x00;
		p[off++] = 0x00;
		p[off++] = 4;
		off += (size_t)sprintf((char *)p + off, "v%03u", i % 1000);
	}
	p[off++] = 0x01;
	p[off++] = 0x03;
	p[off++] = 0x00;
	p[off++] = 8;
	memcpy(p + off, "\x60\x01\x40\x50\x00\x00\x00", 7);
	p[off + 7] = naa_last;
	off += 8;
	p[0] = 0x00;
	p[1] = 0x83;
	p[2] = (uint8_t)((off - 4) >> 8);
	p[3] = (uint8_t)(off - 4);
	return off;
}

/* A shared serial, and the NAA designators that tell two LUNs apart come
 * after more designators than are kept whole (8), and past the first 1,024
 * bytes of the page: the LUNs are still two units (once judged ghosts,
 * and detached). */
START_TEST(designator_past_those_kept)
{
	static const uint8_t pg80[] = { 0x00, 0x80, 0x00, 0x06, 'S', 'H', 'A', 'R', 'E', 'D' };
	static uint8_t pa[VPD_PAGE_MAX], pb[VPD_PAGE_MAX];
	struct lun_identity a, b;
	struct ghost_evidence ev;
	size_t la, lb;

	for (unsigned int n = 8; n <= 300; n += 292) {
		captured("qemu-0", "0:0:0:0", &a);
		b = a;
		ck_assert_int_eq(identity_set_vpd80(&a, pg80, sizeof(pg80)), 0);
		ck_assert_int_eq(identity_set_vpd80(&b, pg80, sizeof(pg80)), 0);
		la = page_with_naa_last(pa, n, 0x01);
		lb = page_with_naa_last(pb, n, 0x02);
		ck_assert(n < 300 || la > 1024);
		ck_assert_int_eq(identity_set_vpd83(&a, pa, la), 0);
		ck_assert_int_eq(identity_set_vpd83(&b, pb, lb), 0);
		ck_assert_uint_eq(a.ndesignators, IDENTITY_MAX_DESIGNATORS);
		ck_assert_uint_eq(a.type_count[DESIGNATOR_VENDOR], n);
		ck_assert_uint_eq(a.type_count[DESIGNATOR_NAA], 1);
		ghost_judge(&a, &b, &ev);
		ck_assert_msg(ev.verdict == GHOST_DISTINCT, "%u designators: %s (%s)", n, ev.rule,
			      ev.text);
		ck_assert_str_eq(ev.rule, "designator-differs");
		ck_assert(strstr(ev.text, "NAA designators differ"));
		ck_assert_int_eq(ghost_verdict(&a, &b), GHOST_DISTINCT);
		/* The vendor sets agree: VPD 0x83 alone does not decide. */
		ck_assert(!identity_designators_differ(&a, &b));
		/* The same page on both: one unit. */
		ck_assert_int_eq(identity_set_vpd83(&b, pa, la), 0);
		ghost_judge(&a, &b, &ev);
		ck_assert_int_eq(ev.verdict, GHOST_SAME);
	}
}
END_TEST

START_TEST(serial_on_one_side)
{
	struct lun_identity a, b;
	struct ghost_evidence ev;
	static const uint8_t pg80[] = { 0x00, 0x80, 0x00, 0x03, 'X', 'Y', 'Z' };

	captured("sd-scsi2", "1:0:0:0", &a);
	captured("sd-scsi2", "1:0:0:1", &b);
	ck_assert_int_eq(identity_set_vpd80(&b, pg80, sizeof(pg80)), 0);
	ghost_judge(&a, &b, &ev);
	ck_assert_int_eq(ev.verdict, GHOST_DISTINCT);
	ck_assert_str_eq(ev.rule, "serial-differs");
	ck_assert_int_eq(ghost_verdict(&a, &b), GHOST_DISTINCT);
	/* INQUIRY and serial identical, no designators: one unit. */
	ck_assert_int_eq(identity_set_vpd80(&a, pg80, sizeof(pg80)), 0);
	ghost_judge(&a, &b, &ev);
	ck_assert_int_eq(ev.verdict, GHOST_SAME);
	ck_assert(strstr(ev.text, "VPD 0x80 serial 'XYZ' identical"));
	/* Without INQUIRY data nothing is decided. */
	a.has_inquiry = false;
	ghost_judge(&a, &b, &ev);
	ck_assert_int_eq(ev.verdict, GHOST_UNKNOWN);
	ck_assert_int_eq(ghost_verdict(&a, &b), GHOST_UNKNOWN);
}
END_TEST

/*
 * A remapped LUN: the unit the kernel attached against what answers now.
 * Each side: "naa:N" an NAA designator ending in N, "t10" a T10 vendor ID
 * designator only, "ser:S" a serial, "inq:V/M/R" INQUIRY vendor, model
 * and revision; space-separated.
 */
static const struct remap_case {
	const char *what;
	const char *was;
	const char *now;
	enum remap_verdict verdict;
	const char *text;
} remap_cases[] = {
	{ "same NAA", "naa:1 ser:A inq:LIO/disk/4.0", "naa:1 ser:A inq:LIO/disk/4.0", REMAP_SAME,
	  "NAA designators identical" },
	{ "another NAA: another volume", "naa:1 ser:A inq:LIO/disk/4.0",
	  "naa:2 ser:B inq:LIO/disk/4.0", REMAP_CHANGED, "became" },
	{ "same NAA, new firmware revision", "naa:1 inq:LIO/disk/4.0", "naa:1 inq:LIO/disk/4.1",
	  REMAP_SAME, "identical" },
	{ "same NAA decides over a serial that changed format", "naa:1 ser:A", "naa:1 ser:a-1",
	  REMAP_SAME, "NAA" },
	{ "T10 vendor ID only: the serial decides", "t10 ser:A inq:X/Y/1", "t10 ser:B inq:X/Y/1",
	  REMAP_CHANGED, "VPD 0x80 serial 'A' became 'B'" },
	{ "no designator, same serial", "ser:A inq:X/Y/1", "ser:A inq:X/Y/1", REMAP_SAME,
	  "serial 'A' identical" },
	{ "no designator, no serial: vendor and model differ", "inq:X/Y/1", "inq:X/Z/1",
	  REMAP_CHANGED, "INQUIRY 'X' 'Y' type 0 became 'X' 'Z' type 0" },
	{ "no designator, no serial, same INQUIRY: cannot tell", "inq:X/Y/1", "inq:X/Y/2",
	  REMAP_UNKNOWN, "no serial or unique designator" },
	{ "NAA on one side only: the serial decides", "naa:1 ser:A", "ser:A", REMAP_SAME,
	  "serial" },
	{ "nothing on one side", "naa:1 ser:A inq:X/Y/1", "", REMAP_UNKNOWN, "no identity" },
	/* What could not be read is never another unit (the second audit:
	 * each of these deleted an unused LUN as remapped). */
	{ "an INQUIRY of 5 bytes", "inq:X/Y/1", "short:5", REMAP_UNKNOWN, "could not be read" },
	{ "an INQUIRY of 35 bytes", "inq:X/Y/1", "short:35", REMAP_UNKNOWN, "could not be read" },
	{ "a blank vendor and model", "inq:X/Y/1", "blank", REMAP_UNKNOWN, "could not be read" },
	{ "NUL vendor and model", "inq:X/Y/1", "nul", REMAP_UNKNOWN, "could not be read" },
	{ "qualifier 1: no unit at the LUN now", "inq:X/Y/1", "pq:1", REMAP_UNKNOWN,
	  "could not be read" },
	{ "qualifier 3, type 0x1f", "inq:X/Y/1", "pq:3", REMAP_UNKNOWN, "could not be read" },
	{ "type 0x1f alone", "inq:X/Y/1", "pdt:31", REMAP_UNKNOWN, "could not be read" },
	{ "a short INQUIRY on the recorded side", "short:20", "inq:X/Z/1", REMAP_UNKNOWN,
	  "could not be read" },
	{ "an NAA of 0 bytes, the INQUIRY the same", "naa:1 inq:X/Y/1", "naa0 inq:X/Y/1",
	  REMAP_UNKNOWN, "no serial or unique designator" },
	{ "an NAA of 2 bytes, the INQUIRY the same", "naa:1 inq:X/Y/1", "naa2 inq:X/Y/1",
	  REMAP_UNKNOWN, "no serial or unique designator" },
	{ "page 0x83 says no unit here, the serial the same", "naa:1 ser:A", "naa-pq:1 ser:A",
	  REMAP_SAME, "serial 'A' identical" },
	{ "page 0x83 says no unit here, nothing else", "naa:1", "naa-pq:3", REMAP_UNKNOWN,
	  "no identity" },
	{ "page 0x80 says no unit here", "ser:A inq:X/Y/1", "ser-pq:1 inq:X/Y/1", REMAP_UNKNOWN,
	  "no serial" },
	{ "a target-port NAA that differs is not the unit's", "naa:1 inq:X/Y/1",
	  "naa:1 port-naa:9 inq:X/Y/1", REMAP_SAME, "NAA designators identical" },
};

static void make_identity(const char *spec, struct lun_identity *id)
{
	char words[128], *save = NULL;

	memset(id, 0, sizeof(*id));
	snprintf(words, sizeof(words), "%s", spec);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		uint8_t p[64] = { 0x00, 0x83, 0x00, 0x0c, 0x01, 0x03, 0x00, 0x08,
				  0x60, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x00 };
		uint8_t inq[36] = { 0x00, 0x00, 0x05, 0x02, 31 };
		char v[16], m[24], r[8];

		if (strncmp(w, "naa:", 4) == 0) {
			p[15] = (uint8_t)atoi(w + 4);
			ck_assert_int_eq(identity_set_vpd83(id, p, 16), 0);
		} else if (strcmp(w, "t10") == 0) {
			static const uint8_t t10[] = { 0x00, 0x83, 0x00, 0x0c, 0x02, 0x01,
						       0x00, 0x08, 'V',	 'E',  'N',  'D',
						       'O',  'R',  ' ',	 ' ' };

			ck_assert_int_eq(identity_set_vpd83(id, t10, sizeof(t10)), 0);
		} else if (strncmp(w, "ser:", 4) == 0) {
			size_t n = strlen(w + 4);

			p[1] = 0x80;
			p[3] = (uint8_t)n;
			memcpy(p + 4, w + 4, n);
			ck_assert_int_eq(identity_set_vpd80(id, p, 4 + n), 0);
		} else if (strcmp(w, "naa0") == 0 || strcmp(w, "naa2") == 0) {
			size_t n = w[3] - '0';

			p[3] = (uint8_t)(4 + n);
			p[7] = (uint8_t)n;
			ck_assert_int_eq(identity_set_vpd83(id, p, 8 + n), 0);
		} else if (strncmp(w, "naa-pq:", 7) == 0) {
			p[0] = (uint8_t)(atoi(w + 7) << 5);
			ck_assert_int_eq(identity_set_vpd83(id, p, 16), -EINVAL);
		} else if (strncmp(w, "port-naa:", 9) == 0) {
			uint8_t two[28] = { 0x00, 0x83, 0x00, 0x18, 0x01, 0x03, 0x00, 0x08, 0x60,
					    0x01, 0x40, 0x50, 0x00, 0x00, 0x00, 0x01, 0x01, 0x13,
					    0x00, 0x08, 0x60, 0x01, 0x40, 0x50, 0x00, 0x00, 0x00 };

			two[27] = (uint8_t)atoi(w + 9);
			ck_assert_int_eq(identity_set_vpd83(id, two, sizeof(two)), 0);
		} else if (strncmp(w, "ser-pq:", 7) == 0) {
			p[0] = (uint8_t)(atoi(w + 7) << 5);
			p[1] = 0x80;
			p[3] = 1;
			p[4] = 'A';
			ck_assert_int_eq(identity_set_vpd80(id, p, 5), -EINVAL);
		} else if (strncmp(w, "short:", 6) == 0) {
			memset(inq + 8, ' ', 28);
			memcpy(inq + 8, "X       Z", 9);
			identity_set_inquiry(id, inq, (size_t)atoi(w + 6));
		} else if (strcmp(w, "blank") == 0 || strcmp(w, "nul") == 0) {
			memset(inq + 8, w[0] == 'b' ? ' ' : '\0', 24);
			memcpy(inq + 32, "1   ", 4);
			identity_set_inquiry(id, inq, sizeof(inq));
		} else if (strncmp(w, "pq:", 3) == 0 || strncmp(w, "pdt:", 4) == 0) {
			memset(inq + 8, ' ', 28);
			memcpy(inq + 8, "X       Z", 9);
			inq[0] = w[1] == 'q'
					 ? (uint8_t)(atoi(w + 3) << 5 | (w[3] == '3' ? 0x1f : 0))
					 : (uint8_t)atoi(w + 4);
			identity_set_inquiry(id, inq, sizeof(inq));
		} else if (sscanf(w, "inq:%15[^/]/%23[^/]/%7s", v, m, r) == 3) {
			memset(inq + 8, ' ', 28);
			memcpy(inq + 8, v, strlen(v));
			memcpy(inq + 16, m, strlen(m));
			memcpy(inq + 32, r, strlen(r));
			identity_set_inquiry(id, inq, sizeof(inq));
		} else {
			ck_abort_msg("bad word %s", w);
		}
	}
}

START_TEST(remap_rows)
{
	const struct remap_case *c = &remap_cases[_i];
	struct lun_identity was, now;
	char what[IDENTITY_EVIDENCE_LEN];
	enum remap_verdict v;

	make_identity(c->was, &was);
	make_identity(c->now, &now);
	v = remap_judge(&was, &now, what, sizeof(what));
	ck_assert_msg(v == c->verdict, "%s: %d, expected %d (%s)", c->what, v, c->verdict, what);
	ck_assert_msg(strstr(what, c->text), "%s: '%s' lacks '%s'", c->what, what, c->text);
}
END_TEST

/* The identity record's text: what this program writes reads back; all
 * else is refused (the record is then rebuilt, never trusted). */
static const struct record_row {
	const char *text;
	int ret;
} record_rows[] = {
	{ "instance=7\ninquiry=0102\nvpd80=\nvpd83=00830004\n", 0 },
	{ "vpd83=\nvpd80=\ninquiry=\ninstance=0\n", 0 },
	{ "instance=7\ninquiry=0102\nvpd80=\n", -EINVAL },
	{ "instance=7\ninquiry=0102\nvpd80=\nvpd83=\ncolour=red\n", -EINVAL },
	{ "instance=7\ninquiry=012\nvpd80=\nvpd83=\n", -EINVAL },
	{ "instance=7\ninquiry=01G2\nvpd80=\nvpd83=\n", -EINVAL },
	{ "instance=7\ninquiry=01AB\nvpd80=\nvpd83=\n", -EINVAL },
	{ "instance=x\ninquiry=\nvpd80=\nvpd83=\n", -EINVAL },
	{ "instance=\ninquiry=\nvpd80=\nvpd83=\n", -EINVAL },
	{ "instance=7\ninquiry=\nvpd80=\nvpd83=", -EINVAL },
	{ "instance=7\ninstance=8\ninquiry=\nvpd80=\nvpd83=\n", -EINVAL },
	{ "", -EINVAL },
};

START_TEST(record_text)
{
	const struct record_row *c = &record_rows[_i];
	static struct id_record r, back;
	static char text[ID_RECORD_TEXT_MAX];

	ck_assert_msg(id_record_parse(c->text, &r) == c->ret, "'%s'", c->text);
	if (c->ret)
		return;
	ck_assert_int_gt(id_record_format(&r, text, sizeof(text)), 0);
	ck_assert_int_eq(id_record_parse(text, &back), 0);
	ck_assert_uint_eq(back.instance, r.instance);
	ck_assert_uint_eq(back.inquiry_len, r.inquiry_len);
	ck_assert(!memcmp(back.vpd83, r.vpd83, r.vpd83_len));
}
END_TEST

START_TEST(record_pages_at_the_limit)
{
	static struct id_record r, back;
	static char text[ID_RECORD_TEXT_MAX];

	memset(&r, 0xab, sizeof(r));
	r.instance = UINT64_MAX;
	r.inquiry_len = r.vpd80_len = r.vpd83_len = ID_RECORD_PAGE_MAX;
	ck_assert_int_gt(id_record_format(&r, text, sizeof(text)), 0);
	ck_assert_int_eq(id_record_parse(text, &back), 0);
	ck_assert_uint_eq(back.instance, UINT64_MAX);
	ck_assert(!memcmp(back.vpd80, r.vpd80, ID_RECORD_PAGE_MAX));
	ck_assert_int_eq(id_record_format(&r, text, 100), -ENOSPC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("identity");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, judge_captured, 0, sizeof(judge_cases) / sizeof(judge_cases[0]));
	tcase_add_test(tc, vpd83_decoding);
	tcase_add_test(tc, vpd_pages_broken);
	tcase_add_test(tc, designator_sets);
	tcase_add_test(tc, designator_past_those_kept);
	tcase_add_test(tc, serial_on_one_side);
	tcase_add_loop_test(tc, remap_rows, 0, sizeof(remap_cases) / sizeof(remap_cases[0]));
	tcase_add_loop_test(tc, record_text, 0, sizeof(record_rows) / sizeof(record_rows[0]));
	tcase_add_test(tc, record_pages_at_the_limit);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
