// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-quirks - quirk database load time and lookup rate, against a plain
 * linear list walked the way the kernel walks scsi_dev_info_list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quirks.h"

struct linear_entry {
	char vendor[9];
	char model[17];
	uint64_t flags;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* scsi_dev_info_list_find() for compatible entries: the device's fields
 * come trimmed; vendor exact, model prefix, first match wins. */
static uint64_t linear_lookup(const struct linear_entry *list, size_t n, const char *vendor,
			      const char *model)
{
	size_t vlen = strlen(vendor), mlen = strlen(model);

	for (size_t i = 0; i < n; i++) {
		const struct linear_entry *e = &list[i];
		size_t elen = strlen(e->model);

		if (vlen != strlen(e->vendor) || memcmp(e->vendor, vendor, vlen))
			continue;
		if (mlen < elen || memcmp(e->model, model, elen))
			continue;
		return e->flags;
	}
	return 0;
}

static struct linear_entry *linear_from_db(const struct quirk_db *db, size_t *ret_n)
{
	size_t n = quirk_db_count(db);
	struct linear_entry *list = calloc(n, sizeof(*list));

	for (size_t i = 0; list && i < n; i++) {
		const struct quirk_entry *e = quirk_db_entry(db, i);

		snprintf(list[i].vendor, sizeof(list[i].vendor), "%s", e->vendor);
		snprintf(list[i].model, sizeof(list[i].model), "%s", e->model);
		list[i].flags = e->flags;
	}
	*ret_n = n;
	return list;
}

static char *synthetic_text(size_t n, size_t *ret_len)
{
	size_t alloc = n * 128 + 1, len = 0;
	char *buf = malloc(alloc);

	for (size_t i = 0; buf && i < n; i++)
		len += snprintf(buf + len, alloc - len,
				"device \"s%zu\" {\n vendor = \"V%05zu\"\n model = \"MODEL-%zu\"\n"
				" flags = {\"sparselun\", \"notq\"}\n}\n",
				i, i % 2500, i);
	*ret_len = len;
	return buf;
}

struct result {
	double load_ms;
	double ns_per_lookup;
	double linear_ns_per_lookup;
};

static int run_lookups(const struct quirk_db *db, struct result *res)
{
	size_t n = quirk_db_count(db), nl, rounds = 0;
	struct linear_entry *list = linear_from_db(db, &nl);
	const size_t lookups = 200000;
	volatile uint64_t sink = 0;
	double t0, t1;

	if (!list || n == 0)
		return -ENOMEM;
	t0 = now();
	for (size_t i = 0; i < lookups; i++) {
		/* every fourth lookup misses, as most devices do */
		const struct quirk_entry *e = quirk_db_entry(db, (i * 7919) % n);
		struct quirk_device dev = { .vendor = e->vendor,
					    .model = (i & 3) ? e->model : "NOT-LISTED",
					    .type = 0 };
		struct quirk_match m;

		if (quirk_db_match(db, &dev, &m) < 0)
			return -ENOMEM;
		sink += m.flags;
		quirk_match_clear(&m);
	}
	t1 = now();
	res->ns_per_lookup = (t1 - t0) * 1e9 / lookups;
	t0 = now();
	for (size_t i = 0; i < lookups / 10; i++, rounds++) {
		const struct quirk_entry *e = quirk_db_entry(db, (i * 7919) % n);

		sink += linear_lookup(list, nl, e->vendor, (i & 3) ? e->model : "NOT-LISTED");
	}
	t1 = now();
	res->linear_ns_per_lookup = (t1 - t0) * 1e9 / rounds;
	free(list);
	(void)sink;
	return 0;
}

static int bench_dir(const char *dir, struct result *res)
{
	const char *dirs[] = { dir };
	double times[21];
	struct quirk_db *db = NULL;
	int r;

	for (size_t i = 0; i < 21; i++) {
		struct quirk_diags d = { 0 };
		double t0 = now();

		r = quirk_db_load(dirs, 1, &d, &db);
		times[i] = (now() - t0) * 1e3;
		quirk_diags_clear(&d);
		if (r < 0)
			return r;
		if (i < 20)
			quirk_db_free(db);
	}
	res->load_ms = median(times, 21);
	r = run_lookups(db, res);
	quirk_db_free(db);
	return r;
}

static int bench_synthetic(size_t n, struct result *res)
{
	size_t len;
	char *text = synthetic_text(n, &len);
	struct quirk_db *db = NULL;
	double times[5];
	int r = 0;

	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < 5; i++) {
		struct quirk_diags d = { 0 };
		double t0 = now();

		db = quirk_db_new();
		r = quirk_db_add_buffer(db, "synthetic.conf", text, len, &d);
		if (r == 0)
			r = quirk_db_finalize(db, &d);
		times[i] = (now() - t0) * 1e3;
		quirk_diags_clear(&d);
		if (r < 0)
			break;
		if (i < 4)
			quirk_db_free(db);
	}
	free(text);
	if (r < 0) {
		quirk_db_free(db);
		return r;
	}
	res->load_ms = median(times, 5);
	r = run_lookups(db, res);
	quirk_db_free(db);
	return r;
}

static void print_row(const char *name, size_t entries, const struct result *r)
{
	printf("%-22s %8zu %10.3f %12.1f %12.1f %8.3f\n", name, entries, r->load_ms,
	       r->ns_per_lookup, r->linear_ns_per_lookup,
	       r->ns_per_lookup / r->linear_ns_per_lookup);
}

int main(int argc, char **argv)
{
	struct result shipped, synth;
	int r;

	if (argc != 2) {
		fputs("usage: bench-quirks QUIRKS_DIR\n", stderr);
		return 2;
	}
	r = bench_dir(argv[1], &shipped);
	if (r == 0)
		r = bench_synthetic(10000, &synth);
	if (r < 0) {
		fprintf(stderr, "bench-quirks: %s\n", strerror(-r));
		return 1;
	}
	printf("%-22s %8s %10s %12s %12s %8s\n", "database", "entries", "load ms", "ns/lookup",
	       "linear ns", "ratio");
	print_row("shipped quirks.d", 183, &shipped);
	print_row("synthetic", 10000, &synth);
	printf("\ntargets: shipped load < 2 ms (%s), lookup with 10,000 entries < 1000 ns (%s)\n",
	       shipped.load_ms < 2 ? "met" : "MISSED",
	       synth.ns_per_lookup < 1000 ? "met" : "MISSED");
	printf("ratio = our lookup time / linear list lookup time (below 1: faster)\n");
	return 0;
}
