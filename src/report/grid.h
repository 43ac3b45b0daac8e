/* Aligned text tables for the terminal report: columns with a heading and
 * an alignment, rows of cells, printed with each column as wide as its
 * widest cell.  The first columns of every table of runs are the same:
 * job, probe, the keys whose value differs between the plan's job points
 * (so no two rows look alike), threads and bytes per call. */
#ifndef MMPROF_GRID_H
#define MMPROF_GRID_H

#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

#define MMP_GRID_CELL 96
#define MMP_GRID_MAX_COLS 40

struct mmp_grid {
	size_t ncols, nrows, cap;
	const char *head[MMP_GRID_MAX_COLS];
	int right[MMP_GRID_MAX_COLS];
	char (*cell)[MMP_GRID_MAX_COLS][MMP_GRID_CELL];
};

/* Heading and alignment (right: numbers) of the next column. */
void mmp_grid_column(struct mmp_grid *t, const char *head, int right);
/* A new row; NULL when out of memory.  Cells are filled left to right
 * with mmp_grid_cell. */
char (*mmp_grid_row(struct mmp_grid *t))[MMP_GRID_CELL];
/* Columns with nothing in any row (every cell "-" or empty) are left
 * out: no column of dashes. */
void mmp_grid_print(const struct mmp_grid *t, FILE *out);
/* Column c has something in some row (or there are no rows). */
int mmp_grid_shown(const struct mmp_grid *t, size_t c);
void mmp_grid_free(struct mmp_grid *t);

/* The describing columns (job, probe, varying keys, threads, access) and
 * a run's cells for them from column 0; returns the next free column. */
void mmp_grid_key_columns(struct mmp_grid *t, const struct mmp_results *res);
size_t mmp_grid_key_cells(char (*row)[MMP_GRID_CELL], const struct mmp_results *res,
			   const struct mmp_run_result *r);

#endif
