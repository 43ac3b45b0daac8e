/* The resolved parameters of one run: what a job section means once its
 * [global] defaults are applied and its comma lists are expanded.
 *
 * Every field here is set by exactly one row of the key table
 * (src/config/config_keys.c); enum mmp_key_id names those rows.
 */
#ifndef MMPROF_PARAMS_H
#define MMPROF_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

struct mmp_probe;

/* The most rounds a run records (repeat's and max_repeat's limit); every
 * one of them is used in its comparisons. */
#define MMP_MAX_ROUNDS 100000

enum mmp_key_id {
	/* data */
	MMP_KEY_FILE,
	MMP_KEY_SIZE,
	MMP_KEY_FILL,
	MMP_KEY_SEED,
	/* what runs */
	MMP_KEY_PROBE,
	MMP_KEY_KERNEL,
	MMP_KEY_ACCESS,
	MMP_KEY_BUFFER,
	MMP_KEY_REFCOUNT,
	MMP_KEY_TALLY,
	MMP_KEY_OPS,
	MMP_KEY_TRANSFER,
	MMP_KEY_THREADS,
	/* where */
	MMP_KEY_PLACEMENT,
	MMP_KEY_MEMBIND,
	MMP_KEY_BIND,
	MMP_KEY_DATA,
	MMP_KEY_HUGEPAGES,
	/* how */
	MMP_KEY_PREFAULT,
	MMP_KEY_TOUCH,
	MMP_KEY_ADVICE,
	MMP_KEY_CACHE,
	MMP_KEY_REPEAT,
	MMP_KEY_MAX_REPEAT,
	MMP_KEY_MAX_TIME,
	MMP_KEY_WARMUP,
	MMP_KEY_EVENTS,
	MMP_KEY_CONTROLS,
	/* exec: a real program (probes/exec.c, docs/exec.md) */
	MMP_KEY_COMMAND,
	MMP_KEY_TIME,
	MMP_KEY_RESULT,
	MMP_KEY_TIMEOUT,
	MMP_KEY_PROFILE,
	MMP_KEY_PROFILE_FAULTS,
	MMP_KEY_LOG_MAX,
	MMP_KEY_JITNAMES,
	MMP_KEY_ENV,
	/* the job itself */
	MMP_KEY_ZIP,
	MMP_KEY_BASELINE,
	MMP_KEY_FIXES,
	MMP_KEY_TOLERANCE,
	MMP_KEY_MODEL,
	/* the whole config */
	MMP_KEY_ORDER,
	MMP_KEY_ORDER_SEED,
	MMP_KEY_TABLE,
	MMP_KEY_CSV,
	MMP_KEY_COUNT
};

#define MMP_KEY_BIT(id) (UINT64_C(1) << (id))

enum mmp_fill { MMP_FILL_RANDOM, MMP_FILL_ZERO };
enum mmp_kernel { MMP_KERNEL_ZEROS, MMP_KERNEL_HISTOGRAM };
enum mmp_refcount {
	MMP_REFCOUNT_SHARED,  /* one word every thread takes and gives back per call */
	MMP_REFCOUNT_ONCE,    /* taken once per thread around its loop (the fix) */
	MMP_REFCOUNT_PRIVATE, /* a word per thread, on lines of its own (the private control) */
};
/* atomic: one shared word, an atomic add per hit (Interlocked.Increment);
 * packed, padded: a word per thread, side by side or 128 bytes apart, an
 * atomic add per hit; plain, plain-padded: the same words with a plain
 * load and store per hit (`c[t]++` in C, no atomic); local: a register. */
enum mmp_tally {
	MMP_TALLY_ATOMIC,
	MMP_TALLY_PACKED,
	MMP_TALLY_PADDED,
	MMP_TALLY_LOCAL,
	MMP_TALLY_PLAIN,
	MMP_TALLY_PLAIN_PADDED,
};
/* Whether a program runs with what its runtime needs to name its JIT
 * code in the profile (child_env.h); auto is yes when profile is on, and
 * the plan holds the resolved value. */
enum mmp_jitnames { MMP_JITNAMES_AUTO, MMP_JITNAMES_YES, MMP_JITNAMES_NO };
/* How pingpong hands its line over. */
enum mmp_transfer {
	MMP_TRANSFER_CAS,   /* one line; each thread compare-and-swaps it when its turn comes */
	MMP_TRANSFER_STORE, /* two lines; each thread stores to its own, reads the other's */
};
enum mmp_table {
	MMP_TABLE_RUNS,  /* one row per run */
	MMP_TABLE_SIZES, /* the read/mmap/fread seed's: per file size, a column per method */
	MMP_TABLE_BOTH,
};
enum mmp_order {
	MMP_ORDER_INTERLEAVED, /* rounds: one repetition of each run, shuffled */
	MMP_ORDER_SEQUENTIAL,  /* every repetition of one run, then the next */
};
/* Memory policies (memory.h binds them), values like the placement. */
enum mmp_membind_kind {
	/* Each page on the node of the thread that first touches it
	 * (MPOL_LOCAL), whatever the process's own policy (numactl -m). */
	MMP_MEMBIND_FIRSTTOUCH,
	/* Bound to the node of the PU the calling thread is bound to: later
	 * touches by other threads do not move it. */
	MMP_MEMBIND_LOCAL,
	/* node:N, bound to one node (OS index). */
	MMP_MEMBIND_NODE,
	/* interleave (every allowed node) or interleave:LIST, page by page
	 * round-robin: spreads bandwidth, averages latency. */
	MMP_MEMBIND_INTERLEAVE,
};

#define MMP_MEMBIND_SPEC_MAX 96

struct mmp_membind {
	enum mmp_membind_kind kind;
	unsigned node;                     /* MMP_MEMBIND_NODE */
	bool all_nodes;                    /* MMP_MEMBIND_INTERLEAVE without a list */
	bool each;                         /* node:*: a job point per node (the plan expands it) */
	char spec[MMP_MEMBIND_SPEC_MAX];   /* as written; interleave's list is read from it */
};

/* strict: the kernel must place every page as asked (MPOL_BIND, and
 * pages already there must move) or the call fails. best-effort: the
 * kernel prefers the nodes asked (hwloc maps BIND to MPOL_PREFERRED) and a
 * binding that cannot be set at all leaves first-touch, said in the result. */
enum mmp_bind_mode { MMP_BIND_STRICT, MMP_BIND_BEST_EFFORT };

/* Where a probe that maps the file reads it from. */
enum mmp_data {
	MMP_DATA_PAGECACHE, /* the file's mapping: pages where the page cache put them */
	MMP_DATA_ANON,      /* a copy in anonymous memory, bound as membind asks */
};
enum mmp_cache {
	MMP_CACHE_WARM,    /* as the previous repetition left it */
	MMP_CACHE_DROP,    /* the file's pages evicted before each repetition */
	MMP_CACHE_DROPALL, /* and the whole page cache (root) */
};
enum mmp_advice {
	MMP_ADVICE_NORMAL,
	MMP_ADVICE_SEQUENTIAL,
	MMP_ADVICE_RANDOM,
	MMP_ADVICE_WILLNEED,
	MMP_ADVICE_HUGEPAGE
};

/* Where a run's threads go (src/platform/topology.h says how each kind
 * is planned; src/platform/placement.c has one table row per kind). */
enum mmp_placement_kind {
	MMP_PLACE_COMPACT, /* fill PUs in topology order: SMT siblings, cores, packages */
	MMP_PLACE_SCATTER, /* round-robin over packages, one PU per core first */
	MMP_PLACE_CORES,   /* one PU per core, SMT siblings left idle */
	MMP_PLACE_PUS,     /* an explicit list of OS PU numbers */
	MMP_PLACE_NUMA,    /* numa:LIST: node by node, compact within each */
	MMP_PLACE_PACKAGE, /* package:N: compact within one package (logical index) */
	MMP_PLACE_L3,      /* l3:N: compact within one L3 domain (logical index) */
	MMP_PLACE_SPREAD,  /* round-robin over nodes, then L3 domains, then cores */
	MMP_PLACE_PAIRS,   /* two threads swept over PU pairs (mmp_topology_pairs) */
	MMP_PLACE_KIND_COUNT
};

#define MMP_PLACEMENT_SPEC_MAX 160

struct mmp_placement {
	enum mmp_placement_kind kind;
	unsigned numa_node;                /* MMP_PLACE_NUMA: the first node listed (OS index) */
	unsigned index;                    /* MMP_PLACE_PACKAGE, MMP_PLACE_L3: logical index */
	bool each;                         /* numa:*: a job point per node (the plan expands it) */
	char spec[MMP_PLACEMENT_SPEC_MAX]; /* as written: "pus:0-3,8"; lists are read from it */
};

struct mmp_params {
	/* data */
	const char *file; /* NULL: generated in the data directory */
	uint64_t size;    /* 0: not set (an existing file's own size) */
	enum mmp_fill fill;
	uint64_t seed;
	/* what runs */
	const struct mmp_probe *probe;
	enum mmp_kernel kernel;
	uint64_t access; /* bytes per call; 0: the probe's default */
	uint64_t buffer; /* read()/stdio buffer bytes */
	enum mmp_refcount refcount;
	enum mmp_tally tally;
	uint64_t ops;               /* operations per repetition; 0: the probe's default */
	enum mmp_transfer transfer;
	uint32_t threads;
	/* where */
	struct mmp_placement placement;
	struct mmp_membind membind; /* where the run's memory is bound (memory.h) */
	enum mmp_bind_mode bind;
	enum mmp_data data;
	bool hugepages;             /* data = anon backed by huge pages */
	/* how */
	bool prefault;
	bool touch; /* every page of the mapping read once before timing */
	/* exec: its small read()s of regular files served from a buffer of
	 * the preload library's (the bulk control; no key sets it) */
	bool bulkreads;
	enum mmp_advice advice;
	enum mmp_cache cache;
	uint32_t repeat;     /* 0: auto */
	uint32_t max_repeat; /* repeat = auto: the ceiling */
	double max_time;     /* repeat = auto: seconds one comparison set may take */
	uint32_t warmup;
	const char *events;   /* names and presets, as written */
	const char *controls; /* auto, none, or control names, as written */
	/* exec */
	const char *command;  /* argv with {placeholders}, as written */
	const char *time;     /* wall, or output:REGEX */
	const char *result;   /* output:REGEX; NULL: not checked */
	double timeout;       /* seconds a process may run */
	uint32_t profile;     /* cpu samples per second of its CPU time (sampling.h); 0: off */
	bool profile_faults;  /* profiled: one page fault in MMP_SAMPLING_FAULT_PERIOD too */
	uint64_t log_max;     /* bytes of its output a log keeps: first and last halves */
	enum mmp_jitnames jitnames;
	const char *env;      /* VAR=VALUE, ... set in its environment, as written; NULL: none */
	/* the job */
	uint64_t zip;         /* MMP_KEY_BIT set of keys whose lists advance together */
	const char *baseline; /* jobs to print ratios against, NULL: none */
	const char *fixes;    /* the job this one is a fix for, NULL: none */
	double tolerance;     /* a ratio within 1 +- this is "the same" */
	const char *model;    /* jobs that model this one (C probes of a real program) */
	/* the config */
	enum mmp_table table;
	const char *csv;
	enum mmp_order order;
	uint64_t order_seed; /* 0: drawn at start (and recorded) */
};

extern const char *const mmp_fill_names[];
extern const char *const mmp_kernel_names[];
extern const char *const mmp_refcount_names[];
extern const char *const mmp_tally_names[];
extern const char *const mmp_transfer_names[];
extern const char *const mmp_jitnames_names[];
extern const char *const mmp_advice_names[];
extern const char *const mmp_cache_names[];
extern const char *const mmp_table_names[];
extern const char *const mmp_order_names[];
extern const char *const mmp_data_names[];

#endif
