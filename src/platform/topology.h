/* The machine's topology (hwloc) and where each thread of a run goes.
 *
 * Planning is a pure function of a topology, a placement and a thread
 * count, so tests run it on synthetic and XML topologies; binding happens in
 * each thread, which then reports where it really runs.
 *
 * Numbers: PUs and NUMA nodes are OS indexes (what taskset, numactl and
 * /sys/devices/system/{cpu,node} use); packages, L3 domains and cores are
 * hwloc logical indexes (0..n-1 in topology order), because their OS
 * numbers are sparse or absent.
 */
#ifndef MMPROF_TOPOLOGY_H
#define MMPROF_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/error.h"
#include "mmprof/params.h"

struct mmp_topology;

/* desc:
 *   NULL or ""         this machine, unless hwloc's own environment says
 *                      otherwise: HWLOC_SYNTHETIC, then HWLOC_XMLFILE, as
 *                      hwloc reads them (the message then names the variable)
 *   "synthetic:DESC"   an hwloc synthetic description ("pack:2 numa:1 core:4 pu:2")
 *   "xml:PATH"         an XML export (lstopo --of xml, hwloc-gather-topology)
 *   a bare PATH ending in .xml, or a bare synthetic description.
 * On this machine the PUs plans may use are hwloc's allowed cpuset (cgroup)
 * intersected with the process's CPU binding now (taskset); a described
 * machine uses its own allowed cpuset. */
int mmp_topology_load(struct mmp_topology **out, const char *desc, struct mmp_error *err);
void mmp_topology_free(struct mmp_topology *t);

/* True when the topology is not this system (synthetic, XML): it plans but
 * must not run probes or bind anything (hwloc_topology_is_thissystem). */
int mmp_topology_is_described(const struct mmp_topology *t);
/* "this system", "synthetic: pack:2 ...", "xml: PATH (from HWLOC_XMLFILE)". */
const char *mmp_topology_source(const struct mmp_topology *t);

/* Counts of the whole machine, disallowed PUs included. */
unsigned mmp_topology_pus(const struct mmp_topology *t);
unsigned mmp_topology_cores(const struct mmp_topology *t);
unsigned mmp_topology_packages(const struct mmp_topology *t);
unsigned mmp_topology_numa_nodes(const struct mmp_topology *t);
unsigned mmp_topology_l3_domains(const struct mmp_topology *t);

/* The PUs plans may use (see mmp_topology_load). */
unsigned mmp_topology_allowed_pus(const struct mmp_topology *t);
bool mmp_topology_pu_allowed(const struct mmp_topology *t, int pu);
/* Who restricted the allowed PUs: "" when nobody did, else "the cgroup
 * cpuset", "the CPU affinity mmprof was started with, ...", with the
 * batch scheduler whose job this is (", as Slurm set it for job 42 ..."). */
const char *mmp_topology_allowed_why(const struct mmp_topology *t);
/* "0-15", or "1" under taskset -c 1. */
const char *mmp_topology_allowed_list(const struct mmp_topology *t, char *buf, size_t len);

/* OS index of the NUMA node of PU pu; -EINVAL when there is no such PU,
 * -ENOENT when no node holds it. */
int mmp_topology_pu_node(const struct mmp_topology *t, int pu);
/* Logical index of the L3 domain of PU pu; -EINVAL when there is no such
 * PU, -ENOENT when the machine reports no L3 above it. */
int mmp_topology_pu_l3(const struct mmp_topology *t, int pu);
/* Whether node (OS index) is a NUMA node here. */
bool mmp_topology_node_exists(const struct mmp_topology *t, unsigned node);
/* The nodes' OS indexes in order: writes up to cap, returns how many exist. */
unsigned mmp_topology_node_indexes(const struct mmp_topology *t, unsigned *out, unsigned cap);
/* "0-3": for "node:4 is not a node here (nodes: 0-3)" messages. */
const char *mmp_topology_node_list(const struct mmp_topology *t, char *buf, size_t len);

/* Placement syntax, checked without a topology (config parsing):
 *   compact      allowed PUs in topology order (SMT siblings together)
 *   scatter      packages take turns (NUMA nodes when there is one package),
 *                one PU per core first, SMT siblings last
 *   cores        one PU per core, SMT siblings idle
 *   spread       nodes take turns (packages alternating first), within a
 *                node its L3 domains take turns, then cores; SMT siblings last
 *   pairs        two-thread probes swept over PU pairs: the plan is the
 *                sweep's first pair, the two lowest allowed PU numbers
 *                (threads must be 2); mmp_topology_pairs gives the sweep
 *   pus:LIST     OS PU numbers in the order given, e.g. pus:0-3,8
 *   numa:LIST    the PUs of those nodes (OS numbers), node by node in the
 *                order given, compact within each: numa:0, numa:0,2, numa:0-1;
 *                numa:* is a job point per node (mmp_plan_build expands it)
 *   package:N    compact within package N
 *   l3:N         compact within L3 domain N (on AMD Zen a CCX)
 * Bad text gives a message with a "did you mean" where one is close. */
int mmp_placement_parse(const char *text, struct mmp_placement *out, char *err,
			size_t errlen);
/* "compact, scatter, ..., l3:N": every kind, for help and messages;
 * returns buf (160 bytes hold it). */
const char *mmp_placement_syntax(char *buf, size_t len);
/* Whether a comma-split config value that follows prev continues prev's
 * list ("pus:0-3" then "8"; "numa:0" then "2") rather than being a new
 * placement of a sweep. */
bool mmp_placement_list_continues(const char *prev, const char *next);

struct mmp_pin_plan {
	unsigned nthreads;
	int *pu;         /* OS index of the PU thread i is bound to */
	unsigned npus;   /* distinct PUs the placement offers */
	int oversubscribed; /* more threads than npus: they share PUs */
};

/* Distinct PUs the plan's threads are bound to (a program is bound to
 * their union). */
static inline unsigned mmp_pin_plan_used(const struct mmp_pin_plan *p)
{
	unsigned n = 0;
	for (unsigned t = 0; t < p->nthreads; t++) {
		unsigned seen = 0;
		for (unsigned u = 0; u < t && !seen; u++)
			seen = p->pu[u] == p->pu[t];
		n += !seen;
	}
	return n;
}

/* Plan a placement over the allowed PUs; -EINVAL with a message when it
 * names PUs, nodes, packages or L3 domains the topology does not have
 * (the message lists those that exist) or that the process may not use
 * (the message gives the allowed PUs and why). */
int mmp_topology_plan(const struct mmp_topology *t, const struct mmp_placement *p,
		      unsigned nthreads, struct mmp_pin_plan *out, struct mmp_error *err);
void mmp_pin_plan_free(struct mmp_pin_plan *plan);
/* "0 1 0 1": the planned PU of each thread. */
const char *mmp_pin_plan_format(const struct mmp_pin_plan *plan, char *buf, size_t len);

/* How two PUs share the machine: the nearest level they share, nearest
 * first (names: "SMT siblings", "same L3", "same node", "same package",
 * "other package"). */
enum mmp_pair_relation {
	MMP_PAIR_SMT,     /* same core (SMT siblings share L1/L2) */
	MMP_PAIR_L3,      /* different cores, same L3 domain */
	MMP_PAIR_NODE,    /* same NUMA node, different L3 (AMD CCX to CCX) */
	MMP_PAIR_PACKAGE, /* same package, different node (NPS2/4, SNC) */
	MMP_PAIR_REMOTE,  /* different packages */
};

struct mmp_pu_pair {
	int pu[2];                      /* OS indexes, pu[0] < pu[1] */
	enum mmp_pair_relation relation;
	unsigned distance;              /* NUMA latency between their nodes, 0: not reported */
};

const char *mmp_pair_relation_name(enum mmp_pair_relation r);
enum mmp_pair_relation mmp_topology_pair_relation(const struct mmp_topology *t, int a, int b);

/* The PU pairs a two-thread probe (ping-pong, core-to-core latency) sweeps.
 *
 * Unordered: a cache line bouncing between two cores costs the same
 * whichever of them writes first, and both threads take turns in every
 * round trip, so (a,b) and (b,a) measure the same thing; listing both
 * would double the sweep for nothing. Pairs are of distinct allowed PUs
 * a < b (OS numbers), in the order (0,1), (0,2), ..., (1,2), ...
 *
 * max_pairs 0 or at least the number of pairs: every pair. Otherwise a
 * deterministic sample of exactly max_pairs pairs that keeps every
 * relation. Pairs are grouped by relation and, between nodes, by NUMA
 * distance (one hop or two); groups are ordered nearest first. The budget
 * is dealt to the groups one pair at a time, in turns, skipping groups
 * with no pairs left (a small group keeps all its pairs, the others share
 * the rest evenly). A group given q of its n pairs keeps those at
 * positions floor(k*n/q), k = 0..q-1, in the order above: its first pair
 * always, then evenly spaced. The sample keeps that order. -EINVAL when
 * max_pairs is smaller than the number of groups (the message lists
 * them) or fewer than 2 PUs are allowed. *out is malloc'ed; free() it. */
int mmp_topology_pairs(const struct mmp_topology *t, unsigned max_pairs,
		       struct mmp_pu_pair **out, size_t *n, struct mmp_error *err);

/* Bind the calling thread to one PU (strict: a failure is an error that
 * names the API, the cpuset, the flags and the reason). Refused on a
 * described topology. */
int mmp_topology_bind_self(const struct mmp_topology *t, int pu, struct mmp_error *err);

/* The machine for a user (--topology): source (described or this system),
 * packages, NUMA nodes with local memory and the latency matrix, L3
 * domains, cores with their PUs, and the allowed PUs when not all are. */
void mmp_topology_print(const struct mmp_topology *t, FILE *out);

/* "t0 PU 0 (node 0, L3 0)  t1 PU 8 (node 1, L3 2)": each thread's PU with
 * its node and L3 domain. The formatter returns buf (cut short with
 * "..." when len is too small). */
const char *mmp_topology_format_placement(const struct mmp_topology *t,
					  const struct mmp_pin_plan *plan, char *buf,
					  size_t len);
void mmp_topology_print_placement(const struct mmp_topology *t,
				  const struct mmp_pin_plan *plan, FILE *out);

#endif
