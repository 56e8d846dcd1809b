// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * scsi-scan - scan SCSI hosts and targets from user space, steered by the
 * quirk database; list attached devices; explain decisions.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "holdout.h"
#include "luns.h"
#include "output.h"
#include "paths.h"
#include "quirks.h"
#include "resize.h"
#include "scan.h"
#include "settle.h"
#include "sysfs.h"
#include "volops.h"
#include "volume.h"

#define EXIT_USAGE 2
/* A volume attached on some of its paths, not all. */
#define EXIT_PARTIAL 3
/* How long an attach waits for block devices and the map, by default. */
#define DEVICE_TIMEOUT_DEFAULT 30
/* Bound on each multipath, multipathd or dmsetup run. */
#define TOOL_TIMEOUT 30
/* wait's bound by default: udev's own settle waits as long. */
#define SETTLE_WAIT_DEFAULT 180
/* Marks a word that getopt must not take for options ("-:0:1"). */
#define SELECTOR_MARK '\001'

static char **marked;
static int nmarked;

static void free_marked(void)
{
	for (int i = 0; i < nmarked; i++)
		free(marked[i]);
	free(marked);
}

/* Marks "-:..." words as selectors: 0, or -ENOMEM. */
static int mark_selectors(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char **m;

		if (argv[i][0] != '-' || argv[i][1] != ':')
			continue;
		m = realloc(marked, (nmarked + 1) * sizeof(*m));
		if (!m)
			return -ENOMEM;
		marked = m;
		if (asprintf(&argv[i], "%c%s", SELECTOR_MARK, argv[i]) < 0)
			return -ENOMEM;
		marked[nmarked++] = argv[i];
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: scsi-scan [scan] [OPTIONS] [SELECTOR...|ADDRESS]\n"
	      "       scsi-scan --resize [--json] [SELECTOR...|ADDRESS]\n"
	      "       scsi-scan list [--json] [-v] [SELECTOR...|ADDRESS]\n"
	      "       scsi-scan explain SELECTOR|ADDRESS\n"
	      "       scsi-scan detach [-n] [--force] [--json] ADDRESS\n"
	      "       scsi-scan release [--json] ADDRESS\n"
	      "       scsi-scan wait [--timeout SECS] [-v]\n"
	      "\n"
	      "ADDRESS names a volume by what stays the same, on every path (every\n"
	      "session, remote port or end device that reaches its target, on every host):\n"
	      "  --iscsi-target IQN [--tpgt N] | --port-name WWPN | --sas-address ADDR,\n"
	      "  each with --lun N; or --wwid WWID for a volume that is attached.\n"
	      "With an address, scan attaches that LUN on every path and nothing else of\n"
	      "those targets, then waits (--device-timeout) for each path's block device\n"
	      "and, when multipathd runs, for the map that claims them; detach flushes\n"
	      "the map, deletes every path and holds the volume out until release.\n"
	      "\n"
	      "Attach the LUNs of SCSI targets through sysfs, as the kernel's own scan\n"
	      "would, steered by the quirk database (scsi-quirks.d(5)). SELECTOR is hostN\n"
	      "or H[:C[:T[:L]]], any field '-' for all (\"-:0:1\" works; so does \"--\"),\n"
	      "numbers decimal, 0x hex or 0 octal; none means every host. With L, only\n"
	      "that LUN is attached.\n"
	      "\n"
	      "Options:\n"
	      "  -n, --dry-run          print the plan, write nothing but this: one named\n"
	      "                         target (H:C:T) with nothing attached is read\n"
	      "                         through LUN 0 or the REPORT LUNS well-known LUN,\n"
	      "                         attached for the look and deleted again\n"
	      "      --remove           also delete attached LUNs that REPORT LUNS no longer\n"
	      "                         lists or the lunmask policy refuses; ones in use\n"
	      "                         (mounted, held, open) are kept\n"
	      "      --force            with --remove, delete them even when in use\n"
	      "      --attach-ghosts    attach LUNs that repeat another LUN's identity\n"
	      "                         (INQUIRY, VPD 0x80 and 0x83): by default the scan\n"
	      "                         of such a target stops and keeps LUN 0 only\n"
	      "      --resize           attach nothing: have the kernel read the capacity\n"
	      "                         of the attached LUNs again (their rescan file) and\n"
	      "                         report which block devices changed size\n"
	      "      --json             print the result as JSON\n"
	      "  -v, --verbose          one line per LUN\n"
	      "      --quirks-dir DIR   quirk directory instead of the search path\n"
	      "                         (repeatable, lowest precedence first)\n"
	      "      --quirks-file FILE also load FILE, after the directories (repeatable);\n"
	      "                         the boot scripts pass scsi_scan.lunmask= this way\n"
	      "      --quirks-image FILE\n"
	      "                         the compiled database to use when it is current\n"
	      "                         (default " QUIRKS_IMAGE "\n"
	      "                         with the default search path, none with --quirks-dir)\n"
	      "      --sysroot DIR      root of every /sys, /dev, /proc and /run path (a\n"
	      "                         captured tree; --sysfs is the old name)\n"
	      "      --timeout SECS     INQUIRY and REPORT LUNS timeout, 1-3600, one value\n"
	      "                         for both (default 20 and 30); for wait, how long\n"
	      "                         to wait, 0-86400 (default 180)\n"
	      "      --host-timeout SECS\n"
	      "                         bound on one host's scan (default 900, 0 none)\n"
	      "      --target-timeout SECS\n"
	      "                         bound on one target's scan (default 300, 0 none)\n"
	      "      --time-limit SECS  bound on the whole run (default none); hosts not\n"
	      "                         reached by then fail\n"
	      "      --wait             wait for a host another scan holds, instead of failing\n"
	      "      --device-timeout SECS\n"
	      "                         with an ADDRESS, how long scan waits for the block\n"
	      "                         devices and the map, 0-3600 (default 30)\n"
	      "  -h, --help             this text\n"
	      "      --version          the version\n"
	      "\n"
	      "wait returns once scsi-scand has scanned every host it found at its start\n"
	      "(the settle point; also reached when the kernel scans by itself).\n"
	      "\n"
	      "Exit status: 0 all done, 1 a host, target or LUN failed or was kept in\n"
	      "use (each named on stderr), wait timed out, or no path of an ADDRESS was\n"
	      "attached (or detached), 2 usage error, 3 some paths of an ADDRESS, not\n"
	      "all.\n"
	      "See scsi-scan(8).\n",
	      f);
}

enum command {
	CMD_SCAN,
	CMD_LIST,
	CMD_EXPLAIN,
	CMD_RESIZE,
	CMD_WAIT,
	CMD_DETACH,
	CMD_RELEASE,
};

/* Whether @path is a directory; errno says why not. */
static bool is_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	errno = ENOTDIR;
	return S_ISDIR(st.st_mode);
}

struct options {
	bool json;
	bool resize;
	const char *image;
	bool verbose;
	const char **dirs;
	size_t ndirs;
	const char **files;
	size_t nfiles;
	const char *sysroot;
	const char *timeout;
	struct scan_options scan;
	/* a volume's address instead of selectors */
	bool has_address;
	struct volume_address address;
	unsigned int device_timeout;
};

/* Seconds for a scan bound: 0 (none) to a day. */
static int parse_bound(const char *s, unsigned int *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v > 86400)
		return -EINVAL;
	*ret = (unsigned int)v;
	return 0;
}

static struct quirk_db *load_quirks(const struct options *o)
{
	struct quirk_diags diags = { 0 };
	const char *image = o->image ? o->image : o->ndirs ? NULL : QUIRKS_IMAGE;
	struct quirk_db *db = NULL;
	char **path = NULL;
	size_t n = o->ndirs;
	int r, from_image;

	if (!o->ndirs)
		r = quirk_search_path(NULL, &path, &n);
	else
		r = 0;
	if (r == 0)
		r = quirk_db_open(o->ndirs ? o->dirs : (const char *const *)path, n, image, &diags,
				  &db, &from_image);
	quirk_search_path_free(path);
	if (r == 0 && image && o->verbose && !o->json) {
		if (from_image == 0)
			fprintf(stderr, "scsi-scan: quirks: the compiled image %s\n", image);
		else
			fprintf(stderr, "scsi-scan: quirks: the text files (the image %s is %s)\n",
				image,
				from_image == -ENOENT	? "not there: scsi-quirks compile"
				: from_image == -ESTALE ? "out of date: scsi-quirks compile"
							: "not usable: scsi-quirks compile");
	}
	/* Files named on the command line come last: a broken one is
	 * reported and skipped, as a broken file of a directory is. */
	for (size_t i = 0; r == 0 && i < o->nfiles; i++) {
		r = quirk_db_add_file(db, o->files[i], &diags);
		if (r != -ENOMEM)
			r = 0;
	}
	if (r == 0)
		r = quirk_db_finalize(db, &diags);
	for (size_t i = 0; i < diags.count; i++)
		if (diags.items[i].severity == QUIRK_ERROR)
			fprintf(stderr, "scsi-scan: quirks: %s:%u: %s (file skipped)\n",
				diags.items[i].file, diags.items[i].line, diags.items[i].message);
	quirk_diags_clear(&diags);
	if (r < 0) {
		fprintf(stderr, "scsi-scan: cannot load the quirk database: %s\n", strerror(-r));
		quirk_db_unref(db);
		return NULL;
	}
	return db;
}

static int parse_selectors(char **args, int n, struct selector **ret, int *ret_n)
{
	static struct selector all = { SCAN_WILDCARD, SCAN_WILDCARD, SCAN_WILDCARD, false, 0 };
	struct selector *sel;

	if (n == 0) {
		*ret = &all;
		*ret_n = 1;
		return 0;
	}
	sel = calloc(n, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (args[i][0] == SELECTOR_MARK)
			args[i]++;
		if (selector_parse(args[i], &sel[i]) < 0) {
			fprintf(stderr, "scsi-scan: '%s' is not a selector (hostN or H:C:T:L)\n",
				args[i]);
			free(sel);
			return -EINVAL;
		}
		if (sel[i].lun_set && !lun_scan_writable(sel[i].lun)) {
			fprintf(stderr,
				"scsi-scan: '%s': LUN %" PRIu64 " (0x%" PRIx64
				") cannot be written "
				"to the kernel's scan file, which takes at most 0xffffffffffffff "
				"(the first byte of the fourth level must be 0)\n",
				args[i], sel[i].lun, sel[i].lun);
			free(sel);
			return -EINVAL;
		}
	}
	*ret = sel;
	*ret_n = n;
	return 0;
}

static void print_json(json_object *j)
{
	puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}

/* Each host, target and LUN that fell short, on stderr, for the log of a
 * boot script. */
static void print_lun_failures(const struct scan_report *rep)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		if (rep->hosts[i].failed)
			fprintf(stderr, "scsi-scan: host%u: %s\n", rep->hosts[i].host,
				rep->hosts[i].error);
		for (size_t k = 0; k < rep->hosts[i].ntargets; k++) {
			const struct target_report *t = &rep->hosts[i].targets[k];

			if (t->failed)
				fprintf(stderr, "scsi-scan: %u:%u:%u: %s\n", t->addr.host,
					t->addr.channel, t->addr.id, t->error);
			if (t->ghost_stop)
				fprintf(stderr,
					"scsi-scan: %u:%u:%u: ghost LUNs: LUN %" PRIu64
					" repeats LUN %" PRIu64 " (%s); only LUN %" PRIu64
					" kept (scsi-quirks suggest %u:%u:%u proposes an entry; "
					"--attach-ghosts attaches them)\n",
					t->addr.host, t->addr.channel, t->addr.id,
					t->ghosts[t->nghosts - 1].lun,
					t->ghosts[t->nghosts - 1].same_as,
					t->ghosts[t->nghosts - 1].evidence.text, t->ghost_kept,
					t->addr.host, t->addr.channel, t->addr.id);
			if (t->removal_refused)
				fprintf(stderr,
					"scsi-scan: %u:%u:%u: REPORT LUNS answered %zu LUN(s), "
					"short of the list its header announced, twice: no LUN was "
					"removed on its account\n",
					t->addr.host, t->addr.channel, t->addr.id, t->nreported);
			for (size_t j = 0; j < t->nluns; j++)
				if (lun_report_failed(t, &t->luns[j]))
					fprintf(stderr, "scsi-scan: %u:%u:%u:%" PRIu64 ": %s: %s\n",
						t->addr.host, t->addr.channel, t->addr.id,
						t->luns[j].lun,
						lun_outcome_name(t->luns[j].outcome),
						t->luns[j].reason);
		}
	}
}

/* Appends the devices of @list, as list --json has them, to @all. */
static void append_list_json(json_object *all, const struct device_info *list, size_t n)
{
	json_object *part = output_list_json(list, n);

	for (size_t k = 0; k < json_object_array_length(part); k++)
		json_object_array_add(all, json_object_get(json_object_array_get_idx(part, k)));
	json_object_put(part);
}

static int cmd_list(const struct options *o, struct sysfs_ctx *sys, struct quirk_db *db,
		    struct selector *sel, int nsel)
{
	json_object *all = o->json ? json_object_new_array() : NULL;

	int ret = EXIT_SUCCESS;

	for (int i = 0; i < nsel; i++) {
		struct device_info *list = NULL;
		size_t n = 0;
		int r;

		if (sel[i].host != SCAN_WILDCARD &&
		    !sysfs_host_exists(sys, (unsigned int)sel[i].host)) {
			fprintf(stderr, "scsi-scan: host%d does not exist\n", sel[i].host);
			ret = EXIT_FAILURE;
			continue;
		}
		r = device_list(sys, db, &sel[i], &list, &n);
		if (r < 0) {
			fprintf(stderr, "scsi-scan: cannot list devices: %s\n", strerror(-r));
			json_object_put(all);
			return EXIT_FAILURE;
		}
		if (all)
			append_list_json(all, list, n);
		else
			output_list_text(stdout, list, n, o->verbose);
		device_list_free(list, n);
	}
	if (all)
		print_json(output_json_document("list", "devices", all));
	return ret;
}

/* --resize: each attached LUN the selectors name, rescanned for its size. */
static int cmd_resize(const struct options *o, struct sysfs_ctx *sys, struct selector *sel,
		      int nsel)
{
	json_object *all = o->json ? json_object_new_array() : NULL;
	size_t done = 0, changed = 0, failed = 0;

	for (int i = 0; i < nsel; i++) {
		struct scsi_addr *addrs = NULL;
		size_t n = 0;
		int r;

		if (sel[i].host != SCAN_WILDCARD &&
		    !sysfs_host_exists(sys, (unsigned int)sel[i].host)) {
			fprintf(stderr, "scsi-scan: host%d does not exist\n", sel[i].host);
			failed++;
			continue;
		}
		r = sysfs_devices(sys, sel[i].host, &addrs, &n);
		if (r < 0) {
			fprintf(stderr, "scsi-scan: cannot list devices: %s\n", strerror(-r));
			failed++;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			struct resize_result rr;

			if (!selector_match(&sel[i], &addrs[k]) ||
			    lun_resize(sys, &addrs[k], &rr) < 0)
				continue;
			done++;
			changed += resize_changed(&rr);
			failed += rr.error != 0;
			if (all)
				json_object_array_add(all, output_resize_json(&rr));
			else
				output_resize_text(stdout, &rr);
		}
		free(addrs);
	}
	if (all)
		print_json(output_json_document("resize", "luns", all));
	else
		fprintf(stderr, "scsi-scan: %zu LUN(s) rescanned, %zu changed size, %zu failed\n",
			done, changed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * What explain adds to the scan's record: the flags the kernel applied to
 * each LUN that is attached, against the database's. Printed where they
 * differ (@f), or returned as a JSON array (@f NULL).
 */
static json_object *explain_devices(struct sysfs_ctx *sys, struct quirk_db *db,
				    const struct selector *sel, int nsel, FILE *f)
{
	json_object *all = f ? NULL : json_object_new_array();

	for (int i = 0; i < nsel; i++) {
		struct device_info *list = NULL;
		size_t n = 0;

		if (device_list(sys, db, &sel[i], &list, &n) < 0)
			continue;
		if (all)
			append_list_json(all, list, n);
		else
			output_kflags_text(f, list, n);
		device_list_free(list, n);
	}
	return all;
}

/* The hold-outs that did not load, once each (every host reads them). */
static void print_holdout_errors(const struct scan_report *rep)
{
	for (size_t i = 0; i < rep->nhosts; i++) {
		const struct quirk_diags *d = &rep->hosts[i].holdout_errors;

		for (size_t k = 0; k < d->count; k++) {
			bool said = false;

			for (size_t j = 0; j < i && !said; j++)
				for (size_t m = 0; m < rep->hosts[j].holdout_errors.count; m++)
					said |= strcmp(rep->hosts[j].holdout_errors.items[m].file,
						       d->items[k].file) == 0 &&
						rep->hosts[j].holdout_errors.items[m].line ==
							d->items[k].line;
			if (!said)
				fprintf(stderr,
					"scsi-scan: hold-out %s:%u: %s: it is not in force\n",
					d->items[k].file, d->items[k].line, d->items[k].message);
		}
	}
}

/* @ret_json: with --json, the scan's document is handed over there
 * instead of printed (an attach by address prints it with the volume). */
static int cmd_scan(const struct options *o, struct sysfs_ctx *sys, struct quirk_db *db,
		    struct selector *sel, int nsel, bool explain, json_object **ret_json)
{
	/* An attach by address (@ret_json given) scans its paths' hosts at once. */
	bool parallel = ret_json && o->has_address && !explain;
	struct scan_ctx ctx = { .sys = sys, .db = db, .opt = o->scan };
	struct scan_report rep = { 0 };
	size_t failures, missing = 0;
	int r = 0;

	if (explain)
		ctx.opt.dry_run = true;
	/* A volume's paths: each host in its own thread. */
	if (parallel) {
		r = scan_selected_hosts(&ctx, sel, (size_t)nsel, &rep);
		if (r == -ENODEV) {
			fputs("scsi-scan: a host of the volume's paths went away\n", stderr);
			missing++;
			r = 0;
		}
	}
	/* A selector that fails does not hide the work done for the others. */
	for (int i = 0; i < nsel && r == 0 && !parallel; i++) {
		r = scan_selected(&ctx, &sel[i], &rep);
		if (r == -ENODEV) {
			fprintf(stderr, "scsi-scan: host%d does not exist\n", sel[i].host);
			missing++;
			r = 0;
		}
	}
	if (r < 0) {
		fprintf(stderr, "scsi-scan: %s\n", strerror(-r));
		if (!rep.nhosts) {
			scan_report_free(&rep);
			return EXIT_FAILURE;
		}
	}
	if (o->json && explain) {
		json_object *root = output_scan_json(&rep);

		json_object_object_add(root, "devices", explain_devices(sys, db, sel, nsel, NULL));
		print_json(root);
	} else if (o->json && ret_json) {
		*ret_json = output_scan_json(&rep);
	} else if (o->json) {
		print_json(output_scan_json(&rep));
	} else if (explain) {
		output_explain_text(stdout, &rep);
		explain_devices(sys, db, sel, nsel, stdout);
	} else
		output_scan_text(stdout, &rep, o->verbose || ctx.opt.dry_run);
	failures = scan_report_failures(&rep);
	if (!o->json)
		print_lun_failures(&rep);
	print_holdout_errors(&rep);
	if (failures && !o->json)
		fprintf(stderr, "scsi-scan: %zu host(s), target(s) or LUN(s) failed\n", failures);
	if (explain && !rep.nhosts)
		fprintf(stderr, "scsi-scan: nothing to explain\n");
	else if (explain) {
		size_t targets = 0;

		for (size_t i = 0; i < rep.nhosts; i++)
			targets += rep.hosts[i].ntargets;
		if (!targets && !failures && sel[0].id != SCAN_WILDCARD)
			fputs("scsi-scan: nothing answered at that target\n", stderr);
		else if (!targets && !failures)
			fputs("scsi-scan: no LUN of those targets is attached; name one target "
			      "(H:C:T) to have it looked at\n",
			      stderr);
	}
	scan_report_free(&rep);
	return failures || missing || r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Whether the process that wrote the settle record still runs. */
static bool process_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Waits for the settle point: exit 0 reached, 1 not within @timeout s. */
static int cmd_wait(const struct options *o, struct sysfs_ctx *sys, unsigned int timeout)
{
	const struct timespec step = { .tv_nsec = 100 * 1000000L };
	uint64_t start_ms = scan_now_ms(), waited_ms = 0;
	enum settle_verdict v;

	for (;;) {
		struct settle_record rec;
		int r = settle_read(sys, &rec);

		if (r < 0 && r != -ENOENT && r != -EINVAL) {
			fprintf(stderr, "scsi-scan: wait: %s: %s\n", SETTLE_STATE_PATH,
				strerror(-r));
			return EXIT_FAILURE;
		}
		v = settle_decide(r == 0 ? &rec : NULL, r == -EINVAL,
				  r == 0 && process_alive(rec.pid));
		if (v == SETTLE_DONE) {
			if (o->verbose)
				printf("settled (%s, scsi-scand pid %d) after %" PRIu64 " ms\n",
				       settle_phase_name(rec.phase), (int)rec.pid, waited_ms);
			return EXIT_SUCCESS;
		}
		if (waited_ms >= (uint64_t)timeout * 1000)
			break;
		/* A poll, not inotify: /run/scsi-scan may not exist until the
		 * daemon starts, and a tenth of a second is soon enough. */
		nanosleep(&step, NULL);
		waited_ms = scan_now_ms() - start_ms;
	}
	fprintf(stderr, "scsi-scan: wait: not settled after %u s: %s\n", timeout,
		settle_verdict_text(v));
	return EXIT_FAILURE;
}

/* The selectors of a volume's paths: H:C:T:L with a LUN, else H:C:T. */
static struct selector *path_selectors(const struct volume_address *a,
				       const struct volume_path *paths, size_t n)
{
	struct selector *sel = calloc(n + 1, sizeof(*sel));

	for (size_t i = 0; sel && i < n; i++)
		sel[i] = (struct selector){ (int)paths[i].addr.host, (int)paths[i].addr.channel,
					    (int)paths[i].addr.id,
					    a->lun_set || a->transport == DISCOVER_PROBE,
					    paths[i].addr.lun };
	return sel;
}

/* Scan with an address: that LUN on every path, then its devices. */
static int cmd_attach(const struct options *o, struct sysfs_ctx *sys, struct quirk_db *db,
		      const struct volume_path *paths, size_t n, const char *address)
{
	struct selector *sel = path_selectors(&o->address, paths, n);
	json_object *scan_json = NULL;
	struct path_devices *dev = NULL;
	size_t attached = 0;
	bool no_map;
	int ret, r;

	if (!sel)
		return EXIT_FAILURE;
	ret = cmd_scan(o, sys, db, sel, (int)n, false, &scan_json);
	free(sel);
	if (!o->address.lun_set || o->scan.dry_run) {
		if (scan_json)
			print_json(scan_json);
		return ret;
	}
	r = volume_wait_devices(sys, paths, n, o->device_timeout * 1000, &dev, &no_map);
	if (r < 0 && r != -ETIMEDOUT) {
		fprintf(stderr, "scsi-scan: %s: cannot read its paths: %s\n", address,
			strerror(-r));
		json_object_put(scan_json);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++)
		attached += dev[i].attached;
	if (scan_json) {
		json_object_object_add(scan_json, "volume",
				       output_volume_json(address, paths, dev, n));
		print_json(scan_json);
	} else {
		output_volume_text(stdout, address, paths, dev, n);
	}
	if (r == -ETIMEDOUT)
		fprintf(stderr, "scsi-scan: %s: after %u s, a path has no block device yet\n",
			address, o->device_timeout);
	if (no_map)
		fprintf(stderr,
			"scsi-scan: %s: multipathd runs, but after %u s no map holds the paths "
			"(blacklisted, or kept out by find_multipaths?)\n",
			address, o->device_timeout);
	free(dev);
	if (!attached) {
		fprintf(stderr, "scsi-scan: %s: attached on none of its %zu path(s)\n", address, n);
		return EXIT_FAILURE;
	}
	if (attached < n) {
		fprintf(stderr, "scsi-scan: %s: attached on %zu of its %zu path(s)\n", address,
			attached, n);
		return EXIT_PARTIAL;
	}
	return ret == EXIT_SUCCESS && r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static void print_steps(const struct options *o, const char *kind, const char *address,
			const struct volume_steps *s)
{
	json_object *doc;

	if (!o->json) {
		output_steps_text(stdout, s);
		return;
	}
	doc = output_json_document(kind, "steps", output_steps_json(s));
	json_object_object_add(doc, "address", json_object_new_string(address));
	print_json(doc);
}

/* The hold-out keys of a target address's paths: one per path. */
static struct holdout_key *address_keys(const struct volume_address *a, size_t n)
{
	struct holdout_key *keys = calloc(n + 1, sizeof(*keys));

	for (size_t i = 0; keys && i < n; i++)
		volume_holdout_key(a, &keys[i]);
	return keys;
}

static volatile sig_atomic_t detach_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	detach_stop = 1;
}

static int cmd_detach(const struct options *o, struct sysfs_ctx *sys,
		      const struct volume_path *paths, const struct holdout_key *keys, size_t n,
		      const char *address)
{
	struct volume_detach_options opt = { .dry_run = o->scan.dry_run,
					     .force = o->scan.force,
					     .tool_timeout = TOOL_TIMEOUT,
					     .stop = &detach_stop };
	/* No SA_RESTART: a signal ends the step under way at its next check,
	 * and the detach takes its hold-outs back rather than leave them. */
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct volume_steps steps;
	char reason[400];
	time_t now = time(NULL);
	char when[64];
	int r;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
	snprintf(reason, sizeof(reason), "%s, detached by scsi-scan on %s", address, when);
	opt.reason = reason;
	r = volume_detach(sys, paths, keys, n, &opt, &steps);
	print_steps(o, "detach", address, &steps);
	volume_steps_free(&steps);
	if (r == -ENOENT) {
		fprintf(stderr,
			"scsi-scan: %s: no path of it is attached, and it is not held out: "
			"nothing detached\n",
			address);
		return EXIT_FAILURE;
	}
	if (r == -EINTR) {
		fprintf(stderr, "scsi-scan: %s: stopped by a signal: not detached%s\n", address,
			"; run it again to finish");
		return EXIT_FAILURE;
	}
	if (r == -EBUSY) {
		fprintf(stderr,
			"scsi-scan: %s: in use, or its map could not be flushed: not detached%s\n",
			address, o->scan.force ? "" : " (--force goes on anyway)");
		return EXIT_FAILURE;
	}
	if (r < 0) {
		fprintf(stderr, "scsi-scan: %s: %s\n", address,
			r == -EIO ? "a path could not be deleted" : strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* A release by address takes the keys of its paths; one by wwid finds the
 * hold-outs that recorded it (a held-out volume has no path attached). */
static int cmd_release(const struct options *o, struct sysfs_ctx *sys,
		       const struct holdout_key *keys, size_t n, const char *address)
{
	struct volume_steps steps;
	int r = keys ? volume_release(sys, keys, n, &steps)
		     : volume_release_wwid(sys, &o->address, &steps);

	print_steps(o, "release", address, &steps);
	volume_steps_free(&steps);
	if (r == -ENOENT) {
		fprintf(stderr, "scsi-scan: %s: not held out\n", address);
		return EXIT_FAILURE;
	}
	if (r < 0) {
		fprintf(stderr, "scsi-scan: %s: %s\n", address, strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

static int cmd_volume_resize(const struct options *o, struct sysfs_ctx *sys,
			     const struct volume_path *paths, size_t n, const char *address)
{
	struct volume_steps steps;
	int r = volume_resize(sys, paths, n, TOOL_TIMEOUT, &steps);

	print_steps(o, "resize", address, &steps);
	volume_steps_free(&steps);
	if (r < 0) {
		fprintf(stderr, "scsi-scan: %s: %s\n", address,
			r == -EIO ? "a path or its map was not resized" : strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/*
 * What list says of a volume that is held out: nothing of it is attached,
 * so its listing alone would be empty. @keys: its paths' keys, or NULL to
 * find the hold-outs by the address's wwid. Return: how many there are.
 */
static size_t say_held_out(const struct options *o, struct sysfs_ctx *sys,
			   const struct holdout_key *keys, size_t n, const char *address)
{
	size_t total = 0;

	for (size_t i = 0; i < (keys ? n : 1); i++) {
		char(*files)[PATH_MAX] = NULL;
		size_t nfiles = 0;

		if ((keys ? holdout_files(sys, &keys[i], &files, &nfiles)
			  : holdout_files_wwid(sys, &o->address, &files, &nfiles)) < 0)
			continue;
		for (size_t f = 0; f < nfiles; f++, total++)
			if (!o->json)
				printf("%s: held out by %s (\"scsi-scan release\" brings it back)\n",
				       address, files[f]);
		free(files);
		if (nfiles)
			break;
	}
	return total;
}

/* Every command with an address: its paths first. */
static int run_address(const struct options *o, enum command cmd, struct sysfs_ctx *sys,
		       struct quirk_db *db)
{
	struct volume_path *paths = NULL;
	struct holdout_key *keys = NULL;
	struct selector *sel = NULL;
	char address[ISCSI_NAME_MAX + 64];
	size_t n = 0;
	int r, ret = EXIT_FAILURE;

	volume_address_text(&o->address, address, sizeof(address));
	/* A held-out volume has no path attached: its hold-outs say its wwid. */
	if (cmd == CMD_RELEASE && o->address.transport == DISCOVER_PROBE)
		return cmd_release(o, sys, NULL, 0, address);
	r = volume_resolve(sys, &o->address, &paths, &n,
			   o->address.transport == DISCOVER_PROBE ? &keys : NULL);
	if (r < 0) {
		fprintf(stderr, "scsi-scan: %s: cannot find its paths: %s\n", address,
			strerror(-r));
		return EXIT_FAILURE;
	}
	if (!n && cmd == CMD_LIST && o->address.transport == DISCOVER_PROBE &&
	    say_held_out(o, sys, NULL, 0, address)) {
		ret = EXIT_SUCCESS;
		goto out;
	}
	if (!n) {
		fprintf(stderr, "scsi-scan: %s: %s\n", address,
			o->address.transport == DISCOVER_PROBE
				? "no attached LUN has that wwid"
				: "no host reaches that target (no session, remote port or end "
				  "device names it)");
		goto out;
	}
	if (!keys && o->address.lun_set)
		keys = address_keys(&o->address, n);
	if (cmd == CMD_DETACH || cmd == CMD_RELEASE) {
		if (!keys)
			goto out;
		ret = cmd == CMD_DETACH ? cmd_detach(o, sys, paths, keys, n, address)
					: cmd_release(o, sys, keys, n, address);
		goto out;
	}
	if (cmd == CMD_RESIZE) {
		ret = cmd_volume_resize(o, sys, paths, n, address);
		goto out;
	}
	if (cmd == CMD_SCAN) {
		ret = cmd_attach(o, sys, db, paths, n, address);
		goto out;
	}
	sel = path_selectors(&o->address, paths, n);
	if (!sel)
		goto out;
	ret = cmd == CMD_LIST ? cmd_list(o, sys, db, sel, (int)n)
			      : cmd_scan(o, sys, db, sel, (int)n, true, NULL);
	if (cmd == CMD_LIST && keys)
		say_held_out(o, sys, keys, n, address);
out:
	free(sel);
	free(paths);
	free(keys);
	return ret;
}

int main(int argc, char **argv)
{
	enum {
		OPT_REMOVE = 256,
		OPT_FORCE,
		OPT_ATTACH_GHOSTS,
		OPT_RESIZE,
		OPT_QUIRKS_IMAGE,
		OPT_JSON,
		OPT_QUIRKS_DIR,
		OPT_QUIRKS_FILE,
		OPT_SYSFS,
		OPT_TIMEOUT,
		OPT_HOST_TIMEOUT,
		OPT_TARGET_TIMEOUT,
		OPT_TIME_LIMIT,
		OPT_WAIT,
		OPT_VERSION,
		OPT_DRY_RUN,
		OPT_VERBOSE,
		OPT_ISCSI_TARGET,
		OPT_TPGT,
		OPT_PORT_NAME,
		OPT_SAS_ADDRESS,
		OPT_LUN,
		OPT_WWID,
		OPT_DEVICE_TIMEOUT,
	};
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "attach-ghosts", no_argument, NULL, OPT_ATTACH_GHOSTS },
		{ "resize", no_argument, NULL, OPT_RESIZE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quirks-dir", required_argument, NULL, OPT_QUIRKS_DIR },
		{ "quirks-file", required_argument, NULL, OPT_QUIRKS_FILE },
		{ "quirks-image", required_argument, NULL, OPT_QUIRKS_IMAGE },
		{ "sysroot", required_argument, NULL, OPT_SYSFS },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "host-timeout", required_argument, NULL, OPT_HOST_TIMEOUT },
		{ "target-timeout", required_argument, NULL, OPT_TARGET_TIMEOUT },
		{ "time-limit", required_argument, NULL, OPT_TIME_LIMIT },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ "iscsi-target", required_argument, NULL, OPT_ISCSI_TARGET },
		{ "tpgt", required_argument, NULL, OPT_TPGT },
		{ "port-name", required_argument, NULL, OPT_PORT_NAME },
		{ "sas-address", required_argument, NULL, OPT_SAS_ADDRESS },
		{ "lun", required_argument, NULL, OPT_LUN },
		{ "wwid", required_argument, NULL, OPT_WWID },
		{ "device-timeout", required_argument, NULL, OPT_DEVICE_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	struct options o = { .scan = { .inquiry_timeout = SCAN_INQUIRY_TIMEOUT,
				       .report_luns_timeout = SCAN_REPORT_LUNS_TIMEOUT,
				       .host_timeout = SCAN_HOST_TIMEOUT_DEFAULT,
				       .target_timeout = SCAN_TARGET_TIMEOUT_DEFAULT },
			     .address = { .tpgt = -1 },
			     .device_timeout = DEVICE_TIMEOUT_DEFAULT };
#define BIT(opt) (1ull << ((opt)-OPT_REMOVE))
	/* Which options each command takes; any other is a usage error. */
	static const uint64_t database =
		BIT(OPT_QUIRKS_DIR) | BIT(OPT_QUIRKS_FILE) | BIT(OPT_QUIRKS_IMAGE);
	static const uint64_t bounds = BIT(OPT_TIMEOUT) | BIT(OPT_HOST_TIMEOUT) |
				       BIT(OPT_TARGET_TIMEOUT) | BIT(OPT_TIME_LIMIT);
	static const uint64_t address = BIT(OPT_ISCSI_TARGET) | BIT(OPT_TPGT) | BIT(OPT_PORT_NAME) |
					BIT(OPT_SAS_ADDRESS) | BIT(OPT_LUN) | BIT(OPT_WWID);
	static const struct {
		const char *name;
		uint64_t takes;
	} commands[] = {
		[CMD_SCAN] = { "scan", ~0ull & ~BIT(OPT_RESIZE) },
		[CMD_LIST] = { "list", database | address | BIT(OPT_JSON) | BIT(OPT_VERBOSE) |
					       BIT(OPT_SYSFS) },
		[CMD_EXPLAIN] = { "explain", database | bounds | address | BIT(OPT_JSON) |
						     BIT(OPT_VERBOSE) | BIT(OPT_DRY_RUN) |
						     BIT(OPT_SYSFS) },
		[CMD_RESIZE] = { "--resize", address | BIT(OPT_RESIZE) | BIT(OPT_JSON) |
						     BIT(OPT_VERBOSE) | BIT(OPT_SYSFS) },
		[CMD_WAIT] = { "wait", BIT(OPT_TIMEOUT) | BIT(OPT_VERBOSE) | BIT(OPT_SYSFS) },
		[CMD_DETACH] = { "detach", address | BIT(OPT_DRY_RUN) | BIT(OPT_FORCE) |
						   BIT(OPT_JSON) | BIT(OPT_SYSFS) },
		[CMD_RELEASE] = { "release", address | BIT(OPT_JSON) | BIT(OPT_SYSFS) },
	};
	enum command cmd = CMD_SCAN;
	uint64_t given = 0, stray;
	struct selector *sel = NULL;
	struct sysfs_ctx *sys = NULL;
	struct quirk_db *db = NULL;
	int c, r, nsel = 0, ret = EXIT_FAILURE;
	unsigned int wait_timeout = SETTLE_WAIT_DEFAULT;
	char **args;
	int nargs;

	/* "-:0:1" (any host) would be an option cluster to getopt; no option
	 * starts with "-:", so such words are marked as selectors first. */
	atexit(free_marked);
	if (mark_selectors(argc, argv) < 0) {
		fputs("scsi-scan: out of memory\n", stderr);
		return EXIT_FAILURE;
	}
	while ((c = getopt_long(argc, argv, "nvh", longopts, NULL)) != -1) {
		/* The last of two would win without a word, and the other
		 * volume would be attached or detached. */
		if (c >= OPT_REMOVE && (BIT(c) & address & given)) {
			const struct option *lo = longopts;

			while (lo->name && lo->val != c)
				lo++;
			fprintf(stderr, "scsi-scan: --%s is given twice: one volume a run\n",
				lo->name ? lo->name : "?");
			free(o.dirs);
			return EXIT_USAGE;
		}
		given |= c == 'n'	   ? BIT(OPT_DRY_RUN)
			 : c == 'v'	   ? BIT(OPT_VERBOSE)
			 : c >= OPT_REMOVE ? BIT(c)
					   : 0;
		switch (c) {
		case 'n':
			o.scan.dry_run = true;
			break;
		case OPT_REMOVE:
			o.scan.remove = true;
			break;
		case OPT_FORCE:
			o.scan.force = true;
			break;
		case OPT_ATTACH_GHOSTS:
			o.scan.attach_ghosts = true;
			break;
		case OPT_RESIZE:
			o.resize = true;
			break;
		case OPT_QUIRKS_IMAGE:
			o.image = optarg;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case OPT_QUIRKS_DIR:
			r = quirk_dir_add(&o.dirs, &o.ndirs, optarg);
			if (r < 0) {
				fprintf(stderr, "scsi-scan: --quirks-dir %s: %s\n", optarg,
					strerror(-r));
				free(o.dirs);
				return EXIT_FAILURE;
			}
			break;
		case OPT_QUIRKS_FILE: {
			const char **f = realloc(o.files, (o.nfiles + 1) * sizeof(*f));
			struct stat st;
			int e;

			if (!f)
				return EXIT_FAILURE;
			o.files = f;
			o.files[o.nfiles++] = optarg;
			e = stat(optarg, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
			if (e) {
				fprintf(stderr, "scsi-scan: --quirks-file %s: %s\n", optarg,
					e == EINVAL ? "not a regular file" : strerror(e));
				free(o.dirs);
				free(o.files);
				return EXIT_FAILURE;
			}
			break;
		}
		case OPT_SYSFS:
			o.sysroot = optarg;
			break;
		case OPT_TIMEOUT:
			/* Its range depends on the command, known after the options. */
			o.timeout = optarg;
			break;
		case OPT_HOST_TIMEOUT:
		case OPT_TARGET_TIMEOUT:
			if (parse_bound(optarg, c == OPT_HOST_TIMEOUT
							? &o.scan.host_timeout
							: &o.scan.target_timeout) < 0) {
				fprintf(stderr, "scsi-scan: --%s takes 0-86400 seconds\n",
					c == OPT_HOST_TIMEOUT ? "host-timeout" : "target-timeout");
				free(o.dirs);
				return EXIT_USAGE;
			}
			break;
		case OPT_TIME_LIMIT:
			if (parse_bound(optarg, &o.scan.time_limit) < 0) {
				fprintf(stderr, "scsi-scan: --time-limit takes 0-86400 seconds\n");
				free(o.dirs);
				return EXIT_USAGE;
			}
			break;
		case OPT_WAIT:
			o.scan.lock_wait = true;
			break;
		case OPT_ISCSI_TARGET:
		case OPT_PORT_NAME:
		case OPT_SAS_ADDRESS: {
			enum discover_transport tr = c == OPT_ISCSI_TARGET ? DISCOVER_ISCSI
						     : c == OPT_PORT_NAME  ? DISCOVER_FC
									   : DISCOVER_SAS;

			if (volume_address_set_target(&o.address, tr, optarg) < 0) {
				fprintf(stderr, "scsi-scan: --%s %s: %s\n",
					c == OPT_ISCSI_TARGET ? "iscsi-target"
					: c == OPT_PORT_NAME  ? "port-name"
							      : "sas-address",
					optarg,
					tr == DISCOVER_ISCSI
						? "not an iSCSI name (iqn., eui. or naa.)"
						: "not 16 hex digits (0x and ':' allowed)");
				free(o.dirs);
				return EXIT_USAGE;
			}
			break;
		}
		case OPT_TPGT: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno || v > 65535) {
				fputs("scsi-scan: --tpgt takes 0-65535\n", stderr);
				free(o.dirs);
				return EXIT_USAGE;
			}
			o.address.tpgt = v;
			break;
		}
		case OPT_LUN: {
			struct selector one;
			char text[64];

			snprintf(text, sizeof(text), "0:0:0:%s", optarg);
			if (strlen(optarg) > 20 || selector_parse(text, &one) < 0 || !one.lun_set ||
			    !lun_scan_writable(one.lun)) {
				fprintf(stderr,
					"scsi-scan: --lun %s: not a LUN the scan file takes\n",
					optarg);
				free(o.dirs);
				return EXIT_USAGE;
			}
			o.address.lun_set = true;
			o.address.lun = one.lun;
			break;
		}
		case OPT_WWID:
			if (volume_address_set_wwid(&o.address, optarg) < 0) {
				fputs("scsi-scan: --wwid takes a wwid such as naa.6001405...\n",
				      stderr);
				free(o.dirs);
				return EXIT_USAGE;
			}
			break;
		case OPT_DEVICE_TIMEOUT: {
			unsigned int v;

			if (parse_bound(optarg, &v) < 0 || v > 3600) {
				fputs("scsi-scan: --device-timeout takes 0-3600 seconds\n", stderr);
				free(o.dirs);
				return EXIT_USAGE;
			}
			o.device_timeout = v;
			break;
		}
		case 'h':
			usage(stdout);
			free(o.dirs);
			return EXIT_SUCCESS;
		case OPT_VERSION:
			puts("scsi-scan " PROJECT_VERSION);
			free(o.dirs);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			free(o.dirs);
			return EXIT_USAGE;
		}
	}
	args = argv + optind;
	nargs = argc - optind;
	ret = EXIT_USAGE;
	if (nargs && strcmp(args[0], "list") == 0) {
		cmd = CMD_LIST;
		args++;
		nargs--;
	} else if (nargs && strcmp(args[0], "explain") == 0) {
		cmd = CMD_EXPLAIN;
		args++;
		nargs--;
		if (nargs != 1 &&
		    !(nargs == 0 && (given & (BIT(OPT_ISCSI_TARGET) | BIT(OPT_PORT_NAME) |
					      BIT(OPT_SAS_ADDRESS) | BIT(OPT_WWID))))) {
			fputs("scsi-scan: explain takes one selector, e.g. 0:0:1, or an address\n",
			      stderr);
			goto out;
		}
	} else if (nargs && strcmp(args[0], "wait") == 0) {
		cmd = CMD_WAIT;
		args++;
		nargs--;
		if (nargs) {
			fputs("scsi-scan: wait takes no selector\n", stderr);
			goto out;
		}
	} else if (nargs && strcmp(args[0], "scan") == 0) {
		args++;
		nargs--;
	} else if (nargs && (strcmp(args[0], "detach") == 0 || strcmp(args[0], "release") == 0)) {
		cmd = args[0][0] == 'd' ? CMD_DETACH : CMD_RELEASE;
		args++;
		nargs--;
	}
	{
		uint64_t targets = !!(given & BIT(OPT_ISCSI_TARGET)) +
				   !!(given & BIT(OPT_PORT_NAME)) +
				   !!(given & BIT(OPT_SAS_ADDRESS)) + !!(given & BIT(OPT_WWID));
		const char *bad = NULL;

		o.has_address = targets > 0;
		if (targets > 1)
			bad = "give one of --iscsi-target, --port-name, --sas-address and --wwid";
		else if ((given & BIT(OPT_TPGT)) && !(given & BIT(OPT_ISCSI_TARGET)))
			bad = "--tpgt goes with --iscsi-target";
		else if ((given & BIT(OPT_LUN)) && (!targets || (given & BIT(OPT_WWID))))
			bad = "--lun goes with --iscsi-target, --port-name or --sas-address";
		else if ((given & BIT(OPT_DEVICE_TIMEOUT)) && !targets)
			bad = "--device-timeout goes with an address";
		else if (o.has_address && nargs)
			bad = "an address and selectors do not go together";
		else if ((cmd == CMD_DETACH || cmd == CMD_RELEASE) &&
			 (!o.has_address || nargs ||
			  (o.address.transport != DISCOVER_PROBE && !o.address.lun_set)))
			bad = "detach and release take one volume: an address with --lun, or "
			      "--wwid";
		if (bad) {
			fprintf(stderr, "scsi-scan: %s\n", bad);
			goto out;
		}
	}
	if (o.resize && cmd != CMD_SCAN) {
		fprintf(stderr, "scsi-scan: --resize does not go with %s\n", commands[cmd].name);
		goto out;
	}
	if (o.resize)
		cmd = CMD_RESIZE;
	stray = given & ~commands[cmd].takes;
	for (const struct option *lo = longopts; stray && lo->name; lo++) {
		int bit = lo->val == 'n' ? OPT_DRY_RUN : lo->val == 'v' ? OPT_VERBOSE : lo->val;

		if (bit < OPT_REMOVE || !(stray & BIT(bit)))
			continue;
		fprintf(stderr, "scsi-scan: --%s does not apply to %s\n", lo->name,
			commands[cmd].name);
		goto out;
	}
#undef BIT
	if (o.timeout && cmd == CMD_WAIT) {
		if (parse_bound(o.timeout, &wait_timeout) < 0) {
			fputs("scsi-scan: wait --timeout takes 0-86400 seconds\n", stderr);
			goto out;
		}
	} else if (o.timeout) {
		char *end;
		unsigned long t = strtoul(o.timeout, &end, 10);

		if (*o.timeout < '0' || *o.timeout > '9' || *end || t == 0 || t > 3600) {
			fputs("scsi-scan: --timeout takes 1-3600 seconds\n", stderr);
			goto out;
		}
		o.scan.inquiry_timeout = o.scan.report_luns_timeout = (unsigned int)t;
	}
	if (o.scan.force && !o.scan.remove && cmd != CMD_DETACH) {
		fputs("scsi-scan: --force only goes with --remove or detach\n", stderr);
		goto out;
	}
	if (parse_selectors(args, nargs, &sel, &nsel) < 0) {
		nargs = 0;
		goto out;
	}
	ret = EXIT_FAILURE;
	if (o.scan.time_limit)
		o.scan.deadline_ms = scan_now_ms() + (uint64_t)o.scan.time_limit * 1000;
	if (o.sysroot && !is_dir(o.sysroot)) {
		fprintf(stderr, "scsi-scan: --sysroot %s: %s\n", o.sysroot, strerror(errno));
		goto out;
	}
	sys = sysfs_new(o.sysroot);
	if (cmd == CMD_WAIT) {
		ret = sys ? cmd_wait(&o, sys, wait_timeout) : EXIT_FAILURE;
		goto out;
	}
	/* A rescan for the capacity, a detach or a release needs no quirk
	 * database. */
	db = o.resize || cmd == CMD_DETACH || cmd == CMD_RELEASE ? NULL : load_quirks(&o);
	if (!sys || (!db && !o.resize && cmd != CMD_DETACH && cmd != CMD_RELEASE))
		goto out;
	if (o.has_address)
		ret = run_address(&o, cmd, sys, db);
	else if (cmd == CMD_RESIZE)
		ret = cmd_resize(&o, sys, sel, nsel);
	else if (cmd == CMD_LIST)
		ret = cmd_list(&o, sys, db, sel, nsel);
	else
		ret = cmd_scan(&o, sys, db, sel, nsel, cmd == CMD_EXPLAIN, NULL);
out:
	if (nargs)
		free(sel);
	quirk_db_free(db);
	sysfs_free(sys);
	free(o.dirs);
	free(o.files);
	return ret;
}
