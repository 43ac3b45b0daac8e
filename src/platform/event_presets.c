/* Event presets, LIKWID's groups in one C table: a short name, a one-line
 * purpose, and the events.  A slot lists alternatives separated by '|' for
 * events whose name depends on the CPU (the first that libpfm4 encodes
 * here is used), so one preset works on Intel and AMD, and gives the role
 * its event plays in the derived metrics (metrics.c).
 */
#include <stddef.h>

#include "platform/events.h"

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
 * locked instructions are Intel-only here.
 *
 * Then where a line came from when it was not this node's: the remote
 * cause's evidence (issue 9).  Intel's server cores tell a load that
 * missed L3 by its source: remote DRAM, local DRAM, a modified line in the
 * other socket's cache (REMOTE_HITM), a clean one forwarded from it
 * (REMOTE_FWD): MEM_LOAD_L3_MISS_RETIRED on Skylake-SP to Sapphire Rapids
 * (and Emerald and Granite Rapids in newer libpfm4), ..._UOPS_L3_... on
 * Haswell-EP and Broadwell-EP, ..._UOPS_LLC_... on Ivy Bridge-EP (Sandy
 * Bridge-EP: DRAM only).  Client cores count only local DRAM, which alone
 * is no evidence of anything remote and would take a counter, so it is
 * kept only beside a remote DRAM event.  AMD counts demand fills by
 * source (event 0x43), with names that change every generation: Zen2
 * DATA_CACHE_REFILLS_FROM_SYSTEM (LS_MABRESP_RMT_*), Zen3 MEM_IO_* and
 * EXT_CACHE_*, Zen4 DRAM_IO_* and *_CACHE_NEAR_FAR, Zen5 (newer libpfm4)
 * NEAR_FAR_CACHE_*.  AMD does not tell a modified line from a clean one:
 * a fill from a far node's cache stands for remote HITM there.  A fill
 * from another CCX of the same node crosses an L3 boundary without
 * leaving the node (the near cause's evidence).  libpfm4's Zen1 table has
 * prefetch fills by source but no demand fills: nothing remote there.
 *
 * Slots in this order keep a remote/local DRAM pair in one counter group
 * after basic's two events, on 4-counter Intel and 6-counter AMD alike. */
static const struct mmp_preset_slot contention[] = {
	{ .any_of = "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM|MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD|"
		    "MEM_LOAD_UOPS_L3_HIT_RETIRED:XSNP_HITM|"
		    "MEM_LOAD_UOPS_LLC_HIT_RETIRED:XSNP_HITM|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:INT_CACHE|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:LOCAL_CCX",
	  .role = MMP_ROLE_CONTENTION },
	{ .any_of = "MEM_INST_RETIRED:LOCK_LOADS|MEM_UOPS_RETIRED:LOCK_LOADS",
	  .role = MMP_ROLE_CONTENTION },
	{ .any_of = "MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM|"
		    "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_DRAM|"
		    "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_DRAM|"
		    "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_DRAM|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_FAR",
	  .role = MMP_ROLE_REMOTE_DRAM },
	{ .any_of = "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM|"
		    "MEM_LOAD_UOPS_L3_MISS_RETIRED:LOCAL_DRAM|"
		    "MEM_LOAD_UOPS_LLC_MISS_RETIRED:LOCAL_DRAM|"
		    "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR",
	  .role = MMP_ROLE_LOCAL_DRAM, .needs = MMP_ROLE_REMOTE_DRAM },
	{ .any_of = "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM|"
		    "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_HITM|"
		    "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_HITM|"
		    "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_CACHE|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_RMT|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:FAR_CACHE_NEAR_FAR|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_FAR_CACHE_FAR",
	  .role = MMP_ROLE_REMOTE_HITM },
	{ .any_of = "MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD|"
		    "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_FWD|"
		    "MEM_LOAD_UOPS_LLC_MISS_RETIRED:REMOTE_FWD",
	  .role = MMP_ROLE_REMOTE_FWD },
	{ .any_of = "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR|"
		    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_FAR_CACHE_NEAR",
	  .role = MMP_ROLE_CROSS_CCX },
	{ 0 },
};

static const struct mmp_preset presets[] = {
	{ "basic", "cycles and instructions per byte, IPC, CPU time", basic },
	{ "cache", "L1d and last-level cache loads and misses", cache },
	{ "tlb", "data TLB loads and misses", tlb },
	{ "faults", "page faults (minor: page cache, major: disk)", faults },
	{ "contention",
	  "loads of lines another core modified (HITM), locked instructions, and loads "
	  "served from another NUMA node or L3 domain",
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
