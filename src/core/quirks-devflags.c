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
 * it: vendor exact, model prefix; an 8-character vendor is stored as 7 and
 * so never matches, a 16-character model is stored as 15 and matches as
 * that shorter prefix. The builtin entries are ordered so that the last
 * match is the kernel's first match. Return: whether one matches.
 */
static bool kernel_builtin_flags(const struct quirk_db *db, const char *vendor, const char *model,
				 uint64_t *ret)
{
	const struct vendor_bucket *b = quirk_db_bucket(db, vendor);
	bool matched = false;

	*ret = 0;
	if (strlen(vendor) >= QUIRK_VENDOR_LEN)
		return false;
	for (size_t i = 0; b && i < b->count; i++) {
		const struct quirk_entry *k = &db->entries[b->idx[i]];
		size_t ml;

		if (!k->builtin || !k->sets_flags || k->model_glob)
			continue;
		ml = strlen(k->model);
		if (ml >= QUIRK_MODEL_LEN)
			ml = QUIRK_MODEL_LEN - 1;
		if (strncmp(model, k->model, ml) == 0) {
			*ret = k->flags;
			matched = true;
		}
	}
	return matched;
}

static bool seen_before(const struct quirk_db *db, const struct quirk_entry *e)
{
	const struct vendor_bucket *b = quirk_db_bucket(db, e->vendor);

	for (size_t i = 0; b && i < b->count && b->idx[i] < e->seq; i++)
		if (strcmp(db->entries[b->idx[i]].model, e->model) == 0)
			return true;
	return false;
}

/* The items of a dev_flags value, each with what put it there. */
struct devflag_items {
	struct devflag_item {
		char *text;
		const struct quirk_entry *entry;
	} * items;
	size_t count;
};

static int item_add(struct devflag_items *l, const char *v, const char *m, uint64_t f,
		    const struct quirk_entry *entry)
{
	struct devflag_item *p = realloc(l->items, (l->count + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	l->items = p;
	if (asprintf(&p[l->count].text, "%s:%s:0x%llx", v, m, (unsigned long long)f) < 0)
		return -ENOMEM;
	p[l->count++].entry = entry;
	return 0;
}

static void items_free(struct devflag_items *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->items[i].text);
	free(l->items);
}

/* Printable ASCII without the separators of dev_flags and modprobe.d. */
static bool plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || strchr(":,\"", *s))
			return false;
	return true;
}

/* What the kernel takes as it is: it keeps 8 bytes of a vendor and 16 of a
 * model (scsi_strcpy_devinfo()), and an entry cut to them would match
 * other devices, or be written again on every scan. */
static bool writable(const char *vendor, const char *model)
{
	return vendor[0] && strlen(vendor) <= 8 && strlen(model) <= 16 && plain(vendor) &&
	       plain(model);
}

/*
 * The items joined with ','. A value longer than the kernel takes is an
 * error naming every item that does not fit: the kernel refuses the whole
 * parameter, so none may be dropped silently.
 */
static int join(const struct devflag_items *l, struct quirk_diags *diags, char **ret)
{
	size_t len = 0, total = 0;
	char *buf;
	int r;

	for (size_t i = 0; i < l->count; i++)
		total += strlen(l->items[i].text) + (i ? 1 : 0);
	if (total > QUIRK_DEV_FLAGS_MAX) {
		for (size_t i = 0; i < l->count; i++) {
			const struct quirk_entry *e = l->items[i].entry;
			size_t n = strlen(l->items[i].text) + (i ? 1 : 0);

			len += n;
			if (len <= QUIRK_DEV_FLAGS_MAX)
				continue;
			r = quirk_diag_add(
				diags, QUIRK_ERROR, e ? e->file : "dev_flags", e ? e->line : 0,
				"'%s'%s%s%s does not fit: the dev_flags value would be "
				"%zu characters, the kernel takes %d (scsi_mod.dev_flags is "
				"a 256-byte buffer and is refused whole)",
				l->items[i].text, e ? " (device '" : "", e ? e->title : "",
				e ? "')" : "", total, QUIRK_DEV_FLAGS_MAX);
			if (r < 0)
				return r;
		}
		return -ENOSPC;
	}
	buf = malloc(total + 1);
	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	for (size_t i = 0; i < l->count; i++) {
		if (i)
			buf[len++] = ',';
		memcpy(buf + len, l->items[i].text, strlen(l->items[i].text) + 1);
		len += strlen(l->items[i].text);
	}
	*ret = buf;
	return 0;
}

/* Whether an entry of the match gives the device flags. */
static const struct quirk_entry *flag_source(const struct quirk_match *m)
{
	const struct quirk_entry *last = NULL;

	for (size_t i = 0; i < m->count; i++)
		if (m->sources[i]->sets_flags || m->sources[i]->add_flags ||
		    m->sources[i]->drop_flags)
			last = m->sources[i];
	return last;
}

/* The literal entries whose merged flags differ from the kernel's table;
 * with @diags, what cannot be written is an error there (-EINVAL). */
static int select_entries(const struct quirk_db *db, struct devflag_items *l,
			  struct quirk_diags *diags)
{
	const uint64_t mask = blist_known_mask();
	size_t bad = 0;
	int r = 0;

	if (!db->finalized)
		return -EINVAL;
	for (size_t i = 0; i < db->count && r == 0; i++) {
		const struct quirk_entry *e = &db->entries[i];
		struct quirk_device dev = { .vendor = e->vendor, .model = e->model, .type = -1 };
		struct quirk_match m;
		uint64_t want, have;
		bool builtin;

		if (e->vendor_glob || e->model_glob || seen_before(db, e))
			continue;
		r = quirk_db_match(db, &dev, &m);
		if (r < 0)
			break;
		want = m.flags & mask;
		if (!flag_source(&m)) {
			quirk_match_clear(&m);
			continue;
		}
		quirk_match_clear(&m);
		builtin = kernel_builtin_flags(db, e->vendor, e->model, &have);
		if (builtin && want == (have & mask))
			continue;
		if (!writable(e->vendor, e->model)) {
			bad++;
			if (diags)
				r = quirk_diag_add(
					diags, QUIRK_ERROR, e->file, e->line,
					"device '%s' cannot be written as dev_flags (blank vendor, "
					"vendor over 8 or model over 16 characters, a byte that is "
					"not printable ASCII, or ':', ',' or '\"' in vendor or model)",
					e->title);
			continue;
		}
		r = item_add(l, e->vendor, e->model, want, e);
	}
	for (size_t i = 0; diags && i < db->count && r == 0; i++) {
		const struct quirk_entry *e = &db->entries[i];

		if ((e->vendor_glob || e->model_glob) && !e->builtin &&
		    ((e->sets_flags ? e->flags : e->add_flags | e->drop_flags) & mask)) {
			bad++;
			r = quirk_diag_add(diags, QUIRK_ERROR, e->file, e->line,
					   "device '%s' uses a glob; dev_flags matches literal "
					   "strings only (export --host-only names the devices of "
					   "this machine instead)",
					   e->title);
		}
	}
	if (r == 0 && bad && diags)
		r = -EINVAL;
	return r;
}

int quirk_dev_flags_export(const struct quirk_db *db, char **ret_str, struct quirk_diags *diags)
{
	struct devflag_items l = { 0 };
	int r;

	r = select_entries(db, &l, diags);
	if (r == 0)
		r = join(&l, diags, ret_str);
	items_free(&l);
	return r;
}

int quirk_dev_flags_items(const struct quirk_db *db, char ***ret_items, size_t *ret_count)
{
	struct devflag_items l = { 0 };
	char **items;
	int r;

	r = select_entries(db, &l, NULL);
	if (r < 0) {
		items_free(&l);
		return r;
	}
	items = calloc(l.count + 1, sizeof(*items));
	if (!items) {
		items_free(&l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l.count; i++)
		items[i] = l.items[i].text;
	free(l.items);
	*ret_items = items;
	*ret_count = l.count;
	return 0;
}

int quirk_dev_flags_export_devices(const struct quirk_db *db, const struct quirk_device *devs,
				   size_t count, char **ret_str, struct quirk_diags *diags)
{
	const uint64_t mask = blist_known_mask();
	struct devflag_items l = { 0 };
	int r = 0;

	if (!db->finalized)
		return -EINVAL;
	for (size_t i = 0; i < count && r == 0; i++) {
		const struct quirk_device *d = &devs[i];
		const struct quirk_entry *src;
		struct quirk_match m;
		uint64_t want, have;
		bool builtin, dup = false;

		for (size_t k = 0; k < i && !dup; k++)
			dup = strcmp(devs[k].vendor, d->vendor) == 0 &&
			      strcmp(devs[k].model, d->model) == 0;
		if (dup)
			continue;
		r = quirk_db_match(db, d, &m);
		if (r < 0)
			break;
		want = m.flags & mask;
		src = flag_source(&m);
		quirk_match_clear(&m);
		/* No entry: the kernel keeps its driver's own flags. */
		if (!src)
			continue;
		builtin = kernel_builtin_flags(db, d->vendor, d->model, &have);
		if (builtin && want == (have & mask))
			continue;
		if (!writable(d->vendor, d->model)) {
			r = quirk_diag_add(
				diags, QUIRK_WARNING, src->file, src->line,
				"device '%s' ('%s' '%s') cannot be named in dev_flags "
				"(blank vendor, or ':', ',' or '\"'): the kernel keeps its "
				"own flags for it",
				src->title, d->vendor, d->model);
			continue;
		}
		r = item_add(&l, d->vendor, d->model, want, src);
	}
	if (r == 0)
		r = join(&l, diags, ret_str);
	items_free(&l);
	return r;
}

int quirk_dev_flags_check(const struct quirk_db *db, struct quirk_diags *diags)
{
	const uint64_t mask = blist_known_mask();
	int r = 0;

	for (size_t i = 0; i < db->count && r == 0; i++) {
		const struct quirk_entry *e = &db->entries[i];

		if (e->builtin || !(e->sets_flags || ((e->add_flags | e->drop_flags) & mask)))
			continue;
		if (e->vendor_glob || e->model_glob)
			r = quirk_diag_add(
				diags, QUIRK_WARNING, e->file, e->line,
				"device '%s' uses a glob: scsi_mod.dev_flags names devices "
				"exactly, so its flags reach the kernel only for the devices "
				"attached when the boot image is made (export --host-only)",
				e->title);
		else if (!writable(e->vendor, e->model))
			r = quirk_diag_add(
				diags, QUIRK_WARNING, e->file, e->line,
				"device '%s' cannot be named in scsi_mod.dev_flags (blank "
				"vendor, or ':', ',' or '\"'): its flags never reach the "
				"kernel, which keeps its own",
				e->title);
	}
	return r;
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
