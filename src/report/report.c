/* The terminal table and the baseline ratio blocks (see report.h). */
#include "report/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/probe.h"
#include "report/grid.h"
#include "util/units.h"

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

/* Rounds like the disturbed ones decide nothing however many there are:
 * quieter ones do, and repeat = auto keeps adding rounds until enough of
 * them are clean (session.c, want_more). */
const char *mmp_disturbed_advice(void)
{
	return "measure again with nothing else running on its PUs, or with repeat = auto, "
	       "which adds rounds until enough are clean";
}

const char *mmp_format_undecided(const struct mmp_answer *a, char *buf, size_t len)
{
	if (a->disturbed_why)
		snprintf(buf, len, "its rounds were disturbed (%s): %s", a->disturbed_why,
			 mmp_disturbed_advice());
	else
		mmp_format_more(a->more, buf, len);
	return buf;
}

static double ns_per_byte(const struct mmp_run_result *r)
{
	return r->st.median / (double)r->bytes;
}

static void fill_row(char (*c)[MMP_GRID_CELL], const struct mmp_results *res,
		     const struct mmp_run_result *r, int per_op)
{
	size_t col = mmp_grid_key_cells(c, res, r);
	if (!mmp_result_has_data(r)) {
		for (int i = 0; i < 9 + per_op; i++) /* rounds .. disturbed */
			snprintf(c[col++], MMP_GRID_CELL, "-");
		snprintf(c[col++], MMP_GRID_CELL, "%s", r->state == MMP_RUN_FAILED ? "FAILED" : "not run");
		return;
	}
	snprintf(c[col++], MMP_GRID_CELL, "%zu", r->n);
	snprintf(c[col++], MMP_GRID_CELL, "%.3f", r->st.median / 1e6);
	snprintf(c[col++], MMP_GRID_CELL, "%.3f", r->st.mean / 1e6);
	snprintf(c[col++], MMP_GRID_CELL, "%.3f", r->st.min / 1e6);
	snprintf(c[col++], MMP_GRID_CELL, "%.1f%%", r->st.cv * 100);
	if (per_op && r->ops)
		snprintf(c[col++], MMP_GRID_CELL, "%.2f ns/%s", r->st.median / (double)r->ops,
			 r->run->p.probe->unit);
	else if (per_op)
		snprintf(c[col++], MMP_GRID_CELL, "-");
	/* An operation's time is not a byte's. */
	if (r->ops || !r->bytes) {
		snprintf(c[col++], MMP_GRID_CELL, "-");
		snprintf(c[col++], MMP_GRID_CELL, "-");
	} else {
		snprintf(c[col++], MMP_GRID_CELL, "%.3f", ns_per_byte(r));
		snprintf(c[col++], MMP_GRID_CELL, "%.2f", (double)r->bytes / r->st.median);
	}
	if (r->limit && r->x_limit.n)
		mmp_format_interval(&r->x_limit, "x", c[col++], MMP_GRID_CELL);
	else
		snprintf(c[col++], MMP_GRID_CELL, "-");
	if (r->ndisturbed)
		snprintf(c[col++], MMP_GRID_CELL, "%u of %zu", r->ndisturbed, r->n);
	else
		snprintf(c[col++], MMP_GRID_CELL, "-");
	snprintf(c[col++], MMP_GRID_CELL, "%s%s",
		 !r->results_ok ? "WRONG" : r->unchecked ? "unchecked" : "ok",
		 r->state == MMP_RUN_INTERRUPTED ? " (partial)" : "");
}

void mmp_wrap_text(FILE *out, const char *s, size_t n, size_t lead, size_t cont, size_t keep)
{
	const size_t width = MMP_LINE_MAX;
	while (lead + n > width) {
		size_t cut = width - lead;
		while (cut > keep && s[cut] != ' ')
			cut--;
		if (cut <= keep) { /* one long word: keep it whole */
			cut = width - lead;
			while (cut < n && s[cut] != ' ')
				cut++;
			if (cut >= n)
				break;
		}
		fprintf(out, "%.*s\n%*s", (int)cut, s, (int)cont, "");
		while (cut < n && s[cut] == ' ')
			cut++;
		s += cut;
		n -= cut;
		lead = cont;
	}
	fprintf(out, "%.*s", (int)n, s);
}

/* One line (no newline in it) of n bytes, wrapped: its continuations 4
 * deeper than its own indent. */
static void wrap_line(FILE *out, const char *s, size_t n)
{
	size_t indent = strspn(s, " ");
	if (indent + 4 + 20 > MMP_LINE_MAX)
		indent = 0; /* no room to indent further: flush left */
	mmp_wrap_text(out, s, n, 0, indent + 4, indent);
}

void mmp_fprintf_wrapped(FILE *out, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (const char *s = buf; *s;) {
		size_t n = strcspn(s, "\n");
		wrap_line(out, s, n);
		if (s[n] == '\n')
			fputc('\n', out);
		s += n + (s[n] == '\n');
	}
}

void mmp_report_machine(FILE *out, const struct mmp_meta *meta)
{
	const struct mmp_calibration *c = &meta->calibration;
	char line[1024];
	fprintf(out, "platform: %s\n", meta->platform.name);
	mmp_fprintf_wrapped(out, "calibration: %s\n", mmp_calibration_line(c, line, sizeof(line)));
	if (c->done)
		mmp_fprintf_wrapped(out, "  %s\n", mmp_calibration_source(c, line, sizeof(line)));
	/* Said in words: a cost no counter of this machine shows. */
	if (c->done && c->below_kernel)
		fprintf(out, "  no fault counted for a first touch %.0fx a touched page's read: paid below "
			     "the kernel%s;\n  the touch control measures it in each job, limit reads "
			     "touched pages\n",
			c->touched_ns.median > 0 ? c->cost_ns.median / c->touched_ns.median : 0,
			meta->platform.virtual_machine == 1 ? " (the hypervisor's page tables)" : "");
}

void mmp_report_table(FILE *out, const struct mmp_results *res)
{
	const struct mmp_plan *plan = res->plan;
	struct mmp_grid t = { 0 };
	int over = 0, disturbed = 0, per_op = 0;

	for (size_t i = 0; i < plan->nruns; i++)
		per_op |= plan->runs[i].run.p.probe->unit != NULL;
	mmp_grid_key_columns(&t, res);
	mmp_grid_column(&t, "rounds", 1);
	mmp_grid_column(&t, "median ms", 1);
	mmp_grid_column(&t, "mean ms", 1);
	mmp_grid_column(&t, "min ms", 1);
	mmp_grid_column(&t, "cv", 1);
	if (per_op)
		mmp_grid_column(&t, "per op", 1);
	mmp_grid_column(&t, "ns/byte", 1);
	mmp_grid_column(&t, "GB/s", 1);
	size_t xlimit = t.ncols;
	mmp_grid_column(&t, "x limit [95% CI]", 1);
	mmp_grid_column(&t, "disturbed", 1);
	mmp_grid_column(&t, "result", 0);
	for (size_t i = 0; i < plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!mmp_planned_is_point(r->planned))
			continue;
		char(*row)[MMP_GRID_CELL] = mmp_grid_row(&t);
		if (!row)
			break;
		fill_row(row, res, r, per_op);
		over |= r->planned->pins.oversubscribed;
		disturbed |= r->ndisturbed > 0;
	}
	mmp_grid_print(&t, out);
	fprintf(out, "cv: the spread of the rounds' times (standard deviation / mean)\n");
	if (mmp_grid_shown(&t, xlimit))
		fprintf(out, "x limit: the time over the limit job's (a vectorised scan of the "
			     "same bytes: the memory system's speed) in the same rounds, with its "
			     "95%% interval (CI)\n");
	if (over)
		fprintf(out, "! oversubscribed: more threads than PUs in the placement; "
			     "threads take turns on a PU\n");
	if (disturbed)
		fprintf(out, "disturbed: rounds in which the threads did not run together "
			     "undisturbed (the CSV's disturbed_why says how); comparisons leave "
			     "them out when %d others remain\n",
			MMP_MIN_CLEAN_ROUNDS);
	mmp_grid_free(&t);
}

/* "14% (9 to 21%)": a share's mean and range over the rounds. */
static const char *share_range(const struct mmp_pu_share *s, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f%% (%.0f to %.0f%%)", s->sum / s->n * 100, s->lo * 100,
		 s->hi * 100);
	return buf;
}

static void report_pus_run(FILE *out, const struct mmp_results *res,
			   const struct mmp_run_result *r)
{
	char label[512], k[64], u[64];
	mmp_result_label(res, r, label, sizeof(label));
	if (!r->kernel.n) {
		mmp_fprintf_wrapped(out, "  %s: %s\n", label, r->seen_why);
		return;
	}
	if (r->seen_why[0]) {
		/* Refused (a user): interrupts alone were taken out. */
		mmp_fprintf_wrapped(out, "  %s: kernel work for it %s, interrupts only; other tasks %s: "
					 "unexplained; %s\n",
				    label, share_range(&r->kernel, k, sizeof(k)),
				    share_range(&r->unexplained, u, sizeof(u)), r->seen_why);
		return;
	}
	mmp_fprintf_wrapped(out, "  %s: kernel work for it %s%s%s; other tasks %s: unexplained%s%s%s\n",
			    label, share_range(&r->kernel, k, sizeof(k)),
			    r->kernel.tasks[0] ? ", threads: " : "", r->kernel.tasks,
			    share_range(&r->unexplained, u, sizeof(u)),
			    r->unexplained.tasks[0] ? " (" : "", r->unexplained.tasks,
			    r->unexplained.tasks[0] ? ")" : "");
}

void mmp_report_pus(FILE *out, const struct mmp_results *res)
{
	int head = 0;
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!r->program || !mmp_planned_is_point(r->planned) ||
		    (!r->kernel.n && !r->seen_why[0]))
			continue;
		if (!head++)
			mmp_fprintf_wrapped(out, "on its PUs besides the program (mean over the rounds, "
						 "lowest to highest; the kernel's threads and "
						 "interrupts do not disturb a round, other tasks above "
						 "%.0f%% do):\n",
					    MMP_DISTURB_MAX_OTHERS * 100);
		report_pus_run(out, res, r);
	}
}

static int same_pair(const struct mmp_answer *x, const struct mmp_answer *y)
{
	return x->kind == MMP_Q_RATIO && y->kind == MMP_Q_RATIO &&
	       x->a->run->job == y->a->run->job && x->b->run->job == y->b->run->job;
}

/* One job against one of its baseline jobs: the ratio answers, a block per
 * pair of jobs. */
void mmp_report_ratios(FILE *out, const struct mmp_analysis *an)
{
	const struct mmp_answers *ans = &an->answers;
	char iv[96], more[320], access[32];
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
				fprintf(out, " (%s)", mmp_format_undecided(a, more, sizeof(more)));
			fprintf(out, "  (%zu rounds%s)\n", a->rounds,
				a->used_disturbed ? ", disturbed ones included" : "");
		}
	}
}
