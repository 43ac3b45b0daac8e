/* Event names: perf-style generic names, PMU-specific names libpfm4 knows
 * for this CPU, tracepoints (subsystem:event, from tracefs), and presets
 * (short named lists, one table in src/platform/event_presets.c).  Resolving turns
 * a config's `events = ...` into perf_event_attr values; opening them is
 * the counters module's job.
 */
#ifndef MMPROF_EVENTS_H
#define MMPROF_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>

#define MMP_EVENT_NAME_MAX 96

enum mmp_event_kind {
	MMP_EV_HARDWARE,   /* a PMU counter: generic, cache or CPU-specific */
	MMP_EV_SOFTWARE,   /* kernel software event (faults, switches, clocks) */
	MMP_EV_TRACEPOINT, /* a tracefs tracepoint */
};

/* What an event means to mmprof's derived metrics and attribution. */
enum mmp_event_role {
	MMP_ROLE_OTHER,
	MMP_ROLE_CYCLES,
	MMP_ROLE_INSTRUCTIONS,
	MMP_ROLE_TASK_CLOCK,
	MMP_ROLE_PAGE_FAULTS,
	MMP_ROLE_MINOR_FAULTS,
	MMP_ROLE_MAJOR_FAULTS,
	MMP_ROLE_CONTEXT_SWITCHES,
	MMP_ROLE_MIGRATIONS,
	MMP_ROLE_SYSCALLS,      /* raw_syscalls:sys_enter */
	MMP_ROLE_READ_SYSCALLS, /* syscalls:sys_enter_read */
	MMP_ROLE_CONTENTION,    /* from the contention preset: HITM and kin */
	MMP_ROLE_DTLB_MISSES,   /* dTLB-load-misses */
	/* Also from the contention preset: where a load's line came from when
	 * it was not this node's (evidence for the remote and near causes). */
	MMP_ROLE_REMOTE_HITM,   /* a line from another node's cache (modified, on Intel) */
	MMP_ROLE_REMOTE_FWD,    /* a clean line forwarded from another node's cache */
	MMP_ROLE_REMOTE_DRAM,   /* a load that missed L3 and was served by another node's DRAM */
	MMP_ROLE_LOCAL_DRAM,    /* ... by this node's DRAM */
	MMP_ROLE_CROSS_CCX,     /* a line from another L3 domain's cache, same node (AMD) */
};

struct mmp_event {
	char name[MMP_EVENT_NAME_MAX]; /* as written, or as a preset names it */
	char encoding[192];            /* libpfm4's canonical name, or the tracepoint */
	enum mmp_event_kind kind;
	enum mmp_event_role role;
	struct perf_event_attr attr;
	/* Known before opening: a tracepoint without tracefs.  0 or a
	 * positive errno, with the reason. */
	int unavailable;
	char why[256];
};

struct mmp_event_set {
	struct mmp_event *ev;
	size_t n;
};

/* /proc/sys/kernel/perf_event_paranoid (2 when it cannot be read). */
int mmp_perf_paranoid(void);

/* Initialise libpfm4 (once; later calls are free).  -ENODEV with a message
 * when libpfm4 cannot start. */
int mmp_events_init(char *err, size_t errlen);

/* "basic, faults, cycles, raw_syscalls:sys_enter" or "none".  Duplicates
 * are dropped (first one wins).  -EINVAL with a message (and a did-you-mean)
 * for a name that is neither a preset, an event libpfm4 knows here, nor a
 * tracepoint. */
int mmp_events_resolve(const char *list, struct mmp_event_set *out, char *err,
		       size_t errlen);
void mmp_event_set_free(struct mmp_event_set *set);

/* Generic counters of this CPU's PMU (how many hardware events fit one
 * group); 4 when libpfm4 does not say. */
unsigned mmp_events_pmu_counters(void);
/* libpfm4's name for this CPU's PMU ("amd64_fam19h_zen4"), or "unknown". */
const char *mmp_events_pmu_name(void);

/* Presets, for --list-events and README.  Each slot is one event, given
 * as alternatives separated by '|' (the first that libpfm4 encodes on this
 * CPU is used; a slot with none is left out and said so). */
struct mmp_preset_slot {
	const char *any_of;
	enum mmp_event_role role;  /* MMP_ROLE_OTHER: the event's own */
	/* Kept only when another slot of the preset with this role is filled
	 * here (the local half of a remote/local ratio); MMP_ROLE_OTHER:
	 * always. */
	enum mmp_event_role needs;
};

struct mmp_preset {
	const char *name;
	const char *purpose;
	const struct mmp_preset_slot *slots; /* ends with { 0 } */
};
const struct mmp_preset *mmp_presets(size_t *count);
/* The names a preset stands for on this CPU, comma-separated, and the
 * slots it could not fill, one a line. */
void mmp_preset_expand(const struct mmp_preset *p, char *names, size_t len, char *missing,
		       size_t mlen);

/* Event names worth listing (--list-events): perf's generic names, the
 * software events and the presets' events. */
const char *const *mmp_events_known(size_t *count);

/* Tracepoints: tracefs's location (mounting it at /sys/kernel/tracing when
 * it is not mounted and we are root, as perf does). */
int mmp_tracefs_dir(char *buf, size_t len, char *why, size_t wlen);

#endif
