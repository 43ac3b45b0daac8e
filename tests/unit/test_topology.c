/* Placement planning on described machines (synthetic and the XML files
 * of tests/topologies): every kind against a hand-written PU list, errors
 * for what does not exist or is not allowed, the PU-pair sample; and, on
 * this machine, the CPU affinity the process starts with and binding. */
#include "topology_helpers.h"

#include <dirent.h>
#include <hwloc.h>
#include <sched.h>

/* Two packages, one NUMA node each, four cores each, two PUs per core:
 * PUs 0-7 are package 0 (cores 0-3: PUs 0,1 | 2,3 | 4,5 | 6,7), 8-15
 * package 1. */
#define TWO_SOCKETS "pack:2 numa:1 core:4 pu:2"

static void test_counts(void **state)
{
	struct mmp_topology *t = topo_load(TWO_SOCKETS);
	(void)state;
	assert_int_equal(mmp_topology_pus(t), 16);
	assert_int_equal(mmp_topology_cores(t), 8);
	assert_int_equal(mmp_topology_packages(t), 2);
	assert_int_equal(mmp_topology_numa_nodes(t), 2);
	assert_int_equal(mmp_topology_allowed_pus(t), 16);
	mmp_topology_free(t);
	t = topo_load(AMD);
	assert_int_equal(mmp_topology_pus(t), 64);
	assert_int_equal(mmp_topology_numa_nodes(t), 4);
	assert_int_equal(mmp_topology_l3_domains(t), 8);
	mmp_topology_free(t);
}

static void test_compact_fills_package_0_first(void **state)
{
	struct mmp_topology *t = topo_load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "compact", 4, "0 1 2 3", 16, 0);
	plan_is(t, "compact", 9, "0 1 2 3 4 5 6 7 8", 16, 0);
	plan_is(t, "compact", 17, "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0", 16, 1);
	mmp_topology_free(t);
	/* Linux numbers SMT siblings apart (core 0 is PUs 0 and 16): compact
	 * still fills a core before the next. */
	t = topo_load(INTEL);
	plan_is(t, "compact", 3, "0 16 1", 32, 0);
	mmp_topology_free(t);
	t = topo_load(DESKTOP);
	plan_is(t, "compact", 8, "0 4 1 5 2 6 3 7", 8, 0);
	mmp_topology_free(t);
	t = topo_load(AMD);
	plan_is(t, "compact", 4, "0 32 1 33", 64, 0);
	mmp_topology_free(t);
}

static void test_scatter_alternates_packages(void **state)
{
	struct mmp_topology *t = topo_load(TWO_SOCKETS);
	(void)state;
	/* One PU per core first, packages taking turns; SMT siblings last. */
	plan_is(t, "scatter", 4, "0 8 2 10", 16, 0);
	plan_is(t, "scatter", 10, "0 8 2 10 4 12 6 14 1 9", 16, 0);
	mmp_topology_free(t);
	t = topo_load(INTEL);
	plan_is(t, "scatter", 4, "0 8 1 9", 32, 0);
	mmp_topology_free(t);
	/* One package, one node: cores in turn, then the siblings. */
	t = topo_load(DESKTOP);
	plan_is(t, "scatter", 8, "0 1 2 3 4 5 6 7", 8, 0);
	mmp_topology_free(t);
	/* Within a package, scatter goes core by core across its nodes. */
	t = topo_load(TWO_BY_TWO);
	plan_is(t, "scatter", 6, "0 8 2 10 4 12", 16, 0);
	mmp_topology_free(t);
	t = topo_load(AMD);
	plan_is(t, "scatter", 4, "0 16 1 17", 64, 0);
	mmp_topology_free(t);
}

static void test_cores_skips_smt_siblings(void **state)
{
	struct mmp_topology *t = topo_load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "cores", 4, "0 2 4 6", 8, 0);
	plan_is(t, "cores", 9, "0 2 4 6 8 10 12 14 0", 8, 1);
	mmp_topology_free(t);
	t = topo_load(INTEL);
	plan_is(t, "cores", 9, "0 1 2 3 4 5 6 7 8", 16, 0);
	mmp_topology_free(t);
	t = topo_load(DESKTOP);
	plan_is(t, "cores", 5, "0 1 2 3 0", 4, 1);
	mmp_topology_free(t);
	t = topo_load(AMD);
	plan_is(t, "cores", 3, "0 1 2", 32, 0);
	mmp_topology_free(t);
}

/* Packages alternate, then their nodes, then a node's L3 domains, then
 * cores; SMT siblings only once every core has a thread. */
static void test_spread(void **state)
{
	struct mmp_topology *t = topo_load(AMD);
	(void)state;
	plan_is(t, "spread", 9, "0 16 8 24 4 20 12 28 1", 64, 0);
	plan_is(t, "spread", 16, "0 16 8 24 4 20 12 28 1 17 9 25 5 21 13 29", 64, 0);
	mmp_topology_free(t);
	t = topo_load(TWO_BY_TWO);
	plan_is(t, "spread", 9, "0 8 4 12 2 10 6 14 1", 16, 0);
	mmp_topology_free(t);
	/* One node per package and one L3 per node: the same as scatter. */
	t = topo_load(INTEL);
	plan_is(t, "spread", 4, "0 8 1 9", 32, 0);
	mmp_topology_free(t);
	t = topo_load(DESKTOP);
	plan_is(t, "spread", 5, "0 1 2 3 4", 8, 0);
	mmp_topology_free(t);
}

static void test_explicit_pus(void **state)
{
	struct mmp_topology *t = topo_load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "pus:3,1", 2, "3 1", 2, 0);
	plan_is(t, "pus:0-2,8", 5, "0 1 2 8 0", 4, 1);
	plan_is(t, "pus:5,5", 2, "5 5", 1, 1);
	plan_fails(t, "pus:0,99", 2, "PU 99 does not exist here (PUs: 0-15)");
	mmp_topology_free(t);
	t = topo_load(DESKTOP);
	plan_is(t, "pus:7,0", 2, "7 0", 2, 0);
	plan_fails(t, "pus:8", 1, "PU 8 does not exist here (PUs: 0-7)");
	mmp_topology_free(t);
}

static void test_numa_nodes(void **state)
{
	struct mmp_topology *t = topo_load(TWO_SOCKETS);
	(void)state;
	plan_is(t, "numa:1", 3, "8 9 10", 8, 0);
	plan_is(t, "numa:0", 9, "0 1 2 3 4 5 6 7 0", 8, 1);
	plan_fails(t, "numa:2", 2, "no NUMA node 2 here (NUMA nodes: 0-1)");
	mmp_topology_free(t);
	/* Node by node in the order written, compact within each. */
	t = topo_load(TWO_BY_TWO);
	plan_is(t, "numa:0-1", 5, "0 1 2 3 4", 8, 0);
	plan_is(t, "numa:3,1", 6, "12 13 14 15 4 5", 8, 0);
	/* numa:* parses as every node; the plan expands it (tests/integration/numa.sh) */
	{
		struct mmp_placement p;
		char msg[256];
		assert_int_equal(mmp_placement_parse("numa:*", &p, msg, sizeof(msg)), 0);
		assert_true(p.each);
		assert_int_equal(p.kind, MMP_PLACE_NUMA);
		assert_int_not_equal(mmp_placement_parse("pus:*", &p, msg, sizeof(msg)), 0);
	}
	mmp_topology_free(t);
	t = topo_load(AMD);
	plan_is(t, "numa:1", 3, "8 40 9", 16, 0);
	plan_is(t, "numa:3,0", 3, "24 56 25", 32, 0);
	plan_is(t, "numa:0-1", 17, "0 32 1 33 2 34 3 35 4 36 5 37 6 38 7 39 8", 32, 0);
	plan_fails(t, "numa:0,4", 2, "no NUMA node 4 here (NUMA nodes: 0-3)");
	mmp_topology_free(t);
	t = topo_load(DESKTOP);
	plan_is(t, "numa:0", 3, "0 4 1", 8, 0);
	plan_fails(t, "numa:1", 2, "no NUMA node 1 here (NUMA nodes: 0)");
	mmp_topology_free(t);
}

static void test_packages_and_l3_domains(void **state)
{
	struct mmp_topology *t = topo_load(AMD);
	(void)state;
	plan_is(t, "package:1", 2, "16 48", 32, 0);
	plan_is(t, "l3:5", 3, "20 52 21", 8, 0);
	plan_is(t, "l3:0", 9, "0 32 1 33 2 34 3 35 0", 8, 1);
	plan_fails(t, "l3:8", 2, "no L3 domain 8 here (L3 domains: 0-7)");
	plan_fails(t, "package:2", 2, "no package 2 here (packages: 0-1)");
	mmp_topology_free(t);
	t = topo_load(INTEL);
	plan_is(t, "package:0", 2, "0 16", 16, 0);
	plan_is(t, "l3:1", 2, "8 24", 16, 0);
	mmp_topology_free(t);
	t = topo_load(DESKTOP);
	plan_is(t, "package:0", 3, "0 4 1", 8, 0);
	plan_is(t, "l3:0", 2, "0 4", 8, 0);
	plan_fails(t, "l3:1", 2, "no L3 domain 1 here (L3 domains: 0)");
	plan_fails(t, "package:1", 2, "no package 1 here (packages: 0)");
	mmp_topology_free(t);
	t = topo_load(TWO_BY_TWO);
	plan_fails(t, "l3:0", 2, "no L3 domain 0 here (this machine reports no L3 domain)");
	plan_is(t, "package:1", 3, "8 9 10", 8, 0);
	mmp_topology_free(t);
}

/* The plan of "pairs" is the sweep's first pair; the sweep itself is
 * mmp_topology_pairs. */
static void test_pairs_placement(void **state)
{
	struct mmp_topology *t = topo_load(INTEL);
	(void)state;
	plan_is(t, "pairs", 2, "0 1", 2, 0);
	plan_fails(t, "pairs", 3, "is for two-thread probes (threads = 2), not 3");
	mmp_topology_free(t);
}

static void pairs_are(struct mmp_topology *t, unsigned max, const char *want)
{
	struct mmp_pu_pair *p;
	struct mmp_error err = { 0 };
	size_t n, used = 0;
	char buf[4096] = "";

	if (mmp_topology_pairs(t, max, &p, &n, &err))
		fail_msg("pairs max %u: %s", max, err.msg);
	for (size_t i = 0; i < n && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%d-%d", i ? " " : "",
					 p[i].pu[0], p[i].pu[1]);
	free(p);
	if (strcmp(buf, want) != 0)
		fail_msg("pairs max %u: got '%s', want '%s'", max, buf, want);
}

static void test_all_pairs(void **state)
{
	struct mmp_topology *t = topo_load("core:2 pu:2");
	(void)state;
	/* Unordered, a < b, in order; 0 or enough room means all of them. */
	pairs_are(t, 0, "0-1 0-2 0-3 1-2 1-3 2-3");
	pairs_are(t, 6, "0-1 0-2 0-3 1-2 1-3 2-3");
	assert_int_equal(mmp_topology_pair_relation(t, 0, 1), MMP_PAIR_SMT);
	assert_int_equal(mmp_topology_pair_relation(t, 1, 2), MMP_PAIR_NODE);
	mmp_topology_free(t);

	t = topo_load(AMD);
	assert_int_equal(mmp_topology_pair_relation(t, 5, 37), MMP_PAIR_SMT);
	assert_int_equal(mmp_topology_pair_relation(t, 4, 39), MMP_PAIR_L3);
	assert_int_equal(mmp_topology_pair_relation(t, 3, 4), MMP_PAIR_NODE);
	assert_int_equal(mmp_topology_pair_relation(t, 7, 8), MMP_PAIR_PACKAGE);
	assert_int_equal(mmp_topology_pair_relation(t, 15, 16), MMP_PAIR_REMOTE);
	struct mmp_pu_pair *p;
	struct mmp_error err = { 0 };
	size_t n;
	assert_int_equal(mmp_topology_pairs(t, 0, &p, &n, &err), 0);
	assert_int_equal(n, 64 * 63 / 2);
	assert_int_equal(p[n - 1].pu[0], 62);
	assert_int_equal(p[n - 1].pu[1], 63);
	free(p);
	mmp_topology_free(t);
}

/* The sample rule of topology.h, worked by hand on TWO_BY_TWO (no L3):
 * 120 pairs in four groups: SMT 8, same node 16, same package 32, other
 * package 64. Ten pairs: turns give 3, 3, 2, 2; a group keeps positions
 * floor(k*n/q) of its own pairs:
 *   SMT      n=8,  q=3: 0,2,5  -> 0-1 4-5 10-11
 *   node     n=16, q=3: 0,5,10 -> 0-2 4-7 9-10
 *   package  n=32, q=2: 0,16   -> 0-4 8-12
 *   remote   n=64, q=2: 0,32   -> 0-8 4-8 */
static void test_pairs_sample_rule(void **state)
{
	struct mmp_topology *t = topo_load(TWO_BY_TWO);
	struct mmp_pu_pair *p = NULL;
	struct mmp_error err = { 0 };
	size_t n;
	(void)state;

	pairs_are(t, 10, "0-1 0-2 0-4 0-8 4-5 4-7 4-8 8-12 9-10 10-11");
	pairs_are(t, 4, "0-1 0-2 0-4 0-8");
	assert_int_equal(mmp_topology_pairs(t, 3, &p, &n, &err), -EINVAL);
	assert_null(p);
	if (!strstr(err.msg, "max_pairs 3 cannot keep every relation: this machine has 4 "
			     "(SMT siblings; same node; same package; other package)"))
		fail_msg("%s", err.msg);
	mmp_topology_free(t);

	/* AMD NPS2: one of each of the five relations, then 12 keep all five. */
	t = topo_load(AMD);
	pairs_are(t, 5, "0-1 0-4 0-8 0-16 0-32");
	assert_int_equal(mmp_topology_pairs(t, 12, &p, &n, &err), 0);
	assert_int_equal(n, 12);
	unsigned seen = 0;
	for (size_t i = 0; i < n; i++) {
		seen |= 1u << p[i].relation;
		assert_true(p[i].pu[0] < p[i].pu[1]);
		assert_true(i == 0 || p[i - 1].pu[0] < p[i].pu[0] ||
			    (p[i - 1].pu[0] == p[i].pu[0] && p[i - 1].pu[1] < p[i].pu[1]));
		if (p[i].relation == MMP_PAIR_REMOTE)
			assert_int_equal(p[i].distance, 32);
		if (p[i].relation == MMP_PAIR_PACKAGE)
			assert_int_equal(p[i].distance, 12);
	}
	assert_int_equal(seen, 0x1f);
	free(p);
	mmp_topology_free(t);
}

/* An XML whose allowed cpuset leaves out package 1 (as a cgroup would):
 * plans stay in package 0 and naming package 1 says why not. */
static void test_described_allowed_set(void **state)
{
	hwloc_topology_t h;
	char xml[600];
	(void)state;
	snprintf(xml, sizeof(xml), "%s/allowed.xml", test_tmpdir());
	assert_int_equal(hwloc_topology_init(&h), 0);
	assert_int_equal(hwloc_topology_set_flags(h, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED), 0);
	assert_int_equal(hwloc_topology_set_synthetic(h, TWO_SOCKETS), 0);
	assert_int_equal(hwloc_topology_load(h), 0);
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(set, 0, 7);
	assert_int_equal(hwloc_topology_allow(h, set, NULL, HWLOC_ALLOW_FLAG_CUSTOM), 0);
	hwloc_bitmap_free(set);
	assert_int_equal(hwloc_topology_export_xml(h, xml, 0), 0);
	hwloc_topology_destroy(h);

	struct mmp_topology *t = topo_load(xml);
	assert_int_equal(mmp_topology_pus(t), 16);
	assert_int_equal(mmp_topology_allowed_pus(t), 8);
	plan_is(t, "scatter", 4, "0 2 4 6", 8, 0);
	plan_is(t, "compact", 9, "0 1 2 3 4 5 6 7 0", 8, 1);
	plan_fails(t, "pus:1,9", 2, "PU 9 is not allowed for this process (allowed PUs: 0-7, "
				    "restricted by the description's allowed cpuset)");
	plan_fails(t, "numa:1", 2, "none of the PUs of NUMA node 1 (8-15) is allowed");
	plan_fails(t, "package:1", 2, "none of the PUs of package 1 (8-15) is allowed");
	mmp_topology_free(t);
}

/* The affinity of every thread of this process, as taskset gives it to a
 * program before it starts.  hwloc reads a process's binding as the
 * union over its threads, and under qemu-user the emulator's own threads
 * are threads of this process too: setting the calling thread's alone
 * left them on every PU. */
static void set_process_affinity(const cpu_set_t *set)
{
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		/* A thread that ended meanwhile is no longer there to pin. */
		if (sched_setaffinity((pid_t)atoi(e->d_name), sizeof(*set), set) != 0)
			assert_int_equal(errno, ESRCH);
	}
	closedir(d);
}

/* taskset -c 1 ./mmprof: every plan uses PU 1 only. */
static void test_affinity_limits_plans(void **state)
{
	cpu_set_t before, one;
	struct mmp_topology *t = topo_load(NULL);
	(void)state;
	unsigned pus = mmp_topology_pus(t);
	mmp_topology_free(t);
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	if (pus < 2 || !CPU_ISSET(1, &before))
		skip();
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	set_process_affinity(&one);
	t = topo_load(NULL);
	set_process_affinity(&before);

	assert_int_equal(mmp_topology_allowed_pus(t), 1);
	assert_true(mmp_topology_pu_allowed(t, 1));
	assert_false(mmp_topology_pu_allowed(t, 0));
	plan_is(t, "compact", 2, "1 1", 1, 1);
	plan_is(t, "scatter", 2, "1 1", 1, 1);
	plan_is(t, "cores", 2, "1 1", 1, 1);
	plan_is(t, "spread", 2, "1 1", 1, 1);
	plan_is(t, "numa:0", 1, "1", 1, 0);
	plan_fails(t, "pus:0", 1, "PU 0 is not allowed for this process (allowed PUs: 1, "
				  "restricted by the CPU affinity mmprof was started with, e.g. "
				  "by taskset");
	plan_fails(t, "pairs", 2, "needs two PUs (allowed PUs: 1");
	mmp_topology_free(t);
}

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

	struct mmp_topology *t = topo_load(xml);
	assert_int_equal(mmp_topology_pus(t), 16);
	plan_is(t, "scatter", 2, "0 8", 16, 0);
	plan_is(t, "numa:1", 2, "8 9", 8, 0);
	mmp_topology_free(t);
}

/* Binding on this machine: the thread then runs on that PU only. */
static void test_bind_self(void **state)
{
	struct mmp_topology *t = topo_load(NULL);
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

	/* A described machine plans; it never binds. */
	t = topo_load(INTEL);
	assert_int_equal(mmp_topology_bind_self(t, 0, &err), -EPERM);
	assert_non_null(strstr(err.msg, "planning only"));
	mmp_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_compact_fills_package_0_first),
		cmocka_unit_test(test_scatter_alternates_packages),
		cmocka_unit_test(test_cores_skips_smt_siblings),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_explicit_pus),
		cmocka_unit_test(test_numa_nodes),
		cmocka_unit_test(test_packages_and_l3_domains),
		cmocka_unit_test(test_pairs_placement),
		cmocka_unit_test(test_all_pairs),
		cmocka_unit_test(test_pairs_sample_rule),
		cmocka_unit_test(test_described_allowed_set),
		cmocka_unit_test(test_affinity_limits_plans),
		cmocka_unit_test(test_xml_topology),
		cmocka_unit_test(test_bind_self),
	};
	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
