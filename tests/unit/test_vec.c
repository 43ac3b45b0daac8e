/* Growable arrays: doubling, contents kept, overflow and a refused
 * allocation leave the array as it was. */
#include "helpers.h"

#include <errno.h>

#include "util/vec.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void test_grown(void **state)
{
	(void)state;
	assert_int_equal(mmp_vec_grown(0, 1), 8);
	assert_int_equal(mmp_vec_grown(0, 0), 8);
	assert_int_equal(mmp_vec_grown(8, 8), 8);
	assert_int_equal(mmp_vec_grown(8, 9), 16);
	assert_int_equal(mmp_vec_grown(0, 100), 128);
	assert_int_equal(mmp_vec_grown(3, 7), 12);
	/* Doubling past SIZE_MAX: a capacity no resize can reach. */
	assert_true(mmp_vec_grown(SIZE_MAX / 2 + 1, SIZE_MAX) == SIZE_MAX);
	assert_true(mmp_vec_grown(4, SIZE_MAX) == SIZE_MAX);
}

static void test_reserve_appends(void **state)
{
	long *v = NULL;
	size_t n = 0, cap = 0;
	(void)state;
	for (long i = 0; i < 1000; i++) {
		assert_int_equal(MMP_VEC_RESERVE(v, cap, n + 1), 0);
		assert_true(cap >= n + 1);
		v[n++] = i * 3;
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], (long)i * 3);
	/* Room already there: nothing moves. */
	long *before = v;
	assert_int_equal(MMP_VEC_RESERVE(v, cap, 1024), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	free(v);
}

/* Two arrays sharing one count and capacity, as a run's times and flags. */
static void test_parallel(void **state)
{
	double *t = NULL;
	unsigned char *flag = NULL;
	size_t n = 0, cap = 0;
	(void)state;
	for (int i = 0; i < 50; i++) {
		if (n == cap) {
			size_t c = mmp_vec_grown(cap, n + 1);
			assert_int_equal(MMP_VEC_RESIZE(t, c), 0);
			assert_int_equal(MMP_VEC_RESIZE(flag, c), 0);
			cap = c;
		}
		t[n] = i / 2.0;
		flag[n++] = (unsigned char)(i & 1);
	}
	assert_int_equal(cap, 64);
	for (size_t i = 0; i < n; i++) {
		assert_true(t[i] == (double)i / 2.0);
		assert_int_equal(flag[i], i & 1);
	}
	free(t);
	free(flag);
}

static void test_overflow(void **state)
{
	double *v = NULL;
	size_t cap = 0;
	(void)state;
	assert_int_equal(MMP_VEC_RESERVE(v, cap, 3), 0);
	v[0] = 1.5, v[1] = 2.5, v[2] = 3.5;
	double *before = v;
	/* cap * elem past SIZE_MAX: refused before realloc sees it. */
	assert_int_equal(MMP_VEC_RESIZE(v, SIZE_MAX / sizeof(double) + 1), -ENOMEM);
	assert_int_equal(MMP_VEC_RESERVE(v, cap, SIZE_MAX), -ENOMEM);
	assert_int_equal(mmp_vec_resize(&v, 2, SIZE_MAX), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 8);
	assert_true(v[0] == 1.5 && v[1] == 2.5 && v[2] == 3.5);
	free(v);
}

static void test_refused(void **state)
{
	(void)state;
#ifdef UNDER_ASAN
	skip(); /* ASan aborts on an allocation that large instead of refusing it */
#else
	char *v = NULL;
	size_t cap = 0;
	assert_int_equal(MMP_VEC_RESERVE(v, cap, 5), 0);
	memcpy(v, "kept", 5);
	char *before = v;
	/* Not an overflow, but more than any address space: realloc says no. */
	assert_int_equal(MMP_VEC_RESERVE(v, cap, SIZE_MAX / 2 + 1), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 8);
	assert_string_equal(v, "kept");
	free(v);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grown),	 cmocka_unit_test(test_reserve_appends),
		cmocka_unit_test(test_parallel), cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests_name("vec", tests, NULL, NULL);
}
