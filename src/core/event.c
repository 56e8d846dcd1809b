// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * event.c - which uevents ask for a scan. No I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "monitor.h"

static bool eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* "rport-H:B-R" and "end_device-H:P[:E]:N": the host, and the bus of an
 * rport (its channel). */
static int host_of_transport_name(const char *name, const char *prefix, unsigned int *host,
				  int *channel)
{
	unsigned int h, b;
	char dash;

	if (strncmp(name, prefix, strlen(prefix)) != 0)
		return -EINVAL;
	name += strlen(prefix);
	if (sscanf(name, "%u:%u%c", &h, &b, &dash) >= 2) {
		*host = h;
		*channel = dash == '-' ? (int)b : -1;
		return 0;
	}
	return -EINVAL;
}

/* The host of an iSCSI session: its devpath is .../hostH/sessionN/
 * iscsi_session/sessionN. */
static int host_of_session(const char *devpath, unsigned int *host)
{
	for (const char *p = devpath ? strstr(devpath, "/host") : NULL; p;
	     p = strstr(p + 1, "/host")) {
		int end = 0;

		if (sscanf(p, "/host%u/session%*u%n", host, &end) == 1 && end > 0)
			return 0;
	}
	return -EINVAL;
}

int scsi_event_classify(const char *action, const char *subsystem, const char *devtype,
			const char *sysname, const char *devpath, const char *sdev_ua,
			struct scsi_event *ret)
{
	struct scsi_event ev = { .kind = SCSI_EVENT_NONE, .channel = -1, .id = -1 };
	unsigned int h, c, t;
	uint64_t l;
	char extra;

	if (!action || !subsystem || !sysname) {
		*ret = ev;
		return 0;
	}
	if (eq(subsystem, "scsi_host") && (eq(action, "add") || eq(action, "remove"))) {
		if (sscanf(sysname, "host%u%c", &h, &extra) != 1)
			return -EINVAL;
		ev.kind = eq(action, "add") ? SCSI_EVENT_HOST_ADD : SCSI_EVENT_HOST_REMOVE;
		ev.host = h;
	} else if (eq(subsystem, "fc_remote_ports") && eq(action, "add")) {
		if (host_of_transport_name(sysname, "rport-", &ev.host, &ev.channel) < 0)
			return -EINVAL;
		ev.kind = SCSI_EVENT_TARGET_ADD;
	} else if (eq(subsystem, "iscsi_session") && (eq(action, "add") || eq(action, "change"))) {
		/* A session is added before its login ends; the scan that
		 * follows reports a session not yet logged in, and the next
		 * event (change, or the LUN's own) scans again. */
		if (host_of_session(devpath, &ev.host) < 0)
			return -EINVAL;
		ev.kind = SCSI_EVENT_TARGET_ADD;
	} else if (eq(subsystem, "sas_end_device") && eq(action, "add")) {
		if (host_of_transport_name(sysname, "end_device-", &ev.host, &ev.channel) < 0)
			return -EINVAL;
		ev.channel = -1;
		ev.kind = SCSI_EVENT_TARGET_ADD;
	} else if (eq(subsystem, "scsi") && eq(devtype, "scsi_device") && eq(action, "change") &&
		   sdev_ua) {
		if (sscanf(sysname, "%u:%u:%u:%" SCNu64 "%c", &h, &c, &t, &l, &extra) != 4)
			return -EINVAL;
		if (eq(sdev_ua, "REPORTED_LUNS_DATA_HAS_CHANGED"))
			ev.kind = SCSI_EVENT_LUNS_CHANGED;
		else if (eq(sdev_ua, "INQUIRY_DATA_HAS_CHANGED"))
			ev.kind = SCSI_EVENT_INQUIRY_CHANGED;
		else if (eq(sdev_ua, "CAPACITY_DATA_HAS_CHANGED"))
			ev.kind = SCSI_EVENT_CAPACITY_CHANGED;
		ev.host = h;
		ev.channel = (int)c;
		ev.id = (int)t;
		ev.lun = l;
	}
	*ret = ev;
	return 0;
}
