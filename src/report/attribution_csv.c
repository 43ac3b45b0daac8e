/* NAME.attribution.csv (see companions.h): a row per cause of each job
 * point split into causes, then a row per control whose rung changed
 * nothing (named, with why, without figures).  One table of columns
 * drives the header, both kinds of row and --list-columns. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/companions.h"
#include "report/csv.h"
#include "mmprof/probe.h"

/* One row: a cause (c) or an unused control (u) of attribution a. */
struct arow {
	const struct mmp_meta *meta;
	const struct mmp_results *res;
	const struct mmp_attribution *a;
	const struct mmp_cause *c;  /* NULL: an unused control's row */
	const struct mmp_unused *u; /* NULL: a cause's row */
};

#define ROW const struct arow *x = row
/* A cause's figure: an unused control's row leaves it empty. */
#define CAUSE                                                                  \
	ROW;                                                                   \
	const struct mmp_cause *c = x->c;                                      \
	if (!c)                                                                \
	return

static void a_schema(const void *row, char *v, size_t n) { (void)row; snprintf(v, n, "%d", MMP_CSV_SCHEMA_VERSION); }
static void a_run_id(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", x->meta->run_id); }
static void a_host(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", x->meta->host); }
static void a_run(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%zu", x->a->job->run->index + 1); }
static void a_job(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", x->a->job->run->job->name); }
static void a_probe(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", x->a->job->run->p.probe->name); }
static void a_kernel(const void *row, char *v, size_t n) { ROW; mmp_run_format(x->a->job->run, MMP_KEY_KERNEL, v, n); }
static void a_threads(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%u", x->a->job->run->p.threads); }

static void a_access(const void *row, char *v, size_t n)
{
	CAUSE;
	if (x->a->job->access)
		snprintf(v, n, "%" PRIu64, x->a->job->access);
}

static void a_buffer(const void *row, char *v, size_t n)
{
	CAUSE;
	const struct mmp_run *run = x->a->job->run;
	if (run->applies & MMP_KEY_BIT(MMP_KEY_BUFFER)) /* bytes, as NAME.csv has them */
		snprintf(v, n, "%" PRIu64, run->p.buffer);
}

static void a_refcount(const void *row, char *v, size_t n) { CAUSE; mmp_run_format(x->a->job->run, MMP_KEY_REFCOUNT, v, n); }
static void a_tally(const void *row, char *v, size_t n) { CAUSE; mmp_run_format(x->a->job->run, MMP_KEY_TALLY, v, n); }
static void a_placement(const void *row, char *v, size_t n) { CAUSE; mmp_run_format(x->a->job->run, MMP_KEY_PLACEMENT, v, n); }
static void a_cache(const void *row, char *v, size_t n) { CAUSE; mmp_run_format(x->a->job->run, MMP_KEY_CACHE, v, n); }
static void a_bytes(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%" PRIu64, x->a->job->bytes); }

static void a_cause(const void *row, char *v, size_t n)
{
	ROW;
	snprintf(v, n, "%s", x->c ? x->c->name : x->u->control->cause);
}

static void a_detail(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%s", c->detail); }

/* The controls of the rungs a cause spans, "tally+bulk" when merged. */
static void a_controls(const void *row, char *v, size_t n)
{
	ROW;
	if (x->u)
		snprintf(v, n, "%s", x->u->control->name);
	else
		mmp_cause_controls(x->res, x->a, x->c, v, n);
}

static const char *yes(int b) { return b ? "true" : "false"; }
static void a_interacting(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%s", yes(c->interacting)); }

/* Costs are per byte, or per operation for the probes that count them. */
static void a_ns_per_byte(const void *row, char *v, size_t n)
{
	CAUSE;
	if (!x->a->job->ops)
		snprintf(v, n, "%.6g", c->cost.estimate);
}

static void a_ns_per_op(const void *row, char *v, size_t n)
{
	CAUSE;
	if (x->a->job->ops)
		snprintf(v, n, "%.6g", c->cost.estimate);
}

static void a_ci_low(const void *row, char *v, size_t n) { CAUSE; if (c->cost.valid) snprintf(v, n, "%.6g", c->cost.low); }
static void a_ci_high(const void *row, char *v, size_t n) { CAUSE; if (c->cost.valid) snprintf(v, n, "%.6g", c->cost.high); }
static void a_share(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%.4f", c->share); }
static void a_share_low(const void *row, char *v, size_t n) { CAUSE; if (c->cost.valid) snprintf(v, n, "%.4f", c->share_low); }
static void a_share_high(const void *row, char *v, size_t n) { CAUSE; if (c->cost.valid) snprintf(v, n, "%.4f", c->share_high); }
static void a_significant(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", yes(x->c && x->c->significant)); }
static void a_understated(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%s", yes(c->understated)); }
static void a_rounds(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%zu", x->a->rounds); }
static void a_disturbed(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%s", yes(x->a->disturbed)); }
static void a_order(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", x->a->order); }
static void a_evidence(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%s", c->evidence.metric ? c->evidence.metric : ""); }
static void a_ev_before(const void *row, char *v, size_t n) { CAUSE; if (c->evidence.counted) snprintf(v, n, "%.6g", c->evidence.before); }
static void a_ev_after(const void *row, char *v, size_t n) { CAUSE; if (c->evidence.counted) snprintf(v, n, "%.6g", c->evidence.after); }
static void a_ev_missing(const void *row, char *v, size_t n) { CAUSE; snprintf(v, n, "%s", c->evidence.counted ? "" : c->evidence.missing); }
static void a_page_ns(const void *row, char *v, size_t n) { CAUSE; if (c->per_page.valid) snprintf(v, n, "%.6g", c->per_page.estimate); }
static void a_page_low(const void *row, char *v, size_t n) { CAUSE; if (c->per_page.valid) snprintf(v, n, "%.6g", c->per_page.low); }
static void a_page_high(const void *row, char *v, size_t n) { CAUSE; if (c->per_page.valid) snprintf(v, n, "%.6g", c->per_page.high); }
static void a_below_kernel(const void *row, char *v, size_t n) { CAUSE; if (c->per_page.valid) snprintf(v, n, "%s", yes(c->below_kernel)); }
static void a_unit(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", mmp_result_unit(x->a->job)); }
static void a_used(const void *row, char *v, size_t n) { ROW; snprintf(v, n, "%s", yes(x->c != NULL)); }

static void a_not_shown(const void *row, char *v, size_t n)
{
	ROW;
	if (x->c)
		snprintf(v, n, "%s", x->c->not_shown);
	else
		snprintf(v, n, "%s: %s", mmp_unused_verb(x->u), x->u->why);
}

static void a_cpu_ratio(const void *row, char *v, size_t n) { CAUSE; if (c->cpu_ratio.valid) snprintf(v, n, "%.4f", c->cpu_ratio.estimate); }

static const struct mmp_csv_column columns[] = {
	{ "schema_version", a_schema, "version of this column layout" },
	{ "run_id", a_run_id, "the mmprof invocation (as in NAME.csv)" },
	{ "run", a_run, "the job point's run number (NAME.csv's run)" },
	{ "job", a_job, "the config section" },
	{ "probe", a_probe, "access path" },
	{ "kernel", a_kernel, "zeros or histogram" },
	{ "threads", a_threads, "threads of the job point" },
	{ "access", a_access, "bytes per call; empty for whole-slice scans" },
	{ "buffer", a_buffer, "read()/stdio buffer bytes; empty: the probe has none" },
	{ "refcount", a_refcount, "accessor probes: shared, once or private" },
	{ "tally", a_tally, "atomic, packed, padded or local; empty: the probe has none" },
	{ "placement", a_placement, "placement as written" },
	{ "cache", a_cache, "page cache before each repetition" },
	{ "bytes", a_bytes, "bytes the job point reads" },
	{ "cause", a_cause, "the cause (a control's), limit (the memory system) or remaining" },
	{ "detail", a_detail, "which state or path the cause is about" },
	{ "controls", a_controls, "the controls whose rungs measure it (several: interacting)" },
	{ "interacting", a_interacting, "true when rungs were merged: a control made the job slower given the ones below it" },
	{ "ns_per_byte", a_ns_per_byte, "the cause's cost per byte of the job (mean over the rounds used); empty for the probes that count operations (see ns_per_op)" },
	{ "ci_low", a_ci_low, "95% interval of the cost (ns_per_byte or ns_per_op), low" },
	{ "ci_high", a_ci_high, "95% interval of the cost (ns_per_byte or ns_per_op), high" },
	{ "share", a_share, "the cost over the job's mean time per byte (or per operation); the shares sum to 1" },
	{ "share_low", a_share_low, "95% interval of share, low" },
	{ "share_high", a_share_high, "95% interval of share, high" },
	{ "significant", a_significant, "the interval excludes 0" },
	{ "understated", a_understated, "a sharing cause measured on disturbed rounds" },
	{ "rounds", a_rounds, "rounds the attribution uses (the job and every rung undisturbed, when 3 remain)" },
	{ "disturbed", a_disturbed, "disturbed rounds had to be used (fewer than 3 were clean): no cause is decided" },
	{ "order", a_order, "the ladder: the controls in the order they were applied" },
	{ "evidence", a_evidence, "the counter metric shown beside the cause" },
	{ "evidence_before", a_ev_before, "its value below the control; empty when not counted" },
	{ "evidence_after", a_ev_after, "its value with the control; empty when not counted" },
	{ "evidence_missing", a_ev_missing, "events that would have told, not counted here" },
	{ "unit", a_unit, "what the job's time is divided by: byte, or the operation of pingpong (transfer) and chase (load)" },
	{ "ns_per_op", a_ns_per_op, "pingpong, chase: the cause's cost per operation of the job; empty for byte probes" },
	{ "used", a_used, "false: the control changed nothing in the program (not_shown says why) and its rung was left out" },
	{ "not_shown", a_not_shown, "why a cost above zero is not shown to be this cause (something else explains it as well), or why an unused control changed nothing or was skipped (controls = auto); empty: nothing to say" },
	{ "cpu_ratio", a_cpu_ratio, "onepu: the program's CPU time on its PUs over its CPU time on one (geometric mean of rounds); empty for other causes" },
	{ "page_ns", a_page_ns, "touch: what the first touch cost a page of the mapping, ns (the job's time a byte, times a page, times its threads); empty for other causes" },
	{ "page_ns_low", a_page_low, "touch: its 95% interval's low end" },
	{ "page_ns_high", a_page_high, "touch: its 95% interval's high end" },
	{ "below_kernel", a_below_kernel, "touch: true when no page fault was counted with or without it: the cost was paid below the kernel (a hypervisor's page tables)" },
	{ "host", a_host, "the host that ran it (as NAME.csv's host): rows of several hosts stay apart" },
};
static const struct mmp_csv_table table = MMP_CSV_TABLE("NAME.attribution.csv", columns, 256);

int mmp_attribution_csv(struct mmp_outset *set, const struct mmp_analysis *an,
			const struct mmp_meta *meta, int *wrote, struct mmp_error *err)
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
		if (!f) {
			if (mmp_outfile_open(set, MMP_OUT_ATTRIBUTION, &out, err))
				return err->code;
			f = out.f;
			mmp_csv_header(f, &table);
		}
		struct arow x = { .meta = meta, .res = res, .a = a };
		for (size_t c = 0; c < a->n; c++) {
			x.c = &a->cause[c];
			mmp_csv_row_of(f, &table, &x);
		}
		x.c = NULL;
		for (size_t u = 0; u < a->nunused; u++) {
			x.u = &a->unused[u];
			mmp_csv_row_of(f, &table, &x);
		}
	}
	if (!f)
		return 0;
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}

void mmp_companions_print_columns(FILE *out, int markdown)
{
	mmp_csv_print_table(out, &table, markdown);
	mmp_answers_print_columns(out, markdown);
	mmp_profile_print_columns(out, markdown);
}
