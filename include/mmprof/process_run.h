/* The runner's path for probes that run a program (MMP_NEEDS_PROCESS, the
 * exec probe): one process per repetition, where a C probe has threads.
 *
 *   open    the command's argv, expanded once (its placeholders are the
 *           run's), the executable found on PATH, the result and time
 *           regexes compiled, the planned PUs' union
 *   rep     a log file (LOGS/run<N>-<job>.<k>.log, k counting the run's
 *           processes, warmups included; its first line is mmprof's: the
 *           argv and PUs), the child started and held before its exec
 *           (exec_child.h), its counters opened on it (inherited by every
 *           thread it starts, enabled at the exec: counters.h), released,
 *           waited for with the timeout while its output streams through
 *           output_log.h (into the log, every line matched for the result
 *           and the time); then the counters read, and the repetition
 *           judged (disturbance.h: the time other tasks took on its PUs)
 *
 * A failed process (an exit status other than 0, a signal, a timeout, no
 * line matching `result` or `time`) is an error with the reason and the
 * log's path: the runner's caller fails the run.  A result that differs
 * from the reference is not an error: rep->result_ok says it, as for a
 * probe.
 */
#ifndef MMPROF_PROCESS_RUN_H
#define MMPROF_PROCESS_RUN_H

#include "mmprof/error.h"
#include "mmprof/rep.h"
#include "mmprof/topology.h"
#include "mmprof/thread_pool.h"

struct mmp_process_run;

/* places[nthreads] and open_error[events] are the runner's, filled here.
 * The program runs bound to the run's PUs, under the memory policy its
 * membind asks for (topo: the nodes interleave means). */
int mmp_process_run_open(struct mmp_process_run **out, const struct mmp_runner_item *item,
			 const struct mmp_topology *topo, struct mmp_thread_place *places,
			 int *open_error, struct mmp_error *err);
/* One repetition into rep (its arrays sized for the run's threads and
 * events).  -EINTR when stopped; -ESTALE is the caller's (data recheck). */
int mmp_process_run_rep(struct mmp_process_run *p, struct mmp_rep *rep, struct mmp_error *err);
void mmp_process_run_close(struct mmp_process_run *p);

#endif
