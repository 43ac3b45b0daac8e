/* Counters: perf_event groups per thread.  src/platform/counters.c is the only
 * caller of perf_event_open.
 *
 * Each thread opens its groups for itself after it is pinned: hardware
 * events in groups of at most the PMU's generic counters, software events
 * and tracepoints in one more group.  Leaders start disabled; the thread
 * enables every group (PERF_EVENT_IOC_ENABLE on its leader) right after the
 * start barrier and disables it when its slice ends, then reads each group
 * once (PERF_FORMAT_GROUP with ids and enabled/running times).  Nothing
 * runs inside the timed loop; the one disable ioctl per group and thread is
 * the only system call a syscall tracepoint sees that the probe did not
 * make.
 *
 * Every count has a state, never a silent 0: counted, scaled (multiplexed,
 * value x enabled/running), not counted (enabled, never ran), not
 * supported (open failed: no PMU, unknown to the kernel), denied
 * (permissions).
 */
#ifndef MMPROF_COUNTERS_H
#define MMPROF_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "platform/events.h"

enum mmp_count_state {
	MMP_COUNT_COUNTED,
	MMP_COUNT_SCALED,
	MMP_COUNT_NOT_COUNTED,
	MMP_COUNT_NOT_SUPPORTED,
	MMP_COUNT_DENIED,
};

struct mmp_count {
	enum mmp_count_state state;
	double value;      /* counted: raw; scaled: raw x enabled / running */
	uint64_t raw;
	uint64_t enabled;  /* ns the event was enabled */
	uint64_t running;  /* ns it was on a counter */
	int error;         /* the open's errno (not supported, denied) */
};

/* Has a value a CSV cell may carry. */
static inline int mmp_count_valid(const struct mmp_count *c)
{
	return c->state == MMP_COUNT_COUNTED || c->state == MMP_COUNT_SCALED;
}

/* running / enabled: 1 when the event was on a counter all the time. */
double mmp_count_ratio(const struct mmp_count *c);
const char *mmp_count_state_name(enum mmp_count_state s);

/* One interval's count from raw value and times (the scaling rule). */
void mmp_count_from(struct mmp_count *c, uint64_t raw, uint64_t enabled, uint64_t running);
/* Add one thread's count into a sum over threads: values and times add;
 * a thread whose event never ran makes the sum "not counted" (it would be
 * a silent undercount), a failed open makes it that state. */
void mmp_count_add(struct mmp_count *sum, const struct mmp_count *one, int first);

/* Which group each event goes to: hardware events in chunks of max_hw,
 * software events and tracepoints together.  Returns the number of
 * groups; group_of[i] for event i. */
size_t mmp_counters_plan_groups(const struct mmp_event_set *set, unsigned max_hw,
				int *group_of);

struct mmp_counters {
	size_t n;
	const struct mmp_event_set *set;
	int *fd;         /* [n], -1: not open */
	int *error;      /* [n], errno of a failed open */
	uint64_t *id;    /* [n], perf's id for the group read */
	int *leader;     /* [n], index of the event whose fd leads its group */
	uint64_t *last;  /* [3n]: value, enabled, running at the last read */
	uint64_t *buf;   /* [3 + 2n]: one group read, the largest group fits */
	size_t split;    /* hardware groups split in two at open: the PMU did not take them */
};

/* Open every event of set for the calling thread.  Events that cannot be
 * opened are recorded (error[i]), not fatal; -ENOMEM is.  Each hardware
 * group is put on the PMU alone for a moment: one it does not take (its
 * counters held by another tool, or fewer than libpfm4 says) is split in
 * two until the halves go on or are single events (split counts them). */
int mmp_counters_open(struct mmp_counters *c, const struct mmp_event_set *set);
/* The same for a child process that waits before its exec: every event
 * inherited by the threads and processes it starts, and enabled by the
 * kernel at its exec (no enable or disable to call).  Read it after the
 * child was reaped: each value is then the sum over all its threads. */
int mmp_counters_open_child(struct mmp_counters *c, const struct mmp_event_set *set, pid_t pid);
void mmp_counters_enable(const struct mmp_counters *c);
void mmp_counters_disable(const struct mmp_counters *c);
/* The counts since the previous read, one per event. */
int mmp_counters_read(struct mmp_counters *c, struct mmp_count *out);
void mmp_counters_close(struct mmp_counters *c);

/* Each tracepoint of set held open, disabled, on the calling thread, so
 * that the events of a run opened and closed again at every repetition
 * (a program's, mmp_counters_open_child) are never a tracepoint's last:
 * the kernel unregisters a tracepoint's perf probe when its last event
 * closes, and waits an RCU grace period there (some 50 ms a tracepoint
 * on a 2-PU VM, Linux 6.18), a wait mmprof paid after every repetition.
 * The held events count nothing.  Returns the number held (an event that
 * does not open is not held: its runs pay the wait), or -ENOMEM. */
struct mmp_tracepoint_hold {
	int *fd;
	size_t n;
};
int mmp_counters_hold_tracepoints(struct mmp_tracepoint_hold *h, const struct mmp_event_set *set);
void mmp_counters_release_tracepoints(struct mmp_tracepoint_hold *h);

/* A sampling event (sampling.h) of task pid on one CPU: the open alone,
 * attr as given (size set here).  The fd, or a negative errno. */
struct perf_event_attr;
int mmp_counters_open_sampler(struct perf_event_attr *attr, pid_t pid, int cpu);

/* Can the calling thread count this event here?  0, or a negative errno
 * with the reason in why (for --list-events). */
int mmp_counters_try(const struct mmp_event *ev, char *why, size_t wlen);

/* Why perf_event_open answers ENOSYS: no event of any kind can be opened,
 * which is the machine's state (like no PMU), not the event's. */
#define MMP_NO_PERF_EVENT_OPEN                                                                 \
	"this kernel has no perf events (built without CONFIG_PERF_EVENTS), or an emulator "   \
	"such as qemu-user does not pass perf_event_open through; nothing can be counted here"

/* The reason an open failed, in words: the errno, the state, and what to
 * do (perf_event_paranoid, no PMU in a VM, tracefs). */
void mmp_counters_explain(const struct mmp_event *ev, int error, char *buf, size_t len);

/* 1 when the kernel has registered a CPU PMU (x86's cpu, cpu_core or
 * cpu_atom, an Arm armv* one under /sys/bus/event_source/devices), 0 when
 * it has none, as in most VMs: then a refused hardware event is the
 * machine's state, not the event's. */
int mmp_counters_have_pmu(void);

#endif
