/* The preload library's mmprof side: the report a program's processes
 * append is summed as they wrote it, the environment keeps everything and
 * puts the library first, and the reasons a program cannot take it are
 * read from the file itself. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/preload.h"

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* Two processes, one of which left without its exit handlers: mappings
 * and bytes add up, the huge bytes are what was read. */
static void test_report(void **state)
{
	char path[] = "/tmp/mmprof-preload-XXXXXX";
	struct mmp_preload_report r;
	(void)state;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path,
		   "load 10 prefault,huge\nmap 10 8388608 8388608 8388608\nmap 10 4096 4096 0\n"
		   "huge 10 6291456\nexit 10\nload 11 prefault,huge\nmap 11 65536 0 0\n"
		   "garbage\n",
		   0644);
	assert_int_equal(mmp_preload_read(path, &r), 0);
	assert_int_equal(r.loaded, 2);
	assert_int_equal(r.exited, 1);
	assert_int_equal(r.mappings, 3);
	assert_int_equal(r.present, 8388608 + 4096);
	assert_int_equal(r.advised, 8388608);
	assert_int_equal(r.huge, 6291456);
	unlink(path);
	/* No file: the library never loaded, not an error. */
	assert_int_equal(mmp_preload_read(path, &r), 0);
	assert_int_equal(r.loaded, 0);
}

/* malloc'd blocks: counted apart and in the totals; a refused populate
 * and an allocator not reached are kept with what the kernel said. */
static void test_report_blocks(void **state)
{
	char path[] = "/tmp/mmprof-preload-XXXXXX";
	struct mmp_preload_report r;
	(void)state;
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path,
		   "load 20 prefault,touch,huge\nmap 20 8388608 8388608 0 8388608\n"
		   "alloc 20 268431360 268431360 268431360 268431360 0\n"
		   "alloc 20 1044480 1044480 0 1044480 0\nhuge 20 266338304\nexit 20\n"
		   "load 21 prefault\nalloc 21 2093056 0 0 0 22\nexit 21\n"
		   "load 22 prefault\nnoalloc 22 own\nexit 22\nalloc 23 5\n",
		   0644);
	assert_int_equal(mmp_preload_read(path, &r), 0);
	assert_int_equal(r.loaded, 3);
	assert_int_equal(r.mappings, 1);
	assert_int_equal(r.blocks, 3);
	assert_int_equal(r.block_present, 268431360 + 1044480);
	assert_int_equal(r.present, 8388608 + 268431360 + 1044480);
	assert_int_equal(r.block_advised, 268431360);
	assert_int_equal(r.advised, 268431360);
	assert_int_equal(r.touched, 8388608 + 268431360 + 1044480);
	assert_int_equal(r.huge, 266338304);
	assert_int_equal(r.refused, 1);
	assert_int_equal(r.refused_errno, 22);
	assert_int_equal(r.noalloc, 1);
	assert_string_equal(r.noalloc_why, "own");
	unlink(path);
}

static void test_env(void **state)
{
	(void)state;
	setenv("LD_PRELOAD", "/x/other.so", 1);
	setenv("MMPROF_PRELOAD_MODE", "stale", 1);
	char **env = mmp_preload_env(NULL, "/lib/p.so", "prefault", "/tmp/r");
	assert_non_null(env);
	int preload = 0, mode = 0, report = 0, path = 0;
	for (size_t i = 0; env[i]; i++) {
		preload += strcmp(env[i], "LD_PRELOAD=/lib/p.so:/x/other.so") == 0;
		mode += strncmp(env[i], "MMPROF_PRELOAD_MODE=", 20) == 0;
		assert_string_not_equal(env[i], "MMPROF_PRELOAD_MODE=stale");
		report += strcmp(env[i], "MMPROF_PRELOAD_REPORT=/tmp/r") == 0;
		path += strncmp(env[i], "PATH=", 5) == 0;
	}
	assert_int_equal(preload, 1);
	assert_int_equal(mode, 1);
	assert_int_equal(report, 1);
	assert_int_equal(path, getenv("PATH") ? 1 : 0);
	mmp_preload_env_free(env);
	unsetenv("LD_PRELOAD");
	unsetenv("MMPROF_PRELOAD_MODE");
}

static void test_why_not(void **state)
{
	char buf[512], self[4096], copy[] = "/tmp/mmprof-setuid-XXXXXX";
	(void)state;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	/* This test is a dynamic executable: nothing stops the loader. */
	assert_null(mmp_preload_why_not(self, buf, sizeof(buf)));
	/* A script: its interpreter loads the library. */
	int fd = mkstemp(copy);
	assert_true(fd >= 0);
	close(fd);
	write_file(copy, "#!/bin/sh\nexit 0\n", 0755);
	assert_null(mmp_preload_why_not(copy, buf, sizeof(buf)));
	/* The setuid bit of another owner: the loader ignores LD_PRELOAD;
	 * our own setuid file changes nobody. */
	chmod(copy, 04755);
	assert_null(mmp_preload_why_not(copy, buf, sizeof(buf)));
	if (chown(copy, getuid() + 1, (gid_t)-1) == 0) {
		chmod(copy, 04755); /* chown clears it */
		assert_non_null(mmp_preload_why_not(copy, buf, sizeof(buf)));
		assert_non_null(strstr(buf, "setuid"));
	}
	/* An ELF file without PT_INTERP: linked statically.  A 64-bit header
	 * with no program headers at all is the smallest such file. */
	unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	FILE *f = fopen(copy, "w");
	assert_non_null(f);
	fwrite(elf, 1, sizeof(elf), f);
	fclose(f);
	chmod(copy, 0755);
	assert_non_null(mmp_preload_why_not(copy, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "static"));
	unlink(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_blocks),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_why_not),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
