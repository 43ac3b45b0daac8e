/* The runner: repetitions of one run, or of a group of runs interleaved
 * (a job and its controls: A B A B, so that drift on a noisy machine hits
 * every variant alike).
 *
 * Each run keeps its own pinned threads (thread_pool.h) for all its
 * repetitions.  Each repetition maps the file afresh (so lazy page faults
 * are part of every repetition unless prefault is set), releases the
 * threads through a barrier, and is timed from the first thread's start to
 * the last thread's end.  Every repetition's result is checked against the
 * reference for the bytes it read.
 */
#ifndef MMPROF_RUNNER_H
#define MMPROF_RUNNER_H

#include <signal.h>
#include <stdint.h>

#include "mmprof/config.h"
#include "mmprof/counters.h"
#include "mmprof/datafile.h"
#include "mmprof/error.h"
#include "mmprof/thread_pool.h"
#include "mmprof/topology.h"

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

/* One run of a group: what it runs, on what, where, counting what. */
struct mmp_runner_item {
	const struct mmp_run *run;
	const struct mmp_datafile *data;
	const struct mmp_pin_plan *plan;
	const struct mmp_event_set *events; /* NULL: count nothing */
	uint64_t end;              /* read bytes [0, end); 0: the whole file */
	const uint64_t *reference; /* histogram of [0, end); NULL: data->hist */
};

struct mmp_run_info {
	size_t item; /* which run of the group */
	const struct mmp_run *run;
	const struct mmp_datafile *data;
	const struct mmp_pin_plan *plan;
	const struct mmp_thread_place *places; /* [nthreads] */
	uint64_t access;                       /* bytes per call, 0: whole */
	const struct mmp_event_set *events;    /* what is counted (may be NULL) */
	const int *open_error;                 /* [events]: errno of a failed open */
};

/* Called after every repetition of every run, warmups included; a
 * non-zero return stops the group with that value. */
typedef int (*mmp_rep_fn)(const struct mmp_run_info *info, const struct mmp_rep *rep,
			  void *arg);

struct mmp_runner_opts {
	const struct mmp_topology *topo; /* binding happens on this topology */
	const volatile sig_atomic_t *stop;
	mmp_rep_fn on_rep;
	void *arg;
};

/* 0 when every repetition ran (results are judged by the callback), -EINTR
 * when stop was raised between repetitions, another negative errno with a
 * message when the group could not be carried out.  The runs of a group
 * share warmup and repeat (the first run's). */
int mmp_runner_run_group(const struct mmp_runner_item *items, size_t n,
			 const struct mmp_runner_opts *opts, struct mmp_error *err);

/* A group of one. */
int mmp_runner_run(const struct mmp_run *run, const struct mmp_datafile *data,
		   const struct mmp_pin_plan *plan, const struct mmp_event_set *events,
		   const struct mmp_runner_opts *opts, struct mmp_error *err);

#endif
