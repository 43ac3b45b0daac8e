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
 *   off-CPU    per thread, the time it was neither on a CPU nor waiting
 *              for one (wall - CPU - wait), as a share of its own time:
 *              a probe that does not sleep (the page cache warm) was
 *              stopped (SIGSTOP, Ctrl-Z, a debugger) or frozen (a cgroup
 *              freezer, a paused VM) -- its wall time is not its work's
 *   stops      SIGCONTs mmprof received during the repetition: every
 *              SIGSTOP and Ctrl-Z ends with one
 *   pressure   /proc/pressure/cpu "some" over the repetition: the share of
 *              time some task on the machine waited for a CPU (recorded, not
 *              judged: it counts other processes' waits too)
 *
 * A repetition is disturbed when mmprof was stopped during it, or a thread
 * was off-CPU more than 25% of its time and at least 5 ms (unless the probe
 * may sleep: cache = drop reads from the disk); else, without
 * oversubscription, when the overlap is below 80% or a thread waited more
 * than 10% of its time; with oversubscription, when busy is below 85%.  The thresholds are constants
 * here, named in the reason text, and documented in README.md.
 *
 * A program (the exec probe) has threads of its own design: a runtime's
 * JIT, GC and pool threads take turns on the run's PUs, wait for each
 * other, and switch involuntarily by design, so none of the above says
 * whether something ELSE was in the way.  What does is the time other tasks
 * took on the PUs the program was bound to while it ran:
 *
 *   others     (PUs x wall - the PUs' idle time - the program's CPU time)
 *              / (PUs x wall); idle from /proc/stat (whole ticks, 10 ms
 *              here), the program's CPU time from wait4's rusage (all its
 *              threads and reaped children, which could only run there)
 *
 *   overlap    of the time two of its threads were ready to run, the
 *              share two of them ran at once (concurrency.h, from the
 *              kernel's record of each thread going on and off a CPU):
 *              precise where others, counted in ticks, misses a short run
 *
 *   kernel     of others, the work the kernel did on those PUs: its
 *              threads' time there (pu_tasks.h: jbd2 journaling, kworkers
 *              completing I/O, for a program that writes and fsyncs) and
 *              interrupt and softirq time (/proc/stat's irq and softirq
 *              of those PUs).  Work for the program, or at least none a
 *              quieter machine would take away: it is said, with the
 *              threads' names, and not judged
 *   self       of others, mmprof's own threads there (its watch and
 *              drain ticks): the instrument's, said and not judged
 *
 * What is left of others (unexplained: no kernel work, not mmprof, not
 * the program) is the other tasks' share, named where pu_tasks.h saw
 * them ("ld 20%, cc1 3%"); the CSV's unexplained_busy.  Where every switch
 * on the PUs was recorded, it is at most the other tasks' own time there:
 * the rest ran in no task (interrupts and softirqs taken while a PU was
 * idle, which /proc/stat's irq column counts only when a tick lands in
 * them) and is the kernel's.  Where other tasks
 * could not be told apart (an unprivileged user), only the interrupt
 * time is taken out.  A user-space hog on its PUs is never explained.
 *
 * It is disturbed when the unexplained share exceeds 10% and, because /proc/stat counts
 * whole ticks, at least MMP_DISTURB_OTHERS_FLOOR_NS per PU (a short run's
 * share would otherwise be one tick of noise); when the overlap is below
 * 80% (MMP_DISTURB_MIN_OVERLAP, as for probes) over at least
 * MMP_DISTURB_READY2_FLOOR_NS of two threads ready (a scheduler slice or
 * two of it is not a run's worth); or when mmprof was stopped (stops,
 * above: its clock kept running while it could not see the exit).
 * Off-CPU time is not judged (a program may sleep by design); involuntary
 * context switches (rusage) and pressure are recorded, not judged.  A
 * program that ran outside its planned PUs (it widened its own affinity:
 * pu_watch.h) is disturbed too, for that reason above any other.
 */
#ifndef MMPROF_DISTURBANCE_H
#define MMPROF_DISTURBANCE_H

#include <stdint.h>

#include "platform/pu_tasks.h"

#define MMP_DISTURB_MIN_OVERLAP 0.80
#define MMP_DISTURB_MAX_WAIT 0.10
#define MMP_DISTURB_MIN_BUSY 0.85
#define MMP_DISTURB_MAX_OTHERS 0.10
#define MMP_DISTURB_OTHERS_FLOOR_NS 20000000 /* two ticks of /proc/stat at 100 Hz */
#define MMP_DISTURB_MAX_OFFCPU 0.25
#define MMP_DISTURB_OFFCPU_FLOOR_NS 5000000 /* a few scheduler ticks */
#define MMP_DISTURB_READY2_FLOOR_NS 5000000 /* a few scheduler slices (3 ms here) */

/* One thread's repetition as the kernel saw it. */
struct mmp_thread_sample {
	uint64_t start, end; /* its slice, on the monotonic clock */
	uint64_t wall_ns;    /* the span cpu_ns and wait_ns were read over */
	uint64_t cpu_ns;     /* time on a CPU */
	uint64_t wait_ns;    /* runnable, waiting for a CPU; UINT64_MAX: unknown */
	uint64_t nivcsw;     /* involuntary context switches */
};

struct mmp_disturbance {
	double overlap;   /* programs: < 0 when not measured (no switch records) */
	double wait_max;  /* the largest thread's wait share; < 0: unknown */
	double offcpu_max; /* the largest thread's off-CPU share; < 0: not judged */
	double busy;      /* oversubscribed runs; < 0 otherwise */
	double pressure;  /* < 0: the kernel has no PSI */
	uint64_t nivcsw;
	double others;    /* programs: other tasks' share of its PUs; < 0 otherwise */
	double unexplained; /* programs: of others, what is not kernel work nor mmprof's; < 0 otherwise */
	double kernel;    /* programs: kernel work's share of its PUs (threads, interrupts); < 0 unknown */
	double self;      /* programs: mmprof's own share of its PUs; < 0 unknown */
	char kernel_tasks[160]; /* "jbd2/vda-8 6%, kworker/u4:2 3%" */
	char other_tasks[160];  /* "ld 20%" */
	char seen_why[200];     /* "": tasks told apart; else why not */
	double steal;     /* the hypervisor's steal, a share of the PUs' time; < 0 unknown */
	int disturbed;
	char why[192];    /* "threads overlapped 48% of the time" */
};

/* may_sleep: the probe may block (cache = drop: it reads from the disk),
 * so off-CPU time is not judged. */
void mmp_disturbance_judge(const struct mmp_thread_sample *t, unsigned nthreads,
			   unsigned npus, int oversubscribed, int may_sleep, double pressure,
			   struct mmp_disturbance *out);

/* SIGCONTs received so far (the first call starts counting them), and a
 * repetition marked disturbed when any arrived since before. */
unsigned mmp_disturbance_stops(void);
void mmp_disturbance_check_stops(unsigned before, struct mmp_disturbance *out);

/* Steal time of the run's PUs (hypervisor.h, ns; < 0 unknown) before and
 * after a repetition of elapsed_ns: time the hypervisor gave those vCPUs'
 * physical CPUs to something else.  Any growth disturbs the repetition
 * (its time includes waits no counter of the guest sees); out->steal
 * keeps the share of the PUs' time it took. */
void mmp_disturbance_check_steal(int64_t before, int64_t after, uint64_t elapsed_ns,
				 unsigned npus, struct mmp_disturbance *out);

/* A program's repetition: wall_ns from exec to exit on npus PUs, idle_ns
 * and irq_ns of those PUs over it (mmp_cpu_idle_ns, mmp_cpu_irq_ns;
 * UINT64_MAX: unknown), cpu_ns of the program (rusage), the tasks seen on
 * its PUs (NULL: not told apart, why in why_not). */
struct mmp_process_pus {
	uint64_t wall_ns, idle_ns, irq_ns, cpu_ns;
	unsigned npus;
	const struct mmp_pu_tasks_seen *seen;
	const char *why_not;
};
void mmp_disturbance_judge_process(const struct mmp_process_pus *in, uint64_t nivcsw,
				   double pressure, struct mmp_disturbance *out);

/* A program's repetition, after mmp_disturbance_judge_process: its
 * threads' overlap (concurrency.h; NULL: not measured, the sampling
 * events refused).  A repetition already disturbed keeps its reason. */
struct mmp_concurrency;
void mmp_disturbance_judge_overlap(const struct mmp_concurrency *c, struct mmp_disturbance *out);

/* Idle (and iowait) time of the given PUs so far, from /proc/stat, in ns.
 * 0, or -1 when it cannot be read. */
int mmp_cpu_idle_ns(const int *pus, unsigned npus, uint64_t *idle_ns);
/* Their interrupt and softirq time so far, likewise (0 where the kernel
 * does not account it: without CONFIG_IRQ_TIME_ACCOUNTING it is in the
 * interrupted task's). */
int mmp_cpu_irq_ns(const int *pus, unsigned npus, uint64_t *irq_ns);

/* /proc/pressure/cpu's "some total" in microseconds; -1 without PSI.  fd:
 * an open descriptor of the file (kept open: pread is one system call). */
int mmp_pressure_open(void);
int64_t mmp_pressure_read(int fd);

/* The calling thread's own schedstat (cpu ns, wait ns): fd from
 * mmp_schedstat_open() in that thread; -1 when the kernel has none. */
int mmp_schedstat_open(void);
int mmp_schedstat_read(int fd, uint64_t *cpu_ns, uint64_t *wait_ns);

#endif
