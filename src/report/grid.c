/* Aligned text tables (see grid.h). */
#include "report/grid.h"

#include <stdint.h>
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "util/vec.h"

/* Keys shown as a column only when their value differs between job points. */
static const enum mmp_key_id varying_keys[] = {
	MMP_KEY_FILE,	   MMP_KEY_SIZE,     MMP_KEY_FILL,     MMP_KEY_SEED,
	MMP_KEY_KERNEL,	   MMP_KEY_BUFFER,   MMP_KEY_REFCOUNT, MMP_KEY_TALLY,
	MMP_KEY_PLACEMENT, MMP_KEY_PREFAULT, MMP_KEY_TOUCH,    MMP_KEY_ADVICE,   MMP_KEY_CACHE,
	MMP_KEY_OPS,	   MMP_KEY_TRANSFER, MMP_KEY_MEMBIND,  MMP_KEY_DATA,
	MMP_KEY_HUGEPAGES,
};
#define NVARYING (sizeof(varying_keys) / sizeof(varying_keys[0]))

void mmp_grid_column(struct mmp_grid *t, const char *head, int right)
{
	if (t->ncols == MMP_GRID_MAX_COLS)
		return;
	t->head[t->ncols] = head;
	t->right[t->ncols] = right;
	t->ncols++;
}

char (*mmp_grid_row(struct mmp_grid *t))[MMP_GRID_CELL]
{
	if (MMP_VEC_RESERVE(t->cell, t->cap, t->nrows + 1))
		return NULL;
	memset(t->cell[t->nrows], 0, sizeof(t->cell[0]));
	return t->cell[t->nrows++];
}

static int blank_cell(const char *cell)
{
	return !cell[0] || strcmp(cell, "-") == 0;
}

int mmp_grid_shown(const struct mmp_grid *t, size_t c)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!blank_cell(t->cell[i][c]))
			return 1;
	return t->nrows == 0;
}

/* One line of cells, without trailing blanks. */
static void print_line(FILE *out, const struct mmp_grid *t, const char *const *cells,
		       const size_t *width, const int *shown)
{
	char line[MMP_GRID_MAX_COLS * (MMP_GRID_CELL + 2) + 1];
	size_t used = 0, last_at = 0, last = SIZE_MAX;
	for (size_t c = 0, first = 1; c < t->ncols; c++) {
		if (!shown[c])
			continue;
		last_at = used + (first ? 0 : 2);
		last = c;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%*s",
					 first ? "" : "  ",
					 t->right[c] ? (int)width[c] : -(int)width[c], cells[c]);
		first = 0;
	}
	while (used && line[used - 1] == ' ')
		used--;
	if (used > MMP_LINE_MAX && last != SIZE_MAX && !t->right[last] &&
	    last_at + 40 < MMP_LINE_MAX) {
		/* The last column is text (a cause's evidence): its words go on
		 * under it, so the table stays readable at that width. */
		fprintf(out, "%.*s", (int)last_at, line);
		mmp_wrap_text(out, line + last_at, used - last_at, last_at, last_at + 2, 0);
		fputc('\n', out);
		return;
	}
	fprintf(out, "%.*s\n", (int)used, line);
}

/* A column with nothing in any row (every cell "-" or empty: a limit that
 * did not run, a counter not counted anywhere) is left out. */
void mmp_grid_print(const struct mmp_grid *t, FILE *out)
{
	size_t width[MMP_GRID_MAX_COLS] = { 0 };
	int shown[MMP_GRID_MAX_COLS] = { 0 };
	const char *cells[MMP_GRID_MAX_COLS];
	for (size_t c = 0; c < t->ncols; c++) {
		shown[c] = mmp_grid_shown(t, c);
		width[c] = strlen(t->head[c]);
		for (size_t i = 0; i < t->nrows; i++)
			if (strlen(t->cell[i][c]) > width[c])
				width[c] = strlen(t->cell[i][c]);
	}
	print_line(out, t, t->head, width, shown);
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t c = 0; c < t->ncols; c++)
			cells[c] = t->cell[i][c];
		print_line(out, t, cells, width, shown);
	}
}

void mmp_grid_free(struct mmp_grid *t)
{
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

void mmp_grid_key_columns(struct mmp_grid *t, const struct mmp_results *res)
{
	mmp_grid_column(t, "job", 0);
	mmp_grid_column(t, "probe", 0);
	for (size_t k = 0; k < NVARYING; k++)
		if (res->varying & MMP_KEY_BIT(varying_keys[k]))
			mmp_grid_column(t, mmp_keys[varying_keys[k]].name, 0);
	mmp_grid_column(t, "threads", 1);
	mmp_grid_column(t, "access", 1);
}

size_t mmp_grid_key_cells(char (*row)[MMP_GRID_CELL], const struct mmp_results *res,
			   const struct mmp_run_result *r)
{
	size_t col = 0;
	snprintf(row[col++], MMP_GRID_CELL, "%s", r->run->job->name);
	snprintf(row[col++], MMP_GRID_CELL, "%s", r->run->p.probe->name);
	for (size_t k = 0; k < NVARYING; k++)
		if (res->varying & MMP_KEY_BIT(varying_keys[k]))
			mmp_planned_format(r->planned, varying_keys[k], row[col++], MMP_GRID_CELL);
	snprintf(row[col++], MMP_GRID_CELL, "%u%s", r->run->p.threads,
		 r->planned->pins.oversubscribed ? "!" : "");
	if (r->access)
		snprintf(row[col++], MMP_GRID_CELL, "%" PRIu64, r->access);
	else
		snprintf(row[col++], MMP_GRID_CELL, "-");
	return col;
}
