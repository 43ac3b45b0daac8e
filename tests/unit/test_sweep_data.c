/* A plan's data files checked before anything runs, each problem at the
 * config line that asked for the file; and the inputs result files must
 * not overwrite. */
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>

#include "config/config.h"
#include "data/datafile.h"
#include "data/sweep_data.h"

static char dir[512], cfgpath[600], datadir[600];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s", test_tmpdir());
	snprintf(cfgpath, sizeof(cfgpath), "%s/c.ini", dir);
	snprintf(datadir, sizeof(datadir), "%s/data", dir);
	return 0;
}

/* Load, expand and check; the diagnostics joined by newlines. */
static int check(const char *text, struct mmp_config *cfg, struct mmp_sweep *plan)
{
	test_write_file(cfgpath, text);
	memset(plan, 0, sizeof(*plan));
	int rc = mmp_config_load(cfgpath, cfg);
	if (rc == 0)
		rc = mmp_config_expand(cfg, plan);
	if (rc == 0)
		rc = mmp_sweep_check_data(cfg, plan, datadir);
	return rc;
}

static int has_diag(const struct mmp_config *cfg, const char *line_and_text)
{
	char want[1400];
	snprintf(want, sizeof(want), "%s:%s", cfgpath, line_and_text);
	for (size_t i = 0; i < cfg->ndiags; i++)
		if (strncmp(cfg->diags[i], want, strlen(want)) == 0)
			return 1;
	for (size_t i = 0; i < cfg->ndiags; i++)
		print_message("# diag: %s\n", cfg->diags[i]);
	print_message("# wanted: %s...\n", want);
	return 0;
}

static void test_problems_at_their_lines(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char text[2048], foreign[4096], mine[700], other[700];
	struct stat st;
	(void)state;

	/* A foreign file where a generated one would go. */
	struct mmp_data_spec spec = { .size = 8192, .fill = MMP_FILL_RANDOM, .seed = 4 };
	assert_int_equal(mkdir(datadir, 0755), 0);
	assert_int_equal(mmp_datafile_path(&spec, datadir, foreign, sizeof(foreign)), 0);
	test_write_file(foreign, "someone's\n");
	snprintf(mine, sizeof(mine), "%s/mine.bin", dir);
	test_write_file(mine, "0123456789");
	snprintf(other, sizeof(other), "%s/other.bin", dir);
	test_write_file(other, "abc");

	snprintf(text, sizeof(text),
		 "[global]\nrepeat = 1\n"
		 "[missing]\nprobe = limit\nfile = /nonexistent/dir/data.bin\n" /* 5 */
		 "[notfile]\nprobe = limit\nfile = /tmp\n"                      /* 8 */
		 "[huge]\nprobe = limit\nsize = 1T\n"                           /* 11 */
		 "[foreign]\nprobe = limit\nsize = 8K\nseed = 4\n"             /* 14 */
		 "[wrongsize]\nprobe = limit\nfile = %s\nsize = 4K\n"          /* 18 */
		 "[fine]\nprobe = limit\nfile = %s\n"
		 "[new]\nprobe = mmap_byte, limit\nsize = 4K\n",
		 mine, other);
	assert_int_equal(check(text, &cfg, &plan), -EINVAL);
	assert_true(has_diag(&cfg, "5: [missing] /nonexistent/dir/data.bin does not exist (without size"));
	assert_true(has_diag(&cfg, "8: [notfile] /tmp is not a regular file (a directory)"));
	assert_true(has_diag(&cfg, "11: [huge] not enough space for "));
	assert_true(has_diag(&cfg, "14: [foreign] ") && strstr(cfg.diags[3], "mmprof did not create it"));
	assert_true(has_diag(&cfg, "18: [wrongsize] ") &&
		    strstr(cfg.diags[4], "refusing to rewrite it as size = 4KiB"));
	assert_int_equal(cfg.ndiags, 5); /* [fine] and [new] are fine, [new] checked once */
	/* Nothing was created or written. */
	char created[4096];
	spec.size = 4096;
	assert_int_equal(mmp_datafile_path(&spec, datadir, created, sizeof(created)), 0);
	assert_int_equal(stat(created, &st), -1);
	assert_int_equal(stat(mine, &st), 0);
	assert_int_equal(st.st_size, 10);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

/* The same file swept over sizes: refused before the run, not half way. */
static void test_one_file_two_sizes(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char text[1024];
	(void)state;

	snprintf(text, sizeof(text), "[j]\nprobe = limit\nfile = %s/new.bin\nsize = 4K, 8K\n", dir);
	assert_int_equal(check(text, &cfg, &plan), -EINVAL);
	assert_true(has_diag(&cfg, "3: [j] "));
	assert_non_null(strstr(cfg.diags[0], "asked for with two different sizes"));
	assert_int_equal(cfg.ndiags, 1);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

/* Told in the order of the config, not of the paths. */
static void test_config_order(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	(void)state;

	assert_int_equal(check("[z]\nprobe = limit\nfile = /tmp\n"
			       "[a]\nprobe = limit\nfile = /nonexistent/x.bin\n",
			       &cfg, &plan),
			 -EINVAL);
	assert_int_equal(cfg.ndiags, 2);
	assert_non_null(strstr(cfg.diags[0], ":3: [z] /tmp"));
	assert_non_null(strstr(cfg.diags[1], ":6: [a] /nonexistent/x.bin"));
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

static void test_inputs(void **state)
{
	struct mmp_config cfg;
	struct mmp_sweep plan;
	char **paths, text[1024], want[4200];
	size_t n;
	(void)state;

	snprintf(text, sizeof(text),
		 "[a]\nprobe = limit, mmap_byte\nsize = 4K, 8K\n[b]\nprobe = limit\nsize = 4K\n");
	assert_int_equal(check(text, &cfg, &plan), 0);
	assert_int_equal(mmp_sweep_inputs(&cfg, &plan, datadir, &paths, &n), 0);
	assert_int_equal(n, 1 + 2 * 2); /* the config; two data files and their markers */
	assert_string_equal(paths[0], cfgpath);
	struct mmp_data_spec spec = { .size = 4096, .fill = MMP_FILL_RANDOM, .seed = 1 };
	assert_int_equal(mmp_datafile_path(&spec, datadir, want, sizeof(want)), 0);
	assert_string_equal(paths[1], want);
	strcat(want, ".mmprof");
	assert_string_equal(paths[2], want);
	mmp_sweep_inputs_free(paths, n);
	mmp_sweep_free(&plan);
	mmp_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_problems_at_their_lines, setup),
		cmocka_unit_test_setup(test_one_file_two_sizes, setup),
		cmocka_unit_test_setup(test_config_order, setup),
		cmocka_unit_test_setup(test_inputs, setup),
	};
	return cmocka_run_group_tests_name("plan_data", tests, NULL, NULL);
}
