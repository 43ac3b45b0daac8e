/* Analysis: what the results' statistics mean.  From the results of a
 * plan's runs (result.h, computed first), each job point's attribution by
 * its ladder of controls (attribution.h), then the answers to the
 * config's questions (answers.h), which read the attributions.
 *
 * Computed once after the rounds, and between rounds when repeat = auto
 * asks whether a comparison set's answers are decided; read by the
 * reports.  The results are not changed: an analysis only points at them.
 */
#ifndef MMPROF_ANALYSIS_H
#define MMPROF_ANALYSIS_H

#include "analysis/answers.h"
#include "analysis/attribution.h"
#include "result/result.h"

struct mmp_analysis {
	const struct mmp_results *res;
	struct mmp_attribution *attr; /* [plan->nruns]: job points with rungs */
	struct mmp_answers answers;
};

/* 0, or -ENOMEM.  res must outlive it. */
int mmp_analysis_init(struct mmp_analysis *an, const struct mmp_results *res);
/* Attribution, then answers, from the results as computed
 * (mmp_results_compute); what an earlier call computed is replaced.
 * 0, or -ENOMEM. */
int mmp_analysis_compute(struct mmp_analysis *an);
void mmp_analysis_free(struct mmp_analysis *an);

#endif
