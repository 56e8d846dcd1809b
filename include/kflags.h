/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kflags.h - the flags the kernel applied to a LUN (its "blacklist"
 * attribute) held against the database's, and what would deliver the
 * database's. Pure.
 */
#ifndef SCSI_SCAN_KFLAGS_H
#define SCSI_SCAN_KFLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct kflags_check - the kernel's flags of a LUN against the database's
 * @known: the kernel's flags could be read
 * @names_device: an entry of the database gives the device flags; without
 *	one, the kernel applies its driver's flags (virtio_scsi's
 *	try_vpd_pages, storvsc's) or default_dev_flags, which are no
 *	difference
 * @database: the flags the database gives the device (bits the kernel knows)
 * @kernel: the flags the kernel applied when it attached the LUN
 * @missing: the database gives them, the kernel did not apply them
 * @extra: the kernel applied them, the database does not give them
 * @deliverable: scsi_mod.dev_flags can carry an entry for the device (a
 *	vendor that is not blank, no ':', ',' or '"' in vendor or model)
 * @unknown: names in the attribute that no known flag has, space separated
 */
struct kflags_check {
	bool known;
	bool names_device;
	uint64_t database;
	uint64_t kernel;
	uint64_t missing;
	uint64_t extra;
	bool deliverable;
	char unknown[128];
};

/**
 * kflags_check() - hold the kernel's flags of a LUN against the database's
 * @database: the database's flags for the device
 * @names_device: an entry of the database gives the device flags
 * @type: the LUN's peripheral device type (the kernel adds noreportlun to
 *	a CD/DVD or RBC device whose flags lack reportlun2), or -1
 * @blacklist: the LUN's blacklist attribute ("SPARSELUN NOSTARTONADD"), or
 *	NULL if it could not be read
 * @vendor: the device's vendor, cleaned
 * @model: its model, cleaned
 * @ret: the result
 */
void kflags_check(uint64_t database, bool names_device, int type, const char *blacklist,
		  const char *vendor, const char *model, struct kflags_check *ret);

/**
 * kflags_differ() - whether the kernel applied other flags than the
 *	database gives
 * @c: a check
 *
 * Return: true if the flags could be read and differ.
 */
bool kflags_differ(const struct kflags_check *c);

/**
 * kflags_delivery() - what brings the database's flags to the LUN, in words
 * @c: a check whose flags differ
 * @buf: where to write
 * @len: its size
 */
void kflags_delivery(const struct kflags_check *c, char *buf, size_t len);

#endif
