// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake-kernel.c - an LD_PRELOAD stand-in for the kernel's SCSI midlayer, for
 * running the programs against a fake sysfs tree.
 *
 * FAKE_KERNEL_ROOT is the tree (what --sysfs points at), FAKE_KERNEL_SCRIPT a
 * file describing the devices behind each host:
 *
 *   host H max_channel C max_id T max_lun L [transport fc|sas|iscsi]
 *        [wlun refused] [delay_ms N] [lost_after N]
 *   lu H:C:T:L pdt N version V vendor S model S rev S [pq N] [mounted PATH]
 *      [wwid S] [serial S] [naa HEX]   (the wwid, vpd_pg80 and vpd_pg83
 *      attributes; naa: 16 hex digits of an NAA logical-unit designator)
 *      [sectors N] [grows N]   (a disk sdX of N sectors; a write to its
 *      rescan file makes it the grows size, as a resized LUN)
 *      [tpgs N]   (INQUIRY's TPGS field: target port groups)
 *      [dh NAME]  (the handler the kernel attaches at add: its dh_state;
 *      "none": no dh_state, a kernel without scsi_dh; default "detached",
 *      and a write of a name attaches that one, once)
 *      [blacklist S]  (what the kernel's blacklist attribute shows, as
 *      "SPARSELUN_NOSTARTONADD")
 *      [inq_len N]  (an INQUIRY sent now answers N bytes, its additional
 *      length saying so: a device that answers short)
 *      [naa_len N]  (VPD page 0x83 sent now gives its NAA designator as N
 *      bytes, 0 to 8: a malformed one)
 *   report H:C:T fail|ua N|list L,L,...|resid N   (N: the residual the HBA reports)
 *   report H:C:T short N [times K]   (the transfer carries only the first N
 *      bytes, the header still announces the whole list; for the first K
 *      commands only, or every one)
 *   inquiry H:C:T:L fail
 *   gone H:C:T          (every command fails with DID_NO_CONNECT, no sense)
 *
 * A write of "VENDOR:MODEL:FLAGS[,...]" to proc/scsi/device_info puts each
 * item at the head of that file, as "'VENDOR  ' 'MODEL           ' 0xFLAGS"
 * (CONFIG_SCSI_PROC_FS).
 *
 * Strings in the script use '_' for spaces. Writes to a host's "scan" file
 * attach the named LUN as the kernel would (a directory under
 * sys/bus/scsi/devices with its attributes and an sg node), writes to a
 * device's "delete" remove it, and SG_IO ioctls on the sg nodes answer
 * INQUIRY (VPD pages 0x80 and 0x83 from the script as it is at the command:
 * edit the script after an attach for a remapped LUN) and REPORT LUNS.
 * Every command is appended to FAKE_KERNEL_LOG, and the thread of each
 * scan write of one LUN to FAKE_KERNEL_WRITERS if it is set.
 * Anything the script does not foresee aborts: a test must not pass by
 * accident.
 *
 * A host with a transport answers a scan write for any channel and id with
 * success, as the transports' user_scan does (fc_user_scan, sas_user_scan,
 * iscsi_user_scan): its limits never give EINVAL. "wlun refused" makes the
 * REPORT LUNS well-known LUN attach nothing, as LIO's CHECK CONDITION does.
 * "delay_ms" makes every scan write of the host take that long.
 * "lost_after N": after N scan writes the transport loses the host's
 * targets, as a session that fails or a remote port that is blocked: each
 * iSCSI session of the host (sys/devices/platform/hostH/session*) reads
 * FAILED, and scan writes attach nothing. A LUN
 * "mounted" on PATH gets a disk sdX (240:16n) that is mounted there as soon
 * as it is attached, as an automounter or a stale fstab entry would do.
 *
 * A host whose device directory ROOT/sys/devices/fake/hostH exists (the
 * tree links sys/class/scsi_host/hostH/device to it) gets its LUNs as the
 * kernel's sysfs lays them out: under targetH:C:T there, each linked from
 * sys/bus/scsi/devices; a delete removes the LUN, and its target with the
 * last one.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <scsi/sg.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luns.h"

struct host {
	unsigned int h;
	unsigned int max_channel, max_id;
	uint64_t max_lun;
	bool any_id;
	bool wlun_refused;
	unsigned int delay_ms;
	unsigned int lost_after;
	unsigned int writes;
};

struct lu {
	unsigned int h, c, t;
	uint64_t l;
	int pdt, version, pq;
	char vendor[9], model[17], rev[5];
	char wwid[300], serial[32], naa[17];
	long long sectors, grows;
	char mounted[64];
	bool inquiry_fails;
	int tpgs;
	char dh[16];
	char blacklist[256];
	int inq_len;
	int naa_len;
};

struct report {
	unsigned int h, c, t;
	bool fail;
	bool gone;
	bool has_resid;
	int resid;
	size_t short_len;
	unsigned int short_times;
	unsigned int short_used;
	int ua;
	bool has_list;
	uint64_t list[64];
	size_t n;
};

static struct host *hosts;
static size_t nhosts, hosts_max;
static struct lu *lus;
static size_t nlus, lus_max;
static struct report reports[64];
static size_t nreports;
static const char *root;
static bool loaded;

/* The daemon scans hosts from several threads; the fake kernel's state
 * (device directories, sg numbers, unit attentions) changes under one lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_ioctl)(int, unsigned long, ...);

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fake-kernel: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* Appends a line to the file named by environment variable @var, if set. */
static void vappend(const char *var, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vappend(const char *var, const char *fmt, va_list ap)
{
	const char *path = getenv(var);
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fclose(f);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend("FAKE_KERNEL_LOG", fmt, ap);
	va_end(ap);
}

static void append(const char *var, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void append(const char *var, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(var, fmt, ap);
	va_end(ap);
}

/* '_' is a space and \xNN a byte, so scripts can hold hostile strings. */
static void unscore(char *s)
{
	char *out = s;

	for (; *s; s++) {
		unsigned int v;

		if (*s == '_') {
			*out++ = ' ';
		} else if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
			*out++ = (char)v;
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* The fake kernel's own tables, mapped apart and listed in
 * ROOT/.fake-kernel-tables ("ADDRESS SIZE" in hex): a measure of a
 * program's memory (bench/daemon-rss.sh) takes them out of its RSS. */
static void *table_alloc(size_t size)
{
	char path[PATH_MAX];
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *f;

	if (p == MAP_FAILED)
		die("out of memory");
	snprintf(path, sizeof(path), "%s/.fake-kernel-tables", root);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%lx %zx\n", (unsigned long)p, size);
		fclose(f);
	}
	return p;
}

/* Runs before main, so no thread can see a half-read script. */
static void load(void) __attribute__((constructor));

static void load(void)
{
	char line[1024];
	const char *path;
	FILE *f;

	if (loaded)
		return;
	loaded = true;
	real_write = dlsym(RTLD_NEXT, "write");
	real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	root = getenv("FAKE_KERNEL_ROOT");
	path = getenv("FAKE_KERNEL_SCRIPT");
	/* The helpers this file runs (ls, rm) must not load it again; but
	 * valgrind's launcher, which loads it too, must pass it on to the
	 * program it runs (bench/callgrind-scan.sh). */
	if (strncmp(program_invocation_short_name, "valgrind", 8) != 0)
		unsetenv("LD_PRELOAD");
	if (!root || !path)
		return;
	f = fopen(path, "r");
	if (!f)
		die("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		char first[8];

		if (sscanf(line, " %7s", first) == 1 && strcmp(first, "lu") == 0)
			lus_max++;
	}
	lus = table_alloc((lus_max ? lus_max : 1) * sizeof(*lus));
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *tok = strtok(line, " \t\n");

		if (!tok || tok[0] == '#')
			continue;
		if (strcmp(tok, "host") == 0) {
			struct host *h;

			if (nhosts == hosts_max) {
				hosts_max = hosts_max ? 2 * hosts_max : 16;
				hosts = realloc(hosts, hosts_max * sizeof(*hosts));
				if (!hosts)
					die("out of memory");
			}
			h = &hosts[nhosts++];
			memset(h, 0, sizeof(*h));

			h->h = atoi(strtok(NULL, " \t\n"));
			h->max_channel = 0;
			h->max_id = 8;
			h->max_lun = 8;
			for (char *k = strtok(NULL, " \t\n"); k; k = strtok(NULL, " \t\n")) {
				char *v = strtok(NULL, " \t\n");

				if (!v)
					die("host: %s needs a value", k);
				if (strcmp(k, "max_channel") == 0)
					h->max_channel = atoi(v);
				else if (strcmp(k, "max_id") == 0)
					h->max_id = atoi(v);
				else if (strcmp(k, "max_lun") == 0)
					h->max_lun = strtoull(v, NULL, 0);
				else if (strcmp(k, "transport") == 0)
					h->any_id = true;
				else if (strcmp(k, "wlun") == 0 && strcmp(v, "refused") == 0)
					h->wlun_refused = true;
				else if (strcmp(k, "delay_ms") == 0)
					h->delay_ms = atoi(v);
				else if (strcmp(k, "lost_after") == 0)
					h->lost_after = atoi(v);
				else
					die("host: unknown key %s", k);
			}
		} else if (strcmp(tok, "lu") == 0) {
			struct lu *u = &lus[nlus++];

			memset(u, 0, sizeof(*u));
			if (sscanf(strtok(NULL, " \t\n"), "%u:%u:%u:%" SCNu64, &u->h, &u->c, &u->t,
				   &u->l) != 4)
				die("lu: bad address");
			u->version = 5;
			strcpy(u->vendor, "FAKE");
			strcpy(u->model, "Disk");
			strcpy(u->rev, "1.0");
			for (char *k = strtok(NULL, " \t\n"); k; k = strtok(NULL, " \t\n")) {
				char *v = strtok(NULL, " \t\n");

				if (!v)
					die("lu: %s needs a value", k);
				unscore(v);
				if (strcmp(k, "pdt") == 0)
					u->pdt = atoi(v);
				else if (strcmp(k, "version") == 0)
					u->version = atoi(v);
				else if (strcmp(k, "pq") == 0)
					u->pq = atoi(v);
				else if (strcmp(k, "vendor") == 0)
					snprintf(u->vendor, sizeof(u->vendor), "%s", v);
				else if (strcmp(k, "model") == 0)
					snprintf(u->model, sizeof(u->model), "%s", v);
				else if (strcmp(k, "rev") == 0)
					snprintf(u->rev, sizeof(u->rev), "%s", v);
				else if (strcmp(k, "mounted") == 0)
					snprintf(u->mounted, sizeof(u->mounted), "%s", v);
				else if (strcmp(k, "wwid") == 0)
					snprintf(u->wwid, sizeof(u->wwid), "%s", v);
				else if (strcmp(k, "serial") == 0)
					snprintf(u->serial, sizeof(u->serial), "%s", v);
				else if (strcmp(k, "sectors") == 0)
					u->sectors = atoll(v);
				else if (strcmp(k, "grows") == 0)
					u->grows = atoll(v);
				else if (strcmp(k, "naa") == 0 && strlen(v) == 16)
					snprintf(u->naa, sizeof(u->naa), "%s", v);
				else if (strcmp(k, "tpgs") == 0)
					u->tpgs = atoi(v);
				else if (strcmp(k, "dh") == 0) {
					/* a handler's name keeps its '_' (hp_sw) */
					for (char *p = v; *p; p++)
						*p = *p == ' ' ? '_' : *p;
					snprintf(u->dh, sizeof(u->dh), "%s", v);
				} else if (strcmp(k, "blacklist") == 0)
					snprintf(u->blacklist, sizeof(u->blacklist), "%s", v);
				else if (strcmp(k, "inq_len") == 0 && atoi(v) > 0 && atoi(v) <= 96)
					u->inq_len = atoi(v);
				else if (strcmp(k, "naa_len") == 0 && atoi(v) >= 0 && atoi(v) <= 8)
					u->naa_len = atoi(v) + 1;
				else
					die("lu: unknown key %s (or a bad value)", k);
			}
		} else if (strcmp(tok, "report") == 0) {
			struct report *r = &reports[nreports++];
			char *what;

			memset(r, 0, sizeof(*r));
			if (sscanf(strtok(NULL, " \t\n"), "%u:%u:%u", &r->h, &r->c, &r->t) != 3)
				die("report: bad address");
			what = strtok(NULL, " \t\n");
			if (what && strcmp(what, "fail") == 0) {
				r->fail = true;
			} else if (what && strcmp(what, "ua") == 0) {
				r->ua = atoi(strtok(NULL, " \t\n"));
			} else if (what && strcmp(what, "resid") == 0) {
				r->has_resid = true;
				r->resid = atoi(strtok(NULL, " \t\n"));
			} else if (what && strcmp(what, "short") == 0) {
				char *k;

				r->short_len = strtoul(strtok(NULL, " \t\n"), NULL, 0);
				k = strtok(NULL, " \t\n");
				if (k && strcmp(k, "times") == 0)
					r->short_times = atoi(strtok(NULL, " \t\n"));
				else if (k)
					die("report: short N [times K]");
			} else if (what && strcmp(what, "list") == 0) {
				r->has_list = true;
				for (char *v = strtok(strtok(NULL, " \t\n"), ","); v;
				     v = strtok(NULL, ","))
					r->list[r->n++] = strtoull(v, NULL, 0);
			} else {
				die("report: fail, ua N or list L,L");
			}
		} else if (strcmp(tok, "gone") == 0) {
			struct report *r = &reports[nreports++];

			memset(r, 0, sizeof(*r));
			if (sscanf(strtok(NULL, " \t\n"), "%u:%u:%u", &r->h, &r->c, &r->t) != 3)
				die("gone: bad address");
			r->gone = true;
		} else if (strcmp(tok, "inquiry") == 0) {
			unsigned int h, c, t;
			uint64_t l;

			if (sscanf(strtok(NULL, " \t\n"), "%u:%u:%u:%" SCNu64, &h, &c, &t, &l) != 4)
				die("inquiry: bad address");
			for (size_t i = 0; i < nlus; i++)
				if (lus[i].h == h && lus[i].c == c && lus[i].t == t &&
				    lus[i].l == l)
					lus[i].inquiry_fails = true;
		} else {
			die("unknown script line %s", tok);
		}
	}
	fclose(f);
}

static struct host *find_host(unsigned int h)
{
	for (size_t i = 0; i < nhosts; i++)
		if (hosts[i].h == h)
			return &hosts[i];
	return NULL;
}

static struct lu *find_lu(unsigned int h, unsigned int c, unsigned int t, uint64_t l)
{
	for (size_t i = 0; i < nlus; i++)
		if (lus[i].h == h && lus[i].c == c && lus[i].t == t && lus[i].l == l)
			return &lus[i];
	return NULL;
}

static bool target_exists(unsigned int h, unsigned int c, unsigned int t)
{
	for (size_t i = 0; i < nlus; i++)
		if (lus[i].h == h && lus[i].c == c && lus[i].t == t)
			return true;
	return false;
}

static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("cannot create %s", path);
	if (len && real_write(fd, data, len) != (ssize_t)len)
		die("cannot write %s", path);
	close(fd);
}

static void inquiry_bytes(const struct lu *u, uint64_t l, uint8_t *b)
{
	memset(b, 0, 96);
	memset(b + 8, ' ', 28);
	b[0] = (uint8_t)(u->pq << 5 | (lun_is_wlun(l) ? 0x1e : u->pdt));
	b[2] = (uint8_t)u->version;
	b[3] = 2;
	b[4] = 91;
	b[5] = (uint8_t)(u->tpgs << 4);
	memcpy(b + 8, u->vendor, strlen(u->vendor));
	memcpy(b + 16, u->model, strlen(u->model));
	memcpy(b + 32, u->rev, strlen(u->rev));
}

/* No sg node below it is free (the lowest free one is what the kernel's
 * idr gives): a target of thousands of LUNs is not a quadratic search. */
static int sg_free_from;

static int next_sg(void)
{
	char path[PATH_MAX];
	struct stat st;

	for (int n = sg_free_from;; n++) {
		snprintf(path, sizeof(path), "%s/dev/sg%d", root, n);
		if (stat(path, &st) < 0) {
			sg_free_from = n + 1;
			return n;
		}
	}
}

/* The disk sdX of sg node @n under the device directory @dir. */
static void make_disk(const char *dir, int n, long long sectors)
{
	char sub[PATH_MAX + 32], class[PATH_MAX + 32], text[32], dev[32];
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/block", dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/block/sd%c", dir, 'a' + n % 26);
	mkdir(sub, 0755);
	snprintf(text, sizeof(text), "%lld\n", sectors);
	put_file(sub, "size", text, strlen(text));
	snprintf(dev, sizeof(dev), "240:%d\n", 16 * n);
	put_file(sub, "dev", dev, strlen(dev));
	/* The disk in its class too, as sysfs has it: a link to the device's
	 * own directory (a directory left by an older tree is written). */
	snprintf(class, sizeof(class), "%s/sys/class/block", root);
	mkdir(class, 0755);
	snprintf(class, sizeof(class), "%s/sys/class/block/sd%c", root, 'a' + n % 26);
	if (lstat(class, &st) == 0 && S_ISLNK(st.st_mode))
		unlink(class);
	if (symlink(sub, class) < 0) {
		mkdir(class, 0755);
		put_file(class, "size", text, strlen(text));
		put_file(class, "dev", dev, strlen(dev));
	}
}

static void mount_disk(const char *dir, int n, const char *where)
{
	char disk[16], sub[PATH_MAX + 32], text[PATH_MAX];
	FILE *f;

	snprintf(disk, sizeof(disk), "sd%c", 'a' + n % 26);
	make_disk(dir, n, 0);
	snprintf(sub, sizeof(sub), "%s/sys/class/block/%s", root, disk);
	mkdir(sub, 0755);
	snprintf(text, sizeof(text), "240:%d\n", 16 * n);
	put_file(sub, "dev", text, strlen(text));
	snprintf(sub, sizeof(sub), "%s/proc/self/mountinfo", root);
	f = fopen(sub, "a");
	if (!f)
		die("cannot open %s", sub);
	fprintf(f, "%d 22 240:%d / %s rw - ext4 /dev/%s rw\n", 100 + n, 16 * n, where, disk);
	fclose(f);
}

/*
 * Makes the directory of device H:C:T:L and puts its path in @dir. A host
 * with a device tree (ROOT/sys/devices/fake/hostH, the host's "device" in
 * its class directory linking to it) has its devices under their targets
 * there, each linked from sys/bus/scsi/devices, as the kernel's sysfs has
 * them; otherwise the device's directory is in sys/bus/scsi/devices.
 */
static void make_device_dir(char *dir, size_t len, unsigned int h, unsigned int c, unsigned int t,
			    uint64_t l)
{
	char host[PATH_MAX], link[PATH_MAX], rel[128];
	struct stat st;

	snprintf(link, sizeof(link), "%s/sys/bus/scsi/devices/%u:%u:%u:%" PRIu64, root, h, c, t, l);
	snprintf(host, sizeof(host), "%s/sys/devices/fake/host%u", root, h);
	if (stat(host, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(dir, len, "%s", link);
		if (mkdir(dir, 0755) < 0)
			die("mkdir %s: %s", dir, strerror(errno));
		return;
	}
	snprintf(dir, len, "%s/target%u:%u:%u", host, h, c, t);
	mkdir(dir, 0755);
	snprintf(dir, len, "%s/target%u:%u:%u/%u:%u:%u:%" PRIu64, host, h, c, t, h, c, t, l);
	if (mkdir(dir, 0755) < 0)
		die("mkdir %s: %s", dir, strerror(errno));
	snprintf(rel, sizeof(rel), "../../../devices/fake/host%u/target%u:%u:%u/%u:%u:%u:%" PRIu64,
		 h, h, c, t, h, c, t, l);
	if (symlink(rel, link) < 0)
		die("symlink %s: %s", link, strerror(errno));
}

static void attach(unsigned int h, unsigned int c, unsigned int t, uint64_t l, const struct lu *u)
{
	char dir[PATH_MAX], sub[PATH_MAX + 32], text[320], sg[32];
	uint8_t inq[96];
	int n = next_sg();

	make_device_dir(dir, sizeof(dir), h, c, t, l);
	inquiry_bytes(u, l, inq);
	snprintf(text, sizeof(text), "%-8.8s\n", u->vendor);
	put_file(dir, "vendor", text, strlen(text));
	snprintf(text, sizeof(text), "%-16.16s\n", u->model);
	put_file(dir, "model", text, strlen(text));
	snprintf(text, sizeof(text), "%-4.4s\n", u->rev);
	put_file(dir, "rev", text, strlen(text));
	snprintf(text, sizeof(text), "%d\n", inq[0] & 0x1f);
	put_file(dir, "type", text, strlen(text));
	snprintf(text, sizeof(text), "%d\n", u->version + 1);
	put_file(dir, "scsi_level", text, strlen(text));
	put_file(dir, "state", "running\n", 8);
	snprintf(text, sizeof(text), "%s%s", u->blacklist, u->blacklist[0] ? "\n" : "");
	put_file(dir, "blacklist", text, strlen(text));
	if (strcmp(u->dh, "none") != 0) {
		snprintf(text, sizeof(text), "%s\n", u->dh[0] ? u->dh : "detached");
		put_file(dir, "dh_state", text, strlen(text));
	}
	put_file(dir, "delete", "", 0);
	put_file(dir, "rescan", "", 0);
	put_file(dir, "inquiry", inq, 96);
	if (u->sectors)
		make_disk(dir, n, u->sectors);
	if (u->wwid[0]) {
		snprintf(text, sizeof(text), "%s\n", u->wwid);
		put_file(dir, "wwid", text, strlen(text));
	}
	if (u->serial[0]) {
		uint8_t pg[4 + sizeof(u->serial)] = { inq[0], 0x80, 0, (uint8_t)strlen(u->serial) };

		memcpy(pg + 4, u->serial, strlen(u->serial));
		put_file(dir, "vpd_pg80", pg, 4 + strlen(u->serial));
	}
	if (u->naa[0]) {
		/* One designation descriptor: binary, logical unit, NAA. */
		uint8_t pg[16] = { inq[0], 0x83, 0, 12, 0x01, 0x03, 0x00, 8 };

		for (int i = 0; i < 8; i++)
			sscanf(u->naa + 2 * i, "%2hhx", &pg[8 + i]);
		put_file(dir, "vpd_pg83", pg, sizeof(pg));
	}
	snprintf(sub, sizeof(sub), "%s/scsi_generic", dir);
	mkdir(sub, 0755);
	snprintf(sg, sizeof(sg), "sg%d", n);
	snprintf(sub, sizeof(sub), "%s/scsi_generic/sg%d", dir, n);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/dev", root);
	mkdir(sub, 0755);
	snprintf(text, sizeof(text), "%u:%u:%u:%" PRIu64 "\n", h, c, t, l);
	put_file(sub, sg, text, strlen(text));
	if (u->mounted[0])
		mount_disk(dir, n, u->mounted);
	note("attach %u:%u:%u:%" PRIu64 " as %s", h, c, t, l, sg);
}

/* Every iSCSI session of host @h as the test tree places it reads FAILED. */
static void lose_sessions(unsigned int h)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/devices/platform/host%u", root, h);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX + 600];
		FILE *f;

		if (strncmp(de->d_name, "session", 7) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/iscsi_session/%s/state", dir, de->d_name,
			 de->d_name);
		f = fopen(path, "w");
		if (f) {
			fputs("FAILED\n", f);
			fclose(f);
		}
	}
	closedir(d);
}

static int fake_scan(unsigned int h, const char *buf, size_t n)
{
	char cs[16], ts[16], ls[24], text[96];
	unsigned long long c, t, l;
	struct host *host = find_host(h);
	struct lu wlun;
	const struct lu *u;

	if (!host)
		die("scan on host%u, which the script does not describe", h);
	snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) - 1 ? n : sizeof(text) - 1),
		 buf);
	/* As store_scan() and check_set() read it: three tokens of at most
	 * 10, 10 and 16 characters, each a whole base-0 number or "-". */
	{
		char junk = 0, *end;
		int got = sscanf(text, "%10s %10s %16s%c", cs, ts, ls, &junk);

		if (got < 3 || (got == 4 && junk != '\n' && junk != ' ')) {
			note("scan host%u '%s': EINVAL (the kernel's token widths)", h, text);
			errno = EINVAL;
			return -1;
		}
		if (strcmp(ls, "-") != 0) {
			strtoull(ls, &end, 0);
			if (*end) {
				errno = EINVAL;
				return -1;
			}
		}
	}
	if (!strcmp(cs, "-") || !strcmp(ts, "-"))
		die("scan '%s': the fake kernel takes only explicit C T", text);
	if (host->lost_after && ++host->writes >= host->lost_after) {
		/* The transport's user_scan of a target it lost: success, and
		 * nothing is attached. */
		if (host->writes == host->lost_after)
			lose_sessions(h);
		note("scan host%u '%s': the transport lost the target", h, text);
		return (int)n;
	}
	c = strtoull(cs, NULL, 0);
	t = strtoull(ts, NULL, 0);
	if (!strcmp(ls, "-")) {
		/* The kernel's own scan of one target: what REPORT LUNS lists. */
		note("scan host%u %llu %llu -", h, c, t);
		if (!host->any_id && (c > host->max_channel || t >= host->max_id)) {
			errno = EINVAL;
			return -1;
		}
		for (size_t i = 0; i < nlus; i++) {
			char dir[PATH_MAX];
			struct stat st;

			if (lus[i].h != h || lus[i].c != c || lus[i].t != t || lus[i].pq == 3)
				continue;
			snprintf(dir, sizeof(dir), "%s/sys/bus/scsi/devices/%u:%llu:%llu:%" PRIu64,
				 root, h, c, t, lus[i].l);
			if (stat(dir, &st) < 0)
				attach(h, c, t, lus[i].l, &lus[i]);
		}
		return (int)n;
	}
	l = strtoull(ls, NULL, 0);
	note("scan host%u %llu %llu %llu", h, c, t, l);
	/* which thread wrote: how many writers a scan used */
	append("FAKE_KERNEL_WRITERS", "%ld", (long)gettid());
	if ((!host->any_id && (c > host->max_channel || t >= host->max_id)) || l >= host->max_lun) {
		errno = EINVAL;
		return -1;
	}
	{
		char dir[PATH_MAX];
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/sys/bus/scsi/devices/%u:%llu:%llu:%llu", root, h, c,
			 t, l);
		if (stat(dir, &st) == 0)
			return (int)n;
	}
	u = find_lu(h, c, t, l);
	if (!u && l == LUN_WLUN_REPORT_LUNS && !host->wlun_refused && target_exists(h, c, t)) {
		for (size_t i = 0; i < nlus; i++)
			if (lus[i].h == h && lus[i].c == c && lus[i].t == t) {
				wlun = lus[i];
				break;
			}
		wlun.pq = 0;
		u = &wlun;
	}
	if (u && u->pq != 3)
		attach(h, c, t, l, u);
	return (int)n;
}

static void remove_tree(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		die("cannot remove %s", dir);
}

static int fake_delete(const char *path, size_t n)
{
	char dir[PATH_MAX], sgdir[PATH_MAX + 16], node[PATH_MAX];
	size_t len = strlen(path) - strlen("/delete");

	snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
	snprintf(sgdir, sizeof(sgdir), "%s/scsi_generic", dir);
	{
		FILE *p;
		char cmd[PATH_MAX + 32], name[64] = "";

		snprintf(cmd, sizeof(cmd), "ls '%s' 2>/dev/null", sgdir);
		p = popen(cmd, "r");
		if (p && fgets(name, sizeof(name), p))
			name[strcspn(name, "\n")] = '\0';
		if (p)
			pclose(p);
		if (name[0]) {
			snprintf(node, sizeof(node), "%s/dev/%s", root, name);
			unlink(node);
			if (strncmp(name, "sg", 2) == 0 && atoi(name + 2) < sg_free_from)
				sg_free_from = atoi(name + 2);
		}
	}
	note("delete %s", strrchr(dir, '/') + 1);
	{
		char real[PATH_MAX];
		struct stat st;

		/* A link into a host's device tree: the device goes from
		 * under its target, and the target with its last device. */
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) && realpath(dir, real)) {
			remove_tree(real);
			unlink(dir);
			*strrchr(real, '/') = '\0';
			rmdir(real);
			return (int)n;
		}
	}
	remove_tree(dir);
	return (int)n;
}

/* A write to a device's rescan file: a LU that "grows" takes its new size. */
static ssize_t fake_rescan(const char *path, size_t n)
{
	char dir[PATH_MAX], sub[PATH_MAX + 32], text[32];
	unsigned int h, c, t;
	const struct lu *u;
	struct dirent *de;
	uint64_t l;
	DIR *d;

	if (sscanf(path + strlen(root), "/sys/bus/scsi/devices/%u:%u:%u:%" SCNu64, &h, &c, &t,
		   &l) != 4)
		die("rescan of %s", path);
	note("rescan %u:%u:%u:%" PRIu64, h, c, t, l);
	u = find_lu(h, c, t, l);
	if (!u || !u->grows)
		return (ssize_t)n;
	snprintf(dir, sizeof(dir), "%s/sys/bus/scsi/devices/%u:%u:%u:%" PRIu64 "/block", root, h, c,
		 t, l);
	d = opendir(dir);
	if (!d)
		return (ssize_t)n;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
			snprintf(text, sizeof(text), "%lld\n", u->grows);
			put_file(sub, "size", text, strlen(text));
		}
	closedir(d);
	return (ssize_t)n;
}

/* A write to a device's dh_state: a handler's name attaches it if the
 * device has none (the kernel loads the module); otherwise EINVAL. */
static ssize_t fake_dh_state(const char *path, const void *buf, size_t n)
{
	char dir[PATH_MAX], now[64] = "", name[64];
	size_t len = strlen(path) - strlen("/dh_state");
	FILE *f;

	snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
	snprintf(name, sizeof(name), "%.*s", (int)(n < 63 ? n : 63), (const char *)buf);
	name[strcspn(name, "\n")] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(now, sizeof(now), f))
			now[0] = '\0';
		fclose(f);
	}
	note("dh_state %s %s", strrchr(dir, '/') + 1, name);
	if (strcmp(now, "detached\n") != 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(now, sizeof(now), "%s\n", name);
	put_file(dir, "dh_state", now, strlen(now));
	return (ssize_t)n;
}

/* A write to proc/scsi/device_info: the kernel's list gets the items at
 * its head, and the file shows them first. */
static ssize_t fake_device_info(const char *path, const void *buf, size_t n)
{
	char in[512], out[4096] = "", old[8192] = "", *item, *save = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(in, sizeof(in), "%.*s", (int)(n < sizeof(in) - 1 ? n : sizeof(in) - 1),
		 (const char *)buf);
	f = fopen(path, "r");
	if (f) {
		len = fread(old, 1, sizeof(old) - 1, f);
		old[len] = '\0';
		fclose(f);
	}
	for (item = strtok_r(in, ",\n", &save); item; item = strtok_r(NULL, ",\n", &save)) {
		char vendor[16] = "", model[32] = "", line[96];
		unsigned long long flags = 0;

		if (sscanf(item, "%15[^:]:%31[^:]:%llx", vendor, model, &flags) != 3) {
			errno = EINVAL;
			return -1;
		}
		snprintf(line, sizeof(line), "'%-8.8s' '%-16.16s' 0x%llx\n", vendor, model, flags);
		/* later items go to the head before earlier ones */
		memmove(out + strlen(line), out, strlen(out) + 1);
		memcpy(out, line, strlen(line));
		note("device_info %s", item);
	}
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s", path);
	fputs(out, f);
	fputs(old, f);
	fclose(f);
	return (ssize_t)n;
}

/* A file of a device in a host's device tree, by the name of its link in
 * sys/bus/scsi/devices, where the writes below look for it: the path a
 * file descriptor's link in /proc names is the tree's. */
static void device_tree_path(char *path, size_t len)
{
	size_t rl = strlen(root);
	char *p, rest[PATH_MAX];

	if (strncmp(path, root, rl) != 0 || strncmp(path + rl, "/sys/devices/", 13) != 0)
		return;
	for (p = path + rl + 13; (p = strchr(p, '/')); p++) {
		unsigned int h, c, t;
		uint64_t l;
		int end = 0;

		if (sscanf(p + 1, "%u:%u:%u:%" SCNu64 "%n", &h, &c, &t, &l, &end) == 4 &&
		    (p[1 + end] == '/' || !p[1 + end])) {
			snprintf(rest, sizeof(rest), "%s", p + 1);
			snprintf(path + rl, len - rl, "/sys/bus/scsi/devices/%s", rest);
			return;
		}
	}
}

ssize_t write(int fd, const void *buf, size_t n)
{
	char link[64], path[PATH_MAX];
	size_t rl;
	ssize_t len;
	unsigned int h;

	load();
	if (!root)
		return real_write(fd, buf, n);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return real_write(fd, buf, n);
	path[len] = '\0';
	rl = strlen(root);
	device_tree_path(path, sizeof(path));
	if (strncmp(path, root, rl) != 0)
		return real_write(fd, buf, n);
	if (sscanf(path + rl, "/sys/class/scsi_host/host%u/scan", &h) == 1 &&
	    strcmp(strrchr(path, '/'), "/scan") == 0) {
		const struct host *host = find_host(h);

		/* A slow host delays its own writers only, as a real one does. */
		if (host && host->delay_ms)
			usleep(host->delay_ms * 1000);
		pthread_mutex_lock(&lock);
		len = fake_scan(h, buf, n);
		pthread_mutex_unlock(&lock);
		return len;
	}
	if (strncmp(path + rl, "/sys/bus/scsi/devices/", 22) == 0 &&
	    strcmp(strrchr(path, '/'), "/rescan") == 0) {
		pthread_mutex_lock(&lock);
		len = fake_rescan(path, n);
		pthread_mutex_unlock(&lock);
		return len;
	}
	if (strcmp(path + rl, "/proc/scsi/device_info") == 0) {
		pthread_mutex_lock(&lock);
		len = fake_device_info(path, buf, n);
		pthread_mutex_unlock(&lock);
		return len;
	}
	if (strncmp(path + rl, "/sys/bus/scsi/devices/", 22) == 0 &&
	    strcmp(strrchr(path, '/'), "/dh_state") == 0) {
		pthread_mutex_lock(&lock);
		len = fake_dh_state(path, buf, n);
		pthread_mutex_unlock(&lock);
		return len;
	}
	if (strncmp(path + rl, "/sys/bus/scsi/devices/", 22) == 0 &&
	    strcmp(strrchr(path, '/'), "/delete") == 0) {
		pthread_mutex_lock(&lock);
		len = fake_delete(path, n);
		pthread_mutex_unlock(&lock);
		return len;
	}
	return real_write(fd, buf, n);
}

static bool addr_of_sg(const char *sgname, unsigned int *h, unsigned int *c, unsigned int *t,
		       uint64_t *l)
{
	char cmd[PATH_MAX + 64], line[256];
	FILE *p;
	bool ok = false;

	/* The node names its device when this file attached it; a node a
	 * test made by hand is looked for among the devices, which costs a
	 * listing of all of them per command. */
	snprintf(cmd, sizeof(cmd), "%s/dev/%s", root, sgname);
	p = fopen(cmd, "r");
	if (p) {
		ok = fgets(line, sizeof(line), p) &&
		     sscanf(line, "%u:%u:%u:%" SCNu64, h, c, t, l) == 4;
		fclose(p);
		if (ok)
			return true;
	}
	snprintf(cmd, sizeof(cmd), "ls -d '%s'/sys/bus/scsi/devices/*/scsi_generic/%s 2>/dev/null",
		 root, sgname);
	p = popen(cmd, "r");
	if (!p)
		return false;
	if (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "/devices/");

		ok = s && sscanf(s, "/devices/%u:%u:%u:%" SCNu64, h, c, t, l) == 4;
	}
	pclose(p);
	return ok;
}

static void set_sense(sg_io_hdr_t *hdr, uint8_t key, uint8_t asc, uint8_t ascq)
{
	uint8_t sense[18] = { 0x70, 0, key, 0, 0, 0, 0, 10, 0, 0, 0, 0, asc, ascq };

	hdr->status = 0x02;
	hdr->masked_status = 0x01;
	hdr->driver_status = 0x08; /* DRIVER_SENSE */
	hdr->sb_len_wr = hdr->mx_sb_len < sizeof(sense) ? hdr->mx_sb_len : sizeof(sense);
	memcpy(hdr->sbp, sense, hdr->sb_len_wr);
}

/*
 * A tree captured from a real system (tests/golden) answers with the bytes
 * the device gave: .sgio/H:C:T:L/inquiry and report_luns, or
 * report_luns.fail for a device that refused REPORT LUNS. Return: 1 with
 * @out filled, 0 refused, -1 nothing captured.
 */
static int replay(const char *what, unsigned int h, unsigned int c, unsigned int t, uint64_t l,
		  uint8_t *out, size_t size, size_t *ret_len)
{
	char path[PATH_MAX];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.sgio/%u:%u:%u:%" PRIu64 "/%s.fail", root, h, c, t, l,
		 what);
	if (stat(path, &st) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/.sgio/%u:%u:%u:%" PRIu64 "/%s", root, h, c, t, l, what);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	*ret_len = fread(out, 1, size, f);
	fclose(f);
	return 1;
}

static int fake_sg_io(const char *path, sg_io_hdr_t *hdr)
{
	unsigned int h, c, t;
	uint64_t l;
	const struct lu *u;
	uint8_t *cdb = hdr->cmdp;
	/* Room for every LUN of the script in one REPORT LUNS answer (kept
	 * from call to call: the script does not shrink). */
	static uint8_t *out;
	static size_t out_size;
	size_t need = 8 + 8 * (nlus + 1024) + 4096;
	size_t len = 0;
	bool has_bogus = false;
	int bogus_resid = 0, r0;

	if (!addr_of_sg(strrchr(path, '/') + 1, &h, &c, &t, &l))
		die("SG_IO on %s, which no device owns", path);
	hdr->status = hdr->masked_status = hdr->host_status = hdr->driver_status = 0;
	hdr->sb_len_wr = 0;
	hdr->resid = 0;
	if (need > out_size) {
		out = table_alloc(need);
		out_size = need;
		memset(out, 0, out_size);
	}
	/* What an answer other than REPORT LUNS fills: INQUIRY and its VPD
	 * pages. */
	memset(out, 0, out_size < 4096 ? out_size : 4096);
	for (size_t i = 0; i < nreports; i++)
		if (reports[i].gone && reports[i].h == h && reports[i].c == c &&
		    reports[i].t == t) {
			note("%s %u:%u:%u:%" PRIu64 ": DID_NO_CONNECT",
			     cdb[0] == 0x12 ? "INQUIRY" : "REPORT LUNS", h, c, t, l);
			hdr->host_status = 0x01;
			hdr->info = SG_INFO_CHECK;
			return 0;
		}
	if (cdb[0] == 0x12 && !(cdb[1] & 1) && replay("inquiry", h, c, t, l, out, 96, &len) > 0) {
		note("INQUIRY %u:%u:%u:%" PRIu64 " len %u (captured)", h, c, t, l, cdb[4]);
	} else if (cdb[0] == 0xa0 &&
		   (r0 = replay("report_luns", h, c, t, l, out, out_size, &len)) >= 0) {
		note("REPORT LUNS %u:%u:%u len %u (captured)", h, c, t,
		     (unsigned int)(cdb[6] << 24 | cdb[7] << 16 | cdb[8] << 8 | cdb[9]));
		if (r0 == 0) {
			set_sense(hdr, 0x05, 0x20, 0x00);
			return 0;
		}
	} else if (cdb[0] == 0x12 && (cdb[1] & 1)) {
		/* VPD pages 0x80 and 0x83 as the script says now: a script
		 * edited after the attach is a remapped LUN. */
		u = find_lu(h, c, t, l);
		if (!u && (cdb[2] == 0x80 || cdb[2] == 0x83)) {
			/* A captured tree: the device answers what the kernel
			 * copied when it attached it (the same unit). */
			char vpd[PATH_MAX];
			FILE *f;

			snprintf(vpd, sizeof(vpd),
				 "%s/sys/bus/scsi/devices/%u:%u:%u:%" PRIu64 "/vpd_pg%02x", root, h,
				 c, t, l, cdb[2]);
			note("INQUIRY VPD 0x%02x %u:%u:%u:%" PRIu64 " (captured)", cdb[2], h, c, t,
			     l);
			f = fopen(vpd, "rb");
			if (!f) {
				set_sense(hdr, 0x05, 0x24, 0x00);
				return 0;
			}
			len = fread(out, 1, out_size, f);
			fclose(f);
			goto answered;
		}
		if (!u)
			die("INQUIRY VPD 0x%02x to %u:%u:%u:%" PRIu64 ", not in the script", cdb[2],
			    h, c, t, l);
		note("INQUIRY VPD 0x%02x %u:%u:%u:%" PRIu64, cdb[2], h, c, t, l);
		out[0] = (uint8_t)u->pdt;
		out[1] = cdb[2];
		if (cdb[2] == 0x80 && u->serial[0]) {
			out[3] = (uint8_t)strlen(u->serial);
			memcpy(out + 4, u->serial, strlen(u->serial));
			len = 4 + strlen(u->serial);
		} else if (cdb[2] == 0x83 && u->naa[0]) {
			out[3] = 12;
			out[4] = 0x01;
			out[5] = 0x03;
			out[7] = 8;
			for (int i = 0; i < 8; i++)
				sscanf(u->naa + 2 * i, "%2hhx", &out[8 + i]);
			len = 16;
			if (u->naa_len) {
				out[7] = (uint8_t)(u->naa_len - 1);
				out[3] = (uint8_t)(4 + out[7]);
				len = 8 + out[7];
			}
		} else {
			set_sense(hdr, 0x05, 0x24, 0x00);
			return 0;
		}
	} else if (cdb[0] == 0x12) {
		u = find_lu(h, c, t, l);
		if (!u) {
			for (size_t i = 0; i < nlus && !u; i++)
				if (lus[i].h == h && lus[i].c == c && lus[i].t == t)
					u = &lus[i];
		}
		if (!u)
			die("INQUIRY to %u:%u:%u:%" PRIu64 ", not in the script", h, c, t, l);
		note("INQUIRY %u:%u:%u:%" PRIu64 " len %u", h, c, t, l, cdb[4]);
		if (u->inquiry_fails) {
			set_sense(hdr, 0x05, 0x24, 0x00);
			return 0;
		}
		inquiry_bytes(u, l, out);
		len = 96;
		if (u->inq_len) {
			len = (size_t)u->inq_len;
			out[4] = len > 5 ? (uint8_t)(len - 5) : 0;
		}
	} else if (cdb[0] == 0xa0) {
		struct report *r = NULL;

		for (size_t i = 0; i < nreports; i++)
			if (reports[i].h == h && reports[i].c == c && reports[i].t == t)
				r = &reports[i];
		note("REPORT LUNS %u:%u:%u len %u", h, c, t,
		     (unsigned int)(cdb[6] << 24 | cdb[7] << 16 | cdb[8] << 8 | cdb[9]));
		if (r && r->fail) {
			set_sense(hdr, 0x05, 0x20, 0x00);
			return 0;
		}
		if (r && r->ua > 0) {
			r->ua--;
			set_sense(hdr, 0x06, 0x3f, 0x0e);
			return 0;
		}
		if (r && r->has_list) {
			for (size_t i = 0; i < r->n; i++)
				lun_to_scsilun(r->list[i], out + 8 + 8 * len++);
		} else {
			for (size_t i = 0; i < nlus; i++)
				if (lus[i].h == h && lus[i].c == c && lus[i].t == t &&
				    lus[i].pq != 3)
					lun_to_scsilun(lus[i].l, out + 8 + 8 * len++);
		}
		if (r && r->has_resid)
			bogus_resid = r->resid, has_bogus = true;
		out[0] = (uint8_t)((len * 8) >> 24);
		out[1] = (uint8_t)((len * 8) >> 16);
		out[2] = (uint8_t)((len * 8) >> 8);
		out[3] = (uint8_t)(len * 8);
		len = 8 + 8 * len;
		if (r && r->short_len && (!r->short_times || r->short_used++ < r->short_times) &&
		    len > r->short_len)
			len = r->short_len;
	} else {
		die("unexpected CDB 0x%02x", cdb[0]);
	}
answered:
	if (len > hdr->dxfer_len) {
		memcpy(hdr->dxferp, out, hdr->dxfer_len);
		hdr->resid = 0;
	} else {
		memcpy(hdr->dxferp, out, len);
		hdr->resid = (int)(hdr->dxfer_len - len);
	}
	if (has_bogus)
		hdr->resid = bogus_resid;
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	char link[64], path[PATH_MAX];
	va_list ap;
	void *arg;
	ssize_t len;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	load();
	if (!root || req != SG_IO)
		return real_ioctl(fd, req, arg);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return real_ioctl(fd, req, arg);
	path[len] = '\0';
	if (strncmp(path, root, strlen(root)) != 0)
		return real_ioctl(fd, req, arg);
	pthread_mutex_lock(&lock);
	len = fake_sg_io(path, arg);
	pthread_mutex_unlock(&lock);
	return (int)len;
}
