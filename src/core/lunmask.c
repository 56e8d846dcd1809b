// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lunmask.c - LUN masking policy: matching targets by stable address and
 * deciding which of their LUNs may be attached. No I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lunmask.h"

static int parse_lun(const char *s, const char **end, uint64_t *ret)
{
	unsigned long long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || e == s || v > LUNMASK_LUN_MAX)
		return -EINVAL;
	*end = e;
	*ret = v;
	return 0;
}

int lun_range_parse(const char *s, struct lun_range *ret)
{
	const char *e;
	uint64_t a, b;

	if (!s || parse_lun(s, &e, &a) < 0)
		return -EINVAL;
	b = a;
	if (*e == '-' && parse_lun(e + 1, &e, &b) < 0)
		return -EINVAL;
	if (*e || b < a)
		return -EINVAL;
	ret->first = a;
	ret->last = b;
	return 0;
}

int lunmask_address_normalize(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	if (len < 17)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		if (*s == ':' || *s == '-')
			continue;
		if (!isxdigit((unsigned char)*s) || n == 16)
			return -EINVAL;
		buf[n++] = (char)tolower((unsigned char)*s);
	}
	if (n != 16)
		return -EINVAL;
	buf[n] = '\0';
	return 0;
}

bool lunmask_entry_uses_identity(const struct lunmask_entry *e)
{
	return e->wwid || e->serial;
}

/* A sysfs address that cannot be read as one never matches. */
static bool address_matches(const char *want, const char *have)
{
	char norm[17];

	if (!want)
		return true;
	if (!have || lunmask_address_normalize(have, norm, sizeof(norm)) < 0)
		return false;
	return strcmp(want, norm) == 0;
}

static bool text_matches(const char *want, const char *have, bool nocase)
{
	if (!want)
		return true;
	if (!have)
		return false;
	return nocase ? strcasecmp(want, have) == 0 : strcmp(want, have) == 0;
}

bool lunmask_entry_applies(const struct lunmask_entry *e, const struct lunmask_target *t)
{
	if (!text_matches(e->driver, t->driver, false) ||
	    !address_matches(e->host_port_name, t->host_port_name) ||
	    !text_matches(e->host_path, t->host_path, false) ||
	    !address_matches(e->port_name, t->port_name) ||
	    !address_matches(e->sas_address, t->sas_address) ||
	    !text_matches(e->iscsi_target, t->iscsi_target, true))
		return false;
	if (e->iscsi_tpgt >= 0 && e->iscsi_tpgt != t->iscsi_tpgt)
		return false;
	if (t->hctl_unknown && (e->channel >= 0 || e->id >= 0))
		return false;
	if ((e->channel >= 0 && (unsigned long)e->channel != t->channel) ||
	    (e->id >= 0 && (unsigned long)e->id != t->id))
		return false;
	return text_matches(e->wwid, t->wwid, false) && text_matches(e->serial, t->serial, false);
}

int lunmask_select(const struct lunmask_entry *entries, size_t count,
		   const struct lunmask_target *t, struct lunmask_set *ret)
{
	const struct lunmask_entry **items = NULL;
	size_t n = 0;

	for (size_t i = 0; i < count; i++) {
		const struct lunmask_entry **p;

		if (!lunmask_entry_applies(&entries[i], t))
			continue;
		p = realloc(items, (n + 1) * sizeof(*p));
		if (!p) {
			free(items);
			return -ENOMEM;
		}
		items = p;
		items[n++] = &entries[i];
	}
	ret->items = items;
	ret->count = n;
	return 0;
}

void lunmask_set_clear(struct lunmask_set *set)
{
	free(set->items);
	set->items = NULL;
	set->count = 0;
}

static bool in_ranges(const struct lun_range *r, size_t n, uint64_t lun)
{
	for (size_t i = 0; i < n; i++)
		if (lun >= r[i].first && lun <= r[i].last)
			return true;
	return false;
}

void lunmask_decide(const struct lunmask_set *set, uint64_t lun, struct lunmask_verdict *ret)
{
	const struct lunmask_entry *first_list = NULL;

	memset(ret, 0, sizeof(*ret));
	ret->allowed = true;
	ret->rule = set->count ? LUNMASK_UNLISTED : LUNMASK_NO_POLICY;
	/* Exclusions first: "never this LUN" is the rule that protects. */
	for (size_t i = 0; i < set->count; i++) {
		const struct lunmask_entry *e = set->items[i];

		if (in_ranges(e->exclude, e->nexclude, lun)) {
			ret->allowed = false;
			ret->rule = LUNMASK_EXCLUDED;
			ret->entry = e;
			return;
		}
	}
	for (size_t i = 0; i < set->count; i++) {
		const struct lunmask_entry *e = set->items[i];

		if (!e->has_luns)
			continue;
		if (in_ranges(e->luns, e->nluns, lun)) {
			ret->rule = LUNMASK_NAMED;
			ret->entry = e;
			return;
		}
		if (!first_list)
			first_list = e;
	}
	if (first_list) {
		ret->allowed = false;
		ret->rule = LUNMASK_NOT_NAMED;
		ret->entry = first_list;
	}
}

bool lunmask_restricts(const struct lunmask_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		if (set->items[i]->has_luns || set->items[i]->nexclude)
			return true;
	return false;
}

int lunmask_next_allowed(const struct lunmask_set *set, uint64_t after, uint64_t *ret)
{
	uint64_t total = 0, best = UINT64_MAX;
	bool any_list = false, found = false;

	for (size_t i = 0; i < set->count; i++) {
		const struct lunmask_entry *e = set->items[i];

		if (!e->has_luns)
			continue;
		any_list = true;
		for (size_t k = 0; k < e->nluns; k++) {
			total += e->luns[k].last - e->luns[k].first + 1;
			if (total > LUNMASK_REACH_MAX ||
			    e->luns[k].last - e->luns[k].first >= LUNMASK_REACH_MAX)
				return -E2BIG;
		}
	}
	if (!any_list)
		return -E2BIG;
	for (size_t i = 0; i < set->count; i++) {
		const struct lunmask_entry *e = set->items[i];

		for (size_t k = 0; e->has_luns && k < e->nluns; k++) {
			uint64_t lun = e->luns[k].first;

			if (after != UINT64_MAX && lun <= after)
				lun = after + 1;
			for (; lun <= e->luns[k].last && lun < best; lun++) {
				struct lunmask_verdict v;

				lunmask_decide(set, lun, &v);
				if (v.allowed) {
					best = lun;
					found = true;
					break;
				}
			}
		}
	}
	if (!found)
		return 0;
	*ret = best;
	return 1;
}

const char *lunmask_rule_name(enum lunmask_rule rule)
{
	switch (rule) {
	case LUNMASK_NO_POLICY:
		return "no-policy";
	case LUNMASK_UNLISTED:
		return "unlisted";
	case LUNMASK_NAMED:
		return "named";
	case LUNMASK_NOT_NAMED:
		return "not-named";
	case LUNMASK_EXCLUDED:
		return "excluded";
	}
	return "unknown";
}

void lunmask_describe(const struct lunmask_verdict *v, uint64_t lun, char *buf, size_t len)
{
	const struct lunmask_entry *e = v->entry;

	switch (v->rule) {
	case LUNMASK_NO_POLICY:
		snprintf(buf, len, "no lunmask entry applies to the target");
		return;
	case LUNMASK_UNLISTED:
		snprintf(buf, len, "lunmask entries apply, none restricts LUN %llu",
			 (unsigned long long)lun);
		return;
	case LUNMASK_NAMED:
		snprintf(buf, len, "named by lunmask '%s' (%s:%u)", e->title, e->file, e->line);
		return;
	case LUNMASK_NOT_NAMED:
		snprintf(buf, len, "not in the luns of lunmask '%s' (%s:%u)", e->title, e->file,
			 e->line);
		return;
	case LUNMASK_EXCLUDED:
		snprintf(buf, len, "excluded by lunmask '%s' (%s:%u)", e->title, e->file, e->line);
		return;
	}
	snprintf(buf, len, "?");
}

void lunmask_entry_free(struct lunmask_entry *e)
{
	free(e->file);
	free(e->title);
	free(e->reason);
	free(e->driver);
	free(e->host_port_name);
	free(e->host_path);
	free(e->port_name);
	free(e->sas_address);
	free(e->iscsi_target);
	free(e->wwid);
	free(e->serial);
	free(e->luns);
	free(e->exclude);
	memset(e, 0, sizeof(*e));
}

static bool all_chars(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

int lunmask_spec_parse(const char *s, struct lunmask_spec *ret, const char **ret_error)
{
	char buf[512], *fields[4], *p, *tok;
	size_t n = 0, want;
	char norm[17];

	memset(ret, 0, sizeof(*ret));
	ret->channel = ret->id = -1;
	if (strlen(s) >= sizeof(buf)) {
		*ret_error = "too long";
		return -EINVAL;
	}
	strcpy(buf, s);
	/* Every field, empty ones too: "iscsi,,IQN,0" is a mistake, not
	 * "iscsi,IQN,0". */
	for (p = buf; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (n == 4) {
			*ret_error = "too many fields";
			return -EINVAL;
		}
		fields[n++] = p;
	}
	for (p = buf; (p = strchr(p, ','));)
		*p++ = '\0';
	for (size_t i = 0; i < n; i++)
		if (!fields[i][0]) {
			*ret_error = n == 1 ? "empty" : "an empty field";
			return -EINVAL;
		}
	want = strcmp(fields[0], "scsi") == 0 ? 4 : 3;
	if (strcmp(fields[0], "fc") && strcmp(fields[0], "sas") && strcmp(fields[0], "iscsi") &&
	    strcmp(fields[0], "scsi")) {
		*ret_error = "the transport is not fc, sas, iscsi or scsi";
		return -EINVAL;
	}
	if (n != want) {
		*ret_error = want == 4 ? "scsi takes DRIVER,CHANNEL:ID,LUNS"
				       : "fc, sas and iscsi take ADDRESS,LUNS";
		return -EINVAL;
	}
	snprintf(ret->transport, sizeof(ret->transport), "%s", fields[0]);
	if (strcmp(fields[0], "fc") == 0 || strcmp(fields[0], "sas") == 0) {
		if (lunmask_address_normalize(fields[1], norm, sizeof(norm)) < 0) {
			*ret_error = "the address is not 16 hex digits";
			return -EINVAL;
		}
	} else if (strcmp(fields[0], "iscsi") == 0) {
		if (!all_chars(fields[1], ".:-") || strlen(fields[1]) >= sizeof(ret->address)) {
			*ret_error = "not an iSCSI name (letters, digits, '.', ':', '-')";
			return -EINVAL;
		}
	} else {
		char *e;

		if (!all_chars(fields[1], "_-") || strlen(fields[1]) >= 64) {
			*ret_error = "not a driver name";
			return -EINVAL;
		}
		errno = 0;
		ret->channel = strtol(fields[2], &e, 10);
		if (errno || e == fields[2] || *e != ':' || ret->channel < 0 ||
		    ret->channel > LUNMASK_HCTL_MAX) {
			*ret_error = "CHANNEL:ID expected";
			return -EINVAL;
		}
		p = e + 1;
		ret->id = strtol(p, &e, 10);
		if (errno || e == p || *e || ret->id < 0 || ret->id > LUNMASK_HCTL_MAX) {
			*ret_error = "CHANNEL:ID expected";
			return -EINVAL;
		}
	}
	snprintf(ret->address, sizeof(ret->address), "%s", fields[1]);
	for (tok = fields[want - 1]; tok;) {
		char *plus = strchr(tok, '+');

		if (plus)
			*plus = '\0';
		if (ret->nluns == sizeof(ret->luns) / sizeof(ret->luns[0])) {
			*ret_error = "more than 16 LUN ranges";
			return -EINVAL;
		}
		if (!*tok || lun_range_parse(tok, &ret->luns[ret->nluns]) < 0) {
			*ret_error = "LUNS is N, N-M, or several joined by '+'";
			return -EINVAL;
		}
		ret->nluns++;
		tok = plus ? plus + 1 : NULL;
	}
	if (!ret->nluns) {
		*ret_error = "no LUN given";
		return -EINVAL;
	}
	return 0;
}

int lunmask_dracut_parse(const char *s, struct lunmask_spec *ret, const char **ret_error)
{
	char buf[ISCSI_NAME_MAX + 64], lun[40];
	const char *c1, *c2;
	size_t tlen;

	c1 = strchr(s, ',');
	tlen = c1 ? (size_t)(c1 - s) : strlen(s);
	if (!((tlen == 2 && memcmp(s, "fc", 2) == 0) || (tlen == 3 && memcmp(s, "sas", 3) == 0))) {
		*ret_error = "rd.lunmask= takes fc or sas, as dracut's module does";
		return -EINVAL;
	}
	if (!c1) {
		*ret_error = "fc,WWPN[,LUN] or sas,ADDRESS[,LUN] expected";
		return -EINVAL;
	}
	c2 = strchr(c1 + 1, ',');
	/* dracut's rule writes "-" to the scan file without a LUN: every LUN
	 * of that port. Its LUN reaches the kernel's scan file as written,
	 * which reads it in base 0, as lun_range_parse() does. */
	if (!c2 || !c2[1] || strcmp(c2 + 1, "-") == 0)
		snprintf(lun, sizeof(lun), "0-%llu", (unsigned long long)LUNMASK_LUN_MAX);
	else if (strpbrk(c2 + 1, "+-,"))
		lun[0] = '+';
	else
		snprintf(lun, sizeof(lun), "%s", c2 + 1);
	if (lun[0] == '+') {
		*ret_error = "rd.lunmask= names one LUN (or none: every LUN)";
		return -EINVAL;
	}
	if (snprintf(buf, sizeof(buf), "%.*s,%s", (int)(c2 ? (size_t)(c2 - s) : strlen(s)), s,
		     lun) >= (int)sizeof(buf)) {
		*ret_error = "too long";
		return -EINVAL;
	}
	return lunmask_spec_parse(buf, ret, ret_error);
}

static int append(char **text, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int append(char **text, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *add, *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	p = realloc(*text, *len + (size_t)n + 1);
	if (!p) {
		free(add);
		return -ENOMEM;
	}
	memcpy(p + *len, add, (size_t)n + 1);
	*text = p;
	*len += (size_t)n;
	free(add);
	return 0;
}

int lunmask_quote(const char *s, char *buf, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t used = 0;

	if (len < 3)
		return -ENOSPC;
	buf[used++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[4];
		size_t n = 0;

		/* libconfuse takes \" \\ \$ and \xHH in a double-quoted string,
		 * and puts the environment's value in place of ${NAME}; a quirk
		 * file must be UTF-8, so every byte past ASCII is written as
		 * \xHH, and the text is ASCII whatever the string. */
		if (c == '"' || c == '\\' || c == '$') {
			esc[n++] = '\\';
			esc[n++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			esc[n++] = '\\';
			esc[n++] = 'x';
			esc[n++] = digits[c >> 4];
			esc[n++] = digits[c & 0xf];
		} else {
			esc[n++] = (char)c;
		}
		if (used + n + 2 > len)
			return -ENOSPC;
		memcpy(buf + used, esc, n);
		used += n;
	}
	buf[used++] = '"';
	buf[used] = '\0';
	return 0;
}

/* "\tKEY = VALUE\n" with VALUE quoted for libconfuse. */
static int append_str(char **text, size_t *len, const char *key, const char *value)
{
	char q[2 * ISCSI_NAME_MAX + 16];

	if (lunmask_quote(value, q, sizeof(q)) < 0)
		return -ENOSPC;
	return append(text, len, "\t%s = %s\n", key, q);
}

static int spec_config(const struct lunmask_spec *sp, const char *title, unsigned int index,
		       char **text, size_t *len)
{
	int r;

	r = append(text, len, "lunmask \"%s %u\" {\n", title, index);
	if (r == 0 && strcmp(sp->transport, "fc") == 0)
		r = append_str(text, len, "port_name", sp->address);
	else if (r == 0 && strcmp(sp->transport, "sas") == 0)
		r = append_str(text, len, "sas_address", sp->address);
	else if (r == 0 && strcmp(sp->transport, "iscsi") == 0)
		r = append_str(text, len, "iscsi_target", sp->address);
	else if (r == 0 && (r = append_str(text, len, "driver", sp->address)) == 0)
		r = append(text, len, "\tchannel = %ld\n\tid = %ld\n", sp->channel, sp->id);
	for (size_t i = 0; i < sp->nluns && r == 0; i++) {
		const struct lun_range *lr = &sp->luns[i];

		if (lr->first == lr->last)
			r = append(text, len, "%s\"%llu\"", i ? ", " : "\tluns = { ",
				   (unsigned long long)lr->first);
		else
			r = append(text, len, "%s\"%llu-%llu\"", i ? ", " : "\tluns = { ",
				   (unsigned long long)lr->first, (unsigned long long)lr->last);
	}
	if (r == 0)
		r = append(text, len, " }\n}\n");
	return r;
}

/*
 * The next word of a command line as the kernel's next_arg() splits it: a
 * double quote anywhere toggles whether spaces end the word; a quote
 * opening the word, or opening its value after '=', goes, and so does the
 * last character when it is a quote closing either. @p is moved past the
 * word. Return: false at the end.
 */
static bool next_word(const char **p, char *buf, size_t len, const char **ret_start,
		      bool *ret_truncated)
{
	const char *s = *p, *w;
	bool in_quote = false, quoted = false;
	size_t n, out = 0, eq;

	while (*s && isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	*ret_start = s;
	if (*s == '"') {
		s++;
		in_quote = quoted = true;
	}
	w = s;
	for (; *s && (in_quote || !isspace((unsigned char)*s)); s++)
		if (*s == '"')
			in_quote = !in_quote;
	*p = s;
	n = (size_t)(s - w);
	eq = strcspn(w, "=");
	/* The value's opening quote and, last, a closing one. */
	if (eq + 1 < n && w[eq + 1] == '"' && n > eq + 2 && w[n - 1] == '"')
		n--;
	else if (quoted && n && w[n - 1] == '"')
		n--;
	*ret_truncated = false;
	for (size_t i = 0; i < n; i++) {
		if (i == eq + 1 && eq < n && w[i] == '"')
			continue;
		if (out + 1 == len) {
			*ret_truncated = true;
			break;
		}
		buf[out++] = w[i];
	}
	buf[out] = '\0';
	return true;
}

int lunmask_cmdline_config(const char *cmdline, char **ret_text, const char **ret_error,
			   const char **ret_bad)
{
	static const char key[] = "scsi_scan.lunmask=", dracut_key[] = "rd.lunmask=";
	char *text = NULL, word[sizeof(key) + 512];
	unsigned int count = 0;
	const char *start;
	size_t len = 0;
	bool truncated;
	int r = 0;

	*ret_text = NULL;
	r = append(&text, &len,
		   "# Written from the kernel command line (scsi_scan.lunmask=, "
		   "rd.lunmask=) for the initramfs.\n");
	while (r == 0 && next_word(&cmdline, word, sizeof(word), &start, &truncated)) {
		struct lunmask_spec sp;
		size_t wlen = strlen(word);
		bool dracut = wlen >= sizeof(dracut_key) - 1 &&
			      memcmp(word, dracut_key, sizeof(dracut_key) - 1) == 0;

		if (!dracut && (wlen < sizeof(key) - 1 || memcmp(word, key, sizeof(key) - 1) != 0))
			continue;
		if (truncated) {
			*ret_error = "too long";
			*ret_bad = start;
			r = -EINVAL;
			break;
		}
		if (dracut)
			r = lunmask_dracut_parse(word + sizeof(dracut_key) - 1, &sp, ret_error);
		else
			r = lunmask_spec_parse(word + sizeof(key) - 1, &sp, ret_error);
		if (r < 0) {
			*ret_bad = start;
			break;
		}
		r = spec_config(&sp, "kernel command line", ++count, &text, &len);
	}
	if (r == 0 && count)
		r = append(&text, &len,
			   "lunmask \"kernel command line: nothing else\" {\n"
			   "\tluns = {}\n"
			   "\treason = \"only the LUNs named by scsi_scan.lunmask= or "
			   "rd.lunmask= are attached in the initramfs\"\n}\n");
	if (r < 0 || !count) {
		free(text);
		return r;
	}
	*ret_text = text;
	return 0;
}

/* The spec that names @t, its LUNs not yet given. */
static int boot_spec(const struct lunmask_target *t, struct lunmask_spec *ret)
{
	const char *transport, *address;

	memset(ret, 0, sizeof(*ret));
	if (t->iscsi_target) {
		transport = "iscsi";
		address = t->iscsi_target;
	} else if (t->port_name) {
		transport = "fc";
		address = t->port_name;
	} else if (t->sas_address) {
		transport = "sas";
		address = t->sas_address;
	} else if (t->driver && !t->hctl_unknown) {
		transport = "scsi";
		address = t->driver;
		ret->channel = t->channel;
		ret->id = t->id;
	} else {
		return -EINVAL;
	}
	if (strlen(address) >= sizeof(ret->address))
		return -EINVAL;
	snprintf(ret->transport, sizeof(ret->transport), "%s", transport);
	snprintf(ret->address, sizeof(ret->address), "%s", address);
	/* iSCSI names are case-insensitive (RFC 3720 lowercases them): two
	 * sessions' spellings make one entry, written as the standard writes
	 * names. */
	if (t->iscsi_target)
		for (char *c = ret->address; *c; c++)
			*c = (char)tolower((unsigned char)*c);
	return 0;
}

static int spec_cmp(const void *a, const void *b)
{
	const struct lunmask_spec *x = a, *y = b;
	int c = strcmp(x->transport, y->transport);

	/* IQNs compare without regard to case, as the policy matches them. */
	if (!c)
		c = strcasecmp(x->address, y->address);
	if (!c)
		c = (x->channel > y->channel) - (x->channel < y->channel);
	if (!c)
		c = (x->id > y->id) - (x->id < y->id);
	return c;
}

static int range_cmp(const void *a, const void *b)
{
	const struct lun_range *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

int lunmask_boot_config(const struct lunmask_boot_path *paths, size_t n, char **ret_text,
			const char **ret_error)
{
	struct lunmask_spec *specs;
	size_t nspecs = 0, len = 0;
	char *text = NULL;
	int r = 0;

	*ret_text = NULL;
	if (!n) {
		*ret_error = "no LUN to name";
		return -EINVAL;
	}
	specs = calloc(n, sizeof(*specs));
	if (!specs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct lunmask_spec sp, *to = NULL;
		bool known = false;

		if (boot_spec(&paths[i].target, &sp) < 0) {
			*ret_error = "a path with neither a transport address nor a driver";
			r = -EINVAL;
			goto out;
		}
		for (size_t j = 0; j < nspecs && !to; j++)
			if (spec_cmp(&specs[j], &sp) == 0)
				to = &specs[j];
		if (!to) {
			to = &specs[nspecs++];
			*to = sp;
		}
		for (size_t j = 0; j < to->nluns; j++)
			known = known || to->luns[j].first == paths[i].lun;
		if (known)
			continue;
		if (to->nluns == sizeof(to->luns) / sizeof(to->luns[0])) {
			*ret_error = "more than 16 root LUNs behind one target";
			r = -E2BIG;
			goto out;
		}
		to->luns[to->nluns].first = to->luns[to->nluns].last = paths[i].lun;
		to->nluns++;
	}
	qsort(specs, nspecs, sizeof(*specs), spec_cmp);
	r = append(&text, &len,
		   "# The boot policy for the root file system's LUNs (scsi-quirks boot-policy):\n"
		   "# only they are attached in the initramfs.\n");
	for (size_t i = 0; i < nspecs && r == 0; i++) {
		qsort(specs[i].luns, specs[i].nluns, sizeof(specs[i].luns[0]), range_cmp);
		r = spec_config(&specs[i], "root file system", (unsigned int)i + 1, &text, &len);
	}
	if (r == 0)
		r = append(&text, &len,
			   "lunmask \"root file system: nothing else\" {\n"
			   "\tluns = {}\n"
			   "\treason = \"only the root file system's LUNs are attached in the "
			   "initramfs\"\n}\n");
	if (r == 0) {
		*ret_text = text;
		text = NULL;
	}
out:
	free(text);
	free(specs);
	return r;
}
