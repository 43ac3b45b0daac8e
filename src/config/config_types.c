/* The value types of config keys: parsing a value's text into its field,
 * formatting it back, and splitting a comma list into values. */
#include "mmprof/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/capture.h"
#include "mmprof/command.h"
#include "mmprof/controls.h"
#include "mmprof/events.h"
#include "mmprof/lists.h"
#include "mmprof/memory.h"
#include "mmprof/probe.h"
#include "mmprof/suggest.h"
#include "mmprof/topology.h"
#include "mmprof/units.h"

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

static int parse_probe(const char *text, void *dst, char *err, size_t errlen)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	const struct mmp_probe *p = mmp_probe_find(text);
	const char *names[64];

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

static int parse_bool(const char *text, void *dst, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
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

static int parse_number(const struct mmp_key *key, const char *text, void *dst,
			char *err, size_t errlen)
{
	uint64_t v;
	char a[32], b[32];
	int rc = key->type == MMP_T_SIZE ? mmp_parse_size(text, &v) : mmp_parse_u64(text, &v);

	if (rc == -ERANGE) {
		snprintf(err, errlen, "'%s' does not fit in 64 bits", text);
		return -EINVAL;
	}
	if (rc) {
		if (key->type == MMP_T_SIZE)
			snprintf(err, errlen, "'%s' is not a size (e.g. 512, 4K, 100M, 1G)", text);
		else
			snprintf(err, errlen, "'%s' is not a whole number", text);
		return -EINVAL;
	}
	if (v < key->min || v > key->max) {
		if (key->type == MMP_T_SIZE)
			snprintf(err, errlen, "%s = %s is out of range (%s to %s)", key->name,
				 text, mmp_format_size(key->min, a, sizeof(a)),
				 mmp_format_size(key->max, b, sizeof(b)));
		else
			snprintf(err, errlen, "%s = %s is out of range (%llu to %llu)",
				 key->name, text, (unsigned long long)key->min,
				 (unsigned long long)key->max);
		return -EINVAL;
	}
	if (key->width == sizeof(uint32_t))
		*(uint32_t *)dst = (uint32_t)v;
	else
		*(uint64_t *)dst = v;
	return 0;
}

/* off, or a rate: 1000, 1000Hz, 4kHz. */
static int parse_rate(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	char num[32];
	uint64_t scale = 1;
	size_t n = strlen(text);

	if (strcmp(text, "off") == 0) {
		*(uint32_t *)dst = 0;
		return 0;
	}
	if (n > 3 && strcasecmp(text + n - 3, "kHz") == 0) {
		n -= 3;
		scale = 1000;
	} else if (n > 2 && strcasecmp(text + n - 2, "Hz") == 0) {
		n -= 2;
	}
	if (n == 0 || n >= sizeof(num)) {
		snprintf(err, errlen, "'%s' is not a rate (off, 1000, 1000Hz, 4kHz)", text);
		return -EINVAL;
	}
	memcpy(num, text, n);
	num[n] = '\0';
	uint64_t v;
	if (mmp_parse_u64(num, &v) || v > UINT32_MAX / scale) {
		snprintf(err, errlen, "'%s' is not a rate (off, 1000, 1000Hz, 4kHz)", text);
		return -EINVAL;
	}
	v *= scale;
	if (v < key->min || v > key->max) {
		snprintf(err, errlen, "%s = %s is out of range (%llu to %llu Hz, or off)", key->name,
			 text, (unsigned long long)key->min, (unsigned long long)key->max);
		return -EINVAL;
	}
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

static int parse_keylist(const char *text, void *dst, char *err, size_t errlen)
{
	uint64_t mask = 0;
	char *copy = strdup(text), *save = NULL;
	const char *names[MMP_KEY_COUNT + 1];
	int rc = 0;

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

/* A decimal number with an optional unit from units[] (suffix, factor);
 * the first unit is the default. */
struct unit {
	const char *suffix;
	double factor;
};

static int parse_scaled(const struct mmp_key *key, const char *text, const struct unit *units,
			size_t nunits, const char *example, double *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	double factor = -1;
	if (end == text || errno || !isfinite(v) || v < 0 || isspace((unsigned char)*text))
		goto bad;
	for (size_t i = 0; i < nunits && factor < 0; i++)
		if (strcmp(end, units[i].suffix) == 0)
			factor = units[i].factor;
	if (factor < 0)
		goto bad;
	*out = v * factor;
	if (*out < (double)key->min || *out > (double)key->max) {
		snprintf(err, errlen, "%s = %s is out of range (%llu%s to %llu%s)", key->name, text,
			 (unsigned long long)key->min, units[0].suffix,
			 (unsigned long long)key->max, units[0].suffix);
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not a %s (e.g. %s)", text, key->name, example);
	return -EINVAL;
}

static int parse_percent(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	static const struct unit units[] = { { "%", 1 } };
	double v;
	/* A bare fraction (0.05) is accepted too; a bare 5 would be ambiguous. */
	char *end;
	double bare = strtod(text, &end);
	if (end != text && *end == '\0' && bare >= 0 && bare <= 1) {
		*(double *)dst = bare;
		return 0;
	}
	if (parse_scaled(key, text, units, 1, "5% or 0.05", &v, err, errlen))
		return -EINVAL;
	*(double *)dst = v / 100;
	return 0;
}

static int parse_seconds(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	static const struct unit units[] = {
		{ "s", 1 }, { "", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "min", 60 }, { "h", 3600 },
	};
	return parse_scaled(key, text, units, sizeof(units) / sizeof(units[0]), "90s, 2m, 1h",
			    (double *)dst, err, errlen);
}

int mmp_key_parse(const struct mmp_key *key, const char *text, void *dst, char *err,
		  size_t errlen)
{
	switch (key->type) {
	case MMP_T_REPEAT:
		if (strcmp(text, "auto") == 0) {
			*(uint32_t *)dst = 0;
			return 0;
		}
		return parse_number(key, text, dst, err, errlen);
	case MMP_T_RATE:
		return parse_rate(key, text, dst, err, errlen);
	case MMP_T_PERCENT:
		return parse_percent(key, text, dst, err, errlen);
	case MMP_T_MEMBIND:
		return mmp_membind_parse(text, dst, err, errlen);
	case MMP_T_SECONDS:
		return parse_seconds(key, text, dst, err, errlen);
	case MMP_T_STRING:
		*(const char **)dst = text;
		return 0;
	case MMP_T_CONTROLS: {
		unsigned mask;
		if (mmp_controls_parse(text, &mask, err, errlen))
			return -EINVAL;
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_EVENTS: {
		struct mmp_event_set set;
		int rc = mmp_events_resolve(text, &set, err, errlen);
		mmp_event_set_free(&set);
		if (rc)
			return rc == -ENOMEM ? rc : -EINVAL;
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_SIZE:
	case MMP_T_UINT:
		return parse_number(key, text, dst, err, errlen);
	case MMP_T_ENUM:
		return parse_enum(key, text, dst, err, errlen);
	case MMP_T_BOOL:
		return parse_bool(text, dst, err, errlen);
	case MMP_T_PROBE:
		return parse_probe(text, dst, err, errlen);
	case MMP_T_PLACEMENT:
		return mmp_placement_parse(text, dst, err, errlen);
	case MMP_T_COMMAND: {
		struct mmp_argv argv;
		char msg[400];
		int rc = mmp_command_expand(text, NULL, &argv, msg, sizeof(msg));
		mmp_command_free(&argv);
		if (rc) {
			snprintf(err, errlen, "command: %s", msg);
			return rc == -ENOMEM ? rc : -EINVAL;
		}
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_CAPTURE: {
		char msg[400];
		int rc = mmp_capture_check(text, key->id == MMP_KEY_TIME, msg, sizeof(msg));
		if (rc) {
			snprintf(err, errlen, "%s: %s", key->name, msg);
			return rc == -ENOMEM ? rc : -EINVAL;
		}
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_KEYLIST:
		return parse_keylist(text, dst, err, errlen);
	}
	return -EINVAL;
}

const char *mmp_key_format(const struct mmp_key *key, const void *src, char *buf,
			   size_t len)
{
	buf[0] = '\0';
	switch (key->type) {
	case MMP_T_REPEAT:
		if (*(const uint32_t *)src == 0)
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%u", *(const uint32_t *)src);
		break;
	case MMP_T_PERCENT:
		snprintf(buf, len, "%g%%", *(const double *)src * 100);
		break;
	case MMP_T_RATE:
		if (*(const uint32_t *)src == 0)
			snprintf(buf, len, "off");
		else
			snprintf(buf, len, "%u", *(const uint32_t *)src);
		break;
	case MMP_T_MEMBIND:
		snprintf(buf, len, "%s", ((const struct mmp_membind *)src)->spec);
		break;
	case MMP_T_SECONDS:
		snprintf(buf, len, "%gs", *(const double *)src);
		break;
	case MMP_T_STRING:
	case MMP_T_EVENTS:
	case MMP_T_CONTROLS:
	case MMP_T_COMMAND:
	case MMP_T_CAPTURE: {
		const char *s = *(const char *const *)src;
		snprintf(buf, len, "%s", s ? s : "");
		break;
	}
	case MMP_T_SIZE: {
		uint64_t v = *(const uint64_t *)src;
		if (v)
			mmp_format_size(v, buf, len);
		break;
	}
	case MMP_T_UINT:
		if (key->width == sizeof(uint32_t))
			snprintf(buf, len, "%u", *(const uint32_t *)src);
		else
			snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)src);
		break;
	case MMP_T_ENUM:
		snprintf(buf, len, "%s", key->values[*(const int *)src]);
		break;
	case MMP_T_BOOL:
		snprintf(buf, len, "%s", *(const bool *)src ? "yes" : "no");
		break;
	case MMP_T_PROBE: {
		const struct mmp_probe *p = *(const struct mmp_probe *const *)src;
		snprintf(buf, len, "%s", p ? p->name : "");
		break;
	}
	case MMP_T_PLACEMENT:
		snprintf(buf, len, "%s", ((const struct mmp_placement *)src)->spec);
		break;
	case MMP_T_KEYLIST: {
		uint64_t mask = *(const uint64_t *)src;
		size_t used = 0;
		for (size_t i = 0; i < MMP_KEY_COUNT && used < len; i++)
			if (mask & MMP_KEY_BIT(i))
				used += (size_t)snprintf(buf + used, len - used, "%s%s",
							 used ? ", " : "", mmp_keys[i].name);
		break;
	}
	}
	return buf;
}

/* [begin, end) trimmed, with each "\\," made a comma. */
static char *trimmed_copy(const char *begin, const char *end)
{
	while (begin < end && isspace((unsigned char)*begin))
		begin++;
	while (end > begin && isspace((unsigned char)end[-1]))
		end--;
	char *out = strndup(begin, (size_t)(end - begin));
	if (!out)
		return NULL;
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
	if (key->id != MMP_KEY_FILE && key->id != MMP_KEY_CSV)
		return 0;
	char *whole = trimmed_copy(text, text + strlen(text));
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
		char *item = trimmed_copy(p, end);
		if (!item)
			goto nomem;
		/* "pus:0-3,8", "numa:0,2", "interleave:0,2": a placement's or
		 * a policy's list goes on after its comma while the next piece
		 * is a number or a range. */
		if (n > 0 && ((key->type == MMP_T_PLACEMENT &&
			       mmp_placement_list_continues(out[n - 1], item)) ||
			      (key->type == MMP_T_MEMBIND &&
			       mmp_membind_list_continues(out[n - 1], item)))) {
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
			if (n == cap) {
				char **grown = realloc(out, 2 * cap * sizeof(*out));
				if (!grown) {
					free(item);
					goto nomem;
				}
				out = grown;
				cap *= 2;
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
