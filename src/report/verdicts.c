/* Why each job point takes its time, for a person: per job point a short
 * aligned table of its causes, largest first (cause, share with its
 * interval, the evidence in a few words), the causes that cannot be told
 * from no cost on one line, and the fix on its own line when the largest
 * cause is decided.  --brief: one line per job point; --explain: every
 * step of the ladder and every figure for the points asked for.  Every
 * word the table uses is defined in the block's heading; the CSV and the
 * JSON keep every figure.  The answers a `fixes` job asks come last. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analysis/evidence.h"
#include "report/grid.h"
#include "mmprof/probe.h"
#include "report/report.h"
#include "util/units.h"

#define LINE 4096
/* A state or path shorter than this is named beside its cause in the
 * table ("true sharing (refcount, atomic tally)"); a longer one is a
 * description, for --explain. */
#define SHORT_DETAIL 28

/* A grid cell from a longer buffer (cells are MMP_GRID_CELL bytes): what
 * does not fit is cut after a whole word, and "..." says so -- the full
 * text is the CSV's and --explain's. */
static void put(char *cell, const char *s)
{
	size_t n = strlen(s);
	if (n < MMP_GRID_CELL) {
		memcpy(cell, s, n + 1);
		return;
	}
	n = MMP_GRID_CELL - 4;
	while (n > 0 && s[n] != ' ')
		n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == ';' || s[n - 1] == ','))
		n--;
	if (!n)
		n = MMP_GRID_CELL - 4;
	memcpy(cell, s, n);
	memcpy(cell + n, "...", 4);
}

/* The limit remainder: what the last step (the ceiling's scan) still takes. */
static int is_limit(const struct mmp_cause *c)
{
	return !c->control && c->ceiling;
}

/* A cause that cannot be told from no cost: its control's interval holds
 * 0.  The remainder is what is left, not a control's measurement. */
static int not_measurable(const struct mmp_cause *c)
{
	return c->control && !c->significant;
}

static void cause_name(const struct mmp_cause *c, int full, char *buf, size_t len)
{
	if (is_limit(c)) {
		snprintf(buf, len, "limit (the memory system)");
		return;
	}
	int detail = c->detail[0] && (full || strlen(c->detail) < SHORT_DETAIL);
	snprintf(buf, len, "%s%s%s%s", c->name, detail ? " (" : "", detail ? c->detail : "",
		 detail ? ")" : "");
}

/* "86%", or "0.4%" where whole percents would read as nothing. */
static void percent(double x, char *buf, size_t len)
{
	x *= 100;
	if (fabs(x) < 0.05)
		snprintf(buf, len, "0");
	else if (fabs(x) < 1)
		snprintf(buf, len, "%.1f", x);
	else
		snprintf(buf, len, "%.0f", x);
}

/* A share as what it means: "86% [83, 88]"; a cost below zero is its
 * control making the job slower, "made it 14% [8, 20] slower"; an interval
 * past the whole time reads "11% to all of it". */
static const char *share_text(const struct mmp_cause *c, char *buf, size_t len)
{
	char e[16], lo[16], hi[16];
	percent(c->share, e, sizeof(e));
	if (!c->cost.valid) {
		snprintf(buf, len, "%s%%", e);
		return buf;
	}
	if (c->significant && c->share_high < 0) {
		/* Not this cause's cost: taking it away made the job slower
		 * ("cross-core sharing made it 20% slower" read as blaming
		 * sharing when one PU slowed the program down). */
		percent(-c->share, e, sizeof(e));
		percent(-c->share_high, lo, sizeof(lo));
		percent(-c->share_low, hi, sizeof(hi));
		snprintf(buf, len, "none: with %s it was %s%% [%s, %s] slower",
			 c->control && !c->interacting ? c->control->name : "its controls", e, lo,
			 hi);
		return buf;
	}
	percent(c->share_low, lo, sizeof(lo));
	percent(c->share_high, hi, sizeof(hi));
	if (not_measurable(c)) /* --explain's figures: as measured */
		snprintf(buf, len, "%s%% [%s, %s]", e, lo, hi);
	else if (c->share > 1 && c->share_low > 1)
		snprintf(buf, len, "more than all of it, %s%% [%s, %s]: another control made it "
			 "slower", e, lo, hi);
	else if (c->share > 1)
		snprintf(buf, len, "all of it, %s%% [%s, %s]", e, lo, hi);
	else if (c->share_high > 1)
		snprintf(buf, len, "%s%% (%s%% to all of it)", e, c->share_low < 0 ? "0" : lo);
	else
		snprintf(buf, len, "%s%% [%s, %s]", e, lo, hi);
	return buf;
}

static const char *number(double x, char *buf, size_t len)
{
	if (fabs(x) >= 1000 || x == 0 || fabs(x) >= 10)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.3g", x);
	return buf;
}

/* The evidence in a few words: the counter without -> with the control. */
static const char *evidence_text(const struct mmp_cause *c, char *buf, size_t len)
{
	const struct mmp_evidence *e = &c->evidence;
	char b[16], a[16];
	buf[0] = '\0';
	if (e->metric && e->counted)
		snprintf(buf, len, "%s %s -> %s", e->metric, number(e->before, b, sizeof(b)),
			 number(e->after, a, sizeof(a)));
	else if (e->metric)
		snprintf(buf, len, "not counted here");
	if (c->kernel_part > 0) /* huge, as page faults: from the profiles */
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%.0f%% of it in the kernel",
			 buf[0] ? "; " : "", 100 * c->kernel_part);
	if (c->per_page.valid) { /* touch: a page's first touch */
		char est[32], lo[32], hi[32];
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s [%s, %s] a page%s",
			 buf[0] ? "; " : "", mmp_format_ns(c->per_page.estimate, est, sizeof(est)),
			 mmp_format_ns(c->per_page.low, lo, sizeof(lo)),
			 mmp_format_ns(c->per_page.high, hi, sizeof(hi)),
			 c->below_kernel ? ", no fault counted: below the kernel" : "");
	}
	if (c->cpu_ratio.valid) /* onepu: the threads' CPU time on all PUs over one */
		snprintf(buf + strlen(buf), len - strlen(buf), "%sCPU time on %u PUs %.2fx on one",
			 buf[0] ? "; " : "", c->pus, c->cpu_ratio.estimate);
	if (c->not_shown[0])
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "; " : "",
			 c->cannot_tell ? "cannot tell" : "not shown to be this cause");
	if (c->interacting)
		snprintf(buf + strlen(buf), len - strlen(buf), "%smeasured together",
			 buf[0] ? "; " : "");
	if (c->understated)
		snprintf(buf + strlen(buf), len - strlen(buf), "%sat least this (disturbed)",
			 buf[0] ? "; " : "");
	return buf;
}

/* Causes by share, largest first. */
static size_t by_share(const struct mmp_attribution *a, const struct mmp_cause **order)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n; i++)
		order[n++] = &a->cause[i];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && order[j]->share > order[j - 1]->share; j--) {
			const struct mmp_cause *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

static const char *unit_words(const char *unit)
{
	return strcmp(unit, "B") == 0 ? "byte" : unit;
}

/* "5.479 ns per byte"; a time per run or per op of a microsecond or more
 * in the unit a person reads it in ("37.46 ms per run"). */
static const char *per_unit(double ns, const char *unit, char *buf, size_t len)
{
	static const struct { double ns; const char *name; } scale[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++)
		if (fabs(ns) >= scale[i].ns) {
			snprintf(buf, len, "%.4g %s per %s", ns / scale[i].ns, scale[i].name,
				 unit_words(unit));
			return buf;
		}
	snprintf(buf, len, "%.3f ns per %s", ns, unit_words(unit));
	return buf;
}

/* What to do, or why the largest cause is not decided; "" for none. */
static const char *conclusion(const struct mmp_verdict_in *v, char *buf, size_t len)
{
	const struct mmp_attribution *a = v->a;
	const struct mmp_cause *top = a->top;
	buf[0] = '\0';
	if (v->limit_job)
		return buf; /* the ceiling itself: nothing to fix */
	if (top && a->top_decided && top->control && top->control->fix)
		snprintf(buf, len, "fix: %s", top->control->fix(top->detail));
	else if (!a->top_decided)
		snprintf(buf, len, "largest cause: inconclusive (%s%s%s)", a->doubt,
			 a->undecided_disturbed ? ": " : "",
			 a->undecided_disturbed ? mmp_disturbed_advice() : "");
	return buf;
}

/* The shares shown add to more than the whole when a step made the job
 * slower (its share is below zero, and the others make it up): said,
 * with those steps, so that 88% + 44% is not read as an error. */
static void past_whole(FILE *out, const struct mmp_verdict_in *v,
		       const struct mmp_cause *const *order, size_t n)
{
	char line[LINE], pc[16];
	double sum = 0;
	size_t used = 0, neg = 0;
	for (size_t i = 0; i < n; i++)
		if ((!not_measurable(order[i]) || v->full) && order[i]->share > 0)
			sum += order[i]->share;
	if (sum < 1.005)
		return;
	for (size_t i = 0; i < n && used < sizeof(line); i++) {
		const struct mmp_cause *c = order[i];
		if (!c->control || c->share >= 0)
			continue;
		percent(c->share, pc, sizeof(pc));
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s (%s%%)",
					 neg++ ? ", " : "", c->interacting ? c->name : c->control->name,
					 pc);
	}
	percent(sum, pc, sizeof(pc));
	if (neg)
		mmp_fprintf_wrapped(out, "  the shares add to %s%%: the step%s of %s came out "
					 "below zero; all steps add to 100%%\n",
				    pc, neg > 1 ? "s" : "", line);
}

void mmp_report_cause_table(FILE *out, const struct mmp_verdict_in *v)
{
	const struct mmp_attribution *a = v->a;
	const struct mmp_cause *order[MMP_MAX_CAUSES];
	struct mmp_grid t = { 0 };
	char line[LINE], name[320];
	size_t n = by_share(a, order), used = 0, rows = 0;
	int any_evidence = 0;

	fprintf(out, "\n%s: %s\n", v->label, per_unit(a->total, v->unit, name, sizeof(name)));
	for (size_t i = 0; i < n; i++)
		if (!not_measurable(order[i]) || v->full) {
			any_evidence |= order[i]->evidence.metric || order[i]->interacting ||
					order[i]->understated || order[i]->cpu_ratio.valid ||
					order[i]->not_shown[0];
			rows++;
		}
	mmp_grid_column(&t, "  cause", 0);
	mmp_grid_column(&t, "share", 0);
	if (any_evidence)
		mmp_grid_column(&t, "evidence", 0);
	for (size_t i = 0; rows && i < n; i++) {
		const struct mmp_cause *c = order[i];
		if (not_measurable(c) && !v->full)
			continue;
		char(*row)[MMP_GRID_CELL] = mmp_grid_row(&t);
		if (!row)
			break;
		char cell[LINE];
		cause_name(c, 0, name, sizeof(name));
		snprintf(cell, sizeof(cell), "  %s", name);
		put(row[0], cell);
		share_text(c, cell, sizeof(cell));
		if (not_measurable(c)) /* --explain: every figure, said for what it is */
			snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell),
				 ", not measurable");
		put(row[1], cell);
		if (any_evidence)
			put(row[2], evidence_text(c, cell, sizeof(cell)));
	}
	if (rows) /* every cause unmeasurable: the line below says it all */
		mmp_grid_print(&t, out);
	mmp_grid_free(&t);
	past_whole(out, v, order, n);
	for (size_t i = 0; !v->full && i < n; i++)
		if (not_measurable(order[i]) && used < sizeof(line)) {
			cause_name(order[i], 0, name, sizeof(name));
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
						 used ? ", " : "", name);
		}
	if (used)
		mmp_fprintf_wrapped(out, "  not measurable here: %s\n", line);
	/* A cause the rounds could not show at all is said whatever its
	 * figure: its share is no measure of it. */
	for (size_t i = 0; i < n; i++)
		if (order[i]->not_shown[0] &&
		    (v->full || !not_measurable(order[i]) || order[i]->cannot_tell)) {
			cause_name(order[i], 0, name, sizeof(name));
			mmp_fprintf_wrapped(out, "  %s%s: %s\n", name,
					    order[i]->cannot_tell ? "" : " is not shown to be this cause",
					    order[i]->not_shown);
		}
	for (size_t u = 0; u < a->nunused; u++)
		mmp_fprintf_wrapped(out, "  not used: %s (%s) %s: %s\n", a->unused[u].control->name,
				    a->unused[u].control->cause, mmp_unused_verb(&a->unused[u]),
				    a->unused[u].why);
	for (size_t u = 0; u < a->nreached; u++)
		mmp_fprintf_wrapped(out, "  %s reached: %s\n", a->reached[u].control->name,
				    a->reached[u].why);
	/* The programs' profiles: where the time the top cause's control took
	 * away was (evidence.h). */
	if (a->top && mmp_evidence_cause(a->top, line, sizeof(line)))
		mmp_fprintf_wrapped(out, "  where: %s\n", line);
	if (*conclusion(v, line, sizeof(line)))
		mmp_fprintf_wrapped(out, "  %s\n", line);
}

void mmp_report_verdict_line(FILE *out, const struct mmp_verdict_in *v)
{
	const struct mmp_attribution *a = v->a;
	const struct mmp_cause *top = a->top;
	char name[320], share[256], what[LINE], line[2 * LINE];
	size_t used = (size_t)snprintf(line, sizeof(line), "%s: %s", v->label,
				       per_unit(a->total, v->unit, name, sizeof(name)));
	if (top && a->top_decided && used < sizeof(line)) {
		cause_name(top, 0, name, sizeof(name));
		used += (size_t)snprintf(line + used, sizeof(line) - used, ", mostly %s %s", name,
					 share_text(top, share, sizeof(share)));
	}
	if (*conclusion(v, what, sizeof(what)) && used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, "; %s", what);
	mmp_fprintf_wrapped(out, "%s\n", line);
}

static void verdict_in(const struct mmp_results *res, const struct mmp_attribution *a,
		       int full, char *label, size_t len, struct mmp_verdict_in *v)
{
	*v = (struct mmp_verdict_in){
		.label = mmp_result_label(res, a->job, label, len),
		.unit = a->job->ops || !a->job->bytes ? mmp_result_unit(a->job) : "B",
		.a = a,
		.limit_job = a->job->run->p.probe->role == MMP_PROBE_CEILING,
		.full = full,
	};
}

/* The disturbed rounds of the job and its steps, when there were any. */
static void print_disturbed(FILE *out, const struct mmp_attribution *a)
{
	const struct mmp_run_result *job = a->job;
	unsigned reps = 0;
	int understated = 0;
	const char *why = NULL;
	for (size_t i = 0; i < a->n; i++)
		understated |= a->cause[i].understated;
	for (size_t k = 0; k <= job->planned->nrungs; k++) {
		reps += job[k].ndisturbed;
		if (!why && job[k].ndisturbed)
			why = job[k].disturbed_why;
	}
	if (reps)
		mmp_fprintf_wrapped(out, "  disturbed: %s (%u repetition%s of the job and its steps)%s\n",
			why, reps, reps == 1 ? "" : "s",
			!a->disturbed ? "; the shares leave those rounds out"
			: understated ? "; too few clean rounds, so these shares include them and "
					"sharing is understated"
				      : "; too few clean rounds, so these shares include them");
}

/* controls = auto stopped the rounds once decided: how many of those
 * asked for ran, and why no more. */
static void print_stopped(FILE *out, const struct mmp_attribution *a)
{
	const struct mmp_run_result *job = a->job;
	int all_skipped = 1;
	if (!job->stopped_of)
		return;
	for (size_t k = 1; k <= job->planned->nrungs; k++)
		all_skipped &= job[k].skipped;
	mmp_fprintf_wrapped(out, "  stopped after %zu of %u rounds: %s (controls = auto)\n", job->n,
			    job->stopped_of,
			    all_skipped ? "every control was skipped, no cause is left to decide"
					: "every cause decided");
}

/* --explain: the steps (the job, then one control more at each), their
 * mean times, and each cause's evidence with the events that would tell
 * where none was counted. */
static void print_steps(FILE *out, const struct mmp_results *res, const struct mmp_attribution *a)
{
	const struct mmp_run_result *job = a->job;
	struct mmp_grid t = { 0 };
	char name[320];
	(void)res;
	fprintf(out, "  steps: the job, then one control more at each (mean ns per %s over\n"
		     "  the %zu round%s measured side by side; change: from the step above):\n",
		mmp_result_unit(job), a->rounds, a->rounds == 1 ? "" : "s");
	mmp_grid_column(&t, "    step", 0);
	mmp_grid_column(&t, "mean", 1);
	mmp_grid_column(&t, "change", 1);
	mmp_grid_column(&t, "takes away", 0);
	for (size_t k = 0; k <= job->planned->nrungs; k++) {
		char(*row)[MMP_GRID_CELL] = mmp_grid_row(&t);
		if (!row)
			break;
		const struct mmp_control_info *c =
			k ? mmp_control_by_bit(job[k].planned->added) : NULL;
		snprintf(row[0], MMP_GRID_CELL, "    %s%s", k ? "+" : "the job",
			 k ? c->name : "");
		snprintf(row[1], MMP_GRID_CELL, "%.3f", a->rung_mean[k]);
		if (job[k].skipped) { /* held to the step above, with no round of its own */
			snprintf(row[2], MMP_GRID_CELL, "skipped");
			continue;
		}
		/* A step that made the job slower is a finding: said so. */
		double before = k ? a->rung_mean[k - 1] : 0;
		double change = before > 0 ? a->rung_mean[k] / before - 1 : 0;
		if (k && before > 0)
			snprintf(row[2], MMP_GRID_CELL, "%+.0f%%%s", change * 100,
				 change > 0 ? " slower" : "");
		/* The cause as the table names it (huge's time in the kernel
		 * is page faults'), else the control's. */
		const char *cause = k ? c->cause : "";
		for (size_t i = 0; k && i < a->n; i++)
			if (a->cause[i].control && a->cause[i].first == k && a->cause[i].last == k)
				cause = a->cause[i].name;
		snprintf(row[3], MMP_GRID_CELL, "%s", cause);
	}
	mmp_grid_print(&t, out);
	mmp_grid_free(&t);
	for (size_t i = 0; i < a->n; i++) {
		const struct mmp_cause *c = &a->cause[i];
		if (c->cpu_ratio.valid) {
			cause_name(c, 1, name, sizeof(name));
			fprintf(out, "  %s: the threads' CPU time on %u PUs is %.2fx [%.2f, %.2f] "
				     "their time on one\n",
				name, c->pus, c->cpu_ratio.estimate, c->cpu_ratio.low,
				c->cpu_ratio.high);
		}
		if (!c->evidence.metric || c->evidence.counted)
			continue;
		cause_name(c, 1, name, sizeof(name));
		fprintf(out, "  %s: no counter here; counting %s would tell\n", name,
			c->evidence.missing);
	}
}

static void heading(FILE *out, const struct mmp_analysis *an, int full)
{
	int limit = 0, unmeasurable = 0, together = 0, disturbed = 0;
	for (size_t i = 0; i < an->res->plan->nruns; i++) {
		const struct mmp_attribution *a = &an->attr[i];
		for (size_t c = 0; a->job && c < a->n; c++) {
			limit |= is_limit(&a->cause[c]);
			unmeasurable |= not_measurable(&a->cause[c]);
			together |= a->cause[c].interacting;
			disturbed |= a->cause[c].understated;
		}
	}
	fprintf(out, "\nwhy: each job point's time split into causes, largest first.  A control "
		     "is a\nvariant of the job without one cause, run in the same rounds; a "
		     "cause's share\nis the time its control took away, as a share of the "
		     "job's, with a 95%% interval.\n");
	fprintf(out, "  evidence: a counter without -> with the control\n");
	if (unmeasurable)
		fprintf(out, "  not measurable here: the interval holds 0, so the cause cannot be "
			     "told from\n    no cost\n");
	if (limit)
		fprintf(out, "  limit (the memory system): what is left once every control is "
			     "applied, the\n    vectorised scan of the same bytes\n");
	if (together)
		fprintf(out, "  measured together: one control made the job slower without the "
			     "other, so their\n    causes are one share\n");
	if (disturbed)
		fprintf(out, "  at least this (disturbed): measured on rounds whose threads did "
			     "not run\n    together, which hides sharing\n");
	if (!full)
		fprintf(out, "  (--explain JOB shows each control's step and every figure)\n");
}

/* "JOB" or "JOB key=value ...": the job's name, then words its label
 * must hold. */
static int matches(const char *label, const char *spec)
{
	char words[512], head[160];
	snprintf(words, sizeof(words), "%s", spec);
	char *save = NULL, *w = strtok_r(words, " ", &save);
	if (!w)
		return 0;
	snprintf(head, sizeof(head), "[%s] ", w);
	if (strncmp(label, head, strlen(head)) != 0)
		return 0;
	while ((w = strtok_r(NULL, " ", &save))) {
		const char *p = strstr(label, w);
		size_t n = strlen(w);
		if (!p || (p[n] && p[n] != ' ') || (p > label && p[-1] != ' '))
			return 0;
	}
	return 1;
}

/* The blocks that print each job point split into causes. */
enum block {
	BLOCK_WHY,     /* its causes table and disturbance */
	BLOCK_BRIEF,   /* --brief: one line */
	BLOCK_EXPLAIN, /* --explain: every figure and step */
};

/* Each job point split into causes (for --explain, those spec names),
 * under the block's heading once.  Returns how many were printed. */
static size_t each_point(FILE *out, const struct mmp_analysis *an, enum block b,
			 const char *spec)
{
	const struct mmp_results *res = an->res;
	size_t found = 0;
	char label[320];
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_attribution *a = &an->attr[i];
		struct mmp_verdict_in v;
		if (!a->job)
			continue;
		verdict_in(res, a, b == BLOCK_EXPLAIN, label, sizeof(label), &v);
		if (spec && !matches(label, spec))
			continue;
		if (!found++ && b == BLOCK_BRIEF)
			fprintf(out, "\nwhy (the largest cause of each job point's time, with its "
				     "share and 95%% interval;\n--explain JOB shows all of them):\n");
		else if (found == 1) /* the first, in the other blocks */
			heading(out, an, b == BLOCK_EXPLAIN);
		if (b == BLOCK_BRIEF) {
			mmp_report_verdict_line(out, &v);
			continue;
		}
		mmp_report_cause_table(out, &v);
		if (b == BLOCK_EXPLAIN)
			print_steps(out, res, a);
		print_disturbed(out, a);
		print_stopped(out, a);
		/* --explain: the point's profile and each rung's, the
		 * evidence of its where: line. */
		for (size_t k = 0; b == BLOCK_EXPLAIN && k <= a->job->planned->nrungs; k++)
			mmp_report_profile(out, res, &a->job[k]);
	}
	return found;
}

void mmp_report_verdicts(FILE *out, const struct mmp_analysis *an)
{
	each_point(out, an, BLOCK_WHY, NULL);
	mmp_report_answers(out, an);
}

static size_t answer_list(FILE *out, const struct mmp_answer *a, size_t n, int every_kind);

void mmp_report_brief(FILE *out, const struct mmp_analysis *an)
{
	/* --brief has no ratios block, so its answers are every kind: a
	 * config of ratio answers without controls printed nothing at all. */
	size_t said = each_point(out, an, BLOCK_BRIEF, NULL);
	said += answer_list(out, an->answers.a, an->answers.n, 1);
	if (!said)
		fprintf(out, "no answers and no job point split into causes (that needs controls): "
			     "without --brief the report has the table of times\n");
}

size_t mmp_report_explain(FILE *out, const struct mmp_analysis *an, const char *spec)
{
	return each_point(out, an, BLOCK_EXPLAIN, spec);
}

void mmp_report_answer(FILE *out, const struct mmp_answer *a)
{
	char iv[96], more[320];
	fprintf(out, "  [%s] %s  ", mmp_outcome_name(a->outcome), a->question);
	if (a->kind == MMP_Q_CAUSE) {
		if (a->ratio.n && a->ratio.estimate > 1)
			fprintf(out, "%s: all of its time, %.0f%% [%.0f, %.0f]", a->verdict,
				a->ratio.estimate * 100, a->ratio.low * 100, a->ratio.high * 100);
		else if (a->ratio.n)
			fprintf(out, "%s: %.0f%% [%.0f, %.0f] of its time", a->verdict,
				a->ratio.estimate * 100, a->ratio.low * 100, a->ratio.high * 100);
		else
			fprintf(out, "%s", a->verdict);
	} else {
		fprintf(out, "%s: %s", mmp_format_interval(&a->ratio, "x", iv, sizeof(iv)),
			a->verdict);
	}
	/* From disturbed rounds, the evidence says so (answers.c): the advice
	 * follows it. */
	if (a->outcome == MMP_OUTCOME_INCONCLUSIVE && a->kind != MMP_Q_CAUSE && !a->disturbed_why)
		fprintf(out, "; %s", mmp_format_more(a->more, more, sizeof(more)));
	if (a->evidence[0])
		fprintf(out, "; %s", a->evidence);
	if (a->disturbed_why)
		fprintf(out, ": %s", mmp_disturbed_advice());
	fprintf(out, " (%zu rounds%s)\n", a->rounds,
		a->used_disturbed ? ", disturbed ones included" : "");
}

/* Answers of kinds other blocks do not print (ratio, fastest and model
 * have their own), last: the first thing a reader looks for. */
static int answers_block_kind(const struct mmp_answer *a)
{
	return a->kind != MMP_Q_RATIO && a->kind != MMP_Q_FASTEST && a->kind != MMP_Q_MODEL;
}

/* The answers block; every_kind: also those other blocks print.  Returns
 * how many answers it printed. */
static size_t answer_list(FILE *out, const struct mmp_answer *a, size_t n, int every_kind)
{
	size_t said = 0;
	for (size_t i = 0; i < n; i++) {
		if (!every_kind && !answers_block_kind(&a[i]))
			continue;
		if (!said++)
			fprintf(out, "\nanswers (yes, no or inconclusive; ratios with 95%% intervals "
				     "from rounds measured side by side):\n");
		mmp_report_answer(out, &a[i]);
	}
	return said;
}

void mmp_report_answer_list(FILE *out, const struct mmp_answer *a, size_t n)
{
	answer_list(out, a, n, 0);
}

void mmp_report_answers(FILE *out, const struct mmp_analysis *an)
{
	mmp_report_answer_list(out, an->answers.a, an->answers.n);
}
