/* One repetition as the run stage records it (struct mmp_rep), and what a
 * run of a set is run with (struct mmp_runner_item): shared by the runner
 * (runner.h) and its engines (engine.h), so no engine includes the
 * runner's header.  What one kind of run alone records is that kind's
 * extension, declared beside its engine (process_run.h). */
#ifndef MMPROF_REP_H
#define MMPROF_REP_H

#include <signal.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/counters.h"
#include "data/datafile.h"
#include "run/disturbance.h"
#include "run/runmem.h"
#include "run/thread_pool.h"

struct mmp_rep_process;

struct mmp_rep {
	unsigned index;       /* among recorded repetitions, or warmups */
	int warmup;           /* not recorded */
	unsigned round;       /* the set's round (warmup rounds first) */
	unsigned position;    /* the run's place in its round, from 0 */
	uint64_t elapsed_ns;  /* first thread's start to last thread's end */
	uint64_t thread_min_ns, thread_max_ns; /* threads' own times */
	uint64_t *thread_ns;  /* [nthreads] */
	uint64_t bytes;       /* bytes the probe read (chase: chased; pingpong: 0) */
	uint64_t ops;         /* operations one after another (pingpong, chase); 0: none */
	uint64_t result;      /* zero count, or for histograms the byte sum */
	int result_ok;        /* equal to the reference, bin for bin */
	int probe_rc;         /* first error a thread's probe (or its check) returned, or 0 */
	int survey;           /* in: a program's runs with the preload library surveying
			       * what its rungs would reach (mmp_runner_survey) */
	struct mmp_disturbance dist;
	const struct mmp_census_record *census; /* where its memory was (runmem.h) */
	struct mmp_count *counts;        /* [events], summed over threads */
	struct mmp_count *thread_counts; /* [threads][events] */
	/* What only a kind of run records (engine.h): a program's, the
	 * process engine's (process_run.h); NULL for the other kinds. */
	const struct mmp_rep_process *process;
};

/* One run of a set: what it runs, on what, where, counting what. */
struct mmp_runner_item {
	const struct mmp_run *run;
	const struct mmp_datafile *data;    /* NULL: a probe without a file */
	const struct mmp_pin_plan *plan;
	const struct mmp_event_set *events; /* NULL: count nothing */
	uint64_t end;              /* read bytes [0, end); 0: the whole file */
	const uint64_t *reference; /* histogram of [0, end); NULL: data->hist */
	/* Programs: where their logs go, and the flag that stops one. */
	const char *logs;
	const volatile sig_atomic_t *stop;
};

#endif
