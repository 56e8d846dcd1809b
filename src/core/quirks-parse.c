// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quirks-parse.c - one quirks.d file (libconfuse syntax) into entries.
 */
#include <confuse.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blist.h"
#include "lunmask.h"
#include "quirks-internal.h"

enum key {
	KEY_VENDOR,
	KEY_MODEL,
	KEY_REVISION,
	KEY_TYPE,
	KEY_FLAGS,
	KEY_ADD_FLAGS,
	KEY_DROP_FLAGS,
	KEY_MAX_LUN,
	KEY_ATTACH,
	KEY_BUILTIN,
	KEY_HANDLER,
	KEY_REASON,
	KEY_DRIVER,
	KEY_HOST_PORT_NAME,
	KEY_HOST_PATH,
	KEY_PORT_NAME,
	KEY_SAS_ADDRESS,
	KEY_ISCSI_TARGET,
	KEY_ISCSI_TPGT,
	KEY_CHANNEL,
	KEY_ID,
	KEY_WWID,
	KEY_SERIAL,
	KEY_LUNS,
	KEY_EXCLUDE_LUNS,
	KEY_COUNT,
};

static const char *const key_names[KEY_COUNT] = {
	[KEY_VENDOR] = "vendor",
	[KEY_MODEL] = "model",
	[KEY_REVISION] = "revision",
	[KEY_TYPE] = "type",
	[KEY_FLAGS] = "flags",
	[KEY_ADD_FLAGS] = "add_flags",
	[KEY_DROP_FLAGS] = "drop_flags",
	[KEY_MAX_LUN] = "max_lun",
	[KEY_ATTACH] = "attach",
	[KEY_BUILTIN] = "builtin",
	[KEY_HANDLER] = "handler",
	[KEY_REASON] = "reason",
	[KEY_DRIVER] = "driver",
	[KEY_HOST_PORT_NAME] = "host_port_name",
	[KEY_HOST_PATH] = "host_path",
	[KEY_PORT_NAME] = "port_name",
	[KEY_SAS_ADDRESS] = "sas_address",
	[KEY_ISCSI_TARGET] = "iscsi_target",
	[KEY_ISCSI_TPGT] = "iscsi_tpgt",
	[KEY_CHANNEL] = "channel",
	[KEY_ID] = "id",
	[KEY_WWID] = "wwid",
	[KEY_SERIAL] = "serial",
	[KEY_LUNS] = "luns",
	[KEY_EXCLUDE_LUNS] = "exclude_luns",
};

/* The two kinds of top-level section. */
enum section_kind {
	SECTION_DEVICE,
	SECTION_LUNMASK,
	SECTION_KINDS,
};

static const char *const section_names[SECTION_KINDS] = {
	[SECTION_DEVICE] = "device",
	[SECTION_LUNMASK] = "lunmask",
};

/* Where each section and each of its keys starts; libconfuse only knows
 * the line its lexer has reached. */
struct section_pos {
	unsigned int line;
	unsigned int key_line[KEY_COUNT];
	char *title;
};

/* A bare word and its line, to place libconfuse's "no such option". */
struct word_pos {
	char *word;
	unsigned int line;
	bool used;
};

/* Where a top-level section ends: the text is parsed one section at a time. */
struct chunk_end {
	size_t offset;
	unsigned int line;
};

/* Sections of one kind, in the order of the text. */
struct section_list {
	struct section_pos *items;
	size_t count;
	size_t alloc;
};

struct prescan {
	struct section_list sections[SECTION_KINDS];
	int last_kind; /* the kind of the section last opened, or -1 */
	struct chunk_end *ends;
	size_t nends;
	size_t ends_alloc;
	struct word_pos *words;
	size_t nwords;
	size_t words_alloc;
	unsigned int open_quote_line;	/* unterminated string, or 0 */
	unsigned int multi_line_quote;	/* first string that spans lines, or 0 */
	unsigned int list_comment_line; /* '#' inside a { } list, or 0 */
	unsigned int open_comment_line; /* unterminated C comment, or 0 */
	unsigned int open_section_line; /* section without its '}', or 0 */
	unsigned int env_line;		/* ${...} that libconfuse would expand, or 0 */
	unsigned int long_line;		/* a string or word too long, or 0 */
	size_t long_len;		/* its length */
	char *text;			/* the text, comments blanked out */
};

/* The longest string or word taken. Nothing the database holds needs more,
 * and libconfuse 3.3 grows its string buffer 32 bytes at a time: the parse
 * is quadratic in the length of one string (a 1 MiB model took 25 s). */
#define QUIRK_STRING_MAX 4096

struct parse_ctx {
	const char *name;
	struct quirk_diags *diags;
	struct prescan *ps;
	unsigned int line_offset;
	int nomem;
};

/* libconfuse's lexer is global state, so parsing is single-threaded anyway;
 * this is how the error callback finds its file. */
static struct parse_ctx *current_ctx;

int quirk_diag_add(struct quirk_diags *diags, enum quirk_severity severity, const char *file,
		   unsigned int line, const char *fmt, ...)
{
	struct quirk_diag *d;
	va_list ap;
	int r;

	if (!diags)
		return 0;
	if (diags->count == diags->alloc) {
		size_t n = diags->alloc ? diags->alloc * 2 : 16;
		struct quirk_diag *p = realloc(diags->items, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		diags->items = p;
		diags->alloc = n;
	}
	d = &diags->items[diags->count];
	d->severity = severity;
	d->line = line;
	d->file = strdup(file ? file : "");
	va_start(ap, fmt);
	r = vasprintf(&d->message, fmt, ap);
	va_end(ap);
	if (!d->file || r < 0) {
		free(d->file);
		return -ENOMEM;
	}
	diags->count++;
	return 0;
}

void quirk_diags_clear(struct quirk_diags *diags)
{
	for (size_t i = 0; i < diags->count; i++) {
		free(diags->items[i].file);
		free(diags->items[i].message);
	}
	free(diags->items);
	diags->items = NULL;
	diags->count = diags->alloc = 0;
}

size_t quirk_diags_count(const struct quirk_diags *diags, enum quirk_severity severity)
{
	size_t n = 0;

	for (size_t i = 0; i < diags->count; i++)
		if (diags->items[i].severity == severity)
			n++;
	return n;
}

void quirk_entry_free(struct quirk_entry *e)
{
	free(e->file);
	free(e->title);
	free(e->vendor);
	free(e->model);
	free(e->revision);
	free(e->reason);
	free(e->handler);
	memset(e, 0, sizeof(*e));
}

bool quirk_has_glob(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

static bool is_ident(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '-');
}

/* Returns the line of the first byte that is NUL or not UTF-8, or 0. */
static unsigned int find_bad_byte(const unsigned char *s, size_t len, bool *is_nul)
{
	unsigned int line = 1;

	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t need = 0;
		uint32_t cp;

		if (c == '\n')
			line++;
		if (c == 0) {
			*is_nul = true;
			return line;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			need = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			need = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			need = 3;
			cp = c & 0x07;
		} else {
			goto bad;
		}
		if (i + need >= len)
			goto bad;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;
		i += need + 1;
	}
	return 0;
bad:
	*is_nul = false;
	return line;
}

static void prescan_free(struct prescan *ps)
{
	for (int k = 0; k < SECTION_KINDS; k++) {
		for (size_t i = 0; i < ps->sections[k].count; i++)
			free(ps->sections[k].items[i].title);
		free(ps->sections[k].items);
	}
	for (size_t i = 0; i < ps->nwords; i++)
		free(ps->words[i].word);
	free(ps->words);
	free(ps->ends);
	free(ps->text);
}

/* Makes room for one more element in an array that grows by doubling. */
static int grow(void **array, size_t *alloc, size_t count, size_t size)
{
	size_t n;
	void *p;

	if (count < *alloc)
		return 0;
	n = *alloc ? *alloc * 2 : 64;
	p = realloc(*array, n * size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*alloc = n;
	return 0;
}

static int prescan_add_word(struct prescan *ps, const char *w, size_t n, unsigned int line)
{
	struct word_pos *p;

	if (grow((void **)&ps->words, &ps->words_alloc, ps->nwords, sizeof(*p)) < 0)
		return -ENOMEM;
	p = ps->words;
	p[ps->nwords].word = strndup(w, n);
	p[ps->nwords].line = line;
	p[ps->nwords].used = false;
	if (!p[ps->nwords].word)
		return -ENOMEM;
	ps->nwords++;
	return 0;
}

static int prescan_add_section(struct prescan *ps, int kind, unsigned int line, char *title)
{
	struct section_list *l = &ps->sections[kind];
	struct section_pos *p;

	if (grow((void **)&l->items, &l->alloc, l->count, sizeof(*p)) < 0)
		return -ENOMEM;
	p = l->items;
	memset(&p[l->count], 0, sizeof(*p));
	p[l->count].line = line;
	p[l->count].title = title;
	l->count++;
	ps->last_kind = kind;
	return 0;
}

/* Blanks @s[@from, @to) in the copy for libconfuse, keeping line breaks. */
static void blank(struct prescan *ps, const char *s, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		if (s[k] != '\n')
			ps->text[k] = ' ';
}

static void too_long(struct prescan *ps, unsigned int line, size_t n)
{
	if (n > QUIRK_STRING_MAX && !ps->long_line) {
		ps->long_line = line;
		ps->long_len = n;
	}
}

/*
 * A small lexer over the libconfuse syntax: it records where each top-level
 * section, its title and each of its keys start, and spots what libconfuse
 * 3.3 reports at the wrong line (an unterminated string, a comment inside a
 * list) or not at all (an unterminated comment or section, which drop the
 * rest of the file; ${VAR}, which it replaces with the environment's value;
 * a string long enough to make its parse quadratic). @ps->text is a copy of
 * the text without the comments, for libconfuse.
 */
static int prescan(const char *s, size_t len, struct prescan *ps)
{
	unsigned int line = 1, section_line = 0, open_line = 0;
	int section_kind = 0;
	char *title = NULL;
	int depth = 0;
	size_t i = 0;
	bool list = false;

	memset(ps, 0, sizeof(*ps));
	ps->last_kind = -1;
	ps->text = malloc(len + 1);
	if (!ps->text)
		return -ENOMEM;
	memcpy(ps->text, s, len);
	ps->text[len] = '\0';
	while (i < len) {
		char c = s[i];

		if (c == '\n') {
			line++;
			i++;
		} else if (c == '#' || (c == '/' && i + 1 < len && s[i + 1] == '/')) {
			size_t start = i;

			if (list && !ps->list_comment_line)
				ps->list_comment_line = line;
			while (i < len && s[i] != '\n')
				i++;
			blank(ps, s, start, i);
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			size_t start = i;
			unsigned int start_line = line;

			for (i += 2; i < len && !(s[i] == '*' && i + 1 < len && s[i + 1] == '/');
			     i++)
				if (s[i] == '\n')
					line++;
			if (i >= len) {
				ps->open_comment_line = start_line;
				free(title);
				return 0;
			}
			i += 2;
			blank(ps, s, start, i);
		} else if (c == '"' || c == '\'') {
			unsigned int start = line;
			size_t qstart = i;

			for (i++; i < len && s[i] != c; i++) {
				/* libconfuse's escapes: any in "...", \' and \\ in '...' */
				if (s[i] == '\\' && i + 1 < len &&
				    (c == '"' || s[i + 1] == '\'' || s[i + 1] == '\\')) {
					i++;
				} else if (c == '"' && s[i] == '$' && i + 1 < len &&
					   s[i + 1] == '{' && !ps->env_line) {
					ps->env_line = line;
				}
				if (s[i] == '\n')
					line++;
			}
			if (line != start && !ps->multi_line_quote)
				ps->multi_line_quote = start;
			if (i >= len) {
				/* The quote that went missing is usually the one
				 * whose string ran over the end of its line. */
				ps->open_quote_line =
					ps->multi_line_quote ? ps->multi_line_quote : start;
				free(title);
				return 0;
			}
			too_long(ps, start, i - qstart - 1);
			if (section_line && depth == 0 && !title &&
			    i - qstart <= QUIRK_STRING_MAX) {
				title = strndup(s + qstart + 1, i - qstart - 1);
				if (!title)
					return -ENOMEM;
			}
			i++;
		} else if (c == '$' && i + 1 < len && s[i + 1] == '{') {
			if (!ps->env_line)
				ps->env_line = line;
			i++;
		} else if (c == '{') {
			if (depth == 0 && section_line) {
				if (prescan_add_section(ps, section_kind, section_line, title) <
				    0) {
					free(title);
					return -ENOMEM;
				}
				section_line = 0;
				title = NULL;
			} else if (depth >= 1) {
				list = true;
			}
			if (depth == 0)
				open_line = line;
			depth++;
			i++;
		} else if (c == '}') {
			if (depth > 0)
				depth--;
			if (depth <= 1)
				list = false;
			i++;
			if (depth == 0) {
				struct chunk_end *e;

				if (grow((void **)&ps->ends, &ps->ends_alloc, ps->nends,
					 sizeof(*e)) < 0) {
					free(title);
					return -ENOMEM;
				}
				e = ps->ends;
				e[ps->nends].offset = i;
				e[ps->nends].line = line;
				ps->nends++;
			}
		} else if (is_ident(c, true)) {
			size_t start = i;
			int kind = -1;

			while (i < len && is_ident(s[i], false))
				i++;
			too_long(ps, line, i - start);
			if (i - start > QUIRK_STRING_MAX)
				continue;
			for (int k = 0; depth == 0 && !section_line && k < SECTION_KINDS; k++)
				if (strlen(section_names[k]) == i - start &&
				    memcmp(s + start, section_names[k], i - start) == 0)
					kind = k;
			if (section_line && depth == 0 && !title) {
				title = strndup(s + start, i - start);
				if (!title)
					return -ENOMEM;
			} else if (kind >= 0) {
				section_line = line;
				section_kind = kind;
			} else if (prescan_add_word(ps, s + start, i - start, line) < 0) {
				free(title);
				return -ENOMEM;
			}
			if (depth == 1 && ps->last_kind >= 0) {
				struct section_list *l = &ps->sections[ps->last_kind];

				for (int k = 0; k < KEY_COUNT; k++)
					if (strlen(key_names[k]) == i - start &&
					    memcmp(key_names[k], s + start, i - start) == 0 &&
					    !l->items[l->count - 1].key_line[k])
						l->items[l->count - 1].key_line[k] = line;
			}
		} else {
			i++;
		}
	}
	if (depth > 0)
		ps->open_section_line = open_line;
	free(title);
	return 0;
}

/* libconfuse reports some errors at the line its lexer reached, which can
 * be lines after the mistake; find the mistake's own line instead. */
static unsigned int better_line(struct prescan *ps, const char *msg, unsigned int line)
{
	static const char no_option[] = "no such option '";
	static const char dup_title[] = "found duplicate title '";
	size_t n;

	if (strncmp(msg, no_option, sizeof(no_option) - 1) == 0) {
		msg += sizeof(no_option) - 1;
		n = strlen(msg);
		if (n && msg[n - 1] == '\'')
			n--;
		for (size_t i = 0; i < ps->nwords; i++) {
			struct word_pos *w = &ps->words[i];

			if (!w->used && strlen(w->word) == n && memcmp(w->word, msg, n) == 0) {
				w->used = true;
				return w->line;
			}
		}
	} else if (strncmp(msg, dup_title, sizeof(dup_title) - 1) == 0) {
		bool seen = false;

		msg += sizeof(dup_title) - 1;
		n = strlen(msg);
		if (n && msg[n - 1] == '\'')
			n--;
		for (int k = 0; k < SECTION_KINDS; k++) {
			const struct section_list *l = &ps->sections[k];

			seen = false;
			for (size_t i = 0; i < l->count; i++) {
				const char *t = l->items[i].title;

				if (!t || strlen(t) != n || memcmp(t, msg, n) != 0)
					continue;
				if (seen)
					return l->items[i].line;
				seen = true;
			}
		}
	}
	return line;
}

static void cfg_error_cb(cfg_t *cfg, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void cfg_error_cb(cfg_t *cfg, const char *fmt, va_list ap)
{
	struct parse_ctx *ctx = current_ctx;
	char *msg = NULL;

	if (!ctx)
		return;
	if (vasprintf(&msg, fmt, ap) < 0) {
		ctx->nomem = 1;
		return;
	}
	if (quirk_diag_add(
		    ctx->diags, QUIRK_ERROR, ctx->name,
		    better_line(ctx->ps, msg, cfg ? (unsigned int)cfg->line + ctx->line_offset : 0),
		    "%s", msg) < 0)
		ctx->nomem = 1;
	free(msg);
}

static int parse_flag_list(cfg_t *sec, const char *key, unsigned int line, struct parse_ctx *ctx,
			   uint64_t *ret, int *errors)
{
	uint64_t value = 0;

	for (unsigned int i = 0; i < cfg_size(sec, key); i++) {
		const char *name = cfg_getnstr(sec, key, i);
		const struct blist_flag *f = name ? blist_flag_by_name(name) : NULL;
		const char *hint = "";
		char lower[64];

		if (f) {
			value |= f->bit;
			continue;
		}
		if (name) {
			const char *base = strncmp(name, "BLIST_", 6) == 0 ? name + 6 : name;
			size_t k;

			for (k = 0; base[k] && k + 1 < sizeof(lower); k++)
				lower[k] =
					(base[k] >= 'A' && base[k] <= 'Z') ? base[k] + 32 : base[k];
			lower[k] = '\0';
			if (blist_flag_by_name(lower))
				hint = lower;
		}
		(*errors)++;
		if (quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, line,
				   "unknown flag '%s' in '%s'%s%s%s", name ? name : "", key,
				   *hint ? " (did you mean '" : "", hint, *hint ? "'?)" : "") < 0)
			return -ENOMEM;
	}
	*ret = value;
	return 0;
}

static int dup_opt(cfg_t *sec, const char *key, char **ret)
{
	const char *v = cfg_size(sec, key) ? cfg_getstr(sec, key) : NULL;

	*ret = NULL;
	if (!v)
		return 0;
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

static int check_length(struct parse_ctx *ctx, const char *key, const char *value, bool glob,
			size_t max, unsigned int line)
{
	if (!value || glob || strlen(value) <= max)
		return 0;
	return quirk_diag_add(ctx->diags, QUIRK_WARNING, ctx->name, line,
			      "%s '%s' is longer than the %zu bytes of its INQUIRY field and can "
			      "never match",
			      key, value, max);
}

/* A device handler's name is the tail of its module's name (scsi_dh_NAME),
 * which the kernel loads when the name is written to dh_state. */
static int check_handler(struct parse_ctx *ctx, const struct quirk_entry *e, unsigned int line,
			 int *errors)
{
	size_t n = strlen(e->handler);

	if (n == 0 || n >= QUIRK_HANDLER_LEN ||
	    strspn(e->handler, "abcdefghijklmnopqrstuvwxyz0123456789_") != n) {
		(*errors)++;
		return quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, line,
				      "handler '%s' is not a device handler's name (lower-case "
				      "letters, digits and '_', at most %d characters: alua, emc, "
				      "hp_sw, rdac)",
				      e->handler, QUIRK_HANDLER_LEN - 1);
	}
	if (strncmp(e->handler, "scsi_dh_", 8) == 0) {
		(*errors)++;
		return quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, line,
				      "handler '%s': the handler's name is without 'scsi_dh_' "
				      "(for example \"%s\")",
				      e->handler, e->handler + 8);
	}
	if (!quirk_handler_known(e->handler))
		return quirk_diag_add(ctx->diags, QUIRK_WARNING, ctx->name, line,
				      "handler '%s' is none of the kernel's (alua, emc, hp_sw, "
				      "rdac): writing it to dh_state needs a module scsi_dh_%s",
				      e->handler, e->handler);
	return 0;
}

static int section_to_entry(cfg_t *sec, const struct section_pos *pos, struct parse_ctx *ctx,
			    struct quirk_entry *e, int *errors)
{
	unsigned int line = pos ? pos->line : 0;
	const unsigned int *kl = pos ? pos->key_line : NULL;
	int r;

#define KLINE(k) ((kl && kl[k]) ? kl[k] : line)
	memset(e, 0, sizeof(*e));
	e->line = line;
	e->type = -1;
	e->max_lun = -1;
	e->attach = -1;
	e->file = strdup(ctx->name);
	e->title = strdup(cfg_title(sec) ? cfg_title(sec) : "");
	if (!e->file || !e->title)
		return -ENOMEM;
	r = dup_opt(sec, "vendor", &e->vendor);
	if (r == 0)
		r = dup_opt(sec, "model", &e->model);
	if (r == 0)
		r = dup_opt(sec, "revision", &e->revision);
	if (r == 0)
		r = dup_opt(sec, "reason", &e->reason);
	if (r == 0)
		r = dup_opt(sec, "handler", &e->handler);
	if (r < 0)
		return r;
	if (!e->vendor) {
		(*errors)++;
		return quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, line,
				      "device '%s' has no vendor (use vendor = \"\" for a blank "
				      "vendor field)",
				      e->title);
	}
	if (!e->model) {
		e->model = strdup("");
		if (!e->model)
			return -ENOMEM;
	}
	e->vendor_glob = quirk_has_glob(e->vendor);
	e->model_glob = quirk_has_glob(e->model);
	e->revision_glob = quirk_has_glob(e->revision);
	r = check_length(ctx, "vendor", e->vendor, e->vendor_glob, QUIRK_VENDOR_LEN,
			 KLINE(KEY_VENDOR));
	if (r == 0)
		r = check_length(ctx, "model", e->model, e->model_glob, QUIRK_MODEL_LEN,
				 KLINE(KEY_MODEL));
	if (r == 0)
		r = check_length(ctx, "revision", e->revision, e->revision_glob, QUIRK_REVISION_LEN,
				 KLINE(KEY_REVISION));
	if (r < 0)
		return r;

	if (cfg_size(sec, "type")) {
		long t = cfg_getint(sec, "type");

		if (t < 0 || t > 31) {
			(*errors)++;
			r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(KEY_TYPE),
					   "type %ld is not a peripheral device type (0-31)", t);
			if (r < 0)
				return r;
		}
		e->type = (int)t;
	}
	/* "flags = {}" is an empty list to libconfuse but still sets the flags */
	e->sets_flags = cfg_size(sec, "flags") > 0 || (kl && kl[KEY_FLAGS]);
	r = parse_flag_list(sec, "flags", KLINE(KEY_FLAGS), ctx, &e->flags, errors);
	if (r == 0)
		r = parse_flag_list(sec, "add_flags", KLINE(KEY_ADD_FLAGS), ctx, &e->add_flags,
				    errors);
	if (r == 0)
		r = parse_flag_list(sec, "drop_flags", KLINE(KEY_DROP_FLAGS), ctx, &e->drop_flags,
				    errors);
	if (r < 0)
		return r;
	if (e->sets_flags && (e->add_flags || e->drop_flags)) {
		(*errors)++;
		r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(KEY_FLAGS),
				   "device '%s' has both 'flags' and 'add_flags'/'drop_flags'; "
				   "'flags' replaces the whole set",
				   e->title);
		if (r < 0)
			return r;
	}
	if (e->add_flags & e->drop_flags) {
		(*errors)++;
		r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(KEY_DROP_FLAGS),
				   "device '%s' both adds and drops the same flag", e->title);
		if (r < 0)
			return r;
	}
	if (cfg_size(sec, "max_lun")) {
		long m = cfg_getint(sec, "max_lun");

		if (m < 0) {
			(*errors)++;
			r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(KEY_MAX_LUN),
					   "max_lun %ld is negative", m);
			if (r < 0)
				return r;
		}
		e->max_lun = m;
	}
	if (cfg_size(sec, "attach"))
		e->attach = cfg_getbool(sec, "attach") ? 1 : 0;
	if (cfg_size(sec, "builtin"))
		e->builtin = cfg_getbool(sec, "builtin");
	if (e->handler) {
		r = check_handler(ctx, e, KLINE(KEY_HANDLER), errors);
		if (r < 0)
			return r;
	}
	if (!e->sets_flags && !e->add_flags && !e->drop_flags && e->max_lun < 0 && e->attach < 0 &&
	    !e->handler)
		return quirk_diag_add(ctx->diags, QUIRK_WARNING, ctx->name, line,
				      "device '%s' changes nothing (no flags, max_lun, attach or "
				      "handler)",
				      e->title);
#undef KLINE
	return 0;
}

static int dup_lower(cfg_t *sec, const char *key, char **ret)
{
	int r = dup_opt(sec, key, ret);

	for (char *c = *ret; r == 0 && c && *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c + 32);
	return r;
}

/* A WWPN or SAS address, kept in the one spelling sysfs values are
 * compared in. */
static int dup_address(cfg_t *sec, const char *key, unsigned int line, struct parse_ctx *ctx,
		       char **ret, int *errors)
{
	const char *v = cfg_size(sec, key) ? cfg_getstr(sec, key) : NULL;
	char norm[17];

	*ret = NULL;
	if (!v)
		return 0;
	if (lunmask_address_normalize(v, norm, sizeof(norm)) < 0) {
		(*errors)++;
		return quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, line,
				      "%s '%s' is not a 64-bit address (16 hex digits, "
				      "optionally with 0x or ':' between bytes)",
				      key, v);
	}
	*ret = strdup(norm);
	return *ret ? 0 : -ENOMEM;
}

static int parse_lun_list(cfg_t *sec, const char *key, unsigned int line, struct parse_ctx *ctx,
			  struct lun_range **ret, size_t *ret_n, int *errors)
{
	unsigned int n = cfg_size(sec, key);
	struct lun_range *r;

	*ret = NULL;
	*ret_n = 0;
	if (!n)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		const char *v = cfg_getnstr(sec, key, i);

		if (v && lun_range_parse(v, &r[*ret_n]) == 0) {
			(*ret_n)++;
			continue;
		}
		(*errors)++;
		if (quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, line,
				   "'%s' in '%s' is not a LUN or a range of LUNs (N or N-M, "
				   "at most 0xffffffffffffff)",
				   v ? v : "", key) < 0) {
			free(r);
			return -ENOMEM;
		}
	}
	*ret = r;
	return 0;
}

static bool ranges_hold(const struct lun_range *r, size_t n, uint64_t lun)
{
	for (size_t i = 0; i < n; i++)
		if (lun >= r[i].first && lun <= r[i].last)
			return true;
	return false;
}

static int section_to_mask(cfg_t *sec, const struct section_pos *pos, struct parse_ctx *ctx,
			   struct lunmask_entry *e, int *errors)
{
	unsigned int line = pos ? pos->line : 0;
	const unsigned int *kl = pos ? pos->key_line : NULL;
	int r;

#define KLINE(k) ((kl && kl[k]) ? kl[k] : line)
	memset(e, 0, sizeof(*e));
	e->line = line;
	e->iscsi_tpgt = e->channel = e->id = -1;
	e->file = strdup(ctx->name);
	e->title = strdup(cfg_title(sec) ? cfg_title(sec) : "");
	if (!e->file || !e->title)
		return -ENOMEM;
	r = dup_opt(sec, "reason", &e->reason);
	if (r == 0)
		r = dup_opt(sec, "driver", &e->driver);
	if (r == 0)
		r = dup_address(sec, "host_port_name", KLINE(KEY_HOST_PORT_NAME), ctx,
				&e->host_port_name, errors);
	if (r == 0)
		r = dup_opt(sec, "host_path", &e->host_path);
	if (r == 0)
		r = dup_address(sec, "port_name", KLINE(KEY_PORT_NAME), ctx, &e->port_name, errors);
	if (r == 0)
		r = dup_address(sec, "sas_address", KLINE(KEY_SAS_ADDRESS), ctx, &e->sas_address,
				errors);
	if (r == 0)
		r = dup_lower(sec, "iscsi_target", &e->iscsi_target);
	if (r == 0 && e->iscsi_target && strlen(e->iscsi_target) > ISCSI_NAME_MAX) {
		(*errors)++;
		r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(KEY_ISCSI_TARGET),
				   "iscsi_target is %zu bytes long: no iSCSI name is longer than "
				   "%d bytes (RFC 7143), so it would never match",
				   strlen(e->iscsi_target), ISCSI_NAME_MAX);
	}
	if (r == 0)
		r = dup_opt(sec, "wwid", &e->wwid);
	if (r == 0 && e->wwid && strlen(e->wwid) > SCSI_WWID_MAX) {
		(*errors)++;
		r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(KEY_WWID),
				   "wwid is %zu characters long: the kernel's are at most %d "
				   "(\"t10.\" and 255 bytes), so it would never match",
				   strlen(e->wwid), SCSI_WWID_MAX);
	}
	if (r == 0)
		r = dup_opt(sec, "serial", &e->serial);
	if (r < 0)
		return r;
	static const struct {
		const char *key;
		int k;
		long max;
	} numbers[] = {
		{ "iscsi_tpgt", KEY_ISCSI_TPGT, 65535 },
		{ "channel", KEY_CHANNEL, LUNMASK_HCTL_MAX },
		{ "id", KEY_ID, LUNMASK_HCTL_MAX },
	};
	long *dest[] = { &e->iscsi_tpgt, &e->channel, &e->id };

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		long v;

		if (!cfg_size(sec, numbers[i].key))
			continue;
		v = cfg_getint(sec, numbers[i].key);
		if (v < 0 || v > numbers[i].max) {
			(*errors)++;
			r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, KLINE(numbers[i].k),
					   "%s %ld is out of range (0-%ld)", numbers[i].key, v,
					   numbers[i].max);
			if (r < 0)
				return r;
		}
		*dest[i] = v;
	}
	/* "luns = {}" is an empty list to libconfuse, and means "none". */
	e->has_luns = cfg_size(sec, "luns") > 0 || (kl && kl[KEY_LUNS]);
	r = parse_lun_list(sec, "luns", KLINE(KEY_LUNS), ctx, &e->luns, &e->nluns, errors);
	if (r == 0)
		r = parse_lun_list(sec, "exclude_luns", KLINE(KEY_EXCLUDE_LUNS), ctx, &e->exclude,
				   &e->nexclude, errors);
	if (r < 0)
		return r;
	if (lunmask_entry_uses_identity(e) &&
	    ((e->has_luns && !ranges_hold(e->luns, e->nluns, 0)) ||
	     ranges_hold(e->exclude, e->nexclude, 0))) {
		(*errors)++;
		return quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name,
				      KLINE(e->has_luns ? KEY_LUNS : KEY_EXCLUDE_LUNS),
				      "lunmask '%s' matches LUN 0's wwid or serial, which are read "
				      "from the attached LUN 0, so it cannot keep LUN 0 out",
				      e->title);
	}
	if ((e->channel >= 0 || e->id >= 0) && !e->driver && !e->host_port_name && !e->host_path)
		return quirk_diag_add(ctx->diags, QUIRK_WARNING, ctx->name, line,
				      "lunmask '%s' gives a channel or id but no driver or "
				      "host_port_name: it applies to that target of every host",
				      e->title);
	if (!e->has_luns && !e->nexclude)
		return quirk_diag_add(ctx->diags, QUIRK_WARNING, ctx->name, line,
				      "lunmask '%s' changes nothing (no luns or exclude_luns)",
				      e->title);
#undef KLINE
	return 0;
}

struct mask_list {
	struct lunmask_entry *items;
	size_t count;
	size_t alloc;
};

static int mask_list_grow(struct mask_list *l, size_t n)
{
	struct lunmask_entry *p;
	size_t alloc = l->alloc ? l->alloc : 8;

	if (l->count + n <= l->alloc)
		return 0;
	while (alloc < l->count + n)
		alloc *= 2;
	p = realloc(l->items, alloc * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->items = p;
	l->alloc = alloc;
	return 0;
}

struct entry_list {
	struct quirk_entry *items;
	size_t count;
	size_t alloc;
};

static int entry_list_grow(struct entry_list *l, size_t n)
{
	struct quirk_entry *p;
	size_t alloc = l->alloc ? l->alloc : 16;

	if (l->count + n <= l->alloc)
		return 0;
	while (alloc < l->count + n)
		alloc *= 2;
	p = realloc(l->items, alloc * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->items = p;
	l->alloc = alloc;
	return 0;
}

/* What parsing a text produced, and how far into the prescan's sections
 * of each kind it has come. */
struct parse_out {
	struct entry_list devices;
	struct mask_list masks;
	size_t next[SECTION_KINDS];
};

static const struct section_pos *next_pos(struct parse_ctx *ctx, struct parse_out *out, int kind)
{
	const struct section_list *l = &ctx->ps->sections[kind];
	size_t i = out->next[kind]++;

	return i < l->count ? &l->items[i] : NULL;
}

/*
 * libconfuse looks up every new titled section among the ones it already
 * has, which makes one big file quadratic; it also stops at the first
 * error. Parsing one top-level section at a time avoids both: the cost is
 * linear and every broken section of a file is reported.
 */
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

static int parse_chunk(cfg_opt_t *opts, const char *text, unsigned int first_line,
		       struct parse_ctx *ctx, struct parse_out *out, int *errors)
{
	size_t before = ctx->diags ? ctx->diags->count : 0, nsec;
	cfg_t *cfg;
	int r;

	/* libconfuse's lexer and include stack are global, and so is
	 * current_ctx: one parse at a time in the process (the daemon's
	 * workers read the hold-outs while its main thread may reload). */
	pthread_mutex_lock(&parse_lock);
	cfg = cfg_init(opts, CFGF_NONE);
	if (!cfg) {
		pthread_mutex_unlock(&parse_lock);
		return -ENOMEM;
	}
	cfg_set_error_function(cfg, cfg_error_cb);
	ctx->line_offset = first_line - 1;
	current_ctx = ctx;
	r = cfg_parse_buf(cfg, text);
	current_ctx = NULL;
	if (ctx->nomem) {
		r = -ENOMEM;
		goto out;
	}
	if (r != CFG_SUCCESS) {
		(*errors)++;
		r = 0;
		if (ctx->diags && ctx->diags->count == before)
			r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, first_line,
					   "syntax error");
		goto out;
	}
	nsec = cfg_size(cfg, "device");
	r = entry_list_grow(&out->devices, nsec);
	for (size_t i = 0; i < nsec && r == 0; i++) {
		const struct section_pos *pos = next_pos(ctx, out, SECTION_DEVICE);

		r = section_to_entry(cfg_getnsec(cfg, "device", i), pos, ctx,
				     &out->devices.items[out->devices.count], errors);
		out->devices.count++;
	}
	nsec = cfg_size(cfg, "lunmask");
	if (r == 0)
		r = mask_list_grow(&out->masks, nsec);
	for (size_t i = 0; i < nsec && r == 0; i++) {
		const struct section_pos *pos = next_pos(ctx, out, SECTION_LUNMASK);

		r = section_to_mask(cfg_getnsec(cfg, "lunmask", i), pos, ctx,
				    &out->masks.items[out->masks.count], errors);
		out->masks.count++;
	}
out:
	cfg_free(cfg);
	pthread_mutex_unlock(&parse_lock);
	return r;
}

/* Sections parsed by one libconfuse call: enough to make cfg_init's cost
 * small, few enough that its quadratic title lookup stays cheap. */
#define BATCH 32

static int parse_text(cfg_opt_t *opts, const char *buf, size_t start, size_t end,
		      unsigned int first_line, struct parse_ctx *ctx, struct parse_out *out,
		      int *errors)
{
	char *text = strndup(buf + start, end - start);
	int r;

	if (!text)
		return -ENOMEM;
	r = parse_chunk(opts, text, first_line, ctx, out, errors);
	free(text);
	return r;
}

/*
 * Parses the text from @start to @end, which holds the top-level sections
 * ending at ps->ends[@c_first] up to ps->ends[@c_last - 1] plus what
 * follows. If that fails, it is parsed again one section at a time, so
 * that every broken section is reported, not only the first.
 */
static int parse_batch(cfg_opt_t *opts, const char *buf, size_t start, size_t end,
		       unsigned int start_line, size_t c_first, size_t c_last,
		       struct parse_ctx *ctx, struct parse_out *out, int *errors)
{
	size_t diag_mark = ctx->diags ? ctx->diags->count : 0;
	size_t dev_mark = out->devices.count, mask_mark = out->masks.count;
	size_t next_mark[SECTION_KINDS];
	int batch_errors = 0, r;

	memcpy(next_mark, out->next, sizeof(next_mark));
	r = parse_text(opts, buf, start, end, start_line, ctx, out, &batch_errors);
	if (r < 0 || batch_errors == 0 || c_last - c_first < 1) {
		*errors += batch_errors;
		return r;
	}
	for (size_t i = dev_mark; i < out->devices.count; i++)
		quirk_entry_free(&out->devices.items[i]);
	out->devices.count = dev_mark;
	for (size_t i = mask_mark; i < out->masks.count; i++)
		lunmask_entry_free(&out->masks.items[i]);
	out->masks.count = mask_mark;
	memcpy(out->next, next_mark, sizeof(next_mark));
	if (ctx->diags) {
		for (size_t i = diag_mark; i < ctx->diags->count; i++) {
			free(ctx->diags->items[i].file);
			free(ctx->diags->items[i].message);
		}
		ctx->diags->count = diag_mark;
	}
	for (size_t i = 0; i < ctx->ps->nwords; i++)
		if (ctx->ps->words[i].line >= start_line)
			ctx->ps->words[i].used = false;
	for (size_t c = c_first; c <= c_last && r == 0; c++) {
		size_t e = c < ctx->ps->nends ? ctx->ps->ends[c].offset : end;

		if (e > end)
			e = end;
		if (e > start)
			r = parse_text(opts, buf, start, e, start_line, ctx, out, errors);
		if (c < ctx->ps->nends) {
			start = e;
			start_line = ctx->ps->ends[c].line;
		}
	}
	return r;
}

struct title_line {
	const char *title;
	unsigned int line;
};

static int cmp_title_line(const void *a, const void *b)
{
	const struct title_line *x = a, *y = b;
	int c = strcmp(x->title, y->title);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Titles are unique per kind of section in a file. */
static int check_duplicate_titles(struct parse_ctx *ctx, struct title_line *t, size_t n,
				  const char *kind, int *errors)
{
	int r = 0;

	qsort(t, n, sizeof(*t), cmp_title_line);
	for (size_t i = 1; i < n && r == 0; i++) {
		if (strcmp(t[i].title, t[i - 1].title) != 0)
			continue;
		(*errors)++;
		r = quirk_diag_add(ctx->diags, QUIRK_ERROR, ctx->name, t[i].line,
				   "found duplicate title '%s' among %s sections (first at line "
				   "%u)",
				   t[i].title, kind, t[i - 1].line);
	}
	return r;
}

static int check_titles(struct parse_ctx *ctx, const struct parse_out *out, int *errors)
{
	size_t n = out->devices.count > out->masks.count ? out->devices.count : out->masks.count;
	struct title_line *t;
	int r;

	if (n < 2)
		return 0;
	t = malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < out->devices.count; i++) {
		t[i].title = out->devices.items[i].title;
		t[i].line = out->devices.items[i].line;
	}
	r = check_duplicate_titles(ctx, t, out->devices.count, "device", errors);
	for (size_t i = 0; i < out->masks.count; i++) {
		t[i].title = out->masks.items[i].title;
		t[i].line = out->masks.items[i].line;
	}
	if (r == 0)
		r = check_duplicate_titles(ctx, t, out->masks.count, "lunmask", errors);
	free(t);
	return r;
}

int quirk_parse_buffer(const char *name, const char *buf, size_t len, struct quirk_diags *diags,
		       struct quirk_parsed *ret)
{
	cfg_opt_t device_opts[] = {
		CFG_STR("vendor", NULL, CFGF_NODEFAULT),
		CFG_STR("model", NULL, CFGF_NODEFAULT),
		CFG_STR("revision", NULL, CFGF_NODEFAULT),
		CFG_INT("type", -1, CFGF_NODEFAULT),
		CFG_STR_LIST("flags", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("add_flags", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("drop_flags", NULL, CFGF_NODEFAULT),
		CFG_INT("max_lun", -1, CFGF_NODEFAULT),
		CFG_BOOL("attach", cfg_true, CFGF_NODEFAULT),
		CFG_BOOL("builtin", cfg_false, CFGF_NODEFAULT),
		CFG_STR("handler", NULL, CFGF_NODEFAULT),
		CFG_STR("reason", NULL, CFGF_NODEFAULT),
		CFG_END(),
	};
	cfg_opt_t lunmask_opts[] = {
		CFG_STR("driver", NULL, CFGF_NODEFAULT),
		CFG_STR("host_port_name", NULL, CFGF_NODEFAULT),
		CFG_STR("host_path", NULL, CFGF_NODEFAULT),
		CFG_STR("port_name", NULL, CFGF_NODEFAULT),
		CFG_STR("sas_address", NULL, CFGF_NODEFAULT),
		CFG_STR("iscsi_target", NULL, CFGF_NODEFAULT),
		CFG_INT("iscsi_tpgt", -1, CFGF_NODEFAULT),
		CFG_INT("channel", -1, CFGF_NODEFAULT),
		CFG_INT("id", -1, CFGF_NODEFAULT),
		CFG_STR("wwid", NULL, CFGF_NODEFAULT),
		CFG_STR("serial", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("luns", NULL, CFGF_NODEFAULT),
		CFG_STR_LIST("exclude_luns", NULL, CFGF_NODEFAULT),
		CFG_STR("reason", NULL, CFGF_NODEFAULT),
		CFG_END(),
	};
	cfg_opt_t opts[] = {
		CFG_SEC("device", device_opts, CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES),
		CFG_SEC("lunmask", lunmask_opts, CFGF_MULTI | CFGF_TITLE | CFGF_NO_TITLE_DUPES),
		CFG_END(),
	};
	struct parse_out out = { 0 };
	struct prescan ps;
	struct parse_ctx ctx = { .name = name, .diags = diags, .ps = &ps };
	size_t start = 0, chunk = 0;
	unsigned int start_line = 1;
	bool first = true;
	int errors = 0, r;
	bool nul = false;
	unsigned int bad;

	bad = find_bad_byte((const unsigned char *)buf, len, &nul);
	if (bad) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, bad,
				   nul ? "NUL byte: not a text file" : "not valid UTF-8");
		return r < 0 ? r : -EINVAL;
	}
	r = prescan(buf, len, &ps);
	if (r < 0)
		goto out;
	/* Our lexer's finding is the precise one; libconfuse, having lost
	 * track of the quotes, would only mislead. */
	if (ps.open_quote_line) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, ps.open_quote_line,
				   "string opened here is never closed");
		errors++;
		goto out;
	}
	if (ps.open_comment_line) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, ps.open_comment_line,
				   "comment opened here with /* is never closed: the rest of the "
				   "file would be lost");
		errors++;
		goto out;
	}
	if (ps.long_line) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, ps.long_line,
				   "a string or word of %zu bytes: longer than the %d bytes taken",
				   ps.long_len, QUIRK_STRING_MAX);
		errors++;
		goto out;
	}
	if (ps.env_line) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, ps.env_line,
				   "${...}: libconfuse would put an environment variable's value "
				   "here, which differs between programs and the compiled image; "
				   "write \\${ inside \"...\" (or use '...') for the characters "
				   "themselves");
		errors++;
		goto out;
	}
	if (ps.list_comment_line) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, ps.list_comment_line,
				   "comment inside a { } list (libconfuse 3.3 rejects it; move it "
				   "after the closing brace)");
		errors++;
		goto out;
	}
	if (ps.open_section_line) {
		r = quirk_diag_add(diags, QUIRK_ERROR, name, ps.open_section_line,
				   "section opened here is never closed with '}'");
		errors++;
		goto out;
	}
	while (r == 0 && (start < len || first)) {
		size_t c_end = chunk + BATCH < ps.nends ? chunk + BATCH : ps.nends;
		size_t end = c_end < ps.nends ? ps.ends[c_end].offset : len;

		first = false;
		r = parse_batch(opts, ps.text, start, end, start_line, chunk, c_end, &ctx, &out,
				&errors);
		if (c_end == ps.nends)
			break;
		start = end;
		start_line = ps.ends[c_end].line;
		chunk = c_end + 1;
	}
	if (r == 0)
		r = check_titles(&ctx, &out, &errors);
	if (r == 0 && out.devices.count == 0 && out.masks.count == 0 && !errors)
		r = quirk_diag_add(diags, QUIRK_WARNING, name, 0, "no device or lunmask entries");
	if (r < 0)
		goto out;
	if (errors) {
		r = -EINVAL;
		goto out;
	}
	ret->entries = out.devices.items;
	ret->count = out.devices.count;
	ret->masks = out.masks.items;
	ret->nmasks = out.masks.count;
	memset(&out, 0, sizeof(out));
	r = 0;
out:
	for (size_t i = 0; i < out.devices.count; i++)
		quirk_entry_free(&out.devices.items[i]);
	free(out.devices.items);
	for (size_t i = 0; i < out.masks.count; i++)
		lunmask_entry_free(&out.masks.items[i]);
	free(out.masks.items);
	prescan_free(&ps);
	return r < 0 ? r : (errors ? -EINVAL : 0);
}
