/* Did a program's threads run at the same time?  Read from the kernel's
 * record of every thread going on and off a CPU (sampling.h's switches).
 *
 * A program (probe = exec) has threads of its own design, so mmprof
 * cannot say which of them should overlap, as it does for its own probe
 * threads (disturbance.h).  What it can say is what happened when two of
 * them were ready to run -- on a CPU, or taken off one still runnable
 * (preempted) and waiting to get it back -- on a run of two PUs or more:
 *
 *   ready2   the time at least two of its threads were ready
 *   run2     the time at least two of them were on a CPU at once
 *   overlap  run2 / ready2: below 1 when one of two threads that could
 *            have run together waited while another task held its PU
 *
 * Cross-core sharing costs only while two threads run at once: a one-PU
 * comparison (controls.h, onepu) of rounds with a low overlap cannot show
 * it, whatever the program does.  A thread that slept is ready again only
 * from when it got a CPU back (its wake-up is not recorded), so a wait
 * after a sleep is not counted: the overlap can only come out too high.
 * A thread whose first record leaves a CPU was on one since the first
 * record of the run (the program's first thread, running at its exec).
 */
#ifndef MMPROF_CONCURRENCY_H
#define MMPROF_CONCURRENCY_H

#include <stddef.h>
#include <stdint.h>

struct mmp_switch;

struct mmp_concurrency {
	uint64_t ready2_ns, run2_ns;
	uint64_t cpu_ns;  /* every thread's time on a CPU, by the records */
	unsigned threads; /* threads seen */
	double overlap;   /* run2 / ready2; 1 when ready2 is 0 or npus < 2 */
};

/* sw: n records in any order (sorted here, by time).  npus: the PUs the
 * program was bound to; with one, nothing can overlap and nothing is
 * judged.  0, or -ENOMEM. */
int mmp_concurrency_measure(struct mmp_switch *sw, size_t n, unsigned npus,
			    struct mmp_concurrency *out);

#endif
