/* CSV fields are quoted exactly when they need it (RFC 4180). */
#include "helpers.h"

#include "report/csv.h"

static void field(const char *value, int last, const char *want)
{
	char buf[256] = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	mmp_csv_field(f, value, last);
	fclose(f);
	assert_string_equal(buf, want);
}

static void test_quoting(void **state)
{
	(void)state;
	field("plain", 0, "plain,");
	field("plain", 1, "plain\n");
	field("", 0, ",");
	field("AMD EPYC 7B13, 64-Core", 0, "\"AMD EPYC 7B13, 64-Core\",");
	field("say \"hi\"", 0, "\"say \"\"hi\"\"\",");
	field("two\nlines", 1, "\"two\nlines\"\n");
}

static void test_columns_listed(void **state)
{
	char buf[8192] = { 0 };
	(void)state;
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	mmp_csv_print_columns(f, 0);
	fclose(f);
	assert_true(strncmp(buf, "schema_version ", 15) == 0);
	assert_non_null(strstr(buf, "\nresult_ok "));
	assert_non_null(strstr(buf, "\nkernel_release "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_columns_listed),
	};
	return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
