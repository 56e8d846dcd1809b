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

static int cmp_addr(const void *a, const void *b)
{
	return scsi_addr_cmp(a, b);
}

int sysfs_devices(const struct sysfs_ctx *ctx, int host, struct scsi_addr **ret_addrs,
		  size_t *ret_count)
{
	struct scsi_addr *addrs = NULL;
	size_t count = 0, alloc = 0;
	struct dirent *de;
	size_t plen = 0;
	char prefix[16];
	DIR *d;
	int r;

	/* Every host's devices are in one directory: a host's scan must not
	 * pay a full parse for each LUN of every other host. */
	if (host != SCAN_WILDCARD)
		plen = (size_t)snprintf(prefix, sizeof(prefix), "%d:", host);
	r = sysfs_open_dir(ctx, "/sys/bus/scsi/devices", &d);
	if (r < 0)
		return r;
	while (d && (de = readdir(d))) {
		struct scsi_addr a;

		if (plen && strncmp(de->d_name, prefix, plen) != 0)
			continue;
		if (scsi_name_hctl(de->d_name, &a) < 0)
			continue;
		if (host != SCAN_WILDCARD && a.host != (unsigned int)host)
			continue;
		if (count == alloc) {
			struct scsi_addr *p;

			alloc = alloc ? alloc * 2 : 64;
			p = realloc(addrs, alloc * sizeof(*p));
			if (!p) {
				closedir(d);
				free(addrs);
				return -ENOMEM;
			}
			addrs = p;
		}
		addrs[count++] = a;
	}
	if (d)
		closedir(d);
	if (count)
		qsort(addrs, count, sizeof(*addrs), cmp_addr);
	*ret_addrs = addrs;
	*ret_count = count;
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
