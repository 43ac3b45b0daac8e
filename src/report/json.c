/* A streaming JSON writer (see json.h). */
#include "report/json.h"

#include "result/intervals.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mmp_json_init(struct mmp_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->in_array[0] = 1; /* the top level takes values without keys */
}

/* The length of a valid UTF-8 sequence at s (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), 0 when it is not one. */
static size_t utf8_length(const unsigned char *s)
{
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		unsigned char lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		unsigned char lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
				       (s[3] & 0xc0) == 0x80
			       ? 4
			       : 0;
	}
	return 0;
}

void mmp_json_quote(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else if (c >= 0x80) {
			/* A sequence cut by the NUL fails the continuation checks
			 * before reading past it. */
			size_t n = utf8_length(p);
			if (!n) {
				fputs("\\ufffd", f);
				p++;
				continue;
			}
			fwrite(p, 1, n, f);
			p += n;
			continue;
		} else {
			fputc(c, f);
		}
		p++;
	}
	fputc('"', f);
}

/* Before any value: the comma, the line break, the indent and the key. */
static void value_start(struct mmp_json *j, const char *key)
{
	int array = j->in_array[j->depth];
	if (!!array == !!key)
		j->misused = 1;
	if (j->members[j->depth])
		fputs(array == 2 ? ", " : ",", j->f);
	if (j->depth && array != 2)
		fputc('\n', j->f);
	for (int i = 0; i < j->depth && array != 2; i++)
		fputs("  ", j->f);
	if (key && !array) {
		mmp_json_quote(j->f, key);
		fputs(": ", j->f);
	}
	j->members[j->depth] = 1;
}

static void open_container(struct mmp_json *j, const char *key, int array)
{
	if (j->in_array[j->depth] == 2)
		j->misused = 1; /* a line holds scalars only */
	value_start(j, key);
	fputc(array ? '[' : '{', j->f);
	if (j->depth == MMP_JSON_MAX_DEPTH) {
		j->misused = 1;
		return;
	}
	j->depth++;
	j->in_array[j->depth] = (unsigned char)array;
	j->members[j->depth] = 0;
}

static void close_container(struct mmp_json *j, int array)
{
	int line = j->in_array[j->depth] == 2;
	if (!j->depth || !!j->in_array[j->depth] != array) {
		j->misused = 1;
		return;
	}
	int had = j->members[j->depth];
	j->depth--;
	if (had && !line) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(array ? ']' : '}', j->f);
}

void mmp_json_open_object(struct mmp_json *j, const char *key)
{
	open_container(j, key, 0);
}

void mmp_json_close_object(struct mmp_json *j)
{
	close_container(j, 0);
}

void mmp_json_open_array(struct mmp_json *j, const char *key)
{
	open_container(j, key, 1);
}

void mmp_json_close_array(struct mmp_json *j)
{
	close_container(j, 1);
}

void mmp_json_open_line(struct mmp_json *j, const char *key)
{
	open_container(j, key, 2);
}

void mmp_json_put_string(struct mmp_json *j, const char *key, const char *value)
{
	value_start(j, key);
	if (value)
		mmp_json_quote(j->f, value);
	else
		fputs("null", j->f);
}

void mmp_json_put_text(struct mmp_json *j, const char *key, const char *value)
{
	mmp_json_put_string(j, key, value && *value ? value : NULL);
}

void mmp_json_put_number(struct mmp_json *j, const char *key, double value)
{
	char buf[40];
	value_start(j, key);
	if (!isfinite(value)) {
		fputs("null", j->f);
		return;
	}
	/* The shortest text that reads back as the same double: 1.5, not
	 * 1.50000000000000000; 17 digits always do. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, value);
		if (strtod(buf, NULL) == value)
			break;
	}
	fputs(buf, j->f);
}

void mmp_json_put_uint(struct mmp_json *j, const char *key, uint64_t value)
{
	value_start(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void mmp_json_put_bool(struct mmp_json *j, const char *key, int value)
{
	value_start(j, key);
	fputs(value ? "true" : "false", j->f);
}

void mmp_json_put_null(struct mmp_json *j, const char *key)
{
	value_start(j, key);
	fputs("null", j->f);
}

int mmp_json_finish(struct mmp_json *j)
{
	if (j->depth || !j->members[0])
		j->misused = 1;
	fputc('\n', j->f);
	return j->misused ? -EINVAL : 0;
}

void mmp_json_put_interval(struct mmp_json *j, const char *key, const struct mmp_interval *iv,
			   int with_rounds)
{
	mmp_json_open_object(j, key);
	mmp_json_put_number(j, "estimate", iv->estimate);
	if (iv->valid) {
		mmp_json_put_number(j, "low", iv->low);
		mmp_json_put_number(j, "high", iv->high);
	} else {
		mmp_json_put_null(j, "low");
		mmp_json_put_null(j, "high");
	}
	if (with_rounds)
		mmp_json_put_uint(j, "rounds", iv->n);
	mmp_json_close_object(j);
}
