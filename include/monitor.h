/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor.h - the SCSI uevents the daemon acts on, and the one file that
 * talks to libudev.
 */
#ifndef SCSI_SCAN_MONITOR_H
#define SCSI_SCAN_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * enum scsi_event_kind - what an event asks for
 * @SCSI_EVENT_NONE: nothing to do
 * @SCSI_EVENT_HOST_ADD: a scsi_host class device appeared: scan the host
 * @SCSI_EVENT_HOST_REMOVE: the host went away: forget it
 * @SCSI_EVENT_TARGET_ADD: an FC remote port, SAS end device or iSCSI
 *	session appeared: scan the host (channel and id when known)
 * @SCSI_EVENT_LUNS_CHANGED: a LUN reported "REPORTED LUNS DATA HAS
 *	CHANGED": rescan its target
 * @SCSI_EVENT_INQUIRY_CHANGED: a LUN reported "INQUIRY DATA HAS CHANGED":
 *	match its quirks again
 * @SCSI_EVENT_CAPACITY_CHANGED: a LUN reported "CAPACITY DATA HAS CHANGED"
 *	(the kernel only passes it on): have it read the capacity again
 * @SCSI_EVENT_LUN_ADDED: a LUN was attached (by anyone: iscsid, a
 *	"- - -" rescan, hotplug, the daemon itself): hold its target to the
 *	lunmask policy
 * @SCSI_EVENT_PATH_BACK: not a uevent: the daemon's watch saw a target's
 *	session or remote port reachable again after it was not: bring its
 *	LUNs back and scan it
 */
enum scsi_event_kind {
	SCSI_EVENT_NONE,
	SCSI_EVENT_HOST_ADD,
	SCSI_EVENT_HOST_REMOVE,
	SCSI_EVENT_TARGET_ADD,
	SCSI_EVENT_LUNS_CHANGED,
	SCSI_EVENT_INQUIRY_CHANGED,
	SCSI_EVENT_CAPACITY_CHANGED,
	SCSI_EVENT_LUN_ADDED,
	SCSI_EVENT_PATH_BACK,
};

/**
 * struct scsi_event - a classified uevent
 * @kind: what it asks for
 * @host: the host number
 * @channel: channel, or -1 if not known
 * @id: target id, or -1 if not known
 * @lun: the LUN for the LUN events
 */
struct scsi_event {
	enum scsi_event_kind kind;
	unsigned int host;
	int channel;
	int id;
	uint64_t lun;
};

/**
 * scsi_event_classify() - turn uevent properties into a scsi_event
 * @action: ACTION ("add", "change", "remove", ...)
 * @subsystem: SUBSYSTEM
 * @devtype: DEVTYPE, or NULL
 * @sysname: the last component of DEVPATH, e.g. "host3" or "3:0:0:1"
 * @devpath: DEVPATH, or NULL; an iSCSI session's host is read from it
 * @sdev_ua: the SDEV_UA property, or NULL
 * @ret: the result; kind SCSI_EVENT_NONE for events that need nothing
 *
 * Pure: no I/O. The scsi_host class add is the one to scan on (the scsi
 * bus add of a host comes before the host can be scanned).
 *
 * Return: 0, or -EINVAL if a name that should carry numbers does not.
 */
int scsi_event_classify(const char *action, const char *subsystem, const char *devtype,
			const char *sysname, const char *devpath, const char *sdev_ua,
			struct scsi_event *ret);

struct monitor;

/**
 * monitor_new() - listen to udev's processed events (the "udev" source)
 * @buffer: the socket's receive buffer in bytes (a burst of events larger
 *	than it overflows it: monitor_receive() then says -ENOBUFS)
 *
 * Only the subsystems that matter pass the kernel-side filter: scsi_host,
 * scsi, fc_remote_ports, sas_end_device.
 *
 * Return: the monitor, or NULL with errno set.
 */
struct monitor *monitor_new(size_t buffer);

/**
 * monitor_free() - stop listening
 * @m: the monitor, or NULL
 */
void monitor_free(struct monitor *m);

/**
 * monitor_watch_lun_adds() - whether LUNs' add events come through
 * @m: the monitor
 * @on: pass them (60-scsi-scand.rules tags them scsi_scand_lun), or not
 *
 * The daemon asks for them only while a lunmask policy is there to hold:
 * without one, it is not woken for each LUN attached (its own included).
 *
 * Return: 0 or a negative errno.
 */
int monitor_watch_lun_adds(struct monitor *m, bool on);

/**
 * monitor_fd() - the file descriptor to poll for events
 * @m: the monitor
 *
 * Return: the descriptor.
 */
int monitor_fd(const struct monitor *m);

/**
 * monitor_receive() - take one event
 * @m: the monitor
 * @ret: the classified event
 * @what: a short description of the raw event, for debug logs
 * @len: size of @what
 *
 * Return: 1 if an event was read (its kind may be SCSI_EVENT_NONE), 0 if
 * none was waiting, -ENOBUFS if events were lost because the receive
 * buffer overflowed (the next call reads on), or another negative errno.
 */
int monitor_receive(struct monitor *m, struct scsi_event *ret, char *what, size_t len);

#endif
