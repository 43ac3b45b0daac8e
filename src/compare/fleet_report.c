/* The fleet report (mmprof compare A B C ...): the terminal's and the
 * CSV's (see fleet.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/csv.h"
#include "compare/fleet.h"
#include "report/grid.h"
#include "util/outfile.h"
#include "result/result.h"

static const char *const answer_words[] = { "yes", "no", "inconclusive", "other", "not asked" };

static void format_ratio(const struct mmp_interval *iv, char *buf, size_t len)
{
	if (!iv->valid)
		snprintf(buf, len, "%.3fx [no interval: one repetition]", iv->estimate);
	else
		snprintf(buf, len, "%.3fx [%.3f, %.3f]", iv->estimate, iv->low, iv->high);
}

/* The figure a cell's outcome is judged on. */
static const struct mmp_interval *judged(const struct mmp_cmp_pair *p)
{
	return p->on_ceiling ? &p->to_ceiling : &p->ratio;
}

static void hosts(FILE *out, const struct mmp_fleet *f)
{
	fprintf(out, "fleet: %zu hosts; at each job point, each host against the median host of "
		     "those that ran it (host / median: ratio of geometric mean times, Welch's "
		     "95%% interval, over the ceiling where both runs carry one, so a machine "
		     "that drifted is not an outlier for it; the same: within %.3g .. %.3g)\n",
		f->nfiles, 1 / (1 + f->tolerance), 1 + f->tolerance);
	for (size_t i = 0; i < f->nfiles; i++)
		fprintf(out, "  %-12s %s  (run_id %s, %s, mmprof %s%s)\n", f->name[i],
			f->file[i].path, f->file[i].run_id, f->file[i].cpu_model,
			f->file[i].mmprof_version, f->has_answers[i] ? ", answers" : "");
}

/* "[job] probe threads=2 +tally": the keys that tell the job points
 * apart, not those every one shares (the config's size, seed, ...). */
static const char *short_label(const struct mmp_fleet *f, const struct mmp_cmp_run *r, char *buf,
			       size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "[%s] %s", r->key[MMP_COMPARE_KEY_JOB],
				       r->key[MMP_COMPARE_KEY_PROBE]);
	for (size_t k = 0; k < mmp_compare_nkeys() && used < len; k++) {
		int differs = 0;
		if (k == MMP_COMPARE_KEY_JOB || k == MMP_COMPARE_KEY_PROBE ||
		    k == MMP_COMPARE_KEY_CONTROL)
			continue;
		for (size_t p = 1; p < f->npoints && !differs; p++)
			differs = strcmp(f->point[p].run->key[k], f->point[0].run->key[k]) != 0;
		if (differs && r->key[k][0])
			used += (size_t)snprintf(buf + used, len - used, " %s=%s",
						 mmp_compare_key_name(k), r->key[k]);
	}
	if (used < len && r->control[0])
		snprintf(buf + used, len - used, " +%s", r->control);
	return buf;
}

static void table(FILE *out, const struct mmp_fleet *f)
{
	struct mmp_grid t = { 0 };
	mmp_grid_column(&t, "job point", 0);
	mmp_grid_column(&t, "median host", 0);
	mmp_grid_column(&t, "host", 0);
	mmp_grid_column(&t, "host / median [95% CI]", 1);
	mmp_grid_column(&t, "outcome", 0);
	for (size_t p = 0; p < f->npoints; p++) {
		const struct mmp_fleet_point *pt = &f->point[p];
		int first = 1;
		if (pt->ncells < 2)
			continue;
		for (size_t c = 0; c < pt->ncells; c++) {
			const struct mmp_fleet_cell *x = &pt->cell[c];
			if (x->is_median)
				continue;
			char(*row)[MMP_GRID_CELL] = mmp_grid_row(&t);
			if (!row)
				break;
			if (first) {
				short_label(f, pt->run, row[0], MMP_GRID_CELL);
				snprintf(row[1], MMP_GRID_CELL, "%s", f->name[pt->median]);
			}
			first = 0;
			snprintf(row[2], MMP_GRID_CELL, "%s", f->name[x->file]);
			format_ratio(judged(&x->pair), row[3], MMP_GRID_CELL);
			snprintf(row[4], MMP_GRID_CELL, "%s%s",
				 mmp_compare_outcome_name(x->pair.outcome),
				 x->pair.disturbed ? " (disturbed)" : "");
		}
	}
	mmp_grid_print(&t, out);
	mmp_grid_free(&t);
}

/* Per host, the job points where it is an outlier, and those left
 * undecided (inconclusive: not an outlier, nor shown to be none). */
static void outliers(FILE *out, const struct mmp_fleet *f)
{
	int any[2] = { 0, 0 };
	for (int undecided = 0; undecided < 2; undecided++) {
		fprintf(out, "\n%s", undecided ? "undecided (inconclusive against the median host):"
						: "outliers (slower or faster than the median host):");
		for (size_t i = 0; i < f->nfiles; i++) {
			size_t n[MMP_COMPARE_NOUTCOMES] = { 0 }, dist = 0;
			for (size_t p = 0; p < f->npoints; p++)
				for (size_t c = 0; c < f->point[p].ncells; c++) {
					const struct mmp_fleet_cell *x = &f->point[p].cell[c];
					if (x->file != i || x->is_median)
						continue;
					n[x->pair.outcome]++;
					dist += (size_t)x->pair.disturbed;
				}
			if (undecided && n[MMP_COMPARE_INCONCLUSIVE]) {
				fprintf(out, "\n  %s: %zu job point(s)", f->name[i],
					n[MMP_COMPARE_INCONCLUSIVE]);
				if (dist)
					fprintf(out, ", %zu disturbed (another task held its PUs: "
						     "measure it again on a quiet host)",
						dist);
				any[1] = 1;
			} else if (!undecided &&
				   (n[MMP_COMPARE_SLOWER] || n[MMP_COMPARE_FASTER])) {
				fprintf(out, "\n  %s: %zu slower, %zu faster", f->name[i],
					n[MMP_COMPARE_SLOWER], n[MMP_COMPARE_FASTER]);
				any[0] = 1;
			}
		}
		fprintf(out, "%s", any[undecided] ? "\n" : " none\n");
	}
}

/* "yes on 14 of 16 hosts; n07, n11 inconclusive (disturbed)". */
static void answer_line(FILE *out, const struct mmp_fleet *f, const struct mmp_fleet_answer *a)
{
	size_t asked = 0;
	int most = MMP_FLEET_YES;
	for (size_t i = 0; i < f->nfiles; i++)
		asked += f->has_answers[i];
	for (int o = MMP_FLEET_YES; o < MMP_FLEET_ABSENT; o++)
		if (a->count[o] > a->count[most])
			most = o;
	fprintf(out, "  %s (%s): ", a->question, a->kind);
	if (a->agree) {
		fprintf(out, "%s on all %zu hosts\n", answer_words[most], asked);
		return;
	}
	fprintf(out, "%s on %zu of %zu hosts", answer_words[most], a->count[most], asked);
	for (int o = MMP_FLEET_YES; o <= MMP_FLEET_ABSENT; o++) {
		const char *sep = "; ";
		size_t dist = 0;
		if (o == most || !a->count[o])
			continue;
		for (size_t i = 0; i < f->nfiles; i++)
			if (a->outcome[i] == o && f->has_answers[i]) {
				fprintf(out, "%s%s", sep, f->name[i]);
				sep = ", ";
				dist += a->disturbed[i];
			}
		if (*sep == ',')
			fprintf(out, " %s%s", answer_words[o], dist ? " (disturbed)" : "");
	}
	fputc('\n', out);
}

static void answers(FILE *out, const struct mmp_fleet *f)
{
	if (!f->nanswers)
		return;
	fprintf(out, "\nanswers across the hosts (each host's NAME.answers.csv):\n");
	for (size_t a = 0; a < f->nanswers; a++)
		answer_line(out, f, &f->answer[a]);
}

void mmp_fleet_print(FILE *out, const struct mmp_fleet *f)
{
	char label[400];
	hosts(out, f);
	fputc('\n', out);
	if (f->npoints > f->nsingle)
		table(out, f);
	else
		fprintf(out, "no job point was run by two hosts: nothing to compare (runs that "
			     "differ in a key on purpose match with --vary KEY)\n");
	for (size_t p = 0; p < f->npoints; p++)
		if (f->point[p].ncells < 2)
			fprintf(out, "only on %s: %s\n", f->name[f->point[p].cell[0].file],
				mmp_compare_label(f->point[p].run, label, sizeof(label)));
	outliers(out, f);
	answers(out, f);
	fprintf(out, "\n%zu job points on %zu hosts: %zu slower, %zu faster, %zu same, %zu "
		     "inconclusive (host against median); only on one host: %zu; answers: %zu "
		     "the same on every host, %zu differ\n",
		f->npoints, f->nfiles, f->nslower, f->nfaster, f->nsame, f->ninconclusive,
		f->nsingle, f->nagree, f->nanswers - f->nagree);
}

/* After the schema version and the key's columns (compare's). */
static const struct mmp_cmp_column columns[] = {
	{ "host", "the host of this row (its NAME.csv's host column)" },
	{ "run", "its run in its file" },
	{ "run_id", "its file's mmprof invocation" },
	{ "median_host", "the job point's median host, which the others are held against" },
	{ "hosts", "the hosts that ran the job point" },
	{ "used", "repetitions the figures use (disturbed ones left out when 3 clean remain); empty on the median host's row" },
	{ "median_ns", "median elapsed_ns of those; empty on the median host's row" },
	{ "ratio", "host / median host: ratio of the geometric means of elapsed_ns; 1 on the median host's row" },
	{ "ci_low", "95% Welch interval of ratio, low; empty: the median host, or one repetition" },
	{ "ci_high", "95% Welch interval of ratio, high" },
	{ "ceiling_ratio", "the same over each run's ceiling in the same rounds, what outcome is judged on; empty: a side carries no ceiling" },
	{ "ceiling_ci_low", "95% interval of ceiling_ratio, low" },
	{ "ceiling_ci_high", "95% interval of ceiling_ratio, high" },
	{ "tolerance", "ratios within 1/(1+t) .. 1+t are the same" },
	{ "outcome", "slower, faster, same or inconclusive against the median host; median: the median host itself" },
	{ "disturbed", "true: the figure had to use disturbed repetitions: inconclusive whatever it says" },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

void mmp_fleet_print_columns(FILE *out, int markdown)
{
	mmp_compare_columns_table(out, markdown, MMP_FLEET_SCHEMA_VERSION,
				  "key: as in mmprof compare's CSV", NULL, columns, NCOLUMNS);
}

static void put_interval(char (*v)[200], const struct mmp_interval *iv, int with_estimate)
{
	if (with_estimate)
		snprintf(v[0], sizeof(v[0]), "%.6g", iv->estimate);
	if (iv->valid) {
		snprintf(v[1], sizeof(v[0]), "%.6g", iv->low);
		snprintf(v[2], sizeof(v[0]), "%.6g", iv->high);
	}
}

static void cell_row(FILE *out, const struct mmp_fleet *f, const struct mmp_fleet_point *pt,
		     const struct mmp_fleet_cell *x)
{
	char v[NCOLUMNS][200], schema[16];
	const struct mmp_cmp_pair *p = &x->pair;
	size_t i = 0;
	memset(v, 0, sizeof(v));
	snprintf(v[i++], sizeof(v[0]), "%s", f->file[x->file].host);
	snprintf(v[i++], sizeof(v[0]), "%ld", x->run->number);
	snprintf(v[i++], sizeof(v[0]), "%s", f->file[x->file].run_id);
	snprintf(v[i++], sizeof(v[0]), "%s", f->file[pt->median].host);
	snprintf(v[i++], sizeof(v[0]), "%zu", pt->ncells);
	if (x->is_median || pt->ncells < 2) {
		i += 2; /* used, median_ns: the median host's are in the others' rows */
		snprintf(v[i], sizeof(v[0]), "1");
		i += 6;
		snprintf(v[i++], sizeof(v[0]), "%g", f->tolerance);
		snprintf(v[i++], sizeof(v[0]), "median");
		snprintf(v[i++], sizeof(v[0]), "false");
	} else {
		snprintf(v[i++], sizeof(v[0]), "%zu", p->b.used);
		snprintf(v[i++], sizeof(v[0]), "%.10g", p->b.median);
		put_interval(&v[i], &p->ratio, 1);
		i += 3;
		if (p->on_ceiling)
			put_interval(&v[i], &p->to_ceiling, 1);
		i += 3;
		snprintf(v[i++], sizeof(v[0]), "%g", f->tolerance);
		snprintf(v[i++], sizeof(v[0]), "%s", mmp_compare_outcome_name(p->outcome));
		snprintf(v[i++], sizeof(v[0]), "%s", p->disturbed ? "true" : "false");
	}
	snprintf(schema, sizeof(schema), "%d", MMP_FLEET_SCHEMA_VERSION);
	mmp_csv_field(out, schema, 0);
	for (size_t k = 0; k < mmp_compare_nkeys(); k++)
		mmp_csv_field(out, k == MMP_COMPARE_KEY_CONTROL ? x->run->control : x->run->key[k], 0);
	for (size_t k = 0; k < NCOLUMNS; k++)
		mmp_csv_field(out, v[k], k + 1 == NCOLUMNS);
}

int mmp_fleet_open_output(const struct mmp_fleet *f, const char *path, struct mmp_outfile *out,
			  struct mmp_error *err)
{
	const char **inputs = calloc(f->nfiles + 1, sizeof(*inputs));
	if (!inputs)
		return mmp_error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < f->nfiles; i++)
		inputs[i] = f->file[i].path;
	int rc = mmp_outfile_open_alone(path, inputs, f->nfiles, out, err);
	free(inputs);
	return rc;
}

int mmp_fleet_csv(const struct mmp_fleet *f, const char *path, struct mmp_error *err)
{
	struct mmp_outfile out;
	int rc = mmp_fleet_open_output(f, path, &out, err);
	if (rc)
		return rc;
	mmp_compare_csv_header(out.f, columns, NCOLUMNS);
	for (size_t p = 0; p < f->npoints; p++)
		for (size_t c = 0; c < f->point[p].ncells; c++)
			cell_row(out.f, f, &f->point[p], &f->point[p].cell[c]);
	return mmp_outfile_commit(&out, err);
}
