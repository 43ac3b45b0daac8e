/* NAME.profile.csv: one row per profiled run and profile row (function,
 * line, fault mapping), then the growth rows of each run from its control
 * (evidence.h).  One table of columns drives the header, the rows and
 * --list-columns. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/companions.h"
#include "report/csv.h"
#include "analysis/evidence.h"

#define CELL 512
#define GROWTH_ROWS 20

/* What one row is about. */
struct prow {
	const struct mmp_meta *meta;
	const struct mmp_run_result *r;
	const struct mmp_profile *p;
	const struct mmp_prof_row *row;
	const char *kind;
	/* growth rows */
	const struct mmp_run_result *from;
	const char *from_name;
	const struct mmp_growth *g;
	const struct mmp_interval *total;
};

static void c_schema(const void *row, char *v, size_t n) { (void)row; snprintf(v, n, "%d", MMP_CSV_SCHEMA_VERSION); }
static void c_run_id(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->meta->run_id); }
static void c_host(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->meta->host); }
static void c_run(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%zu", x->r->run->index + 1); }
static void c_job(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->r->run->job->name); }
static void c_threads(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%u", x->r->run->p.threads); }
static void c_control(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->r->run->control_name); }
static void c_kind(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->kind); }
static void c_name(const void *row, char *v, size_t n) { const struct prow *x = row; mmp_prof_row_name(x->row, v, n); }
static void c_module(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->row->module ? x->row->module : ""); }
static void c_function(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->row->function ? x->row->function : ""); }
static void c_file(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->row->file ? x->row->file : ""); }

static void c_line(const void *row, char *v, size_t n)
{
	const struct prow *x = row;
	if (x->row->line)
		snprintf(v, n, "%u", x->row->line);
}

static void c_offset(const void *row, char *v, size_t n)
{
	const struct prow *x = row;
	if (!x->row->function && x->row->kind != MMP_PROF_FAULTS)
		snprintf(v, n, "0x%" PRIx64, x->row->offset);
}

static void c_kernel(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->row->kernel ? "true" : "false"); }

static void c_why(const void *row, char *v, size_t n)
{
	const struct prow *x = row;
	if (x->row->kind != MMP_PROF_FAULTS && x->row->why != MMP_NAMED)
		snprintf(v, n, "%s", mmp_unnamed_why(x->row->why));
}

static void c_samples(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%.0f", x->row->total); }
static void c_rounds(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%zu", x->g ? x->g->share.n : mmp_profile_rounds(x->p)); }

static void share(const struct prow *x, char *v, size_t n, int which)
{
	struct mmp_interval iv;
	if (x->g)
		iv = x->g->share;
	else
		mmp_profile_share(x->p, x->row, &iv);
	if (!iv.n || (which && !iv.valid))
		return;
	snprintf(v, n, "%.6g", which == 0 ? iv.estimate : which == 1 ? iv.low : iv.high);
}

static void c_share(const void *row, char *v, size_t n) { const struct prow *x = row; share(x, v, n, 0); }
static void c_share_low(const void *row, char *v, size_t n) { const struct prow *x = row; share(x, v, n, 1); }
static void c_share_high(const void *row, char *v, size_t n) { const struct prow *x = row; share(x, v, n, 2); }

static void c_from_run(const void *row, char *v, size_t n)
{
	const struct prow *x = row;
	if (x->from)
		snprintf(v, n, "%zu", x->from->run->index + 1);
}

static void c_from(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->from_name ? x->from_name : ""); }

static void growth(char *v, size_t n, const struct mmp_interval *iv, int which)
{
	if (!iv || !iv->n || (which && !iv->valid))
		return;
	snprintf(v, n, "%.6g", which == 0 ? iv->estimate : which == 1 ? iv->low : iv->high);
}

static void c_growth(const void *row, char *v, size_t n) { const struct prow *x = row; growth(v, n, x->g ? &x->g->growth : NULL, 0); }
static void c_growth_low(const void *row, char *v, size_t n) { const struct prow *x = row; growth(v, n, x->g ? &x->g->growth : NULL, 1); }
static void c_growth_high(const void *row, char *v, size_t n) { const struct prow *x = row; growth(v, n, x->g ? &x->g->growth : NULL, 2); }
static void c_total(const void *row, char *v, size_t n) { const struct prow *x = row; growth(v, n, x->total, 0); }
static void c_total_low(const void *row, char *v, size_t n) { const struct prow *x = row; growth(v, n, x->total, 1); }
static void c_total_high(const void *row, char *v, size_t n) { const struct prow *x = row; growth(v, n, x->total, 2); }

static void c_unit(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%s", x->r->bytes ? "byte" : "run"); }
static void c_sample_ns(const void *row, char *v, size_t n) { const struct prow *x = row; snprintf(v, n, "%" PRIu64, x->p->period_ns); }

static void c_fault_period(const void *row, char *v, size_t n)
{
	const struct prow *x = row;
	if (x->p->fault_period)
		snprintf(v, n, "%" PRIu64, x->p->fault_period);
}

static const struct mmp_csv_column columns[] = {
	{ "schema_version", c_schema, "version of this column layout" },
	{ "run_id", c_run_id, "the mmprof invocation (as in NAME.csv)" },
	{ "run", c_run, "the profiled run (NAME.csv's run)" },
	{ "job", c_job, "the config section" },
	{ "threads", c_threads, "threads of the run" },
	{ "control", c_control, "the run's control rung; empty for the job point itself" },
	{ "kind", c_kind, "function, line or faults (where the CPU time or the sampled page faults are); inclusive: a function anywhere in the samples' call chains, once per sample (its time and its callees'); growth_function, growth_line: where the CPU time grew from the control" },
	{ "name", c_name, "the row as the terminal shows it: hot.c:43 in hot_loop(), libx.so+0x1a2b (stripped ...), a mapping" },
	{ "module", c_module, "the file the code is in ([jit], [kernel], ...); faults: the mapping the addresses fell in" },
	{ "function", c_function, "its function; empty when nothing names it (see why)" },
	{ "file", c_file, "source file (line rows)" },
	{ "line", c_line, "source line (line rows)" },
	{ "offset", c_offset, "not named: the first offset in module seen" },
	{ "kernel", c_kernel, "true: time in the kernel entered from this function or line (a fault, a system call)" },
	{ "why", c_why, "why there is no function or line: stripped, no perf map, ...; empty when named" },
	{ "samples", c_samples, "samples in the row over every round (cpu: one per sample_ns of CPU; faults: one per fault_period faults)" },
	{ "rounds", c_rounds, "rounds the share comes from" },
	{ "share", c_share, "of the run's cpu (or fault) samples, mean over the rounds; growth rows: of the growth of every row that grew (the total growth when none shrank)" },
	{ "share_low", c_share_low, "95% interval of share, low" },
	{ "share_high", c_share_high, "95% interval of share, high" },
	{ "from_run", c_from_run, "growth rows: the control's run" },
	{ "from", c_from, "growth rows: what the control is (threads=1, a rung's control)" },
	{ "growth", c_growth, "growth rows: the row's CPU ns per unit, run minus control" },
	{ "growth_low", c_growth_low, "95% interval of growth, low" },
	{ "growth_high", c_growth_high, "95% interval of growth, high" },
	{ "total_growth", c_total, "growth rows: the whole profile's CPU ns per unit, run minus control" },
	{ "total_growth_low", c_total_low, "95% interval of total_growth, low" },
	{ "total_growth_high", c_total_high, "95% interval of total_growth, high" },
	{ "unit", c_unit, "what growth is per: byte (of the data file), or run" },
	{ "sample_ns", c_sample_ns, "CPU time one cpu sample stands for" },
	{ "fault_period", c_fault_period, "one page fault in this many was sampled" },
	{ "host", c_host, "the host that ran it (as NAME.csv's host): rows of several hosts stay apart" },
};
static const struct mmp_csv_table table = MMP_CSV_TABLE("NAME.profile.csv", columns, CELL);

static void growth_rows(FILE *f, const struct mmp_results *res, struct prow *x)
{
	char from[96];
	struct mmp_growth g[GROWTH_ROWS];
	struct mmp_interval total;
	const struct mmp_run_result *c = mmp_evidence_control(res, x->r, from, sizeof(from));
	static const enum mmp_prof_kind kinds[] = { MMP_PROF_FUNCTION, MMP_PROF_LINE };
	static const char *const names[] = { "growth_function", "growth_line" };

	if (!c)
		return;
	for (size_t k = 0; k < 2; k++) {
		size_t n = mmp_evidence_growth(c, x->r, kinds[k], g, GROWTH_ROWS, &total);
		for (size_t i = 0; i < n; i++) {
			x->kind = names[k];
			x->row = g[i].row;
			x->g = &g[i];
			x->from = c;
			x->from_name = from;
			x->total = &total;
			mmp_csv_row_of(f, &table, x);
		}
	}
	x->g = NULL;
	x->from = NULL;
	x->from_name = NULL;
	x->total = NULL;
}

int mmp_profile_csv(struct mmp_outset *set, const struct mmp_results *res,
		    const struct mmp_meta *meta, int *wrote, struct mmp_error *err)
{
	struct mmp_outfile out;
	int any = 0;
	*wrote = 0;
	for (size_t i = 0; i < res->plan->nruns && !any; i++)
		any = res->run[i].profile && mmp_profile_rounds(res->run[i].profile);
	if (!any || !mmp_outset_has_companions(set))
		return 0;
	if (mmp_outfile_open(set, MMP_OUT_PROFILE, &out, err))
		return err->code;
	mmp_csv_header(out.f, &table);
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!r->profile || !mmp_profile_rounds(r->profile) || !mmp_result_has_data(r))
			continue;
		struct prow x = { .meta = meta, .r = r, .p = r->profile };
		for (size_t j = 0; j < r->profile->nrows; j++) {
			x.row = &r->profile->row[j];
			x.kind = mmp_prof_kind_names[x.row->kind];
			mmp_csv_row_of(out.f, &table, &x);
		}
		growth_rows(out.f, res, &x);
	}
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}

void mmp_profile_print_columns(FILE *out, int markdown)
{
	mmp_csv_print_table(out, &table, markdown);
}
