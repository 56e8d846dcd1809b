// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output.c - the listing of attached devices, and text and JSON printers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "inquiry.h"
#include "lunmask.h"
#include "output.h"
#include "idrecord.h"
#include "resize.h"
#include "suggest.h"
#include "topology.h"

size_t utf8_valid_prefix(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];
		uint32_t cp, min;
		size_t n;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			n = 2, cp = c & 0x1f, min = 0x80;
		else if ((c & 0xf0) == 0xe0)
			n = 3, cp = c & 0x0f, min = 0x800;
		else if ((c & 0xf8) == 0xf0)
			n = 4, cp = c & 0x07, min = 0x10000;
		else
			return i;
		if (i + n > len)
			return i;
		for (size_t k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += n;
	}
	return i;
}

json_object *output_json_string(const char *s)
{
	size_t len, ok, used = 0;
	json_object *j;
	char *buf;

	if (!s)
		return NULL;
	len = strlen(s);
	ok = utf8_valid_prefix(s, len);
	if (ok == len)
		return json_object_new_string(s);
	buf = malloc(len * 4 + 1);
	if (!buf)
		return NULL;
	while (len) {
		memcpy(buf + used, s, ok);
		used += ok;
		s += ok;
		len -= ok;
		if (!len)
			break;
		used += (size_t)sprintf(buf + used, "\\x%02x", (unsigned char)*s);
		s++;
		len--;
		ok = utf8_valid_prefix(s, len);
	}
	buf[used] = '\0';
	j = json_object_new_string(buf);
	free(buf);
	return j;
}

char *output_escape(const char *s, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	for (; s && *s && used + 1 < len; s++) {
		unsigned char c = *s;

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			if (used + 5 >= len)
				break;
			used += snprintf(buf + used, len - used, "\\x%02x", c);
		} else {
			buf[used++] = (char)c;
		}
	}
	buf[used] = '\0';
	return buf;
}

char *output_size(int64_t sectors, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)sectors / 2;
	size_t u = 0;

	if (sectors < 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, units[u]);
	return buf;
}

static int read_int_attr(const struct sysfs_ctx *sys, const struct scsi_addr *a, const char *attr)
{
	char buf[32], *end;
	long v;

	if (sysfs_device_attr(sys, a, attr, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : (int)v;
}

/* Whether an entry of the match gives the device flags. */
static bool match_names_flags(const struct quirk_match *m)
{
	for (size_t i = 0; i < m->count; i++)
		if (m->sources[i]->sets_flags || m->sources[i]->add_flags ||
		    m->sources[i]->drop_flags)
			return true;
	return false;
}

/*
 * The identity recorded when the LUN was first seen (if a scan has seen it)
 * against the kernel's copy now: they differ when a rescan refreshed the
 * copy after another unit was mapped behind the LUN. No command is sent.
 */
static int list_identity(const struct sysfs_ctx *sys, const struct scsi_addr *a,
			 struct device_info *d)
{
	struct id_record *rec = malloc(sizeof(*rec));
	struct lun_identity *kernel = calloc(2, sizeof(*kernel)), *recorded = kernel + 1;
	int r = -ENOMEM;

	if (!rec || !kernel)
		goto out;
	r = 0;
	if (id_record_kernel(sys, a, rec) < 0)
		goto out;
	id_record_identity(rec, kernel);
	identity_name(kernel, d->id_kernel, sizeof(d->id_kernel));
	if (id_record_peek(sys, a, rec) < 0)
		goto out;
	id_record_identity(rec, recorded);
	identity_name(recorded, d->id_recorded, sizeof(d->id_recorded));
	d->id_changed =
		remap_judge(recorded, kernel, d->id_what, sizeof(d->id_what)) == REMAP_CHANGED;
out:
	free(rec);
	free(kernel);
	return r;
}

/* The target's address as lsscsi -t prints it, from its host's transport
 * list (@t, @nt: read once a host). */
static void transport_text(enum discover_transport tr, const struct discover_target *t, size_t nt,
			   const struct scsi_addr *a, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < nt; i++) {
		long tpgt;
		size_t n;

		if (t[i].channel != a->channel || t[i].id != a->id || !t[i].has_id)
			continue;
		switch (tr) {
		case DISCOVER_ISCSI:
			tpgt = discover_iscsi_address(t[i].address, &n);
			if (tpgt >= 0)
				snprintf(buf, len, "%.*s,t,0x%lx", (int)n, t[i].address,
					 (unsigned long)tpgt);
			else
				snprintf(buf, len, "%s", t[i].address);
			return;
		case DISCOVER_FC:
			snprintf(buf, len, "fc:%s", t[i].address);
			return;
		case DISCOVER_SAS:
			snprintf(buf, len, "sas:%s", t[i].address);
			return;
		default:
			return;
		}
	}
}

int device_list(const struct sysfs_ctx *sys, const struct quirk_db *db, const struct selector *sel,
		struct device_info **ret, size_t *ret_count)
{
	enum discover_transport tr = DISCOVER_PROBE;
	struct discover_target *listed = NULL;
	size_t nlisted = 0;
	long listed_host = -1;
	struct device_info *list = NULL;
	struct scsi_addr *addrs = NULL;
	size_t n = 0, count = 0;
	int r;

	r = sysfs_devices(sys, sel->host, &addrs, &n);
	if (r < 0)
		return r;
	if (n) {
		list = calloc(n, sizeof(*list));
		if (!list) {
			free(addrs);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct device_info *d = &list[count];
		struct quirk_device dev;
		bool has_kernel_flags;
		char raw[64];

		if (!selector_match(sel, &addrs[i]))
			continue;
		d->addr = addrs[i];
		d->type = read_int_attr(sys, &addrs[i], "type");
		d->scsi_level = read_int_attr(sys, &addrs[i], "scsi_level");
		/* sysfs pads these to the field width; match as INQUIRY data. */
		if (sysfs_device_attr(sys, &addrs[i], "vendor", raw, sizeof(raw)) >= 0)
			inquiry_field_clean(d->vendor, (const uint8_t *)raw, strlen(raw));
		if (sysfs_device_attr(sys, &addrs[i], "model", raw, sizeof(raw)) >= 0)
			inquiry_field_clean(d->model, (const uint8_t *)raw, strlen(raw));
		if (sysfs_device_attr(sys, &addrs[i], "rev", raw, sizeof(raw)) >= 0)
			inquiry_field_clean(d->rev, (const uint8_t *)raw, strlen(raw));
		r = sysfs_device_attr(sys, &addrs[i], "blacklist", d->kernel_flags,
				      sizeof(d->kernel_flags));
		has_kernel_flags = r >= 0;
		sysfs_device_attr(sys, &addrs[i], "state", d->state, sizeof(d->state));
		sysfs_device_link(sys, &addrs[i], "block", d->block, sizeof(d->block));
		sysfs_device_link(sys, &addrs[i], "scsi_generic", d->sg, sizeof(d->sg));
		dev.vendor = d->vendor;
		dev.model = d->model;
		dev.revision = d->rev;
		dev.type = d->type;
		r = quirk_db_match(db, &dev, &d->match);
		if (r < 0)
			break;
		kflags_check(d->match.flags, match_names_flags(&d->match), d->type,
			     has_kernel_flags ? d->kernel_flags : NULL, d->vendor, d->model,
			     &d->kflags);
		r = list_identity(sys, &addrs[i], d);
		if (r == 0)
			r = path_devices_read(sys, &addrs[i], &d->dev);
		if (r < 0)
			break;
		if (listed_host != (long)addrs[i].host) {
			free(listed);
			listed = NULL;
			nlisted = 0;
			listed_host = addrs[i].host;
			if (topology_read(sys, addrs[i].host, &tr, &listed, &nlisted) < 0)
				tr = DISCOVER_PROBE;
		}
		transport_text(tr, listed, nlisted, &addrs[i], d->transport, sizeof(d->transport));
		count++;
	}
	free(listed);
	free(addrs);
	if (r < 0) {
		device_list_free(list, count);
		return r;
	}
	*ret = list;
	*ret_count = count;
	return 0;
}

void device_list_free(struct device_info *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		quirk_match_clear(&list[i].match);
	free(list);
}

static void flags_text(uint64_t flags, char *buf, size_t len)
{
	if (blist_flags_format(flags, ",", buf, len) < 0 || !buf[0])
		snprintf(buf, len, "-");
}

json_object *output_flags_json(uint64_t flags)
{
	json_object *a = json_object_new_array();
	size_t n;
	const struct blist_flag *t = blist_flag_table(&n);

	for (size_t i = 0; i < n; i++)
		if (flags & t[i].bit)
			json_object_array_add(a, output_json_string(t[i].name));
	return a;
}

/* Where an entry of the quirk database is written. */
static json_object *entry_json(const char *title, const char *file, unsigned int line)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "title", output_json_string(title));
	json_object_object_add(o, "file", output_json_string(file));
	json_object_object_add(o, "line", json_object_new_int((int)line));
	return o;
}

json_object *output_sources_json(const struct quirk_match *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < m->count; i++)
		json_object_array_add(a, entry_json(m->sources[i]->title, m->sources[i]->file,
						    m->sources[i]->line));
	return a;
}

json_object *output_handler_json(const struct handler_choice *h)
{
	json_object *o;

	if (!h->name)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "name", output_json_string(h->name));
	json_object_object_add(o, "origin", output_json_string(handler_why_name(h->why)));
	json_object_object_add(
		o, "source",
		h->entry ? entry_json(h->entry->title, h->entry->file, h->entry->line) : NULL);
	return o;
}

void output_handler_text(const struct handler_choice *h, char *buf, size_t len)
{
	switch (h->why) {
	case HANDLER_LOCAL:
		snprintf(buf, len, "%s (%s:%u, %s)", h->name, h->entry->file, h->entry->line,
			 h->entry->title);
		break;
	case HANDLER_TPGS:
		snprintf(buf, len, "%s (the device reports target port groups: the kernel's rule)",
			 h->name);
		break;
	case HANDLER_TABLE:
		snprintf(buf, len, "%s (the kernel's device-handler table, %s:%u)", h->name,
			 h->entry->file, h->entry->line);
		break;
	case HANDLER_NONE:
		snprintf(buf, len, "none");
		break;
	}
}

static const char *handler_step_name(enum handler_step s)
{
	switch (s) {
	case HANDLER_KEEP:
		return "keep";
	case HANDLER_ATTACH:
		return "attach";
	case HANDLER_CONFLICT:
		return "conflict";
	case HANDLER_NOT_KERNEL:
		return "not-kernel";
	case HANDLER_UNKNOWN:
		break;
	}
	return "unknown";
}

static json_object *handlers_json(const struct target_report *t)
{
	json_object *o = output_handler_json(&t->handler), *a;

	if (!o)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; i < t->nhandlers; i++) {
		const struct handler_result *h = &t->handlers[i];
		json_object *l = json_object_new_object();

		json_object_object_add(l, "lun", json_object_new_uint64(h->lun));
		json_object_object_add(l, "step", output_json_string(handler_step_name(h->step)));
		json_object_object_add(l, "had", h->had[0] ? output_json_string(h->had) : NULL);
		json_object_object_add(l, "error",
				       h->error ? output_json_string(strerror(-h->error)) : NULL);
		json_object_array_add(a, l);
	}
	json_object_object_add(o, "luns", a);
	return o;
}

static void handlers_text(FILE *f, const struct target_report *t)
{
	char why[512];

	if (!t->handler.name)
		return;
	output_handler_text(&t->handler, why, sizeof(why));
	fprintf(f, "  device handler: %s\n", why);
	for (size_t i = 0; i < t->nhandlers; i++) {
		const struct handler_result *h = &t->handlers[i];

		fprintf(f, "    LUN %" PRIu64 ": ", h->lun);
		switch (h->step) {
		case HANDLER_ATTACH:
			if (h->error)
				fprintf(f, "writing %s to dh_state failed: %s\n", t->handler.name,
					strerror(-h->error));
			else
				fprintf(f, "%s written to dh_state (it had none)\n",
					t->handler.name);
			break;
		case HANDLER_KEEP:
			fprintf(f, "has %s already\n", h->had);
			break;
		case HANDLER_CONFLICT:
			fprintf(f, "has %s, which dh_state cannot replace\n", h->had);
			break;
		case HANDLER_UNKNOWN:
			fprintf(f, "no dh_state (the kernel has no scsi_dh)\n");
			break;
		case HANDLER_NOT_KERNEL:
			fprintf(f,
				"%s is none of scsi_dh's handlers (alua, emc, hp_sw, rdac): not "
				"written\n",
				t->handler.name);
			break;
		}
	}
}

static json_object *quirks_json(const struct quirk_match *m)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "flags", output_flags_json(m->flags));
	json_object_object_add(o, "max_lun",
			       m->max_lun >= 0 ? json_object_new_int64(m->max_lun) : NULL);
	json_object_object_add(o, "attach", json_object_new_boolean(m->attach));
	json_object_object_add(o, "sources", output_sources_json(m));
	return o;
}

/* The kernel's flags of a LUN against the database's, where they differ. */
static void kflags_text(FILE *f, const struct kflags_check *c)
{
	char a[512], b[512], why[512];

	flags_text(c->database, a, sizeof(a));
	flags_text(c->kernel, b, sizeof(b));
	kflags_delivery(c, why, sizeof(why));
	fprintf(f, "    flags: the database gives %s, the kernel applied %s", a, b);
	if (c->missing) {
		flags_text(c->missing, a, sizeof(a));
		fprintf(f, "; missing %s", a);
	}
	if (c->extra) {
		flags_text(c->extra, a, sizeof(a));
		fprintf(f, "; not in the database %s", a);
	}
	fprintf(f, ": %s\n", why);
}

static json_object *kflags_json(const struct kflags_check *c)
{
	json_object *o;
	char why[512];

	if (!c->known)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "database", output_flags_json(c->database));
	json_object_object_add(o, "kernel", output_flags_json(c->kernel));
	json_object_object_add(o, "database_names_device",
			       json_object_new_boolean(c->names_device));
	json_object_object_add(o, "differ", json_object_new_boolean(kflags_differ(c)));
	json_object_object_add(o, "missing", output_flags_json(c->missing));
	json_object_object_add(o, "extra", output_flags_json(c->extra));
	json_object_object_add(o, "unknown", c->unknown[0] ? output_json_string(c->unknown) : NULL);
	if (kflags_differ(c)) {
		kflags_delivery(c, why, sizeof(why));
		json_object_object_add(o, "delivery", output_json_string(why));
	} else {
		json_object_object_add(o, "delivery", NULL);
	}
	return o;
}

static char *addr_text(const struct scsi_addr *a, char *buf, size_t len)
{
	return scsi_addr_format(a, buf, len);
}

void output_list_text(FILE *f, const struct device_info *list, size_t count, bool verbose)
{
	for (size_t i = 0; i < count; i++) {
		const struct device_info *d = &list[i];
		char name[40], v[64], m[80], r[40], flags[256], hctl[40], size[32] = "-";

		snprintf(name, sizeof(name), "[%s]", addr_text(&d->addr, hctl, sizeof(hctl)));
		flags_text(d->match.flags, flags, sizeof(flags));
		fprintf(f, "%-16s %-8s %-8s %-16s %-4s  %-9s %-6s quirks=%s%s%s%s%s\n", name,
			d->type >= 0 ? pdt_name(d->type) : "?",
			output_escape(d->vendor, v, sizeof(v)),
			output_escape(d->model, m, sizeof(m)), output_escape(d->rev, r, sizeof(r)),
			d->block[0] ? d->block : "-", d->sg[0] ? d->sg : "-", flags,
			d->match.attach ? "" : " attach=false",
			d->match.max_lun >= 0 ? " max_lun" : "",
			kflags_differ(&d->kflags) ? " kernel-flags-differ" : "",
			d->id_changed ? " identity-changed" : "");
		if (kflags_differ(&d->kflags))
			kflags_text(f, &d->kflags);
		if (d->id_changed)
			fprintf(f,
				"    identity: when first seen %s; the kernel's copy now %s (%s): "
				"another unit behind the LUN, and the kernel's copy refreshed\n",
				d->id_recorded, d->id_kernel, d->id_what);
		if (!verbose)
			continue;
		fprintf(f, "    identity: %s%s%s\n", d->id_kernel[0] ? d->id_kernel : "-",
			d->id_recorded[0] ? "; recorded when first seen: " : "", d->id_recorded);
		fprintf(f, "    kernel flags: %s; state: %s\n",
			d->kernel_flags[0] ? d->kernel_flags : "(none)", d->state);
		if (d->dev.sectors >= 0)
			output_size(d->dev.sectors, size, sizeof(size));
		fprintf(f, "    transport: %s; wwid: %s; size: %s; LUN 0x%04" PRIx64 "%s%s%s%s\n",
			d->transport[0] ? d->transport : "-", d->dev.wwid[0] ? d->dev.wwid : "-",
			size, d->addr.lun, d->dev.map[0] ? "; map: " : "", d->dev.map,
			d->dev.map[0] ? " " : "", d->dev.map[0] ? d->dev.map_dev : "");
		for (size_t k = 0; k < d->match.count; k++)
			fprintf(f, "    from %s:%u (%s)\n", d->match.sources[k]->file,
				d->match.sources[k]->line, d->match.sources[k]->title);
	}
}

void output_kflags_text(FILE *f, const struct device_info *list, size_t count)
{
	char hctl[40];

	for (size_t i = 0; i < count; i++) {
		if (!kflags_differ(&list[i].kflags))
			continue;
		fprintf(f, "LUN %s: the kernel's flags differ from the database's\n",
			addr_text(&list[i].addr, hctl, sizeof(hctl)));
		kflags_text(f, &list[i].kflags);
	}
}

/* What list knows of a LUN's identity, without a command: the kernel's
 * copy, and the record of when it was first seen. */
static json_object *identity_json(const struct device_info *d)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kernel",
			       d->id_kernel[0] ? output_json_string(d->id_kernel) : NULL);
	json_object_object_add(o, "recorded",
			       d->id_recorded[0] ? output_json_string(d->id_recorded) : NULL);
	json_object_object_add(o, "changed", json_object_new_boolean(d->id_changed));
	json_object_object_add(o, "evidence",
			       d->id_changed ? output_json_string(d->id_what) : NULL);
	return o;
}

json_object *output_list_json(const struct device_info *list, size_t count)
{
	json_object *arr = json_object_new_array();
	char hctl[40];

	for (size_t i = 0; arr && i < count; i++) {
		const struct device_info *d = &list[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "hctl",
				       output_json_string(addr_text(&d->addr, hctl, sizeof(hctl))));
		json_object_object_add(o, "type",
				       d->type >= 0 ? json_object_new_int(d->type) : NULL);
		json_object_object_add(o, "type_name",
				       output_json_string(d->type >= 0 ? pdt_name(d->type) : "?"));
		json_object_object_add(o, "vendor", output_json_string(d->vendor));
		json_object_object_add(o, "model", output_json_string(d->model));
		json_object_object_add(o, "revision", output_json_string(d->rev));
		json_object_object_add(o, "scsi_level",
				       d->scsi_level >= 0 ? json_object_new_int(d->scsi_level)
							  : NULL);
		json_object_object_add(o, "block",
				       d->block[0] ? output_json_string(d->block) : NULL);
		json_object_object_add(o, "sg", d->sg[0] ? output_json_string(d->sg) : NULL);
		json_object_object_add(o, "state", output_json_string(d->state));
		json_object_object_add(o, "kernel_flags", output_json_string(d->kernel_flags));
		json_object_object_add(o, "kernel_flags_check", kflags_json(&d->kflags));
		json_object_object_add(o, "identity", identity_json(d));
		json_object_object_add(o, "quirks", quirks_json(&d->match));
		snprintf(hctl, sizeof(hctl), "0x%04" PRIx64, d->addr.lun);
		json_object_object_add(o, "lun_hex", output_json_string(hctl));
		json_object_object_add(o, "transport",
				       d->transport[0] ? output_json_string(d->transport) : NULL);
		json_object_object_add(o, "wwid",
				       d->dev.wwid[0] ? output_json_string(d->dev.wwid) : NULL);
		json_object_object_add(o, "sectors",
				       d->dev.sectors >= 0 ? json_object_new_int64(d->dev.sectors)
							   : NULL);
		json_object_object_add(o, "map",
				       d->dev.map[0] ? output_json_string(d->dev.map) : NULL);
		json_object_object_add(o, "map_device",
				       d->dev.map_dev[0] ? output_json_string(d->dev.map_dev)
							 : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

void output_lun_ranges(const struct target_report *t, enum lun_outcome o, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->nluns; i++) {
		size_t e = i;
		int n;

		if (t->luns[i].outcome != o)
			continue;
		while (e + 1 < t->nluns && t->luns[e + 1].outcome == o &&
		       t->luns[e + 1].lun == t->luns[e].lun + 1)
			e++;
		if (e == i)
			n = snprintf(buf + used, len - used, "%s%" PRIu64, used ? "," : "",
				     t->luns[i].lun);
		else
			n = snprintf(buf + used, len - used, "%s%" PRIu64 "-%" PRIu64,
				     used ? "," : "", t->luns[i].lun, t->luns[e].lun);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
		i = e;
	}
}

/* Prints a target's LUN lines, runs of consecutive LUNs with the same
 * outcome and reason as one line ("LUN 3-255"). */
static void lun_lines(FILE *f, const struct target_report *t, const char *indent)
{
	for (size_t l = 0; l < t->nluns;) {
		const struct lun_report *a = &t->luns[l];
		size_t e = l;
		char range[48];

		while (e + 1 < t->nluns && t->luns[e + 1].lun == t->luns[e].lun + 1 &&
		       t->luns[e + 1].outcome == a->outcome &&
		       strcmp(t->luns[e + 1].reason, a->reason) == 0)
			e++;
		if (e == l)
			snprintf(range, sizeof(range), "%" PRIu64, a->lun);
		else
			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, a->lun,
				 t->luns[e].lun);
		fprintf(f, "%sLUN %-9s %-12s %s\n", indent, range, lun_outcome_name(a->outcome),
			a->reason);
		l = e + 1;
	}
}

static size_t count_outcome(const struct target_report *t, enum lun_outcome o)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nluns; i++)
		n += t->luns[i].outcome == o;
	return n;
}

static const char *method_name(enum plan_method m)
{
	switch (m) {
	case PLAN_METHOD_REPORT_LUNS:
		return "REPORT LUNS";
	case PLAN_METHOD_SEQUENTIAL:
		return "sequential";
	case PLAN_METHOD_SELECTED:
		return "selected LUN";
	default:
		return "LUN 0 only";
	}
}

static size_t count_failed(const struct target_report *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nluns; i++)
		n += lun_report_failed(t, &t->luns[i]) && t->luns[i].outcome != LUN_IN_USE;
	return n;
}

static void target_line(FILE *f, const struct target_report *t)
{
	char v[64], m[80], r[40];

	fprintf(f, "%u:%u:%u", t->addr.host, t->addr.channel, t->addr.id);
	if (t->has_inquiry)
		fprintf(f, "  %-8s %-16s %-4s  %s, %s", output_escape(t->inq.vendor, v, sizeof(v)),
			output_escape(t->inq.model, m, sizeof(m)),
			output_escape(t->inq.revision, r, sizeof(r)), pdt_name(t->inq.pdt),
			scsi_level_name(t->inq.scsi_level));
	if (t->failed) {
		fprintf(f, "  FAILED: %s\n", t->error);
		return;
	}
	fprintf(f, "  %s: %zu attached, %zu present", method_name(t->method),
		count_outcome(t, LUN_ATTACHED), count_outcome(t, LUN_PRESENT));
	if (count_outcome(t, LUN_WOULD_PROBE))
		fprintf(f, ", %zu would be probed", count_outcome(t, LUN_WOULD_PROBE));
	if (count_outcome(t, LUN_SKIPPED))
		fprintf(f, ", %zu skipped", count_outcome(t, LUN_SKIPPED));
	if (count_outcome(t, LUN_REMOVED))
		fprintf(f, ", %zu removed", count_outcome(t, LUN_REMOVED));
	if (count_outcome(t, LUN_IN_USE))
		fprintf(f, ", %zu kept in use", count_outcome(t, LUN_IN_USE));
	if (count_failed(t))
		fprintf(f, ", %zu failed", count_failed(t));
	if (t->ghost_stop)
		fprintf(f, ", GHOST LUNs: LUN %" PRIu64 " repeats LUN %" PRIu64 ", stopped",
			t->ghosts[t->nghosts - 1].lun, t->ghosts[t->nghosts - 1].same_as);
	if (t->removal_refused)
		fprintf(f, ", REPORT LUNS list cut short: nothing removed");
	fputc('\n', f);
}

/* One line per LUN whose identity repeats another's, with the evidence. */
static void ghost_lines(FILE *f, const struct target_report *t, const char *indent)
{
	for (size_t g = 0; g < t->nghosts; g++) {
		const struct ghost_report *gr = &t->ghosts[g];

		fprintf(f, "%s%s: LUN %" PRIu64 " and LUN %" PRIu64 " (%s): %s\n", indent,
			gr->evidence.verdict == GHOST_SAME ? "ghost" : "name conflict", gr->lun,
			gr->same_as, gr->evidence.rule, gr->evidence.text);
	}
}

void output_scan_text(FILE *f, const struct scan_report *rep, bool verbose)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		const struct host_report *h = &rep->hosts[i];

		if (h->failed)
			fprintf(f, "host%u: FAILED: %s\n", h->host, h->error);
		if (verbose && h->discovery[0] && !h->failed)
			fprintf(f, "host%u: targets: %s\n", h->host, h->discovery);
		if (verbose && h->notes[0])
			fprintf(f, "host%u: %s\n", h->host, h->notes);
		if (!h->failed && !h->ntargets && verbose)
			fprintf(f, "host%u: no targets\n", h->host);
		for (size_t k = 0; k < h->ntargets; k++) {
			const struct target_report *t = &h->targets[k];

			target_line(f, t);
			if (verbose && t->found_reason[0])
				fprintf(f, "    found: %s\n", t->found_reason);
			if (verbose && t->reach_reason[0])
				fprintf(f, "    reached: %s\n", t->reach_reason);
			if (verbose && t->method_reason[0])
				fprintf(f, "    how: %s\n", t->method_reason);
			if (verbose && t->batched)
				fprintf(f, "    attached: %s\n", t->batch_reason);
			if (verbose || t->ghost_stop)
				ghost_lines(f, t, "    ");
			if (verbose)
				lun_lines(f, t, "    ");
		}
	}
}

void output_explain_text(FILE *f, const struct scan_report *rep)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		const struct host_report *h = &rep->hosts[i];

		if (h->failed)
			fprintf(f, "host%u: FAILED: %s\n", h->host, h->error);
		fprintf(f, "host%u: transport %s\n", h->host,
			discover_transport_name(h->transport));
		for (size_t k = 0; k < h->ntargets; k++) {
			const struct target_report *t = &h->targets[k];
			char v[64], m[80], r[40], flags[256];

			fprintf(f, "target %u:%u:%u\n", t->addr.host, t->addr.channel, t->addr.id);
			if (t->found_reason[0])
				fprintf(f, "  found: %s\n", t->found_reason);
			if (t->reach_reason[0])
				fprintf(f, "  reached: %s\n", t->reach_reason);
			if (t->policy[0])
				fprintf(f,
					"  lunmask: %s (exclusions first, then the lists of "
					"LUNs to attach; quirks apply to what they allow)\n",
					t->policy);
			if (t->has_inquiry) {
				fprintf(f, "  INQUIRY through LUN %" PRIu64 " (%s):\n",
					t->probe_lun, inquiry_source_text(t->inquiry_source));
				fprintf(f, "    vendor '%s' model '%s' revision '%s'\n",
					output_escape(t->inq.vendor, v, sizeof(v)),
					output_escape(t->inq.model, m, sizeof(m)),
					output_escape(t->inq.revision, r, sizeof(r)));
				fprintf(f,
					"    type %s (0x%02x), qualifier %u, version 0x%02x: %s\n",
					pdt_name(t->inq.pdt), t->inq.pdt, t->inq.pq, t->inq.version,
					scsi_level_name(t->inq.scsi_level));
				flags_text(t->match.flags, flags, sizeof(flags));
				fprintf(f, "  quirks: flags %s", flags);
				if (t->match.max_lun >= 0)
					fprintf(f, ", max_lun %lld", t->match.max_lun);
				if (!t->match.attach)
					fprintf(f, ", attach = false");
				fputc('\n', f);
				if (!t->match.count)
					fprintf(f, "    no entry of the quirk database matches\n");
				for (size_t s = 0; s < t->match.count; s++)
					fprintf(f, "    from %s:%u (%s)\n",
						t->match.sources[s]->file,
						t->match.sources[s]->line,
						t->match.sources[s]->title);
				handlers_text(f, t);
			}
			if (t->failed) {
				fprintf(f, "  FAILED: %s\n", t->error);
				continue;
			}
			fprintf(f, "  LUNs found by: %s (%s)\n", method_name(t->method),
				t->method_reason[0] ? t->method_reason : "-");
			if (t->batched)
				fprintf(f, "  attached: %s\n", t->batch_reason);
			if (t->reported) {
				fprintf(f, "  REPORT LUNS listed %zu:", t->nreported);
				for (size_t l = 0; l < t->nreported && l < 64; l++)
					fprintf(f, " %" PRIu64, t->reported[l]);
				fprintf(f, "%s\n", t->nreported > 64 ? " ..." : "");
			}
			ghost_lines(f, t, "  ");
			lun_lines(f, t, "  ");
			fprintf(f, "  end: %s\n", t->end_reason);
		}
	}
}

json_object *output_json_document(const char *kind, const char *member, json_object *value)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "version", json_object_new_int(OUTPUT_JSON_VERSION));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	if (member)
		json_object_object_add(o, member, value);
	return o;
}

json_object *output_scan_json(const struct scan_report *rep)
{
	json_object *root = output_json_document("scan", NULL, NULL);
	json_object *hosts = json_object_new_array();
	char hctl[40];

	for (size_t i = 0; i < rep->nhosts; i++) {
		const struct host_report *h = &rep->hosts[i];
		json_object *ho = json_object_new_object(), *targets = json_object_new_array();

		json_object_object_add(ho, "host", json_object_new_int(h->host));
		json_object_object_add(ho, "failed", json_object_new_boolean(h->failed));
		json_object_object_add(ho, "error",
				       h->failed ? output_json_string(h->error) : NULL);
		json_object_object_add(ho, "notes",
				       h->notes[0] ? output_json_string(h->notes) : NULL);
		json_object_object_add(ho, "transport",
				       output_json_string(discover_transport_name(h->transport)));
		json_object_object_add(ho, "discovery", output_json_string(h->discovery));
		for (size_t k = 0; k < h->ntargets; k++) {
			const struct target_report *t = &h->targets[k];
			json_object *to = json_object_new_object(), *luns = json_object_new_array();

			snprintf(hctl, sizeof(hctl), "%u:%u:%u", t->addr.host, t->addr.channel,
				 t->addr.id);
			json_object_object_add(to, "target", output_json_string(hctl));
			json_object_object_add(to, "failed", json_object_new_boolean(t->failed));
			json_object_object_add(to, "error",
					       t->failed ? output_json_string(t->error) : NULL);
			json_object_object_add(to, "found", output_json_string(t->found_reason));
			json_object_object_add(to, "found_code",
					       output_json_string(scan_code_name(t->found_code)));
			json_object_object_add(
				to, "reached",
				t->reach_reason[0] ? output_json_string(t->reach_reason) : NULL);
			json_object_object_add(to, "reach_code",
					       output_json_string(scan_code_name(t->reach_code)));
			if (t->mask.count) {
				json_object *ml = json_object_new_array();

				for (size_t m = 0; m < t->mask.count; m++)
					json_object_array_add(ml,
							      entry_json(t->mask.items[m]->title,
									 t->mask.items[m]->file,
									 t->mask.items[m]->line));
				json_object_object_add(to, "lunmask", ml);
			}
			if (t->has_inquiry) {
				json_object *inq = json_object_new_object();

				json_object_object_add(inq, "vendor",
						       output_json_string(t->inq.vendor));
				json_object_object_add(inq, "model",
						       output_json_string(t->inq.model));
				json_object_object_add(inq, "revision",
						       output_json_string(t->inq.revision));
				json_object_object_add(inq, "type",
						       json_object_new_int(t->inq.pdt));
				json_object_object_add(inq, "qualifier",
						       json_object_new_int(t->inq.pq));
				json_object_object_add(inq, "version",
						       json_object_new_int(t->inq.version));
				json_object_object_add(inq, "scsi_level",
						       json_object_new_int(t->inq.scsi_level));
				json_object_object_add(inq, "probe_lun",
						       json_object_new_uint64(t->probe_lun));
				json_object_object_add(to, "inquiry", inq);
				json_object_object_add(to, "quirks", quirks_json(&t->match));
				json_object_object_add(to, "handler", handlers_json(t));
			}
			json_object_object_add(to, "method",
					       output_json_string(method_name(t->method)));
			json_object_object_add(to, "method_code",
					       output_json_string(scan_code_name(t->method_code)));
			json_object_object_add(to, "method_reason",
					       output_json_string(t->method_reason));
			json_object_object_add(to, "batched", json_object_new_boolean(t->batched));
			json_object_object_add(to, "batch_reason",
					       t->batched ? output_json_string(t->batch_reason)
							  : NULL);
			json_object_object_add(to, "end_code",
					       output_json_string(scan_code_name(t->end_code)));
			json_object_object_add(to, "end_reason", output_json_string(t->end_reason));
			if (t->report_read) {
				json_object *rl = json_object_new_array();

				for (size_t l = 0; l < t->nreported; l++)
					json_object_array_add(
						rl, json_object_new_uint64(t->reported[l]));
				json_object_object_add(to, "report_luns", rl);
				json_object_object_add(to, "report_luns_complete",
						       json_object_new_boolean(t->report_complete));
			}
			json_object_object_add(to, "removal_refused",
					       json_object_new_boolean(t->removal_refused));
			if (t->nghosts) {
				json_object *gl = json_object_new_array();

				for (size_t g = 0; g < t->nghosts; g++) {
					const struct ghost_report *gr = &t->ghosts[g];
					json_object *go = json_object_new_object();

					json_object_object_add(go, "lun",
							       json_object_new_uint64(gr->lun));
					json_object_object_add(go, "same_as",
							       json_object_new_uint64(gr->same_as));
					json_object_object_add(
						go, "verdict",
						output_json_string(
							ghost_verdict_name(gr->evidence.verdict)));
					json_object_object_add(
						go, "rule", output_json_string(gr->evidence.rule));
					json_object_object_add(
						go, "evidence",
						output_json_string(gr->evidence.text));
					json_object_array_add(gl, go);
				}
				json_object_object_add(to, "ghosts", gl);
			}
			json_object_object_add(to, "ghost_stop",
					       json_object_new_boolean(t->ghost_stop));
			for (size_t l = 0; l < t->nluns; l++) {
				json_object *lo = json_object_new_object();

				json_object_object_add(lo, "lun",
						       json_object_new_uint64(t->luns[l].lun));
				json_object_object_add(
					lo, "outcome",
					output_json_string(lun_outcome_name(t->luns[l].outcome)));
				json_object_object_add(
					lo, "reason_code",
					output_json_string(scan_code_name(t->luns[l].code)));
				json_object_object_add(lo, "reason",
						       output_json_string(t->luns[l].reason));
				json_object_array_add(luns, lo);
			}
			json_object_object_add(to, "luns", luns);
			json_object_array_add(targets, to);
		}
		json_object_object_add(ho, "targets", targets);
		json_object_array_add(hosts, ho);
	}
	json_object_object_add(root, "hosts", hosts);
	json_object_object_add(root, "failures",
			       json_object_new_int64((int64_t)scan_report_failures(rep)));
	return root;
}

static void ranges_text(const struct lun_range *r, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int k = r[i].first == r[i].last
				? snprintf(buf + used, len - used, "%s%llu", i ? ", " : "",
					   (unsigned long long)r[i].first)
				: snprintf(buf + used, len - used, "%s%llu-%llu", i ? ", " : "",
					   (unsigned long long)r[i].first,
					   (unsigned long long)r[i].last);

		used += k > 0 ? (size_t)k : 0;
	}
	if (!n)
		snprintf(buf, len, "none");
}

static json_object *ranges_json(const struct lun_range *r, size_t n)
{
	json_object *a = json_object_new_array();
	char text[64];

	for (size_t i = 0; i < n; i++) {
		if (r[i].first == r[i].last)
			snprintf(text, sizeof(text), "%llu", (unsigned long long)r[i].first);
		else
			snprintf(text, sizeof(text), "%llu-%llu", (unsigned long long)r[i].first,
				 (unsigned long long)r[i].last);
		json_object_array_add(a, json_object_new_string(text));
	}
	return a;
}

void output_lunmask_match(const struct lunmask_entry *e, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + used, len - used, __VA_ARGS__);                            \
		if (n_ > 0 && (size_t)n_ < len - used)                                             \
			used += n_;                                                                \
	} while (0)
	if (e->driver)
		ADD("driver %s", e->driver);
	if (e->host_port_name)
		ADD("%shost_port_name %s", used ? ", " : "", e->host_port_name);
	if (e->host_path)
		ADD("%shost_path %s", used ? ", " : "", e->host_path);
	if (e->port_name)
		ADD("%sport_name %s", used ? ", " : "", e->port_name);
	if (e->sas_address)
		ADD("%ssas_address %s", used ? ", " : "", e->sas_address);
	if (e->iscsi_target)
		ADD("%siscsi_target %s", used ? ", " : "", e->iscsi_target);
	if (e->iscsi_tpgt >= 0)
		ADD("%siscsi_tpgt %ld", used ? ", " : "", e->iscsi_tpgt);
	if (e->channel >= 0)
		ADD("%schannel %ld", used ? ", " : "", e->channel);
	if (e->id >= 0)
		ADD("%sid %ld", used ? ", " : "", e->id);
	if (e->wwid)
		ADD("%swwid %s", used ? ", " : "", e->wwid);
	if (e->serial)
		ADD("%sserial %s", used ? ", " : "", e->serial);
	if (!used)
		ADD("every target");
#undef ADD
}

void output_lunmask_effect(const struct lunmask_entry *e, char *buf, size_t len)
{
	char a[512] = "", x[512] = "";

	if (e->has_luns)
		ranges_text(e->luns, e->nluns, a, sizeof(a));
	if (e->nexclude)
		ranges_text(e->exclude, e->nexclude, x, sizeof(x));
	snprintf(buf, len, "%s%s%s%s%s", e->has_luns ? "luns = " : "", a,
		 e->has_luns && e->nexclude ? "; " : "", e->nexclude ? "exclude_luns = " : "", x);
}

json_object *output_lunmask_json(const struct lunmask_entry *e)
{
	json_object *o = json_object_new_object();

#define STR(k, v) json_object_object_add(o, k, (v) ? output_json_string(v) : NULL)
#define NUM(k, v) json_object_object_add(o, k, (v) >= 0 ? json_object_new_int64(v) : NULL)
	STR("file", e->file);
	json_object_object_add(o, "line", json_object_new_int((int)e->line));
	STR("title", e->title);
	STR("driver", e->driver);
	STR("host_port_name", e->host_port_name);
	STR("host_path", e->host_path);
	STR("port_name", e->port_name);
	STR("sas_address", e->sas_address);
	STR("iscsi_target", e->iscsi_target);
	NUM("iscsi_tpgt", e->iscsi_tpgt);
	NUM("channel", e->channel);
	NUM("id", e->id);
	STR("wwid", e->wwid);
	STR("serial", e->serial);
	json_object_object_add(o, "luns", e->has_luns ? ranges_json(e->luns, e->nluns) : NULL);
	json_object_object_add(o, "exclude_luns", ranges_json(e->exclude, e->nexclude));
	STR("reason", e->reason);
#undef STR
#undef NUM
	return o;
}

void output_resize_text(FILE *f, const struct resize_result *r)
{
	char hctl[40], before[32], after[32];

	scsi_addr_format(&r->addr, hctl, sizeof(hctl));
	output_size(r->before, before, sizeof(before));
	output_size(r->after, after, sizeof(after));
	if (r->error == -ESTALE)
		fprintf(f,
			"%-14s %-6s FAILED: remapped, another unit answers at it: %s; not rescanned "
			"(a scan of its target replaces it)\n",
			hctl, r->block[0] ? r->block : "-", r->remapped);
	else if (r->error)
		fprintf(f, "%-14s %-6s FAILED: the rescan write: %s\n", hctl,
			r->block[0] ? r->block : "-", strerror(-r->error));
	else if (!r->block[0])
		fprintf(f, "%-14s %-6s rescanned (no block device)\n", hctl, "-");
	else if (resize_changed(r))
		fprintf(f, "%-14s %-6s resized: %" PRId64 " -> %" PRId64 " sectors (%s -> %s)\n",
			hctl, r->block, r->before, r->after, before, after);
	else
		fprintf(f, "%-14s %-6s unchanged: %" PRId64 " sectors (%s)\n", hctl, r->block,
			r->after, after);
}

json_object *output_resize_json(const struct resize_result *r)
{
	json_object *o = json_object_new_object();
	char hctl[40];

	json_object_object_add(o, "hctl",
			       output_json_string(scsi_addr_format(&r->addr, hctl, sizeof(hctl))));
	json_object_object_add(o, "block", r->block[0] ? output_json_string(r->block) : NULL);
	json_object_object_add(o, "sectors_before",
			       r->before >= 0 ? json_object_new_int64(r->before) : NULL);
	json_object_object_add(o, "sectors_after",
			       r->after >= 0 ? json_object_new_int64(r->after) : NULL);
	json_object_object_add(o, "changed", json_object_new_boolean(resize_changed(r)));
	json_object_object_add(o, "error",
			       r->error ? output_json_string(strerror(-r->error)) : NULL);
	json_object_object_add(o, "remapped",
			       r->error == -ESTALE ? output_json_string(r->remapped) : NULL);
	return o;
}

json_object *output_suggestion_json(const struct quirk_suggestion *s, const char *target,
				    const char *entry)
{
	json_object *o = output_json_document("suggest", NULL, NULL), *ev = json_object_new_array();

	json_object_object_add(o, "target", output_json_string(target));
	json_object_object_add(o, "vendor", output_json_string(s->vendor));
	json_object_object_add(o, "model", output_json_string(s->model));
	json_object_object_add(o, "revision", output_json_string(s->revision));
	json_object_object_add(o, "flags", output_flags_json(s->flags));
	json_object_object_add(o, "max_lun",
			       s->max_lun >= 0 ? json_object_new_int64(s->max_lun) : NULL);
	for (size_t i = 0; i < s->nevidence; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "rule", output_json_string(s->evidence[i].rule));
		json_object_object_add(e, "proposes",
				       json_object_new_boolean(s->evidence[i].proposes));
		json_object_object_add(e, "text", output_json_string(s->evidence[i].text));
		json_object_array_add(ev, e);
	}
	json_object_object_add(o, "evidence", ev);
	json_object_object_add(o, "entry", entry ? output_json_string(entry) : NULL);
	return o;
}

void output_volume_text(FILE *f, const char *address, const struct volume_path *paths,
			const struct path_devices *dev, size_t n)
{
	const char *wwid = "", *map = "", *map_dev = "";
	size_t attached = 0;

	for (size_t i = 0; i < n; i++) {
		attached += dev[i].attached;
		if (!wwid[0] && dev[i].wwid[0])
			wwid = dev[i].wwid;
		if (!map[0] && dev[i].map[0]) {
			map = dev[i].map;
			map_dev = dev[i].map_dev;
		}
	}
	fprintf(f, "%s: %zu of %zu path(s) attached\n", address, attached, n);
	for (size_t i = 0; i < n; i++) {
		char hctl[40], size[32] = "-";

		scsi_addr_format(&dev[i].addr, hctl, sizeof(hctl));
		if (dev[i].sectors >= 0)
			output_size(dev[i].sectors, size, sizeof(size));
		fprintf(f, "  %-14s %-6s %-6s %-10s %-10s %s %s%s%s\n", hctl,
			dev[i].block[0] ? dev[i].block : "-", dev[i].sg[0] ? dev[i].sg : "-",
			dev[i].attached ? dev[i].state : "absent", size,
			paths[i].name[0] ? paths[i].name : "-", paths[i].state,
			dev[i].map[0] ? " map " : "", dev[i].map);
	}
	fprintf(f, "  wwid %s\n", wwid[0] ? wwid : "-");
	if (map[0])
		fprintf(f, "  map %s (%s)\n", map, map_dev);
}

json_object *output_volume_json(const char *address, const struct volume_path *paths,
				const struct path_devices *dev, size_t n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	size_t attached = 0;

	json_object_object_add(o, "address", output_json_string(address));
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_new_object();
		char hctl[40], hex[24];

		scsi_addr_format(&dev[i].addr, hctl, sizeof(hctl));
		snprintf(hex, sizeof(hex), "0x%04" PRIx64, dev[i].addr.lun);
		attached += dev[i].attached;
		json_object_object_add(p, "hctl", output_json_string(hctl));
		json_object_object_add(p, "lun_hex", output_json_string(hex));
		json_object_object_add(p, "attached", json_object_new_boolean(dev[i].attached));
		json_object_object_add(p, "state",
				       dev[i].attached ? output_json_string(dev[i].state) : NULL);
		json_object_object_add(p, "transport_entry",
				       paths[i].name[0] ? output_json_string(paths[i].name) : NULL);
		json_object_object_add(p, "transport_state",
				       paths[i].state[0] ? output_json_string(paths[i].state)
							 : NULL);
		json_object_object_add(p, "block",
				       dev[i].block[0] ? output_json_string(dev[i].block) : NULL);
		json_object_object_add(p, "sg",
				       dev[i].sg[0] ? output_json_string(dev[i].sg) : NULL);
		json_object_object_add(p, "wwid",
				       dev[i].wwid[0] ? output_json_string(dev[i].wwid) : NULL);
		json_object_object_add(p, "sectors",
				       dev[i].sectors >= 0 ? json_object_new_int64(dev[i].sectors)
							   : NULL);
		json_object_object_add(p, "map",
				       dev[i].map[0] ? output_json_string(dev[i].map) : NULL);
		json_object_object_add(p, "map_device",
				       dev[i].map_dev[0] ? output_json_string(dev[i].map_dev)
							 : NULL);
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "paths", a);
	json_object_object_add(o, "attached", json_object_new_int64((int64_t)attached));
	return o;
}

void output_steps_text(FILE *f, const struct volume_steps *s)
{
	for (size_t i = 0; i < s->count; i++) {
		const struct volume_step *st = &s->v[i];
		char sizes[96] = "";

		if (st->before >= 0 || st->after >= 0) {
			char b[32] = "?", a[32] = "?";

			if (st->before >= 0)
				output_size(st->before, b, sizeof(b));
			if (st->after >= 0)
				output_size(st->after, a, sizeof(a));
			snprintf(sizes, sizeof(sizes), " %s -> %s", b, a);
		}
		fprintf(f, "%-11s %-8s %s%s%s%s\n", volume_step_kind_name(st->kind),
			volume_step_result_name(st->result), st->what, sizes,
			st->why[0] ? ": " : "", st->why);
	}
}

json_object *output_steps_json(const struct volume_steps *s)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < s->count; i++) {
		const struct volume_step *st = &s->v[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "step",
				       output_json_string(volume_step_kind_name(st->kind)));
		json_object_object_add(o, "object", output_json_string(st->what));
		json_object_object_add(o, "result",
				       output_json_string(volume_step_result_name(st->result)));
		json_object_object_add(o, "why", st->why[0] ? output_json_string(st->why) : NULL);
		json_object_object_add(o, "sectors_before",
				       st->before >= 0 ? json_object_new_int64(st->before) : NULL);
		json_object_object_add(o, "sectors_after",
				       st->after >= 0 ? json_object_new_int64(st->after) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}
