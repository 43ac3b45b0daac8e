/* What csv.c and csv_events.c share: the table of NAME.events.csv and its
 * writer. */
#ifndef MMPROF_CSV_IMPL_H
#define MMPROF_CSV_IMPL_H

#include "report/csv.h"

extern const struct mmp_csv_table mmp_csv_event_table;

/* The rows of one repetition's counts: summed over the run's threads
 * (thread < 0), or one thread's. */
void mmp_csv_event_rows(struct mmp_csv *csv, const struct mmp_run_info *info,
			const struct mmp_rep *rep, const struct mmp_count *counts, long thread);

#endif
