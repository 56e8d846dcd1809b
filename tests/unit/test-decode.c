// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-decode.c - INQUIRY, REPORT LUNS, LUN conversion, sense, event
 * classes, sysfs names and JSON strings.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blist.h"
#include "inquiry.h"
#include "luns.h"
#include "monitor.h"
#include "output.h"
#include "scsi-addr.h"
#include "sense.h"
#include "sysfs.h"

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

/* A list in ascending order is taken as it is; one that is not, past its
 * first entries, is still checked for repeats. */
START_TEST(report_luns_order)
{
	static const struct {
		uint64_t listed[6];
		size_t n;
		uint64_t want[6];
		size_t nwant;
	} rows[] = {
		{ { 0, 1, 2, 0x4003, 0x4004, 0x4005 }, 6, { 0, 1, 2, 0x4003, 0x4004, 0x4005 }, 6 },
		{ { 0, 1, 2, 2 }, 4, { 0, 1, 2 }, 3 },
		{ { 0, 1, 2, 1, 3 }, 5, { 0, 1, 2, 3 }, 4 },
		{ { 5, 4, 3 }, 3, { 5, 4, 3 }, 3 },
		{ { 7 }, 1, { 7 }, 1 },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		uint8_t buf[8 + 8 * 6];
		uint64_t *luns;
		size_t n, needed, len;
		bool complete;

		len = put_lun_list(buf, rows[r].listed, rows[r].n, rows[r].n * 8);
		ck_assert_int_eq(report_luns_decode(buf, len, &luns, &n, &needed, &complete), 0);
		ck_assert_uint_eq(n, rows[r].nwant);
		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(luns[i], rows[r].want[i]);
		free(luns);
	}
}
END_TEST

static int addr_qsort_cmp(const void *a, const void *b)
{
	return scsi_addr_cmp(a, b);
}

static const struct sort_row {
	const char *what;
	size_t n;
	unsigned int hosts, channels, ids;
	int luns; /* 0 dense, 1 flat space, 2 random 64-bit, 3 all one */
} sort_rows[] = {
	{ "empty", 0, 1, 1, 1, 0 },
	{ "one", 1, 1, 1, 1, 0 },
	{ "one target, dense", 2048, 1, 1, 1, 0 },
	{ "one target, the flat space", 16384, 1, 1, 1, 1 },
	{ "64 hosts", 4096, 64, 1, 1, 0 },
	{ "hosts, channels, ids past a byte", 5000, 300, 3, 700, 2 },
	{ "random LUNs", 3000, 1, 1, 1, 2 },
	{ "every address the same", 100, 1, 1, 1, 3 },
};

/* scsi_addr_sort() against qsort() with scsi_addr_cmp(), on lists as sysfs
 * gives them (one target's dense LUNs, the flat space, many hosts) and on
 * random ones (xorshift64, fixed seeds). */
START_TEST(scsi_addr_sort_rows)
{
	const struct sort_row *row = &sort_rows[_i];
	const size_t r = (size_t)_i;
	struct scsi_addr *v = calloc(row->n + 1, sizeof(*v));
	struct scsi_addr *want = calloc(row->n + 1, sizeof(*want));
	uint64_t x = 0x9e3779b97f4a7c15ULL + r;

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(want);
	for (size_t i = 0; i < row->n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i].host = (unsigned int)(x % row->hosts);
		v[i].channel = (unsigned int)(x / 7 % row->channels);
		v[i].id = (unsigned int)(x / 13 % row->ids);
		v[i].lun = row->luns == 2   ? x * 0x2545f4914f6cdd1dULL
			   : row->luns == 3 ? 42
			   : row->luns == 1 ? 0x4000 | (x % row->n)
					    : x % row->n;
	}
	memcpy(want, v, row->n * sizeof(*v));
	qsort(want, row->n, sizeof(*want), addr_qsort_cmp);
	ck_assert_int_eq(scsi_addr_sort(v, row->n), 0);
	for (size_t i = 0; i < row->n; i++)
		ck_assert_msg(scsi_addr_cmp(&v[i], &want[i]) == 0, "%s: entry %zu differs",
			      row->what, i);
	free(v);
	free(want);
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
		/* A LUN attached, by anyone: held to the policy. */
		{ "add", "scsi", "scsi_device", "2:0:1:7", NULL, NULL, 0, SCSI_EVENT_LUN_ADDED, 2,
		  0, 1 },
		{ "remove", "scsi", "scsi_device", "2:0:1:7", NULL, NULL, 0, SCSI_EVENT_NONE, 0, -1,
		  -1 },
		{ "add", "scsi", "scsi_target", "target2:0:1", NULL, NULL, 0, SCSI_EVENT_NONE, 0,
		  -1, -1 },
		{ "add", "scsi", "scsi_device", "2:0:1", NULL, NULL, -EINVAL, SCSI_EVENT_NONE, 0,
		  -1, -1 },
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

START_TEST(scsi_addr_names_written)
{
	static const struct {
		struct scsi_addr a;
		size_t len;
		const char *want;
	} rows[] = {
		{ { 0, 0, 0, 0 }, 32, "0:0:0:0" },
		{ { 12, 3, 45, 16383 }, 32, "12:3:45:16383" },
		{ { 2, 0, 0, 0x1000000000000ULL }, 32, "2:0:0:281474976710656" },
		{ { 4294967295U, 4294967295U, 4294967295U, UINT64_MAX },
		  64,
		  "4294967295:4294967295:4294967295:18446744073709551615" },
		/* cut to the buffer, as snprintf would */
		{ { 12, 3, 45, 16383 }, 8, "12:3:45" },
		{ { 12, 3, 45, 16383 }, 1, "" },
	};
	struct scsi_addr back;
	char buf[64], *end;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		ck_assert_ptr_eq(scsi_addr_format(&rows[i].a, buf, rows[i].len), buf);
		ck_assert_str_eq(buf, rows[i].want);
		if (rows[i].len < 64 || strlen(rows[i].want) > 40)
			continue;
		ck_assert_int_eq(scsi_name_hctl(buf, &back), 0);
		ck_assert_int_eq(scsi_addr_cmp(&back, &rows[i].a), 0);
	}
	buf[0] = 'x';
	ck_assert_ptr_eq(scsi_addr_format(&rows[0].a, buf, 0), buf);
	ck_assert_int_eq(buf[0], 'x');
	end = scsi_put_decimal(buf, 0);
	ck_assert_int_eq(end - buf, 1);
	end = scsi_put_decimal(buf, UINT64_MAX);
	*end = '\0';
	ck_assert_str_eq(buf, "18446744073709551615");
}
END_TEST

START_TEST(scan_attribute_values)
{
	static const struct {
		int channel, id;
		uint64_t lun;
		const char *want;
	} rows[] = {
		{ 0, 1, 2, "0 1 2\n" },
		{ SCAN_WILDCARD, SCAN_WILDCARD, UINT64_MAX, "- - -\n" },
		{ 0, SCAN_WILDCARD, 7, "0 - 7\n" },
		{ 3, 2147483647, 9999999999999999ULL, "3 2147483647 9999999999999999\n" },
		/* past 16 decimal digits, the kernel's %16s takes hex */
		{ 0, 0, 10000000000000000ULL, "0 0 0x2386f26fc10000\n" },
	};
	char got[128];
	int fds[2];
	ssize_t n;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_int_eq(pipe(fds), 0);
		ck_assert_int_eq(sysfs_scan_fd(fds[1], rows[i].channel, rows[i].id, rows[i].lun),
				 0);
		close(fds[1]);
		n = read(fds[0], got, sizeof(got) - 1);
		close(fds[0]);
		ck_assert_int_ge(n, 0);
		got[n] = '\0';
		ck_assert_str_eq(got, rows[i].want);
	}
	ck_assert_int_eq(sysfs_scan_fd(1, -2, 0, 0), -EINVAL);
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
	tcase_add_test(tc, report_luns_order);
	tcase_add_loop_test(tc, scsi_addr_sort_rows, 0, sizeof(sort_rows) / sizeof(sort_rows[0]));
	tcase_add_test(tc, sense);
	tcase_add_test(tc, event_classify);
	tcase_add_test(tc, scsi_names);
	tcase_add_test(tc, scsi_addr_names_written);
	tcase_add_test(tc, scan_attribute_values);
	tcase_add_loop_test(tc, json_strings_stay_utf8, 0,
			    sizeof(utf8_cases) / sizeof(utf8_cases[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
