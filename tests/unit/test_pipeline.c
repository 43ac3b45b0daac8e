/* The pipeline runs a whole config with no command line around it: what
 * it refuses is told as facts (the config's diagnostics, a bad --csv, a
 * described machine) and marked the user's, nothing is written then; a
 * config built in memory is named exec-JOB; and a small config runs to
 * its rows, the caller told when the session starts and ends. */
#include "helpers.h"

#include <errno.h>

#include "config/config.h"
#include "session/pipeline.h"

/* What the observer was told: the kinds, in order, and the last text. */
struct heard {
	enum mmp_tell what[32];
	size_t n;
	char text[600];
	char diag[600]; /* the first diagnostic line */
	char option[32];
};

static void hear(void *ctx, const struct mmp_told *t)
{
	struct heard *h = ctx;
	if (h->n < 32)
		h->what[h->n++] = t->what;
	snprintf(h->text, sizeof(h->text), "%s", t->text ? t->text : "");
	if (t->what == MMP_TELL_CONFIG_WRONG && t->diags.n)
		snprintf(h->diag, sizeof(h->diag), "%s", t->diags.lines[0]);
	if (t->what == MMP_TELL_BAD_PATH)
		snprintf(h->option, sizeof(h->option), "%s", t->bad_path.option);
}

static int heard(const struct heard *h, enum mmp_tell what)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->what[i] == what)
			return 1;
	return 0;
}

static struct mmp_observer observer(struct heard *h)
{
	memset(h, 0, sizeof(*h));
	return (struct mmp_observer){ .ctx = h, .note = hear, .warn = hear, .error = hear };
}

/* NAME.ini in a fresh directory. */
static const char *config(const char *name, const char *text)
{
	static char path[700];
	snprintf(path, sizeof(path), "%s/%s.ini", test_tmpdir(), name);
	test_write_file(path, text);
	return path;
}

static void test_wrong_config_is_refused(void **state)
{
	struct mmp_pipeline p;
	struct heard h;
	struct mmp_observer obs = observer(&h);
	struct mmp_pipeline_opts o = {
		.config = config("wrong", "[global]\nsize = 64K\n[a]\nprobe = mmap_byte\nbufsize = 4K\n"),
	};
	(void)state;
	assert_int_equal(mmp_pipeline_plan(&p, &o, &obs), -EINVAL);
	assert_true(p.refused);
	assert_true(heard(&h, MMP_TELL_CONFIG_WRONG));
	assert_non_null(strstr(h.diag, "unknown key 'bufsize'"));
	mmp_pipeline_free(&p);
}

static void test_bad_csv_is_refused(void **state)
{
	struct mmp_pipeline p;
	struct heard h;
	struct mmp_observer obs = observer(&h);
	struct mmp_pipeline_opts o = {
		.config = config("fine", "[global]\nsize = 64K\n[a]\nprobe = mmap_byte\n"),
		.csv = "out-{nosuch}.csv",
		.topology_from = "synthetic:pack:1 core:2 pu:1",
	};
	(void)state;
	assert_int_equal(mmp_pipeline_plan(&p, &o, &obs), -EINVAL);
	assert_true(p.refused);
	assert_true(heard(&h, MMP_TELL_BAD_PATH));
	assert_string_equal(h.option, "--csv");
	mmp_pipeline_free(&p);
}

/* Planned for a described machine: its plan and paths, but no run. */
static void test_described_machine_plans_only(void **state)
{
	struct mmp_pipeline p;
	struct heard h;
	struct mmp_observer obs = observer(&h);
	struct mmp_pipeline_opts o = {
		.config = config("described", "[global]\nsize = 64K\nthreads = 1,2\n[a]\n"
					      "probe = mmap_byte\n"),
		.topology_from = "synthetic:pack:1 core:2 pu:1",
		.repeat = 7,
	};
	(void)state;
	assert_int_equal(mmp_pipeline_plan(&p, &o, &obs), 0);
	assert_int_equal(p.plan.nruns, 2);
	assert_int_equal(p.plan.runs[0].run.p.repeat, 7);
	assert_string_equal(p.csv_path, "results/described.csv");
	assert_null(p.json);
	assert_int_equal(mmp_pipeline_run(&p, &o, &obs), -EINVAL);
	assert_true(p.refused);
	assert_false(p.ran);
	assert_true(heard(&h, MMP_TELL_DESCRIBED));
	mmp_pipeline_free(&p);
}

/* mmprof exec's config, built in memory: its results are exec-JOB's. */
static void test_config_in_memory_is_named_exec(void **state)
{
	struct mmp_pipeline p;
	struct mmp_config cfg;
	struct heard h;
	struct mmp_observer obs = observer(&h);
	(void)state;
	assert_int_equal(mmp_config_init(&cfg, "mmprof exec"), 0);
	assert_int_equal(mmp_config_set(&cfg, "wc", "probe", "exec", 1), 0);
	assert_int_equal(mmp_config_set(&cfg, "wc", "command", "wc -c {file}", 2), 0);
	assert_int_equal(mmp_config_set(&cfg, "wc", "size", "64K", 3), 0);
	struct mmp_pipeline_opts o = { .cfg = &cfg, .exec = 1,
				       .topology_from = "synthetic:pack:1 core:2 pu:1" };
	assert_int_equal(mmp_pipeline_plan(&p, &o, &obs), 0);
	assert_string_equal(p.csv_path, "results/exec-wc.csv");
	mmp_pipeline_free(&p); /* frees cfg too */
}

static struct mmp_session_out *started, *ended = (void *)1;
static int calls;

static void on_running(void *ctx, struct mmp_session_out *so)
{
	(void)ctx;
	if (calls++ == 0)
		started = so;
	else
		ended = so;
}

/* This machine, a 64 KiB file, one repetition: rows in NAME.csv. */
static void test_small_config_runs(void **state)
{
	struct mmp_pipeline p;
	struct heard h;
	struct mmp_observer obs = observer(&h);
	volatile sig_atomic_t stop = 0;
	char dir[512], csv[700], data[700];
	(void)state;
	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(csv, sizeof(csv), "%s/run.csv", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	setenv("MMPROF_DATA", data, 1);
	struct mmp_pipeline_opts o = {
		.config = config("run", "[global]\nsize = 64K\nrepeat = 1\nwarmup = 0\n"
				       "[a]\nprobe = mmap_byte\n"),
		.csv = csv, .stop = &stop, .running = on_running,
	};
	assert_int_equal(mmp_pipeline_plan(&p, &o, &obs), 0);
	assert_int_equal(mmp_pipeline_run(&p, &o, &obs), 0);
	assert_true(p.ran);
	assert_int_equal(calls, 2);
	assert_ptr_equal(started, &p.out);
	assert_null(ended);
	assert_false(p.out.wrong);
	assert_true(p.out.rows >= 1);
	assert_true(p.out.wrote_csv);
	assert_string_equal(p.files.path, csv);
	assert_int_equal(access(csv, R_OK), 0);
	mmp_pipeline_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrong_config_is_refused),
		cmocka_unit_test(test_bad_csv_is_refused),
		cmocka_unit_test(test_described_machine_plans_only),
		cmocka_unit_test(test_config_in_memory_is_named_exec),
		cmocka_unit_test(test_small_config_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
