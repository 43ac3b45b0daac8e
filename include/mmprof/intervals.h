/* Intervals for the figures that decide something: ratios between runs,
 * the cost of a cause, and whether either is beyond a tolerance.
 *
 * The method: samples are paired by round (both runs measured in the same
 * round of an interleaved schedule, so slow drift of the machine hits both),
 * and a 95% Student-t interval is taken on the paired values:
 *
 *   ratio a/b     t-interval on log(a_i / b_i), exponentiated: the estimate
 *                 is the geometric mean of the paired ratios.  Logs make
 *                 multiplicative, right-skewed timing noise symmetric; the t
 *                 quantile makes 3 to 10 rounds honest (a normal quantile or
 *                 a bootstrap percentile interval is too narrow there).
 *   difference    t-interval on a_i - b_i (the cost of a cause, in ns/byte).
 *
 * tests/unit/test_intervals.c checks the coverage on synthetic samples of
 * known ratio.
 */
#ifndef MMPROF_INTERVALS_H
#define MMPROF_INTERVALS_H

#include <stddef.h>

#define MMP_CONFIDENCE 0.95

struct mmp_interval {
	double estimate, low, high;
	size_t n;  /* pairs used */
	int valid; /* n >= 2: an interval exists */
};

/* The 97.5% quantile of Student's t with df degrees of freedom (the
 * two-sided 95% interval's multiplier). */
double mmp_t975(size_t df);

/* a_i / b_i over n pairs (all values > 0). */
void mmp_interval_ratio(const double *a, const double *b, size_t n, struct mmp_interval *out);
/* a_i - b_i over n pairs. */
void mmp_interval_diff(const double *a, const double *b, size_t n, struct mmp_interval *out);
/* The mean of n values with its interval. */
void mmp_interval_mean(const double *v, size_t n, struct mmp_interval *out);

/* Where an interval lies against a band [lo, hi] (lo may be 0 or -inf
 * for a one-sided question): wholly below lo, wholly inside, wholly above
 * hi, or across a boundary. */
enum mmp_band {
	MMP_BAND_BELOW,
	MMP_BAND_WITHIN,
	MMP_BAND_ABOVE,
	MMP_BAND_UNDECIDED,
};
enum mmp_band mmp_interval_band(const struct mmp_interval *iv, double lo, double hi);

/* About how many more pairs would put the interval on one side of the
 * boundary nearest its estimate, assuming the spread stays as it is (the
 * half-width shrinks as t(n-1)/sqrt(n)).  log_scale: the interval is a
 * ratio's.  Returns 0 when already decided, SIZE_MAX when the estimate
 * sits on a boundary (no number of rounds would decide). */
size_t mmp_interval_more(const struct mmp_interval *iv, double lo, double hi, int log_scale);

/* The three outcomes every answer has. */
enum mmp_outcome {
	MMP_OUTCOME_YES,
	MMP_OUTCOME_NO,
	MMP_OUTCOME_INCONCLUSIVE,
};
const char *mmp_outcome_name(enum mmp_outcome o);

#endif
