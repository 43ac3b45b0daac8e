/* Profiles as evidence (profile.h): which run a job point's profile is
 * compared with, and where the CPU time grew between them, in the words
 * a verdict quotes ("95% [90, 99] of the growth from threads=1 to
 * threads=2 is at hot.c:58 in bump()").
 *
 * The control of an exec job point, in this order:
 *   - a rung of its own ladder that was profiled (controls applied from
 *     outside): the one-PU rung (the growth from one PU to the job's is
 *     the threads' sharing), else the first one;
 *   - else the point of the same job that differs only in `threads` and
 *     has the fewest (threads = 1 against 2 and 8).
 * Work is counted in bytes of the data file (per byte of the job and of
 * the control), or per run for a program that reads none.
 */
#ifndef MMPROF_EVIDENCE_H
#define MMPROF_EVIDENCE_H

#include <stddef.h>

#include "result/profile.h"
#include "result/result.h"

/* NULL when it has none; from gets "threads=1" or the rung's control. */
const struct mmp_run_result *mmp_evidence_control(const struct mmp_results *res,
						  const struct mmp_run_result *r, char *from,
						  size_t len);
/* Work one round of a run did: its bytes, or 1. */
double mmp_evidence_units(const struct mmp_run_result *r);
/* The rows (kind: function or line) that grew most from a to b, at most
 * cap, and the total growth.  0 when either has no profile or they share
 * no round. */
size_t mmp_evidence_growth(const struct mmp_run_result *a, const struct mmp_run_result *b,
			   enum mmp_prof_kind kind, struct mmp_growth *out, size_t cap,
			   struct mmp_interval *total);
/* The rows that say best where the CPU time grew from a to b: source
 * lines, unless the line that grew most holds less than half the growth
 * of the function that grew most; then functions (JIT code has no line
 * table: the seed's .NET loop grows in its [jit] function while the lines
 * that grow are the runtime's, a few percent).  As mmp_evidence_growth. */
size_t mmp_evidence_where(const struct mmp_run_result *a, const struct mmp_run_result *b,
			  struct mmp_growth *out, size_t cap, struct mmp_interval *total);
/* Whether the total grew: its interval wholly above 0. */
int mmp_evidence_grew(const struct mmp_interval *total);
/* "95% [90, 99] of the growth from threads=1 to threads=2 is at hot.c:58
 * in bump()"; with no growth, "no growth of the CPU time from ... to
 * attribute: its interval is not above 0" (the figures are the growth
 * line's, printed before it). */
const char *mmp_evidence_text(const struct mmp_growth *top, const struct mmp_interval *total,
			      const char *from, const char *to, char *buf, size_t len);

/* Where the CPU time a cause's control took away was (its rungs' profiles:
 * from the rung with the control to the one without it, attribution.h):
 * "95% [90, 99] of the CPU time onepu takes away is at hot.c:58 in
 * bump()", and the next rows (up to 3) until half of it is named ("39%
 * [32, 46] of ... is at DangerousAddRef(); 36% [27, 45] at
 * InternalRelease()").  0 and no text when the rungs were not profiled, or their
 * CPU time did not grow. */
struct mmp_cause;
int mmp_evidence_cause(const struct mmp_cause *c, char *buf, size_t len);

#endif
