/* What the topology files (topology*.c, placement.c) and memory*.c share
 * and nobody else needs: the hwloc handle behind struct mmp_topology and
 * the planning steps each placement kind is made of. */
#ifndef MMPROF_TOPOLOGY_INTERNAL_H
#define MMPROF_TOPOLOGY_INTERNAL_H

#include <hwloc.h>
#include <stdint.h>

#include "platform/topology.h"

/* OS PU and node numbers above this are typing mistakes, not machines. */
#define MMP_MAX_OS_INDEX 65535

/* L1, L2, L3 */
#define MMP_CACHE_LEVELS 3

/* The data (L1) or unified (L2, L3) caches of one level as the machine
 * has them, disallowed PUs included (topology_caches.c says why hwloc's
 * tree is not enough inside a cpuset). */
struct mmp_cache_level {
	unsigned n;            /* domains; 0: the machine reports no such cache */
	hwloc_bitmap_t *set;   /* the PUs sharing each, in order of their first PU */
	uint64_t size;         /* bytes of one */
	int data;              /* a data cache (L1d) rather than a unified one */
};

struct mmp_topology {
	hwloc_topology_t topo;
	int described;          /* not this system: plan only */
	char source[256];       /* "this system", "synthetic: DESC", "xml: PATH" */
	/* The PUs plans may use: hwloc's allowed cpuset (cgroup cpuset.cpus)
	 * and, on this system, the CPU affinity the process had at load
	 * (taskset): a thread bound outside it would fail or, worse, run
	 * where the user said it must not. */
	hwloc_bitmap_t allowed;
	char allowed_why[320];  /* "" when every PU is allowed */
	/* This system only: 0, or the errno mbind and move_pages were
	 * refused with (memory_calls.c). */
	int bind_errno, locate_errno;
	/* cache[0] is L1. caches_from: "" when hwloc's tree has them all,
	 * else where they were taken from, for --topology. */
	struct mmp_cache_level cache[MMP_CACHE_LEVELS];
	const char *caches_from;
};

/* Fills t->cache (topology_caches.c); 0 or -ENOMEM. */
int mmp_caches_fill(struct mmp_topology *t);
void mmp_caches_clear(struct mmp_cache_level c[MMP_CACHE_LEVELS]);
/* The index of the domain of level c holding pu, -ENOENT when none. */
int mmp_cache_domain_of(const struct mmp_cache_level *c, unsigned pu);
/* Each source alone, for tests: 0, -ENOENT when it does not describe
 * every PU of pus, -ENOTSUP (CPUID off x86), -ENOMEM. */
int mmp_caches_from_hwloc(hwloc_topology_t topo, struct mmp_cache_level c[MMP_CACHE_LEVELS]);
int mmp_caches_from_sysfs(const char *root, hwloc_const_bitmap_t pus,
			  struct mmp_cache_level c[MMP_CACHE_LEVELS]);
int mmp_caches_from_cpuid(const char *cpuinfo, hwloc_const_bitmap_t pus,
			  struct mmp_cache_level c[MMP_CACHE_LEVELS]);

/* Fills bind_errno and locate_errno by asking the kernel (memory_calls.c). */
void mmp_memory_calls_probe(struct mmp_topology *t);

/* The PUs a placement offers, in the order threads take them. */
struct mmp_pu_order {
	int *pu;
	unsigned n, cap;
};

void mmp_order_push(struct mmp_pu_order *o, int pu);

/* Calls fn(arg, id) for each number of "0-3,8" in order; -EINVAL on bad
 * syntax (descending range, trailing comma, a number above max). */
int mmp_idlist_walk(const char *list, unsigned max, void (*fn)(void *, unsigned), void *arg);

/* Planning steps, one per placement kind (topology_plan.c); each fills o
 * with allowed PUs or returns -EINVAL with a message naming what exists. */
int mmp_plan_compact(const struct mmp_topology *t, const struct mmp_placement *p,
		     struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_scatter(const struct mmp_topology *t, const struct mmp_placement *p,
		     struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_cores(const struct mmp_topology *t, const struct mmp_placement *p,
		   struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_spread(const struct mmp_topology *t, const struct mmp_placement *p,
		    struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_pus(const struct mmp_topology *t, const struct mmp_placement *p,
		 struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_numa(const struct mmp_topology *t, const struct mmp_placement *p,
		  struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_package(const struct mmp_topology *t, const struct mmp_placement *p,
		     struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_l3(const struct mmp_topology *t, const struct mmp_placement *p,
		struct mmp_pu_order *o, struct mmp_error *err);
int mmp_plan_pairs(const struct mmp_topology *t, const struct mmp_placement *p,
		   struct mmp_pu_order *o, struct mmp_error *err);

/* One row per placement kind: its name, what follows the colon, and its
 * planning step (placement.c holds the table). */
struct mmp_placement_kind_info {
	enum mmp_placement_kind kind;
	const char *name;  /* "compact", "numa" */
	const char *arg;   /* NULL, "LIST" or "N" */
	int (*plan)(const struct mmp_topology *t, const struct mmp_placement *p,
		    struct mmp_pu_order *o, struct mmp_error *err);
};

const struct mmp_placement_kind_info *mmp_placement_kind_info(enum mmp_placement_kind kind);

/* "0-1" of a bitmap, for messages. */
const char *mmp_bitmap_text(hwloc_const_bitmap_t set, char *buf, size_t len);

/* The NUMA node (hwloc object) whose PUs include pu's, NULL when none. */
hwloc_obj_t mmp_pu_numa_obj(const struct mmp_topology *t, unsigned pu);

/* The allowed PUs and why some are not, for error messages:
 * "allowed PUs: 1 (the CPU affinity mmprof was started with, e.g. taskset)". */
const char *mmp_allowed_text(const struct mmp_topology *t, char *buf, size_t len);

/* The NUMA latency matrix (hwloc's "NUMALatency", the ACPI SLIT on
 * Linux), NULL when the machine reports none; release with
 * hwloc_distances_release. */
struct hwloc_distances_s *mmp_numa_latency(const struct mmp_topology *t);
/* Latency between two nodes from that matrix, 0 when absent. */
unsigned mmp_numa_distance(const struct mmp_topology *t, struct hwloc_distances_s *d,
			   hwloc_obj_t a, hwloc_obj_t b);

#endif
