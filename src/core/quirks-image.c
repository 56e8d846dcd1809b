// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quirks-image.c - the quirk database compiled: the merged entries in
 * database order, and every directory and file they came from as it was,
 * so that a program that scans once (the initramfs, a hotplug) loads it
 * instead of parsing the text, and never uses one that is out of date.
 *
 * Layout (little endian): "SCSIQIMG", u32 version, then the sources, the
 * device entries and the lunmask entries, each as a u32 count and
 * records; a string is a u32 length (0xffffffff for none) and its bytes;
 * last, a u64 quirk_hash() of every byte before it. An image is used whole
 * or not at all: one flipped bit anywhere makes it unusable.
 * A source is current when it has the same content (files) or the same
 * *.conf names (directories), not the same inode or time: a copy of the
 * files, as in an initramfs, keeps its image current.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quirks-internal.h"

#define IMAGE_MAGIC "SCSIQIMG"
#define IMAGE_VERSION 4
#define NO_STRING 0xffffffffu
/* An image this large is not ours. */
#define IMAGE_MAX (64u << 20)

struct out {
	uint8_t *buf;
	size_t len;
	size_t size;
	bool failed;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->failed || !n)
		return;
	if (o->len + n > o->size) {
		size_t size = o->size ? o->size * 2 : 4096;
		uint8_t *b;

		while (size < o->len + n)
			size *= 2;
		b = realloc(o->buf, size);
		if (!b) {
			o->failed = true;
			return;
		}
		o->buf = b;
		o->size = size;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* @n bytes of @v, least significant first */
static void put_le(struct out *o, uint64_t v, size_t n)
{
	uint8_t b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, n);
}

static void put_u64(struct out *o, uint64_t v)
{
	put_le(o, v, 8);
}

static void put_u32(struct out *o, uint32_t v)
{
	put_le(o, v, 4);
}

static void put_str(struct out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u32(o, s ? (uint32_t)n : NO_STRING);
	put(o, s, n);
}

static void put_ranges(struct out *o, const struct lun_range *r, size_t n)
{
	put_u32(o, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put_u64(o, r[i].first);
		put_u64(o, r[i].last);
	}
}

int quirk_db_image(const struct quirk_db *db, const char *root, uint8_t **ret, size_t *ret_len)
{
	size_t rl = root ? strlen(root) : 0;
	struct out o = { 0 };

	while (rl && root[rl - 1] == '/')
		rl--;
	put(&o, IMAGE_MAGIC, 8);
	put_u32(&o, IMAGE_VERSION);
	put_u32(&o, (uint32_t)db->nsources);
	for (size_t i = 0; i < db->nsources; i++) {
		const struct quirk_source *s = &db->sources[i];
		const char *path = s->path;

		/* Compiled into a staging tree: the paths it will have. */
		if (rl && strncmp(path, root, rl) == 0 && path[rl] == '/')
			path += rl;
		put_str(&o, path);
		put_u32(&o, (uint32_t)s->is_dir | (uint32_t)s->exists << 1);
		put_u64(&o, s->hash);
	}
	put_u32(&o, (uint32_t)db->count);
	for (size_t i = 0; i < db->count; i++) {
		const struct quirk_entry *e = &db->entries[i];

		put_str(&o, rl && strncmp(e->file, root, rl) == 0 && e->file[rl] == '/'
				    ? e->file + rl
				    : e->file);
		put_u32(&o, e->line);
		put_str(&o, e->title);
		put_str(&o, e->vendor);
		put_str(&o, e->model);
		put_str(&o, e->revision);
		put_u64(&o, (uint64_t)(int64_t)e->type);
		put_u32(&o, (uint32_t)e->vendor_glob | (uint32_t)e->model_glob << 1 |
				    (uint32_t)e->revision_glob << 2 | (uint32_t)e->sets_flags << 3 |
				    (uint32_t)e->builtin << 4);
		put_u64(&o, e->flags);
		put_u64(&o, e->add_flags);
		put_u64(&o, e->drop_flags);
		put_u64(&o, (uint64_t)e->max_lun);
		put_u64(&o, (uint64_t)(int64_t)e->attach);
		put_str(&o, e->handler);
		put_str(&o, e->reason);
	}
	put_u32(&o, (uint32_t)db->nmasks);
	for (size_t i = 0; i < db->nmasks; i++) {
		const struct lunmask_entry *m = &db->masks[i];

		put_str(&o, rl && strncmp(m->file, root, rl) == 0 && m->file[rl] == '/'
				    ? m->file + rl
				    : m->file);
		put_u32(&o, m->line);
		put_str(&o, m->title);
		put_str(&o, m->reason);
		put_str(&o, m->driver);
		put_str(&o, m->host_port_name);
		put_str(&o, m->host_path);
		put_str(&o, m->port_name);
		put_str(&o, m->sas_address);
		put_str(&o, m->iscsi_target);
		put_u64(&o, (uint64_t)m->iscsi_tpgt);
		put_u64(&o, (uint64_t)m->channel);
		put_u64(&o, (uint64_t)m->id);
		put_str(&o, m->wwid);
		put_str(&o, m->serial);
		put_u32(&o, m->has_luns);
		put_ranges(&o, m->luns, m->nluns);
		put_ranges(&o, m->exclude, m->nexclude);
	}
	put_u64(&o, quirk_hash(QUIRK_HASH_INIT, o.buf, o.len));
	if (o.failed) {
		free(o.buf);
		return -ENOMEM;
	}
	*ret = o.buf;
	*ret_len = o.len;
	return 0;
}

struct in {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static uint64_t get_le(struct in *in, size_t n)
{
	uint64_t v = 0;

	if (in->left < n) {
		in->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)in->p[i] << (8 * i);
	in->p += n;
	in->left -= n;
	return v;
}

static uint64_t get_u64(struct in *in)
{
	return get_le(in, 8);
}

static uint32_t get_u32(struct in *in)
{
	return (uint32_t)get_le(in, 4);
}

/* A count of records at least @min bytes each: more than the bytes left
 * hold is a broken image, not an allocation to try. */
static size_t get_count(struct in *in, size_t min)
{
	uint32_t n = get_u32(in);

	if (in->bad || (size_t)n > in->left / min) {
		in->bad = true;
		return 0;
	}
	return n;
}

static char *get_str(struct in *in)
{
	uint32_t n = get_u32(in);
	char *s;

	if (in->bad || n == NO_STRING)
		return NULL;
	if (n > in->left || memchr(in->p, '\0', n)) {
		in->bad = true;
		return NULL;
	}
	s = strndup((const char *)in->p, n);
	if (!s) {
		in->bad = true;
		return NULL;
	}
	in->p += n;
	in->left -= n;
	return s;
}

static struct lun_range *get_ranges(struct in *in, size_t *ret_n)
{
	size_t n = get_count(in, 16);
	struct lun_range *r;

	*ret_n = 0;
	if (in->bad || !n)
		return NULL;
	r = calloc(n, sizeof(*r));
	if (!r) {
		in->bad = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		r[i].first = get_u64(in);
		r[i].last = get_u64(in);
	}
	*ret_n = n;
	return r;
}

static bool under_dir(const char *path, const char *const *dirs, size_t ndirs)
{
	for (size_t i = 0; i < ndirs; i++) {
		size_t n = strlen(dirs[i]);

		if (strncmp(path, dirs[i], n) == 0 && path[n] == '/')
			return true;
	}
	return false;
}

/* Whether the sources the image records are the search path asked for,
 * and each is as it was when the image was made. The names are compared
 * before anything is read: an image of another path costs no I/O. */
static int check_sources(const struct quirk_db *db, const char *const *dirs, size_t ndirs)
{
	size_t d = 0;

	for (size_t i = 0; i < db->nsources; i++) {
		const struct quirk_source *s = &db->sources[i];

		if (s->is_dir ? d == ndirs || strcmp(s->path, dirs[d++]) != 0
			      : !under_dir(s->path, dirs, ndirs))
			return -ESTALE;
	}
	if (d != ndirs)
		return -ESTALE;
	for (size_t i = 0; i < db->nsources; i++) {
		const struct quirk_source *s = &db->sources[i];
		struct quirk_source now;

		if (quirk_source_look(s->path, s->is_dir, &now) < 0)
			return -ENOMEM;
		if (now.exists != s->exists || now.hash != s->hash)
			return -ESTALE;
	}
	return 0;
}

int quirk_db_image_decode(const uint8_t *buf, size_t len, const char *const *dirs, size_t ndirs,
			  struct quirk_db **ret)
{
	struct in in = { buf, len, false };
	struct quirk_parsed p = { 0 };
	struct quirk_db *db;
	size_t n;
	int r;

	if (len < 20 || memcmp(buf, IMAGE_MAGIC, 8) != 0)
		return -EINVAL;
	in.p = buf + len - 8;
	in.left = 8;
	if (get_u64(&in) != quirk_hash(QUIRK_HASH_INIT, buf, len - 8))
		return -EINVAL;
	in.p = buf + 8;
	in.left = len - 16;
	if (get_u32(&in) != IMAGE_VERSION)
		return -EINVAL;
	db = quirk_db_new();
	if (!db)
		return -ENOMEM;
	n = get_count(&in, 16);
	db->sources = n ? calloc(n, sizeof(*db->sources)) : NULL;
	if (n && !db->sources)
		in.bad = true;
	for (size_t i = 0; i < n && !in.bad; i++) {
		struct quirk_source *s = &db->sources[db->nsources++];
		uint32_t bits;

		s->path = get_str(&in);
		bits = get_u32(&in);
		s->is_dir = bits & 1;
		s->exists = bits & 2;
		s->hash = get_u64(&in);
		in.bad |= !s->path;
	}
	p.count = get_count(&in, 64);
	p.entries = p.count ? calloc(p.count, sizeof(*p.entries)) : NULL;
	if (p.count && !p.entries)
		in.bad = true;
	for (size_t i = 0; i < p.count && !in.bad; i++) {
		struct quirk_entry *e = &p.entries[i];
		uint32_t bits;

		e->file = get_str(&in);
		e->line = get_u32(&in);
		e->title = get_str(&in);
		e->vendor = get_str(&in);
		e->model = get_str(&in);
		e->revision = get_str(&in);
		e->type = (int)(int64_t)get_u64(&in);
		bits = get_u32(&in);
		e->vendor_glob = bits & 1;
		e->model_glob = bits & 2;
		e->revision_glob = bits & 4;
		e->sets_flags = bits & 8;
		e->builtin = bits & 16;
		e->flags = get_u64(&in);
		e->add_flags = get_u64(&in);
		e->drop_flags = get_u64(&in);
		e->max_lun = (long long)get_u64(&in);
		e->attach = (int)(int64_t)get_u64(&in);
		e->handler = get_str(&in);
		e->reason = get_str(&in);
		in.bad |= !e->file || !e->vendor || !e->model;
	}
	p.nmasks = get_count(&in, 80);
	p.masks = p.nmasks ? calloc(p.nmasks, sizeof(*p.masks)) : NULL;
	if (p.nmasks && !p.masks)
		in.bad = true;
	for (size_t i = 0; i < p.nmasks && !in.bad; i++) {
		struct lunmask_entry *m = &p.masks[i];

		m->file = get_str(&in);
		m->line = get_u32(&in);
		m->title = get_str(&in);
		m->reason = get_str(&in);
		m->driver = get_str(&in);
		m->host_port_name = get_str(&in);
		m->host_path = get_str(&in);
		m->port_name = get_str(&in);
		m->sas_address = get_str(&in);
		m->iscsi_target = get_str(&in);
		m->iscsi_tpgt = (long)get_u64(&in);
		m->channel = (long)get_u64(&in);
		m->id = (long)get_u64(&in);
		m->wwid = get_str(&in);
		m->serial = get_str(&in);
		m->has_luns = get_u32(&in);
		m->luns = get_ranges(&in, &m->nluns);
		m->exclude = get_ranges(&in, &m->nexclude);
		in.bad |= !m->file || !m->title;
	}
	if (!in.bad && in.left)
		in.bad = true;
	r = quirk_db_append(db, &p);
	if (r == 0 && in.bad)
		r = -EINVAL;
	if (r == 0)
		r = check_sources(db, dirs, ndirs);
	if (r < 0) {
		quirk_db_unref(db);
		return r;
	}
	*ret = db;
	return 0;
}

int quirk_db_image_load(const char *path, const char *const *dirs, size_t ndirs,
			struct quirk_db **ret)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > IMAGE_MAX) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	r = n < 0 ? -errno : n != st.st_size ? -EINVAL : 0;
	close(fd);
	if (r == 0)
		r = quirk_db_image_decode(buf, (size_t)n, dirs, ndirs, ret);
	free(buf);
	return r;
}

int quirk_db_image_save(const struct quirk_db *db, const char *root, const char *path)
{
	char *target = NULL, *tmp = NULL;
	struct stat st;
	uint8_t *buf = NULL;
	size_t len;
	ssize_t n;
	int fd, r;

	/* The temporary file is renamed over the target: only a regular file
	 * may be replaced so (a device node such as /dev/null would become
	 * one), and through a symlink, the file it names. */
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
		target = realpath(path, NULL);
	} else if (errno == ENOENT) {
		target = strdup(path);
	} else {
		return -errno;
	}
	if (!target || asprintf(&tmp, "%s.XXXXXX", target) < 0) {
		r = target ? -ENOMEM : -errno;
		tmp = NULL;
		goto out;
	}
	r = quirk_db_image(db, root, &buf, &len);
	if (r < 0)
		goto out;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	n = write(fd, buf, len);
	r = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (r == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	/* Readers see the old image or the new, never half of one. */
	if (r == 0 && rename(tmp, target) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
out:
	free(buf);
	free(tmp);
	free(target);
	return r;
}

int quirk_db_open(const char *const *dirs, size_t ndirs, const char *image,
		  struct quirk_diags *diags, struct quirk_db **ret, int *ret_image)
{
	struct quirk_db *db = NULL;
	int r;

	*ret_image = image ? quirk_db_image_load(image, dirs, ndirs, &db) : -ENOENT;
	if (*ret_image == -ENOMEM)
		return -ENOMEM;
	if (*ret_image == 0) {
		*ret = db;
		return 0;
	}
	db = quirk_db_new();
	if (!db)
		return -ENOMEM;
	r = quirk_db_add_dirs(db, dirs, ndirs, diags);
	if (r < 0) {
		quirk_db_unref(db);
		return r;
	}
	*ret = db;
	return 0;
}
