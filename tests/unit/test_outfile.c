/* Result files: inputs never overwritten, temporary + rename, one writer
 * at a time, leftovers of dead runs and stale companions removed, devices
 * written directly without companions, write errors reported; files of no
 * set (compare --csv, --json elsewhere) written the same way, pruning
 * nothing. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util/lockfile.h"
#include "util/outfile.h"
#include "util/paths.h"

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* A PID that existed a moment ago and does not now. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void open_set(struct mmp_outset *set, const char *path)
{
	struct mmp_error err = { 0 };
	if (mmp_outset_open(set, path, NULL, 0, &err))
		fail_msg("outset_open %s: %s", path, err.msg);
}

static void write_and_commit(struct mmp_outset *set, enum mmp_out_kind kind, const char *text)
{
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	if (mmp_outfile_open(set, kind, &out, &err))
		fail_msg("outfile_open: %s", err.msg);
	fputs(text, out.f);
	if (mmp_outfile_commit(&out, &err))
		fail_msg("commit: %s", err.msg);
}

static void test_inputs_are_refused(void **state)
{
	char dir[512], data[600], marker[600], cfg[600], path[700], alias[600];
	struct mmp_outset set;
	struct mmp_error err = { 0 };
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(data, sizeof(data), "%s/data.bin", dir);
	snprintf(marker, sizeof(marker), "%s/data.bin.mmprof", dir);
	snprintf(cfg, sizeof(cfg), "%s/run.json", dir);
	test_write_file(data, "precious data\n");
	test_write_file(marker, "marker\n");
	test_write_file(cfg, "[j]\n");
	const char *protect[] = { data, marker, cfg };

	/* The same name, another spelling of it, a hard link, a symbolic
	 * link: each refused, naming both paths. */
	snprintf(path, sizeof(path), "%s/./sub/../data.bin", dir);
	const char *same[] = { data, path, marker };
	for (size_t i = 0; i < 3; i++) {
		mmp_error_clear(&err);
		assert_int_equal(mmp_outset_open(&set, same[i], protect, 3, &err), -EEXIST);
		assert_non_null(strstr(err.msg, same[i]));
		assert_non_null(strstr(err.msg, "which this run reads"));
	}
	snprintf(alias, sizeof(alias), "%s/hard.csv", dir);
	assert_int_equal(link(data, alias), 0);
	assert_int_equal(mmp_outset_open(&set, alias, protect, 3, &err), -EEXIST);
	snprintf(alias, sizeof(alias), "%s/soft.csv", dir);
	assert_int_equal(symlink(data, alias), 0);
	assert_int_equal(mmp_outset_open(&set, alias, protect, 3, &err), -EEXIST);
	assert_non_null(strstr(err.msg, data));
	/* A companion that would land on an input: run.csv's NAME.json is the
	 * config here. */
	snprintf(path, sizeof(path), "%s/run.csv", dir);
	assert_int_equal(mmp_outset_open(&set, path, protect, 3, &err), -EEXIST);
	assert_non_null(strstr(err.msg, cfg));
	/* A directory that does not exist yet still resolves. */
	snprintf(path, sizeof(path), "%s/new/../data.bin", dir);
	assert_int_equal(mmp_outset_open(&set, path, protect, 3, &err), -EEXIST);

	/* Nothing was written, created or locked. */
	assert_string_equal(slurp(data), "precious data\n");
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/.data.csv.lock", dir);
	assert_false(exists(path));
	snprintf(path, sizeof(path), "%s/.data.bin.tmp.%d", dir, (int)getpid());
	assert_false(exists(path));
}

static void test_temporary_then_rename(void **state)
{
	char dir[512], path[600], tmp[700], lock[700];
	struct mmp_outset set;
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	struct stat st;
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(path, sizeof(path), "%s/results/x.csv", dir); /* results/ made */
	snprintf(tmp, sizeof(tmp), "%s/results/.x.csv.tmp.%d", dir, (int)getpid());
	snprintf(lock, sizeof(lock), "%s/results/.x.csv.lock", dir);
	mode_t old = umask(027);
	open_set(&set, path);
	assert_true(mmp_outset_has_companions(&set));
	assert_true(exists(lock));
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	assert_string_equal(out.tmp, tmp);
	fputs("a,b\n1,2\n", out.f);
	assert_int_equal(mmp_outfile_flush(&out, &err), 0);
	/* Rows so far are in the temporary; the real name does not exist yet. */
	assert_string_equal(slurp(tmp), "a,b\n1,2\n");
	assert_false(exists(path));
	assert_int_equal(mmp_outfile_commit(&out, &err), 0);
	assert_string_equal(slurp(path), "a,b\n1,2\n");
	assert_false(exists(tmp));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640); /* 0644 minus the umask */
	umask(old);

	/* A second run that gives up leaves the first one's file whole. */
	mmp_outset_close(&set);
	assert_false(exists(lock));
	open_set(&set, path);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	fputs("half a row", out.f);
	mmp_outfile_abandon(&out);
	mmp_outset_close(&set);
	assert_string_equal(slurp(path), "a,b\n1,2\n");
	assert_false(exists(tmp));

	/* A second Ctrl-C: the rows flushed so far are renamed into place
	 * from the signal handler. */
	open_set(&set, path);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	fputs("a,b\n3,4\n", out.f);
	assert_int_equal(mmp_outfile_flush(&out, &err), 0);
	fputs("not flushed", out.f);
	assert_int_equal(mmp_outfile_rescue(&out), 0);
	assert_string_equal(slurp(path), "a,b\n3,4\n");
	assert_false(exists(tmp));
	out.tmp[0] = '\0';
	mmp_outfile_abandon(&out);
	mmp_outset_close(&set);
}

/* One writer per result set; "x" and "x.csv" are one set (their
 * companions have the same names). */
static void test_second_writer_refused(void **state)
{
	char dir[512], path[600], other[600], pid[32];
	struct mmp_outset a, b;
	struct mmp_error err = { 0 };
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	snprintf(other, sizeof(other), "%s/x", dir);
	snprintf(pid, sizeof(pid), "process %d", (int)getpid());
	open_set(&a, path);
	assert_int_equal(mmp_outset_open(&b, path, NULL, 0, &err), -EWOULDBLOCK);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "being written by another mmprof"));
	assert_non_null(strstr(err.msg, pid));
	assert_int_equal(mmp_outset_open(&b, other, NULL, 0, &err), -EWOULDBLOCK);

	/* From another process too, while this one holds it. */
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct mmp_outset c;
		_exit(mmp_outset_open(&c, path, NULL, 0, NULL) == -EWOULDBLOCK ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	mmp_outset_close(&a);
	open_set(&b, path); /* free again */
	mmp_outset_close(&b);
}

/* A lock whose holder died is free: the kernel drops a flock with its
 * holder, and the file it left is reused. */
static void test_lock_of_a_dead_holder(void **state)
{
	char path[600];
	struct mmp_lock lk;
	(void)state;

	snprintf(path, sizeof(path), "%s/l.lock", test_tmpdir());
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct mmp_lock mine;
		_exit(mmp_lock_take(&mine, path, 0, NULL, NULL, NULL) ? 1 : 0); /* killed holding it */
	}
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_true(exists(path));
	assert_int_equal(mmp_lock_take(&lk, path, 0, NULL, NULL, NULL), 0);
	mmp_lock_release(&lk);
	assert_false(exists(path));

	/* Waiting for a held lock gives up when asked to stop. */
	volatile sig_atomic_t stop = 1;
	struct mmp_lock a, b;
	assert_int_equal(mmp_lock_take(&a, path, 0, NULL, NULL, NULL), 0);
	assert_int_equal(mmp_lock_take(&b, path, 1, &stop, NULL, NULL), -EINTR);
	mmp_lock_release(&a);
}

static void test_leftovers_of_dead_runs_removed(void **state)
{
	char dir[512], path[600], dead[700], dead2[700], alive[700];
	struct mmp_outset set;
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	pid_t gone = dead_pid();
	snprintf(dead, sizeof(dead), "%s/.x.csv.tmp.%d", dir, (int)gone);
	snprintf(dead2, sizeof(dead2), "%s/.x.attribution.csv.tmp.%d", dir, (int)gone);
	snprintf(alive, sizeof(alive), "%s/.x.csv.tmp.%d", dir, (int)getppid());
	test_write_file(dead, "rows of a crashed run\n");
	test_write_file(dead2, "more\n");
	test_write_file(alive, "a live run's rows\n");
	open_set(&set, path);
	assert_false(exists(dead));
	assert_false(exists(dead2));
	assert_true(exists(alive));
	assert_non_null(strstr(set.note, dead));
	assert_non_null(strstr(set.note, "stopped before finishing"));
	mmp_outset_close(&set);
	unlink(alive);
}

static void test_stale_companions_removed(void **state)
{
	char dir[512], path[600], att[600], thr[600], json[600];
	struct mmp_outset set;
	struct mmp_outfile csv;
	struct mmp_error err = { 0 };
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	snprintf(att, sizeof(att), "%s/x.attribution.csv", dir);
	snprintf(thr, sizeof(thr), "%s/x.threads.csv", dir);
	snprintf(json, sizeof(json), "%s/x.json", dir);
	test_write_file(path, "old\n");
	test_write_file(att, "old attribution\n");
	test_write_file(thr, "old threads\n");
	test_write_file(json, "{}\n");

	open_set(&set, path);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &csv, &err), 0);
	fputs("new\n", csv.f);
	write_and_commit(&set, MMP_OUT_ATTRIBUTION, "new attribution\n");
	/* Until NAME.csv is committed the old companions stay. */
	assert_true(exists(thr));
	assert_int_equal(mmp_outfile_commit(&csv, &err), 0);
	assert_string_equal(slurp(path), "new\n");
	assert_string_equal(slurp(att), "new attribution\n");
	assert_false(exists(thr));
	assert_false(exists(json));
	assert_non_null(strstr(set.note, thr));
	mmp_outset_close(&set);
}

/* A set that keeps the previous (mmprof exec's default): the earlier
 * NAME.csv and its companions become NAME.old's when this run's first
 * file is committed -- the one before that goes -- and a run that commits
 * nothing moves nothing. */
static void test_previous_kept(void **state)
{
	char dir[512], path[600], att[600], thr[600], old[600], oldatt[600], oldthr[600],
		oldev[600];
	struct mmp_outset set;
	struct mmp_outfile csv;
	struct mmp_error err = { 0 };
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	snprintf(att, sizeof(att), "%s/x.attribution.csv", dir);
	snprintf(thr, sizeof(thr), "%s/x.threads.csv", dir);
	snprintf(old, sizeof(old), "%s/x.old.csv", dir);
	snprintf(oldatt, sizeof(oldatt), "%s/x.old.attribution.csv", dir);
	snprintf(oldthr, sizeof(oldthr), "%s/x.old.threads.csv", dir);
	snprintf(oldev, sizeof(oldev), "%s/x.old.events.csv", dir);
	test_write_file(path, "first\n");
	test_write_file(att, "first attribution\n");
	test_write_file(thr, "first threads\n");
	test_write_file(old, "zeroth\n");
	test_write_file(oldev, "zeroth events\n");

	/* Nothing committed: both sets stay as they were. */
	open_set(&set, path);
	assert_int_equal(mmp_outset_keep_previous(&set), 0);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &csv, &err), 0);
	mmp_outfile_abandon(&csv);
	mmp_outset_close(&set);
	assert_string_equal(slurp(path), "first\n");
	assert_string_equal(slurp(old), "zeroth\n");

	open_set(&set, path);
	assert_int_equal(mmp_outset_keep_previous(&set), 0);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &csv, &err), 0);
	fputs("second\n", csv.f);
	write_and_commit(&set, MMP_OUT_ATTRIBUTION, "second attribution\n");
	/* The first commit moved the whole earlier set, NAME.csv with it. */
	assert_false(exists(path));
	assert_string_equal(slurp(old), "first\n");
	assert_string_equal(slurp(oldatt), "first attribution\n");
	assert_string_equal(slurp(oldthr), "first threads\n");
	assert_false(exists(oldev)); /* the one before: gone with its set */
	assert_int_equal(mmp_outfile_commit(&csv, &err), 0);
	assert_string_equal(slurp(path), "second\n");
	assert_string_equal(slurp(att), "second attribution\n");
	assert_false(exists(thr));
	assert_non_null(strstr(set.note, old)); /* said where it went */
	mmp_outset_close(&set);
}

/* Devices and FIFOs: written directly, never a companion beside them. */
static void test_devices_written_directly(void **state)
{
	char dir[512], fifo[600];
	struct mmp_outset set;
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	(void)state;

	open_set(&set, "/dev/null");
	assert_true(set.special);
	assert_false(mmp_outset_has_companions(&set));
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	assert_string_equal(out.tmp, "");
	fputs("rows\n", out.f);
	assert_int_equal(mmp_outfile_commit(&out, &err), 0);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_ATTRIBUTION, &out, &err), -EINVAL);
	mmp_outset_close(&set);
	assert_false(exists("/dev/null.attribution.csv"));
	assert_false(exists("/dev/.null.csv.lock"));

	/* The process's own stream, even when it is a regular file. */
	open_set(&set, "/dev/stdout");
	assert_true(set.special);
	mmp_outset_close(&set);

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(fifo, sizeof(fifo), "%s/pipe", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	open_set(&set, fifo);
	assert_true(set.special);
	assert_false(mmp_outset_has_companions(&set));
	mmp_outset_close(&set);

	assert_int_equal(mmp_outset_open(&set, dir, NULL, 0, &err), -EISDIR);
	assert_non_null(strstr(err.msg, "a directory"));
}

static void test_write_errors_reported(void **state)
{
	struct mmp_outset set;
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	char row[1024];
	(void)state;

	memset(row, 'x', sizeof(row) - 2);
	row[sizeof(row) - 2] = '\n';
	row[sizeof(row) - 1] = '\0';
	open_set(&set, "/dev/full");
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	for (int i = 0; i < 100; i++)
		fputs(row, out.f);
	assert_int_equal(mmp_outfile_commit(&out, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "/dev/full"));
	mmp_outset_close(&set);
}

/* A full file system: the commit fails naming the file, the temporary is
 * removed and the previous NAME.csv is untouched.  Needs root for the
 * small tmpfs. */
static void test_full_file_system(void **state)
{
	const char *dir;
	char path[600], row[4096];
	struct mmp_outset set;
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	int rc = 0;
	(void)state;

	dir = test_mount_small("64k");
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	test_write_file(path, "the last complete run\n");
	open_set(&set, path);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	memset(row, 'x', sizeof(row));
	for (int i = 0; i < 64 && !rc; i++) {
		fwrite(row, 1, sizeof(row), out.f);
		rc = mmp_outfile_flush(&out, &err);
	}
	assert_int_equal(rc, -ENOSPC);
	assert_non_null(strstr(err.msg, path));
	char tmp[sizeof(out.tmp)];
	snprintf(tmp, sizeof(tmp), "%s", out.tmp);
	assert_true(exists(tmp));
	assert_int_equal(mmp_outfile_commit(&out, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "No space left"));
	assert_non_null(strstr(err.msg, path));
	mmp_outset_close(&set);
	assert_string_equal(slurp(path), "the last complete run\n");
	assert_false(exists(tmp));
}

/* After a write error, commit_written keeps what was whole at the last
 * good flush (rows already measured) instead of the previous file. */
static void test_full_file_system_keeps_written(void **state)
{
	const char *dir;
	char path[600], row[4096];
	struct mmp_outset set;
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	int rc = 0, good = 0;
	(void)state;

	dir = test_mount_small("64k");
	snprintf(path, sizeof(path), "%s/y.csv", dir);
	test_write_file(path, "the last complete run\n");
	open_set(&set, path);
	assert_int_equal(mmp_outfile_open(&set, MMP_OUT_CSV, &out, &err), 0);
	memset(row, 'x', sizeof(row) - 1);
	row[sizeof(row) - 1] = '\n';
	for (int i = 0; i < 64 && !rc; i++) {
		fwrite(row, 1, sizeof(row), out.f);
		rc = mmp_outfile_flush(&out, &err);
		good += !rc;
	}
	assert_int_equal(rc, -ENOSPC);
	assert_true(good > 0);
	assert_true(mmp_outfile_failed(&out));
	assert_int_equal(mmp_outfile_commit_written(&out, &err), 0);
	mmp_outset_close(&set);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, (off_t)good * (off_t)sizeof(row));
}

/* A symbolic link planted at the temporary's name is never written
 * through: the name is replaced, the file it pointed to is untouched. */
static void test_planted_link_at_temporary(void **state)
{
	char dir[512], path[600], tmp[700], victim[600];
	struct mmp_outset set;
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(tmp, sizeof(tmp), "%s/.x.csv.tmp.%d", dir, (int)getpid());
	test_write_file(victim, "not yours\n");
	assert_int_equal(symlink(victim, tmp), 0);
	open_set(&set, path);
	write_and_commit(&set, MMP_OUT_CSV, "rows\n");
	mmp_outset_close(&set);
	assert_string_equal(slurp(victim), "not yours\n");
	assert_string_equal(slurp(path), "rows\n");
}

/* A link to a result file is followed (as fopen did): the link stays. */
static void test_link_to_result_followed(void **state)
{
	char dir[512], path[600], real[600];
	struct mmp_outset set;
	struct mmp_error err = { 0 };
	struct stat st;
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(real, sizeof(real), "%s/run7.csv", dir);
	snprintf(path, sizeof(path), "%s/latest.csv", dir);
	test_write_file(real, "old\n");
	assert_int_equal(symlink("run7.csv", path), 0);
	open_set(&set, path);
	write_and_commit(&set, MMP_OUT_CSV, "new\n");
	mmp_outset_close(&set);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(slurp(real), "new\n");

	unlink(real);
	assert_int_equal(mmp_outset_open(&set, path, NULL, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "does not exist"));
}

static void test_path_resolve(void **state)
{
	char dir[512], real[600], want[700], got[4096];
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	assert_non_null(realpath(dir, real));
	snprintf(want, sizeof(want), "%s/a/b.csv", real);
	char in[700];
	snprintf(in, sizeof(in), "%s/./x/../a/c/../b.csv", dir);
	assert_int_equal(mmp_path_resolve(in, got, sizeof(got)), 0);
	assert_string_equal(got, want);
	assert_int_equal(mmp_path_resolve("/", got, sizeof(got)), 0);
	assert_string_equal(got, "/");
	assert_int_equal(mmp_path_resolve("/nonexistent-dir/y/../z", got, sizeof(got)), 0);
	assert_string_equal(got, "/nonexistent-dir/z");

	const char *base;
	char d[64];
	assert_int_equal(mmp_path_split("x.csv", d, sizeof(d), &base), 0);
	assert_string_equal(d, ".");
	assert_string_equal(base, "x.csv");
	assert_int_equal(mmp_path_split("/x.csv", d, sizeof(d), &base), 0);
	assert_string_equal(d, "/");
	assert_int_equal(mmp_path_split("r/s/x.csv", d, sizeof(d), &base), 0);
	assert_string_equal(d, "r/s");
	assert_string_equal(base, "x.csv");
}

/* {host} filled in, {{ and }} literal, anything else in braces refused. */
static void test_path_fill(void **state)
{
	struct mmp_error err = { 0 };
	char got[64];
	(void)state;

	assert_int_equal(mmp_path_fill("r/{host}/x-{host}.csv", "n7", got, sizeof(got), &err), 0);
	assert_string_equal(got, "r/n7/x-n7.csv");
	assert_int_equal(mmp_path_fill("plain.csv", "n7", got, sizeof(got), &err), 0);
	assert_string_equal(got, "plain.csv");
	assert_int_equal(mmp_path_fill("{{host}}-}}.csv", "n7", got, sizeof(got), &err), 0);
	assert_string_equal(got, "{host}-}.csv");
	assert_int_equal(mmp_path_fill("r/{hostname}.csv", "n7", got, sizeof(got), &err), -EINVAL);
	assert_string_equal(err.msg, "unknown placeholder {hostname}: the only one is {host} "
				     "({{ and }} are literal braces)");
	assert_int_equal(mmp_path_fill("r/{host.csv", "n7", got, sizeof(got), &err), -EINVAL);
	assert_string_equal(err.msg, "'{' without '}' (write {{ for a literal brace)");
	assert_int_equal(mmp_path_fill("{host}", "a-name-longer-than-the-buffer-"
				       "a-name-longer-than-the-buffer-abcd", got, sizeof(got), &err),
			 -ENAMETOOLONG);
}

/* A file of no set: temporary + rename, inputs refused, a device written
 * directly, and committing it removes nothing beside it. */
static void test_file_of_no_set(void **state)
{
	struct mmp_outset set;
	struct mmp_outfile out;
	struct mmp_error err = { 0 };
	char csv[600], json[600], other[600], sub[600];
	(void)state;
	const char *dir = test_tmpdir();
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(json, sizeof(json), "%s/r.json", dir);
	snprintf(other, sizeof(other), "%s/elsewhere.json", dir);
	snprintf(sub, sizeof(sub), "%s/new/dir/x.csv", dir);

	open_set(&set, csv);
	assert_int_equal(mmp_outset_kind_of(&set, json), MMP_OUT_JSON);
	assert_int_equal(mmp_outset_kind_of(&set, csv), MMP_OUT_CSV);
	assert_int_equal(mmp_outset_kind_of(&set, other), -1);
	mmp_outset_close(&set);

	test_write_file(json, "old");
	test_write_file(csv, "input");
	const char *inputs[] = { csv };
	assert_int_equal(mmp_outfile_check_alone(csv, inputs, 1, &err), -EEXIST);
	assert_int_equal(mmp_outfile_open_alone(csv, inputs, 1, &out, &err), -EEXIST);
	assert_string_equal(slurp(csv), "input");

	assert_int_equal(mmp_outfile_check_alone(other, inputs, 1, &err), 0);
	assert_int_equal(mmp_outfile_open_alone(other, inputs, 1, &out, &err), 0);
	assert_null(out.set);
	fputs("{}", out.f);
	assert_true(exists(out.tmp));
	assert_false(exists(other)); /* until committed */
	assert_int_equal(mmp_outfile_commit(&out, &err), 0);
	assert_string_equal(slurp(other), "{}");
	assert_string_equal(slurp(json), "old"); /* nothing pruned */

	assert_int_equal(mmp_outfile_open_alone(sub, NULL, 0, &out, &err), 0);
	mmp_outfile_abandon(&out);
	assert_false(exists(sub));

	assert_int_equal(mmp_outfile_open_alone("/dev/null", NULL, 0, &out, &err), 0);
	assert_string_equal(out.tmp, "");
	fputs("x", out.f);
	assert_int_equal(mmp_outfile_commit(&out, &err), 0);
	assert_int_equal(mmp_outfile_check_alone(dir, NULL, 0, &err), -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inputs_are_refused),
		cmocka_unit_test(test_temporary_then_rename),
		cmocka_unit_test(test_second_writer_refused),
		cmocka_unit_test(test_lock_of_a_dead_holder),
		cmocka_unit_test(test_leftovers_of_dead_runs_removed),
		cmocka_unit_test(test_stale_companions_removed),
		cmocka_unit_test(test_previous_kept),
		cmocka_unit_test(test_devices_written_directly),
		cmocka_unit_test(test_write_errors_reported),
		cmocka_unit_test_teardown(test_full_file_system, test_unmount_small),
		cmocka_unit_test_teardown(test_full_file_system_keeps_written, test_unmount_small),
		cmocka_unit_test(test_planted_link_at_temporary),
		cmocka_unit_test(test_link_to_result_followed),
		cmocka_unit_test(test_path_resolve),
		cmocka_unit_test(test_path_fill),
		cmocka_unit_test(test_file_of_no_set),
	};
	return cmocka_run_group_tests_name("outfile", tests, NULL, NULL);
}
