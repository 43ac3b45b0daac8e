/* NAME.answers.csv (see companions.h): a row per answer.  One table of
 * columns drives the header, the rows and --list-columns. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "report/companions.h"
#include "report/csv.h"

struct qrow {
	const struct mmp_meta *meta;
	const struct mmp_answer *ans;
};

#define ROW                                                                    \
	const struct qrow *x = row;                                            \
	const struct mmp_answer *q = x->ans

static void q_schema(const void *row, char *v, size_t n) { (void)row; snprintf(v, n, "%d", MMP_CSV_SCHEMA_VERSION); }
static void q_run_id(const void *row, char *v, size_t n) { const struct qrow *x = row; snprintf(v, n, "%s", x->meta->run_id); }
static void q_host(const void *row, char *v, size_t n) { const struct qrow *x = row; snprintf(v, n, "%s", x->meta->host); }
static void q_set(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%zu", q->set + 1); }
static void q_kind(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", mmp_question_name(q->kind)); }
static void q_question(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", q->question); }
static void q_job(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", q->a ? q->a->run->job->name : ""); }
static void q_other(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", q->b ? q->b->run->job->name : ""); }
static void q_run(const void *row, char *v, size_t n) { ROW; if (q->a) snprintf(v, n, "%zu", q->a->run->index + 1); }
static void q_other_run(const void *row, char *v, size_t n) { ROW; if (q->b) snprintf(v, n, "%zu", q->b->run->index + 1); }
static void q_threads(const void *row, char *v, size_t n) { ROW; if (q->a) snprintf(v, n, "%u", q->a->run->p.threads); }
static void q_access(const void *row, char *v, size_t n) { ROW; if (q->a && q->a->access) snprintf(v, n, "%" PRIu64, q->a->access); }
static void q_bytes(const void *row, char *v, size_t n) { ROW; if (q->a) snprintf(v, n, "%" PRIu64, q->a->bytes); }
static void q_ratio(const void *row, char *v, size_t n) { ROW; if (q->ratio.n) snprintf(v, n, "%.6g", q->ratio.estimate); }
static void q_ci_low(const void *row, char *v, size_t n) { ROW; if (q->ratio.n && q->ratio.valid) snprintf(v, n, "%.6g", q->ratio.low); }
static void q_ci_high(const void *row, char *v, size_t n) { ROW; if (q->ratio.n && q->ratio.valid) snprintf(v, n, "%.6g", q->ratio.high); }
/* A cause is not a ratio: no tolerance applies. */
static void q_tolerance(const void *row, char *v, size_t n) { ROW; if (q->kind != MMP_Q_CAUSE) snprintf(v, n, "%g", q->tolerance); }
static void q_outcome(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", mmp_outcome_name(q->outcome)); }
static void q_verdict(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", q->verdict); }
static void q_rounds(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%zu", q->rounds); }
static void q_disturbed(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%u", q->disturbed); }
static void q_used_disturbed(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", q->used_disturbed ? "true" : "false"); }

static void q_more(const void *row, char *v, size_t n)
{
	ROW;
	if (q->outcome == MMP_OUTCOME_INCONCLUSIVE && q->more != SIZE_MAX)
		snprintf(v, n, "%zu", q->more);
}

static void q_evidence(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", q->evidence); }

static const struct mmp_csv_column columns[] = {
	{ "schema_version", q_schema, "version of this column layout" },
	{ "run_id", q_run_id, "the mmprof invocation (as in NAME.csv)" },
	{ "set", q_set, "the comparison set the runs ran in" },
	{ "kind", q_kind, "ratio, gap, cause, fix, match, regression, fastest or model" },
	{ "question", q_question, "the question, in words" },
	{ "job", q_job, "the job asked about" },
	{ "other", q_other, "the job it is compared with (fastest: the runner-up's)" },
	{ "run", q_run, "the run asked about (NAME.csv's run)" },
	{ "other_run", q_other_run, "the run it is compared with" },
	{ "threads", q_threads, "threads" },
	{ "access", q_access, "bytes per call; empty for whole-slice scans" },
	{ "bytes", q_bytes, "bytes read" },
	{ "ratio", q_ratio, "job / other, geometric mean of paired rounds (cause: the top cause's share; model: the models' ratio over job / other)" },
	{ "ci_low", q_ci_low, "95% interval, low" },
	{ "ci_high", q_ci_high, "95% interval, high" },
	{ "tolerance", q_tolerance, "ratios within 1 +- this are the same" },
	{ "outcome", q_outcome, "yes, no or inconclusive" },
	{ "verdict", q_verdict, "what the outcome means: slower, the same, REGRESSED, tie: ..., a cause" },
	{ "rounds", q_rounds, "paired rounds the figure comes from" },
	{ "disturbed_reps", q_disturbed, "disturbed repetitions among the runs compared" },
	{ "used_disturbed", q_used_disturbed, "disturbed rounds had to be used (fewer than 3 were clean): the outcome is inconclusive" },
	{ "more_rounds", q_more, "inconclusive: about this many more rounds would decide; empty: none would" },
	{ "evidence", q_evidence, "what else bears on it" },
	{ "host", q_host, "the host that ran it (as NAME.csv's host): rows of several hosts stay apart" },
};
static const struct mmp_csv_table table = MMP_CSV_TABLE("NAME.answers.csv", columns, 256);

int mmp_answers_csv(struct mmp_outset *set, const struct mmp_analysis *an,
		    const struct mmp_meta *meta, int *wrote, struct mmp_error *err)
{
	struct mmp_outfile out;
	*wrote = 0;
	if (!an->answers.n || !mmp_outset_has_companions(set))
		return 0;
	if (mmp_outfile_open(set, MMP_OUT_ANSWERS, &out, err))
		return err->code;
	mmp_csv_header(out.f, &table);
	for (size_t i = 0; i < an->answers.n; i++)
		mmp_csv_row_of(out.f, &table, &(struct qrow){ meta, &an->answers.a[i] });
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}

void mmp_answers_print_columns(FILE *out, int markdown)
{
	mmp_csv_print_table(out, &table, markdown);
}
