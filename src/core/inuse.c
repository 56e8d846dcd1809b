// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inuse.c - whether a SCSI device can be deleted without taking it from a
 * user. Everything is matched by device number, never by name: a node may
 * be reached through a link, a private /dev or another mount namespace.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "inuse.h"

#define MOUNT_OPTION_DEVICES_MAX 4
#define HOLDER_DEPTH_MAX 16

/* The kernel escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
			continue;
		}
		*out++ = *s++;
	}
	*out = '\0';
}

static char *next_field(char **p)
{
	char *s = *p, *start;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (!*s)
		return NULL;
	start = s;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return start;
}

int mountinfo_parse(char *line, struct mountinfo_entry *ret)
{
	char *p = line, *f[6], *sep;
	unsigned int ma, mi;
	char end;

	for (size_t i = 0; i < 6; i++) {
		f[i] = next_field(&p);
		if (!f[i])
			return -EINVAL;
	}
	if (sscanf(f[2], "%u:%u%c", &ma, &mi, &end) != 2)
		return -EINVAL;
	/* Optional fields ("shared:1", "master:2") end at a lone "-". */
	do {
		sep = next_field(&p);
	} while (sep && strcmp(sep, "-") != 0);
	if (!sep)
		return -EINVAL;
	ret->fstype = next_field(&p);
	ret->source = next_field(&p);
	ret->super_options = next_field(&p);
	if (!ret->fstype || !ret->source)
		return -EINVAL;
	if (!ret->super_options)
		ret->super_options = "";
	unescape_octal(f[4]);
	unescape_octal((char *)ret->source);
	ret->devt = makedev(ma, mi);
	ret->mount_point = f[4];
	return 0;
}

size_t mount_option_devices(char *super_options, const char **ret, size_t max)
{
	static const char *const keys[] = { "logdev=", "rtdev=", "journal_path=" };
	char *save = NULL;
	size_t n = 0;

	for (char *o = strtok_r(super_options, ",", &save); o && n < max;
	     o = strtok_r(NULL, ",", &save)) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k]);

			if (strncmp(o, keys[k], kl) == 0 && o[kl]) {
				unescape_octal(o + kl);
				ret[n++] = o + kl;
				break;
			}
		}
	}
	return n;
}

int proc_swaps_parse(char *line, const char **ret_path, bool *ret_partition)
{
	char *p = line, *path, *type;

	*ret_path = NULL;
	*ret_partition = false;
	path = next_field(&p);
	if (!path)
		return -EINVAL;
	type = next_field(&p);
	if (!type)
		return -EINVAL;
	if (strcmp(path, "Filename") == 0 && strcmp(type, "Type") == 0)
		return 0;
	unescape_octal(path);
	*ret_path = path;
	*ret_partition = strcmp(type, "partition") == 0;
	return 0;
}

/*
 * readdir() whose error is not taken for the end of the directory: a
 * listing cut short would leave a holder, a process or a partition unseen.
 * @r is set to -errno on an error.
 */
static struct dirent *read_entry(DIR *d, int *r)
{
	struct dirent *de;

	errno = 0;
	de = readdir(d);
	if (!de && errno)
		*r = -errno;
	return de;
}

static int opendirf(const struct sysfs_ctx *ctx, DIR **ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* sysfs_open_dir() with a formatted path, a missing directory -ENOENT. */
static int opendirf(const struct sysfs_ctx *ctx, DIR **ret, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	r = sysfs_open_dir(ctx, rel, ret);
	if (r == 0 && !*ret)
		r = -ENOENT;
	return r;
}

static int read_devt(const struct sysfs_ctx *ctx, const char *rel, dev_t *ret)
{
	unsigned int ma, mi;
	char buf[32], end;
	int r;

	r = sysfs_read(ctx, buf, sizeof(buf), "%s/dev", rel);
	if (r < 0)
		return r;
	if (sscanf(buf, "%u:%u%c", &ma, &mi, &end) != 2)
		return -EINVAL;
	*ret = makedev(ma, mi);
	return 0;
}

static int nodes_add(struct inuse_nodes *n, const char *name, dev_t devt, bool block, bool whole)
{
	struct inuse_node *v;

	if (strlen(name) >= INUSE_NAME_LEN)
		return -ENAMETOOLONG;
	v = realloc(n->v, (n->count + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->v = v;
	v += n->count++;
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->devt = devt;
	v->block = block;
	v->whole = whole;
	return 0;
}

/* The disk and every partition: entries of its directory that have a
 * "partition" attribute, however many there are. */
static int collect_block(const struct sysfs_ctx *ctx, const char *disk, struct inuse_nodes *n)
{
	char rel[PATH_MAX];
	struct dirent *de;
	dev_t devt;
	DIR *d;
	int r;

	snprintf(rel, sizeof(rel), "/sys/class/block/%s", disk);
	r = read_devt(ctx, rel, &devt);
	if (r < 0)
		return r;
	r = nodes_add(n, disk, devt, true, true);
	if (r < 0)
		return r;
	r = opendirf(ctx, &d, "%s", rel);
	if (r < 0)
		return r;
	while (r == 0 && (de = read_entry(d, &r))) {
		char part[PATH_MAX], attr[32];

		if (de->d_name[0] == '.' ||
		    snprintf(part, sizeof(part), "%s/%s", rel, de->d_name) >= (int)sizeof(part))
			continue;
		if (sysfs_read(ctx, attr, sizeof(attr), "%s/partition", part) < 0)
			continue;
		r = read_devt(ctx, part, &devt);
		if (r == 0)
			r = nodes_add(n, de->d_name, devt, true, false);
	}
	closedir(d);
	return r;
}

/* The device's class directories: block/, scsi_generic/, bsg/, scsi_tape/
 * (st0, nst0, st0l, ...), scsi_changer/. */
static int collect_class(const struct sysfs_ctx *ctx, const char *hctl, const char *class,
			 const char *prefix, struct inuse_nodes *n)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = opendirf(ctx, &d, "/sys/bus/scsi/devices/%s/%s", hctl, class);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	while (r == 0 && (de = read_entry(d, &r))) {
		char rel[PATH_MAX], name[INUSE_NAME_LEN];
		dev_t devt;

		if (de->d_name[0] == '.')
			continue;
		if (strcmp(class, "block") == 0) {
			r = collect_block(ctx, de->d_name, n);
			continue;
		}
		snprintf(rel, sizeof(rel), "/sys/bus/scsi/devices/%s/%s/%s", hctl, class,
			 de->d_name);
		if (read_devt(ctx, rel, &devt) < 0)
			continue;
		if (snprintf(name, sizeof(name), "%s%s", prefix, de->d_name) >= (int)sizeof(name))
			return closedir(d), -ENAMETOOLONG;
		r = nodes_add(n, name, devt, false, false);
	}
	closedir(d);
	return r;
}

int inuse_nodes_collect(const struct sysfs_ctx *ctx, const struct scsi_addr *a,
			struct inuse_nodes *ret)
{
	static const struct {
		const char *class, *prefix;
	} classes[] = {
		{ "block", "" },     { "scsi_generic", "" }, { "bsg", "bsg/" },
		{ "scsi_tape", "" }, { "scsi_changer", "" },
	};
	char hctl[64];
	int r = 0;

	ret->v = NULL;
	ret->count = 0;
	scsi_addr_format(a, hctl, sizeof(hctl));
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]) && r == 0; i++)
		r = collect_class(ctx, hctl, classes[i].class, classes[i].prefix, ret);
	if (r < 0)
		inuse_nodes_free(ret);
	return r;
}

int inuse_block_collect(const struct sysfs_ctx *ctx, const char *disk, struct inuse_nodes *ret)
{
	int r;

	ret->v = NULL;
	ret->count = 0;
	r = collect_block(ctx, disk, ret);
	if (r < 0)
		inuse_nodes_free(ret);
	return r;
}

void inuse_nodes_free(struct inuse_nodes *n)
{
	free(n->v);
	n->v = NULL;
	n->count = 0;
}

static const struct inuse_node *find_node(const struct inuse_nodes *n, dev_t devt, bool block)
{
	for (size_t i = 0; i < n->count; i++)
		if (n->v[i].devt == devt && n->v[i].block == block)
			return &n->v[i];
	return NULL;
}

/* A path as a process sees it: under @proc_root ("/proc/PID/root" for a
 * process in another mount namespace, "" for ours), under the context's
 * root. */
static const struct inuse_node *node_of_path(const struct sysfs_ctx *ctx,
					     const struct inuse_nodes *n, const char *proc_root,
					     const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	if (path[0] != '/' || sysfs_path(ctx, full, sizeof(full), "%s%s", proc_root, path) < 0)
		return NULL;
	if (stat(full, &st) < 0)
		return NULL;
	if (S_ISBLK(st.st_mode))
		return find_node(n, st.st_rdev, true);
	if (S_ISCHR(st.st_mode))
		return find_node(n, st.st_rdev, false);
	return NULL;
}

static int check_holders(const struct sysfs_ctx *ctx, const struct inuse_nodes *n, char *why,
			 size_t len)
{
	for (size_t i = 0; i < n->count; i++) {
		char name[INUSE_NAME_LEN], chain[256] = "";
		int depth = 0;
		DIR *d;
		int r;

		if (!n->v[i].block)
			continue;
		snprintf(name, sizeof(name), "%s", n->v[i].name);
		/* The top of the stack names what the administrator knows
		 * (the multipath map, the LV, the array). */
		while (depth < HOLDER_DEPTH_MAX) {
			struct dirent *de;
			char next[INUSE_NAME_LEN] = "", dm[128];

			r = opendirf(ctx, &d, "/sys/class/block/%s/holders", name);
			if (r == -ENOENT)
				break;
			if (r < 0) {
				snprintf(why, len, "cannot read the holders of /dev/%s: %s", name,
					 strerror(-r));
				return r;
			}
			while ((de = read_entry(d, &r)))
				if (de->d_name[0] != '.') {
					snprintf(next, sizeof(next), "%s", de->d_name);
					break;
				}
			closedir(d);
			if (r < 0) {
				snprintf(why, len, "cannot read the holders of /dev/%s: %s", name,
					 strerror(-r));
				return r;
			}
			if (!next[0])
				break;
			if (sysfs_read(ctx, dm, sizeof(dm), "/sys/class/block/%s/dm/name", next) >
			    0)
				snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain),
					 "%s%s (%s)", depth ? ", under " : "", next, dm);
			else
				snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain),
					 "%s%s", depth ? ", under " : "", next);
			snprintf(name, sizeof(name), "%s", next);
			depth++;
		}
		if (depth) {
			snprintf(why, len, "/dev/%s is held by %s", n->v[i].name, chain);
			return 1;
		}
	}
	return 0;
}

/* One mount namespace's mount table, as seen by process @pid ("self"). */
static int check_mount_table(const struct sysfs_ctx *ctx, const struct inuse_nodes *n,
			     const char *pid, bool ours, char *why, size_t len)
{
	char path[PATH_MAX], proc_root[64], ns_note[64] = "", *line = NULL;
	size_t line_alloc = 0;
	FILE *f;
	int r = 0;

	if (sysfs_path(ctx, path, sizeof(path), "/proc/%s/mountinfo", pid) < 0)
		return -ENAMETOOLONG;
	proc_root[0] = '\0';
	if (!ours) {
		snprintf(proc_root, sizeof(proc_root), "/proc/%s/root", pid);
		snprintf(ns_note, sizeof(ns_note), " in the mount namespace of pid %s", pid);
	}
	f = fopen(path, "re");
	if (!f) {
		/* The process ended (or is a zombie, which has no mounts). */
		if (errno == ENOENT || errno == ESRCH || errno == EINVAL)
			return 0;
		r = -errno;
		snprintf(why, len, "cannot read %s: %s", path, strerror(-r));
		return r;
	}
	/* Whole lines, however long: a mount skipped for its length (a long
	 * bind-mount root, escaped paths) would make its device look free. */
	while (r == 0 && getline(&line, &line_alloc, f) >= 0) {
		const char *devs[MOUNT_OPTION_DEVICES_MAX];
		const struct inuse_node *hit = NULL;
		struct mountinfo_entry m;
		size_t nd;

		if (mountinfo_parse(line, &m) < 0)
			continue;
		if (major(m.devt) != 0)
			hit = find_node(n, m.devt, true);
		/* btrfs and others report an anonymous 0:N; the source names
		 * the device that was mounted. */
		else
			hit = node_of_path(ctx, n, proc_root, m.source);
		if (hit) {
			snprintf(why, len, "/dev/%s is mounted on %s (%s)%s", hit->name,
				 m.mount_point, m.fstype, ns_note);
			r = 1;
			break;
		}
		nd = mount_option_devices((char *)m.super_options, devs, MOUNT_OPTION_DEVICES_MAX);
		for (size_t i = 0; i < nd && !hit; i++)
			hit = node_of_path(ctx, n, proc_root, devs[i]);
		if (hit) {
			snprintf(why, len,
				 "/dev/%s is the external log or journal of the %s on %s%s",
				 hit->name, m.fstype, m.mount_point, ns_note);
			r = 1;
		}
	}
	if (r == 0 && ferror(f)) {
		r = errno ? -errno : -EIO;
		snprintf(why, len, "cannot read %s: %s", path, strerror(-r));
	}
	free(line);
	fclose(f);
	return r;
}

struct seen_ns {
	char (*v)[64];
	size_t count;
};

static int seen_ns_add(struct seen_ns *s, const char *ns)
{
	char(*v)[64];

	for (size_t i = 0; i < s->count; i++)
		if (strcmp(s->v[i], ns) == 0)
			return 0;
	v = realloc(s->v, (s->count + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	snprintf(s->v[s->count++], sizeof(v[0]), "%s", ns);
	return 1;
}

/* Readlink of /proc/PID/ns/mnt: 1 new, 0 already read, -ESRCH gone. */
static int mount_ns_new(const struct sysfs_ctx *ctx, struct seen_ns *seen, const char *pid,
			char *why, size_t len)
{
	char path[PATH_MAX], ns[64];
	ssize_t l;

	if (sysfs_path(ctx, path, sizeof(path), "/proc/%s/ns/mnt", pid) < 0)
		return -ENAMETOOLONG;
	l = readlink(path, ns, sizeof(ns) - 1);
	if (l < 0) {
		int e = errno;

		if (e == ENOENT || e == ESRCH)
			return strcmp(pid, "self") == 0 ? seen_ns_add(seen, "self") : -ESRCH;
		snprintf(why, len, "cannot read %s: %s", path, strerror(e));
		return -e;
	}
	ns[l] = '\0';
	return seen_ns_add(seen, ns);
}

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int check_mounts(const struct sysfs_ctx *ctx, const struct inuse_nodes *n, char *why,
			size_t len)
{
	struct seen_ns seen = { 0 };
	struct dirent *de;
	DIR *d = NULL;
	int r;

	r = mount_ns_new(ctx, &seen, "self", why, len);
	if (r > 0)
		r = check_mount_table(ctx, n, "self", true, why, len);
	if (r != 0)
		goto out;
	r = opendirf(ctx, &d, "/proc");
	if (r < 0) {
		snprintf(why, len, "cannot read /proc: %s", strerror(-r));
		goto out;
	}
	while (r == 0 && (de = read_entry(d, &r))) {
		if (!is_pid(de->d_name))
			continue;
		r = mount_ns_new(ctx, &seen, de->d_name, why, len);
		if (r == -ESRCH) {
			r = 0;
			continue;
		}
		if (r > 0)
			r = check_mount_table(ctx, n, de->d_name, false, why, len);
	}
out:
	if (d)
		closedir(d);
	free(seen.v);
	return r;
}

/* Members of a mounted btrfs: /sys/fs/btrfs/UUID/devices/NAME. */
static int check_btrfs(const struct sysfs_ctx *ctx, const struct inuse_nodes *n, char *why,
		       size_t len)
{
	struct dirent *fs;
	DIR *d;
	int r;

	r = opendirf(ctx, &d, "/sys/fs/btrfs");
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		snprintf(why, len, "cannot read /sys/fs/btrfs: %s", strerror(-r));
		return r;
	}
	while (r == 0 && (fs = read_entry(d, &r))) {
		struct dirent *de;
		DIR *dd;

		if (fs->d_name[0] == '.' ||
		    opendirf(ctx, &dd, "/sys/fs/btrfs/%s/devices", fs->d_name) < 0)
			continue;
		while (r == 0 && (de = read_entry(dd, &r))) {
			const struct inuse_node *hit;
			char rel[PATH_MAX];
			dev_t devt;

			if (de->d_name[0] == '.')
				continue;
			snprintf(rel, sizeof(rel), "/sys/fs/btrfs/%s/devices/%s", fs->d_name,
				 de->d_name);
			if (read_devt(ctx, rel, &devt) < 0)
				continue;
			hit = find_node(n, devt, true);
			if (hit) {
				snprintf(why, len,
					 "/dev/%s is a device of the btrfs file system %s",
					 hit->name, fs->d_name);
				r = 1;
			}
		}
		closedir(dd);
	}
	closedir(d);
	return r;
}

static int check_swaps(const struct sysfs_ctx *ctx, const struct inuse_nodes *n, char *why,
		       size_t len)
{
	char path[PATH_MAX], *line = NULL;
	size_t line_alloc = 0;
	FILE *f;
	int r = 0;

	if (sysfs_path(ctx, path, sizeof(path), "/proc/swaps") < 0)
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(why, len, "cannot read /proc/swaps: %s", strerror(-r));
		return r;
	}
	while (r == 0 && getline(&line, &line_alloc, f) >= 0) {
		const struct inuse_node *hit = NULL;
		const char *swap;
		char full[PATH_MAX];
		bool partition;
		struct stat st;

		if (proc_swaps_parse(line, &swap, &partition) < 0 || !swap)
			continue;
		if (sysfs_path(ctx, full, sizeof(full), "%s", swap) < 0 || stat(full, &st) < 0) {
			snprintf(why, len, "cannot find the swap area %s: %s", swap,
				 strerror(errno));
			r = -errno;
			break;
		}
		if (S_ISBLK(st.st_mode))
			hit = find_node(n, st.st_rdev, true);
		else
			hit = find_node(n, st.st_dev, true);
		if (hit) {
			snprintf(why, len, "/dev/%s holds the active swap area %s", hit->name,
				 swap);
			r = 1;
		}
	}
	if (r == 0 && ferror(f)) {
		r = errno ? -errno : -EIO;
		snprintf(why, len, "cannot read /proc/swaps: %s", strerror(-r));
	}
	free(line);
	fclose(f);
	return r;
}

/* A udev worker's name; before systemd 251 they bore the daemon's. */
static bool udev_worker(const char *comm)
{
	return strcmp(comm, "(udev-worker)") == 0 || strcmp(comm, "systemd-udevd") == 0;
}

/* Whether process @pid (named @comm) only watches a device: a udev worker,
 * a program a worker runs for a rule (scsi_id, ata_id), or multipathd,
 * which keeps every path it checks open; a path in a map is held by it
 * (check_holders()), one outside a map is no user. */
static bool watcher_only(const struct sysfs_ctx *ctx, const char *pid, const char *comm)
{
	char stat_line[512], parent[64];
	const char *paren;
	long ppid;

	if (udev_worker(comm) || strcmp(comm, "multipathd") == 0)
		return true;
	/* "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses. */
	if (sysfs_read(ctx, stat_line, sizeof(stat_line), "/proc/%s/stat", pid) < 0 ||
	    !(paren = strrchr(stat_line, ')')) || sscanf(paren + 1, " %*c %ld", &ppid) != 1 ||
	    ppid <= 1 || sysfs_read(ctx, parent, sizeof(parent), "/proc/%ld/comm", ppid) < 0)
		return false;
	parent[strcspn(parent, "\n")] = '\0';
	return udev_worker(parent);
}

static int check_process_files(const struct sysfs_ctx *ctx, const struct inuse_nodes *n,
			       const char *pid, char *why, size_t len)
{
	char fddir[PATH_MAX];
	struct dirent *fe;
	DIR *fd;
	int r;

	r = opendirf(ctx, &fd, "/proc/%s/fd", pid);
	if (r == -ENOENT || r == -ESRCH)
		return 0;
	if (r < 0) {
		snprintf(why, len, "cannot read the open files of pid %s: %s", pid, strerror(-r));
		return r;
	}
	if (sysfs_path(ctx, fddir, sizeof(fddir), "/proc/%s/fd", pid) < 0)
		return closedir(fd), -ENAMETOOLONG;
	while (r == 0 && (fe = read_entry(fd, &r))) {
		char link[PATH_MAX], target[PATH_MAX], comm[64] = "";
		const struct inuse_node *hit;
		struct stat st;
		ssize_t l;

		if (fe->d_name[0] == '.' ||
		    snprintf(link, sizeof(link), "%s/%s", fddir, fe->d_name) >= (int)sizeof(link))
			continue;
		/* Sockets, pipes and anon inodes are not device nodes. A
		 * descriptor closed meanwhile is gone; one that cannot be read
		 * may be the device. */
		l = readlink(link, target, sizeof(target) - 1);
		if (l < 0 && errno == ENOENT)
			continue;
		if (l < 0 || (target[l] = '\0', target[0] == '/' && stat(link, &st) < 0)) {
			if (errno == ENOENT)
				continue;
			r = -errno;
			snprintf(why, len, "cannot read the open file %s of pid %s: %s", fe->d_name,
				 pid, strerror(-r));
			break;
		}
		if (target[0] != '/')
			continue;
		if (S_ISBLK(st.st_mode))
			hit = find_node(n, st.st_rdev, true);
		else if (S_ISCHR(st.st_mode))
			hit = find_node(n, st.st_rdev, false);
		else
			continue;
		if (!hit)
			continue;
		sysfs_read(ctx, comm, sizeof(comm), "/proc/%s/comm", pid);
		comm[strcspn(comm, "\n")] = '\0';
		/* udev's workers open each new disk for a moment to probe it
		 * (blkid), and so do the programs their rules run (scsi_id);
		 * that is no user, and a delete only ends the probe. */
		if (watcher_only(ctx, pid, comm))
			break;
		snprintf(why, len, "/dev/%s is open by pid %s%s%s%s", hit->name, pid,
			 comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
		r = 1;
	}
	closedir(fd);
	return r;
}

/* Like fuser -m on each node: any process with one of them open. */
static int check_open_files(const struct sysfs_ctx *ctx, const struct inuse_nodes *n, char *why,
			    size_t len)
{
	struct dirent *pe;
	char self[32];
	DIR *pd;
	int r;

	r = opendirf(ctx, &pd, "/proc");
	if (r < 0) {
		snprintf(why, len, "cannot read /proc: %s", strerror(-r));
		return r;
	}
	snprintf(self, sizeof(self), "%d", (int)getpid());
	while (r == 0 && (pe = read_entry(pd, &r))) {
		/* Our own descriptors (the scan's sg node) hold nothing. */
		if (!is_pid(pe->d_name) || strcmp(pe->d_name, self) == 0)
			continue;
		r = check_process_files(ctx, n, pe->d_name, why, len);
	}
	closedir(pd);
	return r;
}

/* The kernel's own word: an exclusive open of the whole disk fails while a
 * file system, journal, swap area, RAID or device mapper claims any part. */
static int check_exclusive(const struct sysfs_ctx *ctx, const struct inuse_nodes *n, char *why,
			   size_t len)
{
	for (size_t i = 0; i < n->count; i++) {
		char path[PATH_MAX];
		struct stat st;
		int fd;

		if (!n->v[i].whole)
			continue;
		if (sysfs_path(ctx, path, sizeof(path), "/dev/%s", n->v[i].name) < 0)
			return -ENAMETOOLONG;
		/* No node, or one that is not this disk: nothing to ask. */
		if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != n->v[i].devt)
			continue;
		/* O_NONBLOCK: a CD drive opens without closing its tray. */
		fd = open(path, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		switch (errno) {
		case EBUSY:
			snprintf(why, len,
				 "/dev/%s is claimed exclusively by the kernel "
				 "(a file system, swap, RAID or device-mapper user)",
				 n->v[i].name);
			return 1;
		case ENXIO:
		case ENODEV:
		case ENOMEDIUM:
		case ENOENT:
			continue;
		default:
			snprintf(why, len, "cannot open /dev/%s exclusively: %s", n->v[i].name,
				 strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int inuse_check(const struct sysfs_ctx *ctx, const struct inuse_nodes *nodes, char *why, size_t len)
{
	int (*const checks[])(const struct sysfs_ctx *, const struct inuse_nodes *, char *,
			      size_t) = { check_holders, check_mounts,	   check_btrfs,
					  check_swaps,	 check_open_files, check_exclusive };
	int r = 0;

	if (len)
		why[0] = '\0';
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]) && r == 0; i++)
		r = checks[i](ctx, nodes, why, len);
	if (r < 0 && len && !why[0])
		snprintf(why, len, "cannot tell whether it is in use: %s", strerror(-r));
	return r;
}

int device_in_use_beside_map(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *why,
			     size_t len)
{
	int (*const checks[])(const struct sysfs_ctx *, const struct inuse_nodes *, char *,
			      size_t) = { check_mounts, check_btrfs, check_swaps,
					  check_open_files };
	struct inuse_nodes nodes;
	int r;

	if (len)
		why[0] = '\0';
	r = inuse_nodes_collect(ctx, a, &nodes);
	if (r < 0) {
		snprintf(why, len, "cannot list its device nodes: %s", strerror(-r));
		return r;
	}
	r = 0;
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]) && r == 0; i++)
		r = checks[i](ctx, &nodes, why, len);
	inuse_nodes_free(&nodes);
	if (r < 0 && len && !why[0])
		snprintf(why, len, "cannot tell whether it is in use: %s", strerror(-r));
	return r;
}

int device_in_use(const struct sysfs_ctx *ctx, const struct scsi_addr *a, char *why, size_t len)
{
	struct inuse_nodes nodes;
	int r;

	r = inuse_nodes_collect(ctx, a, &nodes);
	if (r < 0) {
		snprintf(why, len, "cannot list its device nodes: %s", strerror(-r));
		return r;
	}
	r = inuse_check(ctx, &nodes, why, len);
	inuse_nodes_free(&nodes);
	return r;
}
