/* The tidy CSV: one row per run and recorded repetition, header first,
 * every row flushed as it is written so an interrupted sweep keeps what it
 * measured.  Its columns are the same for every config (one table in
 * csv.c, the derived metrics from metrics.h); the raw counts, whatever
 * events a config names, go to NAME.events.csv in long format.
 * The files are written through the result set (outfile.h): to a
 * temporary, renamed into place by mmp_csv_commit. */
#ifndef MMPROF_CSV_H
#define MMPROF_CSV_H

#include <stdio.h>

#include "report/csv_table.h"
#include "util/error.h"
#include "platform/meta.h"
#include "util/outfile.h"
#include "plan/plan.h"
#include "run/runner.h"

#define MMP_CSV_SCHEMA_VERSION 2

struct mmp_csv {
	struct mmp_outfile out;     /* NAME.csv */
	struct mmp_outfile threads; /* NAME.threads.csv, with --per-thread */
	struct mmp_outfile events;  /* NAME.events.csv, when anything is counted */
	FILE *f, *tf, *ef;          /* their streams; NULL for a file not written */
	int per_thread_events;      /* events.csv also has each thread's counts */
	const struct mmp_meta *meta;
	const struct mmp_plan *plan;
	unsigned long rows;
};

/* counts: some run counts events (NAME.events.csv); per_thread: also
 * NAME.threads.csv and each thread's counts (no companions when NAME.csv is
 * a device). */
int mmp_csv_open(struct mmp_csv *csv, struct mmp_outset *set, const struct mmp_meta *meta,
		 const struct mmp_plan *plan, int counts, int per_thread, struct mmp_error *err);
int mmp_csv_row(struct mmp_csv *csv, const struct mmp_run_info *info,
		const struct mmp_rep *rep, struct mmp_error *err);
/* Rename the files into place (the per-thread file first: committing
 * NAME.csv removes companions that were not written), or, when no row was
 * written, leave the previous files as they were. */
int mmp_csv_commit(struct mmp_csv *csv, struct mmp_error *err);

/* The columns of NAME.csv (its metrics after result_ok), then of
 * NAME.events.csv and NAME.threads.csv (for --list-columns, docs, tests). */
void mmp_csv_print_columns(FILE *out, int markdown);

#endif
