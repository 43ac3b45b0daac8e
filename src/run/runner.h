/* The runner: repetitions of the runs of one comparison set, in whatever
 * order the schedule gives.  It knows nothing of controls or answers: a
 * run is its parameters, its data, where its threads go and what to count.
 *
 * Opening a set creates each run's pinned threads (thread_pool.h) and the
 * probe's own state once.  Each repetition maps the file afresh (so lazy
 * page faults are part of every repetition unless prefault is set), releases
 * the threads through a barrier, is timed from the first thread's start to
 * the last thread's end, is checked against the reference for the bytes it
 * read, and is judged disturbed or not (disturbance.h).
 *
 * That is the threads engine's way (engine.h); a run of kind process
 * (exec) has no threads of mmprof's: each repetition is one process,
 * started, bound, counted and judged by the process engine, and recorded
 * in the same struct mmp_rep (rep.h).
 */
#ifndef MMPROF_RUNNER_H
#define MMPROF_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/counters.h"
#include "data/datafile.h"
#include "util/error.h"
#include "run/rep.h"
#include "run/thread_pool.h"
#include "platform/topology.h"

struct mmp_run_info {
	size_t item; /* which run of the set */
	const struct mmp_run *run;
	const struct mmp_datafile *data;
	const struct mmp_pin_plan *plan;
	const struct mmp_thread_place *places; /* [nthreads] */
	uint64_t access;                       /* bytes per call, 0: whole */
	const struct mmp_event_set *events;    /* what is counted (may be NULL) */
	const int *open_error;                 /* [events]: errno of a failed open */
	size_t groups_split; /* hardware groups the PMU did not take, split (counters.h) */
};

struct mmp_runner;

/* Create every run's threads (bound where planned, each checked to be on
 * its PU) and its probe state.  A negative errno with a message when a run
 * cannot be carried out. */
int mmp_runner_open(struct mmp_runner **out, const struct mmp_runner_item *items, size_t n,
		    const struct mmp_topology *topo, struct mmp_error *err);

/* Run k's next repetitions (a program's) with the preload library
 * surveying -- counting what each preload rung would reach, changing
 * nothing (preload.h) -- or not: the session asks it of a job's warmup
 * under controls = auto, so that its rungs need no warmup of their own. */
void mmp_runner_survey(struct mmp_runner *r, size_t k, int on);

/* One repetition of run k.  The returned rep and info stay valid until the
 * next repetition of the same run; the schedule's fields (index, warmup,
 * round, position) are the caller's to fill.  A negative errno with a
 * message when the repetition could not be carried out (the probe's own
 * errors are in rep->probe_rc, its result in rep->result_ok). */
int mmp_runner_rep(struct mmp_runner *r, size_t k, struct mmp_rep **rep,
		   const struct mmp_run_info **info, struct mmp_error *err);

void mmp_runner_close(struct mmp_runner *r);

#endif
