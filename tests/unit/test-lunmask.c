// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-lunmask.c - LUN masking policy (lunmask.h): parsing of lunmask
 * sections, matching targets by address, the precedence of the rules and
 * the kernel command line. Table-driven.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunmask.h"
#include "quirks.h"

static struct quirk_db *load(const char *text, struct quirk_diags *diags)
{
	struct quirk_db *db = quirk_db_new();

	ck_assert_ptr_nonnull(db);
	if (quirk_db_add_buffer(db, "policy.conf", text, strlen(text), diags) < 0) {
		quirk_db_free(db);
		return NULL;
	}
	ck_assert_int_eq(quirk_db_finalize(db, diags), 0);
	return db;
}

static const char policy[] = "# an FC array port: LUNs 0, 12 and 20-29 only\n"
			     "lunmask \"array-a\" {\n"
			     "\tport_name = \"50:05:07:68:0B:21:56:60\"\n"
			     "\tluns = { 0, 12, 20-29 }\n"
			     "}\n"
			     "lunmask \"array-a via hba 2 only\" {\n"
			     "\tport_name = \"0x500507680b215661\"\n"
			     "\thost_port_name = \"0x10000090fa1c2d3e\"\n"
			     "\tluns = { 1 }\n"
			     "}\n"
			     "lunmask \"no-lun-255\" {\n"
			     "\tiscsi_target = \"IQN.2003-01.org.linux-iscsi.tgt:disks\"\n"
			     "\texclude_luns = { 255 }\n"
			     "}\n"
			     "lunmask \"tpg 2\" {\n"
			     "\tiscsi_target = \"iqn.2003-01.org.linux-iscsi.tgt:disks\"\n"
			     "\tiscsi_tpgt = 2\n"
			     "\tluns = { 0-3 }\n"
			     "}\n"
			     "lunmask \"sas shelf\" {\n"
			     "\tsas_address = \"0x5000c500a1b2c3d4\"\n"
			     "\tluns = { 0 }\n"
			     "}\n"
			     "lunmask \"vm disk\" {\n"
			     "\tdriver = \"virtio_scsi\"\n"
			     "\tchannel = 0\n"
			     "\tid = 1\n"
			     "\tluns = { 0, 3 }\n"
			     "}\n"
			     "lunmask \"lpfc: nothing unless named\" {\n"
			     "\tdriver = \"lpfc\"\n"
			     "\tluns = {}\n"
			     "}\n"
			     "lunmask \"by identity\" {\n"
			     "\twwid = \"naa.600140512345678\"\n"
			     "\tluns = { 0-7 }\n"
			     "\texclude_luns = { 5 }\n"
			     "}\n";

struct decide_case {
	const char *name;
	struct lunmask_target t;
	uint64_t lun;
	bool allowed;
	enum lunmask_rule rule;
	const char *entry; /* title, or NULL */
};

#define FC(wwpn, hostwwpn) .driver = "qla2xxx", .port_name = wwpn, .host_port_name = hostwwpn

static const struct decide_case decide_cases[] = {
	{ "fc named",
	  { FC("0x500507680b215660", "0x21000024ff000001"), .iscsi_tpgt = -1 },
	  12,
	  true,
	  LUNMASK_NAMED,
	  "array-a" },
	{ "fc range",
	  { FC("0x500507680b215660", NULL), .iscsi_tpgt = -1 },
	  29,
	  true,
	  LUNMASK_NAMED,
	  "array-a" },
	{ "fc not named",
	  { FC("0x500507680b215660", NULL), .iscsi_tpgt = -1 },
	  13,
	  false,
	  LUNMASK_NOT_NAMED,
	  "array-a" },
	{ "fc upper case sysfs",
	  { FC("0x500507680B215660", NULL), .iscsi_tpgt = -1 },
	  0,
	  true,
	  LUNMASK_NAMED,
	  "array-a" },
	{ "fc other port",
	  { FC("0x500507680b215662", NULL), .iscsi_tpgt = -1 },
	  13,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "fc local port matches",
	  { FC("0x500507680b215661", "0x10000090fa1c2d3e"), .iscsi_tpgt = -1 },
	  1,
	  true,
	  LUNMASK_NAMED,
	  "array-a via hba 2 only" },
	{ "fc local port differs",
	  { FC("0x500507680b215661", "0x10000090fa1c2d3f"), .iscsi_tpgt = -1 },
	  2,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "fc local port unknown",
	  { FC("0x500507680b215661", NULL), .iscsi_tpgt = -1 },
	  2,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "iscsi exclusion",
	  { .driver = "iscsi_tcp",
	    .iscsi_target = "iqn.2003-01.org.linux-iscsi.tgt:disks",
	    .iscsi_tpgt = 1 },
	  255,
	  false,
	  LUNMASK_EXCLUDED,
	  "no-lun-255" },
	{ "iscsi name case",
	  { .driver = "iscsi_tcp",
	    .iscsi_target = "iqn.2003-01.ORG.linux-iscsi.tgt:disks",
	    .iscsi_tpgt = 1 },
	  254,
	  true,
	  LUNMASK_UNLISTED,
	  NULL },
	{ "iscsi tpgt 2 list",
	  { .driver = "iscsi_tcp",
	    .iscsi_target = "iqn.2003-01.org.linux-iscsi.tgt:disks",
	    .iscsi_tpgt = 2 },
	  4,
	  false,
	  LUNMASK_NOT_NAMED,
	  "tpg 2" },
	{ "exclusion beats a list",
	  { .driver = "iscsi_tcp",
	    .iscsi_target = "iqn.2003-01.org.linux-iscsi.tgt:disks",
	    .iscsi_tpgt = 2 },
	  255,
	  false,
	  LUNMASK_EXCLUDED,
	  "no-lun-255" },
	{ "sas",
	  { .driver = "mptsas", .sas_address = "0x5000c500a1b2c3d4", .iscsi_tpgt = -1 },
	  1,
	  false,
	  LUNMASK_NOT_NAMED,
	  "sas shelf" },
	{ "parallel named",
	  { .driver = "virtio_scsi", .channel = 0, .id = 1, .iscsi_tpgt = -1 },
	  3,
	  true,
	  LUNMASK_NAMED,
	  "vm disk" },
	{ "parallel other id",
	  { .driver = "virtio_scsi", .channel = 0, .id = 2, .iscsi_tpgt = -1 },
	  3,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "parallel other driver",
	  { .driver = "megaraid_sas", .channel = 0, .id = 1, .iscsi_tpgt = -1 },
	  3,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "host default none",
	  { FC("0x500507680b215699", NULL), .iscsi_tpgt = -1 },
	  0,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "host default none, lpfc",
	  { .driver = "lpfc", .port_name = "0x500507680b215699", .iscsi_tpgt = -1 },
	  0,
	  false,
	  LUNMASK_NOT_NAMED,
	  "lpfc: nothing unless named" },
	{ "host default none, named on lpfc",
	  { .driver = "lpfc", .port_name = "0x500507680b215660", .iscsi_tpgt = -1 },
	  20,
	  true,
	  LUNMASK_NAMED,
	  "array-a" },
	{ "identity unknown yet",
	  { .driver = "x", .iscsi_tpgt = -1 },
	  9,
	  true,
	  LUNMASK_NO_POLICY,
	  NULL },
	{ "identity known",
	  { .driver = "x", .wwid = "naa.600140512345678", .iscsi_tpgt = -1 },
	  9,
	  false,
	  LUNMASK_NOT_NAMED,
	  "by identity" },
	{ "identity exclusion",
	  { .driver = "x", .wwid = "naa.600140512345678", .iscsi_tpgt = -1 },
	  5,
	  false,
	  LUNMASK_EXCLUDED,
	  "by identity" },
};

START_TEST(test_decide)
{
	const struct decide_case *c = &decide_cases[_i];
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = load(policy, &diags);
	const struct lunmask_entry *masks;
	struct lunmask_set set;
	struct lunmask_verdict v;
	size_t n;

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(quirk_diags_count(&diags, QUIRK_ERROR), 0);
	masks = quirk_db_lunmasks(db, &n);
	ck_assert_uint_eq(n, 8);
	ck_assert_int_eq(lunmask_select(masks, n, &c->t, &set), 0);
	lunmask_decide(&set, c->lun, &v);
	ck_assert_msg(v.allowed == c->allowed, "%s: allowed %d", c->name, v.allowed);
	ck_assert_msg(v.rule == c->rule, "%s: rule %s, expected %s", c->name,
		      lunmask_rule_name(v.rule), lunmask_rule_name(c->rule));
	if (c->entry)
		ck_assert_str_eq(v.entry->title, c->entry);
	else
		ck_assert_ptr_null(v.entry);
	lunmask_set_clear(&set);
	quirk_db_free(db);
	quirk_diags_clear(&diags);
}
END_TEST

START_TEST(test_describe_names_file_and_line)
{
	struct quirk_db *db = load(policy, NULL);
	struct lunmask_target t = { .driver = "lpfc",
				    .port_name = "0x500507680b215660",
				    .iscsi_tpgt = -1 };
	const struct lunmask_entry *masks;
	struct lunmask_set set;
	struct lunmask_verdict v;
	char text[256];
	size_t n;

	masks = quirk_db_lunmasks(db, &n);
	ck_assert_int_eq(lunmask_select(masks, n, &t, &set), 0);
	lunmask_decide(&set, 13, &v);
	lunmask_describe(&v, 13, text, sizeof(text));
	ck_assert_str_eq(text, "not in the luns of lunmask 'array-a' (policy.conf:2)");
	ck_assert(lunmask_restricts(&set));
	lunmask_set_clear(&set);
	quirk_db_free(db);
}
END_TEST

struct next_case {
	const char *text;
	const char *want; /* the allowed LUNs in order, or "E2BIG" */
};

static const struct next_case next_cases[] = {
	{ "lunmask \"a\" { luns = { 12, 3-4 } }\n", "3 4 12" },
	{ "lunmask \"a\" { luns = { 0-3 } exclude_luns = { 0, 2 } }\n", "1 3" },
	{ "lunmask \"a\" { luns = { 5 } }\nlunmask \"b\" { luns = { 1, 5 } }\n", "1 5" },
	{ "lunmask \"a\" { luns = {} }\n", "" },
	{ "lunmask \"a\" { exclude_luns = { 0 } }\n", "E2BIG" },
	{ "lunmask \"a\" { luns = { 0-1000 } }\n", "E2BIG" },
	{ "lunmask \"a\" { luns = { 0x4000-0x40ff } }\n", "16384-16639" },
};

START_TEST(test_next_allowed)
{
	const struct next_case *c = &next_cases[_i];
	struct quirk_db *db = load(c->text, NULL);
	struct lunmask_target t = { .driver = "x", .iscsi_tpgt = -1 };
	const struct lunmask_entry *masks;
	struct lunmask_set set;
	char got[4096] = "";
	uint64_t lun = UINT64_MAX, first = 0;
	size_t n, count = 0;
	int r;

	ck_assert_ptr_nonnull(db);
	masks = quirk_db_lunmasks(db, &n);
	ck_assert_int_eq(lunmask_select(masks, n, &t, &set), 0);
	while ((r = lunmask_next_allowed(&set, lun, &lun)) == 1) {
		if (!count++)
			first = lun;
		if (strlen(got) < sizeof(got) - 32)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%llu",
				 *got ? " " : "", (unsigned long long)lun);
	}
	if (r == -E2BIG)
		snprintf(got, sizeof(got), "E2BIG");
	else if (strchr(c->want, '-'))
		snprintf(got, sizeof(got), "%llu-%llu", (unsigned long long)first,
			 (unsigned long long)lun);
	ck_assert_str_eq(got, c->want);
	lunmask_set_clear(&set);
	quirk_db_free(db);
}
END_TEST

struct bad_case {
	const char *text;
	const char *where; /* "file:line" */
	const char *message;
};

static const struct bad_case bad_cases[] = {
	{ "lunmask \"a\" {\n\tport_name = \"0x5005\"\n\tluns = { 0 }\n}\n", "2",
	  "not a 64-bit address" },
	{ "lunmask \"a\" {\n\tluns = { 0, 7-3 }\n}\n", "2", "'7-3' in 'luns' is not a LUN" },
	{ "lunmask \"a\" {\n\tluns = { x }\n}\n", "2", "is not a LUN" },
	{ "lunmask \"a\" {\n\texclude_luns = { 0x100000000000000 }\n}\n", "2", "is not a LUN" },
	{ "lunmask \"a\" {\n\tiscsi_tpgt = 70000\n\tluns = { 0 }\n}\n", "2",
	  "iscsi_tpgt 70000 is out of range" },
	{ "lunmask \"a\" {\n\tvendor = \"X\"\n}\n", "2", "no such option 'vendor'" },
	{ "\n\nlunmask \"a\" {\n\twwid = \"naa.1\"\n\tluns = { 1-3 }\n}\n", "5",
	  "cannot keep LUN 0 out" },
	{ "lunmask \"a\" { luns = { 1 } }\nlunmask \"a\" { luns = { 2 } }\n", "2",
	  "duplicate title 'a'" },
};

START_TEST(test_bad)
{
	const struct bad_case *c = &bad_cases[_i];
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = load(c->text, &diags);
	bool found = false;
	char where[32];

	ck_assert_ptr_null(db);
	for (size_t i = 0; i < diags.count; i++) {
		const struct quirk_diag *d = &diags.items[i];

		snprintf(where, sizeof(where), "%u", d->line);
		if (d->severity == QUIRK_ERROR && strcmp(where, c->where) == 0 &&
		    strstr(d->message, c->message))
			found = true;
	}
	ck_assert_msg(found, "no error '%s' at line %s (first: %u: %s)", c->message, c->where,
		      diags.count ? diags.items[0].line : 0,
		      diags.count ? diags.items[0].message : "none");
	quirk_diags_clear(&diags);
}
END_TEST

START_TEST(test_warnings)
{
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = load("lunmask \"a\" {\n\tchannel = 0\n\tid = 1\n\tluns = { 0 }\n}\n"
				   "lunmask \"b\" {\n\tdriver = \"x\"\n}\n",
				   &diags);

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(quirk_diags_count(&diags, QUIRK_WARNING), 2);
	ck_assert_uint_eq(diags.items[0].line, 1);
	ck_assert_ptr_nonnull(strstr(diags.items[0].message, "applies to that target of every"));
	ck_assert_uint_eq(diags.items[1].line, 6);
	ck_assert_ptr_nonnull(strstr(diags.items[1].message, "changes nothing"));
	quirk_db_free(db);
	quirk_diags_clear(&diags);
}
END_TEST

START_TEST(test_mixed_with_devices)
{
	static const char text[] = "device \"d1\" {\n\tvendor = \"A\"\n\tflags = { nolun }\n}\n"
				   "lunmask \"m1\" {\n\tdriver = \"x\"\n\tluns = { 0 }\n}\n"
				   "device \"d2\" {\n\tvendor = \"B\"\n\tmax_lun = 3\n}\n"
				   "lunmask \"m2\" {\n\tdriver = \"y\"\n\tluns = { 1 }\n}\n";
	struct quirk_db *db = load(text, NULL);
	const struct lunmask_entry *m;
	size_t n;

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(quirk_db_count(db), 2);
	ck_assert_uint_eq(quirk_db_entry(db, 1)->line, 9);
	m = quirk_db_lunmasks(db, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(m[0].title, "m1");
	ck_assert_uint_eq(m[0].line, 5);
	ck_assert_uint_eq(m[1].line, 13);
	ck_assert_str_eq(m[1].driver, "y");
	quirk_db_free(db);
}
END_TEST

struct range_case {
	const char *s;
	int r;
	uint64_t first, last;
};

static const struct range_case range_cases[] = {
	{ "0", 0, 0, 0 },
	{ "12", 0, 12, 12 },
	{ "20-29", 0, 20, 29 },
	{ "0x4000", 0, 0x4000, 0x4000 },
	{ "0xffffffffffffff", 0, LUNMASK_LUN_MAX, LUNMASK_LUN_MAX },
	{ "0x100000000000000", -EINVAL, 0, 0 },
	{ "3-2", -EINVAL, 0, 0 },
	{ "-1", -EINVAL, 0, 0 },
	{ "1-", -EINVAL, 0, 0 },
	{ "1 ", -EINVAL, 0, 0 },
	{ "", -EINVAL, 0, 0 },
};

START_TEST(test_range)
{
	const struct range_case *c = &range_cases[_i];
	struct lun_range r = { 0 };

	ck_assert_int_eq(lun_range_parse(c->s, &r), c->r);
	if (c->r == 0) {
		ck_assert_uint_eq(r.first, c->first);
		ck_assert_uint_eq(r.last, c->last);
	}
}
END_TEST

struct cmdline_case {
	const char *cmdline;
	int r;
	const char *contains; /* in the text, or in the error */
};

static const struct cmdline_case cmdline_cases[] = {
	{ "root=/dev/sda1 ro quiet", 0, NULL },
	{ "ro scsi_scan.lunmask=fc,0x500507680b215660,0+12 quiet", 0,
	  "\tport_name = \"0x500507680b215660\"\n\tluns = { \"0\", \"12\" }\n" },
	{ "scsi_scan.lunmask=sas,5000c500a1b2c3d4,0-3", 0,
	  "\tsas_address = \"5000c500a1b2c3d4\"\n\tluns = { \"0-3\" }\n" },
	{ "scsi_scan.lunmask=iscsi,iqn.2003-01.org.linux-iscsi.srv:root,0", 0,
	  "\tiscsi_target = \"iqn.2003-01.org.linux-iscsi.srv:root\"\n" },
	{ "scsi_scan.lunmask=scsi,virtio_scsi,0:1,0", 0,
	  "\tdriver = \"virtio_scsi\"\n\tchannel = 0\n\tid = 1\n\tluns = { \"0\" }\n" },
	{ "scsi_scan.lunmask=scsi,virtio_scsi,0:1,0 scsi_scan.lunmask=scsi,virtio_scsi,0:2,0", 0,
	  "lunmask \"kernel command line 2\"" },
	{ "scsi_scan.lunmask=fc,0x5005,0", -EINVAL, "16 hex digits" },
	{ "scsi_scan.lunmask=nvme,x,0", -EINVAL, "not fc, sas, iscsi or scsi" },
	{ "scsi_scan.lunmask=iscsi,iqn\"x,0", -EINVAL, "not an iSCSI name" },
	{ "scsi_scan.lunmask=scsi,virtio_scsi,0,0", -EINVAL, "CHANNEL:ID" },
	/* Found by fuzz-text: beyond what a quirk file's channel may hold. */
	{ "scsi_scan.lunmask=scsi,virtio_scsi,888888888888888880:1,0-7", -EINVAL, "CHANNEL:ID" },
	{ "scsi_scan.lunmask=scsi,virtio_scsi,0:4294967296,0", -EINVAL, "CHANNEL:ID" },
	{ "scsi_scan.lunmask=scsi,virtio_scsi,4294967295:4294967295,0", 0, "id = 4294967295" },
	{ "scsi_scan.lunmask=fc,0x500507680b215660,", -EINVAL, "an empty field" },
	{ "scsi_scan.lunmask=fc,0x500507680b215660,a", -EINVAL, "LUNS is N" },
	/* Empty fields and stray '+' were taken; quoted values, which the
	 * kernel's own parser takes, were refused. */
	{ "scsi_scan.lunmask=iscsi,,iqn.2003-01.x:y,0", -EINVAL, "an empty field" },
	{ "scsi_scan.lunmask=,iscsi,iqn.2003-01.x:y,0", -EINVAL, "an empty field" },
	{ "scsi_scan.lunmask=fc,0x500507680b215660,0++12", -EINVAL, "LUNS is N" },
	{ "scsi_scan.lunmask=fc,0x500507680b215660,+0", -EINVAL, "LUNS is N" },
	{ "scsi_scan.lunmask=fc,0x500507680b215660,0+", -EINVAL, "LUNS is N" },
	{ "ro scsi_scan.lunmask=\"iscsi,iqn.2003-01.x:y,0+3\" quiet", 0,
	  "\tiscsi_target = \"iqn.2003-01.x:y\"\n\tluns = { \"0\", \"3\" }\n" },
	{ "\"scsi_scan.lunmask=iscsi,iqn.2003-01.x:y,4\" quiet", 0, "\tluns = { \"4\" }\n" },
	{ "a=\"b c\" scsi_scan.lunmask=sas,5000c500a1b2c3d4,1 d", 0, "\tluns = { \"1\" }\n" },
	{ "x=\"scsi_scan.lunmask=sas,5000c500a1b2c3d4,1\"", 0, NULL },
	/* dracut's rd.lunmask=: fc or sas, one LUN as the kernel's scan file
	 * reads it (base 0), none or "-" for every LUN of the port. */
	{ "rd.lunmask=fc,0x500507680b215660,12", 0,
	  "\tport_name = \"0x500507680b215660\"\n\tluns = { \"12\" }\n" },
	{ "rd.lunmask=sas,0x5000c500a1b2c3d4,0x10", 0,
	  "\tsas_address = \"0x5000c500a1b2c3d4\"\n\tluns = { \"16\" }\n" },
	{ "rd.lunmask=fc,0x500507680b215660", 0, "\tluns = { \"0-72057594037927935\" }\n" },
	{ "rd.lunmask=fc,0x500507680b215660,-", 0, "\tluns = { \"0-72057594037927935\" }\n" },
	{ "rd.lunmask=fc,0x500507680b215660,1 scsi_scan.lunmask=iscsi,iqn.2003-01.x:y,0", 0,
	  "lunmask \"kernel command line 2\" {\n\tiscsi_target = \"iqn.2003-01.x:y\"" },
	{ "rd.lunmask=iscsi,iqn.2003-01.x:y,0", -EINVAL, "takes fc or sas" },
	{ "rd.lunmask=fc", -EINVAL, "fc,WWPN[,LUN]" },
	{ "rd.lunmask=fc,0x500507680b215660,1+2", -EINVAL, "names one LUN" },
	{ "rd.lunmask=fc,0x500507680b215660,1-2", -EINVAL, "names one LUN" },
	{ "rd.lunmask=fc,0x5005,1", -EINVAL, "16 hex digits" },
	{ "rd.lunmask=sas,0x5000c500a1b2c3d4,x", -EINVAL, "LUNS is N" },
};

START_TEST(test_cmdline)
{
	const struct cmdline_case *c = &cmdline_cases[_i];
	const char *error = NULL, *bad = NULL;
	char *text = NULL;
	int r;

	r = lunmask_cmdline_config(c->cmdline, &text, &error, &bad);
	ck_assert_int_eq(r, c->r);
	if (r < 0) {
		ck_assert_ptr_nonnull(strstr(error, c->contains));
		ck_assert_ptr_nonnull(bad);
		return;
	}
	if (!c->contains) {
		ck_assert_ptr_null(text);
		return;
	}
	ck_assert_msg(strstr(text, c->contains), "'%s' not in:\n%s", c->contains, text);
	ck_assert_ptr_nonnull(strstr(text, "nothing else"));
	/* The text is a quirk file that loads, and means what it says. */
	{
		struct quirk_diags diags = { 0 };
		struct quirk_db *db = load(text, &diags);

		ck_assert_ptr_nonnull(db);
		ck_assert_uint_eq(diags.count, 0);
		quirk_db_free(db);
	}
	free(text);
}
END_TEST

START_TEST(test_cmdline_policy)
{
	const char *error = NULL, *bad = NULL;
	struct lunmask_target root = {
		.driver = "virtio_scsi", .channel = 0, .id = 1, .iscsi_tpgt = -1
	};
	struct lunmask_target other = {
		.driver = "sym53c8xx", .channel = 0, .id = 1, .iscsi_tpgt = -1
	};
	const struct lunmask_entry *masks;
	struct lunmask_verdict v;
	struct lunmask_set set;
	struct quirk_db *db;
	char *text = NULL;
	size_t n;

	ck_assert_int_eq(lunmask_cmdline_config("scsi_scan.lunmask=scsi,virtio_scsi,0:1,0", &text,
						&error, &bad),
			 0);
	db = load(text, NULL);
	masks = quirk_db_lunmasks(db, &n);
	ck_assert_int_eq(lunmask_select(masks, n, &root, &set), 0);
	lunmask_decide(&set, 0, &v);
	ck_assert(v.allowed);
	lunmask_decide(&set, 1, &v);
	ck_assert(!v.allowed);
	lunmask_set_clear(&set);
	ck_assert_int_eq(lunmask_select(masks, n, &other, &set), 0);
	lunmask_decide(&set, 0, &v);
	ck_assert(!v.allowed);
	ck_assert_str_eq(v.entry->title, "kernel command line: nothing else");
	lunmask_set_clear(&set);
	quirk_db_free(db);
	free(text);
}
END_TEST

#define ISCSI_T(iqn, tpgt)                                                                         \
	{                                                                                          \
		.driver = "iscsi_tcp", .iscsi_target = iqn, .iscsi_tpgt = tpgt                     \
	}
#define FC_T(wwpn)                                                                                 \
	{                                                                                          \
		.driver = "qla2xxx", .port_name = wwpn, .iscsi_tpgt = -1                           \
	}
#define SAS_T(addr)                                                                                \
	{                                                                                          \
		.driver = "mpt3sas", .sas_address = addr, .iscsi_tpgt = -1                         \
	}
#define SCSI_T(drv, c, i)                                                                          \
	{                                                                                          \
		.driver = drv, .channel = c, .id = i, .iscsi_tpgt = -1                             \
	}

/*
 * The boot policy of a root file system's paths: the text, then what it
 * decides for each path (allowed), for another LUN of the first path's
 * target and for a target no path names (refused).
 */
struct boot_case {
	const char *what;
	struct lunmask_boot_path paths[4];
	size_t n;
	int r;
	const char *contains; /* the entries, or the error */
};

static const struct boot_case boot_cases[] = {
	{ "virtio-scsi disk",
	  { { SCSI_T("virtio_scsi", 0, 1), 0 } },
	  1,
	  0,
	  "lunmask \"root file system 1\" {\n\tdriver = \"virtio_scsi\"\n\tchannel = 0\n"
	  "\tid = 1\n\tluns = { \"0\" }\n}\nlunmask \"root file system: nothing else\"" },
	{ "multipath over two sessions of one IQN, spelled two ways: one entry, lower case",
	  { { ISCSI_T("IQN.2003-01.ORG.LINUX-ISCSI.T8", 2), 2 },
	    { ISCSI_T("iqn.2003-01.org.linux-iscsi.t8", 1), 2 } },
	  2,
	  0,
	  "lunmask \"root file system 1\" {\n\tiscsi_target = \"iqn.2003-01.org.linux-iscsi.t8\"\n"
	  "\tluns = { \"2\" }\n}\nlunmask \"root file system: nothing else\"" },
	{ "LVM over two LUNs of one FC port and one of another, given out of order",
	  { { FC_T("0x500507680b215661"), 7 },
	    { FC_T("0x500507680b215660"), 12 },
	    { FC_T("0x500507680b215660"), 3 },
	    { FC_T("0x500507680b215660"), 12 } },
	  4,
	  0,
	  "lunmask \"root file system 1\" {\n\tport_name = \"0x500507680b215660\"\n"
	  "\tluns = { \"3\", \"12\" }\n}\nlunmask \"root file system 2\" {\n"
	  "\tport_name = \"0x500507680b215661\"\n\tluns = { \"7\" }\n}\n" },
	{ "md mirror over SAS and a parallel SCSI disk",
	  { { SAS_T("0x5000c500a1b2c3d4"), 0 }, { SCSI_T("sym53c8xx", 0, 5), 0 } },
	  2,
	  0,
	  "lunmask \"root file system 1\" {\n\tsas_address = \"0x5000c500a1b2c3d4\"\n"
	  "\tluns = { \"0\" }\n}\nlunmask \"root file system 2\" {\n\tdriver = \"sym53c8xx\"\n"
	  "\tchannel = 0\n\tid = 5\n\tluns = { \"0\" }\n}\n" },
	{ "the same target id behind two drivers is two targets",
	  { { SCSI_T("virtio_scsi", 0, 1), 0 }, { SCSI_T("megaraid_sas", 0, 1), 0 } },
	  2,
	  0,
	  "\tdriver = \"megaraid_sas\"\n\tchannel = 0\n\tid = 1\n\tluns = { \"0\" }\n}\n"
	  "lunmask \"root file system 2\" {\n\tdriver = \"virtio_scsi\"" },
	{ "no path", { { SCSI_T("virtio_scsi", 0, 1), 0 } }, 0, -EINVAL, "no LUN" },
	{ "a path with nothing to name it by",
	  { { { .channel = 0, .id = 1, .iscsi_tpgt = -1 }, 0 } },
	  1,
	  -EINVAL,
	  "neither" },
};

START_TEST(test_boot_config)
{
	const struct boot_case *c = &boot_cases[_i];
	const struct lunmask_target stranger = SCSI_T("ahci_scsi", 9, 9);
	const struct lunmask_entry *masks;
	const char *error = NULL;
	struct lunmask_verdict v;
	struct lunmask_set set;
	struct quirk_diags diags = { 0 };
	struct quirk_db *db;
	char *text = NULL;
	size_t n;
	int r;

	r = lunmask_boot_config(c->paths, c->n, &text, &error);
	ck_assert_msg(r == c->r, "%s: %d", c->what, r);
	if (r < 0) {
		ck_assert_ptr_null(text);
		ck_assert_ptr_nonnull(strstr(error, c->contains));
		return;
	}
	ck_assert_msg(strstr(text, c->contains), "%s: '%s' not in:\n%s", c->what, c->contains,
		      text);
	db = load(text, &diags);
	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(diags.count, 0);
	masks = quirk_db_lunmasks(db, &n);
	for (size_t i = 0; i < c->n; i++) {
		ck_assert_int_eq(lunmask_select(masks, n, &c->paths[i].target, &set), 0);
		lunmask_decide(&set, c->paths[i].lun, &v);
		ck_assert_msg(v.allowed, "%s: path %zu refused", c->what, i);
		lunmask_set_clear(&set);
	}
	ck_assert_int_eq(lunmask_select(masks, n, &c->paths[0].target, &set), 0);
	lunmask_decide(&set, 1000, &v);
	ck_assert(!v.allowed);
	lunmask_set_clear(&set);
	ck_assert_int_eq(lunmask_select(masks, n, &stranger, &set), 0);
	lunmask_decide(&set, 0, &v);
	ck_assert(!v.allowed);
	ck_assert_str_eq(v.entry->title, "root file system: nothing else");
	lunmask_set_clear(&set);
	quirk_db_free(db);
	free(text);
}
END_TEST

START_TEST(test_boot_config_too_many_luns)
{
	struct lunmask_boot_path paths[17];
	const char *error = NULL;
	char *text = NULL;

	for (size_t i = 0; i < 17; i++)
		paths[i] = (struct lunmask_boot_path){ SCSI_T("virtio_scsi", 0, 1), i };
	ck_assert_int_eq(lunmask_boot_config(paths, 16, &text, &error), 0);
	free(text);
	ck_assert_int_eq(lunmask_boot_config(paths, 17, &text, &error), -E2BIG);
	ck_assert_ptr_null(text);
	ck_assert_ptr_nonnull(strstr(error, "16"));
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *lunmask_suite(void)
{
	Suite *s = suite_create("lunmask");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_decide, 0, N(decide_cases));
	tcase_add_test(tc, test_describe_names_file_and_line);
	tcase_add_loop_test(tc, test_next_allowed, 0, N(next_cases));
	tcase_add_loop_test(tc, test_bad, 0, N(bad_cases));
	tcase_add_test(tc, test_warnings);
	tcase_add_test(tc, test_mixed_with_devices);
	tcase_add_loop_test(tc, test_range, 0, N(range_cases));
	tcase_add_loop_test(tc, test_cmdline, 0, N(cmdline_cases));
	tcase_add_test(tc, test_cmdline_policy);
	tcase_add_loop_test(tc, test_boot_config, 0, N(boot_cases));
	tcase_add_test(tc, test_boot_config_too_many_luns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lunmask_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
