/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lunmask.h - LUN masking policy: which LUNs of a target, named by a stable
 * address, may be attached at all. Pure: no I/O.
 */
#ifndef SCSI_SCAN_LUNMASK_H
#define SCSI_SCAN_LUNMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The highest LUN the kernel's scan file takes (64-bit, 8 bytes of SAM
 * LUN structure turned into an integer by scsilun_to_int()). */
#define LUNMASK_LUN_MAX UINT64_C(0xffffffffffffff)

/* An allow list is tried LUN by LUN to reach a target without LUN 0 or
 * the REPORT LUNS well-known LUN; beyond this many, it is not. */
#define LUNMASK_REACH_MAX 256

/**
 * struct lun_range - LUNs @first to @last, both included
 * @first: the lowest LUN
 * @last: the highest LUN
 */
struct lun_range {
	uint64_t first;
	uint64_t last;
};

/* The largest channel or target id an entry can name (the kernel's are unsigned int). */
#define LUNMASK_HCTL_MAX 0xffffffffL

/* The longest iSCSI name (RFC 7143, 4.2.7.1: 223 bytes of UTF-8). */
#define ISCSI_NAME_MAX 223
/* The longest wwid the kernel shows: "t10." and a designator of 255 bytes. */
#define SCSI_WWID_MAX 259

/**
 * struct lunmask_entry - one "lunmask" section of a quirk file
 * @file: the file it came from
 * @line: line of its "lunmask" keyword
 * @title: the section title
 * @reason: free text, or NULL
 * @driver: the host's driver (scsi_host proc_name), or NULL for any
 * @host_port_name: the host's own FC port (fc_host port_name), normalized
 *	(lower case hex, no "0x", no ':'), or NULL
 * @host_path: the host's place in the device tree (sysfs_host_path()), or
 *	NULL
 * @port_name: the FC remote port's WWPN (fc_remote_ports port_name),
 *	normalized, or NULL
 * @sas_address: the SAS end device's address, normalized, or NULL
 * @iscsi_target: the iSCSI target name, lower case, or NULL
 * @iscsi_tpgt: the iSCSI target portal group tag, or -1 for any
 * @channel: the channel, or -1 for any
 * @id: the target id, or -1 for any
 * @wwid: the kernel's wwid of LUN 0 (from VPD page 0x83), or NULL
 * @serial: LUN 0's unit serial number (VPD page 0x80), or NULL
 * @has_luns: the entry names the only LUNs that may be attached
 * @luns: those LUNs (@has_luns with no range: none at all)
 * @nluns: how many ranges
 * @exclude: LUNs never attached
 * @nexclude: how many ranges
 */
struct lunmask_entry {
	char *file;
	unsigned int line;
	char *title;
	char *reason;
	char *driver;
	char *host_port_name;
	char *host_path;
	char *port_name;
	char *sas_address;
	char *iscsi_target;
	long iscsi_tpgt;
	long channel;
	long id;
	char *wwid;
	char *serial;
	bool has_luns;
	struct lun_range *luns;
	size_t nluns;
	struct lun_range *exclude;
	size_t nexclude;
};

/**
 * struct lunmask_target - what is known of a target before its LUNs are
 * attached; a NULL string is unknown and matches no entry that gives it
 * @host: the host number (for messages only)
 * @driver: the host's proc_name
 * @host_port_name: the host's fc_host port_name, as sysfs gives it
 * @host_path: the host's place in the device tree (sysfs_host_path())
 * @channel: the channel
 * @id: the target id
 * @hctl_unknown: @channel and @id are not known (a query by address only):
 *	entries that give either do not apply
 * @port_name: the FC remote port's port_name, as sysfs gives it
 * @sas_address: the SAS end device's sas_address
 * @iscsi_target: the iSCSI session's targetname
 * @iscsi_tpgt: the session's tpgt, or -1
 * @wwid: LUN 0's wwid attribute, once LUN 0 is attached
 * @serial: LUN 0's serial from VPD page 0x80, once LUN 0 is attached
 */
struct lunmask_target {
	unsigned int host;
	const char *driver;
	const char *host_port_name;
	const char *host_path;
	unsigned int channel;
	unsigned int id;
	bool hctl_unknown;
	const char *port_name;
	const char *sas_address;
	const char *iscsi_target;
	long iscsi_tpgt;
	const char *wwid;
	const char *serial;
};

/**
 * struct lunmask_set - the entries that apply to one target
 * @items: pointers into the database, in database order
 * @count: how many
 */
struct lunmask_set {
	const struct lunmask_entry **items;
	size_t count;
};

/**
 * enum lunmask_rule - what decided about a LUN
 * @LUNMASK_NO_POLICY: no entry applies to the target: allowed
 * @LUNMASK_UNLISTED: entries apply, none restricts this LUN: allowed
 * @LUNMASK_NAMED: an allow list names it: allowed
 * @LUNMASK_NOT_NAMED: some entry has an allow list, none names it
 * @LUNMASK_EXCLUDED: an entry's exclude_luns names it
 */
enum lunmask_rule {
	LUNMASK_NO_POLICY,
	LUNMASK_UNLISTED,
	LUNMASK_NAMED,
	LUNMASK_NOT_NAMED,
	LUNMASK_EXCLUDED,
};

/**
 * struct lunmask_verdict - the decision about one LUN
 * @allowed: whether the LUN may be attached
 * @rule: which rule decided
 * @entry: the entry that decided, or NULL for LUNMASK_NO_POLICY and
 *	LUNMASK_UNLISTED
 */
struct lunmask_verdict {
	bool allowed;
	enum lunmask_rule rule;
	const struct lunmask_entry *entry;
};

/**
 * lun_range_parse() - read one element of a LUN list
 * @s: "N" or "N-M", numbers in C notation (decimal, 0x hex, 0 octal)
 * @ret: the range
 *
 * Return: 0, or -EINVAL (not a number, N > M, above LUNMASK_LUN_MAX).
 */
int lun_range_parse(const char *s, struct lun_range *ret);

/**
 * lunmask_address_normalize() - a WWPN or SAS address in one spelling
 * @s: "0x500507680b215660", "50:05:07:68:0b:21:56:60", "500507680B215660"
 * @buf: where the result goes: 16 lower case hex digits
 * @len: its size, at least 17
 *
 * Return: 0, or -EINVAL if @s is not 16 hex digits once "0x", ':' and '-'
 * are taken out.
 */
int lunmask_address_normalize(const char *s, char *buf, size_t len);

/**
 * lunmask_entry_uses_identity() - whether an entry matches LUN 0's identity
 * @e: the entry
 *
 * Return: true if it gives wwid or serial.
 */
bool lunmask_entry_uses_identity(const struct lunmask_entry *e);

/**
 * lunmask_entry_applies() - whether an entry applies to a target
 * @e: the entry
 * @t: the target
 *
 * Every key the entry gives must match: addresses after normalization,
 * iSCSI names without regard to case, driver, wwid and serial exactly. An
 * entry that gives no key applies to every target.
 *
 * Return: true or false.
 */
bool lunmask_entry_applies(const struct lunmask_entry *e, const struct lunmask_target *t);

/**
 * lunmask_select() - the entries that apply to a target
 * @entries: the database's entries, in database order
 * @count: how many
 * @t: the target
 * @ret: filled with pointers to the applying entries; free with
 *	lunmask_set_clear()
 *
 * Return: 0 or -ENOMEM.
 */
int lunmask_select(const struct lunmask_entry *entries, size_t count,
		   const struct lunmask_target *t, struct lunmask_set *ret);

/**
 * lunmask_set_clear() - free a set
 * @set: the set; left empty
 */
void lunmask_set_clear(struct lunmask_set *set);

/**
 * lunmask_quote() - a string as a double-quoted libconfuse value
 * @s: the string
 * @buf: set to it quoted: '"', '\\' and '$' escaped with '\\' (libconfuse
 *	would put an environment variable in place of "${NAME}"), control
 *	characters and bytes past ASCII as "\\xHH"; it parses back to @s
 * @len: size of @buf
 *
 * Return: 0, or -ENOSPC.
 */
int lunmask_quote(const char *s, char *buf, size_t len);

/**
 * lunmask_decide() - whether a LUN may be attached
 * @set: the entries that apply to its target (may be empty)
 * @lun: the LUN
 * @ret: the decision
 *
 * An exclusion wins over everything; then, if any entry has an allow
 * list, only the LUNs one of them names are allowed; a target no entry
 * restricts is left to the quirk database and the device.
 */
void lunmask_decide(const struct lunmask_set *set, uint64_t lun, struct lunmask_verdict *ret);

/**
 * lunmask_restricts() - whether the set can refuse any LUN
 * @set: the set
 *
 * When true, the kernel's own scan of the target (which attaches every
 * LUN) is never used to reach it.
 *
 * Return: true if some entry has an allow list or an exclusion.
 */
bool lunmask_restricts(const struct lunmask_set *set);

/**
 * lunmask_next_allowed() - the allowed LUNs, in order, when they are few
 * @set: the set
 * @after: find a LUN above this one; UINT64_MAX to start at LUN 0
 * @ret: the next allowed LUN
 *
 * Return: 1 and @ret set, 0 when there is none after @after, -E2BIG when
 * the set has no allow list or its lists hold more than LUNMASK_REACH_MAX
 * LUNs.
 */
int lunmask_next_allowed(const struct lunmask_set *set, uint64_t after, uint64_t *ret);

/**
 * lunmask_describe() - a verdict in words, for explain and logs
 * @v: the verdict
 * @lun: the LUN it is about
 * @buf: where the text goes
 * @len: its size
 *
 * Names the entry by title, file and line.
 */
void lunmask_describe(const struct lunmask_verdict *v, uint64_t lun, char *buf, size_t len);

/**
 * lunmask_rule_name() - a stable token for a rule, for JSON
 * @rule: the rule
 *
 * Return: "no-policy", "unlisted", "named", "not-named" or "excluded".
 */
const char *lunmask_rule_name(enum lunmask_rule rule);

/**
 * lunmask_entry_free() - free what an entry holds
 * @e: the entry
 */
void lunmask_entry_free(struct lunmask_entry *e);

/**
 * struct lunmask_spec - one scsi_scan.lunmask= value of the kernel command line
 * @transport: "fc", "sas", "iscsi" or "scsi"
 * @address: WWPN, SAS address, IQN, or the driver for "scsi"
 * @channel: for "scsi", the channel
 * @id: for "scsi", the target id
 * @luns: the LUNs named
 * @nluns: how many ranges
 */
struct lunmask_spec {
	char transport[8];
	char address[ISCSI_NAME_MAX + 1];
	long channel;
	long id;
	struct lun_range luns[16];
	size_t nluns;
};

/**
 * lunmask_spec_parse() - read one scsi_scan.lunmask= value
 * @s: "fc,WWPN,LUNS", "sas,ADDRESS,LUNS", "iscsi,IQN,LUNS" or
 *	"scsi,DRIVER,CHANNEL:ID,LUNS"; LUNS is "N", "N-M" or several joined
 *	by '+'
 * @ret: the parsed value
 * @ret_error: on -EINVAL, set to a static description
 *
 * Return: 0 or -EINVAL.
 */
int lunmask_spec_parse(const char *s, struct lunmask_spec *ret, const char **ret_error);

/**
 * lunmask_dracut_parse() - read one rd.lunmask= value, dracut's form
 * @s: "fc,WWPN[,LUN]" or "sas,ADDRESS[,LUN]": one LUN, read in base 0 as
 *	the kernel's scan file reads it; none, or "-", is every LUN of that
 *	port
 * @ret: the parsed value, as lunmask_spec_parse() gives it
 * @ret_error: on -EINVAL, set to a static description
 *
 * Return: 0 or -EINVAL.
 */
int lunmask_dracut_parse(const char *s, struct lunmask_spec *ret, const char **ret_error);

/**
 * lunmask_cmdline_config() - quirks.d text for the kernel command line
 * @cmdline: the whole command line (/proc/cmdline)
 * @ret_text: set to malloc'ed libconfuse text: one lunmask entry per
 *	scsi_scan.lunmask= or rd.lunmask= value, then one that attaches
 *	nothing else; NULL if the command line has no such value
 * @ret_error: on -EINVAL, set to a static description
 * @ret_bad: on -EINVAL, set to a pointer to the offending word in @cmdline
 *
 * Words are split as the kernel splits them: spaces inside double quotes
 * belong to the word, and the quotes go (scsi_scan.lunmask="..." and
 * "scsi_scan.lunmask=..." are taken).
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int lunmask_cmdline_config(const char *cmdline, char **ret_text, const char **ret_error,
			   const char **ret_bad);

/**
 * struct lunmask_boot_path - one path to a LUN the root file system lies on
 * @target: the target's addresses, as the policy sees them
 *	(discover_lunmask_targets()); iSCSI, FC and SAS name it by their
 *	address, other hosts by driver, channel and id
 * @lun: the LUN
 */
struct lunmask_boot_path {
	struct lunmask_target target;
	uint64_t lun;
};

/**
 * lunmask_boot_config() - quirks.d text for a boot that attaches only the
 *	root file system's LUNs
 * @paths: every path to every LUN under the root
 * @n: how many (at least 1)
 * @ret_text: set to malloc'ed libconfuse text: one lunmask entry per
 *	target, naming its root LUNs, in the order of transport and address,
 *	then one that attaches nothing else
 * @ret_error: on -EINVAL or -E2BIG, set to a static description
 *
 * Paths through the same address merge into one entry (two sessions to
 * one IQN, the same remote port on two hosts); an iSCSI entry names the
 * target for every portal group. The result is what
 * lunmask_cmdline_config() would make of the same LUNs given as
 * scsi_scan.lunmask= values.
 *
 * Return: 0, -EINVAL (a path with no address and no driver: the policy
 * cannot name it), -E2BIG (more than 16 LUN ranges for one target),
 * -ENOMEM.
 */
int lunmask_boot_config(const struct lunmask_boot_path *paths, size_t n, char **ret_text,
			const char **ret_error);

#endif
