/* The exec probe's text handling: commands split like a shell word list
 * (no shell), placeholders filled in, argv quoted back; regexes over a
 * program's output, counts and durations in the formats the seed's
 * programs print. */
#include "helpers.h"

#include <errno.h>

#include "run/capture.h"
#include "run/command.h"

static const struct mmp_command_vars vars = {
	.file = "/data/my file.bin", .size = 104857600, .threads = 2, .access = 1024,
	.pus = "0,1", .npus = 2, .kernel = "zeros", .job = "dotnet_real", .run = 7,
};

/* Expand text and compare with the words expected (NULL-terminated). */
static void expect_words(const char *text, const char *const *want)
{
	struct mmp_argv argv;
	char err[256] = "";
	int rc = mmp_command_expand(text, &vars, &argv, err, sizeof(err));
	if (rc)
		fail_msg("%s: %s", text, err);
	size_t n = 0;
	while (want[n])
		n++;
	if (argv.n != n)
		fail_msg("%s: %zu words, wanted %zu", text, argv.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(argv.v[i], want[i]);
	assert_null(argv.v[n]);
	mmp_command_free(&argv);
}

static void expect_refused(const char *text, const char *part)
{
	struct mmp_argv argv;
	char err[256] = "";
	assert_int_equal(mmp_command_expand(text, NULL, &argv, err, sizeof(err)), -EINVAL);
	if (!strstr(err, part))
		fail_msg("%s: message '%s' lacks '%s'", text, err, part);
	assert_null(argv.v);
}

static void test_split(void **state)
{
	(void)state;
	expect_words("prog a  b\tc", (const char *[]){ "prog", "a", "b", "c", NULL });
	expect_words("prog 'a b' \"c d\" e\\ f", (const char *[]){ "prog", "a b", "c d", "e f", NULL });
	expect_words("prog '' \"\" x", (const char *[]){ "prog", "", "", "x", NULL });
	expect_words("prog \"a\\\"b\\\\c\\n\" 'it'\\''s'",
		     (const char *[]){ "prog", "a\"b\\c\\n", "it's", NULL });
	/* No shell: $VAR and globs reach the program as they are. */
	expect_words("prog $HOME *.bin", (const char *[]){ "prog", "$HOME", "*.bin", NULL });
	/* Quoted operators are arguments. */
	expect_words("awk '|' \">\"", (const char *[]){ "awk", "|", ">", NULL });
}

static void test_placeholders(void **state)
{
	(void)state;
	expect_words("dotnet x.dll {file} {access} {threads} accessor",
		     (const char *[]){ "dotnet", "x.dll", "/data/my file.bin", "1024", "2",
				       "accessor", NULL });
	expect_words("p --size={size} --pus={pus} n={npus} {kernel} {job} {run}",
		     (const char *[]){ "p", "--size=104857600", "--pus=0,1", "n=2", "zeros",
				       "dotnet_real", "7", NULL });
	expect_words("p '{threads}' {{literal}} a{{b}}c",
		     (const char *[]){ "p", "2", "{literal}", "a{b}c", NULL });
	assert_true(mmp_command_uses("p {file} {access}", "access"));
	assert_false(mmp_command_uses("p {file} {{access}}", "access"));
	assert_false(mmp_command_uses("p {file}", "access"));
	/* The help texts' list: every placeholder whole in the room callers
	 * give; too little room stops after a whole one and says so. */
	char names[MMP_COMMAND_PLACEHOLDERS_LEN], small[17];
	assert_int_equal(mmp_command_placeholders(names, sizeof(names)), 0);
	assert_non_null(strstr(names, "{file} {size}"));
	assert_non_null(strstr(names, " {run}"));
	assert_int_equal(mmp_command_placeholders(small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "{file} {size}...");
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("", "an empty command");
	expect_refused("   ", "an empty command");
	expect_refused("prog 'a", "unterminated single quote");
	expect_refused("prog \"a", "unterminated double quote");
	expect_refused("prog a\\", "a backslash at the end");
	expect_refused("prog {fiel}", "unknown placeholder {fiel}");
	expect_refused("prog {file", "'{' without '}'");
	expect_refused("prog a}", "'}' without '{'");
	expect_refused("prog | wc -l", "'|' would reach the program");
	expect_refused("prog >out.txt", "'>out.txt' would reach the program");
	expect_refused("prog 2>/dev/null", "no shell");
	expect_refused("prog a && b", "'&&'");
	expect_refused("prog ;", "';'");
}

static void test_quote_round_trip(void **state)
{
	char *args[] = { "dotnet", "a b", "it's", "", "{file}", "$x", "x;y", "plain-1.0,2:3" };
	char line[512];
	struct mmp_argv back;
	char err[256];
	(void)state;
	assert_int_equal(mmp_command_quote(args, 8, line, sizeof(line)), 0);
	assert_string_equal(line, "dotnet 'a b' 'it'\\''s' '' {file} '$x' 'x;y' plain-1.0,2:3");
	assert_int_equal(mmp_command_expand(line, NULL, &back, err, sizeof(err)), 0);
	assert_int_equal(back.n, 8);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(back.v[i], args[i]);
	mmp_command_free(&back);
	assert_int_equal(mmp_command_quote(args, 8, line, 10), -ENOSPC);
}

/* The capture of the last matching line of out under spec. */
static const char *capture(const char *spec, const char *out, char *buf, size_t len)
{
	struct mmp_capture c;
	char err[256];
	if (mmp_capture_compile(&c, spec, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	int found = mmp_capture_find(&c, out, strlen(out), buf, len);
	mmp_capture_free(&c);
	return found ? buf : NULL;
}

static const char dotnet_out[] = "Reading 104857600 bytes...\n"
				 "1 byte(s) at a time using 2 thread(s)\n"
				 "Found 409978 zero bytes in /tmp/r.bin\n"
				 "Elapsed time: 00:00:02.4289472\n";

static void test_capture(void **state)
{
	char buf[256];
	uint64_t v;
	(void)state;
	/* \d is read as [0-9]: the issue's own example. */
	assert_string_equal(capture("output:Found (\\d+) zero", dotnet_out, buf, sizeof(buf)),
			    "409978");
	assert_string_equal(capture("output:^Elapsed time: (.*)$", dotnet_out, buf, sizeof(buf)),
			    "00:00:02.4289472");
	/* No group: the whole match. */
	assert_string_equal(capture("output:[[:digit:]]+ zero", dotnet_out, buf, sizeof(buf)),
			    "409978 zero");
	assert_string_equal(capture("output:([\\d.]+) bytes\\.", dotnet_out, buf, sizeof(buf)),
			    "104857600");
	/* The last matching line wins; \r\n line ends are fine. */
	assert_string_equal(capture("output:^n=(\\d+)$", "n=1\r\nn=2\r\nx\n", buf, sizeof(buf)),
			    "2");
	assert_null(capture("output:Found (\\d+) ones", dotnet_out, buf, sizeof(buf)));
	assert_int_equal(mmp_capture_count("Found 409978 zero", &v, NULL), 0);
	assert_int_equal(v, 409978);
	assert_int_equal(mmp_capture_count("count: 12.", &v, NULL), 0);
	assert_int_equal(v, 12);
	assert_int_equal(mmp_capture_count("none", &v, NULL), -EINVAL);
	assert_int_equal(mmp_capture_count("99999999999999999999999", &v, NULL), -ERANGE);
}

/* Only a whole decimal token is a count: first digits of something else
 * would pass a wrong answer as right (issue 20). */
static void test_capture_count_exact(void **state)
{
	static const char *const not_counts[] = {
		"Found -1048576 zero", "Found 1048576e3 zero", "1,048,576", "1048576.7",
		"1048576abc", "0x100000", "+5", "3 of 4", "",
	};
	const char *why = NULL;
	uint64_t v = 7;
	(void)state;
	for (size_t i = 0; i < sizeof(not_counts) / sizeof(not_counts[0]); i++) {
		why = NULL;
		if (mmp_capture_count(not_counts[i], &v, &why) == 0)
			fail_msg("'%s' read as the count %llu", not_counts[i], (unsigned long long)v);
		assert_non_null(why);
	}
	assert_int_equal(mmp_capture_count("3 of 4", &v, &why), -EINVAL);
	assert_string_equal(why, "holds more than one number");
}

static void test_capture_check(void **state)
{
	char err[256];
	(void)state;
	assert_int_equal(mmp_capture_check("wall", 1, err, sizeof(err)), 0);
	assert_int_equal(mmp_capture_check("wall", 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(mmp_capture_check("output:Found (\\d+)", 0, err, sizeof(err)), 0);
	assert_int_equal(mmp_capture_check("Found (\\d+)", 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is not output:REGEX"));
	assert_int_equal(mmp_capture_check("output:(?:x)(\\d+)", 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Perl syntax"));
	assert_int_equal(mmp_capture_check("output:a(b", 0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "regex 'a(b'"));
	assert_int_equal(mmp_capture_check("output:", 0, err, sizeof(err)), -EINVAL);
	/* A repetition of a repetition: refused at once (glibc's regcomp took
	 * 24 GB over "s++++...+", a fuzzer input); bounds and groups are fine. */
	assert_int_equal(mmp_capture_check("output:Elaps++++++++++++++++++++++++++++++++ed", 0, err,
					   sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "repeats a repetition"));
	assert_int_equal(mmp_capture_check("output:a+?", 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(mmp_capture_check("output:a{2,3}+", 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(mmp_capture_check("output:(a+)+ b{2,3} c{2}", 0, err, sizeof(err)), 0);
	assert_int_equal(mmp_capture_check("output:[+*]+ \\++", 0, err, sizeof(err)), 0);
	assert_int_equal(mmp_capture_check("output:x{word}", 0, err, sizeof(err)), -EINVAL);
}

static uint64_t duration(const char *text)
{
	uint64_t ns = 0;
	char err[256];
	if (mmp_capture_duration(text, &ns, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	return ns;
}

static void test_durations(void **state)
{
	char err[256];
	uint64_t ns;
	(void)state;
	/* .NET TimeSpan "c": 7 fraction digits, days past 24 h, no fraction at 0. */
	assert_int_equal(duration("00:00:01.2345678"), 1234567800);
	assert_int_equal(duration("00:00:02.4289472"), 2428947200);
	assert_int_equal(duration("1.02:03:04"), ((24 + 2) * 3600 + 3 * 60 + 4) * 1000000000ull);
	assert_int_equal(duration("00:01:00"), 60000000000ull);
	/* Java's StopWatch: milliseconds. */
	assert_int_equal(duration("00:00:00.075"), 75000000);
	assert_int_equal(duration("Elapsed time: 00:00:00.075"), 75000000);
	/* Minutes and seconds. */
	assert_int_equal(duration("1:02.5"), 62500000000ull);
	/* Numbers with units, and a bare number in seconds. */
	assert_int_equal(duration("12.5 ms"), 12500000);
	assert_int_equal(duration("took 12.5ms"), 12500000);
	assert_int_equal(duration("1.2s"), 1200000000);
	assert_int_equal(duration("800 us"), 800000);
	assert_int_equal(duration("800µs"), 800000);
	assert_int_equal(duration("42 ns"), 42);
	assert_int_equal(duration("3e-3 s"), 3000000);
	assert_int_equal(duration("2 min"), 120000000000ull);
	assert_int_equal(duration("0.5 seconds"), 500000000);
	assert_int_equal(duration("1.5"), 1500000000);
	assert_int_equal(mmp_capture_duration("soon", &ns, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no duration in 'soon'"));
	/* Read as written or refused: "-0.3 s" was 0.3 s, "1,234 ms" and a
	 * de_DE "1,5 s" were 1 s. */
	assert_int_equal(mmp_capture_duration("Elapsed: -0.3 s", &ns, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "a negative duration in 'Elapsed: -0.3 s'"));
	assert_int_equal(mmp_capture_duration("-00:00:01.5", &ns, err, sizeof(err)), -ERANGE);
	assert_int_equal(mmp_capture_duration("took 1,234 ms", &ns, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a comma in the number in 'took 1,234 ms'"));
	assert_int_equal(mmp_capture_duration("1,5 s", &ns, err, sizeof(err)), -EINVAL);
	assert_int_equal(mmp_capture_duration("00:00:01,25", &ns, err, sizeof(err)), -EINVAL);
	/* A '-' that is not a sign, and a comma after the time, are fine. */
	assert_int_equal(duration("run-3 took 12 ms"), 3000000000ull);
	assert_int_equal(duration("time: 12 ms, 3 passes"), 12000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_placeholders),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_capture_count_exact),
		cmocka_unit_test(test_capture_check),
		cmocka_unit_test(test_durations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
