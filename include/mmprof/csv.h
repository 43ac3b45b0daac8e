/* The tidy CSV: one row per run and recorded repetition, header first,
 * every row flushed as it is written so an interrupted sweep keeps what it
 * measured.  The column list is one table in csv.c (mmp_csv_columns).
 * The files are written through the result set (outfile.h): to a
 * temporary, renamed into place by mmp_csv_commit. */
#ifndef MMPROF_CSV_H
#define MMPROF_CSV_H

#include <stdio.h>

#include "mmprof/error.h"
#include "mmprof/meta.h"
#include "mmprof/outfile.h"
#include "mmprof/plan.h"
#include "mmprof/runner.h"

#define MMP_CSV_SCHEMA_VERSION 2

struct mmp_csv {
	struct mmp_outfile out;     /* NAME.csv */
	struct mmp_outfile threads; /* NAME.threads.csv, with --per-thread */
	FILE *f, *tf;               /* their streams; tf NULL without --per-thread */
	const struct mmp_meta *meta;
	const struct mmp_plan *plan;
	const char *const *events; /* counter columns: every event of the plan */
	size_t nevents;
	unsigned long rows;
};

/* events: the union of every run's event names, in order (a run that does
 * not count one leaves its cells empty).  per_thread: also NAME.threads.csv
 * (not when NAME.csv is a device: it has no companions). */
int mmp_csv_open(struct mmp_csv *csv, struct mmp_outset *set, const struct mmp_meta *meta,
		 const struct mmp_plan *plan, const char *const *events, size_t nevents,
		 int per_thread, struct mmp_error *err);
int mmp_csv_row(struct mmp_csv *csv, const struct mmp_run_info *info,
		const struct mmp_rep *rep, struct mmp_error *err);
/* Rename the files into place (the per-thread file first: committing
 * NAME.csv removes companions that were not written), or, when no row was
 * written, leave the previous files as they were. */
int mmp_csv_commit(struct mmp_csv *csv, struct mmp_error *err);

/* The header's column names, in order, with the counter columns as
 * EVENT and EVENT_run_ratio (for README and tests). */
void mmp_csv_print_columns(FILE *out, int markdown);

/* Write one field with RFC 4180 quoting when it needs it. */
void mmp_csv_field(FILE *f, const char *value, int last);

#endif
