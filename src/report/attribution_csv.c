/* NAME.attribution.csv and NAME.answers.csv (see companions.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/companions.h"
#include "mmprof/csv.h"
#include "mmprof/probe.h"
#include "mmprof/units.h"

#define CELL 256

struct column {
	const char *name, *help;
};

static const struct column attribution_columns[] = {
	{ "schema_version", "version of this column layout" },
	{ "run_id", "the mmprof invocation (as in NAME.csv)" },
	{ "run", "the job point's run number (NAME.csv's run)" },
	{ "job", "the config section" },
	{ "probe", "access path" },
	{ "kernel", "zeros or histogram" },
	{ "threads", "threads of the job point" },
	{ "access", "bytes per call; empty for whole-slice scans" },
	{ "buffer", "read()/stdio buffer bytes; empty: the probe has none" },
	{ "refcount", "accessor probes: shared, once or private" },
	{ "tally", "atomic, packed, padded or local; empty: the probe has none" },
	{ "placement", "placement as written" },
	{ "cache", "page cache before each repetition" },
	{ "bytes", "bytes the job point reads" },
	{ "cause", "the cause (a control's), limit (the memory system) or remaining" },
	{ "detail", "which state or path the cause is about" },
	{ "controls", "the controls whose rungs measure it (several: interacting)" },
	{ "interacting", "true when rungs were merged: a control made the job slower given the ones below it" },
	{ "ns_per_byte", "the cause's cost per byte of the job (mean over the rounds used); empty for the probes that count operations (see ns_per_op)" },
	{ "ci_low", "95% interval of the cost (ns_per_byte or ns_per_op), low" },
	{ "ci_high", "95% interval of the cost (ns_per_byte or ns_per_op), high" },
	{ "share", "the cost over the job's mean time per byte (or per operation); the shares sum to 1" },
	{ "share_low", "95% interval of share, low" },
	{ "share_high", "95% interval of share, high" },
	{ "significant", "the interval excludes 0" },
	{ "understated", "a sharing cause measured on disturbed rounds" },
	{ "rounds", "rounds the attribution uses (the job and every rung undisturbed, when 3 remain)" },
	{ "disturbed", "disturbed rounds had to be used" },
	{ "order", "the ladder: the controls in the order they were applied" },
	{ "evidence", "the counter metric shown beside the cause" },
	{ "evidence_before", "its value below the control; empty when not counted" },
	{ "evidence_after", "its value with the control; empty when not counted" },
	{ "evidence_missing", "events that would have told, not counted here" },
	{ "unit", "what the job's time is divided by: byte, or the operation of pingpong (transfer) and chase (load)" },
	{ "ns_per_op", "pingpong, chase: the cause's cost per operation of the job; empty for byte probes" },
	{ "used", "false: the control changed nothing in the program (not_shown says why) and its rung was left out" },
	{ "not_shown", "why a cost above zero is not shown to be this cause (something else explains it as well), or why an unused control changed nothing; empty: nothing to say" },
	{ "cpu_ratio", "onepu: the program's CPU time on its PUs over its CPU time on one (geometric mean of rounds); empty for other causes" },
};
#define NATTR (sizeof(attribution_columns) / sizeof(attribution_columns[0]))

static const struct column answer_columns[] = {
	{ "schema_version", "version of this column layout" },
	{ "run_id", "the mmprof invocation (as in NAME.csv)" },
	{ "set", "the comparison set the runs ran in" },
	{ "kind", "ratio, gap, cause, fix, match, regression, fastest or model" },
	{ "question", "the question, in words" },
	{ "job", "the job asked about" },
	{ "other", "the job it is compared with (fastest: the runner-up's)" },
	{ "run", "the run asked about (NAME.csv's run)" },
	{ "other_run", "the run it is compared with" },
	{ "threads", "threads" },
	{ "access", "bytes per call; empty for whole-slice scans" },
	{ "bytes", "bytes read" },
	{ "ratio", "job / other, geometric mean of paired rounds (cause: the top cause's share; model: the models' ratio over job / other)" },
	{ "ci_low", "95% interval, low" },
	{ "ci_high", "95% interval, high" },
	{ "tolerance", "ratios within 1 +- this are the same" },
	{ "outcome", "yes, no or inconclusive" },
	{ "verdict", "what the outcome means: slower, the same, REGRESSED, tie: ..., a cause" },
	{ "rounds", "paired rounds the figure comes from" },
	{ "disturbed_reps", "disturbed repetitions among the runs compared" },
	{ "used_disturbed", "disturbed rounds had to be used" },
	{ "more_rounds", "inconclusive: about this many more rounds would decide; empty: none would" },
	{ "evidence", "what else bears on it" },
};
#define NANSWER (sizeof(answer_columns) / sizeof(answer_columns[0]))

static FILE *open_with_header(struct mmp_outset *set, enum mmp_out_kind kind,
			      struct mmp_outfile *out, const struct column *cols, size_t n,
			      struct mmp_error *err)
{
	if (mmp_outfile_open(set, kind, out, err))
		return NULL;
	for (size_t k = 0; k < n; k++)
		mmp_csv_field(out->f, cols[k].name, k + 1 == n);
	return out->f;
}

static void put(FILE *f, char (*v)[CELL], size_t n)
{
	for (size_t k = 0; k < n; k++)
		mmp_csv_field(f, v[k], k + 1 == n);
}

static void cause_row(FILE *f, const char *run_id, const struct mmp_results *res,
		      const struct mmp_attribution *a, const struct mmp_cause *c)
{
	const struct mmp_run *run = a->job->run;
	char v[NATTR][CELL];
	size_t i = 0;

	memset(v, 0, sizeof(v));
	snprintf(v[i++], CELL, "%d", MMP_CSV_SCHEMA_VERSION);
	snprintf(v[i++], CELL, "%s", run_id);
	snprintf(v[i++], CELL, "%zu", run->index + 1);
	snprintf(v[i++], CELL, "%s", run->job->name);
	snprintf(v[i++], CELL, "%s", run->p.probe->name);
	mmp_run_format(run, MMP_KEY_KERNEL, v[i++], CELL);
	snprintf(v[i++], CELL, "%u", run->p.threads);
	if (a->job->access)
		snprintf(v[i], CELL, "%" PRIu64, a->job->access);
	i++;
	if (run->applies & MMP_KEY_BIT(MMP_KEY_BUFFER)) /* bytes, as NAME.csv has them */
		snprintf(v[i], CELL, "%" PRIu64, run->p.buffer);
	i++;
	mmp_run_format(run, MMP_KEY_REFCOUNT, v[i++], CELL);
	mmp_run_format(run, MMP_KEY_TALLY, v[i++], CELL);
	mmp_run_format(run, MMP_KEY_PLACEMENT, v[i++], CELL);
	mmp_run_format(run, MMP_KEY_CACHE, v[i++], CELL);
	snprintf(v[i++], CELL, "%" PRIu64, a->job->bytes);
	snprintf(v[i++], CELL, "%s", c->name);
	snprintf(v[i++], CELL, "%s", c->detail);
	size_t used = 0;
	for (unsigned k = c->first; c->control && k <= c->last && used < CELL; k++)
		used += (size_t)snprintf(v[i] + used, CELL - used, "%s%s", used ? "+" : "",
					 mmp_control_by_bit(
						 res->plan->runs[run->index + k].added)->name);
	i++;
	snprintf(v[i++], CELL, "%s", c->interacting ? "true" : "false");
	if (!a->job->ops)
		snprintf(v[i], CELL, "%.6g", c->cost.estimate);
	i++;
	if (c->cost.valid) {
		snprintf(v[i], CELL, "%.6g", c->cost.low);
		snprintf(v[i + 1], CELL, "%.6g", c->cost.high);
	}
	i += 2;
	snprintf(v[i++], CELL, "%.4f", c->share);
	if (c->cost.valid) {
		snprintf(v[i], CELL, "%.4f", c->share_low);
		snprintf(v[i + 1], CELL, "%.4f", c->share_high);
	}
	i += 2;
	snprintf(v[i++], CELL, "%s", c->significant ? "true" : "false");
	snprintf(v[i++], CELL, "%s", c->understated ? "true" : "false");
	snprintf(v[i++], CELL, "%zu", a->rounds);
	snprintf(v[i++], CELL, "%s", a->disturbed ? "true" : "false");
	snprintf(v[i++], CELL, "%s", a->order);
	snprintf(v[i++], CELL, "%s", c->evidence.metric ? c->evidence.metric : "");
	if (c->evidence.counted) {
		snprintf(v[i], CELL, "%.6g", c->evidence.before);
		snprintf(v[i + 1], CELL, "%.6g", c->evidence.after);
	}
	i += 2;
	snprintf(v[i++], CELL, "%s", c->evidence.counted ? "" : c->evidence.missing);
	snprintf(v[i++], CELL, "%s", mmp_result_unit(a->job));
	if (a->job->ops)
		snprintf(v[i], CELL, "%.6g", c->cost.estimate);
	i++;
	snprintf(v[i++], CELL, "true");
	snprintf(v[i++], CELL, "%s", c->not_shown);
	if (c->cpu_ratio.valid)
		snprintf(v[i], CELL, "%.4f", c->cpu_ratio.estimate);
	i++;
	put(f, v, NATTR);
}

/* A control whose rung changed nothing: named, with why, no figures. */
static void unused_row(FILE *f, const char *run_id, const struct mmp_attribution *a,
		       const struct mmp_unused *u)
{
	const struct mmp_run *run = a->job->run;
	char v[NATTR][CELL];
	memset(v, 0, sizeof(v));
	snprintf(v[0], CELL, "%d", MMP_CSV_SCHEMA_VERSION);
	snprintf(v[1], CELL, "%s", run_id);
	snprintf(v[2], CELL, "%zu", run->index + 1);
	snprintf(v[3], CELL, "%s", run->job->name);
	snprintf(v[4], CELL, "%s", run->p.probe->name);
	mmp_run_format(run, MMP_KEY_KERNEL, v[5], CELL);
	snprintf(v[6], CELL, "%u", run->p.threads);
	for (size_t k = 0; k < NATTR; k++) {
		const char *name = attribution_columns[k].name;
		if (strcmp(name, "cause") == 0)
			snprintf(v[k], CELL, "%s", u->control->cause);
		else if (strcmp(name, "controls") == 0)
			snprintf(v[k], CELL, "%s", u->control->name);
		else if (strcmp(name, "used") == 0 || strcmp(name, "significant") == 0)
			snprintf(v[k], CELL, "false");
		else if (strcmp(name, "not_shown") == 0)
			snprintf(v[k], CELL, "changed nothing: %s", u->why);
		else if (strcmp(name, "order") == 0)
			snprintf(v[k], CELL, "%s", a->order);
		else if (strcmp(name, "unit") == 0)
			snprintf(v[k], CELL, "%s", mmp_result_unit(a->job));
		else if (strcmp(name, "rounds") == 0)
			snprintf(v[k], CELL, "%zu", a->rounds);
		else if (strcmp(name, "bytes") == 0)
			snprintf(v[k], CELL, "%" PRIu64, a->job->bytes);
	}
	put(f, v, NATTR);
}

int mmp_attribution_csv(struct mmp_outset *set, const struct mmp_analysis *an,
			const char *run_id, int *wrote, struct mmp_error *err)
{
	const struct mmp_results *res = an->res;
	struct mmp_outfile out;
	FILE *f = NULL;
	*wrote = 0;
	if (!mmp_outset_has_companions(set))
		return 0;
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_attribution *a = &an->attr[i];
		if (!a->job)
			continue;
		if (!f && !(f = open_with_header(set, MMP_OUT_ATTRIBUTION, &out,
						 attribution_columns, NATTR, err)))
			return err->code;
		for (size_t c = 0; c < a->n; c++)
			cause_row(f, run_id, res, a, &a->cause[c]);
		for (size_t u = 0; u < a->nunused; u++)
			unused_row(f, run_id, a, &a->unused[u]);
	}
	if (!f)
		return 0;
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}

static void answer_row(FILE *f, const char *run_id, const struct mmp_answer *ans)
{
	char v[NANSWER][CELL];
	size_t i = 0;

	memset(v, 0, sizeof(v));
	snprintf(v[i++], CELL, "%d", MMP_CSV_SCHEMA_VERSION);
	snprintf(v[i++], CELL, "%s", run_id);
	snprintf(v[i++], CELL, "%zu", ans->set + 1);
	snprintf(v[i++], CELL, "%s", mmp_question_name(ans->kind));
	snprintf(v[i++], CELL, "%s", ans->question);
	snprintf(v[i++], CELL, "%s", ans->a ? ans->a->run->job->name : "");
	snprintf(v[i++], CELL, "%s", ans->b ? ans->b->run->job->name : "");
	if (ans->a)
		snprintf(v[i], CELL, "%zu", ans->a->run->index + 1);
	i++;
	if (ans->b)
		snprintf(v[i], CELL, "%zu", ans->b->run->index + 1);
	i++;
	if (ans->a) {
		snprintf(v[i], CELL, "%u", ans->a->run->p.threads);
		if (ans->a->access)
			snprintf(v[i + 1], CELL, "%" PRIu64, ans->a->access);
		snprintf(v[i + 2], CELL, "%" PRIu64, ans->a->bytes);
	}
	i += 3;
	if (ans->ratio.n) {
		snprintf(v[i], CELL, "%.6g", ans->ratio.estimate);
		if (ans->ratio.valid) {
			snprintf(v[i + 1], CELL, "%.6g", ans->ratio.low);
			snprintf(v[i + 2], CELL, "%.6g", ans->ratio.high);
		}
	}
	i += 3;
	if (ans->kind != MMP_Q_CAUSE)
		snprintf(v[i], CELL, "%g", ans->tolerance);
	i++;
	snprintf(v[i++], CELL, "%s", mmp_outcome_name(ans->outcome));
	snprintf(v[i++], CELL, "%s", ans->verdict);
	snprintf(v[i++], CELL, "%zu", ans->rounds);
	snprintf(v[i++], CELL, "%u", ans->disturbed);
	snprintf(v[i++], CELL, "%s", ans->used_disturbed ? "true" : "false");
	if (ans->outcome == MMP_OUTCOME_INCONCLUSIVE && ans->more != SIZE_MAX)
		snprintf(v[i], CELL, "%zu", ans->more);
	i++;
	snprintf(v[i++], CELL, "%s", ans->evidence);
	put(f, v, NANSWER);
}

int mmp_answers_csv(struct mmp_outset *set, const struct mmp_analysis *an, const char *run_id,
		    int *wrote, struct mmp_error *err)
{
	struct mmp_outfile out;
	*wrote = 0;
	if (!an->answers.n || !mmp_outset_has_companions(set))
		return 0;
	FILE *f = open_with_header(set, MMP_OUT_ANSWERS, &out, answer_columns, NANSWER, err);
	if (!f)
		return err->code;
	for (size_t i = 0; i < an->answers.n; i++)
		answer_row(f, run_id, &an->answers.a[i]);
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}

static void print_table(FILE *out, const char *file, const struct column *cols, size_t n,
			int markdown)
{
	if (markdown)
		fprintf(out, "\n`%s`:\n\n| column | meaning |\n|---|---|\n", file);
	else
		fprintf(out, "\n%s:\n", file);
	for (size_t k = 0; k < n; k++) {
		if (markdown)
			fprintf(out, "| `%s` | %s |\n", cols[k].name, cols[k].help);
		else
			fprintf(out, "  %-18s %s\n", cols[k].name, cols[k].help);
	}
}

void mmp_companions_print_columns(FILE *out, int markdown)
{
	print_table(out, "NAME.attribution.csv", attribution_columns, NATTR, markdown);
	print_table(out, "NAME.answers.csv", answer_columns, NANSWER, markdown);
	mmp_profile_print_columns(out, markdown);
}
