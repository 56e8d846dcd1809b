// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysroot.c - the path context: every /sys, /dev, /proc and /run access goes
 * through here, under a root that tests can move (--sysroot).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysroot.h"

/* What sysfs hands over in one read at most. */
#define SYSFS_PAGE 4096
/* What the first read of a binary attribute asks: the kernel allocates a
 * buffer of the size asked, up to a page, and Debian's kernels zero every
 * allocation (init_on_alloc); VPD pages and INQUIRY data mostly fit. */
#define SYSFS_FIRST_READ 512

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

/* With @short_is_end, a read shorter than asked (and than a page) ends it:
 * sysfs hands a binary attribute over in one read of up to a page, and the
 * read that would return 0 is a syscall per LUN saved. The first read then
 * asks SYSFS_FIRST_READ bytes; an attribute that fills it is read on. */
static int read_fd_all(int fd, uint8_t *buf, size_t len, bool short_is_end)
{
	size_t got = 0;

	while (got < len) {
		size_t want = len - got;
		ssize_t n;

		if (short_is_end && got == 0 && want > SYSFS_FIRST_READ)
			want = SYSFS_FIRST_READ;
		n = read(fd, buf + got, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
		if (short_is_end && (size_t)n < want && (size_t)n < SYSFS_PAGE)
			break;
	}
	return (int)got;
}

/* @path relative to @dir_fd, or AT_FDCWD for a path of its own. */
static int read_path(int dir_fd, const char *path, uint8_t *buf, size_t len, bool short_is_end)
{
	struct stat st;
	int fd, r;

	/* O_NONBLOCK: a FIFO put where a record or state file belongs would
	 * block the open, and then the read, for ever; it is refused. */
	fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	r = read_fd_all(fd, buf, len, short_is_end);
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
	/* One byte more than fits: a value cut to the buffer (an iSCSI name,
	 * a wwid) would compare equal to a shorter one. */
	r = read_path(AT_FDCWD, path, (uint8_t *)buf, len, false);
	if (r < 0)
		return r;
	if ((size_t)r == len && buf[r - 1] != '\n')
		return -EOVERFLOW;
	if ((size_t)r == len)
		r--;
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
	return read_path(AT_FDCWD, path, buf, len, true);
}

int sysfs_dir_fd(const struct sysfs_ctx *ctx, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int fd, r;

	va_start(ap, fmt);
	r = vpath(ctx, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sysfs_read_bin_at(int dir_fd, const char *rel, uint8_t *buf, size_t len)
{
	return read_path(dir_fd, rel, buf, len, true);
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
