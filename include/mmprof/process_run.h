/* The process engine (engine.h), for runs of kind process (the exec
 * probe): one child process per repetition, where a C probe has threads.
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

#include "mmprof/rep.h"

#endif
