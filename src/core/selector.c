// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * selector.c - parsing "hostN" and "H:C:T:L" selectors. No I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

/* One field: "-" or a number up to @max, read as the kernel's scan file
 * reads it (base 0: decimal, 0x hex, leading-0 octal); @end gets the next
 * char. */
static int field(const char *s, unsigned long long max, bool *wild, unsigned long long *v,
		 const char **end)
{
	char *e;

	if (s[0] == '-' && (s[1] == ':' || s[1] == '\0')) {
		*wild = true;
		*end = s + 1;
		return 0;
	}
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &e, 0);
	if (errno || *v > max)
		return -EINVAL;
	*wild = false;
	*end = e;
	return 0;
}

int selector_parse(const char *s, struct selector *ret)
{
	struct selector sel = { SCAN_WILDCARD, SCAN_WILDCARD, SCAN_WILDCARD, false, 0 };
	const unsigned long long max[4] = { INT_MAX, INT_MAX, INT_MAX, ULLONG_MAX };
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	if (strncmp(s, "host", 4) == 0) {
		unsigned long long v;
		bool wild;

		if (field(s + 4, INT_MAX, &wild, &v, &p) < 0 || wild || *p)
			return -EINVAL;
		sel.host = (int)v;
		*ret = sel;
		return 0;
	}
	for (int i = 0; i < 4; i++) {
		unsigned long long v = 0;
		bool wild;

		if (field(p, max[i], &wild, &v, &p) < 0)
			return -EINVAL;
		if (!wild) {
			if (i == 0)
				sel.host = (int)v;
			else if (i == 1)
				sel.channel = (int)v;
			else if (i == 2)
				sel.id = (int)v;
			else {
				sel.lun_set = true;
				sel.lun = v;
			}
		}
		if (*p == '\0')
			break;
		if (*p != ':' || i == 3)
			return -EINVAL;
		p++;
	}
	*ret = sel;
	return 0;
}

bool selector_match(const struct selector *sel, const struct scsi_addr *a)
{
	return (sel->host == SCAN_WILDCARD || a->host == (unsigned int)sel->host) &&
	       (sel->channel == SCAN_WILDCARD || a->channel == (unsigned int)sel->channel) &&
	       (sel->id == SCAN_WILDCARD || a->id == (unsigned int)sel->id) &&
	       (!sel->lun_set || a->lun == sel->lun);
}
