/* Verdict lines (one per job point with controls) and the answers a
 * `fixes` job asks, printed after the table from the results computed
 * once. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "mmprof/probe.h"
#include "mmprof/evidence.h"
#include "mmprof/report.h"

#define LINE 4096

static void cause_label(const struct mmp_cause *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", c->name, c->detail[0] ? " (" : "", c->detail,
		 c->detail[0] ? ")" : "", c->interacting ? " [interacting]" : "");
}

static const char *share_text(const struct mmp_cause *c, char *buf, size_t len)
{
	if (c->cost.valid)
		snprintf(buf, len, "%.0f%% [%.0f, %.0f]", c->share * 100, c->share_low * 100,
			 c->share_high * 100);
	else
		snprintf(buf, len, "%.0f%%", c->share * 100);
	return buf;
}

static int is_limit_job(const struct mmp_attribution *a)
{
	return strcmp(a->job->run->p.probe->name, "limit") == 0;
}

static void print_verdict(FILE *out, const struct mmp_results *res, const struct mmp_attribution *a)
{
	const struct mmp_run_result *job = a->job;
	const struct mmp_cause *order[MMP_MAX_CAUSES];
	char label[320], share[64], line[LINE];
	size_t n = 0, used = 0;

	/* Causes by cost, largest first; the remainder last. */
	for (size_t i = 0; i + 1 < a->n; i++)
		order[n++] = &a->cause[i];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && order[j]->cost.estimate > order[j - 1]->cost.estimate; j--) {
			const struct mmp_cause *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	order[n++] = &a->cause[a->n - 1];

	mmp_result_label(res, job, label, sizeof(label));
	used += (size_t)snprintf(line + used, sizeof(line) - used, "%s: %.3f ns/%s =", label,
				 a->total, job->ops ? mmp_result_unit(job) : "B");
	for (size_t i = 0; i < n && used < sizeof(line); i++) {
		const struct mmp_cause *c = order[i];
		char name[320];
		cause_label(c, name, sizeof(name));
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s %s %s%s%s", i ? " ·" : "",
					 name, share_text(c, share, sizeof(share)),
					 c->control && !c->significant ? " n.s."
					 : c->not_shown[0]	       ? " not shown"
								       : "",
					 c->understated ? " (understated: disturbed)" : "");
	}
	const struct mmp_cause *top = a->top;
	if (used < sizeof(line)) {
		if (is_limit_job(a))
			; /* the ceiling itself: nothing to fix */
		else if (top && a->top_decided && top->control && top->control->fix)
			snprintf(line + used, sizeof(line) - used, "; fix: %s",
				 top->control->fix(top->detail));
		else if (!a->top_decided)
			snprintf(line + used, sizeof(line) - used, "; inconclusive: %s", a->doubt);
	}
	fprintf(out, "%s\n", line);

	used = (size_t)snprintf(line, sizeof(line), "job %.3f", a->total);
	for (size_t k = 1; k <= job->planned->nrungs && used < sizeof(line); k++) {
		const struct mmp_run_result *r = job + k;
		used += (size_t)snprintf(line + used, sizeof(line) - used, " | +%s %.3f",
					 mmp_control_by_bit(r->planned->added)->name,
					 a->rung_mean[k]);
	}
	fprintf(out, "    ladder (means over %zu round%s side by side, ns per %s of the job): %s\n",
		a->rounds, a->rounds == 1 ? "" : "s", mmp_result_unit(job), line);

	used = 0;
	for (size_t i = 0; i < a->n && used < sizeof(line); i++) {
		const struct mmp_cause *c = &a->cause[i];
		const struct mmp_evidence *e = &c->evidence;
		if (!e->metric)
			continue;
		if (e->counted)
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "%s%s %.3g -> %.3g (%s)", used ? "; " : "", e->metric,
						 e->before, e->after, c->name);
		else
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "%s%s: not counted (%s)", used ? "; " : "", c->name,
						 e->missing);
		if (c->cpu_ratio.valid && used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "; CPU time on %u PUs %.2fx [%.2f, %.2f] its time on one",
						 c->pus, c->cpu_ratio.estimate, c->cpu_ratio.low,
						 c->cpu_ratio.high);
	}
	if (used)
		fprintf(out, "    evidence: %s\n", line);
	/* The programs' profiles: where the time the top cause's control
	 * took away was (evidence.h). */
	if (top && mmp_evidence_cause(top, line, sizeof(line)))
		fprintf(out, "    where: %s\n", line);
	for (size_t i = 0; i < a->n; i++)
		if (a->cause[i].not_shown[0])
			fprintf(out, "    not shown: %s: %s\n", a->cause[i].name, a->cause[i].not_shown);
	for (size_t u = 0; u < a->nunused; u++)
		fprintf(out, "    not used: %s (%s) changed nothing: %s\n", a->unused[u].control->name,
			a->unused[u].control->cause, a->unused[u].why);
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
		fprintf(out, "    disturbed: %s (%u repetition%s of the job and its rungs)%s\n", why,
			reps, reps == 1 ? "" : "s",
			!a->disturbed ? "; the shares leave those rounds out"
			: understated ? "; too few clean rounds, so these shares include them and "
					"sharing is understated"
				      : "; too few clean rounds, so these shares include them");
}

static void print_answer(FILE *out, const struct mmp_answer *a)
{
	char iv[96], more[96];
	fprintf(out, "  [%s] %s  ", mmp_outcome_name(a->outcome), a->question);
	if (a->kind == MMP_Q_CAUSE) {
		if (a->ratio.n)
			fprintf(out, "%s: %.0f%% [%.0f, %.0f] of its time", a->verdict,
				a->ratio.estimate * 100, a->ratio.low * 100, a->ratio.high * 100);
		else
			fprintf(out, "%s", a->verdict);
	} else {
		fprintf(out, "%s: %s", mmp_format_interval(&a->ratio, "x", iv, sizeof(iv)),
			a->verdict);
	}
	if (a->outcome == MMP_OUTCOME_INCONCLUSIVE && a->kind != MMP_Q_CAUSE)
		fprintf(out, "; %s", mmp_format_more(a->more, more, sizeof(more)));
	if (a->evidence[0])
		fprintf(out, "; %s", a->evidence);
	fprintf(out, " (%zu rounds%s)\n", a->rounds,
		a->used_disturbed ? ", disturbed ones included" : "");
}

void mmp_report_verdicts(FILE *out, const struct mmp_results *res)
{
	int header = 0;
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_attribution *a = &res->attr[i];
		if (!a->job)
			continue;
		if (!header) {
			fprintf(out, "\nattribution (each control's drop in mean time, paired by round, "
				     "as a share of the job's with its 95%% interval; n.s. = the "
				     "interval holds 0; the ladder line gives the order the controls "
				     "were applied in):\n");
			header = 1;
		}
		print_verdict(out, res, a);
	}
	const struct mmp_answer *prev = NULL;
	for (size_t i = 0; i < res->answers.n; i++) {
		const struct mmp_answer *a = &res->answers.a[i];
		if (a->kind == MMP_Q_RATIO || a->kind == MMP_Q_FASTEST || a->kind == MMP_Q_MODEL)
			continue; /* their own blocks print them */
		if (!prev)
			fprintf(out, "\nanswers (yes, no or inconclusive; ratios with 95%% intervals "
				     "from rounds measured side by side):\n");
		prev = a;
		print_answer(out, a);
	}
}
