/* Memory policies for real on this machine's node 0 (bind, touch, then
 * read back where the pages are), policy checks against this machine and
 * described ones, and huge pages. */
#include "topology_helpers.h"

#include <sched.h>
#include <sys/mman.h>

#include "platform/memory.h"

#define MiB (1024u * 1024u)

static struct mmp_topology *here;

static int setup(void **state)
{
	struct mmp_error err = { 0 };
	(void)state;
	if (mmp_topology_load(&here, NULL, &err)) {
		print_error("load: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mmp_topology_free(here);
	return 0;
}

/* Binding and the page census need mbind and move_pages.  Where they are
 * refused (a container's seccomp profile: EPERM; qemu-user or a kernel
 * without NUMA: ENOSYS) that is the machine's state, which
 * test_memory_refused.c covers with the answers planted: skip, saying
 * what mmprof says of it. */
static void skip_unless_numa_calls(void)
{
	char why[600];
	int e = mmp_memory_bind_refused(here);
	const char *call = "mbind";
	if (!e) {
		e = mmp_memory_locate_refused(here);
		call = "move_pages";
	}
	if (e) {
		print_message("# NUMA calls refused here: %s\n",
			      mmp_memory_refusal_text(e, call, why, sizeof(why)));
		skip();
	}
}

static struct mmp_membind policy(const char *text)
{
	struct mmp_membind m;
	char msg[256];
	if (mmp_membind_parse(text, &m, msg, sizeof(msg)))
		fail_msg("parse %s: %s", text, msg);
	return m;
}

static void parse_fails(const char *text, const char *want)
{
	struct mmp_membind m;
	char msg[256];
	assert_int_equal(mmp_membind_parse(text, &m, msg, sizeof(msg)), -EINVAL);
	if (strcmp(msg, want) != 0)
		fail_msg("parse %s:\n got '%s'\nwant '%s'", text, msg, want);
}

static void test_parse(void **state)
{
	enum mmp_bind_mode mode;
	char msg[256];
	(void)state;

	assert_int_equal(policy("firsttouch").kind, MMP_MEMBIND_FIRSTTOUCH);
	assert_int_equal(policy("local").kind, MMP_MEMBIND_LOCAL);
	assert_int_equal(policy("node:3").kind, MMP_MEMBIND_NODE);
	assert_int_equal(policy("node:3").node, 3);
	/* node:*: a job point per node, expanded by the plan */
	assert_true(policy("node:*").each);
	assert_int_equal(policy("node:*").kind, MMP_MEMBIND_NODE);
	assert_false(policy("node:3").each);
	assert_true(policy("interleave").all_nodes);
	assert_false(policy("interleave:0-1").all_nodes);
	assert_string_equal(policy("interleave:0,2").spec, "interleave:0,2");

	parse_fails("nod:1", "'nod:1' is not a memory policy (firsttouch, local, node:N, "
			     "node:*, interleave, interleave:LIST) (did you mean 'node:1'?)");
	parse_fails("firsttuch", "'firsttuch' is not a memory policy (firsttouch, local, node:N, "
				 "node:*, interleave, interleave:LIST) (did you mean 'firsttouch'?)");
	parse_fails("node", "node: needs a NUMA node number, e.g. node:0");
	parse_fails("node:x", "'node:x' is not node:N with N a NUMA node number");
	parse_fails("interleave:1-0", "'interleave:1-0' is not interleave:LIST with NUMA node "
				      "numbers (e.g. interleave:0,2 or interleave:0-3; ranges go up)");
	parse_fails("local:0", "'local:0': local takes nothing after it");

	assert_int_equal(mmp_bind_mode_parse("strict", &mode, msg, sizeof(msg)), 0);
	assert_int_equal(mode, MMP_BIND_STRICT);
	assert_int_equal(mmp_bind_mode_parse("best-effort", &mode, msg, sizeof(msg)), 0);
	assert_int_equal(mode, MMP_BIND_BEST_EFFORT);
	assert_int_equal(mmp_bind_mode_parse("strcit", &mode, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "'strcit' is not a binding mode (strict, best-effort) "
				 "(did you mean 'strict'?)");
}

static void check_fails(struct mmp_topology *t, const char *text, const char *want)
{
	struct mmp_membind m = policy(text);
	struct mmp_error err = { 0 };
	assert_int_equal(mmp_membind_check(&m, t, &err), -EINVAL);
	if (strcmp(err.msg, want) != 0)
		fail_msg("check %s:\n got '%s'\nwant '%s'", text, err.msg, want);
}

static void check_ok(struct mmp_topology *t, const char *text)
{
	struct mmp_membind m = policy(text);
	struct mmp_error err = { 0 };
	if (mmp_membind_check(&m, t, &err))
		fail_msg("check %s: %s", text, err.msg);
}

static void test_check_against_topologies(void **state)
{
	char nodes[64], want[160];
	(void)state;

	/* This machine: its own node list in the message. */
	mmp_topology_node_list(here, nodes, sizeof(nodes));
	check_ok(here, "node:0");
	check_ok(here, "interleave:0");
	snprintf(want, sizeof(want),
		 "membind node:%u: node %u is not a NUMA node here (nodes: %s)",
		 mmp_topology_numa_nodes(here), mmp_topology_numa_nodes(here), nodes);
	char bad[32];
	snprintf(bad, sizeof(bad), "node:%u", mmp_topology_numa_nodes(here));
	check_fails(here, bad, want);
	if (mmp_topology_numa_nodes(here) == 1)
		check_fails(here, "node:1", "membind node:1: node 1 is not a NUMA node here (nodes: 0)");

	struct mmp_topology *t = topo_load(DESKTOP);
	check_fails(t, "node:1", "membind node:1: node 1 is not a NUMA node here (nodes: 0)");
	mmp_topology_free(t);
	t = topo_load(INTEL);
	check_ok(t, "node:1");
	check_ok(t, "interleave:0-1");
	check_fails(t, "node:2", "membind node:2: node 2 is not a NUMA node here (nodes: 0-1)");
	check_fails(t, "interleave:0,5",
		    "membind interleave:0,5: node 5 is not a NUMA node here (nodes: 0-1)");

	/* A described machine is checked, never bound. */
	struct mmp_membind m = policy("node:1");
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	char page[64];
	assert_int_equal(mmp_memory_bind(t, page, sizeof(page), &m, MMP_BIND_STRICT, &res, &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "planning only"));
	mmp_topology_free(t);
}

/* An anonymous mapping nobody has touched yet. */
static char *fresh(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	return p;
}

static void census(const void *p, size_t len, struct mmp_page_census *c)
{
	struct mmp_error err = { 0 };
	if (mmp_memory_census(here, p, len, 0, c, &err))
		fail_msg("census: %s", err.msg);
}

/* Bind, touch, then every examined page must be on node 0. */
static void bind_touch_node0(const char *text, enum mmp_bind_mode mode, const char *want_call)
{
	const size_t len = 16 * MiB;
	struct mmp_membind m = policy(text);
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	struct mmp_page_census c;
	char *p = fresh(len);

	if (mmp_memory_bind(here, p, len, &m, mode, &res, &err))
		fail_msg("bind %s: %s", text, err.msg);
	assert_false(res.fell_back);
	assert_false(res.migrated);
	if (!strstr(res.note, want_call))
		fail_msg("bind %s: note '%s' lacks '%s'", text, res.note, want_call);
	memset(p, 1, len);
	census(p, len, &c);
	assert_int_equal(c.pages_total, len / c.page_size);
	assert_int_equal(c.pages_examined, c.pages_total);
	assert_int_equal(c.not_present, 0);
	assert_int_equal(mmp_page_census_on(&c, 0), c.pages_examined);
	assert_int_equal(munmap(p, len), 0);
}

static void test_bind_node0_strict(void **state)
{
	(void)state;
	skip_unless_numa_calls();
	bind_touch_node0("node:0", MMP_BIND_STRICT,
			 "nodeset 0, BIND, BYNODESET|STRICT)");
	bind_touch_node0("node:0", MMP_BIND_BEST_EFFORT, "nodeset 0, BIND, BYNODESET)");
}

static void test_interleave_over_node0(void **state)
{
	(void)state;
	skip_unless_numa_calls();
	bind_touch_node0("interleave:0", MMP_BIND_STRICT, "nodeset 0, INTERLEAVE, BYNODESET|STRICT)");
	bind_touch_node0("interleave", MMP_BIND_STRICT, "INTERLEAVE, BYNODESET|STRICT)");
}

static void test_firsttouch(void **state)
{
	(void)state;
	skip_unless_numa_calls();
	bind_touch_node0("firsttouch", MMP_BIND_STRICT, "first touch: no binding");
}

/* local is the node of the PU the calling thread is bound to. */
static void test_local(void **state)
{
	cpu_set_t before;
	struct mmp_error err = { 0 };
	int node = -1;
	(void)state;
	skip_unless_numa_calls();

	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	unsigned pu = mmp_topology_pus(here) - 1;
	assert_int_equal(mmp_topology_bind_self(here, (int)pu, &err), 0);
	assert_int_equal(mmp_memory_local_node(here, &node, &err), 0);
	assert_int_equal(node, mmp_topology_pu_node(here, (int)pu));
	bind_touch_node0("local", MMP_BIND_STRICT, "nodeset 0, BIND, BYNODESET|STRICT)");
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
}

/* Pages already there move (MIGRATE), and the result says so. */
static void test_bind_touched_pages_migrates(void **state)
{
	const size_t len = 4 * MiB;
	struct mmp_membind m = policy("node:0");
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	(void)state;
	skip_unless_numa_calls();
	char *p = fresh(len);

	memset(p, 1, len);
	assert_int_equal(mmp_memory_bind(here, p, len, &m, MMP_BIND_STRICT, &res, &err), 0);
	assert_true(res.migrated);
	assert_non_null(strstr(res.note, "BYNODESET|STRICT|MIGRATE)"));
	assert_string_equal(res.nodes, "0");
	assert_int_equal(munmap(p, len), 0);
}

/* A failing bind names the call, the nodeset, the flags and strerror;
 * best-effort falls back and says so. */
static void test_bind_failures(void **state)
{
	struct mmp_membind node1 = policy("node:1"), node0 = policy("node:0");
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	(void)state;
	skip_unless_numa_calls();
	char *p = fresh(3 * page);

	if (mmp_topology_numa_nodes(here) == 1) {
		assert_int_equal(mmp_memory_bind(here, p, page, &node1, MMP_BIND_STRICT, &res, &err),
				 -EINVAL);
		assert_string_equal(err.msg,
				    "membind node:1: node 1 is not a NUMA node here (nodes: 0)");
		assert_int_equal(mmp_memory_bind(here, p, page, &node1, MMP_BIND_BEST_EFFORT, &res,
						 &err),
				 0);
		assert_true(res.fell_back);
		assert_non_null(strstr(res.note, "best-effort: membind node:1: node 1 is not a NUMA "
						 "node here (nodes: 0); pages stay first-touch"));
	}

	/* mbind(2) refuses a range with an unmapped hole (EFAULT). */
	assert_int_equal(munmap(p + page, page), 0);
	assert_true(mmp_memory_bind(here, p, 3 * page, &node0, MMP_BIND_STRICT, &res, &err) < 0);
	if (!strstr(err.msg, "membind node:0 strict: hwloc_set_area_membind(") ||
	    !strstr(err.msg, "nodeset 0, BIND, BYNODESET|STRICT): "))
		fail_msg("%s", err.msg);
	assert_int_equal(mmp_memory_bind(here, p, 3 * page, &node0, MMP_BIND_BEST_EFFORT, &res,
					 &err),
			 0);
	assert_true(res.fell_back);
	assert_non_null(strstr(res.note, "failed: "));
	munmap(p, page);
	munmap(p + 2 * page, page);
}

/* A strict binding of more than the nodes hold is refused before a page
 * is touched: the kernel would not fail it, it would kill the process
 * when the page that does not fit is touched (seen on a 4-node guest,
 * tests/integration/vm_numa.sh).  Best-effort prefers and goes on. */
static void test_strict_more_than_the_node_holds(void **state)
{
	size_t len = 2 * (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
	struct mmp_membind node0 = policy("node:0"), inter = policy("interleave");
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	void *q = NULL;
	(void)state;
	skip_unless_numa_calls();

	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(mmp_memory_bind(here, p, len, &node0, MMP_BIND_STRICT, &res, &err),
			 -ENOMEM);
	if (!strstr(err.msg, "membind node:0 strict: ") ||
	    !strstr(err.msg, "do not fit on node(s) 0, which have ") ||
	    !strstr(err.msg, "free or reclaimable"))
		fail_msg("%s", err.msg);
	assert_int_equal(mmp_memory_bind(here, p, len, &inter, MMP_BIND_STRICT, &res, &err),
			 -ENOMEM);
	if (!strstr(err.msg, "membind interleave strict: ") || !strstr(err.msg, " interleaved puts "))
		fail_msg("%s", err.msg);
	assert_int_equal(mmp_memory_bind(here, p, len, &node0, MMP_BIND_BEST_EFFORT, &res, &err), 0);
	assert_false(res.fell_back);
	assert_int_equal(munmap(p, len), 0);
	assert_int_equal(mmp_memory_alloc(here, len, &node0, MMP_BIND_STRICT, &q, &res, &err),
			 -ENOMEM);
	assert_null(q);
	assert_non_null(strstr(err.msg, "do not fit on node(s) 0"));
}

static void test_alloc_bound(void **state)
{
	const size_t len = 8 * MiB;
	const char *texts[] = { "node:0", "interleave", "firsttouch" };
	struct mmp_bind_result res;
	struct mmp_error err = { 0 };
	struct mmp_page_census c;
	void *p;
	(void)state;
	skip_unless_numa_calls();

	for (int mode = 0; mode < 2; mode++)
		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
			struct mmp_membind m = policy(texts[i]);
			if (mmp_memory_alloc(here, len, &m, (enum mmp_bind_mode)mode, &p, &res, &err))
				fail_msg("alloc %s %d: %s", texts[i], mode, err.msg);
			assert_false(res.fell_back);
			census(p, len, &c);
			assert_int_equal(c.not_present, c.pages_examined);
			memset(p, 1, len);
			census(p, len, &c);
			assert_int_equal(mmp_page_census_on(&c, 0), c.pages_examined);
			mmp_memory_free(here, p, len);
		}
}

/* 64 MiB, half touched: 4096 of 16384 pages examined, exactly the
 * first 2048 of them (pages 4k) present. */
static void test_census_samples_and_word(void **state)
{
	const size_t len = 64 * MiB;
	struct mmp_page_census c;
	struct mmp_error err = { 0 };
	char text[160];
	int node = -1;
	(void)state;
	skip_unless_numa_calls();
	char *p = fresh(len);

	if (sysconf(_SC_PAGESIZE) != 4096)
		skip();
	assert_int_equal(mmp_memory_node_of(here, p + 100, &node, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "not present (touch it first)"));
	memset(p, 1, len / 2);
	census(p, len, &c);
	assert_true(c.sampled);
	assert_int_equal(c.pages_total, 16384);
	assert_int_equal(c.pages_examined, 4096);
	assert_int_equal(c.not_present, 2048);
	assert_int_equal(mmp_page_census_on(&c, 0), 2048);
	assert_string_equal(mmp_page_census_format(&c, text, sizeof(text)),
			    "4096 of 16384 pages examined (sampled): node 0 50.0%, not present 50.0%");
	assert_int_equal(mmp_memory_node_of(here, p + 100, &node, &err), 0);
	assert_int_equal(node, 0);
	assert_int_equal(munmap(p, len), 0);
}

/* Whether the kernel holds MADV_HUGEPAGE for the mapping at addr (the
 * "hg" of its VmFlags): qemu-user answers madvise with 0 and drops the
 * advice, so no huge page can be expected there. */
static bool advised_huge(const void *addr)
{
	char line[512];
	unsigned long lo, hi;
	bool in = false, hg = false;
	FILE *f = fopen("/proc/self/smaps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = lo <= (uintptr_t)addr && (uintptr_t)addr < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0)
			hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return hg;
}

static void test_huge_pages(void **state)
{
	const size_t len = 64 * MiB;
	struct mmp_huge_region r;
	struct mmp_huge_report rep;
	struct mmp_error err = { 0 };
	(void)state;

	enum mmp_thp_mode thp = mmp_memory_thp_mode();
	if (mmp_memory_alloc_huge(len, &r, &err))
		fail_msg("alloc_huge: %s", err.msg);
	assert_true(r.len >= len);
	assert_int_equal((uintptr_t)r.addr % r.huge_page_size, 0);
	assert_int_equal(mmp_memory_huge_report(r.addr, r.len, &rep, &err), 0);
	assert_int_equal(rep.huge_bytes, 0); /* nothing touched yet */
	memset(r.addr, 1, r.len);
	assert_int_equal(mmp_memory_huge_report(r.addr, r.len, &rep, &err), 0);
	print_message("# huge pages: %llu of %zu bytes (THP %s%s)\n",
		      (unsigned long long)rep.huge_bytes, r.len, mmp_thp_mode_name(thp),
		      r.hugetlb ? ", hugetlb" : "");
	assert_int_equal(rep.range_bytes, r.len);
	assert_int_equal(rep.thp, thp);
	assert_true(rep.huge_bytes <= r.len);
	assert_int_equal(rep.huge_bytes % r.huge_page_size, 0);
	assert_false(rep.approximate);
	if (thp == MMP_THP_MADVISE && !r.hugetlb && !advised_huge(r.addr)) {
		print_message("# madvise(MADV_HUGEPAGE) returned 0 but the kernel does not hold "
			      "the advice (no hg in VmFlags: an emulator such as qemu-user)\n");
		mmp_memory_free_huge(&r);
		skip();
	}
	if (r.hugetlb || (thp != MMP_THP_NEVER && thp != MMP_THP_UNAVAILABLE))
		assert_true(rep.huge_bytes > 0);
	mmp_memory_free_huge(&r);
	assert_null(r.addr);

	/* A small ordinary mapping reports none. */
	char *p = fresh(64 * 1024);
	memset(p, 1, 64 * 1024);
	assert_int_equal(mmp_memory_huge_report(p, 64 * 1024, &rep, &err), 0);
	assert_int_equal(rep.huge_bytes, 0);
	munmap(p, 64 * 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_check_against_topologies),
		cmocka_unit_test(test_bind_node0_strict),
		cmocka_unit_test(test_interleave_over_node0),
		cmocka_unit_test(test_firsttouch),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_bind_touched_pages_migrates),
		cmocka_unit_test(test_bind_failures),
		cmocka_unit_test(test_strict_more_than_the_node_holds),
		cmocka_unit_test(test_alloc_bound),
		cmocka_unit_test(test_census_samples_and_word),
		cmocka_unit_test(test_huge_pages),
	};
	return cmocka_run_group_tests_name("memory", tests, setup, teardown);
}
