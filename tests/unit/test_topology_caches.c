/* The machine's caches where hwloc lost those of disallowed PUs: the
 * kernel's sysfs description read from a tree made here (four PUs, two
 * cores of two SMT siblings, one L3), and a tree that misses a PU. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/topology_internal.h"

static char root[64];

static void put(unsigned cpu, unsigned index, const char *name, const char *value)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/cpu%u", root, cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu%u/cache", root, cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu%u/cache/index%u", root, cpu, index);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu%u/cache/index%u/%s", root, cpu, index, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	fclose(f);
}

static void cache(unsigned cpu, unsigned index, const char *level, const char *type,
		  const char *size, const char *shared)
{
	put(cpu, index, "level", level);
	put(cpu, index, "type", type);
	put(cpu, index, "size", size);
	put(cpu, index, "shared_cpu_list", shared);
}

static int make_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/mmprof-sysfs.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	for (unsigned cpu = 0; cpu < 4; cpu++) {
		const char *core = cpu < 2 ? "0-1" : "2-3";
		cache(cpu, 0, "1", "Data", "48K", core);
		cache(cpu, 1, "1", "Instruction", "32K", core);
		cache(cpu, 2, "2", "Unified", "1024K", core);
		cache(cpu, 3, "3", "Unified", "32768K", "0-3");
	}
	return 0;
}

static int remove_tree(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_sysfs(void **state)
{
	struct mmp_cache_level c[MMP_CACHE_LEVELS] = { { 0 } };
	hwloc_bitmap_t pus = hwloc_bitmap_alloc();
	char text[32];
	(void)state;

	hwloc_bitmap_set_range(pus, 0, 3);
	assert_int_equal(mmp_caches_from_sysfs(root, pus, c), 0);
	/* L1d: the data cache, not the instruction cache of the same level. */
	assert_int_equal(c[0].n, 2);
	assert_true(c[0].data);
	assert_int_equal(c[0].size, 48 << 10);
	hwloc_bitmap_list_snprintf(text, sizeof(text), c[0].set[1]);
	assert_string_equal(text, "2-3");
	assert_int_equal(c[1].n, 2);
	assert_false(c[1].data);
	assert_int_equal(c[1].size, 1 << 20);
	/* One L3 for the four, listed once though each PU lists it. */
	assert_int_equal(c[2].n, 1);
	assert_int_equal(c[2].size, 32 << 20);
	hwloc_bitmap_list_snprintf(text, sizeof(text), c[2].set[0]);
	assert_string_equal(text, "0-3");
	assert_int_equal(mmp_cache_domain_of(&c[2], 3), 0);
	assert_int_equal(mmp_cache_domain_of(&c[0], 3), 1);
	assert_int_equal(mmp_cache_domain_of(&c[0], 7), -ENOENT);
	mmp_caches_clear(c);
	assert_int_equal(c[2].n, 0);

	/* A PU the tree does not describe: the source is not used at all. */
	hwloc_bitmap_set(pus, 4);
	assert_int_equal(mmp_caches_from_sysfs(root, pus, c), -ENOENT);
	assert_int_equal(c[0].n + c[1].n + c[2].n, 0);
	hwloc_bitmap_free(pus);
}

/* A described machine keeps hwloc's caches as they are, in its order. */
static void test_hwloc(void **state)
{
	struct mmp_cache_level c[MMP_CACHE_LEVELS] = { { 0 } };
	hwloc_topology_t topo;
	(void)state;

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_synthetic(topo, "pack:2 l3:2 l2:2 l1:1 core:1 pu:2"),
			 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	assert_int_equal(mmp_caches_from_hwloc(topo, c), 0);
	assert_int_equal(c[2].n, 4);
	assert_int_equal(c[1].n, 8);
	assert_int_equal(c[0].n, 8);
	assert_int_equal(mmp_cache_domain_of(&c[2], 15), 3);
	mmp_caches_clear(c);
	hwloc_topology_destroy(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs),
		cmocka_unit_test(test_hwloc),
	};
	return cmocka_run_group_tests(tests, make_tree, remove_tree);
}
