/* Reading CSV files (RFC 4180), for mmprof compare and tests: the whole
 * file in memory, a header row, and cells found by column name -- never by
 * position, so a file with columns added or moved still reads.
 *
 *   - Fields are separated by commas, records by CRLF or LF.
 *   - A field in double quotes may hold commas, line breaks and doubled
 *     quotes ("" is one "), as mmp_csv_field writes them.
 *   - Blank lines are skipped; a UTF-8 byte order mark is skipped.
 *   - What is not CSV is an error naming the line, never skipped: a record
 *     with more or fewer fields than the header, text after a closing
 *     quote, a quote inside an unquoted field, a quote never closed, a NUL
 *     byte, a header naming one column twice.
 *   - A directory, a device or a file over MMP_CSVREAD_MAX_BYTES is
 *     refused before it is read (a FIFO is read: `<(...)` works).
 */
#ifndef MMPROF_CSVREAD_H
#define MMPROF_CSVREAD_H

#include <stddef.h>

#include "util/error.h"

/* A CSV larger than this is not one mmprof wrote for one config (a
 * 100,000-run sweep of 100 rounds is ~4 GB): refuse it rather than fill
 * the memory. */
#define MMP_CSVREAD_MAX_BYTES ((size_t)1 << 30)

struct mmp_csvread {
	char *text;     /* the file, fields unquoted in place and NUL-terminated */
	char **cell;    /* (nrows + 1) x ncols: row 0 is the header */
	size_t *line;   /* (nrows + 1): the line each record starts on, from 1 */
	size_t ncols;
	size_t nrows;   /* records after the header */
	char name[512]; /* the file, for messages */
};

/* Read and parse a file.  0, or a negative errno with a message naming the
 * file (and the line): -ENOENT etc. from open, -EISDIR, -ENODEV (a device
 * or socket), -EFBIG, -EINVAL (not CSV, or no header), -ENOMEM. */
int mmp_csvread_load(struct mmp_csvread *t, const char *path, struct mmp_error *err);
/* Parse len bytes of text (copied); name is used in messages. */
int mmp_csvread_parse(struct mmp_csvread *t, const char *text, size_t len, const char *name,
		      struct mmp_error *err);
void mmp_csvread_free(struct mmp_csvread *t);

/* The index of a header name, or -1 when the file has no such column. */
int mmp_csvread_column(const struct mmp_csvread *t, const char *name);
/* Cell of record row (0-based, header excluded) in column col; "" for
 * col < 0, so a missing optional column reads as empty. */
const char *mmp_csvread_get(const struct mmp_csvread *t, size_t row, int col);
/* The line record row starts on (for messages: "A.csv:17: ..."). */
size_t mmp_csvread_line(const struct mmp_csvread *t, size_t row);

#endif
