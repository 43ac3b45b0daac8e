/* The bulk rung's preload library (preload/bulk_reads.c): a program
 * reading a byte a call sees with it exactly what it sees without -- the
 * same bytes, the same positions after seeks, a dup, a write to the file,
 * a child reading on from the shared descriptor, and the position a
 * parent finds on a descriptor it shared -- while the library's report
 * says what it served and where it stepped aside; and mmprof reads that
 * report as it was written. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/preload.h"

static char dir[PATH_MAX], lib[PATH_MAX + 32], percall[PATH_MAX + 32];

/* The library and the helper beside this test ($BUILD/tests/). */
static int setup(void **state)
{
	(void)state;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	assert_true(n > 0);
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	snprintf(lib, sizeof(lib), "%s/../libmmprof-preload.so", dir);
	snprintf(percall, sizeof(percall), "%s/percall", dir);
	if (access(lib, R_OK) || access(percall, X_OK))
		fail_msg("%s or %s not built (make unit-tests builds them)", lib, percall);
	return 0;
}

/* A file of size bytes that are not all alike. */
static void make_file(const char *path, size_t size)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc((int)((i * 2654435761u) >> 13) & 0xff, f);
	fclose(f);
}

/* Run percall ARGS with its stdin from in (-1: /dev/null), with the
 * library in bulk mode when report is not NULL; its output in out. */
static void run(const char *a1, const char *a2, int in, const char *report, char *out, size_t len)
{
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	char **env = report ? mmp_preload_env(NULL, lib, "bulk", report) : NULL;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in >= 0 ? in : open("/dev/null", O_RDONLY), 0);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		char *argv[] = { percall, (char *)a1, (char *)a2, NULL };
		extern char **environ;
		execve(percall, argv, env ? env : environ);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	close(pipefd[1]);
	size_t used = 0;
	ssize_t got;
	while (used + 1 < len && (got = read(pipefd[0], out + used, len - used - 1)) > 0)
		used += (size_t)got;
	out[used] = '\0';
	close(pipefd[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	mmp_preload_env_free(env);
	/* Under qemu-user (the arm64 suite) this test is the emulated
	 * process: the kernel cannot exec another arm64 program for it. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126) {
		print_message("# %s cannot be executed here (ENOEXEC: an emulator such as "
			      "qemu-user runs this test)\n", percall);
		skip();
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_exact(void **state)
{
	char file[PATH_MAX], report[PATH_MAX], without[8192], with[8192];
	struct mmp_preload_report r;
	(void)state;
	const char *tmp = test_tmpdir();
	snprintf(file, sizeof(file), "%s/bulk-exact.bin", tmp);
	snprintf(report, sizeof(report), "%s/bulk-exact.preload", tmp);
	make_file(file, 200000);
	unlink(report);
	run("exact", file, -1, NULL, without, sizeof(without));
	run("exact", file, -1, report, with, sizeof(with));
	assert_string_equal(with, without);
	/* Not a transcript of nothing: it read across the buffer's edge and
	 * its child read on where the parent left off. */
	assert_non_null(strstr(without, "across 128 KiB: 10 bytes"));
	assert_non_null(strstr(without, "child: 3000 bytes"));
	assert_non_null(strstr(without, "parent after child: 3010"));
	assert_int_equal(mmp_preload_read(report, &r), 0);
	assert_int_equal(r.loaded, 1);
	assert_true(r.served > 1000); /* its first 1000 bytes, a call each */
	assert_true(r.syscalls < r.calls / 10);
	assert_int_equal(r.aside[MMP_ASIDE_WRITE], 1);
	assert_int_equal(r.aside[MMP_ASIDE_FORK], 1);
	assert_int_equal(r.aside[MMP_ASIDE_DUP], 2); /* the first, and the copy it shares with */
	unlink(file);
	unlink(report);
}

/* stdin from a file its parent holds too: the parent finds the position
 * where the program's reads ended, not where the buffer's did. */
static void test_stdin_left(void **state)
{
	char file[PATH_MAX], report[PATH_MAX], out[512];
	struct mmp_preload_report r;
	(void)state;
	const char *tmp = test_tmpdir();
	snprintf(file, sizeof(file), "%s/bulk-stdin.bin", tmp);
	snprintf(report, sizeof(report), "%s/bulk-stdin.preload", tmp);
	make_file(file, 50000);
	unlink(report);
	/* Close-on-exec: the child's stdin alone shares it, as a shell's
	 * `prog < file` leaves it (a second descriptor on the description in
	 * the child would make the library step aside, rightly). */
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	run("stdin", "100", fd, report, out, sizeof(out));
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 100);
	assert_int_equal(mmp_preload_read(report, &r), 0);
	assert_int_equal(r.calls, 100);
	assert_int_equal(r.served, 99); /* the first call filled the buffer */
	close(fd);
	unlink(file);
	unlink(report);
}

/* Reads of 1 MiB: nothing for the buffer to serve, nothing said served. */
static void test_blocks_untouched(void **state)
{
	char file[PATH_MAX], report[PATH_MAX], without[512], with[512];
	struct mmp_preload_report r;
	(void)state;
	const char *tmp = test_tmpdir();
	snprintf(file, sizeof(file), "%s/bulk-blocks.bin", tmp);
	snprintf(report, sizeof(report), "%s/bulk-blocks.preload", tmp);
	make_file(file, 3 << 20);
	unlink(report);
	run("blocks", file, -1, NULL, without, sizeof(without));
	run("blocks", file, -1, report, with, sizeof(with));
	assert_int_equal(strncmp(with, without, strcspn(without, "\n")), 0); /* Sum: N */
	assert_int_equal(mmp_preload_read(report, &r), 0);
	assert_int_equal(r.loaded, 1);
	assert_int_equal(r.calls, 0);
	unlink(file);
	unlink(report);
}

/* The report's bulk and aside lines summed over processes; a word this
 * mmprof does not know is counted as other, not dropped. */
static void test_report_bulk(void **state)
{
	char path[PATH_MAX], asides[128];
	struct mmp_preload_report r;
	(void)state;
	snprintf(path, sizeof(path), "%s/bulk-report.preload", test_tmpdir());
	test_write_file(path, "load 10 bulk\nbulk 10 3 1000 990 12\naside 10 3 fork\n"
			      "load 11 bulk\nbulk 11 0 50 49 2\naside 11 4 dup\naside 11 5 dup\n"
			      "aside 11 6 teleport\naside 11\nbulk 11 7\nexit 10\n");
	assert_int_equal(mmp_preload_read(path, &r), 0);
	assert_int_equal(r.loaded, 2);
	assert_int_equal(r.calls, 1050);
	assert_int_equal(r.served, 1039);
	assert_int_equal(r.syscalls, 14);
	assert_int_equal(r.aside[MMP_ASIDE_FORK], 1);
	assert_int_equal(r.aside[MMP_ASIDE_DUP], 2);
	assert_int_equal(r.aside[MMP_ASIDE_OTHER], 1);
	mmp_preload_asides(&r, asides, sizeof(asides));
	assert_string_equal(asides, "dup 2, fork 1, other 1");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_bulk),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_stdin_left),
		cmocka_unit_test(test_blocks_untouched),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
