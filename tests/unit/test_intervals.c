/* The interval method on synthetic samples with a known answer: the true
 * ratio (or difference) falls inside the 95% interval about 95% of the
 * time, for few and for many rounds, with symmetric and with right-skewed
 * multiplicative noise; the bands and the "more rounds" estimate.  The same
 * for Welch's unpaired interval (mmprof compare), with samples of unequal
 * sizes and spreads. */
#include "helpers.h"

#include <math.h>

#include "result/intervals.h"
#include "result/result.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* A timing: true value x noise; skewed noise is 1 + an exponential (a
 * machine that is sometimes slower, never faster, than its best). */
static double timing(double truth, int skewed, double round_factor)
{
	double noise = skewed ? 1 + 0.1 * -log(uniform()) : exp(0.05 * normal());
	return truth * noise * round_factor;
}

static double coverage(size_t n, int skewed, double ratio, int trials)
{
	double a[64], b[64];
	int inside = 0;
	for (int t = 0; t < trials; t++) {
		for (size_t i = 0; i < n; i++) {
			/* Drift shared by the two runs of one round: pairing removes it. */
			double round = exp(0.3 * normal());
			a[i] = timing(100 * ratio, skewed, round);
			b[i] = timing(100, skewed, round);
		}
		struct mmp_interval iv;
		mmp_interval_ratio(a, b, n, &iv);
		assert_true(iv.valid);
		assert_true(iv.low <= iv.estimate && iv.estimate <= iv.high);
		inside += iv.low <= ratio && ratio <= iv.high;
	}
	return (double)inside / trials;
}

static void test_ratio_coverage(void **state)
{
	(void)state;
	static const size_t ns[] = { 3, 5, 10, 30 };
	for (size_t k = 0; k < 4; k++) {
		double c = coverage(ns[k], 0, 1.7, 4000);
		print_message("# lognormal noise, n=%zu: %.1f%% inside\n", ns[k], 100 * c);
		assert_true(c > 0.935 && c < 0.965);
		c = coverage(ns[k], 1, 0.6, 4000);
		print_message("# skewed noise, n=%zu: %.1f%% inside\n", ns[k], 100 * c);
		/* Exponential noise is not log-normal: allow a little more. */
		assert_true(c > 0.92 && c < 0.975);
	}
}

static void test_diff_coverage(void **state)
{
	double a[10], b[10];
	int inside = 0;
	(void)state;
	for (int t = 0; t < 4000; t++) {
		for (int i = 0; i < 10; i++) {
			double round = 5 * normal();
			a[i] = 12 + round + normal();
			b[i] = 9.5 + round + normal();
		}
		struct mmp_interval iv;
		mmp_interval_diff(a, b, 10, &iv);
		inside += iv.low <= 2.5 && 2.5 <= iv.high;
	}
	print_message("# differences, n=10: %.1f%% inside\n", inside / 40.0);
	assert_true(inside > 0.935 * 4000 && inside < 0.965 * 4000);
}

static void test_t_quantiles(void **state)
{
	(void)state;
	assert_true(fabs(mmp_t975(1) - 12.706) < 1e-3);
	assert_true(fabs(mmp_t975(4) - 2.776) < 1e-3);
	assert_true(fabs(mmp_t975(50) - 2.009) < 2e-3); /* tables: 2.0086 */
	assert_true(fabs(mmp_t975(1000) - 1.962) < 2e-3);
	assert_true(mmp_t975(0) > 1e300);
	for (size_t df = 1; df < 500; df++)
		assert_true(mmp_t975(df + 1) <= mmp_t975(df));
}

static void test_bands_and_more(void **state)
{
	(void)state;
	struct mmp_interval iv = { .estimate = 1.10, .low = 1.07, .high = 1.13, .n = 5, .valid = 1 };
	assert_int_equal(mmp_interval_band(&iv, 0, 1.05), MMP_BAND_ABOVE);
	assert_int_equal(mmp_interval_more(&iv, 0, 1.05, 1), 0);
	iv.low = 1.02;
	assert_int_equal(mmp_interval_band(&iv, 0, 1.05), MMP_BAND_UNDECIDED);
	size_t more = mmp_interval_more(&iv, 0, 1.05, 1);
	/* Half-width ~0.055 on the log scale must shrink below ~0.047. */
	assert_true(more >= 1 && more < 10);
	iv = (struct mmp_interval){ .estimate = 1.0, .low = 0.99, .high = 1.01, .n = 5, .valid = 1 };
	assert_int_equal(mmp_interval_band(&iv, 1 / 1.05, 1.05), MMP_BAND_WITHIN);
	iv = (struct mmp_interval){ .estimate = 0.5, .low = 0.4, .high = 0.6, .n = 5, .valid = 1 };
	assert_int_equal(mmp_interval_band(&iv, 1 / 1.05, 1.05), MMP_BAND_BELOW);
	/* Sitting on the boundary: nothing would decide it. */
	iv = (struct mmp_interval){ .estimate = 1.05, .low = 1.0, .high = 1.1, .n = 5, .valid = 1 };
	assert_int_equal(mmp_interval_more(&iv, 0, 1.05, 1), SIZE_MAX);
	/* One pair: no interval; one more would give one. */
	double a = 2, b = 1;
	mmp_interval_ratio(&a, &b, 1, &iv);
	assert_false(iv.valid);
	assert_int_equal(mmp_interval_band(&iv, 0, 1.05), MMP_BAND_UNDECIDED);
	assert_int_equal(mmp_interval_more(&iv, 0, 1.05, 1), 1);
	assert_string_equal(mmp_outcome_name(MMP_OUTCOME_INCONCLUSIVE), "inconclusive");
}

/* The estimate "about N more rounds" is about right: with the N it gives,
 * a fresh sample of that size decides most of the time. */
static void test_more_rounds_estimate(void **state)
{
	(void)state;
	double a[400], b[400];
	int decided = 0, trials = 300;
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < 5; i++) {
			a[i] = timing(108, 0, 1);
			b[i] = timing(100, 0, 1);
		}
		struct mmp_interval iv;
		mmp_interval_ratio(a, b, 5, &iv);
		size_t more = mmp_interval_more(&iv, 0, 1.05, 1);
		if (more == 0 || more == SIZE_MAX || more > 390)
			continue;
		for (size_t i = 5; i < 5 + more; i++) {
			a[i] = timing(108, 0, 1);
			b[i] = timing(100, 0, 1);
		}
		mmp_interval_ratio(a, b, 5 + more, &iv);
		decided += mmp_interval_band(&iv, 0, 1.05) != MMP_BAND_UNDECIDED;
	}
	print_message("# decided after the estimated rounds: %d of %d\n", decided, trials);
	assert_true(decided > trials / 3);
}

static void test_t_fractional(void **state)
{
	(void)state;
	for (size_t df = 1; df < 200; df++)
		assert_true(fabs(mmp_t975_frac((double)df) - mmp_t975(df)) < 1e-12);
	double t = mmp_t975_frac(9.5);
	assert_true(t < mmp_t975(9) && t > mmp_t975(10));
	assert_true(fabs(mmp_t975_frac(0.3) - mmp_t975(1)) < 1e-12);
	for (double df = 1; df < 60; df += 0.25)
		assert_true(mmp_t975_frac(df + 0.25) <= mmp_t975_frac(df));
}

/* A fixed sample against values computed apart (Python, the textbook
 * formulas on the logs). */
static void test_welch_reference(void **state)
{
	(void)state;
	const double a[] = { 10.2, 11.1, 9.8, 10.5, 10.9 };
	const double b[] = { 12.0, 13.5, 11.2, 14.1, 12.7, 13.3, 12.9 };
	struct mmp_interval iv;
	mmp_interval_welch_ratio(a, 5, b, 7, &iv);
	assert_true(iv.valid);
	assert_int_equal(iv.n, 12);
	assert_true(fabs(iv.df - 9.967060370) < 1e-6);
	assert_true(fabs(iv.estimate - 0.8206413601) < 1e-9);
	double se = sqrt(0.002520270841367126 / 5 + 0.005960673089812626 / 7);
	double half = mmp_t975_frac(iv.df) * se;
	assert_true(fabs(log(iv.low) - (log(iv.estimate) - half)) < 1e-12);
	assert_true(fabs(log(iv.high) - (log(iv.estimate) + half)) < 1e-12);
	/* Equal spreads and sizes: the df is the pooled test's, 2n - 2. */
	assert_true(fabs(mmp_interval_welch_df(0.01, 6, 0.01, 6) - 10) < 1e-12);
	/* One sample without spread: the other's n - 1. */
	assert_true(fabs(mmp_interval_welch_df(0, 4, 0.02, 9) - 8) < 1e-12);
	assert_true(fabs(mmp_interval_welch_df(0, 4, 0, 9) - 11) < 1e-12);
	/* One value on a side: no interval. */
	mmp_interval_welch_ratio(a, 1, b, 7, &iv);
	assert_false(iv.valid);
	assert_int_equal(mmp_interval_band(&iv, 1 / 1.05, 1.05), MMP_BAND_UNDECIDED);
	/* Values that are not times are left out. */
	const double c[] = { 10, -1, 0, 10.5, 9.5 };
	mmp_interval_welch_ratio(c, 5, c, 5, &iv);
	assert_int_equal(iv.n, 6);
	assert_true(fabs(iv.estimate - 1) < 1e-12);
}

/* Two independent samples, as two CSVs give: no round is shared, so there
 * is no pairing to lean on; the spreads and sizes differ. */
static double welch_coverage(size_t na, double sa, size_t nb, double sb, int skewed,
			     int trials)
{
	double a[64], b[64], ratio = 1.2;
	int inside = 0;
	for (int t = 0; t < trials; t++) {
		for (size_t i = 0; i < na; i++)
			a[i] = 100 * ratio * (skewed ? 1 + sa * -log(uniform()) : exp(sa * normal()));
		for (size_t i = 0; i < nb; i++)
			b[i] = 100 * (skewed ? 1 + sb * -log(uniform()) : exp(sb * normal()));
		struct mmp_interval iv;
		mmp_interval_welch_ratio(a, na, b, nb, &iv);
		assert_true(iv.valid);
		assert_true(iv.low <= iv.estimate && iv.estimate <= iv.high);
		/* Skewed noise moves both geometric means by the same factor
		 * only when the spreads are equal: the truth is then still
		 * ratio, which is all this case asks. */
		inside += iv.low <= ratio && ratio <= iv.high;
	}
	return (double)inside / trials;
}

static void test_welch_coverage(void **state)
{
	(void)state;
	static const struct {
		size_t na;
		double sa;
		size_t nb;
		double sb;
	} cases[] = {
		{ 3, 0.05, 3, 0.05 },  { 5, 0.05, 5, 0.05 },  { 3, 0.02, 8, 0.15 },
		{ 8, 0.15, 3, 0.02 },  { 10, 0.10, 30, 0.03 }, { 5, 0.01, 5, 0.2 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double c = welch_coverage(cases[k].na, cases[k].sa, cases[k].nb, cases[k].sb, 0,
					  4000);
		print_message("# welch, log-normal, n=%zu sd=%.2f vs n=%zu sd=%.2f: %.1f%% inside\n",
			      cases[k].na, cases[k].sa, cases[k].nb, cases[k].sb, 100 * c);
		assert_true(c > 0.935 && c < 0.97);
	}
	static const size_t ns[] = { 5, 10 };
	for (size_t k = 0; k < 2; k++) {
		double c = welch_coverage(ns[k], 0.1, ns[k], 0.1, 1, 4000);
		print_message("# welch, skewed, n=%zu each: %.1f%% inside\n", ns[k], 100 * c);
		/* Exponential noise is not log-normal: allow a little more. */
		assert_true(c > 0.92 && c < 0.98);
	}
}

/* What pairing would wrongly claim: a pooled (equal-variance) interval on
 * samples of unequal size and spread misses far more than 5% of the time;
 * Welch's does not.  This is why compare does not pool. */
static void test_welch_against_pooled(void **state)
{
	(void)state;
	double a[3], b[12];
	int pooled = 0, welch = 0, trials = 4000;
	for (int t = 0; t < trials; t++) {
		double ma = 0, mb = 0, ssa = 0, ssb = 0;
		for (int i = 0; i < 3; i++)
			ma += (a[i] = log(100 * exp(0.2 * normal()))) / 3;
		for (int i = 0; i < 12; i++)
			mb += (b[i] = log(100 * exp(0.02 * normal()))) / 12;
		for (int i = 0; i < 3; i++)
			ssa += (a[i] - ma) * (a[i] - ma);
		for (int i = 0; i < 12; i++)
			ssb += (b[i] - mb) * (b[i] - mb);
		double sp = sqrt((ssa + ssb) / 13 * (1.0 / 3 + 1.0 / 12));
		pooled += fabs(ma - mb) <= mmp_t975(13) * sp;
		for (int i = 0; i < 3; i++)
			a[i] = exp(a[i]);
		for (int i = 0; i < 12; i++)
			b[i] = exp(b[i]);
		struct mmp_interval iv;
		mmp_interval_welch_ratio(a, 3, b, 12, &iv);
		welch += iv.low <= 1 && 1 <= iv.high;
	}
	print_message("# 3 noisy vs 12 quiet: pooled %.1f%%, welch %.1f%% inside\n",
		      100.0 * pooled / trials, 100.0 * welch / trials);
	assert_true(pooled < 0.90 * trials);
	assert_true(welch > 0.93 * trials);
}

/* Every round counts, up to repeat's limit: 6000 rounds of which the last
 * 1904 are twice as slow.  Before, comparisons kept the first 4096 rounds
 * (and intervals 4096 values) and said 1.00x without a word. */
static void test_every_round_used(void **state)
{
	enum { N = 6000, SLOW = 1904 };
	static double ea[N], eb[N];
	static unsigned char quiet[N];
	struct mmp_run_result a = { .state = MMP_RUN_DONE, .elapsed_ns = ea, .disturbed = quiet,
				    .n = N, .cap = N };
	struct mmp_run_result b = a;
	struct mmp_interval iv;
	int disturbed = 1;
	(void)state;

	b.elapsed_ns = eb;
	for (size_t i = 0; i < N; i++) {
		ea[i] = i < N - SLOW ? 100 : 200;
		eb[i] = 100;
	}
	mmp_results_ratio(&a, &b, &iv, &disturbed);
	double want = exp((double)SLOW / N * log(2.0));
	assert_int_equal(iv.n, N);
	assert_false(disturbed);
	assert_true(fabs(iv.estimate - want) < 1e-9);
	assert_true(iv.low < want && want < iv.high);

	mmp_interval_mean(ea, N, &iv);
	assert_true(fabs(iv.estimate - (100.0 * (N - SLOW) + 200.0 * SLOW) / N) < 1e-9);
	mmp_interval_diff(ea, eb, N, &iv);
	assert_int_equal(iv.n, N);
	assert_true(fabs(iv.estimate - 100.0 * SLOW / N) < 1e-9);
	assert_true(MMP_MAX_ROUNDS >= N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_ratio_coverage),
		cmocka_unit_test(test_diff_coverage),
		cmocka_unit_test(test_bands_and_more),
		cmocka_unit_test(test_more_rounds_estimate),
		cmocka_unit_test(test_t_fractional),
		cmocka_unit_test(test_welch_reference),
		cmocka_unit_test(test_welch_coverage),
		cmocka_unit_test(test_welch_against_pooled),
		cmocka_unit_test(test_every_round_used),
	};
	return cmocka_run_group_tests_name("intervals", tests, NULL, NULL);
}
