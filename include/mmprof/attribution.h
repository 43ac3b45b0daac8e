/* Attribution: a job's time split into causes by its ladder of controls
 * (controls.h).  Each control's cost is the drop in median time per byte
 * from the rung below it to its own rung; the last rung's time is what no
 * control explains.  The shares add up to the job's median exactly.
 *
 * A cost is significant when it is larger than the noise of the two
 * medians it comes from (the sum of their repetitions' standard
 * deviations); a cost can be negative (a control that made things slower,
 * or noise), and is shown as it is.
 */
#ifndef MMPROF_ATTRIBUTION_H
#define MMPROF_ATTRIBUTION_H

#include <stdio.h>

#include "mmprof/report.h"

enum mmp_cause_kind {
	MMP_CAUSE_OVERSUBSCRIPTION, /* fit */
	MMP_CAUSE_FAULTS,           /* prefault */
	MMP_CAUSE_FALSE_SHARING,    /* padded */
	MMP_CAUSE_TRUE_SHARING,     /* private */
	MMP_CAUSE_PER_CALL,         /* bulk */
	MMP_CAUSE_SCALING,          /* solo */
	MMP_CAUSE_UNEXPLAINED,      /* the last rung */
};

/* Counter evidence beside a cause: one metric on both sides of its
 * control. */
struct mmp_evidence {
	const char *metric; /* "faults/MiB", NULL: none applies */
	int counted;        /* both sides have a value */
	double before, after;
	char missing[160];  /* events that would have told, not counted here */
};

struct mmp_cause {
	enum mmp_cause_kind kind;
	char detail[64];      /* sharing: "refcount", "tally", ... */
	double ns_per_byte;   /* the cost */
	double share;         /* of the job's median ns/byte */
	double noise;         /* ns/byte: the two medians' spread */
	int significant;
	double cv_before, cv_after;
	const struct mmp_run_result *before, *after; /* rungs compared; after NULL: unexplained */
	struct mmp_evidence evidence;
};

struct mmp_attribution {
	const struct mmp_run_result *job;
	double total; /* the job's median ns/byte */
	struct mmp_cause cause[8];
	size_t n;
};

/* -ENODATA when the job has no controls or not every rung has data. */
int mmp_attribute(const struct mmp_run_result *job, struct mmp_attribution *out);

const char *mmp_cause_name(enum mmp_cause_kind kind);
/* What to do about a cause, in a few words. */
const char *mmp_cause_fix(const struct mmp_cause *c);
/* The cause with the largest significant cost (unexplained aside), or
 * NULL when none stands above the noise. */
const struct mmp_cause *mmp_attribution_top(const struct mmp_attribution *a);

/* Verdict lines after the table, one per job run with controls, and the
 * answers to the questions a `fixes` job asks. */
void mmp_report_verdicts(FILE *out, const struct mmp_config *cfg,
			 const struct mmp_run_result *results, size_t n);

/* NAME.attribution.csv (path: mmp_sibling_path(csv, ".attribution.csv")):
 * one row per job run and cause. */
int mmp_attribution_csv(const char *path, const struct mmp_run_result *results, size_t n,
			const char *run_id, struct mmp_error *err);

#endif
