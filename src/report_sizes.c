/* The read/mmap/fread seed's table: per file size, one column per method
 * (read(512), mmap, fread(4096), ...), rows for the mean and standard
 * deviation in ms as the seed had them, then what explains them (system
 * calls and page faults per MiB), and the better method: the fastest mean
 * among the runs whose result was right. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/events.h"
#include "mmprof/probe.h"
#include "mmprof/report.h"
#include "mmprof/units.h"

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

static void per_mib(const struct mmp_run_result *r, int role, char *buf, size_t len)
{
	double v;
	if (mmp_result_has_data(r) && mmp_result_metric(r, role, &v))
		snprintf(buf, len, "%.1f", v / ((double)r->bytes / (1 << 20)));
	else
		snprintf(buf, len, "-");
}

static void one_size(FILE *out, const struct mmp_run_result *results, size_t n, uint64_t bytes)
{
	const struct mmp_run_result *col[256];
	char head[256][LABEL], cell[32], size[32];
	size_t ncol = 0, width = strlen("Standard deviation");

	for (size_t i = 0; i < n && ncol < 256; i++)
		if (results[i].bytes == bytes && results[i].data)
			col[ncol++] = &results[i];
	mmp_format_size(bytes, size, sizeof(size));
	fprintf(out, "\nFile size: %s\n\n%-*s", size, (int)width, size);
	for (size_t c = 0; c < ncol; c++) {
		label(col[c], head[c], sizeof(head[c]));
		fprintf(out, "  %12s", head[c]);
	}
	static const char *const rows[] = { "Average", "Standard deviation", "syscalls/MiB",
					     "faults/MiB" };
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
				per_mib(r, row == 2 ? MMP_ROLE_SYSCALLS : MMP_ROLE_PAGE_FAULTS, cell,
					sizeof(cell));
			fprintf(out, "  %12s", cell);
		}
	}
	/* The seed's verdict, from the means, among right results only. */
	const struct mmp_run_result *best = NULL, *next = NULL;
	size_t best_c = 0;
	for (size_t c = 0; c < ncol; c++) {
		const struct mmp_run_result *r = col[c];
		if (!mmp_result_has_data(r) || !r->results_ok)
			continue;
		if (!best || r->st.mean < best->st.mean) {
			next = best;
			best = r;
			best_c = c;
		} else if (!next || r->st.mean < next->st.mean) {
			next = r;
		}
	}
	if (!best) {
		fprintf(out, "\n\nBetter method: none (no run read this file right)\n");
		return;
	}
	fprintf(out, "\n\nBetter method: %s", head[best_c]);
	if (next)
		fprintf(out, " (mean %.4f ms; the next, %.1f%% slower)",
			best->st.mean / 1e6, (next->st.mean / best->st.mean - 1) * 100);
	int wrong = 0;
	for (size_t c = 0; c < ncol; c++)
		wrong += mmp_result_has_data(col[c]) && !col[c]->results_ok;
	if (wrong)
		fprintf(out, "; %d method(s) with a WRONG result left out", wrong);
	fprintf(out, "\n");
}

void mmp_report_sizes(FILE *out, const struct mmp_run_result *results, size_t n)
{
	uint64_t seen[256];
	size_t nseen = 0;
	fprintf(out, "Times in milliseconds: the mean and standard deviation of the "
		     "repetitions, as the seed gave them.\n");
	for (size_t i = 0; i < n; i++) {
		uint64_t b = results[i].bytes;
		int dup = !results[i].data;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = seen[k] == b;
		if (dup || nseen == 256)
			continue;
		seen[nseen++] = b;
	}
	/* Smallest file first, as in the seed. */
	for (size_t a = 1; a < nseen; a++)
		for (size_t k = a; k > 0 && seen[k] < seen[k - 1]; k--) {
			uint64_t t = seen[k];
			seen[k] = seen[k - 1];
			seen[k - 1] = t;
		}
	for (size_t k = 0; k < nseen; k++)
		one_size(out, results, n, seen[k]);
}
