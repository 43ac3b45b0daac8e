/* The terminal table and the baseline ratio blocks (see report.h). */
#include "mmprof/report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/probe.h"
#include "mmprof/units.h"

#define CELL 64
#define MAX_COLS 28

/* Keys shown as a column only when their value differs between rows. */
static const enum mmp_key_id varying_keys[] = {
	MMP_KEY_FILE,	   MMP_KEY_SIZE,     MMP_KEY_FILL,   MMP_KEY_SEED,
	MMP_KEY_KERNEL,	   MMP_KEY_BUFFER,   MMP_KEY_REFCOUNT, MMP_KEY_TALLY,
	MMP_KEY_PLACEMENT, MMP_KEY_PREFAULT, MMP_KEY_ADVICE,   MMP_KEY_CACHE,
};
#define NVARYING (sizeof(varying_keys) / sizeof(varying_keys[0]))

const char *mmp_format_interval(const struct mmp_interval *iv, const char *unit, char *buf,
				size_t len)
{
	const char *fmt = iv->estimate >= 100 ? "%.0f" : iv->estimate >= 10 ? "%.1f" : "%.2f";
	char e[32], l[32], h[32];
	snprintf(e, sizeof(e), fmt, iv->estimate);
	if (!iv->valid) {
		snprintf(buf, len, "%s%s [one round: no interval]", e, unit);
		return buf;
	}
	snprintf(l, sizeof(l), fmt, iv->low);
	snprintf(h, sizeof(h), fmt, iv->high);
	snprintf(buf, len, "%s%s [%s, %s]", e, unit, l, h);
	return buf;
}

const char *mmp_format_more(size_t more, char *buf, size_t len)
{
	if (more == SIZE_MAX)
		snprintf(buf, len, "the estimate sits on the tolerance: more rounds would not decide");
	else
		snprintf(buf, len, "about %zu more round%s would decide", more, more == 1 ? "" : "s");
	return buf;
}

static double ns_per_byte(const struct mmp_run_result *r)
{
	return r->st.median / (double)r->bytes;
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

static void fill_row(struct table *t, size_t row, const struct mmp_run_result *r, const int *show)
{
	char(*c)[CELL] = t->cell[row];
	size_t col = 0;

	snprintf(c[col++], CELL, "%s", r->run->job->name);
	snprintf(c[col++], CELL, "%s", r->run->p.probe->name);
	for (size_t k = 0; k < NVARYING; k++)
		if (show[k])
			mmp_run_format(r->run, varying_keys[k], c[col++], CELL);
	snprintf(c[col++], CELL, "%u%s", r->run->p.threads, r->planned->pins.oversubscribed ? "!" : "");
	if (r->access)
		snprintf(c[col++], CELL, "%" PRIu64, r->access);
	else
		snprintf(c[col++], CELL, "-");
	if (!mmp_result_has_data(r)) {
		for (int i = 0; i < 9; i++)
			snprintf(c[col++], CELL, "-");
		snprintf(c[col++], CELL, "%s", r->state == MMP_RUN_FAILED ? "FAILED" : "not run");
		return;
	}
	snprintf(c[col++], CELL, "%zu", r->n);
	snprintf(c[col++], CELL, "%.3f", r->st.median / 1e6);
	snprintf(c[col++], CELL, "%.3f", r->st.mean / 1e6);
	snprintf(c[col++], CELL, "%.3f", r->st.min / 1e6);
	snprintf(c[col++], CELL, "%.1f%%", r->st.cv * 100);
	snprintf(c[col++], CELL, "%.3f", ns_per_byte(r));
	snprintf(c[col++], CELL, "%.2f", (double)r->bytes / r->st.median);
	if (r->limit && r->x_limit.n)
		mmp_format_interval(&r->x_limit, "x", c[col++], CELL);
	else
		snprintf(c[col++], CELL, "-");
	if (r->ndisturbed)
		snprintf(c[col++], CELL, "%u of %zu", r->ndisturbed, r->n);
	else
		snprintf(c[col++], CELL, "-");
	snprintf(c[col++], CELL, "%s%s", r->results_ok ? "ok" : "WRONG",
		 r->state == MMP_RUN_INTERRUPTED ? " (partial)" : "");
}

void mmp_report_table(FILE *out, const struct mmp_results *res)
{
	const struct mmp_plan *plan = res->plan;
	struct table t = { 0 };
	int show[NVARYING] = { 0 };
	size_t width[MAX_COLS] = { 0 };
	int over = 0, disturbed = 0;

	for (size_t k = 0; k < NVARYING; k++)
		show[k] = (res->varying & MMP_KEY_BIT(varying_keys[k])) != 0;
	add_col(&t, "job", 0);
	add_col(&t, "probe", 0);
	for (size_t k = 0; k < NVARYING; k++)
		if (show[k])
			add_col(&t, mmp_keys[varying_keys[k]].name, 0);
	add_col(&t, "threads", 1);
	add_col(&t, "access", 1);
	add_col(&t, "rounds", 1);
	add_col(&t, "median ms", 1);
	add_col(&t, "mean ms", 1);
	add_col(&t, "min ms", 1);
	add_col(&t, "cv", 1);
	add_col(&t, "ns/byte", 1);
	add_col(&t, "GB/s", 1);
	add_col(&t, "x limit [95% CI]", 1);
	add_col(&t, "disturbed", 1);
	add_col(&t, "result", 0);

	t.cell = calloc(plan->npoints ? plan->npoints : 1, sizeof(*t.cell));
	if (!t.cell)
		return;
	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned))
			continue;
		fill_row(&t, t.nrows++, r, show);
		over |= r->planned->pins.oversubscribed;
		disturbed |= r->ndisturbed > 0;
	}
	for (size_t c = 0; c < t.ncols; c++) {
		width[c] = strlen(t.head[c]);
		for (size_t i = 0; i < t.nrows; i++)
			if (strlen(t.cell[i][c]) > width[c])
				width[c] = strlen(t.cell[i][c]);
	}
	for (size_t c = 0; c < t.ncols; c++)
		fprintf(out, "%s%*s%s", c ? "  " : "", t.right[c] ? (int)width[c] : -(int)width[c],
			t.head[c], c + 1 == t.ncols ? "\n" : "");
	for (size_t i = 0; i < t.nrows; i++)
		for (size_t c = 0; c < t.ncols; c++)
			fprintf(out, "%s%*s%s", c ? "  " : "",
				t.right[c] ? (int)width[c] : -(int)width[c], t.cell[i][c],
				c + 1 == t.ncols ? "\n" : "");
	if (over)
		fprintf(out, "! oversubscribed: more threads than PUs in the placement; "
			     "threads take turns on a PU\n");
	if (disturbed)
		fprintf(out, "disturbed: rounds in which the threads did not run together "
			     "undisturbed (the CSV's disturbed_why says how); comparisons leave "
			     "them out when %d others remain\n",
			MMP_MIN_CLEAN_ROUNDS);
	free(t.cell);
}

static int same_pair(const struct mmp_answer *x, const struct mmp_answer *y)
{
	return x->kind == MMP_Q_RATIO && y->kind == MMP_Q_RATIO &&
	       x->a->run->job == y->a->run->job && x->b->run->job == y->b->run->job;
}

/* One job against one of its baseline jobs: the ratio answers, a block per
 * pair of jobs. */
void mmp_report_ratios(FILE *out, const struct mmp_results *res)
{
	const struct mmp_answers *ans = &res->answers;
	char iv[96], more[96], access[32];
	for (size_t i = 0; i < ans->n; i++) {
		const struct mmp_answer *head = &ans->a[i];
		int first = head->kind == MMP_Q_RATIO;
		for (size_t j = 0; j < i && first; j++)
			first = !same_pair(&ans->a[j], head);
		if (!first)
			continue;
		fprintf(out, "\n%s vs %s (time ratio: geometric mean of rounds measured side by "
			     "side, 95%% interval; >1 = slower; the same = within %g%%):\n",
			head->a->run->job->name, head->b->run->job->name, head->tolerance * 100);
		for (size_t j = i; j < ans->n; j++) {
			const struct mmp_answer *a = &ans->a[j];
			if (!same_pair(a, head))
				continue;
			fprintf(out, "  threads=%-3u access=%-6s %-24s %s", a->a->run->p.threads,
				mmp_result_access(a->a, access, sizeof(access)),
				mmp_format_interval(&a->ratio, "x", iv, sizeof(iv)), a->verdict);
			if (a->outcome == MMP_OUTCOME_INCONCLUSIVE)
				fprintf(out, " (%s)", mmp_format_more(a->more, more, sizeof(more)));
			fprintf(out, "  (%zu rounds%s)\n", a->rounds,
				a->used_disturbed ? ", disturbed ones included" : "");
		}
	}
}
