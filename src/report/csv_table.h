/* A CSV as a table of columns: each column's name, the function that
 * writes one row's cell of it, and what it means.  One table drives a
 * file's header, every row (one loop) and --list-columns, so a row has
 * exactly the cells its header names and a column is documented where
 * it is written.  NAME.csv, NAME.threads.csv, NAME.events.csv and the
 * companions (companions.h) are each one table.
 */
#ifndef MMPROF_CSV_TABLE_H
#define MMPROF_CSV_TABLE_H

#include <stddef.h>
#include <stdio.h>

/* Writes row's cell into buf (len bytes, already ""): writing nothing
 * leaves the cell empty, as for a value that was not measured.  row is
 * the table's own row type. */
typedef void (*mmp_csv_cell_fn)(const void *row, char *buf, size_t len);

struct mmp_csv_column {
	const char *name;
	mmp_csv_cell_fn cell;
	const char *help;
};

/* The longest cell any table has (NAME.csv's). */
#define MMP_CSV_CELL_MAX 4096

struct mmp_csv_table {
	const char *file; /* "NAME.answers.csv", as --list-columns heads it; NULL: NAME.csv */
	const struct mmp_csv_column *col;
	size_t n;
	size_t cell; /* bytes of its longest cell + 1 (at most MMP_CSV_CELL_MAX): a longer one is cut */
};

#define MMP_CSV_TABLE(file, cols, cell)                                       \
	{ (file), (cols), sizeof(cols) / sizeof((cols)[0]), (cell) }

/* Write one field with RFC 4180 quoting when it needs it; last ends the
 * line. */
void mmp_csv_field(FILE *f, const char *value, int last);

/* Columns [from, to) of the header, or of one row; end: the last of them
 * ends the line.  A file whose columns are not all the table's (NAME.csv:
 * the metrics after result_ok) writes its table in parts. */
void mmp_csv_header_part(FILE *f, const struct mmp_csv_table *t, size_t from, size_t to,
			 int end);
void mmp_csv_row_part(FILE *f, const struct mmp_csv_table *t, size_t from, size_t to,
		      const void *row, int end);

/* The whole header line, and one whole row. */
void mmp_csv_header(FILE *f, const struct mmp_csv_table *t);
void mmp_csv_row_of(FILE *f, const struct mmp_csv_table *t, const void *row);

/* --list-columns: under the file's name (when it has one), as aligned text
 * or a Markdown table; the heading and the rows [from, to) apart, for a
 * file that lists more than its table (NAME.csv's metrics). */
void mmp_csv_print_table(FILE *out, const struct mmp_csv_table *t, int markdown);
void mmp_csv_print_heading(FILE *out, const struct mmp_csv_table *t, int markdown);
void mmp_csv_print_rows(FILE *out, const struct mmp_csv_table *t, size_t from, size_t to,
			int markdown);

#endif
