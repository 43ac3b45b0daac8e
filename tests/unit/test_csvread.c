/* The CSV reader: RFC 4180 quoting, CRLF, cells by name, what the writer
 * (mmp_csv_field) writes reads back, and everything that is not CSV is an
 * error with its line. */
#include "helpers.h"

#include <errno.h>

#include "report/csv.h"
#include "compare/csvread.h"

static void parse_ok(struct mmp_csvread *t, const char *text)
{
	struct mmp_error err = { 0 };
	int rc = mmp_csvread_parse(t, text, strlen(text), "t.csv", &err);
	if (rc)
		fail_msg("parse failed: %s", err.msg);
}

/* Parsing fails with -EINVAL and a message containing want. */
static void parse_bad(const char *text, size_t len, const char *want)
{
	struct mmp_csvread t;
	struct mmp_error err = { 0 };
	assert_int_equal(mmp_csvread_parse(&t, text, len, "t.csv", &err), -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_null(t.cell);
}

static void test_quoting(void **state)
{
	struct mmp_csvread t;
	(void)state;
	parse_ok(&t, "\xef\xbb\xbfname,cpu_model,note\r\n"
		     "a,\"AMD EPYC 7B13, 64-Core\",\"say \"\"hi\"\"\"\r\n"
		     "\r\n"
		     "b,,\"two\r\nlines\"\r\n"
		     "c,x,");
	assert_int_equal(t.ncols, 3);
	assert_int_equal(t.nrows, 3);
	int cpu = mmp_csvread_column(&t, "cpu_model"), note = mmp_csvread_column(&t, "note");
	assert_int_equal(mmp_csvread_column(&t, "name"), 0); /* the BOM is not part of it */
	assert_string_equal(mmp_csvread_get(&t, 0, cpu), "AMD EPYC 7B13, 64-Core");
	assert_string_equal(mmp_csvread_get(&t, 0, note), "say \"hi\"");
	assert_string_equal(mmp_csvread_get(&t, 1, cpu), "");
	assert_string_equal(mmp_csvread_get(&t, 1, note), "two\r\nlines");
	assert_string_equal(mmp_csvread_get(&t, 2, note), "");
	/* Lines: the blank line and the quoted line break count. */
	assert_int_equal(mmp_csvread_line(&t, 0), 2);
	assert_int_equal(mmp_csvread_line(&t, 1), 4);
	assert_int_equal(mmp_csvread_line(&t, 2), 6);
	/* A column that is not there reads as empty, never as another one. */
	assert_int_equal(mmp_csvread_column(&t, "host"), -1);
	assert_string_equal(mmp_csvread_get(&t, 0, -1), "");
	assert_string_equal(mmp_csvread_get(&t, 9, 0), "");
	mmp_csvread_free(&t);

	parse_ok(&t, "a\n\"\"\n\"x\"\n");
	assert_int_equal(t.nrows, 2);
	assert_string_equal(mmp_csvread_get(&t, 0, 0), "");
	assert_string_equal(mmp_csvread_get(&t, 1, 0), "x");
	mmp_csvread_free(&t);
}

static void test_not_csv(void **state)
{
	(void)state;
	parse_bad("a,b\n1,2\n3\n", 10, "t.csv:3: 1 fields, but the header has 2");
	parse_bad("a,b\n1,2,3\n", 10, "t.csv:2: 3 fields");
	parse_bad("a,b\n\"1\"x,2\n", 11, "t.csv:2: field 1 has text after its closing quote");
	parse_bad("a,b\n1,2\"3\n", 10, "t.csv:2: field 2 has a quote but does not start");
	parse_bad("a,b\n1,\"2\n3,4\n", 13, "t.csv:2: field 2 opens a quote that is never closed");
	parse_bad("a,b\n1,2\n\0", 9, "t.csv:3: a NUL byte");
	parse_bad("run,x,run\n1,2,3\n", 16, "t.csv:1: the header names column 'run' twice");
	parse_bad("", 0, "t.csv: empty");
	parse_bad("\n\r\n", 3, "t.csv: empty");
}

/* Whatever the writer quotes, the reader gives back. */
static void test_round_trip(void **state)
{
	static const char *const values[] = {
		"plain", "", "a,b", "\"", "\"\"", "x\ny", "x\r\ny", "tab\there", "trailing ",
		"Ünïcode, too", ",", "\r",
	};
	enum { N = sizeof(values) / sizeof(values[0]) };
	char *buf = NULL;
	size_t len = 0;
	(void)state;
	FILE *f = open_memstream(&buf, &len);
	for (int c = 0; c < N; c++) {
		char name[16];
		snprintf(name, sizeof(name), "c%d", c);
		mmp_csv_field(f, name, c + 1 == N);
	}
	for (int r = 0; r < N; r++)
		for (int c = 0; c < N; c++)
			mmp_csv_field(f, values[(r + c) % N], c + 1 == N);
	fclose(f);
	struct mmp_csvread t;
	parse_ok(&t, buf);
	assert_int_equal(t.nrows, N);
	for (int r = 0; r < N; r++)
		for (int c = 0; c < N; c++) {
			char name[16];
			snprintf(name, sizeof(name), "c%d", c);
			assert_string_equal(mmp_csvread_get(&t, (size_t)r,
							    mmp_csvread_column(&t, name)),
					    values[(r + c) % N]);
		}
	mmp_csvread_free(&t);
	free(buf);
}

static void test_load(void **state)
{
	struct mmp_csvread t;
	struct mmp_error err = { 0 };
	char path[600];
	(void)state;
	const char *dir = test_tmpdir();
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	test_write_file(path, "run,elapsed_ns\r\n1,100\r\n2,200\r\n");
	assert_int_equal(mmp_csvread_load(&t, path, &err), 0);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(mmp_csvread_get(&t, 1, mmp_csvread_column(&t, "elapsed_ns")), "200");
	mmp_csvread_free(&t);

	assert_int_equal(mmp_csvread_load(&t, dir, &err), -EISDIR);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_int_equal(mmp_csvread_load(&t, "/dev/zero", &err), -ENODEV);
	snprintf(path, sizeof(path), "%s/missing.csv", dir);
	assert_int_equal(mmp_csvread_load(&t, path, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "missing.csv"));
	snprintf(path, sizeof(path), "%s/bad.csv", dir);
	test_write_file(path, "a,b\n1\n");
	assert_int_equal(mmp_csvread_load(&t, path, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "bad.csv:2: "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_not_csv),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests_name("csvread", tests, NULL, NULL);
}
