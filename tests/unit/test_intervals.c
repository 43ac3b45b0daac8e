/* The interval method on synthetic samples with a known answer: the true
 * ratio (or difference) falls inside the 95% interval about 95% of the
 * time, for few and for many rounds, with symmetric and with right-skewed
 * multiplicative noise; the bands and the "more rounds" estimate. */
#include "helpers.h"

#include <math.h>

#include "mmprof/intervals.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_ratio_coverage),
		cmocka_unit_test(test_diff_coverage),
		cmocka_unit_test(test_bands_and_more),
		cmocka_unit_test(test_more_rounds_estimate),
	};
	return cmocka_run_group_tests_name("intervals", tests, NULL, NULL);
}
