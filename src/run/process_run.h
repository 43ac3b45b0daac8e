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

#include <stdint.h>

#include "run/preload.h"
#include "run/rep.h"
#include "platform/sampling.h"
#include "run/thread_pool.h"

/* A program's repetition beyond struct mmp_rep: its rep->process, valid
 * as long as the rep. */
struct mmp_rep_process {
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
	/* It ran with the library surveying (mmp_runner_survey): preload.seen
	 * says what each rung would reach, preload.loaded whether it could
	 * tell; survey_why is why it did not run when asked ("" else). */
	int surveyed;
	const char *survey_why;
	/* Its sampling profile (sampling.h; profile = off: NULL), and why
	 * there is none when sampling was asked for and refused. */
	const struct mmp_samples *samples;
	const char *samples_why;
};

#endif
