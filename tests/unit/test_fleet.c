/* mmprof compare with three files or more (fleet.h) on small synthetic
 * CSVs of four hosts: each job point's median host, a host slower than it
 * found as the outlier and one as fast as it found the same, a host whose
 * repetitions were disturbed left undecided, a job point only one host
 * ran, one file given twice refused, and answers that differ between the
 * hosts said per host. */
#include "helpers.h"

#include <errno.h>

#include "report/csv.h"
#include "compare/fleet.h"

static char dir[512];

static const char *const columns[] = {
	"schema_version", "job",       "probe",      "kernel",    "threads",	"access",
	"buffer",	  "refcount",  "tally",      "placement", "control",	"run",
	"parent",	  "rep",       "bytes",      "elapsed_ns", "result_ok",	"disturbed",
	"run_id",	  "host",      "cpu_model",  "kernel_release", "mmprof_version",
	"started_at",	  "seed",      "prefault",   "advice",	  "cache",	"fill",
	"ops",		  "transfer",  "membind",    "bind",	  "data",	"hugepages",
};
#define NCOLS (sizeof(columns) / sizeof(columns[0]))

/* One host's file: job "a" at base_a ns, job "b" (when base_b) at base_b,
 * five repetitions 1% apart; the first `disturbed` of job a's disturbed
 * and three times slower. */
static const char *host_csv(const char *host, double base_a, double base_b, int disturbed)
{
	static char path[8][600];
	static int k;
	char *p = path[k++ % 8];
	snprintf(p, 600, "%s/%s.csv", dir, host);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (size_t c = 0; c < NCOLS; c++)
		mmp_csv_field(f, columns[c], c + 1 == NCOLS);
	for (int rep = 0; rep < 5; rep++)
		for (int job = 0; job < (base_b > 0 ? 2 : 1); job++)
			for (size_t c = 0; c < NCOLS; c++) {
				const char *col = columns[c];
				char v[64] = "";
				double t = (job ? base_b : base_a) * (1 + 0.01 * (rep % 5 - 2));
				int dist = job == 0 && rep < disturbed;
				if (!strcmp(col, "schema_version"))
					snprintf(v, sizeof(v), "%d", MMP_CSV_SCHEMA_VERSION);
				else if (!strcmp(col, "job"))
					snprintf(v, sizeof(v), "%s", job ? "b" : "a");
				else if (!strcmp(col, "probe"))
					snprintf(v, sizeof(v), "mmap_byte");
				else if (!strcmp(col, "threads") || !strcmp(col, "access"))
					snprintf(v, sizeof(v), "1");
				else if (!strcmp(col, "run") || !strcmp(col, "parent"))
					snprintf(v, sizeof(v), "%d", job + 1);
				else if (!strcmp(col, "rep"))
					snprintf(v, sizeof(v), "%d", rep);
				else if (!strcmp(col, "bytes"))
					snprintf(v, sizeof(v), "1048576");
				else if (!strcmp(col, "elapsed_ns"))
					snprintf(v, sizeof(v), "%.0f", dist ? 3 * t : t);
				else if (!strcmp(col, "result_ok"))
					snprintf(v, sizeof(v), "true");
				else if (!strcmp(col, "disturbed"))
					snprintf(v, sizeof(v), "%s", dist ? "true" : "false");
				else if (!strcmp(col, "run_id"))
					snprintf(v, sizeof(v), "id-%s", host);
				else if (!strcmp(col, "host"))
					snprintf(v, sizeof(v), "%s", host);
				else if (!strcmp(col, "seed"))
					snprintf(v, sizeof(v), "7");
				mmp_csv_field(f, v, c + 1 == NCOLS);
			}
	assert_int_equal(fclose(f), 0);
	return p;
}

static void answers_csv(const char *host, const char *outcome, const char *disturbed)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s.answers.csv", dir, host);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "schema_version,run_id,kind,question,outcome,verdict,used_disturbed,host\n"
		   "%d,id-%s,ratio,\"Is b slower than a, 1-byte reads at 1 thread?\",%s,,%s,%s\n",
		MMP_CSV_SCHEMA_VERSION, host, outcome, disturbed, host);
	assert_int_equal(fclose(f), 0);
}

static const struct mmp_fleet_cell *cell_of(const struct mmp_fleet *f, size_t point,
					    const char *host)
{
	for (size_t c = 0; c < f->point[point].ncells; c++)
		if (!strcmp(f->file[f->point[point].cell[c].file].host, host))
			return &f->point[point].cell[c];
	fail_msg("%s did not run job point %zu", host, point);
	return NULL;
}

static void test_fleet(void **state)
{
	struct mmp_fleet f;
	struct mmp_error err = { 0 };
	(void)state;
	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	/* n1 and n2 alike, n3 30% slower, n4 disturbed at a; only n1 runs b. */
	const char *paths[] = {
		host_csv("n1", 1000, 500, 0),
		host_csv("n2", 1005, 0, 0),
		host_csv("n3", 1300, 0, 0),
		host_csv("n4", 1002, 0, 4),
	};
	answers_csv("n1", "yes", "false");
	answers_csv("n2", "yes", "false");
	answers_csv("n3", "yes", "false");
	answers_csv("n4", "inconclusive", "true");
	assert_int_equal(mmp_fleet_run(&f, paths, 4, 0.05, 0, &err), 0);
	assert_int_equal(f.npoints, 2);
	/* a: levels n1 1000, n4 1002 (its clean repetition is one of five:
	 * all used, and three times slower), n2 1005, n3 1300: n4's median
	 * time is 3006, so the order is n1, n2, n3, n4 and the median host is
	 * the lower middle one, n2. */
	assert_string_equal(f.file[f.point[0].median].host, "n2");
	assert_true(cell_of(&f, 0, "n2")->is_median);
	assert_int_equal(cell_of(&f, 0, "n1")->pair.outcome, MMP_COMPARE_SAME);
	assert_int_equal(cell_of(&f, 0, "n3")->pair.outcome, MMP_COMPARE_SLOWER);
	assert_true(cell_of(&f, 0, "n3")->pair.ratio.estimate > 1.25);
	assert_int_equal(cell_of(&f, 0, "n4")->pair.outcome, MMP_COMPARE_INCONCLUSIVE);
	assert_true(cell_of(&f, 0, "n4")->pair.disturbed);
	assert_int_equal(f.nslower, 1);
	assert_int_equal(f.nsame, 1);
	assert_int_equal(f.ninconclusive, 1);
	/* b: n1 alone. */
	assert_int_equal(f.point[1].ncells, 1);
	assert_int_equal(f.nsingle, 1);
	/* The answer: yes on three, inconclusive (disturbed) on n4. */
	assert_int_equal(f.nanswers, 1);
	assert_false(f.answer[0].agree);
	assert_int_equal(f.answer[0].count[MMP_FLEET_YES], 3);
	assert_int_equal(f.answer[0].outcome[3], MMP_FLEET_INCONCLUSIVE);
	assert_true(f.answer[0].disturbed[3]);

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	mmp_fleet_print(out, &f);
	fclose(out);
	assert_non_null(strstr(text, "n3: 1 slower, 0 faster"));
	assert_non_null(strstr(text, "n4: 1 job point(s), 1 disturbed"));
	assert_non_null(strstr(text, "yes on 3 of 4 hosts; n4 inconclusive (disturbed)"));
	assert_non_null(strstr(text, "only on n1: [b] mmap_byte"));
	free(text);

	char csv[600];
	snprintf(csv, sizeof(csv), "%s/fleet.csv", dir);
	assert_int_equal(mmp_fleet_csv(&f, csv, &err), 0);
	snprintf(csv, sizeof(csv), "%s/fleet.json", dir);
	assert_int_equal(mmp_fleet_json(&f, csv, &err), 0);
	mmp_fleet_free(&f);

	/* One host's file twice: refused, naming both. */
	const char *twice[] = { paths[0], paths[1], paths[0] };
	assert_int_equal(mmp_fleet_run(&f, twice, 3, 0.05, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "the same invocation"));
	mmp_fleet_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet),
	};
	return cmocka_run_group_tests_name("fleet", tests, NULL, NULL);
}
