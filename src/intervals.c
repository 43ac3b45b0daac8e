/* Paired t-intervals (see intervals.h). */
#include "mmprof/intervals.h"

#include <math.h>
#include <stdint.h>

/* Student's t, 97.5% quantile, df 1..30, then 40, 60, 120 and infinity. */
static const double t_small[31] = {
	0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
	2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};
static const struct {
	double df, t;
} t_large[] = { { 30, 2.042 }, { 40, 2.021 }, { 60, 2.000 }, { 120, 1.980 }, { INFINITY, 1.960 } };

double mmp_t975(size_t df)
{
	if (df == 0)
		return INFINITY;
	if (df <= 30)
		return t_small[df];
	/* Between the table's rows the quantile is close to linear in 1/df. */
	for (size_t i = 1; i < sizeof(t_large) / sizeof(t_large[0]); i++) {
		if ((double)df > t_large[i].df)
			continue;
		double x = 1.0 / (double)df, x0 = 1.0 / t_large[i - 1].df,
		       x1 = isinf(t_large[i].df) ? 0 : 1.0 / t_large[i].df;
		return t_large[i].t + (t_large[i - 1].t - t_large[i].t) * (x - x1) / (x0 - x1);
	}
	return 1.960;
}

static void t_interval(const double *v, size_t n, struct mmp_interval *out)
{
	double sum = 0, ss = 0;
	out->n = n;
	out->valid = n >= 2;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double mean = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	double half = n >= 2 ? mmp_t975(n - 1) * sqrt(ss / (double)(n - 1) / (double)n) : INFINITY;
	out->estimate = mean;
	out->low = mean - half;
	out->high = mean + half;
}

void mmp_interval_mean(const double *v, size_t n, struct mmp_interval *out)
{
	t_interval(v, n, out);
}

/* At most this many pairs go into one interval (a config's ceiling is far
 * below it); beyond it values are ignored rather than allocated for. */
#define MAX_PAIRS 4096

void mmp_interval_ratio(const double *a, const double *b, size_t n, struct mmp_interval *out)
{
	double logs[MAX_PAIRS];
	size_t m = 0;
	for (size_t i = 0; i < n && m < MAX_PAIRS; i++)
		if (a[i] > 0 && b[i] > 0)
			logs[m++] = log(a[i] / b[i]);
	t_interval(logs, m, out);
	out->estimate = exp(out->estimate);
	out->low = exp(out->low);
	out->high = exp(out->high);
}

void mmp_interval_diff(const double *a, const double *b, size_t n, struct mmp_interval *out)
{
	double d[MAX_PAIRS];
	size_t m = n < MAX_PAIRS ? n : MAX_PAIRS;
	for (size_t i = 0; i < m; i++)
		d[i] = a[i] - b[i];
	t_interval(d, m, out);
}

enum mmp_band mmp_interval_band(const struct mmp_interval *iv, double lo, double hi)
{
	if (!iv->valid)
		return MMP_BAND_UNDECIDED;
	if (iv->high < lo)
		return MMP_BAND_BELOW;
	if (iv->low > hi)
		return MMP_BAND_ABOVE;
	if (iv->low >= lo && iv->high <= hi)
		return MMP_BAND_WITHIN;
	return MMP_BAND_UNDECIDED;
}

size_t mmp_interval_more(const struct mmp_interval *iv, double lo, double hi, int log_scale)
{
	if (iv->valid && mmp_interval_band(iv, lo, hi) != MMP_BAND_UNDECIDED)
		return 0;
	if (!iv->valid)
		return iv->n >= 2 ? SIZE_MAX : 2 - iv->n;
	double e = iv->estimate, l = iv->low, h = iv->high;
	if (log_scale) {
		e = log(e), l = log(l), h = log(h);
		lo = lo > 0 ? log(lo) : -INFINITY;
		hi = log(hi);
	}
	/* The room between the estimate and the boundaries of its region. */
	double room;
	if (e > hi)
		room = e - hi;
	else if (e < lo)
		room = lo - e;
	else
		room = fmin(hi - e, e - lo);
	double half = (h - l) / 2;
	if (!(room > 1e-12 * fabs(e) + 1e-300) || !isfinite(half))
		return SIZE_MAX;
	/* half(n) = t(n-1) s / sqrt(n): find the n where it fits in room. */
	double s = half / mmp_t975(iv->n - 1) * sqrt((double)iv->n);
	for (size_t n = iv->n + 1; n <= 100000; n++)
		if (mmp_t975(n - 1) * s / sqrt((double)n) < room)
			return n - iv->n;
	return SIZE_MAX;
}

const char *mmp_outcome_name(enum mmp_outcome o)
{
	switch (o) {
	case MMP_OUTCOME_YES:
		return "yes";
	case MMP_OUTCOME_NO:
		return "no";
	case MMP_OUTCOME_INCONCLUSIVE:
		break;
	}
	return "inconclusive";
}
