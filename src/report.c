/* The terminal table and the baseline ratios (see report.h). */
#include "mmprof/report.h"
#include "mmprof/lists.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/probe.h"
#include "mmprof/units.h"

#define CELL 64
#define MAX_COLS 24

/* Keys shown as a column only when their value differs between rows. */
static const enum mmp_key_id varying_keys[] = {
	MMP_KEY_FILE,	   MMP_KEY_SIZE,     MMP_KEY_FILL,      MMP_KEY_SEED,
	MMP_KEY_KERNEL,	   MMP_KEY_BUFFER,   MMP_KEY_REFCOUNT,  MMP_KEY_TALLY,
	MMP_KEY_PLACEMENT, MMP_KEY_PREFAULT, MMP_KEY_ADVICE,    MMP_KEY_CACHE,
};
#define NVARYING (sizeof(varying_keys) / sizeof(varying_keys[0]))

int mmp_result_has_data(const struct mmp_run_result *r)
{
	return r->n > 0 && (r->state == MMP_RUN_DONE || r->state == MMP_RUN_INTERRUPTED);
}

const char *mmp_result_access(const struct mmp_run_result *r, char *buf, size_t len)
{
	if (r->access)
		snprintf(buf, len, "%" PRIu64, r->access);
	else
		snprintf(buf, len, "whole");
	return buf;
}

static double ns_per_byte(const struct mmp_run_result *r)
{
	return r->st.median / (double)r->bytes;
}

const char *mmp_result_label(const struct mmp_run_result *r, char *buf, size_t len)
{
	char access[32];
	snprintf(buf, len, "[%s] %s threads=%u access=%s%s%s", r->run->job->name,
		 r->run->p.probe->name, r->run->p.threads,
		 mmp_result_access(r, access, sizeof(access)),
		 r->run->control_name[0] ? " control=" : "", r->run->control_name);
	return buf;
}

static int same_key(const struct mmp_run *a, const struct mmp_run *b, enum mmp_key_id k)
{
	char x[256], y[256];
	return strcmp(mmp_run_format(a, k, x, sizeof(x)), mmp_run_format(b, k, y, sizeof(y))) ==
	       0;
}

static int comparable(const struct mmp_run_result *a, const struct mmp_run_result *b)
{
	const struct mmp_run *x = a->run, *y = b->run;
	/* The same bytes read the same way; the access path itself (probe,
	 * refcount, tally) is what a baseline comparison is about. */
	return a->data == b->data && x->p.kernel == y->p.kernel &&
	       x->p.threads == y->p.threads && same_key(x, y, MMP_KEY_PLACEMENT) &&
	       x->p.prefault == y->p.prefault && x->p.advice == y->p.advice &&
	       x->p.cache == y->p.cache;
}

const struct mmp_run_result *mmp_report_match(const struct mmp_run_result *results,
					      size_t n, const struct mmp_run_result *r,
					      size_t job_index)
{
	for (size_t i = 0; i < n; i++) {
		const struct mmp_run_result *o = &results[i];
		if (o->run->job_index == job_index && mmp_result_has_data(o) && comparable(r, o) &&
		    o->access == r->access)
			return o;
	}
	return NULL;
}

const struct mmp_run_result *mmp_report_limit(const struct mmp_run_result *results,
					      size_t n, const struct mmp_run_result *r)
{
	for (size_t i = 0; i < n; i++) {
		const struct mmp_run_result *o = &results[i];
		const struct mmp_run *x = r->run, *y = o->run;
		if (strcmp(y->p.probe->name, "limit") == 0 && mmp_result_has_data(o) && o->data == r->data &&
		    x->p.kernel == y->p.kernel && x->p.threads == y->p.threads &&
		    same_key(x, y, MMP_KEY_PLACEMENT))
			return o;
	}
	return NULL;
}

struct table {
	size_t ncols, nrows;
	const char *head[MAX_COLS];
	int right[MAX_COLS];
	char (*cell)[MAX_COLS][CELL];
};

static void add_col(struct table *t, const char *head, int right)
{
	t->head[t->ncols] = head;
	t->right[t->ncols] = right;
	t->ncols++;
}

static void fill_row(struct table *t, size_t row, const struct mmp_run_result *r,
		     const struct mmp_run_result *all, size_t n, const int *show)
{
	char(*c)[CELL] = t->cell[row];
	size_t col = 0;

	snprintf(c[col++], CELL, "%s", r->run->job->name);
	snprintf(c[col++], CELL, "%s", r->run->p.probe->name);
	for (size_t k = 0; k < NVARYING; k++)
		if (show[k])
			mmp_run_format(r->run, varying_keys[k], c[col++], CELL);
	snprintf(c[col++], CELL, "%u%s", r->run->p.threads, r->oversubscribed ? "!" : "");
	if (r->access)
		snprintf(c[col++], CELL, "%" PRIu64, r->access);
	else
		snprintf(c[col++], CELL, "-");
	if (!mmp_result_has_data(r)) {
		for (int i = 0; i < 7; i++)
			snprintf(c[col++], CELL, "-");
		snprintf(c[col++], CELL, "%s", r->state == MMP_RUN_FAILED ? "FAILED" : "not run");
		return;
	}
	const struct mmp_run_result *lim = mmp_report_limit(all, n, r);
	snprintf(c[col++], CELL, "%.3f", r->st.median / 1e6);
	snprintf(c[col++], CELL, "%.3f", r->st.mean / 1e6);
	snprintf(c[col++], CELL, "%.3f", r->st.min / 1e6);
	snprintf(c[col++], CELL, "%.1f%%", r->st.cv * 100);
	snprintf(c[col++], CELL, "%.3f", ns_per_byte(r));
	snprintf(c[col++], CELL, "%.2f", (double)r->bytes / r->st.median);
	if (lim)
		snprintf(c[col++], CELL, "%.1fx", ns_per_byte(r) / ns_per_byte(lim));
	else
		snprintf(c[col++], CELL, "-");
	snprintf(c[col++], CELL, "%s%s", r->results_ok ? "ok" : "WRONG",
		 r->state == MMP_RUN_INTERRUPTED ? " (partial)" : "");
}

void mmp_report_table(FILE *out, const struct mmp_run_result *results, size_t n)
{
	struct table t = { 0 };
	int show[NVARYING] = { 0 };
	size_t width[MAX_COLS] = { 0 };
	char a[256], b[256];
	int over = 0;

	if (n == 0)
		return;
	for (size_t k = 0; k < NVARYING; k++)
		for (size_t i = 1; i < n && !show[k]; i++)
			show[k] = strcmp(mmp_run_format(results[i].run, varying_keys[k], a, sizeof(a)),
					 mmp_run_format(results[0].run, varying_keys[k], b,
							sizeof(b))) != 0;
	add_col(&t, "job", 0);
	add_col(&t, "probe", 0);
	for (size_t k = 0; k < NVARYING; k++)
		if (show[k])
			add_col(&t, mmp_keys[varying_keys[k]].name, 0);
	add_col(&t, "threads", 1);
	add_col(&t, "access", 1);
	add_col(&t, "median ms", 1);
	add_col(&t, "mean ms", 1);
	add_col(&t, "min ms", 1);
	add_col(&t, "cv", 1);
	add_col(&t, "ns/byte", 1);
	add_col(&t, "GB/s", 1);
	add_col(&t, "x limit", 1);
	add_col(&t, "result", 0);

	t.cell = calloc(n, sizeof(*t.cell));
	if (!t.cell)
		return;
	for (size_t i = 0; i < n; i++) {
		fill_row(&t, i, &results[i], results, n, show);
		over |= results[i].oversubscribed;
	}
	for (size_t c = 0; c < t.ncols; c++) {
		width[c] = strlen(t.head[c]);
		for (size_t i = 0; i < n; i++)
			if (strlen(t.cell[i][c]) > width[c])
				width[c] = strlen(t.cell[i][c]);
	}
	for (size_t c = 0; c < t.ncols; c++)
		fprintf(out, "%s%*s%s", c ? "  " : "", t.right[c] ? (int)width[c] : -(int)width[c],
			t.head[c], c + 1 == t.ncols ? "\n" : "");
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < t.ncols; c++)
			fprintf(out, "%s%*s%s", c ? "  " : "",
				t.right[c] ? (int)width[c] : -(int)width[c], t.cell[i][c],
				c + 1 == t.ncols ? "\n" : "");
	if (over)
		fprintf(out, "! oversubscribed: more threads than PUs in the placement; "
			     "threads take turns on a PU\n");
	free(t.cell);
}

/* One job against one baseline job, run by run. */
static void ratio_block(FILE *out, const struct mmp_config *cfg,
			const struct mmp_run_result *results, size_t n, size_t j, const char *name)
{
	size_t base;
	int header = 0;

	for (base = 0; base < cfg->njobs; base++)
		if (strcmp(cfg->jobs[base].name, name) == 0)
			break;
	if (base == j || base == cfg->njobs)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct mmp_run_result *r = &results[i];
		if (r->run->job_index != j || !mmp_result_has_data(r))
			continue;
		const struct mmp_run_result *b = mmp_report_match(results, n, r, base);
		if (!header) {
			fprintf(out, "\n%s vs %s (median time ratio, >1 = slower):\n",
				cfg->jobs[j].name, cfg->jobs[base].name);
			header = 1;
		}
		char access[32];
		mmp_result_access(r, access, sizeof(access));
		if (!b) {
			fprintf(out, "  threads=%-3u access=%-6s  no matching %s run\n",
				r->run->p.threads, access, cfg->jobs[base].name);
			continue;
		}
		fprintf(out, "  threads=%-3u access=%-6s %9.2fx  (%s %.3f ms vs %s %.3f ms)\n",
			r->run->p.threads, access, r->st.median / b->st.median,
			r->run->p.probe->name, r->st.median / 1e6, b->run->p.probe->name,
			b->st.median / 1e6);
	}
}

void mmp_report_ratios(FILE *out, const struct mmp_config *cfg,
		       const struct mmp_run_result *results, size_t n)
{
	for (size_t j = 0; j < cfg->njobs; j++) {
		const char *names = NULL;
		for (size_t i = 0; i < n && !names; i++)
			if (results[i].run->job_index == j)
				names = results[i].run->p.baseline;
		char name[256];
		while (names && mmp_list_next(&names, name, sizeof(name)))
			ratio_block(out, cfg, results, n, j, name);
	}
}
