/* The files beside NAME.csv, written from the results computed once,
 * through the result set (outfile.h) and committed at once, before
 * NAME.csv (whose commit removes an earlier run's companions this run did
 * not write):
 *
 *   NAME.attribution.csv  one row per job point with controls and cause
 *   NAME.answers.csv      one row per answer (answers.h)
 *   NAME.profile.csv      one row per profile row of a sampled program
 *   NAME.profile.folded   one line per unique call stack of a sampled
 *                         program's cpu samples, "ROOT;outer;...;inner
 *                         COUNT", its run's label the root frame
 *
 * Each is written only when it has rows and NAME.csv can have companions
 * (not a device); *wrote says whether it was. */
#ifndef MMPROF_COMPANIONS_H
#define MMPROF_COMPANIONS_H

#include "util/error.h"
#include "platform/meta.h"
#include "util/outfile.h"
#include "analysis/analysis.h"
#include "result/result.h"

/* meta: the invocation's run_id and host, which every row carries. */
int mmp_attribution_csv(struct mmp_outset *set, const struct mmp_analysis *an,
			const struct mmp_meta *meta, int *wrote, struct mmp_error *err);
int mmp_answers_csv(struct mmp_outset *set, const struct mmp_analysis *an,
		    const struct mmp_meta *meta, int *wrote, struct mmp_error *err);

/* NAME.profile.csv: the programs' sampling profiles and their growth
 * from a control (profile.h, evidence.h). */
int mmp_profile_csv(struct mmp_outset *set, const struct mmp_results *res,
		    const struct mmp_meta *meta, int *wrote, struct mmp_error *err);

/* NAME.profile.folded: each profiled run's stacks under a root frame
 * "run N [job] probe threads=T +control" (N: NAME.csv's run).  One file,
 * not one per run, because flamegraph.pl and speedscope draw one file
 * per picture: every run side by side, each under its own root;
 * difffolded.pl's two inputs are two runs' lines with the root cut off
 * (docs/profile.md). */
int mmp_profile_folded(struct mmp_outset *set, const struct mmp_results *res, int *wrote,
		       struct mmp_error *err);

/* Column names and meanings, for --list-columns: every companion's, or
 * one's. */
void mmp_companions_print_columns(FILE *out, int markdown);
void mmp_answers_print_columns(FILE *out, int markdown);
void mmp_profile_print_columns(FILE *out, int markdown);

#endif
