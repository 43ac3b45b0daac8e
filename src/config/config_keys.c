/* The one table of config keys (fio's options.c idea): each row gives the
 * name, type, field, default, limits, allowed values and help, and drives
 * parsing, defaults, validation, --help, --list-keys and the README table.
 * The value types' parse and format functions live here too.
 */
#include "mmprof/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/capture.h"
#include "mmprof/command.h"
#include "mmprof/controls.h"
#include "mmprof/events.h"
#include "mmprof/lists.h"
#include "mmprof/memory.h"
#include "mmprof/probe.h"
#include "mmprof/suggest.h"
#include "mmprof/topology.h"
#include "mmprof/units.h"

const char *const mmp_fill_names[] = { "random", "zero", NULL };
const char *const mmp_kernel_names[] = { "zeros", "histogram", NULL };
const char *const mmp_refcount_names[] = { "shared", "once", "private", NULL };
const char *const mmp_tally_names[] = { "atomic", "packed", "padded", "local", "plain",
					"plain-padded", NULL };
const char *const mmp_cache_names[] = { "warm", "drop", "drop-all", NULL };
const char *const mmp_table_names[] = { "runs", "sizes", "both", NULL };
const char *const mmp_order_names[] = { "interleaved", "sequential", NULL };
const char *const mmp_data_names[] = { "pagecache", "anon", NULL };
const char *const mmp_transfer_names[] = { "cas", "store", NULL };
static const char *const bind_names[] = { "strict", "best-effort", NULL };
const char *const mmp_advice_names[] = { "normal", "sequential", "random", "willneed",
					 "hugepage", NULL };

#define FIELD(f) offsetof(struct mmp_params, f), sizeof(((struct mmp_params *)0)->f)
/* Roles most keys have (config.h says each): a condition a ratio holds
 * fixed, or a part of the access path the jobs of a ratio differ in. */
#define CONDITION_KEY (MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_CONDITION | MMP_ROLE_LABEL)
#define PATH_KEY (MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_LABEL)
#define KIB UINT64_C(1024)
#define TIB (KIB * KIB * KIB * KIB)

const struct mmp_key mmp_keys[MMP_KEY_COUNT] = {
	[MMP_KEY_FILE] = {
		.name = "file", .id = MMP_KEY_FILE, .type = MMP_T_STRING, FIELD(file),
		.roles = MMP_ROLE_RUN | MMP_ROLE_CONDITION | MMP_ROLE_LABEL | MMP_ROLE_HIDDEN,
		.group = "data",
		.help = "data file; created from size/fill/seed if missing, never "
			"overwritten if mmprof did not create it",
		.default_help = "generated in $MMPROF_DATA or ./data",
	},
	[MMP_KEY_SIZE] = {
		.name = "size", .id = MMP_KEY_SIZE, .type = MMP_T_SIZE, FIELD(size),
		.min = 1, .max = TIB, .roles = MMP_ROLE_RUN | MMP_ROLE_CONDITION | MMP_ROLE_LABEL,
		.group = "data",
		.help = "bytes of data (512, 4K, 100M, 1G: binary suffixes)",
		.default_help = "size of an existing file",
	},
	[MMP_KEY_FILL] = {
		.name = "fill", .id = MMP_KEY_FILL, .type = MMP_T_ENUM, FIELD(fill),
		.def = "random", .values = mmp_fill_names, .roles = CONDITION_KEY,
		.group = "data",
		.help = "content of generated data: random bytes, or all zeros",
	},
	[MMP_KEY_SEED] = {
		.name = "seed", .id = MMP_KEY_SEED, .type = MMP_T_UINT, FIELD(seed),
		.def = "1", .min = 0, .max = UINT64_MAX, .roles = CONDITION_KEY,
		.group = "data",
		.help = "seed of the random fill: same seed, same bytes",
	},
	[MMP_KEY_PROBE] = {
		.name = "probe", .id = MMP_KEY_PROBE, .type = MMP_T_PROBE, FIELD(probe),
		.roles = MMP_ROLE_RUN | MMP_ROLE_COMPARE,
		.group = "what runs", .help = "access path to run (see --list-probes)",
		.default_help = "required",
	},
	[MMP_KEY_KERNEL] = {
		.name = "kernel", .id = MMP_KEY_KERNEL, .type = MMP_T_ENUM, FIELD(kernel),
		.def = "zeros", .values = mmp_kernel_names, .roles = CONDITION_KEY,
		.group = "what runs",
		.help = "what the probe computes: count zero bytes, or a 256-bin histogram",
	},
	[MMP_KEY_ACCESS] = {
		.name = "access", .id = MMP_KEY_ACCESS, .type = MMP_T_SIZE, FIELD(access),
		.min = 1, .max = KIB * KIB * KIB,
		.roles = MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_CONDITION,
		.group = "what runs",
		.help = "bytes per call of the block probes (the last call of a slice is shorter)",
		.default_help = "4K for block probes; byte probes read 1",
	},
	[MMP_KEY_BUFFER] = {
		.name = "buffer", .id = MMP_KEY_BUFFER, .type = MMP_T_SIZE, FIELD(buffer),
		.def = "4KiB", .min = 1, .max = KIB * KIB * KIB, .roles = PATH_KEY,
		.group = "what runs",
		.help = "bytes each read() asks for, or stdio's buffer (file probes)",
	},
	[MMP_KEY_REFCOUNT] = {
		.name = "refcount", .id = MMP_KEY_REFCOUNT, .type = MMP_T_ENUM,
		FIELD(refcount), .def = "shared", .values = mmp_refcount_names,
		.roles = PATH_KEY,
		.group = "what runs",
		.help = "accessor probes: one shared reference count taken per call, taken "
			"once per thread, or a count per thread (private)",
	},
	[MMP_KEY_TALLY] = {
		.name = "tally", .id = MMP_KEY_TALLY, .type = MMP_T_ENUM, FIELD(tally),
		.def = "local", .values = mmp_tally_names, .roles = PATH_KEY,
		.group = "what runs",
		.help = "where hits are counted: one shared atomic; per-thread slots packed "
			"or padded to 128 bytes, an atomic add per hit; plain or plain-padded: the "
			"same slots with c[t]++ (a load and a store, no atomic); or a local register",
	},
	[MMP_KEY_OPS] = {
		.name = "ops", .id = MMP_KEY_OPS, .type = MMP_T_UINT, FIELD(ops),
		.min = 2, .max = UINT64_C(1) << 40, .roles = CONDITION_KEY,
		.group = "what runs",
		.help = "operations per repetition of the probes that count them: pingpong's "
			"one-way transfers, chase's loads (each thread's)",
		.default_help = "pingpong 200000, chase 1048576",
	},
	[MMP_KEY_TRANSFER] = {
		.name = "transfer", .id = MMP_KEY_TRANSFER, .type = MMP_T_ENUM, FIELD(transfer),
		.def = "cas", .values = mmp_transfer_names, .roles = PATH_KEY,
		.group = "what runs",
		.help = "pingpong: one line compare-and-swapped in turn (cas), or two lines, "
			"each thread storing to its own and reading the other's (store)",
	},
	[MMP_KEY_THREADS] = {
		.name = "threads", .id = MMP_KEY_THREADS, .type = MMP_T_UINT, FIELD(threads),
		.def = "1", .min = 1, .max = 1024,
		.roles = MMP_ROLE_RUN | MMP_ROLE_COMPARE | MMP_ROLE_CONDITION,
		.group = "what runs",
		.help = "threads, each over its own slice (size/threads, the last takes the rest)",
	},
	[MMP_KEY_PLACEMENT] = {
		.name = "placement", .id = MMP_KEY_PLACEMENT, .type = MMP_T_PLACEMENT,
		FIELD(placement), .def = "compact", .roles = CONDITION_KEY,
		.group = "where",
		.help = "where threads run (pus:0-3,8 names PUs; numa:* is a job point per NUMA "
			"node; see docs/numa.md)",
	},
	[MMP_KEY_MEMBIND] = {
		.name = "membind", .id = MMP_KEY_MEMBIND, .type = MMP_T_MEMBIND, FIELD(membind),
		.def = "firsttouch", .roles = CONDITION_KEY,
		.group = "where",
		.help = "where the run's memory lives: its shared state, its buffers and (data "
			"= anon) its data: firsttouch (no binding call: where the thread that "
			"touches it first runs), local (each thread's node), node:N (node:* a job "
			"point per node), interleave, interleave:LIST",
	},
	[MMP_KEY_BIND] = {
		.name = "bind", .id = MMP_KEY_BIND, .type = MMP_T_ENUM, FIELD(bind),
		.def = "strict", .values = bind_names, .roles = CONDITION_KEY,
		.group = "where",
		.help = "membind that cannot be had (or binding refused, as in containers "
			"without CAP_SYS_NICE): an error at the start (strict), or the kernel's "
			"preference and a note (best-effort)",
	},
	[MMP_KEY_DATA] = {
		.name = "data", .id = MMP_KEY_DATA, .type = MMP_T_ENUM, FIELD(data),
		.def = "pagecache", .values = mmp_data_names, .roles = CONDITION_KEY,
		.group = "where",
		.help = "mapping probes read the file's page-cache pages (where the kernel put "
			"them), or a copy in anonymous memory bound as membind says",
	},
	[MMP_KEY_HUGEPAGES] = {
		.name = "hugepages", .id = MMP_KEY_HUGEPAGES, .type = MMP_T_BOOL,
		FIELD(hugepages), .def = "no", .roles = CONDITION_KEY,
		.group = "where",
		.help = "data = anon: back the copy with huge pages (reserved ones if there are "
			"enough, else transparent ones; the CSV says how much it got); exec: "
			"MADV_HUGEPAGE on the program's large mappings (the preload library)",
	},
	[MMP_KEY_PREFAULT] = {
		.name = "prefault", .id = MMP_KEY_PREFAULT, .type = MMP_T_BOOL,
		FIELD(prefault), .def = "no", .roles = CONDITION_KEY,
		.group = "how",
		.help = "map the pages in before timing (MAP_POPULATE); exec: on the program's "
			"mappings, through the preload library",
	},
	[MMP_KEY_ADVICE] = {
		.name = "advice", .id = MMP_KEY_ADVICE, .type = MMP_T_ENUM, FIELD(advice),
		.def = "normal", .values = mmp_advice_names, .roles = CONDITION_KEY,
		.group = "how",
		.help = "madvise() on the mapping before timing",
	},
	[MMP_KEY_CACHE] = {
		.name = "cache", .id = MMP_KEY_CACHE, .type = MMP_T_ENUM, FIELD(cache),
		.def = "warm", .values = mmp_cache_names, .roles = CONDITION_KEY,
		.group = "how",
		.help = "page cache before each repetition: warm, drop (evict the file's pages), "
			"drop-all (also /proc/sys/vm/drop_caches, root)",
	},
	[MMP_KEY_REPEAT] = {
		.name = "repeat", .id = MMP_KEY_REPEAT, .type = MMP_T_REPEAT, FIELD(repeat),
		.def = "5", .min = 1, .max = MMP_MAX_ROUNDS, .flags = MMP_KEY_NO_SWEEP,
		.group = "how",
		.help = "recorded rounds of each run, or auto: rounds are added until every "
			"answer its comparison set asks is decided (at least 5, at most "
			"max_repeat, within max_time)",
	},
	[MMP_KEY_MAX_REPEAT] = {
		.name = "max_repeat", .id = MMP_KEY_MAX_REPEAT, .type = MMP_T_UINT,
		FIELD(max_repeat), .def = "40", .min = 5, .max = MMP_MAX_ROUNDS,
		.flags = MMP_KEY_NO_SWEEP, .group = "how",
		.help = "repeat = auto: the most rounds a comparison set runs",
	},
	[MMP_KEY_MAX_TIME] = {
		.name = "max_time", .id = MMP_KEY_MAX_TIME, .type = MMP_T_SECONDS,
		FIELD(max_time), .def = "60s", .min = 1, .max = 7 * 24 * 3600,
		.flags = MMP_KEY_NO_SWEEP, .group = "how",
		.help = "repeat = auto: the time one comparison set may take before its "
			"undecided answers are reported inconclusive",
	},
	[MMP_KEY_WARMUP] = {
		.name = "warmup", .id = MMP_KEY_WARMUP, .type = MMP_T_UINT, FIELD(warmup),
		.def = "1", .min = 0, .max = 1000, .flags = MMP_KEY_NO_SWEEP,
		.group = "how", .help = "repetitions run first and not recorded",
	},
	[MMP_KEY_EVENTS] = {
		.name = "events", .id = MMP_KEY_EVENTS, .type = MMP_T_EVENTS, FIELD(events),
		.def = "basic,faults,sched,syscalls,contention",
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "how",
		.help = "what to count (perf names, PMU names, tracepoints, presets) or none",
	},
	[MMP_KEY_CONTROLS] = {
		.name = "controls", .id = MMP_KEY_CONTROLS, .type = MMP_T_CONTROLS,
		FIELD(controls), .def = "none",
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "how",
		.help = "variants run beside each job, in the same rounds, to attribute its "
			"time to causes (mmprof --help lists them)",
	},
	[MMP_KEY_COMMAND] = {
		.name = "command", .id = MMP_KEY_COMMAND, .type = MMP_T_COMMAND,
		FIELD(command), .flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "exec",
		.help = "probe = exec: the program and its arguments, split like a shell word "
			"list (no shell), {file} {size} {threads} {access} {pus} ... filled in",
		.default_help = "required for exec",
	},
	[MMP_KEY_TIME] = {
		.name = "time", .id = MMP_KEY_TIME, .type = MMP_T_CAPTURE, FIELD(time),
		.def = "wall", .flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "exec",
		.help = "probe = exec: wall (its exec to its exit), or output:REGEX (the time it "
			"prints: 00:00:01.25, 12.5 ms; start-up and JIT left out)",
	},
	[MMP_KEY_RESULT] = {
		.name = "result", .id = MMP_KEY_RESULT, .type = MMP_T_CAPTURE, FIELD(result),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "exec",
		.help = "probe = exec: output:REGEX, the count it prints, checked against the "
			"data file's reference like a probe's result",
		.default_help = "not checked",
	},
	[MMP_KEY_TIMEOUT] = {
		.name = "timeout", .id = MMP_KEY_TIMEOUT, .type = MMP_T_SECONDS, FIELD(timeout),
		.def = "600s", .min = 1, .max = 7 * 24 * 3600, .flags = MMP_KEY_NO_SWEEP,
		.group = "exec",
		.help = "probe = exec: a process still running after this is stopped (SIGTERM, "
			"then SIGKILL) and its run fails",
	},
	[MMP_KEY_PROFILE] = {
		.name = "profile", .id = MMP_KEY_PROFILE, .type = MMP_T_RATE, FIELD(profile),
		.def = "1000", .min = 10, .max = 20000, .flags = MMP_KEY_NO_SWEEP,
		.group = "exec",
		.help = "probe = exec: samples per second of the program's CPU time (call "
			"chains, and one page fault in 64 with its address), or off "
			"(docs/profile.md)",
	},
	[MMP_KEY_ZIP] = {
		.name = "zip", .id = MMP_KEY_ZIP, .type = MMP_T_KEYLIST, FIELD(zip),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "job",
		.help = "keys whose lists advance together (probe, access: 1st with 1st) "
			"instead of their product",
		.default_help = "none",
	},
	[MMP_KEY_BASELINE] = {
		.name = "baseline", .id = MMP_KEY_BASELINE, .type = MMP_T_STRING,
		FIELD(baseline), .flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "job",
		.help = "other jobs; prints this job's time as a ratio to each, run by run",
		.default_help = "none",
	},
	[MMP_KEY_FIXES] = {
		.name = "fixes", .id = MMP_KEY_FIXES, .type = MMP_T_STRING, FIELD(fixes),
		.flags = MMP_KEY_NO_SWEEP, .group = "job",
		.help = "the job this one fixes: answers whether it closes that job's gap "
			"without slowing its multi-byte reads",
		.default_help = "none",
	},
	[MMP_KEY_TOLERANCE] = {
		.name = "tolerance", .id = MMP_KEY_TOLERANCE, .type = MMP_T_PERCENT,
		FIELD(tolerance), .def = "5%", .min = 0, .max = 100, .flags = MMP_KEY_NO_SWEEP,
		.group = "job",
		.help = "ratios within 1 +- this are the same: no regression, a tie",
	},
	[MMP_KEY_MODEL] = {
		.name = "model", .id = MMP_KEY_MODEL, .type = MMP_T_STRING, FIELD(model),
		.flags = MMP_KEY_NO_SWEEP | MMP_KEY_LIST_VALUE, .group = "job",
		.help = "jobs that model this one (a C model of a real program): run in the "
			"same rounds, and its ratios to its baselines shown beside theirs",
		.default_help = "none",
	},
	[MMP_KEY_TABLE] = {
		.name = "table", .id = MMP_KEY_TABLE, .type = MMP_T_ENUM, FIELD(table),
		.def = "runs", .values = mmp_table_names,
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "terminal table: one row per run, or per file size a column per method "
			"(the read/mmap/fread seed's shape), or both",
	},
	[MMP_KEY_CSV] = {
		.name = "csv", .id = MMP_KEY_CSV, .type = MMP_T_STRING, FIELD(csv),
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "CSV output path, {host} replaced by the host name (--csv overrides)",
		.default_help = "results/CONFIG.csv",
	},
	[MMP_KEY_ORDER] = {
		.name = "order", .id = MMP_KEY_ORDER, .type = MMP_T_ENUM, FIELD(order),
		.def = "interleaved", .values = mmp_order_names,
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "runs that are compared: in rounds of one repetition each, shuffled "
			"every round (interleaved), or every repetition of one run after another",
	},
	[MMP_KEY_ORDER_SEED] = {
		.name = "order_seed", .id = MMP_KEY_ORDER_SEED, .type = MMP_T_UINT,
		FIELD(order_seed), .min = 1, .max = UINT64_MAX,
		.flags = MMP_KEY_GLOBAL_ONLY | MMP_KEY_NO_SWEEP, .roles = MMP_ROLE_HIDDEN,
		.group = "config",
		.help = "seed of the rounds' shuffled order (recorded in the CSV; set it to "
			"repeat an order)",
		.default_help = "drawn at start",
	},
};

const char *const mmp_key_role_names[MMP_ROLE_COUNT] = {
	"run", "compare", "condition", "label", "hidden",
};

uint64_t mmp_keys_with(unsigned roles)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		if ((mmp_keys[i].roles & roles) == roles)
			mask |= MMP_KEY_BIT(i);
	return mask;
}

const struct mmp_key *mmp_key_find(const char *name)
{
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		if (strcmp(mmp_keys[i].name, name) == 0)
			return &mmp_keys[i];
	return NULL;
}

static size_t count_names(const char *const *names)
{
	size_t n = 0;
	while (names[n])
		n++;
	return n;
}

static void append_hint(char *err, size_t errlen, const char *hint,
			const char *const *names)
{
	size_t used = strlen(err);
	if (hint) {
		snprintf(err + used, errlen - used, " (did you mean '%s'?)", hint);
		return;
	}
	used += (size_t)snprintf(err + used, errlen - used, " (one of:");
	for (size_t i = 0; names[i] && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, " %s", names[i]);
	if (used < errlen)
		snprintf(err + used, errlen - used, ")");
}

static int parse_enum(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	for (int i = 0; key->values[i]; i++) {
		if (strcmp(key->values[i], text) == 0) {
			*(int *)dst = i;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not a valid %s", text, key->name);
	append_hint(err, errlen, mmp_suggest(text, key->values, count_names(key->values)),
		    key->values);
	return -EINVAL;
}

static int parse_probe(const char *text, void *dst, char *err, size_t errlen)
{
	size_t n;
	const struct mmp_probe *const *all = mmp_probe_all(&n);
	const struct mmp_probe *p = mmp_probe_find(text);
	const char *names[64];

	if (p) {
		*(const struct mmp_probe **)dst = p;
		return 0;
	}
	for (size_t i = 0; i < n && i < 63; i++)
		names[i] = all[i]->name;
	names[n < 63 ? n : 63] = NULL;
	snprintf(err, errlen, "unknown probe '%s'", text);
	append_hint(err, errlen, mmp_suggest(text, names, n), names);
	return -EINVAL;
}

static int parse_bool(const char *text, void *dst, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (strcmp(text, yes[i]) == 0) {
			*(bool *)dst = true;
			return 0;
		}
		if (strcmp(text, no[i]) == 0) {
			*(bool *)dst = false;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not yes or no", text);
	return -EINVAL;
}

static int parse_number(const struct mmp_key *key, const char *text, void *dst,
			char *err, size_t errlen)
{
	uint64_t v;
	char a[32], b[32];
	int rc = key->type == MMP_T_SIZE ? mmp_parse_size(text, &v) : mmp_parse_u64(text, &v);

	if (rc == -ERANGE) {
		snprintf(err, errlen, "'%s' does not fit in 64 bits", text);
		return -EINVAL;
	}
	if (rc) {
		if (key->type == MMP_T_SIZE)
			snprintf(err, errlen, "'%s' is not a size (e.g. 512, 4K, 100M, 1G)", text);
		else
			snprintf(err, errlen, "'%s' is not a whole number", text);
		return -EINVAL;
	}
	if (v < key->min || v > key->max) {
		if (key->type == MMP_T_SIZE)
			snprintf(err, errlen, "%s = %s is out of range (%s to %s)", key->name,
				 text, mmp_format_size(key->min, a, sizeof(a)),
				 mmp_format_size(key->max, b, sizeof(b)));
		else
			snprintf(err, errlen, "%s = %s is out of range (%llu to %llu)",
				 key->name, text, (unsigned long long)key->min,
				 (unsigned long long)key->max);
		return -EINVAL;
	}
	if (key->width == sizeof(uint32_t))
		*(uint32_t *)dst = (uint32_t)v;
	else
		*(uint64_t *)dst = v;
	return 0;
}

/* off, or a rate: 1000, 1000Hz, 4kHz. */
static int parse_rate(const struct mmp_key *key, const char *text, void *dst, char *err,
		      size_t errlen)
{
	char num[32];
	uint64_t scale = 1;
	size_t n = strlen(text);

	if (strcmp(text, "off") == 0) {
		*(uint32_t *)dst = 0;
		return 0;
	}
	if (n > 3 && strcasecmp(text + n - 3, "kHz") == 0) {
		n -= 3;
		scale = 1000;
	} else if (n > 2 && strcasecmp(text + n - 2, "Hz") == 0) {
		n -= 2;
	}
	if (n == 0 || n >= sizeof(num)) {
		snprintf(err, errlen, "'%s' is not a rate (off, 1000, 1000Hz, 4kHz)", text);
		return -EINVAL;
	}
	memcpy(num, text, n);
	num[n] = '\0';
	uint64_t v;
	if (mmp_parse_u64(num, &v) || v > UINT32_MAX / scale) {
		snprintf(err, errlen, "'%s' is not a rate (off, 1000, 1000Hz, 4kHz)", text);
		return -EINVAL;
	}
	v *= scale;
	if (v < key->min || v > key->max) {
		snprintf(err, errlen, "%s = %s is out of range (%llu to %llu Hz, or off)", key->name,
			 text, (unsigned long long)key->min, (unsigned long long)key->max);
		return -EINVAL;
	}
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

static int parse_keylist(const char *text, void *dst, char *err, size_t errlen)
{
	uint64_t mask = 0;
	char *copy = strdup(text), *save = NULL;
	const char *names[MMP_KEY_COUNT + 1];
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < MMP_KEY_COUNT; i++)
		names[i] = mmp_keys[i].name;
	names[MMP_KEY_COUNT] = NULL;
	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		const struct mmp_key *k = mmp_key_find(tok);
		if (!k) {
			snprintf(err, errlen, "unknown key '%s'", tok);
			const char *hint = mmp_suggest(tok, names, MMP_KEY_COUNT);
			if (hint)
				snprintf(err + strlen(err), errlen - strlen(err),
					 " (did you mean '%s'?)", hint);
			rc = -EINVAL;
			break;
		}
		if (k->flags & MMP_KEY_NO_SWEEP) {
			snprintf(err, errlen, "'%s' takes one value, it cannot be zipped", tok);
			rc = -EINVAL;
			break;
		}
		mask |= MMP_KEY_BIT(k->id);
	}
	if (!rc && __builtin_popcountll(mask) < 2) {
		snprintf(err, errlen, "zip needs at least two keys (e.g. zip = probe, access)");
		rc = -EINVAL;
	}
	free(copy);
	if (!rc)
		*(uint64_t *)dst = mask;
	return rc;
}

/* A decimal number with an optional unit from units[] (suffix, factor);
 * the first unit is the default. */
struct unit {
	const char *suffix;
	double factor;
};

static int parse_scaled(const struct mmp_key *key, const char *text, const struct unit *units,
			size_t nunits, const char *example, double *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	double factor = -1;
	if (end == text || errno || !isfinite(v) || v < 0 || isspace((unsigned char)*text))
		goto bad;
	for (size_t i = 0; i < nunits && factor < 0; i++)
		if (strcmp(end, units[i].suffix) == 0)
			factor = units[i].factor;
	if (factor < 0)
		goto bad;
	*out = v * factor;
	if (*out < (double)key->min || *out > (double)key->max) {
		snprintf(err, errlen, "%s = %s is out of range (%llu%s to %llu%s)", key->name, text,
			 (unsigned long long)key->min, units[0].suffix,
			 (unsigned long long)key->max, units[0].suffix);
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not a %s (e.g. %s)", text, key->name, example);
	return -EINVAL;
}

static int parse_percent(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	static const struct unit units[] = { { "%", 1 } };
	double v;
	/* A bare fraction (0.05) is accepted too; a bare 5 would be ambiguous. */
	char *end;
	double bare = strtod(text, &end);
	if (end != text && *end == '\0' && bare >= 0 && bare <= 1) {
		*(double *)dst = bare;
		return 0;
	}
	if (parse_scaled(key, text, units, 1, "5% or 0.05", &v, err, errlen))
		return -EINVAL;
	*(double *)dst = v / 100;
	return 0;
}

static int parse_seconds(const struct mmp_key *key, const char *text, void *dst, char *err,
			 size_t errlen)
{
	static const struct unit units[] = {
		{ "s", 1 }, { "", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "min", 60 }, { "h", 3600 },
	};
	return parse_scaled(key, text, units, sizeof(units) / sizeof(units[0]), "90s, 2m, 1h",
			    (double *)dst, err, errlen);
}

int mmp_key_parse(const struct mmp_key *key, const char *text, void *dst, char *err,
		  size_t errlen)
{
	switch (key->type) {
	case MMP_T_REPEAT:
		if (strcmp(text, "auto") == 0) {
			*(uint32_t *)dst = 0;
			return 0;
		}
		return parse_number(key, text, dst, err, errlen);
	case MMP_T_RATE:
		return parse_rate(key, text, dst, err, errlen);
	case MMP_T_PERCENT:
		return parse_percent(key, text, dst, err, errlen);
	case MMP_T_MEMBIND:
		return mmp_membind_parse(text, dst, err, errlen);
	case MMP_T_SECONDS:
		return parse_seconds(key, text, dst, err, errlen);
	case MMP_T_STRING:
		*(const char **)dst = text;
		return 0;
	case MMP_T_CONTROLS: {
		unsigned mask;
		if (mmp_controls_parse(text, &mask, err, errlen))
			return -EINVAL;
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_EVENTS: {
		struct mmp_event_set set;
		int rc = mmp_events_resolve(text, &set, err, errlen);
		mmp_event_set_free(&set);
		if (rc)
			return rc == -ENOMEM ? rc : -EINVAL;
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_SIZE:
	case MMP_T_UINT:
		return parse_number(key, text, dst, err, errlen);
	case MMP_T_ENUM:
		return parse_enum(key, text, dst, err, errlen);
	case MMP_T_BOOL:
		return parse_bool(text, dst, err, errlen);
	case MMP_T_PROBE:
		return parse_probe(text, dst, err, errlen);
	case MMP_T_PLACEMENT:
		return mmp_placement_parse(text, dst, err, errlen);
	case MMP_T_COMMAND: {
		struct mmp_argv argv;
		char msg[400];
		int rc = mmp_command_expand(text, NULL, &argv, msg, sizeof(msg));
		mmp_command_free(&argv);
		if (rc) {
			snprintf(err, errlen, "command: %s", msg);
			return rc == -ENOMEM ? rc : -EINVAL;
		}
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_CAPTURE: {
		char msg[400];
		int rc = mmp_capture_check(text, key->id == MMP_KEY_TIME, msg, sizeof(msg));
		if (rc) {
			snprintf(err, errlen, "%s: %s", key->name, msg);
			return rc == -ENOMEM ? rc : -EINVAL;
		}
		*(const char **)dst = text;
		return 0;
	}
	case MMP_T_KEYLIST:
		return parse_keylist(text, dst, err, errlen);
	}
	return -EINVAL;
}

const char *mmp_key_format(const struct mmp_key *key, const void *src, char *buf,
			   size_t len)
{
	buf[0] = '\0';
	switch (key->type) {
	case MMP_T_REPEAT:
		if (*(const uint32_t *)src == 0)
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%u", *(const uint32_t *)src);
		break;
	case MMP_T_PERCENT:
		snprintf(buf, len, "%g%%", *(const double *)src * 100);
		break;
	case MMP_T_RATE:
		if (*(const uint32_t *)src == 0)
			snprintf(buf, len, "off");
		else
			snprintf(buf, len, "%u", *(const uint32_t *)src);
		break;
	case MMP_T_MEMBIND:
		snprintf(buf, len, "%s", ((const struct mmp_membind *)src)->spec);
		break;
	case MMP_T_SECONDS:
		snprintf(buf, len, "%gs", *(const double *)src);
		break;
	case MMP_T_STRING:
	case MMP_T_EVENTS:
	case MMP_T_CONTROLS:
	case MMP_T_COMMAND:
	case MMP_T_CAPTURE: {
		const char *s = *(const char *const *)src;
		snprintf(buf, len, "%s", s ? s : "");
		break;
	}
	case MMP_T_SIZE: {
		uint64_t v = *(const uint64_t *)src;
		if (v)
			mmp_format_size(v, buf, len);
		break;
	}
	case MMP_T_UINT:
		if (key->width == sizeof(uint32_t))
			snprintf(buf, len, "%u", *(const uint32_t *)src);
		else
			snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)src);
		break;
	case MMP_T_ENUM:
		snprintf(buf, len, "%s", key->values[*(const int *)src]);
		break;
	case MMP_T_BOOL:
		snprintf(buf, len, "%s", *(const bool *)src ? "yes" : "no");
		break;
	case MMP_T_PROBE: {
		const struct mmp_probe *p = *(const struct mmp_probe *const *)src;
		snprintf(buf, len, "%s", p ? p->name : "");
		break;
	}
	case MMP_T_PLACEMENT:
		snprintf(buf, len, "%s", ((const struct mmp_placement *)src)->spec);
		break;
	case MMP_T_KEYLIST: {
		uint64_t mask = *(const uint64_t *)src;
		size_t used = 0;
		for (size_t i = 0; i < MMP_KEY_COUNT && used < len; i++)
			if (mask & MMP_KEY_BIT(i))
				used += (size_t)snprintf(buf + used, len - used, "%s%s",
							 used ? ", " : "", mmp_keys[i].name);
		break;
	}
	}
	return buf;
}

/* [begin, end) trimmed, with each "\\," made a comma. */
static char *trimmed_copy(const char *begin, const char *end)
{
	while (begin < end && isspace((unsigned char)*begin))
		begin++;
	while (end > begin && isspace((unsigned char)end[-1]))
		end--;
	char *out = strndup(begin, (size_t)(end - begin));
	if (!out)
		return NULL;
	char *w = out;
	for (const char *r = out; *r; r++) {
		if (r[0] == '\\' && r[1] == ',')
			r++;
		*w++ = *r;
	}
	*w = '\0';
	return out;
}

/* A path key (file, csv) whose whole value names something that exists
 * ("a,b/d.bin") is that one path, not a list. */
static int one_existing_path(const struct mmp_key *key, const char *text)
{
	struct stat st;
	if (key->id != MMP_KEY_FILE && key->id != MMP_KEY_CSV)
		return 0;
	char *whole = trimmed_copy(text, text + strlen(text));
	int exists = whole && strchr(whole, ',') && stat(whole, &st) == 0;
	free(whole);
	return exists;
}

int mmp_key_split(const struct mmp_key *key, const char *text, char ***items)
{
	size_t n = 0, cap = 4;
	char **out = calloc(cap, sizeof(*out));
	const char *p = text;

	if (!out)
		return -ENOMEM;
	int whole = (key->flags & MMP_KEY_LIST_VALUE) || one_existing_path(key, text);
	for (;;) {
		const char *comma = whole ? NULL : mmp_list_comma(p);
		const char *end = comma ? comma : p + strlen(p);
		char *item = trimmed_copy(p, end);
		if (!item)
			goto nomem;
		/* "pus:0-3,8", "numa:0,2", "interleave:0,2": a placement's or
		 * a policy's list goes on after its comma while the next piece
		 * is a number or a range. */
		if (n > 0 && ((key->type == MMP_T_PLACEMENT &&
			       mmp_placement_list_continues(out[n - 1], item)) ||
			      (key->type == MMP_T_MEMBIND &&
			       mmp_membind_list_continues(out[n - 1], item)))) {
			size_t la = strlen(out[n - 1]), lb = strlen(item);
			char *joined = realloc(out[n - 1], la + lb + 2);
			if (!joined) {
				free(item);
				goto nomem;
			}
			joined[la] = ',';
			memcpy(joined + la + 1, item, lb + 1);
			out[n - 1] = joined;
			free(item);
		} else {
			if (item[0] == '\0') {
				free(item);
				mmp_key_free_items(out, n);
				return -EINVAL;
			}
			if (n == cap) {
				char **grown = realloc(out, 2 * cap * sizeof(*out));
				if (!grown) {
					free(item);
					goto nomem;
				}
				out = grown;
				cap *= 2;
			}
			out[n++] = item;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*items = out;
	return (int)n;
nomem:
	mmp_key_free_items(out, n);
	return -ENOMEM;
}

void mmp_key_free_items(char **items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

static void limits_text(const struct mmp_key *k, char *buf, size_t len)
{
	char a[32], b[32];
	size_t used = 0;

	buf[0] = '\0';
	switch (k->type) {
	case MMP_T_ENUM:
		for (int i = 0; k->values[i] && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
						 k->values[i]);
		break;
	case MMP_T_SIZE:
		snprintf(buf, len, "%s to %s", mmp_format_size(k->min, a, sizeof(a)),
			 mmp_format_size(k->max, b, sizeof(b)));
		break;
	case MMP_T_UINT:
		if (k->max == UINT64_MAX)
			snprintf(buf, len, "any");
		else
			snprintf(buf, len, "%llu to %llu", (unsigned long long)k->min,
				 (unsigned long long)k->max);
		break;
	case MMP_T_BOOL:
		snprintf(buf, len, "yes, no");
		break;
	case MMP_T_PROBE:
		snprintf(buf, len, "see --list-probes");
		break;
	case MMP_T_PLACEMENT:
		mmp_placement_syntax(buf, len);
		break;
	case MMP_T_KEYLIST:
		snprintf(buf, len, "key names");
		break;
	case MMP_T_STRING:
		snprintf(buf, len, k->id == MMP_KEY_BASELINE || k->id == MMP_KEY_MODEL ? "job names"
				   : k->id == MMP_KEY_FIXES			       ? "a job name"
									       : "a path");
		break;
	case MMP_T_COMMAND:
		snprintf(buf, len, "words; placeholders %s", mmp_command_placeholders());
		break;
	case MMP_T_CAPTURE:
		snprintf(buf, len, "%soutput:REGEX (POSIX extended, \\d allowed)",
			 k->id == MMP_KEY_TIME ? "wall, " : "");
		break;
	case MMP_T_EVENTS:
		snprintf(buf, len, "names and presets, see --list-events; none");
		break;
	case MMP_T_CONTROLS:
		snprintf(buf, len, "auto, none, or a list of: %s", mmp_controls_names());
		break;
	case MMP_T_REPEAT:
		snprintf(buf, len, "auto, or %llu to %llu", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		break;
	case MMP_T_RATE:
		snprintf(buf, len, "off, or %llu to %llu (Hz; 4kHz)", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		break;
	case MMP_T_PERCENT:
		snprintf(buf, len, "%llu%% to %llu%%", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		break;
	case MMP_T_SECONDS:
		snprintf(buf, len, "%llus to %llus", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		break;
	case MMP_T_MEMBIND:
		snprintf(buf, len, "firsttouch, local, node:N, node:*, interleave[:LIST]");
		break;
	}
}

/* key TAB roles: what analysis/keys.tsv holds (scripts/update-docs.sh). */
static void print_roles(FILE *out)
{
	fprintf(out, "key\troles\n");
	for (size_t i = 0; i < MMP_KEY_COUNT; i++) {
		fprintf(out, "%s\t", mmp_keys[i].name);
		int n = 0;
		for (size_t r = 0; r < MMP_ROLE_COUNT; r++)
			if (mmp_keys[i].roles & (1u << r))
				fprintf(out, "%s%s", n++ ? "," : "", mmp_key_role_names[r]);
		fprintf(out, "%s\n", n ? "" : "-");
	}
}

void mmp_keys_print(FILE *out, enum mmp_list_format format)
{
	char limits[160];
	int markdown = format == MMP_LIST_MARKDOWN;

	if (format == MMP_LIST_ROLES) {
		print_roles(out);
		return;
	}

	if (markdown) {
		fprintf(out, "| key | default | values | sweeps | what it sets |\n");
		fprintf(out, "|---|---|---|---|---|\n");
	}
	const char *group = NULL;
	for (size_t i = 0; i < MMP_KEY_COUNT; i++) {
		const struct mmp_key *k = &mmp_keys[i];
		const char *def = k->def ? k->def : k->default_help;
		const char *sweep = (k->flags & MMP_KEY_NO_SWEEP) ? "no" : "yes";
		limits_text(k, limits, sizeof(limits));
		if (markdown) {
			fprintf(out, "| `%s` | %s | %s | %s | %s%s |\n", k->name, def, limits,
				sweep, k->help,
				(k->flags & MMP_KEY_GLOBAL_ONLY) ? " ([global] only)" : "");
			continue;
		}
		if (!group || strcmp(group, k->group) != 0) {
			group = k->group;
			fprintf(out, "  %s:\n", group);
		}
		fprintf(out, "    %-10s %s%s\n", k->name, k->help,
			(k->flags & MMP_KEY_GLOBAL_ONLY) ? " ([global] only)" : "");
		fprintf(out, "    %-10s default: %s; values: %s%s\n", "", def, limits,
			(k->flags & MMP_KEY_NO_SWEEP) ? "; no sweep" : "");
	}
}
