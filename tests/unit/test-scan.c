// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-scan.c - the exact commands a scan sends, stated in order with the
 * SG_IO script: a dry run of one host over a small fake tree whose LUN 0
 * is attached, for a SCSI-3 device, a SCSI-2 one, a device whose REPORT
 * LUNS fails and one that reports a unit attention first.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quirks.h"
#include "report.h"
#include "scan.h"
#include "sgio-script.h"
#include "sysroot.h"

#define INQ(len) .cdb = (const uint8_t[]){ 0x12, 0, 0, 0, (len), 0 }, .cdb_len = 6
#define RL4096 .cdb = (const uint8_t[]){ 0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0 }, .cdb_len = 12
#define SENSE(key, asc, ascq)                                                                      \
	.sense = (const uint8_t[]){ 0x70, 0, (key), 0,	   0,	   0, 0, 10, 0,                    \
				    0,	  0, 0,	    (asc), (ascq), 0, 0, 0,  0 },                  \
	.sense_len = 18

static char root[64];

static void put(const char *rel, const void *data, size_t len)
{
	char path[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!data) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fwrite(data, 1, len, f);
	fclose(f);
}

/* Host 0 with LUN 0 of target 0 attached, INQUIRY version @version. */
static void make_tree(uint8_t version)
{
	uint8_t inq[96] = { 0x00, 0x00, version, 0x02, 0x5b, 0,	  0,   0x02, 'A', 'C',
			    'M',  'E',	' ',	 ' ',  ' ',  ' ', 'D', 'i',  's', 'k' };

	snprintf(root, sizeof(root), "/tmp/test-scan-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put("sys/class/scsi_host/host0/proc_name", "fake\n", 5);
	put("sys/class/scsi_host/host0/scan", "", 0);
	put("sys/module/scsi_mod/parameters/max_luns", "512\n", 4);
	put("sys/bus/scsi/devices/0:0:0:0/inquiry", inq, sizeof(inq));
	put("sys/bus/scsi/devices/0:0:0:0/scsi_generic/sg0", NULL, 0);
	put("dev/sg0", "", 0);
	put("run", NULL, 0);
}

static void drop_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* A dry run of host 0; the script answers its commands. */
static void dry_run(const struct sgio_step *steps, size_t n, struct scan_report *rep)
{
	struct quirk_db *db = quirk_db_new();
	struct sysfs_ctx *sys = sysfs_new(root);
	struct scan_ctx ctx = { .sys = sys,
				.db = db,
				.opt = { .dry_run = true,
					 .inquiry_timeout = SCAN_INQUIRY_TIMEOUT,
					 .report_luns_timeout = SCAN_REPORT_LUNS_TIMEOUT } };
	struct selector sel = { 0, SCAN_WILDCARD, SCAN_WILDCARD, false, 0 };
	char node[128];

	ck_assert_ptr_nonnull(db);
	ck_assert_ptr_nonnull(sys);
	ck_assert_int_eq(quirk_db_finalize(db, NULL), 0);
	snprintf(node, sizeof(node), "%s/dev/sg0", root);
	sgio_script_begin_path(steps, n, node);
	ck_assert_int_eq(scan_selected(&ctx, &sel, rep), 0);
	sgio_script_end();
	sysfs_free(sys);
	quirk_db_free(db);
}

static const uint8_t luns_0_1_2[] = {
	0, 0, 0, 24, 0, 0, 0, 0, /* header: 3 entries */
	0, 0, 0, 0,  0, 0, 0, 0, /* LUN 0 */
	0, 1, 0, 0,  0, 0, 0, 0, /* LUN 1 */
	0, 2, 0, 0,  0, 0, 0, 0, /* LUN 2 */
};
static uint8_t inq_spc3[96] = { 0x00, 0x00, 0x05, 0x02, 0x5b, 0, 0, 0x02, 'A', 'C', 'M', 'E' };
static uint8_t inq_scsi2[36] = { 0x00, 0x00, 0x02, 0x02, 0x1f, 0, 0, 0x02, 'A', 'C', 'M', 'E' };

static const char *outcomes(const struct target_report *t)
{
	static char buf[256];

	buf[0] = '\0';
	for (size_t i = 0; i < t->nluns; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%llu:%s", i ? " " : "",
			 (unsigned long long)t->luns[i].lun, lun_outcome_name(t->luns[i].outcome));
	return buf;
}

START_TEST(scan_spc3_sequence)
{
	struct scan_report rep = { 0 };
	const struct target_report *t;

	make_tree(0x05);
	/* INQUIRY of 36 bytes as the kernel sends it, then the whole length
	 * the device claims, then REPORT LUNS with the kernel's 4096 bytes */
	dry_run(
		(struct sgio_step[]){
			{ INQ(36), .timeout_ms = 20000, .data = inq_spc3, .data_len = 36 },
			{ INQ(96), .timeout_ms = 20000, .data = inq_spc3, .data_len = 96 },
			{ RL4096, .timeout_ms = 30000, .data = luns_0_1_2,
			  .data_len = sizeof(luns_0_1_2) } },
		3, &rep);
	ck_assert_uint_eq(rep.nhosts, 1);
	ck_assert_uint_eq(rep.hosts[0].ntargets, 1);
	t = &rep.hosts[0].targets[0];
	ck_assert_str_eq(outcomes(t), "0:present 1:would-probe 2:would-probe");
	ck_assert_str_eq(scan_code_name(t->method_code), "scsi-3");
	ck_assert_str_eq(inquiry_source_text(t->inquiry_source), "SG_IO");
	scan_report_free(&rep);
	drop_tree();
}
END_TEST

START_TEST(scan_scsi2_sequence)
{
	struct scan_report rep = { 0 };

	make_tree(0x02);
	/* 36 bytes is all it has; no REPORT LUNS to a SCSI-2 device */
	dry_run((struct sgio_step[]){ { INQ(36), .data = inq_scsi2, .data_len = 36 } }, 1, &rep);
	ck_assert_str_eq(scan_code_name(rep.hosts[0].targets[0].method_code), "scsi-2");
	ck_assert_str_eq(outcomes(&rep.hosts[0].targets[0]), "0:present 1:would-probe");
	scan_report_free(&rep);
	drop_tree();
}
END_TEST

START_TEST(scan_report_luns_fails_and_retries)
{
	struct scan_report rep = { 0 };
	const struct sgio_step ua = { RL4096, .status = SCRIPT_CHECK_CONDITION,
				      SENSE(0x06, 0x3f, 0x0e) };

	make_tree(0x05);
	/* ILLEGAL REQUEST: the sequential scan instead, with no command */
	dry_run((struct sgio_step[]){ { INQ(36), .data = inq_spc3, .data_len = 36 },
				      { INQ(96), .data = inq_spc3, .data_len = 96 },
				      { RL4096, .status = SCRIPT_CHECK_CONDITION,
					SENSE(0x05, 0x20, 0x00) } },
		3, &rep);
	ck_assert_str_eq(scan_code_name(rep.hosts[0].targets[0].method_code), "report-luns-failed");
	ck_assert(rep.hosts[0].targets[0].report_luns_failed);
	scan_report_free(&rep);
	memset(&rep, 0, sizeof(rep));
	/* a unit attention (reported LUNs data changed) is retried */
	dry_run((struct sgio_step[]){ { INQ(36), .data = inq_spc3, .data_len = 36 },
				      { INQ(96), .data = inq_spc3, .data_len = 96 },
				      ua,
				      { RL4096, .data = luns_0_1_2,
					.data_len = sizeof(luns_0_1_2) } },
		4, &rep);
	ck_assert_str_eq(outcomes(&rep.hosts[0].targets[0]),
			 "0:present 1:would-probe 2:would-probe");
	scan_report_free(&rep);
	drop_tree();
}
END_TEST

START_TEST(scan_inquiry_fails_uses_sysfs_copy)
{
	struct scan_report rep = { 0 };

	make_tree(0x05);
	/* INQUIRY through SG_IO fails: the kernel's copy in sysfs stands in,
	 * and REPORT LUNS is still asked */
	dry_run((struct sgio_step[]){ { INQ(36), .host_status = SCRIPT_DID_TIME_OUT },
				      { RL4096, .data = luns_0_1_2,
					.data_len = sizeof(luns_0_1_2) } },
		2, &rep);
	ck_assert_str_eq(inquiry_source_text(rep.hosts[0].targets[0].inquiry_source),
			 "sysfs inquiry attribute (INQUIRY failed)");
	scan_report_free(&rep);
	drop_tree();
}
END_TEST

/* 16,384 lines with a few reasons keep a few texts; each line still reads
 * its own. */
START_TEST(report_lines_share_texts)
{
	struct target_report t = { 0 };
	char long_text[PLAN_REASON_LEN + 64];

	for (uint64_t lun = 0; lun < 16384; lun++)
		ck_assert_int_eq(report_add_lun(&t, lun, lun % 3 ? LUN_ATTACHED : LUN_SKIPPED,
						SC_LISTED, "%s",
						lun % 3 ? "listed by REPORT LUNS" : "excluded"),
				 0);
	ck_assert_uint_eq(t.nluns, 16384);
	ck_assert_str_eq(t.luns[1].reason, "listed by REPORT LUNS");
	ck_assert_str_eq(t.luns[3].reason, "excluded");
	ck_assert_ptr_eq(t.luns[1].reason, t.luns[16382].reason);
	ck_assert_ptr_eq(t.luns[0].reason, t.luns[16383].reason);
	/* a line said again, from its own old text; the others keep theirs */
	ck_assert_int_eq(report_set_reason(&t, &t.luns[4], "%s; detached again", t.luns[4].reason),
			 0);
	ck_assert_str_eq(t.luns[4].reason, "listed by REPORT LUNS; detached again");
	ck_assert_str_eq(t.luns[5].reason, "listed by REPORT LUNS");
	/* distinct texts fill blocks; a text is cut at PLAN_REASON_LEN as
	 * before */
	for (uint64_t lun = 0; lun < 200; lun++)
		ck_assert_int_eq(report_add_lun(&t, lun, LUN_ABSENT, SC_LISTED,
						"LUN %" PRIu64 " did not answer", lun),
				 0);
	ck_assert_str_eq(t.luns[16384 + 150].reason, "LUN 150 did not answer");
	ck_assert_str_eq(t.luns[16384].reason, "LUN 0 did not answer");
	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	ck_assert_int_eq(report_add_lun(&t, 1, LUN_ABSENT, SC_LISTED, "%s", long_text), 0);
	ck_assert_uint_eq(strlen(t.luns[t.nluns - 1].reason), PLAN_REASON_LEN - 1);
	/* a format without '%' is its own text, cut the same way */
	ck_assert_int_eq(report_add_lun(&t, 2, LUN_ABSENT, SC_LISTED, "100%% sure"), 0);
	ck_assert_str_eq(t.luns[t.nluns - 1].reason, "100% sure");
	ck_assert_int_eq(report_add_lun(&t, 2, LUN_ABSENT, SC_LISTED, "no format"), 0);
	ck_assert_str_eq(t.luns[t.nluns - 1].reason, "no format");
	report_target_free(&t);
	ck_assert_ptr_null(t.texts);
}
END_TEST

/* A binary attribute comes whole, whether it is shorter than the first
 * read, fills it, or goes on past it; by its path and from a directory. */
START_TEST(binary_attributes_read_whole)
{
	static const size_t sizes[] = { 117, 511, 512, 513, 3000, 4096 };
	static uint8_t data[4096], buf[8192];
	struct sysfs_ctx *sys;
	int dir;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	make_tree(6);
	sys = sysfs_new(root);
	ck_assert_ptr_nonnull(sys);
	dir = sysfs_dir_fd(sys, "/sys/bus/scsi/devices");
	ck_assert_int_ge(dir, 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "sys/bus/scsi/devices/0:0:0:0/page%zu", i);
		put(rel, data, sizes[i]);
		memset(buf, 0, sizeof(buf));
		ck_assert_int_eq(sysfs_read_bin(sys, buf, sizeof(buf), "/%s", rel), (int)sizes[i]);
		ck_assert_mem_eq(buf, data, sizes[i]);
		memset(buf, 0, sizeof(buf));
		snprintf(rel, sizeof(rel), "0:0:0:0/page%zu", i);
		ck_assert_int_eq(sysfs_read_bin_at(dir, rel, buf, sizeof(buf)), (int)sizes[i]);
		ck_assert_mem_eq(buf, data, sizes[i]);
		/* a buffer shorter than the attribute gets what fits */
		ck_assert_int_eq(sysfs_read_bin_at(dir, rel, buf, 100), 100);
	}
	close(dir);
	sysfs_free(sys);
	drop_tree();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = tcase_create("sequence");
	SRunner *sr;
	int failed;

	memcpy(inq_spc3 + 16, "Disk", 4);
	memcpy(inq_scsi2 + 16, "Disk", 4);
	tcase_add_test(tc, scan_spc3_sequence);
	tcase_add_test(tc, scan_scsi2_sequence);
	tcase_add_test(tc, scan_report_luns_fails_and_retries);
	tcase_add_test(tc, scan_inquiry_fails_uses_sysfs_copy);
	tcase_add_test(tc, report_lines_share_texts);
	tcase_add_test(tc, binary_attributes_read_whole);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
