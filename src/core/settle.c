// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * settle.c - the settle point's record: written by scsi-scand, read by
 * "scsi-scan wait".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settle.h"

static const char *const phase_names[] = {
	[SETTLE_PHASE_COLDPLUG] = "coldplug",
	[SETTLE_PHASE_SETTLED] = "settled",
	[SETTLE_PHASE_KERNEL] = "kernel",
};

const char *settle_phase_name(enum settle_phase phase)
{
	return phase_names[phase];
}

int settle_parse(const char *text, struct settle_record *rec)
{
	bool have_phase = false, have_pid = false;
	const char *line = text;

	while (*line) {
		const char *end = strchrnul(line, '\n');
		size_t len = (size_t)(end - line);

		if (len > 6 && strncmp(line, "phase=", 6) == 0) {
			size_t i;

			for (i = 0; i < sizeof(phase_names) / sizeof(phase_names[0]); i++)
				if (len - 6 == strlen(phase_names[i]) &&
				    strncmp(line + 6, phase_names[i], len - 6) == 0)
					break;
			if (i == sizeof(phase_names) / sizeof(phase_names[0]))
				return -EINVAL;
			rec->phase = (enum settle_phase)i;
			have_phase = true;
		} else if (len > 4 && strncmp(line, "pid=", 4) == 0) {
			char num[16], *num_end;
			long pid;

			if (len - 4 >= sizeof(num))
				return -EINVAL;
			memcpy(num, line + 4, len - 4);
			num[len - 4] = '\0';
			errno = 0;
			pid = strtol(num, &num_end, 10);
			if (errno || *num_end || !(num[0] >= '1' && num[0] <= '9') || pid > INT_MAX)
				return -EINVAL;
			rec->pid = (pid_t)pid;
			have_pid = true;
		} else if (len) {
			return -EINVAL;
		}
		line = *end ? end + 1 : end;
	}
	return have_phase && have_pid ? 0 : -EINVAL;
}

enum settle_verdict settle_decide(const struct settle_record *rec, bool broken, bool daemon_alive)
{
	if (broken)
		return SETTLE_WAIT_BROKEN;
	if (!rec)
		return SETTLE_WAIT_START;
	/* A daemon that settled and died scans nothing that comes now. */
	if (rec->phase == SETTLE_PHASE_KERNEL ||
	    (rec->phase == SETTLE_PHASE_SETTLED && daemon_alive))
		return SETTLE_DONE;
	return daemon_alive ? SETTLE_WAIT_COLDPLUG : SETTLE_WAIT_RESTART;
}

const char *settle_verdict_text(enum settle_verdict verdict)
{
	switch (verdict) {
	case SETTLE_DONE:
		return "settled";
	case SETTLE_WAIT_START:
		return "scsi-scand has not started";
	case SETTLE_WAIT_COLDPLUG:
		return "scsi-scand is still scanning its hosts for the first time";
	case SETTLE_WAIT_RESTART:
		return "scsi-scand no longer runs (it stopped during or after its first scan of "
		       "every host)";
	case SETTLE_WAIT_BROKEN:
		return "the state file " SETTLE_STATE_PATH " does not parse";
	}
	return "unknown";
}

int settle_write(const struct sysfs_ctx *ctx, enum settle_phase phase, pid_t pid)
{
	char dir[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
	char text[64];
	int fd, len, r;

	if (sysfs_path(ctx, dir, sizeof(dir), "/run/scsi-scan") < 0 ||
	    sysfs_path(ctx, tmp, sizeof(tmp), SETTLE_STATE_PATH ".new") < 0 ||
	    sysfs_path(ctx, path, sizeof(path), SETTLE_STATE_PATH) < 0)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	len = snprintf(text, sizeof(text), "phase=%s\npid=%d\n", settle_phase_name(phase),
		       (int)pid);
	/* Readable by all: units of other users may wait for the point. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644);
	errno = 0;
	r = write(fd, text, (size_t)len) == len ? 0 : errno ? -errno : -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

int settle_read(const struct sysfs_ctx *ctx, struct settle_record *rec)
{
	char text[256];
	int r;

	r = sysfs_read(ctx, text, sizeof(text), SETTLE_STATE_PATH);
	if (r < 0)
		return r == -EOVERFLOW ? -EINVAL : r;
	return settle_parse(text, rec);
}
