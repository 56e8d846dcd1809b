// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topology.c - a host's targets from its transport class in sysfs.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topology.h"

struct target_list {
	struct discover_target *items;
	size_t count;
};

static struct discover_target *list_add(struct target_list *l)
{
	struct discover_target *p = realloc(l->items, (l->count + 1) * sizeof(*p));

	if (!p)
		return NULL;
	l->items = p;
	p = &l->items[l->count++];
	memset(p, 0, sizeof(*p));
	return p;
}

static bool class_has(const struct sysfs_ctx *sys, const char *class, unsigned int host)
{
	char path[PATH_MAX];

	if (sysfs_path(sys, path, sizeof(path), "/sys/class/%s/host%u", class, host) < 0)
		return false;
	return access(path, F_OK) == 0;
}

static int open_class(const struct sysfs_ctx *sys, const char *class, DIR **ret)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/sys/class/%s", class);
	return sysfs_open_dir(sys, rel, ret);
}

/* A signed attribute such as scsi_target_id (-1 for none). */
static bool read_id(const struct sysfs_ctx *sys, const char *class, const char *name,
		    unsigned int *ret)
{
	char buf[32], *end;
	long v;

	if (sysfs_read(sys, buf, sizeof(buf), "/sys/class/%s/%s/scsi_target_id", class, name) <= 0)
		return false;
	v = strtol(buf, &end, 10);
	if (*end || end == buf || v < 0 || v > (long)SCSI_ADDR_NUMBER_MAX)
		return false;
	*ret = (unsigned int)v;
	return true;
}

static void read_text(const struct sysfs_ctx *sys, char *buf, size_t len, const char *class,
		      const char *name, const char *attr)
{
	if (sysfs_read(sys, buf, len, "/sys/class/%s/%s/%s", class, name, attr) < 0)
		snprintf(buf, len, "?");
}

/* The host of an iSCSI session: its class link points into
 * /sys/devices/.../hostH/sessionN/iscsi_session/sessionN. */
static bool session_host(const struct sysfs_ctx *sys, const char *name, unsigned int *ret)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	if (sysfs_path(sys, path, sizeof(path), "/sys/class/iscsi_session/%s", name) < 0)
		return false;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return scsi_path_session_host(link, ret) == 0;
}

/* The target of a session that sysfs names only once a LUN is attached:
 * .../sessionN/targetH:C:T. */
static bool session_target_dir(const struct sysfs_ctx *sys, const char *name, unsigned int *ret)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (sysfs_path(sys, path, sizeof(path), "/sys/class/iscsi_session/%s/device", name) < 0)
		return false;
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct scsi_addr a;

		found = scsi_name_target(de->d_name, &a) == 0;
		if (found)
			*ret = a.id;
	}
	closedir(d);
	return found;
}

static int read_iscsi(const struct sysfs_ctx *sys, unsigned int host, struct target_list *l)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = open_class(sys, "iscsi_session", &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		const char *cls = "iscsi_session";
		struct discover_target *t;
		char iqn[ISCSI_NAME_MAX + 1], tpgt[16], buf[32];
		unsigned int h;

		if (strncmp(de->d_name, "session", 7) != 0 || !session_host(sys, de->d_name, &h) ||
		    h != host)
			continue;
		t = list_add(l);
		if (!t) {
			closedir(d);
			return -ENOMEM;
		}
		t->is_target = true;
		if (sysfs_read(sys, buf, sizeof(buf), "/sys/class/iscsi_session/%s/target_id",
			       de->d_name) > 0) {
			char *end;
			unsigned long v = strtoul(buf, &end, 10);

			/* ISCSI_MAX_TARGET (-1 as unsigned) means none yet. */
			t->has_id = !*end && end != buf && v <= SCSI_ADDR_NUMBER_MAX;
			t->id = (unsigned int)v;
		} else {
			t->has_id = session_target_dir(sys, de->d_name, &t->id);
		}
		snprintf(t->name, sizeof(t->name), "%s", de->d_name);
		read_text(sys, iqn, sizeof(iqn), cls, de->d_name, "targetname");
		read_text(sys, tpgt, sizeof(tpgt), cls, de->d_name, "tpgt");
		snprintf(t->address, sizeof(t->address), "%s,%s", iqn, tpgt);
		read_text(sys, t->state, sizeof(t->state), cls, de->d_name, "state");
		t->reachable = strcmp(t->state, "LOGGED_IN") == 0;
	}
	closedir(d);
	return 0;
}

static int read_fc(const struct sysfs_ctx *sys, unsigned int host, struct target_list *l)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = open_class(sys, "fc_remote_ports", &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		const char *cls = "fc_remote_ports";
		struct discover_target *t;
		unsigned int h, c;
		char roles[128], wwpn[32];

		if (scsi_name_rport(de->d_name, &h, &c) < 0 || h != host)
			continue;
		t = list_add(l);
		if (!t) {
			closedir(d);
			return -ENOMEM;
		}
		t->channel = c;
		t->has_id = read_id(sys, cls, de->d_name, &t->id);
		read_text(sys, roles, sizeof(roles), cls, de->d_name, "roles");
		t->is_target = strstr(roles, "FCP Target") != NULL;
		snprintf(t->name, sizeof(t->name), "%s", de->d_name);
		read_text(sys, wwpn, sizeof(wwpn), cls, de->d_name, "port_name");
		snprintf(t->address, sizeof(t->address), "%s", wwpn);
		read_text(sys, t->state, sizeof(t->state), cls, de->d_name, "port_state");
		t->reachable = strcmp(t->state, "Online") == 0 || strcmp(t->state, "Marginal") == 0;
	}
	closedir(d);
	return 0;
}

static int read_sas(const struct sysfs_ctx *sys, unsigned int host, struct target_list *l)
{
	struct dirent *de;
	DIR *d;
	int r;

	r = open_class(sys, "sas_device", &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		const char *cls = "sas_device";
		struct discover_target *t;
		unsigned int h;
		char type[32];

		if (scsi_name_end_device(de->d_name, &h) < 0 || h != host)
			continue;
		t = list_add(l);
		if (!t) {
			closedir(d);
			return -ENOMEM;
		}
		/* sas_user_scan() scans end devices with a target id on channel 0. */
		t->has_id = read_id(sys, cls, de->d_name, &t->id);
		read_text(sys, type, sizeof(type), cls, de->d_name, "device_type");
		t->is_target = t->has_id && strcmp(type, "end device") == 0;
		snprintf(t->name, sizeof(t->name), "%s", de->d_name);
		read_text(sys, t->address, sizeof(t->address), cls, de->d_name, "sas_address");
		snprintf(t->state, sizeof(t->state), "%s", type);
		t->reachable = true;
	}
	closedir(d);
	return 0;
}

static int cmp_target(const void *a, const void *b)
{
	const struct discover_target *x = a, *y = b;

	if (x->channel != y->channel)
		return x->channel < y->channel ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return strcmp(x->name, y->name);
}

int topology_read(const struct sysfs_ctx *sys, unsigned int host,
		  enum discover_transport *ret_transport, struct discover_target **ret_targets,
		  size_t *ret_count)
{
	struct target_list l = { 0 };
	int r = 0;

	*ret_transport = DISCOVER_PROBE;
	if (class_has(sys, "iscsi_host", host)) {
		*ret_transport = DISCOVER_ISCSI;
		r = read_iscsi(sys, host, &l);
	} else if (class_has(sys, "fc_host", host)) {
		*ret_transport = DISCOVER_FC;
		r = read_fc(sys, host, &l);
	} else if (class_has(sys, "sas_host", host)) {
		*ret_transport = DISCOVER_SAS;
		r = read_sas(sys, host, &l);
	}
	if (r < 0) {
		free(l.items);
		return r;
	}
	if (l.count > 1)
		qsort(l.items, l.count, sizeof(*l.items), cmp_target);
	*ret_targets = l.items;
	*ret_count = l.count;
	return 0;
}

int topology_target_lost(const struct sysfs_ctx *sys, unsigned int host, unsigned int channel,
			 unsigned int id, char *why, size_t len)
{
	enum discover_transport tr;
	struct discover_target *t = NULL;
	size_t n = 0;
	int r, lost = 1;

	r = topology_read(sys, host, &tr, &t, &n);
	if (r < 0) {
		snprintf(why, len, "cannot read the transport's list: %s", strerror(-r));
		return r;
	}
	if (tr == DISCOVER_PROBE)
		lost = 0;
	snprintf(why, len, "no entry of the %s transport lists it any more",
		 discover_transport_name(tr));
	for (size_t i = 0; i < n && lost; i++) {
		if (!t[i].has_id || t[i].channel != channel || t[i].id != id)
			continue;
		if (t[i].reachable)
			lost = 0;
		else
			snprintf(why, len, "%s %s is %s", t[i].name, t[i].address, t[i].state);
	}
	free(t);
	return lost;
}

int topology_ata_port(const struct sysfs_ctx *sys, unsigned int host, char *name, size_t len)
{
	struct dirent *de;
	char rel[96];
	DIR *d;
	int found = 0;

	snprintf(rel, sizeof(rel), "/sys/class/scsi_host/host%u/device/../ata_port", host);
	if (sysfs_open_dir(sys, rel, &d) < 0 || !d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "ata", 3) != 0)
			continue;
		snprintf(name, len, "%s", de->d_name);
		found = 1;
	}
	closedir(d);
	return found;
}
