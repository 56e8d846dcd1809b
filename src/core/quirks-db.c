// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quirks-db.c - quirks.d precedence, the merged database, its index, lookup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "quirks-internal.h"

#ifndef QUIRKS_SHIPPED_DIR
#define QUIRKS_SHIPPED_DIR "/usr/lib/scsi-scan/quirks.d"
#endif
#ifndef QUIRKS_ETC_DIR
#define QUIRKS_ETC_DIR "/etc/scsi-scan/quirks.d"
#endif
#define QUIRKS_RUN_DIR "/run/scsi-scan/quirks.d"

/* A quirk file this large is a mistake, not a database. */
#define QUIRK_FILE_MAX (256u << 20)

struct quirk_db *quirk_db_new(void)
{
	struct quirk_db *db = calloc(1, sizeof(struct quirk_db));

	if (db)
		atomic_init(&db->refs, 1);
	return db;
}

struct quirk_db *quirk_db_ref(struct quirk_db *db)
{
	if (db)
		atomic_fetch_add(&db->refs, 1);
	return db;
}

struct quirk_db *quirk_db_unref(struct quirk_db *db)
{
	if (!db || atomic_fetch_sub(&db->refs, 1) > 1)
		return NULL;
	for (size_t i = 0; i < db->count; i++)
		quirk_entry_free(&db->entries[i]);
	for (size_t i = 0; i < db->nbuckets; i++)
		free(db->buckets[i].idx);
	free(db->buckets);
	free(db->glob_idx);
	free(db->entries);
	for (size_t i = 0; i < db->nmasks; i++)
		lunmask_entry_free(&db->masks[i]);
	free(db->masks);
	for (size_t i = 0; i < db->nsources; i++)
		free(db->sources[i].path);
	free(db->sources);
	free(db);
	return NULL;
}

void quirk_db_free(struct quirk_db *db)
{
	quirk_db_unref(db);
}

size_t quirk_db_count(const struct quirk_db *db)
{
	return db->count;
}

const struct quirk_entry *quirk_db_entry(const struct quirk_db *db, size_t i)
{
	return i < db->count ? &db->entries[i] : NULL;
}

const struct lunmask_entry *quirk_db_lunmasks(const struct quirk_db *db, size_t *ret_count)
{
	*ret_count = db->nmasks;
	return db->masks;
}

int quirk_db_add_buffer(struct quirk_db *db, const char *name, const char *buf, size_t len,
			struct quirk_diags *diags)
{
	struct quirk_parsed p = { 0 };
	int r;

	if (db->finalized)
		return -EBUSY;
	r = quirk_parse_buffer(name, buf, len, diags, &p);
	if (r < 0)
		return r;
	return quirk_db_append(db, &p);
}

int quirk_db_append(struct quirk_db *db, struct quirk_parsed *p_in)
{
	struct quirk_parsed p = *p_in;

	memset(p_in, 0, sizeof(*p_in));
	if (db->count + p.count > db->alloc) {
		size_t n = db->alloc ? db->alloc : 64;
		struct quirk_entry *e;

		while (n < db->count + p.count)
			n *= 2;
		e = realloc(db->entries, n * sizeof(*e));
		if (!e)
			goto nomem;
		db->entries = e;
		db->alloc = n;
	}
	if (db->nmasks + p.nmasks > db->masks_alloc) {
		size_t n = db->masks_alloc ? db->masks_alloc : 8;
		struct lunmask_entry *m;

		while (n < db->nmasks + p.nmasks)
			n *= 2;
		m = realloc(db->masks, n * sizeof(*m));
		if (!m)
			goto nomem;
		db->masks = m;
		db->masks_alloc = n;
	}
	for (size_t i = 0; i < p.count; i++) {
		p.entries[i].seq = db->count;
		db->entries[db->count++] = p.entries[i];
	}
	for (size_t i = 0; i < p.nmasks; i++)
		db->masks[db->nmasks++] = p.masks[i];
	free(p.entries);
	free(p.masks);
	return 0;
nomem:
	for (size_t i = 0; i < p.count; i++)
		quirk_entry_free(&p.entries[i]);
	for (size_t i = 0; i < p.nmasks; i++)
		lunmask_entry_free(&p.masks[i]);
	free(p.entries);
	free(p.masks);
	return -ENOMEM;
}

/*
 * The daemon runs as root and acts on these files: one that someone else
 * could have written is refused: owned by root or by the user running us,
 * not writable by others, and writable by its group only if that group is
 * root's or ours.
 */
static const char *unsafe_owner(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "owned by another user";
	if (st->st_mode & S_IWOTH)
		return "writable by anyone";
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0 && st->st_gid != getegid())
		return "writable by another group";
	return NULL;
}

static int read_file(const char *path, char **ret_buf, size_t *ret_len)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	struct stat st;
	int fd, r;

	/* Non-blocking: a FIFO or a device node must not hang the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		r = -EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -ENOTSUP;
		goto fail;
	}
	if (unsafe_owner(&st)) {
		r = -EPERM;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (len == alloc) {
			char *p;

			if (alloc >= QUIRK_FILE_MAX) {
				r = -EFBIG;
				goto fail;
			}
			alloc = alloc ? alloc * 2 : 16384;
			p = realloc(buf, alloc + 1);
			if (!p) {
				r = -ENOMEM;
				goto fail;
			}
			buf = p;
		}
		n = read(fd, buf + len, alloc - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	return 0;
fail:
	free(buf);
	close(fd);
	return r;
}

struct cached_file {
	char *path;
	char *text;
	size_t len;
};

struct quirk_cache {
	struct cached_file *files;
	size_t count;
};

struct quirk_cache *quirk_cache_new(void)
{
	return calloc(1, sizeof(struct quirk_cache));
}

void quirk_cache_free(struct quirk_cache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < cache->count; i++) {
		free(cache->files[i].path);
		free(cache->files[i].text);
	}
	free(cache->files);
	free(cache);
}

static struct cached_file *cache_find(struct quirk_cache *cache, const char *path)
{
	for (size_t i = 0; cache && i < cache->count; i++)
		if (strcmp(cache->files[i].path, path) == 0)
			return &cache->files[i];
	return NULL;
}

/* Takes ownership of @text. */
static int cache_store(struct quirk_cache *cache, const char *path, char *text, size_t len)
{
	struct cached_file *f = cache_find(cache, path);

	if (!f) {
		f = realloc(cache->files, (cache->count + 1) * sizeof(*f));
		if (!f) {
			free(text);
			return -ENOMEM;
		}
		cache->files = f;
		f = &cache->files[cache->count];
		f->path = strdup(path);
		if (!f->path) {
			free(text);
			return -ENOMEM;
		}
		f->text = NULL;
		cache->count++;
	}
	free(f->text);
	f->text = text;
	f->len = len;
	return 0;
}

/* A file that could not be read, in words. Return: @r, or -ENOMEM. */
static int read_error(const char *path, int r, struct quirk_diags *diags)
{
	int d;

	if (r == -EPERM)
		d = quirk_diag_add(diags, QUIRK_ERROR, path, 0,
				   "file refused: owned by another user, or writable by others");
	else if (r == -ENOTSUP)
		d = quirk_diag_add(diags, QUIRK_ERROR, path, 0,
				   "file refused: not a regular file (a FIFO, socket or device)");
	else
		d = quirk_diag_add(diags, QUIRK_ERROR, path, 0, "cannot read: %s", strerror(-r));
	return d < 0 ? -ENOMEM : r;
}

/* Parses @buf, which it takes; a broken file falls back to the version in
 * @cache that last loaded. */
static int add_file_buffer(struct quirk_db *db, const char *path, char *buf, size_t len,
			   struct quirk_cache *cache, struct quirk_diags *diags)
{
	struct cached_file *old;
	int r;

	r = quirk_db_add_buffer(db, path, buf, len, diags);
	if (r == 0 && cache)
		return cache_store(cache, path, buf, len);
	free(buf);
	old = r == -EINVAL ? cache_find(cache, path) : NULL;
	if (!old)
		return r;
	r = quirk_diag_add(diags, QUIRK_NOTICE, path, 0,
			   "has errors: keeping the version that last loaded");
	if (r < 0)
		return r;
	return quirk_db_add_buffer(db, path, old->text, old->len, diags);
}

static int add_file_cached(struct quirk_db *db, const char *path, struct quirk_cache *cache,
			   struct quirk_diags *diags)
{
	size_t len = 0;
	char *buf = NULL;
	int r;

	r = read_file(path, &buf, &len);
	if (r < 0)
		return read_error(path, r, diags);
	return add_file_buffer(db, path, buf, len, cache, diags);
}

int quirk_db_add_file(struct quirk_db *db, const char *path, struct quirk_diags *diags)
{
	return add_file_cached(db, path, NULL, diags);
}

struct dir_file {
	char *name;
	char *path;
};

static int dir_file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dir_file *)a)->name, ((const struct dir_file *)b)->name);
}

static bool is_masked(const char *path)
{
	static const char devnull[] = "/dev/null";
	char target[sizeof(devnull) + 1];
	struct stat st;
	ssize_t n;

	n = readlink(path, target, sizeof(target));
	if (n == (ssize_t)sizeof(devnull) - 1 && memcmp(target, devnull, n) == 0)
		return true;
	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	       minor(st.st_rdev) == 3;
}

static bool is_conf_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* Records each *.conf of one directory, replacing same-named ones. */
static int collect_dir(const char *dir, struct dir_file **files, size_t *count,
		       struct quirk_diags *diags)
{
	struct dirent *de;
	struct stat st;
	const char *why;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return quirk_diag_add(diags, QUIRK_ERROR, dir, 0, "cannot open directory: %s",
				      strerror(errno));
	}
	if (fstat(dirfd(d), &st) == 0 && (why = unsafe_owner(&st))) {
		closedir(d);
		return quirk_diag_add(diags, QUIRK_ERROR, dir, 0,
				      "directory refused: %s (mode %04o, uid %u)", why,
				      (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid);
	}
	while ((de = readdir(d))) {
		struct dir_file *f = NULL;
		char *path;

		if (!is_conf_name(de->d_name))
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < *count; i++)
			if (strcmp((*files)[i].name, de->d_name) == 0)
				f = &(*files)[i];
		if (f) {
			free(f->path);
			f->path = path;
			continue;
		}
		f = realloc(*files, (*count + 1) * sizeof(*f));
		if (!f) {
			free(path);
			r = -ENOMEM;
			break;
		}
		*files = f;
		f[*count].path = path;
		f[*count].name = strdup(de->d_name);
		if (!f[*count].name) {
			free(path);
			r = -ENOMEM;
			break;
		}
		(*count)++;
	}
	closedir(d);
	return r;
}

uint64_t quirk_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int quirk_source_look(const char *path, bool is_dir, struct quirk_source *ret)
{
	uint64_t h = QUIRK_HASH_INIT;
	char **names = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	ret->is_dir = is_dir;
	if (!is_dir) {
		char *buf = NULL;
		size_t len = 0;

		if (read_file(path, &buf, &len) < 0)
			return 0;
		ret->exists = true;
		ret->hash = quirk_hash(h, buf, len);
		free(buf);
		return 0;
	}
	d = opendir(path);
	if (!d)
		return 0;
	ret->exists = true;
	while ((de = readdir(d))) {
		char **p;

		if (!is_conf_name(de->d_name))
			continue;
		p = realloc(names, (n + 1) * sizeof(*p));
		if (!p || !(p[n] = strdup(de->d_name))) {
			free(p ? p : names);
			names = p;
			r = -ENOMEM;
			break;
		}
		names = p;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (r == 0)
			h = quirk_hash(h, names[i], strlen(names[i]) + 1);
		free(names[i]);
	}
	free(names);
	ret->hash = h;
	return r;
}

/* Records a source as it is now, or, for a file read already, as the bytes
 * @buf that were parsed (@len; @buf NULL: the file could not be read). */
static int add_source(struct quirk_db *db, const char *path, bool is_dir, const char *buf,
		      size_t len)
{
	struct quirk_source *s = realloc(db->sources, (db->nsources + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	db->sources = s;
	s = &db->sources[db->nsources];
	if (is_dir || is_masked(path)) {
		if (quirk_source_look(path, is_dir, s) < 0)
			return -ENOMEM;
	} else {
		memset(s, 0, sizeof(*s));
		s->exists = buf != NULL;
		s->hash = buf ? quirk_hash(QUIRK_HASH_INIT, buf, len) : 0;
	}
	s->path = strdup(path);
	if (!s->path)
		return -ENOMEM;
	db->nsources++;
	return 0;
}

/*
 * One file of a directory: read once, and the bytes read are both what is
 * parsed and what its source records. Read twice (once to hash, once to
 * parse), a file rewritten in between left an image that looked current
 * forever but lacked that file's entries.
 */
static int add_dir_file(struct quirk_db *db, const char *path, struct quirk_cache *cache,
			struct quirk_diags *diags)
{
	size_t len = 0;
	char *buf = NULL;
	int r;

	if (is_masked(path))
		return add_source(db, path, false, NULL, 0);
	r = read_file(path, &buf, &len);
	if (add_source(db, path, false, r < 0 ? NULL : buf, len) < 0) {
		free(buf);
		return -ENOMEM;
	}
	if (r < 0)
		return read_error(path, r, diags);
	return add_file_buffer(db, path, buf, len, cache, diags);
}

static int add_dirs(struct quirk_db *db, const char *const *dirs, size_t ndirs,
		    struct quirk_cache *cache, struct quirk_diags *diags)
{
	struct dir_file *files = NULL;
	size_t count = 0;
	int r = 0;

	/* Each directory as it is before it is read: a file added while it
	 * is makes a later image stale rather than wrong. */
	for (size_t i = 0; i < ndirs && r == 0; i++)
		r = add_source(db, dirs[i], true, NULL, 0);
	for (size_t i = 0; i < ndirs && r == 0; i++)
		r = collect_dir(dirs[i], &files, &count, diags);
	if (r == 0 && count)
		qsort(files, count, sizeof(*files), dir_file_cmp);
	for (size_t i = 0; i < count && r == 0; i++) {
		r = add_dir_file(db, files[i].path, cache, diags);
		/* A broken or unreadable file is skipped whole; the rest loads. */
		if (r != -ENOMEM)
			r = 0;
	}
	for (size_t i = 0; i < count; i++) {
		free(files[i].name);
		free(files[i].path);
	}
	free(files);
	return r;
}

bool quirk_db_refuses_per_lun(const struct quirk_db *db)
{
	return db->refuses_by_type;
}

int quirk_dir_add(const char ***dirs, size_t *ndirs, const char *dir)
{
	const char **p;
	struct stat st;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	p = realloc(*dirs, (*ndirs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	p[(*ndirs)++] = dir;
	*dirs = p;
	return 0;
}

int quirk_db_add_dirs(struct quirk_db *db, const char *const *dirs, size_t ndirs,
		      struct quirk_diags *diags)
{
	return add_dirs(db, dirs, ndirs, NULL, diags);
}

/* qsort_r comparators over entry indices; @base is the entry array. */
static int cmp_vendor_seq(const void *a, const void *b, void *base)
{
	const struct quirk_entry *x = (const struct quirk_entry *)base + *(const size_t *)a;
	const struct quirk_entry *y = (const struct quirk_entry *)base + *(const size_t *)b;
	int c = strcmp(x->vendor, y->vendor);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_model(const void *a, const void *b, void *base)
{
	const struct quirk_entry *x = (const struct quirk_entry *)base + *(const size_t *)a;
	const struct quirk_entry *y = (const struct quirk_entry *)base + *(const size_t *)b;

	return strcmp(x->model, y->model);
}

static bool flag_ops(const struct quirk_entry *e)
{
	return e->sets_flags || e->add_flags || e->drop_flags;
}

/* Does later entry @b apply to every device @a applies to, and replace
 * everything @a sets? */
static bool shadows(const struct quirk_entry *b, const struct quirk_entry *a)
{
	if (b->seq <= a->seq)
		return false;
	if (b->revision && (!a->revision || a->revision_glob || b->revision_glob ||
			    strcmp(a->revision, b->revision) != 0))
		return false;
	if (b->type >= 0 && b->type != a->type)
		return false;
	if (flag_ops(a) && !b->sets_flags)
		return false;
	if (a->max_lun >= 0 && b->max_lun < 0)
		return false;
	if (a->attach >= 0 && b->attach < 0)
		return false;
	if (a->handler && !b->handler)
		return false;
	return flag_ops(a) || a->max_lun >= 0 || a->attach >= 0 || a->handler;
}

/* The range of the model-sorted @idx whose literal model is exactly @prefix. */
static void model_range(const struct quirk_entry *entries, const size_t *idx, size_t n,
			const char *prefix, size_t *lo, size_t *hi)
{
	size_t l = 0, h = n;

	while (l < h) {
		size_t m = (l + h) / 2;

		if (strcmp(entries[idx[m]].model, prefix) < 0)
			l = m + 1;
		else
			h = m;
	}
	*lo = l;
	while (l < n && strcmp(entries[idx[l]].model, prefix) == 0)
		l++;
	*hi = l;
}

static int warn_shadowed(struct quirk_db *db, const struct vendor_bucket *b,
			 struct quirk_diags *diags)
{
	size_t *idx, n = 0;
	int r = 0;

	idx = malloc(b->count * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < b->count; i++)
		if (!db->entries[b->idx[i]].model_glob)
			idx[n++] = b->idx[i];
	qsort_r(idx, n, sizeof(*idx), cmp_model, db->entries);
	for (size_t i = 0; i < n && r == 0; i++) {
		const struct quirk_entry *a = &db->entries[idx[i]];
		const struct quirk_entry *by = NULL;
		size_t mlen = strlen(a->model);
		char *prefix = strdup(a->model);

		if (!prefix) {
			r = -ENOMEM;
			break;
		}
		/* Only an entry whose model is a prefix of ours can cover us. */
		for (size_t len = 0; len <= mlen && !by; len++) {
			size_t lo, hi;

			prefix[len] = '\0';
			model_range(db->entries, idx, n, prefix, &lo, &hi);
			prefix[len] = a->model[len];
			for (size_t k = lo; k < hi && !by; k++)
				if (shadows(&db->entries[idx[k]], a))
					by = &db->entries[idx[k]];
		}
		free(prefix);
		if (by)
			r = quirk_diag_add(
				diags, QUIRK_WARNING, a->file, a->line,
				"device '%s' is shadowed by '%s' at %s:%u, which matches "
				"the same devices and replaces all it sets",
				a->title, by->title, by->file, by->line);
	}
	free(idx);
	return r;
}

static int cmp_bucket_nocase(const void *a, const void *b)
{
	const struct vendor_bucket *x = *(const struct vendor_bucket *const *)a;
	const struct vendor_bucket *y = *(const struct vendor_bucket *const *)b;
	int c = strcasecmp(x->vendor, y->vendor);

	return c ? c : strcmp(x->vendor, y->vendor);
}

static int warn_case_vendors(struct quirk_db *db, struct quirk_diags *diags)
{
	const struct vendor_bucket **v;
	int r = 0;

	if (db->nbuckets < 2)
		return 0;
	v = malloc(db->nbuckets * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < db->nbuckets; i++)
		v[i] = &db->buckets[i];
	qsort(v, db->nbuckets, sizeof(*v), cmp_bucket_nocase);
	for (size_t i = 1; i < db->nbuckets && r == 0; i++) {
		const struct quirk_entry *a = &db->entries[v[i - 1]->idx[0]];
		const struct quirk_entry *b = &db->entries[v[i]->idx[0]];

		if (strcasecmp(a->vendor, b->vendor) != 0)
			continue;
		if (a->seq > b->seq) {
			const struct quirk_entry *t = a;

			a = b;
			b = t;
		}
		r = quirk_diag_add(diags, QUIRK_WARNING, b->file, b->line,
				   "vendor '%s' differs from '%s' (%s:%u) only by case; matching "
				   "is case-sensitive",
				   b->vendor, a->vendor, a->file, a->line);
	}
	free(v);
	return r;
}

int quirk_db_finalize(struct quirk_db *db, struct quirk_diags *diags)
{
	size_t *idx, n = 0;
	int r = 0;

	if (db->finalized)
		return 0;
	idx = malloc((db->count + 1) * sizeof(*idx));
	db->glob_idx = malloc((db->count + 1) * sizeof(*db->glob_idx));
	if (!idx || !db->glob_idx) {
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < db->count; i++) {
		if (db->entries[i].vendor_glob)
			db->glob_idx[db->nglob++] = i;
		else
			idx[n++] = i;
	}
	qsort_r(idx, n, sizeof(*idx), cmp_vendor_seq, db->entries);
	/* At most one bucket per entry. */
	db->buckets = calloc(n + 1, sizeof(*db->buckets));
	if (!db->buckets) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n;) {
		struct vendor_bucket *b;
		size_t j = i;

		while (j < n && strcmp(db->entries[idx[j]].vendor, db->entries[idx[i]].vendor) == 0)
			j++;
		b = &db->buckets[db->nbuckets];
		b->vendor = db->entries[idx[i]].vendor;
		b->count = j - i;
		b->idx = malloc(b->count * sizeof(*b->idx));
		if (!b->idx) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(b->idx, idx + i, b->count * sizeof(*b->idx));
		db->nbuckets++;
		i = j;
	}
	for (size_t k = 0; k < db->count; k++)
		if (db->entries[k].attach == 0 &&
		    (db->entries[k].type >= 0 || db->entries[k].revision))
			db->refuses_by_type = true;
	db->finalized = true;
	for (size_t i = 0; i < db->nbuckets && r == 0; i++)
		r = warn_shadowed(db, &db->buckets[i], diags);
	if (r == 0)
		r = warn_case_vendors(db, diags);
out:
	free(idx);
	return r;
}

static bool field_matches(const char *pattern, bool glob, const char *value)
{
	if (glob)
		return fnmatch(pattern, value, 0) == 0;
	return strcmp(pattern, value) == 0;
}

bool quirk_entry_matches(const struct quirk_entry *e, const struct quirk_device *dev)
{
	if (!field_matches(e->vendor, e->vendor_glob, dev->vendor ? dev->vendor : ""))
		return false;
	if (e->model_glob) {
		if (fnmatch(e->model, dev->model ? dev->model : "", 0) != 0)
			return false;
	} else if (strncmp(dev->model ? dev->model : "", e->model, strlen(e->model)) != 0) {
		return false;
	}
	if (e->revision &&
	    (!dev->revision || !field_matches(e->revision, e->revision_glob, dev->revision)))
		return false;
	return e->type < 0 || e->type == dev->type;
}

void quirk_match_clear(struct quirk_match *match)
{
	free(match->sources);
	memset(match, 0, sizeof(*match));
}

const struct vendor_bucket *quirk_db_bucket(const struct quirk_db *db, const char *vendor)
{
	size_t lo = 0, hi = db->nbuckets;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(db->buckets[mid].vendor, vendor);

		if (c == 0)
			return &db->buckets[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct quirk_device quirk_device_from_inquiry(const struct inquiry *inq)
{
	return (struct quirk_device){
		.vendor = inq->vendor,
		.model = inq->model,
		.revision = inq->revision,
		.type = inq->pdt,
	};
}

int quirk_db_match(const struct quirk_db *db, const struct quirk_device *dev,
		   struct quirk_match *ret)
{
	const struct vendor_bucket *b;
	struct quirk_match m = { .max_lun = -1, .attach = true };
	size_t nb, i = 0, g = 0, alloc = 0;

	if (!db->finalized)
		return -EINVAL;
	b = quirk_db_bucket(db, dev->vendor ? dev->vendor : "");
	nb = b ? b->count : 0;
	/* Both lists are in database order; merge them so entries apply in it. */
	while (i < nb || g < db->nglob) {
		const struct quirk_entry *e;

		if (g >= db->nglob || (i < nb && b->idx[i] < db->glob_idx[g]))
			e = &db->entries[b->idx[i++]];
		else
			e = &db->entries[db->glob_idx[g++]];
		if (!quirk_entry_matches(e, dev))
			continue;
		if (m.count == alloc) {
			const struct quirk_entry **p;

			alloc = alloc ? alloc * 2 : 4;
			p = realloc(m.sources, alloc * sizeof(*p));
			if (!p) {
				free(m.sources);
				return -ENOMEM;
			}
			m.sources = p;
		}
		m.sources[m.count++] = e;
		if (e->sets_flags)
			m.flags = e->flags;
		m.flags = (m.flags | e->add_flags) & ~e->drop_flags;
		if (e->max_lun >= 0)
			m.max_lun = e->max_lun;
		if (e->attach >= 0)
			m.attach = e->attach;
		if (e->handler) {
			m.handler = e->handler;
			m.handler_source = e;
		}
	}
	*ret = m;
	return 0;
}

int quirk_search_path(const char *root, char ***ret_dirs, size_t *ret_count)
{
	static const char *const defaults[] = { QUIRKS_SHIPPED_DIR, QUIRKS_ETC_DIR,
						QUIRKS_RUN_DIR };
	const size_t n = sizeof(defaults) / sizeof(defaults[0]);
	char **dirs;
	size_t rl;

	if (!root)
		root = "";
	rl = strlen(root);
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	dirs = calloc(n + 1, sizeof(*dirs));
	if (!dirs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&dirs[i], "%.*s%s", (int)rl, root, defaults[i]) < 0) {
			dirs[i] = NULL;
			quirk_search_path_free(dirs);
			return -ENOMEM;
		}
	}
	*ret_dirs = dirs;
	*ret_count = n;
	return 0;
}

void quirk_search_path_free(char **dirs)
{
	if (!dirs)
		return;
	for (size_t i = 0; dirs[i]; i++)
		free(dirs[i]);
	free(dirs);
}

int quirk_db_load_cached(const char *const *dirs, size_t ndirs, struct quirk_cache *cache,
			 struct quirk_diags *diags, struct quirk_db **ret_db)
{
	struct quirk_db *db = quirk_db_new();
	int r;

	if (!db)
		return -ENOMEM;
	r = add_dirs(db, dirs, ndirs, cache, diags);
	if (r == 0)
		r = quirk_db_finalize(db, diags);
	if (r < 0) {
		quirk_db_free(db);
		return r;
	}
	*ret_db = db;
	return 0;
}

int quirk_db_load(const char *const *dirs, size_t ndirs, struct quirk_diags *diags,
		  struct quirk_db **ret_db)
{
	return quirk_db_load_cached(dirs, ndirs, NULL, diags, ret_db);
}
