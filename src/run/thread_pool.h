/* The threads of one run: created once, each bound to its planned PU, each
 * with its own buffer and perf_event groups, released together through a
 * barrier for every repetition.  The runner decides what they do. */
#ifndef MMPROF_THREAD_POOL_H
#define MMPROF_THREAD_POOL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "platform/counters.h"
#include "run/disturbance.h"
#include "util/error.h"
#include "mmprof/probe.h"
#include "platform/topology.h"

#define MMP_CPULIST_MAX 128
/* A CPU set as a list, "0-3,8" (truncated to len). */
void mmp_cpulist_format(const cpu_set_t *set, char *buf, size_t len);
/* 128 bytes, not 64: the L2 adjacent-line prefetcher pulls cache lines in
 * pairs, so two words 64 bytes apart still ping-pong between cores. */
#define MMP_PAD 128

/* Where a thread really ran, as it saw it after binding itself. */
struct mmp_thread_place {
	int pu_planned;
	int pu_seen;                   /* sched_getcpu() */
	char allowed[MMP_CPULIST_MAX]; /* sched_getaffinity(), as a list */
};

struct mmp_worker {
	_Alignas(MMP_PAD) struct mmp_thread_pool *pool;
	unsigned index;
	pthread_t tid;
	struct mmp_slice slice; /* this repetition's work */
	struct mmp_sink sink;
	uint8_t *buffer;
	uint64_t t_start, t_end;
	int rc; /* the probe's return */
	int setup_rc;
	struct mmp_error setup_err;
	struct mmp_thread_place place;
	struct mmp_counters counters;
	struct mmp_count *counts; /* this repetition's, one per event */
	int schedstat_fd;         /* this thread's /proc/thread-self/schedstat */
	struct mmp_thread_sample sample; /* this repetition, as the kernel saw it */
	/* Workers sit in one array: keep each on lines of its own. */
	char pad[MMP_PAD];
};

struct mmp_thread_pool {
	const struct mmp_probe *probe;
	const struct mmp_topology *topo;
	const struct mmp_event_set *events;
	unsigned n;
	uint64_t buffer_bytes;
	struct mmp_worker *w;
	pthread_mutex_t gate; /* held while threads are being created */
	int abort;            /* set under gate: threads leave without work */
	pthread_barrier_t ready, start, done;
	_Atomic unsigned arrived; /* threads past the start barrier this repetition */
	/* Instead of the probe, once: work each thread does for itself before
	 * the repetitions (mmp_pool_task). */
	void (*task)(struct mmp_worker *w, void *arg);
	void *task_arg;
	int quit;
};

/* Create the threads and wait until each is bound (or failed to be: its
 * setup_rc and setup_err say why). */
int mmp_pool_create(struct mmp_thread_pool *pool, const struct mmp_probe *probe,
		    const struct mmp_pin_plan *plan, const struct mmp_topology *topo,
		    const struct mmp_event_set *events, uint64_t buffer_bytes,
		    struct mmp_error *err);
/* One repetition: every thread runs the probe over its slice between the
 * counters' enable and disable; returns when the last one is done. */
void mmp_pool_go(struct mmp_thread_pool *pool);
/* Every thread runs fn once, on its own PU (first touch of its own pages),
 * untimed and uncounted; returns when the last one is done. */
void mmp_pool_task(struct mmp_thread_pool *pool, void (*fn)(struct mmp_worker *w, void *arg),
		   void *arg);
void mmp_pool_destroy(struct mmp_thread_pool *pool);

#endif
