/* Data files: deterministic creation, reuse, the marker, refusing to
 * overwrite files mmprof did not create, and the reference scan. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "data/datafile.h"

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

/* Once someone else writes to a generated file, it is no longer ours:
 * other bytes under the marker's size are refused, untouched. */
static void test_modified_file_is_foreign(void **state)
{
	struct mmp_data_spec spec = { .size = 4096, .fill = MMP_FILL_RANDOM, .seed = 11 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	size_t n;
	(void)state;

	open_ok(&spec, &df);
	char *path = strdup(df.path);
	mmp_datafile_close(&df);
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "x", 1, 100), 1);
	close(fd);
	uint8_t *before = read_whole(path, &n);
	assert_int_equal(mmp_datafile_open(&spec, dir, NULL, &df, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "its bytes are not the ones"));
	assert_int_equal(mmp_datafile_check(&spec, dir, &err), -EEXIST);
	uint8_t *after = read_whole(path, &n);
	assert_int_equal(n, 4096);
	assert_memory_equal(before, after, 4096);
	free(before);
	free(after);
	free(path);
}

/* A copy of mmprof's file (cp -a of a checkout: another inode; or only
 * touched: another mtime) is known by its bytes, reused, not rewritten,
 * and its marker updated.  Before, the inode in the marker made every
 * copied data file "not created by mmprof". */
static void test_copy_known_by_its_bytes(void **state)
{
	struct mmp_data_spec spec = { .size = (1 << 20) + 5, .fill = MMP_FILL_RANDOM, .seed = 31 };
	struct mmp_data_spec zero = { .size = 3000, .fill = MMP_FILL_ZERO, .seed = 1 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	struct timespec later[2] = { { .tv_sec = 0, .tv_nsec = UTIME_OMIT },
				     { .tv_sec = 1000000000, .tv_nsec = 5 } };
	char copy[700], cmd[2400];
	struct stat st;
	(void)state;

	for (int k = 0; k < 2; k++) {
		const struct mmp_data_spec *s = k ? &zero : &spec;
		open_ok(s, &df);
		snprintf(copy, sizeof(copy), "%s.copy", df.path);
		/* Replace the file by a copy of itself: other inode. */
		snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s' && mv -f '%s' '%s'", df.path, copy,
			 copy, df.path);
		char *path = strdup(df.path);
		mmp_datafile_close(&df);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(mmp_datafile_check(s, dir, &err), 0);
		open_ok(s, &df);
		assert_true(df.generated);
		assert_false(df.created);
		assert_non_null(strstr(df.note, "a copy of a file mmprof made"));
		mmp_datafile_close(&df);
		/* The marker names the copy now: reused without a note. */
		open_ok(s, &df);
		assert_string_equal(df.note, "");
		mmp_datafile_close(&df);
		/* Touched, bytes unchanged: still mmprof's. */
		assert_int_equal(utimensat(AT_FDCWD, path, later, 0), 0);
		open_ok(s, &df);
		assert_false(df.created);
		assert_true(df.generated);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mtim.tv_sec, 1000000000);
		mmp_datafile_close(&df);
		free(path);
	}
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
	assert_non_null(strstr(err.msg, "never created: set size"));
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

/* Two processes creating the same file at the same moment: one creates
 * it, the other waits and reuses it, and the marker left describes the
 * file that is there (before, both created, the later rename won and the
 * marker could describe the loser's file: the next run refused it). */
static void test_concurrent_creators(void **state)
{
	int both_created = 0, refused_after = 0;
	(void)state;

	for (int round = 0; round < 12; round++) {
		struct mmp_data_spec spec = { .size = (4 << 20) + (uint64_t)round,
					      .fill = MMP_FILL_RANDOM,
					      .seed = 1000 + (uint64_t)round };
		int go[2], created = 0;
		pid_t kids[2];
		assert_int_equal(pipe(go), 0);
		for (int k = 0; k < 2; k++) {
			kids[k] = fork();
			assert_true(kids[k] >= 0);
			if (kids[k] == 0) {
				struct mmp_datafile df;
				char c;
				close(go[1]);
				if (read(go[0], &c, 1) != 1) /* both start together */
					_exit(9);
				int rc = mmp_datafile_open(&spec, dir, NULL, &df, NULL);
				_exit(rc ? 3 : df.created ? 1 : 2);
			}
		}
		close(go[0]);
		assert_int_equal(write(go[1], "xx", 2), 2);
		close(go[1]);
		for (int k = 0; k < 2; k++) {
			int status;
			assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
			assert_true(WIFEXITED(status));
			assert_in_range(WEXITSTATUS(status), 1, 2); /* opened */
			created += WEXITSTATUS(status) == 1;
		}
		both_created += created == 2;
		/* The next run finds mmprof's own file and reuses it. */
		struct mmp_datafile df;
		struct mmp_error err = { 0 };
		int rc = mmp_datafile_open(&spec, dir, NULL, &df, &err);
		if (rc == 0) {
			refused_after += !df.generated || df.created;
			mmp_datafile_close(&df);
		} else {
			print_message("# round %d: %s\n", round, err.msg);
			refused_after++;
		}
	}
	print_message("# rounds where both created: %d, next run refused: %d\n", both_created,
		      refused_after);
	assert_int_equal(both_created, 0);
	assert_int_equal(refused_after, 0);
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* Symbolic links planted at the temporaries' names (a shared data
 * directory) are replaced, never written through: before, the marker's
 * temporary was opened with fopen("w") and its target was overwritten. */
static void test_planted_links_not_followed(void **state)
{
	struct mmp_data_spec spec = { .size = 4096, .fill = MMP_FILL_RANDOM, .seed = 21 };
	struct mmp_datafile df;
	char path[4096], victim[700], tmp[4200];
	size_t n;
	(void)state;

	assert_int_equal(mkdir(dir, 0755) == 0 || errno == EEXIST, 1);
	snprintf(victim, sizeof(victim), "%s/victim", test_tmpdir());
	test_write_file(victim, "someone's file\n");
	/* First at the marker's temporary (the one that was followed), then
	 * at the data's. */
	for (int round = 0; round < 2; round++, spec.seed++) {
		assert_int_equal(mmp_datafile_path(&spec, dir, path, sizeof(path)), 0);
		snprintf(tmp, sizeof(tmp), "%s%s.tmp.%d", path, round ? "" : ".mmprof",
			 (int)getpid());
		assert_int_equal(symlink(victim, tmp), 0);
		open_ok(&spec, &df);
		assert_true(df.created);
		mmp_datafile_close(&df);
		uint8_t *got = read_whole(victim, &n);
		assert_int_equal(n, 15);
		assert_memory_equal(got, "someone's file\n", 15);
		free(got);
		assert_false(exists(tmp));
	}
}

/* What a killed creator left is removed by the next open, with a note;
 * a live creator's temporaries are left alone. */
static void test_leftovers_removed(void **state)
{
	struct mmp_data_spec spec = { .size = 4096, .fill = MMP_FILL_RANDOM, .seed = 22 };
	struct mmp_datafile df;
	char path[4096], dead[4200], mdead[4200], alive[4200], lock[4200];
	(void)state;

	assert_int_equal(mkdir(dir, 0755) == 0 || errno == EEXIST, 1);
	assert_int_equal(mmp_datafile_path(&spec, dir, path, sizeof(path)), 0);
	pid_t gone = dead_pid();
	snprintf(dead, sizeof(dead), "%s.tmp.%d", path, (int)gone);
	snprintf(mdead, sizeof(mdead), "%s.mmprof.tmp.%d", path, (int)gone);
	snprintf(alive, sizeof(alive), "%s.tmp.%d", path, (int)getppid());
	snprintf(lock, sizeof(lock), "%s/.%s.lock", dir, strrchr(path, '/') + 1);
	test_write_file(dead, "half a file");
	test_write_file(mdead, "half a marker");
	test_write_file(alive, "being written");
	test_write_file(lock, "12345\n"); /* its holder was killed: nobody holds it */
	open_ok(&spec, &df);
	assert_false(exists(dead));
	assert_false(exists(mdead));
	assert_false(exists(lock));
	assert_true(exists(alive));
	assert_non_null(strstr(df.note, dead));
	assert_non_null(strstr(df.note, "stopped while creating"));
	mmp_datafile_close(&df);
	unlink(alive);
}

/* Ctrl-C during the reference scan of a large file: -EINTR at once
 * (before, a 16 GiB sparse file was scanned to the end, 44 s). */
static void test_stop_during_reference_scan(void **state)
{
	char path[700];
	struct mmp_data_spec spec = { .fill = MMP_FILL_RANDOM, .seed = 1 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	volatile sig_atomic_t stop = 1;
	uint64_t hist[256];
	(void)state;

	snprintf(path, sizeof(path), "%s/sparse.bin", test_tmpdir());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)64 << 20), 0);
	close(fd);
	spec.file = path;
	assert_int_equal(mmp_datafile_open(&spec, dir, &stop, &df, &err), -EINTR);
	assert_non_null(strstr(err.msg, "interrupted"));
	fd = open(path, O_RDONLY);
	assert_int_equal(mmp_reference_scan_stop(fd, (uint64_t)64 << 20, hist, &stop, &err),
			 -EINTR);
	stop = 0;
	assert_int_equal(mmp_reference_scan_stop(fd, (uint64_t)64 << 20, hist, &stop, &err), 0);
	assert_int_equal(hist[0], (uint64_t)64 << 20);
	close(fd);
}

static void test_space_rule(void **state)
{
	(void)state;
	/* size + size/16, the margin between 1 MiB and 64 MiB. */
	assert_int_equal(mmp_datafile_space_needed(4096), 4096 + (1 << 20));
	assert_int_equal(mmp_datafile_space_needed(1 << 20), 2 << 20);
	assert_int_equal(mmp_datafile_space_needed(UINT64_C(160) << 20), UINT64_C(170) << 20);
	assert_int_equal(mmp_datafile_space_needed(UINT64_C(1) << 30),
			 (UINT64_C(1) << 30) + (UINT64_C(64) << 20));
	assert_int_equal(mmp_datafile_space_needed(UINT64_C(8) << 30),
			 (UINT64_C(8) << 30) + (UINT64_C(64) << 20));
	assert_int_equal(mmp_datafile_space_needed(UINT64_MAX), UINT64_MAX);
}

/* On an 8 MiB file system a 1 MiB file is created (before, 64 MiB had to
 * be free beyond any file); 7.5 MiB is refused by the check and by the
 * creation alike, and a read-only file system is found by the check.
 * Needs root for the tmpfs. */
static void test_small_file_system(void **state)
{
	struct mmp_data_spec spec = { .size = 1 << 20, .fill = MMP_FILL_RANDOM, .seed = 2 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	(void)state;

	const char *mounted = test_mount_small("8m");
	assert_int_equal(mmp_datafile_check(&spec, mounted, &err), 0);
	if (mmp_datafile_open(&spec, mounted, NULL, &df, &err))
		fail_msg("open: %s", err.msg);
	assert_true(df.created);
	mmp_datafile_close(&df);

	spec.size = (15 << 20) / 2;
	assert_int_equal(mmp_datafile_check(&spec, mounted, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "not enough space"));
	assert_int_equal(mmp_datafile_open(&spec, mounted, NULL, &df, &err), -ENOSPC);

	spec.size = 4096;
	assert_int_equal(mount(NULL, mounted, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);
	assert_int_equal(mmp_datafile_check(&spec, mounted, &err), -EROFS);
	assert_non_null(strstr(err.msg, "cannot create"));
}

static void test_recheck(void **state)
{
	char path[700], other[720];
	struct mmp_data_spec spec = { .fill = MMP_FILL_RANDOM, .seed = 1 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	struct timespec later[2] = { { .tv_sec = 0, .tv_nsec = UTIME_OMIT },
				     { .tv_sec = 2000000000, .tv_nsec = 7 } };
	(void)state;

	snprintf(path, sizeof(path), "%s/mine.bin", test_tmpdir());
	test_write_file(path, "0123456789");
	spec.file = path;
	open_ok(&spec, &df);
	assert_int_equal(mmp_datafile_recheck(&df, &err), 0);

	/* Grown. */
	FILE *f = fopen(path, "a");
	fputs("more", f);
	fclose(f);
	assert_int_equal(mmp_datafile_recheck(&df, &err), -ESTALE);
	char want[900];
	snprintf(want, sizeof(want), "the data file %s changed during the run (size 10B -> 14B)",
		 path);
	assert_string_equal(err.msg, want);
	mmp_datafile_close(&df);

	/* Written in place, same size. */
	open_ok(&spec, &df);
	assert_int_equal(utimensat(AT_FDCWD, path, later, 0), 0);
	assert_int_equal(mmp_datafile_recheck(&df, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "(written to; size 14B)"));
	mmp_datafile_close(&df);

	/* Replaced by another file of the same size and time. */
	open_ok(&spec, &df);
	snprintf(other, sizeof(other), "%s.new", path);
	test_write_file(other, "abcdefghijklmn");
	assert_int_equal(rename(other, path), 0);
	assert_int_equal(mmp_datafile_recheck(&df, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "(replaced by another file)"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mmp_datafile_recheck(&df, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "(removed)"));
	mmp_datafile_close(&df);
}

/* The check finds what open would refuse, and writes nothing. */
static void check_says(const struct mmp_data_spec *spec, const char *ddir, int want,
			 const char *text)
{
	struct mmp_error err = { 0 };
	int rc = mmp_datafile_check(spec, ddir, &err);
	if (rc != want || (text && !strstr(err.msg, text)))
		fail_msg("check %s: got %d '%s', wanted %d '%s'", spec->file ? spec->file : ddir, rc,
			 err.msg, want, text ? text : "");
}

static void test_check_before_running(void **state)
{
	char tdir[512], path[600], fifo[600], fresh[720];
	struct mmp_data_spec spec = { .fill = MMP_FILL_RANDOM, .seed = 1 };
	(void)state;

	snprintf(tdir, sizeof(tdir), "%s", test_tmpdir());
	spec.file = "/nonexistent/dir/data.bin";
	check_says(&spec, dir, -ENOENT, "does not exist (without size");
	spec.size = 4096;
	check_says(&spec, dir, -ENOENT, "its directory /nonexistent/dir is missing");
	spec.size = 0;
	spec.file = "/tmp";
	check_says(&spec, dir, -EINVAL, "/tmp is not a regular file (a directory)");
	spec.file = "/dev/zero";
	check_says(&spec, dir, -EINVAL, "(a character device)");
	snprintf(fifo, sizeof(fifo), "%s/fifo", tdir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	spec.file = fifo;
	check_says(&spec, dir, -EINVAL, "(a FIFO)");

	snprintf(path, sizeof(path), "%s/mine.bin", tdir);
	test_write_file(path, "user bytes\n");
	spec.file = path;
	check_says(&spec, dir, 0, NULL);
	spec.size = 11;
	check_says(&spec, dir, 0, NULL);
	spec.size = 4096;
	check_says(&spec, dir, -EEXIST, "refusing to rewrite it as size = 4KiB");
	test_write_file(path, "");
	spec.size = 0;
	check_says(&spec, dir, -EINVAL, "is empty");

	/* Not enough space anywhere here for 1 TiB. */
	spec.file = NULL;
	spec.size = UINT64_C(1) << 40;
	check_says(&spec, tdir, -ENOSPC, "not enough space");

	/* A foreign file in the data directory. */
	spec.size = 8192;
	char ddir[600], target[4096];
	snprintf(ddir, sizeof(ddir), "%s/d", tdir);
	assert_int_equal(mkdir(ddir, 0755), 0);
	assert_int_equal(mmp_datafile_path(&spec, ddir, target, sizeof(target)), 0);
	test_write_file(target, "not mmprof's");
	check_says(&spec, ddir, -EEXIST, "mmprof did not create it");

	/* A data directory that does not exist yet: fine, and still not
	 * made by the check. */
	snprintf(fresh, sizeof(fresh), "%s/new/data", tdir);
	check_says(&spec, fresh, 0, NULL);
	assert_false(exists(fresh));
	snprintf(fresh, sizeof(fresh), "%s/new", tdir);
	assert_false(exists(fresh));
	/* A named file in a directory that is a file. */
	snprintf(fresh, sizeof(fresh), "%s/x.bin", path);
	spec.file = fresh;
	check_says(&spec, dir, -ENOTDIR, "Not a directory");
}

static void test_data_dir_from_environment(void **state)
{
	(void)state;
	setenv("MMPROF_DATA", "/somewhere/else", 1);
	assert_string_equal(mmp_data_dir(), "/somewhere/else");
	unsetenv("MMPROF_DATA");
	assert_string_equal(mmp_data_dir(), "data");
}

/* A temporary of 7 MiB a killed creation left on an 8 MiB file system is
 * removed before the file is created: the check counts its space as free.
 * Counted as used, a 1 MiB file was refused "not enough space" on every
 * later run.  Needs root for the tmpfs. */
static void test_leftover_space(void **state)
{
	struct mmp_data_spec spec = { .size = 1 << 20, .fill = MMP_FILL_RANDOM, .seed = 3 };
	struct mmp_datafile df;
	struct mmp_error err = { 0 };
	char target[4096], left[4200];
	(void)state;

	const char *mounted = test_mount_small("8m");
	assert_int_equal(mmp_datafile_path(&spec, mounted, target, sizeof(target)), 0);
	pid_t dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	snprintf(left, sizeof(left), "%s.tmp.%ld", target, (long)dead);
	int fd = open(left, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	char *block = calloc(1, 1 << 20);
	assert_non_null(block);
	for (int i = 0; i < 7; i++)
		assert_int_equal(write(fd, block, 1 << 20), 1 << 20);
	free(block);
	assert_int_equal(close(fd), 0);

	if (mmp_datafile_check(&spec, mounted, &err))
		fail_msg("check: %s", err.msg);
	if (mmp_datafile_open(&spec, mounted, NULL, &df, &err))
		fail_msg("open: %s", err.msg);
	assert_true(df.created);
	assert_non_null(strstr(df.note, "removed "));
	assert_false(exists(left));
	mmp_datafile_close(&df);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_deterministic),
		cmocka_unit_test(test_reference_of_a_prefix),
		cmocka_unit_test(test_reuse_when_matching),
		cmocka_unit_test(test_refuses_foreign_file_in_data_dir),
		cmocka_unit_test(test_modified_file_is_foreign),
		cmocka_unit_test(test_copy_known_by_its_bytes),
		cmocka_unit_test(test_user_file),
		cmocka_unit_test(test_named_file_created_and_replaced),
		cmocka_unit_test(test_interrupted_creation_leaves_nothing),
		cmocka_unit_test(test_dataset_reuses_open_files),
		cmocka_unit_test(test_concurrent_creators),
		cmocka_unit_test(test_planted_links_not_followed),
		cmocka_unit_test(test_leftovers_removed),
		cmocka_unit_test(test_stop_during_reference_scan),
		cmocka_unit_test(test_space_rule),
		cmocka_unit_test_teardown(test_small_file_system, test_unmount_small),
		cmocka_unit_test_teardown(test_leftover_space, test_unmount_small),
		cmocka_unit_test(test_recheck),
		cmocka_unit_test(test_check_before_running),
		cmocka_unit_test(test_data_dir_from_environment),
	};
	return cmocka_run_group_tests_name("datafile", tests, setup, NULL);
}
