/* The tidy CSV: one row per run and recorded repetition, header first,
 * every row flushed as it is written so an interrupted sweep keeps what it
 * measured.  The column list is one table in csv.c (mmp_csv_columns). */
#ifndef MMPROF_CSV_H
#define MMPROF_CSV_H

#include <stdio.h>

#include "mmprof/error.h"
#include "mmprof/meta.h"
#include "mmprof/plan.h"
#include "mmprof/runner.h"

#define MMP_CSV_SCHEMA_VERSION 2

struct mmp_csv {
	FILE *f;
	char *path;
	FILE *threads; /* NAME.threads.csv, with --per-thread */
	char *threads_path;
	const struct mmp_meta *meta;
	const struct mmp_plan *plan;
	const char *const *events; /* counter columns: every event of the plan */
	size_t nevents;
	unsigned long rows;
};

/* events: the union of every run's event names, in order (a run that does
 * not count one leaves its cells empty).  threads_path: NULL, or the
 * per-thread file. */
int mmp_csv_open(struct mmp_csv *csv, const char *path, const struct mmp_meta *meta,
		 const struct mmp_plan *plan, const char *const *events, size_t nevents,
		 const char *threads_path, struct mmp_error *err);
int mmp_csv_row(struct mmp_csv *csv, const struct mmp_run_info *info,
		const struct mmp_rep *rep, struct mmp_error *err);
int mmp_csv_close(struct mmp_csv *csv, struct mmp_error *err);

/* The header's column names, in order, with the counter columns as
 * EVENT and EVENT_run_ratio (for README and tests). */
void mmp_csv_print_columns(FILE *out, int markdown);

/* Write one field with RFC 4180 quoting when it needs it. */
void mmp_csv_field(FILE *f, const char *value, int last);

#endif
