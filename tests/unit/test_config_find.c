/* --config NAME: a path is taken as written, a name is searched for in
 * order (NAME before NAME.ini in each directory, earlier directories
 * first), and a name found nowhere says every place it was looked for. */
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>

#include "config/config.h"

static char dir_a[512], dir_b[512], cwd[512];

static void write_in(const char *dir, const char *name)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	test_write_file(p, "[j]\nprobe = limit\nsize = 4K\n");
}

/* A search path of the current directory (a fresh one), dir_a and dir_b. */
static int setup(void **state)
{
	(void)state;
	snprintf(dir_a, sizeof(dir_a), "%s", test_tmpdir());
	snprintf(dir_b, sizeof(dir_b), "%s", test_tmpdir());
	snprintf(cwd, sizeof(cwd), "%s", test_tmpdir());
	return chdir(cwd);
}

static struct mmp_config_search path3(void)
{
	static char *dirs[3];
	static const char *why[3] = { "the current directory", "a", "b" };
	dirs[0] = ".";
	dirs[1] = dir_a;
	dirs[2] = dir_b;
	return (struct mmp_config_search){ .n = 3, .dir = dirs, .why = why };
}

static void expect_found(const char *name, const char *want)
{
	struct mmp_config_search sp = path3();
	struct mmp_error err = { 0 };
	char buf[1024];
	assert_int_equal(mmp_config_find(&sp, name, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, want);
}

static void test_a_path_is_not_searched(void **state)
{
	(void)state;
	setup(NULL);
	write_in(dir_a, "x.ini");
	/* Not there as written, but never looked for elsewhere. */
	expect_found("sub/x.ini", "sub/x.ini");
	expect_found("./x", "./x");
	expect_found("", "");
}

static void test_order(void **state)
{
	char want[600];
	(void)state;
	setup(NULL);
	write_in(dir_b, "x.ini");
	snprintf(want, sizeof(want), "%s/x.ini", dir_b);
	expect_found("x", want);
	expect_found("x.ini", want);
	write_in(dir_a, "x.ini"); /* an earlier directory wins */
	snprintf(want, sizeof(want), "%s/x.ini", dir_a);
	expect_found("x", want);
	write_in(dir_a, "x"); /* NAME before NAME.ini */
	snprintf(want, sizeof(want), "%s/x", dir_a);
	expect_found("x", want);
	write_in(".", "x.ini"); /* the current directory first, named as written */
	expect_found("x", "x.ini");
	expect_found("x.ini", "x.ini");
}

static void test_directories_are_not_configs(void **state)
{
	char p[600], want[600];
	(void)state;
	setup(NULL);
	snprintf(p, sizeof(p), "%s/y.ini", dir_a);
	assert_int_equal(mkdir(p, 0755), 0);
	write_in(dir_b, "y.ini");
	snprintf(want, sizeof(want), "%s/y.ini", dir_b);
	expect_found("y", want);
	/* Nothing else of the name: the directory here goes to the loader,
	 * which says what it is. */
	assert_int_equal(mkdir("z", 0755), 0);
	expect_found("z", "z");
}

static void test_not_found_says_where(void **state)
{
	struct mmp_config_search sp = path3();
	struct mmp_error err = { 0 };
	char buf[1024], want[1200];
	(void)state;
	setup(NULL);
	write_in(dir_b, "byte_8t.ini");
	assert_int_equal(mmp_config_find(&sp, "byte_9t", buf, sizeof(buf), &err), -ENOENT);
	snprintf(want, sizeof(want),
		 "no config 'byte_9t' (did you mean 'byte_8t'?): looked for byte_9t and "
		 "byte_9t.ini in . (the current directory), %s (a), %s (b)",
		 dir_a, dir_b);
	assert_string_equal(err.msg, want);
	assert_int_equal(mmp_config_find(&sp, "zzz", buf, sizeof(buf), &err), -ENOENT);
	assert_null(strstr(err.msg, "did you mean"));
	rmdir(dir_a);
	assert_int_equal(mmp_config_find(&sp, "zzz", buf, sizeof(buf), &err), -ENOENT);
	snprintf(want, sizeof(want), "%s (a, not there)", dir_a);
	assert_non_null(strstr(err.msg, want));
}

static void on_config(const char *name, const char *path, void *arg)
{
	char *out = arg;
	size_t used = strlen(out);
	snprintf(out + used, 2048 - used, "%s=%s;", name, path);
}

static void test_list_first_wins(void **state)
{
	struct mmp_config_search sp = path3();
	char got[2048] = "", want[2048];
	(void)state;
	setup(NULL);
	write_in(dir_a, "b.ini");
	write_in(dir_a, "a.ini");
	write_in(dir_a, "notes.txt");
	write_in(dir_b, "a.ini");
	write_in(dir_b, "c.ini");
	write_in(".", "c.ini");
	assert_int_equal(mmp_config_list(&sp, on_config, got), 0);
	snprintf(want, sizeof(want), "c=c.ini;a=%s/a.ini;b=%s/b.ini;", dir_a, dir_a);
	assert_string_equal(got, want);
}

/* The real path: the current directory first, then MMPROF_CONFIG_PATH's
 * directories in order (empty entries and repeats dropped), the compiled-in
 * place last. */
static void test_search_path(void **state)
{
	struct mmp_config_search sp;
	char env[2100];
	(void)state;
	setup(NULL);
	snprintf(env, sizeof(env), "%s::%s:%s:", dir_b, dir_a, dir_b);
	setenv("MMPROF_CONFIG_PATH", env, 1);
	assert_int_equal(mmp_config_search_path(&sp), 0);
	unsetenv("MMPROF_CONFIG_PATH");
	assert_true(sp.n >= 4);
	assert_string_equal(sp.dir[0], ".");
	assert_string_equal(sp.dir[1], dir_b);
	assert_string_equal(sp.why[1], "MMPROF_CONFIG_PATH");
	assert_string_equal(sp.dir[2], dir_a);
	assert_string_equal(sp.why[sp.n - 1], "installed");
	assert_non_null(strstr(sp.dir[sp.n - 1], "/share/mmprof/configs"));
	for (size_t i = 3; i < sp.n; i++)
		assert_string_not_equal(sp.dir[i], dir_b);
	mmp_config_search_free(&sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_path_is_not_searched),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_directories_are_not_configs),
		cmocka_unit_test(test_not_found_says_where),
		cmocka_unit_test(test_list_first_wins),
		cmocka_unit_test(test_search_path),
	};
	return cmocka_run_group_tests_name("config_find", tests, NULL, NULL);
}
