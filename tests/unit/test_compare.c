/* mmprof compare on small synthetic CSVs: runs matched by parameters
 * whatever their numbers and column order, rungs by their job point,
 * copies left out, duplicates and foreign files refused with a reason,
 * disturbed repetitions left out as within a run, and the four outcomes. */
#include "helpers.h"

#include <errno.h>
#include <math.h>

#include "compare/compare.h"
#include "report/csv.h"

/* One run as a CSV holds it. */
struct spec {
	int run, parent;
	const char *job, *tally, *control, *seed;
	int threads;
	double base;        /* its time, ns */
	double noise;       /* spread between repetitions, a fraction */
	int reps;
	int disturbed;      /* the first this many repetitions are disturbed ... */
	double disturbed_x; /* ... and this many times slower */
};

static const char *const columns[] = {
	"schema_version", "job",    "probe",   "kernel",   "threads",	  "access",
	"buffer",	  "refcount", "tally", "placement", "control",	  "run",
	"parent",	  "rep",    "bytes",   "elapsed_ns", "result_ok",	  "disturbed",
	"run_id",	  "host",   "cpu_model", "kernel_release", "mmprof_version", "started_at",
	"seed",		  "prefault", "advice", "cache", "fill", "ops", "transfer", "membind",
	"bind", "data", "hugepages",
};
#define NCOLS (sizeof(columns) / sizeof(columns[0]))

static void cell(FILE *f, const struct spec *s, int rep, const char *col, const char *run_id,
		 const char *schema, int last)
{
	char v[64] = "";
	if (!strcmp(col, "schema_version"))
		snprintf(v, sizeof(v), "%s", schema);
	else if (!strcmp(col, "job"))
		snprintf(v, sizeof(v), "%s", s->job);
	else if (!strcmp(col, "probe"))
		snprintf(v, sizeof(v), "mmap_byte");
	else if (!strcmp(col, "kernel"))
		snprintf(v, sizeof(v), "zeros");
	else if (!strcmp(col, "threads"))
		snprintf(v, sizeof(v), "%d", s->threads);
	else if (!strcmp(col, "access"))
		snprintf(v, sizeof(v), "1");
	else if (!strcmp(col, "tally"))
		snprintf(v, sizeof(v), "%s", s->tally);
	else if (!strcmp(col, "placement"))
		snprintf(v, sizeof(v), "compact");
	else if (!strcmp(col, "control"))
		snprintf(v, sizeof(v), "%s", s->control ? s->control : "");
	else if (!strcmp(col, "run"))
		snprintf(v, sizeof(v), "%d", s->run);
	else if (!strcmp(col, "parent"))
		snprintf(v, sizeof(v), "%d", s->parent ? s->parent : s->run);
	else if (!strcmp(col, "rep"))
		snprintf(v, sizeof(v), "%d", rep);
	else if (!strcmp(col, "bytes"))
		snprintf(v, sizeof(v), "1048576");
	else if (!strcmp(col, "elapsed_ns")) {
		/* A fixed spread pattern: -2..+2 steps of noise. */
		double t = s->base * (1 + s->noise * (double)(rep % 5 - 2));
		snprintf(v, sizeof(v), "%.0f", rep < s->disturbed ? t * s->disturbed_x : t);
	} else if (!strcmp(col, "result_ok"))
		snprintf(v, sizeof(v), "true");
	else if (!strcmp(col, "disturbed"))
		snprintf(v, sizeof(v), "%s", rep < s->disturbed ? "true" : "false");
	else if (!strcmp(col, "run_id"))
		snprintf(v, sizeof(v), "%s", run_id);
	else if (!strcmp(col, "host"))
		snprintf(v, sizeof(v), "vm");
	else if (!strcmp(col, "cpu_model"))
		snprintf(v, sizeof(v), "AMD EPYC 7B13, 64-Core");
	else if (!strcmp(col, "mmprof_version"))
		snprintf(v, sizeof(v), "0.1.0");
	else if (!strcmp(col, "prefault"))
		snprintf(v, sizeof(v), "no");
	else if (!strcmp(col, "advice"))
		snprintf(v, sizeof(v), "normal");
	else if (!strcmp(col, "cache"))
		snprintf(v, sizeof(v), "warm");
	else if (!strcmp(col, "seed"))
		snprintf(v, sizeof(v), "%s", s->seed ? s->seed : "7");
	mmp_csv_field(f, v, last);
}

/* Write runs to dir/name with the columns in order (reversed: backwards). */
static const char *write_csv(const char *dir, const char *name, const struct spec *runs,
			     size_t n, int reversed, const char *schema)
{
	static char path[4][600];
	static int k;
	char *p = path[k++ % 4];
	snprintf(p, 600, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (size_t c = 0; c < NCOLS; c++)
		mmp_csv_field(f, columns[reversed ? NCOLS - 1 - c : c], c + 1 == NCOLS);
	/* Rows by repetition, runs interleaved, as rounds write them. */
	for (int rep = 0; rep < 10; rep++)
		for (size_t i = 0; i < n; i++)
			if (rep < runs[i].reps)
				for (size_t c = 0; c < NCOLS; c++)
					cell(f, &runs[i], rep, columns[reversed ? NCOLS - 1 - c : c],
					     name, schema, c + 1 == NCOLS);
	assert_int_equal(fclose(f), 0);
	return p;
}

#define RUN(num, job, tally, threads, base) { num, 0, job, tally, NULL, NULL, threads, base, 0.01, 5, 0, 1 }

static const struct mmp_cmp_pair *find(const struct mmp_comparison *c, int a_run)
{
	for (size_t i = 0; i < c->npairs; i++)
		if (c->pair[i].a.run->number == a_run)
			return &c->pair[i];
	fail_msg("A's run %d is not paired", a_run);
	return NULL;
}

static void test_match_by_parameters(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	/* A: two job points, each with a tally rung whose parameters are the
	 * same (tally=local); a limit run and its copy; a run only in A. */
	struct spec a[] = {
		RUN(1, "x", "atomic", 1, 1000),
		{ 2, 1, "x", "local", "tally", NULL, 1, 800, 0.01, 5, 0, 1 },
		RUN(3, "x", "packed", 1, 1000),
		{ 4, 3, "x", "local", "tally", NULL, 1, 800, 0.01, 5, 0, 1 },
		RUN(5, "limit", "", 1, 100),
		{ 6, 5, "limit", "", NULL, NULL, 1, 100, 0.01, 5, 0, 1 },
		RUN(7, "gone", "atomic", 2, 100),
	};
	/* B: renumbered, columns backwards; x atomic 20% slower, its rung
	 * 20% faster; x packed the same; a new run. */
	struct spec b[] = {
		RUN(1, "limit", "", 1, 100),
		RUN(2, "new", "atomic", 2, 100),
		RUN(10, "x", "packed", 1, 1000),
		{ 11, 10, "x", "local", "tally", NULL, 1, 800, 0.01, 5, 0, 1 },
		RUN(20, "x", "atomic", 1, 1200),
		{ 21, 20, "x", "local", "tally", NULL, 1, 640, 0.01, 5, 0, 1 },
		{ 30, 1, "limit", "", NULL, NULL, 1, 100, 0.01, 5, 0, 1 },
	};
	const char *pa = write_csv(dir, "a.csv", a, 7, 0, "2");
	const char *pb = write_csv(dir, "b.csv", b, 7, 1, "2");
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	int rc = mmp_compare_run(&c, pa, pb, 0.05, 0, &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_int_equal(c.a.ncopies, 1);
	assert_int_equal(c.b.ncopies, 1);
	assert_int_equal(c.npairs, 5);
	assert_int_equal(find(&c, 1)->b.run->number, 20);
	assert_int_equal(find(&c, 1)->outcome, MMP_COMPARE_SLOWER);
	assert_true(fabs(find(&c, 1)->ratio.estimate - 1.2) < 1e-3);
	assert_int_equal(find(&c, 2)->b.run->number, 21); /* the rung of the atomic point */
	assert_int_equal(find(&c, 2)->outcome, MMP_COMPARE_FASTER);
	assert_int_equal(find(&c, 3)->b.run->number, 10);
	assert_int_equal(find(&c, 3)->outcome, MMP_COMPARE_SAME);
	assert_int_equal(find(&c, 4)->b.run->number, 11);
	assert_int_equal(find(&c, 5)->b.run->number, 1);
	assert_int_equal(c.nonly_a, 1);
	assert_int_equal(c.only_a[0]->number, 7);
	assert_int_equal(c.nonly_b, 1);
	assert_int_equal(c.only_b[0]->number, 2);
	assert_int_equal(c.count[MMP_COMPARE_SLOWER], 1);
	assert_int_equal(c.count[MMP_COMPARE_FASTER], 1);
	assert_int_equal(c.count[MMP_COMPARE_SAME], 3);
	assert_int_equal(c.differs, 0);
	assert_string_equal(mmp_compare_key_name(MMP_COMPARE_KEY_JOB), "job");
	assert_string_equal(mmp_compare_key_name(MMP_COMPARE_KEY_PROBE), "probe");
	assert_string_equal(mmp_compare_key_name(MMP_COMPARE_KEY_CONTROL), "control");
	assert_string_equal(c.a.cpu_model, "AMD EPYC 7B13, 64-Core");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	mmp_compare_print(f, &c);
	fclose(f);
	assert_non_null(strstr(text, "\n1 slower, 1 faster, 3 same, 0 inconclusive; only in A: 1; "
				     "only in B: 1\n"));
	assert_non_null(strstr(text, "[gone] mmap_byte"));
	assert_non_null(strstr(text, "Welch"));
	free(text);
	mmp_compare_free(&c);
}

/* A copy of the CSV at path with one more column, name, holding value in
 * every row. */
static const char *with_column(const char *dir, const char *path, const char *out,
			       const char *name, const char *value)
{
	static char p[600];
	char line[4096];
	FILE *in = fopen(path, "r");
	snprintf(p, sizeof(p), "%s/%s", dir, out);
	FILE *f = fopen(p, "w");
	assert_non_null(in);
	assert_non_null(f);
	for (int first = 1; fgets(line, sizeof(line), in); first = 0) {
		line[strcspn(line, "\n")] = '\0';
		fprintf(f, "%s,%s\n", line, first ? name : value);
	}
	fclose(in);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* env and jitnames came after schema 2's first CSVs: a CSV without their
 * columns is read as empty there, matching runs whose cells are empty,
 * not those that ran with a variable set (unless --vary env). */
static void test_late_keys(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	struct spec one[] = { RUN(1, "x", "atomic", 1, 1000) };
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	uint32_t vary;
	const char *old = write_csv(dir, "old.csv", one, 1, 0, "2");
	const char *empty = with_column(dir, old, "empty.csv", "env", "");
	assert_int_equal(mmp_compare_run(&c, old, empty, 0.05, 0, &err), 0);
	assert_int_equal(c.npairs, 1);
	mmp_compare_free(&c);
	const char *set = with_column(dir, old, "set.csv", "env", "A=1");
	assert_int_equal(mmp_compare_run(&c, old, set, 0.05, 0, &err), 0);
	assert_int_equal(c.npairs, 0);
	assert_int_equal(c.nonly_a, 1);
	assert_int_equal(c.nonly_b, 1);
	mmp_compare_free(&c);
	assert_int_equal(mmp_compare_vary_parse("env", &vary, &err), 0);
	assert_int_equal(mmp_compare_run(&c, old, set, 0.05, vary, &err), 0);
	assert_int_equal(c.npairs, 1);
	mmp_compare_free(&c);
}

static void test_refusals(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	struct spec one[] = { RUN(1, "x", "atomic", 1, 1000) };
	struct spec dup[] = {
		RUN(1, "x", "atomic", 1, 1000),
		{ 2, 0, "x", "atomic", NULL, "8", 1, 1000, 0.01, 5, 0, 1 },
	};
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	const char *ok = write_csv(dir, "ok.csv", one, 1, 0, "2");

	/* Seed is part of a run's identity; with --vary seed two runs that
	 * differ only in it cannot be told apart. */
	const char *p = write_csv(dir, "dup.csv", dup, 2, 0, "2");
	assert_int_equal(mmp_compare_run(&c, ok, p, 0.05, 0, &err), 0);
	assert_int_equal(c.npairs, 1);
	assert_int_equal(c.nonly_b, 1);
	mmp_compare_free(&c);
	uint32_t vary;
	assert_int_equal(mmp_compare_vary_parse("seed", &vary, &err), 0);
	assert_int_equal(mmp_compare_run(&c, ok, p, 0.05, vary, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "dup.csv: runs 1 (line 2) and 2 (line 3) have the same "
					"parameters"));
	assert_non_null(strstr(err.msg, "they differ in seed (--vary)"));
	assert_int_equal(mmp_compare_vary_parse("bufer", &vary, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "did you mean 'buffer'?"));
	mmp_compare_free(&c);

	p = write_csv(dir, "v1.csv", one, 1, 0, "1");
	assert_int_equal(mmp_compare_run(&c, ok, p, 0.05, 0, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "v1.csv has CSV schema version 1"));
	assert_non_null(strstr(err.msg, "ok.csv has version 2"));
	mmp_compare_free(&c);
	assert_int_equal(mmp_compare_run(&c, p, ok, 0.05, 0, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "v1.csv has CSV schema version 1"));
	mmp_compare_free(&c);

	char path[600];
	snprintf(path, sizeof(path), "%s/foreign.csv", dir);
	test_write_file(path, "name,value\r\n\"a, b\",1\r\n");
	assert_int_equal(mmp_compare_run(&c, ok, path, 0.05, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "foreign.csv is not an mmprof CSV: its header has no "
					"schema_version column (it starts: name,value)"));
	mmp_compare_free(&c);

	snprintf(path, sizeof(path), "%s/two.csv", dir);
	test_write_file(path, "schema_version,run,run_id\n2,1,aa\n2,1,bb\n");
	assert_int_equal(mmp_compare_run(&c, ok, path, 0.05, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no 'parent' column"));
	mmp_compare_free(&c);

	/* A cell that is not a time: its line. */
	snprintf(path, sizeof(path), "%s/bad.csv", dir);
	FILE *in = fopen(ok, "r"), *out = fopen(path, "w");
	char line[4096];
	for (int n = 1; fgets(line, sizeof(line), in); n++) {
		if (n == 4) {
			char *e = strstr(line, ",true,false,"); /* after elapsed_ns */
			assert_non_null(e);
			char *s = e;
			while (s > line && s[-1] != ',')
				s--;
			memmove(s + 3, e, strlen(e) + 1);
			memcpy(s, "abc", 3);
		}
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
	assert_int_equal(mmp_compare_run(&c, path, ok, 0.05, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "bad.csv:4: elapsed_ns is 'abc', not a time in ns"));
	mmp_compare_free(&c);
}

static void test_disturbed_and_outcomes(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	struct spec a[] = {
		/* 2 of 5 disturbed, 3x slower: left out, 3 clean remain. */
		{ 1, 0, "d2", "atomic", NULL, NULL, 1, 1000, 0.01, 5, 2, 3 },
		/* 3 of 5 disturbed: too few clean, all used. */
		{ 2, 0, "d3", "atomic", NULL, NULL, 1, 1000, 0.01, 5, 3, 3 },
		/* Noisy: cannot tell 3% from 0. */
		{ 3, 0, "noisy", "atomic", NULL, NULL, 1, 1000, 0.2, 5, 0, 1 },
		/* One repetition: no interval. */
		{ 4, 0, "once", "atomic", NULL, NULL, 1, 1000, 0.01, 1, 0, 1 },
		/* Clean in A; in B every repetition disturbed and 2x: a tight
		 * interval, but from disturbed rounds only. */
		{ 5, 0, "dall", "atomic", NULL, NULL, 1, 1000, 0.01, 5, 0, 1 },
	};
	struct spec b[] = {
		{ 1, 0, "d2", "atomic", NULL, NULL, 1, 1000, 0.01, 5, 0, 1 },
		{ 2, 0, "d3", "atomic", NULL, NULL, 1, 1000, 0.01, 5, 0, 1 },
		{ 3, 0, "noisy", "atomic", NULL, NULL, 1, 1030, 0.2, 5, 0, 1 },
		{ 4, 0, "once", "atomic", NULL, NULL, 1, 2000, 0.01, 1, 0, 1 },
		{ 5, 0, "dall", "atomic", NULL, NULL, 1, 1000, 0.01, 5, 5, 2 },
	};
	const char *pa = write_csv(dir, "a.csv", a, 5, 0, "2");
	const char *pb = write_csv(dir, "b.csv", b, 5, 0, "2");
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	if (mmp_compare_run(&c, pa, pb, 0.05, 0, &err))
		fail_msg("%s", err.msg);
	const struct mmp_cmp_pair *p = find(&c, 1);
	assert_int_equal(p->a.used, 3);
	assert_false(p->a.used_disturbed);
	assert_int_equal(p->outcome, MMP_COMPARE_SAME);
	p = find(&c, 2);
	assert_int_equal(p->a.used, 5);
	assert_true(p->a.used_disturbed);
	assert_int_equal(p->outcome, MMP_COMPARE_INCONCLUSIVE);
	assert_true(p->ratio.valid && p->ratio.low < 1 / 1.05);
	p = find(&c, 3);
	assert_int_equal(p->outcome, MMP_COMPARE_INCONCLUSIVE);
	assert_true(p->ratio.low < 1 && p->ratio.high > 1.05);
	p = find(&c, 4);
	assert_false(p->ratio.valid);
	assert_int_equal(p->outcome, MMP_COMPARE_INCONCLUSIVE); /* 2x, but one repetition */
	assert_false(p->disturbed);
	/* 2x wholly beyond the band, from disturbed rounds: decides nothing,
	 * as mmprof's own answers (answers.h). */
	p = find(&c, 5);
	assert_true(p->b.used_disturbed && p->disturbed);
	assert_true(p->ratio.valid && p->ratio.low > 1.05);
	assert_int_equal(p->outcome, MMP_COMPARE_INCONCLUSIVE);
	assert_int_equal(c.count[MMP_COMPARE_SLOWER], 0);
	assert_int_equal(c.ndisturbed, 2); /* d3 and dall */

	/* The CSV: one row per pair, never over an input. */
	char path[600];
	snprintf(path, sizeof(path), "%s/cmp.csv", dir);
	assert_int_equal(mmp_compare_csv(&c, path, &err), 0);
	struct mmp_csvread t;
	assert_int_equal(mmp_csvread_load(&t, path, &err), 0);
	assert_int_equal(t.nrows, 5);
	assert_string_equal(mmp_csvread_get(&t, 1, mmp_csvread_column(&t, "job")), "d3");
	assert_string_equal(mmp_csvread_get(&t, 1, mmp_csvread_column(&t, "a_disturbed_used")),
			    "true");
	assert_string_equal(mmp_csvread_get(&t, 1, mmp_csvread_column(&t, "disturbed")), "true");
	assert_string_equal(mmp_csvread_get(&t, 0, mmp_csvread_column(&t, "disturbed")), "false");
	assert_string_equal(mmp_csvread_get(&t, 4, mmp_csvread_column(&t, "outcome")),
			    "inconclusive");
	assert_string_equal(mmp_csvread_get(&t, 3, mmp_csvread_column(&t, "ci_low")), "");
	assert_string_equal(mmp_csvread_get(&t, 3, mmp_csvread_column(&t, "outcome")),
			    "inconclusive");
	mmp_csvread_free(&t);
	assert_int_equal(mmp_compare_csv(&c, pa, &err), -EEXIST);
	mmp_compare_free(&c);
}

/* A file's rows copied into it again are the same repetitions, not more
 * of them: 3 repetitions copied 4 times turned "inconclusive" into
 * "12/12 1.300x slower". */
static void test_duplicate_rows(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	struct spec one[] = { RUN(1, "x", "atomic", 1, 1000) };
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	const char *ok = write_csv(dir, "ok.csv", one, 1, 0, "2");
	char path[600], line[4096];
	snprintf(path, sizeof(path), "%s/copied.csv", dir);
	FILE *out = fopen(path, "w");
	assert_non_null(out);
	for (int copy = 0; copy < 4; copy++) {
		FILE *in = fopen(ok, "r");
		assert_non_null(in);
		for (int n = 1; fgets(line, sizeof(line), in); n++)
			if (n > 1 || copy == 0) /* one header */
				fputs(line, out);
		fclose(in);
	}
	assert_int_equal(fclose(out), 0);
	assert_int_equal(mmp_compare_run(&c, ok, path, 0.05, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "copied.csv: run 1 (first at line 2) has repetition 0 "
					"more than once"));
	mmp_compare_free(&c);
}

/* B's wrong results are no faster than anything: every B repetition's
 * result_ok false and 2x faster said "1 faster". */
static void test_wrong_results(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	struct spec a[] = { RUN(1, "x", "atomic", 1, 1000) };
	struct spec b[] = { RUN(1, "x", "atomic", 1, 500) };
	struct mmp_comparison c;
	struct mmp_error err = { 0 };
	const char *pa = write_csv(dir, "a.csv", a, 1, 0, "2");
	const char *pb = write_csv(dir, "b.csv", b, 1, 0, "2");
	/* Every repetition's result_ok false (the cell before disturbed). */
	char path[600], line[4096];
	snprintf(path, sizeof(path), "%s/wrong.csv", dir);
	FILE *in = fopen(pb, "r"), *out = fopen(path, "w");
	assert_true(in && out);
	while (fgets(line, sizeof(line), in)) {
		char *at = strstr(line, ",true,false,");
		if (at) {
			*at = '\0';
			fprintf(out, "%s,false,false,%s", line, at + strlen(",true,false,"));
		} else {
			fputs(line, out);
		}
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	pb = path;
	if (mmp_compare_run(&c, pa, pb, 0.05, 0, &err))
		fail_msg("%s", err.msg);
	const struct mmp_cmp_pair *p = find(&c, 1);
	assert_true(p->b.run->wrong);
	assert_true(p->ratio.valid && p->ratio.high < 0.6); /* the time says 2x faster */
	assert_int_equal(p->outcome, MMP_COMPARE_INCONCLUSIVE);
	assert_int_equal(c.count[MMP_COMPARE_FASTER], 0);
	mmp_compare_free(&c);
}

/* The table's B/A of ratios far from 1: B/A = 0.0002 was "0.000x [0.000,
 * 0.000]", and from 1e16 up the figures were cut to 16 digits (the low
 * end then read above the high one). */
static void test_ratio_figures(void **state)
{
	(void)state;
	const char *dir = test_tmpdir();
	const double factors[] = { 0.0002, 1e16, 1e20 };
	const char *want[] = { "0.0002x [0.000", "1e+16x [", "1e+20x [" };
	for (size_t i = 0; i < sizeof(factors) / sizeof(factors[0]); i++) {
		struct spec a[] = { RUN(1, "x", "atomic", 1, 100000) };
		struct spec b[] = { RUN(1, "x", "atomic", 1, 100000 * factors[i]) };
		struct mmp_comparison c;
		struct mmp_error err = { 0 };
		const char *pa = write_csv(dir, "a.csv", a, 1, 0, "2");
		const char *pb = write_csv(dir, "b.csv", b, 1, 0, "2");
		if (mmp_compare_run(&c, pa, pb, 0.05, 0, &err))
			fail_msg("%s", err.msg);
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		assert_non_null(f);
		mmp_compare_print(f, &c);
		fclose(f);
		const char *at = strstr(text, want[i]);
		if (!at)
			fail_msg("B/A = %g: no '%s' in\n%s", factors[i], want[i], text);
		/* The interval's ends, read back, hold the estimate. */
		double e, lo, hi;
		assert_int_equal(sscanf(at, "%lgx [%lg, %lg]", &e, &lo, &hi), 3);
		assert_true(lo <= e && e <= hi && lo > 0);
		assert_true(fabs(e / factors[i] - 1) < 0.01);
		free(text);
		mmp_compare_free(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_by_parameters),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_late_keys),
		cmocka_unit_test(test_disturbed_and_outcomes),
		cmocka_unit_test(test_duplicate_rows),
		cmocka_unit_test(test_wrong_results),
		cmocka_unit_test(test_ratio_figures),
	};
	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
