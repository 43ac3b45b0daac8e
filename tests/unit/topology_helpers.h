/* Shared by the topology tests: described machines, plans compared with
 * hand-written PU lists, and expected errors. */
#ifndef MMPROF_TEST_TOPOLOGY_HELPERS_H
#define MMPROF_TEST_TOPOLOGY_HELPERS_H

#include "helpers.h"

#include <errno.h>

#include "platform/topology.h"

/* The XML machines of tests/topologies (tests/topologies/generate.sh):
 *   desktop-1node  1 package, 1 node, 1 L3, 4 cores: core c = PUs c, c+4
 *   intel-2s-smt   2 packages = 2 nodes = 2 L3, 8 cores each: core c =
 *                  PUs c, c+16; package p = cores 8p..8p+7; SLIT 10/21
 *   amd-2s-nps2    2 packages x 2 nodes x 2 L3 x 4 cores: core c = PUs c,
 *                  c+32; L3 l = cores 4l..4l+3; node n = L3 2n, 2n+1;
 *                  SLIT 10/12/32
 * Paths are relative to the repository root, where tests run. */
#define TOPO_DIR "tests/topologies/"
#define DESKTOP "xml:" TOPO_DIR "desktop-1node.xml"
#define INTEL TOPO_DIR "intel-2s-smt.xml"
#define AMD TOPO_DIR "amd-2s-nps2.xml"
/* Two packages of two NUMA nodes, two cores of two PUs each, no L3:
 * node n = PUs 4n..4n+3, core c = PUs 2c, 2c+1. */
#define TWO_BY_TWO "synthetic:pack:2 numa:2 core:2 pu:2"

static inline struct mmp_topology *topo_load(const char *desc)
{
	struct mmp_topology *t = NULL;
	struct mmp_error err = { 0 };
	if (mmp_topology_load(&t, desc, &err))
		fail_msg("load %s: %s", desc ? desc : "this machine", err.msg);
	return t;
}

/* spec for threads plans exactly want ("0 4 1"), offering npus PUs. */
static inline void plan_is(struct mmp_topology *t, const char *spec, unsigned threads,
			   const char *want, unsigned npus, int over)
{
	struct mmp_placement p;
	struct mmp_pin_plan plan;
	struct mmp_error err = { 0 };
	char msg[256], buf[1024];

	if (mmp_placement_parse(spec, &p, msg, sizeof(msg)))
		fail_msg("parse %s: %s", spec, msg);
	if (mmp_topology_plan(t, &p, threads, &plan, &err))
		fail_msg("plan %s: %s", spec, err.msg);
	mmp_pin_plan_format(&plan, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%s x %u: got '%s', want '%s'", spec, threads, buf, want);
	if (plan.npus != npus || plan.oversubscribed != over)
		fail_msg("%s x %u: npus %u oversubscribed %d, want %u %d", spec, threads,
			 plan.npus, plan.oversubscribed, npus, over);
	mmp_pin_plan_free(&plan);
}

/* spec parses but planning it fails with -EINVAL and a message holding want. */
static inline void plan_fails(struct mmp_topology *t, const char *spec, unsigned threads,
			      const char *want)
{
	struct mmp_placement p;
	struct mmp_pin_plan plan;
	struct mmp_error err = { 0 };
	char msg[256];

	if (mmp_placement_parse(spec, &p, msg, sizeof(msg)))
		fail_msg("parse %s: %s", spec, msg);
	assert_int_equal(mmp_topology_plan(t, &p, threads, &plan, &err), -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("%s: '%s' lacks '%s'", spec, err.msg, want);
	assert_null(plan.pu);
}

#endif
