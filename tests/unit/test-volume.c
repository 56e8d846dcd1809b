// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-volume.c - a volume's address: names checked and normalized, the
 * entries of iSCSI, FC and SAS lists that are paths to it, every path on
 * several hosts, and wwids, as table rows.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quirks.h"
#include "volume.h"

static const struct set_case {
	enum discover_transport transport;
	const char *text;
	int ret;
	const char *target;
} set_cases[] = {
	{ DISCOVER_ISCSI, "iqn.2003-01.org.linux-iscsi.test:t1", 0,
	  "iqn.2003-01.org.linux-iscsi.test:t1" },
	{ DISCOVER_ISCSI, "IQN.1992-08.COM.NetApp:sn.1", 0, "iqn.1992-08.com.netapp:sn.1" },
	{ DISCOVER_ISCSI, "eui.02004567A425678D", 0, "eui.02004567a425678d" },
	{ DISCOVER_ISCSI, "naa.52004567BA64678D", 0, "naa.52004567ba64678d" },
	{ DISCOVER_ISCSI, "iqn.", -EINVAL },
	{ DISCOVER_ISCSI, "target1", -EINVAL },
	{ DISCOVER_ISCSI, "iqn.2003-01.x:a b", -EINVAL },
	{ DISCOVER_ISCSI, "iqn.2003-01.x:a,1", -EINVAL },
	{ DISCOVER_ISCSI, "", -EINVAL },
	{ DISCOVER_FC, "0x5001438002a3b4c1", 0, "5001438002a3b4c1" },
	{ DISCOVER_FC, "50:01:43:80:02:A3:B4:C1", 0, "5001438002a3b4c1" },
	{ DISCOVER_FC, "50-01-43-80-02-a3-b4-c1", 0, "5001438002a3b4c1" },
	{ DISCOVER_FC, "0x5001438002a3b4", -EINVAL },
	{ DISCOVER_FC, "0x5001438002a3b4c1ff", -EINVAL },
	{ DISCOVER_FC, "iqn.2003-01.x:t", -EINVAL },
	{ DISCOVER_SAS, "0x5000c500a1b20100", 0, "5000c500a1b20100" },
	{ DISCOVER_SAS, "5000C500A1B20100", 0, "5000c500a1b20100" },
	{ DISCOVER_SAS, "0xz000c500a1b20100", -EINVAL },
	{ DISCOVER_PROBE, "iqn.2003-01.x:t", -EINVAL },
};

START_TEST(test_set_target)
{
	const struct set_case *c = &set_cases[_i];
	struct volume_address a = { .target = "unchanged", .tpgt = -1 };
	int r = volume_address_set_target(&a, c->transport, c->text);

	ck_assert_msg(r == c->ret, "\"%s\": %d, expected %d", c->text, r, c->ret);
	ck_assert_str_eq(a.target, r == 0 ? c->target : "unchanged");
	if (r == 0)
		ck_assert_int_eq(a.transport, c->transport);
}
END_TEST

/* One list entry: transport, address, channel, id, reachable, is_target,
 * has_id. */
struct entry {
	enum discover_transport transport;
	const char *address;
	unsigned int channel, id;
	bool reachable, is_target, has_id;
};

static const struct match_case {
	const char *what;
	enum discover_transport transport;
	const char *target;
	long tpgt;
	struct entry e;
	bool match;
} match_cases[] = {
	{ "iSCSI, any portal group",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true },
	  true },
	{ "iSCSI, the name in another case",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  { DISCOVER_ISCSI, "IQN.2003-01.X:T1,1", 0, 0, true, true, true },
	  true },
	{ "iSCSI, its portal group",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  1,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true },
	  true },
	{ "iSCSI, another portal group",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  2,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true },
	  false },
	{ "iSCSI, a name that only starts the same",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t10,1", 0, 0, true, true, true },
	  false },
	{ "iSCSI, a longer name asked for",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t10",
	  -1,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true },
	  false },
	{ "iSCSI, a session not logged in is still a path",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, false, true, true },
	  true },
	{ "iSCSI, a session without a target id yet",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, false },
	  false },
	{ "FC, sysfs's 0x form",
	  DISCOVER_FC,
	  "5001438002a3b4c1",
	  -1,
	  { DISCOVER_FC, "0x5001438002a3b4c1", 0, 3, true, true, true },
	  true },
	{ "FC, another port",
	  DISCOVER_FC,
	  "5001438002a3b4c1",
	  -1,
	  { DISCOVER_FC, "0x5001438002a3b4c2", 0, 3, true, true, true },
	  false },
	{ "FC, an initiator port is no path",
	  DISCOVER_FC,
	  "5001438002a3b4c1",
	  -1,
	  { DISCOVER_FC, "0x5001438002a3b4c1", 0, 3, true, false, true },
	  false },
	{ "FC, an address on a SAS host",
	  DISCOVER_FC,
	  "5000c500a1b20100",
	  -1,
	  { DISCOVER_SAS, "0x5000c500a1b20100", 0, 0, true, true, true },
	  false },
	{ "SAS, the end device",
	  DISCOVER_SAS,
	  "5000c500a1b20100",
	  -1,
	  { DISCOVER_SAS, "0x5000c500a1b20100", 0, 1, true, true, true },
	  true },
	{ "SAS, an unreadable address",
	  DISCOVER_SAS,
	  "5000c500a1b20100",
	  -1,
	  { DISCOVER_SAS, "?", 0, 1, true, true, true },
	  false },
};

static void fill(struct discover_target *t, const struct entry *e)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->address, sizeof(t->address), "%s", e->address);
	t->channel = e->channel;
	t->id = e->id;
	t->reachable = e->reachable;
	t->is_target = e->is_target;
	t->has_id = e->has_id;
	snprintf(t->name, sizeof(t->name), "entry%u", e->id);
	snprintf(t->state, sizeof(t->state), "%s", e->reachable ? "up" : "down");
}

START_TEST(test_target_matches)
{
	const struct match_case *c = &match_cases[_i];
	struct volume_address a = { .tpgt = c->tpgt };
	struct discover_target t;

	ck_assert_int_eq(volume_address_set_target(&a, c->transport, c->target), 0);
	fill(&t, &c->e);
	ck_assert_msg(volume_target_matches(&a, c->e.transport, &t) == c->match, "%s", c->what);
}
END_TEST

#define NE 4

/* Hosts with their lists; the paths as "H:C:T:L+" (+ reachable) text. */
static const struct paths_case {
	const char *what;
	enum discover_transport transport;
	const char *target;
	long tpgt;
	bool lun_set;
	uint64_t lun;
	struct {
		unsigned int host;
		enum discover_transport transport;
		struct entry e[NE];
		size_t n;
	} hosts[3];
	size_t nhosts;
	size_t total;
	const char *paths;
} paths_cases[] = {
	{ "two sessions of one target on two hosts, LUN 4",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  true,
	  4,
	  { { 7,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true } },
	      1 },
	    { 5,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true } },
	      1 },
	    { 6,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t2,1", 0, 0, true, true, true } },
	      1 } },
	  3,
	  2,
	  "5:0:0:4+ 7:0:0:4+" },
	{ "a portal group asked for: the other session is no path",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  2,
	  true,
	  0,
	  { { 5,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true } },
	      1 },
	    { 7,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,2", 0, 0, false, true, true } },
	      1 } },
	  2,
	  1,
	  "7:0:0:0" },
	{ "FC: two remote ports with one target id are one path, up if one is",
	  DISCOVER_FC,
	  "5001438002a3b4c1",
	  -1,
	  false,
	  0,
	  { { 2,
	      DISCOVER_FC,
	      { { DISCOVER_FC, "0x5001438002a3b4c1", 0, 1, false, true, true },
		{ DISCOVER_FC, "0x5001438002a3b4c1", 0, 1, true, true, true },
		{ DISCOVER_FC, "0x5001438002a3b4c9", 0, 2, true, true, true } },
	      3 },
	    { 3,
	      DISCOVER_FC,
	      { { DISCOVER_FC, "0x5001438002a3b4c1", 0, 4, false, true, true } },
	      1 } },
	  2,
	  2,
	  "2:0:1:0+ 3:0:4:0" },
	{ "SAS: the end device on each controller",
	  DISCOVER_SAS,
	  "5000c500a1b20100",
	  -1,
	  true,
	  1,
	  { { 3,
	      DISCOVER_SAS,
	      { { DISCOVER_SAS, "0x5000c500a1b20120", 0, 1, true, true, true },
		{ DISCOVER_SAS, "0x5000c500a1b20100", 0, 0, true, true, true } },
	      2 },
	    { 2,
	      DISCOVER_SAS,
	      { { DISCOVER_SAS, "0x5000c500a1b20100", 0, 0, true, true, true } },
	      1 } },
	  2,
	  2,
	  "2:0:0:1+ 3:0:0:1+" },
	{ "no host lists it",
	  DISCOVER_SAS,
	  "5000c500a1b20199",
	  -1,
	  true,
	  1,
	  { { 2,
	      DISCOVER_SAS,
	      { { DISCOVER_SAS, "0x5000c500a1b20100", 0, 0, true, true, true } },
	      1 } },
	  1,
	  0,
	  "" },
	{ "more paths than room: counted, not written",
	  DISCOVER_ISCSI,
	  "iqn.2003-01.x:t1",
	  -1,
	  false,
	  0,
	  { { 1,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true } },
	      1 },
	    { 2,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true } },
	      1 },
	    { 3,
	      DISCOVER_ISCSI,
	      { { DISCOVER_ISCSI, "iqn.2003-01.x:t1,1", 0, 0, true, true, true } },
	      1 } },
	  3,
	  3,
	  "1:0:0:0+ 2:0:0:0+" },
};

START_TEST(test_paths)
{
	const struct paths_case *c = &paths_cases[_i];
	struct discover_target t[3][NE];
	struct volume_host hosts[3];
	struct volume_path out[2];
	struct volume_address a = { .tpgt = c->tpgt, .lun_set = c->lun_set, .lun = c->lun };
	char text[256] = "";
	size_t total, used = 0;

	ck_assert_int_eq(volume_address_set_target(&a, c->transport, c->target), 0);
	for (size_t h = 0; h < c->nhosts; h++) {
		for (size_t i = 0; i < c->hosts[h].n; i++)
			fill(&t[h][i], &c->hosts[h].e[i]);
		hosts[h] = (struct volume_host){ c->hosts[h].host, c->hosts[h].transport, t[h],
						 c->hosts[h].n };
	}
	/* counted without room, as callers size their array */
	ck_assert_uint_eq(volume_paths(&a, hosts, c->nhosts, NULL, 0), c->total);
	total = volume_paths(&a, hosts, c->nhosts, out, 2);
	ck_assert_msg(total == c->total, "%s: %zu paths, expected %zu", c->what, total, c->total);
	for (size_t i = 0; i < total && i < 2; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%u:%u:%u:%llu%s",
					 i ? " " : "", out[i].addr.host, out[i].addr.channel,
					 out[i].addr.id, (unsigned long long)out[i].addr.lun,
					 out[i].reachable ? "+" : "");
	ck_assert_msg(strcmp(text, c->paths) == 0, "%s: \"%s\", expected \"%s\"", c->what, text,
		      c->paths);
}
END_TEST

static const struct wwid_case {
	const char *asked;
	const char *sysfs;
	bool match;
} wwid_cases[] = {
	{ "naa.6001405ccaea50000000000000000000", "naa.6001405ccaea50000000000000000000\n", true },
	{ "naa.6001405CCAEA50000000000000000000", "naa.6001405ccaea50000000000000000000", true },
	{ "  naa.6001405ccaea5 ", "naa.6001405ccaea5", true },
	{ "naa.6001405ccaea5", "naa.6001405ccaea50000000000000000000", false },
	{ "t10.ATA     QEMU HARDDISK", "t10.ATA     QEMU HARDDISK   ", true },
	{ "t10.ATA QEMU HARDDISK", "t10.ATA     QEMU HARDDISK", false },
	{ "36001405ccaea50000000000000000000", "naa.6001405ccaea50000000000000000000", true },
	{ "36001405CCAEA50000000000000000000", "naa.6001405ccaea50000000000000000000\n", true },
	{ "26001405ccaea5", "eui.6001405ccaea5", true },
	{ "26001405ccaea5", "naa.6001405ccaea5", false },
	{ "36001405ccaea5", "naa.6001405ccaea50", false },
	{ "naa.6001405ccaea5", "36001405ccaea5", true },
	{ "naa.6001405ccaea5", "naa.36001405ccaea5", false },
	{ "3", "naa.", false },
};

START_TEST(test_wwid)
{
	const struct wwid_case *c = &wwid_cases[_i];
	struct volume_address a = { .tpgt = -1 };

	ck_assert_int_eq(volume_address_set_wwid(&a, c->asked), 0);
	ck_assert_msg(volume_wwid_matches(&a, c->sysfs) == c->match, "\"%s\" against \"%s\"",
		      c->asked, c->sysfs);
}
END_TEST

START_TEST(test_text)
{
	struct volume_address a = { .tpgt = -1 };
	char buf[300];

	ck_assert_int_eq(volume_address_set_wwid(&a, "   "), -EINVAL);
	ck_assert_int_eq(volume_address_set_wwid(&a, ""), -EINVAL);
	ck_assert_int_eq(volume_address_set_wwid(&a, "naa.60014"), 0);
	volume_address_text(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "wwid naa.60014");
	ck_assert_int_eq(volume_address_set_target(&a, DISCOVER_ISCSI, "iqn.2003-01.x:t1"), 0);
	a.tpgt = 1;
	a.lun_set = true;
	a.lun = 5;
	volume_address_text(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "iSCSI target iqn.2003-01.x:t1,1 LUN 5");
	ck_assert_int_eq(volume_address_set_target(&a, DISCOVER_FC, "50:01:43:80:02:a3:b4:c1"), 0);
	a.lun_set = false;
	volume_address_text(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "FC port 0x5001438002a3b4c1");
}
END_TEST

static const struct holdout_case {
	struct holdout_key k;
	const char *file;
	const char *keys;
} holdout_cases[] = {
	{ { DISCOVER_ISCSI, "iqn.2003-01.x:t1", -1, "", 0, 0, 2 },
	  "iscsi-iqn.2003-01.x:t1-lun-2.conf",
	  "\tiscsi_target = \"iqn.2003-01.x:t1\"\n\texclude_luns = { 2 }\n" },
	{ { DISCOVER_ISCSI, "iqn.2003-01.x:t1", 1, "", 0, 0, 2 },
	  "iscsi-iqn.2003-01.x:t1,1-lun-2.conf",
	  "\tiscsi_target = \"iqn.2003-01.x:t1\"\n\tiscsi_tpgt = 1\n\texclude_luns = { 2 }\n" },
	{ { DISCOVER_FC, "5001438002a3b4c1", -1, "", 0, 0, 16384 },
	  "fc-5001438002a3b4c1-lun-16384.conf",
	  "\tport_name = \"0x5001438002a3b4c1\"\n\texclude_luns = { 16384 }\n" },
	{ { DISCOVER_SAS, "5000c500a1b20100", -1, "", 0, 0, 1 },
	  "sas-5000c500a1b20100-lun-1.conf",
	  "\tsas_address = \"0x5000c500a1b20100\"\n\texclude_luns = { 1 }\n" },
	{ { DISCOVER_PROBE, "", -1, "scsi_debug", 0, 3, 7 },
	  "driver-scsi_debug-0-3-lun-7.conf",
	  "\tdriver = \"scsi_debug\"\n\tchannel = 0\n\tid = 3\n\texclude_luns = { 7 }\n" },
	{ { DISCOVER_PROBE, "", -1, "../etc", 0, 3, 7 }, NULL, NULL },
	{ { DISCOVER_PROBE, "", -1, "", 0, 3, 7 }, NULL, NULL },
};

START_TEST(test_holdout)
{
	const struct holdout_case *c = &holdout_cases[_i];
	char file[300], text[2048];
	int r = holdout_file_name(&c->k, file, sizeof(file));

	ck_assert_int_eq(r, c->file ? 0 : -EINVAL);
	if (!c->file)
		return;
	ck_assert_str_eq(file, c->file);
	ck_assert_int_eq(holdout_text(&c->k, "detached \"by\" hand", text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, c->keys), "%s", text);
	ck_assert_msg(strstr(text, "lunmask \"held out\" {\n"), "%s", text);
	ck_assert_msg(strstr(text, "\treason = \"detached \\\"by\\\" hand\"\n}\n"), "%s", text);
	ck_assert_int_eq(holdout_text(&c->k, "x", text, 40), -ENOSPC);
}
END_TEST

/* Strings written into a hold-out parse back to themselves: quotes,
 * backslashes, "${home}" (libconfuse's environment expansion), newlines and
 * tabs (the second audit: written raw, the hold-out did not load, or named
 * another target). */
START_TEST(test_holdout_round_trip)
{
	static const char *const hostile[] = {
		"iqn.x:a\"b",	   "iqn.x:a\\b", "iqn.x:${home}", "iqn.x:a\nlunmask \"x\" {",
		"iqn.x:tab\there", "iqn.x:$",	 "iqn.x:\x7f",
	};

	setenv("home", "/root", 1);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		struct holdout_key k = { .transport = DISCOVER_ISCSI, .tpgt = -1, .lun = 4 };
		const struct lunmask_entry *e;
		struct quirk_db *db = quirk_db_new();
		char text[4096];
		size_t n;

		snprintf(k.target, sizeof(k.target), "%s", hostile[i]);
		ck_assert_int_eq(holdout_text(&k, hostile[i], text, sizeof(text)), 0);
		ck_assert_msg(quirk_db_add_buffer(db, "h", text, strlen(text), NULL) == 0, "%s",
			      text);
		e = quirk_db_lunmasks(db, &n);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(e->iscsi_target, hostile[i]);
		ck_assert_str_eq(e->reason, hostile[i]);
		quirk_db_free(db);

		k.transport = DISCOVER_PROBE;
		snprintf(k.host_path, sizeof(k.host_path), "%s", hostile[i]);
		snprintf(k.driver, sizeof(k.driver), "%s", "virtio_scsi");
		db = quirk_db_new();
		ck_assert_int_eq(holdout_text(&k, "r", text, sizeof(text)), 0);
		ck_assert_msg(quirk_db_add_buffer(db, "h", text, strlen(text), NULL) == 0, "%s",
			      text);
		e = quirk_db_lunmasks(db, &n);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(e->host_path, hostile[i]);
		quirk_db_free(db);
	}
}
END_TEST

START_TEST(test_holdout_wwid)
{
	struct holdout_key k = { DISCOVER_ISCSI,
				 "iqn.2003-01.x:t1",
				 -1,
				 "",
				 0,
				 0,
				 2,
				 "naa.6001405ccaea50000000000000000000" };
	char text[2048], wwid[300];

	ck_assert_int_eq(holdout_text(&k, "r", text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, "\n# wwid: naa.6001405ccaea50000000000000000000\nlunmask"), "%s",
		      text);
	ck_assert_int_eq(holdout_text_wwid(text, wwid, sizeof(wwid)), 0);
	ck_assert_str_eq(wwid, "naa.6001405ccaea50000000000000000000");
	ck_assert_int_eq(holdout_text_wwid(text, wwid, 10), -ENOENT);
	/* none recorded, or a wwid with a newline (never written) */
	k.wwid[0] = '\0';
	ck_assert_int_eq(holdout_text(&k, "r", text, sizeof(text)), 0);
	ck_assert_int_eq(holdout_text_wwid(text, wwid, sizeof(wwid)), -ENOENT);
	snprintf(k.wwid, sizeof(k.wwid), "naa.1\nlunmask");
	ck_assert_int_eq(holdout_text(&k, "r", text, sizeof(text)), 0);
	ck_assert_int_eq(holdout_text_wwid(text, wwid, sizeof(wwid)), -ENOENT);
	ck_assert_int_eq(holdout_text_wwid("# wwid: \n", wwid, sizeof(wwid)), -ENOENT);
	ck_assert_int_eq(holdout_text_wwid("x\n# wwid: naa.2", wwid, sizeof(wwid)), 0);
	ck_assert_str_eq(wwid, "naa.2");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("volume");
	TCase *tc = tcase_create("volume");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_set_target, 0, sizeof(set_cases) / sizeof(set_cases[0]));
	tcase_add_loop_test(tc, test_target_matches, 0,
			    sizeof(match_cases) / sizeof(match_cases[0]));
	tcase_add_loop_test(tc, test_paths, 0, sizeof(paths_cases) / sizeof(paths_cases[0]));
	tcase_add_loop_test(tc, test_wwid, 0, sizeof(wwid_cases) / sizeof(wwid_cases[0]));
	tcase_add_test(tc, test_text);
	tcase_add_loop_test(tc, test_holdout, 0, sizeof(holdout_cases) / sizeof(holdout_cases[0]));
	tcase_add_test(tc, test_holdout_wwid);
	tcase_add_test(tc, test_holdout_round_trip);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
