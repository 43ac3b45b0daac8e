/* Was a repetition disturbed?  A run whose threads did not really run
 * together, or waited for a CPU another process held, does not measure
 * what it claims: sharing costs nothing when the sharers take turns.  Each
 * repetition is judged from what the kernel says about its threads:
 *
 *   overlap    the share of the shortest thread's time during which every
 *              thread was inside its slice (1 for one thread): threads that
 *              started apart, or one that stalled, did not share anything
 *   wait       per thread, the time it was runnable but not running
 *              (run_delay in /proc/thread-self/schedstat), as a share of its
 *              own time: another task held its PU
 *   busy       oversubscribed runs (threads take turns by design): the
 *              threads' CPU time over PUs x elapsed -- below 1 when another
 *              task took time on the run's PUs
 *   pressure   /proc/pressure/cpu "some" over the repetition: the share of
 *              time some task on the machine waited for a CPU (recorded, not
 *              judged: it counts other processes' waits too)
 *
 * A repetition is disturbed when, without oversubscription, the overlap is
 * below 80% or a thread waited more than 10% of its time; with
 * oversubscription, when busy is below 85%.  The thresholds are constants
 * here, named in the reason text, and documented in README.md.
 */
#ifndef MMPROF_DISTURBANCE_H
#define MMPROF_DISTURBANCE_H

#include <stdint.h>

#define MMP_DISTURB_MIN_OVERLAP 0.80
#define MMP_DISTURB_MAX_WAIT 0.10
#define MMP_DISTURB_MIN_BUSY 0.85

/* One thread's repetition as the kernel saw it. */
struct mmp_thread_sample {
	uint64_t start, end; /* its slice, on the monotonic clock */
	uint64_t wall_ns;    /* the span cpu_ns and wait_ns were read over */
	uint64_t cpu_ns;     /* time on a CPU */
	uint64_t wait_ns;    /* runnable, waiting for a CPU; UINT64_MAX: unknown */
	uint64_t nivcsw;     /* involuntary context switches */
};

struct mmp_disturbance {
	double overlap;
	double wait_max;  /* the largest thread's wait share; < 0: unknown */
	double busy;      /* oversubscribed runs; < 0 otherwise */
	double pressure;  /* < 0: the kernel has no PSI */
	uint64_t nivcsw;
	int disturbed;
	char why[96];     /* "threads overlapped 48% of the time" */
};

void mmp_disturbance_judge(const struct mmp_thread_sample *t, unsigned nthreads,
			   unsigned npus, int oversubscribed, double pressure,
			   struct mmp_disturbance *out);

/* /proc/pressure/cpu's "some total" in microseconds; -1 without PSI.  fd:
 * an open descriptor of the file (kept open: pread is one system call). */
int mmp_pressure_open(void);
int64_t mmp_pressure_read(int fd);

/* The calling thread's own schedstat (cpu ns, wait ns): fd from
 * mmp_schedstat_open() in that thread; -1 when the kernel has none. */
int mmp_schedstat_open(void);
int mmp_schedstat_read(int fd, uint64_t *cpu_ns, uint64_t *wait_ns);

#endif
