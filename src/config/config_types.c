/* The value types of config keys that are text or a choice (config.h):
 * paths, job names, enums, yes/no, probes, key lists; parsing and
 * formatting through a key's type, and splitting a comma list. */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/lists.h"
#include "mmprof/probe.h"
#include "util/suggest.h"
#include "util/vec.h"

int mmp_key_parse(const struct mmp_key *key, const char *text, void *dst, char *err,
		  size_t errlen)
{
	return key->type->parse(key, text, dst, err, errlen);
}

const char *mmp_key_format(const struct mmp_key *key, const void *src, char *buf,
			   size_t len)
{
	buf[0] = '\0';
	key->type->format(key, src, buf, len);
	return buf;
}

void mmp_key_format_text(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	const char *s = *(const char *const *)src;
	(void)key;
	snprintf(buf, len, "%s", s ? s : "");
}

static int parse_text(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	(void)key, (void)err, (void)errlen;
	*(const char **)dst = text;
	return 0;
}

static void limits_path(const struct mmp_key *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "a path");
}

static void limits_jobs(const struct mmp_key *k, char *buf, size_t len)
{
	snprintf(buf, len, (k->flags & MMP_KEY_LIST_VALUE) ? "job names" : "a job name");
}

const struct mmp_key_type mmp_key_path = {
	.parse = parse_text, .format = mmp_key_format_text, .limits = limits_path,
	.verbatim = true,
};
const struct mmp_key_type mmp_key_jobs = {
	.parse = parse_text, .format = mmp_key_format_text, .limits = limits_jobs,
	.verbatim = true,
};

static size_t count_names(const char *const *names)
{
	size_t n = 0;
	while (names[n])
		n++;
	return n;
}

static void append_hint(char *err, size_t errlen, const char *hint,
			const char *const *names)
{
	size_t used = strlen(err);
	if (hint) {
		snprintf(err + used, errlen - used, " (did you mean '%s'?)", hint);
		return;
	}
	used += (size_t)snprintf(err + used, errlen - used, " (one of:");
	for (size_t i = 0; names[i] && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, " %s", names[i]);
	if (used < errlen)
		snprintf(err + used, errlen - used, ")");
}

static int parse_enum(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	for (int i = 0; key->values[i]; i++) {
		if (strcmp(key->values[i], text) == 0) {
			*(int *)dst = i;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not a valid %s", text, key->name);
	append_hint(err, errlen, mmp_suggest(text, key->values, count_names(key->values)),
		    key->values);
	return -EINVAL;
}

static void format_enum(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	snprintf(buf, len, "%s", key->values[*(const int *)src]);
}

static void limits_enum(const struct mmp_key *k, char *buf, size_t len)
{
	size_t used = 0;
	for (int i = 0; k->values[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 k->values[i]);
}

const struct mmp_key_type mmp_key_enum = {
	.parse = parse_enum, .format = format_enum, .limits = limits_enum,
};

static int parse_probe(const struct mmp_key *key, const char *text, void *dst, char *err,
		       size_t errlen)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	const struct mmp_probe *p = mmp_probe_find(text);
	const char *names[64];

	(void)key;
	if (p) {
		*(const struct mmp_probe **)dst = p;
		return 0;
	}
	for (size_t i = 0; i < n && i < 63; i++)
		names[i] = all[i]->name;
	names[n < 63 ? n : 63] = NULL;
	snprintf(err, errlen, "unknown probe '%s'", text);
	append_hint(err, errlen, mmp_suggest(text, names, n), names);
	return -EINVAL;
}

static void format_probe(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	const struct mmp_probe *p = *(const struct mmp_probe *const *)src;
	(void)key;
	snprintf(buf, len, "%s", p ? p->name : "");
}

static void limits_probe(const struct mmp_key *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "see --list-probes");
}

const struct mmp_key_type mmp_key_probe = {
	.parse = parse_probe, .format = format_probe, .limits = limits_probe,
};

static int parse_bool(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	(void)key;
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(text, yes[i]) == 0) {
			*(bool *)dst = true;
			return 0;
		}
		if (strcmp(text, no[i]) == 0) {
			*(bool *)dst = false;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not yes or no", text);
	return -EINVAL;
}

static void format_bool(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%s", *(const bool *)src ? "yes" : "no");
}

static void limits_bool(const struct mmp_key *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "yes, no");
}

const struct mmp_key_type mmp_key_bool = {
	.parse = parse_bool, .format = format_bool, .limits = limits_bool,
};

static int parse_keylist(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	uint64_t mask = 0;
	char *copy = strdup(text), *save = NULL;
	const char *names[MMP_KEY_COUNT + 1];
	int rc = 0;

	(void)key;
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		names[i] = mmp_keys[i].name;
	names[MMP_KEY_COUNT] = NULL;
	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		const struct mmp_key *k = mmp_key_find(tok);
		if (!k) {
			snprintf(err, errlen, "unknown key '%s'", tok);
			const char *hint = mmp_suggest(tok, names, MMP_KEY_COUNT);
			if (hint)
				snprintf(err + strlen(err), errlen - strlen(err),
					 " (did you mean '%s'?)", hint);
			rc = -EINVAL;
			break;
		}
		if (k->flags & MMP_KEY_NO_SWEEP) {
			snprintf(err, errlen, "'%s' takes one value, it cannot be zipped", tok);
			rc = -EINVAL;
			break;
		}
		mask |= MMP_KEY_BIT(k->id);
	}
	if (!rc && __builtin_popcountll(mask) < 2) {
		snprintf(err, errlen, "zip needs at least two keys (e.g. zip = probe, access)");
		rc = -EINVAL;
	}
	free(copy);
	if (!rc)
		*(uint64_t *)dst = mask;
	return rc;
}

static void format_keylist(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	uint64_t mask = *(const uint64_t *)src;
	size_t used = 0;
	(void)key;
	for (size_t i = 0; i < MMP_KEY_COUNT && used < len; i++)
		if (mask & MMP_KEY_BIT(i))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 mmp_keys[i].name);
}

static void limits_keylist(const struct mmp_key *k, char *buf, size_t len)
{
	(void)k;
	snprintf(buf, len, "key names");
}

const struct mmp_key_type mmp_key_keylist = {
	.parse = parse_keylist, .format = format_keylist, .limits = limits_keylist,
};

/* [begin, end) trimmed, with each "\\," made a comma unless keep_escapes
 * (a type that splits its own list). */
static char *trimmed_copy(const char *begin, const char *end, int keep_escapes)
{
	while (begin < end && isspace((unsigned char)*begin))
		begin++;
	while (end > begin && isspace((unsigned char)end[-1]))
		end--;
	char *out = strndup(begin, (size_t)(end - begin));
	if (!out || keep_escapes)
		return out;
	char *w = out;
	for (const char *r = out; *r; r++) {
		if (r[0] == '\\' && r[1] == ',')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	return out;
}

/* A path key (file, csv) whose whole value names something that exists
 * ("a,b/d.bin") is that one path, not a list. */
static int one_existing_path(const struct mmp_key *key, const char *text)
{
	struct stat st;
	if (key->type != &mmp_key_path)
		return 0;
	char *whole = trimmed_copy(text, text + strlen(text), 0);
	int exists = whole && strchr(whole, ',') && stat(whole, &st) == 0;
	free(whole);
	return exists;
}

int mmp_key_split(const struct mmp_key *key, const char *text, char ***items)
{
	size_t n = 0, cap = 4;
	char **out = calloc(cap, sizeof(*out));
	const char *p = text;

	if (!out)
		return -ENOMEM;
	int whole = (key->flags & MMP_KEY_LIST_VALUE) || one_existing_path(key, text);
	for (;;) {
		const char *comma = whole ? NULL : mmp_list_comma(p);
		const char *end = comma ? comma : p + strlen(p);
		char *item = trimmed_copy(p, end, whole && key->type->own_list);
		if (!item)
			goto nomem;
		/* "pus:0-3,8", "numa:0,2", "interleave:0,2": a placement's or
		 * a policy's list goes on after its comma while the next piece
		 * is a number or a range. */
		if (n > 0 && key->type->list_continues &&
		    key->type->list_continues(out[n - 1], item)) {
			size_t la = strlen(out[n - 1]), lb = strlen(item);
			char *joined = realloc(out[n - 1], la + lb + 2);
			if (!joined) {
				free(item);
				goto nomem;
			}
			joined[la] = ',';
			memcpy(joined + la + 1, item, lb + 1);
			out[n - 1] = joined;
			free(item);
		} else {
			if (item[0] == '\0') {
				free(item);
				mmp_key_free_items(out, n);
				return -EINVAL;
			}
			if (MMP_VEC_RESERVE(out, cap, n + 1)) {
				free(item);
				goto nomem;
			}
			out[n++] = item;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*items = out;
	return (int)n;
nomem:
	mmp_key_free_items(out, n);
	return -ENOMEM;
}

void mmp_key_free_items(char **items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}
