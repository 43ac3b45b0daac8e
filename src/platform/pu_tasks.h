/* What ran on a program's PUs while it ran (the exec probe), task by
 * task: the program, mmprof itself, the kernel's threads and everything
 * else.
 *
 * A program that writes and fsyncs has the kernel work for it on its own
 * PUs: the file system's journal thread (jbd2 on ext4), the block layer's
 * completion workers (kworker), their interrupts and softirqs.  Counted
 * as "other tasks" that work makes it look disturbed in every round, and
 * no quieter machine helps.  To tell it apart, mmprof records every
 * context switch on the program's PUs while it runs: one CPU-wide
 * perf_event per PU (a dummy event: no samples, only
 * PERF_RECORD_SWITCH_CPU_WIDE, FORK and COMM records, on CLOCK_MONOTONIC
 * so their times compare with the program's exec and exit), drained
 * every MMP_PU_WATCH_MS by exec_child.h's tick and added up as drained.  Each switch says which
 * task left the PU and which came in, so each task's time on the PUs
 * over the program's wall time adds up; then each task is
 *
 *   idle     pid 0
 *   program  the program's processes: its pid and every process forked
 *            from them (FORK records)
 *   self     mmprof (its drain and watch threads share the PUs)
 *   kernel   a kernel thread: PF_KTHREAD in /proc/PID/stat's flags, or
 *            kthreadd (pid 2) or its child
 *   other    anything else: a user-space task that is not the program's
 *
 * The kernel does not let an unprivileged user see other tasks (CPU-wide
 * events need perf_event_paranoid <= 0 or CAP_PERFMON): then nothing is
 * told apart and that is said (why).  Interrupt and softirq time is not a
 * task: /proc/stat counts it per PU (disturbance.h reads it). */
#ifndef MMPROF_PU_TASKS_H
#define MMPROF_PU_TASKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum mmp_task_kind {
	MMP_TASK_IDLE,
	MMP_TASK_PROGRAM,
	MMP_TASK_SELF,
	MMP_TASK_KERNEL,
	MMP_TASK_OTHER,
	MMP_TASK_KIND_COUNT
};

/* The names of the kernel's and the other tasks, largest first, each
 * with its share of the PUs' time ("jbd2/vda-8 6%, kworker/u4:2 3%"). */
#define MMP_PU_TASKS_NAMES 3

struct mmp_pu_tasks_seen {
	int complete;                        /* no record lost, every PU seen */
	uint64_t ns[MMP_TASK_KIND_COUNT];    /* each kind's time on the PUs */
	uint64_t unknown_ns;                 /* PUs without a switch: not known */
	char kernel[160];                    /* "jbd2/vda-8 6%, kworker/u4:2 3%" */
	char other[160];                     /* "ld 20%, cc1 3%" */
};

struct mmp_pu_tasks;

/* Start recording the switches on pus (npus).  0, or a negative errno
 * with the reason in why (refused: the paranoid level). */
int mmp_pu_tasks_open(struct mmp_pu_tasks **out, const int *pus, unsigned npus, char *why,
		      size_t wlen);
/* The window starts at t0 (CLOCK_MONOTONIC ns: the program's exec):
 * call it before the first drain. */
void mmp_pu_tasks_start(struct mmp_pu_tasks *t, uint64_t t0);
/* Move what the kernel wrote out of the buffers and add it up (a tick's
 * work). */
void mmp_pu_tasks_drain(struct mmp_pu_tasks *t);
/* After the program (pid) exited at t1: each task's time in [t0, t1],
 * classified.  0 or -ENOMEM. */
int mmp_pu_tasks_finish(struct mmp_pu_tasks *t, pid_t program, uint64_t t1,
			struct mmp_pu_tasks_seen *out);
void mmp_pu_tasks_close(struct mmp_pu_tasks *t);

/* What /proc says a task is: MMP_TASK_KERNEL or MMP_TASK_OTHER, and its
 * name (comm, up to len); -1 when it is gone. */
int mmp_pu_tasks_classify(pid_t pid, pid_t tid, char *name, size_t len);

#endif
