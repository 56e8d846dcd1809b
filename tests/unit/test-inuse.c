// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-inuse.c - in-use detection (inuse.h) on fake /sys, /proc and /dev
 * trees, one case per way a system holds a disk, plus the line parsers.
 * Device nodes are made with mknod on majors the kernel leaves to local
 * use (240, 241), so they never open a real device; those cases need root.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "inuse.h"

/* The device 2:0:0:1: disk sdb (240:16) with partitions sdb1 and sdb70,
 * sg1 (241:1) and tape nst0 (241:128); the root file system is elsewhere. */
static const char base_tree[] =
	"dir sys/bus/scsi/devices/2:0:0:1/block/sdb\n"
	"file sys/class/block/sdb/dev 240:16\n"
	"file sys/class/block/sdb/sdb1/partition 1\n"
	"file sys/class/block/sdb/sdb1/dev 240:17\n"
	"file sys/class/block/sdb/sdb70/partition 70\n"
	"file sys/class/block/sdb/sdb70/dev 240:86\n"
	"file sys/class/block/sdb/queue/rotational 1\n"
	"dir sys/class/block/sdb/holders\n"
	"dir sys/class/block/sdb1/holders\n"
	"file sys/bus/scsi/devices/2:0:0:1/scsi_generic/sg1/dev 241:1\n"
	"file sys/bus/scsi/devices/2:0:0:1/scsi_tape/nst0/dev 241:128\n"
	"link proc/self/ns/mnt mnt:[4026531840]\n"
	"file proc/self/mountinfo 22 1 240:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"link proc/1/ns/mnt mnt:[4026531840]\n"
	"file proc/1/mountinfo 22 1 240:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"dir proc/1/fd\n"
	"file proc/1/comm systemd\n";

/* 9 KiB of a path: past the 8 KiB line buffer the mount table was once
 * read with. */
#define PATH64 "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define PATH1K                                                                                     \
	PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 PATH64 \
		PATH64 PATH64 PATH64
#define PATH9K PATH1K PATH1K PATH1K PATH1K PATH1K PATH1K PATH1K PATH1K PATH1K

struct inuse_case {
	const char *name;
	const char *tree; /* added to base_tree */
	bool needs_mknod;
	int want;	 /* 1, 0, or < 0 for "could not tell" */
	const char *why; /* a part of the reason */
};

static const struct inuse_case cases[] = {
	{ "free", "", false, 0, NULL },
	{ "partition mounted",
	  "file proc/self/mountinfo 30 22 240:17 / /srv\\040data rw - ext4 /dev/sdb1 rw\n", false,
	  1, "/dev/sdb1 is mounted on /srv data (ext4)" },
	{ "partition past the 63rd mounted",
	  "file proc/self/mountinfo 30 22 240:86 / /srv rw - xfs /dev/sdb70 rw\n", false, 1,
	  "/dev/sdb70 is mounted" },
	{ "a mount whose mountinfo line is longer than 8 KiB (a long bind-mount root)",
	  "file proc/self/mountinfo 30 22 240:17 " PATH9K " /srv rw - ext4 /dev/sdb1 rw\n", false,
	  1, "/dev/sdb1 is mounted on /srv (ext4)" },
	{ "a mount after a line longer than 8 KiB",
	  "file proc/self/mountinfo 29 22 240:1 " PATH9K " /x rw - ext4 /dev/sda1 rw|"
	  "30 22 240:17 / /srv rw - ext4 /dev/sdb1 rw\n",
	  false, 1, "/dev/sdb1 is mounted on /srv (ext4)" },
	{ "btrfs on the disk: anonymous st_dev, source by device number",
	  "blk dev/disk/by-label/data 240:16\n"
	  "file proc/self/mountinfo 30 22 0:45 / /data rw - btrfs /dev/disk/by-label/data rw\n",
	  true, 1, "/dev/sdb is mounted on /data (btrfs)" },
	{ "btrfs source of the same name but another device is not ours",
	  "blk dev/sdb 240:99\n"
	  "file proc/self/mountinfo 30 22 0:45 / /data rw - btrfs /dev/sdb rw\n",
	  true, 0, NULL },
	{ "second device of a mounted btrfs",
	  "file sys/fs/btrfs/6a1e7c3e-0000-4000-8000-000000000001/devices/sdb/dev 240:16\n"
	  "file sys/fs/btrfs/6a1e7c3e-0000-4000-8000-000000000001/devices/sdc/dev 240:32\n"
	  "dir sys/fs/btrfs/features\n",
	  false, 1, "/dev/sdb is a device of the btrfs file system 6a1e7c3e" },
	{ "mount in another mount namespace",
	  "link proc/4242/ns/mnt mnt:[4026532999]\n"
	  "file proc/4242/mountinfo 40 39 240:17 / /var/lib/ct rw - ext4 /dev/sdb1 rw\n",
	  false, 1, "in the mount namespace of pid 4242" },
	{ "a namespace already read is not read again",
	  "link proc/4243/ns/mnt mnt:[4026531840]\n"
	  "file proc/4243/mountinfo 40 39 240:17 / /stale rw - ext4 /dev/sdb1 rw\n",
	  false, 0, NULL },
	{ "a process that ended while looked at", "link proc/4244/ns/mnt mnt:[4026532999]\n", false,
	  0, NULL },
	{ "XFS external log device",
	  "blk dev/sdb 240:16\n"
	  "file proc/self/mountinfo 30 22 240:2 / /srv rw - xfs /dev/sda2 rw,logdev=/dev/sdb,noquota\n",
	  true, 1, "/dev/sdb is the external log or journal of the xfs on /srv" },
	{ "active swap partition",
	  "blk dev/sdb1 240:17\n"
	  "file proc/swaps Filename\tType\tSize\tUsed\tPriority|"
	  "/dev/sdb1                               partition\t1048572\t0\t-2\n",
	  true, 1, "/dev/sdb1 holds the active swap area /dev/sdb1" },
	{ "a swap area that cannot be found is not taken as free",
	  "file proc/swaps Filename\tType\tSize\tUsed\tPriority|"
	  "/dev/gone                               partition\t1048572\t0\t-2\n",
	  false, -ENOENT, "cannot find the swap area /dev/gone" },
	{ "held by multipath, under LVM",
	  "dir sys/class/block/sdb1/holders/dm-0\n"
	  "file sys/class/block/dm-0/dm/name mpatha\n"
	  "dir sys/class/block/dm-0/holders/dm-1\n"
	  "file sys/class/block/dm-1/dm/name vg-root\n",
	  false, 1, "/dev/sdb1 is held by dm-0 (mpatha), under dm-1 (vg-root)" },
	{ "held by md", "dir sys/class/block/sdb/holders/md127\n", false, 1,
	  "/dev/sdb is held by md127" },
	{ "tape open as nst0 by another process",
	  "chr dev/nst0 241:128\n"
	  "link proc/4250/fd/3 @dev/nst0\n"
	  "file proc/4250/comm tar\n",
	  true, 1, "/dev/nst0 is open by pid 4250 (tar)" },
	{ "disk open through a by-id link, by device number",
	  "blk dev/disk/by-id/wwn-0x5000 240:16\n"
	  "link proc/4251/fd/7 @dev/disk/by-id/wwn-0x5000\n"
	  "file proc/4251/comm qemu-system-x86\n",
	  true, 1, "/dev/sdb is open by pid 4251 (qemu-system-x86)" },
	{ "open by udev's worker for a probe (blkid, scsi_id): no user",
	  "blk dev/sdb 240:16\n"
	  "link proc/4256/fd/14 @dev/sdb\n"
	  "file proc/4256/comm (udev-worker)\n"
	  "link proc/4257/fd/9 @dev/sdb\n"
	  "file proc/4257/comm systemd-udevd\n",
	  true, 0, NULL },
	{ "open by a program udev's worker runs for a rule (scsi_id): no user",
	  "blk dev/sdb 240:16\n"
	  "link proc/4259/fd/3 @dev/sdb\n"
	  "file proc/4259/comm scsi_id\n"
	  "file proc/4259/stat 4259 (scsi_id) S 4256 4256 0 0\n"
	  "file proc/4256/comm (udev-worker)\n",
	  true, 0, NULL },
	{ "open by multipathd, which checks the path (a map would be a holder): no user",
	  "blk dev/sdb 240:16\n"
	  "link proc/4263/fd/11 @dev/sdb\n"
	  "file proc/4263/comm multipathd\n",
	  true, 0, NULL },
	{ "open by a program whose parent is no udev worker: in use",
	  "blk dev/sdb 240:16\n"
	  "link proc/4260/fd/3 @dev/sdb\n"
	  "file proc/4260/comm scsi_id\n"
	  "file proc/4260/stat 4260 (scsi_id) S 4261 4261 0 0\n"
	  "file proc/4261/comm bash\n",
	  true, 1, "/dev/sdb is open by pid 4260 (scsi_id)" },
	{ "a name with spaces and parentheses in stat",
	  "blk dev/sdb 240:16\n"
	  "link proc/4262/fd/3 @dev/sdb\n"
	  "file proc/4262/comm a) b\n"
	  "file proc/4262/stat 4262 (a) b) S 4256 4256 0 0\n"
	  "file proc/4256/comm (udev-worker)\n",
	  true, 0, NULL },
	{ "open by udev's worker and by a user: in use by the user",
	  "blk dev/sdb 240:16\n"
	  "link proc/4256/fd/14 @dev/sdb\n"
	  "file proc/4256/comm (udev-worker)\n"
	  "link proc/4258/fd/3 @dev/sdb\n"
	  "file proc/4258/comm dd\n",
	  true, 1, "/dev/sdb is open by pid 4258 (dd)" },
	{ "a file named like the disk is not the disk",
	  "file dev/sdb not a node\n"
	  "link proc/4252/fd/3 @dev/sdb\n",
	  false, 0, NULL },
	{ "sockets and pipes are skipped",
	  "link proc/4253/fd/0 pipe:[123]\n"
	  "link proc/4253/fd/1 socket:[456]\n",
	  false, 0, NULL },
	{ "open files that cannot be read are not taken as free",
	  "file proc/4254/fd not a directory\n", false, -ENOTDIR,
	  "cannot read the open files of pid 4254" },
	{ "mount table that cannot be read is not taken as free",
	  "link proc/4255/ns/mnt mnt:[4026533000]\n"
	  "dir proc/4255/mountinfo\n",
	  false, -EISDIR, NULL },
	{ "an exclusive open of a node with no device behind it says nothing",
	  "blk dev/sdb 240:16\n", true, 0, NULL },
};

static char root[] = "/tmp/test-inuse-XXXXXX";

static void mkparents(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(buf, 0755) < 0)
			ck_assert_int_eq(errno, EEXIST);
		*p = '/';
	}
}

static void node(const char *path, const char *devt, mode_t type)
{
	unsigned int ma, mi;

	ck_assert_int_eq(sscanf(devt, "%u:%u", &ma, &mi), 2);
	mkparents(path);
	ck_assert_int_eq(mknod(path, type | 0600, makedev(ma, mi)), 0);
}

/* One op a line: "dir P", "file P TEXT" (appended, '|' starts a new line
 * of it), "link P TARGET" (@ is the root), "blk P M:N", "chr P M:N". */
static void build(const char *spec)
{
	char *copy = strdup(spec), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char op[8], rel[1024], path[4096], target[4096];
		int off = 0;
		FILE *f;

		if (sscanf(l, "%7s %1023s %n", op, rel, &off) < 2)
			ck_abort_msg("bad spec line %s", l);
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		if (strcmp(op, "dir") == 0) {
			snprintf(target, sizeof(target), "%s/", path);
			mkparents(target);
		} else if (strcmp(op, "file") == 0) {
			mkparents(path);
			f = fopen(path, "a");
			ck_assert_ptr_nonnull(f);
			for (const char *c = l + off; *c; c++)
				fputc(*c == '|' ? '\n' : *c, f);
			fputc('\n', f);
			fclose(f);
		} else if (strcmp(op, "link") == 0) {
			mkparents(path);
			if (l[off] == '@')
				snprintf(target, sizeof(target), "%s/%s", root, l + off + 1);
			else
				snprintf(target, sizeof(target), "%s", l + off);
			ck_assert_int_eq(symlink(target, path), 0);
		} else if (strcmp(op, "blk") == 0) {
			node(path, l + off, S_IFBLK);
		} else if (strcmp(op, "chr") == 0) {
			node(path, l + off, S_IFCHR);
		} else {
			ck_abort_msg("bad op %s", op);
		}
	}
	free(copy);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

START_TEST(inuse_cases)
{
	const struct inuse_case *c = &cases[_i];
	struct scsi_addr a = { .host = 2, .channel = 0, .id = 0, .lun = 1 };
	struct sysfs_ctx *ctx;
	char why[512] = "";
	int r;

	if (c->needs_mknod && geteuid() != 0) {
		fprintf(stderr, "skipped (needs root for mknod): %s\n", c->name);
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(root));
	build(base_tree);
	build(c->tree);
	ctx = sysfs_new(root);
	r = device_in_use(ctx, &a, why, sizeof(why));
	ck_assert_msg(r == c->want, "%s: %d (%s), want %d", c->name, r, why, c->want);
	if (c->why)
		ck_assert_msg(strstr(why, c->why), "%s: '%s' lacks '%s'", c->name, why, c->why);
	sysfs_free(ctx);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	strcpy(root + strlen(root) - 6, "XXXXXX");
}
END_TEST

START_TEST(inuse_collects_every_node)
{
	struct scsi_addr a = { .host = 2, .channel = 0, .id = 0, .lun = 1 };
	struct inuse_nodes n;
	struct sysfs_ctx *ctx;
	char names[256] = "";

	ck_assert_ptr_nonnull(mkdtemp(root));
	build(base_tree);
	build("file sys/bus/scsi/devices/2:0:0:1/bsg/2:0:0:1/dev 241:2\n");
	ctx = sysfs_new(root);
	ck_assert_int_eq(inuse_nodes_collect(ctx, &a, &n), 0);
	for (size_t i = 0; i < n.count; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s%s",
			 i ? " " : "", n.v[i].name, n.v[i].whole ? "*" : "");
	/* Partition order is readdir's: compare as a set. */
	ck_assert_uint_eq(n.count, 6);
	ck_assert_ptr_nonnull(strstr(names, "sdb*"));
	ck_assert_ptr_nonnull(strstr(names, "sdb1"));
	ck_assert_ptr_nonnull(strstr(names, "sdb70"));
	ck_assert_ptr_nonnull(strstr(names, "sg1"));
	ck_assert_ptr_nonnull(strstr(names, "bsg/2:0:0:1"));
	ck_assert_ptr_nonnull(strstr(names, "nst0"));
	inuse_nodes_free(&n);
	sysfs_free(ctx);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	strcpy(root + strlen(root) - 6, "XXXXXX");
}
END_TEST

static const struct {
	const char *line;
	int r;
	unsigned int major, minor;
	const char *mount_point, *fstype, *source, *super_options;
} mountinfo_cases[] = {
	{ "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n", 0, 98,
	  0, "/mnt2", "ext3", "/dev/root", "rw,errors=continue" },
	{ "30 22 0:45 / /a\\040b rw shared:2 master:3 - btrfs /dev/sd\\134x rw", 0, 0, 45, "/a b",
	  "btrfs", "/dev/sd\\x", "rw" },
	{ "30 22 0:45 / /a rw - tmpfs tmpfs", 0, 0, 45, "/a", "tmpfs", "tmpfs", "" },
	{ "30 22 0:45 / /a rw shared:1 tmpfs tmpfs rw", -EINVAL, 0, 0, NULL, NULL, NULL, NULL },
	{ "30 22 8 / /a rw - ext4 /dev/sda rw", -EINVAL, 0, 0, NULL, NULL, NULL, NULL },
	{ "30 22", -EINVAL, 0, 0, NULL, NULL, NULL, NULL },
};

START_TEST(mountinfo_lines)
{
	struct mountinfo_entry m;
	char line[256];

	snprintf(line, sizeof(line), "%s", mountinfo_cases[_i].line);
	ck_assert_int_eq(mountinfo_parse(line, &m), mountinfo_cases[_i].r);
	if (mountinfo_cases[_i].r < 0)
		return;
	ck_assert_uint_eq(major(m.devt), mountinfo_cases[_i].major);
	ck_assert_uint_eq(minor(m.devt), mountinfo_cases[_i].minor);
	ck_assert_str_eq(m.mount_point, mountinfo_cases[_i].mount_point);
	ck_assert_str_eq(m.fstype, mountinfo_cases[_i].fstype);
	ck_assert_str_eq(m.source, mountinfo_cases[_i].source);
	ck_assert_str_eq(m.super_options, mountinfo_cases[_i].super_options);
}
END_TEST

START_TEST(mount_options_and_swaps)
{
	char opts[] =
		"rw,logdev=/dev/sdc,rtdev=/dev/sd\\040d,noquota,journal_path=/dev/sde,logdev=";
	char sw1[] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
	char sw2[] = "/swap\\040file                            file\t\t1048572\t\t0\t\t-2\n";
	char sw3[] = "/dev/sdb2\n";
	const char *devs[4], *path;
	bool part;

	ck_assert_uint_eq(mount_option_devices(opts, devs, 4), 3);
	ck_assert_str_eq(devs[0], "/dev/sdc");
	ck_assert_str_eq(devs[1], "/dev/sd d");
	ck_assert_str_eq(devs[2], "/dev/sde");
	ck_assert_int_eq(proc_swaps_parse(sw1, &path, &part), 0);
	ck_assert_ptr_null(path);
	ck_assert_int_eq(proc_swaps_parse(sw2, &path, &part), 0);
	ck_assert_str_eq(path, "/swap file");
	ck_assert(!part);
	ck_assert_int_eq(proc_swaps_parse(sw3, &path, &part), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("inuse");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, inuse_cases, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, inuse_collects_every_node);
	tcase_add_loop_test(tc, mountinfo_lines, 0,
			    sizeof(mountinfo_cases) / sizeof(mountinfo_cases[0]));
	tcase_add_test(tc, mount_options_and_swaps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
