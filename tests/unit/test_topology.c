/* Placement planning on synthetic and XML topologies (two packages, SMT),
 * and real binding on this machine. */
#include "helpers.h"

#include <errno.h>
#include <hwloc.h>
#include <sched.h>

#include "mmprof/topology.h"

/* Two packages, one NUMA node each, four cores each, two PUs per core:
 * PUs 0-7 are package 0 (cores 0-3: PUs 0,1 | 2,3 | 4,5 | 6,7), 8-15
 * package 1. */
#define TWO_SOCKETS "pack:2 numa:1 core:4 pu:2"

static struct mmp_topology *load(const char *desc)
{
	struct mmp_topology *t = NULL;
	struct mmp_error err = { 0 };
	if (mmp_topology_load(&t, desc, &err))
		fail_msg("load %s: %s", desc ? desc : "this machine", err.msg);
	return t;
}

static void plan_is(struct mmp_topology *t, const char *spec, unsigned threads,
		    const char *want, unsigned npus, int over)
{
	struct mmp_placement p;
	struct mmp_pin_plan plan;
	struct mmp_error err = { 0 };
	char msg[256], buf[512];

	assert_int_equal(mmp_placement_parse(spec, &p, msg, sizeof(msg)), 0);
	if (mmp_topology_plan(t, &p, threads, &plan, &err))
		fail_msg("plan %s: %s", spec, err.msg);
	mmp_pin_plan_format(&plan, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%s x %u: got '%s', want '%s'", spec, threads, buf, want);
	assert_int_equal(plan.npus, npus);
	assert_int_equal(plan.oversubscribed, over);
	mmp_pin_plan_free(&plan);
}

static void plan_fails(struct mmp_topology *t, const char *spec, const char *want)
{
	struct mmp_placement p;
	struct mmp_pin_plan plan;
	struct mmp_error err = { 0 };
	char msg[256];

	assert_int_equal(mmp_placement_parse(spec, &p, msg, sizeof(msg)), 0);
	assert_int_equal(mmp_topology_plan(t, &p, 2, &plan, &err), -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("'%s' lacks '%s'", err.msg, want);
}

static void test_counts(void **state)
{
	struct mmp_topology *t = load(TWO_SOCKETS);
	(void)state;
	assert_int_equal(mmp_topology_pus(t), 16);
	assert_int_equal(mmp_topology_cores(t), 8);
	assert_int_equal(mmp_topology_packages(t), 2);
	assert_int_equal(mmp_topology_numa_nodes(t), 2);
	mmp_topology_free(t);
}

static void test_compact_fills_package_0_first(void **state)
{
	struct mmp_topology *t = load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "compact", 4, "0 1 2 3", 16, 0);
	plan_is(t, "compact", 8, "0 1 2 3 4 5 6 7", 16, 0);
	plan_is(t, "compact", 9, "0 1 2 3 4 5 6 7 8", 16, 0);
	plan_is(t, "compact", 17, "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0", 16, 1);
	mmp_topology_free(t);
}

static void test_scatter_alternates_packages(void **state)
{
	struct mmp_topology *t = load(TWO_SOCKETS);
	(void)state;
	/* One PU per core first, packages taking turns; SMT siblings last. */
	plan_is(t, "scatter", 4, "0 8 2 10", 16, 0);
	plan_is(t, "scatter", 8, "0 8 2 10 4 12 6 14", 16, 0);
	plan_is(t, "scatter", 10, "0 8 2 10 4 12 6 14 1 9", 16, 0);
	mmp_topology_free(t);
}

static void test_cores_skips_smt_siblings(void **state)
{
	struct mmp_topology *t = load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "cores", 4, "0 2 4 6", 8, 0);
	plan_is(t, "cores", 8, "0 2 4 6 8 10 12 14", 8, 0);
	plan_is(t, "cores", 9, "0 2 4 6 8 10 12 14 0", 8, 1);
	mmp_topology_free(t);
}

static void test_explicit_pus_and_numa(void **state)
{
	struct mmp_topology *t = load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "pus:3,1", 2, "3 1", 2, 0);
	plan_is(t, "pus:0-2,8", 5, "0 1 2 8 0", 4, 1);
	plan_is(t, "pus:5,5", 2, "5 5", 1, 1);
	plan_is(t, "numa:1", 3, "8 9 10", 8, 0);
	plan_is(t, "numa:0", 9, "0 1 2 3 4 5 6 7 0", 8, 1);
	plan_fails(t, "pus:0,99", "PU 99 does not exist");
	plan_fails(t, "numa:2", "no NUMA node 2");
	mmp_topology_free(t);
}

/* The same planning from an XML export (what a user would bring from a
 * bigger machine with lstopo). */
static void test_xml_topology(void **state)
{
	hwloc_topology_t h;
	char xml[600];
	(void)state;
	snprintf(xml, sizeof(xml), "%s/two.xml", test_tmpdir());
	assert_int_equal(hwloc_topology_init(&h), 0);
	assert_int_equal(hwloc_topology_set_synthetic(h, TWO_SOCKETS), 0);
	assert_int_equal(hwloc_topology_load(h), 0);
	assert_int_equal(hwloc_topology_export_xml(h, xml, 0), 0);
	hwloc_topology_destroy(h);

	struct mmp_topology *t = load(xml);
	assert_int_equal(mmp_topology_pus(t), 16);
	plan_is(t, "scatter", 2, "0 8", 16, 0);
	plan_is(t, "numa:1", 2, "8 9", 8, 0);
	mmp_topology_free(t);
}

static void test_bad_description(void **state)
{
	struct mmp_topology *t = NULL;
	struct mmp_error err = { 0 };
	(void)state;
	assert_true(mmp_topology_load(&t, "pack:two", &err) < 0);
	assert_non_null(strstr(err.msg, "pack:two"));
	assert_null(t);
}

/* Binding on this machine: the thread then runs on that PU only. */
static void test_bind_self(void **state)
{
	struct mmp_topology *t = load(NULL);
	struct mmp_error err = { 0 };
	cpu_set_t before, now;
	(void)state;

	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	unsigned last = mmp_topology_pus(t) - 1;
	assert_int_equal(mmp_topology_bind_self(t, (int)last, &err), 0);
	assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(last, &now));
	assert_int_equal(sched_getcpu(), (int)last);

	assert_int_equal(mmp_topology_bind_self(t, 4000, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "hwloc_set_cpubind"));
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
	mmp_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_compact_fills_package_0_first),
		cmocka_unit_test(test_scatter_alternates_packages),
		cmocka_unit_test(test_cores_skips_smt_siblings),
		cmocka_unit_test(test_explicit_pus_and_numa),
		cmocka_unit_test(test_xml_topology),
		cmocka_unit_test(test_bad_description),
		cmocka_unit_test(test_bind_self),
	};
	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
