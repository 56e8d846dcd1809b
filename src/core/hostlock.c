// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostlock.c - the per-host lock that keeps scsi-scan and scsi-scand off
 * one host at the same moment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostlock.h"

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
