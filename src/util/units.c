#include "util/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>

/* The decimal digits at *p (at least one), advancing *p past them. */
static int digits(const char **p, uint64_t *out)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	for (; isdigit((unsigned char)**p); (*p)++) {
		unsigned d = (unsigned)(**p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int mmp_parse_u64(const char *text, uint64_t *out)
{
	uint64_t v;
	const char *p = text;
	int rc = digits(&p, &v);

	if (rc)
		return rc;
	if (*p != '\0')
		return -EINVAL;
	*out = v;
	return 0;
}

static const struct {
	const char *suffix;
	unsigned shift;
} size_suffixes[] = {
	{ "", 0 },    { "b", 0 },    { "k", 10 },  { "kb", 10 },
	{ "kib", 10 }, { "m", 20 },  { "mb", 20 }, { "mib", 20 },
	{ "g", 30 },  { "gb", 30 },  { "gib", 30 }, { "t", 40 },
	{ "tb", 40 }, { "tib", 40 },
};

int mmp_parse_size(const char *text, uint64_t *out)
{
	uint64_t v;
	const char *p = text;
	int rc = digits(&p, &v);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]); i++) {
		if (strcasecmp(p, size_suffixes[i].suffix) != 0)
			continue;
		unsigned s = size_suffixes[i].shift;
		if (s && v > (UINT64_MAX >> s))
			return -ERANGE;
		*out = v << s;
		return 0;
	}
	return -EINVAL;
}

const char *mmp_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	uint64_t v = bytes;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)v, units[u]);
	return buf;
}

const char *mmp_format_ns(double ns, char *buf, size_t len)
{
	static const struct {
		double ns;
		const char *name;
	} scale[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++)
		if (fabs(ns) >= scale[i].ns) {
			snprintf(buf, len, "%.3g %s", ns / scale[i].ns, scale[i].name);
			return buf;
		}
	snprintf(buf, len, "%.3g ns", ns);
	return buf;
}

uint64_t mmp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
