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
#include <sys/mount.h>
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

/* A small tmpfs of `size` ("8m") on a fresh directory, for file-system
 * limits; the test is skipped without root.  test_unmount_small (a
 * teardown) removes it, even after a failure. */
static char test_mounted[512];

static inline const char *test_mount_small(const char *size)
{
	char opts[32];
	snprintf(test_mounted, sizeof(test_mounted), "%s", test_tmpdir());
	snprintf(opts, sizeof(opts), "size=%s", size);
	if (mount("tmpfs", test_mounted, "tmpfs", 0, opts)) {
		test_mounted[0] = '\0';
		skip();
	}
	return test_mounted;
}

static inline int test_unmount_small(void **state)
{
	(void)state;
	if (test_mounted[0] && umount(test_mounted) == 0)
		test_mounted[0] = '\0';
	return 0;
}

#endif
