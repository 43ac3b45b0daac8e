/* NAME.profile.csv: one row per profiled run and profile row (function,
 * line, fault mapping), then the growth rows of each run from its control
 * (evidence.h).  One table of columns drives the header, the rows and
 * --list-columns. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/companions.h"
#include "mmprof/csv.h"
#include "mmprof/evidence.h"

#define CELL 512
#define GROWTH_ROWS 20

/* What one row is about. */
struct prow {
	const char *run_id;
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

typedef void (*cell_fn)(const struct prow *x, char *v);

static void c_schema(const struct prow *x, char *v) { (void)x; snprintf(v, CELL, "%d", MMP_CSV_SCHEMA_VERSION); }
static void c_run_id(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->run_id); }
static void c_run(const struct prow *x, char *v) { snprintf(v, CELL, "%zu", x->r->run->index + 1); }
static void c_job(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->r->run->job->name); }
static void c_threads(const struct prow *x, char *v) { snprintf(v, CELL, "%u", x->r->run->p.threads); }
static void c_control(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->r->run->control_name); }
static void c_kind(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->kind); }
static void c_name(const struct prow *x, char *v) { mmp_prof_row_name(x->row, v, CELL); }
static void c_module(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->row->module ? x->row->module : ""); }
static void c_function(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->row->function ? x->row->function : ""); }
static void c_file(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->row->file ? x->row->file : ""); }

static void c_line(const struct prow *x, char *v)
{
	if (x->row->line)
		snprintf(v, CELL, "%u", x->row->line);
}

static void c_offset(const struct prow *x, char *v)
{
	if (!x->row->function && x->row->kind != MMP_PROF_FAULTS)
		snprintf(v, CELL, "0x%" PRIx64, x->row->offset);
}

static void c_kernel(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->row->kernel ? "true" : "false"); }

static void c_why(const struct prow *x, char *v)
{
	if (x->row->kind != MMP_PROF_FAULTS && x->row->why != MMP_NAMED)
		snprintf(v, CELL, "%s", mmp_unnamed_why(x->row->why));
}

static void c_samples(const struct prow *x, char *v) { snprintf(v, CELL, "%.0f", x->row->total); }
static void c_rounds(const struct prow *x, char *v) { snprintf(v, CELL, "%zu", x->g ? x->g->share.n : mmp_profile_rounds(x->p)); }

static void share(const struct prow *x, char *v, int which)
{
	struct mmp_interval iv;
	if (x->g)
		iv = x->g->share;
	else
		mmp_profile_share(x->p, x->row, &iv);
	if (!iv.n || (which && !iv.valid))
		return;
	snprintf(v, CELL, "%.6g", which == 0 ? iv.estimate : which == 1 ? iv.low : iv.high);
}

static void c_share(const struct prow *x, char *v) { share(x, v, 0); }
static void c_share_low(const struct prow *x, char *v) { share(x, v, 1); }
static void c_share_high(const struct prow *x, char *v) { share(x, v, 2); }

static void c_from_run(const struct prow *x, char *v)
{
	if (x->from)
		snprintf(v, CELL, "%zu", x->from->run->index + 1);
}

static void c_from(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->from_name ? x->from_name : ""); }

static void growth(const struct prow *x, char *v, const struct mmp_interval *iv, int which)
{
	if (!iv || !iv->n || (which && !iv->valid))
		return;
	snprintf(v, CELL, "%.6g", which == 0 ? iv->estimate : which == 1 ? iv->low : iv->high);
	(void)x;
}

static void c_growth(const struct prow *x, char *v) { growth(x, v, x->g ? &x->g->growth : NULL, 0); }
static void c_growth_low(const struct prow *x, char *v) { growth(x, v, x->g ? &x->g->growth : NULL, 1); }
static void c_growth_high(const struct prow *x, char *v) { growth(x, v, x->g ? &x->g->growth : NULL, 2); }
static void c_total(const struct prow *x, char *v) { growth(x, v, x->total, 0); }
static void c_total_low(const struct prow *x, char *v) { growth(x, v, x->total, 1); }
static void c_total_high(const struct prow *x, char *v) { growth(x, v, x->total, 2); }

static void c_unit(const struct prow *x, char *v) { snprintf(v, CELL, "%s", x->r->bytes ? "byte" : "run"); }
static void c_sample_ns(const struct prow *x, char *v) { snprintf(v, CELL, "%" PRIu64, x->p->period_ns); }

static void c_fault_period(const struct prow *x, char *v)
{
	if (x->p->fault_period)
		snprintf(v, CELL, "%" PRIu64, x->p->fault_period);
}

static const struct {
	const char *name, *help;
	cell_fn cell;
} columns[] = {
	{ "schema_version", "version of this column layout", c_schema },
	{ "run_id", "the mmprof invocation (as in NAME.csv)", c_run_id },
	{ "run", "the profiled run (NAME.csv's run)", c_run },
	{ "job", "the config section", c_job },
	{ "threads", "threads of the run", c_threads },
	{ "control", "the run's control rung; empty for the job point itself", c_control },
	{ "kind", "function, line or faults (where the CPU time or the sampled page faults are); growth_function, growth_line: where the CPU time grew from the control", c_kind },
	{ "name", "the row as the terminal shows it: hot.c:43 in hot_loop(), libx.so+0x1a2b (stripped ...), a mapping", c_name },
	{ "module", "the file the code is in ([jit], [kernel], ...); faults: the mapping the addresses fell in", c_module },
	{ "function", "its function; empty when nothing names it (see why)", c_function },
	{ "file", "source file (line rows)", c_file },
	{ "line", "source line (line rows)", c_line },
	{ "offset", "not named: the first offset in module seen", c_offset },
	{ "kernel", "true: time in the kernel entered from this function or line (a fault, a system call)", c_kernel },
	{ "why", "why there is no function or line: stripped, no perf map, ...; empty when named", c_why },
	{ "samples", "samples in the row over every round (cpu: one per sample_ns of CPU; faults: one per fault_period faults)", c_samples },
	{ "rounds", "rounds the share comes from", c_rounds },
	{ "share", "of the run's cpu (or fault) samples, mean over the rounds; growth rows: of the total growth", c_share },
	{ "share_low", "95% interval of share, low", c_share_low },
	{ "share_high", "95% interval of share, high", c_share_high },
	{ "from_run", "growth rows: the control's run", c_from_run },
	{ "from", "growth rows: what the control is (threads=1, a rung's control)", c_from },
	{ "growth", "growth rows: the row's CPU ns per unit, run minus control", c_growth },
	{ "growth_low", "95% interval of growth, low", c_growth_low },
	{ "growth_high", "95% interval of growth, high", c_growth_high },
	{ "total_growth", "growth rows: the whole profile's CPU ns per unit, run minus control", c_total },
	{ "total_growth_low", "95% interval of total_growth, low", c_total_low },
	{ "total_growth_high", "95% interval of total_growth, high", c_total_high },
	{ "unit", "what growth is per: byte (of the data file), or run", c_unit },
	{ "sample_ns", "CPU time one cpu sample stands for", c_sample_ns },
	{ "fault_period", "one page fault in this many was sampled", c_fault_period },
};
#define NCOL (sizeof(columns) / sizeof(columns[0]))

static void put(FILE *f, const struct prow *x)
{
	char v[CELL];
	for (size_t k = 0; k < NCOL; k++) {
		v[0] = '\0';
		columns[k].cell(x, v);
		mmp_csv_field(f, v, k + 1 == NCOL);
	}
}

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
			put(f, x);
		}
	}
	x->g = NULL;
	x->from = NULL;
	x->from_name = NULL;
	x->total = NULL;
}

int mmp_profile_csv(struct mmp_outset *set, const struct mmp_results *res, const char *run_id,
		    int *wrote, struct mmp_error *err)
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
	for (size_t k = 0; k < NCOL; k++)
		mmp_csv_field(out.f, columns[k].name, k + 1 == NCOL);
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!r->profile || !mmp_profile_rounds(r->profile) || !mmp_result_has_data(r))
			continue;
		struct prow x = { .run_id = run_id, .r = r, .p = r->profile };
		for (size_t j = 0; j < r->profile->nrows; j++) {
			x.row = &r->profile->row[j];
			x.kind = mmp_prof_kind_names[x.row->kind];
			put(out.f, &x);
		}
		growth_rows(out.f, res, &x);
	}
	*wrote = 1;
	return mmp_outfile_commit(&out, err);
}

void mmp_profile_print_columns(FILE *out, int markdown)
{
	if (markdown)
		fprintf(out, "\n`NAME.profile.csv`:\n\n| column | meaning |\n|---|---|\n");
	else
		fprintf(out, "\nNAME.profile.csv:\n");
	for (size_t k = 0; k < NCOL; k++) {
		if (markdown)
			fprintf(out, "| `%s` | %s |\n", columns[k].name, columns[k].help);
		else
			fprintf(out, "  %-18s %s\n", columns[k].name, columns[k].help);
	}
}
