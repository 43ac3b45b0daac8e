/* Verdict lines (one per job run with controls) and the answers a `fixes`
 * job asks for, printed after the table. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "mmprof/attribution.h"
#include "mmprof/lists.h"
#include "mmprof/probe.h"

#define REGRESSION 0.05 /* a fix may be at most 5% slower on multi-byte reads */

static void cause_label(const struct mmp_cause *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", mmp_cause_name(c->kind), c->detail[0] ? " (" : "",
		 c->detail, c->detail[0] ? ")" : "");
}

static void print_verdict(FILE *out, const struct mmp_attribution *a)
{
	const struct mmp_run_result *job = a->job;
	const struct mmp_cause *order[8];
	char label[96], acc[32], line[2048];
	size_t n = 0, used = 0;

	/* Causes by cost, largest first; unexplained last. */
	for (size_t i = 0; i < a->n; i++)
		if (a->cause[i].kind != MMP_CAUSE_UNEXPLAINED)
			order[n++] = &a->cause[i];
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && order[j]->ns_per_byte > order[j - 1]->ns_per_byte; j--) {
			const struct mmp_cause *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	order[n++] = &a->cause[a->n - 1];

	used += (size_t)snprintf(line + used, sizeof(line) - used, "%s %s t=%u a=%s: %.3f ns/B =",
				 job->run->job->name, job->run->p.probe->name, job->run->p.threads,
				 mmp_result_access(job, acc, sizeof(acc)), a->total);
	for (size_t i = 0; i < n && used < sizeof(line); i++) {
		cause_label(order[i], label, sizeof(label));
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s %s %.0f%%%s",
					 i ? " ·" : "", label, order[i]->share * 100,
					 order[i]->significant ? "" : " (n.s.)");
	}
	const struct mmp_cause *top = mmp_attribution_top(a);
	if (used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, "; fix: %s",
			 top ? mmp_cause_fix(top) : "nothing stands above the noise");
	fprintf(out, "%s\n", line);

	/* Evidence, in ladder order. */
	used = 0;
	for (size_t i = 0; i + 1 < a->n && used < sizeof(line); i++) {
		const struct mmp_cause *c = &a->cause[i];
		const struct mmp_evidence *e = &c->evidence;
		if (!e->metric)
			continue;
		if (e->counted)
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "%s%s %.3g -> %.3g (%s)", used ? "; " : "", e->metric,
						 e->before, e->after, mmp_cause_name(c->kind));
		else
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "%s%s: not counted (%s)", used ? "; " : "",
						 mmp_cause_name(c->kind), e->missing);
	}
	if (used)
		fprintf(out, "    evidence: %s\n", line);

	used = (size_t)snprintf(line, sizeof(line), "job %.3f", a->total);
	for (size_t k = 0; k < job->ncontrols && used < sizeof(line); k++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, " | +%s %.3f",
					 mmp_control_name(job->ladder->rung[k + 1].added),
					 job->controls[k].st.median / (double)job->bytes);
	fprintf(out, "    ladder, ns per byte of the file: %s\n", line);
}

static size_t job_index(const struct mmp_config *cfg, const char *name)
{
	for (size_t j = 0; name && j < cfg->njobs; j++)
		if (strcmp(cfg->jobs[j].name, name) == 0)
			return j;
	return (size_t)-1;
}

/* "14.7x at 1 thread, 56.1x at 8 threads" for one job against another,
 * over the runs whose bytes per call are (multi ? > 1 : 1). */
static int ratios(char *buf, size_t len, const struct mmp_run_result *results, size_t n,
		  size_t job, size_t other, int multi)
{
	size_t used = 0;
	int count = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const struct mmp_run_result *r = &results[i];
		if (r->run->job_index != job || !mmp_result_has_data(r) || (multi ? r->access <= 1 : r->access != 1))
			continue;
		const struct mmp_run_result *o = mmp_report_match(results, n, r, other);
		if (!o)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%.2fx at %u thread%s",
					 count ? ", " : "", r->st.median / o->st.median,
					 r->run->p.threads, r->run->p.threads == 1 ? "" : "s");
		count++;
	}
	return count;
}

/* The fix's runs over their twins: "0.31x at 1 thread, ..."; *regressed
 * when a multi-byte run is more than 5% slower and by more than the two
 * medians' spread. */
static int twin_ratios(char *buf, size_t len, const struct mmp_run_result *results, size_t n,
		       size_t fix, int multi, int *regressed)
{
	size_t used = 0;
	int count = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const struct mmp_run_result *r = &results[i], *t = r->twin;
		if (r->run->job_index != fix || !mmp_result_has_data(r) || !t || !t->n ||
		    (multi ? r->access <= 1 : r->access != 1))
			continue;
		double ratio = r->st.median / t->st.median;
		int beyond = r->st.median - t->st.median > r->st.stddev + t->st.stddev;
		if (regressed && ratio - 1 > REGRESSION && beyond)
			*regressed = 1;
		used += (size_t)snprintf(buf + used, len - used, "%s%.2fx at %u thread%s%s",
					 count ? ", " : "", ratio, r->run->p.threads,
					 r->run->p.threads == 1 ? "" : "s",
					 multi && !beyond && ratio > 1 ? " (within noise)" : "");
		count++;
	}
	return count;
}

static void answers(FILE *out, const struct mmp_config *cfg,
		    const struct mmp_run_result *results, size_t n, size_t fix)
{
	const char *fix_name = cfg->jobs[fix].name;
	const char *target_name = NULL, *base_name = NULL;
	char buf[1024], name[128];

	for (size_t i = 0; i < n; i++)
		if (results[i].run->job_index == fix)
			target_name = results[i].run->p.fixes;
	size_t target = job_index(cfg, target_name);
	if (target == (size_t)-1)
		return;
	for (size_t i = 0; i < n; i++)
		if (results[i].run->job_index == target && results[i].run->p.baseline) {
			const char *p = results[i].run->p.baseline;
			if (mmp_list_next(&p, name, sizeof(name)))
				base_name = name;
			break;
		}
	size_t base = job_index(cfg, base_name);

	fprintf(out, "\nanswers (%s fixes %s%s%s):\n", fix_name, target_name,
		base_name ? "; baseline " : "", base_name ? base_name : "");
	/* 1. The gap. */
	if (base != (size_t)-1 && ratios(buf, sizeof(buf), results, n, target, base, 0)) {
		fprintf(out, " 1. Is the gap reproduced?  %s vs %s, 1-byte reads: %s", target_name,
			base_name, buf);
		if (ratios(buf, sizeof(buf), results, n, target, base, 1))
			fprintf(out, "; multi-byte reads: %s", buf);
		fprintf(out, ".\n");
	} else {
		fprintf(out, " 1. Is the gap reproduced?  (no 1-byte runs of %s with a baseline to "
			     "compare)\n", target_name);
	}
	/* 2. Its cause: the target's attribution, where the gap is. */
	fprintf(out, " 2. What causes it?  ");
	int said = 0;
	for (size_t i = 0; i < n; i++) {
		const struct mmp_run_result *r = &results[i];
		struct mmp_attribution a;
		char label[96], acc[32];
		if (r->run->job_index != target || r->access != 1 || mmp_attribute(r, &a))
			continue;
		const struct mmp_cause *top = mmp_attribution_top(&a);
		if (top)
			cause_label(top, label, sizeof(label));
		fprintf(out, "%sthreads=%u access=%s: %s %.0f%%", said ? "; " : "", r->run->p.threads,
			mmp_result_access(r, acc, sizeof(acc)), top ? label : "nothing above the noise",
			top ? top->share * 100 : 0.0);
		said = 1;
	}
	fprintf(out, "%s\n", said ? "." : "(set controls = auto on it to know)");
	/* 3. The fix, against its twins: the target's runs measured again
	 * beside it, repetition by repetition. */
	fprintf(out, " 3. Does %s resolve it without slowing multi-byte reads?", fix_name);
	if (twin_ratios(buf, sizeof(buf), results, n, fix, 0, NULL))
		fprintf(out, "  1-byte reads: %s of %s's time, side by side", buf, target_name);
	if (base != (size_t)-1 && ratios(buf, sizeof(buf), results, n, fix, base, 0))
		fprintf(out, " (%s of %s's)", buf, base_name);
	int regressed = 0;
	if (twin_ratios(buf, sizeof(buf), results, n, fix, 1, &regressed))
		fprintf(out, "; multi-byte reads: %s: %s", buf,
			regressed ? "REGRESSED (more than 5% slower, beyond the noise)"
				  : "no regression (at most 5% slower, or within the noise)");
	fprintf(out, ".\n");
}

void mmp_report_verdicts(FILE *out, const struct mmp_config *cfg,
			 const struct mmp_run_result *results, size_t n)
{
	int header = 0;
	for (size_t i = 0; i < n; i++) {
		struct mmp_attribution a;
		if (mmp_attribute(&results[i], &a))
			continue;
		if (!header) {
			fprintf(out, "\nattribution (each control's drop in median time, as a share "
				     "of the job's; n.s. = within the repetitions' spread):\n");
			header = 1;
		}
		print_verdict(out, &a);
	}
	for (size_t j = 0; j < cfg->njobs; j++)
		for (size_t i = 0; i < n; i++)
			if (results[i].run->job_index == j && results[i].run->p.fixes) {
				answers(out, cfg, results, n, j);
				break;
			}
}
