// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sgio-script.c - an ordered SG_IO script for unit tests: the test's own
 * ioctl() stands in front of libc's, answers SG_IO on the script's file
 * descriptor from the script, and passes everything else on.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <scsi/sg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sgio-script.h"

static const struct sgio_step *script;
static size_t nsteps, next;
static int script_fd = -1;
static char script_path[4096];

static void hex(char *buf, size_t len, const uint8_t *p, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 4 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%02x", i ? " " : "", p[i]);
}

int sgio_script_begin(const struct sgio_step *steps, size_t n)
{
	char path[] = "/tmp/sgio-script-XXXXXX";

	if (script_fd >= 0)
		close(script_fd);
	script_fd = mkstemp(path);
	ck_assert_int_ge(script_fd, 0);
	unlink(path);
	script = steps;
	nsteps = n;
	next = 0;
	return script_fd;
}

void sgio_script_begin_path(const struct sgio_step *steps, size_t n, const char *path)
{
	ck_assert_ptr_nonnull(realpath(path, script_path));
	script = steps;
	nsteps = n;
	next = 0;
}

/* Whether @fd is open on the script's node. */
static bool on_path(int fd)
{
	char link[64], target[4096];
	ssize_t len;

	if (!script_path[0])
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	if (len <= 0)
		return false;
	target[len] = '\0';
	return strcmp(target, script_path) == 0;
}

void sgio_script_end(void)
{
	char want[64];

	if (next < nsteps) {
		hex(want, sizeof(want), script[next].cdb, script[next].cdb_len);
		ck_abort_msg("the script expected %zu more command(s); the next: %s", nsteps - next,
			     want);
	}
	script = NULL;
	nsteps = next = 0;
	script_path[0] = '\0';
}

size_t sgio_script_sent(void)
{
	return next;
}

/* Answers one sg v3 request from the next step. */
static int answer(struct sg_io_hdr *h)
{
	const struct sgio_step *s;
	char got[64], want[64];
	size_t n;

	hex(got, sizeof(got), h->cmdp, h->cmd_len);
	if (next == nsteps)
		ck_abort_msg("unexpected command %zu: %s (the script has %zu)", next + 1, got,
			     nsteps);
	s = &script[next++];
	hex(want, sizeof(want), s->cdb, s->cdb_len);
	if (h->cmd_len != s->cdb_len || memcmp(h->cmdp, s->cdb, s->cdb_len) != 0)
		ck_abort_msg("command %zu: expected %s, got %s", next, want, got);
	if (s->timeout_ms && h->timeout != s->timeout_ms)
		ck_abort_msg("command %zu (%s): timeout %u ms, expected %u", next, got, h->timeout,
			     s->timeout_ms);
	if (s->ioctl_errno) {
		errno = s->ioctl_errno;
		return -1;
	}
	ck_assert_int_eq(h->dxfer_direction, SG_DXFER_FROM_DEV);
	n = s->data_len < h->dxfer_len ? s->data_len : h->dxfer_len;
	if (n)
		memcpy(h->dxferp, s->data, n);
	h->resid = s->lie_resid ? s->resid : (int)(h->dxfer_len - n);
	h->status = s->status;
	h->masked_status = s->status >> 1;
	h->host_status = s->host_status;
	h->driver_status = 0;
	h->sb_len_wr = 0;
	if (s->sense && h->sbp && h->mx_sb_len) {
		n = s->sense_len < h->mx_sb_len ? s->sense_len : h->mx_sb_len;
		memcpy(h->sbp, s->sense, n);
		h->sb_len_wr = (unsigned char)n;
		h->driver_status = 0x08; /* DRIVER_SENSE */
	}
	h->info = (h->status || h->host_status || h->driver_status) ? SG_INFO_CHECK : SG_INFO_OK;
	h->duration = 1;
	return 0;
}

int ioctl(int fd, unsigned long req, ...);

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == SG_IO && ((fd == script_fd && script_fd >= 0) || on_path(fd)))
		return answer(arg);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}
