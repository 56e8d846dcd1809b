// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * devinfo.c - the database's flags into /proc/scsi/device_info.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devinfo.h"

#define PROC_DEVICE_INFO "/proc/scsi/device_info"

/* Whether @quoted (the field between quotes, blanks at the end) is @want. */
static bool same_field(const char *quoted, size_t n, const char *want)
{
	while (n && quoted[n - 1] == ' ')
		n--;
	return strlen(want) == n && strncmp(quoted, want, n) == 0;
}

static const char *next_line(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl ? nl + 1 : NULL;
}

bool devinfo_listed(const char *proc_text, const char *item)
{
	char vendor[QUIRK_VENDOR_LEN + 1], model[QUIRK_MODEL_LEN + 1];
	unsigned long long flags;
	const char *line;

	if (sscanf(item, "%8[^:]:%16[^:]:%llx", vendor, model, &flags) != 3)
		return false;
	for (line = proc_text; line && *line; line = next_line(line)) {
		const char *v, *ve, *m, *me;
		unsigned long long f;

		if (line[0] != '\'')
			continue;
		v = line + 1;
		ve = strchr(v, '\'');
		if (!ve || ve[1] != ' ' || ve[2] != '\'')
			continue;
		m = ve + 3;
		me = strchr(m, '\'');
		if (!me)
			continue;
		if (!same_field(v, (size_t)(ve - v), vendor) ||
		    !same_field(m, (size_t)(me - m), model))
			continue;
		return sscanf(me + 1, " %llx", &f) == 1 && f == flags;
	}
	return false;
}

/* The whole of a proc file (its size is not known before it is read). */
static int read_all(const char *path, char **ret)
{
	size_t len = 0, size = 8192;
	char *buf = malloc(size);
	int fd, r = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 == size) {
			char *p = realloc(buf, size * 2);

			if (!p) {
				r = -ENOMEM;
				break;
			}
			buf = p;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

int devinfo_proc_sync(const struct sysfs_ctx *sys, const struct quirk_db *db, size_t *ret_written)
{
	char path[PATH_MAX], *text = NULL, **items = NULL;
	size_t n = 0, written = 0;
	int r;

	*ret_written = 0;
	r = sysfs_path(sys, path, sizeof(path), PROC_DEVICE_INFO);
	if (r < 0)
		return r;
	if (access(path, W_OK) < 0)
		return -errno;
	r = read_all(path, &text);
	if (r < 0)
		return r;
	r = quirk_dev_flags_items(db, &items, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		int fd;

		if (devinfo_listed(text, items[i]))
			continue;
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		if (write(fd, items[i], strlen(items[i])) < 0)
			r = -errno;
		close(fd);
		written += r == 0;
	}
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	free(text);
	*ret_written = written;
	return r;
}
