/* Shared by the unit tests: cmocka, temporary files and directories. */
#ifndef MMPROF_TEST_HELPERS_H
#define MMPROF_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh directory under $MMPROF_TEST_TMP (or /tmp), removed by the
 * test runner's trap (or left in /tmp when run by hand). */
static inline const char *test_tmpdir(void)
{
	static char dir[512];
	const char *base = getenv("MMPROF_TEST_TMP");
	snprintf(dir, sizeof(dir), "%s/unit.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		fail_msg("mkdtemp %s failed", dir);
	return dir;
}

static inline void test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#endif
