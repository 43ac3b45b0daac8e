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
 * When two samples were not measured side by side (two CSVs: mmprof
 * compare) nothing pairs them, and the drift between the two invocations
 * is part of what is compared.  Then the interval is Welch's: a t-interval
 * on the difference of the two means of log times, with the standard error
 * sqrt(s_a^2/n_a + s_b^2/n_b) and the Welch-Satterthwaite degrees of
 * freedom, which do not assume the two spreads are equal (one machine may
 * be noisier than the other).
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
	size_t n;  /* pairs used (Welch: values of both samples) */
	int valid; /* n >= 2 (Welch: each sample >= 2): an interval exists */
	double df; /* degrees of freedom of the t quantile (Welch: not a whole number) */
};

/* The 97.5% quantile of Student's t with df degrees of freedom (the
 * two-sided 95% interval's multiplier). */
double mmp_t975(size_t df);
/* The same for a fractional df (Welch), interpolated linearly in 1/df
 * between the whole numbers around it; df below 1 is taken as 1. */
double mmp_t975_frac(double df);

/* a_i / b_i over n pairs (all values > 0). */
void mmp_interval_ratio(const double *a, const double *b, size_t n, struct mmp_interval *out);
/* a_i - b_i over n pairs. */
void mmp_interval_diff(const double *a, const double *b, size_t n, struct mmp_interval *out);
/* a / b from two independent samples (all values > 0): the ratio of
 * geometric means, exp(mean log a - mean log b), with Welch's interval on
 * that difference of mean logs.  Values that are not > 0 are left out. */
void mmp_interval_welch_ratio(const double *a, size_t na, const double *b, size_t nb,
			      struct mmp_interval *out);
/* The Welch-Satterthwaite degrees of freedom of two samples' variances
 * va, vb over na, nb values (na + nb - 2 when both are 0). */
double mmp_interval_welch_df(double va, size_t na, double vb, size_t nb);
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
