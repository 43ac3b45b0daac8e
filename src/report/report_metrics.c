/* The counters table: the derived metrics (metrics.h) of each job point,
 * the median over its rounds, a column only for what was counted
 * somewhere.  A per-MiB rate of a run that read less than a MiB says more
 * as a count: such columns show counts per run. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/grid.h"
#include "result/metrics.h"
#include "report/report.h"

#define MIB (1u << 20)

void mmp_report_metrics(FILE *out, const struct mmp_results *res)
{
	size_t nm;
	const struct mmp_metric *m = mmp_metrics(&nm);
	struct mmp_metric shown[32];
	char heads[32][48];
	size_t ns = 0;
	int small = 0, nobytes = 0, any_counts = 0;

	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned) || !r->n)
			continue;
		small |= r->bytes < MIB;
		nobytes |= !r->bytes;
		any_counts |= r->events && r->events->n;
	}
	if (!any_counts)
		return;
	for (size_t k = 0; k < nm && ns < 32; k++) {
		int some = 0;
		double v;
		/* "faults/MiB" -> "faults/run": counts per repetition.  A
		 * program without a data file read no bytes: every per-byte
		 * metric is its count per run, or its counted faults and
		 * system calls would have no column. */
		shown[ns] = m[k];
		if ((nobytes && m[k].per_bytes > 0) || (small && m[k].per_bytes == MIB))
			mmp_metric_per_run(&m[k], &shown[ns]);
		for (size_t i = 0; i < res->plan->nruns && !some; i++)
			some = mmp_planned_is_point(res->run[i].planned) && res->run[i].n &&
			       mmp_result_metric_median(&res->run[i], &shown[ns], &v);
		if (!some)
			continue;
		snprintf(heads[ns], sizeof(heads[ns]), "%s", shown[ns].head);
		ns++;
	}
	fprintf(out, "\ncounters (medians over the rounds; - = not counted here%s):\n",
		nobytes ? "; per run: a program without a data file reads no bytes"
		: small ? "; per run, not per MiB, as some runs read less than a MiB"
			: "");
	if (!ns) {
		fprintf(out, "  no derived metric has its events counted (see the notes on "
			     "stderr)\n");
		return;
	}
	struct mmp_grid t = { 0 };
	mmp_grid_key_columns(&t, res);
	for (size_t k = 0; k < ns; k++)
		mmp_grid_column(&t, heads[k], 1);
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned))
			continue;
		char(*row)[MMP_GRID_CELL] = mmp_grid_row(&t);
		if (!row)
			break;
		size_t col = mmp_grid_key_cells(row, res, r);
		for (size_t k = 0; k < ns; k++) {
			double v;
			if (r->n && mmp_result_metric_median(r, &shown[k], &v))
				snprintf(row[col++], MMP_GRID_CELL, shown[k].format,
					 v * (shown[k].scale ? shown[k].scale : 1));
			else
				snprintf(row[col++], MMP_GRID_CELL, "-");
		}
	}
	mmp_grid_print(&t, out);
	mmp_grid_free(&t);
}
