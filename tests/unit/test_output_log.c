/* A program's output as it streams (output_log.h): every line matched
 * whatever the pieces it comes in, the last match kept, and the log. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "mmprof/output_log.h"

/* The text the tests feed: a result early, long lines (one with a match
 * past its first 8 KiB, which is not read), CRLF line ends, and a last
 * line without \n. */
static char *sample_text(size_t *len)
{
	size_t cap = 64 * 1024, n = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	n += (size_t)snprintf(t + n, cap - n, "Found 17 zero bytes in x\r\n");
	memset(t + n, 'a', 9000);
	n += 9000;
	n += (size_t)snprintf(t + n, cap - n, " Found 99 zero past the first 8 KiB\n");
	for (int i = 0; i < 200; i++)
		n += (size_t)snprintf(t + n, cap - n, "filler %d\n", i);
	n += (size_t)snprintf(t + n, cap - n, "Found 23 zero bytes again\nElapsed time: 00:00:01.5");
	*len = n;
	return t;
}

static int temp_log(char *path, size_t len)
{
	snprintf(path, len, "%s/log", test_tmpdir());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Fed in pieces of 1, 2, 7, 4096 bytes and whole: the captures are
 * mmp_capture_find's over the whole text, and the log is the text. */
static void test_pieces(void **state)
{
	static const size_t sizes[] = { 1, 2, 7, 4096, 1 << 20 };
	struct mmp_capture result, time;
	char err[256], want_r[64], want_t[64], path[600];
	size_t len;
	(void)state;
	char *text = sample_text(&len);
	assert_int_equal(mmp_capture_compile(&result, "output:Found (\\d+) zero", err, sizeof(err)), 0);
	assert_int_equal(mmp_capture_compile(&time, "output:^Elapsed time: (.*)$", err, sizeof(err)), 0);
	assert_int_equal(mmp_capture_find(&result, text, len, want_r, sizeof(want_r)), 1);
	assert_int_equal(mmp_capture_find(&time, text, len, want_t, sizeof(want_t)), 1);
	assert_string_equal(want_r, "23");
	assert_string_equal(want_t, "00:00:01.5");
	const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = { &result, &time };
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct mmp_output_log o;
		int fd = temp_log(path, sizeof(path));
		mmp_output_log_init(&o, fd, caps);
		for (size_t at = 0; at < len; at += sizes[s])
			mmp_output_log_take(&o, text + at, len - at < sizes[s] ? len - at : sizes[s]);
		assert_int_equal(mmp_output_log_finish(&o), 0);
		assert_string_equal(mmp_output_log_found(&o, 0), want_r);
		assert_string_equal(mmp_output_log_found(&o, 1), want_t);
		assert_int_equal(o.total, len);
		close(fd);
		size_t got_len;
		char *got = slurp(path, &got_len);
		assert_int_equal(got_len, len);
		assert_memory_equal(got, text, len);
		free(got);
		unlink(path);
	}
	mmp_capture_free(&result);
	mmp_capture_free(&time);
	free(text);
}

/* No line matches: nothing found; nothing looked for: nothing found. */
static void test_no_match(void **state)
{
	struct mmp_capture c;
	struct mmp_output_log o;
	char err[256], path[600];
	(void)state;
	assert_int_equal(mmp_capture_compile(&c, "output:Found (\\d+) ones", err, sizeof(err)), 0);
	const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = { &c, NULL };
	int fd = temp_log(path, sizeof(path));
	mmp_output_log_init(&o, fd, caps);
	mmp_output_log_take(&o, "Found 3 zeros\n", 14);
	assert_int_equal(mmp_output_log_finish(&o), 0);
	assert_null(mmp_output_log_found(&o, 0));
	assert_null(mmp_output_log_found(&o, 1));
	close(fd);
	unlink(path);
	mmp_capture_free(&c);
}

/* A log that cannot be written is said, and the lines are still read. */
static void test_write_error(void **state)
{
	struct mmp_capture c;
	struct mmp_output_log o;
	char err[256];
	(void)state;
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		skip();
	assert_int_equal(mmp_capture_compile(&c, "output:Found (\\d+)", err, sizeof(err)), 0);
	const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = { &c, NULL };
	mmp_output_log_init(&o, fd, caps);
	mmp_output_log_take(&o, "Found 5\n", 8);
	assert_int_equal(mmp_output_log_finish(&o), -ENOSPC);
	assert_string_equal(mmp_output_log_found(&o, 0), "5");
	close(fd);
	mmp_capture_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_no_match),
		cmocka_unit_test(test_write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
