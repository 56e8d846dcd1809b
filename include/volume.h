/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * volume.h - a volume named by what stays the same: the target's stable
 * address (iSCSI name and portal group, FC WWPN, SAS address) with a LUN,
 * or an attached LUN's wwid. Pure: which targets of which hosts are the
 * paths to it, from the transports' lists the caller reads; matched as the
 * lunmask keys match (scsi-lunmask(5)).
 */
#ifndef SCSI_SCAN_VOLUME_H
#define SCSI_SCAN_VOLUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "discover.h"
#include "lunmask.h"
#include "scsi-addr.h"

/**
 * struct volume_address - what names a volume
 * @transport: DISCOVER_ISCSI, DISCOVER_FC or DISCOVER_SAS for a target
 *	address; DISCOVER_PROBE when only @wwid names it
 * @target: the iSCSI name in lower case, or the WWPN or SAS address
 *	normalized (16 lower-case hex digits)
 * @tpgt: the iSCSI target portal group tag, or -1 for any
 * @lun_set: @lun names one LUN; otherwise every LUN of those targets
 * @lun: the LUN
 * @wwid: an attached LUN's wwid (sysfs "wwid", as lsscsi --wwn and
 *	multipath show it), or empty
 */
struct volume_address {
	enum discover_transport transport;
	char target[ISCSI_NAME_MAX + 1];
	long tpgt;
	bool lun_set;
	uint64_t lun;
	char wwid[SCSI_WWID_MAX + 1];
};

/**
 * volume_address_set_target() - name the target, checked and normalized
 * @a: the address (its other fields are kept)
 * @transport: DISCOVER_ISCSI, DISCOVER_FC or DISCOVER_SAS
 * @text: an iSCSI name (iqn., eui. or naa.), or a WWPN or SAS address as
 *	16 hex digits, with or without "0x" and ':' or '-' between bytes
 *
 * Return: 0, or -EINVAL (not such a name; @a unchanged).
 */
int volume_address_set_target(struct volume_address *a, enum discover_transport transport,
			      const char *text);

/**
 * volume_address_set_wwid() - name the volume by an attached LUN's wwid
 * @a: the address
 * @text: the wwid: "naa.6001405...", "t10.ATA ...", "eui...."; leading and
 *	trailing blanks are dropped
 *
 * Return: 0, or -EINVAL (empty or longer than SCSI_WWID_MAX).
 */
int volume_address_set_wwid(struct volume_address *a, const char *text);

/**
 * volume_target_matches() - whether an entry of a transport's list is a
 *	path to the address's target
 * @a: the address (a target address: @a->transport is not DISCOVER_PROBE)
 * @transport: the host's transport
 * @t: the entry (topology_read()); "IQN,TPGT" for iSCSI
 *
 * Remote ports that are not SCSI targets, and targets without an id, are
 * no path.
 *
 * Return: true when it is.
 */
bool volume_target_matches(const struct volume_address *a, enum discover_transport transport,
			   const struct discover_target *t);

/**
 * struct volume_host - one host's transport list, as topology_read() gives it
 * @host: the host number
 * @transport: its transport
 * @targets: its list
 * @ntargets: how many
 */
struct volume_host {
	unsigned int host;
	enum discover_transport transport;
	const struct discover_target *targets;
	size_t ntargets;
};

/**
 * struct volume_path - one path to a volume's target
 * @addr: host, channel and target id; the LUN is the address's (0 when it
 *	names none)
 * @reachable: the transport can reach it now
 * @name: the transport's device (session3, rport-2:0-1, end_device-0:1)
 * @state: its state as sysfs says it
 */
struct volume_path {
	struct scsi_addr addr;
	bool reachable;
	char name[48];
	char state[32];
};

/**
 * volume_paths() - every path to the address's target, on every host
 * @a: the address (a target address)
 * @hosts: the hosts' lists, any order
 * @nhosts: how many
 * @out: filled in host, channel and id order, each target once even when
 *	several entries (two remote ports) list it; a target is reachable
 *	when one of its entries is
 * @max: room in @out
 *
 * Return: how many paths there are (more than @max: only @max written).
 */
size_t volume_paths(const struct volume_address *a, const struct volume_host *hosts, size_t nhosts,
		    struct volume_path *out, size_t max);

/**
 * volume_wwid_matches() - whether an attached LUN's wwid is the address's
 * @a: the address (@a->wwid set)
 * @wwid: the LUN's sysfs wwid, trailing blanks included or not
 *
 * Compared without case (NAA and EUI designators are hex, which tools
 * print in either case) and without trailing blanks.
 *
 * Return: true when it is.
 */
bool volume_wwid_matches(const struct volume_address *a, const char *wwid);

/**
 * volume_address_text() - the address in words, for messages
 * @a: the address
 * @buf: output
 * @len: size of @buf
 */
void volume_address_text(const struct volume_address *a, char *buf, size_t len);

/**
 * struct holdout_key - what a hold-out keeps out: one LUN of one target,
 *	named as stably as its host's transport allows
 * @transport: DISCOVER_ISCSI, DISCOVER_FC or DISCOVER_SAS: @target (and
 *	@tpgt) name it; DISCOVER_PROBE: @host_path (else @driver), @channel
 *	and @id do (host numbers are given out again, a host's place in the
 *	device tree is not)
 * @target: the iSCSI name, or the WWPN or SAS address, normalized
 * @tpgt: the iSCSI portal group, or -1 for any
 * @driver: the host's driver (scsi_host proc_name)
 * @channel: the channel
 * @id: the target id
 * @lun: the LUN
 * @wwid: the volume's wwid when it was held out, or empty: a release by
 *	wwid finds the hold-out by it once no path is attached
 * @host_path: the host's place in the device tree (sysfs_host_path()), or
 *	empty when it has none: the hold-out then names every host of
 *	@driver, and no scan deletes a LUN on its word alone
 */
struct holdout_key {
	enum discover_transport transport;
	char target[ISCSI_NAME_MAX + 1];
	long tpgt;
	char driver[64];
	unsigned int channel;
	unsigned int id;
	uint64_t lun;
	char wwid[SCSI_WWID_MAX + 1];
	char host_path[256];
};

/**
 * holdout_file_name() - the file a hold-out lives in, under
 *	/run/scsi-scan/holdout
 * @k: the key
 * @buf: output: "iscsi-IQN[,TPGT]-lun-N.conf", "fc-WWPN-lun-N.conf",
 *	"sas-ADDR-lun-N.conf", "host-PATH-C-T-lun-N.conf" (the host path's '/'
 *	as '!') or "driver-NAME-C-T-lun-N.conf"
 * @len: size of @buf
 *
 * Return: 0, or -EINVAL (a name that cannot be a file name: a driver with
 * '/' or a name that does not fit).
 */
int holdout_file_name(const struct holdout_key *k, char *buf, size_t len);

/**
 * holdout_text() - a hold-out as a lunmask entry (scsi-lunmask(5))
 * @k: the key
 * @reason: why, for people
 * @buf: output
 * @len: size of @buf
 *
 * Every string is quoted for libconfuse (lunmask_quote()): the text parses
 * back to the key.
 *
 * Return: 0, or -ENOSPC.
 */
int holdout_text(const struct holdout_key *k, const char *reason, char *buf, size_t len);

/**
 * holdout_text_wwid() - the wwid a hold-out's text records
 * @text: the file's text (holdout_text())
 * @buf: set to the wwid
 * @len: size of @buf
 *
 * Return: 0, or -ENOENT (none recorded, or too long for @buf).
 */
int holdout_text_wwid(const char *text, char *buf, size_t len);

#endif
