/* Answers: the questions a config asks, each yes, no or inconclusive, from
 * runs measured side by side in one comparison set.  Each question is a
 * row of answers.c's table: its kind, its text, and how it is decided.
 *
 *   ratio       `baseline = B`: is this run slower than B's matching run?
 *               (verdict slower, same within tolerance, or faster); and
 *               the same against each `model` job
 *   gap         `fixes = T` asks about T and its first baseline B: is T's
 *               1-byte gap to B reproduced?  do T's multi-byte reads close it?
 *   cause       what causes T's time at 1 byte (its attribution's top cause)
 *   fix         is the fixing job faster than T for 1-byte reads?
 *   match       does it match B for 1-byte reads?
 *   regression  does it slow T's multi-byte reads by more than the tolerance?
 *               (--fail-on-regression exits 3 when one says yes)
 *   fastest     under table = sizes: is one method the fastest for a file
 *               size, or do several tie within the tolerance?
 *   model       `model = M` on a job A with `baseline = B` (B with its own
 *               model MB): does the models' ratio M/MB match the real A/B
 *               within the tolerance?  ratio = (M/MB) / (A/B), paired over
 *               the rounds all four ran in (answers.c, ask_models)
 *
 * A ratio is decided when its 95% interval lies wholly on one side of the
 * tolerance band 1/(1+t) .. 1+t or wholly inside it; otherwise the answer is
 * inconclusive, with the interval and about how many more rounds would
 * decide (intervals.h).
 *
 * An answer whose figure had to use disturbed rounds (fewer than
 * MMP_MIN_CLEAN_ROUNDS were clean, result.h) is inconclusive whatever its
 * interval says: a disturbed repetition's time holds the other task's (or
 * the stop's) as well as the path's, and that part has no bound -- a
 * thread stopped for a second adds a second -- nor is it the same in two
 * runs of a round, so no gap is too large for it to have made and no tie
 * too close for it to have hidden.  More rounds like those would not
 * decide it either; quieter ones would.
 */
#ifndef MMPROF_ANSWERS_H
#define MMPROF_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/attribution.h"
#include "result/intervals.h"
#include "result/result.h"

enum mmp_question {
	MMP_Q_RATIO,
	MMP_Q_GAP,
	MMP_Q_CAUSE,
	MMP_Q_FIX,
	MMP_Q_MATCH,
	MMP_Q_REGRESSION,
	MMP_Q_FASTEST,
	MMP_Q_MODEL,
};
const char *mmp_question_name(enum mmp_question q);

struct mmp_answer {
	enum mmp_question kind;
	char question[256];
	const struct mmp_run_result *a, *b; /* a / b (fastest: the best and the runner-up) */
	struct mmp_interval ratio;          /* cause: the top cause's share */
	double tolerance;
	enum mmp_outcome outcome;
	char verdict[256];   /* "slower", "same", "REGRESSED", "tie: read(4096), mmap" */
	size_t rounds;       /* rounds the figure comes from */
	unsigned disturbed;  /* disturbed repetitions among the runs it compares */
	int used_disturbed;  /* the figure had to use disturbed rounds */
	/* used_disturbed: why the first of its runs was disturbed, and so why
	 * it is inconclusive ("a thread waited 48% of its time for a CPU");
	 * NULL otherwise */
	const char *disturbed_why;
	size_t more;         /* inconclusive: rounds that would decide (SIZE_MAX: none) */
	char evidence[256];
	size_t set;
	/* model: the models of a and b, and each pair's own ratio over the
	 * same rounds. */
	const struct mmp_run_result *ma, *mb;
	struct mmp_interval real, model;
};

struct mmp_answers {
	struct mmp_answer *a;
	size_t n;
};

/* Every answer the plan's jobs ask, from results whose statistics are
 * computed and their attributions (attr[plan->nruns], analysis.h).
 * -ENOMEM. */
int mmp_answers_build(const struct mmp_results *res, const struct mmp_attribution *attr,
		      struct mmp_answers *out);
void mmp_answers_free(struct mmp_answers *a);
/* Answers of one comparison set that are not decided yet. */
size_t mmp_answers_undecided(const struct mmp_answers *a, size_t set);
/* A regression answer says yes. */
int mmp_answers_regressed(const struct mmp_answers *a);

#endif
