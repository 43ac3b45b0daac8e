/* One repetition as the run stage records it (struct mmp_rep), and what a
 * run of a set is run with (struct mmp_runner_item): shared by the runner
 * (runner.h), which runs probes on its threads, and process_run.h, which
 * runs programs, so neither includes the other's header. */
#ifndef MMPROF_REP_H
#define MMPROF_REP_H

#include <signal.h>
#include <stdint.h>

#include "mmprof/config.h"
#include "mmprof/counters.h"
#include "mmprof/datafile.h"
#include "mmprof/disturbance.h"
#include "mmprof/preload.h"
#include "mmprof/runmem.h"
#include "mmprof/sampling.h"
#include "mmprof/thread_pool.h"

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
	struct mmp_disturbance dist;
	const struct mmp_census_record *census; /* where its memory was (runmem.h) */
	struct mmp_count *counts;        /* [events], summed over threads */
	struct mmp_count *thread_counts; /* [threads][events] */
	/* Programs (MMP_NEEDS_PROCESS); NULL, 0 for probes. */
	const char *log;      /* the process's stdout and stderr */
	uint64_t wall_ns;     /* its exec to its exit (elapsed_ns may be its own time) */
	int result_unchecked; /* no `result`: result and result_ok say nothing */
	char result_text[160]; /* what it printed when that is not a count ('...': why) */
	char note[1024];       /* "" or what mmprof did about it (ended a daemon it left) */
	/* It ran outside its planned PUs (pu_watch.h), and where its threads
	 * were found ("" when never sampled). */
	int escaped;
	char pus_ran[MMP_CPULIST_MAX];
	/* CPU time of all its threads: task-clock when counted, else wait4's
	 * rusage (the one-PU control's evidence); 0: not known. */
	uint64_t cpu_ns;
	/* Its threads seen on a CPU (the switch records, concurrency.h); 0:
	 * not known. */
	unsigned threads_seen;
	/* prefault, touch, huge or bulk: the preload library was asked for,
	 * and what it reported it changed (preload.h); preload_note says why it could
	 * change nothing when that is known ("a static binary"). */
	int preload_asked;
	struct mmp_preload_report preload;
	const char *preload_note;
	/* Its sampling profile (sampling.h; profile = off: NULL), and why
	 * there is none when sampling was asked for and refused. */
	const struct mmp_samples *samples;
	const char *samples_why;
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
