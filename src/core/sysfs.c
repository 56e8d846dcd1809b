// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfs.c - the kernel's SCSI objects in sysfs: hosts and devices, their
 * attributes and nodes, and the scan, delete and rescan writes.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int sysfs_hosts(const struct sysfs_ctx *ctx, unsigned int **ret_hosts, size_t *ret_count)
{
	unsigned int *hosts = NULL;
	size_t count = 0;
	struct dirent *de;
	DIR *d;
	int r;

	r = sysfs_open_dir(ctx, "/sys/class/scsi_host", &d);
	if (r < 0)
		return r;
	while (d && (de = readdir(d))) {
		unsigned int h;
		unsigned int *p;

		if (scsi_name_host(de->d_name, &h) < 0)
			continue;
		p = realloc(hosts, (count + 1) * sizeof(*p));
		if (!p) {
			closedir(d);
			free(hosts);
			return -ENOMEM;
		}
		hosts = p;
		hosts[count++] = h;
	}
	if (d)
		closedir(d);
	if (count)
		qsort(hosts, count, sizeof(*hosts), cmp_uint);
	*ret_hosts = hosts;
	*ret_count = count;
	return 0;
}

bool sysfs_host_exists(const struct sysfs_ctx *ctx, unsigned int host)
{
	char rel[64];
	DIR *d;

	snprintf(rel, sizeof(rel), "/sys/class/scsi_host/host%u", host);
	if (sysfs_open_dir(ctx, rel, &d) < 0 || !d)
		return false;
	closedir(d);
	return true;
}

int sysfs_host_path(const struct sysfs_ctx *ctx, unsigned int host, char *buf, size_t len)
{
	char link[PATH_MAX], top[PATH_MAX], *real;
	size_t n;
	int r = 0;

	if (sysfs_path(ctx, link, sizeof(link), "/sys/class/scsi_host/host%u/device", host) < 0 ||
	    sysfs_path(ctx, top, sizeof(top), "/sys/devices/") < 0)
		return -ENAMETOOLONG;
	real = realpath(link, NULL);
	if (!real)
		return -errno;
	n = strlen(top);
	/* realpath() drops the slash: "/sys/devices/" is its "/sys/devices". */
	if (strncmp(real, top, n) != 0) {
		r = -ENOENT;
		goto out;
	}
	{
		char *end = strrchr(real + n, '/');
		char tail[32];

		snprintf(tail, sizeof(tail), "host%u", host);
		if (!end || strcmp(end + 1, tail) != 0) {
			r = -ENOENT;
			goto out;
		}
		*end = '\0';
	}
	if ((size_t)snprintf(buf, len, "%s", real + n) >= len)
		r = -ENAMETOOLONG;
out:
	free(real);
	return r;
}

struct addr_list {
	struct scsi_addr *addrs;
	size_t count, alloc;
};

static int addr_list_add(struct addr_list *list, const struct scsi_addr *a)
{
	if (list->count == list->alloc) {
		size_t alloc = list->alloc ? list->alloc * 2 : 64;
		struct scsi_addr *p = realloc(list->addrs, alloc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		list->addrs = p;
		list->alloc = alloc;
	}
	list->addrs[list->count++] = *a;
	return 0;
}

/* Transport objects between a host and its LUNs: SAS ports, expanders and
 * end devices nest two levels per expander; no topology goes this deep. */
#define HOST_TREE_DEPTH 16

/*
 * The devices of host @host in the directory @fd (closed here): its entries
 * named H:C:T:L, and those of the directories below it (targets, iSCSI
 * sessions, FC remote ports, SAS ports and end devices, and the class and
 * power directories, which hold none). A device's own directory is not
 * entered, and links (subsystem, driver, device) are not followed.
 */
static int host_tree_devices(int fd, unsigned int host, unsigned int depth, struct addr_list *list)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		struct scsi_addr a;
		int sub;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (scsi_name_hctl(de->d_name, &a) == 0) {
			if (a.host != host)
				continue;
			r = addr_list_add(list, &a);
			if (r < 0)
				break;
			continue;
		}
		if (!depth)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			/* A link or a file (no d_type), or gone meanwhile;
			 * anything else would leave devices out unseen. */
			if (errno == ELOOP || errno == ENOTDIR || errno == ENOENT)
				continue;
			r = -errno;
			break;
		}
		r = host_tree_devices(sub, host, depth - 1, list);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

/* Every host's devices are in one directory, /sys/bus/scsi/devices: a
 * host's listing reads only that host's part of the device tree instead,
 * so that the scans of many hosts do not each read every host's LUNs.
 * Returns 1 for the bus directory instead: a tree without the host's
 * device link (a test's), or one that could not be read whole. */
static int host_devices(const struct sysfs_ctx *ctx, unsigned int host, struct addr_list *list)
{
	char path[PATH_MAX];
	int r, fd;

	r = sysfs_path(ctx, path, sizeof(path), "/sys/class/scsi_host/host%u/device", host);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : 1;
	r = host_tree_devices(fd, host, HOST_TREE_DEPTH, list);
	if (r < 0 && r != -ENOMEM) {
		/* A part of the tree that cannot be read (a user's listing):
		 * the bus directory has them all. */
		list->count = 0;
		return 1;
	}
	return r;
}

static int bus_devices(const struct sysfs_ctx *ctx, int host, struct addr_list *list)
{
	struct dirent *de;
	size_t plen = 0;
	char prefix[16];
	DIR *d;
	int r;

	if (host != SCAN_WILDCARD)
		plen = (size_t)snprintf(prefix, sizeof(prefix), "%d:", host);
	r = sysfs_open_dir(ctx, "/sys/bus/scsi/devices", &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		struct scsi_addr a;

		if (plen && strncmp(de->d_name, prefix, plen) != 0)
			continue;
		if (scsi_name_hctl(de->d_name, &a) < 0)
			continue;
		if (host != SCAN_WILDCARD && a.host != (unsigned int)host)
			continue;
		r = addr_list_add(list, &a);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int sysfs_devices(const struct sysfs_ctx *ctx, int host, struct scsi_addr **ret_addrs,
		  size_t *ret_count)
{
	struct addr_list list = { 0 };
	int r = 1;

	if (host != SCAN_WILDCARD)
		r = host_devices(ctx, (unsigned int)host, &list);
	if (r > 0)
		r = bus_devices(ctx, host, &list);
	if (r < 0) {
		free(list.addrs);
		return r;
	}
	r = scsi_addr_sort(list.addrs, list.count);
	if (r < 0) {
		free(list.addrs);
		return r;
	}
	*ret_addrs = list.addrs;
	*ret_count = list.count;
	return 0;
}

bool sysfs_device_exists(const struct sysfs_ctx *ctx, const struct scsi_addr *a)
{
	char path[PATH_MAX], name[32];
	struct stat st;

	if (sysfs_path(ctx, path, sizeof(path), "/sys/bus/scsi/devices/%s",
		       scsi_addr_format(a, name, sizeof(name))) < 0)
		return false;
	return stat(path, &st) == 0;
}

static int write_path(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = write(fd, value, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0 && errno != EINTR)
		r = -errno;
	return r;
}

/* The value of a host's scan attribute: "C T L\n", '-' for a wildcard.
 * @value has room for 3 * 20 + 4 characters. Returns its length. */
static size_t scan_value(char *value, int channel, int id, uint64_t lun)
{
	char *p = value;

	if (channel == SCAN_WILDCARD)
		*p++ = '-';
	else
		p = scsi_put_decimal(p, (uint64_t)channel);
	*p++ = ' ';
	if (id == SCAN_WILDCARD)
		*p++ = '-';
	else
		p = scsi_put_decimal(p, (uint64_t)id);
	*p++ = ' ';
	/* The kernel reads at most 16 characters for the LUN (%16s): past
	 * 9999999999999999 only hex fits (up to 0xffffffffffffff). */
	if (lun == UINT64_MAX)
		*p++ = '-';
	else if (lun > UINT64_C(9999999999999999))
		p += sprintf(p, "0x%" PRIx64, lun);
	else
		p = scsi_put_decimal(p, lun);
	*p++ = '\n';
	*p = '\0';
	return (size_t)(p - value);
}

int sysfs_scan_open(const struct sysfs_ctx *ctx, unsigned int host)
{
	char path[PATH_MAX];
	int fd, r;

	r = sysfs_path(ctx, path, sizeof(path), "/sys/class/scsi_host/host%u/scan", host);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sysfs_scan_fd(int fd, int channel, int id, uint64_t lun)
{
	char value[3 * 20 + 4];
	size_t len;
	ssize_t n;

	/* Only SCAN_WILDCARD may become "-". */
	if (channel < SCAN_WILDCARD || id < SCAN_WILDCARD)
		return -EINVAL;
	len = scan_value(value, channel, id, lun);
	do {
		n = write(fd, value, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int sysfs_device_write(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const char *attr,
		       const char *value)
{
	char path[PATH_MAX], name[32];
	int r;

	r = sysfs_path(ctx, path, sizeof(path), "/sys/bus/scsi/devices/%s/%s",
		       scsi_addr_format(a, name, sizeof(name)), attr);
	if (r < 0)
		return r;
	return write_path(path, value);
}

int sysfs_delete(const struct sysfs_ctx *ctx, const struct scsi_addr *a)
{
	return sysfs_device_write(ctx, a, "delete", "1\n");
}

int sysfs_device_attr(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const char *attr,
		      char *buf, size_t len)
{
	char name[32];
	int r;

	r = sysfs_read(ctx, buf, len, "/sys/bus/scsi/devices/%s/%s",
		       scsi_addr_format(a, name, sizeof(name)), attr);
	while (r > 0 && (buf[r - 1] == ' ' || buf[r - 1] == '\n'))
		buf[--r] = '\0';
	return r;
}

int sysfs_device_link(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const char *subdir,
		      char *buf, size_t len)
{
	char path[PATH_MAX], name[32];
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	if (sysfs_path(ctx, path, sizeof(path), "/sys/bus/scsi/devices/%s/%s",
		       scsi_addr_format(a, name, sizeof(name)), subdir) < 0)
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (strlen(de->d_name) >= len) {
			r = -ENAMETOOLONG;
			break;
		}
		strcpy(buf, de->d_name);
		r = 0;
		break;
	}
	closedir(d);
	return r;
}

int sysfs_device_node(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *buf, size_t len)
{
	char name[64];

	if (sysfs_device_link(ctx, a, "scsi_generic", name, sizeof(name)) == 0)
		return sysfs_path(ctx, buf, len, "/dev/%s", name);
	if (sysfs_device_link(ctx, a, "bsg", name, sizeof(name)) == 0)
		return sysfs_path(ctx, buf, len, "/dev/bsg/%s", name);
	return -ENOENT;
}
