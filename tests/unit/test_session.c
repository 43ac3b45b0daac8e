/* A planted broken probe (it skips half its slice, as the seed's fread
 * did not read its file) is caught: a loud error line, result_ok = false
 * in the CSV, WRONG in the table, and exit status 1.  Nothing here may
 * pass because a probe happened to be right.  A repetition that cannot be
 * recorded is said with its own reason, once. */
#include "helpers.h"

#include <fcntl.h>

#include "config/config.h"
#include "plan/plan.h"
#include "mmprof/probe.h"
#include "report/report.h"
#include "session/session.h"
#include "platform/topology.h"
#include "cli/say.h"

static int skip_half(const struct mmp_slice *s)
{
	uint64_t zeros = 0;
	for (uint64_t i = s->begin; i < s->begin + (s->end - s->begin) / 2; i++)
		zeros += s->map[i] == 0;
	s->sink->zeros += zeros;
	return 0;
}

static const struct mmp_probe broken = {
	.name = "skip_half",
	.label = "skip_half",
	.summary = "test only: reads half of its slice",
	.needs = MMP_NEEDS_MAP,
	.access_mode = MMP_ACCESS_BYTE,
	.run = skip_half,
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_broken_probe_is_caught(void **state)
{
	char dir[600], ini[700], csv[700], out[700], err[700], data[700];
	struct mmp_config cfg;
	struct mmp_sweep sweep;
	struct mmp_plan plan;
	struct mmp_topology *topo;
	struct mmp_error e = { 0 };
	volatile sig_atomic_t stop = 0;
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(ini, sizeof(ini), "%s/s.ini", dir);
	snprintf(csv, sizeof(csv), "%s/s.csv", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	setenv("MMPROF_DATA", data, 1);
	test_write_file(ini, "[global]\nsize = 64K\nrepeat = 2\nwarmup = 0\ntable = both\n"
			     "[good]\nprobe = mmap_byte\n[bad]\nprobe = mmap_byte\n");
	assert_int_equal(mmp_config_load(ini, &cfg), 0);
	assert_int_equal(mmp_config_expand(&cfg, &sweep), 0);
	assert_int_equal(sweep.nruns, 2);
	sweep.runs[1].p.probe = &broken;
	assert_int_equal(mmp_topology_load(&topo, NULL, &e), 0);
	assert_int_equal(mmp_plan_build(&cfg, &sweep, topo, &plan), 0);
	/* table = both: one file, so the two methods are one comparison set. */
	assert_int_equal(plan.nsets, 1);

	struct mmp_outset files;
	assert_int_equal(mmp_outset_open(&files, csv, NULL, 0, &e), 0);
	/* The words main's observer prints (src/cli/say.c), on stderr. */
	struct mmp_say say = { .out = stderr };
	struct mmp_observer obs;
	mmp_say_observer(&say, &obs);
	struct mmp_session s = { .cfg = &cfg, .plan = &plan, .topo = topo, .files = &files,
				 .obs = &obs, .stop = &stop };
	struct mmp_session_out so;

	fflush(stdout);
	fflush(stderr);
	int saved_out = dup(1), saved_err = dup(2);
	int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fo, 1);
	dup2(fe, 2);
	assert_int_equal(mmp_session_run(&s, &so), 0);
	mmp_report_table(stdout, &so.res);
	mmp_report_sizes(stdout, &so.an);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(fo);
	close(fe);

	char *o = slurp(out), *e2 = slurp(err), *c = slurp(csv);
	assert_true(so.wrong);
	assert_false(so.failed);
	assert_non_null(strstr(e2, "mmprof: error: [bad] skip_half threads=1 access=1 rep 0: "
				   "result "));
	assert_non_null(strstr(e2, "differs from the reference (zeros of "));
	assert_non_null(strstr(e2, "rep 1: result"));
	assert_null(strstr(e2, "[good]"));
	assert_non_null(strstr(o, " ok"));
	assert_non_null(strstr(o, "WRONG"));
	/* The seed's table: the broken probe reads half the bytes, so it is
	 * the fastest, and it must still not be the better method. */
	assert_non_null(strstr(o, "\nAverage "));
	/* Two rounds: one disturbed (this machine is shared) leaves too few
	 * clean ones, and then no method is the better one. */
	int disturbed = so.an.answers.n && so.an.answers.a[0].used_disturbed;
	const char *better = disturbed ? "Better method: inconclusive" : "Better method: mmap_byte";
	if (!strstr(o, better))
		print_message("# %s\n", o);
	assert_non_null(strstr(o, better));
	assert_null(strstr(o, "Better method: skip_half"));
	assert_non_null(strstr(o, "; 1 method(s) with a WRONG result left out"));
	/* 2 rows each; result_ok true for the good ones, false for the bad. */
	int col = -1, k = 0, rows = 0, good = 0, bad = 0;
	for (char *p = c; *p && *p != '\n'; k++) {
		if (strncmp(p, "result_ok,", 10) == 0)
			col = k;
		p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p);
	}
	assert_true(col > 0);
	for (char *line = strchr(c, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char *f = line + 1;
		for (int i = 0; i < col; i++)
			f = strchr(f, ',') + 1;
		rows++;
		int is_bad = strstr(line + 1, ",bad,") != NULL && strstr(line + 1, ",bad,") < f;
		if (strncmp(f, "true,", 5) == 0)
			good += !is_bad;
		else if (strncmp(f, "false,", 6) == 0)
			bad += is_bad;
	}
	assert_int_equal(rows, 4);
	assert_int_equal(good, 2);
	assert_int_equal(bad, 2);
	free(o);
	free(e2);
	free(c);
	mmp_session_out_free(&so);
	mmp_outset_close(&files);
	mmp_topology_free(topo);
	mmp_plan_free(&plan);
	mmp_sweep_free(&sweep);
	mmp_config_free(&cfg);
}

/* The observer of test_record_error_is_said: main's words, and at the
 * second round's first progress the recorded rounds forgotten. */
struct forgetful {
	struct mmp_say say;
	struct mmp_session_out *so;
	int forgot;
};

static void forget_note(void *ctx, const struct mmp_told *t)
{
	struct forgetful *f = ctx;
	mmp_say_told(f->say.out, t);
}

/* Progress comes before the repetition is recorded: with its run's count
 * set back to 0, round 2 arrives when none is recorded -- what a session
 * that skipped or repeated a round would do. */
static void forget_progress(void *ctx, const struct mmp_progress *p)
{
	struct forgetful *f = ctx;
	if (p->round == 1 && !f->forgot) {
		f->so->res.run[0].n = 0;
		f->forgot = 1;
	}
}

/* A repetition that cannot be recorded for another reason than memory is
 * said with that reason: before, every such error read "Cannot allocate
 * memory".  The only one a session can meet besides ENOMEM is a round out
 * of order (result.c), which this test makes happen. */
static void test_record_error_is_said(void **state)
{
	char dir[600], ini[700], csv[700], data[700], err[700];
	struct mmp_config cfg;
	struct mmp_sweep sweep;
	struct mmp_plan plan;
	struct mmp_topology *topo;
	struct mmp_error e = { 0 };
	volatile sig_atomic_t stop = 0;
	(void)state;

	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(ini, sizeof(ini), "%s/r.ini", dir);
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	setenv("MMPROF_DATA", data, 1);
	test_write_file(ini, "[global]\nsize = 64K\nrepeat = 3\nwarmup = 0\nevents = none\n"
			     "[scan]\nprobe = mmap_byte\n");
	assert_int_equal(mmp_config_load(ini, &cfg), 0);
	assert_int_equal(mmp_config_expand(&cfg, &sweep), 0);
	assert_int_equal(mmp_topology_load(&topo, NULL, &e), 0);
	assert_int_equal(mmp_plan_build(&cfg, &sweep, topo, &plan), 0);
	assert_int_equal(plan.nruns, 1);

	struct mmp_outset files;
	assert_int_equal(mmp_outset_open(&files, csv, NULL, 0, &e), 0);
	struct mmp_session_out so;
	struct forgetful f = { .say = { .out = fopen(err, "w") }, .so = &so };
	assert_non_null(f.say.out);
	struct mmp_observer obs = { .ctx = &f, .note = forget_note, .warn = forget_note,
				    .error = forget_note, .progress = forget_progress };
	struct mmp_session s = { .cfg = &cfg, .plan = &plan, .topo = topo, .files = &files,
				 .obs = &obs, .stop = &stop };
	assert_int_equal(mmp_session_run(&s, &so), 0);
	assert_int_equal(fclose(f.say.out), 0);

	char *said = slurp(err);
	assert_true(f.forgot);
	assert_true(so.failed);
	assert_true(so.record_failed);
	assert_int_equal(so.rows, 1); /* round 1's row, written before */
	if (!strstr(said, "mmprof: error: [scan] mmap_byte threads=1 access=1 rep 1: cannot "
			  "record it: round 2 arrived when 0 round(s) were recorded") ||
	    strstr(said, "Cannot allocate memory") || strstr(said, "out of memory"))
		fail_msg("stderr:\n%s", said);
	/* Said once, where it happened. */
	assert_null(strstr(strstr(said, "cannot record it") + 1, "mmprof: error"));
	free(said);
	mmp_session_out_free(&so);
	mmp_outset_close(&files);
	mmp_topology_free(topo);
	mmp_plan_free(&plan);
	mmp_sweep_free(&sweep);
	mmp_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_probe_is_caught),
		cmocka_unit_test(test_record_error_is_said),
	};
	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
