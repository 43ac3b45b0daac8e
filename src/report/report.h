/* The terminal report, printed from results computed once (result.h):
 * one aligned table of the job points, the ratio blocks of `baseline`
 * jobs, the sizes table of the read/mmap/fread seed, the real programs
 * against their models, derived counter metrics, one verdict line per
 * attributed job point, and the answers. */
#ifndef MMPROF_REPORT_H
#define MMPROF_REPORT_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "platform/meta.h"
#include "result/result.h"

/* The report's first lines: the platform (bare metal or which hypervisor)
 * and what the calibration measured before the first round. */
void mmp_report_machine(FILE *out, const struct mmp_meta *meta);
void mmp_report_table(FILE *out, const struct mmp_results *res);
/* What else ran on the programs' PUs (disturbance.h): per program job
 * point, the kernel's work for it and the unexplained other tasks, each
 * with its range over the rounds and the names seen. */
void mmp_report_pus(FILE *out, const struct mmp_results *res);
void mmp_report_ratios(FILE *out, const struct mmp_analysis *an);
/* The read/mmap/fread seed's table: per file size, a column per method. */
void mmp_report_sizes(FILE *out, const struct mmp_analysis *an);
/* Derived metrics from the counters, one row per job point, columns only
 * for what was counted somewhere. */
void mmp_report_metrics(FILE *out, const struct mmp_results *res);
/* The matrices: core to core (pingpong with placement = pairs: ns per
 * transfer, PU x PU, and a line per pair relation) and node to node
 * (chase or limit with placement = numa:M and membind = node:N: ns per
 * load or GB/s, CPU node x memory node).  topo (NULL: none) names the
 * pair relations. */
struct mmp_topology;
void mmp_report_matrices(FILE *out, const struct mmp_results *res,
			 const struct mmp_topology *topo);
/* Model against real: the real programs' ratios beside their models'. */
void mmp_report_models(FILE *out, const struct mmp_analysis *an);
/* The sampling profiles of programs (profile.h): where the CPU time goes,
 * the faults by mapping, the growth from a control (evidence.h).  Of the
 * job points; their control rungs' are counted in one line (the profile
 * CSV has them, and --explain prints them). */
void mmp_report_profiles(FILE *out, const struct mmp_results *res);
/* One run's profile block (a job point's or a rung's). */
void mmp_report_profile(FILE *out, const struct mmp_results *res, const struct mmp_run_result *r);
/* Why (verdicts.c): per job point with controls, a table of its causes,
 * largest first, then the answers of `fixes` jobs, last. */
void mmp_report_verdicts(FILE *out, const struct mmp_analysis *an);
/* --brief: one line per job point (its largest cause, the fix), then the
 * answers. */
void mmp_report_brief(FILE *out, const struct mmp_analysis *an);
/* --explain SPEC ("JOB" or "JOB threads=8 ..."): the causes, every step
 * and every figure of the job points SPEC names, and the profiles of
 * each point and its rungs.  Returns how many. */
size_t mmp_report_explain(FILE *out, const struct mmp_analysis *an, const char *spec);
/* The answers block alone. */
void mmp_report_answers(FILE *out, const struct mmp_analysis *an);

/* One job point's causes, as the report prints them, from its attribution
 * alone (a recorded one renders the same: tests/unit/test_verdicts.c). */
struct mmp_verdict_in {
	const char *label; /* "[dotnet_like] accessor_byte threads=8 access=1" */
	const char *unit;  /* "B", or the operation: "transfer", "load" */
	const struct mmp_attribution *a;
	int limit_job;     /* the job is the ceiling itself: nothing to fix */
	int full;          /* --explain: every cause with its figures */
};
void mmp_report_cause_table(FILE *out, const struct mmp_verdict_in *v);
/* --brief's line: time, the largest cause when decided, the fix. */
void mmp_report_verdict_line(FILE *out, const struct mmp_verdict_in *v);
/* One answer's line, and the answers block of n answers. */
void mmp_report_answer(FILE *out, const struct mmp_answer *a);
void mmp_report_answer_list(FILE *out, const struct mmp_answer *a, size_t n);

/* No line of mmprof's prose is wider than this: a longer one is broken
 * at a blank, its continuation indented 4 more than the line. */
#define MMP_LINE_MAX 160
/* fprintf, each line of the text wrapped at MMP_LINE_MAX (a word longer
 * than that stays whole). */
void mmp_fprintf_wrapped(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* n bytes of s (no newline in them) printed after lead columns already
 * on the line, cut at spaces to stay within MMP_LINE_MAX, each
 * continuation indented cont; no cut at or before byte keep of a piece
 * (the line's own indent).  No newline after the last piece. */
void mmp_wrap_text(FILE *out, const char *s, size_t n, size_t lead, size_t cont, size_t keep);

/* "14.42x [13.90, 15.00]" */
const char *mmp_format_interval(const struct mmp_interval *iv, const char *unit, char *buf,
				size_t len);
/* "; about 6 more rounds would decide" or the reason none would. */
const char *mmp_format_more(size_t more, char *buf, size_t len);
/* What would decide a figure taken from disturbed rounds (answers.h). */
const char *mmp_disturbed_advice(void);
/* Why an inconclusive answer is and what would decide it: its disturbed
 * rounds and the advice, or mmp_format_more. */
const char *mmp_format_undecided(const struct mmp_answer *a, char *buf, size_t len);

#endif
