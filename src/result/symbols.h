/* Naming the addresses a sampled program ran at: ELF symbols and DWARF
 * source lines through elfutils (libdwfl), JIT code through the perf map
 * its runtime writes (/tmp/perf-PID.map: .NET with DOTNET_PerfMapEnabled,
 * a Java agent), and for what neither names, the module and offset with
 * the reason.
 *
 * The mappings come from the sampler's PERF_RECORD_MMAP2 records, so a
 * process is named after it exited.  Files are opened once per path and
 * kept (each repetition is a new process at new addresses, but the same
 * files): an address is turned into its file's own address (ip - start +
 * pgoff, then the PT_LOAD segment that holds that offset), so what one
 * process taught carries to the next, and each (file, address) is looked
 * up once.
 */
#ifndef MMPROF_SYMBOLS_H
#define MMPROF_SYMBOLS_H

#include <stdint.h>

#include "platform/sampling.h"

/* Why a frame has no function or no line. */
enum mmp_unnamed {
	MMP_NAMED,            /* function and line */
	MMP_NO_LINE,          /* a function, no DWARF line (built without -g) */
	MMP_STRIPPED,         /* no symbol table covers it: stripped */
	MMP_NO_PERF_MAP,      /* code outside any file (JIT) and no /tmp/perf-PID.map */
	MMP_NOT_IN_PERF_MAP,  /* anonymous code the perf map does not cover */
	MMP_NO_MAPPING,       /* no mapping recorded at the address */
	MMP_UNREADABLE,       /* the file could not be opened or read as ELF */
	MMP_KERNEL,           /* kernel code (not named here) */
	MMP_UNNAMED_COUNT
};

/* "stripped (no symbol table)", ... for the output. */
const char *mmp_unnamed_why(enum mmp_unnamed u);

struct mmp_frame {
	const char *module;   /* the file's path, "[jit]", "[kernel]", "[unknown]" */
	const char *function; /* NULL: not named */
	const char *file;     /* source file, NULL: none */
	unsigned line;
	uint64_t offset;      /* in the module (its own addresses) */
	enum mmp_unnamed why;
};

struct mmp_symbols;

int mmp_symbols_new(struct mmp_symbols **out);
void mmp_symbols_free(struct mmp_symbols *sy);

/* Start naming one process's samples: its mappings and its perf map. */
int mmp_symbols_process(struct mmp_symbols *sy, const struct mmp_samples *samples);
/* Name one address of that process (pid: a process it started has its
 * own mappings).  caller: a return address (its call is the instruction
 * before).  The strings live as long as sy. */
int mmp_symbols_name(struct mmp_symbols *sy, uint32_t pid, uint64_t ip, uint64_t time,
		     int caller, struct mmp_frame *out);
/* The mapping an address was in ("[heap]", the file, "anonymous"), for
 * fault addresses; NULL when none was recorded. */
const char *mmp_symbols_mapping(struct mmp_symbols *sy, uint32_t pid, uint64_t addr,
				uint64_t time);
/* The samples of the process being named. */
const struct mmp_samples *mmp_symbols_samples(const struct mmp_symbols *sy);
/* Whether the process had a perf map. */
int mmp_symbols_has_perf_map(const struct mmp_symbols *sy);

#endif
