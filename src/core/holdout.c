// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * holdout.c - the hold-out files of detached volumes: read, written,
 * removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "holdout.h"
#include "quirks-internal.h"

bool holdout_names_host(const struct lunmask_entry *e)
{
	return e->iscsi_target || e->port_name || e->sas_address || e->host_path;
}

bool holdout_retired(const struct lunmask_entry *e, const uint64_t *reported, size_t n,
		     bool complete)
{
	if (!complete || !holdout_names_host(e) || e->nexclude != 1 ||
	    e->exclude[0].first != e->exclude[0].last)
		return false;
	for (size_t k = 0; k < n; k++)
		if (reported[k] == e->exclude[0].first)
			return false;
	return true;
}

/* Whether @name is "iscsi-TARGET,DIGITS-lun-N.conf" of @k's target and LUN. */
static bool tpgt_file_of(const struct holdout_key *k, const char *name)
{
	char tail[64];
	size_t t = strlen(k->target), i;

	if (strncmp(name, "iscsi-", 6) != 0 || strncmp(name + 6, k->target, t) != 0 ||
	    name[6 + t] != ',')
		return false;
	for (i = 7 + t; name[i] >= '0' && name[i] <= '9'; i++)
		;
	if (i == 7 + t)
		return false;
	snprintf(tail, sizeof(tail), "-lun-%llu.conf", (unsigned long long)k->lun);
	return strcmp(name + i, tail) == 0;
}

/* The files of HOLDOUT_DIR @pick takes, as paths under the root. */
static int collect(const struct sysfs_ctx *sys,
		   bool (*pick)(const struct sysfs_ctx *, const char *, const void *),
		   const void *arg, char (**ret)[PATH_MAX], size_t *ret_n)
{
	char(*v)[PATH_MAX] = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *d = NULL;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = sysfs_open_dir(sys, HOLDOUT_DIR, &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		char(*p)[PATH_MAX];

		if (!pick(sys, de->d_name, arg))
			continue;
		p = realloc(v, (n + 1) * sizeof(*v));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		v = p;
		r = sysfs_path(sys, v[n], PATH_MAX, HOLDOUT_DIR "/%s", de->d_name);
		if (r < 0)
			break;
		n++;
	}
	closedir(d);
	if (r < 0) {
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

struct by_key {
	const struct holdout_key *k;
	char name[NAME_MAX + 1];
};

static bool pick_key(const struct sysfs_ctx *sys, const char *name, const void *arg)
{
	const struct by_key *b = arg;

	(void)sys;
	return strcmp(name, b->name) == 0 ||
	       (b->k->transport == DISCOVER_ISCSI && b->k->tpgt < 0 && tpgt_file_of(b->k, name));
}

int holdout_files(const struct sysfs_ctx *sys, const struct holdout_key *k, char (**ret)[PATH_MAX],
		  size_t *ret_n)
{
	struct by_key b = { .k = k };
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = holdout_file_name(k, b.name, sizeof(b.name));
	return r < 0 ? r : collect(sys, pick_key, &b, ret, ret_n);
}

static bool pick_wwid(const struct sysfs_ctx *sys, const char *name, const void *arg)
{
	char text[4096], wwid[SCSI_WWID_MAX + 1];
	size_t len = strlen(name);

	return len > 5 && strcmp(name + len - 5, ".conf") == 0 &&
	       sysfs_read(sys, text, sizeof(text), HOLDOUT_DIR "/%s", name) >= 0 &&
	       holdout_text_wwid(text, wwid, sizeof(wwid)) == 0 && volume_wwid_matches(arg, wwid);
}

int holdout_files_wwid(const struct sysfs_ctx *sys, const struct volume_address *a,
		       char (**ret)[PATH_MAX], size_t *ret_n)
{
	return collect(sys, pick_wwid, a, ret, ret_n);
}

int holdout_unlink(const struct lunmask_entry *e)
{
	return unlink(e->file) < 0 ? -errno : 0;
}

/* Whether HOLDOUT_DIR has a hold-out file; no directory is none. */
static int files_in(const struct sysfs_ctx *sys, bool *any)
{
	struct dirent *de;
	DIR *d;
	int r;

	*any = false;
	r = sysfs_open_dir(sys, HOLDOUT_DIR, &d);
	if (r < 0 || !d)
		return r;
	while (!*any && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		*any = n > 5 && strcmp(de->d_name + n - 5, ".conf") == 0;
	}
	closedir(d);
	return 0;
}

bool holdout_any(const struct sysfs_ctx *sys)
{
	bool any;

	return files_in(sys, &any) == 0 && any;
}

int holdout_dir_make(const struct sysfs_ctx *sys, char *path, size_t len)
{
	char run[PATH_MAX];
	int r;

	r = sysfs_path(sys, run, sizeof(run), "/run/scsi-scan");
	if (r == 0)
		r = sysfs_path(sys, path, len, HOLDOUT_DIR);
	if (r < 0)
		return r;
	if ((mkdir(run, 0755) < 0 && errno != EEXIST) || (mkdir(path, 0755) < 0 && errno != EEXIST))
		return -errno;
	return 0;
}

int holdout_load(const struct sysfs_ctx *sys, struct quirk_db **ret, struct quirk_diags *ret_diags)
{
	struct quirk_diags diags = { 0 };
	char dir[PATH_MAX];
	const char *dirs[] = { dir };
	struct quirk_db *db;
	bool any = false;
	int r;

	*ret = NULL;
	r = files_in(sys, &any);
	if (r < 0 || !any)
		return r;
	r = sysfs_path(sys, dir, sizeof(dir), HOLDOUT_DIR);
	if (r < 0)
		return r;
	db = quirk_db_new();
	if (!db)
		return -ENOMEM;
	r = quirk_db_add_dirs(db, dirs, 1, &diags);
	if (r == 0)
		r = quirk_db_finalize(db, &diags);
	/* The errors only: a file with one is not in force. */
	for (size_t i = 0; ret_diags && r == 0 && i < diags.count; i++)
		if (diags.items[i].severity == QUIRK_ERROR)
			r = quirk_diag_add(ret_diags, QUIRK_ERROR, diags.items[i].file,
					   diags.items[i].line, "%s", diags.items[i].message);
	quirk_diags_clear(&diags);
	if (r < 0) {
		quirk_db_unref(db);
		return r;
	}
	*ret = db;
	return 0;
}

static int path_of(const struct sysfs_ctx *sys, const struct holdout_key *k, char *path, size_t len)
{
	char name[NAME_MAX + 1];
	int r;

	r = holdout_file_name(k, name, sizeof(name));
	if (r < 0)
		return r;
	return sysfs_path(sys, path, len, HOLDOUT_DIR "/%s", name);
}

int holdout_write(const struct sysfs_ctx *sys, const struct holdout_key *k, const char *reason,
		  char *ret_path)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX], text[2048];
	size_t len;
	int fd, r;

	r = path_of(sys, k, path, sizeof(path));
	if (r == 0)
		r = holdout_text(k, reason, text, sizeof(text));
	if (r == 0)
		r = holdout_dir_make(sys, dir, sizeof(dir));
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0) {
		r = errno ? -errno : -EIO;
		close(fd);
		unlink(tmp);
		return r;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	if (ret_path)
		snprintf(ret_path, PATH_MAX, "%s", path);
	return 0;
}

int holdout_remove(const struct sysfs_ctx *sys, const struct holdout_key *k, char *ret_path)
{
	char path[PATH_MAX];
	int r;

	r = path_of(sys, k, path, sizeof(path));
	if (r < 0)
		return r;
	if (ret_path)
		snprintf(ret_path, PATH_MAX, "%s", path);
	return unlink(path) < 0 ? -errno : 0;
}
