/* A run's sampling profile over its rounds, and the differential between
 * two runs: where a program's CPU time goes, where it grows, and where
 * its page faults land.
 *
 * Each recorded repetition's samples (sampling.h) are named (symbols.h)
 * and counted into rows, one per
 *
 *   function   the innermost frame's function (self time); frames nothing
 *              names are one row per module and reason (stripped, no perf
 *              map, ...), shown as module+offset.  A sample in the kernel
 *              (a page fault, a system call) goes to the user frame that
 *              entered it, as a row of its own ("touch() in the kernel")
 *   line       the innermost frame's source line (file:line in function)
 *   faults     the mapping a sampled fault address fell in (the file,
 *              [heap], [stack], anonymous)
 *   inclusive  a function anywhere in the sample's call chain, the
 *              innermost frame and its callers, counted once per sample
 *              however often it appears (recursion): the time spent in it
 *              and in what it called.  Callers whose own code takes
 *              nothing show here, and so do the frames of a call the JIT
 *              did not inline.  Unnamed frames are one row per module and
 *              reason, as above.  A caller is found by frame pointers: one
 *              built without them is skipped, with whatever called it
 *
 * with a count per round, so a share has an interval over rounds like
 * every other figure.  A cpu sample stands for period_ns of CPU time.
 *
 * The differential (mmp_profile_growth): for two runs of the same program
 * (a control rung and the job, one thread and two), each row's CPU time
 * per unit of work (a byte of the file) in run a and in run b, round by
 * round; the growth is b - a, and a row's share of the growth is its
 * growth over that of every row that grew (the total's, when no row
 * shrank).  The interval is a t-interval over the rounds
 * both runs have (paired by round index: the rounds of one comparison set
 * are measured side by side).  "95% of the growth from one thread to two
 * is at fs.c:7 in w()" is the top line row.
 */
#ifndef MMPROF_PROFILE_H
#define MMPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "result/intervals.h"
#include "platform/sampling.h"
#include "result/symbols.h"

enum mmp_prof_kind {
	MMP_PROF_FUNCTION,
	MMP_PROF_LINE,
	MMP_PROF_FAULTS,
	MMP_PROF_INCLUSIVE,
	MMP_PROF_KIND_COUNT
};

/* "function", "line", "faults", "inclusive" (the CSV's kind column). */
extern const char *const mmp_prof_kind_names[];

struct mmp_prof_row {
	enum mmp_prof_kind kind;
	const char *module;   /* faults: the mapping */
	const char *function; /* NULL: not named (see why) */
	const char *file;     /* line rows */
	unsigned line;
	uint64_t offset;      /* not named: the first offset seen in module */
	enum mmp_unnamed why;
	int kernel;           /* time in the kernel, entered from this function or line */
	double *count;        /* [rounds] samples */
	double total;
	/* inclusive rows: the frames between it and where each sample
	 * landed, summed (0: the sample's own function) */
	double depth;
	/* inclusive rows: the named functions it called in its samples (the
	 * next named frame inward), each with its samples */
	struct mmp_prof_callee {
		size_t row; /* index in mmp_profile.row */
		double n;
	} *callee;
	size_t ncallee;
};

/* One frame of a stack, named as a function row is: by its function, or,
 * not named, by its module and reason (one frame per module and reason,
 * whatever the offset, as the rows are); the kernel is one frame,
 * "[kernel]" (its own frames are not sampled: sampling.h). */
struct mmp_prof_frame {
	const char *module;
	const char *function; /* NULL: not named (see why) */
	enum mmp_unnamed why;
};

/* A unique call stack of cpu samples (folded stacks: FlameGraph,
 * inferno, speedscope): frames innermost first, a sample in the kernel
 * with "[kernel]" inside the user frame that entered it, and its samples
 * over every round.  The stacks' totals add to the cpu samples. */
struct mmp_prof_stack {
	size_t first; /* of its frames in mmp_profile.frame */
	uint32_t n;
	double total;
};

struct mmp_profile {
	struct mmp_prof_row *row;
	size_t nrows, rowcap;
	size_t rounds; /* allocated rounds of every count array */
	double *cpu;   /* [rounds] cpu samples */
	double *faults;/* [rounds] fault samples */
	unsigned char *have; /* [rounds]: a profile was taken in that round */
	uint64_t lost;
	uint64_t period_ns;
	uint64_t fault_period;
	uint64_t unnamed[MMP_UNNAMED_COUNT]; /* cpu samples by reason */
	int perf_map_seen;  /* some process had /tmp/perf-PID.map */
	unsigned jit;       /* what jitnames set (child_env.h's MMP_JIT_*) */
	unsigned runtimes;  /* MMP_RUNTIME_*: the JIT runtimes its mappings show */
	int user_only;
	int faults_refused; /* errno */
	char refused[256];  /* sampling refused: why (once) */
	size_t *index; size_t indexcap; /* rows by key (open addressing, +1; 0 empty) */
	struct mmp_prof_frame *frame; /* every stack's frames, one after another */
	size_t nframes, framecap;
	struct mmp_prof_stack *stack;
	size_t nstacks, stackcap;
	size_t *stackindex; size_t stackindexcap; /* as index, for stacks */
};

void mmp_profile_init(struct mmp_profile *p);
void mmp_profile_free(struct mmp_profile *p);
/* Count one repetition's samples into round `round`. */
int mmp_profile_add(struct mmp_profile *p, struct mmp_symbols *sy, const struct mmp_samples *s,
		    size_t round);
/* Sampling was refused or failed in a round: the reason, kept once. */
void mmp_profile_refused(struct mmp_profile *p, const char *why);
/* Rounds with a profile. */
size_t mmp_profile_rounds(const struct mmp_profile *p);
/* Total cpu (or fault) samples. */
double mmp_profile_samples(const struct mmp_profile *p, int faults);

/* A row's share of its kind's samples (cpu for function, line and
 * inclusive rows, faults for fault rows), mean of the rounds' shares with
 * its interval. */
void mmp_profile_share(const struct mmp_profile *p, const struct mmp_prof_row *row,
		       struct mmp_interval *out);
/* The rows of one kind, most samples first (at most cap; returns how
 * many). */
size_t mmp_profile_top(const struct mmp_profile *p, enum mmp_prof_kind kind,
		       const struct mmp_prof_row **out, size_t cap);

/* The inclusive rows worth showing beside the self rows, most samples
 * first (at most cap; returns how many): named functions whose time is
 * partly in what they call (inclusive above self by MMP_PROFILE_CALLEES
 * of the samples) and where that time divides.  Left out:
 *   - a caller that passes MMP_PROFILE_PASS of its samples to one function
 *     it calls: the chain of callers above a loop (a runtime's thread
 *     pool, Parallel.For's plumbing, the tier-0 frame an OSR loop runs
 *     under) says no more than the function it leads to;
 *   - a caller more than MMP_PROFILE_NEAR frames, on average, from where
 *     its samples landed: a thread's entry frames (start_thread, main's
 *     callers, a runtime's host: 14 to 28 frames out in the seed's .NET
 *     program, its loop 2 to 3);
 *   - a function in (nearly) every sample (MMP_PROFILE_EVERY).
 * NAME.profile.csv has every inclusive row. */
#define MMP_PROFILE_CALLEES 0.01
#define MMP_PROFILE_PASS 0.9
#define MMP_PROFILE_EVERY 0.99
#define MMP_PROFILE_NEAR 8
size_t mmp_profile_callers(const struct mmp_profile *p, const struct mmp_prof_row **out,
			   size_t cap);

struct mmp_growth {
	const struct mmp_prof_row *row; /* of run b (a row only a has: of a) */
	struct mmp_interval share;      /* of the growth where it grew (grew) */
	struct mmp_interval growth;     /* CPU ns per unit, b - a */
	double grew;                    /* the growth of the rows of its kind that
					   grew, summed: above the net growth
					   when time moved between rows */
};

/* The rows of kind (function or line) whose CPU time per unit grows most
 * from a to b (per_a, per_b: units of work of one round of each, bytes),
 * largest growth first.  total: the whole profile's growth (its interval
 * decides whether there is growth to share out); a row's share is of the
 * growth of the rows that grew, so shares stay within 100% when a control
 * moves time between rows rather than only adding it.  Returns how many rows
 * went to out (at most cap), 0 without rounds in common. */
size_t mmp_profile_growth(const struct mmp_profile *a, double per_a, const struct mmp_profile *b,
			  double per_b, enum mmp_prof_kind kind, struct mmp_growth *out,
			  size_t cap, struct mmp_interval *total);

/* A frame as folded stacks show it: "hot_loop", "libx.so (stripped ...)",
 * "[kernel]"; a ';' (the frames' separator) is written ':'. */
const char *mmp_prof_frame_name(const struct mmp_prof_frame *f, char *buf, size_t len);

/* "hot.c:7 in w()", "w()", "libx.so+0x1a2b (stripped ...)", "[heap]". */
const char *mmp_prof_row_name(const struct mmp_prof_row *row, char *buf, size_t len);

#endif
