/* Writing a CSV from its table of columns (see csv_table.h). */
#include "report/csv_table.h"

#include <string.h>

void mmp_csv_field(FILE *f, const char *value, int last)
{
	if (strpbrk(value, ",\"\n\r")) {
		fputc('"', f);
		for (const char *p = value; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	} else {
		fputs(value, f);
	}
	fputc(last ? '\n' : ',', f);
}

void mmp_csv_header_part(FILE *f, const struct mmp_csv_table *t, size_t from, size_t to,
			 int end)
{
	for (size_t k = from; k < to; k++)
		mmp_csv_field(f, t->col[k].name, end && k + 1 == to);
}

void mmp_csv_row_part(FILE *f, const struct mmp_csv_table *t, size_t from, size_t to,
		      const void *row, int end)
{
	char buf[MMP_CSV_CELL_MAX];
	size_t len = t->cell < sizeof(buf) ? t->cell : sizeof(buf);
	for (size_t k = from; k < to; k++) {
		buf[0] = '\0';
		t->col[k].cell(row, buf, len);
		mmp_csv_field(f, buf, end && k + 1 == to);
	}
}

void mmp_csv_header(FILE *f, const struct mmp_csv_table *t)
{
	mmp_csv_header_part(f, t, 0, t->n, 1);
}

void mmp_csv_row_of(FILE *f, const struct mmp_csv_table *t, const void *row)
{
	mmp_csv_row_part(f, t, 0, t->n, row, 1);
}

void mmp_csv_print_heading(FILE *out, const struct mmp_csv_table *t, int markdown)
{
	if (t->file && markdown)
		fprintf(out, "\n`%s`:\n\n", t->file);
	else if (t->file)
		fprintf(out, "\n%s:\n", t->file);
	if (markdown)
		fprintf(out, "| column | meaning |\n|---|---|\n");
}

void mmp_csv_print_rows(FILE *out, const struct mmp_csv_table *t, size_t from, size_t to,
			int markdown)
{
	for (size_t k = from; k < to; k++) {
		if (markdown)
			fprintf(out, "| `%s` | %s |\n", t->col[k].name, t->col[k].help);
		else
			fprintf(out, "%s%-18s %s\n", t->file ? "  " : "", t->col[k].name,
				t->col[k].help);
	}
}

void mmp_csv_print_table(FILE *out, const struct mmp_csv_table *t, int markdown)
{
	mmp_csv_print_heading(out, t, markdown);
	mmp_csv_print_rows(out, t, 0, t->n, markdown);
}
