// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfs.c - the path context: every /sys, /dev, /proc and /run access goes
 * through here, under a root that tests can move.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysfs.h"

struct sysfs_ctx {
	char *root;
};

struct sysfs_ctx *sysfs_new(const char *root)
{
	struct sysfs_ctx *ctx = calloc(1, sizeof(*ctx));
	size_t n;

	if (!ctx)
		return NULL;
	ctx->root = strdup(root ? root : "");
	if (!ctx->root) {
		free(ctx);
		return NULL;
	}
	n = strlen(ctx->root);
	while (n > 0 && ctx->root[n - 1] == '/')
		ctx->root[--n] = '\0';
	return ctx;
}

void sysfs_free(struct sysfs_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->root);
	free(ctx);
}

const char *sysfs_root(const struct sysfs_ctx *ctx)
{
	return ctx->root;
}

static int vpath(const struct sysfs_ctx *ctx, char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static int vpath(const struct sysfs_ctx *ctx, char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t rl = strlen(ctx->root);
	int n;

	if (rl >= len)
		return -ENAMETOOLONG;
	memcpy(buf, ctx->root, rl);
	n = vsnprintf(buf + rl, len - rl, fmt, ap);
	if (n < 0 || (size_t)n >= len - rl)
		return -ENAMETOOLONG;
	return 0;
}

int sysfs_path(const struct sysfs_ctx *ctx, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(ctx, buf, len, fmt, ap);
	va_end(ap);
	return r;
}

static int read_fd_all(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return (int)got;
}

static int read_path(const char *path, uint8_t *buf, size_t len)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_fd_all(fd, buf, len);
	close(fd);
	return r;
}

int sysfs_read(const struct sysfs_ctx *ctx, char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(ctx, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	if (len == 0)
		return -EINVAL;
	r = read_path(path, (uint8_t *)buf, len - 1);
	if (r < 0)
		return r;
	buf[r] = '\0';
	while (r > 0 && (buf[r - 1] == '\n'))
		buf[--r] = '\0';
	return r;
}

int sysfs_read_bin(const struct sysfs_ctx *ctx, uint8_t *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(ctx, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	return read_path(path, buf, len);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int sysfs_open_dir(const struct sysfs_ctx *ctx, const char *rel, DIR **ret)
{
	char path[PATH_MAX];
	int r;

	*ret = NULL;
	r = sysfs_path(ctx, path, sizeof(path), "%s", rel);
	if (r < 0)
		return r;
	*ret = opendir(path);
	if (!*ret && errno != ENOENT)
		return -errno;
	return 0;
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
		char extra;
		unsigned int *p;

		if (sscanf(de->d_name, "host%u%c", &h, &extra) != 1)
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

int scsi_addr_cmp(const struct scsi_addr *a, const struct scsi_addr *b)
{
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->channel != b->channel)
		return a->channel < b->channel ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->lun != b->lun)
		return a->lun < b->lun ? -1 : 1;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	return scsi_addr_cmp(a, b);
}

/* Parses "H:C:T:L" exactly; anything else (targets, hosts) is not a device. */
static bool parse_addr(const char *s, struct scsi_addr *a)
{
	unsigned long long v[4];
	char *end;

	for (int i = 0; i < 4; i++) {
		if (!isdigit((unsigned char)*s))
			return false;
		errno = 0;
		v[i] = strtoull(s, &end, 10);
		if (errno || (i < 3 && (*end != ':' || v[i] > UINT_MAX)) || (i == 3 && *end))
			return false;
		s = end + 1;
	}
	a->host = v[0];
	a->channel = v[1];
	a->id = v[2];
	a->lun = v[3];
	return true;
}

int sysfs_devices(const struct sysfs_ctx *ctx, int host, struct scsi_addr **ret_addrs,
		  size_t *ret_count)
{
	struct scsi_addr *addrs = NULL;
	size_t count = 0, alloc = 0;
	struct dirent *de;
	DIR *d;
	int r;

	r = sysfs_open_dir(ctx, "/sys/bus/scsi/devices", &d);
	if (r < 0)
		return r;
	while (d && (de = readdir(d))) {
		struct scsi_addr a;

		if (!parse_addr(de->d_name, &a))
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

char *scsi_addr_format(const struct scsi_addr *a, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u:%u:%" PRIu64, a->host, a->channel, a->id, a->lun);
	return buf;
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

static void scan_value(char *value, size_t len, int channel, int id, uint64_t lun)
{
	char c[16], t[16], l[24];

	if (channel == SCAN_WILDCARD)
		strcpy(c, "-");
	else
		snprintf(c, sizeof(c), "%d", channel);
	if (id == SCAN_WILDCARD)
		strcpy(t, "-");
	else
		snprintf(t, sizeof(t), "%d", id);
	/* The kernel reads at most 16 characters for the LUN (%16s): past
	 * 9999999999999999 only hex fits (up to 0xffffffffffffff). */
	if (lun == UINT64_MAX)
		strcpy(l, "-");
	else if (lun > UINT64_C(9999999999999999))
		snprintf(l, sizeof(l), "0x%" PRIx64, lun);
	else
		snprintf(l, sizeof(l), "%" PRIu64, lun);
	snprintf(value, len, "%s %s %s\n", c, t, l);
}

int sysfs_scan(const struct sysfs_ctx *ctx, unsigned int host, int channel, int id, uint64_t lun)
{
	char path[PATH_MAX], value[96];
	int r;

	r = sysfs_path(ctx, path, sizeof(path), "/sys/class/scsi_host/host%u/scan", host);
	if (r < 0)
		return r;
	scan_value(value, sizeof(value), channel, id, lun);
	return write_path(path, value);
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
	char value[96];
	size_t len;
	ssize_t n;

	scan_value(value, sizeof(value), channel, id, lun);
	len = strlen(value);
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

int sysfs_device_node(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *buf,
		      size_t len)
{
	char name[64];

	if (sysfs_device_link(ctx, a, "scsi_generic", name, sizeof(name)) == 0)
		return sysfs_path(ctx, buf, len, "/dev/%s", name);
	if (sysfs_device_link(ctx, a, "bsg", name, sizeof(name)) == 0)
		return sysfs_path(ctx, buf, len, "/dev/bsg/%s", name);
	return -ENOENT;
}

int sysfs_module_param(const struct sysfs_ctx *ctx, const char *module, const char *param,
		       uint64_t *ret)
{
	char buf[64], *end;
	unsigned long long v;
	int r;

	r = sysfs_read(ctx, buf, sizeof(buf), "/sys/module/%s/parameters/%s", module, param);
	if (r < 0)
		return r;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	*ret = v;
	return 0;
}

int host_lock(const struct sysfs_ctx *ctx, unsigned int host, bool wait, int *ret_fd)
{
	char path[PATH_MAX];
	int fd, r;

	/* Both directories may be missing on a fresh /run. */
	r = sysfs_path(ctx, path, sizeof(path), "/run/scsi-scan");
	if (r < 0)
		return r;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = sysfs_path(ctx, path, sizeof(path), "/run/scsi-scan/lock");
	if (r < 0)
		return r;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = sysfs_path(ctx, path, sizeof(path), "/run/scsi-scan/lock/host%u", host);
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		if (errno == EINTR)
			continue;
		r = -errno;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}
