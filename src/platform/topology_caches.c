/* The data and unified caches of levels 1-3 as the machine has them,
 * disallowed PUs included.
 *
 * Inside a cgroup cpuset (Slurm's task/cgroup, a container) hwloc 2.9
 * keeps the disallowed PUs (INCLUDE_DISALLOWED) but not their caches
 * where its x86 backend found them: it reads CPUID on each PU by binding
 * to it, and the kernel refuses a binding outside the cpuset. The machine
 * then looks like one L3 domain with "L1d per 2 cores". When hwloc's
 * caches do not cover every PU, this file takes them from the kernel's
 * description (sysfs cpuN/cache/index*), or, where the kernel has none
 * (some hypervisors), from CPUID read on an allowed PU together with
 * every PU's APIC id in /proc/cpuinfo, as hwloc itself would have done
 * had it been allowed to move. */
#include "topology_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

void mmp_caches_clear(struct mmp_cache_level c[MMP_CACHE_LEVELS])
{
	for (unsigned l = 0; l < MMP_CACHE_LEVELS; l++) {
		for (unsigned i = 0; i < c[l].n; i++)
			hwloc_bitmap_free(c[l].set[i]);
		free(c[l].set);
		memset(&c[l], 0, sizeof(c[l]));
	}
}

int mmp_cache_domain_of(const struct mmp_cache_level *c, unsigned pu)
{
	for (unsigned i = 0; i < c->n; i++)
		if (hwloc_bitmap_isset(c->set[i], pu))
			return (int)i;
	return -ENOENT;
}

/* Adds the domain set (copied) unless an equal one is there: the PUs that
 * share one cache each describe it. */
static int add_domain(struct mmp_cache_level *c, hwloc_const_bitmap_t set)
{
	for (unsigned i = 0; i < c->n; i++)
		if (hwloc_bitmap_isequal(c->set[i], set))
			return 0;
	hwloc_bitmap_t *grown = realloc(c->set, (c->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->set = grown;
	if (!(c->set[c->n] = hwloc_bitmap_dup(set)))
		return -ENOMEM;
	c->n++;
	return 0;
}

/* Domains in the order of their first PU, as hwloc's logical order has
 * them on the machines it describes whole. */
static int by_first_pu(const void *a, const void *b)
{
	int x = hwloc_bitmap_first(*(hwloc_const_bitmap_t const *)a);
	int y = hwloc_bitmap_first(*(hwloc_const_bitmap_t const *)b);
	return (x > y) - (x < y);
}

static void sort_levels(struct mmp_cache_level c[MMP_CACHE_LEVELS])
{
	for (unsigned l = 0; l < MMP_CACHE_LEVELS; l++)
		if (c[l].n > 1)
			qsort(c[l].set, c[l].n, sizeof(c[l].set[0]), by_first_pu);
}

/* Each level present is either on every PU or untrustworthy as a whole. */
static int covers(const struct mmp_cache_level c[MMP_CACHE_LEVELS], hwloc_const_bitmap_t pus)
{
	for (unsigned l = 0; l < MMP_CACHE_LEVELS; l++) {
		int pu;
		if (!c[l].n)
			continue;
		hwloc_bitmap_foreach_begin(pu, pus)
			if (mmp_cache_domain_of(&c[l], (unsigned)pu) < 0)
				return 0;
		hwloc_bitmap_foreach_end();
	}
	return 1;
}

int mmp_caches_from_hwloc(hwloc_topology_t topo, struct mmp_cache_level c[MMP_CACHE_LEVELS])
{
	static const hwloc_obj_type_t types[MMP_CACHE_LEVELS] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE
	};
	for (unsigned l = 0; l < MMP_CACHE_LEVELS; l++) {
		hwloc_obj_t obj = NULL;
		/* hwloc's logical order, which l3:N has always meant. */
		while ((obj = hwloc_get_next_obj_by_type(topo, types[l], obj)) != NULL) {
			if (!obj->cpuset)
				continue;
			if (!c[l].n) {
				c[l].size = obj->attr->cache.size;
				c[l].data = obj->attr->cache.type == HWLOC_OBJ_CACHE_DATA;
			}
			int rc = add_domain(&c[l], obj->complete_cpuset ? obj->complete_cpuset
									: obj->cpuset);
			if (rc)
				return rc;
		}
	}
	/* Only PUs outside the allowed set lose their caches (hwloc could not
	 * bind there); an allowed PU without a level has none (a core
	 * cluster without an L3): that is the machine, not a loss. */
	hwloc_bitmap_t lost = hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(topo));
	if (!lost)
		return -ENOMEM;
	hwloc_bitmap_andnot(lost, lost, hwloc_topology_get_allowed_cpuset(topo));
	int whole = hwloc_bitmap_iszero(lost) || covers(c, lost);
	hwloc_bitmap_free(lost);
	return whole ? 0 : -ENOENT;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "48K", "1024K", "32M": the kernel's cache size. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default: return v;
	}
}

/* One PU's cacheN/index* directories. */
static int sysfs_pu(const char *root, unsigned pu, hwloc_const_bitmap_t pus,
		    struct mmp_cache_level c[MMP_CACHE_LEVELS], hwloc_bitmap_t set)
{
	char path[512], level[16], type[32], size[32], list[1024];
	int found = 0;

	for (unsigned i = 0; i < 64; i++) {
		int n = snprintf(path, sizeof(path), "%s/cpu%u/cache/index%u/", root, pu, i);
		if (n < 0 || (size_t)n >= sizeof(path) - 32)
			return -ENAMETOOLONG;
#define ENTRY(name, buf) (strcpy(path + n, name), read_line(path, buf, sizeof(buf)))
		if (ENTRY("level", level) != 0)
			break;
		if (ENTRY("type", type) || ENTRY("size", size) || ENTRY("shared_cpu_list", list))
			return -EIO;
#undef ENTRY
		unsigned l = (unsigned)atoi(level);
		if (l < 1 || l > MMP_CACHE_LEVELS || strcmp(type, "Instruction") == 0)
			continue;
		if (hwloc_bitmap_list_sscanf(set, list) != 0)
			return -EIO;
		/* A PU is in its own caches, whatever an odd kernel lists. */
		hwloc_bitmap_set(set, pu);
		hwloc_bitmap_and(set, set, pus);
		if (!c[l - 1].n) {
			c[l - 1].size = parse_size(size);
			c[l - 1].data = strcmp(type, "Data") == 0;
		}
		int rc = add_domain(&c[l - 1], set);
		if (rc)
			return rc;
		found = 1;
	}
	return found ? 0 : -ENOENT;
}

int mmp_caches_from_sysfs(const char *root, hwloc_const_bitmap_t pus,
			  struct mmp_cache_level c[MMP_CACHE_LEVELS])
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int pu, rc = set ? 0 : -ENOMEM;

	hwloc_bitmap_foreach_begin(pu, pus)
		if (rc == 0)
			rc = sysfs_pu(root, (unsigned)pu, pus, c, set);
	hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(set);
	/* Every PU had its cache directory (sysfs_pu): a level some PUs
	 * lack there is one they do not have. */
	if (rc)
		mmp_caches_clear(c);
	else
		sort_levels(c);
	return rc;
}

#if defined(__x86_64__) || defined(__i386__)
/* Each processor's APIC id from a /proc/cpuinfo (the "apicid" line of
 * its "processor" block); -ENOENT when a PU of pus has none. */
static int apic_ids(const char *cpuinfo, hwloc_const_bitmap_t pus, unsigned *apic,
		    unsigned max)
{
	char line[512];
	int cpu = -1, pu;
	hwloc_bitmap_t seen = hwloc_bitmap_alloc();
	FILE *f = fopen(cpuinfo, "r");
	int rc = 0;

	if (!seen || !f) {
		rc = f ? -ENOMEM : -errno;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (strncmp(line, "processor", 9) == 0)
			cpu = atoi(colon + 1);
		else if (strncmp(line, "apicid", 6) == 0 && cpu >= 0 && (unsigned)cpu < max) {
			apic[cpu] = (unsigned)strtoul(colon + 1, NULL, 10);
			hwloc_bitmap_set(seen, (unsigned)cpu);
		}
	}
	hwloc_bitmap_foreach_begin(pu, pus)
		if (!hwloc_bitmap_isset(seen, (unsigned)pu))
			rc = -ENOENT;
	hwloc_bitmap_foreach_end();
out:
	if (f)
		fclose(f);
	hwloc_bitmap_free(seen);
	return rc;
}

/* What CPUID says of one cache: its level, size, whether it holds data
 * only, and how many low APIC id bits tell apart the PUs sharing it. */
struct cpuid_cache {
	unsigned level, data, shift;
	uint64_t size;
};

static unsigned bits_for(unsigned n)
{
	unsigned shift = 0;
	while ((1u << shift) < n)
		shift++;
	return shift;
}

/* Leaf 4 (Intel) or 0x8000001D (AMD with TOPOEXT): one subleaf per cache,
 * with the number of logical processors sharing it. */
static unsigned caches_deterministic(unsigned leaf, struct cpuid_cache *out, unsigned cap)
{
	unsigned a, b, c, d, n = 0;
	for (unsigned sub = 0; sub < 16 && n < cap; sub++) {
		__cpuid_count(leaf, sub, a, b, c, d);
		unsigned type = a & 0x1f;
		if (type == 0)
			break;
		if (type == 2)
			continue;
		out[n].level = (a >> 5) & 7;
		out[n].data = type == 1;
		out[n].shift = bits_for(((a >> 14) & 0xfff) + 1);
		out[n].size = (uint64_t)(((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) *
			      ((b & 0xfff) + 1) * ((uint64_t)c + 1);
		n++;
	}
	return n;
}

/* AMD without TOPOEXT (some hypervisors hide it): the legacy leaves give
 * sizes only. As hwloc does there, L1 and L2 belong to a core and the L3
 * to the cores 0x80000008 counts in the package. */
static unsigned caches_amd_legacy(struct cpuid_cache *out)
{
	unsigned a, b, c, d, n = 0, l3 = 0, cores = 1;
	if (__get_cpuid(0x80000008, &a, &b, &c, &d))
		cores = (c & 0xff) + 1;
	if (__get_cpuid(0x80000005, &a, &b, &c, &d) && (c >> 24))
		out[n++] = (struct cpuid_cache){ 1, 1, 0, (uint64_t)(c >> 24) << 10 };
	if (__get_cpuid(0x80000006, &a, &b, &c, &d)) {
		if (c >> 16)
			out[n++] = (struct cpuid_cache){ 2, 0, 0, (uint64_t)(c >> 16) << 10 };
		l3 = d >> 18;
	}
	if (l3)
		out[n++] = (struct cpuid_cache){ 3, 0, bits_for(cores), (uint64_t)l3 << 19 };
	return n;
}
#endif

int mmp_caches_from_cpuid(const char *cpuinfo, hwloc_const_bitmap_t pus,
			  struct mmp_cache_level c[MMP_CACHE_LEVELS])
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, cx, d, n, max_pu = (unsigned)hwloc_bitmap_last(pus) + 1;
	struct cpuid_cache found[16];
	char vendor[13] = "";
	int rc = 0;

	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return -ENOTSUP;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &cx, 4);
	if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0) {
		int topoext = __get_cpuid(0x80000001, &a, &b, &cx, &d) && (cx & (1u << 22)) &&
			      (unsigned)__get_cpuid_max(0x80000000, NULL) >= 0x8000001Du;
		n = topoext ? caches_deterministic(0x8000001D, found, 16)
			    : caches_amd_legacy(found);
	} else if ((unsigned)__get_cpuid_max(0, NULL) >= 4) {
		n = caches_deterministic(4, found, 16);
	} else {
		return -ENOTSUP;
	}
	if (n == 0)
		return -ENOENT;
	unsigned *apic = calloc(max_pu, sizeof(*apic));
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!apic || !set) {
		rc = -ENOMEM;
		goto out;
	}
	rc = apic_ids(cpuinfo, pus, apic, max_pu);
	for (unsigned i = 0; rc == 0 && i < n; i++) {
		unsigned l = found[i].level;
		if (l < 1 || l > MMP_CACHE_LEVELS || c[l - 1].n)
			continue;
		c[l - 1].size = found[i].size;
		c[l - 1].data = (int)found[i].data;
		/* PUs whose APIC ids agree above the bits that count the
		 * sharers share the cache (Intel's SDM and AMD's rule). */
		int pu, other;
		hwloc_bitmap_foreach_begin(pu, pus)
			hwloc_bitmap_zero(set);
			hwloc_bitmap_foreach_begin(other, pus)
				if (apic[other] >> found[i].shift == apic[pu] >> found[i].shift)
					hwloc_bitmap_set(set, (unsigned)other);
			hwloc_bitmap_foreach_end();
			if (rc == 0)
				rc = add_domain(&c[l - 1], set);
		hwloc_bitmap_foreach_end();
	}
out:
	free(apic);
	hwloc_bitmap_free(set);
	if (rc == 0 && !covers(c, pus))
		rc = -ENOENT;
	if (rc)
		mmp_caches_clear(c);
	else
		sort_levels(c);
	return rc;
#else
	(void)cpuinfo;
	(void)pus;
	(void)c;
	return -ENOTSUP;
#endif
}

int mmp_caches_fill(struct mmp_topology *t)
{
	hwloc_const_bitmap_t pus = hwloc_topology_get_complete_cpuset(t->topo);
	int rc = mmp_caches_from_hwloc(t->topo, t->cache);

	t->caches_from = "";
	if (rc != -ENOENT || t->described)
		return rc == -ENOENT ? 0 : rc;
	/* hwloc lost some PUs' caches (see the top of this file). */
	struct mmp_cache_level other[MMP_CACHE_LEVELS] = { { 0 } };
	if ((rc = mmp_caches_from_sysfs("/sys/devices/system/cpu", pus, other)) == 0) {
		t->caches_from = "the kernel's sysfs (hwloc lost the disallowed PUs' caches)";
	} else if (hwloc_cpukinds_get_nr(t->topo, 0) <= 1 &&
		   (rc = mmp_caches_from_cpuid("/proc/cpuinfo", pus, other)) == 0) {
		/* Read on this PU, so only where every core is of one kind. */
		t->caches_from = "CPUID on an allowed PU and /proc/cpuinfo's APIC ids "
				 "(hwloc lost the disallowed PUs' caches)";
	} else {
		t->caches_from = "hwloc, which lost those of the disallowed PUs: they are unknown";
		return rc == -ENOMEM ? rc : 0;
	}
	mmp_caches_clear(t->cache);
	memcpy(t->cache, other, sizeof(other));
	return 0;
}
