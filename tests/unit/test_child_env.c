/* A program's environment: env = items checked and applied (a comma
 * inside a value kept), what jitnames sets for .NET and Java and what it
 * leaves to the job's own env =, a perf-map agent found or said missing,
 * the log's list of what changed, and the preload variables added on top
 * of a job's environment. */
#include "helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/child_env.h"
#include "run/preload.h"

static void test_check(void **state)
{
	char err[256];
	(void)state;
	assert_int_equal(mmp_env_check("A=1", err, sizeof(err)), 0);
	assert_int_equal(mmp_env_check("A=1, B_2=x\\,y, EMPTY=", err, sizeof(err)), 0);
	assert_int_equal(mmp_env_check("A=1, B", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'B' is not VAR=VALUE"));
	assert_int_equal(mmp_env_check("1A=2", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'1A' is not a variable name"));
	assert_int_equal(mmp_env_check("A-B=2", err, sizeof(err)), -EINVAL);
	assert_int_equal(mmp_env_check(" , ", err, sizeof(err)), -EINVAL);
	assert_true(mmp_env_sets("A=1, DOTNET_PerfMapEnabled=0", "DOTNET_PerfMapEnabled"));
	assert_false(mmp_env_sets("A=1, DOTNET_PerfMapEnabledX=0", "DOTNET_PerfMapEnabled"));
	assert_false(mmp_env_sets(NULL, "A"));
}

static void test_apply(void **state)
{
	char *base[] = { "PATH=/bin", "A=old", "KEEP=1", NULL };
	struct mmp_child_env e;
	char buf[512];
	(void)state;
	assert_int_equal(mmp_child_env_init(&e, base), 0);
	assert_int_equal(mmp_child_env_apply(&e, "A=new, B=x\\,y, C="), 0);
	assert_string_equal(mmp_child_env_get(&e, "A"), "new");
	assert_string_equal(mmp_child_env_get(&e, "B"), "x,y");
	assert_string_equal(mmp_child_env_get(&e, "C"), "");
	assert_string_equal(mmp_child_env_get(&e, "KEEP"), "1");
	assert_null(mmp_child_env_get(&e, "KEE"));
	assert_int_equal(e.n, 5);
	assert_null(e.v[e.n]);
	assert_string_equal(mmp_child_env_changes(&e, base, buf, sizeof(buf)), "A=new B=x,y C=");
	mmp_child_env_free(&e);
}

/* jitnames on a job whose env = turns W^X off and has Java options of its
 * own: the job's word on W^X stands (jitnames leaves it alone), the perf
 * map is asked for, and the Java options are kept with the perf map's
 * after them. */
static void test_jitnames(void **state)
{
	char *base[] = { "PATH=/bin", NULL };
	const char *user = "DOTNET_EnableWriteXorExecute=0, JAVA_TOOL_OPTIONS=-Xmx1g";
	struct mmp_child_env e;
	char agent[512];
	(void)state;
	unsetenv("MMPROF_PERFMAP_AGENT");
	int have_agent = mmp_jit_java_agent(agent, sizeof(agent)) == 0;
	assert_int_equal(mmp_child_env_init(&e, base), 0);
	assert_int_equal(mmp_child_env_apply(&e, user), 0);
	int set = mmp_child_env_jitnames(&e, user);
	assert_true(set > 0);
	assert_true(set & MMP_JIT_DOTNET);
	assert_string_equal(mmp_child_env_get(&e, "DOTNET_PerfMapEnabled"), "1");
	assert_string_equal(mmp_child_env_get(&e, "DOTNET_EnableWriteXorExecute"), "0");
	const char *java = mmp_child_env_get(&e, "JAVA_TOOL_OPTIONS");
	assert_non_null(java);
	assert_true(strncmp(java, "-Xmx1g ", 7) == 0);
	if (have_agent) {
		assert_true(set & MMP_JIT_JAVA_AGENT);
		assert_non_null(strstr(java, "-agentpath:"));
	} else {
		assert_true(set & MMP_JIT_JAVA_EXIT);
		assert_non_null(strstr(java, "-XX:+DumpPerfMapAtExit"));
		/* An older JVM must still start. */
		assert_non_null(strstr(java, "-XX:+IgnoreUnrecognizedVMOptions"));
		assert_non_null(strstr(agent, "no perf-map agent installed"));
		assert_non_null(strstr(agent, "MMPROF_PERFMAP_AGENT"));
	}
	mmp_child_env_free(&e);

	/* An agent named by MMPROF_PERFMAP_AGENT replaces the map at exit;
	 * one that is not there is said so. */
	char path[] = "/tmp/mmprof-agent-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	setenv("MMPROF_PERFMAP_AGENT", path, 1);
	assert_int_equal(mmp_child_env_init(&e, base), 0);
	set = mmp_child_env_jitnames(&e, NULL);
	assert_true(set & MMP_JIT_JAVA_AGENT);
	assert_false(set & MMP_JIT_JAVA_EXIT);
	java = mmp_child_env_get(&e, "JAVA_TOOL_OPTIONS");
	assert_non_null(java);
	assert_true(strncmp(java, "-agentpath:", 11) == 0 && strcmp(java + 11, path) == 0);
	assert_null(mmp_child_env_get(&e, "DOTNET_EnableWriteXorExecute"));
	mmp_child_env_free(&e);
	unlink(path);
	assert_int_equal(mmp_jit_java_agent(agent, sizeof(agent)), -ENOENT);
	assert_non_null(strstr(agent, "no such readable file"));
	unsetenv("MMPROF_PERFMAP_AGENT");
}

/* The preload library's variables go on top of the job's environment,
 * and its LD_PRELOAD keeps the job's. */
static void test_preload_on_top(void **state)
{
	char *base[] = { "PATH=/bin", NULL };
	struct mmp_child_env e;
	(void)state;
	assert_int_equal(mmp_child_env_init(&e, base), 0);
	assert_int_equal(mmp_child_env_apply(&e, "LD_PRELOAD=/x/mine.so, A=1"), 0);
	char **env = mmp_preload_env(e.v, "/lib/p.so", "prefault", "/tmp/r");
	assert_non_null(env);
	int preload = 0, a = 0, n = 0;
	for (; env[n]; n++) {
		preload += strcmp(env[n], "LD_PRELOAD=/lib/p.so:/x/mine.so") == 0;
		a += strcmp(env[n], "A=1") == 0;
	}
	assert_int_equal(preload, 1);
	assert_int_equal(a, 1);
	assert_int_equal(n, 5); /* PATH, A, LD_PRELOAD, the mode, the report */
	mmp_preload_env_free(env);
	mmp_child_env_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_jitnames),
		cmocka_unit_test(test_preload_on_top),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
