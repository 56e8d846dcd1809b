// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-sgio.c - INQUIRY and REPORT LUNS through libsgutils2 against an
 * ordered SG_IO script: each test states the commands it expects and what
 * the device answers (data, status, sense, transport errors, timeouts,
 * short and oversized responses).
 */
#include <check.h>
#include <errno.h>
#include <scsi/sg_lib.h>
#include <stdlib.h>
#include <string.h>

#include "sgio-script.h"
#include "sgio.h"

#define INQ(len) .cdb = (const uint8_t[]){ 0x12, 0, 0, 0, (len), 0 }, .cdb_len = 6
#define RL(len)                                                                                    \
	.cdb =                                                                                     \
		(const uint8_t[12]){                                                               \
			0xa0, [6] = (uint8_t)((len) >> 24), [7] = (uint8_t)((len) >> 16),          \
			[8] = (uint8_t)((len) >> 8), [9] = (uint8_t)(len)                          \
		},                                                                                 \
	.cdb_len = 12

/* Fixed-format sense data: key, ASC, ASCQ. */
#define SENSE(key, asc, ascq)                                                                      \
	.sense = (const uint8_t[]){ 0x70, 0, (key), 0,	   0,	   0, 0, 10, 0,                    \
				    0,	  0, 0,	    (asc), (ascq), 0, 0, 0,  0 },                  \
	.sense_len = 18

static const uint8_t inq36[36] = { 0x00, 0x00, 0x06, 0x12, 0x5b, 0,   0,   0x02, 'A', 'C',
				   'M',	 'E',  ' ',  ' ',  ' ',	 ' ', 'D', 'i',	 's', 'k' };

static uint8_t big[96];

/* A REPORT LUNS response for LUNs 0 .. n-1 that claims @claim entries. */
static uint8_t *lun_list(size_t n, size_t claim, size_t *ret_len)
{
	uint8_t *b = calloc(8 + 8 * n, 1);

	ck_assert_ptr_nonnull(b);
	b[0] = (uint8_t)((8 * claim) >> 24);
	b[1] = (uint8_t)((8 * claim) >> 16);
	b[2] = (uint8_t)((8 * claim) >> 8);
	b[3] = (uint8_t)(8 * claim);
	for (size_t i = 0; i < n; i++) {
		b[8 + 8 * i] = (uint8_t)(i >> 8 & 0x3f);
		b[8 + 8 * i + 1] = (uint8_t)i;
	}
	*ret_len = 8 + 8 * n;
	return b;
}

static int inquiry(const struct sgio_step *steps, size_t n, size_t len, size_t *got,
		   struct sgio_error *err)
{
	uint8_t buf[255];
	int fd = sgio_script_begin(steps, n), r;

	r = sgio_inquiry(fd, buf, len, 20, got, err);
	sgio_script_end();
	return r;
}

START_TEST(inquiry_good_short_oversized)
{
	struct sgio_error err;
	size_t got = 0;

	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .timeout_ms = 20000,
							 .data = inq36, .data_len = 36 } },
				 1, 36, &got, &err),
			 0);
	ck_assert_uint_eq(got, 36);
	/* a short answer leaves a residual */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(96), .data = inq36, .data_len = 20 } },
				 1, 96, &got, &err),
			 0);
	ck_assert_uint_eq(got, 20);
	/* more than asked for is cut to the allocation length */
	ck_assert_int_eq(
		inquiry((struct sgio_step[]){ { INQ(36), .data = big, .data_len = sizeof(big) } },
			1, 36, &got, &err),
		0);
	ck_assert_uint_eq(got, 36);
	/* a residual past the buffer (a buggy HBA) means nothing moved */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .data = inq36, .data_len = 36,
							 .resid = 500, .lie_resid = true } },
				 1, 36, &got, &err),
			 0);
	ck_assert_uint_eq(got, 0);
	/* a negative one is not taken as more data */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .data = inq36, .data_len = 36,
							 .resid = -4, .lie_resid = true } },
				 1, 36, &got, &err),
			 0);
	ck_assert_uint_eq(got, 36);
	/* at most 255 bytes are asked for */
	ck_assert_int_eq(
		inquiry((struct sgio_step[]){ { INQ(255), .data = inq36, .data_len = 36 } }, 1,
			4096, &got, &err),
		0);
}
END_TEST

START_TEST(inquiry_retries)
{
	const struct sgio_step ua = { INQ(36), .status = SCRIPT_CHECK_CONDITION,
				      SENSE(0x06, 0x29, 0x00) };
	const struct sgio_step busy = { INQ(36), .status = SCRIPT_BUSY };
	const struct sgio_step full = { INQ(36), .status = SCRIPT_TASK_SET_FULL };
	const struct sgio_step aborted = { INQ(36), .status = SCRIPT_CHECK_CONDITION,
					   SENSE(0x0b, 0x47, 0x00) };
	const struct sgio_step good = { INQ(36), .data = inq36, .data_len = 36 };
	struct sgio_error err;
	size_t got;

	/* unit attention, BUSY, TASK SET FULL and ABORTED COMMAND: again */
	ck_assert_int_eq(
		inquiry((struct sgio_step[]){ ua, busy, aborted, good }, 4, 36, &got, &err), 0);
	ck_assert_int_eq(inquiry((struct sgio_step[]){ full, good }, 2, 36, &got, &err), 0);
	/* three retries, then the unit attention is the answer */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ ua, ua, ua, ua }, 4, 36, &got, &err),
			 SG_LIB_CAT_UNIT_ATTENTION);
	ck_assert(err.has_sense);
	ck_assert_uint_eq(err.sense.key, 0x06);
	ck_assert_int_eq(inquiry((struct sgio_step[]){ busy, busy, busy, busy }, 4, 36, &got, &err),
			 SG_LIB_CAT_BUSY);
	ck_assert_ptr_nonnull(strstr(err.text, "SCSI status 0x08"));
}
END_TEST

START_TEST(inquiry_failures)
{
	struct sgio_error err;
	size_t got = 99;

	/* NOT READY and ILLEGAL REQUEST are answers: no retry */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .status = SCRIPT_CHECK_CONDITION,
							 SENSE(0x02, 0x04, 0x01) } },
				 1, 36, &got, &err),
			 SG_LIB_CAT_NOT_READY);
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .status = SCRIPT_CHECK_CONDITION,
							 SENSE(0x05, 0x24, 0x00) } },
				 1, 36, &got, &err),
			 SG_LIB_CAT_ILLEGAL_REQ);
	ck_assert(err.has_sense);
	ck_assert_uint_eq(err.sense.asc, 0x24);
	/* RECOVERED ERROR moved the data */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .data = inq36, .data_len = 36,
							 .status = SCRIPT_CHECK_CONDITION,
							 SENSE(0x01, 0x17, 0x01) } },
				 1, 36, &got, &err),
			 0);
	ck_assert_uint_eq(got, 36);
	/* CHECK CONDITION without sense */
	ck_assert_int_gt(
		inquiry((struct sgio_step[]){ { INQ(36), .status = SCRIPT_CHECK_CONDITION } }, 1,
			36, &got, &err),
		0);
	/* the midlayer's timeout and a transport error, as host status */
	ck_assert_int_eq(
		inquiry((struct sgio_step[]){ { INQ(36), .host_status = SCRIPT_DID_TIME_OUT } }, 1,
			36, &got, &err),
		SG_LIB_CAT_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(err.text, "timed out after 20 s"));
	ck_assert_int_eq(
		inquiry((struct sgio_step[]){ { INQ(36), .host_status = SCRIPT_DID_NO_CONNECT } },
			1, 36, &got, &err),
		SG_LIB_CAT_OTHER);
	ck_assert_ptr_nonnull(strstr(err.text, "transport error"));
	/* the ioctl itself fails */
	ck_assert_int_eq(inquiry((struct sgio_step[]){ { INQ(36), .ioctl_errno = ENODEV } }, 1, 36,
				 &got, &err),
			 -ENODEV);
}
END_TEST

#define VPD(page, len)                                                                             \
	.cdb = (const uint8_t[]){ 0x12, 1, (page), (uint8_t)((len) >> 8), (uint8_t)(len), 0 },     \
	.cdb_len = 6

/* A VPD page is asked for with 1,024 bytes first, and once more with the
 * length the page's own header gives when that is longer. */
START_TEST(vpd_page_short_then_whole)
{
	static uint8_t small[16] = { 0, 0x83, 0, 12, 0x01, 0x03, 0, 8, 0x60, 0x01 };
	static uint8_t large[2004] = { 0, 0x83, (2000 >> 8), (2000 & 0xff) };
	static uint8_t buf[65536];
	const struct sgio_step one[] = { { VPD(0x83, 1024), .data = small, .data_len = 16 } };
	const struct sgio_step two[] = {
		{ VPD(0x83, 1024), .data = large, .data_len = sizeof(large) },
		{ VPD(0x83, 2004), .data = large, .data_len = sizeof(large) },
	};
	const struct sgio_step refused[] = { { VPD(0x80, 1024), .status = SCRIPT_CHECK_CONDITION,
					       SENSE(0x05, 0x24, 0x00) } };
	struct sgio_error err;
	size_t got = 0;
	int fd;

	fd = sgio_script_begin(one, 1);
	ck_assert_int_eq(sgio_inquiry_vpd(fd, 0x83, buf, 65535, 20, &got, &err), 0);
	sgio_script_end();
	ck_assert_uint_eq(got, 16);
	fd = sgio_script_begin(two, 2);
	ck_assert_int_eq(sgio_inquiry_vpd(fd, 0x83, buf, 65535, 20, &got, &err), 0);
	sgio_script_end();
	ck_assert_uint_eq(got, 2004);
	fd = sgio_script_begin(refused, 1);
	ck_assert_int_eq(sgio_inquiry_vpd(fd, 0x80, buf, 65535, 20, &got, &err),
			 SG_LIB_CAT_ILLEGAL_REQ);
	sgio_script_end();
}
END_TEST

START_TEST(report_luns_regrow)
{
	struct sgio_error err;
	size_t len, got = 0;
	uint8_t *all = lun_list(2048, 2048, &len), *buf = NULL;
	int fd;

	/* 2,048 LUNs: the kernel's 4096 bytes first, then what the device said */
	fd = sgio_script_begin(
		(struct sgio_step[]){
			{ RL(4096), .timeout_ms = 30000, .data = all, .data_len = len },
			{ RL(16392), .timeout_ms = 30000, .data = all, .data_len = len } },
		2);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), 0);
	sgio_script_end();
	ck_assert_uint_eq(got, 16392);
	ck_assert_int_eq(memcmp(buf, all, len), 0);
	free(buf);
	free(all);
	/* a list that fits: one command */
	all = lun_list(3, 3, &len);
	fd = sgio_script_begin((struct sgio_step[]){ { RL(4096), .data = all, .data_len = len } },
			       1);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), 0);
	sgio_script_end();
	ck_assert_uint_eq(got, 32);
	free(buf);
	free(all);
}
END_TEST

START_TEST(report_luns_lies)
{
	struct sgio_error err;
	size_t len, got;
	uint8_t *claims = lun_list(4, 1u << 24, &len), *buf = NULL;
	int fd;

	/* a device that claims 16 M LUNs: asked once more, at the 1 MiB bound */
	fd = sgio_script_begin((struct sgio_step[]){ { RL(4096), .data = claims, .data_len = len },
						     { RL(SGIO_REPORT_LUNS_MAX), .data = claims,
						       .data_len = len } },
			       2);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), 0);
	sgio_script_end();
	ck_assert_uint_eq(got, len);
	free(buf);
	/* 600 LUNs: the list grows once, to what the device says */
	free(claims);
	claims = lun_list(600, 600, &len);
	fd = sgio_script_begin(
		(struct sgio_step[]){ { RL(4096), .data = claims, .data_len = len },
				      { RL(4808), .data = claims, .data_len = len } },
		2);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), 0);
	sgio_script_end();
	free(buf);
	free(claims);
	/* less than the header */
	fd = sgio_script_begin(
		(struct sgio_step[]){
			{ RL(4096), .data = (const uint8_t[]){ 0, 0, 0 }, .data_len = 3 } },
		1);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), SG_LIB_CAT_MALFORMED);
	sgio_script_end();
	ck_assert_ptr_nonnull(strstr(err.text, "less than its header"));
	/* a unit attention (reported LUNs changed), then the list */
	claims = lun_list(2, 2, &len);
	fd = sgio_script_begin(
		(struct sgio_step[]){
			{ RL(4096), .status = SCRIPT_CHECK_CONDITION, SENSE(0x06, 0x3f, 0x0e) },
			{ RL(4096), .data = claims, .data_len = len } },
		2);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), 0);
	sgio_script_end();
	free(buf);
	free(claims);
	/* ILLEGAL REQUEST, invalid opcode: the device does not take it
	 * (libsgutils2 names that category of its own) */
	fd = sgio_script_begin((struct sgio_step[]){ { RL(4096), .status = SCRIPT_CHECK_CONDITION,
						       SENSE(0x05, 0x20, 0x00) } },
			       1);
	ck_assert_int_eq(sgio_report_luns(fd, 30, &buf, &got, &err), SG_LIB_CAT_INVALID_OP);
	sgio_script_end();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sgio");
	TCase *tc = tcase_create("sgio");
	SRunner *sr;
	int failed;

	memcpy(big, inq36, sizeof(inq36));
	tcase_add_test(tc, inquiry_good_short_oversized);
	tcase_add_test(tc, inquiry_retries);
	tcase_add_test(tc, inquiry_failures);
	tcase_add_test(tc, vpd_page_short_then_whole);
	tcase_add_test(tc, report_luns_regrow);
	tcase_add_test(tc, report_luns_lies);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
