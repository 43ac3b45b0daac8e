/* exec: a real program instead of a C loop -- the seed's .NET and Java
 * programs, or any other -- under the same placement, counters, rounds and
 * reference check as the probes that model it.  Each repetition is one
 * process (command = ..., its {placeholders} filled in), bound to the run's
 * PUs, counted with inherited counters, timed from its exec to its exit or
 * by its own printed time, its printed result checked.  No loop here: the
 * runner's process engine does the work (process_run.c, docs/exec.md).
 * Its causes come from controls applied outside it: all its threads on
 * one PU, the preload library's prefault and huge pages, membind and
 * placement. */
#include "mmprof/probe.h"

const struct mmp_probe mmp_probe_exec = {
	.name = "exec",
	.summary = "a real program (command = ...), one process per repetition, bound to the "
		   "run's PUs, its printed result checked",
	.needs = MMP_NEEDS_PROCESS,
	/* prefault and hugepages reach the program through the preload
	 * library (preload.h): MAP_POPULATE on its mappings, MADV_HUGEPAGE on
	 * its large ones.  Controls apply from outside it (controls.h). */
	.uses = MMP_EXEC_KEYS | MMP_KEY_BIT(MMP_KEY_ACCESS) | MMP_KEY_BIT(MMP_KEY_PREFAULT),
	.access_mode = MMP_ACCESS_DECLARED,
};
