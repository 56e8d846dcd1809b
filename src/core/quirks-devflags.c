// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quirks-devflags.c - the kernel's scsi_mod.dev_flags string, both ways.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "quirks-internal.h"

/*
 * What the kernel's compiled-in table gives a device, as 6.x kernels match
 * it: vendor exact, model prefix; an 8-character
 * vendor is stored as 7 and so never matches, a 16-character model is
 * stored as 15 and matches as that shorter prefix. The builtin entries are
 * ordered so that the last match is the kernel's first match.
 */
static uint64_t kernel_builtin_flags(const struct quirk_db *db, const char *vendor,
				     const char *model)
{
	const struct vendor_bucket *b = quirk_db_bucket(db, vendor);
	uint64_t flags = 0;

	if (strlen(vendor) >= QUIRK_VENDOR_LEN)
		return 0;
	for (size_t i = 0; b && i < b->count; i++) {
		const struct quirk_entry *k = &db->entries[b->idx[i]];
		size_t ml;

		if (!k->builtin || !k->sets_flags || k->model_glob)
			continue;
		ml = strlen(k->model);
		if (ml >= QUIRK_MODEL_LEN)
			ml = QUIRK_MODEL_LEN - 1;
		if (strncmp(model, k->model, ml) == 0)
			flags = k->flags;
	}
	return flags;
}

static bool seen_before(const struct quirk_db *db, const struct quirk_entry *e)
{
	const struct vendor_bucket *b = quirk_db_bucket(db, e->vendor);

	for (size_t i = 0; b && i < b->count && b->idx[i] < e->seq; i++)
		if (strcmp(db->entries[b->idx[i]].model, e->model) == 0)
			return true;
	return false;
}

static int append(char **buf, size_t *len, const char *v, const char *m, unsigned long long f)
{
	char *item, *p;
	int n;

	n = asprintf(&item, "%s:%s:0x%llx", v, m, f);
	if (n < 0)
		return -ENOMEM;
	p = realloc(*buf, *len + n + 2);
	if (!p) {
		free(item);
		return -ENOMEM;
	}
	if (*len)
		p[(*len)++] = ',';
	memcpy(p + *len, item, n + 1);
	*len += n;
	*buf = p;
	free(item);
	return 0;
}

int quirk_dev_flags_export(const struct quirk_db *db, char **ret_str, struct quirk_diags *diags)
{
	const uint64_t mask = blist_kernel_mask();
	size_t len = 0, bad = 0;
	char *buf = NULL;
	int r = 0;

	if (!db->finalized)
		return -EINVAL;
	for (size_t i = 0; i < db->count && r == 0; i++) {
		const struct quirk_entry *e = &db->entries[i];
		struct quirk_device dev = { .vendor = e->vendor, .model = e->model, .type = -1 };
		struct quirk_match m;
		uint64_t want, have;

		if (e->vendor_glob || e->model_glob || seen_before(db, e))
			continue;
		r = quirk_db_match(db, &dev, &m);
		if (r < 0)
			break;
		want = m.flags & mask;
		quirk_match_clear(&m);
		have = kernel_builtin_flags(db, e->vendor, e->model) & mask;
		if (want == have)
			continue;
		if (!e->vendor[0] || strpbrk(e->vendor, ":,\"") || strpbrk(e->model, ":,\"")) {
			bad++;
			r = quirk_diag_add(
				diags, QUIRK_ERROR, e->file, e->line,
				"device '%s' cannot be written as dev_flags (blank vendor, "
				"or ':', ',' or '\"' in vendor or model)",
				e->title);
			continue;
		}
		r = append(&buf, &len, e->vendor, e->model, (unsigned long long)want);
	}
	for (size_t i = 0; i < db->count && r == 0; i++) {
		const struct quirk_entry *e = &db->entries[i];

		if ((e->vendor_glob || e->model_glob) && !e->builtin &&
		    ((e->sets_flags ? e->flags : e->add_flags | e->drop_flags) & mask)) {
			bad++;
			r = quirk_diag_add(diags, QUIRK_ERROR, e->file, e->line,
					   "device '%s' uses a glob; dev_flags matches literal "
					   "strings only",
					   e->title);
		}
	}
	if (r == 0 && bad)
		r = -EINVAL;
	if (r < 0) {
		free(buf);
		return r;
	}
	if (!buf) {
		buf = strdup("");
		if (!buf)
			return -ENOMEM;
	}
	*ret_str = buf;
	return 0;
}

void quirk_dev_flags_free(struct quirk_dev_flag *items, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(items[i].vendor);
		free(items[i].model);
	}
	free(items);
}

/* kstrtoull(base 0): decimal, 0x hex, leading-0 octal, one trailing newline. */
static int parse_ull(const char *s, uint64_t *ret)
{
	unsigned long long v = 0;
	unsigned int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2]) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1] && s[1] != '\n') {
		base = 8;
		s++;
	}
	if (!*s || *s == '\n')
		return -EINVAL;
	for (; *s && !(s[0] == '\n' && !s[1]); s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (d >= base || v > (~0ULL - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

int quirk_dev_flags_parse(const char *str, struct quirk_dev_flag **ret_items, size_t *ret_count,
			  const char **ret_error)
{
	const char *sep = ",";
	struct quirk_dev_flag *items = NULL;
	size_t count = 0;
	char *copy, *next, *vendor;
	int r = 0;

	if (strlen(str) > QUIRK_DEV_FLAGS_MAX) {
		*ret_error = "longer than the 255 characters scsi_mod.dev_flags takes (the "
			     "kernel refuses the whole parameter)";
		return -EINVAL;
	}
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	next = copy;
	if (*next == '"') {
		next++;
		sep = ",\"";
	}
	while ((vendor = strsep(&next, ":")) && vendor[0]) {
		char *model = strsep(&next, ":");
		char *flags = model ? strsep(&next, sep) : NULL;
		struct quirk_dev_flag *p;
		uint64_t value;

		if (!model || !flags) {
			*ret_error = "bad dev info string: an item needs VENDOR:MODEL:FLAGS";
			r = -EINVAL;
			break;
		}
		if (parse_ull(flags, &value) < 0) {
			*ret_error = "flags are not a number (decimal, 0x hex or 0 octal)";
			r = -EINVAL;
			break;
		}
		if (value & ~blist_known_mask()) {
			*ret_error = "unsupported flags: the kernel rejects unused bits";
			r = -EINVAL;
			break;
		}
		p = realloc(items, (count + 1) * sizeof(*p));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		items = p;
		items[count].vendor = strdup(vendor);
		items[count].model = strdup(model);
		items[count].flags = value;
		count++;
		if (!items[count - 1].vendor || !items[count - 1].model) {
			r = -ENOMEM;
			break;
		}
	}
	free(copy);
	if (r < 0) {
		quirk_dev_flags_free(items, count);
		return r;
	}
	*ret_items = items;
	*ret_count = count;
	return 0;
}
