/* An RFC 4180 CSV reader (see csvread.h). */
#include "compare/csvread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/vec.h"

/* Grow an array of pointers to hold one more. */
static int push(char ***v, size_t *n, size_t *cap, char *p)
{
	if (mmp_vec_reserve(v, cap, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = p;
	return 0;
}

static int push_line(struct mmp_csvread *t, size_t *cap, size_t line)
{
	if (MMP_VEC_RESERVE(t->line, *cap, t->nrows + 2))
		return -ENOMEM;
	t->line[t->nrows + (t->ncols ? 1 : 0)] = line;
	return 0;
}

/* A line break at p: "\n", "\r\n", or a "\r" that ends the text.  Its
 * length, 0 when there is none. */
static size_t line_break(const char *p, const char *end)
{
	if (p >= end)
		return 0;
	if (*p == '\n')
		return 1;
	if (*p == '\r' && (p + 1 == end || p[1] == '\n'))
		return p + 1 == end ? 1 : 2;
	return 0;
}

/* One field from *pp, unquoted in place; *delim gets ',' , '\n' (end of
 * record, line break consumed) or 0 (end of text). */
static int field(struct mmp_csvread *t, char **pp, char *end, size_t *line, size_t nth,
		 char **out, char *delim, struct mmp_error *err)
{
	char *p = *pp, *w = p;
	*out = w;
	if (p < end && *p == '"') {
		size_t opened = *line;
		for (p++;; p++) {
			if (p >= end)
				return mmp_error_set(err, -EINVAL,
						     "%s:%zu: field %zu opens a quote that is never "
						     "closed: not a CSV file, or a cut one",
						     t->name, opened, nth);
			if (*p == '"') {
				if (p + 1 < end && p[1] == '"') {
					*w++ = '"';
					p++;
					continue;
				}
				p++;
				break;
			}
			if (*p == '\n')
				(*line)++;
			*w++ = *p;
		}
		if (p < end && *p != ',' && !line_break(p, end))
			return mmp_error_set(err, -EINVAL,
					     "%s:%zu: field %zu has text after its closing quote "
					     "(a quote inside a quoted field is written \"\")",
					     t->name, *line, nth);
	} else {
		while (p < end && *p != ',' && !line_break(p, end)) {
			if (*p == '"')
				return mmp_error_set(err, -EINVAL,
						     "%s:%zu: field %zu has a quote but does not start "
						     "with one (RFC 4180 quotes the whole field)",
						     t->name, *line, nth);
			*w++ = *p++;
		}
	}
	size_t lb = line_break(p, end);
	*delim = p >= end ? 0 : *p == ',' ? ',' : '\n';
	*w = '\0'; /* w <= p: the delimiter was read before */
	p += *delim == ',' ? 1 : lb;
	if (lb)
		(*line)++;
	*pp = p;
	return 0;
}

static int check_header(struct mmp_csvread *t, struct mmp_error *err)
{
	for (size_t i = 0; i < t->ncols; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(t->cell[i], t->cell[j]) == 0)
				return mmp_error_set(err, -EINVAL,
						     "%s:%zu: the header names column '%s' twice "
						     "(fields %zu and %zu): cells cannot be read by name",
						     t->name, t->line[0], t->cell[i], j + 1, i + 1);
	return 0;
}

/* Parse text (len bytes in a buffer of at least len + 1, which t takes
 * over whatever happens). */
static int parse_owned(struct mmp_csvread *t, char *text, size_t len, const char *name,
		       struct mmp_error *err)
{
	size_t ncells = 0, cap = 0, lcap = 0, line = 1;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->text = text;
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		rc = mmp_error_set(err, -EINVAL, "%s:%zu: a NUL byte: not a text CSV file", name,
				   line);
		goto fail;
	}
	t->text[len] = '\0';
	char *p = t->text, *end = t->text + len;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;

	while (p < end) {
		size_t lb = line_break(p, end);
		if (lb) { /* a blank line */
			p += lb;
			line++;
			continue;
		}
		size_t first = ncells, start_line = line;
		char delim = ',';
		while (delim == ',') {
			char *f;
			rc = field(t, &p, end, &line, ncells - first + 1, &f, &delim, err);
			if (!rc && push(&t->cell, &ncells, &cap, f))
				rc = mmp_error_set(err, -ENOMEM, "%s: out of memory", name);
			if (rc)
				goto fail;
		}
		if (push_line(t, &lcap, start_line)) {
			rc = mmp_error_set(err, -ENOMEM, "%s: out of memory", name);
			goto fail;
		}
		if (!t->ncols) {
			t->ncols = ncells;
			if ((rc = check_header(t, err)))
				goto fail;
			continue;
		}
		if (ncells - first != t->ncols) {
			rc = mmp_error_set(err, -EINVAL,
					   "%s:%zu: %zu fields, but the header has %zu: not a CSV "
					   "table, or a row was cut or joined",
					   name, start_line, ncells - first, t->ncols);
			goto fail;
		}
		t->nrows++;
	}
	if (!t->ncols) {
		rc = mmp_error_set(err, -EINVAL, "%s: empty: no header row", name);
		goto fail;
	}
	return 0;
fail:
	mmp_csvread_free(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	return rc;
}

int mmp_csvread_parse(struct mmp_csvread *t, const char *text, size_t len, const char *name,
		      struct mmp_error *err)
{
	char *copy = malloc(len + 1);
	memset(t, 0, sizeof(*t));
	if (!copy)
		return mmp_error_set(err, -ENOMEM, "%s: out of memory", name);
	memcpy(copy, text, len);
	return parse_owned(t, copy, len, name, err);
}

/* The whole file, refusing what cannot be a CSV before reading it; the
 * buffer has room for a NUL after the text. */
static int slurp(const char *path, char **out, size_t *len, struct mmp_error *err)
{
	struct stat st;
	size_t cap = 1 << 16, n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return mmp_error_errno(err, -errno, "cannot read %s", path);
	int rc = 0;
	if (fstat(fd, &st)) {
		rc = mmp_error_errno(err, -errno, "cannot read %s", path);
	} else if (S_ISDIR(st.st_mode)) {
		rc = mmp_error_set(err, -EISDIR, "%s is a directory, not a CSV file", path);
	} else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		rc = mmp_error_set(err, -ENODEV, "%s is a device or socket, not a CSV file", path);
	} else if (S_ISREG(st.st_mode) && (size_t)st.st_size > MMP_CSVREAD_MAX_BYTES) {
		rc = mmp_error_set(err, -EFBIG, "%s is %lld bytes: larger than any CSV mmprof reads "
						"(%zu MiB)",
				   path, (long long)st.st_size, MMP_CSVREAD_MAX_BYTES >> 20);
	}
	if (rc) {
		close(fd);
		return rc;
	}
	/* Room for the text, its NUL, and the read that finds the end. */
	if (S_ISREG(st.st_mode) && (size_t)st.st_size + 2 > cap)
		cap = (size_t)st.st_size + 2;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			rc = mmp_error_set(err, -ENOMEM, "%s: out of memory", path);
			break;
		}
		if (n + 1 >= cap) {
			char *grown = cap >= MMP_CSVREAD_MAX_BYTES ? NULL : realloc(buf, 2 * cap);
			if (!grown) {
				rc = cap >= MMP_CSVREAD_MAX_BYTES
					     ? mmp_error_set(err, -EFBIG, "%s: more than %zu MiB: "
									  "larger than any CSV mmprof reads",
							     path, MMP_CSVREAD_MAX_BYTES >> 20)
					     : mmp_error_set(err, -ENOMEM, "%s: out of memory", path);
				break;
			}
			buf = grown;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = mmp_error_errno(err, -errno, "cannot read %s", path);
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*len = n;
	return 0;
}

int mmp_csvread_load(struct mmp_csvread *t, const char *path, struct mmp_error *err)
{
	char *text = NULL;
	size_t len = 0;
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", path);
	int rc = slurp(path, &text, &len, err);
	if (rc)
		return rc;
	return parse_owned(t, text, len, path, err);
}

void mmp_csvread_free(struct mmp_csvread *t)
{
	free(t->text);
	free(t->cell);
	free(t->line);
	memset(t, 0, sizeof(*t));
}

int mmp_csvread_column(const struct mmp_csvread *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cell[i], name) == 0)
			return (int)i;
	return -1;
}

const char *mmp_csvread_get(const struct mmp_csvread *t, size_t row, int col)
{
	if (col < 0 || (size_t)col >= t->ncols || row >= t->nrows)
		return "";
	return t->cell[(row + 1) * t->ncols + (size_t)col];
}

size_t mmp_csvread_line(const struct mmp_csvread *t, size_t row)
{
	return row < t->nrows ? t->line[row + 1] : 0;
}
