/* Event presets, LIKWID's groups in one C table: a short name, a one-line
 * purpose, and the events.  A slot lists alternatives separated by '|' for
 * events whose name depends on the CPU (the first that libpfm4 encodes
 * here is used), so one preset works on Intel and AMD, and gives the role
 * its event plays in the derived metrics (metrics.c).
 */
#include <stddef.h>

#include "mmprof/events.h"

static const struct mmp_preset_slot basic[] = {
	{ .any_of = "cycles" }, { .any_of = "instructions" }, { .any_of = "task-clock" }, { 0 },
};
static const struct mmp_preset_slot cache[] = {
	{ .any_of = "L1-dcache-loads" }, { .any_of = "L1-dcache-load-misses" },
	{ .any_of = "LLC-loads" },	 { .any_of = "LLC-load-misses" },
	{ 0 },
};
static const struct mmp_preset_slot tlb[] = {
	{ .any_of = "dTLB-loads" }, { .any_of = "dTLB-load-misses" }, { 0 },
};
static const struct mmp_preset_slot faults[] = {
	{ .any_of = "page-faults" }, { .any_of = "minor-faults" }, { .any_of = "major-faults" }, { 0 },
};
static const struct mmp_preset_slot sched[] = {
	{ .any_of = "context-switches" }, { .any_of = "cpu-migrations" }, { 0 },
};
static const struct mmp_preset_slot syscalls[] = {
	{ .any_of = "raw_syscalls:sys_enter" }, { .any_of = "syscalls:sys_enter_read" }, { 0 },
};

/* Loads served by another core's modified line (HITM: the false and true
 * sharing signal, LIKWID's FALSE_SHARE group) and locked instructions.
 * Intel: Skylake/Ice Lake name the HITM umask XSNP_HITM, Sapphire Rapids
 * XSNP_FWD, Haswell/Broadwell and Sandy/Ivy Bridge used other event names.
 * AMD Zen has no HITM event: the closest is a demand fill served from
 * another core's cache in the same CCX (Zen3 INT_CACHE; Zen4 LOCAL_CCX,
 * which also counts L3 hits), and libpfm4 knows only bus locks on Zen, so
 * locked instructions are Intel-only here. */
static const struct mmp_preset_slot contention[] = {
	{ .any_of = "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM|MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD|"
		    "MEM_LOAD_UOPS_L3_HIT_RETIRED:XSNP_HITM|"
		    "MEM_LOAD_UOPS_LLC_HIT_RETIRED:XSNP_HITM|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:INT_CACHE|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:LOCAL_CCX",
	  .role = MMP_ROLE_CONTENTION },
	{ .any_of = "MEM_INST_RETIRED:LOCK_LOADS|MEM_UOPS_RETIRED:LOCK_LOADS",
	  .role = MMP_ROLE_CONTENTION },
	{ 0 },
};

static const struct mmp_preset presets[] = {
	{ "basic", "cycles and instructions per byte, IPC, CPU time", basic },
	{ "cache", "L1d and last-level cache loads and misses", cache },
	{ "tlb", "data TLB loads and misses", tlb },
	{ "faults", "page faults (minor: page cache, major: disk)", faults },
	{ "contention", "loads of lines another core modified (HITM) and locked instructions",
	  contention },
	{ "sched", "context switches and migrations between PUs", sched },
	{ "syscalls", "system calls, all and read()", syscalls },
};

const struct mmp_preset *mmp_presets(size_t *count)
{
	*count = sizeof(presets) / sizeof(presets[0]);
	return presets;
}

/* perf's generic names and software events, for --list-events and "did
 * you mean". */
static const char *const known[] = {
	"cycles",	   "instructions",	    "cache-references", "cache-misses",
	"branches",	   "branch-misses",	    "L1-dcache-loads",	"L1-dcache-load-misses",
	"LLC-loads",	   "LLC-load-misses",	    "dTLB-loads",	"dTLB-load-misses",
	"iTLB-load-misses", "page-faults",	    "minor-faults",	"major-faults",
	"context-switches", "cpu-migrations",	    "task-clock",	"cpu-clock",
	"raw_syscalls:sys_enter", "syscalls:sys_enter_read",
};

const char *const *mmp_events_known(size_t *count)
{
	*count = sizeof(known) / sizeof(known[0]);
	return known;
}
