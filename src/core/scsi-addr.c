// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scsi-addr.c - SCSI device addresses and the kernel's names for SCSI
 * objects, read strictly. No I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scsi-addr.h"

char *scsi_put_decimal(char *p, uint64_t v)
{
	char digits[20];
	size_t n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

char *scsi_addr_format(const struct scsi_addr *a, char *buf, size_t len)
{
	/* Per LUN on every scan: snprintf's cost shows under TCG. */
	char name[4 * 20 + 4], *p = name;
	size_t n;

	if (!len)
		return buf;
	p = scsi_put_decimal(p, a->host);
	*p++ = ':';
	p = scsi_put_decimal(p, a->channel);
	*p++ = ':';
	p = scsi_put_decimal(p, a->id);
	*p++ = ':';
	p = scsi_put_decimal(p, a->lun);
	n = (size_t)(p - name);
	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return buf;
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

/* Byte @d of an address's sort key, least significant first: 0-7 the LUN,
 * 8-11 the id, 12-15 the channel, 16-19 the host. */
static unsigned int addr_byte(const struct scsi_addr *a, unsigned int d)
{
	if (d < 8)
		return (unsigned int)(a->lun >> (8 * d)) & 0xff;
	if (d < 12)
		return (a->id >> (8 * (d - 8))) & 0xff;
	if (d < 16)
		return (a->channel >> (8 * (d - 12))) & 0xff;
	return (a->host >> (8 * (d - 16))) & 0xff;
}

int scsi_addr_sort(struct scsi_addr *v, size_t n)
{
	struct scsi_addr *tmp, *src = v, *dst, diff;
	uint64_t lun_diff = 0;
	unsigned int id_diff = 0, channel_diff = 0, host_diff = 0;
	size_t at[256];

	if (n < 2)
		return 0;
	/* The bytes in which some address differs from the first: a pass
	 * by any other byte would leave the order as it is. */
	for (size_t i = 1; i < n; i++) {
		lun_diff |= v[i].lun ^ v[0].lun;
		id_diff |= v[i].id ^ v[0].id;
		channel_diff |= v[i].channel ^ v[0].channel;
		host_diff |= v[i].host ^ v[0].host;
	}
	diff = (struct scsi_addr){ host_diff, channel_diff, id_diff, lun_diff };
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (unsigned int d = 0; d < 20; d++) {
		struct scsi_addr *swap;
		size_t pos = 0;

		if (!addr_byte(&diff, d))
			continue;
		memset(at, 0, sizeof(at));
		for (size_t i = 0; i < n; i++)
			at[addr_byte(&src[i], d)]++;
		for (unsigned int b = 0; b < 256; b++) {
			size_t c = at[b];

			at[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[at[addr_byte(&src[i], d)]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}

int scsi_name_number(const char **s, uint64_t max, uint64_t *ret)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (max - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*s = p;
	*ret = v;
	return 0;
}

/* @n numbers of @name after @prefix, each followed by its separator in
 * @seps ('\0' for the end of the name); @ret_end: where they end. */
static int numbers(const char *name, const char *prefix, const char *seps, const uint64_t *max,
		   uint64_t *v, size_t n, const char **ret_end)
{
	size_t pl = strlen(prefix);

	if (strncmp(name, prefix, pl) != 0)
		return -EINVAL;
	name += pl;
	for (size_t i = 0; i < n; i++) {
		if (scsi_name_number(&name, max[i], &v[i]) < 0 || *name != seps[i])
			return -EINVAL;
		if (seps[i])
			name++;
	}
	if (ret_end)
		*ret_end = name;
	return 0;
}

static const uint64_t hctl_max[] = { SCSI_ADDR_NUMBER_MAX, SCSI_ADDR_NUMBER_MAX,
				     SCSI_ADDR_NUMBER_MAX, UINT64_MAX };

int scsi_name_host(const char *name, unsigned int *ret)
{
	uint64_t v;

	if (numbers(name, "host", "", hctl_max, &v, 1, NULL) < 0)
		return -EINVAL;
	*ret = (unsigned int)v;
	return 0;
}

int scsi_name_hctl(const char *name, struct scsi_addr *ret)
{
	uint64_t v[4];

	if (numbers(name, "", ":::", hctl_max, v, 3, &name) < 0)
		return -EINVAL;
	if (scsi_name_number(&name, UINT64_MAX, &v[3]) < 0 || *name)
		return -EINVAL;
	ret->host = (unsigned int)v[0];
	ret->channel = (unsigned int)v[1];
	ret->id = (unsigned int)v[2];
	ret->lun = v[3];
	return 0;
}

int scsi_name_rport(const char *name, unsigned int *ret_host, unsigned int *ret_channel)
{
	uint64_t v[3];

	if (numbers(name, "rport-", ":-", hctl_max, v, 3, NULL) < 0)
		return -EINVAL;
	*ret_host = (unsigned int)v[0];
	*ret_channel = (unsigned int)v[1];
	return 0;
}

int scsi_name_end_device(const char *name, unsigned int *ret_host)
{
	const char *p;
	uint64_t v[2];

	if (numbers(name, "end_device-", ":", hctl_max, v, 1, &p) < 0)
		return -EINVAL;
	/* Then the port, or the expander and the port: numbers joined by ':'. */
	for (;;) {
		if (scsi_name_number(&p, SCSI_ADDR_NUMBER_MAX, &v[1]) < 0)
			return -EINVAL;
		if (!*p)
			break;
		if (*p++ != ':')
			return -EINVAL;
	}
	*ret_host = (unsigned int)v[0];
	return 0;
}

int scsi_name_target(const char *name, struct scsi_addr *ret)
{
	uint64_t v[3];

	if (numbers(name, "target", "::", hctl_max, v, 3, NULL) < 0)
		return -EINVAL;
	ret->host = (unsigned int)v[0];
	ret->channel = (unsigned int)v[1];
	ret->id = (unsigned int)v[2];
	ret->lun = 0;
	return 0;
}

int scsi_path_session_host(const char *path, unsigned int *ret)
{
	for (const char *p = strstr(path, "/host"); p; p = strstr(p + 1, "/host")) {
		const char *q = p + 5;
		uint64_t h, n;

		if (scsi_name_number(&q, SCSI_ADDR_NUMBER_MAX, &h) < 0 ||
		    strncmp(q, "/session", 8) != 0)
			continue;
		q += 8;
		if (scsi_name_number(&q, UINT32_MAX, &n) == 0 && (*q == '/' || !*q)) {
			*ret = (unsigned int)h;
			return 0;
		}
	}
	return -EINVAL;
}
