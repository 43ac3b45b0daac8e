/* The programs' logs of an invocation (logdir.h): NAME.logs/RUNID/ made,
 * and when NAME.csv holds RUNID's rows, the other invocations' logs
 * removed -- only what mmprof writes there, never through a link. */
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>

#include "util/logdir.h"

static const char *const mine = "00112233aabbccdd";
static const char *const earlier = "ffeeddcc00998877";

static int exists(const char *dir, const char *name)
{
	char path[1200];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

static void put(const char *dir, const char *name)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	test_write_file(path, "output\n");
}

static void test_make_and_keep_only(void **state)
{
	struct mmp_outset set;
	struct mmp_error err = { 0 };
	char csv[600], logs[600], path[700], other[700], theirs[700], victim[700];
	(void)state;
	const char *dir = test_tmpdir();
	snprintf(csv, sizeof(csv), "%s/x.csv", dir);
	snprintf(logs, sizeof(logs), "%s/x.logs", dir);
	assert_int_equal(mmp_outset_open(&set, csv, NULL, 0, &err), 0);
	assert_int_equal(mmp_logdir_make(&set, mine, path, sizeof(path), &err), 0);
	snprintf(other, sizeof(other), "%s/%s", logs, mine);
	assert_string_equal(path, other);
	put(path, "run1-j.0.log");
	/* An earlier invocation's logs, the flat logs of an earlier version,
	 * and what mmprof did not write. */
	assert_int_equal(mmp_logdir_make(&set, earlier, other, sizeof(other), &err), 0);
	put(other, "run1-j.0.log");
	put(other, "run1-j.0.log.preload");
	put(logs, "run2-k.1.log");
	put(logs, "notes.txt");
	snprintf(theirs, sizeof(theirs), "%s/0123456789abcdef", logs);
	assert_int_equal(mkdir(theirs, 0755), 0);
	put(theirs, "run1-j.0.log");
	put(theirs, "keep-me.txt");
	/* A link named like a run id, to a directory with a log in it: the
	 * link may go, what it points to never. */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(mkdir(victim, 0755), 0);
	put(victim, "run1-x.0.log");
	snprintf(path, sizeof(path), "%s/aaaaaaaaaaaaaaaa", logs);
	assert_int_equal(symlink(victim, path), 0);

	assert_int_equal(mmp_logdir_keep_only(&set, mine), 2);
	assert_true(exists(logs, "00112233aabbccdd/run1-j.0.log"));
	assert_false(exists(logs, earlier));
	assert_false(exists(logs, "run2-k.1.log"));
	assert_true(exists(logs, "notes.txt"));
	assert_true(exists(logs, "0123456789abcdef/keep-me.txt"));
	assert_false(exists(logs, "0123456789abcdef/run1-j.0.log"));
	assert_true(exists(victim, "run1-x.0.log"));
	mmp_outset_close(&set);
}

/* A run that ran no program: NAME.logs goes when nothing else is in it. */
static void test_nothing_left(void **state)
{
	struct mmp_outset set;
	struct mmp_error err = { 0 };
	char csv[600], path[700];
	(void)state;
	const char *dir = test_tmpdir();
	snprintf(csv, sizeof(csv), "%s/y.csv", dir);
	assert_int_equal(mmp_outset_open(&set, csv, NULL, 0, &err), 0);
	assert_int_equal(mmp_logdir_make(&set, earlier, path, sizeof(path), &err), 0);
	put(path, "run1-j.0.log");
	assert_int_equal(mmp_logdir_keep_only(&set, mine), 1);
	assert_false(exists(dir, "y.logs"));
	mmp_outset_close(&set);
}

/* A device has no "beside": a fresh directory under $TMPDIR, never pruned. */
static void test_device(void **state)
{
	struct mmp_outset set;
	struct mmp_error err = { 0 };
	char path[700], want[700];
	(void)state;
	const char *dir = test_tmpdir();
	setenv("TMPDIR", dir, 1);
	assert_int_equal(mmp_outset_open(&set, "/dev/null", NULL, 0, &err), 0);
	assert_int_equal(mmp_logdir_make(&set, mine, path, sizeof(path), &err), 0);
	snprintf(want, sizeof(want), "%s/mmprof-%s.logs", dir, mine);
	assert_string_equal(path, want);
	assert_int_equal(mmp_logdir_keep_only(&set, earlier), 0);
	assert_true(exists(dir, "mmprof-00112233aabbccdd.logs"));
	unsetenv("TMPDIR");
	mmp_outset_close(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make_and_keep_only),
		cmocka_unit_test(test_nothing_left),
		cmocka_unit_test(test_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
