// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rootdevs.c - the disks a mounted file system lies on: mountinfo for the
 * device, sysfs's partition and slaves entries for the stack below it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "discover.h"
#include "inuse.h"
#include "lunmask.h"
#include "rootdevs.h"
#include "topology.h"

#define ROOTDEVS_DEPTH_MAX 16

struct walk {
	const struct sysfs_ctx *sys;
	struct rootdev *v;
	size_t count;
	char *why;
	size_t len;
};

/* The device number of the file system on top of @mount_point, and its
 * source. */
static int mount_devt(const struct sysfs_ctx *sys, const char *mount_point, dev_t *ret,
		      char *source, size_t source_len, char *why, size_t len)
{
	char path[PATH_MAX], *line = NULL;
	size_t alloc = 0;
	bool found = false;
	FILE *f;

	if (sysfs_path(sys, path, sizeof(path), "/proc/self/mountinfo") < 0)
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f) {
		int r = -errno;

		snprintf(why, len, "cannot read %s: %s", path, strerror(-r));
		return r;
	}
	while (getline(&line, &alloc, f) >= 0) {
		struct mountinfo_entry m;

		if (mountinfo_parse(line, &m) < 0 || strcmp(m.mount_point, mount_point) != 0)
			continue;
		*ret = m.devt;
		snprintf(source, source_len, "%s", m.source);
		found = true;
	}
	free(line);
	fclose(f);
	if (!found) {
		snprintf(why, len, "nothing is mounted on %s", mount_point);
		return -ENOENT;
	}
	return 0;
}

/* The kernel's name of block device @devt: the entry of /sys/class/block
 * whose dev says so. */
static int name_of_devt(const struct sysfs_ctx *sys, dev_t devt, char *name, size_t len)
{
	char want[32], have[32];
	struct dirent *de;
	DIR *d;
	int r;

	snprintf(want, sizeof(want), "%u:%u", major(devt), minor(devt));
	r = sysfs_open_dir(sys, "/sys/class/block", &d);
	if (r < 0 || !d)
		return r < 0 ? r : -ENOENT;
	r = -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (sysfs_read(sys, have, sizeof(have), "/sys/class/block/%s/dev", de->d_name) <
			    0 ||
		    strcmp(have, want) != 0)
			continue;
		snprintf(name, len, "%s", de->d_name);
		r = 0;
		break;
	}
	closedir(d);
	return r;
}

/* The kernel's name of the device a mount's source names ("/dev/sda2",
 * "/dev/mapper/vg-root"): the last part of the path its links lead to. */
static int name_of_source(const struct sysfs_ctx *sys, const char *source, char *name, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *base;

	if (strncmp(source, "/dev/", 5) != 0 ||
	    sysfs_path(sys, path, sizeof(path), "%s", source) < 0 || !realpath(path, real))
		return -ENOENT;
	base = strrchr(real, '/');
	snprintf(name, len, "%s", base ? base + 1 : real);
	return 0;
}

/* The H:C:T:L a disk's sysfs directory lies under (".../0:0:1:0/block/sda"). */
static bool scsi_of_disk(const char *real, struct scsi_addr *ret)
{
	const char *blk = NULL, *p = real;
	char part[64];
	const char *start;
	size_t n;

	while ((p = strstr(p, "/block/")))
		blk = p++;
	if (!blk)
		return false;
	for (start = blk; start > real && start[-1] != '/'; start--)
		;
	n = (size_t)(blk - start);
	if (n >= sizeof(part))
		return false;
	memcpy(part, start, n);
	part[n] = '\0';
	return scsi_name_hctl(part, ret) == 0;
}

static int add_disk(struct walk *w, const char *name, const char *real)
{
	struct rootdev *v;

	for (size_t i = 0; i < w->count; i++)
		if (strcmp(w->v[i].name, name) == 0)
			return 0;
	v = realloc(w->v, (w->count + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->v = v;
	memset(&v[w->count], 0, sizeof(v[0]));
	snprintf(v[w->count].name, sizeof(v[0].name), "%s", name);
	v[w->count].scsi = scsi_of_disk(real, &v[w->count].addr);
	w->count++;
	return 0;
}

static int walk(struct walk *w, const char *name, unsigned int depth)
{
	char rel[PATH_MAX], path[PATH_MAX], real[PATH_MAX], disk[ROOTDEVS_NAME_LEN], attr[16];
	struct dirent *de;
	bool slaves = false;
	DIR *d;
	int r;

	if (depth > ROOTDEVS_DEPTH_MAX) {
		snprintf(w->why, w->len, "block devices stacked deeper than %d levels at %s",
			 ROOTDEVS_DEPTH_MAX, name);
		return -ELOOP;
	}
	if (sysfs_path(w->sys, path, sizeof(path), "/sys/class/block/%s", name) < 0)
		return -ENAMETOOLONG;
	if (!realpath(path, real)) {
		r = -errno;
		snprintf(w->why, w->len, "cannot resolve %s: %s", path, strerror(-r));
		return r;
	}
	/* A partition's directory lies in its disk's. */
	if (sysfs_read(w->sys, attr, sizeof(attr), "/sys/class/block/%s/partition", name) >= 0) {
		char *slash = strrchr(real, '/');

		if (!slash || slash == real) {
			snprintf(w->why, w->len, "no disk above the partition %s", name);
			return -ENOENT;
		}
		*slash = '\0';
		slash = strrchr(real, '/');
		snprintf(disk, sizeof(disk), "%s", slash ? slash + 1 : real);
		return walk(w, disk, depth + 1);
	}
	snprintf(rel, sizeof(rel), "/sys/class/block/%s/slaves", name);
	r = sysfs_open_dir(w->sys, rel, &d);
	if (r < 0) {
		snprintf(w->why, w->len, "cannot read %s: %s", rel, strerror(-r));
		return r;
	}
	while (d && r == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		slaves = true;
		snprintf(disk, sizeof(disk), "%s", de->d_name);
		r = walk(w, disk, depth + 1);
	}
	if (d)
		closedir(d);
	if (r < 0 || slaves)
		return r;
	return add_disk(w, name, real);
}

/*
 * A btrfs file system may span several devices, of which the mount names
 * one: sysfs lists them all under /sys/fs/btrfs/UUID/devices. Each is
 * walked when @name is one of them (*@ret_found set).
 */
static int walk_btrfs(struct walk *w, const char *name, bool *ret_found)
{
	char rel[PATH_MAX], dev[ROOTDEVS_NAME_LEN], attr[32];
	struct dirent *fs, *de;
	DIR *top, *d;
	int r;

	*ret_found = false;
	r = sysfs_open_dir(w->sys, "/sys/fs/btrfs", &top);
	if (r < 0 || !top)
		return r == -ENOENT ? 0 : r;
	r = 0;
	while (r == 0 && !*ret_found && (fs = readdir(top))) {
		if (fs->d_name[0] == '.' ||
		    sysfs_read(w->sys, attr, sizeof(attr), "/sys/fs/btrfs/%s/devices/%s/dev",
			       fs->d_name, name) < 0)
			continue;
		*ret_found = true;
		snprintf(rel, sizeof(rel), "/sys/fs/btrfs/%s/devices", fs->d_name);
		r = sysfs_open_dir(w->sys, rel, &d);
		while (r == 0 && d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(dev, sizeof(dev), "%s", de->d_name);
			r = walk(w, dev, 1);
		}
		if (d)
			closedir(d);
	}
	closedir(top);
	return r;
}

int rootdevs_of_mount(const struct sysfs_ctx *sys, const char *mount_point, struct rootdev **ret,
		      size_t *ret_count, char *why, size_t len)
{
	struct walk w = { .sys = sys, .why = why, .len = len };
	char source[PATH_MAX], name[ROOTDEVS_NAME_LEN];
	bool btrfs = false;
	dev_t devt;
	int r;

	*ret = NULL;
	*ret_count = 0;
	r = mount_devt(sys, mount_point, &devt, source, sizeof(source), why, len);
	if (r < 0)
		return r;
	/* btrfs and others report an anonymous 0:N; the source names the
	 * device that was mounted. */
	if (major(devt) != 0)
		r = name_of_devt(sys, devt, name, sizeof(name));
	else
		r = name_of_source(sys, source, name, sizeof(name));
	if (r == -ENOENT)
		snprintf(why, len, "%s (%u:%u, %s) is no block device in sysfs", mount_point,
			 major(devt), minor(devt), source);
	else if (r < 0)
		snprintf(why, len, "cannot read /sys/class/block: %s", strerror(-r));
	if (r == 0)
		r = walk_btrfs(&w, name, &btrfs);
	if (r == 0 && !btrfs)
		r = walk(&w, name, 0);
	if (r < 0) {
		free(w.v);
		return r;
	}
	*ret = w.v;
	*ret_count = w.count;
	return 0;
}

/* What the paths of one disk point into, kept until the text is made. */
struct disk_names {
	char driver[64];
	char host_port_name[32];
	struct discover_target *listed;
	struct lunmask_target *targets;
	char (*iqns)[ISCSI_NAME_MAX + 16];
};

static int disk_paths(const struct sysfs_ctx *sys, const struct rootdev *dev, struct disk_names *dn,
		      struct lunmask_boot_path **paths, size_t *npaths, char *why, size_t len)
{
	enum discover_transport transport;
	struct lunmask_target base = { .host = dev->addr.host,
				       .channel = dev->addr.channel,
				       .id = dev->addr.id,
				       .iscsi_tpgt = -1 };
	struct lunmask_boot_path *p;
	size_t nlisted = 0;
	ssize_t nt;
	int r;

	if (sysfs_read(sys, dn->driver, sizeof(dn->driver), "/sys/class/scsi_host/host%u/proc_name",
		       dev->addr.host) > 0)
		base.driver = dn->driver;
	if (sysfs_read(sys, dn->host_port_name, sizeof(dn->host_port_name),
		       "/sys/class/fc_host/host%u/port_name", dev->addr.host) > 0)
		base.host_port_name = dn->host_port_name;
	r = topology_read(sys, dev->addr.host, &transport, &dn->listed, &nlisted);
	if (r < 0) {
		snprintf(why, len, "cannot read the transport of host%u: %s", dev->addr.host,
			 strerror(-r));
		return r;
	}
	nt = discover_lunmask_targets(dn->listed, nlisted, transport, &base, &dn->targets,
				      &dn->iqns);
	if (nt < 0)
		return (int)nt;
	p = realloc(*paths, (*npaths + (size_t)nt) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*paths = p;
	for (ssize_t i = 0; i < nt; i++)
		p[(*npaths)++] = (struct lunmask_boot_path){ dn->targets[i], dev->addr.lun };
	return 0;
}

int rootdevs_boot_config(const struct sysfs_ctx *sys, const struct rootdev *devs, size_t n,
			 char **ret_text, char *why, size_t len)
{
	struct lunmask_boot_path *paths = NULL;
	struct disk_names *names;
	size_t npaths = 0;
	const char *error = NULL;
	int r = 0;

	*ret_text = NULL;
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++)
		if (devs[i].scsi)
			r = disk_paths(sys, &devs[i], &names[i], &paths, &npaths, why, len);
	if (r == 0 && !npaths) {
		snprintf(why, len, "%s%s", n ? devs[0].name : "nothing",
			 n > 1 ? " and others" : "");
		r = -ENODEV;
	}
	if (r == 0) {
		r = lunmask_boot_config(paths, npaths, ret_text, &error);
		if (r == -EINVAL || r == -E2BIG)
			snprintf(why, len, "%s", error);
	}
	for (size_t i = 0; i < n; i++) {
		free(names[i].listed);
		free(names[i].targets);
		free(names[i].iqns);
	}
	free(names);
	free(paths);
	return r;
}
