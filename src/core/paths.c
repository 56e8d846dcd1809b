// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * paths.c - a volume's paths on this machine and the multipath map above
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inuse.h"
#include "paths.h"
#include "scan.h"
#include "topology.h"

void volume_holdout_key(const struct volume_address *a, struct holdout_key *k)
{
	memset(k, 0, sizeof(*k));
	k->transport = a->transport;
	snprintf(k->target, sizeof(k->target), "%s", a->target);
	k->tpgt = a->tpgt;
	k->lun = a->lun;
}

static void free_hosts(struct volume_host *hosts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((void *)hosts[i].targets);
	free(hosts);
}

/* Every host's transport list. */
static int read_hosts(const struct sysfs_ctx *sys, struct volume_host **ret, size_t *ret_n)
{
	unsigned int *ids = NULL;
	struct volume_host *hosts;
	size_t n = 0;
	int r;

	r = sysfs_hosts(sys, &ids, &n);
	if (r < 0)
		return r;
	hosts = calloc(n + 1, sizeof(*hosts));
	if (!hosts) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		struct discover_target *t = NULL;

		hosts[i].host = ids[i];
		r = topology_read(sys, ids[i], &hosts[i].transport, &t, &hosts[i].ntargets);
		hosts[i].targets = t;
	}
	free(ids);
	if (r < 0) {
		free_hosts(hosts, n);
		return r;
	}
	*ret = hosts;
	*ret_n = n;
	return 0;
}

/* The hold-out key of an attached LUN: its target's stable address, or
 * its host's driver with channel and id. */
static void key_of(const struct sysfs_ctx *sys, const struct volume_host *hosts, size_t nhosts,
		   const struct scsi_addr *a, struct holdout_key *k)
{
	memset(k, 0, sizeof(*k));
	k->transport = DISCOVER_PROBE;
	k->tpgt = -1;
	k->channel = a->channel;
	k->id = a->id;
	k->lun = a->lun;
	for (size_t i = 0; i < nhosts; i++) {
		if (hosts[i].host != a->host)
			continue;
		for (size_t j = 0; j < hosts[i].ntargets; j++) {
			const struct discover_target *t = &hosts[i].targets[j];
			struct volume_address va = { .tpgt = -1 };

			if (t->channel != a->channel || t->id != a->id || !t->has_id)
				continue;
			if (hosts[i].transport == DISCOVER_ISCSI) {
				char iqn[sizeof(t->address)];
				size_t len;

				va.tpgt = discover_iscsi_address(t->address, &len);
				snprintf(iqn, sizeof(iqn), "%.*s", (int)len, t->address);
				if (volume_address_set_target(&va, DISCOVER_ISCSI, iqn) < 0)
					continue;
			} else if (volume_address_set_target(&va, hosts[i].transport, t->address) <
				   0) {
				continue;
			}
			k->transport = va.transport;
			snprintf(k->target, sizeof(k->target), "%s", va.target);
			k->tpgt = va.tpgt;
			return;
		}
	}
	if (sysfs_read(sys, k->driver, sizeof(k->driver), "/sys/class/scsi_host/host%u/proc_name",
		       a->host) < 0)
		k->driver[0] = '\0';
	if (sysfs_host_path(sys, a->host, k->host_path, sizeof(k->host_path)) < 0)
		k->host_path[0] = '\0';
}

static int resolve_wwid(const struct sysfs_ctx *sys, const struct volume_address *a,
			struct volume_path **ret, size_t *ret_count, struct holdout_key **ret_keys)
{
	struct scsi_addr *addrs = NULL;
	struct volume_path *paths = NULL;
	struct holdout_key *keys = NULL;
	struct volume_host *hosts = NULL;
	size_t n = 0, np = 0, nhosts = 0;
	int r;

	r = sysfs_devices(sys, SCAN_WILDCARD, &addrs, &n);
	if (r < 0)
		return r;
	paths = calloc(n + 1, sizeof(*paths));
	keys = calloc(n + 1, sizeof(*keys));
	if (!paths || !keys) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char wwid[SCSI_WWID_MAX + 2];

		if (sysfs_device_attr(sys, &addrs[i], "wwid", wwid, sizeof(wwid)) < 0 ||
		    !volume_wwid_matches(a, wwid))
			continue;
		paths[np].addr = addrs[i];
		paths[np].reachable = true;
		if (sysfs_device_attr(sys, &addrs[i], "state", paths[np].state,
				      sizeof(paths[np].state)) < 0)
			snprintf(paths[np].state, sizeof(paths[np].state), "?");
		np++;
	}
	if (np) {
		r = read_hosts(sys, &hosts, &nhosts);
		if (r < 0)
			goto out;
		for (size_t i = 0; i < np; i++)
			key_of(sys, hosts, nhosts, &paths[i].addr, &keys[i]);
	}
	*ret = paths;
	*ret_count = np;
	*ret_keys = keys;
	paths = NULL;
	keys = NULL;
out:
	free_hosts(hosts, nhosts);
	free(addrs);
	free(paths);
	free(keys);
	return r;
}

int volume_resolve(const struct sysfs_ctx *sys, const struct volume_address *a,
		   struct volume_path **ret, size_t *ret_count, struct holdout_key **ret_keys)
{
	struct volume_host *hosts = NULL;
	struct volume_path *paths = NULL;
	size_t nhosts = 0, n;
	int r;

	*ret = NULL;
	*ret_count = 0;
	if (ret_keys)
		*ret_keys = NULL;
	if (a->transport == DISCOVER_PROBE)
		return ret_keys ? resolve_wwid(sys, a, ret, ret_count, ret_keys) : -EINVAL;
	r = read_hosts(sys, &hosts, &nhosts);
	if (r < 0)
		return r;
	n = volume_paths(a, hosts, nhosts, NULL, 0);
	if (n) {
		paths = calloc(n, sizeof(*paths));
		if (!paths) {
			free_hosts(hosts, nhosts);
			return -ENOMEM;
		}
		volume_paths(a, hosts, nhosts, paths, n);
	}
	free_hosts(hosts, nhosts);
	*ret = paths;
	*ret_count = n;
	return 0;
}

/* The size of the block device whose sysfs directory is @dir, in 512-byte
 * sectors, or -1. */
static int64_t sectors_at(const struct sysfs_ctx *sys, const char *dir)
{
	char buf[32], *end;
	long long v;

	if (sysfs_read(sys, buf, sizeof(buf), "%s/size", dir) < 0)
		return -1;
	v = strtoll(buf, &end, 10);
	return *end || end == buf || v < 0 ? -1 : (int64_t)v;
}

int path_devices_read(const struct sysfs_ctx *sys, const struct scsi_addr *a,
		      struct path_devices *ret)
{
	char rel[PATH_MAX], hctl[40], size[32];
	struct dirent *de;
	DIR *d;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->addr = *a;
	ret->type = -1;
	ret->sectors = ret->map_sectors = -1;
	ret->attached = sysfs_device_exists(sys, a);
	if (!ret->attached)
		return 0;
	if (sysfs_device_attr(sys, a, "state", ret->state, sizeof(ret->state)) < 0)
		ret->state[0] = '\0';
	ret->type = sysfs_device_attr(sys, a, "type", size, sizeof(size)) > 0
			    ? (int)strtol(size, NULL, 10)
			    : -1;
	/* sd and sr: direct access, CD/DVD, optical memory, RBC. */
	ret->has_block = ret->type == 0 || ret->type == 5 || ret->type == 7 || ret->type == 14;
	if (sysfs_device_attr(sys, a, "wwid", ret->wwid, sizeof(ret->wwid)) < 0)
		ret->wwid[0] = '\0';
	if (sysfs_device_link(sys, a, "scsi_generic", ret->sg, sizeof(ret->sg)) < 0)
		ret->sg[0] = '\0';
	if (sysfs_device_link(sys, a, "block", ret->block, sizeof(ret->block)) < 0) {
		ret->block[0] = '\0';
		return 0;
	}
	/* Under the device: sysfs has the disk there as well as in its class. */
	scsi_addr_format(a, hctl, sizeof(hctl));
	snprintf(rel, sizeof(rel), "/sys/bus/scsi/devices/%s/block/%s", hctl, ret->block);
	ret->sectors = sectors_at(sys, rel);
	snprintf(rel, sizeof(rel), "/sys/bus/scsi/devices/%s/block/%s/holders", hctl, ret->block);
	r = sysfs_open_dir(sys, rel, &d);
	if (r < 0 || !d)
		return r == -ENOMEM ? r : 0;
	while ((de = readdir(d))) {
		char uuid[160];

		if (strncmp(de->d_name, "dm-", 3) != 0 ||
		    sysfs_read(sys, uuid, sizeof(uuid), "/sys/class/block/%s/dm/uuid", de->d_name) <
			    0 ||
		    strncmp(uuid, "mpath-", 6) != 0)
			continue;
		snprintf(ret->map_dev, sizeof(ret->map_dev), "%s", de->d_name);
		if (sysfs_read(sys, ret->map, sizeof(ret->map), "/sys/class/block/%s/dm/name",
			       de->d_name) < 0)
			snprintf(ret->map, sizeof(ret->map), "%s", de->d_name);
		snprintf(rel, sizeof(rel), "/sys/class/block/%s", de->d_name);
		ret->map_sectors = sectors_at(sys, rel);
		break;
	}
	closedir(d);
	return 0;
}

int map_paths_sectors(const struct sysfs_ctx *sys, const char *map_dev, int64_t *ret_min,
		      int64_t *ret_max)
{
	char rel[PATH_MAX];
	struct dirent *de;
	int n = 0, r;
	DIR *d;

	*ret_min = *ret_max = -1;
	snprintf(rel, sizeof(rel), "/sys/class/block/%s/slaves", map_dev);
	r = sysfs_open_dir(sys, rel, &d);
	if (r < 0 || !d)
		return r;
	while ((de = readdir(d))) {
		int64_t s;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "/sys/class/block/%s/slaves/%s", map_dev, de->d_name);
		s = sectors_at(sys, rel);
		if (s < 0)
			continue;
		if (*ret_min < 0 || s < *ret_min)
			*ret_min = s;
		if (s > *ret_max)
			*ret_max = s;
		n++;
	}
	closedir(d);
	return n;
}

bool multipathd_running(const struct sysfs_ctx *sys)
{
	char buf[32], *end;
	long pid;

	if (sysfs_read(sys, buf, sizeof(buf), "/run/multipathd.pid") < 0)
		return false;
	pid = strtol(buf, &end, 10);
	if (end == buf || pid <= 0)
		return false;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int map_in_use(const struct sysfs_ctx *sys, const char *map_dev, char *why, size_t len)
{
	struct inuse_nodes nodes;
	int r;

	r = inuse_block_collect(sys, map_dev, &nodes);
	if (r < 0) {
		snprintf(why, len, "cannot list the nodes of /dev/%s: %s", map_dev, strerror(-r));
		return r;
	}
	r = inuse_check(sys, &nodes, why, len);
	inuse_nodes_free(&nodes);
	return r;
}

/* Appends what the tool wrote to @why, newlines as blanks. */
static void keep_output(int fd, char *why, size_t len, size_t *used)
{
	char buf[256];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n && *used + 1 < len; i++)
			why[(*used)++] = buf[i] == '\n' ? ' ' : buf[i];
	if (len)
		why[*used] = '\0';
}

/*
 * Runs a tool with its output in @why, bounded on its exit, not on its
 * output: a tool may close its output and go on (multipathd), or leave a
 * child that holds the pipe after it exited. The tool runs in a process
 * group of its own, which is killed whole at the bound.
 * Return: 0 when it exits 0, -EIO when it fails, -ETIMEDOUT (killed),
 * -ENOENT (not installed).
 */
static int run_tool(char *const argv[], unsigned int timeout_s, char *why, size_t len)
{
	uint64_t end = scan_now_ms() + (uint64_t)timeout_s * 1000;
	size_t used = 0;
	int fds[2], status = 0, r = 0;
	bool open_pipe = true;
	pid_t pid;

	if (len)
		why[0] = '\0';
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		sigset_t none;

		/* The daemon blocks its signals for its signalfd; the tool
		 * must not inherit that. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		fcntl(1, F_SETFL, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		uint64_t now = scan_now_ms();
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (now >= end) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			r = -ETIMEDOUT;
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		/* The exit is looked at every 20 ms at least: the pipe says
		 * nothing of it once closed. */
		if (!open_pipe || poll(&p, 1, end - now < 20 ? (int)(end - now) : 20) <= 0) {
			if (!open_pipe)
				nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000000L }, NULL);
			continue;
		}
		if (p.revents & POLLIN)
			keep_output(fds[0], why, len, &used);
		else if (p.revents & (POLLHUP | POLLERR))
			open_pipe = false;
	}
	keep_output(fds[0], why, len, &used);
	close(fds[0]);
	if (r < 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int map_flush(const char *map, unsigned int timeout_s, char *why, size_t len)
{
	char *mp[] = { "multipath", "-f", (char *)map, NULL };
	char *dm[] = { "dmsetup", "remove", "--retry", (char *)map, NULL };
	int r = -EIO;

	for (int attempt = 0; attempt < 3; attempt++) {
		bool dmsetup = false;

		if (attempt)
			sleep(1);
		r = run_tool(mp, timeout_s, why, len);
		if (r == -ENOENT) {
			dmsetup = true;
			r = run_tool(dm, timeout_s, why, len);
		}
		if (r == 0)
			snprintf(why, len, "%s%s",
				 dmsetup ? "dmsetup remove --retry" : "multipath -f",
				 attempt ? (attempt == 1 ? ", on the second try"
							 : ", on the third try")
					 : "");
		if (r == 0 || r == -ENOENT)
			return r;
	}
	return r == -EIO ? -EBUSY : r;
}

/* Without multipathd: the map's table again with @sectors as its length,
 * loaded and resumed (what multipathd's resize does). */
static int map_reload(const char *map, int64_t sectors, unsigned int timeout_s, char *why,
		      size_t len)
{
	char *show[] = { "dmsetup", "table", (char *)map, NULL };
	char table[4096], newtable[4200], length[32], *rest, *end;
	char *reload[] = { "dmsetup", "reload", (char *)map, "--table", newtable, NULL };
	char *resume[] = { "dmsetup", "resume", (char *)map, NULL };
	int r;

	r = run_tool(show, timeout_s, table, sizeof(table));
	if (r < 0) {
		snprintf(why, len, "dmsetup table: %s", table);
		return r;
	}
	/* "0 LENGTH multipath ...": one segment, from sector 0. */
	if (strncmp(table, "0 ", 2) != 0 || !(rest = strchr(table + 2, ' ')) ||
	    strncmp(rest, " multipath ", 11) != 0) {
		snprintf(why, len, "not a one-segment multipath table: %s", table);
		return -EINVAL;
	}
	end = rest + strlen(rest);
	while (end > rest && end[-1] == ' ')
		*--end = '\0';
	snprintf(length, sizeof(length), "%lld", (long long)sectors);
	snprintf(newtable, sizeof(newtable), "0 %s%s", length, rest);
	r = run_tool(reload, timeout_s, why, len);
	if (r == 0)
		r = run_tool(resume, timeout_s, why, len);
	return r;
}

int map_resize(const struct sysfs_ctx *sys, const char *map, int64_t sectors,
	       unsigned int timeout_s, char *why, size_t len)
{
	char *argv[] = { "multipathd", "resize", "map", (char *)map, NULL };
	int r;

	if (!multipathd_running(sys))
		return map_reload(map, sectors, timeout_s, why, len);
	r = run_tool(argv, timeout_s, why, len);
	/* multipathd answers "fail" with exit status 0 in older versions. */
	if (r == 0 && strncmp(why, "fail", 4) == 0)
		return -EIO;
	return r;
}
