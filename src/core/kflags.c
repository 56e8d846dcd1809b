// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kflags.c - the kernel's flags of a LUN against the database's. No I/O.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "blist.h"
#include "kflags.h"

/* The names of the kernel's blacklist attribute: upper case, without the
 * BLIST_ prefix, separated by blanks. */
static uint64_t kernel_names(const char *text, char *unknown, size_t len)
{
	uint64_t bits = 0;
	size_t used = 0;

	unknown[0] = '\0';
	while (*text) {
		char name[64];
		size_t n = strcspn(text, " \t\n");
		const struct blist_flag *f;

		if (n && n < sizeof(name)) {
			for (size_t i = 0; i < n; i++)
				name[i] = (char)tolower((unsigned char)text[i]);
			name[n] = '\0';
			f = blist_flag_by_name(name);
			if (f) {
				bits |= f->bit;
			} else if (used + n + 2 < len) {
				used += (size_t)snprintf(unknown + used, len - used, "%s%.*s",
							 used ? " " : "", (int)n, text);
			}
		}
		text += n;
		text += strspn(text, " \t\n");
	}
	return bits;
}

void kflags_check(uint64_t database, bool names_device, int type, const char *blacklist,
		  const char *vendor, const char *model, struct kflags_check *ret)
{
	uint64_t want;

	memset(ret, 0, sizeof(*ret));
	ret->names_device = names_device;
	ret->database = database & blist_known_mask();
	ret->deliverable =
		vendor && vendor[0] && !strpbrk(vendor, ":,\"") && model && !strpbrk(model, ":,\"");
	if (!blacklist)
		return;
	ret->known = true;
	ret->kernel = kernel_names(blacklist, ret->unknown, sizeof(ret->unknown));
	/* No entry: the kernel's flags are its driver's or default_dev_flags
	 * (scsi_get_device_flags_keyed()), which no entry replaces. */
	if (!names_device)
		return;
	/* scsi_add_lun(): "RBC and MMC devices can return SCSI-3 compliance
	 * and yet still not support REPORT LUNS". */
	want = ret->database;
	if ((type == 0x05 || type == 0x0e) && !(want & BLIST_REPORTLUN2))
		want |= BLIST_NOREPORTLUN;
	ret->missing = want & ~ret->kernel;
	ret->extra = ret->kernel & ~want;
}

bool kflags_differ(const struct kflags_check *c)
{
	return c->known && (c->missing || c->extra);
}

void kflags_delivery(const struct kflags_check *c, char *buf, size_t len)
{
	if (!c->deliverable) {
		snprintf(buf, len,
			 "scsi_mod.dev_flags cannot name this device (a blank vendor, or ':', ',' "
			 "or '\"' in vendor or model): the kernel keeps its own flags");
		return;
	}
	snprintf(buf, len,
		 "the kernel reads the database's flags when scsi_mod loads: the next boot "
		 "with an initramfs made after the change (update-initramfs -u, dracut -f), "
		 "or a reload of scsi_mod; the LUN keeps the flags it was attached with "
		 "until then");
}
