// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idrecord.c - a LUN's identity as first seen attached, in /run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idrecord.h"

static int put_hex(char *buf, size_t len, const char *key, const uint8_t *p, size_t n)
{
	size_t used = (size_t)snprintf(buf, len, "%s=", key);

	if (used + 2 * n + 2 > len)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(buf + used, len - used, "%02x", p[i]);
	buf[used++] = '\n';
	buf[used] = '\0';
	return (int)used;
}

int id_record_format(const struct id_record *r, char *buf, size_t len)
{
	size_t used;
	int n;

	n = snprintf(buf, len, "instance=%" PRIu64 "\n", r->instance);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	used = (size_t)n;
	n = put_hex(buf + used, len - used, "inquiry", r->inquiry, r->inquiry_len);
	if (n < 0)
		return n;
	used += (size_t)n;
	n = put_hex(buf + used, len - used, "vpd80", r->vpd80, r->vpd80_len);
	if (n < 0)
		return n;
	used += (size_t)n;
	n = put_hex(buf + used, len - used, "vpd83", r->vpd83, r->vpd83_len);
	if (n < 0)
		return n;
	return (int)(used + (size_t)n);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int get_hex(const char *p, size_t n, uint8_t *out, size_t *ret_len)
{
	if (n % 2 || n / 2 > ID_RECORD_PAGE_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_digit(p[i]), lo = hex_digit(p[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*ret_len = n / 2;
	return 0;
}

int id_record_parse(const char *text, struct id_record *r)
{
	unsigned int seen = 0;
	const char *line = text;

	memset(r, 0, sizeof(*r));
	while (*line) {
		const char *end = strchr(line, '\n'), *eq;
		size_t len;
		int e = -EINVAL;

		if (!end)
			return -EINVAL;
		len = (size_t)(end - line);
		eq = memchr(line, '=', len);
		if (!eq)
			return -EINVAL;
		if ((size_t)(eq - line) == 8 && !strncmp(line, "instance", 8) && !(seen & 1)) {
			char num[24], *num_end;

			if (len - 9 == 0 || len - 9 >= sizeof(num))
				return -EINVAL;
			memcpy(num, eq + 1, len - 9);
			num[len - 9] = '\0';
			errno = 0;
			r->instance = strtoull(num, &num_end, 10);
			e = errno || *num_end || num[0] < '0' || num[0] > '9' ? -EINVAL : 0;
			seen |= 1;
		} else if ((size_t)(eq - line) == 7 && !strncmp(line, "inquiry", 7) &&
			   !(seen & 2)) {
			e = get_hex(eq + 1, len - 8, r->inquiry, &r->inquiry_len);
			seen |= 2;
		} else if ((size_t)(eq - line) == 5 && !strncmp(line, "vpd80", 5) && !(seen & 4)) {
			e = get_hex(eq + 1, len - 6, r->vpd80, &r->vpd80_len);
			seen |= 4;
		} else if ((size_t)(eq - line) == 5 && !strncmp(line, "vpd83", 5) && !(seen & 8)) {
			e = get_hex(eq + 1, len - 6, r->vpd83, &r->vpd83_len);
			seen |= 8;
		}
		if (e < 0)
			return -EINVAL;
		line = end + 1;
	}
	return seen == 15 ? 0 : -EINVAL;
}

static int record_path(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *buf,
		       size_t len)
{
	char name[32];

	return sysfs_path(ctx, buf, len, "/run/scsi-scan/identity/%s",
			  scsi_addr_format(a, name, sizeof(name)));
}

/* The kernel device a LUN's record belongs to: its sysfs directory's inode. */
static int instance_of(const struct sysfs_ctx *ctx, const struct scsi_addr *a, uint64_t *ret)
{
	char path[PATH_MAX], name[32];
	struct stat st;

	if (sysfs_path(ctx, path, sizeof(path), "/sys/bus/scsi/devices/%s",
		       scsi_addr_format(a, name, sizeof(name))) < 0)
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	*ret = (uint64_t)st.st_ino;
	return 0;
}

/* The kernel's copies, for instance @instance. */
static void from_kernel(const struct sysfs_ctx *ctx, const struct scsi_addr *a, uint64_t instance,
			struct id_record *r)
{
	static const char *const pages[] = { "inquiry", "vpd_pg80", "vpd_pg83" };
	uint8_t *out[] = { r->inquiry, r->vpd80, r->vpd83 };
	size_t *lens[] = { &r->inquiry_len, &r->vpd80_len, &r->vpd83_len };
	char name[32];

	memset(r, 0, sizeof(*r));
	r->instance = instance;
	scsi_addr_format(a, name, sizeof(name));
	for (size_t i = 0; i < 3; i++) {
		int n = sysfs_read_bin(ctx, out[i], ID_RECORD_PAGE_MAX,
				       "/sys/bus/scsi/devices/%s/%s", name, pages[i]);

		/* A page too long to keep is left out: not recorded. */
		*lens[i] = n > 0 && n < ID_RECORD_PAGE_MAX ? (size_t)n : 0;
	}
}

static void save(const struct sysfs_ctx *ctx, const struct scsi_addr *a, const struct id_record *r)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX];
	char *text = malloc(ID_RECORD_TEXT_MAX);
	bool ok;
	int fd, n;

	if (!text || record_path(ctx, a, path, sizeof(path)) < 0 ||
	    sysfs_path(ctx, dir, sizeof(dir), "/run/scsi-scan/identity") < 0)
		goto out;
	n = id_record_format(r, text, ID_RECORD_TEXT_MAX);
	if (n < 0)
		goto out;
	sysfs_path(ctx, tmp, sizeof(tmp), "/run/scsi-scan");
	mkdir(tmp, 0755);
	mkdir(dir, 0755);
	/* One name per writer: scsi-scan's --resize takes no host lock. */
	snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		goto out;
	ok = write(fd, text, (size_t)n) == n;
	if (close(fd) < 0)
		ok = false;
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
out:
	free(text);
}

/* The record file, parsed, if it is @instance's: 0, or -ENOENT. */
static int load(const struct sysfs_ctx *ctx, const struct scsi_addr *a, uint64_t instance,
		struct id_record *r)
{
	char path[PATH_MAX], *text = malloc(ID_RECORD_TEXT_MAX);
	struct stat st;
	int n = -1, fd;

	if (!text)
		return -ENOMEM;
	/* O_NONBLOCK and a regular file only: a FIFO in its place would block
	 * the scan for ever. It is rebuilt (save() renames over it). */
	fd = record_path(ctx, a, path, sizeof(path)) < 0
		     ? -1
		     : open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			n = (int)read(fd, text, ID_RECORD_TEXT_MAX - 1);
		close(fd);
	}
	if (n > 0)
		text[n] = '\0';
	n = n > 0 && id_record_parse(text, r) == 0 && r->instance == instance ? 0 : -ENOENT;
	free(text);
	return n;
}

int id_record_get(const struct sysfs_ctx *ctx, const struct scsi_addr *a, struct id_record *r)
{
	uint64_t instance = 0;
	int n;

	n = instance_of(ctx, a, &instance);
	if (n < 0)
		return n;
	n = load(ctx, a, instance, r);
	if (n != -ENOENT)
		return n;
	/* None, broken, or an earlier instance's: the kernel's copies now. */
	from_kernel(ctx, a, instance, r);
	save(ctx, a, r);
	return 0;
}

int id_record_peek(const struct sysfs_ctx *ctx, const struct scsi_addr *a, struct id_record *r)
{
	uint64_t instance = 0;
	int n = instance_of(ctx, a, &instance);

	return n < 0 ? n : load(ctx, a, instance, r);
}

int id_record_kernel(const struct sysfs_ctx *ctx, const struct scsi_addr *a, struct id_record *r)
{
	uint64_t instance = 0;
	int n = instance_of(ctx, a, &instance);

	if (n < 0)
		return n;
	from_kernel(ctx, a, instance, r);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int id_record_luns(const struct sysfs_ctx *ctx, unsigned int host, unsigned int channel,
		   unsigned int id, uint64_t **ret, size_t *ret_n)
{
	uint64_t *v = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *d = NULL;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = sysfs_open_dir(ctx, "/run/scsi-scan/identity", &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		struct scsi_addr a;
		uint64_t *p;

		if (scsi_name_hctl(de->d_name, &a) < 0 || a.host != host || a.channel != channel ||
		    a.id != id)
			continue;
		p = realloc(v, (n + 1) * sizeof(*v));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		v = p;
		v[n++] = a.lun;
	}
	closedir(d);
	if (r < 0) {
		free(v);
		return r;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
	*ret = v;
	*ret_n = n;
	return 0;
}

void id_record_forget(const struct sysfs_ctx *ctx, const struct scsi_addr *a)
{
	char path[PATH_MAX];

	if (record_path(ctx, a, path, sizeof(path)) == 0)
		unlink(path);
}

void id_record_identity(const struct id_record *r, struct lun_identity *id)
{
	memset(id, 0, sizeof(*id));
	if (r->inquiry_len)
		identity_set_inquiry(id, r->inquiry, r->inquiry_len);
	if (r->vpd80_len)
		identity_set_vpd80(id, r->vpd80, r->vpd80_len);
	if (r->vpd83_len)
		identity_set_vpd83(id, r->vpd83, r->vpd83_len);
}
