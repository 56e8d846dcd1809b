// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udev-monitor.c - the only file that talks to libudev.
 */
#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>

#include "monitor.h"

struct monitor {
	struct udev *udev;
	struct udev_monitor *mon;
	bool lun_adds;
};

/* The socket's filter (BPF): the subsystems, and the events the rules
 * tag; a LUN's add event only when asked for (a lunmask policy to hold). */
static int set_filter(struct udev_monitor *mon, bool lun_adds)
{
	static const char *const subsystems[] = { "scsi_host", "scsi", "fc_remote_ports",
						  "sas_end_device", "iscsi_session" };
	int r;

	for (size_t i = 0; i < sizeof(subsystems) / sizeof(subsystems[0]); i++) {
		r = udev_monitor_filter_add_match_subsystem_devtype(mon, subsystems[i], NULL);
		if (r < 0)
			return r;
	}
	r = udev_monitor_filter_add_match_tag(mon, "scsi_scand");
	if (r >= 0 && lun_adds)
		r = udev_monitor_filter_add_match_tag(mon, "scsi_scand_lun");
	return r < 0 ? r : 0;
}

struct monitor *monitor_new(size_t buffer)
{
	struct monitor *m = calloc(1, sizeof(*m));
	int r = -ENOMEM;

	if (!m)
		goto fail;
	m->udev = udev_new();
	if (!m->udev)
		goto fail;
	m->mon = udev_monitor_new_from_netlink(m->udev, "udev");
	if (!m->mon)
		goto fail;
	r = set_filter(m->mon, false);
	if (r < 0)
		goto fail;
	/* A burst of hotplug events must not overflow the socket. */
	udev_monitor_set_receive_buffer_size(m->mon, (int)buffer);
	r = udev_monitor_enable_receiving(m->mon);
	if (r < 0)
		goto fail;
	return m;
fail:
	monitor_free(m);
	errno = r < 0 ? -r : ENOMEM;
	return NULL;
}

void monitor_free(struct monitor *m)
{
	if (!m)
		return;
	udev_monitor_unref(m->mon);
	udev_unref(m->udev);
	free(m);
}

int monitor_watch_lun_adds(struct monitor *m, bool on)
{
	int r;

	if (m->lun_adds == on)
		return 0;
	r = udev_monitor_filter_remove(m->mon);
	if (r >= 0)
		r = set_filter(m->mon, on);
	if (r >= 0)
		r = udev_monitor_filter_update(m->mon);
	if (r < 0)
		return r;
	m->lun_adds = on;
	return 0;
}

int monitor_fd(const struct monitor *m)
{
	return udev_monitor_get_fd(m->mon);
}

int monitor_receive(struct monitor *m, struct scsi_event *ret, char *what, size_t len)
{
	struct udev_device *d;
	const char *action, *subsystem, *devtype, *sysname, *ua;
	int r;

	errno = 0;
	d = udev_monitor_receive_device(m->mon);
	if (!d)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == 0 ? 0 : -errno;
	action = udev_device_get_action(d);
	subsystem = udev_device_get_subsystem(d);
	devtype = udev_device_get_devtype(d);
	sysname = udev_device_get_sysname(d);
	ua = udev_device_get_property_value(d, "SDEV_UA");
	snprintf(what, len, "%s %s %s%s%s", action ? action : "?", subsystem ? subsystem : "?",
		 sysname ? sysname : "?", ua ? " SDEV_UA=" : "", ua ? ua : "");
	r = scsi_event_classify(action, subsystem, devtype, sysname, udev_device_get_devpath(d), ua,
				ret);
	udev_device_unref(d);
	return r < 0 ? r : 1;
}
