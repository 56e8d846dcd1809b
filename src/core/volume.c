// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * volume.c - which targets are the paths to a volume. No I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "volume.h"

static bool iscsi_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 5 || n > ISCSI_NAME_MAX ||
	    (strncasecmp(s, "iqn.", 4) && strncasecmp(s, "eui.", 4) && strncasecmp(s, "naa.", 4)))
		return false;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == ',')
			return false;
	return true;
}

int volume_address_set_target(struct volume_address *a, enum discover_transport transport,
			      const char *text)
{
	char norm[17];
	size_t i;

	switch (transport) {
	case DISCOVER_ISCSI:
		if (!iscsi_name_ok(text))
			return -EINVAL;
		for (i = 0; text[i]; i++)
			a->target[i] = (char)tolower((unsigned char)text[i]);
		a->target[i] = '\0';
		break;
	case DISCOVER_FC:
	case DISCOVER_SAS:
		if (lunmask_address_normalize(text, norm, sizeof(norm)) < 0)
			return -EINVAL;
		memcpy(a->target, norm, sizeof(norm));
		break;
	default:
		return -EINVAL;
	}
	a->transport = transport;
	return 0;
}

/* The length of @s without trailing blanks. */
static size_t trimmed(const char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n;
}

int volume_address_set_wwid(struct volume_address *a, const char *text)
{
	size_t n;

	while (isspace((unsigned char)*text))
		text++;
	n = trimmed(text);
	if (!n || n > SCSI_WWID_MAX)
		return -EINVAL;
	memcpy(a->wwid, text, n);
	a->wwid[n] = '\0';
	return 0;
}

bool volume_target_matches(const struct volume_address *a, enum discover_transport transport,
			   const struct discover_target *t)
{
	long tpgt;
	char norm[17];
	size_t n;

	if (transport != a->transport || !t->is_target || !t->has_id)
		return false;
	switch (transport) {
	case DISCOVER_ISCSI:
		tpgt = discover_iscsi_address(t->address, &n);
		if (n != strlen(a->target) || strncasecmp(t->address, a->target, n) != 0)
			return false;
		return a->tpgt < 0 || tpgt == a->tpgt;
	case DISCOVER_FC:
	case DISCOVER_SAS:
		return lunmask_address_normalize(t->address, norm, sizeof(norm)) == 0 &&
		       strcmp(norm, a->target) == 0;
	default:
		return false;
	}
}

static int cmp_path(const void *x, const void *y)
{
	return scsi_addr_cmp(&((const struct volume_path *)x)->addr,
			     &((const struct volume_path *)y)->addr);
}

/* The entry of @vh that speaks for its target @i: the first reachable
 * one that matches, else the first that matches. */
static const struct discover_target *speaker(const struct volume_address *a,
					     const struct volume_host *vh, size_t i)
{
	const struct discover_target *first = NULL;

	for (size_t j = 0; j < vh->ntargets; j++) {
		const struct discover_target *t = &vh->targets[j];

		if (t->channel != vh->targets[i].channel || t->id != vh->targets[i].id ||
		    !volume_target_matches(a, vh->transport, t))
			continue;
		if (t->reachable)
			return t;
		if (!first)
			first = t;
	}
	return first;
}

size_t volume_paths(const struct volume_address *a, const struct volume_host *hosts, size_t nhosts,
		    struct volume_path *out, size_t max)
{
	size_t n = 0, total = 0;

	for (size_t h = 0; h < nhosts; h++) {
		const struct volume_host *vh = &hosts[h];

		for (size_t i = 0; i < vh->ntargets; i++) {
			const struct discover_target *t = &vh->targets[i], *s;
			bool seen = false;

			if (!volume_target_matches(a, vh->transport, t))
				continue;
			for (size_t j = 0; j < i && !seen; j++)
				seen = vh->targets[j].channel == t->channel &&
				       vh->targets[j].id == t->id &&
				       volume_target_matches(a, vh->transport, &vh->targets[j]);
			if (seen)
				continue;
			total++;
			if (n == max)
				continue;
			s = speaker(a, vh, i);
			out[n].addr = (struct scsi_addr){ vh->host, t->channel, t->id,
							  a->lun_set ? a->lun : 0 };
			out[n].reachable = s->reachable;
			snprintf(out[n].name, sizeof(out[n].name), "%s", s->name);
			snprintf(out[n].state, sizeof(out[n].state), "%s", s->state);
			n++;
		}
	}
	if (n > 1)
		qsort(out, n, sizeof(*out), cmp_path);
	return total;
}

/* The designator type as multipath and udev's scsi_id spell it: a digit
 * for sysfs's "naa.", "eui.", "t10." prefix ("naa.6001..." is
 * "36001..."). Return: the rest of @s, with @type set. */
static const char *wwid_type(const char *s, char *type)
{
	static const struct {
		const char *prefix;
		char digit;
	} types[] = { { "naa.", '3' }, { "eui.", '2' }, { "t10.", '1' } };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strncasecmp(s, types[i].prefix, 4) == 0) {
			*type = types[i].digit;
			return s + 4;
		}
	*type = *s;
	return *s ? s + 1 : s;
}

bool volume_wwid_matches(const struct volume_address *a, const char *wwid)
{
	size_t n = trimmed(wwid);
	const char *x, *y;
	char tx, ty;

	if (!a->wwid[0])
		return false;
	if (n == strlen(a->wwid) && strncasecmp(wwid, a->wwid, n) == 0)
		return true;
	/* One written as sysfs has it, the other as multipath does. */
	x = wwid_type(a->wwid, &tx);
	y = wwid_type(wwid, &ty);
	n -= (size_t)(y - wwid);
	return n && tx == ty && n == strlen(x) && strncasecmp(x, y, n) == 0 &&
	       (strchr(a->wwid, '.') != NULL) != (strchr(wwid, '.') != NULL);
}

void volume_address_text(const struct volume_address *a, char *buf, size_t len)
{
	char lun[32] = "";

	if (a->lun_set)
		snprintf(lun, sizeof(lun), " LUN %llu", (unsigned long long)a->lun);
	switch (a->transport) {
	case DISCOVER_ISCSI:
		if (a->tpgt >= 0)
			snprintf(buf, len, "iSCSI target %s,%ld%s", a->target, a->tpgt, lun);
		else
			snprintf(buf, len, "iSCSI target %s%s", a->target, lun);
		return;
	case DISCOVER_FC:
		snprintf(buf, len, "FC port 0x%s%s", a->target, lun);
		return;
	case DISCOVER_SAS:
		snprintf(buf, len, "SAS address 0x%s%s", a->target, lun);
		return;
	default:
		snprintf(buf, len, "wwid %s", a->wwid);
	}
}

int holdout_file_name(const struct holdout_key *k, char *buf, size_t len)
{
	char tpgt[24] = "";
	int n;

	if (k->tpgt >= 0)
		snprintf(tpgt, sizeof(tpgt), ",%ld", k->tpgt);
	switch (k->transport) {
	case DISCOVER_ISCSI:
		n = snprintf(buf, len, "iscsi-%s%s-lun-%llu.conf", k->target, tpgt,
			     (unsigned long long)k->lun);
		break;
	case DISCOVER_FC:
		n = snprintf(buf, len, "fc-%s-lun-%llu.conf", k->target,
			     (unsigned long long)k->lun);
		break;
	case DISCOVER_SAS:
		n = snprintf(buf, len, "sas-%s-lun-%llu.conf", k->target,
			     (unsigned long long)k->lun);
		break;
	default:
		if (k->host_path[0]) {
			char path[sizeof(k->host_path)];

			snprintf(path, sizeof(path), "%s", k->host_path);
			for (char *p = strchr(path, '/'); p; p = strchr(p, '/'))
				*p = '!';
			n = snprintf(buf, len, "host-%s-%u-%u-lun-%llu.conf", path, k->channel,
				     k->id, (unsigned long long)k->lun);
			break;
		}
		if (!k->driver[0] || strchr(k->driver, '/') || k->driver[0] == '.')
			return -EINVAL;
		n = snprintf(buf, len, "driver-%s-%u-%u-lun-%llu.conf", k->driver, k->channel,
			     k->id, (unsigned long long)k->lun);
		break;
	}
	if (n < 0 || (size_t)n >= len || strchr(buf, '/'))
		return -EINVAL;
	return 0;
}

int holdout_text(const struct holdout_key *k, const char *reason, char *buf, size_t len)
{
	char why[2 * 256 + 8], q[2 * ISCSI_NAME_MAX + 16], key[2 * ISCSI_NAME_MAX + 600];
	char reason_cut[256];
	int n = 0;

	snprintf(reason_cut, sizeof(reason_cut), "%s", reason);
	if (lunmask_quote(reason_cut, why, sizeof(why)) < 0)
		return -ENOSPC;
	key[0] = '\0';
	switch (k->transport) {
	case DISCOVER_ISCSI:
		if (lunmask_quote(k->target, q, sizeof(q)) < 0)
			return -ENOSPC;
		n = snprintf(key, sizeof(key), "\tiscsi_target = %s\n", q);
		if (k->tpgt >= 0)
			snprintf(key + n, sizeof(key) - (size_t)n, "\tiscsi_tpgt = %ld\n", k->tpgt);
		break;
	case DISCOVER_FC:
		snprintf(key, sizeof(key), "\tport_name = \"0x%s\"\n", k->target);
		break;
	case DISCOVER_SAS:
		snprintf(key, sizeof(key), "\tsas_address = \"0x%s\"\n", k->target);
		break;
	default:
		if (k->host_path[0]) {
			if (lunmask_quote(k->host_path, q, sizeof(q)) < 0)
				return -ENOSPC;
			n = snprintf(key, sizeof(key), "\thost_path = %s\n", q);
		}
		if (k->driver[0]) {
			if (lunmask_quote(k->driver, q, sizeof(q)) < 0)
				return -ENOSPC;
			n += snprintf(key + n, sizeof(key) - (size_t)n, "\tdriver = %s\n", q);
		}
		snprintf(key + n, sizeof(key) - (size_t)n, "\tchannel = %u\n\tid = %u\n",
			 k->channel, k->id);
		break;
	}
	n = snprintf(buf, len,
		     "# Written by scsi-scan detach: \"scsi-scan release\" takes it away.\n"
		     "%s%s%s"
		     "lunmask \"held out\" {\n%s\texclude_luns = { %llu }\n\treason = %s\n}\n",
		     k->wwid[0] && !strchr(k->wwid, '\n') ? "# wwid: " : "",
		     k->wwid[0] && !strchr(k->wwid, '\n') ? k->wwid : "",
		     k->wwid[0] && !strchr(k->wwid, '\n') ? "\n" : "", key,
		     (unsigned long long)k->lun, why);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int holdout_text_wwid(const char *text, char *buf, size_t len)
{
	static const char mark[] = "# wwid: ";

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t n;

		if (strncmp(p, mark, sizeof(mark) - 1) != 0)
			continue;
		p += sizeof(mark) - 1;
		n = strcspn(p, "\n");
		if (!n || n >= len)
			return -ENOENT;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return 0;
	}
	return -ENOENT;
}
