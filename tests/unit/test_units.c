/* Size suffixes, overflow, integers, formatting; "did you mean". */
#include "helpers.h"

#include <errno.h>

#include "util/lists.h"
#include "util/suggest.h"
#include "util/units.h"

static uint64_t size_of(const char *text)
{
	uint64_t v = 0;
	assert_int_equal(mmp_parse_size(text, &v), 0);
	return v;
}

static void test_size_suffixes(void **state)
{
	(void)state;
	assert_int_equal(size_of("512"), 512);
	assert_int_equal(size_of("0"), 0);
	assert_int_equal(size_of("4K"), 4096);
	assert_int_equal(size_of("4k"), 4096);
	assert_int_equal(size_of("4KiB"), 4096);
	assert_int_equal(size_of("4KB"), 4096);
	assert_int_equal(size_of("100M"), 100ull << 20);
	assert_int_equal(size_of("100MiB"), 100ull << 20);
	assert_int_equal(size_of("1G"), 1ull << 30);
	assert_int_equal(size_of("1gib"), 1ull << 30);
	assert_int_equal(size_of("2T"), 2ull << 40);
	assert_int_equal(size_of("512B"), 512);
}

static void test_size_errors(void **state)
{
	uint64_t v = 7;
	(void)state;
	assert_int_equal(mmp_parse_size("", &v), -EINVAL);
	assert_int_equal(mmp_parse_size("K", &v), -EINVAL);
	assert_int_equal(mmp_parse_size("-1", &v), -EINVAL);
	assert_int_equal(mmp_parse_size("1.5G", &v), -EINVAL);
	assert_int_equal(mmp_parse_size("4X", &v), -EINVAL);
	assert_int_equal(mmp_parse_size("4 K", &v), -EINVAL);
	assert_int_equal(mmp_parse_size("4KiBs", &v), -EINVAL);
	/* 2^64 does not fit; neither does 2^24 TiB. */
	assert_int_equal(mmp_parse_size("18446744073709551616", &v), -ERANGE);
	assert_int_equal(mmp_parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(mmp_parse_size("17179869184G", &v), -ERANGE);
	assert_int_equal(size_of("16777215T"), 16777215ull << 40);
	assert_int_equal(v, 7); /* untouched on error */
}

static void test_u64(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(mmp_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(mmp_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(mmp_parse_u64("1K", &v), -EINVAL);
	assert_int_equal(mmp_parse_u64("+1", &v), -EINVAL);
	assert_int_equal(mmp_parse_u64("", &v), -EINVAL);
}

static void test_format_size(void **state)
{
	char buf[32];
	(void)state;
	assert_string_equal(mmp_format_size(100ull << 20, buf, sizeof(buf)), "100MiB");
	assert_string_equal(mmp_format_size(1024, buf, sizeof(buf)), "1KiB");
	assert_string_equal(mmp_format_size(1000, buf, sizeof(buf)), "1000B");
	assert_string_equal(mmp_format_size(1536, buf, sizeof(buf)), "1536B");
	assert_string_equal(mmp_format_size(1ull << 40, buf, sizeof(buf)), "1TiB");
	assert_string_equal(mmp_format_size(1ull << 50, buf, sizeof(buf)), "1024TiB");
}

static void test_suggest(void **state)
{
	static const char *const keys[] = { "file", "size", "threads", "placement", "buffer",
					    "access", "refcount" };
	(void)state;
	assert_int_equal(mmp_edit_distance("threds", "threads"), 1);
	assert_int_equal(mmp_edit_distance("", "abc"), 3);
	assert_int_equal(mmp_edit_distance("Size", "size"), 0);
	assert_string_equal(mmp_suggest("threds", keys, 7), "threads");
	assert_string_equal(mmp_suggest("placment", keys, 7), "placement");
	assert_string_equal(mmp_suggest("bufsize", keys, 7), "buffer");
	assert_string_equal(mmp_suggest("refcnt", keys, 7), "refcount");
	assert_null(mmp_suggest("zzzzzz", keys, 7));
	assert_null(mmp_suggest("x", keys, 7));
}

/* A joined list is whole names, and a cut is shown, never a shorter name. */
static void test_list_addf(void **state)
{
	char buf[16] = "";
	(void)state;
	assert_int_equal(mmp_list_addf(buf, sizeof(buf), ", ", "%s", "file"), 0);
	assert_int_equal(mmp_list_addf(buf, sizeof(buf), ", ", "{%s}", "size"), 0);
	assert_string_equal(buf, "file, {size}");
	/* ", access" needs 21 bytes: left out whole, the cut marked. */
	assert_int_equal(mmp_list_addf(buf, sizeof(buf), ", ", "%s", "access"), -ENOSPC);
	assert_string_equal(buf, "file, {size}...");
	char room[20] = "one";
	assert_int_equal(mmp_list_addf(room, sizeof(room), ", ", "%s", "a-long-name-here"), -ENOSPC);
	assert_string_equal(room, "one, ...");
	/* Not even "..." fits after it: the end of the last name gives way. */
	char tight[8] = "abcdef";
	assert_int_equal(mmp_list_addf(tight, sizeof(tight), " ", "%s", "g"), -ENOSPC);
	assert_string_equal(tight, "abcd...");
	char tiny[3] = "";
	assert_int_equal(mmp_list_addf(tiny, sizeof(tiny), " ", "%s", "abc"), -ENOSPC);
	assert_string_equal(tiny, "..");
	assert_int_equal(mmp_list_addf(tiny, 0, " ", "%s", "x"), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_suffixes), cmocka_unit_test(test_size_errors),
		cmocka_unit_test(test_u64),	      cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_suggest),	      cmocka_unit_test(test_list_addf),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
