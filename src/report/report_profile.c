/* The profile blocks: for each profiled exec job point, where its CPU time
 * goes (functions, source lines), what could not be named and why, where
 * its page faults land, and where the time grew from its control
 * (evidence.h).  Nothing is computed here that the results do not hold:
 * the shares and growth come from profile.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "run/child_env.h"
#include "config/config.h"
#include "analysis/evidence.h"
#include "report/report.h"
#include "util/units.h"

#define TOP 5
#define NAME_W 44
/* Below this, the top source line is not worth a table. */
#define MIN_LINE_SHARE 0.01

static double clamp(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* A share is between 0 and 1 whatever a t-interval over few rounds says. */
static const char *pct(const struct mmp_interval *iv, char *buf, size_t len)
{
	if (!iv->valid)
		snprintf(buf, len, "%5.1f%% [one round]", 100 * iv->estimate);
	else
		snprintf(buf, len, "%5.1f%% [%.1f, %.1f]", 100 * iv->estimate, 100 * clamp(iv->low),
			 100 * clamp(iv->high));
	return buf;
}

static void rows(FILE *out, const struct mmp_profile *p, enum mmp_prof_kind kind,
		 const char *title)
{
	const struct mmp_prof_row *r[TOP];
	size_t n = mmp_profile_top(p, kind, r, TOP);
	char name[400], s[64];
	struct mmp_interval iv;

	if (!n)
		return;
	/* Lines that hold nothing (the seed's JIT code has no line table:
	 * its top lines were the C library's, 0.0% each) say nothing. */
	mmp_profile_share(p, r[0], &iv);
	if (kind == MMP_PROF_LINE && iv.estimate < MIN_LINE_SHARE) {
		fprintf(out, "  %s: none holds %.0f%% of the samples (code without a line table: "
			     "JIT, or no debug information)\n",
			title, 100 * MIN_LINE_SHARE);
		return;
	}
	fprintf(out, "  %-*s  share [95%% CI]\n", NAME_W, title);
	for (size_t i = 0; i < n; i++) {
		mmp_profile_share(p, r[i], &iv);
		fprintf(out, "    %-*s  %s\n", NAME_W - 2, mmp_prof_row_name(r[i], name, sizeof(name)),
			pct(&iv, s, sizeof(s)));
	}
}

/* The callers: functions whose time is partly in what they call (the
 * ReadByte a JIT did not inline, the loop that calls it), profile.h
 * says which are left out. */
static void callers(FILE *out, const struct mmp_profile *p)
{
	const struct mmp_prof_row *r[TOP];
	size_t n = mmp_profile_callers(p, r, TOP);
	char name[400], s[64];
	struct mmp_interval iv;

	if (!n)
		return;
	fprintf(out, "  %-*s  share [95%% CI]\n", NAME_W, "with what it calls (callers)");
	for (size_t i = 0; i < n; i++) {
		mmp_profile_share(p, r[i], &iv);
		fprintf(out, "    %-*s  %s\n", NAME_W - 2, mmp_prof_row_name(r[i], name, sizeof(name)),
			pct(&iv, s, sizeof(s)));
	}
}

/* Why JIT-looking code (anonymous or memfd code) was not named, and what
 * to set: jitnames asks .NET and Java for their perf maps (child_env.h). */
static void jit_advice(FILE *out, const struct mmp_profile *p)
{
	if (!p->unnamed[MMP_NO_PERF_MAP] && !p->unnamed[MMP_NOT_IN_PERF_MAP])
		return;
	if (!p->jit) {
		if (p->unnamed[MMP_NO_PERF_MAP])
			mmp_fprintf_wrapped(out, "    JIT code: jitnames = yes (mmprof exec --jitnames yes) has .NET "
				     "and Java write the perf maps that name it\n");
		return;
	}
	if (p->unnamed[MMP_NO_PERF_MAP] && (p->runtimes & MMP_RUNTIME_JAVA) &&
	    (p->jit & MMP_JIT_JAVA_EXIT))
		mmp_fprintf_wrapped(out, "    JIT code: the JVM wrote no perf map (-XX:+DumpPerfMapAtExit needs "
			     "Java 17; before it, a perf-map agent: libperfmap.so, "
			     "MMPROF_PERFMAP_AGENT)\n");
	else if (p->unnamed[MMP_NO_PERF_MAP] && !p->runtimes)
		mmp_fprintf_wrapped(out, "    JIT code: no runtime wrote a perf map; jitnames asks .NET and Java "
			     "for one, another JIT needs its own variable in env = (Node: "
			     "NODE_OPTIONS=--perf-basic-prof; Python 3.12+: PYTHONPERFSUPPORT=1)\n");
	if (p->unnamed[MMP_NOT_IN_PERF_MAP] && (p->runtimes & MMP_RUNTIME_JAVA) &&
	    (p->jit & MMP_JIT_JAVA_EXIT))
		mmp_fprintf_wrapped(out, "    JIT code the perf map does not name: Java's map, written at its "
			     "exit, leaves out code freed before; no perf-map agent is installed to "
			     "name it as it compiles (libperfmap.so, MMPROF_PERFMAP_AGENT)\n");
}

/* "not named: 3.1% of the samples: 2.0% stripped (...), 1.1% kernel" */
static void unnamed(FILE *out, const struct mmp_profile *p)
{
	double all = mmp_profile_samples(p, 0), none = 0;
	for (int w = 0; w < MMP_UNNAMED_COUNT; w++)
		none += (double)p->unnamed[w];
	if (all <= 0 || none <= 0)
		return;
	char line[1024];
	size_t used = (size_t)snprintf(line, sizeof(line), "  not named: %.1f%% of the samples:",
				       100 * none / all);
	const char *sep = " ";
	for (int w = 0; w < MMP_UNNAMED_COUNT && used < sizeof(line); w++) {
		/* A reason below 0.05% would print as "0.0%": left out. */
		if (1000 * (double)p->unnamed[w] < 0.5 * all)
			continue;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%.1f%% %s", sep,
					 100 * (double)p->unnamed[w] / all,
					 mmp_unnamed_why((enum mmp_unnamed)w));
		sep = ", ";
	}
	mmp_fprintf_wrapped(out, "%s\n", line);
	jit_advice(out, p);
}

static void growth(FILE *out, const struct mmp_results *res, const struct mmp_run_result *r)
{
	char from[96], to[96], text[640], name[400], s[64];
	const struct mmp_run_result *c = mmp_evidence_control(res, r, from, sizeof(from));
	struct mmp_growth g[TOP];
	struct mmp_interval total;

	if (!c)
		return;
	if (r->run->control_name[0])
		snprintf(to, sizeof(to), "%s", r->run->control_name);
	else
		snprintf(to, sizeof(to), "threads=%u", r->run->p.threads);
	size_t n = mmp_evidence_where(c, r, g, TOP, &total);
	const char *unit = r->bytes ? "ns/byte" : "ns/run";
	if (!total.n) {
		fprintf(out, "  growth from %s: no round profiled in both\n", from);
		return;
	}
	if (r->bytes) {
		fprintf(out, "  growth from %s to %s: CPU %+.4g %s [%.4g, %.4g] over %zu rounds\n",
			from, to, total.estimate, unit, total.low, total.high, total.n);
	} else { /* a program's run: millions of ns read as a time */
		char e[32], lo[32], hi[32];
		fprintf(out, "  growth from %s to %s: CPU %s%s a run [%s, %s] over %zu rounds\n", from,
			to, total.estimate >= 0 ? "+" : "",
			mmp_format_ns(total.estimate, e, sizeof(e)),
			mmp_format_ns(total.low, lo, sizeof(lo)),
			mmp_format_ns(total.high, hi, sizeof(hi)), total.n);
	}
	/* Time moved, not only added: say so, or the shares read as of the net. */
	if (n && mmp_evidence_grew(&total) && g[0].grew > 1.25 * total.estimate)
		fprintf(out, "    (time moved between %s: %+.4g where it grew, %+.4g where it fell; "
			"the shares are of the %+.4g)\n",
			g[0].row->kind == MMP_PROF_LINE ? "lines" : "functions", g[0].grew,
			total.estimate - g[0].grew, g[0].grew);
	if (!mmp_evidence_grew(&total)) {
		/* Wrapped: a program's rung names grow with its ladder
		 * ("prefault+touch+huge+bulk+onepu") and the figures with noise. */
		mmp_fprintf_wrapped(out, "    %s\n",
				    mmp_evidence_text(NULL, &total, from, to, text, sizeof(text)));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (g[i].growth.estimate <= 0)
			break;
		fprintf(out, "    %-*s  %s of the growth\n", NAME_W - 2,
			mmp_prof_row_name(g[i].row, name, sizeof(name)), pct(&g[i].share, s, sizeof(s)));
	}
}

static void block(FILE *out, const struct mmp_results *res, const struct mmp_run_result *r)
{
	const struct mmp_profile *p = r->profile;
	char label[320];
	size_t rounds = mmp_profile_rounds(p);

	mmp_result_label(res, r, label, sizeof(label));
	if (!rounds) {
		fprintf(out, "\nprofile of %s: not taken: %s; the run was measured without it\n",
			label, p->refused[0] ? p->refused : "no repetition was sampled");
		return;
	}
	fprintf(out, "\nprofile of %s (cpu-clock, a sample per %.3g ms of CPU%s; %zu rounds, "
		     "%.0f samples",
		label, (double)p->period_ns / 1e6, p->user_only ? ", user space only" : "", rounds,
		mmp_profile_samples(p, 0));
	if (p->lost)
		fprintf(out, ", %" PRIu64 " records lost: the buffer overflowed", p->lost);
	fprintf(out, "):\n");
	if (mmp_profile_samples(p, 0) <= 0 && mmp_profile_samples(p, 1) <= 0) {
		/* A program done in less CPU time than one sample stands for. */
		fprintf(out, "  no sample: its rounds took less CPU time than a sample stands for "
			     "(%.3g ms); a higher rate (profile = HZ, up to %llu) samples more "
			     "often\n",
			(double)p->period_ns / 1e6, (unsigned long long)mmp_keys[MMP_KEY_PROFILE].max);
		return;
	}
	rows(out, p, MMP_PROF_FUNCTION, "CPU time by function");
	callers(out, p);
	rows(out, p, MMP_PROF_LINE, "by source line");
	unnamed(out, p);
	if (mmp_profile_samples(p, 1) > 0) {
		char title[96];
		snprintf(title, sizeof(title), "page faults by mapping (1 in %" PRIu64 ", %.0f sampled)",
			 p->fault_period, mmp_profile_samples(p, 1));
		rows(out, p, MMP_PROF_FAULTS, title);
	} else if (p->faults_refused) {
		fprintf(out, "  page faults: not sampled (perf_event_open: %s)\n",
			strerror(p->faults_refused));
	} else if (!p->fault_period) {
		fprintf(out, "  page faults: not sampled (profile_faults = yes, or --profile-faults yes, "
			     "says where they land, at a cost to a fault-bound program)\n");
	}
	growth(out, res, r);
}

void mmp_report_profile(FILE *out, const struct mmp_results *res, const struct mmp_run_result *r)
{
	if (r->profile && mmp_result_has_data(r))
		block(out, res, r);
}

void mmp_report_profiles(FILE *out, const struct mmp_results *res)
{
	size_t rungs = 0;
	for (size_t i = 0; i < res->plan->nruns; i++) {
		const struct mmp_run_result *r = &res->run[i];
		if (!r->profile || !mmp_result_has_data(r))
			continue;
		/* A rung's profile is evidence (the where: lines, the growth
		 * below): a block each would bury the job points' in the
		 * seed's 56 of them. */
		if (!mmp_planned_is_point(r->planned)) {
			rungs++;
			continue;
		}
		block(out, res, r);
	}
	if (rungs)
		fprintf(out, "\n(the %zu control rung%s' profiles: in the profile CSV, and printed "
			     "by --explain JOB)\n",
			rungs, rungs == 1 ? "" : "s");
}
