/* The read/mmap/fread seed's table: per file size, one column per method
 * (read(512), mmap, fread(4096), ...), rows for the mean and standard
 * deviation in ms as the seed had them, then what explains them (system
 * calls and page faults per MiB), and the better method: the fastest of
 * the runs whose result was right, from the rounds measured side by side,
 * or a tie within the tolerance, or inconclusive (answers.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "platform/events.h"
#include "result/metrics.h"
#include "mmprof/probe.h"
#include "report/report.h"
#include "util/units.h"

#define LABEL 64

static void label(const struct mmp_run_result *r, char *buf, size_t len)
{
	char method[LABEL - 16];
	mmp_params_label(&r->run->p, method, sizeof(method));
	if (r->run->p.threads > 1)
		snprintf(buf, len, "%s t=%u", method, r->run->p.threads);
	else
		snprintf(buf, len, "%s", method);
}

/* A per-MiB metric, or for a file under a MiB the count per run. */
static void rate(const struct mmp_run_result *r, const char *column, char *buf, size_t len)
{
	struct mmp_metric m = *mmp_metric_find(column);
	double v;
	if (r->bytes < (1u << 20)) {
		m.per_bytes = 0;
		m.format = "%.0f";
	}
	if (mmp_result_has_data(r) && mmp_result_metric_median(r, &m, &v))
		snprintf(buf, len, m.format, v);
	else
		snprintf(buf, len, "-");
}

/* The fastest-method answer for this file's set. */
static const struct mmp_answer *fastest(const struct mmp_answers *ans, size_t set)
{
	for (size_t i = 0; i < ans->n; i++)
		if (ans->a[i].kind == MMP_Q_FASTEST && ans->a[i].set == set)
			return &ans->a[i];
	return NULL;
}

static void one_size(FILE *out, const struct mmp_analysis *an, size_t set)
{
	const struct mmp_results *res = an->res;
	const struct mmp_cset *cs = &res->plan->sets[set];
	const struct mmp_run_result *col[256];
	char head[256][LABEL], cell[32], size[32], iv[96], more[320];
	size_t ncol = 0, width = strlen("Standard deviation");

	for (size_t k = 0; k < cs->n && ncol < 256; k++) {
		const struct mmp_run_result *r = &res->run[cs->runs[k]];
		if (mmp_planned_is_point(r->planned) && r->data)
			col[ncol++] = r;
	}
	if (!ncol)
		return;
	mmp_format_size(col[0]->bytes, size, sizeof(size));
	fprintf(out, "\nFile size: %s\n\n%-*s", size, (int)width, size);
	for (size_t c = 0; c < ncol; c++) {
		label(col[c], head[c], sizeof(head[c]));
		fprintf(out, "  %12s", head[c]);
	}
	int small = col[0]->bytes < (1u << 20);
	const char *const rows[] = { "Average", "Standard deviation",
				     small ? "syscalls/run" : "syscalls/MiB",
				     small ? "faults/run" : "faults/MiB" };
	for (size_t row = 0; row < 4; row++) {
		fprintf(out, "\n%-*s", (int)width, rows[row]);
		for (size_t c = 0; c < ncol; c++) {
			const struct mmp_run_result *r = col[c];
			if (!mmp_result_has_data(r))
				snprintf(cell, sizeof(cell), "%s", r->state == MMP_RUN_FAILED ? "FAILED" : "-");
			else if (!r->results_ok && row < 2)
				snprintf(cell, sizeof(cell), "WRONG");
			else if (row == 0)
				snprintf(cell, sizeof(cell), "%.4f", r->st.mean / 1e6);
			else if (row == 1)
				snprintf(cell, sizeof(cell), "%.4f", r->st.stddev / 1e6);
			else
				rate(r, row == 2 ? "syscalls_per_mib" : "faults_per_mib", cell,
				     sizeof(cell));
			fprintf(out, "  %12s", cell);
		}
	}
	int wrong = 0;
	for (size_t c = 0; c < ncol; c++)
		wrong += mmp_result_has_data(col[c]) && !col[c]->results_ok;
	const struct mmp_answer *a = fastest(&an->answers, set);
	if (!a) {
		fprintf(out, "\n\nBetter method: none (no run read this file right)\n");
		return;
	}
	fprintf(out, "\n\nBetter method: %s", a->verdict);
	if (a->b) {
		char next[LABEL];
		label(a->b, next, sizeof(next));
		fprintf(out, " (the closest, %s, takes %s the time", next,
			mmp_format_interval(&a->ratio, "x", iv, sizeof(iv)));
		fprintf(out, "; %zu rounds side by side)", a->rounds);
	}
	if (a->outcome == MMP_OUTCOME_INCONCLUSIVE)
		fprintf(out, "; %s", mmp_format_undecided(a, more, sizeof(more)));
	if (wrong)
		fprintf(out, "; %d method(s) with a WRONG result left out", wrong);
	fprintf(out, "\n");
}

void mmp_report_sizes(FILE *out, const struct mmp_analysis *an)
{
	const struct mmp_results *res = an->res;
	const struct mmp_plan *plan = res->plan;
	size_t *order = malloc((plan->nsets + 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return;
	fprintf(out, "Times in milliseconds: the mean and standard deviation of the "
		     "repetitions, as the seed gave them; the better method from the "
		     "rounds measured side by side (ties within the tolerance).\n");
	for (size_t s = 0; s < plan->nsets; s++)
		order[n++] = s;
	/* Smallest file first, as in the seed. */
	for (size_t a = 1; a < n; a++)
		for (size_t k = a; k > 0; k--) {
			uint64_t x = res->run[plan->sets[order[k]].runs[0]].bytes;
			uint64_t y = res->run[plan->sets[order[k - 1]].runs[0]].bytes;
			if (x >= y)
				break;
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (size_t k = 0; k < n; k++)
		one_size(out, an, order[k]);
	free(order);
}
