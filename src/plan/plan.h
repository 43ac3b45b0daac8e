/* The plan: the complete list of runs, finished before anything runs.
 *
 *   job points    every job at every point of its sweep (config_expand)
 *   rungs         each job point's ladder of controls (controls.h), placed
 *                 right after it
 *   sets          comparison sets: runs whose figures are compared with each
 *                 other -- a job point and its rungs, a job point and the
 *                 matching points of its `baseline`, `fixes` and `model` jobs, and
 *                 under `table = sizes` the methods of one file.  A set is run
 *                 in rounds (schedule.h), so nothing compared is measured
 *                 minutes apart.
 *   copies        a `limit` job point is every matching point's "x limit":
 *                 rather than tie unrelated sets into one slow set, it is
 *                 repeated in each set that needs it (a copy: not a row of
 *                 the table, a row of the CSV with its original as parent).
 *
 * What --dry-run prints is this, and what runs is this: the session is a
 * loop over the plan's sets.
 */
#ifndef MMPROF_PLAN_H
#define MMPROF_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "data/datafile.h"
#include "platform/topology.h"

struct mmp_planned {
	struct mmp_run run;        /* parameters; run.control/control_name for rungs */
	struct mmp_pin_plan pins;  /* where its threads go */
	struct mmp_data_spec data; /* the file it reads (all zero: a probe without one) */
	uint64_t end;              /* it reads bytes [0, end); 0: the whole file */
	size_t point;              /* the job point it belongs to (itself for a point) */
	unsigned rung;             /* 0: a job point; k: rung k of that point's ladder */
	unsigned added;            /* the control rung k adds (controls.h) */
	unsigned nrungs;           /* job points: rungs after it (0: no controls) */
	size_t set;                /* its comparison set */
	long copy_of;              /* a copy of a limit point: the original's index; else -1 */
	unsigned unapplied;        /* job points: controls it names that do not apply (notes) */
};

/* A job point of the config: not a rung, not a copy. */
static inline int mmp_planned_is_point(const struct mmp_planned *r)
{
	return !r->rung && r->copy_of < 0;
}

struct mmp_cset {
	size_t *runs; /* plan indexes, in plan order */
	size_t n;
	unsigned warmup;     /* unrecorded rounds first */
	unsigned rounds;     /* recorded rounds; with auto the floor */
	unsigned max_rounds; /* auto: the ceiling; else rounds */
	double max_time;     /* auto: seconds the set may take */
	int auto_rounds;     /* repeat = auto: add rounds until its answers are decided */
	char why[160];       /* what ties the runs together, for --dry-run */
};

/* Something the config asks for that the plan leaves out, though it is no
 * error: a control a job names that does not apply to some of its points
 * (controls.h).  The command line says each, at plan time and under
 * --dry-run; the plan says nothing itself.  One note per job, control and
 * reason, however many of the job's points it concerns. */
struct mmp_plan_note {
	int line;            /* of the controls key in the config (0: none) */
	const char *section; /* where it was set (the job, or global) */
	const char *job;     /* the job it does not apply to */
	const char *control; /* its name */
	char why[200];       /* "mmap_block (tally = local) has no shared state to make private" */
	size_t points;       /* the job's points it does not apply to, for this reason */
	size_t of;           /* the job's points */
	int nowhere;         /* it applies to none of them (for this reason or others) */
};

struct mmp_plan {
	struct mmp_planned *runs;
	size_t nruns;
	size_t npoints;
	struct mmp_cset *sets;
	size_t nsets;
	enum mmp_order order;
	uint64_t seed; /* of the rounds' shuffles */
	enum mmp_table table;
	struct mmp_plan_note *notes;
	size_t nnotes;
};

/* A key's value as mmp_run_format gives it, but placement = pairs names
 * the pair the run was given: "pairs:0,8". */
const char *mmp_planned_format(const struct mmp_planned *r, enum mmp_key_id key, char *buf,
			       size_t len);

/* The runs a plan may hold: job points, their control rungs, a point per
 * PU pair or NUMA node, copies of limit.  The sweep is capped before
 * (MMP_CONFIG_MAX_RUNS), but pairs, numa:* and ladders multiply it; a run
 * of the plan is about 1.2 KB. */
#define MMP_PLAN_MAX_RUNS 250000

/* placement = pairs plans every PU pair up to this many, else a sample
 * of this many that keeps every relation (mmp_topology_pairs): 32 PUs
 * have 496 pairs. */
#define MMP_PAIRS_MAX 512

/* Auto repetition's floor: an interval from fewer rounds is too wide to
 * decide anything. */
#define MMP_AUTO_MIN_ROUNDS 5

/* Build the plan from the job points.  Placements and ladders that cannot
 * be planned on this topology are config diagnostics with FILE:LINE
 * (returns -EINVAL); seed 0 draws one. */
int mmp_plan_build(struct mmp_config *cfg, const struct mmp_sweep *sweep,
		   const struct mmp_topology *topo, struct mmp_plan *out);
void mmp_plan_free(struct mmp_plan *plan);

/* Recorded repetitions the plan will make at least (the floor under
 * repeat = auto). */
unsigned long mmp_plan_repetitions(const struct mmp_plan *plan);

/* The run's key values as "[job] probe threads=8 access=1 control=..." */
/* Two job points read the same bytes in the same conditions (the keys
 * with MMP_ROLE_CONDITION, config.h): a ratio between them means
 * something.  The plan links baseline, fixes and model jobs by it; the
 * answers match their runs by it. */
/* The limit run (the ceiling) in run i's set over the same bytes, kernel,
 * threads and placement: what its "x limit" and the machine drift compare
 * it with.  Its index, or -1: none. */
long mmp_plan_ceiling(const struct mmp_plan *plan, size_t i);
int mmp_planned_comparable(const struct mmp_planned *a, const struct mmp_planned *b);
const char *mmp_planned_label(const struct mmp_planned *r, char *buf, size_t len);

#endif
