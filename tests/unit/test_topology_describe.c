/* Where a topology comes from (this system, synthetic, XML, hwloc's
 * environment), placement syntax errors, the small queries a config check
 * needs, and the machine and a plan printed for a user. */
#include "topology_helpers.h"

static void test_sources(void **state)
{
	struct mmp_topology *t;
	(void)state;

	t = topo_load(NULL);
	assert_false(mmp_topology_is_described(t));
	assert_string_equal(mmp_topology_source(t), "this system");
	mmp_topology_free(t);

	t = topo_load("synthetic:pack:2 numa:1 core:1 pu:1");
	assert_true(mmp_topology_is_described(t));
	assert_int_equal(mmp_topology_pus(t), 2);
	assert_string_equal(mmp_topology_source(t), "synthetic: pack:2 numa:1 core:1 pu:1");
	mmp_topology_free(t);

	t = topo_load("core:3 pu:1"); /* a bare synthetic description */
	assert_true(mmp_topology_is_described(t));
	assert_int_equal(mmp_topology_pus(t), 3);
	mmp_topology_free(t);

	t = topo_load(DESKTOP);
	assert_true(mmp_topology_is_described(t));
	assert_int_equal(mmp_topology_pus(t), 8);
	mmp_topology_free(t);

	t = topo_load(AMD); /* a bare path ending in .xml */
	assert_true(mmp_topology_is_described(t));
	assert_string_equal(mmp_topology_source(t), "xml: " AMD);
	mmp_topology_free(t);
}

static void load_fails(const char *desc, const char *want)
{
	struct mmp_topology *t = (struct mmp_topology *)&t;
	struct mmp_error err = { 0 };
	assert_true(mmp_topology_load(&t, desc, &err) < 0);
	assert_null(t);
	if (!strstr(err.msg, want))
		fail_msg("load %s: '%s' lacks '%s'", desc ? desc : "NULL", err.msg, want);
}

static void test_bad_descriptions(void **state)
{
	(void)state;
	load_fails("pack:two", "hwloc_topology_set_synthetic('pack:two')");
	load_fails("synthetic:pack:two", "'pack:two'");
	load_fails("xml:/nonexistent/m.xml", "xml:/nonexistent/m.xml: cannot read it: No such file");
	load_fails(TOPO_DIR "missing.xml", "missing.xml: cannot read it");
}

/* hwloc's own variables choose the machine when the caller does not, and
 * a bad value is reported with the variable's name. */
static void test_hwloc_environment(void **state)
{
	struct mmp_topology *t;
	(void)state;

	assert_int_equal(setenv("HWLOC_XMLFILE", TOPO_DIR "intel-2s-smt.xml", 1), 0);
	t = topo_load(NULL);
	assert_true(mmp_topology_is_described(t));
	assert_int_equal(mmp_topology_pus(t), 32);
	assert_non_null(strstr(mmp_topology_source(t), "(from HWLOC_XMLFILE)"));
	mmp_topology_free(t);

	/* hwloc reads HWLOC_SYNTHETIC first. */
	assert_int_equal(setenv("HWLOC_SYNTHETIC", "core:5 pu:1", 1), 0);
	t = topo_load("");
	assert_int_equal(mmp_topology_pus(t), 5);
	mmp_topology_free(t);

	/* An explicit description wins over both. */
	t = topo_load(DESKTOP);
	assert_int_equal(mmp_topology_pus(t), 8);
	mmp_topology_free(t);

	assert_int_equal(setenv("HWLOC_SYNTHETIC", "core:x", 1), 0);
	load_fails(NULL, "(from HWLOC_SYNTHETIC)");
	unsetenv("HWLOC_SYNTHETIC");
	assert_int_equal(setenv("HWLOC_XMLFILE", "/nonexistent/m.xml", 1), 0);
	load_fails(NULL, "(from HWLOC_XMLFILE): cannot read it");
	unsetenv("HWLOC_XMLFILE");

	t = topo_load(NULL);
	assert_false(mmp_topology_is_described(t));
	mmp_topology_free(t);
}

static void parse_fails(const char *text, const char *want)
{
	struct mmp_placement p;
	char msg[512];
	assert_int_equal(mmp_placement_parse(text, &p, msg, sizeof(msg)), -EINVAL);
	if (strcmp(msg, want) != 0)
		fail_msg("parse %s:\n got '%s'\nwant '%s'", text, msg, want);
}

static void test_placement_syntax(void **state)
{
	struct mmp_placement p;
	char msg[256];
	(void)state;

	assert_int_equal(mmp_placement_parse("numa:2,0", &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.kind, MMP_PLACE_NUMA);
	assert_int_equal(p.numa_node, 2);
	assert_int_equal(mmp_placement_parse("l3:7", &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.kind, MMP_PLACE_L3);
	assert_int_equal(p.index, 7);
	assert_int_equal(mmp_placement_parse("package:1", &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.kind, MMP_PLACE_PACKAGE);
	assert_int_equal(mmp_placement_parse("spread", &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.kind, MMP_PLACE_SPREAD);
	assert_int_equal(mmp_placement_parse("pairs", &p, msg, sizeof(msg)), 0);
	assert_int_equal(p.kind, MMP_PLACE_PAIRS);

	parse_fails("spred", "'spred' is not a placement (compact, scatter, cores, spread, pairs, "
			     "pus:LIST, numa:LIST, package:N, l3:N) (did you mean 'spread'?)");
	parse_fails("packge:1", "'packge:1' is not a placement (compact, scatter, cores, spread, "
				"pairs, pus:LIST, numa:LIST, package:N, l3:N) (did you mean "
				"'package:1'?)");
	parse_fails("numa:0,0", "'numa:0,0' names NUMA node 0 twice");
	parse_fails("numa:1-0", "'numa:1-0' is not a NUMA node list (e.g. numa:0,2; ranges go up)");
	parse_fails("numa", "numa: needs a list of NUMA node numbers, e.g. numa:0,2");
	parse_fails("l3:", "l3: needs an L3 domain number, e.g. l3:0");
	parse_fails("package:x", "'package:x' is not package:N with N a package number (0, 1, ...)");
	parse_fails("compact:2", "'compact:2': compact takes nothing after it");

	assert_true(mmp_placement_list_continues("numa:0", "2"));
	assert_true(mmp_placement_list_continues("pus:0-3", "8"));
	assert_false(mmp_placement_list_continues("package:0", "1"));
	assert_false(mmp_placement_list_continues("pus:1", "compact"));
}

static void test_queries(void **state)
{
	struct mmp_topology *t = topo_load(AMD);
	unsigned nodes[8];
	char buf[64];
	(void)state;

	assert_int_equal(mmp_topology_pu_node(t, 40), 1);
	assert_int_equal(mmp_topology_pu_l3(t, 40), 2);
	assert_int_equal(mmp_topology_pu_node(t, 63), 3);
	assert_int_equal(mmp_topology_pu_l3(t, 63), 7);
	assert_int_equal(mmp_topology_pu_node(t, 64), -EINVAL);
	assert_int_equal(mmp_topology_pu_l3(t, -1), -EINVAL);
	assert_true(mmp_topology_node_exists(t, 3));
	assert_false(mmp_topology_node_exists(t, 4));
	assert_int_equal(mmp_topology_node_indexes(t, nodes, 2), 4);
	assert_int_equal(nodes[0], 0);
	assert_int_equal(nodes[1], 1);
	assert_string_equal(mmp_topology_node_list(t, buf, sizeof(buf)), "0-3");
	assert_string_equal(mmp_topology_allowed_list(t, buf, sizeof(buf)), "0-63");
	mmp_topology_free(t);

	t = topo_load("pack:1 numa:1 core:2 pu:1");
	assert_int_equal(mmp_topology_pu_l3(t, 0), -ENOENT);
	assert_int_equal(mmp_topology_pu_node(t, 1), 0);
	mmp_topology_free(t);
}

/* What mmp_topology_print writes, as a string. */
static char *printed(const struct mmp_topology *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	mmp_topology_print(t, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("output lacks '%s':\n%s", want, text);
}

static void test_print_two_sockets(void **state)
{
	struct mmp_topology *t = topo_load(INTEL);
	char *text = printed(t);
	(void)state;
	has(text, "machine: 2 packages, 2 NUMA nodes, 2 L3 domains, 16 cores, 32 PUs (2 per core)\n");
	has(text, "source: described by xml: " INTEL "; not this system: plans only");
	has(text, "  package 1: NUMA node 1, L3 1, cores 8-15, PUs 8-15,24-31\n");
	has(text, "  node 0: 96GiB local memory, PUs 0-7,16-23\n");
	has(text, "             node 0   node 1\n"
		  "  node 0         10       21\n"
		  "  node 1         21       10\n");
	has(text, "caches: L1d 32KiB per core, L2 1MiB per core\n");
	has(text, "  L3 1: 22MiB, node 1, PUs 8-15,24-31\n");
	has(text, "  core 0: PUs 0,16    core 1: PUs 1,17");
	assert_null(strstr(text, "allowed PUs"));
	free(text);
	mmp_topology_free(t);

	t = topo_load(AMD);
	text = printed(t);
	has(text, "  package 0: NUMA nodes 0-1, L3 0-3, cores 0-15, PUs 0-15,32-47\n");
	has(text, "  node 2         32       32       10       12\n");
	has(text, "  L3 3: 32MiB, node 1, PUs 12-15,44-47\n");
	free(text);
	mmp_topology_free(t);
}

static void test_print_one_node(void **state)
{
	struct mmp_topology *t = topo_load(DESKTOP);
	char *text = printed(t);
	(void)state;
	has(text, "  node 0: 16GiB local memory, PUs 0-7\n");
	has(text, "NUMA distances: not reported (one node)\n");
	has(text, "  core 3: PUs 3,7\n");
	free(text);
	mmp_topology_free(t);

	t = topo_load(NULL);
	text = printed(t);
	has(text, "source: this system\n");
	has(text, "NUMA nodes:\n  node 0: ");
	has(text, "cores (the PUs of each");
	free(text);
	mmp_topology_free(t);
}

static void test_print_placement(void **state)
{
	struct mmp_topology *t = topo_load(AMD);
	struct mmp_placement p;
	struct mmp_pin_plan plan;
	struct mmp_error err = { 0 };
	char msg[128], buf[256], small[40];
	(void)state;

	assert_int_equal(mmp_placement_parse("spread", &p, msg, sizeof(msg)), 0);
	assert_int_equal(mmp_topology_plan(t, &p, 3, &plan, &err), 0);
	assert_string_equal(mmp_topology_format_placement(t, &plan, buf, sizeof(buf)),
			    "t0 PU 0 (node 0, L3 0)  t1 PU 16 (node 2, L3 4)  t2 PU 8 (node 1, L3 2)");
	assert_string_equal(mmp_topology_format_placement(t, &plan, small, sizeof(small)),
			    "t0 PU 0 (node 0, L3 0)  ...");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	mmp_topology_print_placement(t, &plan, f);
	fclose(f);
	assert_string_equal(text, "  t0 PU 0 (node 0, L3 0)  t1 PU 16 (node 2, L3 4)  "
				  "t2 PU 8 (node 1, L3 2)\n");
	free(text);
	mmp_pin_plan_free(&plan);
	mmp_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_bad_descriptions),
		cmocka_unit_test(test_hwloc_environment),
		cmocka_unit_test(test_placement_syntax),
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_print_two_sockets),
		cmocka_unit_test(test_print_one_node),
		cmocka_unit_test(test_print_placement),
	};
	return cmocka_run_group_tests_name("topology_describe", tests, NULL, NULL);
}
