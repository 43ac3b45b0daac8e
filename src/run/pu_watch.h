/* Where a program's threads really ran (the exec probe).  mmprof binds
 * the child to the run's PUs before its exec, and every thread it starts
 * inherits the mask -- but a program may widen its own: `taskset -p -c
 * 0,1 $$` in a shell, numactl in the command, an OpenMP runtime that
 * binds its threads (OMP_PROC_BIND, GOMP_CPU_AFFINITY), a runtime that
 * sets its pool's affinity.  Then it runs on PUs the row does not name,
 * and its time is not the planned run's: two PUs' worth of CPU in a row
 * that says pus:0.  Two things tell it from outside:
 *
 *   sampled   while it runs (exec_child.h's tick, every MMP_PU_WATCH_MS),
 *             every thread of the program's process tree (the child and
 *             its descendants, /proc/PID/task/TID/children): the PU it is
 *             on or last ran on (/proc/PID/task/TID/stat's processor) and
 *             the PUs it may run on (sched_getaffinity).  A thread seen on,
 *             or allowed, a PU outside the plan escaped it.  A thread that
 *             lives between two samples is not seen;
 *   CPU time  all its threads' (task-clock or rusage) above what its
 *             planned PUs could give in its wall time, PUs x wall x
 *             MMP_PU_WATCH_CPU_SLACK + MMP_PU_WATCH_CPU_SLACK_NS: it cannot
 *             have run on those PUs alone, however short its threads
 *             lived.
 *
 * Either makes the repetition escaped: marked disturbed with its own
 * reason (disturbance.h), since what it measured is not what its row
 * says; the CSV's escaped and pus_ran say it.
 */
#ifndef MMPROF_PU_WATCH_H
#define MMPROF_PU_WATCH_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "run/thread_pool.h" /* MMP_CPULIST_MAX */

#define MMP_PU_WATCH_MS 20 /* between samples: ~1% of a CPU for 20 threads */
#define MMP_PU_WATCH_CPU_SLACK 1.05 /* wall is late by mmprof's wake-up, never early */
/* And CPU time the wall does not cover: without task-clock it is wait4's
 * rusage, which has the child's own work before its exec (binding it,
 * its environment) -- 1.06x of one PU's wall for a 5 ms program, seen. */
#define MMP_PU_WATCH_CPU_SLACK_NS 2000000
#define MMP_PU_WATCH_MAX_TASKS 4096 /* per sample: a fork bomb does not stall mmprof */

struct mmp_pu_watch {
	pid_t pid;           /* the program's first process */
	cpu_set_t planned;   /* the PUs it was bound to */
	cpu_set_t seen;      /* where its threads were found */
	cpu_set_t allowed;   /* the union of their masks */
	unsigned samples;
};

/* What the watch found, and the CPU time against the wall. */
struct mmp_pu_escape {
	int escaped;
	char seen[MMP_CPULIST_MAX];    /* "0,1": where its threads were found; "": no sample */
	char outside[MMP_CPULIST_MAX]; /* PUs outside the plan seen or allowed; "" none */
	double cpu_share;              /* CPU time / (PUs x wall); < 0: unknown */
	char why[192];                 /* for disturbed_why and the warning */
};

void mmp_pu_watch_start(struct mmp_pu_watch *w, pid_t pid, const int *pus, unsigned npus);

/* One sample of every thread of its tree (exec_child.h's watch->tick). */
void mmp_pu_watch_sample(void *w);

/* The verdict, from the samples and cpu_ns (0: unknown) over wall_ns. */
void mmp_pu_watch_judge(const struct mmp_pu_watch *w, uint64_t cpu_ns, uint64_t wall_ns,
			struct mmp_pu_escape *out);

#endif
