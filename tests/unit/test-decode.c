// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-decode.c - INQUIRY, REPORT LUNS, LUN conversion, sense, and the
 * scan planner rule by rule.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "inquiry.h"
#include "luns.h"
#include "monitor.h"
#include "output.h"
#include "plan.h"
#include "scsi-addr.h"
#include "sense.h"

/* A standard INQUIRY response as scsi_debug sends it (SPC-5, disk). */
static const uint8_t inq_spc5[] = {
	0x00, 0x00, 0x07, 0x12, 0x5b, 0x00, 0x00, 0x02, 'L', 'i', 'n', 'u',
	'x',  ' ',  ' ',  ' ',	's',  'c',  's',  'i',	'_', 'd', 'e', 'b',
	'u',  'g',  ' ',  ' ',	' ',  ' ',  ' ',  ' ',	'0', '1', '9', '1',
};

START_TEST(inquiry_spc5)
{
	struct inquiry inq;

	ck_assert_int_eq(inquiry_decode(inq_spc5, sizeof(inq_spc5), &inq), 0);
	ck_assert_uint_eq(inq.pq, 0);
	ck_assert_uint_eq(inq.pdt, PDT_DISK);
	ck_assert_int_eq(inq.scsi_level, SCSI_LEVEL_SPC_5);
	ck_assert_uint_eq(inq.response_len, 0x5b + 5);
	ck_assert_str_eq(inq.vendor, "Linux");
	ck_assert_str_eq(inq.model, "scsi_debug");
	ck_assert_str_eq(inq.revision, "0191");
	ck_assert(!inq.removable);
}
END_TEST

START_TEST(inquiry_levels_and_qualifiers)
{
	uint8_t b[36];
	struct inquiry inq;

	memcpy(b, inq_spc5, sizeof(b));
	b[0] = 0x7f; /* PQ 3, PDT 1f: no LUN here */
	b[1] = 0x80;
	b[2] = 0x02;
	ck_assert_int_eq(inquiry_decode(b, sizeof(b), &inq), 0);
	ck_assert_uint_eq(inq.pq, INQ_PQ_NO_LUN);
	ck_assert_uint_eq(inq.pdt, PDT_NO_DEVICE);
	ck_assert(inq.removable);
	ck_assert_int_eq(inq.scsi_level, SCSI_LEVEL_2);
	b[0] = 0x25; /* PQ 1, CD-ROM */
	ck_assert_int_eq(inquiry_decode(b, sizeof(b), &inq), 0);
	ck_assert_uint_eq(inq.pq, INQ_PQ_NOT_CONNECTED);
	ck_assert_uint_eq(inq.pdt, PDT_ROM);
	ck_assert_int_eq(inquiry_scsi_level(0, 0), SCSI_LEVEL_UNKNOWN);
	ck_assert_int_eq(inquiry_scsi_level(1, 0), SCSI_LEVEL_1);
	ck_assert_int_eq(inquiry_scsi_level(1, 1), SCSI_LEVEL_1_CCS);
	ck_assert_int_eq(inquiry_scsi_level(3, 2), SCSI_LEVEL_3);
	ck_assert_int_eq(inquiry_scsi_level(6, 2), SCSI_LEVEL_SPC_4);
	/* only the low nibble counts: old ISO/ECMA bits above it */
	ck_assert_int_eq(inquiry_scsi_level(0x82, 2), SCSI_LEVEL_2);
}
END_TEST

START_TEST(inquiry_truncated_and_lying)
{
	struct inquiry inq;
	uint8_t b[20];

	/* 20 bytes: vendor whole, model cut after 4 bytes */
	memcpy(b, inq_spc5, sizeof(b));
	ck_assert_int_eq(inquiry_decode(b, sizeof(b), &inq), 0);
	ck_assert_str_eq(inq.vendor, "Linux");
	ck_assert_str_eq(inq.model, "scsi");
	ck_assert_str_eq(inq.revision, "");
	/* the additional length claims 96 more bytes than were sent */
	ck_assert_uint_eq(inq.response_len, 96);
	ck_assert_uint_eq(inq.len, 20);
	ck_assert_int_eq(inquiry_decode(b, 4, &inq), -EINVAL);
	ck_assert_int_eq(inquiry_decode(NULL, 36, &inq), -EINVAL);
}
END_TEST

START_TEST(inquiry_control_bytes)
{
	uint8_t b[36];
	struct inquiry inq;

	memcpy(b, inq_spc5, sizeof(b));
	memcpy(b + 8, "AC\x1b[2JME", 8);
	memcpy(b + 16, "Disk\0garbage!!!!", 16);
	ck_assert_int_eq(inquiry_decode(b, sizeof(b), &inq), 0);
	ck_assert_str_eq(inq.vendor, "AC [2JME");
	ck_assert_str_eq(inq.model, "Disk");
	ck_assert_str_eq(pdt_name(0), "disk");
	ck_assert_str_eq(pdt_name(5), "cd/dvd");
	ck_assert_str_eq(pdt_name(30), "wlun");
	ck_assert_str_eq(pdt_name(99), "(?)");
	ck_assert_str_eq(scsi_level_name(SCSI_LEVEL_2), "SCSI-2");
}
END_TEST

START_TEST(lun_conversion)
{
	static const struct {
		uint8_t b[8];
		uint64_t lun;
	} cases[] = {
		{ { 0x00, 0x05 }, 5 },
		{ { 0x40, 0x01 }, 0x4001 },
		{ { 0x01, 0x2c }, 300 },
		{ { 0xc1, 0x01 }, LUN_WLUN_REPORT_LUNS },
		{ { 0xd2, 0x04, 0x0b, 0x03 }, 0x0b03d204 },
		{ { 0x40, 0x01, 0x40, 0x02 }, 0x40024001 },
		{ { 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04 }, 0x0004000300020001ULL },
		{ { 0 }, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t back[8];

		ck_assert_uint_eq(lun_from_scsilun(cases[i].b), cases[i].lun);
		lun_to_scsilun(cases[i].lun, back);
		ck_assert_mem_eq(back, cases[i].b, 8);
	}
	ck_assert(lun_is_wlun(LUN_WLUN_REPORT_LUNS));
	ck_assert(lun_is_wlun(0xc100));
	ck_assert(!lun_is_wlun(0x4001));
	ck_assert(lun_scan_writable(0x00ffffffffffffffULL));
	ck_assert(!lun_scan_writable(0x0100000000000000ULL));
}
END_TEST

static size_t put_lun_list(uint8_t *buf, const uint64_t *luns, size_t n, uint32_t claim)
{
	memset(buf, 0, 8);
	buf[0] = claim >> 24;
	buf[1] = claim >> 16;
	buf[2] = claim >> 8;
	buf[3] = claim;
	for (size_t i = 0; i < n; i++)
		lun_to_scsilun(luns[i], buf + 8 + 8 * i);
	return 8 + 8 * n;
}

START_TEST(report_luns)
{
	static const uint64_t listed[] = { 0, 1, 2, 300, 0x4001, 0x40024001 };
	uint8_t buf[8 + 8 * 8];
	uint64_t *luns;
	size_t n, needed, len;
	bool complete;

	len = put_lun_list(buf, listed, 6, 6 * 8);
	ck_assert_int_eq(report_luns_decode(buf, len, &luns, &n, &needed, &complete), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(needed, len);
	ck_assert(complete);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(luns[i], listed[i]);
	free(luns);

	/* the device lists 300 LUNs but only 6 fit: decode what arrived, say
	 * how much is needed */
	ck_assert_int_eq(report_luns_decode(buf, len, &luns, &n, &needed, &complete), 0);
	free(luns);
	put_lun_list(buf, listed, 6, 300 * 8);
	ck_assert_int_eq(report_luns_decode(buf, len, &luns, &n, &needed, &complete), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(needed, 300 * 8 + 8);
	ck_assert(!complete);
	free(luns);

	/* the header says 4 LUNs, the transfer carries 1: that one, and the
	 * list is not whole (nothing may be removed for its absence) */
	put_lun_list(buf, listed, 4, 4 * 8);
	ck_assert_int_eq(report_luns_decode(buf, 16, &luns, &n, &needed, &complete), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(needed, 40);
	ck_assert(!complete);
	free(luns);
	put_lun_list(buf, listed, 6, 6 * 8);

	/* a half entry at the end is ignored */
	ck_assert_int_eq(report_luns_decode(buf, len - 4, &luns, &n, &needed, &complete), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert(!complete);
	free(luns);

	/* an empty list */
	put_lun_list(buf, listed, 0, 0);
	ck_assert_int_eq(report_luns_decode(buf, 8, &luns, &n, &needed, &complete), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(luns);
	ck_assert(complete);
	ck_assert_int_eq(report_luns_decode(buf, 7, &luns, &n, &needed, &complete), -EINVAL);
}
END_TEST

START_TEST(report_luns_duplicates)
{
	static const uint64_t listed[] = { 3, 1, 3, 0, 1, 2, 3 };
	uint8_t buf[8 + 8 * 7];
	uint64_t *luns;
	size_t n, needed, len;
	bool complete;

	len = put_lun_list(buf, listed, 7, 7 * 8);
	ck_assert_int_eq(report_luns_decode(buf, len, &luns, &n, &needed, &complete), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(luns[0], 3);
	ck_assert_uint_eq(luns[1], 1);
	ck_assert_uint_eq(luns[2], 0);
	ck_assert_uint_eq(luns[3], 2);
	free(luns);
}
END_TEST

/* Which uevents ask for what: one row per event as udev delivers it. */
START_TEST(event_classify)
{
	static const struct {
		const char *action, *subsystem, *devtype, *sysname, *devpath, *ua;
		int ret;
		enum scsi_event_kind kind;
		unsigned int host;
		int channel, id;
	} rows[] = {
		{ "add", "scsi_host", NULL, "host3", "/devices/pci0/host3/scsi_host/host3", NULL, 0,
		  SCSI_EVENT_HOST_ADD, 3, -1, -1 },
		{ "remove", "scsi_host", NULL, "host3", NULL, NULL, 0, SCSI_EVENT_HOST_REMOVE, 3,
		  -1, -1 },
		{ "add", "scsi_host", NULL, "host3x", NULL, NULL, -EINVAL, SCSI_EVENT_NONE, 0, -1,
		  -1 },
		{ "add", "fc_remote_ports", NULL, "rport-2:1-7", NULL, NULL, 0,
		  SCSI_EVENT_TARGET_ADD, 2, 1, -1 },
		{ "add", "sas_end_device", NULL, "end_device-1:0:3", NULL, NULL, 0,
		  SCSI_EVENT_TARGET_ADD, 1, -1, -1 },
		{ "add", "iscsi_session", NULL, "session4",
		  "/devices/platform/host5/session4/iscsi_session/session4", NULL, 0,
		  SCSI_EVENT_TARGET_ADD, 5, -1, -1 },
		{ "add", "iscsi_session", NULL, "session4", "/devices/virtual/session4", NULL,
		  -EINVAL, SCSI_EVENT_NONE, 0, -1, -1 },
		{ "remove", "iscsi_session", NULL, "session4",
		  "/devices/platform/host5/session4/iscsi_session/session4", NULL, 0,
		  SCSI_EVENT_NONE, 0, -1, -1 },
		{ "change", "scsi", "scsi_device", "2:0:1:7", NULL,
		  "REPORTED_LUNS_DATA_HAS_CHANGED", 0, SCSI_EVENT_LUNS_CHANGED, 2, 0, 1 },
		{ "change", "scsi", "scsi_device", "2:0:1:7", NULL, "INQUIRY_DATA_HAS_CHANGED", 0,
		  SCSI_EVENT_INQUIRY_CHANGED, 2, 0, 1 },
		{ "change", "scsi", "scsi_device", "2:0:1:7", NULL, "CAPACITY_DATA_HAS_CHANGED", 0,
		  SCSI_EVENT_CAPACITY_CHANGED, 2, 0, 1 },
		{ "change", "scsi", "scsi_device", "2:0:1:7", NULL, "MODE_PARAMETERS_CHANGED", 0,
		  SCSI_EVENT_NONE, 0, -1, -1 },
		{ "change", "scsi", "scsi_device", "2:0:1:7", NULL, NULL, 0, SCSI_EVENT_NONE, 0, -1,
		  -1 },
		{ "add", "scsi", "scsi_device", "2:0:1:7", NULL, NULL, 0, SCSI_EVENT_NONE, 0, -1,
		  -1 },
		/* Names the kernel never gives: refused, never read as other numbers. */
		{ "add", "scsi_host", NULL, "host-1", NULL, NULL, -EINVAL, SCSI_EVENT_NONE, 0, -1,
		  -1 },
		{ "add", "scsi_host", NULL, "host4294967296", NULL, NULL, -EINVAL, SCSI_EVENT_NONE,
		  0, -1, -1 },
		{ "add", "fc_remote_ports", NULL, "rport-0:4294967295-1", NULL, NULL, -EINVAL,
		  SCSI_EVENT_NONE, 0, -1, -1 },
		{ "change", "scsi", "scsi_device", "2:0:4294967295:7", NULL,
		  "REPORTED_LUNS_DATA_HAS_CHANGED", -EINVAL, SCSI_EVENT_NONE, 0, -1, -1 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct scsi_event ev;
		int r = scsi_event_classify(rows[i].action, rows[i].subsystem, rows[i].devtype,
					    rows[i].sysname, rows[i].devpath, rows[i].ua, &ev);

		ck_assert_msg(r == rows[i].ret, "row %zu: %d", i, r);
		if (r < 0)
			continue;
		ck_assert_msg(ev.kind == rows[i].kind, "row %zu: kind %d", i, ev.kind);
		if (ev.kind == SCSI_EVENT_NONE)
			continue;
		ck_assert_uint_eq(ev.host, rows[i].host);
		ck_assert_int_eq(ev.channel, rows[i].channel);
		ck_assert_int_eq(ev.id, rows[i].id);
	}
}
END_TEST

/* The kernel's names for SCSI objects, read strictly: what it never
 * prints is refused, never read as another number (a channel of
 * 4294967295 became the scan file's wildcard). */
START_TEST(scsi_names)
{
	static const struct {
		const char *name;
		int ret;
		unsigned int host, channel, id;
		uint64_t lun;
	} hctl[] = {
		{ "0:0:0:0", 0, 0, 0, 0, 0 },
		{ "2:1:7:49409", 0, 2, 1, 7, 49409 },
		{ "2147483647:0:0:18446744073709551615", 0, 2147483647u, 0, 0, UINT64_MAX },
		{ "2147483648:0:0:0", -EINVAL, 0, 0, 0, 0 },
		{ "0:4294967295:0:0", -EINVAL, 0, 0, 0, 0 },
		{ "0:0:0:18446744073709551616", -EINVAL, 0, 0, 0, 0 },
		{ "-1:0:0:0", -EINVAL, 0, 0, 0, 0 },
		{ "0:0:0", -EINVAL, 0, 0, 0, 0 },
		{ "0:0:0:0:0", -EINVAL, 0, 0, 0, 0 },
		{ "0:0:0:1x", -EINVAL, 0, 0, 0, 0 },
		{ "0: 0:0:1", -EINVAL, 0, 0, 0, 0 },
		{ "00:0:0:1", -EINVAL, 0, 0, 0, 0 },
		{ "", -EINVAL, 0, 0, 0, 0 },
	};
	static const struct {
		const char *name;
		int ret;
		unsigned int host;
	} hosts[] = {
		{ "host0", 0, 0 },	  { "host12", 0, 12 },
		{ "host-1", -EINVAL, 0 }, { "host4294967296", -EINVAL, 0 },
		{ "host", -EINVAL, 0 },	  { "host1 ", -EINVAL, 0 },
		{ "host+1", -EINVAL, 0 }, { "Host1", -EINVAL, 0 },
	};
	static const struct {
		const char *name;
		int ret;
		unsigned int host, channel;
	} rports[] = {
		{ "rport-2:1-7", 0, 2, 1 },
		{ "rport-0:4294967295-1", -EINVAL, 0, 0 },
		{ "rport-0:0-1x", -EINVAL, 0, 0 },
		{ "rport-0:0", -EINVAL, 0, 0 },
	};
	static const struct {
		const char *name;
		int ret;
		unsigned int host;
	} ends[] = {
		{ "end_device-1:0", 0, 1 },	   { "end_device-1:0:3", 0, 1 },
		{ "end_device-1", -EINVAL, 0 },	   { "end_device-1:", -EINVAL, 0 },
		{ "end_device--1:0", -EINVAL, 0 },
	};
	struct scsi_addr a;
	unsigned int h, c;

	for (size_t i = 0; i < sizeof(hctl) / sizeof(hctl[0]); i++) {
		memset(&a, 0, sizeof(a));
		ck_assert_msg(scsi_name_hctl(hctl[i].name, &a) == hctl[i].ret, "%s", hctl[i].name);
		if (hctl[i].ret)
			continue;
		ck_assert_uint_eq(a.host, hctl[i].host);
		ck_assert_uint_eq(a.channel, hctl[i].channel);
		ck_assert_uint_eq(a.id, hctl[i].id);
		ck_assert_uint_eq(a.lun, hctl[i].lun);
	}
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		h = 99;
		ck_assert_msg(scsi_name_host(hosts[i].name, &h) == hosts[i].ret, "%s",
			      hosts[i].name);
		ck_assert_uint_eq(h, hosts[i].ret ? 99 : hosts[i].host);
	}
	for (size_t i = 0; i < sizeof(rports) / sizeof(rports[0]); i++) {
		ck_assert_msg(scsi_name_rport(rports[i].name, &h, &c) == rports[i].ret, "%s",
			      rports[i].name);
		if (!rports[i].ret) {
			ck_assert_uint_eq(h, rports[i].host);
			ck_assert_uint_eq(c, rports[i].channel);
		}
	}
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		ck_assert_msg(scsi_name_end_device(ends[i].name, &h) == ends[i].ret, "%s",
			      ends[i].name);
		if (!ends[i].ret)
			ck_assert_uint_eq(h, ends[i].host);
	}
	ck_assert_int_eq(scsi_path_session_host("/devices/platform/host5/session4/x", &h), 0);
	ck_assert_uint_eq(h, 5);
	ck_assert_int_eq(scsi_path_session_host("/devices/platform/host-5/session4/x", &h),
			 -EINVAL);
	ck_assert_int_eq(scsi_name_target("target2:0:3", &a), 0);
	ck_assert_uint_eq(a.id, 3);
	ck_assert_int_eq(scsi_name_target("target2:0:3x", &a), -EINVAL);
}
END_TEST

START_TEST(sense)
{
	static const uint8_t fixed_ua[18] = {
		0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x3f, 0x0e
	};
	static const uint8_t desc[8] = { 0x72, 0x05, 0x24, 0x00 };
	static const uint8_t short_fixed[8] = { 0xf0, 0, 0x03, 0, 0, 0, 0, 0 };
	struct sense s;
	char text[160];

	ck_assert_int_eq(sense_decode(fixed_ua, sizeof(fixed_ua), &s), 0);
	ck_assert_uint_eq(s.key, SENSE_KEY_UNIT_ATTENTION);
	ck_assert_uint_eq(s.asc, 0x3f);
	ck_assert_uint_eq(s.ascq, 0x0e);
	sense_describe(&s, text, sizeof(text));
	ck_assert_ptr_nonnull(strstr(text, "Unit Attention"));
	ck_assert_ptr_nonnull(strstr(text, "(3f/0e)"));
	ck_assert_int_eq(sense_decode(desc, sizeof(desc), &s), 0);
	ck_assert_uint_eq(s.key, SENSE_KEY_ILLEGAL_REQUEST);
	ck_assert_uint_eq(s.asc, 0x24);
	/* valid bit set, no room for ASC: key only */
	ck_assert_int_eq(sense_decode(short_fixed, sizeof(short_fixed), &s), 0);
	ck_assert_uint_eq(s.key, SENSE_KEY_MEDIUM_ERROR);
	ck_assert_uint_eq(s.asc, 0);
	ck_assert_int_eq(sense_decode(desc, 1, &s), -EINVAL);
	ck_assert_int_eq(sense_decode((const uint8_t *)"\x12\x00\x00", 3, &s), -EINVAL);
}
END_TEST

/* Runs a plan against a fake target: @present[] says which LUNs exist,
 * @report the REPORT LUNS answer (NULL: the command fails), @limit the
 * host's LUN limit. Returns the attached LUNs as a string "0,1,2". */
struct fake_target {
	const uint64_t *present;
	size_t npresent;
	const uint64_t *report;
	size_t nreport;
	uint64_t limit;
};

static bool is_present(const struct fake_target *t, uint64_t lun)
{
	for (size_t i = 0; i < t->npresent; i++)
		if (t->present[i] == lun)
			return true;
	return false;
}

static char *run_plan(const struct plan_input *in, const struct fake_target *t,
		      enum plan_method *ret_method, char *skipped)
{
	static char out[4096];
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_action a;
	struct plan p;
	size_t used = 0, steps = 0;

	out[0] = '\0';
	if (skipped)
		skipped[0] = '\0';
	if (in->lun0_present)
		used += snprintf(out, sizeof(out), "0");
	plan_init(&p, in);
	for (;;) {
		ck_assert_int_eq(plan_step(&p, &o, &a), 0);
		ck_assert_uint_lt(++steps, 100000);
		memset(&o, 0, sizeof(o));
		if (a.kind == PLAN_DONE)
			break;
		if (a.kind == PLAN_REPORT_LUNS) {
			o.kind = t->report ? PLAN_OUT_REPORT_LUNS : PLAN_OUT_FAILED;
			o.luns = t->report;
			o.count = t->nreport;
			o.why = "ILLEGAL REQUEST";
		} else if (a.kind == PLAN_SKIP) {
			if (skipped)
				sprintf(skipped + strlen(skipped), "%s%llu", *skipped ? "," : "",
					(unsigned long long)a.lun);
		} else if (a.lun >= t->limit) {
			o.kind = PLAN_OUT_LIMIT;
		} else if (is_present(t, a.lun)) {
			o.kind = PLAN_OUT_PRESENT;
			used += snprintf(out + used, sizeof(out) - used, "%s%llu", used ? "," : "",
					 (unsigned long long)a.lun);
		} else {
			o.kind = PLAN_OUT_ABSENT;
		}
	}
	if (ret_method)
		*ret_method = plan_method(&p, NULL, NULL);
	plan_free(&p);
	return out;
}

static const uint64_t lun_0_to_11[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
static const uint64_t gap_at_2[] = { 0, 1, 3, 4 };

static struct plan_input base(int level)
{
	struct plan_input in = {
		.scsi_level = level,
		.max_lun = -1,
		.attach = true,
		.max_luns = 512,
		.lun0_present = true,
	};
	return in;
}

START_TEST(plan_spc_uses_report_luns)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	enum plan_method m;

	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert_int_eq(m, PLAN_METHOD_REPORT_LUNS);
	/* REPORT LUNS fails: sequential, up to 255 */
	t.report = NULL;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
}
END_TEST

START_TEST(plan_scsi2_sequential_and_gaps)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_2);
	enum plan_method m;

	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
	t.present = gap_at_2;
	t.npresent = 4;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1");
	in.flags = BLIST_SPARSELUN;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,3,4");
	/* unknown level counts as below SCSI-3 */
	in = base(SCSI_LEVEL_UNKNOWN);
	t.present = lun_0_to_11;
	t.npresent = 12;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5,6,7");
	in = base(SCSI_LEVEL_1);
	in.flags = BLIST_REPORTLUN2;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
}
END_TEST

START_TEST(plan_flags)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_2);
	enum plan_method m;

	in.flags = BLIST_NOLUN;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0");
	ck_assert_int_eq(m, PLAN_METHOD_NONE);
	in.scsi_level = SCSI_LEVEL_SPC_3;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0");

	in = base(SCSI_LEVEL_2);
	in.flags = BLIST_LARGELUN;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");
	in.flags = BLIST_MAX5LUN;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4");
	in.flags = BLIST_REPORTLUN2;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert_int_eq(m, PLAN_METHOD_REPORT_LUNS);

	/* forcelun lifts the max_luns bound, not the SCSI-2 one */
	in = base(SCSI_LEVEL_2);
	in.max_luns = 4;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3");
	in.flags = BLIST_FORCELUN;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5,6,7");
	in.flags = BLIST_FORCELUN | BLIST_LARGELUN;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5,6,7,8,9,10,11");

	/* noreportlun: sequential even at SPC-3 */
	in = base(SCSI_LEVEL_SPC_3);
	in.flags = BLIST_NOREPORTLUN;
	t.present = gap_at_2;
	t.npresent = 4;
	t.report = gap_at_2;
	t.nreport = 4;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1");
	ck_assert_int_eq(m, PLAN_METHOD_SEQUENTIAL);
	in.flags = 0;
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,3,4");
	/* the USB drivers' no_report_luns */
	in.driver = "usb-storage";
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1");
	in.driver = "uas";
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1");
	in.driver = "mpt3sas";
	ck_assert_str_eq(run_plan(&in, &t, &m, NULL), "0,1,3,4");
}
END_TEST

START_TEST(plan_host_limit_and_sparse)
{
	struct fake_target t = { lun_0_to_11, 12, NULL, 0, 6 };
	struct plan_input in = base(SCSI_LEVEL_2);

	in.flags = BLIST_SPARSELUN | BLIST_LARGELUN;
	/* EINVAL at the host's limit ends even a sparse scan */
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,2,3,4,5");
	t.limit = 49410;
	t.present = gap_at_2;
	t.npresent = 4;
	/* sparse goes on to 255 past gaps */
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0,1,3,4");
}
END_TEST

START_TEST(plan_database_settings)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	char skipped[256];

	in.max_lun = 3;
	ck_assert_str_eq(run_plan(&in, &t, NULL, skipped), "0,1,2,3");
	ck_assert_str_eq(skipped, "4,5,6,7,8,9,10,11");
	in.scsi_level = SCSI_LEVEL_2;
	ck_assert_str_eq(run_plan(&in, &t, NULL, skipped), "0,1,2,3");
	ck_assert_str_eq(skipped, "");
	in.max_lun = 0;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "0");
	in = base(SCSI_LEVEL_SPC_5);
	in.attach = false;
	in.lun0_present = false;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "");
}
END_TEST

START_TEST(plan_no_lun0)
{
	static const uint64_t listed[] = { 1, 2, 300 };
	struct fake_target t = { listed, 3, listed, 3, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);

	in.lun0_present = false;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "1,2,300");
	/* REPORT LUNS fails: sequential from LUN 1 */
	t.report = NULL;
	ck_assert_str_eq(run_plan(&in, &t, NULL, NULL), "1,2");
}
END_TEST

/*
 * Ghost LUNs: LUNs from @ghost_from on are LUN 0 answering again; the plan
 * ends at the first one unless attach_ghosts. Returns the LUNs attached and
 * whether the end was a ghost stop.
 */
static char *run_ghost_plan(const struct plan_input *in, const struct fake_target *t,
			    uint64_t ghost_from, bool *ret_stopped, char *ret_reason)
{
	static char out[256];
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_action a;
	struct plan p;
	size_t used = snprintf(out, sizeof(out), "0");

	plan_init(&p, in);
	for (;;) {
		ck_assert_int_eq(plan_step(&p, &o, &a), 0);
		memset(&o, 0, sizeof(o));
		if (a.kind == PLAN_DONE)
			break;
		if (a.kind == PLAN_REPORT_LUNS) {
			o.kind = PLAN_OUT_REPORT_LUNS;
			o.luns = t->report;
			o.count = t->nreport;
		} else if (a.kind == PLAN_PROBE && is_present(t, a.lun)) {
			o.kind = PLAN_OUT_PRESENT;
			o.ghost = a.lun >= ghost_from;
			o.ghost_of = 0;
			used += snprintf(out + used, sizeof(out) - used, ",%llu",
					 (unsigned long long)a.lun);
		} else if (a.kind == PLAN_PROBE) {
			o.kind = PLAN_OUT_ABSENT;
		}
	}
	*ret_stopped = a.ghosts;
	snprintf(ret_reason, PLAN_REASON_LEN, "%s", a.reason);
	plan_free(&p);
	return out;
}

START_TEST(plan_ghosts)
{
	struct fake_target t = { lun_0_to_11, 12, lun_0_to_11, 12, 49410 };
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	char why[PLAN_REASON_LEN];
	bool stopped;

	/* REPORT LUNS lists 12; LUN 3 is LUN 0 again: nothing after it. */
	ck_assert_str_eq(run_ghost_plan(&in, &t, 3, &stopped, why), "0,1,2,3");
	ck_assert(stopped);
	ck_assert_str_eq(why, "LUN 3 is LUN 0 answering again (ghost LUNs): the scan stops, "
			      "and only the LUN the target was reached through stays attached");
	/* sequential (SCSI-2): the same at LUN 1 */
	in = base(SCSI_LEVEL_2);
	ck_assert_str_eq(run_ghost_plan(&in, &t, 1, &stopped, why), "0,1");
	ck_assert(stopped);
	/* no ghost: the plan ends as always */
	ck_assert_str_eq(run_ghost_plan(&in, &t, 100, &stopped, why), "0,1,2,3,4,5,6,7");
	ck_assert(!stopped);
	/* attach_ghosts: every LUN, whatever they repeat */
	in = base(SCSI_LEVEL_SPC_5);
	in.attach_ghosts = true;
	ck_assert_str_eq(run_ghost_plan(&in, &t, 1, &stopped, why), "0,1,2,3,4,5,6,7,8,9,10,11");
	ck_assert(!stopped);
}
END_TEST

START_TEST(plan_reasons)
{
	struct plan_input in = base(SCSI_LEVEL_2);
	struct plan_action a;
	struct plan p;
	const char *why, *code;

	in.flags = BLIST_NOLUN;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, NULL, &a), 0);
	ck_assert_int_eq(a.kind, PLAN_DONE);
	ck_assert_ptr_nonnull(strstr(a.reason, "kernel would still probe LUNs 1-7"));
	ck_assert_str_eq(a.code, "nolun");
	plan_free(&p);
	in.flags = 0;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, NULL, &a), 0);
	ck_assert_int_eq(plan_method(&p, &why, &code), PLAN_METHOD_SEQUENTIAL);
	ck_assert_str_eq(code, "scsi-2");
	ck_assert_ptr_nonnull(strstr(why, "SCSI-2"));
	ck_assert_int_eq(a.kind, PLAN_PROBE);
	ck_assert_uint_eq(a.lun, 1);
	ck_assert_str_eq(a.code, "sequential");
	plan_free(&p);
}
END_TEST

/* One LUN asked for: what the plan does with it, and why, in codes. */
static const struct select_case {
	const char *what;
	uint64_t flags;
	long long max_lun;
	bool attach;
	uint64_t lun, probe_lun;
	bool masked;
	enum plan_action_kind first;
	const char *first_code, *end_code;
} select_cases[] = {
	{ "a LUN to probe", 0, -1, true, 5, 0, false, PLAN_PROBE, "selected", "selected-only" },
	{ "LUN 0 itself", 0, -1, true, 0, 0, false, PLAN_DONE, "selected-only", NULL },
	{ "the LUN the target came through", 0, -1, true, 4, 4, false, PLAN_DONE, "selected-only",
	  NULL },
	{ "nolun", BLIST_NOLUN, -1, true, 3, 0, false, PLAN_SKIP, "nolun", "selected-only" },
	{ "above max_lun", 0, 2, true, 3, 0, false, PLAN_SKIP, "max-lun", "selected-only" },
	{ "the policy refuses it", 0, -1, true, 3, 0, true, PLAN_SKIP, "masked", "selected-only" },
	{ "the policy refuses LUN 0", 0, -1, true, 0, 0, true, PLAN_DONE, "selected-only", NULL },
	{ "attach = false first", 0, -1, false, 3, 0, false, PLAN_DONE, "attach-false", NULL },
};

START_TEST(plan_selected_lun)
{
	const struct select_case *c = &select_cases[_i];
	struct plan_input in = base(SCSI_LEVEL_SPC_3);
	struct lun_range excluded = { 0, 3 };
	struct lunmask_entry e = { .file = "f",
				   .title = "t",
				   .iscsi_tpgt = -1,
				   .channel = -1,
				   .id = -1,
				   .exclude = &excluded,
				   .nexclude = 1 };
	const struct lunmask_entry *items[] = { &e };
	struct lunmask_set mask = { .items = items, .count = 1 };
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_action a;
	struct plan p;
	const char *code;

	in.flags = c->flags;
	in.max_lun = c->max_lun;
	in.attach = c->attach;
	in.has_only_lun = true;
	in.only_lun = c->lun;
	in.probe_lun = c->probe_lun;
	if (c->masked)
		in.mask = &mask;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_msg(a.kind == c->first, "%s: action %d", c->what, a.kind);
	ck_assert_msg(strcmp(a.code, c->first_code) == 0, "%s: code %s", c->what, a.code);
	if (c->first == PLAN_PROBE || c->first == PLAN_SKIP) {
		ck_assert_uint_eq(a.lun, c->lun);
		o.kind = PLAN_OUT_PRESENT;
		ck_assert_int_eq(plan_step(&p, &o, &a), 0);
		ck_assert_int_eq(a.kind, PLAN_DONE);
		ck_assert_str_eq(a.code, c->end_code);
	}
	if (c->attach)
		ck_assert_int_eq(plan_method(&p, NULL, &code), PLAN_METHOD_SELECTED);
	plan_free(&p);
}
END_TEST

static const struct {
	const char *in, *json;
} utf8_cases[] = {
	{ "/mnt/plain", "\"\\/mnt\\/plain\"" },
	{ "/mnt/caf\xc3\xa9", "\"\\/mnt\\/caf\xc3\xa9\"" },
	{ "/mnt/\xff\xfe", "\"\\/mnt\\/\\\\xff\\\\xfe\"" },
	{ "over\xc0\xafl", "\"over\\\\xc0\\\\xafl\"" },
	{ "sur\xed\xa0\x80", "\"sur\\\\xed\\\\xa0\\\\x80\"" },
	{ "cut\xe2\x82", "\"cut\\\\xe2\\\\x82\"" },
	{ "big\xf4\x90\x80\x80", "\"big\\\\xf4\\\\x90\\\\x80\\\\x80\"" },
	{ "ok\xf0\x9f\x92\xbe", "\"ok\xf0\x9f\x92\xbe\"" },
};

START_TEST(json_strings_stay_utf8)
{
	json_object *j = output_json_string(utf8_cases[_i].in);
	const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);

	ck_assert_str_eq(text, utf8_cases[_i].json);
	ck_assert_uint_eq(utf8_valid_prefix(text, strlen(text)), strlen(text));
	json_object_put(j);
	ck_assert_ptr_null(output_json_string(NULL));
}
END_TEST

/* What becomes of the LUN a target was reached through. */
static const struct fate_case {
	const char *what;
	struct plan_reach_input in;
	bool detach;
	const char *code, *reason, *reach;
} fate_cases[] = {
	{ "the well-known LUN",
	  { .probe_lun = 49409, .temporary = true, .attach = true, .lun0_attach = true },
	  true,
	  "reach-only",
	  "the REPORT LUNS well-known LUN, attached only to reach the target",
	  "" },
	{ "the well-known LUN of an attach = false device",
	  { .probe_lun = 49409, .temporary = true },
	  true,
	  "reach-only",
	  "the REPORT LUNS well-known LUN",
	  "" },
	{ "LUN 0 attached now",
	  { .lun0_new = true, .attach = true, .lun0_attach = true },
	  false,
	  "keep",
	  "",
	  "" },
	{ "LUN 0 attached before",
	  { .attach = false, .lun0_attach = false },
	  false,
	  "keep",
	  "",
	  "" },
	{ "LUN 0 of attach = false",
	  { .lun0_new = true, .lun0_attach = true },
	  true,
	  "attach-false",
	  "attach = false in the quirk database",
	  "" },
	{ "LUN 0 refused by its type",
	  { .lun0_new = true,
	    .attach = true,
	    .refusal = "attach = false for this LUN's own INQUIRY" },
	  true,
	  "refused-by-type",
	  "; the target's other LUNs were reached through it",
	  "" },
	{ "LUN 0 to reach a selected LUN",
	  { .lun0_new = true,
	    .attach = true,
	    .lun0_attach = true,
	    .has_only_lun = true,
	    .only_lun = 5 },
	  true,
	  "reach-only",
	  "LUN 0, attached only to reach the target for the selected LUN",
	  "only LUN 5 was selected" },
	{ "LUN 0 selected itself",
	  { .lun0_new = true,
	    .attach = true,
	    .lun0_attach = true,
	    .has_only_lun = true,
	    .only_lun = 0 },
	  false,
	  "keep",
	  "",
	  "" },
	{ "another LUN the target came through",
	  { .probe_lun = 3, .attach = true, .lun0_attach = true },
	  false,
	  "keep",
	  "",
	  "" },
};

START_TEST(plan_reach_fates)
{
	const struct fate_case *c = &fate_cases[_i];
	struct plan_reach_fate f;

	plan_reach_fate(&c->in, &f);
	ck_assert_msg(f.detach == c->detach, "%s", c->what);
	ck_assert_str_eq(f.code, c->code);
	ck_assert_msg(strstr(f.reason, c->reason), "%s: '%s'", c->what, f.reason);
	ck_assert_msg(strstr(f.reach, c->reach), "%s: '%s'", c->what, f.reach);
}
END_TEST

/* plan_batch() after REPORT LUNS listed LUNs 0 to @listed - 1 and LUN 1
 * was attached on its own: asked before the probe of LUN 2. */
struct batch_case {
	const char *what;
	size_t listed;
	uint64_t flags;
	long long max_lun;
	bool masked;
	bool investigate;
	struct plan_batch_input in;
	bool batch;
	const char *reason;
};

static const struct batch_case batch_cases[] = {
	{ "nothing refuses: the kernel takes the rest",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = -1 },
	  true,
	  "the 62 LUNs left of the list by one kernel target scan" },
	{ "it fits the time left",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = 620 },
	  true,
	  "one kernel target scan" },
	{ "it may not fit the time left",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .probed = 1, .slowest_ms = 10, .ms_left = 619 },
	  false,
	  "62 LUNs at up to 10 ms each may not fit the 619 ms" },
	{ "a quirk flag",
	  64,
	  BLIST_SPARSELUN,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: the quirk database has an entry" },
	{ "max_lun",
	  64,
	  0,
	  100,
	  false,
	  false,
	  { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: the quirk database has an entry" },
	{ "a lunmask entry",
	  64,
	  0,
	  -1,
	  true,
	  false,
	  { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: lunmask entries apply" },
	{ "investigation",
	  64,
	  0,
	  -1,
	  false,
	  true,
	  { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: not every listed LUN is wanted" },
	{ "per-LUN entries",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .per_lun_refusal = true, .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: the quirk database could refuse single LUNs" },
	{ "reached through another LUN",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: the target was not reached" },
	{ "dry run",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .dry_run = true, .probed = 1, .ms_left = -1 },
	  false,
	  "LUN by LUN: a dry run" },
	{ "too few left to be worth it",
	  16,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .probed = 1, .ms_left = -1 },
	  false,
	  "" },
	{ "no LUN attached on its own yet",
	  64,
	  0,
	  -1,
	  false,
	  false,
	  { .through_lun0 = true, .ms_left = -1 },
	  false,
	  "" },
};

START_TEST(plan_batches)
{
	const struct batch_case *c = &batch_cases[_i];
	/* An entry for the target that lets every LUN through. */
	static const struct lunmask_entry allows_all = {
		.file = "t.conf", .line = 1, .title = "t", .iscsi_tpgt = -1, .channel = -1, .id = -1
	};
	const struct lunmask_entry *entry = &allows_all;
	struct plan_input in = base(SCSI_LEVEL_SPC_5);
	struct lunmask_set set = { &entry, c->masked ? 1 : 0 };
	struct plan_outcome o = { .kind = PLAN_OUT_NONE };
	struct plan_batch_input later = c->in;
	uint64_t luns[64];
	char why[PLAN_REASON_LEN];
	struct plan_action a;
	struct plan p;

	for (size_t i = 0; i < c->listed; i++)
		luns[i] = i;
	in.flags = c->flags;
	in.max_lun = c->max_lun;
	in.mask = &set;
	in.investigate = c->investigate;
	plan_init(&p, &in);
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_int_eq(a.kind, PLAN_REPORT_LUNS);
	o.kind = PLAN_OUT_REPORT_LUNS;
	o.luns = luns;
	o.count = c->listed;
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_uint_eq(a.lun, 1);
	o.kind = PLAN_OUT_PRESENT;
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_uint_eq(a.lun, 2);
	ck_assert_msg(plan_batch(&p, &c->in, why) == c->batch, "%s: '%s'", c->what, why);
	ck_assert_msg(strstr(why, c->reason) && (*c->reason || !*why), "%s: '%s'", c->what, why);
	/* Decided once: not asked again. Not yet decided: a later probe may. */
	later.probed = 1;
	if (*why)
		ck_assert(!plan_batch(&p, &later, why));
	else if (c->listed == 64)
		ck_assert_msg(plan_batch(&p, &later, why), "%s, later: '%s'", c->what, why);
	/* The plan goes on through the list either way. */
	ck_assert_int_eq(plan_step(&p, &o, &a), 0);
	ck_assert_int_eq(a.kind, PLAN_PROBE);
	ck_assert_uint_eq(a.lun, 3);
	plan_free(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("decoders");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, inquiry_spc5);
	tcase_add_test(tc, inquiry_levels_and_qualifiers);
	tcase_add_test(tc, inquiry_truncated_and_lying);
	tcase_add_test(tc, inquiry_control_bytes);
	tcase_add_test(tc, lun_conversion);
	tcase_add_test(tc, report_luns);
	tcase_add_test(tc, report_luns_duplicates);
	tcase_add_test(tc, sense);
	tcase_add_test(tc, event_classify);
	tcase_add_test(tc, scsi_names);
	tcase_add_loop_test(tc, json_strings_stay_utf8, 0,
			    sizeof(utf8_cases) / sizeof(utf8_cases[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("planner");
	tcase_add_test(tc, plan_spc_uses_report_luns);
	tcase_add_test(tc, plan_scsi2_sequential_and_gaps);
	tcase_add_test(tc, plan_flags);
	tcase_add_test(tc, plan_host_limit_and_sparse);
	tcase_add_test(tc, plan_database_settings);
	tcase_add_test(tc, plan_no_lun0);
	tcase_add_test(tc, plan_reasons);
	tcase_add_test(tc, plan_ghosts);
	tcase_add_loop_test(tc, plan_reach_fates, 0, sizeof(fate_cases) / sizeof(fate_cases[0]));
	tcase_add_loop_test(tc, plan_batches, 0, sizeof(batch_cases) / sizeof(batch_cases[0]));
	tcase_add_loop_test(tc, plan_selected_lun, 0,
			    sizeof(select_cases) / sizeof(select_cases[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
