/* Controls: variants of a job that each remove one cause of slowness, run
 * beside it so that the difference in time is that cause's cost.
 *
 * They form a ladder: each rung is the job with every control up to it
 * applied, in this order, skipping the ones that do not apply:
 *
 *   fit       threads = the placement's PUs          oversubscription
 *   prefault  pages mapped in before timing           page faults
 *   padded    packed per-thread tally padded apart    false sharing
 *   private   shared state per-thread and padded      true sharing
 *   bulk      the same bytes through the bulk path    per-call overhead
 *   solo      one thread over one thread's slice      scaling loss
 *
 * so the costs add up to the job's time: what the last rung still takes is
 * what no control explains.
 */
#ifndef MMPROF_CONTROLS_H
#define MMPROF_CONTROLS_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/config.h"
#include "mmprof/error.h"
#include "mmprof/topology.h"

enum mmp_control {
	MMP_CONTROL_FIT = 1 << 0,
	MMP_CONTROL_PREFAULT = 1 << 1,
	MMP_CONTROL_PADDED = 1 << 2,
	MMP_CONTROL_PRIVATE = 1 << 3,
	MMP_CONTROL_BULK = 1 << 4,
	MMP_CONTROL_SOLO = 1 << 5,
};
#define MMP_CONTROL_COUNT 6
#define MMP_CONTROLS_ALL ((1u << MMP_CONTROL_COUNT) - 1)

/* "auto" (all that apply), "none", or names.  -EINVAL with a message (and a
 * did-you-mean) for anything else. */
int mmp_controls_parse(const char *text, unsigned *mask, char *err, size_t errlen);
/* The control's name ("prefault"), for bit i of the ladder order. */
const char *mmp_control_name(unsigned bit);

struct mmp_rung {
	struct mmp_run run;       /* the job with every control up to this one */
	unsigned added;           /* the control this rung adds: 0 for the job */
	struct mmp_pin_plan plan; /* threads change with fit and solo */
	unsigned solo_of;         /* solo: the thread count whose first slice it reads */
};

struct mmp_ladder {
	struct mmp_rung *rung; /* rung[0] is the job itself */
	size_t n;
};

/* The rungs of a job for the controls it asks for (run->p.controls).
 * job_plan is where the job's own threads go. */
int mmp_ladder_build(const struct mmp_run *job, const struct mmp_pin_plan *job_plan,
		     const struct mmp_topology *topo, struct mmp_ladder *out,
		     struct mmp_error *err);
void mmp_ladder_free(struct mmp_ladder *ladder);

#endif
