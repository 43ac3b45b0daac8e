/* The numeric value types of config keys (config.h): sizes, counts,
 * repeat, rates, percentages and times, each with its limits from the
 * key's row. */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/units.h"

/* A size (bytes, binary suffixes) or a plain count, within the key's
 * limits, into a field of key->width bytes. */
static int parse_number(const struct mmp_key *key, const char *text, void *dst, int size,
			char *err, size_t errlen)
{
	uint64_t v;
	char a[32], b[32];
	int rc = size ? mmp_parse_size(text, &v) : mmp_parse_u64(text, &v);

	if (rc == -ERANGE) {
		snprintf(err, errlen, "'%s' does not fit in 64 bits", text);
		return -EINVAL;
	}
	if (rc) {
		if (size)
			snprintf(err, errlen, "'%s' is not a size (e.g. 512, 4K, 100M, 1G)", text);
		else
			snprintf(err, errlen, "'%s' is not a whole number", text);
		return -EINVAL;
	}
	if (v < key->min || v > key->max) {
		if (size)
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

static int parse_size(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	return parse_number(key, text, dst, 1, err, errlen);
}

static int parse_uint(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	return parse_number(key, text, dst, 0, err, errlen);
}

static void format_size(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	uint64_t v = *(const uint64_t *)src;
	(void)key;
	if (v)
		mmp_format_size(v, buf, len);
}

static void format_uint(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	if (key->width == sizeof(uint32_t))
		snprintf(buf, len, "%u", *(const uint32_t *)src);
	else
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)src);
}

static void limits_size(const struct mmp_key *k, char *buf, size_t len)
{
	char a[32], b[32];
	snprintf(buf, len, "%s to %s", mmp_format_size(k->min, a, sizeof(a)),
		 mmp_format_size(k->max, b, sizeof(b)));
}

static void limits_uint(const struct mmp_key *k, char *buf, size_t len)
{
	if (k->max == UINT64_MAX)
		snprintf(buf, len, "any");
	else
		snprintf(buf, len, "%llu to %llu", (unsigned long long)k->min,
			 (unsigned long long)k->max);
}

const struct mmp_key_type mmp_key_size = {
	.parse = parse_size, .format = format_size, .limits = limits_size,
};
const struct mmp_key_type mmp_key_uint = {
	.parse = parse_uint, .format = format_uint, .limits = limits_uint,
};

/* A count, or auto (stored as 0): repeat = auto adds rounds until decided. */
static int parse_repeat(const struct mmp_key *key, const char *text, void *dst, char *err,
			size_t errlen)
{
	if (strcmp(text, "auto") == 0) {
		*(uint32_t *)dst = 0;
		return 0;
	}
	return parse_number(key, text, dst, 0, err, errlen);
}

/* repeat and profile: a count whose 0 is said in a word (auto, off). */
static void format_count(const void *src, const char *zero, char *buf, size_t len)
{
	if (*(const uint32_t *)src == 0)
		snprintf(buf, len, "%s", zero);
	else
		snprintf(buf, len, "%u", *(const uint32_t *)src);
}

static void format_repeat(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	format_count(src, "auto", buf, len);
}

static void limits_repeat(const struct mmp_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "auto, or %llu to %llu", (unsigned long long)k->min,
		 (unsigned long long)k->max);
}

const struct mmp_key_type mmp_key_repeat = {
	.parse = parse_repeat, .format = format_repeat, .limits = limits_repeat,
};

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

static void format_rate(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	format_count(src, "off", buf, len);
}

static void limits_rate(const struct mmp_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "off, or %llu to %llu (Hz; 4kHz)", (unsigned long long)k->min,
		 (unsigned long long)k->max);
}

const struct mmp_key_type mmp_key_rate = {
	.parse = parse_rate, .format = format_rate, .limits = limits_rate,
};

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

static void format_percent(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%g%%", *(const double *)src * 100);
}

static void limits_percent(const struct mmp_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "%llu%% to %llu%%", (unsigned long long)k->min,
		 (unsigned long long)k->max);
}

const struct mmp_key_type mmp_key_percent = {
	.parse = parse_percent, .format = format_percent, .limits = limits_percent,
};

static void format_seconds(const struct mmp_key *key, const void *src, char *buf, size_t len)
{
	(void)key;
	snprintf(buf, len, "%gs", *(const double *)src);
}

static void limits_seconds(const struct mmp_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "%llus to %llus", (unsigned long long)k->min,
		 (unsigned long long)k->max);
}

const struct mmp_key_type mmp_key_seconds = {
	.parse = parse_seconds, .format = format_seconds, .limits = limits_seconds,
};
