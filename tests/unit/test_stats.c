/* Median, mean, sample standard deviation, CV. */
#include "helpers.h"

#include <errno.h>

#include "result/stats.h"

static void test_odd_even(void **state)
{
	struct mmp_stats st;
	const double odd[] = { 5, 1, 3 };
	const double even[] = { 4, 1, 3, 2 };
	(void)state;
	assert_int_equal(mmp_stats_compute(odd, 3, &st), 0);
	assert_float_equal(st.median, 3, 1e-12);
	assert_float_equal(st.mean, 3, 1e-12);
	assert_float_equal(st.min, 1, 1e-12);
	assert_float_equal(st.max, 5, 1e-12);
	assert_float_equal(st.stddev, 2, 1e-12); /* sqrt((4+4+0)/2) */
	assert_float_equal(st.cv, 2.0 / 3.0, 1e-12);
	assert_int_equal(mmp_stats_compute(even, 4, &st), 0);
	assert_float_equal(st.median, 2.5, 1e-12);
	assert_float_equal(odd[0], 5, 0); /* input not reordered */
}

static void test_single_and_empty(void **state)
{
	struct mmp_stats st;
	const double one[] = { 42 };
	(void)state;
	assert_int_equal(mmp_stats_compute(one, 1, &st), 0);
	assert_float_equal(st.median, 42, 0);
	assert_float_equal(st.stddev, 0, 0);
	assert_float_equal(st.cv, 0, 0);
	assert_int_equal(mmp_stats_compute(one, 0, &st), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd_even),
		cmocka_unit_test(test_single_and_empty),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
