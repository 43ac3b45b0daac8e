/* Probes: one access path each, one file each in probes/, listed once in
 * probes/probes.def.
 *
 * A probe is handed one thread's slice of the file and computes a kernel
 * (zero count or 256-bin histogram) over it, counting what it finds through
 * a tally sink.  The runner owns everything around it: mapping, threads,
 * timing, shared state; the probe owns only the loop it models.
 */
#ifndef MMPROF_PROBE_H
#define MMPROF_PROBE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/params.h"

/* What the runner prepares before the timed region. */
enum mmp_probe_needs {
	MMP_NEEDS_MAP = 1 << 0, /* the file mapped read-only, MAP_SHARED */
	MMP_NEEDS_FD = 1 << 1,  /* the file open read-only */
	MMP_NEEDS_PATH = 1 << 2, /* opens the file itself, inside the timed region */
	/* No file: `size` bytes of the run's own memory, bound as membind says
	 * (on huge pages with hugepages = yes), each thread's slice written by
	 * the probe's prepare hook before the first repetition. */
	MMP_NEEDS_WORK = 1 << 3,
	/* Runs a program, not a loop: no threads of mmprof's, no run hook.
	 * The runner starts one process per repetition (process_run.h). */
	MMP_NEEDS_PROCESS = 1 << 4,
};

/* Probes that read the data file (a program run by exec reads it too):
 * the others (pingpong, chase) have no file, no reference scan and no
 * page cache. */
#define MMP_NEEDS_FILE (MMP_NEEDS_MAP | MMP_NEEDS_FD | MMP_NEEDS_PATH | MMP_NEEDS_PROCESS)

/* How many bytes one call of the modelled API returns. */
enum mmp_access_mode {
	MMP_ACCESS_BYTE,  /* always 1: get(i), ReadByte(i) */
	MMP_ACCESS_BLOCK, /* `access` bytes: get(byte[]), ReadArray */
	MMP_ACCESS_WHOLE, /* no calls: the whole slice in one scan */
	MMP_ACCESS_DECLARED, /* what `access` says the program does; 0: not said */
};

/* Where one thread counts what its kernel finds.  With a tally in memory
 * (atomic, packed, padded) bin b of this thread lives at slot[b * stride]
 * and every hit is an atomic add there, so the cache line really moves
 * between cores (a plain tally: a load and a store there, as `c[t]++`
 * compiles; the others: an atomic add); with a local tally the counts stay in registers or on the
 * thread's stack and slot is NULL. */
struct mmp_sink {
	_Atomic uint64_t *slot;
	size_t stride;
	int plain; /* tally = plain, plain-padded: c[t]++, a load and a store, no atomic */
	uint64_t zeros;
	uint64_t hist[256];
};

/* One thread's work in one repetition. */
struct mmp_slice {
	const uint8_t *map; /* the whole file (MMP_NEEDS_MAP) */
	uint8_t *work;      /* the run's own memory (MMP_NEEDS_WORK), `size` bytes */
	int fd;             /* the file, read-only (MMP_NEEDS_FD) */
	const char *path;   /* the file (MMP_NEEDS_PATH) */
	uint64_t file_size;
	uint64_t begin, end; /* this thread's bytes: [begin, end) */
	uint64_t access;     /* bytes per call (MMP_ACCESS_BLOCK) */
	uint64_t buffer_size; /* read()/stdio buffer bytes (probes using `buffer`) */
	enum mmp_advice advice; /* for probes that open the file themselves */
	enum mmp_kernel kernel;
	const struct mmp_params *params; /* the run's, for probe-specific keys */
	unsigned thread, nthreads;       /* this thread's index, and the run's threads */
	int shares_pu;                   /* another thread of the run is planned on its PU */
	void *priv;      /* the probe's own state for the run (setup), or NULL */
	uint8_t *buffer; /* this thread's buffer: `access` or `buffer` bytes */
	struct mmp_sink *sink;
};

/* Thread t of n's bytes of [0, len): an equal share, the last thread
 * takes the rest.  The one split of a run: the slices the probes read,
 * the data copy each thread fills, the memory each binds and counts. */
static inline void mmp_slice_bounds(uint64_t len, unsigned n, unsigned t, uint64_t *begin,
				    uint64_t *end)
{
	uint64_t chunk = len / n;
	*begin = chunk * t;
	*end = t + 1 == n ? len : chunk * (t + 1);
}

/* What a probe's setup is told about the run its state serves, and where
 * to get memory for state its threads share: bound as the run's membind
 * says (runmem.h), zeroed, freed by the runner after teardown. */
struct mmp_probe_env {
	const struct mmp_params *params;
	unsigned nthreads;
	void *(*alloc)(void *ctx, size_t len);
	void *alloc_ctx;
};

/* What a probe is to the other probes. */
enum mmp_probe_role {
	MMP_PROBE_PATH, /* an access path to measure (the default) */
	/* The ceiling: the fastest honest scan of the same bytes.  Every job
	 * point reading the same bytes is measured against it side by side
	 * ("x limit": plan.h, mmp_plan_ceiling), the limit control swaps it
	 * in, and a job of it has nothing to fix.  One probe has this role
	 * (mmp_probe_ceiling). */
	MMP_PROBE_CEILING,
};

/* Returns 0, or a negative errno when the modelled API reported an error
 * (a failed bounds check is a bug in the slice, never expected). */
typedef int (*mmp_probe_run_fn)(const struct mmp_slice *slice);

struct mmp_probe {
	const char *name;
	const char *label;    /* the method in tables: "read" -> "read(4096)" */
	const char *summary;  /* one line, for --list-probes */
	enum mmp_probe_role role;
	unsigned needs;       /* enum mmp_probe_needs */
	int maps;             /* maps the file itself (advice = hugepage applies) */
	uint64_t uses;        /* MMP_KEY_BIT of the probe-specific keys it reads */
	uint64_t ignores;     /* MMP_KEY_BIT of general keys that mean nothing to it */
	unsigned threads;     /* the threads it always runs (pingpong: 2); 0: `threads` */
	enum mmp_access_mode access_mode;
	uint64_t default_access;  /* MMP_ACCESS_BLOCK when `access` is not set;
				     0: the run's `buffer` (fread: calls of a buffer) */
	const char *shared_state; /* what `private` makes per-thread; NULL: none */
	const char *bulk;         /* probe reading the same bytes in bulk; NULL: none */
	/* What its loop does beyond the ceiling's vectorised scan, for the
	 * cause the limit control names ("a call, 4 checks and 2 CAS loops per byte"). */
	const char *loop;
	mmp_probe_run_fn run;
	/* Probes that count operations instead of reading bytes (pingpong's
	 * transfers, chase's loads): the operation's name ("transfer"), the
	 * operations one repetition performs one after another (its time / ops
	 * is the time per operation), and the result a right repetition gives
	 * (each thread adds its part to sink->zeros).  NULL: a byte probe,
	 * checked against the data's reference scan. */
	const char *unit;
	uint64_t default_ops; /* `ops` when not set */
	uint64_t (*ops)(const struct mmp_params *p);
	uint64_t (*expected)(const struct mmp_params *p, unsigned nthreads);
	/* MMP_NEEDS_WORK: write this thread's slice of slice->work (run in
	 * the thread, so first touch places it), once before the first
	 * repetition; a negative errno on failure. */
	int (*prepare)(const struct mmp_slice *slice);
	/* Optional state the threads of one run share (the .NET view's reference
	 * count): made once before the run's threads start, reset before every
	 * repetition, checked after it (a negative errno when the state shows
	 * the model broke, e.g. a reference never given back), freed after the
	 * run's last repetition.  Each thread sees it as slice->priv. */
	int (*setup)(const struct mmp_probe_env *env, void **priv);
	void (*reset)(void *priv);
	int (*check)(void *priv);
	void (*teardown)(void *priv);
};

/* Keys that only some probes read; the others apply to every probe. */
#define MMP_PROBE_SPECIFIC_KEYS                                                 \
	(MMP_KEY_BIT(MMP_KEY_ACCESS) | MMP_KEY_BIT(MMP_KEY_BUFFER) |            \
	 MMP_KEY_BIT(MMP_KEY_REFCOUNT) |                                        \
	 MMP_KEY_BIT(MMP_KEY_TALLY) | MMP_KEY_BIT(MMP_KEY_PREFAULT) |           \
	 MMP_KEY_BIT(MMP_KEY_ADVICE) | MMP_KEY_BIT(MMP_KEY_DATA) |              \
	 MMP_KEY_BIT(MMP_KEY_HUGEPAGES) | MMP_KEY_BIT(MMP_KEY_OPS) |            \
	 MMP_KEY_BIT(MMP_KEY_TRANSFER) | MMP_EXEC_KEYS)

/* General keys that mean nothing to a probe without a data file. */
#define MMP_NO_FILE_KEYS                                                        \
	(MMP_KEY_BIT(MMP_KEY_FILE) | MMP_KEY_BIT(MMP_KEY_FILL) |                \
	 MMP_KEY_BIT(MMP_KEY_CACHE) | MMP_KEY_BIT(MMP_KEY_KERNEL))

/* The keys of the probes that run a program (probes/exec.c). */
#define MMP_EXEC_KEYS                                                           \
	(MMP_KEY_BIT(MMP_KEY_COMMAND) | MMP_KEY_BIT(MMP_KEY_TIME) |             \
	 MMP_KEY_BIT(MMP_KEY_RESULT) | MMP_KEY_BIT(MMP_KEY_TIMEOUT) |           \
	 MMP_KEY_BIT(MMP_KEY_PROFILE) | MMP_KEY_BIT(MMP_KEY_PROFILE_FAULTS) |     \
	 MMP_KEY_BIT(MMP_KEY_LOG_MAX) |                                          \
	 MMP_KEY_BIT(MMP_KEY_JITNAMES) | MMP_KEY_BIT(MMP_KEY_ENV))

/* The registry (probes/registry.c, from probes/probes.def). */
const struct mmp_probe *const *mmp_probe_all(size_t *count);
const struct mmp_probe *mmp_probe_find(const char *name);
/* The probe whose role is the ceiling. */
const struct mmp_probe *mmp_probe_ceiling(void);

/* Keys the ceiling sets itself: its pages mapped in and touched before
 * timing, always (config_expand.c), so they are no difference between
 * it and the jobs it serves. */
#define MMP_CEILING_FIXED_KEYS (MMP_KEY_BIT(MMP_KEY_PREFAULT) | MMP_KEY_BIT(MMP_KEY_TOUCH))

/* The ceiling's zero count of p[0, n), the scan limit times: the
 * calibration's scan speed is this loop's (firsttouch.h). */
uint64_t mmp_probe_ceiling_zeros(const uint8_t *p, uint64_t n);

/* Whether a key changes what this probe does. */
int mmp_probe_uses(const struct mmp_probe *probe, enum mmp_key_id key);
/* How a run of the probe executes, each kind one engine of the runner
 * (engine.h): the probe's loop on mmprof's pinned threads, or a program
 * in a child process (MMP_NEEDS_PROCESS).  Stages before the runner ask
 * the kind, not the flag. */
enum mmp_run_kind {
	MMP_RUN_KIND_THREADS,
	MMP_RUN_KIND_PROCESS,
	MMP_RUN_KINDS
};
enum mmp_run_kind mmp_probe_kind(const struct mmp_probe *probe);
/* Whether it reads the data file (and so has a reference to be checked
 * against, a page cache, a file to create). */
int mmp_probe_reads_file(const struct mmp_probe *probe);
/* Whether a run reads one: a probe that does, except a program (exec)
 * given neither `file` nor `size` -- it reads none, its result is not
 * checked, and its figures are per run. */
int mmp_run_reads_file(const struct mmp_params *p);

/* Bytes per call a run makes: 1 for byte probes; for block probes
 * `access`, else the probe's default (or `buffer` for probes whose calls
 * default to their buffer); 0 for whole-slice scans. */
uint64_t mmp_params_access(const struct mmp_params *p);

/* "read(4096)", "mmap": the method as a column of the sizes table. */
const char *mmp_params_label(const struct mmp_params *p, char *buf, size_t len);

/* Bytes of the per-thread buffer a run needs (copy-out or read buffer). */
uint64_t mmp_probe_buffer_bytes(const struct mmp_probe *probe, const struct mmp_params *p);

#endif
