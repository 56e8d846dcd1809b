// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scsi-quirks - check, query, list, export and import the SCSI quirk database.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "blist.h"
#include "inquiry.h"
#include "handler.h"
#include "lunmask.h"
#include "output.h"
#include "quirks.h"
#include "rootdevs.h"
#include "scan.h"
#include "suggest.h"

#define EXIT_USAGE 2

struct options {
	const char **dirs;
	size_t ndirs;
	const char *root;
	const char *sysroot;
	const char *output;
	const char *vendor;
	const char *model;
	const char *revision;
	int type;
	bool json;
	bool dev_flags;
	bool modprobe;
	bool host_only;
	bool cmdline;
	bool quiet;
	bool has_target;
	struct lunmask_target target;
	bool channel_given;
	bool id_given;
	bool has_lun;
	uint64_t lun;
};

static void usage(FILE *f)
{
	fputs("Usage: scsi-quirks [OPTIONS] COMMAND [ARGS]\n"
	      "\n"
	      "Check, query and convert the SCSI device quirk database (quirks.d).\n"
	      "\n"
	      "Commands:\n"
	      "  check [PATH...]             validate files or directories (default: the\n"
	      "                              search path); exit 1 if any has an error\n"
	      "  query --vendor V --model M [--revision R] [--type N]\n"
	      "                              the merged settings for one device and the\n"
	      "                              entries that gave them\n"
	      "  query ADDRESS... [--lun L]  the lunmask entries for a target and the LUNs\n"
	      "                              they allow; ADDRESS is any of --driver NAME,\n"
	      "                              --channel C, --id T, --port-name WWPN,\n"
	      "                              --host-port-name WWPN, --sas-address A,\n"
	      "                              --iscsi-target IQN, --iscsi-tpgt N,\n"
	      "                              --wwid ID, --serial S (LUN 0's identity)\n"
	      "  list                        every entry of the merged database, in order\n"
	      "  export --dev-flags          the scsi_mod.dev_flags value the kernel needs\n"
	      "  export --modprobe           the same as a modprobe.d options line\n"
	      "  export ... --host-only      only for the devices attached now, by their\n"
	      "                              own names (what the boot image carries)\n"
	      "  import --dev-flags STRING   turn a dev_flags value into quirks.d text\n"
	      "  import --cmdline [STRING]   turn the scsi_scan.lunmask= and rd.lunmask=\n"
	      "                              values of a kernel command line (default\n"
	      "                              /proc/cmdline) into lunmask entries that\n"
	      "                              attach nothing else\n"
	      "  compile [--output FILE]     compile the search path into the image\n"
	      "                              scsi-scan loads instead of the text while it is\n"
	      "                              current (default " QUIRKS_IMAGE ",\n"
	      "                              under --root); errors are reported and their\n"
	      "                              files left out, as a load leaves them out\n"
	      "  suggest H:C:T               investigate a target (attach its LUNs, compare\n"
	      "                              their identities, look past gaps and LUN 7,\n"
	      "                              detach again) and propose an entry for it;\n"
	      "                              exit 1 if nothing needs one\n"
	      "  boot-policy [MOUNT_POINT]   the boot policy a host-only initramfs carries:\n"
	      "                              lunmask entries naming the SCSI disks under\n"
	      "                              MOUNT_POINT (default /) through partitions,\n"
	      "                              dm-crypt, LVM, md and multipath, by stable\n"
	      "                              address, and one that attaches nothing else;\n"
	      "                              nothing when none is a SCSI disk\n"
	      "\n"
	      "Options:\n"
	      "  --quirks-dir DIR            use DIR instead of the search path (repeatable,\n"
	      "                              lowest precedence first)\n"
	      "  --root DIR                  prefix every directory of the search path\n"
	      "  --sysroot DIR               suggest, export --host-only, boot-policy: root\n"
	      "                              of every /sys, /dev, /proc and\n"
	      "                              /run path (tests)\n"
	      "  --output FILE               compile: the image file to write\n"
	      "  --json                      JSON output (query, list, check, suggest)\n"
	      "  -q, --quiet                 check: print errors only; compile: print nothing\n"
	      "                              but errors; boot-policy: not why there is none\n"
	      "  -h, --help                  this text\n"
	      "  --version                   the version\n"
	      "\n"
	      "Search path: " QUIRKS_SHIPPED_DIR ", /etc/scsi-scan/quirks.d,\n"
	      "/run/scsi-scan/quirks.d. See scsi-quirks(8) and scsi-quirks.d(5).\n",
	      f);
}

static void print_diags(const struct quirk_diags *d, bool quiet)
{
	for (size_t i = 0; i < d->count; i++) {
		const struct quirk_diag *q = &d->items[i];

		if (quiet && q->severity != QUIRK_ERROR)
			continue;
		if (q->line)
			fprintf(stderr, "%s:%u: %s: %s\n", q->file, q->line,
				q->severity == QUIRK_ERROR     ? "error"
				: q->severity == QUIRK_WARNING ? "warning"
							       : "note",
				q->message);
		else
			fprintf(stderr, "%s: %s: %s\n", q->file,
				q->severity == QUIRK_ERROR     ? "error"
				: q->severity == QUIRK_WARNING ? "warning"
							       : "note",
				q->message);
	}
}

static int load_db(const struct options *o, struct quirk_db **ret, struct quirk_diags *diags)
{
	char **path = NULL;
	size_t n;
	int r;

	if (o->ndirs)
		return quirk_db_load(o->dirs, o->ndirs, diags, ret);
	r = quirk_search_path(o->root, &path, &n);
	if (r < 0)
		return r;
	r = quirk_db_load((const char *const *)path, n, diags, ret);
	quirk_search_path_free(path);
	return r;
}

/* Loads for a command that answers questions: broken files are reported
 * and skipped, the answer comes from the rest. */
static struct quirk_db *load_for_answer(const struct options *o)
{
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = NULL;
	int r;

	r = load_db(o, &db, &diags);
	print_diags(&diags, true);
	quirk_diags_clear(&diags);
	if (r < 0)
		fprintf(stderr, "scsi-quirks: cannot load the quirk database: %s\n", strerror(-r));
	return db;
}

static void flags_text(uint64_t flags, char *buf, size_t len)
{
	if (blist_flags_format(flags, " ", buf, len) < 0 || !buf[0])
		snprintf(buf, len, "%s", flags ? "?" : "(none)");
}

static json_object *entry_json(const struct quirk_entry *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "file", output_json_string(e->file));
	json_object_object_add(o, "line", json_object_new_int(e->line));
	json_object_object_add(o, "title", output_json_string(e->title));
	json_object_object_add(o, "vendor", output_json_string(e->vendor));
	json_object_object_add(o, "model", output_json_string(e->model));
	json_object_object_add(o, "revision", e->revision ? output_json_string(e->revision) : NULL);
	json_object_object_add(o, "type", e->type >= 0 ? json_object_new_int(e->type) : NULL);
	json_object_object_add(o, "flags", e->sets_flags ? output_flags_json(e->flags) : NULL);
	json_object_object_add(o, "add_flags", output_flags_json(e->add_flags));
	json_object_object_add(o, "drop_flags", output_flags_json(e->drop_flags));
	json_object_object_add(o, "max_lun",
			       e->max_lun >= 0 ? json_object_new_int64(e->max_lun) : NULL);
	json_object_object_add(o, "attach",
			       e->attach >= 0 ? json_object_new_boolean(e->attach) : NULL);
	json_object_object_add(o, "builtin", json_object_new_boolean(e->builtin));
	json_object_object_add(o, "reason", e->reason ? output_json_string(e->reason) : NULL);
	return o;
}

/* One line saying what an entry does, e.g. "flags = nolun; max_lun = 3". */
static void entry_effect(const struct quirk_entry *e, char *buf, size_t len)
{
	char f[512];
	size_t used = 0;

	buf[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + used, len - used, __VA_ARGS__);                            \
		if (n_ > 0 && (size_t)n_ < len - used)                                             \
			used += n_;                                                                \
	} while (0)
	if (e->sets_flags) {
		flags_text(e->flags, f, sizeof(f));
		ADD("flags = %s", f);
	}
	if (e->add_flags) {
		flags_text(e->add_flags, f, sizeof(f));
		ADD("%sadd %s", used ? "; " : "", f);
	}
	if (e->drop_flags) {
		flags_text(e->drop_flags, f, sizeof(f));
		ADD("%sdrop %s", used ? "; " : "", f);
	}
	if (e->max_lun >= 0)
		ADD("%smax_lun = %lld", used ? "; " : "", e->max_lun);
	if (e->attach >= 0)
		ADD("%sattach = %s", used ? "; " : "", e->attach ? "true" : "false");
	if (e->handler)
		ADD("%shandler = %s", used ? "; " : "", e->handler);
#undef ADD
}

static int clean_arg(const char *what, const char *in, size_t width, char *out)
{
	size_t n = strlen(in);

	if (n > width) {
		fprintf(stderr, "scsi-quirks: %s '%s' is longer than its %zu-byte INQUIRY field\n",
			what, in, width);
		return -EINVAL;
	}
	inquiry_field_clean(out, (const uint8_t *)in, n);
	return 0;
}

static int cmd_query_target(struct options *o)
{
	const struct lunmask_entry *masks;
	struct lunmask_verdict v = { 0 };
	struct lunmask_set set = { 0 };
	struct quirk_db *db;
	char text[1024], effect[1024];
	size_t n;
	int r;

	o->target.hctl_unknown = !o->channel_given;
	db = load_for_answer(o);
	if (!db)
		return EXIT_FAILURE;
	masks = quirk_db_lunmasks(db, &n);
	r = lunmask_select(masks, n, &o->target, &set);
	if (r < 0) {
		quirk_db_free(db);
		return EXIT_FAILURE;
	}
	if (o->has_lun) {
		lunmask_decide(&set, o->lun, &v);
		lunmask_describe(&v, o->lun, text, sizeof(text));
	}
	if (o->json) {
		json_object *j = json_object_new_object(), *a = json_object_new_array();

		for (size_t i = 0; i < set.count; i++)
			json_object_array_add(a, output_lunmask_json(set.items[i]));
		json_object_object_add(j, "lunmask", a);
		json_object_object_add(j, "restricts",
				       json_object_new_boolean(lunmask_restricts(&set)));
		if (o->has_lun) {
			json_object *l = json_object_new_object();

			json_object_object_add(l, "lun", json_object_new_uint64(o->lun));
			json_object_object_add(l, "allowed", json_object_new_boolean(v.allowed));
			json_object_object_add(l, "rule",
					       json_object_new_string(lunmask_rule_name(v.rule)));
			json_object_object_add(l, "reason", output_json_string(text));
			json_object_object_add(j, "decision", l);
		}
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		printf("lunmask:%s\n", set.count ? "" : " no entry applies to this target");
		for (size_t i = 0; i < set.count; i++) {
			output_lunmask_match(set.items[i], text + 512, 512);
			output_lunmask_effect(set.items[i], effect, sizeof(effect));
			printf("  %s:%u  %s  (%s)  %s\n", set.items[i]->file, set.items[i]->line,
			       set.items[i]->title, text + 512, effect);
		}
		if (o->has_lun)
			printf("LUN %llu: %s: %s\n", (unsigned long long)o->lun,
			       v.allowed ? "allowed" : "refused", text);
		else
			printf("order: exclude_luns first, then the union of the luns lists; quirks "
			       "apply to what is allowed\n");
	}
	lunmask_set_clear(&set);
	quirk_db_free(db);
	return EXIT_SUCCESS;
}

static int cmd_query(struct options *o)
{
	char vendor[QUIRK_VENDOR_LEN + 1], model[QUIRK_MODEL_LEN + 1], rev[QUIRK_REVISION_LEN + 1];
	struct quirk_device dev = { .vendor = vendor, .model = model, .type = o->type };
	struct handler_choice h;
	struct quirk_match m;
	struct quirk_db *db;
	char f[512];
	int r;

	if (o->has_target && !o->vendor && !o->model) {
		if (o->channel_given != o->id_given) {
			fputs("scsi-quirks: --channel and --id go together\n", stderr);
			return EXIT_USAGE;
		}
		return cmd_query_target(o);
	}
	if (!o->vendor || !o->model) {
		fputs("scsi-quirks: query needs --vendor and --model, or a target's address\n",
		      stderr);
		return EXIT_USAGE;
	}
	if (clean_arg("vendor", o->vendor, QUIRK_VENDOR_LEN, vendor) < 0 ||
	    clean_arg("model", o->model, QUIRK_MODEL_LEN, model) < 0 ||
	    (o->revision && clean_arg("revision", o->revision, QUIRK_REVISION_LEN, rev) < 0))
		return EXIT_USAGE;
	if (o->revision)
		dev.revision = rev;
	db = load_for_answer(o);
	if (!db)
		return EXIT_FAILURE;
	r = quirk_db_match(db, &dev, &m);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: lookup failed: %s\n", strerror(-r));
		quirk_db_free(db);
		return EXIT_FAILURE;
	}
	if (o->json) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "vendor", output_json_string(vendor));
		json_object_object_add(j, "model", output_json_string(model));
		json_object_object_add(j, "revision", o->revision ? output_json_string(rev) : NULL);
		json_object_object_add(j, "type",
				       o->type >= 0 ? json_object_new_int(o->type) : NULL);
		json_object_object_add(j, "flags", output_flags_json(m.flags));
		snprintf(f, sizeof(f), "0x%llx", (unsigned long long)m.flags);
		json_object_object_add(j, "flags_value", output_json_string(f));
		json_object_object_add(j, "max_lun",
				       m.max_lun >= 0 ? json_object_new_int64(m.max_lun) : NULL);
		json_object_object_add(j, "attach", json_object_new_boolean(m.attach));
		handler_choose(&m, 0, &h);
		json_object_object_add(j, "handler", output_handler_json(&h));
		handler_choose(&m, 1, &h);
		json_object_object_add(j, "handler_with_tpgs", output_handler_json(&h));
		json_object_object_add(j, "sources", output_sources_json(&m));
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		flags_text(m.flags, f, sizeof(f));
		printf("vendor:  %s\nmodel:   %s\n", vendor, model);
		if (o->revision)
			printf("revision: %s\n", rev);
		if (o->type >= 0)
			printf("type:    %d\n", o->type);
		printf("flags:   %s (0x%llx)\n", f, (unsigned long long)m.flags);
		if (m.max_lun >= 0)
			printf("max_lun: %lld\n", m.max_lun);
		else
			printf("max_lun: no limit\n");
		printf("attach:  %s\n", m.attach ? "yes" : "no (attach = false)");
		handler_choose(&m, 0, &h);
		output_handler_text(&h, f, sizeof(f));
		printf("handler: %s\n", f);
		handler_choose(&m, 1, &h);
		output_handler_text(&h, f, sizeof(f));
		printf("  with target port groups (TPGS): %s\n", f);
		printf("sources:%s\n", m.count ? "" : " none (no entry matches this device)");
		for (size_t i = 0; i < m.count; i++) {
			entry_effect(m.sources[i], f, sizeof(f));
			printf("  %s:%u  %s  %s\n", m.sources[i]->file, m.sources[i]->line,
			       m.sources[i]->title, f);
		}
	}
	quirk_match_clear(&m);
	quirk_db_free(db);
	return EXIT_SUCCESS;
}

static int cmd_list(const struct options *o)
{
	struct quirk_db *db = load_for_answer(o);
	const struct lunmask_entry *masks;
	json_object *arr = NULL;
	size_t nmasks;
	char f[512];

	if (!db)
		return EXIT_FAILURE;
	if (o->json)
		arr = json_object_new_array();
	for (size_t i = 0; i < quirk_db_count(db); i++) {
		const struct quirk_entry *e = quirk_db_entry(db, i);

		if (arr) {
			json_object_array_add(arr, entry_json(e));
			continue;
		}
		entry_effect(e, f, sizeof(f));
		printf("%s:%u\t%s\t'%s'\t'%s'", e->file, e->line, e->title, e->vendor, e->model);
		if (e->revision)
			printf("\trev '%s'", e->revision);
		if (e->type >= 0)
			printf("\ttype %d", e->type);
		printf("\t%s\n", f);
	}
	masks = quirk_db_lunmasks(db, &nmasks);
	for (size_t i = 0; i < nmasks; i++) {
		char match[512];

		if (arr) {
			json_object *m = output_lunmask_json(&masks[i]);

			json_object_object_add(m, "kind", json_object_new_string("lunmask"));
			json_object_array_add(arr, m);
			continue;
		}
		output_lunmask_match(&masks[i], match, sizeof(match));
		output_lunmask_effect(&masks[i], f, sizeof(f));
		printf("%s:%u\t%s\tlunmask (%s)\t%s\n", masks[i].file, masks[i].line,
		       masks[i].title, match, f);
	}
	if (arr) {
		puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
	}
	quirk_db_free(db);
	return EXIT_SUCCESS;
}

static int cmd_check(const struct options *o, char **paths, int npaths)
{
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = quirk_db_new();
	size_t errors, warnings, entries, masks;
	char lunmask_note[48];
	int r = 0;

	if (!db)
		return EXIT_FAILURE;
	if (npaths == 0) {
		char **path = NULL;
		size_t n;

		if (o->ndirs) {
			r = quirk_db_add_dirs(db, o->dirs, o->ndirs, &diags);
		} else {
			r = quirk_search_path(o->root, &path, &n);
			if (r == 0)
				r = quirk_db_add_dirs(db, (const char *const *)path, n, &diags);
			quirk_search_path_free(path);
		}
	}
	for (int i = 0; i < npaths && r >= 0; i++) {
		struct stat st;

		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			r = quirk_db_add_dirs(db, (const char *const *)&paths[i], 1, &diags);
		else
			r = quirk_db_add_file(db, paths[i], &diags);
		if (r != -ENOMEM)
			r = 0;
	}
	if (r == 0)
		r = quirk_db_finalize(db, &diags);
	if (r == 0)
		r = quirk_dev_flags_check(db, &diags);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: %s\n", strerror(-r));
		quirk_diags_clear(&diags);
		quirk_db_free(db);
		return EXIT_FAILURE;
	}
	errors = quirk_diags_count(&diags, QUIRK_ERROR);
	warnings = quirk_diags_count(&diags, QUIRK_WARNING);
	entries = quirk_db_count(db);
	quirk_db_lunmasks(db, &masks);
	snprintf(lunmask_note, sizeof(lunmask_note), " (and %zu lunmask)", masks);
	if (o->json) {
		json_object *j = json_object_new_object(), *a = json_object_new_array();

		for (size_t i = 0; i < diags.count; i++) {
			json_object *d = json_object_new_object();

			json_object_object_add(
				d, "severity",
				output_json_string(diags.items[i].severity == QUIRK_ERROR ? "error"
						   : diags.items[i].severity == QUIRK_WARNING
							   ? "warning"
							   : "note"));
			json_object_object_add(d, "file", output_json_string(diags.items[i].file));
			json_object_object_add(d, "line", json_object_new_int(diags.items[i].line));
			json_object_object_add(d, "message",
					       output_json_string(diags.items[i].message));
			json_object_array_add(a, d);
		}
		json_object_object_add(j, "entries", json_object_new_int64(entries));
		json_object_object_add(j, "lunmask_entries", json_object_new_int64(masks));
		json_object_object_add(j, "errors", json_object_new_int64(errors));
		json_object_object_add(j, "warnings", json_object_new_int64(warnings));
		json_object_object_add(j, "diagnostics", a);
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else {
		print_diags(&diags, o->quiet);
		if (!o->quiet)
			printf("%zu entries loaded%s, %zu errors, %zu warnings\n", entries,
			       masks ? lunmask_note : "", errors, warnings);
	}
	quirk_diags_clear(&diags);
	quirk_db_free(db);
	return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int cmd_compile(const struct options *o)
{
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = NULL;
	char image[4096];
	const char *out = o->output;
	int r;

	if (!out) {
		if (snprintf(image, sizeof(image), "%s%s", o->root ? o->root : "", QUIRKS_IMAGE) >=
		    (int)sizeof(image)) {
			fputs("scsi-quirks: --root is too long\n", stderr);
			return EXIT_FAILURE;
		}
		out = image;
	}
	r = load_db(o, &db, &diags);
	print_diags(&diags, true);
	quirk_diags_clear(&diags);
	if (r == 0)
		r = quirk_db_image_save(db, o->ndirs ? NULL : o->root, out);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: cannot compile the database into %s: %s\n", out,
			r == -EINVAL ? "not a regular file (only a regular file is replaced)"
				     : strerror(-r));
		quirk_db_free(db);
		return EXIT_FAILURE;
	}
	if (!o->quiet)
		printf("%zu entries compiled into %s\n", quirk_db_count(db), out);
	quirk_db_free(db);
	return EXIT_SUCCESS;
}

/* The devices attached now: vendor, model and revision as the kernel shows
 * them (cleaned as INQUIRY fields), and their type. */
static int machine_devices(const char *sysroot, struct quirk_device **ret,
			   char (**ret_names)[3][QUIRK_MODEL_LEN + 8], size_t *ret_count)
{
	struct sysfs_ctx *sys = sysfs_new(sysroot);
	char(*names)[3][QUIRK_MODEL_LEN + 8] = NULL;
	struct quirk_device *devs = NULL;
	struct scsi_addr *addrs = NULL;
	size_t n = 0;
	int r;

	if (!sys)
		return -ENOMEM;
	r = sysfs_devices(sys, SCAN_WILDCARD, &addrs, &n);
	if (r == -ENOENT) {
		r = 0;
		n = 0;
	}
	if (r == 0 && n) {
		devs = calloc(n, sizeof(*devs));
		names = calloc(n, sizeof(*names));
		if (!devs || !names)
			r = -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		static const char *const attrs[] = { "vendor", "model", "rev" };
		char raw[64], type[16];

		for (int k = 0; k < 3; k++) {
			if (sysfs_device_attr(sys, &addrs[i], attrs[k], raw, sizeof(raw)) < 0)
				raw[0] = '\0';
			inquiry_field_clean(names[i][k], (const uint8_t *)raw,
					    strnlen(raw, QUIRK_MODEL_LEN));
		}
		devs[i].vendor = names[i][0];
		devs[i].model = names[i][1];
		devs[i].revision = names[i][2];
		devs[i].type = sysfs_device_attr(sys, &addrs[i], "type", type, sizeof(type)) > 0
				       ? atoi(type)
				       : -1;
	}
	free(addrs);
	sysfs_free(sys);
	if (r < 0) {
		free(devs);
		free(names);
		return r;
	}
	*ret = devs;
	*ret_names = names;
	*ret_count = n;
	return 0;
}

static int cmd_export(const struct options *o)
{
	struct quirk_diags diags = { 0 };
	struct quirk_db *db = NULL;
	char *str = NULL;
	size_t len;
	int r;

	if (o->dev_flags == o->modprobe) {
		fputs("scsi-quirks: export needs exactly one of --dev-flags and --modprobe\n",
		      stderr);
		return EXIT_USAGE;
	}
	r = load_db(o, &db, &diags);
	print_diags(&diags, true);
	quirk_diags_clear(&diags);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: cannot load the quirk database: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (o->host_only) {
		struct quirk_device *devs = NULL;
		char(*names)[3][QUIRK_MODEL_LEN + 8] = NULL;
		size_t n = 0;

		r = machine_devices(o->sysroot, &devs, &names, &n);
		if (r == 0)
			r = quirk_dev_flags_export_devices(db, devs, n, &str, &diags);
		free(devs);
		free(names);
	} else {
		r = quirk_dev_flags_export(db, &str, &diags);
	}
	print_diags(&diags, true);
	quirk_diags_clear(&diags);
	quirk_db_free(db);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: cannot export dev_flags: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	len = strlen(str);
	if (len > QUIRK_DEV_FLAGS_MAX) {
		fprintf(stderr,
			"scsi-quirks: the dev_flags value would be %zu characters; the kernel "
			"takes at most %d (scsi_mod.dev_flags is a 256-byte buffer)\n",
			len, QUIRK_DEV_FLAGS_MAX);
		free(str);
		return EXIT_FAILURE;
	}
	if (o->modprobe) {
		if (len)
			printf("options scsi_mod dev_flags=%s%s%s\n", strchr(str, ' ') ? "\"" : "",
			       str, strchr(str, ' ') ? "\"" : "");
		else
			puts("# no device needs flags other than the kernel's own");
	} else {
		puts(str);
	}
	free(str);
	return EXIT_SUCCESS;
}

static void print_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		/* The file stays ASCII (check takes UTF-8 only), and "$" never
		 * starts a ${NAME} for libconfuse to expand. */
		if (c == '"' || c == '\\' || c == '$')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void trim(char *s)
{
	size_t start = 0, end = strlen(s);

	while (s[start] == ' ')
		start++;
	while (end > start && s[end - 1] == ' ')
		end--;
	memmove(s, s + start, end - start);
	s[end - start] = '\0';
}

/* import --cmdline: what the boot scripts write under /run for scsi-scan. */
static int import_cmdline(char **args, int nargs)
{
	const char *error = NULL, *bad = NULL;
	char buf[4096], *text = NULL;
	const char *cmdline;
	int r;

	if (nargs > 1) {
		fputs("scsi-quirks: usage: import --cmdline [STRING]\n", stderr);
		return EXIT_USAGE;
	}
	if (nargs == 1) {
		cmdline = args[0];
	} else {
		FILE *f = fopen("/proc/cmdline", "re");
		size_t n;

		if (!f) {
			fprintf(stderr, "scsi-quirks: /proc/cmdline: %s\n", strerror(errno));
			return EXIT_FAILURE;
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		cmdline = buf;
	}
	r = lunmask_cmdline_config(cmdline, &text, &error, &bad);
	if (r == -EINVAL) {
		const char *end = bad + strcspn(bad, " \t\n");

		fprintf(stderr, "scsi-quirks: %.*s: %s\n", (int)(end - bad), bad, error);
		return EXIT_FAILURE;
	}
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (!text) {
		fputs("scsi-quirks: no scsi_scan.lunmask= or rd.lunmask= on the command line\n",
		      stderr);
		return EXIT_FAILURE;
	}
	fputs(text, stdout);
	free(text);
	return EXIT_SUCCESS;
}

static int cmd_import(const struct options *o, char **args, int nargs)
{
	struct quirk_dev_flag *items = NULL;
	const char *err = "";
	size_t count = 0, n;
	const struct blist_flag *t = blist_flag_table(&n);
	int r;

	if (o->cmdline)
		return import_cmdline(args, nargs);
	if (!o->dev_flags || nargs != 1) {
		fputs("scsi-quirks: usage: import --dev-flags STRING, or import --cmdline "
		      "[STRING]\n",
		      stderr);
		return EXIT_USAGE;
	}
	r = quirk_dev_flags_parse(args[0], &items, &count, &err);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: cannot import: %s\n",
			r == -EINVAL ? err : strerror(-r));
		return EXIT_FAILURE;
	}
	printf("# Imported by scsi-quirks from scsi_mod.dev_flags.\n"
	       "# The kernel matched these vendor and model strings exactly; here the\n"
	       "# model is a prefix, as in the kernel's own table.\n");
	for (size_t i = 0; i < count; i++) {
		bool first = true;

		trim(items[i].vendor);
		trim(items[i].model);
		printf("\ndevice \"dev-flags-%zu\" {\n\tvendor = ", i + 1);
		print_quoted(items[i].vendor);
		printf("\n\tmodel = ");
		print_quoted(items[i].model);
		printf("\n\tflags = {");
		for (size_t k = 0; k < n; k++) {
			if (!(items[i].flags & t[k].bit))
				continue;
			printf("%s\"%s\"", first ? "" : ", ", t[k].name);
			first = false;
		}
		printf("}\n\treason = \"imported from scsi_mod.dev_flags (0x%llx)\"\n}\n",
		       (unsigned long long)items[i].flags);
	}
	quirk_dev_flags_free(items, count);
	return EXIT_SUCCESS;
}

/* The day a proposal is dated: SOURCE_DATE_EPOCH if set (reproducible
 * output), else today. */
static void today(char *buf, size_t len)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t t = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d", &tm))
		snprintf(buf, len, "?");
}

/* suggest H:C:T: an investigation scan of the target, then the proposal. */
/*
 * boot-policy [MOUNT_POINT]: what the boot hooks put in a host-only image,
 * so that only the root file system's LUNs are attached before the root is
 * mounted. Nothing is printed for a root on no SCSI disk.
 */
static int cmd_boot_policy(const struct options *o, char **args, int nargs)
{
	const char *mount_point = nargs ? args[0] : "/";
	struct rootdev *devs = NULL;
	struct sysfs_ctx *sys;
	char why[512], *text = NULL;
	size_t n = 0;
	int r;

	if (nargs > 1) {
		fputs("scsi-quirks: boot-policy takes one mount point\n", stderr);
		return EXIT_USAGE;
	}
	sys = sysfs_new(o->sysroot);
	if (!sys) {
		fputs("scsi-quirks: out of memory\n", stderr);
		return EXIT_FAILURE;
	}
	why[0] = '\0';
	r = rootdevs_of_mount(sys, mount_point, &devs, &n, why, sizeof(why));
	if (r == 0)
		r = rootdevs_boot_config(sys, devs, n, &text, why, sizeof(why));
	sysfs_free(sys);
	free(devs);
	if (r == -ENODEV) {
		if (!o->quiet)
			fprintf(stderr,
				"scsi-quirks: no boot policy: %s lies on %s, no SCSI disk\n",
				mount_point, why);
		return EXIT_SUCCESS;
	}
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: no boot policy for %s: %s\n", mount_point,
			why[0] ? why : strerror(-r));
		return EXIT_FAILURE;
	}
	fputs(text, stdout);
	free(text);
	return EXIT_SUCCESS;
}

static int cmd_suggest(const struct options *o, char **args, int nargs)
{
	struct scan_ctx ctx = { .opt = { .inquiry_timeout = SCAN_INQUIRY_TIMEOUT,
					 .report_luns_timeout = SCAN_REPORT_LUNS_TIMEOUT,
					 .host_timeout = SCAN_HOST_TIMEOUT_DEFAULT,
					 .target_timeout = SCAN_TARGET_TIMEOUT_DEFAULT,
					 .investigate = true } };
	const struct target_report *t = NULL;
	struct scan_report rep = { 0 };
	struct quirk_suggestion sug;
	struct sysfs_ctx *sys = NULL;
	struct quirk_db *db = NULL;
	struct selector sel;
	char target[48], date[16], *entry = NULL;
	int r, ret = EXIT_FAILURE;

	if (nargs != 1 || selector_parse(args[0], &sel) < 0 || sel.host == SCAN_WILDCARD ||
	    sel.channel == SCAN_WILDCARD || sel.id == SCAN_WILDCARD || sel.lun_set) {
		fputs("scsi-quirks: suggest takes one target, H:C:T\n", stderr);
		return EXIT_USAGE;
	}
	snprintf(target, sizeof(target), "%d:%d:%d", sel.host, sel.channel, sel.id);
	sys = sysfs_new(o->sysroot);
	db = load_for_answer(o);
	if (!sys || !db)
		goto out;
	ctx.sys = sys;
	ctx.db = db;
	r = scan_selected(&ctx, &sel, &rep);
	if (r < 0) {
		fprintf(stderr, "scsi-quirks: %s: %s\n", target,
			r == -ENODEV ? "no such host" : strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < rep.nhosts && !t; i++) {
		if (rep.hosts[i].failed)
			fprintf(stderr, "scsi-quirks: host%u: %s\n", rep.hosts[i].host,
				rep.hosts[i].error);
		if (rep.hosts[i].ntargets)
			t = &rep.hosts[i].targets[0];
	}
	if (!t || !t->has_inquiry) {
		fprintf(stderr, "scsi-quirks: %s: %s\n", target,
			t && t->failed ? t->error : "no LUN of the target answered");
		goto out;
	}
	if (quirk_suggest(t, &sug) < 0)
		goto out;
	today(date, sizeof(date));
	if (quirk_suggestion_proposes(&sug) &&
	    quirk_suggestion_text(&sug, target, date, &entry) < 0)
		goto out;
	if (o->json) {
		json_object *j = output_suggestion_json(&sug, target, entry);

		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
	} else if (entry) {
		fputs(entry, stdout);
	} else {
		printf("# scsi-quirks suggest %s: nothing to propose for '%s' '%s'\n", target,
		       sug.vendor, sug.model);
		for (size_t i = 0; i < sug.nevidence; i++)
			printf("#   %s: %s\n", sug.evidence[i].rule, sug.evidence[i].text);
	}
	ret = entry ? EXIT_SUCCESS : EXIT_FAILURE;
out:
	free(entry);
	scan_report_free(&rep);
	quirk_db_free(db);
	sysfs_free(sys);
	return ret;
}

int main(int argc, char **argv)
{
	enum {
		OPT_QUIRKS_DIR = 256,
		OPT_ROOT,
		OPT_SYSFS,
		OPT_VENDOR,
		OPT_MODEL,
		OPT_REVISION,
		OPT_TYPE,
		OPT_JSON,
		OPT_DEV_FLAGS,
		OPT_MODPROBE,
		OPT_CMDLINE,
		OPT_VERSION,
		OPT_DRIVER,
		OPT_CHANNEL,
		OPT_ID,
		OPT_PORT_NAME,
		OPT_HOST_PORT_NAME,
		OPT_SAS_ADDRESS,
		OPT_ISCSI_TARGET,
		OPT_ISCSI_TPGT,
		OPT_WWID,
		OPT_SERIAL,
		OPT_LUN,
		OPT_OUTPUT,
		OPT_QUIET,
		OPT_HOST_ONLY,
	};
	static const struct option longopts[] = {
		{ "quirks-dir", required_argument, NULL, OPT_QUIRKS_DIR },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "sysroot", required_argument, NULL, OPT_SYSFS },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "vendor", required_argument, NULL, OPT_VENDOR },
		{ "model", required_argument, NULL, OPT_MODEL },
		{ "revision", required_argument, NULL, OPT_REVISION },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "dev-flags", no_argument, NULL, OPT_DEV_FLAGS },
		{ "modprobe", no_argument, NULL, OPT_MODPROBE },
		{ "cmdline", no_argument, NULL, OPT_CMDLINE },
		{ "driver", required_argument, NULL, OPT_DRIVER },
		{ "channel", required_argument, NULL, OPT_CHANNEL },
		{ "id", required_argument, NULL, OPT_ID },
		{ "port-name", required_argument, NULL, OPT_PORT_NAME },
		{ "host-port-name", required_argument, NULL, OPT_HOST_PORT_NAME },
		{ "sas-address", required_argument, NULL, OPT_SAS_ADDRESS },
		{ "iscsi-target", required_argument, NULL, OPT_ISCSI_TARGET },
		{ "iscsi-tpgt", required_argument, NULL, OPT_ISCSI_TPGT },
		{ "wwid", required_argument, NULL, OPT_WWID },
		{ "serial", required_argument, NULL, OPT_SERIAL },
		{ "lun", required_argument, NULL, OPT_LUN },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "host-only", no_argument, NULL, OPT_HOST_ONLY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
#define BIT(opt) (1ull << ((opt)-OPT_QUIRKS_DIR))
	/* Which options each command takes; any other is a usage error. */
	static const uint64_t database = BIT(OPT_QUIRKS_DIR) | BIT(OPT_ROOT);
	static const uint64_t address =
		BIT(OPT_DRIVER) | BIT(OPT_CHANNEL) | BIT(OPT_ID) | BIT(OPT_PORT_NAME) |
		BIT(OPT_HOST_PORT_NAME) | BIT(OPT_SAS_ADDRESS) | BIT(OPT_ISCSI_TARGET) |
		BIT(OPT_ISCSI_TPGT) | BIT(OPT_WWID) | BIT(OPT_SERIAL) | BIT(OPT_LUN);
	static const struct {
		const char *name;
		uint64_t takes;
	} commands[] = {
		{ "check", database | BIT(OPT_JSON) | BIT(OPT_QUIET) },
		{ "query", database | BIT(OPT_JSON) | BIT(OPT_VENDOR) | BIT(OPT_MODEL) |
				   BIT(OPT_REVISION) | BIT(OPT_TYPE) | address },
		{ "list", database | BIT(OPT_JSON) },
		{ "export", database | BIT(OPT_DEV_FLAGS) | BIT(OPT_MODPROBE) | BIT(OPT_HOST_ONLY) |
				    BIT(OPT_SYSFS) },
		{ "compile", database | BIT(OPT_OUTPUT) | BIT(OPT_QUIET) },
		{ "import", BIT(OPT_DEV_FLAGS) | BIT(OPT_CMDLINE) },
		{ "suggest", database | BIT(OPT_JSON) | BIT(OPT_SYSFS) },
		{ "boot-policy", BIT(OPT_SYSFS) | BIT(OPT_QUIET) },
	};
	struct options o = { .type = -1, .target = { .iscsi_tpgt = -1 } };
	uint64_t given = 0;
	const char *cmd;
	int c, r, ret;

	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		if (c >= OPT_QUIRKS_DIR)
			given |= BIT(c);
		switch (c) {
		case OPT_QUIRKS_DIR:
			r = quirk_dir_add(&o.dirs, &o.ndirs, optarg);
			if (r < 0) {
				fprintf(stderr, "scsi-quirks: --quirks-dir %s: %s\n", optarg,
					strerror(-r));
				free(o.dirs);
				return EXIT_FAILURE;
			}
			break;
		case OPT_ROOT:
			o.root = optarg;
			break;
		case OPT_SYSFS: {
			struct stat st;
			int e = stat(optarg, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

			/* A root that is not there would read as a machine
			 * without devices. */
			if (e) {
				fprintf(stderr, "scsi-quirks: --sysroot %s: %s\n", optarg,
					strerror(e));
				free(o.dirs);
				return EXIT_USAGE;
			}
			o.sysroot = optarg;
			break;
		}
		case OPT_HOST_ONLY:
			o.host_only = true;
			break;
		case OPT_OUTPUT:
			o.output = optarg;
			break;
		case OPT_VENDOR:
			o.vendor = optarg;
			break;
		case OPT_MODEL:
			o.model = optarg;
			break;
		case OPT_REVISION:
			o.revision = optarg;
			break;
		case OPT_TYPE: {
			char *end;
			long t = strtol(optarg, &end, 0);

			if (*optarg == '\0' || *end || t < 0 || t > 31) {
				fprintf(stderr, "scsi-quirks: --type takes 0-31, not '%s'\n",
					optarg);
				free(o.dirs);
				return EXIT_USAGE;
			}
			o.type = (int)t;
			break;
		}
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_DEV_FLAGS:
			o.dev_flags = true;
			break;
		case OPT_MODPROBE:
			o.modprobe = true;
			break;
		case OPT_CMDLINE:
			o.cmdline = true;
			break;
		case OPT_DRIVER:
		case OPT_PORT_NAME:
		case OPT_HOST_PORT_NAME:
		case OPT_SAS_ADDRESS:
		case OPT_ISCSI_TARGET:
		case OPT_WWID:
		case OPT_SERIAL:
			o.has_target = true;
			*(c == OPT_DRIVER	    ? &o.target.driver
			  : c == OPT_PORT_NAME	    ? &o.target.port_name
			  : c == OPT_HOST_PORT_NAME ? &o.target.host_port_name
			  : c == OPT_SAS_ADDRESS    ? &o.target.sas_address
			  : c == OPT_ISCSI_TARGET   ? &o.target.iscsi_target
			  : c == OPT_WWID	    ? &o.target.wwid
						    : &o.target.serial) = optarg;
			break;
		case OPT_CHANNEL:
		case OPT_ID:
		case OPT_ISCSI_TPGT:
		case OPT_LUN: {
			struct lun_range lr;

			/* A portal group tag is 16 bits (RFC 7143); the lunmask
			 * key takes 0-65535 too. */
			if (lun_range_parse(optarg, &lr) < 0 || lr.first != lr.last ||
			    (c != OPT_LUN && lr.first > 0xffffffffu) ||
			    (c == OPT_ISCSI_TPGT && lr.first > 65535)) {
				fprintf(stderr, "scsi-quirks: --%s takes a number%s, not '%s'\n",
					c == OPT_CHANNEL ? "channel"
					: c == OPT_ID	 ? "id"
					: c == OPT_LUN	 ? "lun"
							 : "iscsi-tpgt",
					c == OPT_ISCSI_TPGT ? " from 0 to 65535" : "", optarg);
				free(o.dirs);
				return EXIT_USAGE;
			}
			if (c == OPT_LUN) {
				o.has_lun = true;
				o.lun = lr.first;
				break;
			}
			o.has_target = true;
			if (c == OPT_CHANNEL) {
				o.target.channel = (unsigned int)lr.first;
				o.channel_given = true;
			} else if (c == OPT_ID) {
				o.target.id = (unsigned int)lr.first;
				o.id_given = true;
			} else
				o.target.iscsi_tpgt = (long)lr.first;
			break;
		}
		case 'q':
		case OPT_QUIET:
			given |= BIT(OPT_QUIET);
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			free(o.dirs);
			return EXIT_SUCCESS;
		case OPT_VERSION:
			puts("scsi-quirks " PROJECT_VERSION);
			free(o.dirs);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			free(o.dirs);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		free(o.dirs);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		uint64_t stray;

		if (strcmp(cmd, commands[i].name) != 0)
			continue;
		stray = given & ~commands[i].takes;
		for (const struct option *lo = longopts; stray && lo->name; lo++) {
			if (lo->val < OPT_QUIRKS_DIR || !(stray & BIT(lo->val)))
				continue;
			fprintf(stderr, "scsi-quirks: --%s does not apply to %s\n", lo->name, cmd);
			free(o.dirs);
			return EXIT_USAGE;
		}
	}
#undef BIT
	if (strcmp(cmd, "check") == 0)
		ret = cmd_check(&o, argv + optind, argc - optind);
	else if (strcmp(cmd, "suggest") == 0)
		ret = cmd_suggest(&o, argv + optind, argc - optind);
	else if (strcmp(cmd, "boot-policy") == 0)
		ret = cmd_boot_policy(&o, argv + optind, argc - optind);
	else if (optind < argc && strcmp(cmd, "import") != 0)
		ret = (fprintf(stderr, "scsi-quirks: unexpected argument '%s'\n", argv[optind]),
		       EXIT_USAGE);
	else if (strcmp(cmd, "query") == 0)
		ret = cmd_query(&o);
	else if (strcmp(cmd, "list") == 0)
		ret = cmd_list(&o);
	else if (strcmp(cmd, "export") == 0)
		ret = cmd_export(&o);
	else if (strcmp(cmd, "compile") == 0)
		ret = cmd_compile(&o);
	else if (strcmp(cmd, "import") == 0)
		ret = cmd_import(&o, argv + optind, argc - optind);
	else
		ret = (fprintf(stderr, "scsi-quirks: unknown command '%s'\n", cmd), EXIT_USAGE);
	free(o.dirs);
	return ret;
}
