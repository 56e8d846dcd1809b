// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-quirks.c - the quirk database: parser, matching, precedence, the
 * kernel's whole table, dev_flags both ways, the compiled image.
 */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blist.h"
#include "inquiry.h"
#include "lunmask.h"
#include "devinfo.h"
#include "handler.h"
#include "kflags.h"
#include "quirks.h"

static const char *data_dir;
static const char *shipped_dir;

/* Parses @text as one file; returns the database finalized, or NULL if the
 * text was rejected. */
static struct quirk_db *db_from(const char *text, struct quirk_diags *d)
{
	struct quirk_db *db = quirk_db_new();
	int r;

	ck_assert_ptr_nonnull(db);
	r = quirk_db_add_buffer(db, "t.conf", text, strlen(text), d);
	if (r < 0) {
		ck_assert_int_eq(r, -EINVAL);
		quirk_db_free(db);
		return NULL;
	}
	ck_assert_int_eq(quirk_db_finalize(db, d), 0);
	return db;
}

/* The first diagnostic of @severity, or NULL. */
static const struct quirk_diag *first_diag(const struct quirk_diags *d, enum quirk_severity s)
{
	for (size_t i = 0; i < d->count; i++)
		if (d->items[i].severity == s)
			return &d->items[i];
	return NULL;
}

static void expect_error(const char *text, unsigned int line, const char *needle)
{
	struct quirk_diags d = { 0 };
	const struct quirk_diag *e;
	struct quirk_db *db = db_from(text, &d);

	ck_assert_msg(db == NULL, "text was accepted: %s", text);
	e = first_diag(&d, QUIRK_ERROR);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->file, "t.conf");
	ck_assert_msg(e->line == line, "error '%s' at line %u, expected %u", e->message, e->line,
		      line);
	ck_assert_msg(strstr(e->message, needle), "error '%s' lacks '%s'", e->message, needle);
	quirk_diags_clear(&d);
}

static uint64_t lookup(const struct quirk_db *db, const char *v, const char *m, const char *rev,
		       int type, size_t *nsources)
{
	struct quirk_device dev = { .vendor = v, .model = m, .revision = rev, .type = type };
	struct quirk_match match;
	uint64_t flags;

	ck_assert_int_eq(quirk_db_match(db, &dev, &match), 0);
	flags = match.flags;
	if (nsources)
		*nsources = match.count;
	quirk_match_clear(&match);
	return flags;
}

START_TEST(parse_good)
{
	static const char text[] = "# comment\n"
				   "device \"a\" {\n"
				   "\tvendor = \"ACME\"\n"
				   "\tmodel = \"Widget\" # trailing comment\n"
				   "\trevision = \"1.0\"\n"
				   "\ttype = 5\n"
				   "\tflags = {\"nolun\", \"notq\"}\n"
				   "\tmax_lun = 3\n"
				   "\tattach = false\n"
				   "\treason = \"locks up\"\n"
				   "}\n"
				   "device \"b\" {\n"
				   "\tvendor = \"\"\n"
				   "\tmodel = \"Scanner\"\n"
				   "\tadd_flags = {\"sparselun\"}\n"
				   "}\n";
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(text, &d);
	const struct quirk_entry *a, *b;

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(d.count, 0);
	ck_assert_uint_eq(quirk_db_count(db), 2);
	a = quirk_db_entry(db, 0);
	b = quirk_db_entry(db, 1);
	ck_assert_str_eq(a->title, "a");
	ck_assert_uint_eq(a->line, 2);
	ck_assert_str_eq(a->vendor, "ACME");
	ck_assert_str_eq(a->model, "Widget");
	ck_assert_str_eq(a->revision, "1.0");
	ck_assert_int_eq(a->type, 5);
	ck_assert(a->sets_flags);
	ck_assert_uint_eq(a->flags, BLIST_NOLUN | BLIST_NOTQ);
	ck_assert_int_eq(a->max_lun, 3);
	ck_assert_int_eq(a->attach, 0);
	ck_assert_str_eq(a->reason, "locks up");
	ck_assert_uint_eq(b->line, 12);
	ck_assert_str_eq(b->vendor, "");
	ck_assert(!b->sets_flags);
	ck_assert_uint_eq(b->add_flags, BLIST_SPARSELUN);
	ck_assert_int_eq(b->max_lun, -1);
	ck_assert_int_eq(b->attach, -1);
	ck_assert_ptr_null(b->revision);
	quirk_db_free(db);
}
END_TEST

START_TEST(parse_empty_flags_list_sets_flags)
{
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from("device \"x\" {\n vendor = \"A\"\n flags = {}\n}\n", &d);

	ck_assert_ptr_nonnull(db);
	ck_assert(quirk_db_entry(db, 0)->sets_flags);
	ck_assert_uint_eq(quirk_db_entry(db, 0)->flags, 0);
	quirk_db_free(db);
	quirk_diags_clear(&d);
}
END_TEST

START_TEST(parse_bad_files)
{
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\", \"bogus\"}\n}\n", 3,
		     "unknown flag 'bogus'");
	expect_error("device \"a\" {\n vendor = \"A\"\n\n flags = {\"NOLUN\"}\n}\n", 4,
		     "did you mean 'nolun'");
	expect_error("device \"a\" {\n vendor = \"A\"\n colour = \"red\"\n}\n", 3,
		     "no such option 'colour'");
	expect_error("device \"a\" {\n model = \"M\"\n flags = {\"nolun\"}\n}\n", 1, "no vendor");
	expect_error("device \"a\" {\n vendor = \"A\n flags = {\"nolun\"}\n}\n", 2, "never closed");
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\"}\n}\n"
		     "device \"a\" {\n vendor = \"B\"\n flags = {\"nolun\"}\n}\n",
		     5, "duplicate title");
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\"}\n add_flags = "
		     "{\"notq\"}\n}\n",
		     3, "both 'flags' and");
	expect_error("device \"a\" {\n vendor = \"A\"\n type = 32\n max_lun = 1\n}\n", 3,
		     "not a peripheral device type");
	expect_error("device \"a\" {\n vendor = \"A\"\n max_lun = -4\n}\n", 3, "negative");
	expect_error("device \"a\" {\n vendor = \"A\"\n max_lun = many\n}\n", 3, "invalid integer");
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\", # why\n"
		     " \"notq\"}\n}\n",
		     3, "comment inside");
	expect_error("device {\n vendor = \"A\"\n}\n", 1, "missing title");
	expect_error("\x7f"
		     "ELF\x02\x01\x01 garbage",
		     1, "no such option");
	expect_error("device \"a\" {\n vendor = \"\xc3\x28\"\n flags = {\"nolun\"}\n}\n", 2,
		     "UTF-8");
	expect_error("device \"a\" {\n vendor = \"A\"\n add_flags = {\"notq\"}\n drop_flags = "
		     "{\"notq\"}\n}\n",
		     4, "both adds and drops");
	/* What libconfuse 3.3 took without a word: an unterminated comment or
	 * section dropped the rest of the file, ${VAR} became the
	 * environment's value. */
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\"}\n}\n/* the rest:\n"
		     "device \"b\" {\n vendor = \"B\"\n flags = {\"notq\"}\n}\n",
		     5, "never closed");
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\"}\n}\n\ndevice \"b\" {\n"
		     " vendor = \"B\"\n flags = {\"notq\"}\n",
		     6, "never closed with '}'");
	expect_error("device \"a\" {\n vendor = \"${VENDOR}\"\n flags = {\"nolun\"}\n}\n", 2,
		     "environment variable");
	expect_error("device \"a\" {\n vendor = ${VENDOR}\n flags = {\"nolun\"}\n}\n", 2,
		     "environment variable");
	expect_error("device \"a\" {\n vendor = \"A\"\n flags = {\"nolun\"}\n reason = \"x\n"
		     "y ${HOME:-/root}\"\n}\n",
		     5, "environment variable");
}
END_TEST

/* What libconfuse takes and the prescan once refused or mangled. */
START_TEST(parse_libconfuse_syntax)
{
	struct quirk_diags d = { 0 };
	struct quirk_db *db;
	const struct quirk_entry *e;

	/* Escapes in single quotes, comments blanked before libconfuse (so
	 * that a '#' or "/" + "*" inside a string stays), the characters ${
	 * written as such. */
	db = db_from("device 'AC\\'ME' {\n vendor = 'AC\\'ME' # a comment\n"
		     " model = \"a # b /* c */\" /* x\n y */\n"
		     " reason = \"costs \\${1}\"\n"
		     " flags = { \"nolun\" } // end\n}\n"
		     "device b {\n vendor = B\n reason = 'costs ${2}'\n flags = {}\n}\n",
		     &d);
	ck_assert_msg(db != NULL, "%s", d.count ? d.items[0].message : "?");
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 0);
	ck_assert_uint_eq(quirk_db_count(db), 2);
	e = quirk_db_entry(db, 0);
	ck_assert_str_eq(e->vendor, "AC'ME");
	ck_assert_str_eq(e->title, "AC'ME");
	ck_assert_str_eq(e->model, "a # b /* c */");
	ck_assert_str_eq(e->reason, "costs ${1}");
	ck_assert_str_eq(quirk_db_entry(db, 1)->reason, "costs ${2}");
	quirk_db_free(db);
	quirk_diags_clear(&d);
}
END_TEST

/* A string long enough to make libconfuse's parse quadratic is refused
 * before libconfuse reads it: a 1 MiB model took 25 s to load. */
START_TEST(parse_long_strings_refused_at_once)
{
	size_t n = 1u << 20;
	char *text = malloc(n + 128);
	struct quirk_diags d = { 0 };
	struct quirk_db *db = quirk_db_new();
	int used;

	ck_assert_ptr_nonnull(text);
	used = sprintf(text, "device \"a\" {\n vendor = \"A\"\n model = \"");
	memset(text + used, 'M', n);
	strcpy(text + used + n, "\"\n flags = {\"nolun\"}\n}\n");
	ck_assert_int_eq(quirk_db_add_buffer(db, "long.conf", text, strlen(text), &d), -EINVAL);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_uint_eq(d.items[0].line, 3);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "1048576 bytes"));
	/* A string of 4,096 bytes is taken (and warned about: no model is
	 * that long). */
	quirk_diags_clear(&d);
	used = sprintf(text, "device \"a\" {\n vendor = \"A\"\n model = \"");
	memset(text + used, 'M', 4096);
	strcpy(text + used + 4096, "\"\n flags = {\"nolun\"}\n}\n");
	ck_assert_int_eq(quirk_db_add_buffer(db, "4k.conf", text, strlen(text), &d), 0);
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 0);
	free(text);
	quirk_diags_clear(&d);
	quirk_db_free(db);
}
END_TEST

START_TEST(parse_binary_garbage)
{
	static const char elf[] = "\x7f"
				  "ELF\x02\x01\x01\x00\x00\n\x00\x00";
	struct quirk_diags d = { 0 };
	struct quirk_db *db = quirk_db_new();

	ck_assert_int_eq(quirk_db_add_buffer(db, "bin.conf", elf, sizeof(elf) - 1, &d), -EINVAL);
	ck_assert_uint_eq(quirk_db_count(db), 0);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_str_eq(d.items[0].file, "bin.conf");
	ck_assert_uint_eq(d.items[0].line, 1);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "NUL byte"));
	quirk_diags_clear(&d);
	quirk_db_free(db);
}
END_TEST

START_TEST(parse_empty_file_and_warnings)
{
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from("", &d);
	const struct quirk_diag *w;

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(quirk_db_count(db), 0);
	w = first_diag(&d, QUIRK_WARNING);
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(strstr(w->message, "no device or lunmask entries"));
	quirk_db_free(db);
	quirk_diags_clear(&d);

	db = db_from("device \"long\" {\n vendor = \"ABCDEFGHI\"\n model = "
		     "\"0123456789abcdefg\"\n revision = \"12345\"\n flags = {\"notq\"}\n}\n",
		     &d);
	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 0);
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_WARNING), 3);
	ck_assert_uint_eq(d.items[0].line, 2);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "longer than the 8 bytes"));
	ck_assert_uint_eq(d.items[1].line, 3);
	ck_assert_uint_eq(d.items[2].line, 4);
	quirk_db_free(db);
	quirk_diags_clear(&d);

	db = db_from("device \"a\" {\n vendor = \"iomega\"\n flags = {\"notq\"}\n}\n"
		     "device \"b\" {\n vendor = \"IOMEGA\"\n flags = {\"notq\"}\n}\n",
		     &d);
	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_uint_eq(d.items[0].line, 5);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "only by case"));
	quirk_db_free(db);
	quirk_diags_clear(&d);

	db = db_from("device \"noop\" {\n vendor = \"A\"\n reason = \"nothing\"\n}\n", &d);
	ck_assert_ptr_nonnull(db);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "changes nothing"));
	quirk_db_free(db);
	quirk_diags_clear(&d);
}
END_TEST

START_TEST(shadow_warning)
{
	struct quirk_diags d = { 0 };
	struct quirk_db *db;

	/* "MSA1000 VOLUME" first, then the shorter "MSA1000": the later prefix
	 * covers every device of the earlier entry and replaces its flags. */
	db = db_from("device \"long\" {\n vendor = \"COMPAQ\"\n model = \"MSA1000 VOLUME\"\n"
		     " flags = {\"sparselun\"}\n}\n"
		     "device \"short\" {\n vendor = \"COMPAQ\"\n model = \"MSA1000\"\n"
		     " flags = {\"sparselun\", \"nostartonadd\"}\n}\n",
		     &d);
	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_uint_eq(d.items[0].line, 1);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "shadowed by 'short' at t.conf:6"));
	quirk_db_free(db);
	quirk_diags_clear(&d);

	/* The other order is the intended one: no warning. */
	db = db_from("device \"short\" {\n vendor = \"COMPAQ\"\n model = \"MSA1000\"\n"
		     " flags = {\"sparselun\"}\n}\n"
		     "device \"long\" {\n vendor = \"COMPAQ\"\n model = \"MSA1000 VOLUME\"\n"
		     " flags = {\"sparselun\"}\n}\n"
		     "device \"add\" {\n vendor = \"COMPAQ\"\n model = \"MSA\"\n"
		     " add_flags = {\"notq\"}\n}\n",
		     &d);
	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(d.count, 0);
	quirk_db_free(db);
}
END_TEST

START_TEST(inquiry_clean)
{
	char out[17];

	inquiry_field_clean(out, (const uint8_t *)"SEAGATE ", 8);
	ck_assert_str_eq(out, "SEAGATE");
	inquiry_field_clean(out, (const uint8_t *)"  IBM   ", 8);
	ck_assert_str_eq(out, "IBM");
	inquiry_field_clean(out,
			    (const uint8_t *)"AB\x01"
					     "CD\x7f  ",
			    8);
	ck_assert_str_eq(out, "AB CD");
	inquiry_field_clean(out, (const uint8_t *)"AB\0CDEFG", 8);
	ck_assert_str_eq(out, "AB");
	inquiry_field_clean(out, (const uint8_t *)"        ", 8);
	ck_assert_str_eq(out, "");
	inquiry_field_clean(out, (const uint8_t *)"CD-ROM CDS-431  ", 16);
	ck_assert_str_eq(out, "CD-ROM CDS-431");
}
END_TEST

START_TEST(match_kernel_rules)
{
	static const char text[] =
		"device \"exact\" {\n vendor = \"ACME\"\n model = \"Disk\"\n flags = {\"notq\"}\n}\n"
		"device \"all\" {\n vendor = \"Promise\"\n model = \"\"\n flags = {\"sparselun\"}\n}\n"
		"device \"blank\" {\n vendor = \"\"\n model = \"Scanner\"\n flags = {\"nolun\"}\n}\n"
		"device \"eight\" {\n vendor = \"MATSHITA\"\n model = \"PD-1\"\n"
		" flags = {\"forcelun\", \"singlelun\"}\n}\n"
		"device \"sixteen\" {\n vendor = \"COMPAQ\"\n model = \"ARRAY CONTROLLER\"\n"
		" flags = {\"sparselun\"}\n}\n";
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(text, &d);
	char v[9], m[17];

	ck_assert_ptr_nonnull(db);
	/* model is a prefix; vendor exact; both case-sensitive */
	ck_assert_uint_eq(lookup(db, "ACME", "Disk", NULL, -1, NULL), BLIST_NOTQ);
	ck_assert_uint_eq(lookup(db, "ACME", "Disk 2000", NULL, 0, NULL), BLIST_NOTQ);
	ck_assert_uint_eq(lookup(db, "ACME", "Dis", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACMEX", "Disk", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "acme", "Disk", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACME", "disk", NULL, -1, NULL), 0);
	/* trailing spaces and non-printables in the raw fields */
	inquiry_field_clean(v, (const uint8_t *)"ACME    ", 8);
	inquiry_field_clean(m, (const uint8_t *)"Disk\x01\x02          ", 16);
	ck_assert_uint_eq(lookup(db, v, m, NULL, -1, NULL), BLIST_NOTQ);
	/* empty model: every model of the vendor */
	ck_assert_uint_eq(lookup(db, "Promise", "VTrak", NULL, -1, NULL), BLIST_SPARSELUN);
	ck_assert_uint_eq(lookup(db, "Promise", "", NULL, -1, NULL), BLIST_SPARSELUN);
	/* blank vendor matches only a blank vendor field */
	inquiry_field_clean(v, (const uint8_t *)"        ", 8);
	ck_assert_uint_eq(lookup(db, v, "Scanner", NULL, -1, NULL), BLIST_NOLUN);
	ck_assert_uint_eq(lookup(db, "X", "Scanner", NULL, -1, NULL), 0);
	/* 8-character vendors and 16-character models match, unlike on 6.x */
	ck_assert_uint_eq(lookup(db, "MATSHITA", "PD-1", NULL, -1, NULL),
			  BLIST_FORCELUN | BLIST_SINGLELUN);
	ck_assert_uint_eq(lookup(db, "COMPAQ", "ARRAY CONTROLLER", NULL, -1, NULL),
			  BLIST_SPARSELUN);
	ck_assert_uint_eq(lookup(db, "COMPAQ", "ARRAY CONTROLLEX", NULL, -1, NULL), 0);
	quirk_db_free(db);
	quirk_diags_clear(&d);
}
END_TEST

START_TEST(match_globs_revision_type)
{
	static const char text[] =
		"device \"g1\" {\n vendor = \"HITACHI\"\n model = \"OPEN-*\"\n"
		" flags = {\"reportlun2\"}\n}\n"
		"device \"g2\" {\n vendor = \"[Ss]ony\"\n model = \"CD?ROM\"\n"
		" flags = {\"nolun\"}\n}\n"
		"device \"rev\" {\n vendor = \"ACME\"\n model = \"Disk\"\n revision = \"1.0\"\n"
		" flags = {\"notq\"}\n}\n"
		"device \"revglob\" {\n vendor = \"ACME\"\n model = \"Tape\"\n revision = \"2.*\"\n"
		" flags = {\"singlelun\"}\n}\n"
		"device \"type\" {\n vendor = \"ACME\"\n model = \"Box\"\n type = 13\n"
		" flags = {\"no_uld_attach\"}\n}\n"
		"device \"lit\" {\n vendor = \"IOMEGA\"\n model = \"Io20S         [*]F\"\n"
		" flags = {\"key\"}\n}\n";
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(text, &d);

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(lookup(db, "HITACHI", "OPEN-V", NULL, -1, NULL), BLIST_REPORTLUN2);
	ck_assert_uint_eq(lookup(db, "HITACHI", "OPEN", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "Sony", "CD-ROM", NULL, -1, NULL), BLIST_NOLUN);
	ck_assert_uint_eq(lookup(db, "sony", "CD ROM", NULL, -1, NULL), BLIST_NOLUN);
	/* a glob must match the whole string */
	ck_assert_uint_eq(lookup(db, "sony", "CD-ROM X", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACME", "Disk", "1.0", -1, NULL), BLIST_NOTQ);
	ck_assert_uint_eq(lookup(db, "ACME", "Disk", "1.1", -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACME", "Disk", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACME", "Tape", "2.07", -1, NULL), BLIST_SINGLELUN);
	ck_assert_uint_eq(lookup(db, "ACME", "Tape", "3.0", -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACME", "Box", NULL, 13, NULL), BLIST_NO_ULD_ATTACH);
	ck_assert_uint_eq(lookup(db, "ACME", "Box", NULL, 0, NULL), 0);
	ck_assert_uint_eq(lookup(db, "ACME", "Box", NULL, -1, NULL), 0);
	ck_assert_uint_eq(lookup(db, "IOMEGA", "Io20S         *F", NULL, -1, NULL), BLIST_KEY);
	ck_assert_uint_eq(lookup(db, "IOMEGA", "Io20S         XF", NULL, -1, NULL), 0);
	quirk_db_free(db);
	quirk_diags_clear(&d);
}
END_TEST

START_TEST(match_merge_order)
{
	static const char text[] =
		"device \"base\" {\n vendor = \"ACME\"\n model = \"\"\n"
		" flags = {\"sparselun\", \"notq\"}\n max_lun = 100\n}\n"
		"device \"add\" {\n vendor = \"ACME\"\n model = \"Disk\"\n add_flags = {\"nolun\"}\n"
		" drop_flags = {\"notq\"}\n}\n"
		"device \"glob\" {\n vendor = \"AC*\"\n model = \"Disk\"\n max_lun = 7\n"
		" attach = false\n}\n"
		"device \"set\" {\n vendor = \"ACME\"\n model = \"Disk X\"\n"
		" flags = {\"largelun\"}\n}\n";
	struct quirk_device dev = { .vendor = "ACME", .model = "Disk", .type = -1 };
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(text, &d);
	struct quirk_match m;

	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
	ck_assert_uint_eq(m.flags, BLIST_SPARSELUN | BLIST_NOLUN);
	ck_assert_int_eq(m.max_lun, 7);
	ck_assert(!m.attach);
	ck_assert_uint_eq(m.count, 3);
	ck_assert_str_eq(m.sources[0]->title, "base");
	ck_assert_str_eq(m.sources[1]->title, "add");
	ck_assert_str_eq(m.sources[2]->title, "glob");
	quirk_match_clear(&m);

	dev.model = "Disk X";
	ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
	ck_assert_uint_eq(m.flags, BLIST_LARGELUN);
	ck_assert_uint_eq(m.count, 4);
	ck_assert_str_eq(m.sources[3]->title, "set");
	quirk_match_clear(&m);

	dev.model = "Tape";
	ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
	ck_assert_uint_eq(m.flags, BLIST_SPARSELUN | BLIST_NOTQ);
	ck_assert_int_eq(m.max_lun, 100);
	ck_assert(m.attach);
	quirk_match_clear(&m);

	dev.vendor = "NOBODY";
	ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
	ck_assert_uint_eq(m.flags, 0);
	ck_assert_int_eq(m.max_lun, -1);
	ck_assert(m.attach);
	ck_assert_uint_eq(m.count, 0);
	quirk_match_clear(&m);
	quirk_db_free(db);
}
END_TEST

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *make_tree(void)
{
	char tmpl[] = "/tmp/quirks-test-XXXXXX", path[512];
	const char *subs[] = { "usr", "etc", "run" };
	char *root = mkdtemp(tmpl);

	ck_assert_ptr_nonnull(root);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, subs[i]);
		ck_assert_int_eq(mkdir(path, 0755), 0);
	}
	return strdup(root);
}

static void remove_tree(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(precedence)
{
	char *root = make_tree(), usr[512], etc[512], run[512], link[600];
	const char *dirs[] = { usr, etc, run };
	struct quirk_diags d = { 0 };
	struct quirk_db *db;
	struct quirk_device dev = { .vendor = "CHINON", .model = "CD-ROM CDS-431", .type = -1 };
	struct quirk_match m;

	snprintf(usr, sizeof(usr), "%s/usr", root);
	snprintf(etc, sizeof(etc), "%s/etc", root);
	snprintf(run, sizeof(run), "%s/run", root);
	write_file(usr, "10-base.conf",
		   "device \"chinon\" {\n vendor = \"CHINON\"\n model = \"CD-ROM CDS-431\"\n"
		   " flags = {\"nolun\", \"notq\"}\n}\n");
	write_file(usr, "20-replaced.conf",
		   "device \"r\" {\n vendor = \"CHINON\"\n flags = {\"sparselun\"}\n}\n");
	write_file(usr, "30-masked.conf",
		   "device \"m\" {\n vendor = \"CHINON\"\n flags = {\"isrom\"}\n}\n");
	write_file(usr, "40-broken.conf", "device \"b\" {\n vendor = \"CHINON\"\n oops\n}\n");
	write_file(usr, "not-a-quirk.txt", "garbage");
	/* /etc replaces 20-replaced.conf by name: an add, not a replacement set */
	write_file(etc, "20-replaced.conf",
		   "device \"r\" {\n vendor = \"CHINON\"\n add_flags = {\"largelun\"}\n}\n");
	snprintf(link, sizeof(link), "%s/30-masked.conf", etc);
	ck_assert_int_eq(symlink("/dev/null", link), 0);
	/* the administrator drops one flag of the shipped entry, sorted between */
	write_file(etc, "15-local.conf",
		   "device \"drop\" {\n vendor = \"CHINON\"\n model = \"CD-ROM CDS-431\"\n"
		   " drop_flags = {\"notq\"}\n reason = \"tagged queuing works here\"\n}\n");
	write_file(run, "50-runtime.conf",
		   "device \"rt\" {\n vendor = \"CHINON\"\n max_lun = 0\n}\n");

	ck_assert_int_eq(quirk_db_load(dirs, 3, &d, &db), 0);
	/* the broken file is reported with file and line, the rest loaded */
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 1);
	ck_assert_ptr_nonnull(strstr(first_diag(&d, QUIRK_ERROR)->file, "usr/40-broken.conf"));
	ck_assert_uint_eq(first_diag(&d, QUIRK_ERROR)->line, 3);
	ck_assert_uint_eq(quirk_db_count(db), 4);

	ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
	ck_assert_uint_eq(m.flags, BLIST_NOLUN | BLIST_LARGELUN);
	ck_assert_int_eq(m.max_lun, 0);
	ck_assert_uint_eq(m.count, 4);
	ck_assert_ptr_nonnull(strstr(m.sources[0]->file, "usr/10-base.conf"));
	ck_assert_uint_eq(m.sources[0]->line, 1);
	ck_assert_ptr_nonnull(strstr(m.sources[1]->file, "etc/15-local.conf"));
	ck_assert_ptr_nonnull(strstr(m.sources[2]->file, "etc/20-replaced.conf"));
	ck_assert_ptr_nonnull(strstr(m.sources[3]->file, "run/50-runtime.conf"));
	quirk_match_clear(&m);
	quirk_db_free(db);
	quirk_diags_clear(&d);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(search_path)
{
	char **dirs;
	size_t n;

	ck_assert_int_eq(quirk_search_path("/tmp/root/", &dirs, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(dirs[0], "/tmp/root" QUIRKS_SHIPPED_DIR);
	ck_assert_str_eq(dirs[1], "/tmp/root/etc/scsi-scan/quirks.d");
	ck_assert_str_eq(dirs[2], "/tmp/root/run/scsi-scan/quirks.d");
	ck_assert_ptr_null(dirs[3]);
	quirk_search_path_free(dirs);
	ck_assert_int_eq(quirk_search_path(NULL, &dirs, &n), 0);
	ck_assert_str_eq(dirs[1], "/etc/scsi-scan/quirks.d");
	quirk_search_path_free(dirs);
}
END_TEST

static uint64_t flags_from_tsv(char *s)
{
	uint64_t v = 0;

	for (char *tok = strtok(s, "|\n"); tok; tok = strtok(NULL, "|\n")) {
		const struct blist_flag *f;
		char lower[64];
		size_t i;

		ck_assert_msg(strncmp(tok, "BLIST_", 6) == 0, "bad flag %s", tok);
		for (i = 0; tok[6 + i] && i < sizeof(lower) - 1; i++)
			lower[i] = (char)tolower((unsigned char)tok[6 + i]);
		lower[i] = '\0';
		f = blist_flag_by_name(lower);
		ck_assert_msg(f != NULL, "flag %s unknown", tok);
		v |= f->bit;
	}
	return v;
}

static struct quirk_db *load_shipped(void)
{
	const char *dirs[] = { shipped_dir };
	struct quirk_diags d = { 0 };
	struct quirk_db *db;

	ck_assert_int_eq(quirk_db_load(dirs, 1, &d, &db), 0);
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 0);
	quirk_diags_clear(&d);
	return db;
}

START_TEST(kernel_table_every_entry)
{
	struct quirk_db *db = load_shipped();
	char path[512], line[512];
	size_t n = 0, builtin = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/linux-scsi-devinfo.tsv", data_dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		char *vendor = line, *model, *rev, *flags;
		uint64_t want, got;
		size_t nsrc;

		model = strchr(vendor, '\t');
		ck_assert_ptr_nonnull(model);
		*model++ = '\0';
		rev = strchr(model, '\t');
		ck_assert_ptr_nonnull(rev);
		*rev++ = '\0';
		flags = strchr(rev, '\t');
		ck_assert_ptr_nonnull(flags);
		*flags++ = '\0';
		want = flags_from_tsv(flags);
		/* The device reports the entry's own strings (and, where the model
		 * is shorter than 16, anything after it). */
		got = lookup(db, vendor, model, NULL, -1, &nsrc);
		ck_assert_msg(got == want, "'%s' '%s': got 0x%llx, kernel has 0x%llx", vendor,
			      model, (unsigned long long)got, (unsigned long long)want);
		ck_assert_uint_ge(nsrc, 1);
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, 183);
	for (size_t i = 0; i < quirk_db_count(db); i++)
		builtin += quirk_db_entry(db, i)->builtin && quirk_db_entry(db, i)->sets_flags;
	ck_assert_uint_eq(builtin, 183);
	quirk_db_free(db);
}
END_TEST

/* The kernel's device-handler table (scsi_dh_blist), every entry: a device
 * reporting the entry's strings gets its handler, from the table; with
 * TPGS bits, alua, as the kernel's scsi_dh_find_driver() decides. */
START_TEST(kernel_handler_table_every_entry)
{
	struct quirk_db *db = load_shipped();
	char path[512], line[512];
	size_t n = 0, builtin = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/linux-scsi-dh-table.tsv", data_dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		char *vendor = line, *model, *handler;
		struct quirk_device dev = { .type = -1 };
		struct handler_choice c;
		struct quirk_match m;

		line[strcspn(line, "\n")] = '\0';
		model = strchr(vendor, '\t');
		ck_assert_ptr_nonnull(model);
		*model++ = '\0';
		handler = strchr(model, '\t');
		ck_assert_ptr_nonnull(handler);
		*handler++ = '\0';
		dev.vendor = vendor;
		dev.model = model;
		ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
		handler_choose(&m, 0, &c);
		ck_assert_msg(c.name && strcmp(c.name, handler) == 0, "'%s' '%s': %s, kernel %s",
			      vendor, model, c.name ? c.name : "none", handler);
		ck_assert_int_eq(c.why, HANDLER_TABLE);
		handler_choose(&m, 1, &c);
		ck_assert_str_eq(c.name, "alua");
		ck_assert_int_eq(c.why, HANDLER_TPGS);
		quirk_match_clear(&m);
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, 39);
	for (size_t i = 0; i < quirk_db_count(db); i++)
		builtin += quirk_db_entry(db, i)->builtin && quirk_db_entry(db, i)->handler;
	ck_assert_uint_eq(builtin, 39);
	ck_assert_uint_eq(quirk_db_count(db), 183 + 39);
	quirk_db_free(db);
}
END_TEST

/* Which handler, and from where: a local entry over the kernel's rules. */
static const struct handler_case {
	const char *what;
	const char *text;
	const char *vendor, *model;
	unsigned int tpgs;
	const char *want;
	enum handler_why why;
} handler_cases[] = {
	{ .what = "the table",
	  .text = "device \"t\" {\n vendor = \"DGC*\"\n model = \"RAID\"\n handler = \"emc\"\n"
		  " builtin = true\n}\n",
	  .vendor = "DGC",
	  .model = "RAID 5",
	  .want = "emc",
	  .why = HANDLER_TABLE },
	{ .what = "TPGS before the table",
	  .text = "device \"t\" {\n vendor = \"DGC*\"\n model = \"RAID\"\n handler = \"emc\"\n"
		  " builtin = true\n}\n",
	  .vendor = "DGC",
	  .model = "RAID 5",
	  .tpgs = 1,
	  .want = "alua",
	  .why = HANDLER_TPGS },
	{ .what = "a local entry before TPGS",
	  .text = "device \"t\" {\n vendor = \"ACME\"\n model = \"Array\"\n handler = \"rdac\"\n}\n",
	  .vendor = "ACME",
	  .model = "Array",
	  .tpgs = 3,
	  .want = "rdac",
	  .why = HANDLER_LOCAL },
	{ .what = "a local entry over the table",
	  .text = "device \"t\" {\n vendor = \"DGC*\"\n model = \"RAID\"\n handler = \"emc\"\n"
		  " builtin = true\n}\ndevice \"mine\" {\n vendor = \"DGC\"\n model = \"RAID 5\"\n"
		  " handler = \"alua\"\n}\n",
	  .vendor = "DGC",
	  .model = "RAID 5",
	  .want = "alua",
	  .why = HANDLER_LOCAL },
	{ .what = "nothing names one",
	  .text = "device \"t\" {\n vendor = \"DGC*\"\n model = \"RAID\"\n handler = \"emc\"\n"
		  " builtin = true\n}\n",
	  .vendor = "ACME",
	  .model = "Disk",
	  .why = HANDLER_NONE },
	{ .what = "TPGS alone",
	  .text = "",
	  .vendor = "LIO-ORG",
	  .model = "IBLOCK",
	  .tpgs = 1,
	  .want = "alua",
	  .why = HANDLER_TPGS },
};

START_TEST(handler_choices)
{
	const struct handler_case *c = &handler_cases[_i];
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(c->text, &d);
	struct quirk_device dev = { .vendor = c->vendor, .model = c->model, .type = -1 };
	struct handler_choice h;
	struct quirk_match m;

	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 0);
	ck_assert_int_eq(quirk_db_match(db, &dev, &m), 0);
	handler_choose(&m, c->tpgs, &h);
	ck_assert_msg(c->want ? h.name && strcmp(h.name, c->want) == 0 : !h.name, "%s: %s", c->what,
		      h.name ? h.name : "none");
	ck_assert_msg(h.why == c->why, "%s: %s", c->what, handler_why_name(h.why));
	quirk_match_clear(&m);
	quirk_diags_clear(&d);
	quirk_db_free(db);
}
END_TEST

/* What the scan does about the handler a LUN has. */
static const struct handler_step_case {
	const char *want, *dh_state;
	enum handler_step step;
} handler_step_cases[] = {
	{ NULL, "detached\n", HANDLER_KEEP },
	{ "alua", "detached\n", HANDLER_ATTACH },
	{ "alua", "alua\n", HANDLER_KEEP },
	{ "alua", "rdac\n", HANDLER_CONFLICT },
	{ "alua", NULL, HANDLER_UNKNOWN },
	{ "rdac", "rdac", HANDLER_KEEP },
	{ "hp_sw", "hp_sw_x\n", HANDLER_CONFLICT },
	/* The second audit: written, the kernel would load scsi_dh_NAME. */
	{ "mydh", "detached\n", HANDLER_NOT_KERNEL },
	{ "mydh", "mydh\n", HANDLER_KEEP },
};

START_TEST(handler_steps)
{
	const struct handler_step_case *c = &handler_step_cases[_i];

	ck_assert_int_eq(handler_step(c->want, c->dh_state), c->step);
}
END_TEST

/* The kernel's flags of a LUN against the database's. */
static const struct kflags_case {
	const char *what;
	uint64_t database;
	bool names;
	int type;
	const char *blacklist;
	const char *vendor;
	bool differ;
	uint64_t missing, extra;
	const char *unknown;
	bool deliverable;
} kflags_cases[] = {
	{ .what = "the same",
	  .database = BLIST_SPARSELUN,
	  .names = true,
	  .blacklist = "SPARSELUN",
	  .vendor = "DELL",
	  .deliverable = true },
	{ .what = "the database adds one",
	  .database = BLIST_SPARSELUN | BLIST_NO_ULD_ATTACH,
	  .names = true,
	  .blacklist = "SPARSELUN",
	  .vendor = "ACME",
	  .differ = true,
	  .missing = BLIST_NO_ULD_ATTACH,
	  .deliverable = true },
	{ .what = "the database drops one (the MSA1000 example)",
	  .database = BLIST_SPARSELUN,
	  .names = true,
	  .blacklist = "SPARSELUN NOSTARTONADD",
	  .vendor = "COMPAQ",
	  .differ = true,
	  .extra = BLIST_NOSTARTONADD,
	  .deliverable = true },
	{ .what = "no entry: the driver's flags are no difference",
	  .blacklist = "TRY_VPD_PAGES",
	  .vendor = "QEMU",
	  .deliverable = true },
	{ .what = "an entry without flags replaces the driver's",
	  .names = true,
	  .blacklist = "TRY_VPD_PAGES",
	  .vendor = "QEMU",
	  .differ = true,
	  .extra = BLIST_TRY_VPD_PAGES,
	  .deliverable = true },
	{ .what = "no blacklist attribute",
	  .database = BLIST_NOLUN,
	  .names = true,
	  .vendor = "ACME",
	  .deliverable = true },
	{ .what = "a name no flag has",
	  .database = BLIST_SPARSELUN,
	  .names = true,
	  .blacklist = "SPARSELUN INVALID_BIT(40)",
	  .vendor = "ACME",
	  .unknown = "INVALID_BIT(40)",
	  .deliverable = true },
	{ .what = "a CD-ROM: the kernel adds noreportlun",
	  .database = BLIST_NOLUN,
	  .names = true,
	  .type = 5,
	  .blacklist = "NOLUN NOREPORTLUN",
	  .vendor = "CHINON",
	  .deliverable = true },
	{ .what = "a CD-ROM with reportlun2",
	  .database = BLIST_REPORTLUN2,
	  .names = true,
	  .type = 5,
	  .blacklist = "REPORTLUN2",
	  .vendor = "ACME",
	  .deliverable = true },
	{ .what = "a disk: noreportlun is the kernel's alone",
	  .database = BLIST_NOLUN,
	  .names = true,
	  .blacklist = "NOLUN NOREPORTLUN",
	  .vendor = "ACME",
	  .differ = true,
	  .extra = BLIST_NOREPORTLUN,
	  .deliverable = true },
	{ .what = "a blank vendor cannot be named in dev_flags",
	  .database = BLIST_NOLUN,
	  .names = true,
	  .blacklist = "",
	  .vendor = "",
	  .differ = true,
	  .missing = BLIST_NOLUN },
};

START_TEST(kflags_checks)
{
	const struct kflags_case *c = &kflags_cases[_i];
	struct kflags_check k;
	char why[512];

	kflags_check(c->database, c->names, c->type, c->blacklist, c->vendor, "Model", &k);
	ck_assert_msg(kflags_differ(&k) == c->differ, "%s", c->what);
	ck_assert_msg(k.known == (c->blacklist != NULL), "%s", c->what);
	ck_assert_uint_eq(k.missing, c->missing);
	ck_assert_uint_eq(k.extra, c->extra);
	ck_assert_str_eq(k.unknown, c->unknown ? c->unknown : "");
	ck_assert_msg(k.deliverable == c->deliverable, "%s", c->what);
	kflags_delivery(&k, why, sizeof(why));
	ck_assert_ptr_nonnull(strstr(why, c->deliverable ? "when scsi_mod loads" : "cannot name"));
}
END_TEST

/* What /proc/scsi/device_info already gives a device: the first line for
 * its vendor and model decides, as the kernel's lookup does. */
START_TEST(devinfo_listed_rows)
{
	static const char proc[] = "'COMPAQ  ' 'MSA1000         ' 0x40\n"
				   "'ACME    ' 'Ctl             ' 0x0\n"
				   "'ACME    ' 'Ctl             ' 0x100000\n"
				   "[scsi_devinfo_global]:\n"
				   "'COMPAQ' 'MSA1000' 0x1040\n";

	ck_assert(devinfo_listed(proc, "COMPAQ:MSA1000:0x40"));
	ck_assert(!devinfo_listed(proc, "COMPAQ:MSA1000:0x1040"));
	ck_assert(!devinfo_listed(proc, "ACME:Ctl:0x100000"));
	ck_assert(devinfo_listed(proc, "ACME:Ctl:0x0"));
	ck_assert(!devinfo_listed(proc, "ACME:Ctl 2:0x0"));
	ck_assert(!devinfo_listed("", "ACME:Ctl:0x0"));
	ck_assert(!devinfo_listed(proc, "not an item"));
}
END_TEST

/* A handler's name must be one dh_state can take. */
START_TEST(handler_names)
{
	static const char *const bad[] = { "ALUA", "scsi_dh_alua", "al ua",
					   "",	   "a-b",	   "abcdefghijklmnop" };
	struct quirk_diags d = { 0 };
	char text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct quirk_db *db = quirk_db_new();

		snprintf(
			text, sizeof(text),
			"device \"t\" {\n vendor = \"ACME\"\n model = \"X\"\n handler = \"%s\"\n}\n",
			bad[i]);
		ck_assert_int_eq(quirk_db_add_buffer(db, "t.conf", text, strlen(text), &d),
				 -EINVAL);
		ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 1);
		ck_assert_uint_eq(d.items[0].line, 4);
		quirk_diags_clear(&d);
		quirk_db_free(db);
	}
	snprintf(text, sizeof(text),
		 "device \"t\" {\n vendor = \"ACME\"\n model = \"X\"\n handler = \"mine\"\n}\n");
	{
		struct quirk_db *db = quirk_db_new();

		ck_assert_int_eq(quirk_db_add_buffer(db, "t.conf", text, strlen(text), &d), 0);
		ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_WARNING), 1);
		ck_assert_ptr_nonnull(strstr(d.items[0].message, "scsi_dh_mine"));
		quirk_diags_clear(&d);
		quirk_db_free(db);
	}
}
END_TEST

START_TEST(blist_table_matches_kernel)
{
	char path[512], line[1024];
	size_t n = 0, count;
	FILE *f;

	blist_flag_table(&count);
	snprintf(path, sizeof(path), "%s/linux-scsi-blist-flags.tsv", data_dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	while (fgets(line, sizeof(line), f)) {
		char *name = strtok(line, "\t"), *hex = strtok(NULL, "\t");
		char *meaning = strtok(NULL, "\t"), *when = strtok(NULL, "\t");
		const struct blist_flag *fl;
		char lower[64];
		size_t i;

		ck_assert_ptr_nonnull(meaning);
		for (i = 0; name[6 + i]; i++)
			lower[i] = (char)tolower((unsigned char)name[6 + i]);
		lower[i] = '\0';
		fl = blist_flag_by_name(lower);
		ck_assert_msg(fl != NULL, "%s missing", name);
		ck_assert_uint_eq(fl->bit, strtoull(hex, NULL, 16));
		if (strcmp(when, "scan") == 0)
			ck_assert_int_eq(fl->when, BLIST_WHEN_SCAN);
		else if (strcmp(when, "runtime") == 0)
			ck_assert_int_eq(fl->when, BLIST_WHEN_RUNTIME);
		else
			ck_assert_int_eq(fl->when, BLIST_WHEN_BOTH);
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, count);
}
END_TEST

START_TEST(blist_format)
{
	char buf[64];

	ck_assert_int_eq(
		blist_flags_format(BLIST_NOLUN | BLIST_SKIP_IO_HINTS, " ", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "nolun skip_io_hints");
	ck_assert_int_eq(blist_flags_format(UINT64_C(1) << 14, ",", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "bit14");
	ck_assert_int_eq(blist_flags_format(0, ",", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(blist_flags_format(~UINT64_C(0), ",", buf, 8), -ENOSPC);
	ck_assert_uint_eq(blist_kernel_mask() & (BLIST_NOLUN | BLIST_SPARSELUN), 0);
	ck_assert_uint_eq(blist_kernel_mask() & BLIST_INQUIRY_36, BLIST_INQUIRY_36);
}
END_TEST

START_TEST(dev_flags_parse_kernel_syntax)
{
	struct quirk_dev_flag *items;
	const char *err = NULL;
	size_t n;

	ck_assert_int_eq(quirk_dev_flags_parse("A:B:0x1,C D:E F:010,G:H:12\n,", &items, &n, &err),
			 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(items[0].vendor, "A");
	ck_assert_uint_eq(items[0].flags, 1);
	ck_assert_str_eq(items[1].vendor, "C D");
	ck_assert_str_eq(items[1].model, "E F");
	ck_assert_uint_eq(items[1].flags, 8);
	ck_assert_uint_eq(items[2].flags, 12);
	quirk_dev_flags_free(items, n);

	/* a quoted value: the closing quote ends the last flags, then the
	 * empty vendor after it ends the list */
	ck_assert_int_eq(quirk_dev_flags_parse("\"A:B:0x40,C:D:1\"", &items, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(items[0].flags, BLIST_SPARSELUN);
	ck_assert_str_eq(items[1].model, "D");
	ck_assert_uint_eq(items[1].flags, 1);
	quirk_dev_flags_free(items, n);

	ck_assert_int_eq(quirk_dev_flags_parse("", &items, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	quirk_dev_flags_free(items, n);

	ck_assert_int_eq(quirk_dev_flags_parse("A:B", &items, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "VENDOR:MODEL:FLAGS"));
	ck_assert_int_eq(quirk_dev_flags_parse("A:B:zz", &items, &n, &err), -EINVAL);
	ck_assert_int_eq(quirk_dev_flags_parse("A:B:0x1000000", &items, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "unsupported"));
}
END_TEST

START_TEST(dev_flags_export_shipped)
{
	struct quirk_diags d = { 0 };
	struct quirk_db *db = load_shipped();
	struct quirk_device devs[] = {
		{ .vendor = "SYNOLOGY", .model = "iSCSI Storage", .type = 0 },
		{ .vendor = "COMPAQ", .model = "MSA1000", .type = 0 },
		{ .vendor = "QEMU", .model = "QEMU HARDDISK", .type = 0 },
		{ .vendor = "SYNOLOGY", .model = "iSCSI Storage", .type = 0 },
	};
	struct quirk_dev_flag *items;
	const char *err;
	char *s;
	size_t n;

	/* The whole table's entries that 6.x kernels no longer match (their
	 * 8-character vendors), each with its whole value, do not fit: every
	 * one past the limit is named, none is dropped. */
	ck_assert_int_eq(quirk_dev_flags_export(db, &s, &d), -ENOSPC);
	ck_assert_uint_ge(quirk_diags_count(&d, QUIRK_ERROR), 5);
	ck_assert_ptr_nonnull(strstr(d.items[0].message, "does not fit"));
	quirk_diags_clear(&d);
	/* The devices of one machine do: the one whose vendor the kernel's
	 * table no longer matches, once; the MSA1000 and the QEMU disk get
	 * what the kernel's table (or driver) gives them already. */
	ck_assert_int_eq(quirk_dev_flags_export_devices(db, devs, 4, &s, &d), 0);
	ck_assert_uint_eq(d.count, 0);
	ck_assert_str_eq(s, "SYNOLOGY:iSCSI Storage:0x40000000");
	ck_assert_int_eq(quirk_dev_flags_parse(s, &items, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	quirk_dev_flags_free(items, n);
	free(s);
	quirk_db_free(db);
}
END_TEST

/* The MSA1000 example of scsi-quirks.d(5), the value whole (sparselun
 * stays), and a glob entry reaching the kernel through a device's own
 * strings. */
START_TEST(dev_flags_export_devices)
{
	static const char text[] =
		"device \"msa\" {\n vendor = \"COMPAQ\"\n model = \"MSA1000\"\n"
		" flags = {\"sparselun\", \"nostartonadd\"}\n builtin = true\n}\n"
		"device \"local\" {\n vendor = \"COMPAQ\"\n model = \"MSA1000\"\n"
		" drop_flags = {\"nostartonadd\"}\n}\n"
		"device \"mgmt\" {\n vendor = \"ACME\"\n model = \"Ctl*\"\n"
		" flags = {\"no_uld_attach\"}\n}\n";
	struct quirk_device devs[] = {
		{ .vendor = "COMPAQ", .model = "MSA1000", .type = 0 },
		{ .vendor = "ACME", .model = "Ctl 2", .type = 12 },
		{ .vendor = "ACME", .model = "Disk", .type = 0 },
	};
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(text, &d);
	char *s, big[64];

	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(quirk_dev_flags_export_devices(db, devs, 3, &s, &d), 0);
	ck_assert_str_eq(s, "COMPAQ:MSA1000:0x40,ACME:Ctl 2:0x100000");
	free(s);
	quirk_db_free(db);
	quirk_diags_clear(&d);

	/* Too many for the kernel: an error that names what does not fit. */
	{
		struct quirk_device many[40];
		char vendors[40][16];

		db = db_from("device \"g\" {\n vendor = \"V*\"\n flags = {\"notq\"}\n}\n", &d);
		ck_assert_ptr_nonnull(db);
		for (int i = 0; i < 40; i++) {
			snprintf(vendors[i], sizeof(vendors[i]), "V%02d", i);
			many[i] = (struct quirk_device){ .vendor = vendors[i],
							 .model = "Disk",
							 .type = 0 };
		}
		ck_assert_int_eq(quirk_dev_flags_export_devices(db, many, 40, &s, &d), -ENOSPC);
		snprintf(big, sizeof(big), "'V39:Disk:0x20' (device 'g') does not fit");
		ck_assert_ptr_nonnull(strstr(d.items[d.count - 1].message, big));
		quirk_diags_clear(&d);
		quirk_db_free(db);
	}
}
END_TEST

START_TEST(dev_flags_export_admin_changes)
{
	static const char text[] = "device \"k\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				   " flags = {\"notq\", \"sparselun\"}\n builtin = true\n}\n"
				   "device \"drop\" {\n vendor = \"ACME\"\n model = \"Disk\"\n"
				   " drop_flags = {\"notq\"}\n}\n"
				   "device \"new\" {\n vendor = \"NEWCO\"\n model = \"Array\"\n"
				   " flags = {\"no_rsoc\", \"nolun\"}\n}\n"
				   "device \"scan-only\" {\n vendor = \"SCANCO\"\n model = \"X\"\n"
				   " flags = {\"sparselun\"}\n}\n";
	struct quirk_diags d = { 0 };
	struct quirk_db *db = db_from(text, &d);
	char *s;

	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(quirk_dev_flags_export(db, &s, &d), 0);
	/* every flag the kernel knows, scan flags included: a dev_flags entry
	 * replaces the table's whole value */
	ck_assert_str_eq(s, "ACME:Disk:0x40,NEWCO:Array:0x20000001,SCANCO:X:0x40");
	free(s);
	quirk_db_free(db);

	db = db_from("device \"g\" {\n vendor = \"AC*\"\n flags = {\"notq\"}\n}\n", &d);
	ck_assert_int_eq(quirk_dev_flags_export(db, &s, &d), -EINVAL);
	ck_assert_ptr_nonnull(strstr(first_diag(&d, QUIRK_ERROR)->message, "glob"));
	quirk_db_free(db);
	quirk_diags_clear(&d);
}
END_TEST

START_TEST(reload)
{
	struct quirk_db *old = load_shipped(), *db;

	/* A reload builds the new database beside the old one, then the old
	 * one goes; run under valgrind, this shows nothing leaks. */
	for (int i = 0; i < 3; i++) {
		db = load_shipped();
		ck_assert_uint_eq(quirk_db_count(db), quirk_db_count(old));
		quirk_db_free(old);
		old = db;
	}
	ck_assert_uint_eq(lookup(old, "CHINON", "CD-ROM CDS-431", NULL, 5, NULL), BLIST_NOLUN);
	quirk_db_free(old);
}
END_TEST

static const char image_conf[] =
	"device \"glob\" {\n\tvendor = \"AC*\"\n\tmodel = \"Disk?\"\n"
	"\trevision = \"1.*\"\n\ttype = 5\n\tadd_flags = { \"nolun\" }\n"
	"\tdrop_flags = { \"sparselun\" }\n\treason = \"a \\\"test\\\"\"\n}\n"
	"device \"limits\" {\n\tvendor = \"ACME\"\n\tmodel = \"Disk\"\n"
	"\tflags = {}\n\tmax_lun = 3\n\tattach = false\n}\n"
	"lunmask \"by address\" {\n\tdriver = \"virtio_scsi\"\n"
	"\tchannel = 0\n\tid = 1\n\tluns = { 0, 3, 8-11 }\n"
	"\texclude_luns = { 9 }\n}\n"
	"lunmask \"nothing\" {\n\tiscsi_target = \"iqn.2003-01.x:y\"\n"
	"\tiscsi_tpgt = 2\n\tluns = {}\n}\n";

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static void assert_str_same(const char *a, const char *b)
{
	ck_assert_msg((!a && !b) || (a && b && strcmp(a, b) == 0), "'%s' != '%s'", a ? a : "(null)",
		      b ? b : "(null)");
}

static void assert_ranges_same(const struct lun_range *a, size_t na, const struct lun_range *b,
			       size_t nb)
{
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		ck_assert_uint_eq(a[i].first, b[i].first);
		ck_assert_uint_eq(a[i].last, b[i].last);
	}
}

/* Every field of every entry, in the same order. */
static void assert_db_same(const struct quirk_db *a, const struct quirk_db *b)
{
	const struct lunmask_entry *ma, *mb;
	size_t na, nb;

	ck_assert_uint_eq(quirk_db_count(a), quirk_db_count(b));
	for (size_t i = 0; i < quirk_db_count(a); i++) {
		const struct quirk_entry *x = quirk_db_entry(a, i), *y = quirk_db_entry(b, i);

		assert_str_same(x->file, y->file);
		ck_assert_uint_eq(x->line, y->line);
		assert_str_same(x->title, y->title);
		assert_str_same(x->vendor, y->vendor);
		assert_str_same(x->model, y->model);
		assert_str_same(x->revision, y->revision);
		assert_str_same(x->reason, y->reason);
		assert_str_same(x->handler, y->handler);
		ck_assert_int_eq(x->type, y->type);
		ck_assert_int_eq(x->vendor_glob, y->vendor_glob);
		ck_assert_int_eq(x->model_glob, y->model_glob);
		ck_assert_int_eq(x->revision_glob, y->revision_glob);
		ck_assert_int_eq(x->sets_flags, y->sets_flags);
		ck_assert_int_eq(x->builtin, y->builtin);
		ck_assert_uint_eq(x->flags, y->flags);
		ck_assert_uint_eq(x->add_flags, y->add_flags);
		ck_assert_uint_eq(x->drop_flags, y->drop_flags);
		ck_assert_int_eq(x->max_lun, y->max_lun);
		ck_assert_int_eq(x->attach, y->attach);
	}
	ma = quirk_db_lunmasks(a, &na);
	mb = quirk_db_lunmasks(b, &nb);
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_str_same(ma[i].file, mb[i].file);
		ck_assert_uint_eq(ma[i].line, mb[i].line);
		assert_str_same(ma[i].title, mb[i].title);
		assert_str_same(ma[i].reason, mb[i].reason);
		assert_str_same(ma[i].driver, mb[i].driver);
		assert_str_same(ma[i].host_port_name, mb[i].host_port_name);
		assert_str_same(ma[i].port_name, mb[i].port_name);
		assert_str_same(ma[i].sas_address, mb[i].sas_address);
		assert_str_same(ma[i].iscsi_target, mb[i].iscsi_target);
		assert_str_same(ma[i].wwid, mb[i].wwid);
		assert_str_same(ma[i].serial, mb[i].serial);
		ck_assert_int_eq(ma[i].iscsi_tpgt, mb[i].iscsi_tpgt);
		ck_assert_int_eq(ma[i].channel, mb[i].channel);
		ck_assert_int_eq(ma[i].id, mb[i].id);
		ck_assert_int_eq(ma[i].has_luns, mb[i].has_luns);
		assert_ranges_same(ma[i].luns, ma[i].nluns, mb[i].luns, mb[i].nluns);
		assert_ranges_same(ma[i].exclude, ma[i].nexclude, mb[i].exclude, mb[i].nexclude);
	}
}

START_TEST(image_round_trip_and_staleness)
{
	char tmpl[] = "/tmp/test-quirks-image-XXXXXX", conf[64], other[64];
	const char *dirs[2] = { shipped_dir, NULL };
	struct quirk_diags d = { 0 };
	struct quirk_db *text, *img = NULL;
	uint8_t *buf, byte;
	size_t len;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	dirs[1] = tmpl;
	snprintf(conf, sizeof(conf), "%s/50-test.conf", tmpl);
	snprintf(other, sizeof(other), "%s/60-other.conf", tmpl);
	write_text(conf, image_conf);
	ck_assert_int_eq(quirk_db_load(dirs, 2, &d, &text), 0);
	ck_assert_uint_eq(quirk_diags_count(&d, QUIRK_ERROR), 0);
	ck_assert_int_eq(quirk_db_image(text, NULL, &buf, &len), 0);

	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 2, &img), 0);
	ck_assert_int_eq(quirk_db_finalize(img, &d), 0);
	assert_db_same(text, img);
	ck_assert_uint_eq(lookup(img, "ACME", "Disk", NULL, 0, NULL), 0);
	ck_assert_uint_eq(lookup(img, "CHINON", "CD-ROM CDS-431", NULL, 5, NULL), BLIST_NOLUN);
	quirk_db_free(img);

	/* Every cut and a changed header are refused, never half read. */
	for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 97)
		ck_assert_int_eq(quirk_db_image_decode(buf, cut, dirs, 2, &img), -EINVAL);
	byte = buf[8];
	buf[8] = 1;
	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 2, &img), -EINVAL);
	buf[8] = byte;

	/* Another search path, an edit, a new file: stale. */
	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 1, &img), -ESTALE);
	write_text(other, "");
	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 2, &img), -ESTALE);
	ck_assert_int_eq(unlink(other), 0);
	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 2, &img), 0);
	quirk_db_free(img);
	write_text(conf, "");
	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 2, &img), -ESTALE);

	ck_assert_int_eq(unlink(conf), 0);
	ck_assert_int_eq(rmdir(tmpl), 0);
	free(buf);
	quirk_db_free(text);
	quirk_diags_clear(&d);
}
END_TEST

/* One bit flipped anywhere in an image, and it is refused whole: the
 * trailing hash covers every byte (a third of such flips once loaded, one
 * of them turning an exclude_luns into an empty range). */
START_TEST(image_every_bit_flip_refused)
{
	char tmpl[] = "/tmp/test-quirks-flip-XXXXXX", conf[64];
	const char *dirs[1];
	struct quirk_diags d = { 0 };
	struct quirk_db *text, *img = NULL;
	uint8_t *buf;
	size_t len;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	dirs[0] = tmpl;
	snprintf(conf, sizeof(conf), "%s/50-test.conf", tmpl);
	write_text(conf, image_conf);
	ck_assert_int_eq(quirk_db_load(dirs, 1, &d, &text), 0);
	ck_assert_int_eq(quirk_db_image(text, NULL, &buf, &len), 0);
	ck_assert_int_eq(quirk_db_image_decode(buf, len, dirs, 1, &img), 0);
	quirk_db_free(img);
	for (size_t bit = 0; bit < len * 8; bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		img = NULL;
		ck_assert_msg(quirk_db_image_decode(buf, len, dirs, 1, &img) == -EINVAL,
			      "bit %zu of %zu flipped, and the image loaded", bit, len * 8);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	ck_assert_int_eq(unlink(conf), 0);
	ck_assert_int_eq(rmdir(tmpl), 0);
	free(buf);
	quirk_db_free(text);
	quirk_diags_clear(&d);
}
END_TEST

/* Each file of the search path is opened once while the database loads:
 * the bytes its source records are the bytes that were parsed. Read once
 * to hash and once to parse, a file rewritten in between gave an image
 * that looked current forever but lacked its entries. */
START_TEST(image_sources_are_the_bytes_parsed)
{
	char tmpl[] = "/tmp/test-quirks-once-XXXXXX", conf[64];
	const char *dirs[1];
	struct quirk_diags d = { 0 };
	struct quirk_db *text;
	char ev[4096];
	int in, opens = 0;
	ssize_t n;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	dirs[0] = tmpl;
	snprintf(conf, sizeof(conf), "%s/50-test.conf", tmpl);
	write_text(conf, image_conf);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(inotify_add_watch(in, conf, IN_OPEN), 0);
	ck_assert_int_eq(quirk_db_load(dirs, 1, &d, &text), 0);
	while ((n = read(in, ev, sizeof(ev))) > 0)
		for (ssize_t off = 0; off < n; off += (ssize_t)sizeof(struct inotify_event) +
						      ((struct inotify_event *)(ev + off))->len)
			opens += (((struct inotify_event *)(ev + off))->mask & IN_OPEN) != 0;
	ck_assert_int_eq(opens, 1);
	close(in);
	ck_assert_int_eq(unlink(conf), 0);
	ck_assert_int_eq(rmdir(tmpl), 0);
	quirk_db_free(text);
	quirk_diags_clear(&d);
}
END_TEST

/* compile --output names a file to replace: never a device or directory. */
START_TEST(image_save_regular_files_only)
{
	char tmpl[] = "/tmp/test-quirks-save-XXXXXX", path[64], link[64];
	struct quirk_db *db = quirk_db_new();
	struct stat st;

	ck_assert_ptr_nonnull(db);
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_int_eq(quirk_db_image_save(db, NULL, "/dev/null"), -EINVAL);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(quirk_db_image_save(db, NULL, tmpl), -EINVAL);
	snprintf(path, sizeof(path), "%s/quirks.bin", tmpl);
	snprintf(link, sizeof(link), "%s/link.bin", tmpl);
	ck_assert_int_eq(quirk_db_image_save(db, NULL, path), 0);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(quirk_db_image_save(db, NULL, link), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(tmpl), 0);
	quirk_db_free(db);
}
END_TEST

static Suite *quirks_suite(void)
{
	Suite *s = suite_create("quirks");
	TCase *tc;

	tc = tcase_create("parser");
	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_empty_flags_list_sets_flags);
	tcase_add_test(tc, parse_bad_files);
	tcase_add_test(tc, parse_libconfuse_syntax);
	tcase_add_test(tc, parse_long_strings_refused_at_once);
	tcase_add_test(tc, parse_binary_garbage);
	tcase_add_test(tc, parse_empty_file_and_warnings);
	tcase_add_test(tc, shadow_warning);
	suite_add_tcase(s, tc);

	tc = tcase_create("matching");
	tcase_add_test(tc, inquiry_clean);
	tcase_add_test(tc, match_kernel_rules);
	tcase_add_test(tc, match_globs_revision_type);
	tcase_add_test(tc, match_merge_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("precedence");
	tcase_add_test(tc, precedence);
	tcase_add_test(tc, search_path);
	tcase_add_test(tc, reload);
	suite_add_tcase(s, tc);

	tc = tcase_create("kernel");
	tcase_add_test(tc, kernel_table_every_entry);
	tcase_add_test(tc, kernel_handler_table_every_entry);
	tcase_add_loop_test(tc, handler_choices, 0,
			    sizeof(handler_cases) / sizeof(handler_cases[0]));
	tcase_add_loop_test(tc, handler_steps, 0,
			    sizeof(handler_step_cases) / sizeof(handler_step_cases[0]));
	tcase_add_test(tc, handler_names);
	tcase_add_test(tc, devinfo_listed_rows);
	tcase_add_loop_test(tc, kflags_checks, 0, sizeof(kflags_cases) / sizeof(kflags_cases[0]));
	tcase_add_test(tc, blist_table_matches_kernel);
	tcase_add_test(tc, blist_format);
	suite_add_tcase(s, tc);

	tc = tcase_create("dev_flags");
	tcase_add_test(tc, dev_flags_parse_kernel_syntax);
	tcase_add_test(tc, dev_flags_export_shipped);
	tcase_add_test(tc, dev_flags_export_devices);
	tcase_add_test(tc, dev_flags_export_admin_changes);
	suite_add_tcase(s, tc);

	tc = tcase_create("image");
	tcase_add_test(tc, image_round_trip_and_staleness);
	tcase_add_test(tc, image_every_bit_flip_refused);
	tcase_add_test(tc, image_sources_are_the_bytes_parsed);
	tcase_add_test(tc, image_save_regular_files_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	data_dir = getenv("TEST_DATA_DIR");
	shipped_dir = getenv("QUIRKS_DIR");
	if (!data_dir || !shipped_dir) {
		fputs("TEST_DATA_DIR and QUIRKS_DIR must be set\n", stderr);
		return 2;
	}
	sr = srunner_create(quirks_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
