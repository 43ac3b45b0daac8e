/* How the runner executes a run, one engine per kind of run (probe.h's
 * enum mmp_run_kind), each in one file that ends in its ops:
 *
 *   threads   threads_run.c: the probe's loop on a pool of pinned threads
 *             of mmprof's, over slices of the data, timed between barriers
 *   process   process_run.c: one child process per repetition, a program
 *             bound to the run's PUs and counted from outside
 *
 * The runner (runner.h) picks a run's engine once, when the set opens, and
 * does what every kind needs around it: the data file rechecked before and
 * after each repetition, the page cache dropped, the schedule's fields.
 * What only one kind records is its own extension of struct mmp_rep
 * (rep.h), NULL for the others. */
#ifndef MMPROF_ENGINE_H
#define MMPROF_ENGINE_H

#include "util/error.h"
#include "mmprof/probe.h"
#include "run/rep.h"
#include "run/thread_pool.h"
#include "platform/topology.h"

/* What an engine sets its run up with, and what it tells the runner. */
struct mmp_engine_setup {
	const struct mmp_runner_item *item;
	const struct mmp_topology *topo;
	struct mmp_thread_place *places; /* [nthreads]: where each thread was put */
	int *open_error;                 /* [events]: errno of a counter that did not open */
	size_t groups_split;             /* hardware groups the PMU did not take (counters.h) */
};

struct mmp_engine {
	const char *name;
	/* Everything the run's repetitions reuse, into *state (NULL on
	 * failure, with nothing left to close). */
	int (*open)(void **state, struct mmp_engine_setup *setup, struct mmp_error *err);
	/* One repetition into rep (its arrays sized for the run's threads and
	 * events); -EINTR when stopped. */
	int (*rep)(void *state, struct mmp_rep *rep, struct mmp_error *err);
	void (*close)(void *state);
};

extern const struct mmp_engine mmp_threads_engine;
extern const struct mmp_engine mmp_process_engine;

/* The engine of a kind of run. */
const struct mmp_engine *mmp_engine_of(enum mmp_run_kind kind);

#endif
