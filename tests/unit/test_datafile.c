/* Data files: deterministic creation, reuse, the marker, refusing to
 * overwrite files mmprof did not create, and the reference scan. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "mmprof/datafile.h"

static char dir[600];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/data", test_tmpdir());
	return 0;
}

static uint8_t *read_whole(const char *path, size_t *n)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*n = (size_t)st.st_size;
	return buf;
}

static void open_ok(const struct mmp_data_spec *spec, struct mmp_datafile *df)
{
	struct mmp_error err = { 0 };
	if (mmp_datafile_open(spec, dir, NULL, df, &err))
		fail_msg("open: %s", err.msg);
}

static void test_create_deterministic(void **state)
{
	/* Not a multiple of 8 or of the 1 MiB write chunk. */
	struct mmp_data_spec spec = { .size = (1 << 20) + 13, .fill = MMP_FILL_RANDOM, .seed = 7 };
	struct mmp_datafile df;
	size_t n;
	(void)state;

	open_ok(&spec, &df);
	assert_true(df.created);
	assert_true(df.generated);
	assert_int_equal(df.size, spec.size);
	assert_non_null(strstr(df.path, "/data/mmprof-1048589B-random-7.bin"));

	uint8_t *got = read_whole(df.path, &n);
	uint8_t *want = malloc(spec.size);
	mmp_datafile_generate(want, spec.size, spec.fill, spec.seed);
	assert_int_equal(n, spec.size);
	assert_memory_equal(got, want, spec.size);

	/* Reference: the file's own histogram. */
	uint64_t hist[256] = { 0 }, total = 0;
	for (size_t i = 0; i < n; i++)
		hist[got[i]]++;
	for (int b = 0; b < 256; b++) {
		assert_int_equal(df.hist[b], hist[b]);
		total += df.hist[b];
	}
	assert_int_equal(total, spec.size);
	/* Random bytes: every value appears, none dominates. */
	for (int b = 0; b < 256; b++)
		assert_in_range(hist[b], 3500, 4700);

	/* Another seed, other bytes. */
	uint8_t *other = malloc(spec.size);
	mmp_datafile_generate(other, spec.size, spec.fill, spec.seed + 1);
	assert_true(memcmp(other, want, 4096) != 0);
	free(got);
	free(want);
	free(other);
	mmp_datafile_close(&df);
}

/* The reference for a prefix (the solo control reads one thread's slice). */
static void test_reference_of_a_prefix(void **state)
{
	struct mmp_data_spec spec = { .size = 5000, .fill = MMP_FILL_RANDOM, .seed = 12 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	uint64_t hist[256], want[256] = { 0 };
	uint8_t bytes[5000];
	(void)state;

	open_ok(&spec, &df);
	mmp_datafile_generate(bytes, sizeof(bytes), spec.fill, spec.seed);
	for (size_t i = 0; i < 1000; i++)
		want[bytes[i]]++;
	assert_int_equal(mmp_reference_scan(df.fd, 1000, hist, &err), 0);
	assert_memory_equal(hist, want, sizeof(want));
	mmp_datafile_close(&df);
}

static void test_reuse_when_matching(void **state)
{
	struct mmp_data_spec spec = { .size = 4096, .fill = MMP_FILL_ZERO, .seed = 1 };
	struct mmp_datafile a, b;
	struct stat s1, s2;
	(void)state;

	open_ok(&spec, &a);
	assert_true(a.created);
	assert_int_equal(a.hist[0], 4096);
	assert_int_equal(stat(a.path, &s1), 0);
	open_ok(&spec, &b);
	assert_false(b.created);
	assert_true(b.generated);
	assert_int_equal(stat(b.path, &s2), 0);
	assert_int_equal(s1.st_ino, s2.st_ino);
	assert_int_equal(s1.st_mtim.tv_nsec, s2.st_mtim.tv_nsec);
	mmp_datafile_close(&a);
	mmp_datafile_close(&b);
}

/* A file at the generated path that mmprof did not write is refused and
 * left exactly as it was. */
static void test_refuses_foreign_file_in_data_dir(void **state)
{
	struct mmp_data_spec spec = { .size = 8192, .fill = MMP_FILL_RANDOM, .seed = 3 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	char path[4096];
	size_t n;
	(void)state;

	assert_int_equal(mkdir(dir, 0755) == 0 || errno == EEXIST, 1);
	assert_int_equal(mmp_datafile_path(&spec, dir, path, sizeof(path)), 0);
	test_write_file(path, "precious user data\n");
	assert_int_equal(mmp_datafile_open(&spec, dir, NULL, &df, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "mmprof did not create it"));
	assert_non_null(strstr(err.msg, "refusing to overwrite"));
	uint8_t *got = read_whole(path, &n);
	assert_int_equal(n, 19);
	assert_memory_equal(got, "precious user data\n", 19);
	free(got);
}

/* Once someone else writes to a generated file, it is no longer ours. */
static void test_modified_file_is_foreign(void **state)
{
	struct mmp_data_spec spec = { .size = 4096, .fill = MMP_FILL_RANDOM, .seed = 11 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	struct timespec later[2] = { { .tv_sec = 0, .tv_nsec = UTIME_OMIT },
				     { .tv_sec = 1000000000, .tv_nsec = 5 } };
	(void)state;

	open_ok(&spec, &df);
	char *path = strdup(df.path);
	mmp_datafile_close(&df);
	assert_int_equal(utimensat(AT_FDCWD, path, later, 0), 0);
	assert_int_equal(mmp_datafile_open(&spec, dir, NULL, &df, &err), -EEXIST);
	free(path);
}

static void test_user_file(void **state)
{
	char path[700];
	struct mmp_data_spec spec = { .fill = MMP_FILL_RANDOM, .seed = 1 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	size_t n;
	(void)state;

	snprintf(path, sizeof(path), "%s/mine.txt", test_tmpdir());
	test_write_file(path, "user bytes\n");
	spec.file = path;
	/* Without size: read as it is. */
	open_ok(&spec, &df);
	assert_false(df.generated);
	assert_false(df.created);
	assert_int_equal(df.size, 11);
	assert_int_equal(df.hist[' '], 1);
	mmp_datafile_close(&df);

	/* With the same size: still read as it is. */
	spec.size = 11;
	open_ok(&spec, &df);
	assert_false(df.generated);
	mmp_datafile_close(&df);

	/* With another size: refused, untouched. */
	spec.size = 4096;
	assert_int_equal(mmp_datafile_open(&spec, dir, NULL, &df, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "refusing to rewrite it as size = 4KiB"));
	uint8_t *got = read_whole(path, &n);
	assert_int_equal(n, 11);
	assert_memory_equal(got, "user bytes\n", 11);
	free(got);

	/* A path that does not exist and no size: nothing to create. */
	spec.size = 0;
	spec.file = "/nonexistent-dir/x.bin";
	assert_int_equal(mmp_datafile_open(&spec, dir, NULL, &df, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "set size"));
}

/* A user path that does not exist yet is created, with a marker, and
 * recreated when the config asks for other contents. */
static void test_named_file_created_and_replaced(void **state)
{
	char path[700];
	struct mmp_data_spec spec = { .size = 1000, .fill = MMP_FILL_RANDOM, .seed = 5 };
	struct mmp_datafile df;
	(void)state;

	snprintf(path, sizeof(path), "%s/named.bin", test_tmpdir());
	spec.file = path;
	open_ok(&spec, &df);
	assert_true(df.created);
	mmp_datafile_close(&df);
	spec.size = 2000;
	open_ok(&spec, &df);
	assert_true(df.created);
	assert_int_equal(df.size, 2000);
	mmp_datafile_close(&df);
}

static void test_interrupted_creation_leaves_nothing(void **state)
{
	struct mmp_data_spec spec = { .size = 3 << 20, .fill = MMP_FILL_RANDOM, .seed = 99 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	volatile sig_atomic_t stop = 1;
	char path[4096];
	struct stat st;
	(void)state;

	assert_int_equal(mmp_datafile_open(&spec, dir, &stop, &df, &err), -EINTR);
	assert_int_equal(mmp_datafile_path(&spec, dir, path, sizeof(path)), 0);
	assert_int_equal(stat(path, &st), -1);
}

static void test_dataset_reuses_open_files(void **state)
{
	struct mmp_datafiles set = { .dir = dir };
	struct mmp_data_spec spec = { .size = 512, .fill = MMP_FILL_RANDOM, .seed = 1 };
	struct mmp_datafile *a, *b, *c;
	struct mmp_error err = { 0 };
	(void)state;

	assert_int_equal(mmp_datafiles_get(&set, &spec, &a, &err), 0);
	assert_int_equal(mmp_datafiles_get(&set, &spec, &b, &err), 0);
	assert_ptr_equal(a, b);
	spec.size = 1024;
	assert_int_equal(mmp_datafiles_get(&set, &spec, &c, &err), 0);
	assert_ptr_not_equal(a, c);
	assert_int_equal(set.n, 2);
	mmp_datafiles_free(&set);
}

static void test_data_dir_from_environment(void **state)
{
	(void)state;
	setenv("MMPROF_DATA", "/somewhere/else", 1);
	assert_string_equal(mmp_data_dir(), "/somewhere/else");
	unsetenv("MMPROF_DATA");
	assert_string_equal(mmp_data_dir(), "data");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_deterministic),
		cmocka_unit_test(test_reference_of_a_prefix),
		cmocka_unit_test(test_reuse_when_matching),
		cmocka_unit_test(test_refuses_foreign_file_in_data_dir),
		cmocka_unit_test(test_modified_file_is_foreign),
		cmocka_unit_test(test_user_file),
		cmocka_unit_test(test_named_file_created_and_replaced),
		cmocka_unit_test(test_interrupted_creation_leaves_nothing),
		cmocka_unit_test(test_dataset_reuses_open_files),
		cmocka_unit_test(test_data_dir_from_environment),
	};
	return cmocka_run_group_tests_name("datafile", tests, setup, NULL);
}
