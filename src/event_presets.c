/* Event presets, LIKWID's groups in one C table: a short name, a one-line
 * purpose, and the events.  A slot lists alternatives separated by '|' for
 * events whose name depends on the CPU (the first that libpfm4 encodes
 * here is used), so one preset works on Intel and AMD.
 */
#include <stddef.h>

#include "mmprof/events.h"

static const char *const basic[] = { "cycles", "instructions", "task-clock", NULL };
static const char *const cache[] = { "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads",
				     "LLC-load-misses", NULL };
static const char *const tlb[] = { "dTLB-loads", "dTLB-load-misses", NULL };
static const char *const faults[] = { "page-faults", "minor-faults", "major-faults", NULL };
static const char *const sched[] = { "context-switches", "cpu-migrations", NULL };
static const char *const syscalls[] = { "raw_syscalls:sys_enter", "syscalls:sys_enter_read",
					NULL };
/* Loads served by another core's modified line (HITM: the false and true
 * sharing signal, LIKWID's FALSE_SHARE group) and locked instructions.
 * Intel: Skylake/Ice Lake name the HITM umask XSNP_HITM, Sapphire Rapids
 * XSNP_FWD, Haswell/Broadwell and Sandy/Ivy Bridge used other event names.
 * AMD Zen has no HITM event: the closest is a demand fill served from
 * another core's cache in the same CCX (Zen3 INT_CACHE; Zen4 LOCAL_CCX,
 * which also counts L3 hits), and libpfm4 knows only bus locks on Zen, so
 * locked instructions are Intel-only here. */
static const char *const contention[] = {
	"MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM|MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD|"
	"MEM_LOAD_UOPS_L3_HIT_RETIRED:XSNP_HITM|MEM_LOAD_UOPS_LLC_HIT_RETIRED:XSNP_HITM|"
	"DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:INT_CACHE|"
	"DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:LOCAL_CCX",
	"MEM_INST_RETIRED:LOCK_LOADS|MEM_UOPS_RETIRED:LOCK_LOADS",
	NULL,
};

static const struct mmp_preset presets[] = {
	{ "basic", "cycles and instructions per byte, IPC, CPU time", basic, MMP_ROLE_OTHER },
	{ "cache", "L1d and last-level cache loads and misses", cache, MMP_ROLE_OTHER },
	{ "tlb", "data TLB loads and misses", tlb, MMP_ROLE_OTHER },
	{ "faults", "page faults (minor: page cache, major: disk)", faults, MMP_ROLE_OTHER },
	{ "contention", "loads of lines another core modified (HITM) and locked instructions",
	  contention, MMP_ROLE_CONTENTION },
	{ "sched", "context switches and migrations between PUs", sched, MMP_ROLE_OTHER },
	{ "syscalls", "system calls, all and read()", syscalls, MMP_ROLE_OTHER },
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
