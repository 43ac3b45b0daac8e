/* A program's output as it streams (output_log.h): every line matched
 * whatever the pieces it comes in, the last match kept, and the log: all
 * of it up to log_max, else its head, what was left out, and its tail. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "run/output_log.h"

/* The text the tests feed: a result early, long lines (one with a match
 * past its first 8 KiB, not the last line's), CRLF line ends, and a last
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
		char ring[1 << 16];
		mmp_output_log_init(&o, fd, caps, 1 << 17, ring, sizeof(ring));
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

/* Results past the first 8 KiB of one line: a progress bar redrawn with
 * \r and a one-line JSON report were "no line of its output matches".
 * The result is put at every offset around the windows' edges, so that
 * one window cuts it ("Found 12" of "Found 1234567"); fed in pieces of 1,
 * 7, 4096 bytes and whole, and read whole by mmp_capture_find, it is the
 * whole number, and a ^ or $ regex matches only at the line's ends. */
static void test_long_lines(void **state)
{
	static const size_t sizes[] = { 1, 7, 4096, 1 << 20 };
	static const char *const regex[] = { "output:Found (\\d+) zero", "output:\"ms\": ([0-9.]+)\\}$",
					     "output:^x(.)" };
	struct mmp_capture cap[3];
	char err[256], got[64], path[600];
	(void)state;
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(mmp_capture_compile(&cap[i], regex[i], err, sizeof(err)), 0);
	size_t cap_len = 64 * 1024;
	char *t = malloc(cap_len);
	assert_non_null(t);
	/* Windows end at 2 * STEP + 1 bytes, then every STEP more. */
	static const size_t edges[] = { MMP_CAPTURE_WINDOW_STEP, 2 * MMP_CAPTURE_WINDOW_STEP + 1,
					3 * MMP_CAPTURE_WINDOW_STEP + 1 };
	static const int around[] = { -14, -9, -7, -3, 0, 2 };
	for (size_t e = 0; e < 3 * 6; e++) {
		size_t at = (size_t)((long)edges[e / 6] + around[e % 6]), n = 0;
		/* xy...: ^x( .) matches the line's start only, never a window's. */
		t[n++] = 'x';
		t[n++] = 'y';
		while (n < at) /* a progress bar */
			n += (size_t)snprintf(t + n, cap_len - n, "\r%3zu%%", n % 100);
		n = at;
		n += (size_t)snprintf(t + n, cap_len - n, "Found 1234567 zero bytes, then x");
		while (n < at + 9000)
			t[n++] = 'x';
		n += (size_t)snprintf(t + n, cap_len - n, "{\"ms\": 12.75}\n");
		assert_int_equal(mmp_capture_find(&cap[0], t, n, got, sizeof(got)), 1);
		assert_string_equal(got, "1234567");
		assert_int_equal(mmp_capture_find(&cap[1], t, n, got, sizeof(got)), 1);
		assert_string_equal(got, "12.75");
		assert_int_equal(mmp_capture_find(&cap[2], t, n, got, sizeof(got)), 1);
		assert_string_equal(got, "y");
		/* One byte at a time once (a write each: slow). */
		for (size_t s = e == 4 ? 0 : 1; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct mmp_output_log o;
			const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = { &cap[0], &cap[1] };
			int fd = temp_log(path, sizeof(path));
			mmp_output_log_init(&o, fd, caps, 1 << 17, NULL, 0);
			for (size_t k = 0; k < n; k += sizes[s])
				mmp_output_log_take(&o, t + k, n - k < sizes[s] ? n - k : sizes[s]);
			assert_int_equal(mmp_output_log_finish(&o), 0);
			if (!mmp_output_log_found(&o, 0) || !mmp_output_log_found(&o, 1))
				fail_msg("result at %zu, pieces of %zu: not found", at, sizes[s]);
			assert_string_equal(mmp_output_log_found(&o, 0), "1234567");
			assert_string_equal(mmp_output_log_found(&o, 1), "12.75");
			close(fd);
			unlink(path);
		}
	}
	free(t);
	for (size_t i = 0; i < 3; i++)
		mmp_capture_free(&cap[i]);
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
	mmp_output_log_init(&o, fd, caps, 8192, NULL, 0);
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
	mmp_output_log_init(&o, fd, caps, 8192, NULL, 0);
	mmp_output_log_take(&o, "Found 5\n", 8);
	assert_int_equal(mmp_output_log_finish(&o), -ENOSPC);
	assert_string_equal(mmp_output_log_found(&o, 0), "5");
	close(fd);
	mmp_capture_free(&c);
}

/* lines lines of width bytes each ("line N" padded with dots), a result
 * line first. */
static char *lines_text(unsigned lines, unsigned width, size_t *len)
{
	char *t = malloc((size_t)lines * width + 64);
	size_t n = (size_t)sprintf(t, "Found 7 zero bytes\n");
	assert_non_null(t);
	for (unsigned i = 0; i < lines; i++) {
		int w = sprintf(t + n, "line %06u ", i);
		memset(t + n + w, '.', width - 1 - (size_t)w);
		t[n + width - 1] = '\n';
		n += width;
	}
	*len = n;
	return t;
}

/* Feed text in pieces of size with log_max and return the log. */
static char *capped(const char *text, size_t len, size_t piece, uint64_t log_max,
		    const struct mmp_capture *result, size_t *got_len)
{
	char path[600], *ring = malloc(log_max / 2);
	struct mmp_output_log o;
	const struct mmp_capture *caps[MMP_OUTPUT_CAPTURES] = { result, NULL };
	int fd = temp_log(path, sizeof(path));
	assert_non_null(ring);
	memset(ring, 'X', log_max / 2); /* a reused ring holds an earlier process's bytes */
	mmp_output_log_init(&o, fd, caps, log_max, ring, log_max / 2);
	for (size_t at = 0; at < len; at += piece)
		mmp_output_log_take(&o, text + at, len - at < piece ? len - at : piece);
	assert_int_equal(mmp_output_log_finish(&o), 0);
	assert_string_equal(mmp_output_log_found(&o, 0), "7"); /* read, though not kept */
	close(fd);
	free(ring);
	char *log = slurp(path, got_len);
	unlink(path);
	return log;
}

/* 1000 lines through log_max = 8 KiB: the first 4096 bytes, a note of
 * what was left out, the last 4096 -- the same in any pieces.  The head
 * ends mid-line (the note starts a line of its own); lines of 64 bytes
 * put the tail at a line's start, lines of 100 mid-line, where the tail
 * opens at the next line's start and the partial one is left out too. */
static void test_head_and_tail(void **state)
{
	static const size_t pieces[] = { 1, 3, 64, 1000, 5000, 1 << 20 };
	static const unsigned widths[] = { 64, 100 };
	struct mmp_capture result;
	char err[256], want[8192 + 512];
	size_t len, got_len;
	(void)state;
	assert_int_equal(mmp_capture_compile(&result, "output:^Found (\\d+) zero", err, sizeof(err)), 0);
	for (size_t w = 0; w < 2; w++) {
		char *text = lines_text(1000, widths[w], &len);
		size_t tail_from = len - 4096, skip = 0;
		while (text[tail_from + skip - 1] != '\n')
			skip++;
		assert_true(widths[w] == 64 ? skip == 0 : skip > 0);
		int n = snprintf(want, sizeof(want),
				 "%.4096s\n# mmprof: %zu bytes of its output left out here (log_max = "
				 "8KiB: its first 4096 and last %zu bytes are kept; it printed %zu "
				 "bytes)\n",
				 text, len - 8192 + skip, 4096 - skip, len);
		memcpy(want + n, text + tail_from + skip, 4096 - skip);
		size_t want_len = (size_t)n + 4096 - skip;
		for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
			char *log = capped(text, len, pieces[i], 8192, &result, &got_len);
			assert_int_equal(got_len, want_len);
			assert_memory_equal(log, want, want_len);
			free(log);
		}
		free(text);
	}
	/* Output that fits is kept whole, ring or not. */
	char *text = lines_text(100, 64, &len);
	char *log = capped(text, len, 7, 1 << 14, &result, &got_len);
	assert_int_equal(got_len, len);
	assert_memory_equal(log, text, len);
	free(log);
	free(text);
	mmp_capture_free(&result);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_no_match),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_head_and_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
