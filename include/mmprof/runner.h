/* The runner: T pinned threads over one data file, repeated.
 *
 * Threads are created once per run and bind themselves to their planned
 * PU.  Each repetition maps the file afresh (so lazy page faults are part
 * of every repetition unless prefault is set), releases all threads through
 * a barrier, and times from the first thread's start to the last thread's
 * end.  The result of every repetition is checked against the data file's
 * reference.
 */
#ifndef MMPROF_RUNNER_H
#define MMPROF_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "mmprof/config.h"
#include "mmprof/counters.h"
#include "mmprof/datafile.h"
#include "mmprof/error.h"
#include "mmprof/topology.h"

#define MMP_CPULIST_MAX 128

/* Where a thread really ran, as it saw it after binding itself. */
struct mmp_thread_place {
	int pu_planned;
	int pu_seen;                   /* sched_getcpu() */
	char allowed[MMP_CPULIST_MAX]; /* sched_getaffinity(), as a list */
};

struct mmp_rep {
	unsigned index;       /* among recorded repetitions, or warmups */
	int warmup;           /* not recorded */
	uint64_t elapsed_ns;  /* first thread's start to last thread's end */
	uint64_t thread_min_ns, thread_max_ns; /* threads' own times */
	uint64_t *thread_ns;  /* [nthreads] */
	uint64_t bytes;       /* bytes the probe read */
	uint64_t result;      /* zero count, or for histograms the byte sum */
	int result_ok;        /* equal to the reference, bin for bin */
	int probe_rc;         /* first error a thread's probe returned, or 0 */
	struct mmp_count *counts;        /* [events], summed over threads */
	struct mmp_count *thread_counts; /* [threads][events] */
};

struct mmp_run_info {
	const struct mmp_run *run;
	const struct mmp_datafile *data;
	const struct mmp_pin_plan *plan;
	const struct mmp_thread_place *places; /* [nthreads] */
	uint64_t access;                       /* bytes per call, 0: whole */
	const struct mmp_event_set *events;    /* what is counted (may be empty) */
	const int *open_error;                 /* [events]: errno of a failed open */
};

/* Called after every repetition, warmups included; a non-zero return
 * stops the run with that value. */
typedef int (*mmp_rep_fn)(const struct mmp_run_info *info, const struct mmp_rep *rep,
			  void *arg);

struct mmp_runner_opts {
	const struct mmp_topology *topo; /* binding happens on this topology */
	const volatile sig_atomic_t *stop;
	const struct mmp_event_set *events; /* NULL: count nothing */
	mmp_rep_fn on_rep;
	void *arg;
};

/* 0 when every repetition ran (results are judged by the callback), -EINTR
 * when stop was raised between repetitions, another negative errno with a
 * message when the run could not be carried out. */
int mmp_runner_run(const struct mmp_run *run, const struct mmp_datafile *data,
		   const struct mmp_pin_plan *plan, const struct mmp_runner_opts *opts,
		   struct mmp_error *err);

#endif
