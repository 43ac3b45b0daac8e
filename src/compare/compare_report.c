/* mmprof compare's terminal report and its CSV (see compare.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare.h"
#include "report/csv.h"
#include "report/grid.h"
#include "util/outfile.h"
#include "result/result.h"

#define KEY_JOB MMP_COMPARE_KEY_JOB
#define KEY_PROBE MMP_COMPARE_KEY_PROBE
#define KEY_CONTROL MMP_COMPARE_KEY_CONTROL

const char *mmp_compare_label(const struct mmp_cmp_run *r, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "[%s] %s", r->key[KEY_JOB], r->key[KEY_PROBE]);
	for (size_t k = 0; k < mmp_compare_nkeys() && used < len; k++)
		if (k != KEY_JOB && k != KEY_PROBE && k != KEY_CONTROL && r->key[k][0])
			used += (size_t)snprintf(buf + used, len - used, " %s=%s",
						 mmp_compare_key_name(k), r->key[k]);
	if (used < len && r->control[0])
		snprintf(buf + used, len - used, " +%s", r->control);
	return buf;
}

static void describe(FILE *out, const char *which, const struct mmp_cmp_file *f)
{
	size_t used = 0;
	for (size_t i = 0; i < f->nruns; i++)
		used += !f->run[i].copy;
	fprintf(out, "%s: %s  (run_id %s, host %s, %s, mmprof %s, %s; %zu runs)\n", which,
		f->path, f->run_id, f->host, f->cpu_model, f->mmprof_version, f->started_at, used);
}

/* Comparing machines or versions is legitimate; not saying so is not. */
static void notes(FILE *out, const struct mmp_comparison *c)
{
	const struct mmp_cmp_file *a = &c->a, *b = &c->b;
	if (c->differs & MMP_COMPARE_DIFF_HOST)
		fprintf(out, "note: A ran on host %s, B on %s: the ratios compare the two machines "
			     "as well as whatever else changed\n",
			a->host, b->host);
	if (c->differs & MMP_COMPARE_DIFF_CPU)
		fprintf(out, "note: different CPUs: A %s, B %s\n", a->cpu_model, b->cpu_model);
	if (c->differs & MMP_COMPARE_DIFF_VERSION)
		fprintf(out, "note: different mmprof versions: A %s, B %s (a probe may have changed "
			     "too)\n",
			a->mmprof_version, b->mmprof_version);
	if (c->differs & MMP_COMPARE_DIFF_KERNEL)
		fprintf(out, "note: different kernels: A %s, B %s\n", a->kernel_release,
			b->kernel_release);
}

/* Keys whose value differs between the pairs (job always, control when a
 * rung is compared). */
static unsigned shown_keys(const struct mmp_comparison *c)
{
	unsigned mask = 1u << KEY_JOB;
	for (size_t i = 1; i < c->npairs; i++)
		for (size_t k = 0; k < mmp_compare_nkeys(); k++)
			if (strcmp(c->pair[i].a.run->key[k], c->pair[0].a.run->key[k]) != 0)
				mask |= 1u << k;
	for (size_t i = 0; i < c->npairs; i++) {
		if (c->pair[i].a.run->control[0])
			mask |= 1u << KEY_CONTROL;
		for (size_t k = 0; k < mmp_compare_nkeys(); k++)
			if ((c->vary & (1u << k)) &&
			    strcmp(c->pair[i].a.run->key[k], c->pair[i].b.run->key[k]) != 0)
				mask |= 1u << k;
	}
	return mask;
}

/* One figure of a ratio: the estimate's decimals, unless they would show
 * it as 0.000 (B/A = 0.0002) or as a run of digits cut short (1e16 and
 * up): three significant digits then. */
static void ratio_figure(double v, const char *fmt, char *buf, size_t len)
{
	if (v != 0 && (fabs(v) < 0.01 || fabs(v) >= 1e6))
		fmt = "%.3g";
	snprintf(buf, len, fmt, v);
}

static void format_ratio(const struct mmp_interval *iv, char *buf, size_t len)
{
	const char *fmt = iv->estimate >= 100 ? "%.0f" : iv->estimate >= 10 ? "%.1f" : "%.3f";
	char e[24], l[24], h[24]; /* at most 12 characters each: see ratio_figure */
	ratio_figure(iv->estimate, fmt, e, sizeof(e));
	if (!iv->valid) {
		snprintf(buf, len, "%sx [no interval: one repetition]", e);
		return;
	}
	ratio_figure(iv->low, fmt, l, sizeof(l));
	ratio_figure(iv->high, fmt, h, sizeof(h));
	snprintf(buf, len, "%sx [%s, %s]", e, l, h);
}

/* Key columns of numbers, right-aligned as numbers are. */
static int numeric(const char *key)
{
	return !strcmp(key, "threads") || !strcmp(key, "access") || !strcmp(key, "buffer") ||
	       !strcmp(key, "bytes");
}

/* A key's cell: A's value, or "A->B" for a key --vary lets differ. */
static void key_cell(const struct mmp_comparison *c, const struct mmp_cmp_pair *p, size_t k,
		     char *buf, size_t len)
{
	const char *a = k == KEY_CONTROL ? p->a.run->control : p->a.run->key[k];
	const char *b = k == KEY_CONTROL ? p->b.run->control : p->b.run->key[k];
	if ((c->vary & (1u << k)) && strcmp(a, b) != 0)
		snprintf(buf, len, "%.28s->%.28s", a, b);
	else
		snprintf(buf, len, "%s", a);
}

/* The ceilings' own B / A, and what it means for the outcomes. */
static void drift_note(FILE *out, const struct mmp_comparison *c)
{
	if (!c->nceilings)
		return;
	fprintf(out, "machine drift: the %zu ceiling (limit) run(s) are B/A %.3gx", c->nceilings,
		c->drift);
	if (c->nceilings > 1)
		fprintf(out, " (%.3g to %.3g)", c->drift_min, c->drift_max);
	fprintf(out, ": the machine itself ran %s in B; %zu run(s) that carry a ceiling in "
		     "both files are judged on B/A over the ceiling (their times over the "
		     "ceiling's in the same rounds), so the drift cancels%s\n",
		c->drift > 1 + c->tolerance	? "slower"
		: c->drift < 1 / (1 + c->tolerance) ? "faster"
						      : "about as fast",
		c->non_ceiling,
		c->non_ceiling + c->nceilings < c->npairs
			? "; the others' outcomes include the drift"
			: "");
}

/* Runs whose outcome had to come from disturbed repetitions: what that
 * means, and what would decide them. */
static void disturbed_note(FILE *out, const struct mmp_comparison *c)
{
	if (!c->ndisturbed)
		return;
	fprintf(out, "disturbed: %zu run(s) had fewer than %d clean repetitions on a side (the "
		     "CSV's disturbed column: another task held their PUs, or mmprof was "
		     "stopped), so their figures used disturbed ones: inconclusive whatever "
		     "the ratio, as mmprof's own answers are, since such a repetition's time "
		     "holds what the other task took; rerun that side on a quieter machine or "
		     "with more repetitions\n",
		c->ndisturbed, MMP_MIN_CLEAN_ROUNDS);
}

static void table(FILE *out, const struct mmp_comparison *c)
{
	struct mmp_grid t = { 0 };
	unsigned keys = shown_keys(c);
	int marked = 0;

	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		if (keys & (1u << k))
			mmp_grid_column(&t, mmp_compare_key_name(k), numeric(mmp_compare_key_name(k)));
	mmp_grid_column(&t, "A median ms", 1);
	mmp_grid_column(&t, "B median ms", 1);
	mmp_grid_column(&t, "reps A/B", 1);
	mmp_grid_column(&t, "B/A [95% CI]", 1);
	if (c->non_ceiling)
		mmp_grid_column(&t, "B/A over ceiling", 1);
	mmp_grid_column(&t, "outcome", 0);
	for (size_t i = 0; i < c->npairs; i++) {
		const struct mmp_cmp_pair *p = &c->pair[i];
		char(*row)[MMP_GRID_CELL] = mmp_grid_row(&t);
		size_t col = 0;
		if (!row)
			break;
		for (size_t k = 0; k < mmp_compare_nkeys(); k++)
			if (keys & (1u << k))
				key_cell(c, p, k, row[col++], MMP_GRID_CELL);
		snprintf(row[col++], MMP_GRID_CELL, "%.4g", p->a.median / 1e6);
		snprintf(row[col++], MMP_GRID_CELL, "%.4g", p->b.median / 1e6);
		snprintf(row[col++], MMP_GRID_CELL, "%zu%s/%zu%s", p->a.used,
			 p->a.used_disturbed ? "*" : "", p->b.used, p->b.used_disturbed ? "*" : "");
		marked |= p->a.used_disturbed || p->b.used_disturbed;
		format_ratio(&p->ratio, row[col++], MMP_GRID_CELL);
		if (c->non_ceiling && p->on_ceiling)
			format_ratio(&p->to_ceiling, row[col++], MMP_GRID_CELL);
		else if (c->non_ceiling)
			snprintf(row[col++], MMP_GRID_CELL, "%s", p->ceiling ? "(the ceiling)" : "-");
		snprintf(row[col++], MMP_GRID_CELL, "%s%s%s",
			 p->ceiling ? "drift" : mmp_compare_outcome_name(p->outcome),
			 !p->ceiling && p->disturbed ? " (disturbed)" : "",
			 p->a.run->wrong || p->b.run->wrong ? " (WRONG result)" : "");
	}
	mmp_grid_print(&t, out);
	mmp_grid_free(&t);
	fprintf(out, "B/A: ratio of the geometric mean times; 95%% interval: Welch's t-interval on "
		     "the difference of mean log times (A and B were not measured side by side: "
		     "their rounds cannot be paired, and drift between the two invocations is "
		     "part of the ratio); same: within %.3g .. %.3g (tolerance %g%%); "
		     "disturbed repetitions left out when %d clean ones remain%s\n",
		1 / (1 + c->tolerance), 1 + c->tolerance, c->tolerance * 100, MMP_MIN_CLEAN_ROUNDS,
		marked ? " (*: fewer did, all were used)" : "");
	drift_note(out, c);
	disturbed_note(out, c);
}

static void only(FILE *out, const char *which, const struct mmp_cmp_run *const *v, size_t n)
{
	char label[400];
	if (!n)
		return;
	fprintf(out, "\nonly in %s (the other file has no rows with these parameters: not in its "
		     "config, or it failed before its first repetition):\n",
		which);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s (run %ld)\n", mmp_compare_label(v[i], label, sizeof(label)),
			v[i]->number);
}

void mmp_compare_print(FILE *out, const struct mmp_comparison *c)
{
	char label[400];
	describe(out, "A", &c->a);
	describe(out, "B", &c->b);
	notes(out, c);
	fprintf(out, "\n");
	if (c->npairs)
		table(out, c);
	else
		fprintf(out, "no run of A has a match in B: nothing to compare (runs that differ "
			     "in a key on purpose match with --vary KEY)\n");
	for (size_t i = 0; i < c->npairs; i++) {
		const struct mmp_cmp_pair *p = &c->pair[i];
		for (int side = 0; side < 2; side++) {
			const struct mmp_cmp_run *r = side ? p->b.run : p->a.run;
			if (r->wrong)
				fprintf(out, "WRONG: %s's run %ld %s: a repetition's result differs from "
					     "the reference (result_ok = false); its time is not of a "
					     "probe that read the data\n",
					side ? "B" : "A", r->number,
					mmp_compare_label(r, label, sizeof(label)));
		}
	}
	only(out, "A", c->only_a, c->nonly_a);
	only(out, "B", c->only_b, c->nonly_b);
	fprintf(out, "\n%zu slower, %zu faster, %zu same, %zu inconclusive; only in A: %zu; "
		     "only in B: %zu",
		c->count[MMP_COMPARE_SLOWER], c->count[MMP_COMPARE_FASTER],
		c->count[MMP_COMPARE_SAME], c->count[MMP_COMPARE_INCONCLUSIVE], c->nonly_a,
		c->nonly_b);
	if (c->nceilings)
		fprintf(out, "; ceilings: %zu (drift %.3gx)", c->nceilings, c->drift);
	fputc('\n', out);
}

/* After the schema version and the key's columns. */
static const struct mmp_cmp_column columns[] = {
	{ "a_run", "the run in A (A's run column)" },
	{ "b_run", "the run in B" },
	{ "a_reps", "A's repetitions of the run" },
	{ "b_reps", "B's repetitions of the run" },
	{ "a_used", "A's repetitions the figures use (disturbed ones left out when 3 clean remain)" },
	{ "b_used", "B's repetitions the figures use" },
	{ "a_disturbed_used", "true: fewer than 3 of A's were clean, all were used" },
	{ "b_disturbed_used", "true: fewer than 3 of B's were clean, all were used" },
	{ "a_median_ns", "median elapsed_ns of A's repetitions used" },
	{ "b_median_ns", "median elapsed_ns of B's repetitions used" },
	{ "ratio", "B / A: ratio of the geometric means of elapsed_ns" },
	{ "ci_low", "95% Welch interval of ratio, low; empty: fewer than 2 repetitions on a side" },
	{ "ci_high", "95% Welch interval of ratio, high" },
	{ "df", "Welch-Satterthwaite degrees of freedom of the interval" },
	{ "tolerance", "ratios within 1/(1+t) .. 1+t are the same" },
	{ "outcome", "slower, faster, same or inconclusive (always inconclusive when disturbed is true)" },
	{ "a_result_ok", "every repetition of A's run matched the reference" },
	{ "b_result_ok", "every repetition of B's run matched the reference" },
	{ "a_run_id", "A's mmprof invocation" },
	{ "b_run_id", "B's mmprof invocation" },
	{ "varied", "the keys --vary let differ that do, as key=A->B; empty: none" },
	{ "ceiling", "true: both runs are ceilings (limit runs), the machine-drift reference: not counted as slower or faster" },
	{ "ceiling_ratio", "B / A of the times over the ceiling in the same rounds (Welch), what outcome is judged on; empty: a side carries no ceiling" },
	{ "ceiling_ci_low", "95% interval of ceiling_ratio, low" },
	{ "ceiling_ci_high", "95% interval of ceiling_ratio, high" },
	{ "disturbed", "true: the figure outcome is judged on had to use disturbed repetitions (fewer than 3 clean on a side): inconclusive whatever it says" },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

void mmp_compare_csv_header(FILE *f, const struct mmp_cmp_column *cols, size_t n)
{
	mmp_csv_field(f, "schema_version", 0);
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		mmp_csv_field(f, mmp_compare_key_name(k), 0);
	for (size_t k = 0; k < n; k++)
		mmp_csv_field(f, cols[k].name, k + 1 == n);
}

void mmp_compare_columns_table(FILE *out, int markdown, int schema, const char *key_help,
			       const char *control_help, const struct mmp_cmp_column *cols,
			       size_t n)
{
	if (markdown)
		fprintf(out, "| column | meaning |\n|---|---|\n| `schema_version` | version of "
			     "this column layout (%d) |\n",
			schema);
	else
		fprintf(out, "  %-18s version of this column layout (%d)\n", "schema_version",
			schema);
	for (size_t k = 0; k < mmp_compare_nkeys() + n; k++) {
		const char *name = k < mmp_compare_nkeys() ? mmp_compare_key_name(k)
							 : cols[k - mmp_compare_nkeys()].name;
		const char *help = k == KEY_CONTROL && control_help ? control_help
				   : k < mmp_compare_nkeys()	      ? key_help
									      : cols[k - mmp_compare_nkeys()].help;
		if (markdown)
			fprintf(out, "| `%s` | %s |\n", name, help);
		else
			fprintf(out, "  %-18s %s\n", name, help);
	}
}

void mmp_compare_print_columns(FILE *out, int markdown)
{
	mmp_compare_columns_table(out, markdown, MMP_COMPARE_SCHEMA_VERSION,
				  "key: as in NAME.csv (a rung: its job point's value)",
				  "key: the rung's controls; empty: the job point", columns, NCOLUMNS);
}

static void pair_row(FILE *f, const struct mmp_comparison *c, const struct mmp_cmp_pair *p)
{
	char v[NCOLUMNS][200];
	size_t i = 0;
	memset(v, 0, sizeof(v));
	snprintf(v[i++], sizeof(v[0]), "%ld", p->a.run->number);
	snprintf(v[i++], sizeof(v[0]), "%ld", p->b.run->number);
	snprintf(v[i++], sizeof(v[0]), "%zu", p->a.run->n);
	snprintf(v[i++], sizeof(v[0]), "%zu", p->b.run->n);
	snprintf(v[i++], sizeof(v[0]), "%zu", p->a.used);
	snprintf(v[i++], sizeof(v[0]), "%zu", p->b.used);
	snprintf(v[i++], sizeof(v[0]), "%s", p->a.used_disturbed ? "true" : "false");
	snprintf(v[i++], sizeof(v[0]), "%s", p->b.used_disturbed ? "true" : "false");
	snprintf(v[i++], sizeof(v[0]), "%.10g", p->a.median);
	snprintf(v[i++], sizeof(v[0]), "%.10g", p->b.median);
	snprintf(v[i++], sizeof(v[0]), "%.6g", p->ratio.estimate);
	if (p->ratio.valid) {
		snprintf(v[i], sizeof(v[0]), "%.6g", p->ratio.low);
		snprintf(v[i + 1], sizeof(v[0]), "%.6g", p->ratio.high);
		snprintf(v[i + 2], sizeof(v[0]), "%.4g", p->ratio.df);
	}
	i += 3;
	snprintf(v[i++], sizeof(v[0]), "%g", c->tolerance);
	snprintf(v[i++], sizeof(v[0]), "%s", mmp_compare_outcome_name(p->outcome));
	snprintf(v[i++], sizeof(v[0]), "%s", p->a.run->wrong ? "false" : "true");
	snprintf(v[i++], sizeof(v[0]), "%s", p->b.run->wrong ? "false" : "true");
	snprintf(v[i++], sizeof(v[0]), "%s", c->a.run_id);
	snprintf(v[i++], sizeof(v[0]), "%s", c->b.run_id);
	size_t used = 0;
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		if ((c->vary & (1u << k)) && strcmp(p->a.run->key[k], p->b.run->key[k]) != 0 &&
		    used < sizeof(v[0]))
			used += (size_t)snprintf(v[i] + used, sizeof(v[0]) - used, "%s%s=%s->%s",
						 used ? " " : "", mmp_compare_key_name(k),
						 p->a.run->key[k], p->b.run->key[k]);
	i++;
	snprintf(v[i++], sizeof(v[0]), "%s", p->ceiling ? "true" : "false");
	if (p->on_ceiling) {
		snprintf(v[i], sizeof(v[0]), "%.6g", p->to_ceiling.estimate);
		if (p->to_ceiling.valid) {
			snprintf(v[i + 1], sizeof(v[0]), "%.6g", p->to_ceiling.low);
			snprintf(v[i + 2], sizeof(v[0]), "%.6g", p->to_ceiling.high);
		}
	}
	i += 3;
	snprintf(v[i++], sizeof(v[0]), "%s", p->disturbed ? "true" : "false");

	char schema[16];
	snprintf(schema, sizeof(schema), "%d", MMP_COMPARE_SCHEMA_VERSION);
	mmp_csv_field(f, schema, 0);
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		mmp_csv_field(f, k == KEY_CONTROL ? p->a.run->control : p->a.run->key[k], 0);
	for (size_t k = 0; k < NCOLUMNS; k++)
		mmp_csv_field(f, v[k], k + 1 == NCOLUMNS);
}

int mmp_compare_csv(const struct mmp_comparison *c, const char *path, struct mmp_error *err)
{
	const char *inputs[2] = { c->a.path, c->b.path };
	struct mmp_outfile out;
	int rc = mmp_outfile_open_alone(path, inputs, 2, &out, err);
	if (rc)
		return rc;
	mmp_compare_csv_header(out.f, columns, NCOLUMNS);
	for (size_t i = 0; i < c->npairs; i++)
		pair_row(out.f, c, &c->pair[i]);
	return mmp_outfile_commit(&out, err);
}
