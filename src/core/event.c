// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * event.c - which uevents ask for a scan. No I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "monitor.h"
#include "scsi-addr.h"

static bool eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int scsi_event_classify(const char *action, const char *subsystem, const char *devtype,
			const char *sysname, const char *devpath, const char *sdev_ua,
			struct scsi_event *ret)
{
	struct scsi_event ev = { .kind = SCSI_EVENT_NONE, .channel = -1, .id = -1 };
	struct scsi_addr a;
	unsigned int h, c;

	if (!action || !subsystem || !sysname) {
		*ret = ev;
		return 0;
	}
	if (eq(subsystem, "scsi_host") && (eq(action, "add") || eq(action, "remove"))) {
		if (scsi_name_host(sysname, &h) < 0)
			return -EINVAL;
		ev.kind = eq(action, "add") ? SCSI_EVENT_HOST_ADD : SCSI_EVENT_HOST_REMOVE;
		ev.host = h;
	} else if (eq(subsystem, "fc_remote_ports") && eq(action, "add")) {
		if (scsi_name_rport(sysname, &ev.host, &c) < 0)
			return -EINVAL;
		ev.channel = (int)c;
		ev.kind = SCSI_EVENT_TARGET_ADD;
	} else if (eq(subsystem, "iscsi_session") && (eq(action, "add") || eq(action, "change"))) {
		/* A session is added before its login ends; the scan that
		 * follows reports a session not yet logged in, and the next
		 * event (change, or the LUN's own) scans again. */
		if ((devpath ? scsi_path_session_host(devpath, &ev.host) : -EINVAL) < 0)
			return -EINVAL;
		ev.kind = SCSI_EVENT_TARGET_ADD;
	} else if (eq(subsystem, "sas_end_device") && eq(action, "add")) {
		if (scsi_name_end_device(sysname, &ev.host) < 0)
			return -EINVAL;
		ev.kind = SCSI_EVENT_TARGET_ADD;
	} else if (eq(subsystem, "scsi") && eq(devtype, "scsi_device") && eq(action, "add")) {
		if (scsi_name_hctl(sysname, &a) < 0)
			return -EINVAL;
		ev.kind = SCSI_EVENT_LUN_ADDED;
		ev.host = a.host;
		ev.channel = (int)a.channel;
		ev.id = (int)a.id;
		ev.lun = a.lun;
	} else if (eq(subsystem, "scsi") && eq(devtype, "scsi_device") && eq(action, "change") &&
		   sdev_ua) {
		if (scsi_name_hctl(sysname, &a) < 0)
			return -EINVAL;
		if (eq(sdev_ua, "REPORTED_LUNS_DATA_HAS_CHANGED"))
			ev.kind = SCSI_EVENT_LUNS_CHANGED;
		else if (eq(sdev_ua, "INQUIRY_DATA_HAS_CHANGED"))
			ev.kind = SCSI_EVENT_INQUIRY_CHANGED;
		else if (eq(sdev_ua, "CAPACITY_DATA_HAS_CHANGED"))
			ev.kind = SCSI_EVENT_CAPACITY_CHANGED;
		ev.host = a.host;
		ev.channel = (int)a.channel;
		ev.id = (int)a.id;
		ev.lun = a.lun;
	}
	*ret = ev;
	return 0;
}
