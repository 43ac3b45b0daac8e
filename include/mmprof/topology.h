/* The machine's topology (hwloc) and where each thread of a run goes.
 *
 * Planning is a pure function of a topology, a placement and a thread
 * count, so tests run it on synthetic and XML topologies; binding happens in
 * each thread, which then reports where it really runs.
 */
#ifndef MMPROF_TOPOLOGY_H
#define MMPROF_TOPOLOGY_H

#include <stddef.h>
#include <stdio.h>

#include "mmprof/error.h"
#include "mmprof/params.h"

struct mmp_topology;

/* This machine (desc NULL), an hwloc synthetic description
 * ("pack:2 numa:1 core:4 pu:2"), or an XML file (a path ending in .xml). */
int mmp_topology_load(struct mmp_topology **out, const char *desc, struct mmp_error *err);
void mmp_topology_free(struct mmp_topology *t);

unsigned mmp_topology_pus(const struct mmp_topology *t);
unsigned mmp_topology_cores(const struct mmp_topology *t);
unsigned mmp_topology_packages(const struct mmp_topology *t);
unsigned mmp_topology_numa_nodes(const struct mmp_topology *t);

/* Placement syntax, checked without a topology (config parsing). */
int mmp_placement_parse(const char *text, struct mmp_placement *out, char *err,
			size_t errlen);

struct mmp_pin_plan {
	unsigned nthreads;
	int *pu;         /* OS index of the PU thread i is bound to */
	unsigned npus;   /* distinct PUs the placement offers */
	int oversubscribed; /* more threads than npus: they share PUs */
};

/* Plan a placement; -EINVAL with a message when it names PUs or NUMA
 * nodes the topology does not have. */
int mmp_topology_plan(const struct mmp_topology *t, const struct mmp_placement *p,
		      unsigned nthreads, struct mmp_pin_plan *out, struct mmp_error *err);
void mmp_pin_plan_free(struct mmp_pin_plan *plan);
/* "0 1 0 1": the planned PU of each thread. */
const char *mmp_pin_plan_format(const struct mmp_pin_plan *plan, char *buf, size_t len);

/* Bind the calling thread to one PU (strict: a failure is an error that
 * names the API, the cpuset, the flags and the reason). */
int mmp_topology_bind_self(const struct mmp_topology *t, int pu, struct mmp_error *err);

/* Machine summary for --topology and the report header. */
void mmp_topology_print(const struct mmp_topology *t, FILE *out);

#endif
