/* Paired t-intervals, and Welch's for unpaired samples (see intervals.h). */
#include "result/intervals.h"

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

double mmp_t975_frac(double df)
{
	if (!(df > 1))
		return mmp_t975(1);
	double lo = floor(df);
	if (df == lo || lo >= 1e9)
		return mmp_t975((size_t)lo);
	/* The quantile is close to linear in 1/df (as between t_large's rows). */
	double x = 1 / df, x0 = 1 / lo, x1 = 1 / (lo + 1);
	double t0 = mmp_t975((size_t)lo), t1 = mmp_t975((size_t)lo + 1);
	return t1 + (t0 - t1) * (x - x1) / (x0 - x1);
}

/* The values of one interval, read where they lie: v[i], log(a[i]/b[i])
 * (pairs with a value <= 0 skipped) or a[i] - b[i].  No copy, so no cap:
 * every round recorded (up to repeat's 100,000) is used. */
enum sample_kind { SAMPLE_VALUES, SAMPLE_LOG_RATIOS, SAMPLE_DIFFS };

static int sample_at(enum sample_kind kind, const double *a, const double *b, size_t i,
		     double *v)
{
	switch (kind) {
	case SAMPLE_LOG_RATIOS:
		if (!(a[i] > 0 && b[i] > 0))
			return 0;
		*v = log(a[i] / b[i]);
		return 1;
	case SAMPLE_DIFFS:
		*v = a[i] - b[i];
		return 1;
	case SAMPLE_VALUES:
		break;
	}
	*v = a[i];
	return 1;
}

static void t_interval(enum sample_kind kind, const double *a, const double *b, size_t count,
		       struct mmp_interval *out)
{
	double sum = 0, ss = 0, v;
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (sample_at(kind, a, b, i, &v)) {
			sum += v;
			n++;
		}
	double mean = n ? sum / (double)n : 0;
	for (size_t i = 0; i < count; i++)
		if (sample_at(kind, a, b, i, &v))
			ss += (v - mean) * (v - mean);
	out->n = n;
	out->valid = n >= 2;
	double half = n >= 2 ? mmp_t975(n - 1) * sqrt(ss / (double)(n - 1) / (double)n) : INFINITY;
	out->estimate = mean;
	out->low = mean - half;
	out->high = mean + half;
	out->df = n >= 2 ? (double)(n - 1) : 0;
}

void mmp_interval_mean(const double *v, size_t n, struct mmp_interval *out)
{
	t_interval(SAMPLE_VALUES, v, NULL, n, out);
}

void mmp_interval_ratio(const double *a, const double *b, size_t n, struct mmp_interval *out)
{
	t_interval(SAMPLE_LOG_RATIOS, a, b, n, out);
	out->estimate = exp(out->estimate);
	out->low = exp(out->low);
	out->high = exp(out->high);
}

void mmp_interval_diff(const double *a, const double *b, size_t n, struct mmp_interval *out)
{
	t_interval(SAMPLE_DIFFS, a, b, n, out);
}

double mmp_interval_welch_df(double va, size_t na, double vb, size_t nb)
{
	if (na < 2 || nb < 2)
		return 0;
	double qa = va / (double)na, qb = vb / (double)nb;
	if (!(qa + qb > 0))
		return (double)(na + nb - 2);
	return (qa + qb) * (qa + qb) /
	       (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
}

/* Mean and sample variance of the logs of the values > 0; returns how
 * many were used. */
static size_t log_moments(const double *v, size_t n, double *mean, double *var)
{
	double sum = 0, ss = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > 0) {
			sum += log(v[i]);
			m++;
		}
	*mean = m ? sum / (double)m : 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > 0) {
			double d = log(v[i]) - *mean;
			ss += d * d;
		}
	*var = m >= 2 ? ss / (double)(m - 1) : 0;
	return m;
}

void mmp_interval_welch_ratio(const double *a, size_t na, const double *b, size_t nb,
			      struct mmp_interval *out)
{
	double ma, va, mb, vb;
	size_t ma_n = log_moments(a, na, &ma, &va), mb_n = log_moments(b, nb, &mb, &vb);
	double diff = ma - mb;

	out->n = ma_n + mb_n;
	out->valid = ma_n >= 2 && mb_n >= 2;
	out->estimate = exp(diff);
	out->df = mmp_interval_welch_df(va, ma_n, vb, mb_n);
	if (!out->valid) {
		out->low = 0;
		out->high = INFINITY;
		return;
	}
	double half = mmp_t975_frac(out->df) * sqrt(va / (double)ma_n + vb / (double)mb_n);
	out->low = exp(diff - half);
	out->high = exp(diff + half);
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
